"""The Game: JSON for options, states and actions; malformed input names its field."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import FormatError
from rules.geometry import FieldPoint
from rules.the_game import (
    Act,
    Exit,
    Footprint,
    Move,
    Pass,
    PieceSpec,
    Setup,
    Split,
    Stay,
    Take,
    TheGame,
)
from rules.the_game.model import Response, SplitStage

GAME = TheGame()
STONE = Footprint.polygon((FieldPoint(0.7, 0), FieldPoint(0.2, 0.6), FieldPoint(-0.6, 0.4),
                           FieldPoint(-0.5, -0.5)))


def played() -> Any:
    """A state with most parts filled in: a finished sequence, pieces down and off, varied
    footprints, a handover."""
    game = TheGame()
    s = game.apply(game.initial_state(), Setup((
        PieceSpec("R1", "red", FieldPoint(12, 5), 90),
        PieceSpec("B1", "blue", FieldPoint(12, 19), 270),
    ), "red")).state
    s = game.apply(game.apply(s, Exit("R1")).state, Exit("B1")).state  # sequence 1 over
    s = game.apply(s, Setup((
        PieceSpec("R1", "red", FieldPoint(12, 11), 90, Footprint.rectangle(2, 0.5)),
        PieceSpec("R2", "red", FieldPoint(8, 8), 90, STONE),
        PieceSpec("R3", "red", FieldPoint(16, 8), 90),
        PieceSpec("B1", "blue", FieldPoint(12, 13.5), 270, Footprint.ellipse(1.5, 0.8)),
    ), "red")).state
    s = game.apply(game.apply(s, Pass("red")).state, Pass("blue")).state
    s = game.apply(s, Act("R1", "B1"), [6]).state
    s = game.apply(s, Split("red", ("R3",))).state  # R3 goes to blue
    return s


@pytest.mark.parametrize("state_maker", [
    lambda: GAME.initial_state(),
    played,
    lambda: replace(played(), response=Response("R3", "R1")),
    lambda: replace(played(), split=SplitStage("red", ("R1",))),
])
def test_states_round_trip_exactly(state_maker: Any) -> None:
    state = state_maker()
    data = GAME.state_to_json(state)
    again = GAME.state_from_json(json.loads(json.dumps(data)))
    assert again == state
    assert GAME.state_to_json(again) == data


def test_the_full_state_shows_records_handovers_and_presence() -> None:
    data = GAME.state_to_json(played())
    assert data["sequence"] == 2 and data["phase"] == "movement"
    assert data["records"][0]["last_piece"] == "B1"
    assert data["record"]["handovers"] == [{"splitter": "red", "receiver": "blue",
                                            "pieces": ["R3"]}]
    assert [p["presence"] for p in data["pieces"]] == ["in-play", "in-play", "in-play", "down"]
    assert data["pieces"][1]["footprint"]["shape"] == "polygon"


@pytest.mark.parametrize(
    "action",
    [
        Setup((PieceSpec("R1", "red", FieldPoint(1.5, 2), 90),
               PieceSpec("B1", "blue", FieldPoint(3, 20.25), 270, Footprint.rectangle(3, 0.5)),
               PieceSpec("B2", "blue", FieldPoint(9, 20), 270, STONE)), "blue"),
        Move("R1", FieldPoint(3.25, 4.5), 92.5),
        Move("R1", FieldPoint(3.25, 4.5), None),
        Exit("B2"),
        Stay("R1"),
        Pass("blue"),
        Act("R1", "B2"),
        Act("R1", "B2", FieldPoint(7.1, 8.2)),
        Split("red", ("R1", "R3")),
        Take("blue", ("R2",)),
    ],
)
def test_actions_round_trip_exactly(action: Any) -> None:
    data = GAME.action_to_json(action)
    assert GAME.action_from_json(json.loads(json.dumps(data))) == action


def test_options_round_trip() -> None:
    options = {"field_width": 36, "sides": ["green", "gold"], "field_of_vision": 120,
               "footprint": {"shape": "rectangle", "length": 2, "width": 1},
               "scoring": "knockdowns", "unobserved_full_move": False}
    game = TheGame.from_options(options)
    assert TheGame.from_options(game.options_to_json()).options == game.options
    assert game.players() == ("green", "gold")


def test_a_hand_written_position_may_leave_out_defaults() -> None:
    s = GAME.state_from_json({
        "phase": "movement", "turn": 1, "first": "red", "next": "red",
        "pieces": [{"id": "R1", "side": "red", "at": {"x": 5, "y": 5}, "facing": 450},
                   {"id": "B1", "side": "blue", "at": {"x": 9, "y": 5}, "facing": 180}],
    })
    r1 = s.piece("R1")
    assert (r1.controller, r1.facing, r1.idle, r1.footprint) == ("red", 90.0, 0,
                                                                 GAME.options.footprint)
    assert GAME.verdict(s, Move("R1", FieldPoint(9, 9), None)).legal


ACTION_ERRORS = [
    ([], "action"),
    ({}, "action.type"),
    ({"type": "jump", "piece": "R1"}, "action.type"),
    ({"type": "stay", "piece": "R1", "speed": 3}, "action.speed"),
    ({"type": "stay", "piece": ""}, "action.piece"),
    ({"type": "stay", "piece": 7}, "action.piece"),
    ({"type": "move", "piece": "R1"}, "action.to"),
    ({"type": "move", "piece": "R1", "to": [1, 2]}, "action.to"),
    ({"type": "move", "piece": "R1", "to": {"x": "1", "y": 2}}, "action.to.x"),
    ({"type": "move", "piece": "R1", "to": {"x": 1, "y": float("nan")}}, "action.to.y"),
    ({"type": "move", "piece": "R1", "to": {"x": 1, "y": 2, "z": 0}}, "action.to.z"),
    ({"type": "move", "piece": "R1", "to": {"x": 1, "y": 2}, "facing": "north"}, "action.facing"),
    ({"type": "move", "piece": "R1", "to": {"x": 1, "y": 2}, "facing": float("inf")},
     "action.facing"),
    ({"type": "act", "piece": "R1"}, "action.target"),
    ({"type": "act", "piece": "R1", "target": "B1", "to": {"x": 1}}, "action.to.y"),
    ({"type": "pass", "player": "green"}, "action.player"),
    ({"type": "split", "player": "red", "group": "R1"}, "action.group"),
    ({"type": "split", "player": "red", "group": ["R1", 2]}, "action.group[1]"),
    ({"type": "take", "player": "red"}, "action.group"),
    ({"type": "setup", "first": "red"}, "action.pieces"),
    ({"type": "setup", "first": "red", "pieces": [{"id": "R1", "side": "red", "facing": 0}]},
     "action.pieces[0].at"),
    ({"type": "setup", "first": "red", "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 1, "y": 1}, "facing": 0,
         "footprint": {"shape": "blob"}}]}, "action.pieces[0].footprint.shape"),
    ({"type": "setup", "first": "red", "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 1, "y": 1}, "facing": 0,
         "footprint": {"shape": "ellipse", "length": -1, "width": 1}}]},
     "action.pieces[0].footprint"),
    ({"type": "setup", "first": "red", "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 1, "y": 1}, "facing": 0,
         "footprint": {"shape": "ellipse", "length": 1, "width": 1, "points": []}}]},
     "action.pieces[0].footprint.points"),
    ({"type": "setup", "first": "red", "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 1, "y": 1}, "facing": 0,
         "footprint": {"shape": "polygon", "points": [{"x": 1, "y": 0}, {"x": 0, "y": 1},
                                                      {"x": -1, "y": "0"}]}}]},
     "action.pieces[0].footprint.points[2].y"),
    ({"type": "setup", "first": "red", "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 1, "y": 1}, "facing": 0,
         "footprint": {"shape": "polygon", "points": [{"x": 1, "y": 0}, {"x": -1, "y": 1},
                                                      {"x": 0, "y": 0.2}, {"x": -1, "y": -1}]}}]},
     "action.pieces[0].footprint"),
]


@pytest.mark.parametrize("data, field", ACTION_ERRORS)
def test_malformed_actions_name_their_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as info:
        GAME.action_from_json(data)
    assert info.value.field == field


def _state_with(edit: Any) -> dict[str, Any]:
    data = copy.deepcopy(GAME.state_to_json(played()))
    edit(data)
    return data


STATE_ERRORS = [
    (lambda d: d.update(phase="lunch"), "position.phase"),
    (lambda d: d.update(turn="1"), "position.turn"),
    (lambda d: d.update(sequence=8), "position.sequence"),
    (lambda d: d.update(first=None), "position.first"),
    (lambda d: d.update(next="green"), "position.next"),
    (lambda d: d.update(next=None), "position.next"),
    (lambda d: d.update(extra=1), "position.extra"),
    (lambda d: d["pieces"][2]["at"].update(y="far"), "position.pieces[2].at.y"),
    (lambda d: d["pieces"][0].update(side="green"), "position.pieces[0].side"),
    (lambda d: d["pieces"][1].update(id="R1"), "position.pieces[1].id"),
    (lambda d: d["pieces"][1].update(idle=-1), "position.pieces[1].idle"),
    (lambda d: d["pieces"][1].update(presence="asleep"), "position.pieces[1].presence"),
    (lambda d: d["pieces"][1].update(done="yes"), "position.pieces[1].done"),
    (lambda d: d["pieces"][3]["footprint"].update(width=0), "position.pieces[3].footprint"),
    (lambda d: d["pieces"][0].pop("facing"), "position.pieces[0].facing"),
    (lambda d: d.update(pieces={}), "position.pieces"),
    (lambda d: d.update(response={"responder": "B1", "actor": "R9"}), "position.response.actor"),
    (lambda d: d.update(split={"splitter": "green"}), "position.split.splitter"),
    (lambda d: d.update(split={"splitter": "red", "offer": ["R1", "Q"]}),
     "position.split.offer[1]"),
    (lambda d: d.update(records=[]), "position.records"),
    (lambda d: d["records"][0]["departures"][0].update(player="green"),
     "position.records[0].departures[0].player"),
    (lambda d: d["record"]["handovers"][0].pop("pieces"), "position.record.handovers[0].pieces"),
    (lambda d: d["record"].update(last_piece=3), "position.record.last_piece"),
]


@pytest.mark.parametrize("edit, field", STATE_ERRORS)
def test_malformed_states_name_their_field(edit: Any, field: str) -> None:
    with pytest.raises(FormatError) as info:
        GAME.state_from_json(_state_with(edit))
    assert info.value.field == field


@pytest.mark.parametrize(
    "options, field",
    [
        ({"field_width": -2}, "options.field_width"),
        ({"field_depth": "24"}, "options.field_depth"),
        ({"tolerance": -0.1}, "options.tolerance"),
        ({"field_of_vision": 0}, "options.field_of_vision"),
        ({"field_of_vision": 400}, "options.field_of_vision"),
        ({"sequences": 0}, "options.sequences"),
        ({"idle_turns": 1.5}, "options.idle_turns"),
        ({"observed_roll": 7}, "options.observed_roll"),
        ({"sides": ["red"]}, "options.sides"),
        ({"sides": ["red", "red"]}, "options.sides"),
        ({"sides": ["red", ""]}, "options.sides[1]"),
        ({"scoring": "points"}, "options.scoring"),
        ({"unobserved_must_move": "yes"}, "options.unobserved_must_move"),
        ({"footprint": {"shape": "rectangle", "length": 1}}, "options.footprint.width"),
        ({"field_widht": 30}, "options.field_widht"),
        ([], "options"),
    ],
)
def test_bad_options_name_their_field(options: Any, field: str) -> None:
    with pytest.raises(FormatError) as info:
        TheGame.from_options(options)
    assert info.value.field == field


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.floats(allow_nan=True)
    | st.text(max_size=6) | st.sampled_from(["red", "blue", "R1", "move", "act", "setup",
                                             "polygon", "movement"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "piece", "to", "x", "y", "facing", "target", "group",
                         "player", "pieces", "id", "side", "at", "footprint", "shape",
                         "points", "length", "width", "phase", "first", "next", "records"]),
        inner, max_size=6),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(json_values)
def test_any_json_is_read_or_refused_with_a_format_error(data: Any) -> None:
    for reader in (GAME.action_from_json, GAME.state_from_json):
        try:
            reader(data)
        except FormatError as err:
            assert err.field  # always names where the problem is

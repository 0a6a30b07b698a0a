"""OneWorld JSON: options, actions and positions (the formats of docs/games/oneworld.md),
their round trips and the errors that name the bad field."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from oneworld_support import BORG, CHEZ, H

from rules import get_game
from rules.errors import FormatError
from rules.oneworld import (
    Aspect,
    Child,
    ChooseTower,
    End,
    EndMovement,
    God,
    GodMove,
    GodTransform,
    Move,
    OneWorld,
    OneWorldOptions,
    Phase,
    Position,
    SetUp,
    TowerDirection,
    Transform,
)
from rules.oneworld.model import Combat
from rules.oneworld.setup import example_setup

GAME = OneWorld()

# -- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"god_lives": 2},
        {"borg_lives": 1, "chez_lives": 3, "borg_god_powers": 2},
        {"tower_elimination": True},
        {"moving_towers": "counterclockwise", "friendly_obstacle": True, "pylon_movement": True},
        {"stacking_limit": 3, "children_per_side": 26, "more_balance": True, "chaos_gambit_1": True},
        {"chaos_gambit_2": True, "non_aligned_towers": True, "new_geography": True, "frustration_clause": True},
        {"flee_while_you_can": True, "singing_grasses": True, "god_powers": 1, "map": "default"},
    ],
)
def test_options_round_trip(options: dict[str, Any]) -> None:
    o = OneWorldOptions.from_json(options)
    data = o.to_json()
    assert json.loads(json.dumps(data)) == data
    assert OneWorldOptions.from_json(data) == o
    assert OneWorld.from_options(options).options_to_json() == data


def test_options_json_names_the_lives_always_and_other_fields_when_changed() -> None:
    assert OneWorldOptions().to_json() == {"borg_lives": 3, "chez_lives": 3}
    assert OneWorldOptions.from_json({"moving_towers": "clockwise", "god_lives": 2, "friendly_obstacle": True}).to_json() == {
        "borg_lives": 2,
        "chez_lives": 2,
        "friendly_obstacle": True,
        "moving_towers": "clockwise",
    }
    assert OneWorldOptions.from_json({"moving_towers": None}).moving_towers is None
    assert OneWorldOptions.from_json({"moving_towers": "clockwise"}).moving_towers is TowerDirection.CLOCKWISE


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"stacking_limt": 3}, "options.stacking_limt"),
        ({"stacking_limit": "3"}, "options.stacking_limit"),
        ({"stacking_limit": 0}, "options.stacking_limit"),
        ({"stacking_limit": 100}, "options.stacking_limit"),
        ({"friendly_obstacle": 1}, "options.friendly_obstacle"),
        ({"god_lives": 0}, "options.god_lives"),
        ({"borg_lives": 0}, "options.borg_lives"),
        ({"children_per_side": 0}, "options.children_per_side"),
        ({"moving_towers": "sideways"}, "options.moving_towers"),
        ({"map": 3}, "options.map"),
        ({"map": "atlantis"}, "options.map"),
        ({"tower_elimination": True, "more_balance": True}, "options.tower_elimination"),
    ],
)
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(FormatError) as err:
        OneWorld.from_options(options)
    assert err.value.field == field


def test_options_must_be_an_object() -> None:
    with pytest.raises(FormatError) as err:
        OneWorldOptions.from_json([1, 2])
    assert err.value.field == "options"


def test_the_registry_builds_the_engine_from_json_options() -> None:
    game = get_game("oneworld", {"god_lives": 2})
    assert isinstance(game, OneWorld) and game.options.borg_lives == 2


# -- actions ------------------------------------------------------------------------------------

ACTIONS: list[tuple[Any, dict[str, Any]]] = [
    (Move("C3", H("0712")), {"type": "move", "piece": "C3", "to": "0712"}),
    (
        Move("C3", H("0712"), (H("0711"), H("0712"))),
        {"type": "move", "piece": "C3", "to": "0712", "path": ["0711", "0712"]},
    ),
    (EndMovement(BORG), {"type": "end-movement", "side": "borg"}),
    (
        Transform(BORG, H("0712"), (Aspect.STONE, Aspect.FOG)),
        {"type": "transform", "side": "borg", "hex": "0712", "aspects": ["stone", "fog"]},
    ),
    (ChooseTower(CHEZ, H("0112")), {"type": "tower", "side": "chez", "hex": "0112"}),
    (GodMove(BORG, H("0703")), {"type": "god-move", "side": "borg", "to": "0703"}),
    (GodTransform(BORG, "B1", Aspect.FOG), {"type": "god-transform", "side": "borg", "piece": "B1", "aspect": "fog"}),
    (
        SetUp(BORG, H("0702"), ((H("0703"), Aspect.STONE), (H("0803"), Aspect.BLADE)), End.NORTH),
        {
            "type": "setup",
            "side": "borg",
            "god": "0702",
            "children": [{"hex": "0703", "aspect": "stone"}, {"hex": "0803", "aspect": "blade"}],
            "end": "north",
        },
    ),
    (
        SetUp(CHEZ, H("0722"), ((H("0721"), Aspect.FOG),)),
        {"type": "setup", "side": "chez", "god": "0722", "children": [{"hex": "0721", "aspect": "fog"}]},
    ),
]


@pytest.mark.parametrize(("action", "data"), ACTIONS, ids=[d["type"] for _, d in ACTIONS])
def test_actions_to_and_from_json(action: Any, data: dict[str, Any]) -> None:
    assert GAME.action_to_json(action) == data
    assert GAME.action_from_json(data) == action
    assert GAME.action_from_json(json.loads(json.dumps(data))) == action


def test_json_accepts_names_in_any_case_and_other_hex_spellings() -> None:
    assert GAME.action_from_json({"type": "god-move", "side": "BORG", "to": "7,3"}) == GodMove(BORG, H("0703"))
    assert GAME.action_from_json({"type": "transform", "side": "chez", "hex": "07.12", "aspects": ["Blade"]}) == Transform(
        CHEZ, H("0712"), (Aspect.BLADE,)
    )


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("move", "action"),
        ({"piece": "B1"}, "action.type"),
        ({"type": "jump"}, "action.type"),
        ({"type": "move", "to": "0712"}, "action.piece"),
        ({"type": "move", "piece": "B1", "to": "07x2"}, "action.to"),
        ({"type": "move", "piece": "B1", "to": "0712", "path": ["0711", "x"]}, "action.path[1]"),
        ({"type": "move", "piece": "B1", "to": "0712", "via": []}, "action.via"),
        ({"type": "end-movement", "side": "gatros"}, "action.side"),
        ({"type": "transform", "side": "borg", "hex": "0712", "aspects": ["stone", "wind"]}, "action.aspects[1]"),
        ({"type": "transform", "side": "borg", "hex": "0712", "aspects": "stone"}, "action.aspects"),
        ({"type": "setup", "side": "borg", "god": "0702", "children": [{"hex": "0703"}]}, "action.children[0].aspect"),
        ({"type": "setup", "side": "borg", "god": "0702", "children": [], "end": "east"}, "action.end"),
        ({"type": "god-transform", "side": "borg", "piece": 7, "aspect": "fog"}, "action.piece"),
    ],
)
def test_bad_actions_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        GAME.action_from_json(data)
    assert err.value.field == field


# -- positions ----------------------------------------------------------------------------------

EXAMPLE_POSITION = Position(
    phase=Phase.COMBAT,
    active=BORG,
    turn=7,
    ends=((BORG, End.NORTH), (CHEZ, End.SOUTH)),
    towers=((BORG, H("0112")), (CHEZ, H("1412"))),
    gods=(God(BORG, H("0702"), 3), God(CHEZ, H("0722"), 2)),
    children=(Child("B1", BORG, Aspect.STONE, H("0712")), Child("C4", CHEZ, Aspect.FOG, H("0712"))),
    under_tower=((CHEZ, "C2"),),
    lost=((BORG, "B9"),),
    moved=frozenset({"B1"}),
    combats=(H("0712"),),
    combat=Combat(H("0712"), pending=((CHEZ, (Aspect.BLADE,)),)),
)

# The example of docs/games/oneworld.md.
EXAMPLE_JSON = {
    "game": "oneworld",
    "phase": "combat",
    "active": "borg",
    "turn": 7,
    "first_setup": "borg",
    "ends": {"borg": "north", "chez": "south"},
    "towers": {"borg": "0112", "chez": "1412"},
    "gods": {"borg": {"hex": "0702", "lives": 3}, "chez": {"hex": "0722", "lives": 2}},
    "children": [
        {"id": "B1", "side": "borg", "aspect": "stone", "hex": "0712"},
        {"id": "C4", "side": "chez", "aspect": "fog", "hex": "0712"},
    ],
    "under_tower": {"borg": [], "chez": ["C2"]},
    "lost": {"borg": ["B9"], "chez": []},
    "this_turn": {
        "moved": ["B1"],
        "god_attacked": False,
        "obstacles_used": {},
        "god_transforms_used": 0,
        "god_moved": False,
    },
    "combats": ["0712"],
    "combat": {
        "hex": "0712",
        "against_god": False,
        "rounds": 0,
        "quiet_rounds": 0,
        "chosen": {"chez": ["blade"]},
    },
    "drawn": False,
}


def test_the_documented_position_example() -> None:
    assert GAME.state_to_json(EXAMPLE_POSITION) == EXAMPLE_JSON
    assert GAME.state_from_json(EXAMPLE_JSON) == EXAMPLE_POSITION
    # What BORG may see: that CHEZ has chosen, not what.
    seen = GAME.state_to_json(GAME.view(EXAMPLE_POSITION, "borg"))
    assert seen["combat"]["chosen"] == {"chez": "hidden"}
    assert GAME.state_from_json(seen).combat.pending == ((CHEZ, None),)


def test_a_small_position_needs_few_fields() -> None:
    data = {
        "gods": {"borg": {"hex": "0702"}, "chez": {"hex": "0722"}},
        "children": [{"side": "borg", "aspect": "stone", "hex": "0703"}, {"id": "C9", "side": "chez", "aspect": "fog", "hex": "0721"}],
    }
    pos = GAME.state_from_json(data)
    assert (pos.phase, pos.active, pos.turn) == (Phase.MOVEMENT, BORG, 1)
    assert pos.children == (Child("B1", BORG, Aspect.STONE, H("0703")), Child("C9", CHEZ, Aspect.FOG, H("0721")))
    assert pos.god(CHEZ) == God(CHEZ, H("0722"), 3)  # lives default to the options'


def test_children_compare_by_value() -> None:
    moved = replace(EXAMPLE_POSITION, children=(Child("B1", BORG, Aspect.STONE, H("0713")),) + EXAMPLE_POSITION.children[1:])
    assert moved != EXAMPLE_POSITION
    turned = replace(EXAMPLE_POSITION, children=(Child("B1", BORG, Aspect.FOG, H("0712")),) + EXAMPLE_POSITION.children[1:])
    assert turned != EXAMPLE_POSITION
    assert Child("B1", BORG, Aspect.STONE, H("0712")) == EXAMPLE_POSITION.children[0]
    assert len({Child("B1", BORG, Aspect.STONE, H("0712")), EXAMPLE_POSITION.children[0]}) == 1


def played_states() -> list[Position]:
    """Every state of a short scripted game on the default map."""
    states = [GAME.initial_state()]
    pos = GAME.apply(states[-1], example_setup(GAME.board, GAME.options, states[-1], BORG)).state
    states.append(pos)
    pos = GAME.apply(pos, ChooseTower(CHEZ, H("0112"))).state
    states.append(pos)
    pos = GAME.apply(pos, example_setup(GAME.board, GAME.options, pos, CHEZ)).state
    states.append(pos)
    for piece in ("C1", "C2", "C3", None, "B1", "B2"):
        action = GAME.piece_moves(pos, piece)[-1] if piece else EndMovement(CHEZ)
        pos = GAME.apply(pos, action, rolls=[6] * GAME.verdict(pos, action).detail("faults", 0)).state
        states.append(pos)
    assert len({json.dumps(GAME.state_to_json(p)) for p in states}) == len(states)
    return states


def test_positions_round_trip_through_json() -> None:
    variants = played_states() + [
        EXAMPLE_POSITION,
        GAME.view(EXAMPLE_POSITION, "borg"),
        replace(EXAMPLE_POSITION, phase=Phase.OVER, combat=None, combats=(), drawn=True),
        replace(EXAMPLE_POSITION, god_attacked=True, god_moved=True, god_transforms_used=2, obstacles_used=((H("0712"), 1),)),
        replace(EXAMPLE_POSITION, combat=Combat(H("0722"), against_god=True, rounds=0), combats=(H("0722"), H("0712"))),
    ]
    for pos in variants:
        data = GAME.state_to_json(pos)
        text = json.dumps(data)
        again = GAME.state_from_json(json.loads(text))
        assert again == pos
        assert GAME.state_to_json(again) == data


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"game": "wormholes"}, "position.game", "not oneworld"),
        ({"colour": "green"}, "position.colour", "unknown field"),
        ({"phase": "lunch"}, "position.phase", "unknown value"),
        ({"turn": 0}, "position.turn", "out of range"),
        ({"active": "gatros"}, "position.active", "unknown value"),
        ({"gods": {"borg": {"hex": "0702", "lives": -1}}}, "position.gods.borg.lives", "out of range"),
        ({"gods": {"borg": {"hex": "0101"}}}, "position.gods.borg.hex", "not on the map"),
        ({"gods": {"zeus": {"hex": "0702"}}}, "position.gods", "unknown value"),
        ({"children": [{"side": "borg", "aspect": "stone", "hex": "0101"}]}, "position.children[0].hex", "Chaos"),
        ({"children": [{"side": "borg", "aspect": "rock", "hex": "0712"}]}, "position.children[0].aspect", "unknown"),
        ({"children": [{"id": "B1", "side": "borg", "aspect": "stone", "hex": "0712"}] * 2}, "position.children[1].id", "share"),
        ({"children": [{"side": "borg", "aspect": "stone", "hex": "0712"}] * 5}, "position.children", "stacking limit is 4"),
        ({"under_tower": {"borg": ["B1"]}}, "position.under_tower.borg[0]", "also on the map"),
        ({"under_tower": {"borg": [3]}}, "position.under_tower.borg[0]", "child id"),
        ({"towers": {"borg": "0712"}}, "position.towers.borg", "not a Tower hex"),
        ({"this_turn": {"moved": [1]}}, "position.this_turn.moved[0]", "string"),
        ({"phase": "combat", "combat": None, "combats": []}, "position.combat", "needs the combat"),
        ({"combat": {"hex": "0712", "winner": "borg"}}, "position.combat.winner", "unknown field"),
    ],
)
def test_bad_positions_name_the_field(change: dict[str, Any], field: str, words: str) -> None:
    data = {**EXAMPLE_JSON, "phase": "movement", "combat": None, "combats": [], **change}
    with pytest.raises(FormatError) as err:
        GAME.state_from_json(data)
    assert err.value.field == field
    assert words in err.value.detail


def test_events_and_verdicts_are_json() -> None:
    pos = GAME.state_from_json(
        {"gods": {"borg": {"hex": "0702"}, "chez": {"hex": "0722"}}, "children": [{"side": "borg", "aspect": "stone", "hex": "0704"}]}
    )
    step = GAME.apply(pos, Move("B1", H("0705")))
    assert [e.to_json() for e in step.events] == [
        {
            "kind": "move",
            "text": "BORG Stone B1 moves from 0704 to 0705.",
            "details": {"frm": "0704", "piece": "B1", "to": "0705"},
        }
    ]
    verdict = GAME.verdict(pos, Move("B1", H("0706")))
    assert verdict.to_json() == {"legal": False, "code": "too-far", "message": verdict.message}
    assert GAME.verdict(pos, Move("B1", H("0705"))).to_json()["details"] == {"faults": 0}
    assert GAME.outcome(pos) is None

"""When Gods Collide: options, set-up, JSON formats, a golden game and the bundled record."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.core import CHANCE
from rules.errors import FormatError
from rules.geometry import Square
from rules.registry import get_game
from rules.when_gods_collide import (
    Army,
    CallHero,
    ChessFace,
    Convert,
    ConvertMethod,
    FirstRoll,
    HeroFace,
    HeroRoll,
    Identity,
    LayTile,
    Move,
    Pass,
    Phase,
    Place,
    Push,
    Roll,
    WgcOptions,
    WhenGodsCollide,
    parse_diagram,
)

RECORD = Path(__file__).parents[2] / "tabletop/data/records/when-gods-collide.jsonl"
SMALL = {"armies": ["greek", "norse"], "tiles_per_army": 1, "checkers_per_army": 2}


def sq(label: str) -> Square:
    x, y = label.split(",")
    return Square(int(x), int(y))


# -- options ---------------------------------------------------------------------------------


def test_registry_and_defaults() -> None:
    game = get_game("when-gods-collide")
    assert isinstance(game, WhenGodsCollide)
    assert game.players() == ("babylonian", "egyptian", "greek", "norse")
    opts = game.options
    assert (opts.checkers_per_army, opts.tiles_per_army, opts.hero_die) == (12, 6, True)
    assert WhenGodsCollide.from_options(game.options_to_json()).options == opts


def test_every_option_round_trips() -> None:
    data = {
        "armies": ["norse", "babylonian", "egyptian"],
        "checkers_per_army": 5,
        "tiles_per_army": 2,
        "first_army": "egyptian",
        "hero_die": False,
        "referee_sees_gods": False,
        "allow_pass": True,
        "god_reveal": "all",
        "seth_reveal": "mover",
        "wind_distance": "exact",
        "wind_landing": "capture",
        "seth_tokens": 3,
        "seth_lost_turn": "next",
    }
    game = WhenGodsCollide.from_options(data)
    assert game.options_to_json() == data
    assert game.players() == ("norse", "babylonian", "egyptian")


@pytest.mark.parametrize(
    "options,field",
    [
        ([], "options"),
        ({"armies": "greek"}, "options.armies"),
        ({"armies": ["greek"]}, "options.armies"),
        ({"armies": ["greek", "greek"]}, "options.armies[1]"),
        ({"armies": ["greek", "atlantean"]}, "options.armies[1]"),
        ({"checkers_per_army": 0}, "options.checkers_per_army"),
        ({"checkers_per_army": "12"}, "options.checkers_per_army"),
        ({"checkers_per_army": 25}, "options.checkers_per_army"),  # 6 tiles hold 24
        ({"tiles_per_army": 0}, "options.tiles_per_army"),
        ({"armies": ["greek", "norse"], "first_army": "egyptian"}, "options.first_army"),
        ({"hero_die": "yes"}, "options.hero_die"),
        ({"god_reveal": "nobody"}, "options.god_reveal"),
        ({"seth_reveal": True}, "options.seth_reveal"),
        ({"wind_landing": "bounce"}, "options.wind_landing"),
        ({"wind_distance": 3}, "options.wind_distance"),
        ({"seth_tokens": -1}, "options.seth_tokens"),
        ({"seth_lost_turn": "both"}, "options.seth_lost_turn"),
        ({"colour": "red"}, "options.colour"),
    ],
)
def test_bad_options_name_the_field(options: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        WhenGodsCollide.from_options(options)
    assert err.value.field == field


# -- set-up ----------------------------------------------------------------------------------


def test_roll_off_decides_the_first_tile_and_ties_roll_again() -> None:
    game = WhenGodsCollide.from_options({"armies": ["greek", "norse", "egyptian"]})
    state = game.initial_state()
    assert state.phase is Phase.FIRST_ROLL and game.to_move(state) == (CHANCE,)
    sixth = pytest.approx(1 / 6)
    assert game.chance_outcomes(state) == [(FirstRoll(n), sixth) for n in range(1, 7)]
    assert game.verdict(state, LayTile(sq("0,0"))).code == "roll-off-first"
    for n in (5, 2):
        state = game.apply(state, FirstRoll(n)).state
    step = game.apply(state, FirstRoll(5))  # Egyptian ties Greek's 5
    assert [e.kind for e in step.events] == ["roll", "roll"]
    assert step.state.rolloff == ((Army.GREEK, None), (Army.EGYPTIAN, None))
    state = game.apply(step.state, FirstRoll(3)).state
    step = game.apply(state, FirstRoll(6))
    assert [e.kind for e in step.events] == ["roll", "phase"]
    assert step.state.phase is Phase.TILES
    assert step.state.current is Army.EGYPTIAN and step.state.first is Army.EGYPTIAN


def test_tiles_go_round_and_must_touch_by_an_edge() -> None:
    game = WhenGodsCollide.from_options(SMALL | {"first_army": "norse", "tiles_per_army": 2})
    state = game.initial_state()
    assert state.current is Army.NORSE
    state = game.apply(state, LayTile(sq("4,-2"))).state  # the first tile may go anywhere
    assert state.current is Army.GREEK
    # The next tile: one of the 4 edge neighbours of 4,-2.
    assert [str(a.at) for a in game.legal_actions(state)] == ["4,-4", "2,-2", "6,-2", "4,0"]
    for at, code in (
        ("4,-2", "tile-overlap"),
        ("5,-2", "tile-misaligned"),
        ("6,0", "tile-detached"),  # corner contact only
        ("8,-2", "tile-detached"),
        ("6,-2", "ok"),
    ):
        assert game.verdict(state, LayTile(sq(at))).code == code, at
    state = game.apply(state, LayTile(sq("6,-2"))).state
    state = game.apply(state, LayTile(sq("6,0"))).state  # now it touches 6,-2
    step = game.apply(state, LayTile(sq("4,0")))
    assert step.state.phase is Phase.DEPLOY and step.state.current is None
    assert [t.owner for t in step.state.tiles] == [Army.NORSE, Army.GREEK, Army.NORSE, Army.GREEK]
    assert [e.kind for e in step.events] == ["setup", "phase"]


def deploy_state() -> tuple[WhenGodsCollide, Any]:
    game = WhenGodsCollide.from_options(SMALL | {"first_army": "greek"})
    state = game.apply(game.initial_state(), LayTile(sq("0,0"))).state
    state = game.apply(state, LayTile(sq("2,0"))).state
    return game, state


def test_deployment_count() -> None:
    game, state = deploy_state()
    assert game.to_move(state) == ("greek", "norse")
    # Each army: 4 squares of its tile, as the god or not: 8 per army.
    assert len(game.legal_actions(state)) == 16


@pytest.mark.parametrize(
    "placed,action,code",
    [
        ([], Place(Army.GREEK, sq("1,1"), god=True), "ok"),
        ([], Place(Army.GREEK, sq("2,0")), "not-own-tile"),
        ([], Place(Army.GREEK, sq("0,2")), "not-a-square"),
        ([], Place(Army.EGYPTIAN, sq("0,0")), "not-playing"),
        ([Place(Army.GREEK, sq("0,0"))], Place(Army.GREEK, sq("0,0"), god=True), "square-occupied"),
        ([Place(Army.GREEK, sq("0,0"))], Place(Army.GREEK, sq("1,0")), "god-missing"),
        (
            [Place(Army.GREEK, sq("0,0"), god=True)],
            Place(Army.GREEK, sq("1,0"), god=True),
            "god-already-placed",
        ),
        (
            [Place(Army.GREEK, sq("0,0"), god=True), Place(Army.GREEK, sq("1,0"))],
            Place(Army.GREEK, sq("0,1")),
            "army-deployed",
        ),
        ([], Roll(ChessFace.KING, 1), "deploy-first"),
    ],
)
def test_placement_rules(placed: list[Place], action: Any, code: str) -> None:
    game, state = deploy_state()
    for p in placed:
        state = game.apply(state, p).state
    assert game.verdict(state, action).code == code


def test_deployment_ends_with_the_first_player_to_roll() -> None:
    game, state = deploy_state()
    for p in (
        Place(Army.NORSE, sq("3,1")),
        Place(Army.GREEK, sq("0,0"), god=True),
        Place(Army.NORSE, sq("2,0"), god=True),
    ):
        state = game.apply(state, p).state
    assert game.to_move(state) == ("greek",)
    step = game.apply(state, Place(Army.GREEK, sq("1,1")))
    assert step.state.phase is Phase.ROLL and step.state.current is Army.GREEK
    assert [e.kind for e in step.events] == ["setup", "phase"]
    gods = {c.at for c in step.state.checkers if c.identity is Identity.GOD}
    assert gods == {sq("0,0"), sq("2,0")}


# -- a golden game -----------------------------------------------------------------------------

GOLDEN = [
    # (action, expected event kinds)
    (FirstRoll(4), ["roll"]),
    (FirstRoll(4), ["roll", "roll"]),  # a tie
    (FirstRoll(2), ["roll"]),
    (FirstRoll(5), ["roll", "phase"]),  # Norse lays first and moves first
    (LayTile(sq("0,0")), ["setup"]),
    (LayTile(sq("2,0")), ["setup", "phase"]),
    (Place(Army.NORSE, sq("0,0"), god=True), ["setup"]),
    (Place(Army.GREEK, sq("3,1"), god=True), ["setup"]),
    (Place(Army.NORSE, sq("1,1")), ["setup"]),
    (Place(Army.GREEK, sq("2,0")), ["setup", "phase"]),
    # N . g .
    # . n . G
    (Roll(ChessFace.KING, 3), ["roll"]),
    (Move(sq("1,1"), sq("2,0")), ["move", "capture", "turn"]),
    (Roll(ChessFace.BISHOP, 1), ["roll"]),
    (Move(sq("3,1"), sq("2,0")), ["move", "capture", "turn"]),
    (Roll(ChessFace.QUEEN, 6), ["roll"]),
    (CallHero(), ["power"]),
    (HeroRoll(HeroFace.WINGED_SANDALS, 2), ["roll"]),
    (Move(sq("0,0"), sq("3,1")), ["move", "turn"]),
    (Roll(ChessFace.KING, 2), ["roll"]),
    (Move(sq("2,0"), sq("3,1")), ["move", "capture", "elimination", "victory"]),
]


def test_golden_game() -> None:
    game = WhenGodsCollide.from_options(SMALL)
    state = game.initial_state()
    log = []
    for action, kinds in GOLDEN:
        assert game.outcome(state) is None
        step = game.apply(state, action)
        assert [e.kind for e in step.events] == kinds, action
        log.append(step)
        state = step.state
    # key moments
    assert log[11].events[1].detail("god") is False and log[11].state.captured == ((Army.GREEK, 1),)
    assert log[13].state.occupant[sq("0,0")].public  # Norse is down to its god
    assert "may roll the hero die" in log[14].events[0].text
    sandals = log[16].state
    assert game.verdict(sandals, Move(sq("0,0"), sq("2,0"))).code == "god-protected"
    assert game.legal_actions(log[10].state).__len__() == 6  # Norse king: 0,0 two, 1,1 four
    final = log[-1]
    assert final.events[1].detail("god") is True
    assert final.events[-1].detail("winner") == "greek"
    assert state.phase is Phase.OVER and game.to_move(state) == ()
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == "greek" and not outcome.draw
    assert game.legal_actions(state) == []
    assert game.verdict(state, Roll(ChessFace.KING, 1)).code == "game-over"


# -- the bundled record -----------------------------------------------------------------------


def test_bundled_record_replays_to_its_end() -> None:
    lines = [json.loads(line) for line in RECORD.read_text().splitlines() if line.strip()]
    header = lines[0]
    assert header["game"] == "when-gods-collide"
    game = get_game(header["game"], header.get("options"))
    if "position" in header:
        state = game.state_from_json(header["position"])
    else:
        state = game.initial_state()
    kinds = set()
    for entry in lines[1:]:
        assert game.outcome(state) is None
        action = game.action_from_json(entry["action"])
        step = game.apply(state, action, entry.get("rolls", []))
        kinds.update(e.kind for e in step.events)
        state = step.state
        assert game.state_from_json(game.state_to_json(state)) == state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == "norse"
    assert {"capture", "elimination", "victory", "power"} <= kinds


# -- JSON ------------------------------------------------------------------------------------

GAME = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})

PLAY = """
    G g n n
    g . n N
"""


def play_json() -> dict[str, Any]:
    state = parse_diagram(PLAY)
    return GAME.state_to_json(state)


def test_state_json_example() -> None:
    data = play_json()
    assert data["phase"] == "roll" and data["alive"] == ["greek", "norse"]
    assert data["tiles"] == [{"at": "0,0", "owner": "greek"}, {"at": "2,0", "owner": "greek"}]
    assert data["checkers"][0] == {"at": "0,0", "army": "greek", "identity": "god"}


def rich_states() -> list[Any]:
    game = WhenGodsCollide.from_options(SMALL)
    out = [game.initial_state()]
    state = parse_diagram(PLAY)
    state = GAME.apply(state, Roll(ChessFace.KING, 6)).state
    out.append(state)
    state = GAME.apply(state, CallHero()).state
    out.append(state)
    state = GAME.apply(state, HeroRoll(HeroFace.SETH, 2)).state
    out.append(state)
    out.append(GAME.apply(state, Convert(sq("3,1"), ConvertMethod.TOKEN)).state)  # god: voided
    out.append(GAME.apply(state, Convert(sq("2,0"), ConvertMethod.TOKEN)).state)  # converted
    sandals = replace(state, roll=replace(state.roll, hero=HeroFace.WINGED_SANDALS))
    out.append(GAME.apply(sandals, Move(sq("1,0"), sq("3,1"))).state)  # god: voided, private
    return out


@pytest.mark.parametrize("index", range(7))
def test_state_json_round_trips(index: int) -> None:
    state = rich_states()[index]
    game = WhenGodsCollide.from_options(SMALL) if index == 0 else GAME
    data = game.state_to_json(state)
    assert game.state_from_json(json.loads(json.dumps(data))) == state
    for player in game.players():
        seen = game.view(state, player)
        assert game.state_from_json(game.state_to_json(seen)) == seen


def test_round_trip_keeps_private_and_converted_marks() -> None:
    states = rich_states()
    seth = GAME.state_to_json(states[4])
    assert {"at": "3,1", "army": "norse", "identity": "god", "public": True} in seth["checkers"]
    voided = GAME.state_to_json(states[6])
    private = {"at": "3,1", "army": "norse", "identity": "god", "seen_by": ["greek"]}
    assert private in voided["checkers"]
    converted = GAME.state_to_json(states[5])
    turned = {"at": "2,0", "army": "norse", "identity": "mortal", "side": "greek", "public": True}
    assert turned in converted["checkers"]


def mutate(path: list[Any], value: Any, delete: bool = False) -> dict[str, Any]:
    data = copy.deepcopy(play_json())
    target = data
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "data,field",
    [
        ([], "position"),
        (mutate(["phase"], "dance"), "position.phase"),
        (mutate(["phase"], None, delete=True), "position.phase"),
        (mutate(["colour"], 1), "position.colour"),
        (mutate(["alive"], ["greek", "egyptian"]), "position.alive[1]"),
        (mutate(["alive"], ["greek", "greek"]), "position.alive[1]"),
        (mutate(["alive"], ["greek"]), "position.alive"),
        (mutate(["current"], "zeus"), "position.current"),
        (mutate(["tiles", 1, "at"], "3,0"), "position.tiles[1]"),
        (mutate(["tiles", 1, "at"], "4,0"), "position.tiles[1]"),  # a gap between the tiles
        (mutate(["tiles", 1, "at"], "0,0"), "position.tiles[1]"),
        (mutate(["tiles", 1, "owner"], "atlantean"), "position.tiles[1].owner"),
        (mutate(["tiles", 0], "0,0"), "position.tiles[0]"),
        (mutate(["checkers", 1, "at"], "9,9"), "position.checkers[1].at"),
        (mutate(["checkers", 1, "at"], "0,0"), "position.checkers[1].at"),
        (mutate(["checkers", 1, "at"], [1, 0]), "position.checkers[1].at"),
        (mutate(["checkers", 0, "army"], "atlantean"), "position.checkers[0].army"),
        (mutate(["checkers", 0, "identity"], "demigod"), "position.checkers[0].identity"),
        (mutate(["checkers", 0, "identity"], None, delete=True), "position.checkers[0].identity"),
        (mutate(["checkers", 1, "identity"], "god"), "position.checkers[1].identity"),  # two gods
        # a converted god
        (mutate(["checkers", 0, "side"], "norse"), "position.checkers[0].identity"),
        (mutate(["checkers", 0, "seen_by"], ["atlantean"]), "position.checkers[0].seen_by[0]"),
        (mutate(["checkers", 0, "public"], "yes"), "position.checkers[0].public"),
        (mutate(["checkers", 6, "identity"], "mortal"), "position.checkers"),  # Norse without a god
        # no dice lie on the table before the roll
        (mutate(["roll"], {"chess": "king", "number": 2}), "position.roll"),
        (mutate(["phase"], "move"), "position.roll"),
        (mutate(["roll"], {"chess": "emperor", "number": 2}), "position.roll.chess"),
        (mutate(["captured"], {"greek": -1}), "position.captured.greek"),
        (mutate(["captured"], {"zeus": 1}), "position.captured.zeus"),
        (mutate(["skip"], ["egyptian"]), "position.skip[0]"),
        (mutate(["rolloff"], [{"army": "greek", "number": None}]), "position.rolloff"),
        (mutate(["phase"], "over"), "position.alive"),
        (mutate(["phase"], "tiles"), "position.checkers[0]"),
    ],
)
def test_malformed_states_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        GAME.state_from_json(data)
    assert err.value.field == field


ACTIONS = [
    FirstRoll(3),
    LayTile(sq("-2,4")),
    Place(Army.GREEK, sq("1,1")),
    Place(Army.NORSE, sq("0,0"), god=True),
    Roll(ChessFace.KNIGHT, 6),
    CallHero(),
    HeroRoll(HeroFace.GOD_OF_WIND, 4),
    Move(sq("0,0"), sq("2,2")),
    Move(sq("0,0"), sq("2,2"), via=(sq("1,1"),), gods_found=frozenset({sq("1,1")})),
    Move(sq("0,0"), sq("2,2"), gods_found=frozenset()),
    Push(sq("3,3"), sq("3,0")),
    Convert(sq("1,1"), ConvertMethod.REPLACE, frozenset()),
    Pass(),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_action_json_round_trips(action: Any) -> None:
    data = GAME.action_to_json(action)
    assert GAME.action_from_json(json.loads(json.dumps(data))) == action
    assert GAME.notation(action) == str(action)


def test_notation_examples() -> None:
    assert [str(a) for a in ACTIONS[7:12]] == [
        "0,0-2,2",
        "0,0-1,1-2,2 [god 1,1]",
        "0,0-2,2 [no god]",
        "push 3,3-3,0",
        "seth 1,1 replace [no god]",
    ]
    assert GAME.action_to_json(ACTIONS[8]) == {
        "type": "move", "from": "0,0", "to": "2,2", "via": ["1,1"], "gods_found": ["1,1"]
    }
    assert GAME.piece_of(ACTIONS[7]) == "0,0" and GAME.piece_of(ACTIONS[4]) is None


@pytest.mark.parametrize(
    "data,field",
    [
        ("move", "action"),
        ({}, "action.type"),
        ({"type": "fly"}, "action.type"),
        ({"type": "move", "from": "1,1"}, "action.to"),
        ({"type": "move", "from": "1,1", "to": "a,b"}, "action.to"),
        ({"type": "move", "from": "1,1", "to": "2,2", "via": "3,3"}, "action.via"),
        ({"type": "move", "from": "1,1", "to": "2,2", "via": ["3,x"]}, "action.via[0]"),
        (
            {"type": "move", "from": "1,1", "to": "2,2", "gods_found": ["2,2", "2,2"]},
            "action.gods_found",
        ),
        ({"type": "move", "from": "1,1", "to": "2,2", "gods_found": [5]}, "action.gods_found[0]"),
        ({"type": "roll", "chess": "emperor", "number": 3}, "action.chess"),
        ({"type": "roll", "chess": "king", "number": 7}, "action.number"),
        ({"type": "roll", "chess": "king"}, "action.number"),
        ({"type": "hero-roll", "hero": "imp", "number": 0}, "action.number"),
        ({"type": "hero-roll", "hero": "zeus", "number": 1}, "action.hero"),
        ({"type": "convert", "at": "1,1", "method": "magic"}, "action.method"),
        ({"type": "place", "army": "greek", "at": "1,1", "god": "yes"}, "action.god"),
        ({"type": "place", "army": "atlantean", "at": "1,1"}, "action.army"),
        ({"type": "first-roll", "number": True}, "action.number"),
        ({"type": "tile"}, "action.at"),
        ({"type": "pass", "extra": 1}, "action.extra"),
    ],
)
def test_malformed_actions_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        GAME.action_from_json(data)
    assert err.value.field == field


def test_out_of_range_rolls_built_in_code_are_refused() -> None:
    state = parse_diagram(PLAY)
    assert GAME.verdict(state, Roll(ChessFace.KING, 7)).code == "bad-roll"
    assert WgcOptions() == WhenGodsCollide.from_options({}).options


def test_foreign_and_out_of_phase_actions_are_refused() -> None:
    state = parse_diagram(PLAY)
    verdict = GAME.verdict(state, "e2e4")  # type: ignore[arg-type]
    assert verdict.code == "unknown-action" and not verdict.legal
    tiles = WhenGodsCollide.from_options(SMALL | {"first_army": "greek"}).initial_state()
    assert GAME.verdict(tiles, Place(Army.GREEK, sq("0,0"))).code == "lay-tiles-first"

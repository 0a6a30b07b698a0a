"""Battle Grounds JSON: options, rosters, states and actions; round trips and the field path
named by every error."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from rules.battle_grounds import (
    BattleGrounds,
    BattleGroundsOptions,
    ChooseStat,
    Hypnotize,
    Move,
    Pass,
    PickDie,
    Place,
    ReadDie,
    Skip,
    Stat,
    Swap,
    parse_label,
)
from rules.battle_grounds.roster import load_bundled_roster, roster_from_json, roster_to_json
from rules.errors import FormatError

GAME = BattleGrounds()


def default_roster_json() -> dict[str, Any]:
    text = (
        resources.files("rules.battle_grounds")
        .joinpath("rosters")
        .joinpath("default.json")
        .read_text("utf-8")
    )
    return json.loads(text)


def field_of(fn: Any, *args: Any) -> str:
    with pytest.raises(FormatError) as info:
        fn(*args)
    return info.value.field


# -- options -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, field",
    [
        ({"colour": "red"}, "options.colour"),
        ({"board": "huge"}, "options.board"),
        ({"board": 8}, "options.board"),
        ({"white_square_rule": "coin"}, "options.white_square_rule"),
        ({"first_player": "east"}, "options.first_player"),
        ({"turn_limit": -1}, "options.turn_limit"),
        ({"turn_limit": "10"}, "options.turn_limit"),
        ({"far_end_release": "yes"}, "options.far_end_release"),
        ({"dice_zone": 1}, "options.dice_zone"),
        ({"colour_stats": {"pink": "speed"}}, "options.colour_stats.pink"),
        ({"colour_stats": {"red": "luck"}}, "options.colour_stats.red"),
        ({"colour_stats": ["red"]}, "options.colour_stats"),
        ({"colour_rows": ["ROYGBP"] * 6}, "options.colour_rows"),
        (
            {"colour_rows": ["ROYGBP", "ROYGBP", "ROYGB", "WWWWWW", "PBGYOR", "PBGYOR", "PBGYOR"]},
            "options.colour_rows[2]",
        ),
        (
            {"colour_rows": ["ROYGBP", "ROYGBP", "ROYGBP", "WWWWWX", "PBGYOR", "PBGYOR", "PBGYOR"]},
            "options.colour_rows[3]",
        ),
        ({"colour_rows": "ROYGBP"}, "options.colour_rows"),
        ({"roster": "missing"}, "options.roster"),
        ({"roster": "../default"}, "options.roster"),
        ({"roster": 3}, "options.roster"),
    ],
)
def test_bad_options_name_their_field(options: dict[str, Any], field: str) -> None:
    assert field_of(BattleGrounds.from_options, options) == field


def test_options_round_trip() -> None:
    roster = default_roster_json()
    roster["sides"]["south"]["figures"][0]["name"] = "Norrin Radd"
    options = {
        "board": "advanced",
        "roster": roster,
        "colour_stats": {"red": "strength", "blue": "fighting-skills"},
        "colour_rows": ["ROYMMGBP"] * 3 + ["WWWWWWWW", "WWWMMWWW"] + ["PBGMMYOR"] * 3,
        "white_square_rule": "stat-die",
        "far_end_release": False,
        "dice_zone": False,
        "first_player": "north",
        "turn_limit": 200,
    }
    game = BattleGrounds.from_options(options)
    assert game.options.roster.figure("silver-surfer").name == "Norrin Radd"
    assert (
        game.options.stat_for_colour(game.table.board.colour(parse_label("a8")))
        is Stat.INTELLIGENCE
    )
    assert game.options.stat_for_colour(game.table.board.colour(parse_label("a1"))) is Stat.STRENGTH
    again = BattleGrounds.from_options(json.loads(json.dumps(game.options_to_json())))
    assert again.options == game.options
    plain = BattleGrounds.from_options({})
    assert BattleGrounds.from_options(plain.options_to_json()).options == plain.options
    assert plain.options == BattleGroundsOptions()


def test_far_end_release_defaults_by_board() -> None:
    assert BattleGrounds.from_options({"board": "advanced"}).options.release_on
    assert not BattleGrounds.from_options({"board": "basic"}).options.release_on
    assert BattleGrounds.from_options(
        {"board": "basic", "far_end_release": True}
    ).options.release_on


# -- rosters -------------------------------------------------------------------------------
def test_bundled_roster_round_trips_and_fills_both_boards() -> None:
    roster = load_bundled_roster("default")
    assert roster_from_json(roster_to_json(roster)) == roster
    assert roster_to_json(roster) == default_roster_json()
    for player in ("south", "north"):
        assert len(roster.figures_of(player)) == 16 and len(roster.dice_of(player)) == 6
    BattleGrounds.from_options({"board": "advanced", "roster": "default"})


def _mutated(change: Any) -> dict[str, Any]:
    roster = copy.deepcopy(default_roster_json())
    change(roster)
    return roster


def _south(roster: dict[str, Any]) -> list[dict[str, Any]]:
    return roster["sides"]["south"]["figures"]


ROSTER_CASES = [
    (lambda r: r.update(extra=1), "options.roster.extra"),
    (lambda r: r["sides"].update(east={}), "options.roster.sides.east"),
    (lambda r: r["sides"].pop("north"), "options.roster.sides.north"),
    (lambda r: r["sides"]["south"].update(figures=[]), "options.roster.sides.south.figures"),
    (
        lambda r: _south(r)[1]["stats"].update(speed=7),
        "options.roster.sides.south.figures[1].stats.speed",
    ),
    (
        lambda r: _south(r)[1]["stats"].pop("durability"),
        "options.roster.sides.south.figures[1].stats.durability",
    ),
    (
        lambda r: _south(r)[1]["stats"].update(luck=2),
        "options.roster.sides.south.figures[1].stats.luck",
    ),
    (lambda r: _south(r)[2].update(level="IV"), "options.roster.sides.south.figures[2].level"),
    (lambda r: _south(r)[2].update(id="has space"), "options.roster.sides.south.figures[2].id"),
    (lambda r: _south(r)[2].pop("id"), "options.roster.sides.south.figures[2].id"),
    (
        lambda r: r["sides"]["north"]["figures"][3].update(id="hulk"),
        "options.roster.sides.north.figures[3].id",
    ),
    (
        lambda r: _south(r)[3].update(powers=[{"name": "X", "when": "never"}]),
        "options.roster.sides.south.figures[3].powers[0].when",
    ),
    (
        lambda r: _south(r)[3].update(powers=[{"name": "X", "bonus": 9}]),
        "options.roster.sides.south.figures[3].powers[0].bonus",
    ),
    (lambda r: _south(r)[3].update(powers=[7]), "options.roster.sides.south.figures[3].powers[0]"),
    (
        lambda r: _south(r)[3].update(powers=[" "]),
        "options.roster.sides.south.figures[3].powers[0]",
    ),
    (
        lambda r: _south(r)[1].update(level="Cosmic"),
        "options.roster.sides.south.figures",
    ),  # two Cosmic
    (lambda r: _south(r)[0].update(level="III"), "options.roster.sides.south.figures"),  # none
    (
        lambda r: r["sides"]["south"]["dice"][1].update(name="Assemble"),
        "options.roster.sides.south.dice[1].name",
    ),
    (
        lambda r: r["sides"]["south"]["dice"][1].update(bonus="1"),
        "options.roster.sides.south.dice[1].bonus",
    ),
    (lambda r: r["sides"]["south"].update(dice=[]), "options.roster.sides.south.dice"),
    # too few level I figures for the basic board (it needs four)
    (
        lambda r: r["sides"]["north"].update(figures=r["sides"]["north"]["figures"][:11]),
        "options.roster.sides.north.figures",
    ),
]


@pytest.mark.parametrize("change, field", ROSTER_CASES)
def test_bad_rosters_name_their_field(change: Any, field: str) -> None:
    assert field_of(BattleGrounds.from_options, {"roster": _mutated(change)}) == field


def test_a_side_too_small_for_the_advanced_board() -> None:
    def cut(r: dict[str, Any]) -> None:  # drop Nightcrawler and Rogue: 4 level I figures left
        r["sides"]["south"]["figures"] = [
            f for f in _south(r) if f["id"] not in ("nightcrawler", "rogue")
        ]

    roster = _mutated(cut)
    BattleGrounds.from_options({"board": "basic", "roster": roster})
    with pytest.raises(FormatError) as info:
        BattleGrounds.from_options({"board": "advanced", "roster": roster})
    assert info.value.field == "options.roster.sides.south.figures" and "6 level I" in str(
        info.value
    )


def test_roster_dice_default_to_six_plain_dice() -> None:
    roster = default_roster_json()
    del roster["sides"]["north"]["dice"]
    game = BattleGrounds.from_options({"roster": roster})
    assert [d.name for d in game.table.roster.dice_of("north")] == [f"die-{i}" for i in range(1, 7)]
    assert game.table.dice_limit["north"] == 5


# -- states ------------------------------------------------------------------------------
BASE_STATE: dict[str, Any] = {
    "phase": "play",
    "to_play": "south",
    "board": {
        "c6": "iron-man", "c4": "venom", "a7": "silver-surfer", "a1": "thanos", "a6": "rhino",
    },
    "hypnotized": ["rhino"],
    "holding": {"south": ["sabretooth"], "north": ["falcon"]},
    "dice_zone": {"south": ["Assemble"], "north": []},
    "dice_read": {"south": ["Scheme"], "north": []},
    "battle": {
        "attacker": "iron-man", "defender": "venom", "from": "c6", "to": "c4",
        "mode": "each-chooses", "chooser": None, "attacker_stat": "speed", "defender_stat": None,
    },
    "turn": 7,
    "passes": 0,
}  # fmt: skip


def test_state_round_trip_with_a_waiting_battle() -> None:
    state = GAME.state_from_json(BASE_STATE)
    assert state.battle is not None and state.battle.attacker_stat is Stat.SPEED
    data = GAME.state_to_json(state)
    assert GAME.state_from_json(json.loads(json.dumps(data))) == state
    assert GAME.to_move(state) == ("north",)
    hidden = GAME.state_to_json(GAME.view(state, "north"))
    assert hidden["battle"]["attacker_stat"] == "hidden"
    assert GAME.state_from_json(hidden) == GAME.view(state, "north")


def test_state_round_trip_with_pending_decisions() -> None:
    data = {
        "phase": "play",
        "to_play": "north",
        "board": {"a6": "bullseye", "a7": "silver-surfer", "a1": "thanos"},
        "holding": {"south": [], "north": []},
        "pending": [
            {"kind": "return", "player": "north", "figure": "rhino"},
            {"kind": "lost-die", "player": "south"},
        ],
    }
    state = GAME.state_from_json(data)
    assert GAME.state_from_json(GAME.state_to_json(state)) == state
    assert GAME.to_move(state) == ("north",)


def _with(path: list[Any], value: Any, delete: bool = False) -> dict[str, Any]:
    data = copy.deepcopy(BASE_STATE)
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


STATE_CASES = [
    (["colour"], "red", "position.colour"),
    (["phase"], "war", "position.phase"),
    (["phase"], None, "position.phase", True),
    (["to_play"], "east", "position.to_play"),
    (["turn"], 0, "position.turn"),
    (["passes"], 3, "position.passes"),
    (["board"], [], "position.board"),
    (["board", "z9"], "hulk", "position.board.z9"),
    (["board", "g1"], "hulk", "position.board.g1"),  # off the 6-wide board
    (["board", "b1"], "batman", "position.board.b1"),
    (["board", "b1"], 5, "position.board.b1"),
    (["board", "b1"], "thanos", "position.board.b1"),  # Thanos is on a1 already
    (["hypnotized"], ["hulk"], "position.hypnotized[0]"),
    (["hypnotized"], [3], "position.hypnotized[0]"),
    (["holding", "south"], ["hulk"], "position.holding.south[0]"),  # an own figure
    (["holding", "north"], ["falcon", "falcon"], "position.holding.north[1]"),
    (["holding", "east"], [], "position.holding.east"),
    (["holding", "south"], "sabretooth", "position.holding.south"),
    (["dice_zone", "south"], ["Master Plan"], "position.dice_zone.south[0]"),
    (
        ["dice_zone", "south"],
        ["Assemble", "Heroic Stand", "Team-Up", "Quick Strike", "Guard", "Rally"],
        "position.dice_zone.south",
    ),
    (["dice_read", "south"], ["Assemble"], "position.dice_read.south[0]"),  # must be north's dice
    (["battle", "attacker"], "hulk", "position.battle.attacker"),
    (["battle", "from"], "c9", "position.battle.attacker"),
    (["battle", "to"], "x", "position.battle.to"),
    (["battle", "mode"], "duel", "position.battle.mode"),
    (["battle", "mode"], "fixed", "position.battle.mode"),
    (["battle", "chooser"], "south", "position.battle.chooser"),
    (["battle", "attacker_stat"], "luck", "position.battle.attacker_stat"),
    (["battle", "defender_stat"], "speed", "position.battle"),  # both chosen: already fought
    (["battle", "extra"], 1, "position.battle.extra"),
    (["pending"], [{"kind": "lost-die", "player": "south"}], "position.pending"),  # with a battle
]


@pytest.mark.parametrize(
    "case", STATE_CASES, ids=[c[-1] if len(c) == 3 else c[2] for c in STATE_CASES]
)
def test_bad_states_name_their_field(case: tuple[Any, ...]) -> None:
    path, value, field = case[0], case[1], case[2]
    delete = len(case) > 3
    assert field_of(GAME.state_from_json, _with(path, value, delete)) == field


@pytest.mark.parametrize(
    "pending, field",
    [
        ([{"kind": "nap", "player": "south"}], "position.pending[0].kind"),
        ([{"kind": "lost-die", "player": "east"}], "position.pending[0].player"),
        ([{"kind": "lost-die", "player": "south", "figure": "hulk"}], "position.pending[0].figure"),
        ([{"kind": "return", "player": "south"}], "position.pending[0].figure"),
        (
            [{"kind": "return", "player": "south", "figure": "rhino"}],
            "position.pending[0].figure",
        ),  # rhino is north's
        (
            [{"kind": "return", "player": "north", "figure": "thanos"}],
            "position.pending[0].figure",
        ),  # on the board
        (["lost-die"], "position.pending[0]"),
    ],
)
def test_bad_pending_decisions(pending: list[Any], field: str) -> None:
    data = {"phase": "play", "to_play": "south", "board": {"a1": "thanos"}, "pending": pending}
    assert field_of(GAME.state_from_json, data) == field


def test_setup_states_are_checked_against_the_set_up_rows() -> None:
    ok = {"phase": "setup", "to_play": "south", "board": {"c7": "silver-surfer", "a6": "wolverine"}}
    assert GAME.state_from_json(ok).phase == "setup"
    bad = {"phase": "setup", "to_play": "south", "board": {"a7": "silver-surfer"}}
    assert field_of(GAME.state_from_json, bad) == "position.board.a7"
    captured = {"phase": "setup", "to_play": "south", "board": {}, "holding": {"south": ["thanos"]}}
    assert field_of(GAME.state_from_json, captured) == "position"
    assert field_of(GAME.state_from_json, "play") == "position"


# -- actions -----------------------------------------------------------------------------
ACTIONS = [
    Place("hulk", parse_label("c7")),
    Move("hulk", parse_label("c7"), parse_label("c5")),
    Swap("rogue", "hulk", "Swap Powers"),
    Hypnotize("doctor-strange", "rhino", parse_label("a6")),
    ChooseStat("north", Stat.ENERGY_PROJECTION),
    PickDie("south", "Rally"),
    PickDie("south", "Rally", "Guard"),
    ReadDie("north", "Assemble"),
    Skip("south"),
    Pass("north"),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_action_round_trip(action: Any) -> None:
    data = GAME.action_to_json(action)
    assert GAME.action_from_json(json.loads(json.dumps(data))) == action


@pytest.mark.parametrize(
    "data, field",
    [
        ("move", "action"),
        ({}, "action.type"),
        ({"type": "fly"}, "action.type"),
        ({"type": "move", "piece": "hulk", "from": "c7"}, "action.to"),
        ({"type": "move", "piece": "hulk", "from": "7c", "to": "c5"}, "action.from"),
        ({"type": "move", "piece": "hulk", "from": "c7", "to": "c0"}, "action.to"),
        ({"type": "move", "piece": 7, "from": "c7", "to": "c5"}, "action.piece"),
        ({"type": "move", "piece": "hulk", "from": "c7", "to": "c5", "rolls": [1]}, "action.rolls"),
        ({"type": "place", "piece": "hulk"}, "action.square"),
        ({"type": "swap", "piece": "rogue", "power": "Swap Powers"}, "action.with"),
        (
            {"type": "hypnotize", "piece": "loki", "captive": "hulk", "square": [1, 2]},
            "action.square",
        ),
        ({"type": "choose-stat", "player": "north", "stat": "luck"}, "action.stat"),
        ({"type": "choose-stat", "player": "west", "stat": "speed"}, "action.player"),
        ({"type": "pick-die", "player": "south", "die": "Rally", "swap_out": 3}, "action.swap_out"),
        ({"type": "pick-die", "player": "south"}, "action.die"),
        ({"type": "read-die", "player": "south", "die": None}, "action.die"),
        ({"type": "skip"}, "action.player"),
        ({"type": "pass", "player": None}, "action.player"),
    ],
)
def test_bad_actions_name_their_field(data: Any, field: str) -> None:
    assert field_of(GAME.action_from_json, data) == field


def test_only_one_cosmic_figure_can_be_captured() -> None:
    data = {
        "phase": "play",
        "to_play": "south",
        "board": {"a4": "hulk"},
        "holding": {"south": ["thanos"], "north": ["silver-surfer"]},
    }
    assert field_of(GAME.state_from_json, data) == "position.holding"


def test_die_rules_of_unknown_dice_are_refused() -> None:
    state = GAME.lineup()
    assert GAME.die_rule(state, "south", "south", "Assemble").startswith("Battle total +1")
    assert GAME.die_rule(state, "south", "north", "Master Plan") == "hidden"
    assert GAME.die_rule(state, None, "north", "Master Plan").startswith("Battle total +1")
    assert field_of(GAME.die_rule, state, "south", "north", "Assemble") == "die"

"""Bad JSON input found by fuzzing the engines through ``tabletop rules check`` / ``moves``.

Each case once crashed (exit 3: a traceback), hung, or was accepted although it is nonsense.
Now each is bad input: exit status 2 and one line on standard error naming the field.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.errors import FormatError, MapError
from rules.jsonutil import get_float, get_int
from rules.oneworld import OneWorld
from rules.registry import get_game
from tabletop.cli import main

Doc = dict[str, Any]

# -- valid starting points -----------------------------------------------------------------

ONEWORLD_POSITION: Doc = {
    "towers": {"borg": "1412", "chez": "0112"},
    "ends": {"borg": "north", "chez": "south"},
    "gods": {"borg": {"hex": "0702"}, "chez": {"hex": "0722"}},
    "children": [
        {"id": "B1", "side": "borg", "aspect": "stone", "hex": "0703"},
        {"id": "C1", "side": "chez", "aspect": "blade", "hex": "0721"},
    ],
}
ONEWORLD: Doc = {"position": ONEWORLD_POSITION, "action": {"type": "end-movement", "side": "borg"}}

THE_GAME_POSITION: Doc = {
    "sequence": 1,
    "phase": "movement",
    "turn": 1,
    "first": "red",
    "next": "red",
    "pieces": [
        {"id": "R1", "side": "red", "at": {"x": 5, "y": 5}, "facing": 90},
        {"id": "B1", "side": "blue", "at": {"x": 5, "y": 19}, "facing": 270},
    ],
}
THE_GAME: Doc = {
    "position": THE_GAME_POSITION,
    "action": {"type": "move", "piece": "R1", "to": {"x": 5, "y": 8}},
}


def _start(game: str) -> Doc:
    engine = get_game(game)
    return engine.state_to_json(engine.initial_state())


def _wormholes() -> Doc:
    return {"position": _start("wormholes"), "action": {"type": "roll-off", "orthogonaliens": 4,
                                                         "diagonaliens": 3}}


def _battle_grounds() -> Doc:
    return {"position": _start("battle-grounds"),
            "action": {"type": "place", "piece": "iron-man", "square": "a7"}}


def _when_gods_collide() -> Doc:
    return {"position": _start("when-gods-collide"), "action": {"type": "first-roll", "number": 3}}


BASES: dict[str, Callable[[], Doc]] = {
    "oneworld": lambda: copy.deepcopy(ONEWORLD),
    "the-game": lambda: copy.deepcopy(THE_GAME),
    "wormholes": _wormholes,
    "battle-grounds": _battle_grounds,
    "when-gods-collide": _when_gods_collide,
}


def _set(doc: Doc, dotted: str, value: Any) -> Doc:
    """``doc`` with the value at ``dotted`` (keys and list indexes) replaced."""
    *parents, last = [int(k) if k.isdigit() else k for k in dotted.split(".")]
    node: Any = doc
    for key in parents:
        node = node[key]
    node[last] = value
    return doc


def _run(tmp_path: Path, game: str, doc: Doc, command: str = "check") -> int:
    file = tmp_path / "input.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    return main(["rules", command, "--game", game, str(file)])


def _assert_bad_input(
    capsys: pytest.CaptureFixture[str], status: int, field: str, words: str = ""
) -> None:
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith(f"tabletop: error: {field}: "), err
    assert words in err


@pytest.mark.parametrize(
    "base_valid", sorted(BASES), ids=str
)
def test_the_starting_points_are_valid(base_valid: str, tmp_path: Path) -> None:
    assert _run(tmp_path, base_valid, BASES[base_valid]()) in (0, 1)


# -- one field changed ---------------------------------------------------------------------

HUGE = 10**400  # JSON allows whole numbers of any length; no float holds this one
ELLIPSE_1E308 = {"shape": "ellipse", "length": 1e308, "width": 1e308}

CASES: list[tuple[str, str, str, Any, str, str]] = [
    # (id, game, field set, value, field named, words in the message)
    # crashed with OverflowError (int too large to convert to float)
    ("the-game-huge-x", "the-game", "action.to.x", HUGE, "action.to.x", "too large"),
    ("the-game-huge-facing", "the-game", "position.pieces.0.facing", HUGE,
     "position.pieces[0].facing", "too large"),
    ("the-game-huge-option", "the-game", "options", {"tolerance": HUGE}, "options.tolerance",
     "too large"),
    # hung: footprints so large that the edge-to-edge geometry overflows to NaN and loops
    ("the-game-giant-footprint", "the-game", "position.pieces.0.footprint", ELLIPSE_1E308,
     "position.pieces[0].footprint.length", "at most 1000 inches"),
    ("the-game-giant-default-footprint", "the-game", "options", {"footprint": ELLIPSE_1E308},
     "options.footprint.length", "at most 1000 inches"),
    ("the-game-giant-polygon", "the-game", "position.pieces.1.footprint",
     {"shape": "polygon", "points": [{"x": 1e200, "y": 0}, {"x": -1e200, "y": 1e200},
                                     {"x": -1e200, "y": -1e200}]},
     "position.pieces[1].footprint.points[0]", "at most 1000 inches"),
    # accepted silently: a piece in play far off the field
    ("the-game-piece-off-field", "the-game", "position.pieces.0.at", {"x": -30, "y": -40},
     "position.pieces[0].at", "off the 24 x 24 field"),
    ("the-game-piece-far-away", "the-game", "position.pieces.1.at", {"x": 1e6, "y": 5},
     "position.pieces[1].at", "off the 24 x 24 field"),
    # crashed with ValueError: digits int() does not read, a sign twice
    ("wormholes-superscript-cell", "wormholes", "action", {"type": "move", "ship": "suns",
                                                           "to": "²,1"}, "action.to", "'²,1'"),
    ("wormholes-double-minus", "wormholes", "action", {"type": "move", "ship": "suns",
                                                       "to": "--5,1"}, "action.to", "'--5,1'"),
    ("wormholes-superscript-ship", "wormholes", "position.ships.suns.at", "1²,1",
     "position.ships.suns.at", "'1²,1'"),
    ("wormholes-superscript-start", "wormholes", "options", {"start": {"suns": "1²,1"}},
     "options.start.suns", "'1²,1'"),
    # crashed with TypeError (unhashable type: 'list' / 'dict')
    ("battle-grounds-list-die", "battle-grounds", "position.dice_read.south", [[]],
     "position.dice_read.south[0]", "Battle Die name"),
    ("battle-grounds-object-die", "battle-grounds", "position.dice_zone.north", [{}],
     "position.dice_zone.north[0]", "Battle Die name"),
    # crashed with ValueError when sorting the children by id ('B²')
    ("oneworld-superscript-id", "oneworld", "position.children.0.id", "B²",
     "position.children[0].id", "not a child id"),
    # accepted silently: ids no one can name, and an id that is no child's
    ("oneworld-empty-id", "oneworld", "position.children.1.id", "", "position.children[1].id",
     "not a child id"),
    ("oneworld-spaced-id", "oneworld", "position.children.0.id", " B1 ",
     "position.children[0].id", "not a child id"),
    ("oneworld-number-id", "oneworld", "position.children.0.id", 7, "position.children[0].id",
     "expected a child id"),
    ("oneworld-dead-id", "oneworld", "position.under_tower", {"borg": ["B²"]},
     "position.under_tower.borg[0]", "not a child id"),
    ("oneworld-moved-unknown", "oneworld", "position.this_turn", {"moved": ["Z9"]},
     "position.this_turn.moved[0]", "no child 'Z9'"),
    # accepted silently: both sides at one end, both Towers on one hex, hexes off the map
    ("oneworld-same-end", "oneworld", "position.ends", {"borg": "north", "chez": "north"},
     "position.ends", "both sides"),
    ("oneworld-side-twice", "oneworld", "position.towers", {"borg": "0112", "BORG": "1412"},
     "position.towers.BORG", "named twice"),
    ("oneworld-same-tower", "oneworld", "position.towers", {"borg": "0112", "chez": "0112"},
     "position.towers", "both Towers"),
    ("oneworld-combat-off-map", "oneworld", "position.combats", ["9999"],
     "position.combats[0]", "not on the map"),
    ("oneworld-obstacle-off-map", "oneworld", "position.this_turn",
     {"obstacles_used": {"9999": 1}}, "position.this_turn.obstacles_used", "not on the map"),
    # crashed with ValueError reading a map: '²' passes isdigit() but not int()
    ("oneworld-map-size", "oneworld", "options", {"map_text": "size ² 2\nrow 1 TT\nrow 2 ..\n"},
     "options.map_text", "line 1"),
    ("oneworld-map-row", "oneworld", "options", {"map_text": "size 2 2\nrow ² TT\nrow 2 ..\n"},
     "options.map_text", "line 2"),
    # accepted silently: more captured checkers than the army has
    ("when-gods-collide-captured", "when-gods-collide", "position.captured", {"greek": 13},
     "position.captured.greek", "too many"),
]


@pytest.mark.parametrize(
    ("game", "field_set", "value", "field", "words"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_field_is_exit_2_naming_it(
    game: str,
    field_set: str,
    value: Any,
    field: str,
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _set(BASES[game](), field_set, value)
    _assert_bad_input(capsys, _run(tmp_path, game, doc), field, words)
    if "action" not in field_set and not field.startswith("action"):
        _assert_bad_input(capsys, _run(tmp_path, game, doc, "moves"), field, words)


def test_oneworld_side_with_too_many_children(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = BASES["oneworld"]()
    doc["position"]["children"] = [
        {"id": f"B{i}", "side": "borg", "aspect": "fog", "hex": f"{3 + i % 9:02d}{8 + i // 9:02d}"}
        for i in range(1, 15)
    ]
    _assert_bad_input(capsys, _run(tmp_path, "oneworld", doc), "position.children",
                      "BORG has 14 children; each side has 13")
    doc["options"] = {"children_per_side": 14}
    assert _run(tmp_path, "oneworld", doc) in (0, 1)


def test_oneworld_moves_piece_with_odd_id_is_bad_input_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _set(BASES["oneworld"](), "position.children.0.id", "B²")
    file = tmp_path / "input.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    status = main(["rules", "moves", "--game", "oneworld", "--piece", "Z9", str(file)])
    _assert_bad_input(capsys, status, "position.children[0].id")


# -- the readers themselves -----------------------------------------------------------------


def test_get_float_refuses_a_whole_number_too_large_for_a_float() -> None:
    with pytest.raises(FormatError) as info:
        get_float({"x": HUGE}, "x", "action.to")
    assert info.value.field == "action.to.x"
    assert len(str(info.value)) < 80  # the 401 digits are not all repeated


def test_get_int_out_of_range_message_stays_short() -> None:
    with pytest.raises(FormatError) as info:
        get_int({"n": HUGE}, "n", "options", lo=0, hi=99)
    assert info.value.field == "options.n"
    assert "out of range (0..99)" in str(info.value) and len(str(info.value)) < 80


def test_get_int_with_one_bound_names_that_bound() -> None:
    with pytest.raises(FormatError, match=r"^position\.turn: -3 is out of range \(1 or more\)$"):
        get_int({"turn": -3}, "turn", "position", lo=1)
    with pytest.raises(FormatError, match=r"^n: 12 is out of range \(9 or less\)$"):
        get_int({"n": 12}, "n", "", hi=9)


def test_map_text_errors_stay_map_errors_naming_the_option_and_line() -> None:
    with pytest.raises(MapError) as info:
        OneWorld.from_options({"map_text": "size 2 2\nrow ² TT\nrow 2 ..\n"})
    assert info.value.field == "options.map_text: line 2"


def test_the_game_pieces_may_stand_on_the_edge_where_they_walked_off(tmp_path: Path) -> None:
    doc = BASES["the-game"]()
    doc["position"]["pieces"][1].update(at={"x": 24.0, "y": 24.0}, presence="off")
    assert _run(tmp_path, "the-game", doc) in (0, 1)

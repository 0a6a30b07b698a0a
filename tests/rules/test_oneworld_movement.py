"""OneWorld movement (sections 5, 6 and 7): Stone, Blade and Fog over pylons, runelines,
faults, Towers and Chaos; stacking and parental concern; hand-counted legal moves."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oneworld_support import BORG, CHEZ, H, destinations, game
from oneworld_support import position as arena_position

from rules.errors import FormatError, IllegalActionError, RollNeededError
from rules.geometry import Hex, HexDirection
from rules.oneworld import Aspect, Child, EndMovement, God, Move, OneWorld, Phase, Position
from rules.oneworld.model import Combat


def position(
    spec: str = "", *, borg_god: str | None = "0110", chez_god: str | None = "1102", **changes: Any
) -> Position:
    """A BORG position with the children of ``spec``, the gods where given (by default away from
    everything on the laboratory map) and no Towers."""
    return arena_position(spec, borg_god=borg_god, chez_god=chez_god, towers=(), **changes)


# ---------------------------------------------------------------------------------------------
# The laboratory map: 11 x 11 flatland with a few features placed for the clause table.
#
#   Towers of Balance at 0101 and 1111 (corners); pylons at 0303 (alone), 0906 (on row 6) and
#   0608 + 0708 (a pair on row 8); a runeline on the side 0206/0306 and a fault on the side
#   0306/0406, both crossing row 6. Gods: BORG at 0110, CHEZ at 1102, away from everything.
#
#   Row 6 is an even row (drawn shifted half a hex east); along it E and W are the
#   neighbours in the same row. From an even-row hex 0X06, NE is column X+1 of row 5 and NW
#   column X of row 5; from an odd-row hex 0X05, SE is column X of row 6.
# ---------------------------------------------------------------------------------------------
LAB = """\
name laboratory
size 11 11
row 01 T . . . . . . . . . .
row 02  . . . . . . . . . . .
row 03 . . P . . . . . . . .
row 04  . . . . . . . . . . .
row 05 . . . . . . . . . . .
row 06  . . . . . . . . P . .
row 07 . . . . . . . . . . .
row 08  . . . . . P P . . . .
row 09 . . . . . . . . . . .
row 10  . . . . . . . . . . .
row 11 . . . . . . . . . . T
runeline 0206 E
fault 0306 E
"""

LAB_GAME = game(LAB, towers=False)

# (case id, children, action, expected verdict code, position changes)
CASES: list[Any] = [
    # -- Stone (6.2): one hex; may climb onto a pylon; ignores faults; stopped by runelines.
    ("stone-one-hex", "B1:S@0404", Move("B1", H("0504")), "ok", {}),
    ("stone-two-hexes", "B1:S@0404", Move("B1", H("0604")), "too-far", {}),
    ("stone-stays", "B1:S@0404", Move("B1", H("0404")), "no-move", {}),
    ("stone-climbs-pylon", "B1:S@0304", Move("B1", H("0303")), "ok", {}),
    ("stone-across-runeline", "B1:S@0206", Move("B1", H("0306")), "runeline", {}),
    ("stone-across-fault", "B1:S@0306", Move("B1", H("0406")), "ok", {}),
    ("stone-into-chaos", "B1:S@0106", Move("B1", H("0006")), "ok", {}),
    # -- Fog (6.4): one to three hexes by any path; no climbing; no runelines.
    ("fog-three-hexes", "B1:F@0404", Move("B1", H("0704")), "ok", {}),
    ("fog-four-hexes", "B1:F@0404", Move("B1", H("0804")), "too-far", {}),
    ("fog-bends", "B1:F@0404", Move("B1", H("0602")), "ok", {}),
    ("fog-climbs-pylon", "B1:F@0304", Move("B1", H("0303")), "pylon", {}),
    ("fog-pylon-to-pylon", "B1:F@0608", Move("B1", H("0708")), "ok", {}),
    ("fog-pylon-to-flatland", "B1:F@0708", Move("B1", H("0808")), "ok", {}),
    # Around the runeline: 0206 -> 0305 -> 0306 crosses nothing.
    ("fog-around-runeline", "B1:F@0206", Move("B1", H("0306")), "ok", {}),
    ("fog-path-over-runeline", "B1:F@0206", Move("B1", H("0306"), (H("0306"),)), "runeline", {}),
    ("fog-path-not-adjacent", "B1:F@0404", Move("B1", H("0604"), (H("0604"),)), "bad-path", {}),
    ("fog-path-ends-elsewhere", "B1:F@0404", Move("B1", H("0604"), (H("0504"),)), "bad-path", {}),
    ("fog-path-out-and-back", "B1:F@0404", Move("B1", H("0404"), (H("0504"), H("0404"))), "no-move", {}),
    ("fog-path-through-enemy", "B1:F@0404 C1:S@0504", Move("B1", H("0604"), (H("0504"), H("0604"))), "enemy-in-the-way", {}),
    ("fog-path-through-friends", "B1:F@0404 B2:S@0504 B3:S@0504 B4:S@0504 B5:S@0504",
     Move("B1", H("0604"), (H("0504"), H("0604"))), "ok", {}),
    ("fog-into-enemy", "B1:F@0404 C1:S@0604", Move("B1", H("0604")), "ok", {}),
    ("fog-into-chaos", "B1:F@0206", Move("B1", H("0006")), "ok", {}),
    # -- Blade (6.3): exactly five hexes in a straight line, unless stopped.
    # 0106 E: 0206, 0306 (over the runeline: Blade ignores it), 0406 (over the fault), 0506, 0606.
    ("blade-five", "B1:B@0106", Move("B1", H("0606")), "ok", {}),
    ("blade-short", "B1:B@0106", Move("B1", H("0406")), "blade-must-move-five", {}),
    ("blade-long", "B1:B@0106", Move("B1", H("0706")), "blade-stopped", {}),
    ("blade-bends", "B1:B@0106", Move("B1", H("0305")), "blade-straight-line", {}),
    # 0506 E: 0606, 0706, 0806, then the pylon 0906 cannot be entered from flatland.
    ("blade-before-pylon", "B1:B@0506", Move("B1", H("0806")), "ok", {}),
    ("blade-onto-pylon", "B1:B@0506", Move("B1", H("0906")), "blade-stopped", {}),
    ("blade-pylon-first", "B1:B@0806", Move("B1", H("0906")), "blade-blocked", {}),
    # From the pylon 0608: 0708 (pylon to pylon is fine), then flatland 0808 .. 1108.
    ("blade-from-pylon", "B1:B@0608", Move("B1", H("1108")), "ok", {}),
    # Row 1 westwards from 0601: 0501, 0401, 0301, 0201, then the Tower 0101 stops it.
    ("blade-before-tower", "B1:B@0601", Move("B1", H("0201")), "ok", {}),
    ("blade-into-tower", "B1:B@0601", Move("B1", H("0101")), "blade-stopped", {}),
    ("blade-into-enemy", "B1:B@0106 C1:F@0306", Move("B1", H("0306")), "ok", {}),
    ("blade-past-enemy", "B1:B@0106 C1:F@0306", Move("B1", H("0606")), "blade-stopped", {}),
    ("blade-through-friends", "B1:B@0106 B2:S@0306 B3:S@0306", Move("B1", H("0606")), "ok", {}),
    ("blade-stops-at-friends", "B1:B@0106 B2:S@0306", Move("B1", H("0306")), "blade-must-move-five", {}),
    ("blade-before-own-god", "B1:B@0106", Move("B1", H("0406")), "ok", {"borg_god": "0506"}),
    ("blade-into-enemy-god", "B1:B@0106", Move("B1", H("0406")), "ok", {"chez_god": "0406"}),
    ("blade-past-enemy-god", "B1:B@0106", Move("B1", H("0606")), "blade-stopped", {"chez_god": "0406"}),
    ("blade-into-chaos", "B1:B@0906", Move("B1", H("1206")), "ok", {}),
    ("blade-path-stated", "B1:B@0106", Move("B1", H("0606"), tuple(H(x) for x in ("0206", "0306", "0406", "0506", "0606"))), "ok", {}),
    ("blade-path-wrong", "B1:B@0106", Move("B1", H("0606"), (H("0206"), H("0606"))), "bad-path", {}),
    # -- Towers (5.5), parental concern (7.3), stacking (7.2), the enemy god (10.4).
    ("stone-into-tower", "B1:S@0201", Move("B1", H("0101")), "tower", {}),
    ("fog-into-tower", "B1:F@0301", Move("B1", H("0101")), "tower", {}),
    ("leave-tower", "B1:F@0101", Move("B1", H("0302")), "ok", {}),
    ("stone-into-own-god", "B1:S@0404", Move("B1", H("0505")), "own-god", {"borg_god": "0505"}),
    ("fog-into-own-god", "B1:F@0404", Move("B1", H("0505")), "own-god", {"borg_god": "0505"}),
    ("stone-attacks-god", "B1:S@0404", Move("B1", H("0505")), "ok", {"chez_god": "0505"}),
    ("second-attack", "B1:S@0404", Move("B1", H("0505")), "god-attack-used", {"chez_god": "0505", "god_attacked": True}),
    ("stack-of-four", "B1:S@0404 B2:S@0504 B3:S@0504 B4:S@0504", Move("B1", H("0504")), "ok", {}),
    ("stack-of-five", "B1:S@0404 B2:S@0504 B3:S@0504 B4:S@0504 B5:S@0504", Move("B1", H("0504")), "stacking", {}),
    ("fog-stack-of-five", "B1:F@0404 B2:S@0604 B3:S@0604 B4:S@0604 B5:S@0604", Move("B1", H("0604")), "stacking", {}),
    ("blade-stack-of-five", "B1:B@0106 B2:S@0606 B3:S@0606 B4:S@0606 B5:S@0606", Move("B1", H("0606")), "stacking", {}),
    ("enemies-do-not-count", "B1:S@0404 C1:S@0504 C2:S@0504 C3:S@0504 C4:S@0504", Move("B1", H("0504")), "ok", {}),
    # -- Who may move what, and when (4.2).
    ("moved-already", "B1:S@0404", Move("B1", H("0504")), "already-moved", {"moved": frozenset({"B1"})}),
    ("enemy-piece", "C1:S@0404", Move("C1", H("0504")), "not-your-turn", {}),
    ("unknown-piece", "B1:S@0404", Move("B7", H("0504")), "unknown-piece", {}),
    ("piece-under-tower", "B1:S@0404", Move("B2", H("0504")), "not-on-map", {"under_tower": ((BORG, "B2"),)}),
    ("setup-first", "B1:S@0404", Move("B1", H("0504")), "setup-first", {"phase": Phase.SETUP}),
    ("combat-phase", "B1:S@0404 B2:S@0606 C1:S@0606", Move("B1", H("0504")), "wrong-phase",
     {"phase": Phase.COMBAT, "combat": Combat(H("0606")), "combats": (H("0606"),)}),
    ("game-over", "B1:S@0404", Move("B1", H("0504")), "game-over", {"gods": (God(BORG, H("0110"), 3), God(CHEZ, H("1102"), 0))}),
    ("end-movement", "B1:S@0404", EndMovement(BORG), "ok", {}),
    ("end-enemy-movement", "B1:S@0404", EndMovement(CHEZ), "not-your-turn", {}),
]


@pytest.mark.parametrize(
    ("spec", "action", "code", "changes"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_movement_clause_table(spec: str, action: Any, code: str, changes: dict[str, Any]) -> None:
    changes = dict(changes)
    gods = {k: changes.pop(k) for k in ("borg_god", "chez_god") if k in changes}
    pos = position(spec, **gods, **changes)
    verdict = LAB_GAME.verdict(pos, action)
    assert verdict.code == code, verdict.message
    assert verdict.legal == (code == "ok")
    assert verdict.message
    listed = action in LAB_GAME.legal_actions(pos)
    if isinstance(action, Move) and not action.path:
        assert listed == verdict.legal  # listing and checking agree
    if not verdict.legal:
        with pytest.raises(IllegalActionError) as err:
            LAB_GAME.apply(pos, action, rolls=[6, 6, 6])
        assert err.value.verdict == verdict


# -- what a move does ---------------------------------------------------------------------------


def apply(g: OneWorld, pos: Position, action: Any, rolls: list[int] = ()):  # type: ignore[no-untyped-def, assignment]
    return g.apply(pos, action, rolls=list(rolls))


def test_stone_crosses_a_fault_without_a_roll() -> None:
    pos = position("B1:S@0306")
    step = apply(LAB_GAME, pos, Move("B1", H("0406")))
    assert step.rolls_used == ()
    assert step.state.child("B1").hex == H("0406")
    assert [e.kind for e in step.events] == ["move"]


def test_fog_is_routed_round_a_fault_when_only_start_and_end_are_seen() -> None:
    pos = position("B1:F@0306")
    move = Move("B1", H("0406"))
    assert LAB_GAME.verdict(pos, move).detail("faults") == 0  # 0306 -> 0405 -> 0406
    assert apply(LAB_GAME, pos, move).rolls_used == ()
    # The same destination along the stated one-step path crosses the fault: one roll.
    straight = Move("B1", H("0406"), (H("0406"),))
    assert LAB_GAME.verdict(pos, straight).detail("faults") == 1
    with pytest.raises(RollNeededError):
        apply(LAB_GAME, pos, straight)


@pytest.mark.parametrize(("roll", "survives"), [(1, False), (2, False), (3, True), (4, True), (5, True), (6, True)])
def test_the_fault_chart(roll: int, survives: bool) -> None:
    pos = position("B1:F@0306")
    step = apply(LAB_GAME, pos, Move("B1", H("0406"), (H("0406"),)), [roll])
    assert step.rolls_used == (roll,)
    if survives:
        assert step.state.child("B1").hex == H("0406")
        assert step.state.reserve(BORG) == ()
    else:
        assert step.state.child("B1") is None
        assert step.state.reserve(BORG) == ("B1",)  # placed beneath its Tower (5.4)
        assert [e.kind for e in step.events] == ["roll", "elimination"]
        assert step.events[-1].detail("cause") == "fault"
    assert "B1" in step.state.moved


def test_blade_rolls_once_for_every_fault_it_crosses() -> None:
    text = "size 7 1\nrow 01 . . . . . . .\nfault 0101 E 0301 E 0501 E\n"
    g = game(text, towers=False)
    pos = position("B1:B@0101", borg_god=None, chez_god=None)
    assert g.verdict(pos, Move("B1", H("0601"))).detail("faults") == 3
    step = apply(g, pos, Move("B1", H("0601")), [3, 4, 6])
    assert step.rolls_used == (3, 4, 6)
    assert step.state.child("B1").hex == H("0601")
    with pytest.raises(RollNeededError):
        apply(g, pos, Move("B1", H("0601")), [3, 4])
    with pytest.raises(FormatError, match="only 3 needed"):
        apply(g, pos, Move("B1", H("0601")), [3, 4, 5, 6])
    # Lost in the second fault: the third is never reached, so only two rolls are used.
    step = apply(g, pos, Move("B1", H("0601")), [5, 2])
    assert step.state.child("B1") is None and step.state.reserve(BORG) == ("B1",)


def test_a_roll_out_of_range_is_refused() -> None:
    pos = position("B1:F@0306")
    with pytest.raises(FormatError, match="out of range for a d6"):
        apply(LAB_GAME, pos, Move("B1", H("0406"), (H("0406"),)), [7])


def test_children_stepping_into_chaos_are_lost_for_good() -> None:
    pos = position("B1:B@0906")
    step = apply(LAB_GAME, pos, Move("B1", H("1206")))  # 1006, 1106, then off the grid
    assert step.state.child("B1") is None
    assert step.state.lost == ((BORG, "B1"),)
    assert step.state.reserve(BORG) == ()
    assert [e.kind for e in step.events] == ["lost"]
    # A Stone may step off the grid too: nothing forbids it, it is only unwise (5.6).
    step = apply(LAB_GAME, position("B1:S@0106"), Move("B1", H("0006")))
    assert step.state.lost == ((BORG, "B1"),)


def test_a_blade_that_meets_the_enemy_stops_and_fights_later() -> None:
    pos = position("B1:B@0106 C1:F@0306")
    step = apply(LAB_GAME, pos, Move("B1", H("0306")))
    assert step.state.child("B1").hex == H("0306")
    assert "combat" in step.events[0].text
    assert step.state.phase is Phase.MOVEMENT  # combat comes after movement and reinforcement


def test_leaving_a_tower_hex_is_free_but_coming_back_is_not() -> None:
    # A reinforcement stands on the Tower hex 0101, the map's corner: two map neighbours (E
    # 0201, SE 0102) and four Chaos hexes (W 0001, NE 0100, NW 0000, SW 0002).
    pos = position("B1:S@0101")
    assert destinations(LAB_GAME, pos, "B1") == {"0201", "0102", "0001", "0100", "0000", "0002"}
    moved = apply(LAB_GAME, pos, Move("B1", H("0201"))).state
    assert LAB_GAME.verdict(replace(moved, moved=frozenset()), Move("B1", H("0101"))).code == "tower"


# ---------------------------------------------------------------------------------------------
# Counting legal moves by hand (perft-style).
#
# The 7 x 7 map: all flatland but one pylon at 0503, one runeline on the side 0404/0504 and
# one fault on the side 0404/0405. The centre is C = 0404 (axial q=2, r=3); its neighbours are
# E 0504 (across the runeline), NE 0503 (the pylon), NW 0403, W 0304, SW 0405 (across the
# fault) and SE 0505. Every hex within 3 of C is on the map (its rows 1..7, columns 1..7).
# ---------------------------------------------------------------------------------------------
SEVEN = """\
size 7 7
row 01 . . . . . . .
row 02  . . . . . . .
row 03 . . . . P . .
row 04  . . . . . . .
row 05 . . . . . . .
row 06  . . . . . . .
row 07 . . . . . . .
runeline 0404 E
fault 0404 SW
"""
SEVEN_GAME = game(SEVEN, towers=False)


def lone(aspect: str, where: str = "0404", extra: str = "") -> Position:
    return position(f"B1:{aspect}@{where} {extra}".strip(), borg_god="0101", chez_god="0707")


def test_perft_stone_in_the_centre() -> None:
    # Six neighbours; E 0504 is across the runeline (Stone may not cross it); the pylon 0503
    # may be climbed by Stone; the fault towards 0405 does not matter to Stone.
    # 6 - 1 = 5 destinations.
    assert destinations(SEVEN_GAME, lone("S"), "B1") == {"0304", "0403", "0405", "0503", "0505"}


def test_perft_fog_in_the_centre() -> None:
    # Every hex within 3 of C: 6 + 12 + 18 = 36. Relative axial offsets (dq, dr) from C:
    # - the pylon (1,-1) may not be entered from flatland: -1;
    # - E (1,0) is still reached round the runeline: SE then NE (2 steps);
    # - (2,0) by SE, NE, E; (2,-1) by SE, NE, NE; (2,-2) by NW, NE, E; (1,-2) by NW, NE;
    # - the four hexes 3 away to the east, (3,-3), (3,-2), (3,-1) and (3,0), have only
    #   shortest paths, and every one starts with the step E (over the runeline) or NE (onto
    #   the pylon): unreachable, -4;
    # - the fault changes rolls, not destinations.
    # 36 - 1 - 4 = 31.
    # Printed, the five unreachable hexes are 0503 (pylon), 0601, 0602, 0703 and 0704.
    dest = destinations(SEVEN_GAME, lone("F"), "B1")
    assert len(dest) == 31
    within_3 = {h.label() for h in SEVEN_GAME.board.cells if 0 < h.distance(H("0404")) <= 3}
    assert len(within_3) == 36
    assert dest == within_3 - {"0503", "0601", "0602", "0703", "0704"}


def test_perft_fog_with_an_enemy_beside_it() -> None:
    # As above, with a CHEZ Stone at W 0304. Fog may enter it (and stop: combat) but not pass.
    # The only hex lost is (-3,0) = 0104, three steps W, W, W, whose every path goes through
    # 0304; (-2,0) = 0204 is still reached by NW, W, SW, and (-2,1), (-3,1) .. by SW first.
    # 31 - 1 = 30, 0304 itself included.
    dest = destinations(SEVEN_GAME, lone("F", extra="C1:S@0304"), "B1")
    assert len(dest) == 30
    assert "0304" in dest and "0204" in dest and "0104" not in dest


def test_perft_blade_in_the_centre() -> None:
    # Six directions. NE: the first hex is the pylon: no move at all. The other five run 3
    # hexes to the edge of the 7 x 7 grid and on into Chaos (the runeline E is ignored, the
    # fault SW is only a roll): 5 destinations, each a Chaos hex where the Blade is lost.
    dest = destinations(SEVEN_GAME, lone("B"), "B1")
    assert len(dest) == 5
    assert not any(SEVEN_GAME.board.on_map(H(x)) for x in dest)


def test_perft_blade_on_the_west_edge() -> None:
    # From 0104: E runs 0204, 0304, 0404, 0504 (over the runeline), 0604 and lands (5 hexes);
    # W leaves the grid at once; NE reaches row 1 after 3 hexes and goes on into Chaos; NW
    # after 1; SE after 3; SW after 1. 6 destinations, 5 of them in Chaos.
    dest = destinations(SEVEN_GAME, lone("B", "0104"), "B1")
    assert len(dest) == 6
    assert {x for x in dest if SEVEN_GAME.board.on_map(H(x))} == {"0604"}


# The Blade compass: 11 x 11 flatland, a BORG Blade in the centre 0606 with exactly five hexes
# of map in every direction, and one thing in each direction's way:
#   E  0706 0806 0906 1006 1106  a runeline 0706/0806 (ignored) and a fault 0806/0906: lands 1106
#   NE 0705 0704 [0803 pylon]    stops in front of the pylon: 0704
#   NW 0605 [0504 CHEZ Stone]    stops on entering the enemy: 0504 (combat follows)
#   W  0506 0406 0306 0206 0106  a BORG Stone at 0306 is passed through: lands 0106
#   SW 0607 0508 0509 [0410]     stops in front of its own god: 0509
#   SE [0707 Tower]              cannot move at all
COMPASS = """\
size 11 11
row 01 . . . . . . . . . . .
row 02  . . . . . . . . . . .
row 03 . . . . . . . P . . .
row 04  . . . . . . . . . . .
row 05 . . . . . . . . . . .
row 06  . . . . . . . . . . .
row 07 . . . . . . T . . . .
row 08  . . . . . . . . . . .
row 09 . . . . . . . . . . .
row 10  . . . . . . . . . . .
row 11 . . . . . . . . . . .
runeline 0706 E
fault 0806 E
"""


def compass(extra: str = "") -> Position:
    return position(f"B1:B@0606 B2:S@0306 C1:S@0504 {extra}".strip(), borg_god="0410", chez_god="1111")


def test_perft_blade_compass() -> None:
    g = game(COMPASS, towers=False)
    # 5 destinations, as drawn above.
    assert destinations(g, compass(), "B1") == {"1106", "0704", "0504", "0106", "0509"}
    assert g.verdict(compass(), Move("B1", H("1106"))).detail("faults") == 1
    # The whole position for BORG: Blade 5 + Stone 0306 (six flatland neighbours, none
    # blocked) 6 + ending the movement phase 1 = 12 actions.
    actions = g.legal_actions(compass())
    assert len(actions) == 12
    assert EndMovement(BORG) in actions


def test_perft_blade_compass_with_a_full_landing_hex() -> None:
    # Four more BORG Stones on 1106: the E direction would end in a fifth child there, so the
    # direction is illegal: 5 - 1 = 4 destinations.
    g = game(COMPASS, towers=False)
    full = " ".join(f"B{i}:S@1106" for i in range(3, 7))
    assert destinations(g, compass(full), "B1") == {"0704", "0504", "0106", "0509"}


def test_perft_blade_compass_with_friendly_obstacle() -> None:
    # Friendly Obstacle (section 12): the W Blade may also stop on the BORG Stone at 0306.
    # 5 + 1 = 6 destinations.
    g = game(COMPASS, towers=False, friendly_obstacle=True)
    assert destinations(g, compass(), "B1") == {"1106", "0704", "0504", "0106", "0509", "0306"}


def test_perft_pylon_movement() -> None:
    # A 5 x 3 map whose middle row is pylons, 0102 .. 0502, and a Stone on the pylon 0102.
    # 0102 is an even row: its neighbours are E 0202 (pylon), W 0002 (Chaos), NE 0201, NW
    # 0101, SE 0203 and SW 0103 (flatland).
    # Without the option: one hex, any of the 6 neighbours = 6.
    # With Pylon Movement: ordinary movement may not go pylon to pylon, so 4 flatland + Chaos
    # = 5; pylon to pylon the Stone travels up to 3 hexes: 0202, 0302, 0402 = 3. 5 + 3 = 8.
    text = "size 5 3\nrow 01 . . . . .\nrow 02  P P P P P\nrow 03 . . . . .\n"
    pos = position("B1:S@0102", borg_god=None, chez_god=None)
    with_rule = destinations(game(text, towers=False, pylon_movement=True), pos, "B1")
    without = destinations(game(text, towers=False), pos, "B1")
    assert without == {"0101", "0201", "0103", "0203", "0202", "0002"}
    assert with_rule == {"0101", "0201", "0103", "0203", "0202", "0302", "0402", "0002"}


# ---------------------------------------------------------------------------------------------
# Stone and Fog against a brute-force reference: every simple path of up to 1 (Stone) or 3
# (Fog) steps, walked with the rules of 5.1-5.6, 7.2, 7.3 and 10.4 written out afresh.
# ---------------------------------------------------------------------------------------------


def random_map(rng: random.Random) -> str:
    rows = []
    for r in range(1, 8):
        cells = [rng.choices(".P~T", weights=(70, 18, 8, 4))[0] for _ in range(7)]
        rows.append(f"row {r:02d} {' '.join(cells)}")
    cells_on = {
        Hex.from_offset(c, r)
        for r, row in enumerate(rows, start=1)
        for c, ch in enumerate(row.split()[2:], start=1)
        if ch != "~"
    }
    sides = []
    for h in sorted(cells_on):
        for d in HexDirection:
            if h.neighbor(d) in cells_on and h < h.neighbor(d) and rng.random() < 0.15:
                sides.append(f"{rng.choice(['runeline', 'fault'])} {h.label()} {d.name}")
    return "size 7 7\n" + "\n".join(rows) + "\n" + "\n".join(sides) + "\n"


def reference(g: OneWorld, pos: Position, child: Child) -> dict[Hex, int]:
    """Destination -> fewest faults, by walking every simple path."""
    board, side = g.board, child.side
    towers = set(board.tower_hexes())
    own_god, enemy_god = pos.god(side).hex, pos.god(side.other()).hex
    limit = g.options.stacking_limit
    best: dict[Hex, int] = {}

    def own(h: Hex) -> int:
        return len(pos.children_at(h, side))

    def walk(here: Hex, path: list[Hex], faults: int, left: int) -> None:
        for d in HexDirection:
            there = here.neighbor(d)
            if there == child.hex or there in path:
                continue
            if there not in board.cells:  # into Chaos: allowed, and the end of the walk
                best[there] = min(best.get(there, 99), faults)
                continue
            if board.runeline_between(here, there):
                continue
            if board.is_pylon(there) and not board.is_pylon(here) and child.aspect is not Aspect.STONE:
                continue
            if there in towers or there == own_god:
                continue
            f = faults + (1 if board.fault_between(here, there) and child.aspect is not Aspect.STONE else 0)
            if there == enemy_god:
                if not pos.god_attacked:
                    best[there] = min(best.get(there, 99), f)
                continue
            if pos.children_at(there, side.other()):
                if own(there) < limit:
                    best[there] = min(best.get(there, 99), f)
                continue
            if own(there) < limit:
                best[there] = min(best.get(there, 99), f)
            if left > 1:
                walk(there, path + [there], f, left - 1)

    walk(child.hex, [], 0, 1 if child.aspect is Aspect.STONE else 3)
    return best


@given(st.integers(0, 2**32 - 1), st.sampled_from([Aspect.STONE, Aspect.FOG]), st.booleans())
@settings(max_examples=150, deadline=None)
def test_stone_and_fog_agree_with_the_brute_force_reference(seed: int, aspect: Aspect, attacked: bool) -> None:
    rng = random.Random(seed)
    g = game(random_map(rng), towers=False, stacking_limit=rng.choice([1, 2, 4]))
    free = sorted(h for h in g.board.cells if h not in g.board.tower_hexes())
    assume(len(free) >= 6)
    spots = rng.sample(free, 3)
    mover = Child("B1", BORG, aspect, spots[0])
    others = [
        Child(f"{'B' if rng.random() < 0.5 else 'C'}{i}", BORG, rng.choice(list(Aspect)), rng.choice(free))
        for i in range(2, 2 + rng.randint(0, 10))
    ]
    others = [replace(c, side=CHEZ) if c.id[0] == "C" else c for c in others]
    others = [c for c in others if c.hex not in spots[1:] and c.hex != mover.hex]
    pos = Position(
        Phase.MOVEMENT,
        BORG,
        gods=(God(BORG, spots[1], 3), God(CHEZ, spots[2], 3)),
        children=(mover, *others),
        god_attacked=attacked,
    )
    want = reference(g, pos, mover)
    got = {a.to: g.verdict(pos, a).detail("faults") for a in g.legal_actions(pos) if isinstance(a, Move) and a.piece == "B1"}
    assert got == want
    for to in {mover.hex.neighbor(d).neighbor(e) for d in HexDirection for e in HexDirection} - set(want):
        verdict = g.verdict(pos, Move("B1", to))
        assert not verdict.legal and verdict.code != "ok"

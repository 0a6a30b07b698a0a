"""The rulebook's examples of play (appendix A, B and C) as golden tests: scripted actions and
rolls, and the events, positions and verdicts they must give."""

from __future__ import annotations

import pytest
from oneworld_support import ARENA, BLADE, BORG, CHEZ, FOG, STONE, H, game, position

from rules.errors import RollNeededError
from rules.oneworld import Aspect, EndMovement, Move, OneWorld, Phase, Position, Transform

# A 13 x 5 strip for appendix A. Row 3 (odd, so E and W stay in the row) carries a fault on
# 0203/0303 and the pylons 0803 and 0903; a runeline lies on 0401/0501 in row 1.
STRIP = """\
size 13 5
row 01 . . . . . . . . . . . . .
row 02  . . . . . . . . . . . . .
row 03 . . . . . . . P P . . . .
row 04  . . . . . . . . . . . . .
row 05 . . . . . . . . . . . . .
fault 0203 E
runeline 0401 E
"""


# -- A: movement of the children ------------------------------------------------------------------


@pytest.fixture(scope="module")
def strip() -> OneWorld:
    return game(STRIP, towers=False)


def a_pos(spec: str) -> Position:
    """A BORG position on the strip: the gods at 0101 and 1305, no Towers."""
    return position(spec, borg_god="0101", chez_god="1305", towers=())


def test_appendix_a1_blade(strip: OneWorld) -> None:
    # "Blade moves five hexes per turn. The movement must be in a straight line."
    pos = a_pos("B1:B@0103")
    assert strip.verdict(pos, Move("B1", H("0603"))).legal
    assert strip.verdict(pos, Move("B1", H("0403"))).code == "blade-must-move-five"
    assert strip.verdict(pos, Move("B1", H("0504"))).code == "blade-straight-line"
    # "When Blade crosses a Fault of Chaos, it must make a roll on the Fault Chart."
    with pytest.raises(RollNeededError):
        strip.apply(pos, Move("B1", H("0603")))
    step = strip.apply(pos, Move("B1", H("0603")), rolls=[4])
    assert step.state.child("B1").hex == H("0603")
    assert [(e.kind, e.detail("roll")) for e in step.events] == [("move", None), ("roll", 4)]
    # "... unless movement is blocked by (a) a Pylon": from 0403, 0503 0603 0703, then 0803.
    pos = a_pos("B1:B@0403")
    assert strip.verdict(pos, Move("B1", H("0703"))).legal
    assert strip.verdict(pos, Move("B1", H("0803"))).code == "blade-stopped"
    # "... or (b) enemy Children": it stops in their hex.
    pos = a_pos("B1:B@0103 C1:F@0303")
    assert strip.verdict(pos, Move("B1", H("0303"))).legal
    assert strip.verdict(pos, Move("B1", H("0603"))).code == "blade-stopped"
    # "Blade can never move from flatland to Pylon": next to the pylon, east is closed.
    pos = a_pos("B1:B@0703")
    assert strip.verdict(pos, Move("B1", H("0803"))).code == "blade-blocked"
    # "... although it can move from Pylon to Pylon or from Pylon to flatland."
    pos = a_pos("B1:B@0803")
    assert strip.verdict(pos, Move("B1", H("1303"))).legal  # 0903 (pylon), 1003 .. 1303
    pos = a_pos("B1:B@0903")
    assert strip.verdict(pos, Move("B1", H("0403"))).legal  # 0803 (pylon), 0703 .. 0403


def test_appendix_a2_fog(strip: OneWorld) -> None:
    pos = a_pos("B1:F@0602")
    # "Fog moves one, two or three hexes per turn."
    for to in ("0702", "0802", "0902"):
        assert strip.verdict(pos, Move("B1", H(to))).legal
    assert strip.verdict(pos, Move("B1", H("1002"))).code == "too-far"
    # "Movement does not need to be in a straight line."
    assert strip.verdict(pos, Move("B1", H("0601"), (H("0701"), H("0601")))).code == "ok"
    assert strip.verdict(pos, Move("B1", H("0704"))).legal
    # "Fog cannot move from flatland to Pylon."
    assert strip.verdict(a_pos("B1:F@0703"), Move("B1", H("0803"))).code == "pylon"
    # "... cannot cross Runelines": 0401 -> 0501 straight over the runeline is refused.
    pos = a_pos("B1:F@0401")
    assert strip.verdict(pos, Move("B1", H("0501"), (H("0501"),))).code == "runeline"
    # "... and must roll on the Fault Chart when crossing Faults of Chaos."
    pos = a_pos("B1:F@0203")
    step = strip.apply(pos, Move("B1", H("0303"), (H("0303"),)), rolls=[2])
    assert step.state.child("B1") is None and step.state.reserve(BORG) == ("B1",)
    assert [e.kind for e in step.events] == ["roll", "elimination"]


def test_appendix_a3_stone(strip: OneWorld) -> None:
    pos = a_pos("B1:S@0203")
    # "Stone moves one hex per turn."
    assert strip.verdict(pos, Move("B1", H("0403"))).code == "too-far"
    # "Stone can cross Faults of Chaos without having to roll on the Fault Chart."
    step = strip.apply(pos, Move("B1", H("0303")))
    assert step.rolls_used == () and step.state.child("B1").hex == H("0303")
    # "... but cannot cross Runelines."
    assert strip.verdict(a_pos("B1:S@0401"), Move("B1", H("0501"))).code == "runeline"
    # "Stone may move from flatland to Pylon."
    assert strip.verdict(a_pos("B1:S@0703"), Move("B1", H("0803"))).legal


# -- B: combat ------------------------------------------------------------------------------------


def test_appendix_b_combat() -> None:
    g = game(ARENA)
    # "In one hex are two BORG Children: Stone and Fog. The CHEZ player moves three CHEZ
    # Children into the hex: Fog, Fog and Blade." The hex is 0505; CHEZ's Fogs step in from
    # 0605 and 0506, its Blade runs east from 0205 and stops on meeting the enemy.
    pos = position("B1:S@0505 B2:F@0505 C1:F@0605 C2:F@0506 C3:B@0205", CHEZ)
    for piece in ("C1", "C2", "C3"):
        pos = g.apply(pos, Move(piece, H("0505"))).state
    step = g.apply(pos, EndMovement(CHEZ))  # no reinforcement: nothing under CHEZ's Tower
    pos = step.state
    assert step.rolls_used == ()
    assert pos.phase is Phase.COMBAT and pos.combat is not None and pos.combat.hex == H("0505")
    assert set(g.to_move(pos)) == {"borg", "chez"}  # both transform in secret

    # Round 1. "BORG switches his children so that both are Stones. CHEZ changes to have
    # Fog, Stone and Blade."
    pos = g.apply(pos, Transform(BORG, H("0505"), (STONE, STONE))).state
    assert g.view(pos, "chez").combat.chosen(BORG) is None  # not shown to CHEZ
    step = g.apply(pos, Transform(CHEZ, H("0505"), (FOG, STONE, BLADE)))
    pos = step.state
    # "BORG has two Stones ... can remove two Blades ... Since CHEZ has only one Blade, only
    # one Blade can be killed. CHEZ, with a Fog, Stone and Blade ... only the one Stone can
    # be killed."
    rnd = [e for e in step.events if e.kind == "combat-round"]
    assert len(rnd) == 1
    assert rnd[0].detail("borg") == ["stone", "stone"] and rnd[0].detail("chez") == ["stone", "blade", "fog"]
    assert sorted(pos.reserve(BORG)) == ["B2"] and pos.reserve(CHEZ) == ("C2",)
    assert {(c.id, c.aspect) for c in pos.children_at(H("0505"))} == {
        ("B1", STONE), ("C1", STONE), ("C3", FOG)
    }
    # "Since both sides still have Children living, another combat round is begun."
    assert pos.phase is Phase.COMBAT and pos.combat.rounds == 1

    # Round 2. "BORG keeps with the Stone. CHEZ selects one Fog and one Stone."
    pos = g.apply(pos, Transform(CHEZ, H("0505"), (FOG, STONE))).state
    step = g.apply(pos, Transform(BORG, H("0505"), (STONE,)))
    pos = step.state
    # "CHEZ may kill one Stone and one Blade. This eliminates BORG's Children."
    assert [e.kind for e in step.events] == ["combat-round", "elimination", "combat", "turn"]
    assert step.events[1].detail("piece") == "B1"
    assert step.events[2].detail("winner") == "chez"
    # "CHEZ is left with a Fog and a Stone in that hex."
    assert sorted(c.aspect.value for c in pos.children_at(H("0505"))) == ["fog", "stone"]
    assert pos.children_of(BORG) == ()
    # Dead soldiers lie under their own Towers (8.4).
    assert sorted(pos.reserve(BORG)) == ["B1", "B2"] and pos.reserve(CHEZ) == ("C2",)
    # Combat over: BORG's turn begins.
    assert (pos.phase, pos.active, pos.turn) == (Phase.MOVEMENT, BORG, 2)


# -- C: combat versus a god ---------------------------------------------------------------------


def c_start(g: OneWorld) -> Position:
    # "BORG is quietly sitting in his hex when an enemy Stone moves into it."
    pos = position("C1:S@0605", CHEZ, borg_god="0505")
    pos = g.apply(pos, Move("C1", H("0505"))).state
    assert pos.god_attacked
    pos = g.apply(pos, EndMovement(CHEZ)).state
    assert pos.phase is Phase.COMBAT and pos.combat.against_god
    return pos


def test_appendix_c_combat_versus_a_god() -> None:
    g = game(ARENA)
    pos = c_start(g)
    # "(1) Transformation of the Child: The Child is transformed into Blade." The child's
    # player chooses first; the god's player may not announce before.
    assert g.to_move(pos) == ("chez",)
    assert g.verdict(pos, Transform(BORG, H("0505"), (STONE,))).code == "child-first"
    pos = g.apply(pos, Transform(CHEZ, H("0505"), (BLADE,))).state
    # "(2) Transformation of the God: The BORG player states his selection ... Stone."
    assert g.to_move(pos) == ("borg",)
    step = g.apply(pos, Transform(BORG, H("0505"), (STONE,)))
    pos = step.state
    # "(4) BORG's Stone defeats the Child's Blade. BORG does not lose a life. The Child
    # automatically is destroyed and placed beneath the appropriate Tower of Balance."
    assert [e.kind for e in step.events] == ["attack", "combat", "elimination", "turn"]
    assert step.events[0].detail("child") == "blade" and step.events[0].detail("god") == "stone"
    assert pos.god(BORG).lives == 3
    assert pos.children == () and pos.reserve(CHEZ) == ("C1",)
    assert (pos.phase, pos.active) == (Phase.MOVEMENT, BORG)


@pytest.mark.parametrize(
    ("child", "god", "lives"),
    [
        (BLADE, STONE, 3),  # the example: the god wins
        (STONE, BLADE, 2),  # "Stone defeats Blade": the child wins, a life is lost
        (FOG, STONE, 2),
        (BLADE, FOG, 2),
        (STONE, STONE, 3),  # a tie takes no life
        (FOG, BLADE, 3),
    ],
)
def test_the_child_always_dies_and_the_god_loses_a_life_only_when_beaten(child: Aspect, god: Aspect, lives: int) -> None:
    g = game(ARENA)
    pos = c_start(g)
    pos = g.apply(pos, Transform(CHEZ, H("0505"), (child,))).state
    step = g.apply(pos, Transform(BORG, H("0505"), (god,)))
    assert step.state.god(BORG).lives == lives
    assert step.state.reserve(CHEZ) == ("C1",)
    kinds = [e.kind for e in step.events]
    assert ("life-lost" in kinds) == (lives == 2)
    # The life is not placed beneath a Tower: only the child is.
    assert step.state.reserve(BORG) == ()

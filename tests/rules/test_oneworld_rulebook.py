"""OneWorld checked clause by clause against the rulebook (and GAMES.md): scenarios for the
disagreements an audit found, and for rules that were right but had no test of their own.

Each test's docstring names the section it checks and says what that section asks for."""

from __future__ import annotations

from oneworld_support import ARENA, BORG, CHEZ, B, F, H, S, destinations, game, position

from rules.oneworld import Child, EndMovement, Move, Phase, Transform

# The arena with one fault on the side between 0304 and 0404 (both in row 4).
FAULTED = ARENA + "fault 0304 E\n"

# One row of four flatland hexes: the only way east from 0101 is through 0201.
CORRIDOR = "size 4 1\nrow 01 . . . .\n"


def test_combat_hands_the_revealed_aspects_to_children_in_number_order() -> None:
    """8.2 (and the documented decision on who shows which aspect): the aspects a side reveals
    go to its children in the hex in the order Stone, Blade, Fog, children taken by number, so
    B2 comes before B10. The engine used to sort the ids as text and put B10 first."""
    g = game()
    pos = position("B2:F@0504 B10:F@0504 C1:S@0505")
    pos = g.apply(pos, Move("B2", H("0505"))).state
    pos = g.apply(pos, Move("B10", H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    pos = g.apply(pos, Transform(BORG, H("0505"), (F, S))).state
    step = g.apply(pos, Transform(CHEZ, H("0505"), (B,)))
    # BORG's Stone (B2) kills CHEZ's Blade; CHEZ's Blade kills BORG's Fog (B10).
    assert step.state.children == (Child("B2", BORG, S, H("0505")),)
    assert step.state.reserve(BORG) == ("B10",) and step.state.reserve(CHEZ) == ("C1",)
    assert step.events[0].detail("eliminated") == ["B10", "C1"]


def test_a_child_lost_in_a_fault_comes_back_in_the_same_turns_reinforcement_phase() -> None:
    """5.4, 9.2 and 4.2: a child that dies crossing a fault goes beneath its own Tower at once;
    the reinforcement phase follows the movement phase of the same turn, so that very counter
    can come back on the Tower before the turn ends, with its aspect rolled afresh."""
    g = game(FAULTED)
    pos = position("B1:F@0304")
    step = g.apply(pos, Move("B1", H("0404"), (H("0404"),)), rolls=[2])
    assert step.state.child("B1") is None and step.state.reserve(BORG) == ("B1",)
    step = g.apply(step.state, EndMovement(BORG), rolls=[3])
    assert [e.kind for e in step.events] == ["reinforcement", "turn"]
    assert step.state.child("B1") == Child("B1", BORG, B, H("0105"))
    assert step.state.reserve(BORG) == ()


def test_a_blade_lost_in_a_fault_never_reaches_the_enemy_it_was_heading_for() -> None:
    """5.4 with 6.3 and 8.1: a Blade running into enemy children across a fault rolls first;
    on a 1 or 2 it is gone before it arrives, so no hostile encounter and no combat follow.
    On any other roll it stops in the enemy's hex and the fight comes after movement."""
    g = game(FAULTED)
    pos = position("B1:B@0104 C1:F@0404")
    dead = g.apply(pos, Move("B1", H("0404")), rolls=[1]).state
    after = g.apply(dead, EndMovement(BORG), rolls=[1])  # it is due back from the Tower at once
    assert [e.kind for e in after.events] == ["reinforcement", "turn"]
    assert after.state.children_at(H("0404")) == (Child("C1", CHEZ, F, H("0404")),)
    alive = g.apply(pos, Move("B1", H("0404")), rolls=[4]).state
    assert alive.child("B1") == Child("B1", BORG, B, H("0404"))
    fight = g.apply(alive, EndMovement(BORG)).state
    assert fight.phase is Phase.COMBAT and fight.combats == (H("0404"),)


def test_children_lost_in_chaos_never_come_back_as_reinforcements() -> None:
    """5.6 and 9.2: a child that steps off the grid is out of play for good; only counters
    beneath the Tower (the dead of combat and of faults) feed the reinforcement phase, so a
    child lost in Chaos is never rolled for and never returns."""
    g = game()
    pos = position("B1:S@0103 C1:S@0707", under_tower=((BORG, "B2"),))
    pos = g.apply(pos, Move("B1", H("0003"))).state  # west of 0103: Chaos
    assert pos.lost == ((BORG, "B1"),)
    step = g.apply(pos, EndMovement(BORG), rolls=[1])
    assert step.state.child("B2") == Child("B2", BORG, S, H("0105"))
    pos = g.apply(step.state, EndMovement(CHEZ)).state
    step = g.apply(pos, EndMovement(BORG))  # nothing beneath the Tower: no roll
    assert step.rolls_used == () and step.state.lost == ((BORG, "B1"),)
    assert step.state.child("B1") is None


def test_a_fog_may_not_drift_through_its_own_gods_hex() -> None:
    """7.3: children never enter the hex where their own god sits, not even to pass through
    it on a longer move; with the god blocking the only way, the hexes beyond are out of reach
    although they are within a Fog's three hexes."""
    g = game(CORRIDOR, towers=False)
    pos = position("B1:F@0101", borg_god="0201", chez_god=None, towers=())
    assert {"0201", "0301", "0401"}.isdisjoint(destinations(g, pos, "B1"))
    assert g.verdict(pos, Move("B1", H("0301"))).code == "own-god"
    assert g.verdict(pos, Move("B1", H("0301"), (H("0201"), H("0301")))).code == "own-god"

"""OneWorld combat (sections 8, 10.4, 11 and chart 13.1): hostile encounters, repeated
rounds from the revealed aspects, dead soldiers, attacks on a god, lives and victory."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations_with_replacement
from typing import Any

import pytest
from oneworld_support import ARENA, BORG, CHEZ, B, F, H, S, aspects, game, position

from rules.oneworld import Aspect, EndMovement, Move, OneWorld, Phase, Position, Transform
from rules.oneworld.combat import KILLS, losses
from rules.oneworld.model import Combat

# -- chart 13.1 and the resolution formula (8.2) ------------------------------------------------


def test_the_combat_results_table() -> None:
    assert S.beats(B) and B.beats(F) and F.beats(S)
    assert not any(a.beats(a) for a in Aspect)
    assert not (B.beats(S) or F.beats(B) or S.beats(F))
    assert KILLS == {B: F, F: S, S: B}


@pytest.mark.parametrize(
    ("mine", "theirs", "i_lose", "they_lose"),
    [
        # Appendix B, round 1 and round 2.
        ("SS", "FSB", {S: 1}, {B: 1}),
        ("S", "FS", {S: 1}, {}),
        # 8.2(3) as corrected by GAMES.md: for every FRIENDLY Stone an enemy Blade dies.
        ("S", "B", {}, {B: 1}),
        ("SSS", "B", {}, {B: 1}),  # one for one, but never more than there are
        ("B", "FFF", {}, {F: 1}),
        ("F", "SS", {}, {S: 1}),
        ("BBB", "FF", {}, {F: 2}),
        # Simultaneous: a Blade kills a Fog even while an enemy Stone kills that Blade.
        ("B", "FS", {B: 1}, {F: 1}),
        # A ring: each side loses one of each.
        ("SBF", "SBF", {S: 1, B: 1, F: 1}, {S: 1, B: 1, F: 1}),
        # Nothing beats its own aspect.
        ("SS", "SSS", {}, {}),
        ("FB", "", {}, {}),
    ],
)
def test_losses(mine: str, theirs: str, i_lose: dict[Aspect, int], they_lose: dict[Aspect, int]) -> None:
    assert losses(aspects(mine), aspects(theirs)) == (i_lose, they_lose)
    assert losses(aspects(theirs), aspects(mine)) == (they_lose, i_lose)


# -- starting combat -----------------------------------------------------------------------------


def fight(g: OneWorld, spec: str = "B1:S@0404 B2:F@0505 C1:F@0505", mover: str = "B1", to: str = "0505") -> Position:
    pos = position(spec)
    pos = g.apply(pos, Move(mover, H(to))).state
    return g.apply(pos, EndMovement(BORG)).state


def test_a_hostile_encounter_always_leads_to_combat() -> None:
    g = game()
    pos = fight(g)
    assert pos.phase is Phase.COMBAT
    assert pos.combat == Combat(H("0505"))
    assert pos.combats == (H("0505"),)
    assert g.to_move(pos) == ("borg", "chez")


def test_each_side_lists_every_choice_of_aspects() -> None:
    g = game()
    pos = fight(g)
    listed = g.legal_actions(pos)
    # BORG has 2 children in the hex: 6 multisets of 2 aspects; CHEZ has 1: 3.
    assert len([a for a in listed if a.side is BORG]) == 6
    assert len([a for a in listed if a.side is CHEZ]) == 3
    assert Transform(BORG, H("0505"), (S, S)) in listed
    for combo in combinations_with_replacement(list(Aspect), 2):
        assert g.verdict(pos, Transform(BORG, H("0505"), combo)).legal
    # Once BORG has chosen, only CHEZ is waited for.
    pos = g.apply(pos, Transform(BORG, H("0505"), (S, S))).state
    assert g.to_move(pos) == ("chez",)
    assert {a.side for a in g.legal_actions(pos)} == {CHEZ}


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Transform(BORG, H("0505"), (S,)), "aspect-count"),
        (Transform(BORG, H("0505"), (S, S, S)), "aspect-count"),
        (Transform(BORG, H("0404"), (S, S)), "wrong-combat"),
        (Move("B2", H("0504")), "wrong-phase"),
        (EndMovement(BORG), "wrong-phase"),
        (Transform(BORG, H("0505"), (S, F)), "ok"),
        (Transform(BORG, H("0505"), (F, S)), "ok"),  # order does not matter
        (Transform(CHEZ, H("0505"), (B,)), "ok"),
    ],
)
def test_transformation_verdicts(action: Any, code: str) -> None:
    g = game()
    assert g.verdict(fight(g), action).code == code


def test_a_side_chooses_once_a_round_and_in_secret() -> None:
    g = game()
    pos = g.apply(fight(g), Transform(CHEZ, H("0505"), (B,))).state
    assert g.verdict(pos, Transform(CHEZ, H("0505"), (S,))).code == "already-chosen"
    assert g.view(pos, "borg").combat.pending == ((CHEZ, None),)
    assert g.view(pos, "chez").combat.pending == ((CHEZ, (B,)),)
    assert g.view(pos, None) == pos
    assert g.state_to_json(g.view(pos, "borg"))["combat"]["chosen"] == {"chez": "hidden"}


def test_no_combat_without_the_enemy() -> None:
    g = game()
    pos = g.apply(position("B1:S@0404 C1:F@0707"), EndMovement(BORG)).state
    assert (pos.phase, pos.active, pos.turn) == (Phase.MOVEMENT, CHEZ, 2)
    assert g.verdict(pos, Transform(CHEZ, H("0707"), (S,))).code == "wrong-phase"


def test_battle_crowds_at_most_four_against_four() -> None:
    # 8.5: with the stacking limit of 4 the largest combat is four children against four.
    g = game()
    pos = position(
        " ".join(f"B{i}:S@0404" for i in range(1, 5)) + " B5:S@0406 " + " ".join(f"C{i}:F@0505" for i in range(1, 5))
    )
    for piece in ("B1", "B2", "B3", "B4"):
        pos = g.apply(pos, Move(piece, H("0505"))).state
    assert g.verdict(pos, Move("B5", H("0505"))).code == "stacking"
    pos = g.apply(pos, EndMovement(BORG)).state
    listed = g.legal_actions(pos)
    assert len(listed) == 15 + 15  # multisets of 4 aspects out of 3, for each side
    assert all(len(a.aspects) == 4 for a in listed)


# -- rounds -----------------------------------------------------------------------------------------


def test_combat_repeats_until_one_side_is_gone() -> None:
    g = game()
    pos = fight(g)  # BORG B1 Stone + B2 Fog against CHEZ C1 Fog in 0505
    for r in range(1, 6):  # Stone against Stone: nobody dies, round after round
        pos = g.apply(pos, Transform(BORG, H("0505"), (S, S))).state
        step = g.apply(pos, Transform(CHEZ, H("0505"), (S,)))
        pos = step.state
        assert [e.kind for e in step.events] == ["combat-round"]
        assert step.events[0].detail("eliminated") == []
        assert (pos.combat.rounds, pos.combat.quiet_rounds) == (r, r)
    pos = g.apply(pos, Transform(BORG, H("0505"), (B, B))).state
    step = g.apply(pos, Transform(CHEZ, H("0505"), (F,)))
    assert [e.kind for e in step.events] == ["combat-round", "elimination", "combat", "turn"]
    assert step.state.reserve(CHEZ) == ("C1",)
    # Survivors keep the aspects they revealed.
    assert {(c.id, c.aspect) for c in step.state.children} == {("B1", B), ("B2", B)}


def test_which_children_die() -> None:
    # Children take the revealed aspects in the order Stone, Blade, Fog, by id; the last
    # children of an aspect are the ones that die.
    g = game()
    pos = position("B1:S@0505 B2:S@0505 B3:S@0505 C1:F@0404")
    pos = replace(pos, active=CHEZ)
    pos = g.apply(pos, Move("C1", H("0505"))).state
    pos = g.apply(pos, EndMovement(CHEZ)).state
    pos = g.apply(pos, Transform(BORG, H("0505"), (F, S, B))).state  # B1 Stone, B2 Blade, B3 Fog
    step = g.apply(pos, Transform(CHEZ, H("0505"), (B,)))  # the Blade kills one Fog: B3
    assert step.events[0].detail("eliminated") == ["B3", "C1"]  # and B1's Stone kills it
    assert {(c.id, c.aspect) for c in step.state.children_of(BORG)} == {("B1", S), ("B2", B)}


def test_eliminations_are_simultaneous() -> None:
    g = game()
    # BORG's Blade kills CHEZ's Fog while CHEZ's Stone kills that Blade, in the same round.
    pos = fight(g, "B1:S@0404 C1:F@0505 C2:S@0505")
    pos = g.apply(pos, Transform(BORG, H("0505"), (B,))).state
    step = g.apply(pos, Transform(CHEZ, H("0505"), (F, S)))  # C1 takes Stone, C2 Fog
    assert step.events[0].detail("eliminated") == ["B1", "C2"]
    assert [(c.id, c.aspect) for c in step.state.children] == [("C1", S)]
    assert step.events[-2].detail("winner") == "chez"


def test_both_sides_can_be_wiped_out_together() -> None:
    g = game()
    pos = position("B1:S@0404 B2:S@0404 B3:S@0404 C1:F@0505 C2:F@0505 C3:F@0505")
    for piece in ("B1", "B2", "B3"):
        pos = g.apply(pos, Move(piece, H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    pos = g.apply(pos, Transform(BORG, H("0505"), (S, B, F))).state
    step = g.apply(pos, Transform(CHEZ, H("0505"), (S, B, F)))  # each loses one of each
    assert step.state.children == ()
    assert step.events[-2].kind == "combat" and step.events[-2].detail("winner") is None
    assert "nobody is left" in step.events[-2].text
    assert sorted(step.state.reserve(BORG)) == ["B1", "B2", "B3"]
    assert sorted(step.state.reserve(CHEZ)) == ["C1", "C2", "C3"]


def test_every_round_is_a_new_secret_choice() -> None:
    g = game()
    pos = fight(g)
    pos = g.apply(pos, Transform(BORG, H("0505"), (S, S))).state
    pos = g.apply(pos, Transform(CHEZ, H("0505"), (S,))).state
    assert pos.combat.pending == ()
    assert set(g.to_move(pos)) == {"borg", "chez"}


# -- several combats in one turn; the order ------------------------------------------------------


def test_the_god_attack_comes_first_then_the_fights_in_hex_order() -> None:
    g = game()
    pos = position("B1:S@0508 B2:F@0303 C1:S@0304 B3:F@0606 C2:S@0706")
    for piece, to in (("B3", "0706"), ("B2", "0304"), ("B1", "0509")):
        pos = g.apply(pos, Move(piece, H(to))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    # The god first; then the fights by axial (q, r) order: 0304 is (1, 3), 0706 is (4, 5).
    assert pos.combats == (H("0509"), H("0304"), H("0706"))
    assert pos.combat.against_god
    pos = g.apply(pos, Transform(BORG, H("0509"), (S,))).state
    pos = g.apply(pos, Transform(CHEZ, H("0509"), (S,))).state
    assert pos.combat == Combat(H("0304"))
    pos = g.apply(pos, Transform(BORG, H("0304"), (F,))).state
    pos = g.apply(pos, Transform(CHEZ, H("0304"), (B,))).state  # Blade kills Fog
    assert pos.combat == Combat(H("0706"))
    pos = g.apply(pos, Transform(BORG, H("0706"), (F,))).state
    step = g.apply(pos, Transform(CHEZ, H("0706"), (S,)))  # Fog kills Stone
    assert (step.state.phase, step.state.active) == (Phase.MOVEMENT, CHEZ)
    assert sorted(step.state.reserve(BORG)) == ["B1", "B2"] and step.state.reserve(CHEZ) == ("C2",)


# -- attacks on a god (10.4), lives (10.2) and victory (11.2) -------------------------------------


def attack(g: OneWorld, pos: Position, child: Aspect, god: Aspect, mover: str = "B1", to: str = "0509", rolls=()):  # type: ignore[no-untyped-def]
    pos = g.apply(pos, Move(mover, H(to))).state
    pos = g.apply(pos, EndMovement(pos.active), rolls=list(rolls)).state
    pos = g.apply(pos, Transform(pos.active, H(to), (child,))).state
    return g.apply(pos, Transform(pos.active.other(), H(to), (god,)))


def test_only_one_child_may_attack_the_enemy_god_in_a_turn() -> None:
    g = game()
    pos = position("B1:S@0508 B2:F@0408")
    pos = g.apply(pos, Move("B1", H("0509"))).state
    verdict = g.verdict(pos, Move("B2", H("0509")))
    assert verdict.code == "god-attack-used"
    assert "0509" not in {a.to.label() for a in g.piece_moves(pos, "B2")}


def test_a_god_fight_takes_one_aspect_a_side() -> None:
    g = game()
    pos = position("B1:S@0508")
    pos = g.apply(g.apply(pos, Move("B1", H("0509"))).state, EndMovement(BORG)).state
    assert g.legal_actions(pos) == [Transform(BORG, H("0509"), (a,)) for a in Aspect]
    assert g.verdict(pos, Transform(BORG, H("0509"), (S, S))).code == "aspect-count"
    pos = g.apply(pos, Transform(BORG, H("0509"), (F,))).state
    assert g.legal_actions(pos) == [Transform(CHEZ, H("0509"), (a,)) for a in Aspect]


def test_a_god_with_no_lives_left_ends_the_game_at_once() -> None:
    g = game()
    # A fight is waiting too, but the game ends before it is fought.
    pos = position("B1:F@0508 B2:S@0404 C1:F@0505", lives=(3, 1))
    pos = g.apply(pos, Move("B2", H("0505"))).state
    step = attack(g, pos, F, S)
    assert [e.kind for e in step.events][-1] == "victory"
    assert step.events[-1].detail("winner") == "borg"
    end = step.state
    assert end.phase is Phase.OVER and end.god(CHEZ).lives == 0
    outcome = g.outcome(end)
    assert outcome is not None and outcome.winner == "borg" and not outcome.draw
    assert g.legal_actions(end) == [] and g.to_move(end) == ()
    assert g.verdict(end, EndMovement(BORG)).code == "game-over"


def test_three_lives_three_wins() -> None:
    g = game()
    pos = position("B1:F@0508 B2:F@0508 B3:F@0508")
    lives = []
    for piece in ("B1", "B2", "B3"):
        pos = replace(pos, active=BORG)
        # From the second turn on a reinforcement is due (roll 1: a Stone on the Tower 0105).
        step = attack(g, pos, F, S, mover=piece, rolls=[1] if pos.reserve(BORG) else [])
        pos = step.state
        lives.append(pos.god(CHEZ).lives)
    assert lives == [2, 1, 0]
    assert g.outcome(pos).winner == "borg"
    # B1 and B2 came back as reinforcements on the Tower (reusing their ids); B3 lies under it.
    assert pos.reserve(BORG) == ("B3",)
    assert {(c.id, c.aspect, c.hex.label()) for c in pos.children} == {("B1", S, "0105"), ("B2", S, "0105")}


def test_a_god_attack_after_a_fault_death_never_happened() -> None:
    text = ARENA + "fault 0508 SW\n"  # the side between 0508 and 0509
    g = game(text)
    pos = position("B1:F@0508 B2:F@0408")
    step = g.apply(pos, Move("B1", H("0509"), (H("0509"),)), rolls=[1])
    assert step.state.child("B1") is None and not step.state.god_attacked
    assert g.verdict(step.state, Move("B2", H("0509"))).legal  # another child may still attack

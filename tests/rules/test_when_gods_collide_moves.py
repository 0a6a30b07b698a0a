"""When Gods Collide: the chess die's movements, the turn's dice, passing, perft counts."""

from __future__ import annotations

from typing import Any

import pytest
from wgc_support import mv, ring, sq

from rules.core import CHANCE
from rules.errors import IllegalActionError
from rules.when_gods_collide import (
    Army,
    CallHero,
    ChessFace,
    HeroFace,
    HeroRoll,
    Move,
    Pass,
    Phase,
    Roll,
    TurnRoll,
    WgcState,
    WhenGodsCollide,
    parse_diagram,
)

GAME = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})


def position(diagram: str, chess: str, number: int = 1, **kw: Any) -> WgcState:
    roll = TurnRoll(ChessFace(chess), number)
    return parse_diagram(diagram, phase=Phase.MOVE, roll=roll, **kw)


# Greek checkers: 1,3 (mover for most cases) and 4,0 (own blocker); Norse: god far away at 5,5,
# mortals at 0,0 and 4,3.
BASE = ring({"1,3": "g", "4,0": "G", "5,5": "N", "0,0": "n", "4,3": "n"})

# (face, number, from, to, expected code; "ok" when legal)
MOVE_CASES = [
    # King: one square any way, onto empty or enemy; the corner step across two gaps is fine.
    ("king", 1, "1,3", "1,2", "ok"),
    ("king", 1, "1,3", "0,2", "ok"),
    ("king", 1, "1,3", "2,4", "ok"),  # diagonal across the corner, both sides gaps
    ("king", 1, "1,3", "1,1", "king-one-square"),
    ("king", 1, "1,3", "2,3", "not-a-square"),  # a gap
    ("king", 1, "1,3", "1,4", "not-a-square"),
    ("king", 6, "1,3", "1,1", "king-one-square"),  # the numbered die does not matter
    # Pawn: one square orthogonally to an empty square, captures one square diagonally only.
    ("pawn", 1, "1,3", "1,2", "ok"),
    ("pawn", 1, "1,3", "0,3", "ok"),  # sideways: pawns have no forward direction here
    ("pawn", 1, "1,3", "2,4", "pawn-diagonal-needs-capture"),
    ("pawn", 1, "1,3", "1,1", "pawn-one-square"),
    # Knight: L jumps over gaps; lands on a real square without an own checker.
    ("knight", 1, "1,3", "3,4", "ok"),  # over the gap at 2,3
    ("knight", 1, "1,3", "2,5", "ok"),
    ("knight", 1, "1,3", "0,1", "ok"),
    ("knight", 1, "1,3", "3,2", "not-a-square"),  # lands in the hole
    ("knight", 1, "1,3", "0,5", "not-a-square"),
    ("knight", 1, "1,3", "3,3", "not-a-square"),
    ("knight", 1, "1,3", "1,1", "not-a-knight-move"),
    # Rook: exactly the number, fewer only before a gap, the edge or an own checker.
    ("rook", 3, "1,3", "1,0", "ok"),
    ("rook", 2, "1,3", "1,1", "ok"),
    ("rook", 3, "1,3", "1,1", "wrong-distance"),  # the way is clear for 3
    ("rook", 1, "1,3", "1,1", "too-far"),
    ("rook", 6, "1,3", "1,0", "ok"),  # the board's edge stops it after 3
    ("rook", 6, "1,3", "0,3", "ok"),  # one square west, then the edge
    ("rook", 6, "1,3", "2,3", "not-a-square"),  # east is a gap at once
    ("rook", 2, "1,3", "0,2", "wrong-direction"),
    # Bishop: diagonals; crosses the corner between two gaps.
    ("bishop", 2, "1,3", "3,5", "ok"),
    ("bishop", 1, "1,3", "2,4", "ok"),
    ("bishop", 2, "1,3", "2,4", "wrong-distance"),
    ("bishop", 2, "1,3", "1,1", "wrong-direction"),
    ("bishop", 3, "1,3", "3,5", "ok"),  # 4,6 is off the board
    ("bishop", 3, "1,3", "0,2", "ok"),  # 1 square NW: -1,1 is off the board
    # Queen: all eight lines.
    ("queen", 3, "1,3", "1,0", "ok"),
    ("queen", 2, "1,3", "3,5", "ok"),
    ("queen", 2, "1,3", "1,2", "wrong-distance"),
    ("queen", 2, "1,3", "3,4", "wrong-direction"),
]


@pytest.mark.parametrize("face,number,frm,to,code", MOVE_CASES)
def test_chess_die_movements(face: str, number: int, frm: str, to: str, code: str) -> None:
    state = position(BASE, face, number)
    verdict = GAME.verdict(state, mv(frm, to))
    assert verdict.code == code, verdict.message
    assert verdict.legal == (code == "ok")
    if not verdict.legal:
        assert verdict.message.endswith(".")
    listed = mv(frm, to) in GAME.legal_actions(state)
    assert listed == verdict.legal


# Blocking by checkers: Greek on 0,0 (mover) and 2,0 (own), Norse mortal on 0,2, god on 5,5.
BLOCKS = ring({"0,0": "g", "2,0": "G", "0,2": "n", "5,5": "N"})

BLOCK_CASES = [
    ("rook", 4, "0,0", "1,0", "ok"),  # own checker on 2,0: stops after 1 square
    ("rook", 4, "0,0", "2,0", "own-checker"),
    ("rook", 4, "0,0", "3,0", "blocked-by-own"),
    ("rook", 4, "0,0", "0,1", "wrong-distance"),  # the enemy on 0,2 must be reached
    ("rook", 4, "0,0", "0,2", "ok"),  # capture ends the move
    ("rook", 4, "0,0", "0,3", "blocked-by-capture"),
    ("rook", 1, "0,0", "0,2", "too-far"),
    ("queen", 6, "0,0", "1,1", "ok"),  # SE: 1,1 then 2,2 is a gap
    ("queen", 6, "0,0", "2,2", "not-a-square"),
    ("queen", 6, "0,0", "4,4", "blocked-by-gap"),  # real, but beyond the gap on 2,2
    ("pawn", 1, "0,0", "1,0", "ok"),
    ("pawn", 1, "0,0", "0,1", "ok"),
]


@pytest.mark.parametrize("face,number,frm,to,code", BLOCK_CASES)
def test_sliding_stops(face: str, number: int, frm: str, to: str, code: str) -> None:
    state = position(BLOCKS, face, number)
    assert GAME.verdict(state, mv(frm, to)).code == code


def test_pawn_captures_only_diagonally() -> None:
    state = position(ring({"0,0": "g", "1,0": "n", "1,1": "n", "5,5": "N", "1,3": "G"}), "pawn")
    assert GAME.verdict(state, mv("0,0", "1,0")).code == "pawn-captures-diagonally"
    step = GAME.apply(state, mv("0,0", "1,1"))
    assert [e.kind for e in step.events] == ["move", "capture", "turn"]
    assert step.events[1].detail("god") is False
    assert step.state.captured == ((Army.NORSE, 1),)


COMMON_CASES = [
    (mv("2,2", "2,1"), "no-checker"),
    (mv("0,0", "1,0"), "not-your-checker"),  # the Norse checker
    (mv("1,3", "1,3"), "no-movement"),
    (mv("1,3", "9,9"), "not-a-square"),
    (mv("4,0", "4,1"), "ok"),
    (Move(sq("1,3"), sq("1,2"), via=(sq("1,2"),)), "via-not-allowed"),
    (Pass(), "must-move"),
    (CallHero(), "hero-needs-six"),
    (Roll(ChessFace.KING, 3), "already-rolled"),
    (HeroRoll(HeroFace.IMP, 3), "already-rolled"),
]


@pytest.mark.parametrize("action,code", COMMON_CASES)
def test_common_checks(action: Any, code: str) -> None:
    assert GAME.verdict(position(BASE, "king"), action).code == code


def test_own_checker_cannot_be_landed_on() -> None:
    state = position(ring({"0,0": "g", "1,0": "G", "5,5": "N"}), "king")
    assert GAME.verdict(state, mv("0,0", "1,0")).code == "own-checker"


def test_moving_before_rolling_is_refused() -> None:
    state = parse_diagram(BASE)
    assert GAME.to_move(state) == (CHANCE,)
    assert GAME.verdict(state, mv("1,3", "1,2")).code == "roll-first"
    with pytest.raises(IllegalActionError) as err:
        GAME.apply(state, mv("1,3", "1,2"))
    assert err.value.verdict.code == "roll-first"


def test_chance_outcomes_cover_both_dice() -> None:
    state = parse_diagram(BASE)
    outcomes = GAME.chance_outcomes(state)
    assert len(outcomes) == 36
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert {a.chess for a, _ in outcomes} == set(ChessFace)
    assert GAME.legal_actions(state) == [a for a, _ in outcomes]


def test_roll_then_move_then_next_player() -> None:
    state = parse_diagram(BASE)
    step = GAME.apply(state, Roll(ChessFace.ROOK, 2))
    assert step.state.phase is Phase.MOVE and step.state.roll == TurnRoll(ChessFace.ROOK, 2)
    assert step.events[0].kind == "roll" and "may roll the hero die" not in step.events[0].text
    step = GAME.apply(step.state, mv("1,3", "1,1"))
    assert step.state.phase is Phase.ROLL and step.state.current is Army.NORSE
    assert step.state.roll is None
    assert [e.kind for e in step.events] == ["move", "turn"]


def test_six_offers_the_hero_die() -> None:
    state = GAME.apply(parse_diagram(BASE), Roll(ChessFace.KING, 6)).state
    actions = GAME.legal_actions(state)
    assert CallHero() in actions and Pass() not in actions
    state = GAME.apply(state, CallHero()).state
    assert state.phase is Phase.HERO_ROLL and GAME.to_move(state) == (CHANCE,)
    assert len(GAME.chance_outcomes(state)) == 36
    assert GAME.verdict(state, mv("1,3", "1,2")).code == "hero-roll-awaited"
    state = GAME.apply(state, HeroRoll(HeroFace.IMP, 6)).state
    assert state.roll == TurnRoll(ChessFace.KING, 6, HeroFace.IMP)
    assert GAME.verdict(state, CallHero()).code == "hero-already-rolled"  # one hero roll a turn


def test_hero_die_can_be_switched_off() -> None:
    game = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "hero_die": False})
    state = game.apply(parse_diagram(BASE), Roll(ChessFace.KING, 6)).state
    assert game.verdict(state, CallHero()).code == "hero-die-off"
    assert CallHero() not in game.legal_actions(state)


# Greeks on the light squares of two tiles, Norse on the dark ones: every diagonal neighbour
# of a Greek checker is Greek and every orthogonal one Norse. Bishops and pawns are stuck.
CHECKERED = """
    G n g N
    n g n g
"""


def test_no_legal_move_passes_the_turn_at_once() -> None:
    state = parse_diagram(CHECKERED)
    step = GAME.apply(state, Roll(ChessFace.PAWN, 3))
    assert [e.kind for e in step.events] == ["roll", "turn", "turn"]
    assert "no legal movement" in step.events[1].text
    assert step.state.phase is Phase.ROLL and step.state.current is Army.NORSE


def test_a_six_keeps_the_turn_open_for_the_hero_die() -> None:
    state = GAME.apply(parse_diagram(CHECKERED), Roll(ChessFace.BISHOP, 6)).state
    assert state.phase is Phase.MOVE
    assert GAME.legal_actions(state) == [CallHero(), Pass()]
    step = GAME.apply(state, Pass())
    assert [e.kind for e in step.events] == ["turn", "turn"]
    assert step.state.current is Army.NORSE


def test_declining_to_move_is_an_option() -> None:
    state = GAME.apply(parse_diagram(CHECKERED), Roll(ChessFace.ROOK, 2)).state
    assert GAME.verdict(state, Pass()).code == "must-move"
    relaxed = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "allow_pass": True})
    assert Pass() in relaxed.legal_actions(state)
    assert relaxed.apply(state, Pass()).state.current is Army.NORSE


# -- perft-style counts ---------------------------------------------------------------------

LONE = ring({"1,3": "G", "5,5": "N"})


@pytest.mark.parametrize(
    "diagram,face,number,expected",
    [
        # King on 1,3: of its 8 neighbours, 2,2 2,3 0,4 1,4 are gaps; 0,2 1,2 0,3 are on its
        # tile and 2,4 is the corner step across the two gaps: 4.
        (LONE, "king", 1, 4),
        # Queen 2 from 1,3: N ends on 1,1; W stops at the edge on 0,3; NW at the edge on 0,2;
        # SE crosses the corner to 3,5; E, S, NE and SW start into a gap: 4.
        (LONE, "queen", 2, 4),
        # Knight from 1,3: 2,1 0,1 3,4 2,5 are real; 3,2 0,5 are gaps; -1,2 -1,4 off: 4.
        (LONE, "knight", 1, 4),
        # Checkered 4x2: every rook's first square is a Norse checker, captured at once.
        # 0,0: E, S (2); 2,0: W, E, S (3); 1,1: N, W, E (3); 3,1: N, W (2): 10.
        (CHECKERED, "rook", 3, 10),
        # The same with a king: the ten orthogonal captures above; diagonals are all Greek.
        (CHECKERED, "king", 1, 10),
        # Knight on the 4x2 board: 0,0->2,1; 2,0->0,1; 1,1->3,0; 3,1->1,0 (each a Norse
        # square; every other jump leaves the board): 4.
        (CHECKERED, "knight", 1, 4),
    ],
)
def test_perft_counts(diagram: str, face: str, number: int, expected: int) -> None:
    state = position(diagram, face, number)
    actions = GAME.legal_actions(state)
    assert len(actions) == expected
    assert len(set(actions)) == expected

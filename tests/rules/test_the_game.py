"""The Game: golden playthroughs, a table of cases per rule, hand-counted legal actions,
and the bundled example record."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.core import Event
from rules.errors import FormatError, IllegalActionError, RollNeededError
from rules.geometry import FieldPoint
from rules.registry import get_game
from rules.the_game import (
    Act,
    Exit,
    Move,
    Pass,
    Phase,
    Piece,
    PieceSpec,
    Presence,
    SequenceRecord,
    Setup,
    Split,
    Stay,
    Take,
    TheGame,
    TheGameState,
)
from rules.the_game.model import Handover, Knockdown, Response, SplitStage
from rules.the_game.shapes import Footprint

DISC = Footprint.ellipse(1.0, 1.0)
RECORD = Path(__file__).parents[2] / "tabletop/data/records/the-game.jsonl"


def spec(pid: str, x: float, y: float, facing: float) -> PieceSpec:
    side = "red" if pid.startswith("R") else "blue"
    return PieceSpec(pid, side, FieldPoint(x, y), facing)


def start(game: TheGame, *specs: PieceSpec, first: str = "red") -> TheGameState:
    return game.apply(game.initial_state(), Setup(tuple(specs), first)).state


def piece(pid: str, x: float, y: float, facing: float, **kw: Any) -> Piece:
    side = "red" if pid.startswith("R") else "blue"
    return Piece(pid, side, side, FieldPoint(x, y), facing, DISC, **kw)


def position(*pieces: Piece, phase: Phase = Phase.MOVEMENT, next_player: str = "red",
             **kw: Any) -> TheGameState:
    return TheGameState(sequence=1, phase=phase, turn=1, first="red", next_player=next_player,
                        pieces=pieces, record=SequenceRecord(1, "red"), **kw)


def kinds(events: tuple[Event, ...]) -> list[str]:
    return [e.kind for e in events]


def code(game: TheGame, state: TheGameState, action: Any) -> str:
    return game.verdict(state, action).code


# -- golden playthroughs ----------------------------------------------------------------
def test_golden_duel_response_and_last_piece_walking_off() -> None:
    game = TheGame.from_options({"sequences": 1})
    s = start(game, spec("R1", 12, 8, 90), spec("B1", 12, 14, 270))
    assert (s.phase, game.to_move(s)) == (Phase.MOVEMENT, ("red",))

    step = game.apply(s, Move("R1", FieldPoint(12, 12), 90))  # 4" straight at B1
    assert kinds(step.events) == ["move"]
    assert step.events[0].detail("distance") == pytest.approx(4.0)
    step = game.apply(step.state, Stay("B1"))
    assert kinds(step.events) == ["move", "phase"]  # the action phase begins
    s = step.state
    assert (s.phase, game.to_move(s)) == (Phase.ACTION, ("red",))

    # 1" edge to edge: R1 closes in and needs above 3 (3 + |3 - 3|), rolls 2 and fails
    step = game.apply(s, Act("R1", "B1"), [2])
    assert kinds(step.events) == ["attack", "roll", "attack"]
    assert step.events[0].detail("number") == 3
    assert step.events[1].detail("success") is False
    s = step.state
    r1 = s.piece("R1").at  # moved as close as possible: touching B1
    assert (r1.x, r1.y) == (pytest.approx(12), pytest.approx(13))
    assert s.response == Response("B1", "R1") and game.to_move(s) == ("blue",)

    # B1's free response succeeds: R1 is turned on its side
    step = game.apply(s, Act("B1", "R1"), [5])
    assert kinds(step.events) == ["attack", "roll", "elimination", "phase", "turn"]
    assert step.events[3].detail("last_piece") is True and step.events[3].detail("piece") == "B1"
    s = step.state
    assert s.piece("R1").presence is Presence.DOWN
    assert s.record.knockdowns == (Knockdown("R1", "B1", "blue"),)
    assert (s.phase, s.turn, game.to_move(s)) == (Phase.MOVEMENT, 2, ("blue",))

    # B1 is the last piece: unobserved, it must walk 12" towards the nearest edge (far, 10")
    assert game.observation(s)["B1"].reason == "last-piece"
    assert game.legal_actions(s) == [Exit("B1")]
    assert code(game, s, Stay("B1")) == "must-move"
    step = game.apply(s, Exit("B1"))
    assert kinds(step.events) == ["lost", "phase", "draw"]
    assert step.events[0].detail("edge") == "far"
    s = step.state
    assert s.phase is Phase.OVER
    assert s.records[0].last_piece == "B1" and s.records[0].turns == 2
    outcome = game.outcome(s)
    assert outcome is not None and outcome.winner is None
    assert "blue 1" in outcome.reason


def test_golden_odd_split_hands_the_smaller_group_over_at_once() -> None:
    game = TheGame()
    s = start(game, spec("R1", 12, 11, 90), spec("R2", 9, 8, 90), spec("R3", 15, 8, 90),
              spec("B1", 12, 13, 270))
    s = game.apply(s, Pass("red")).state
    s = game.apply(s, Stay("B1")).state
    assert s.phase is Phase.ACTION and game.to_move(s) == ("red",)
    step = game.apply(s, Act("R1", "B1"), [6])
    assert kinds(step.events) == ["attack", "roll", "elimination", "phase"]
    s = step.state
    assert s.split == SplitStage("red") and game.to_move(s) == ("red",)
    # 3 survivors: groups of 2 and 1; red names the single piece to hand over
    assert game.legal_actions(s) == [Split("red", ("R1",)), Split("red", ("R2",)),
                                     Split("red", ("R3",))]
    step = game.apply(s, Split("red", ("R2",)))
    s = step.state
    assert s.piece("R2").controller == "blue" and s.piece("R2").side == "red"
    assert s.record.handovers == (Handover("red", "blue", ("R2",)),)
    # nobody is in range of anybody: the turn ends and red (first player) moves again
    assert kinds(step.events) == ["phase", "turn"]
    assert (s.turn, s.phase, game.to_move(s)) == (2, Phase.MOVEMENT, ("red",))


def test_golden_even_split_lets_the_other_player_choose() -> None:
    game = TheGame()
    s = start(game, spec("R1", 12, 11, 90), spec("R2", 8, 8, 90), spec("B1", 12, 13, 270))
    s = game.apply(game.apply(s, Pass("red")).state, Pass("blue")).state
    s = game.apply(s, Act("R1", "B1"), [4]).state
    assert game.legal_actions(s) == [Split("red", ("R1",))]  # one way to split two
    assert code(game, s, Split("red", ("R1", "R2"))) == "unequal-groups"
    s = game.apply(s, Split("red", ("R2",))).state  # either half names the same division
    assert s.split == SplitStage("red", ("R2",)) and game.to_move(s) == ("blue",)
    assert game.legal_actions(s) == [Take("blue", ("R2",)), Take("blue", ("R1",))]
    assert code(game, s, Take("blue", ("R1", "R2"))) == "not-a-group"
    assert code(game, s, Take("red", ("R1",))) == "not-your-turn"
    step = game.apply(s, Take("blue", ("R1",)))
    s = step.state
    assert s.split is None
    assert [(p.id, p.controller) for p in s.pieces if p.in_play] == [("R1", "blue"),
                                                                     ("R2", "red")]
    assert s.record.handovers == (Handover("red", "blue", ("R1",)),)


def test_golden_idle_pieces_turn_unobserved_and_walk_towards_the_edge() -> None:
    game = TheGame.from_options({"field_width": 48, "field_depth": 48})
    s = start(game, spec("R1", 24, 20, 90), spec("B1", 24, 28, 270))
    for turn in (1, 2):
        step = game.apply(game.apply(s, Pass("red")).state, Pass("blue"))
        # nobody in range: the action phase passes at once and the next turn begins
        assert kinds(step.events) == ["phase", "phase", "turn"]
        s = step.state
        assert s.turn == turn + 1
    assert [p.idle for p in s.pieces] == [2, 2]
    assert game.observation(s)["R1"].reason == "idle"
    assert code(game, s, Stay("R1")) == "must-move"
    assert code(game, s, Pass("red")) == "must-move"
    assert game.legal_actions(s) == [Move("R1", FieldPoint(24, 8), 90)]  # 12" to the near edge
    assert code(game, s, Move("R1", FieldPoint(24, 9), 0)) == "too-short"
    assert code(game, s, Move("R1", FieldPoint(25, 8), 0)) == "not-towards-edge"
    s = game.apply(s, Move("R1", FieldPoint(24.1, 8.1), 270)).state  # within 0.25"
    r1 = s.piece("R1")
    assert r1.busy and r1.facing == 270
    # having moved, R1 is no longer idle; it now faces away from everything
    assert game.observation(s)["R1"].reason == "horizon"
    s = game.apply(s, Move("B1", FieldPoint(24, 40), 270)).state  # B1: 12" to the far edge
    assert s.turn == 4 and [p.idle for p in s.pieces] == [0, 0]


# -- rules, clause by clause --------------------------------------------------------------
# A standard position for movement: R1 in the middle facing B1, which faces it back.
#   B2 (3,12) faces north. R2 (3,2) faces west, seeing nobody: it is unobserved, 2" from the
#   near edge and 3" from the left edge.
MID = position(piece("R1", 12, 12, 90), piece("B1", 12, 20, 270), piece("B2", 3, 12, 90),
               piece("R2", 3, 2, 180))


@pytest.mark.parametrize(
    "action, expected",
    [
        (Move("R1", FieldPoint(12, 17), 90), "ok"),           # 5": observed may move up to 6"
        (Move("R1", FieldPoint(18, 12), 0), "ok"),            # any direction, any new facing
        (Move("R1", FieldPoint(12, 18.2), None), "ok"),       # 6.2": inside the tolerance
        (Move("R1", FieldPoint(12, 18.3), None), "too-far"),  # 6.3": 0.05" past tolerance
        (Move("R1", FieldPoint(12, 12), 270), "ok"),          # turning on the spot is free
        (Exit("R1"), "edge-out-of-reach"),                    # every edge is 12" away
        (Stay("R1"), "ok"),
        (Act("R1", "B1"), "wrong-phase"),                     # acting waits for its phase
        (Move("B1", FieldPoint(12, 19), None), "not-your-turn"),
        (Move("R9", FieldPoint(12, 19), None), "unknown-piece"),
        # R2, unobserved, 2" from the near edge: it must walk off there
        (Exit("R2"), "ok"),
        (Move("R2", FieldPoint(3, -1), None), "ok"),          # walks off through the edge
        (Move("R2", FieldPoint(3, 0.5), None), "too-short"),  # stopping short is not allowed
        (Move("R2", FieldPoint(-1, 2), None), "not-towards-edge"),  # the left edge is farther
        (Stay("R2"), "must-move"),
        (Pass("red"), "must-move"),
        (Pass("blue"), "not-your-turn"),
        (Move("R1", FieldPoint(12, float("nan")), None), "bad-measurement"),
        (Move("R1", FieldPoint(12, 13), float("inf")), "bad-measurement"),
    ],
)
def test_movement_rules(action: Any, expected: str) -> None:
    assert code(TheGame(), MID, action) == expected


def test_a_long_move_reports_its_excess() -> None:
    verdict = TheGame().verdict(MID, Move("R1", FieldPoint(12, 19), None))  # 7"
    assert verdict.code == "too-far"
    assert verdict.detail("excess") == pytest.approx(1.0)
    assert '1.00" too far' in verdict.message and "tolerance 0.25" in verdict.message


@pytest.mark.parametrize(
    "options, action, expected",
    [
        ({"tolerance": 0}, Move("R1", FieldPoint(12, 18.1), None), "too-far"),
        ({"observed_move": 8}, Move("R1", FieldPoint(12, 19.9), None), "ok"),
        ({"unobserved_must_move": False}, Stay("R2"), "ok"),
        ({"unobserved_full_move": False}, Move("R2", FieldPoint(3, 1), None), "ok"),
        ({"unobserved_full_move": False}, Move("R2", FieldPoint(3, 4), None),
         "not-towards-edge"),
        # up to 12" may be less than 12", but not nothing: a turn where it stands is no move
        ({"unobserved_full_move": False}, Move("R2", FieldPoint(3, 2), 0.0), "must-move"),
        ({"unobserved_full_move": False}, Move("R2", FieldPoint(3, 1.9), None), "must-move"),
        ({"unobserved_full_move": False, "unobserved_must_move": False}, Move("R2", FieldPoint(3, 2), 0.0), "ok"),
        ({"field_of_vision": 360}, Stay("R2"), "ok"),  # all-round vision: R2 is observed
    ],
)
def test_movement_options(options: dict[str, Any], action: Any, expected: str) -> None:
    assert code(TheGame.from_options(options), MID, action) == expected


def test_an_unobserved_piece_far_from_every_edge_moves_exactly_twelve_inches() -> None:
    game = TheGame.from_options({"field_width": 60, "field_depth": 60})
    s = position(piece("R1", 20, 30, 180), piece("B1", 40, 30, 0))  # back to back
    cases = {
        Move("R1", FieldPoint(8, 30), None): "ok",               # 12" towards the left edge
        Move("R1", FieldPoint(8.2, 30.2), None): "ok",           # within 0.25"
        Move("R1", FieldPoint(8.5, 30), None): "too-short",
        Move("R1", FieldPoint(7.6, 30), None): "too-far",
        Move("R1", FieldPoint(8, 31), None): "not-towards-edge",
        Exit("R1"): "edge-out-of-reach",
    }
    for action, expected in cases.items():
        assert code(game, s, action) == expected, action
    assert game.verdict(s, Move("R1", FieldPoint(7.6, 30), None)).detail("excess") == \
        pytest.approx(0.4)


def test_equally_near_edges_are_all_acceptable() -> None:
    game = TheGame()
    s = position(piece("R1", 5, 5, 225), piece("B1", 20, 20, 45))  # both face away
    assert code(game, s, Move("R1", FieldPoint(-1, 5), None)) == "ok"   # left edge
    assert code(game, s, Move("R1", FieldPoint(5, -1), None)) == "ok"   # near edge
    assert code(game, s, Move("R1", FieldPoint(-1, -1), None)) == "not-towards-edge"


# A standard position for the action phase.
#   R1 (10,10) faces east at B1 (12,10), which faces back: 1" edge to edge.
#   R2 (10,8.8) beside R1 (0.2" apart), facing east.   B2 (13.2,10) behind B1 (0.2").
#   R3 (20,20) far away.   B3 (3,3) lying on its side.
ACT = position(
    piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), piece("R2", 10, 8.8, 0),
    piece("B2", 13.2, 10, 180), piece("R3", 20, 20, 270),
    piece("B3", 3, 3, 0, presence=Presence.DOWN),
    phase=Phase.ACTION,
)


@pytest.mark.parametrize(
    "action, expected",
    [
        (Act("R1", "B1"), "ok"),
        (Act("R1", "B2"), "out-of-range"),      # 2.2" edge to edge
        (Act("R1", "R2"), "same-side"),
        (Act("R1", "B3"), "out-of-play"),
        (Act("B1", "R1"), "not-your-turn"),
        (Act("R3", "B1"), "out-of-range"),
        (Move("R1", FieldPoint(10, 11), None), "wrong-phase"),
        (Stay("R1"), "ok"),
        (Stay("R3"), "nothing-to-act-on"),
        (Act("R1", "B1", FieldPoint(11, 10)), "ok"),       # measured: touching B1
        (Act("R1", "B1", FieldPoint(10.5, 10)), "approach-short"),
        (Act("R1", "B1", FieldPoint(11.3, 10)), "approach-too-far"),
        (Split("red", ("R1",)), "no-split"),
        (Act("R1", "B1", FieldPoint(math.inf, 10)), "bad-measurement"),
    ],
)
def test_action_rules(action: Any, expected: str) -> None:
    assert code(TheGame(), ACT, action) == expected


def test_out_of_range_reports_the_excess() -> None:
    verdict = TheGame().verdict(ACT, Act("R1", "B2"))
    assert verdict.detail("excess") == pytest.approx(1.2, abs=0.01)  # the 24-gon adds < 0.01"


@pytest.mark.parametrize(
    "pieces, number",
    [
        # alone, both observed: 3 + |3 - 3| = 3
        ((piece("R1", 10, 10, 0), piece("B1", 12, 10, 180)), 3),
        # a friend of the target beside it: +1
        ((piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), piece("B2", 13.2, 10, 180)), 4),
        # two friends beside the target, one beside the actor: 3 + 2 - 1 (the rulebook's case)
        ((piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), piece("B2", 13.2, 10, 180),
          piece("B3", 12, 11.2, 180), piece("R2", 10, 8.8, 0)), 4),
        # the target faces away with nothing before it (unobserved, roll 5) while R9, far
        # off, and R1 watch each other: 3 + |3 - 5| = 5
        ((piece("R1", 10, 10, 0), piece("B1", 12, 10, 0), piece("R9", 11, 2, 90)), 5),
        # the actor is idle (unobserved, roll 5) against an observed target: 5 + 2 = 7
        ((piece("R1", 10, 10, 0, idle=2), piece("B1", 12, 10, 180)), 7),
    ],
)
def test_the_number_to_beat(pieces: tuple[Piece, ...], number: int) -> None:
    s = position(*pieces, phase=Phase.ACTION)
    verdict = TheGame().verdict(s, Act("R1", "B1"))
    assert verdict.legal and verdict.detail("number") == number


def test_a_roll_must_be_strictly_above_the_number() -> None:
    game = TheGame()
    # B2 beside B1 (+1) and R2 beside R1 once it has closed in (-1) cancel out: 3
    assert game.verdict(ACT, Act("R1", "B1")).detail("number") == 3
    assert game.apply(ACT, Act("R1", "B1"), [3]).state.piece("B1").presence is Presence.IN_PLAY
    assert game.apply(ACT, Act("R1", "B1"), [4]).state.piece("B1").presence is Presence.DOWN


def test_an_action_needs_exactly_one_roll() -> None:
    with pytest.raises(RollNeededError):
        TheGame().apply(ACT, Act("R1", "B1"), [])
    with pytest.raises(FormatError, match="only 1 needed"):
        TheGame().apply(ACT, Act("R1", "B1"), [3, 4])
    with pytest.raises(FormatError, match="out of range"):
        TheGame().apply(ACT, Act("R1", "B1"), [7])
    with pytest.raises(FormatError, match="only 0 needed"):  # moves roll nothing
        TheGame().apply(MID, Stay("R1"), [3])


def test_a_declined_response_lets_the_phase_go_on() -> None:
    game = TheGame()
    s = game.apply(ACT, Act("R1", "B1"), [1]).state  # 1 fails
    assert s.response == Response("B1", "R1")
    assert game.legal_actions(s) == [Act("B1", "R1"), Stay("B1")]
    assert code(game, s, Act("R2", "B1")) == "response-pending"
    assert code(game, s, Pass("blue")) == "response-pending"
    step = game.apply(s, Stay("B1"))
    assert step.events[0].detail("declined") is True
    s = step.state
    # blue's turn in the alternation: B1 has not used its own action yet
    assert s.response is None and game.to_move(s) == ("blue",)
    assert not s.piece("B1").done and s.piece("R1").done


def test_a_failed_response_ends_the_exchange() -> None:
    game = TheGame()
    s = game.apply(ACT, Act("R1", "B1"), [1]).state
    step = game.apply(s, Act("B1", "R1"), [2])  # needs above 3: fails, no second response
    assert kinds(step.events) == ["attack", "roll"]
    assert step.state.response is None and game.to_move(step.state) == ("blue",)


def test_passing_leaves_all_remaining_pieces_alone() -> None:
    game = TheGame()
    step = game.apply(ACT, Pass("red"))
    assert kinds(step.events) == ["phase"]
    s = step.state
    assert all(p.done for p in s.pieces if p.controller == "red" and p.in_play)
    assert game.to_move(s) == ("blue",)  # B1 still has R1 within range
    assert code(game, s, Act("R1", "B1")) == "not-your-turn"


def test_a_piece_has_one_go_per_phase() -> None:
    game = TheGame()
    acted = replace(ACT, pieces=tuple(replace(p, done=p.id == "R1") for p in ACT.pieces))
    assert code(game, acted, Act("R1", "B1")) == "already-acted"
    assert code(game, acted, Stay("R1")) == "already-acted"
    moved = replace(MID, pieces=tuple(replace(p, done=p.id == "R1") for p in MID.pieces))
    assert code(game, moved, Move("R1", FieldPoint(12, 13), None)) == "already-moved"


@pytest.mark.parametrize(
    "setup, expected",
    [
        (Setup((spec("R1", 12, 6, 90), spec("B1", 12, 18, 270)), "red"), "ok"),
        (Setup((spec("R1", 12, 6, 90), spec("B1", 12, 18, 270)), "green"), "unknown-player"),
        (Setup((spec("R1", 12, 6, 90), spec("R1", 12, 18, 270)), "red"), "duplicate-piece"),
        (Setup((spec("R1", 12, 6, 90),), "red"), "side-without-pieces"),
        (Setup((spec("R1", 12, 6, 90), spec("B1", 12, 24.5, 270)), "red"), "outside-field"),
        (Setup((spec("R1", 12, 6, 270), spec("B1", 12, 18, 270)), "red"), "facing-away"),
        (Setup((PieceSpec("G1", "green", FieldPoint(1, 1), 0), spec("B1", 12, 18, 270)),
               "red"), "unknown-side"),
        (Setup((spec("R1", 12, 6, float("nan")), spec("B1", 12, 18, 270)), "red"),
         "bad-measurement"),
    ],
)
def test_setup_rules(setup: Setup, expected: str) -> None:
    game = TheGame()
    assert code(game, game.initial_state(), setup) == expected


def test_setup_facing_check_can_be_switched_off() -> None:
    game = TheGame.from_options({"setup_facing_check": False})
    setup = Setup((spec("R1", 12, 6, 270), spec("B1", 12, 18, 270)), "blue")
    s = game.apply(game.initial_state(), setup).state
    assert game.to_move(s) == ("blue",)


@pytest.mark.parametrize(
    "action, expected",
    [
        (Move("R1", FieldPoint(12, 13), None), "wrong-phase"),  # no set-up yet
        (Pass("red"), "wrong-phase"),
    ],
)
def test_nothing_happens_before_the_setup(action: Any, expected: str) -> None:
    game = TheGame()
    assert code(game, game.initial_state(), action) == expected


def test_setup_is_refused_once_play_is_on() -> None:
    setup = Setup((spec("R1", 12, 6, 90), spec("B1", 12, 18, 270)), "red")
    assert code(TheGame(), MID, setup) == "wrong-phase"


@pytest.mark.parametrize(
    "action, expected",
    [
        (Split("red", ("R1", "R2")), "ok"),
        (Split("red", ("R3", "R4")), "ok"),
        (Split("red", ("R1",)), "unequal-groups"),
        (Split("red", ("R1", "R1")), "duplicate-piece"),
        (Split("red", ("R1", "B9")), "not-your-piece"),
        (Split("blue", ("R1", "R2")), "not-your-turn"),
        (Take("blue", ("R1", "R2")), "not-your-turn"),  # nothing offered yet
        (Move("R1", FieldPoint(12, 13), None), "split-pending"),
    ],
)
def test_split_rules(action: Any, expected: str) -> None:
    s = position(piece("R1", 5, 5, 0), piece("R2", 8, 5, 0), piece("R3", 11, 5, 0),
                 piece("R4", 14, 5, 0), piece("B1", 5, 8, 0, presence=Presence.DOWN),
                 split=SplitStage("red"))
    assert code(TheGame(), s, action) == expected


def test_splitter_may_hand_over_directly_when_the_option_is_off() -> None:
    game = TheGame.from_options({"opponent_chooses_group": False})
    s = position(piece("R1", 5, 5, 0), piece("R2", 8, 5, 0),
                 piece("B1", 5, 8, 0, presence=Presence.DOWN), split=SplitStage("red"))
    s = game.apply(s, Split("red", ("R2",))).state
    assert s.split is None and s.piece("R2").controller == "blue"


def test_the_game_ends_after_the_last_sequence_with_knockdown_scoring() -> None:
    game = TheGame.from_options({"sequences": 1, "scoring": "knockdowns"})
    s = start(game, spec("R1", 12, 8, 90), spec("B1", 12, 14, 270))
    s = game.apply(s, Move("R1", FieldPoint(12, 12), 90)).state
    s = game.apply(s, Stay("B1")).state
    s = game.apply(s, Act("R1", "B1"), [6]).state       # B1 down: R1 is the last piece
    step = game.apply(s, Exit("R1"))                     # the far edge is 11" away
    assert kinds(step.events)[-1] == "victory"
    assert game.outcome(step.state).winner == "red"
    assert code(game, step.state, Stay("R1")) == "game-over"
    assert game.legal_actions(step.state) == [] and game.to_move(step.state) == ()


def test_a_new_sequence_starts_after_everyone_has_gone() -> None:
    game = TheGame()
    s = start(game, spec("R1", 12, 5, 90), spec("B1", 12, 19, 270))
    step = game.apply(s, Exit("R1"))            # 5" from the near edge: within 6"
    assert kinds(step.events) == ["lost", "phase"]  # B1 is the last piece
    step = game.apply(step.state, Exit("B1"))   # last piece, 5" from the far edge
    assert kinds(step.events) == ["lost", "phase", "setup"]
    s = step.state
    assert (s.sequence, s.phase, s.pieces) == (2, Phase.SETUP, ())
    assert s.records[0].departures[0].piece == "R1" and s.records[0].last_piece == "B1"
    assert game.to_move(s) == ("red", "blue")


# -- legal action counts (perft-style, counted by hand) ----------------------------------
def test_count_after_the_default_setup() -> None:
    # Red R1-R3 stand 6" from the near edge facing blue's row: all observed. Each gets
    # a step ahead, walking off (the near edge is exactly 6" away) and staying: 3 x 3,
    # plus red passing: 10.
    game = TheGame()
    s = game.apply(game.initial_state(), game.default_setup()).state
    actions = game.legal_actions(s)
    assert len(actions) == 10
    assert sum(isinstance(a, Exit) for a in actions) == 3
    assert all(game.verdict(s, a).legal for a in actions)


def test_count_in_an_action_position() -> None:
    # R1 (10,10) and R2 (12,12) each have B1 (12,10) and B2 (10,12) 1" away edge to edge
    # (the diagonal pairs are 1.83" apart): each may act on B1, act on B2 or stay: 3 + 3.
    # R3 has nobody in range: nothing. Plus red passing: 7.
    s = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), piece("B2", 10, 12, 270),
                 piece("R2", 12, 12, 180), piece("R3", 20, 20, 0), phase=Phase.ACTION)
    assert TheGame().legal_actions(s) == [
        Act("R1", "B1"), Act("R1", "B2"), Stay("R1"),
        Act("R2", "B1"), Act("R2", "B2"), Stay("R2"), Pass("red"),
    ]
    # blue's count, were it blue's go: the same by symmetry, 3 + 3 + 1
    assert len(TheGame().legal_actions(replace(s, next_player="blue"))) == 7


def test_count_when_five_survivors_split() -> None:
    # Five survivors split 3/2: the group of two handed over is any 2 of 5: C(5,2) = 10.
    pieces = [piece(f"R{i}", 3 * i, 5, 0) for i in range(1, 6)]
    s = position(*pieces, piece("B1", 5, 8, 0, presence=Presence.DOWN), split=SplitStage("red"))
    actions = TheGame().legal_actions(s)
    assert len(actions) == 10 and len(set(actions)) == 10
    assert all(isinstance(a, Split) and len(a.group) == 2 for a in actions)


def test_count_when_four_survivors_split() -> None:
    # Four survivors split 2/2; each division is listed once, by the half holding R1:
    # R1 with R2, R3 or R4: 3.
    pieces = [piece(f"R{i}", 3 * i, 5, 0) for i in range(1, 5)]
    s = position(*pieces, split=SplitStage("red"))
    assert TheGame().legal_actions(s) == [Split("red", ("R1", "R2")), Split("red", ("R1", "R3")),
                                          Split("red", ("R1", "R4"))]


def test_a_list_that_is_not_every_legal_action_says_so() -> None:
    """``unlisted`` says why where the list holds representatives (a set-up, measured moves:
    any end point within reach, turned any way) or a part (more splits than are listed), and
    is ``None`` where every legal action is listed (acting, a split of few survivors)."""
    game = TheGame()
    assert "set-up" in game.unlisted(game.initial_state())
    moving = position(piece("R1", 10, 10, 0), piece("B1", 14, 10, 180))
    assert any(isinstance(a, Move) for a in game.legal_actions(moving))
    assert "measured moves" in game.unlisted(moving)
    acting = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), phase=Phase.ACTION)
    assert game.unlisted(acting) is None
    few = position(*[piece(f"R{i}", 3 * i, 5, 0) for i in range(1, 6)], split=SplitStage("red"))
    assert game.unlisted(few) is None
    many = position(*[piece(f"R{i}", 1.5 * i, 5 + i % 3, 0) for i in range(1, 14)], split=SplitStage("red"))
    assert len(game.legal_actions(many)) == 512  # 13 survivors: C(13, 6) = 1716 ways
    assert game.unlisted(many) == "the first 512 of 1716 ways of splitting the survivors are listed"


def test_actions_of_a_piece() -> None:
    game = TheGame()
    assert game.actions_of(ACT, "R1") == [Act("R1", "B1"), Stay("R1")]
    assert game.actions_of(ACT, "B1") == []  # blue is not to act
    mid = game.actions_of(MID, "R1")
    assert [type(a) for a in mid] == [Move, Stay]
    assert mid[0] == Move("R1", FieldPoint(12, 18), 90)  # 6" straight ahead


def test_representative_half_turn_against_the_edge() -> None:
    # R1 faces the right edge 0.3" away and B1, which sees it, pokes into its view
    s = position(piece("R1", 23.7, 12, 0), piece("B1", 23.5, 14, 270))
    # no room ahead, so the representative move is a half-turn; the edge is in reach
    assert TheGame().actions_of(s, "R1") == [Move("R1", FieldPoint(23.7, 12), 180),
                                             Exit("R1"), Stay("R1")]


# -- notation, registry, record -----------------------------------------------------------
def test_notation_and_registry() -> None:
    game = get_game("the-game", {"field_width": 30})
    assert isinstance(game, TheGame) and game.options.field_width == 30
    assert game.notation(Move("R1", FieldPoint(3, 4.5), 90)) == "R1 3.00,4.50 @90"
    assert game.notation(Act("R1", "B2")) == "R1 x B2"
    assert game.notation(Exit("R1")) == "R1 off"
    assert str(Take("blue", ("R1", "R2"))) == "blue takes R1, R2"
    assert game.options_to_json()["field_width"] == 30


def test_the_view_hides_nothing() -> None:
    game = TheGame()
    assert game.view(ACT, "red") == ACT == game.view(ACT, None)


def test_illegal_apply_raises_with_the_verdict() -> None:
    with pytest.raises(IllegalActionError) as info:
        TheGame().apply(MID, Move("R1", FieldPoint(12, 19), None))
    assert info.value.verdict.code == "too-far"


def test_the_example_record_replays_to_its_end() -> None:
    lines = [json.loads(line) for line in RECORD.read_text().splitlines() if line.strip()]
    header, moves = lines[0], lines[1:]
    game = get_game(header["game"], header.get("options", {}))
    state = (game.state_from_json(header["position"]) if "position" in header
             else game.initial_state())
    kinds_seen: set[str] = set()
    for i, line in enumerate(moves):
        action = game.action_from_json(line["action"])
        step = game.apply(state, action, line.get("rolls", []))
        kinds_seen.update(e.kind for e in step.events)
        state = step.state
        assert (game.outcome(state) is None) == (i < len(moves) - 1)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == "blue"
    assert len(state.records) == 7
    assert {"setup", "move", "lost", "attack", "roll", "elimination", "turn", "phase",
            "victory"} <= kinds_seen
    assert any(r.handovers for r in state.records)

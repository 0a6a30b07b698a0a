"""The Game checked against its rule text and GAMES.md, one scenario per rule.

Each test's docstring names the rule it checks and says what the rule asks for. Positions
are built by hand (default 1" discs on the default 24" x 24" field unless said otherwise)
and played through the engine's public API.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from rules.core import Event
from rules.geometry import FieldPoint
from rules.the_game import (
    Act,
    Exit,
    Footprint,
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
from rules.the_game.model import Response, SplitStage

DISC = Footprint.ellipse(1.0, 1.0)


def piece(pid: str, x: float, y: float, facing: float, **kw: Any) -> Piece:
    side = "red" if pid.startswith("R") else "blue"
    return Piece(pid, side, side, FieldPoint(x, y), facing, DISC, **kw)


def spec(pid: str, x: float, y: float, facing: float) -> PieceSpec:
    side = "red" if pid.startswith("R") else "blue"
    return PieceSpec(pid, side, FieldPoint(x, y), facing)


def position(*pieces: Piece, phase: Phase = Phase.MOVEMENT, next_player: str = "red",
             **kw: Any) -> TheGameState:
    return TheGameState(sequence=1, phase=phase, turn=1, first="red", next_player=next_player,
                        pieces=pieces, record=SequenceRecord(1, "red"), **kw)


def start(game: TheGame, *specs: PieceSpec, first: str = "red") -> TheGameState:
    return game.apply(game.initial_state(), Setup(tuple(specs), first)).state


def kinds(events: tuple[Event, ...]) -> list[str]:
    return [e.kind for e in events]


def number(game: TheGame, state: TheGameState, actor: str, target: str) -> int:
    verdict = game.verdict(state, Act(actor, target))
    assert verdict.legal, verdict
    result: int = verdict.detail("number")
    return result


# -- observation -------------------------------------------------------------------------
def test_a_piece_with_its_back_to_a_watcher_is_unaware_and_walks_off() -> None:
    """Observation: a piece whose rear is inside another's field of vision does not know
    it is watched, so it plays with the unobserved set: 12" straight at the nearest edge,
    and it may not be left where it is. Its watcher, unseen in return, is not observed
    either (GAMES.md: observation needs both pieces to see each other)."""
    game = TheGame()
    # R1 looks at B1's back; B1 faces the far edge, 4" away, with nothing in front of it
    s = position(piece("R1", 12, 14, 90), piece("B1", 12, 20, 90), next_player="blue")
    table = game.observation(s)
    assert (table["B1"].observed, table["B1"].reason) == (False, "horizon")
    assert (table["R1"].observed, table["R1"].reason) == (False, "unseen")
    assert game.verdict(s, Stay("B1")).code == "must-move"
    assert game.verdict(s, Move("B1", FieldPoint(12, 23), None)).code == "too-short"
    assert game.verdict(s, Move("B1", FieldPoint(14, 20), None)).code == "not-towards-edge"
    step = game.apply(s, Exit("B1"))
    assert step.events[0].kind == "lost" and step.events[0].detail("edge") == "far"
    assert step.state.piece("B1").presence is Presence.OFF


def test_two_pieces_facing_each_other_both_use_the_observed_set() -> None:
    """Observation: a piece with another facing it directly, which it faces in turn, is
    both watched and watching: observed, it may move up to 6" in any direction or stay."""
    game = TheGame()
    s = position(piece("R1", 12, 8, 90), piece("B1", 12, 16, 270))
    assert {k: v.reason for k, v in game.observation(s).items()} == {
        "R1": "mutual", "B1": "mutual"}
    assert game.verdict(s, Stay("R1")).legal
    assert game.verdict(s, Move("R1", FieldPoint(6, 8), 0)).legal          # 6" sideways
    assert game.verdict(s, Move("R1", FieldPoint(12, 2), None)).legal      # 6" backwards
    assert game.verdict(s, Move("R1", FieldPoint(12, 14.5), None)).code == "too-far"


def test_a_piece_seeing_nobody_faces_the_horizon() -> None:
    """Observation: with nothing at all in its field of vision a piece looks at the
    horizon and uses the unobserved set, even when another piece watches it."""
    game = TheGame.from_options({"field_width": 48, "field_depth": 48})
    s = position(piece("R1", 24, 20, 270), piece("B1", 24, 30, 270))  # B1 sees R1's back
    assert game.observation(s)["R1"].reason == "horizon"
    assert game.verdict(s, Move("R1", FieldPoint(24, 8), None)).legal   # 12" to the near edge
    assert game.verdict(s, Move("R1", FieldPoint(24, 14), None)).code == "too-short"


# -- idleness ----------------------------------------------------------------------------
def test_two_turns_without_moving_or_acting_make_a_piece_unobserved() -> None:
    """Idleness: a piece that has neither moved nor acted for two whole turns uses the
    unobserved set even while it and another piece see each other; moving resets it."""
    game = TheGame.from_options({"field_width": 48, "field_depth": 48})
    s = start(game, spec("R1", 24, 20, 90), spec("B1", 24, 28, 270))
    s = game.apply(s, Move("R1", FieldPoint(24, 21), 90)).state   # R1 moves in turn 1
    s = game.apply(s, Pass("blue")).state                         # B1 does not
    assert s.turn == 2
    s = game.apply(game.apply(s, Pass("red")).state, Pass("blue")).state
    assert s.turn == 3
    table = game.observation(s)
    # B1 stood still through turns 1 and 2; R1 only through turn 2
    assert (table["B1"].observed, table["B1"].reason) == (False, "idle")
    assert (table["R1"].observed, table["R1"].reason) == (True, "mutual")
    assert game.verdict(replace(s, next_player="blue"), Stay("B1")).code == "must-move"


def test_acting_counts_as_activity_for_idleness() -> None:
    """Idleness: acting on a piece, even without success, keeps a piece from going idle;
    a piece that was only acted upon and did nothing itself still counts its turns."""
    game = TheGame()
    s = position(piece("R1", 10, 10, 0, idle=1), piece("B1", 12, 10, 180, idle=1),
                 phase=Phase.ACTION)
    s = game.apply(s, Act("R1", "B1"), [1]).state      # fails
    s = game.apply(s, Stay("B1")).state                # B1 declines its free answer
    s = game.apply(s, Stay("B1")).state                # and does not act in its own go
    assert (s.phase, s.turn) == (Phase.MOVEMENT, 2)
    assert s.piece("R1").idle == 0 and s.piece("B1").idle == 2
    assert game.observation(s)["B1"].reason == "idle"


# -- movement ----------------------------------------------------------------------------
def test_an_observed_piece_reaching_the_edge_leaves_play() -> None:
    """Leaving the field: any piece, observed or not, that reaches the edge of the field
    is removed from play; an observed piece may walk off when the edge is within 6"."""
    game = TheGame()
    s = position(piece("R1", 12, 4, 90), piece("B1", 12, 10, 270))
    step = game.apply(s, Move("R1", FieldPoint(12, -0.5), 270))   # 4" to the near edge
    assert step.events[0].kind == "lost" and step.events[0].detail("edge") == "near"
    assert step.events[0].detail("distance") == pytest.approx(4.0)
    assert step.state.piece("R1").presence is Presence.OFF
    assert step.state.record is not None and step.state.record.departures[0].piece == "R1"


def test_turning_on_the_spot_is_free_for_an_observed_piece() -> None:
    """Movement: turning on the spot at the start and the end of a move costs nothing, so
    a full 6" move may also end facing any way."""
    game = TheGame()
    s = position(piece("R1", 12, 8, 90), piece("B1", 12, 16, 270))
    step = game.apply(s, Move("R1", FieldPoint(18, 8), 200))
    r1 = step.state.piece("R1")
    assert r1 is not None and r1.facing == 200 and r1.at == FieldPoint(18, 8)


def test_movement_alternates_one_piece_at_a_time_from_the_first_player() -> None:
    """Turn order: in the movement phase the first player moves one piece, then the other
    player one, and so on; a player with nothing left to move is skipped. The action
    phase follows once every piece has moved or been left alone, and the next turn starts
    again with the first player."""
    game = TheGame()
    s = start(game, spec("R1", 8, 9, 90), spec("R2", 16, 9, 90), spec("B1", 12, 15, 270),
              first="blue")
    assert game.to_move(s) == ("blue",)
    s = game.apply(s, Stay("B1")).state
    assert game.to_move(s) == ("red",)
    s = game.apply(s, Stay("R1")).state
    assert (s.phase, game.to_move(s)) == (Phase.MOVEMENT, ("red",))  # blue has nothing left
    step = game.apply(s, Stay("R2"))
    # nobody is within 1": the action phase passes and turn 2 begins with blue again
    assert kinds(step.events) == ["move", "phase", "turn"]
    assert (step.state.turn, step.state.phase, game.to_move(step.state)) == (
        2, Phase.MOVEMENT, ("blue",))


# -- actions -----------------------------------------------------------------------------
def test_rulebook_example_two_pieces_on_their_own_need_above_three() -> None:
    """Action: two observed pieces on their own each need a d6 roll above 3 (roll stat 3
    plus a difference of 0); a 3 fails and a 4 succeeds, turning the target on its side."""
    game = TheGame()
    s = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 3
    assert game.apply(s, Act("R1", "B1"), [3]).state.piece("B1").presence is Presence.IN_PLAY
    assert game.apply(s, Act("R1", "B1"), [4]).state.piece("B1").presence is Presence.DOWN
    s = replace(s, next_player="blue")
    assert number(game, s, "B1", "R1") == 3


def test_rulebook_example_two_friends_beside_the_target_make_it_five() -> None:
    """Action, groups: each other piece of the target's player within 1" of the target adds
    1, so two of them make the number 5 (only a 6 succeeds); one piece of the actor's
    player within 1" of the actor takes 1 off again, making it 4."""
    game = TheGame()
    r1, b1 = piece("R1", 10, 10, 0), piece("B1", 12, 10, 180)
    b2, b3 = piece("B2", 13.2, 10, 180), piece("B3", 12, 11.2, 180)
    s = position(r1, b1, b2, b3, phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 5
    assert game.apply(s, Act("R1", "B1"), [5]).state.piece("B1").presence is Presence.IN_PLAY
    assert game.apply(s, Act("R1", "B1"), [6]).state.piece("B1").presence is Presence.DOWN
    s = position(r1, b1, b2, b3, piece("R2", 10, 8.8, 0), phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 4


def test_the_difference_of_roll_stats_is_added_for_either_side() -> None:
    """Action: the number is the actor's roll stat plus the difference between the two
    roll stats, whichever is larger: observed (3) on unobserved (5) needs above 5, and
    unobserved on observed needs above 7, which no d6 can beat."""
    game = TheGame()
    # B1 faces away with nothing before it; R1 and R9 watch each other
    s = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 0), piece("R9", 11, 2, 90),
                 phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 5
    # R1 idle for two turns: unobserved, against B1 which faces it back
    s = position(piece("R1", 10, 10, 0, idle=2), piece("B1", 12, 10, 180), phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 7
    step = game.apply(s, Act("R1", "B1"), [6])
    assert step.events[1].detail("success") is False


def test_action_range_is_measured_edge_to_edge() -> None:
    """Action range: a piece may act on a piece of the other player within 1", measured
    between the edges of their footprints rather than their centres; the actor is then
    moved until it touches its target."""
    game = TheGame()
    stick = replace(piece("B1", 15.5, 10, 0), footprint=Footprint.rectangle(8.0, 0.5))
    # centres 5.5" apart, but the stick's end is 1" from R1's edge
    s = position(piece("R1", 10, 10, 0), stick, phase=Phase.ACTION)
    assert game.verdict(s, Act("R1", "B1")).legal
    step = game.apply(s, Act("R1", "B1"), [6])
    r1 = step.state.piece("R1")
    assert r1 is not None and r1.at.x == pytest.approx(11.0) and r1.at.y == pytest.approx(10)
    far = replace(stick, at=FieldPoint(16.0, 10))     # 1.5" edge to edge
    s = position(piece("R1", 10, 10, 0), far, phase=Phase.ACTION)
    assert game.verdict(s, Act("R1", "B1")).code == "out-of-range"


def test_a_failed_action_gives_a_free_answer_outside_the_targets_own_go() -> None:
    """Action: when an action fails, its target may at once act back for free; that free
    action does not use up the target's own action in the phase, and when it fails too the
    phase simply goes on."""
    game = TheGame()
    s = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 180), phase=Phase.ACTION)
    s = game.apply(s, Act("R1", "B1"), [2]).state
    assert s.response == Response("B1", "R1") and game.to_move(s) == ("blue",)
    step = game.apply(s, Act("B1", "R1"), [3])          # the free answer fails too
    assert kinds(step.events) == ["attack", "roll"]
    s = step.state
    assert s.response is None and game.to_move(s) == ("blue",)
    b1 = s.piece("B1")
    assert b1 is not None and not b1.done
    assert game.verdict(s, Act("B1", "R1")).legal      # B1 still has its own action


# -- end of a sequence -------------------------------------------------------------------
def test_odd_survivors_the_splitter_keeps_the_majority() -> None:
    """Sequence end: when one player has no pieces left the other splits theirs into two
    groups; when they cannot be equal the splitter keeps the larger, and the other player
    controls the smaller one."""
    game = TheGame()
    s = position(piece("R1", 5, 5, 0), piece("R2", 9, 5, 0), piece("R3", 13, 5, 0),
                 piece("B1", 5, 8, 0, presence=Presence.DOWN), split=SplitStage("red"))
    assert game.verdict(s, Split("red", ("R1",))).legal
    assert game.verdict(s, Split("red", ("R1", "R2"))).legal  # naming the larger group
    after = game.apply(s, Split("red", ("R1", "R2"))).state
    assert [p.id for p in after.in_play() if p.controller == "blue"] == ["R3"]
    assert [p.id for p in after.in_play() if p.controller == "red"] == ["R1", "R2"]


def test_even_survivors_are_split_equally_and_the_other_player_chooses() -> None:
    """Sequence end: an even number of survivors splits into two equal groups, and the
    player who ran out of pieces takes control of one of them."""
    game = TheGame()
    s = position(*(piece(f"R{i}", 4 * i, 5, 0) for i in range(1, 5)),
                 piece("B1", 5, 8, 0, presence=Presence.DOWN), split=SplitStage("red"))
    assert game.verdict(s, Split("red", ("R1",))).code == "unequal-groups"
    s = game.apply(s, Split("red", ("R1", "R4"))).state
    assert game.to_move(s) == ("blue",)
    s = game.apply(s, Take("blue", ("R2", "R3"))).state
    assert sorted(p.id for p in s.in_play() if p.controller == "blue") == ["R2", "R3"]


def test_the_last_piece_keeps_walking_until_it_leaves() -> None:
    """Sequence end: a single piece left standing counts as unobserved and goes on through
    movement phases, 12" towards the nearest edge each time, until it has left the field;
    the sequence ends then."""
    game = TheGame.from_options({"field_width": 60, "field_depth": 60, "sequences": 2})
    s = position(piece("R1", 30, 30, 90), piece("B1", 30, 40, 270, presence=Presence.DOWN))
    assert game.observation(s)["R1"].reason == "last-piece"
    assert game.verdict(s, Stay("R1")).code == "must-move"
    assert game.verdict(s, Pass("red")).code == "must-move"
    step = game.apply(s, Move("R1", FieldPoint(30, 18), None))  # all edges 30": any of them
    assert kinds(step.events) == ["move", "phase", "turn"]      # no action phase to play
    s = step.state
    assert s.turn == 2
    s = game.apply(s, Move("R1", FieldPoint(30, 6), None)).state
    assert s.turn == 3
    step = game.apply(s, Exit("R1"))                              # 6" from the near edge
    assert kinds(step.events) == ["lost", "phase", "setup"]
    assert (step.state.sequence, step.state.phase) == (2, Phase.SETUP)


def test_seven_sequences_are_played_and_no_winner_is_named() -> None:
    """End of game: the game is seven sequences, each set up afresh once every piece is
    down or gone; after the seventh the game is over, and the rule text names no winner."""
    game = TheGame()
    s = game.initial_state()
    for sequence in range(1, 8):
        assert (s.sequence, s.phase) == (sequence, Phase.SETUP)
        setup = Setup((spec("R1", 12, 5, 90), spec("B1", 12, 19, 270)), "red")
        s = game.apply(s, setup).state
        s = game.apply(s, Exit("R1")).state           # 5" from the near edge
        s = game.apply(s, Exit("B1")).state           # the last piece, 5" from the far edge
        if sequence < 7:
            assert game.outcome(s) is None
    assert s.phase is Phase.OVER and len(s.records) == 7
    outcome = game.outcome(s)
    assert outcome is not None and outcome.winner is None


def test_the_end_of_the_game_tells_the_players_to_clear_away_whatever_the_result() -> None:
    """End of game: after the seventh sequence the players are to remove every trace of
    their game; the closing announcement says so when a winner is named (knockdown scoring)
    as well as when none is."""
    for scoring, kind in (("none", "draw"), ("knockdowns", "victory")):
        game = TheGame.from_options({"sequences": 1, "scoring": scoring})
        s = start(game, spec("R1", 12, 8, 90), spec("B1", 12, 10, 270))
        s = game.apply(game.apply(s, Pass("red")).state, Pass("blue")).state
        s = game.apply(s, Act("R1", "B1"), [6]).state        # B1 down, R1 the last piece
        step = game.apply(s, Exit("R1"))
        final = step.events[-1]
        assert final.kind == kind
        assert "clear away every trace" in final.text


def test_pieces_on_their_side_do_not_count_in_a_group() -> None:
    """Action, groups: only pieces still in play count as friends beside the actor or the
    target; a piece turned on its side within 1" changes nothing."""
    game = TheGame()
    s = position(piece("R1", 10, 10, 0), piece("B1", 12, 10, 180),
                 piece("B2", 13.2, 10, 180, presence=Presence.DOWN),
                 piece("R2", 10, 8.8, 0, presence=Presence.DOWN), phase=Phase.ACTION)
    assert number(game, s, "R1", "B1") == 3


def test_a_piece_left_alone_when_its_partner_walks_off_must_walk_off_too() -> None:
    """Movement: the stat set that governs a piece's move is the one it has when its go
    comes; a piece observed only by a piece that has since walked off is no longer
    observed, so it must move 12" towards the nearest edge."""
    game = TheGame()
    # R2 and B2, far behind B1, keep both players in the sequence after R1 walks off
    s = position(piece("R1", 12, 5, 90), piece("B1", 12, 10, 270), piece("R2", 20, 20, 0),
                 piece("B2", 3, 20, 90))
    assert game.observation(s)["B1"].observed
    s = game.apply(s, Exit("R1")).state                  # 5" from the near edge
    assert game.to_move(s) == ("blue",)
    assert game.observation(s)["B1"].reason == "horizon"
    assert game.verdict(s, Stay("B1")).code == "must-move"
    assert game.verdict(s, Move("B1", FieldPoint(12, 6), None)).code == "too-short"


@pytest.mark.parametrize("bearing", [0.2, 0.5, 1.2, 33.3, 127.9])
def test_pieces_exactly_one_inch_apart_may_act_with_no_tolerance(bearing: float) -> None:
    """Action range (GAMES.md: range 1"): a piece exactly 1" from an enemy, edge to edge,
    is within range whatever the bearing between them, even with no measuring tolerance;
    the piece listed as able to act must be allowed to act."""
    game = TheGame.from_options({"tolerance": 0})
    t = math.radians(bearing)
    s = position(piece("R1", 12, 12, bearing),
                 piece("B1", 12 + 2 * math.cos(t), 12 + 2 * math.sin(t), bearing + 180),
                 phase=Phase.ACTION)
    assert Act("R1", "B1") in game.legal_actions(s)
    assert game.verdict(s, Act("R1", "B1")).legal
    closer = game.apply(s, Act("R1", "B1"), [6]).state.piece("R1")
    assert closer is not None
    # a measured closing-in position exactly touching the target is accepted too
    touch = FieldPoint(12 + math.cos(t), 12 + math.sin(t))
    assert game.verdict(s, Act("R1", "B1", touch)).legal


@pytest.mark.parametrize("bearing", [1.0, 3.0, 47.0, 200.0])
def test_an_observed_piece_may_move_exactly_six_inches_with_no_tolerance(
    bearing: float,
) -> None:
    """Movement: an observed piece moves up to 6" in any direction, so a move of exactly
    6" is legal at any bearing, even with no measuring tolerance."""
    game = TheGame.from_options({"tolerance": 0})
    t = math.radians(bearing)
    s = position(piece("R1", 12, 12, 0), piece("B1", 14, 12, 180))
    assert game.observation(s)["R1"].observed
    to = FieldPoint(12 + 6 * math.cos(t), 12 + 6 * math.sin(t))
    assert game.verdict(s, Move("R1", to, 0)).legal


def _walks_off(game: TheGame, s: TheGameState, move: Move, edge: str) -> None:
    """``move`` takes its piece off the field at ``edge``."""
    step = game.apply(s, move)
    piece_after = step.state.piece(move.piece)
    assert piece_after is not None and piece_after.presence is Presence.OFF
    assert [e.detail("edge") for e in step.events if e.kind == "lost"] == [edge]


def test_an_unobserved_piece_heading_for_an_equally_near_edge_still_walks_off() -> None:
    """Movement (GAMES.md): an unobserved piece moves 12" straight towards the nearest
    edge, which on the 24" field always takes it off. A piece 11.9" from the right edge and
    12.1" from the left one may head for either (they are equally near within the measuring
    tolerance); its full 12" move towards the left edge must still take it off the field,
    not leave it standing 0.1" inside."""
    game = TheGame()
    # R1 faces the far edge and sees nothing; B1 and B2 keep the sequence going
    s = position(piece("R1", 12.1, 12, 90), piece("B1", 12.1, 6, 90), piece("B2", 3, 3, 180))
    assert game.observation(s)["R1"].reason == "horizon"
    _walks_off(game, s, Move("R1", FieldPoint(0.1, 12), 90), "left")


def test_an_edge_as_near_as_the_tolerance_allows_may_be_headed_for() -> None:
    """Movement (GAMES.md): equally near edges within the measuring tolerance may be chosen,
    and a length within rounding of a limit is on it. With a 0.1" tolerance, a piece 11.95"
    from the left edge and 12.05" from the right one is exactly 0.1" nearer the left: its
    full 12" move towards the right edge is legal and takes it off the field."""
    game = TheGame.from_options({"tolerance": 0.1})
    s = position(piece("R1", 11.95, 12, 90), piece("B1", 11.95, 6, 90), piece("B2", 3, 3, 180))
    assert game.observation(s)["R1"].reason == "horizon"
    verdict = game.verdict(s, Move("R1", FieldPoint(23.95, 12), 90))
    assert verdict.legal, verdict
    _walks_off(game, s, Move("R1", FieldPoint(23.95, 12), 90), "right")


def test_an_unobserved_piece_exactly_a_full_move_from_the_edge_walks_off_on_any_field() -> None:
    """Movement (GAMES.md): a piece reaching an edge leaves play. On a 25.1" x 30" field a
    piece at x 13.1 is exactly 12" from the right edge (12.000000000000002 in floating
    point): its full move towards it, measured 11.9" (within the tolerance), takes it off,
    as it does for a piece 12" from the edge of the default field."""
    game = TheGame.from_options({"field_width": 25.1, "field_depth": 30})
    s = position(piece("R1", 13.1, 15, 90), piece("B1", 13.1, 9, 90), piece("B2", 3, 3, 180))
    assert game.observation(s)["R1"].reason == "horizon"
    _walks_off(game, s, Move("R1", FieldPoint(25.0, 15), 90), "right")

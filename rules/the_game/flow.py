"""The order of play: whose go it is, phases and turns, splitting survivors, sequence ends.

Within a phase the players alternate, starting with the sequence's first player, each
giving one of their pieces its go (a move, an action, or deliberately nothing); a player
with nothing left to do is skipped. In the movement phase every standing piece is due a
go; in the action phase only pieces with a piece of the other player in action range.
When nobody is due, the movement phase gives way to the action phase and the action phase
ends the turn (idle counters move on, and a new movement phase begins).

When one player has no standing pieces left, the other splits theirs into two groups and
the player who ran out takes control of one (see :mod:`rules.the_game.survivors`); the
interrupted phase then carries on. When a single piece stands, it is the last piece and
walks towards the edge. When none stands, the sequence is over and the next one is set up.
"""

from __future__ import annotations

from dataclasses import replace

from rules.core import Event, Outcome
from rules.the_game.model import (
    Handover,
    Phase,
    Piece,
    SequenceRecord,
    SplitStage,
    TheGameState,
)
from rules.the_game.options import Scoring, TheGameOptions
from rules.the_game.sight import within_range

__all__ = [
    "announce_last_piece",
    "due",
    "final_events",
    "final_outcome",
    "hand_over",
    "knockdown_totals",
    "settle",
    "split_sizes",
]


def due(state: TheGameState, piece: Piece, opts: TheGameOptions) -> bool:
    """Whether ``piece`` is still due its go in the phase under way."""
    if not piece.in_play or piece.done:
        return False
    if state.phase is Phase.MOVEMENT:
        return True
    if state.phase is Phase.ACTION:
        return any(
            q.in_play and q.controller != piece.controller and within_range(piece, q, opts)
            for q in state.pieces
        )
    return False


def _has_due(state: TheGameState, player: str, opts: TheGameOptions) -> bool:
    return any(p.controller == player and due(state, p, opts) for p in state.pieces)


def announce_last_piece(state: TheGameState, events: list[Event]) -> None:
    """Say so when a removal has just left a single piece standing."""
    standing = state.in_play()
    if len(standing) == 1:
        last = standing[0]
        events.append(Event.of(
            "phase", f"{last.id} is the last piece standing: unaware of anyone, it walks "
            "towards the nearest edge until it leaves the field.", piece=last.id,
            last_piece=True,
        ))


def split_sizes(count: int) -> tuple[int, int]:
    """The sizes of the two groups survivors split into: (the splitter's, the other's)."""
    return count - count // 2, count // 2


def settle(state: TheGameState, opts: TheGameOptions, events: list[Event]) -> TheGameState:
    """Carry the game forward until a player has a decision to make."""
    for _ in range(1000):  # each pass either returns or ends a phase; a turn takes two
        if state.phase not in (Phase.MOVEMENT, Phase.ACTION):
            return state
        standing = state.in_play()
        if not standing:
            return _end_sequence(state, opts, events)
        if state.split is not None or state.response is not None:
            return state
        controllers = {p.controller for p in standing}
        if len(controllers) == 1 and len(standing) >= 2:
            splitter = standing[0].controller
            keep, give = split_sizes(len(standing))
            events.append(Event.of(
                "phase",
                f"{opts.other(splitter).capitalize()} has no standing pieces left: "
                f"{splitter} splits its {len(standing)} into groups of {keep} and {give}, "
                f"and {opts.other(splitter)} takes control of one.",
                splitter=splitter, survivors=len(standing),
            ))
            return replace(state, split=SplitStage(splitter))
        current = state.next_player or state.first or opts.sides[0]
        if _has_due(state, current, opts):
            return replace(state, next_player=current)
        if _has_due(state, opts.other(current), opts):
            return replace(state, next_player=opts.other(current))
        if state.phase is Phase.MOVEMENT:
            state = _start_action_phase(state, events)
        else:
            state = _end_turn(state, events)
    raise AssertionError("the order of play did not settle")  # pragma: no cover


def _start_action_phase(state: TheGameState, events: list[Event]) -> TheGameState:
    events.append(Event.of("phase", f"Turn {state.turn}: the action phase begins.",
                           phase="action", turn=state.turn))
    pieces = tuple(replace(p, done=False) if p.done else p for p in state.pieces)
    return replace(state, phase=Phase.ACTION, pieces=pieces, next_player=state.first)


def _end_turn(state: TheGameState, events: list[Event]) -> TheGameState:
    pieces = []
    for p in state.pieces:
        if p.in_play:
            p = replace(p, idle=0 if p.busy else p.idle + 1, busy=False, done=False)
        pieces.append(p)
    turn = state.turn + 1
    record = replace(state.record, turns=turn) if state.record else None
    events.append(Event.of("turn", f"Turn {turn} begins with the movement phase; "
                           f"{state.first} goes first.", turn=turn, sequence=state.sequence))
    return replace(state, phase=Phase.MOVEMENT, turn=turn, pieces=tuple(pieces),
                   next_player=state.first, record=record)


def hand_over(
    state: TheGameState, splitter: str, group: tuple[str, ...], opts: TheGameOptions,
    events: list[Event],
) -> TheGameState:
    """Give ``group`` to the player who lost all their pieces and carry on playing."""
    receiver = opts.other(splitter)
    given = set(group)
    pieces = tuple(replace(p, controller=receiver) if p.id in given else p for p in state.pieces)
    ordered = tuple(p.id for p in state.pieces if p.id in given)
    record = state.record
    if record is not None:
        handover = Handover(splitter, receiver, ordered)
        record = replace(record, handovers=record.handovers + (handover,))
    events.append(Event.of(
        "phase", f"{receiver.capitalize()} takes control of {', '.join(ordered)}; play goes on.",
        splitter=splitter, receiver=receiver, pieces=list(ordered),
    ))
    state = replace(state, pieces=pieces, split=None, record=record)
    return settle(state, opts, events)


def _end_sequence(state: TheGameState, opts: TheGameOptions, events: list[Event]) -> TheGameState:
    record = state.record or SequenceRecord(state.sequence, state.first or opts.sides[0])
    a, b = opts.sides
    events.append(Event.of(
        "phase",
        f"Sequence {state.sequence} is over after {record.turns} turn(s): {a} knocked down "
        f"{record.knockdowns_by(a)}, {b} knocked down {record.knockdowns_by(b)}, "
        f"{len(record.departures)} walked off.",
        sequence=state.sequence, turns=record.turns,
        knockdowns={a: record.knockdowns_by(a), b: record.knockdowns_by(b)},
    ))
    records = state.records + (record,)
    if state.sequence >= opts.sequences:
        done = TheGameState(sequence=state.sequence, phase=Phase.OVER, turn=state.turn,
                            first=state.first, pieces=state.pieces, records=records)
        events.extend(final_events(done, opts))
        return done
    events.append(Event.of("setup", f"Set up sequence {state.sequence + 1} with new pieces.",
                           sequence=state.sequence + 1))
    return TheGameState(sequence=state.sequence + 1, records=records)


def knockdown_totals(state: TheGameState, opts: TheGameOptions) -> dict[str, int]:
    """How many pieces each player's actions knocked down, over the finished sequences."""
    return {s: sum(r.knockdowns_by(s) for r in state.records) for s in opts.sides}


def final_outcome(state: TheGameState, opts: TheGameOptions) -> Outcome:
    """The result once every sequence is played.

    The rulebook names no winner, so by default the game simply ends (a result with no
    winner); with ``scoring: "knockdowns"`` the player whose actions knocked down more
    pieces wins, and equal counts are a draw.
    """
    totals = knockdown_totals(state, opts)
    a, b = opts.sides
    played = len(state.records)
    tally = f"knockdowns: {a} {totals[a]}, {b} {totals[b]}"
    if opts.scoring is Scoring.KNOCKDOWNS:
        if totals[a] != totals[b]:
            winner = a if totals[a] > totals[b] else b
            return Outcome(winner, f"more knockdowns over {played} sequences ({tally})")
        return Outcome(None, f"equal knockdowns over {played} sequences ({tally})")
    return Outcome(None, f"all {played} sequences played; The Game names no winner ({tally})")


def final_events(state: TheGameState, opts: TheGameOptions) -> list[Event]:
    """The announcement at the end of the last sequence, which also tells the players to
    clear away every trace of their game (the rule text asks it, whatever the result)."""
    result = final_outcome(state, opts)
    totals = knockdown_totals(state, opts)
    clear = "Now clear away every trace of the game."
    if result.winner is not None:
        return [Event.of("victory", f"All {opts.sequences} sequences are played: "
                         f"{result.winner} wins ({result.reason}). {clear}",
                         winner=result.winner, knockdowns=totals)]
    return [Event.of("draw", f"All {opts.sequences} sequences are played: {result.reason}. "
                     f"{clear}", knockdowns=totals)]

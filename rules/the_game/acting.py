"""Acting on another piece: action range, closing in, and the number to beat.

A piece may act on a piece of the other player within ``action_range`` (1") edge to
edge. It first closes in: its centre slides along the shortest line between the two
footprints until they touch. The number to beat is then

    own roll stat + |own roll stat - target's roll stat|
    + 1 for each other piece of the target's player within range of the target
    - 1 for each other piece of the actor's player within range of the actor

with every status and distance read after closing in; a d6 must come out strictly above
it (a number of 6 or more cannot be beaten; a number below 1 cannot be missed).

>>> target_number(3, 3, 0, 0)   # two observed pieces on their own: roll above 3
3
>>> target_number(3, 3, 2, 1)   # two friends beside the target, one beside the actor
4
>>> target_number(5, 3, 0, 0)   # an unobserved actor against an observed target
7
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core import Verdict
from rules.geometry import FieldPoint
from rules.the_game.model import Piece
from rules.the_game.options import TheGameOptions
from rules.the_game.sight import (
    ROUNDING,
    edge_gap,
    moved_piece,
    observation,
    roll_stat,
    within_range,
)

__all__ = ["Resolution", "target_number", "close_in", "resolve"]


def target_number(own: int, target: int, target_friends: int, own_friends: int) -> int:
    """The number a d6 must exceed for an action to succeed."""
    return own + abs(own - target) + target_friends - own_friends


@dataclass(frozen=True)
class Resolution:
    """Everything needed to roll for an action, worked out on the position after closing in."""

    actor: Piece
    target: Piece
    own_stat: int
    target_stat: int
    target_friends: tuple[str, ...]
    own_friends: tuple[str, ...]
    number: int

    def explain(self) -> str:
        difference = abs(self.own_stat - self.target_stat)
        parts = [f"roll stat {self.own_stat}", f"difference {difference}"]
        if self.target_friends:
            parts.append(f"+{len(self.target_friends)} for {', '.join(self.target_friends)} "
                         f"beside {self.target.id}")
        if self.own_friends:
            parts.append(f"-{len(self.own_friends)} for {', '.join(self.own_friends)} "
                         f"beside {self.actor.id}")
        return "; ".join(parts)

    def chance_text(self) -> str:
        if self.number >= 6:
            return "cannot succeed"
        if self.number < 1:
            return "cannot fail"
        return f"needs a roll above {self.number}"


def _q(x: float) -> str:
    return f'{x:.2f}"'


def close_in(
    actor: Piece, target: Piece, measured: FieldPoint | None, opts: TheGameOptions
) -> Verdict | Piece:
    """The actor after closing in on its target, or the verdict refusing the action.

    Lengths are judged like :func:`~rules.the_game.sight.within`: a length within
    :data:`~rules.the_game.sight.ROUNDING` of its limit counts as on it."""
    distance, dx, dy = edge_gap(actor, target)
    limit = opts.action_range + opts.tolerance
    if distance > limit + ROUNDING:
        excess = distance - opts.action_range
        return Verdict.illegal(
            "out-of-range",
            f"{actor.id} is {_q(distance)} from {target.id}, edge to edge; action range is "
            f"{_q(opts.action_range)}, so it is {_q(excess)} too far away.",
            piece=actor.id, target=target.id, distance=round(distance, 4),
            excess=round(excess, 4), tolerance=opts.tolerance,
        )
    if measured is None:
        return moved_piece(actor, FieldPoint(actor.at.x + dx, actor.at.y + dy))
    moved = actor.at.distance(measured)
    if moved > distance + opts.tolerance + ROUNDING:
        excess = moved - distance
        return Verdict.illegal(
            "approach-too-far",
            f"{actor.id} only had {_q(distance)} to close to reach {target.id} but was moved "
            f"{_q(moved)}, {_q(excess)} too far.",
            piece=actor.id, target=target.id, moved=round(moved, 4), excess=round(excess, 4),
        )
    closer = moved_piece(actor, measured)
    left = edge_gap(closer, target)[0]
    if left > opts.tolerance + ROUNDING:
        return Verdict.illegal(
            "approach-short",
            f"{actor.id} must be moved as close as possible to {target.id}; "
            f"{_q(left)} still separate them.",
            piece=actor.id, target=target.id, gap=round(left, 4), tolerance=opts.tolerance,
        )
    return closer


def resolve(
    pieces: tuple[Piece, ...], actor: Piece, target: Piece, opts: TheGameOptions
) -> Resolution:
    """Statuses, group modifiers and the number to beat, with ``actor`` already closed in."""
    board = tuple(actor if p.id == actor.id else p for p in pieces)
    table = observation(board, opts)
    own = roll_stat(table[actor.id].observed, opts)
    theirs = roll_stat(table[target.id].observed, opts)
    standing = [p for p in board if p.in_play]
    target_friends = tuple(
        p.id for p in standing
        if p.controller == target.controller and p.id != target.id
        and within_range(p, target, opts)
    )
    own_friends = tuple(
        p.id for p in standing
        if p.controller == actor.controller and p.id != actor.id
        and within_range(p, actor, opts)
    )
    number = target_number(own, theirs, len(target_friends), len(own_friends))
    return Resolution(actor, target, own, theirs, target_friends, own_friends, number)

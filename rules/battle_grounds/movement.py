"""How figures move, by level, and why a move is refused.

- S/A: one square forwards, backwards or sideways (never diagonally).
- I: one square in any of the eight directions.
- II: one or two squares in one straight line (orthogonal or diagonal); the square
  passed over must be empty.
- III (and Cosmic): up to three one-square steps in any of the eight directions, turning
  freely; every square passed through must be empty.

Entering a square held by an enemy figure is an attack and ends the move; a square held
by a friendly figure can be neither entered nor passed through.

>>> from rules.geometry import Square
>>> from rules.battle_grounds.board import Board, label
>>> board = Board.standard("basic")
>>> reach = destinations(board, {}, lambda f: None, Level.SA, Square(0, 0), "south")
>>> sorted(label(s) for s in reach)
['a2', 'b1']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rules.battle_grounds.board import Board, label
from rules.battle_grounds.roster import Level
from rules.core import Verdict
from rules.geometry import Square, SquareDirection

__all__ = ["destinations", "move_verdict", "MAX_RANGE"]

_ALL = tuple(SquareDirection)
_ORTHOGONAL = SquareDirection.orthogonal()
#: How far each movement level reaches (Chebyshev distance).
MAX_RANGE = {Level.SA: 1, Level.I: 1, Level.II: 2, Level.III: 3}
_LEVEL_WORDS = {
    Level.SA: "A Starter or Accessory figure moves one square forwards, backwards or sideways",
    Level.I: "A level I figure moves one square",
    Level.II: "A level II figure moves up to two squares in one straight line",
    Level.III: "A level III figure moves up to three squares",
}

#: ``controller(figure_id)`` -> the player who moves that figure now.
Controller = Callable[[str], "str | None"]


def destinations(
    board: Board,
    at: Mapping[Square, str],
    controller: Controller,
    level: Level,
    start: Square,
    player: str,
) -> dict[Square, bool]:
    """Every square the figure on ``start`` may move to, mapped to ``True`` for attacks."""
    level = level.movement
    out: dict[Square, bool] = {}

    def free(square: Square) -> bool | None:
        """None: cannot enter; False: empty; True: enemy (attack)."""
        if not (0 <= square.x < board.width and 0 <= square.y < board.height):
            return None
        fig = at.get(square)
        if fig is None:
            return False
        return None if controller(fig) == player else True

    if level in (Level.SA, Level.I):
        for d in _ORTHOGONAL if level is Level.SA else _ALL:
            sq = Square(start.x + d.dx, start.y + d.dy)
            kind = free(sq)
            if kind is not None:
                out[sq] = kind
        return out
    if level is Level.II:
        for d in _ALL:
            first = Square(start.x + d.dx, start.y + d.dy)
            kind = free(first)
            if kind is None:
                continue
            out[first] = kind
            if not kind:
                second = Square(first.x + d.dx, first.y + d.dy)
                kind2 = free(second)
                if kind2 is not None:
                    out[second] = kind2
        return out
    # level III: breadth-first through empty squares, at most three steps
    frontier = [start]
    seen = {start}
    for _ in range(3):
        nxt: list[Square] = []
        for sq in frontier:
            for d in _ALL:
                step = Square(sq.x + d.dx, sq.y + d.dy)
                if step in seen:
                    continue
                kind = free(step)
                if kind is None:
                    continue
                seen.add(step)
                out[step] = kind
                if not kind:
                    nxt.append(step)
        frontier = nxt
    return out


def move_verdict(
    board: Board,
    at: Mapping[Square, str],
    controller: Controller,
    level: Level,
    start: Square,
    to: Square,
    player: str,
) -> Verdict:
    """Whether a figure of ``level`` on ``start`` may move to ``to``, with the exact reason."""
    level = level.movement
    if not board.on_board(to):
        return Verdict.illegal(
            "off-board",
            f"There is no square {label(to)} on this {board.width}x{board.height} board.",
        )
    if to == start:
        return Verdict.illegal("no-move", "A move must leave the square it starts on.")
    target = at.get(to)
    if target is not None and controller(target) == player:
        return Verdict.illegal(
            "own-figure", "A figure cannot move onto a square held by its own side."
        )
    dx, dy = to.x - start.x, to.y - start.y
    reach = max(abs(dx), abs(dy))
    if reach > MAX_RANGE[level]:
        return Verdict.illegal(
            "too-far", f"{_LEVEL_WORDS[level]}; this move covers {reach} squares.", reach=reach
        )
    if level is Level.SA and dx and dy:
        return Verdict.illegal(
            "diagonal-not-allowed",
            "A Starter or Accessory figure may neither move nor attack diagonally.",
        )
    if level is Level.II and reach == 2:
        if dx and dy and abs(dx) != abs(dy):
            return Verdict.illegal(
                "not-straight", "A level II figure cannot change direction while it moves."
            )
        middle = Square(start.x + dx // 2, start.y + dy // 2)
        if middle in at:
            return Verdict.illegal(
                "path-blocked",
                f"{label(middle)} is occupied; a level II figure cannot pass over it.",
                blocked=label(middle),
            )
    if level is Level.III and reach > 1 and to not in destinations(board, at, controller, level, start, player):
        return Verdict.illegal(
            "path-blocked",
            f"Every way to {label(to)} within three steps is blocked by other figures.",
        )
    attack = target is not None
    return Verdict.ok("attack" if attack else "move", attack=attack)

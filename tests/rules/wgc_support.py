"""Shared helpers of the When Gods Collide tests: squares from labels, moves, and the "ring"
board of seven tiles around a hole."""

from __future__ import annotations

from typing import Any

from rules.geometry import Square
from rules.when_gods_collide import (
    ChessFace,
    HeroFace,
    Move,
    Phase,
    TurnRoll,
    WgcState,
    parse_diagram,
)


def sq(label: str) -> Square:
    """The square of a label ``"x,y"``."""
    x, y = label.split(",")
    return Square(int(x), int(y))


def mv(frm: str, to: str, *via: str, found: frozenset[Square] | None = None) -> Move:
    """A move from ``frm`` to ``to`` through the squares ``via`` (a hero's stops), with the
    squares whose god the move found (``found``: the referee is not told the gods)."""
    return Move(sq(frm), sq(to), tuple(sq(v) for v in via), found)


def state_of(diagram: str, chess: str, number: int, hero: HeroFace | None = None, **kw: Any) -> WgcState:
    """The position of ``diagram`` in its move phase, the dice showing ``chess`` and ``number``
    (and ``hero`` when the hero die was rolled)."""
    return parse_diagram(diagram, phase=Phase.MOVE, roll=TurnRoll(ChessFace(chess), number, hero), **kw)


# The "ring" board: seven tiles around a hole. Tile 0,2 (squares x 0-1, y 2-3) and tile 2,4
# (x 2-3, y 4-5) touch only at a corner: 1,3 and 2,4; both side squares, 2,3 and 1,4, are gaps.
RING = """
    . . . . . .
    . . . . . .
    . . _ _ . .
    . . _ _ . .
    _ _ . . . .
    _ _ . . . .
"""


def ring(placements: dict[str, str]) -> str:
    """The ring board with checkers placed: ``{"1,3": "G"}`` (letters as in diagrams)."""
    rows = [line.split() for line in RING.strip().splitlines()]
    for label, token in placements.items():
        s = sq(label)
        assert rows[s.y][s.x] == ".", label
        rows[s.y][s.x] = token
    return "\n".join(" ".join(r) for r in rows)

"""The Wormholes galaxy: the spiral of 23 tiles, the bases, the suits and their axes.

Cells are :class:`~rules.geometry.Square` values on a 10-wide by 18-long grid (``x`` 1..10,
``y`` 1..18). Each tile covers a 2x2 block of cells; the tiles form a spiral that looks the
same after a half turn. Directions use the compass of :mod:`rules.geometry` (``N`` is
towards row 1, ``E`` towards column 10). The OrthogonAliens' base sits at the ``N`` end and the
DiagonAliens' at the ``S`` end, so this compass is the DiagonAliens' own; the OrthogonAliens'
compass is turned half round. Every suit's *axis* is the same in both compasses, which is all the
rules need.

>>> len(CELLS), len(TILES)
(92, 23)
>>> Square(10, 1) in CELLS, Square(1, 1) in CELLS
(True, False)
>>> all(Square(11 - c.x, 19 - c.y) in CELLS for c in CELLS)
True
"""

from __future__ import annotations

from enum import Enum

from rules.geometry import Square, SquareDirection

__all__ = [
    "ORTHO",
    "DIAGO",
    "PLAYERS",
    "PLAYER_TITLES",
    "Suit",
    "Axis",
    "WIDTH",
    "LENGTH",
    "TILES",
    "CELLS",
    "BASES",
    "DEFAULT_START",
    "DEFAULT_AXES",
    "VALUE_NAMES",
    "MAX_VALUE",
    "opponent",
    "owner",
    "suits_of",
    "opposing_bases",
    "line",
    "on_board_run",
]

#: Player names as they appear in states, actions and outcomes.
ORTHO = "orthogonaliens"
DIAGO = "diagonaliens"
PLAYERS: tuple[str, str] = (ORTHO, DIAGO)
PLAYER_TITLES = {ORTHO: "OrthogonAliens", DIAGO: "DiagonAliens"}

WIDTH = 10
LENGTH = 18

#: Piecepack values: 0 is the null face (the black hole), 1 is the ace.
VALUE_NAMES = ("null", "ace", "2", "3", "4", "5")
MAX_VALUE = 5


class Suit(Enum):
    """The four piecepack suits; each ship (pawn), die and coin belongs to one."""

    SUNS = "suns"
    MOONS = "moons"
    CROWNS = "crowns"
    ARMS = "arms"

    @property
    def title(self) -> str:
        return self.value.capitalize()


class Axis(Enum):
    """A line of travel for wormhole jumps: two opposite compass directions."""

    NS = "ns"
    EW = "ew"
    NWSE = "nwse"
    NESW = "nesw"

    @property
    def directions(self) -> tuple[SquareDirection, SquareDirection]:
        return _AXIS_DIRECTIONS[self]


_AXIS_DIRECTIONS = {
    Axis.NS: (SquareDirection.N, SquareDirection.S),
    Axis.EW: (SquareDirection.E, SquareDirection.W),
    Axis.NWSE: (SquareDirection.NW, SquareDirection.SE),
    Axis.NESW: (SquareDirection.NE, SquareDirection.SW),
}

#: The rulebook's axes: Suns north/south, Moons east/west, Crowns NW/SE, Arms NE/SW.
DEFAULT_AXES: dict[Suit, Axis] = {
    Suit.SUNS: Axis.NS,
    Suit.MOONS: Axis.EW,
    Suit.CROWNS: Axis.NWSE,
    Suit.ARMS: Axis.NESW,
}

_SUITS_OF = {ORTHO: (Suit.SUNS, Suit.MOONS), DIAGO: (Suit.CROWNS, Suit.ARMS)}
_OWNER = {suit: player for player, suits in _SUITS_OF.items() for suit in suits}

# (first row of a pair, first column, last column), from the DiagonAliens' end to the other.
_ROW_PAIRS = (
    (17, 1, 4),
    (15, 3, 6),
    (13, 3, 8),
    (11, 5, 10),
    (9, 3, 8),
    (7, 1, 6),
    (5, 3, 8),
    (3, 5, 8),
    (1, 7, 10),
)

#: Each tile by the cell at its north-west corner.
TILES: tuple[Square, ...] = tuple(
    Square(x, y0) for y0, x0, x1 in _ROW_PAIRS for x in range(x0, x1 + 1, 2)
)
CELLS: frozenset[Square] = frozenset(
    Square(t.x + dx, t.y + dy) for t in TILES for dx in (0, 1) for dy in (0, 1)
)

#: Each player's two base cells (the ships' start cells).
BASES: dict[str, tuple[Square, Square]] = {
    ORTHO: (Square(10, 1), Square(10, 2)),
    DIAGO: (Square(1, 17), Square(1, 18)),
}
BASE_CELLS: frozenset[Square] = frozenset(c for pair in BASES.values() for c in pair)

#: Where each ship starts unless the options say otherwise.
DEFAULT_START: dict[Suit, Square] = {
    Suit.SUNS: Square(10, 1),
    Suit.MOONS: Square(10, 2),
    Suit.CROWNS: Square(1, 17),
    Suit.ARMS: Square(1, 18),
}


def opponent(player: str) -> str:
    return DIAGO if player == ORTHO else ORTHO


def owner(suit: Suit) -> str:
    """The player whose ship, die and coins are of ``suit``."""
    return _OWNER[suit]


def suits_of(player: str) -> tuple[Suit, Suit]:
    return _SUITS_OF[player]


def opposing_bases(player: str) -> tuple[Square, Square]:
    """The base cells ``player`` is racing to."""
    return BASES[opponent(player)]


def _ray(start: Square, d: SquareDirection) -> tuple[Square, ...]:
    return tuple(start.step(d, n) for n in range(1, MAX_VALUE + 1))


def _run(ray: tuple[Square, ...]) -> int:
    n = 0
    for cell in ray:
        if cell not in CELLS:
            break
        n += 1
    return n


_RAYS: dict[tuple[Square, SquareDirection], tuple[Square, ...]] = {
    (c, d): _ray(c, d) for c in CELLS for d in SquareDirection
}
_RUNS: dict[tuple[Square, SquareDirection], int] = {key: _run(r) for key, r in _RAYS.items()}


def line(start: Square, d: SquareDirection) -> tuple[Square, ...]:
    """The five cells met walking straight from a board cell, on the board or not.

    >>> [str(c) for c in line(Square(10, 1), SquareDirection.W)]
    ['9,1', '8,1', '7,1', '6,1', '5,1']
    """
    return _RAYS[(start, d)]


def on_board_run(start: Square, d: SquareDirection) -> int:
    """How many steps (up to five) stay on board cells without crossing a gap.

    >>> on_board_run(Square(10, 1), SquareDirection.W)
    3
    """
    return _RUNS[(start, d)]

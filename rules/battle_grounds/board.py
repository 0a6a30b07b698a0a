"""The Battle Grounds boards: size, square colours, square labels, zones and set-up rows.

Squares are :class:`~rules.geometry.Square` values with ``x`` the column from the west
(0 = file ``a``) and ``y`` the row from the north edge (0 = row ``1``), so ``y`` grows
southwards as everywhere in the project. North sits behind rows 1-2 and south behind the
last two rows. Labels are a file letter and a row number counted from the north edge:

>>> label(Square(2, 0))
'c1'
>>> parse_label("c1")
Square(x=2, y=0)
>>> basic = Board.standard("basic")
>>> basic.colour(Square(0, 0)).value, basic.colour(Square(0, 6)).value
('red', 'purple')
>>> str(basic.setup_slot(Square(2, 6), "south"))
'III*'

"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from rules.battle_grounds.roster import NORTH, Level, opponent
from rules.errors import FormatError
from rules.geometry import Square

__all__ = [
    "Colour",
    "COLOUR_LETTERS",
    "SetupSlot",
    "Board",
    "label",
    "parse_label",
    "STANDARD_COLOUR_ROWS",
]


class Colour(Enum):
    """A square colour. ``MULTI`` squares carry all six colours (advanced board)."""

    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"
    WHITE = "white"
    MULTI = "multicolour"

    @property
    def letter(self) -> str:
        return _LETTER_OF[self]

    @property
    def single(self) -> bool:
        """True for the six colours that each name one battle stat."""
        return self not in (Colour.WHITE, Colour.MULTI)


#: One letter per colour, as used by the ``colour_rows`` option.
COLOUR_LETTERS: dict[str, Colour] = {
    "R": Colour.RED,
    "O": Colour.ORANGE,
    "Y": Colour.YELLOW,
    "G": Colour.GREEN,
    "B": Colour.BLUE,
    "P": Colour.PURPLE,
    "W": Colour.WHITE,
    "M": Colour.MULTI,
}
_LETTER_OF = {colour: letter for letter, colour in COLOUR_LETTERS.items()}

#: The colour rows of the two boards, north edge first. The basic board is the one printed
#: in the rulebook; the advanced one keeps each side's colour order (as seen from that
#: player's seat: purple, blue, green, yellow, orange, red) and adds the two all-colour
#: columns in the middle, with two white rows between the sides.
STANDARD_COLOUR_ROWS: dict[str, tuple[str, ...]] = {
    "basic": ("ROYGBP",) * 3 + ("WWWWWW",) + ("PBGYOR",) * 3,
    "advanced": ("ROYMMGBP",) * 3 + ("WWWWWWWW",) * 2 + ("PBGMMYOR",) * 3,
}


@dataclass(frozen=True)
class SetupSlot:
    """What a set-up square takes: a figure of ``level``; ``starred`` squares may take the
    Cosmic figure instead (only level III squares are starred)."""

    level: Level
    starred: bool = False

    def __str__(self) -> str:
        return self.level.value + ("*" if self.starred else "")


_S, _I, _II, _III, _STAR = (
    SetupSlot(Level.SA),
    SetupSlot(Level.I),
    SetupSlot(Level.II),
    SetupSlot(Level.III),
    SetupSlot(Level.III, True),
)

#: Set-up rows by board, back row first, listed west to east for the south player; both
#: rows are mirror-symmetric, so north's are the same column by column.
_SETUP_ROWS: dict[str, tuple[tuple[SetupSlot, ...], tuple[SetupSlot, ...]]] = {
    "basic": ((_II, _II, _STAR, _STAR, _II, _II), (_I, _I, _S, _S, _I, _I)),
    "advanced": (
        (_II, _II, _III, _STAR, _STAR, _III, _II, _II),
        (_I, _I, _I, _S, _S, _I, _I, _I),
    ),
}

_LABEL = re.compile(r"^([a-z])([1-9][0-9]?)$")


def label(square: Square) -> str:
    """The printed name of a square: file letter, then the row counted from the north."""
    if 0 <= square.x < 26 and square.y >= 0:
        return f"{chr(ord('a') + square.x)}{square.y + 1}"
    return f"({square.x},{square.y})"


def parse_label(text: object, field: str = "square") -> Square:
    """Read a square label such as ``"c1"``; raises :class:`FormatError` naming ``field``."""
    if not isinstance(text, str):
        raise FormatError(field, f"expected a square label such as 'c1', got {text!r}")
    match = _LABEL.match(text.strip().lower())
    if match is None:
        raise FormatError(
            field, f"not a square label: {text!r} (a file letter and a row, e.g. 'c1')"
        )
    return Square(ord(match.group(1)) - ord("a"), int(match.group(2)) - 1)


@dataclass(frozen=True)
class Board:
    """One board: its colours (rows from the north edge) and its set-up pattern."""

    kind: str
    colour_rows: tuple[tuple[Colour, ...], ...]

    @classmethod
    def standard(cls, kind: str, colour_rows: tuple[str, ...] | None = None) -> Board:
        """The ``"basic"`` (6x7) or ``"advanced"`` (8x8) board, optionally recoloured."""
        rows = colour_rows if colour_rows is not None else STANDARD_COLOUR_ROWS[kind]
        return cls(kind, tuple(tuple(COLOUR_LETTERS[c] for c in row) for row in rows))

    @property
    def width(self) -> int:
        return len(self.colour_rows[0])

    @property
    def height(self) -> int:
        return len(self.colour_rows)

    def on_board(self, square: Square) -> bool:
        return 0 <= square.x < self.width and 0 <= square.y < self.height

    def squares(self) -> list[Square]:
        return [Square(x, y) for y in range(self.height) for x in range(self.width)]

    def colour(self, square: Square) -> Colour:
        return self.colour_rows[square.y][square.x]

    # -- the two sides ------------------------------------------------------------------
    def back_row(self, player: str) -> int:
        return 0 if player == NORTH else self.height - 1

    def far_row(self, player: str) -> int:
        """The row a player's figures reach at the far end (the opponent's back row)."""
        return self.back_row(opponent(player))

    def in_staging_zone(self, square: Square, player: str) -> bool:
        """The Staging Zone is a player's first two rows, where their figures start."""
        if not self.on_board(square):
            return False
        return square.y <= 1 if player == NORTH else square.y >= self.height - 2

    def staging_squares(self, player: str) -> list[Square]:
        rows = (0, 1) if player == NORTH else (self.height - 1, self.height - 2)
        return [Square(x, y) for y in rows for x in range(self.width)]

    def on_side(self, square: Square, player: str) -> bool:
        """Whether ``square`` lies in ``player``'s half (a middle row of an odd board is in
        neither half)."""
        half = self.height // 2
        return square.y < half if player == NORTH else square.y >= self.height - half

    def coloured_squares(self, player: str) -> list[Square]:
        """The non-white squares of ``player``'s half."""
        return [
            s
            for s in self.squares()
            if self.on_side(s, player) and self.colour(s) is not Colour.WHITE
        ]

    # -- set-up -------------------------------------------------------------------------
    def setup_slot(self, square: Square, player: str) -> SetupSlot | None:
        """What ``square`` takes in ``player``'s set-up, or ``None`` if it is not theirs."""
        if not self.on_board(square):
            return None
        back = self.back_row(player)
        front = back + (1 if player == NORTH else -1)
        back_row, front_row = _SETUP_ROWS[self.kind]
        if square.y == back:
            return back_row[square.x]
        if square.y == front:
            return front_row[square.x]
        return None

    def setup_squares(self, player: str) -> list[Square]:
        return [s for s in self.staging_squares(player) if self.setup_slot(s, player) is not None]

    def required_levels(self) -> dict[Level, int]:
        """How many figures of each level one side sets up (Cosmic counted apart from III)."""
        counts: dict[Level, int] = {}
        for row in _SETUP_ROWS[self.kind]:
            for slot in row:
                counts[slot.level] = counts.get(slot.level, 0) + 1
        counts[Level.III] -= 1
        counts[Level.COSMIC] = 1
        return counts

    def diagram(self) -> str:
        """The colour letters, one row per line, north edge first."""
        return "\n".join("".join(c.letter for c in row) for row in self.colour_rows)

"""Coordinates shared by every game: grid squares, hexes, hex sides and field points.

All of them are small immutable value types that compare by value and hash, so they can
be used as dictionary keys and in sets. None of them knows about pixels: converting to
and from an image is the job of ``vision`` (see ``vision.layout``).

Hexes use axial coordinates ``(q, r)`` on a pointy-top grid; ``r`` grows towards the
south (down the printed map) and ``q`` towards the east. Printed maps number hexes with
offset coordinates ``CCRR`` (column, row, both from 1), where even printed rows are
shifted half a hex to the east:

>>> Hex.from_offset(1, 1)
Hex(q=0, r=0)
>>> Hex.from_offset(3, 2).offset()
(3, 2)
>>> Hex.parse("0712").label()
'0712'
>>> Hex(0, 0).distance(Hex(2, -1))
2
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from rules.errors import FormatError

__all__ = [
    "HexDirection",
    "Hex",
    "HexSide",
    "Square",
    "SquareDirection",
    "FieldPoint",
]


class HexDirection(Enum):
    """The six directions of a pointy-top hex grid, by compass name."""

    E = (1, 0)
    NE = (1, -1)
    NW = (0, -1)
    W = (-1, 0)
    SW = (-1, 1)
    SE = (0, 1)

    @property
    def dq(self) -> int:
        return self.value[0]

    @property
    def dr(self) -> int:
        return self.value[1]

    def opposite(self) -> HexDirection:
        return _HEX_OPPOSITE[self]

    def mirrored_north_south(self) -> HexDirection:
        """The direction seen in a mirror laid along an east-west line."""
        return _HEX_MIRROR_NS[self]

    @classmethod
    def parse(cls, text: str, field: str = "direction") -> HexDirection:
        try:
            return cls[text.strip().upper()]
        except (KeyError, AttributeError):
            names = ", ".join(d.name for d in cls)
            raise FormatError(field, f"unknown hex direction {text!r} (use one of {names})") from None


_HEX_OPPOSITE = {
    HexDirection.E: HexDirection.W,
    HexDirection.W: HexDirection.E,
    HexDirection.NE: HexDirection.SW,
    HexDirection.SW: HexDirection.NE,
    HexDirection.NW: HexDirection.SE,
    HexDirection.SE: HexDirection.NW,
}
_HEX_MIRROR_NS = {
    HexDirection.E: HexDirection.E,
    HexDirection.W: HexDirection.W,
    HexDirection.NE: HexDirection.SE,
    HexDirection.SE: HexDirection.NE,
    HexDirection.NW: HexDirection.SW,
    HexDirection.SW: HexDirection.NW,
}


@dataclass(frozen=True, order=True)
class Hex:
    """A hex in axial coordinates (pointy-top, ``r`` grows southwards)."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: HexDirection) -> Hex:
        return Hex(self.q + other.dq, self.r + other.dr)

    def neighbor(self, direction: HexDirection) -> Hex:
        return Hex(self.q + direction.dq, self.r + direction.dr)

    def neighbors(self) -> Iterator[Hex]:
        for d in HexDirection:
            yield self.neighbor(d)

    def distance(self, other: Hex) -> int:
        dq = self.q - other.q
        dr = self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def direction_to(self, other: Hex) -> HexDirection | None:
        """The direction of ``other`` if it lies on one of the six straight lines."""
        dq, dr = other.q - self.q, other.r - self.r
        n = self.distance(other)
        if n == 0 or dq % n or dr % n:
            return None
        step = (dq // n, dr // n)
        for d in HexDirection:
            if d.value == step:
                return d
        return None

    def line(self, direction: HexDirection, length: int) -> list[Hex]:
        """The ``length`` hexes entered when walking straight from here (self excluded)."""
        out: list[Hex] = []
        h = self
        for _ in range(length):
            h = h.neighbor(direction)
            out.append(h)
        return out

    def side_towards(self, direction: HexDirection) -> HexSide:
        return HexSide.between(self, self.neighbor(direction))

    # -- printed (offset) numbering -------------------------------------------------
    @classmethod
    def from_offset(cls, col: int, row: int) -> Hex:
        """Hex from printed column and row (1-based, even rows shifted east)."""
        c0, r0 = col - 1, row - 1
        return cls(c0 - (r0 - (r0 & 1)) // 2, r0)

    def offset(self) -> tuple[int, int]:
        """Printed (column, row), both 1-based."""
        c0 = self.q + (self.r - (self.r & 1)) // 2
        return c0 + 1, self.r + 1

    def label(self) -> str:
        """The printed ``CCRR`` label (wider numbers when the map is larger)."""
        col, row = self.offset()
        if col < 0 or row < 0:
            return f"{col:+d},{row:+d}"
        width = max(2, len(str(col)), len(str(row)))  # equal halves, so the label parses back
        return f"{col:0{width}d}{row:0{width}d}"

    @classmethod
    def parse(cls, text: str, field: str = "hex") -> Hex:
        """Read a printed label: ``"0712"``, ``"07.12"`` or ``"7,12"``."""
        if not isinstance(text, str):
            raise FormatError(field, f"expected a hex label such as '0712', got {text!r}")
        t = text.strip()
        try:
            if "," in t or "." in t:
                a, b = t.replace(".", ",").split(",")
                return cls.from_offset(int(a), int(b))
            if t.isdigit() and len(t) % 2 == 0 and len(t) >= 4:
                half = len(t) // 2
                return cls.from_offset(int(t[:half]), int(t[half:]))
        except ValueError:
            pass
        raise FormatError(field, f"not a hex label: {text!r} (expected column and row, e.g. '0712')")

    def __str__(self) -> str:
        return self.label()


@dataclass(frozen=True, order=True)
class HexSide:
    """The side shared by two adjacent hexes; ``a < b`` always.

    >>> HexSide.between(Hex(1, 0), Hex(0, 0)) == HexSide.between(Hex(0, 0), Hex(1, 0))
    True
    """

    a: Hex
    b: Hex

    def __post_init__(self) -> None:
        if self.a.distance(self.b) != 1:
            raise ValueError(f"hexes {self.a} and {self.b} are not adjacent")
        if not self.a < self.b:
            raise ValueError("HexSide needs a < b; use HexSide.between")

    @classmethod
    def between(cls, h1: Hex, h2: Hex) -> HexSide:
        return cls(h1, h2) if h1 < h2 else cls(h2, h1)

    def hexes(self) -> tuple[Hex, Hex]:
        return self.a, self.b

    def mirrored(self, transform) -> HexSide:  # type: ignore[no-untyped-def]
        return HexSide.between(transform(self.a), transform(self.b))

    def __str__(self) -> str:
        d = self.a.direction_to(self.b)
        return f"{self.a.label()}/{d.name if d else '?'}"


class SquareDirection(Enum):
    """The eight directions of a square grid; ``y`` grows southwards."""

    N = (0, -1)
    NE = (1, -1)
    E = (1, 0)
    SE = (1, 1)
    S = (0, 1)
    SW = (-1, 1)
    W = (-1, 0)
    NW = (-1, -1)

    @property
    def dx(self) -> int:
        return self.value[0]

    @property
    def dy(self) -> int:
        return self.value[1]

    @property
    def diagonal(self) -> bool:
        return self.dx != 0 and self.dy != 0

    @classmethod
    def orthogonal(cls) -> tuple[SquareDirection, ...]:
        return (cls.N, cls.E, cls.S, cls.W)

    @classmethod
    def diagonals(cls) -> tuple[SquareDirection, ...]:
        return (cls.NE, cls.SE, cls.SW, cls.NW)


@dataclass(frozen=True, order=True)
class Square:
    """A square of a grid by column ``x`` and row ``y`` (games choose 0- or 1-based)."""

    x: int
    y: int

    def __add__(self, d: SquareDirection) -> Square:
        return Square(self.x + d.dx, self.y + d.dy)

    def step(self, d: SquareDirection, n: int = 1) -> Square:
        return Square(self.x + d.dx * n, self.y + d.dy * n)

    def chebyshev(self, other: Square) -> int:
        return max(abs(self.x - other.x), abs(self.y - other.y))

    def manhattan(self, other: Square) -> int:
        return abs(self.x - other.x) + abs(self.y - other.y)

    def neighbors(self, diagonal: bool = True) -> Iterator[Square]:
        for d in SquareDirection:
            if diagonal or not d.diagonal:
                yield self + d

    def __str__(self) -> str:
        return f"{self.x},{self.y}"


@dataclass(frozen=True, order=True)
class FieldPoint:
    """A point on a continuous field, in inches (``y`` grows away from the near edge).

    >>> FieldPoint(0, 0).distance(FieldPoint(3, 4))
    5.0
    """

    x: float
    y: float

    def __add__(self, other: FieldPoint) -> FieldPoint:
        return FieldPoint(self.x + other.x, self.y + other.y)

    def __sub__(self, other: FieldPoint) -> FieldPoint:
        return FieldPoint(self.x - other.x, self.y - other.y)

    def scaled(self, k: float) -> FieldPoint:
        return FieldPoint(self.x * k, self.y * k)

    def distance(self, other: FieldPoint) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def norm(self) -> float:
        return math.hypot(self.x, self.y)

    def bearing_to(self, other: FieldPoint) -> float:
        """Compass-free angle in degrees, counter-clockwise from +x, in [0, 360)."""
        angle = math.degrees(math.atan2(other.y - self.y, other.x - self.x)) % 360.0
        return 0.0 if angle >= 360.0 else angle  # a tiny negative angle rounds up to 360.0

    def __str__(self) -> str:
        return f'({self.x:.2f}", {self.y:.2f}")'

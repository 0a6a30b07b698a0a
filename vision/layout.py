"""Grid layouts: where a cell of the board lies in board coordinates (and back).

A layout knows a grid's orientation, cell size and origin; it does not know the rules. The
board plane is later tied to the image by a homography (see :mod:`calibration`).

>>> from rules.geometry import Hex
>>> layout = HexLayout(size=1.0)
>>> layout.hex_at(layout.center(Hex(3, -2))) == Hex(3, -2)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.geometry import Hex, Square

__all__ = ["HexLayout", "SquareLayout"]


@dataclass(frozen=True)
class HexLayout:
    """Pointy-top hexes of circumradius ``size``; hex (0, 0) centred at ``origin``."""

    size: float
    origin: tuple[float, float] = (0.0, 0.0)

    def center(self, h: Hex) -> tuple[float, float]:
        x = self.size * math.sqrt(3) * (h.q + h.r / 2)
        y = self.size * 1.5 * h.r
        return x + self.origin[0], y + self.origin[1]

    def hex_at(self, point: tuple[float, float]) -> Hex:
        px = (point[0] - self.origin[0]) / self.size
        py = (point[1] - self.origin[1]) / self.size
        q = math.sqrt(3) / 3 * px - py / 3
        r = 2 / 3 * py
        return _round(q, r)

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        cx, cy = self.center(h)
        return [
            (cx + self.size * math.cos(math.radians(60 * i - 30)), cy + self.size * math.sin(math.radians(60 * i - 30)))
            for i in range(6)
        ]


def _round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(int(rq), int(rr))


@dataclass(frozen=True)
class SquareLayout:
    """Square cells of side ``size``; square (0, 0) has its top-left corner at ``origin``."""

    size: float
    origin: tuple[float, float] = (0.0, 0.0)

    def center(self, sq: Square) -> tuple[float, float]:
        return self.origin[0] + (sq.x + 0.5) * self.size, self.origin[1] + (sq.y + 0.5) * self.size

    def square_at(self, point: tuple[float, float]) -> Square:
        return Square(
            math.floor((point[0] - self.origin[0]) / self.size),
            math.floor((point[1] - self.origin[1]) / self.size),
        )

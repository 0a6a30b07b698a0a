"""Battle Grounds' kit: both coloured boards, and base stickers that show level and side.

Boards follow ``rules.battle_grounds.board`` (north edge at the top, file ``a`` on the left)
with 40 mm squares (``calibration.markers`` kits ``battle-grounds-basic``, markers 12-15,
and ``battle-grounds-advanced``, markers 16-19). Square ``(x, y)`` covers board square
``[x, x+1] x [y, y+1]``. The all-colour squares of the advanced board are six wedges, one
per colour.

A figure stands on a 34 mm base sticker: north's stickers are white with black marks,
south's black with white marks. The level is marked four times round the rim, so it shows
whichever way the figure turns and wherever its feet hide part of it: a dot for S/A, one,
two or three bars for I, II, III, a star for Cosmic (whose sticker also has a gold ring);
the centre repeats the level in letters.

>>> kit = BattleGroundsKit.create()
>>> kit.board_size("advanced")
(8.0, 8.0)
>>> [n for n in kit.pieces if n.startswith("north")]
['north-sa', 'north-i', 'north-ii', 'north-iii', 'north-cosmic']
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from calibration.markers import KITS as MARKER_KITS
from calibration.markers import MarkerSpec
from rules.battle_grounds.board import Board, label
from rules.battle_grounds.board import Colour as SquareColour
from rules.geometry import Square
from vision.artwork.draw import Canvas, Colour, hex_colour, shade
from vision.artwork.glyphs import at, curve, star_points
from vision.artwork.kit import (
    PRINT_PX_PER_MM,
    ArtworkError,
    Kit,
    PieceKind,
    PieceSheet,
    PosterSheet,
    PrintItem,
    outline,
)

__all__ = ["BASE_MM", "LEVELS", "SIDES", "SQUARE_COLOURS", "BattleGroundsKit"]

SIDES = ("north", "south")
#: Class-name level -> the level as printed.
LEVELS = {"sa": "S/A", "i": "I", "ii": "II", "iii": "III", "cosmic": "COSMIC"}
BASE_MM, FIGURE_MM = 34.0, 45.0

SQUARE_COLOURS: dict[SquareColour, Colour] = {
    SquareColour.RED: hex_colour("#d62828"),
    SquareColour.ORANGE: hex_colour("#f77f00"),
    SquareColour.YELLOW: hex_colour("#f7d31e"),
    SquareColour.GREEN: hex_colour("#2a9d45"),
    SquareColour.BLUE: hex_colour("#1d63c9"),
    SquareColour.PURPLE: hex_colour("#7b2cbf"),
    SquareColour.WHITE: hex_colour("#f4f4f4"),
}
_WEDGES = (
    SquareColour.RED,
    SquareColour.ORANGE,
    SquareColour.YELLOW,
    SquareColour.GREEN,
    SquareColour.BLUE,
    SquareColour.PURPLE,
)
_SIDE: dict[str, tuple[Colour, Colour]] = {  # side -> (sticker, marks)
    "north": (hex_colour("#f7f7f7"), hex_colour("#111111")),
    "south": (hex_colour("#151515"), hex_colour("#f7f7f7")),
}
_GRID, _INK = hex_colour("#1a1a1a"), hex_colour("#222222")
_FIGURE = hex_colour("#7d8694")
_GOLD = hex_colour("#e2ad1f")


@dataclass(frozen=True, eq=False)
class BattleGroundsKit(Kit):
    """The Battle Grounds kit. ``layout`` for the board: ``None`` or ``"basic"``,
    ``"advanced"``, or a :class:`rules.battle_grounds.board.Board` (its own colours, printed
    with the markers of its kind)."""

    @classmethod
    def create(cls) -> BattleGroundsKit:
        spec = MARKER_KITS["battle-grounds-basic"]
        pieces = {
            f"{side}-{level}": PieceKind(
                f"{side}-{level}", (BASE_MM, BASE_MM), FIGURE_MM, True, "disc", "base"
            )
            for side in SIDES
            for level in LEVELS
        }
        return cls("battle-grounds", spec.units, spec.unit_mm, pieces, "Battle Grounds")

    def _layout_key(self, layout: Any) -> Hashable:
        if layout is None:
            layout = "basic"
        if isinstance(layout, str):
            if layout not in ("basic", "advanced"):
                raise ArtworkError(
                    f"a Battle Grounds board is 'basic' or 'advanced', not {layout!r}"
                )
            return Board.standard(layout)
        if isinstance(layout, Board):
            if layout.kind not in ("basic", "advanced"):
                raise ArtworkError(f"no printed kit for a {layout.kind!r} Battle Grounds board")
            standard = Board.standard(layout.kind)
            if (layout.width, layout.height) != (standard.width, standard.height):
                raise ArtworkError(
                    f"a {layout.kind} board is {standard.width} x {standard.height} squares"
                )
            return layout
        raise ArtworkError(
            "a Battle Grounds layout is 'basic', 'advanced' or a Board, not "
            f"{type(layout).__name__}"
        )

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        board = self._layout_key(layout)
        return MARKER_KITS[f"battle-grounds-{board.kind}"]  # type: ignore[attr-defined]

    # -- boards -----------------------------------------------------------------------------------
    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        board: Board = layout  # type: ignore[assignment]
        for sq in board.squares():
            colour = board.colour(sq)
            if colour is SquareColour.MULTI:
                _multi(cv, sq.x, sq.y)
            else:
                cv.rect(sq.x, sq.y, sq.x + 1, sq.y + 1, SQUARE_COLOURS[colour])
        for x in range(board.width + 1):
            cv.line((x, 0), (x, board.height), _GRID, 1.0)
        for y in range(board.height + 1):
            cv.line((0, y), (board.width, y), _GRID, 1.0)
        cv.rect(0, 0, board.width, board.height, _GRID, width_mm=2.0)
        for x in range(board.width):
            for y in (-0.22, board.height + 0.22):
                cv.text(label(Square(x, 0))[0], (x + 0.5, y), 5.0, _INK, 0.13)
        for y in range(board.height):
            for x in (-0.2, board.width + 0.2):
                cv.text(str(y + 1), (x, y + 0.5), 5.0, _INK, 0.13)
        band = (spec.gap_mm + spec.marker_mm / 2) / spec.unit_mm
        mid = board.width / 2
        cv.text(f"NORTH - Battle Grounds {board.kind} board", (mid, -band), 6.0, _INK, 0.13)
        cv.text(
            f"SOUTH - {board.width} x {board.height} squares of {self.mm_per_unit:g} mm",
            (mid, board.height + band),
            6.0,
            _INK,
            0.13,
        )

    # -- bases and figures -----------------------------------------------------------------------
    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        side, level = kind.name.split("-", 1)
        sticker, marks = _SIDE[side]
        if face == "front":
            _figure(cv, w, h, sticker, marks, level)
            return
        outline(cv, "disc", w, h, sticker)
        cv.circle((0.0, 0.0), 0.485 * w, marks, width_mm=0.025 * w)
        if level == "cosmic":  # the figure that decides the game: a gold ring
            cv.circle((0.0, 0.0), 0.29 * w, _GOLD, width_mm=0.07 * w)
        for k in range(4):
            _level_mark(cv, level, 0.39 * w, 90.0 * k, 0.1 * w, marks)
        text = LEVELS[level]
        cv.text(text, (0.0, 0.0), (0.075 if level == "cosmic" else 0.16) * w, marks, 0.16)

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        return shade(_SIDE[kind.name.split("-", 1)[0]][0], 0.85)

    # -- printing ----------------------------------------------------------------------------------
    def sheets(self) -> list[Any]:
        p = PRINT_PX_PER_MM
        basic, hb = self.board_image(p, "basic")
        advanced, ha = self.board_image(p, "advanced")
        counts = {"sa": 4, "i": 8, "ii": 6, "iii": 4, "cosmic": 1}
        sheets: list[Any] = [
            PosterSheet(
                "Battle Grounds basic board",
                basic,
                hb,
                "6 x 7 squares of 40 mm, north at the top. Markers 12-15: keep them uncovered.",
                self.marker_spec("basic"),
            ),
            PosterSheet(
                "Battle Grounds advanced board",
                advanced,
                ha,
                "8 x 8 squares of 40 mm, north at the top. Markers 16-19: keep them uncovered.",
                self.marker_spec("advanced"),
            ),
        ]
        for side in SIDES:
            items = tuple(
                PrintItem(self.piece_face(f"{side}-{level}", p))
                for level, n in counts.items()
                for _ in range(n)
            )
            sheets.append(
                PieceSheet(
                    f"Battle Grounds bases, {side}",
                    items,
                    f"{side.capitalize()}'s figure bases: stick one under each figure, "
                    "matching its level (dot S/A, bars I-III, star Cosmic).",
                )
            )
        return sheets


def _multi(cv: Canvas, x: int, y: int) -> None:
    """An all-colour square: six wedges from its centre, one per stat colour."""
    cx, cy = x + 0.5, y + 0.5
    for i, colour in enumerate(_WEDGES):
        a0, a1 = -90 + 60 * i, -30 + 60 * i
        corners = [a for a in (-135, -45, 45, 135, 225) if a0 < a < a1]
        pts = [(cx, cy)]
        for a in sorted({a0, a1, *corners}):
            t = math.radians(a)
            reach = 0.5 / max(abs(math.cos(t)), abs(math.sin(t)))
            pts.append((cx + reach * math.cos(t), cy + reach * math.sin(t)))
        cv.poly(pts, SQUARE_COLOURS[colour])


def _level_mark(
    cv: Canvas, level: str, radius: float, angle: float, size: float, colour: Colour
) -> None:
    a = math.radians(angle - 90)
    c = (radius * math.cos(a), radius * math.sin(a))
    if level == "sa":
        cv.circle(c, 0.45 * size, colour)
    elif level == "cosmic":
        cv.poly(at(star_points(5, 0.42, 1.0), c, 0.75 * size, angle), colour)
    else:
        n = len(level)
        for k in range(n):
            off = (k - (n - 1) / 2) * 0.55 * size
            bar = [
                (off - 0.16 * size, -0.55 * size),
                (off + 0.16 * size, -0.55 * size),
                (off + 0.16 * size, 0.55 * size),
                (off - 0.16 * size, 0.55 * size),
            ]
            cv.poly(at(bar, c, 1.0, angle), colour)


def _figure(cv: Canvas, w: float, h: float, sticker: Colour, marks: Colour, level: str) -> None:
    """A generic figure standing on its base: what a camera sees from the side."""
    y1 = h / 2
    band = 0.11 * h
    body = [
        (-0.12 * w, y1 - band),
        (-0.16 * w, 0.05 * h),
        (-0.3 * w, -0.12 * h),
        (-0.26 * w, -0.26 * h),
        (-0.08 * w, -0.3 * h),
        (0.08 * w, -0.3 * h),
        (0.26 * w, -0.26 * h),
        (0.3 * w, -0.12 * h),
        (0.16 * w, 0.05 * h),
        (0.12 * w, y1 - band),
    ]
    cv.poly(curve(body, 4), _FIGURE, mask=True)
    cv.circle((0.0, -0.38 * h), 0.13 * w, _FIGURE, mask=True)
    cv.line((0.0, y1 - band), (0.0, 0.08 * h), shade(_FIGURE, 0.7), 0.4)
    cv.rect(-w / 2, y1 - band, w / 2, y1, sticker, mask=True)
    cv.rect(-w / 2, y1 - band, w / 2, y1, marks, width_mm=0.3)
    for k in (-1, 1):
        cx = k * 0.3 * w
        n = {"sa": 0, "i": 1, "ii": 2, "iii": 3, "cosmic": 0}[level]
        if level == "sa":
            cv.circle((cx, y1 - band / 2), 0.25 * band, marks)
        elif level == "cosmic":
            cv.poly(at(star_points(5, 0.42, 1.0), (cx, y1 - band / 2), 0.4 * band), marks)
        for j in range(n):
            off = cx + (j - (n - 1) / 2) * 0.3 * band
            cv.rect(off - 0.08 * band, y1 - 0.85 * band, off + 0.08 * band, y1 - 0.15 * band, marks)

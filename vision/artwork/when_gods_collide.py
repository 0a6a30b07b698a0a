"""When Gods Collide's kit: the tile mat, the 2x2 tiles, checkers, god faces, Seth tokens, dice.

The board is a printed mat of 16 x 16 squares of 30 mm (``calibration.markers`` kit
``when-gods-collide-mat``, markers 4-7) with a faint grid showing where the 2x2 tiles go
(their top-left squares on even coordinates). The tiles are cut out separately and laid on
the mat, so the camera calibrates on the mat whatever shape the tiles make. A tile's
squares are light maple and dark walnut, the light square where ``x + y`` is even; a tile's
back shows the same colour behind each square (seen after a flip, the pattern starts dark).

Checkers are 25 mm discs, one colour per army: Babylonian lapis blue with a ziggurat,
Egyptian ochre with a sphinx, Greek red with a temple, Norse green with a Viking ship. A
god checker looks like the others on top; its underside shows the god (Marduk's spade,
Amun-Ra's sun and plumes, Zeus's thunderbolt, Odin's valknut) inside a white ring. Seth
tokens are small white discs ringed in the converting army's colour. The chess die is ivory
with black pieces, the hero die black with gold symbols, the d6 white with black pips.

>>> kit = WhenGodsCollideKit.create()
>>> kit.board_size()
(16.0, 16.0)
>>> len(kit.default_tiles())
24
>>> WhenGodsCollideKit.mat_offset([(0, 0), (2, 0), (-2, 2)])
(6, 6)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.markers import KITS as MARKER_KITS
from calibration.markers import MarkerSpec
from rules.geometry import Square
from vision.artwork.dice import die_net, die_side, draw_pips
from vision.artwork.draw import Canvas, Colour, hex_colour, shade
from vision.artwork.glyphs import draw_glyph
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

__all__ = ["ARMIES", "CHESS_FACES", "GODS", "HERO_FACES", "TILE_SLOTS", "WhenGodsCollideKit"]

ARMIES = ("babylonian", "egyptian", "greek", "norse")
EMBLEMS = {"babylonian": "ziggurat", "egyptian": "sphinx", "greek": "temple", "norse": "ship"}
GODS = {"babylonian": "marduk", "egyptian": "amun-ra", "greek": "zeus", "norse": "odin"}
#: Die faces in the order of their numbers (1..6) on the die; opposite faces add up to 7.
CHESS_FACES = ("king", "pawn", "knight", "queen", "bishop", "rook")
HERO_FACES = ("imp", "double-knight", "winged-sandals", "god-of-wind", "princess", "seth")

CHECKER_MM, CHECKER_HEIGHT_MM = 25.0, 6.0
TOKEN_MM = 15.0
DIE_MM = 16.0
SPEC_NAME = "when-gods-collide-mat"

_ARMY: dict[str, tuple[Colour, Colour]] = {  # army -> (checker colour, emblem colour)
    "babylonian": (hex_colour("#2a52be"), hex_colour("#f6edd6")),
    "egyptian": (hex_colour("#e0a526"), hex_colour("#3b2314")),
    "greek": (hex_colour("#c0392b"), hex_colour("#f6edd6")),
    "norse": (hex_colour("#2e7d32"), hex_colour("#f6edd6")),
}
_LIGHT_SQ, _DARK_SQ, _TILE_EDGE = (
    hex_colour("#ecd3a4"),
    hex_colour("#8a5a35"),
    hex_colour("#3d2a1a"),
)
_MAT, _MAT_GRID, _MAT_SLOT = hex_colour("#eeebe4"), hex_colour("#d6d1c6"), hex_colour("#aaa395")
_INK = hex_colour("#333333")
_IVORY, _BLACK, _GOLD, _WHITE = (
    hex_colour("#f4efe2"),
    hex_colour("#1c1c1c"),
    hex_colour("#e8b923"),
    (255, 255, 255),
)

#: The default board: 24 tiles (6 per army) by slot (tile column, tile row) on the 8 x 8
#: slots of the mat, edge-connected, with gaps.
TILE_SLOTS: tuple[tuple[int, int], ...] = tuple(
    (sx, sy)
    for sy, row in enumerate(
        (
            "........",
            ".XX..XX.",
            ".XXXXXX.",
            "..X.X.X.",
            ".XXXXX..",
            ".X..XXX.",
            "...XX...",
            "........",
        )
    )
    for sx, ch in enumerate(row)
    if ch == "X"
)


def _dice_kinds() -> dict[str, PieceKind]:
    out = {}
    for prefix, faces in (
        ("chess", CHESS_FACES),
        ("hero", HERO_FACES),
        ("d6", ("1", "2", "3", "4", "5", "6")),
    ):
        for f in faces:
            out[f"{prefix}-{f}"] = PieceKind(
                f"{prefix}-{f}", (DIE_MM, DIE_MM), DIE_MM, False, "die", "die"
            )
    return out


@dataclass(frozen=True, eq=False)
class WhenGodsCollideKit(Kit):
    """The When Gods Collide kit. ``layout`` for the board: ``None`` (the default 24 tiles)
    or the tiles' top-left squares in mat coordinates, each an ``(x, y)`` pair, a
    :class:`~rules.geometry.Square` or an engine tile JSON ``{"at": "x,y", ...}``; shift
    engine coordinates onto the mat with :meth:`mat_offset`."""

    @classmethod
    def create(cls) -> WhenGodsCollideKit:
        spec = MARKER_KITS[SPEC_NAME]
        pieces: dict[str, PieceKind] = {}
        for army in ARMIES:
            pieces[army] = PieceKind(
                army, (CHECKER_MM, CHECKER_MM), CHECKER_HEIGHT_MM, False, "disc", "checker"
            )
        for army in ARMIES:
            god = GODS[army]
            pieces[god] = PieceKind(
                god, (CHECKER_MM, CHECKER_MM), CHECKER_HEIGHT_MM, False, "disc", "god"
            )
        for army in ARMIES:
            name = f"seth-{army}"
            pieces[name] = PieceKind(name, (TOKEN_MM, TOKEN_MM), 2.0, False, "disc", "token")
        pieces.update(_dice_kinds())
        return cls("when-gods-collide", spec.units, spec.unit_mm, pieces, "When Gods Collide")

    # -- layout ------------------------------------------------------------------------------
    def default_tiles(self) -> tuple[tuple[int, int], ...]:
        """The default board's tiles, by top-left square on the mat."""
        return tuple((2 * sx, 2 * sy) for sx, sy in TILE_SLOTS)

    @staticmethod
    def mat_offset(tiles: Iterable[Any]) -> tuple[int, int]:
        """The even shift that centres tiles given in engine coordinates on the 16 x 16 mat."""
        squares = [_tile_square(t, f"tiles[{i}]") for i, t in enumerate(tiles)]
        if not squares:
            raise ArtworkError("a When Gods Collide board needs at least one tile")
        xs, ys = [s[0] for s in squares], [s[1] for s in squares]
        w, h = max(xs) + 2 - min(xs), max(ys) + 2 - min(ys)
        if w > 16 or h > 16:
            raise ArtworkError(f"the tiles span {w} x {h} squares: the mat holds 16 x 16")
        dx = (16 - w) // 2 - min(xs)
        dy = (16 - h) // 2 - min(ys)
        return dx - dx % 2, dy - dy % 2

    def _layout_key(self, layout: Any) -> Hashable:
        if layout is None:
            return self.default_tiles()
        if isinstance(layout, (str, bytes)) or not isinstance(layout, Iterable):
            raise ArtworkError(
                "a When Gods Collide layout is a list of tiles (top-left squares on the mat)"
            )
        tiles = tuple(_tile_square(t, f"layout[{i}]") for i, t in enumerate(layout))
        for i, (x, y) in enumerate(tiles):
            if not (0 <= x <= 14 and 0 <= y <= 14):
                raise ArtworkError(
                    f"layout[{i}]: tile {x},{y} is off the 16 x 16 mat (shift it with mat_offset)"
                )
        if len(set(tiles)) != len(tiles):
            raise ArtworkError("layout: a tile is given twice")
        return tiles

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        return MARKER_KITS[SPEC_NAME]

    # -- the mat and tiles ---------------------------------------------------------------------
    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        x0, y0, x1, y1 = spec.area
        cv.rect(x0, y0, x1, y1, _MAT)
        for i in range(int(x1) + 1):
            slot = i % 2 == 0
            cv.line((i, y0), (i, y1), _MAT_SLOT if slot else _MAT_GRID, 0.6 if slot else 0.3)
            cv.line((x0, i), (x1, i), _MAT_SLOT if slot else _MAT_GRID, 0.6 if slot else 0.3)
        band = (spec.gap_mm + spec.marker_mm / 2) / spec.unit_mm
        cv.text(
            "When Gods Collide - tile mat: lay the 2x2 tiles on the thick grid lines",
            ((x0 + x1) / 2, y0 - band),
            6.0,
            _INK,
            0.12,
        )
        cv.text(
            f"16 x 16 squares of {self.mm_per_unit:g} mm - markers 4-7",
            ((x0 + x1) / 2, y1 + band),
            5.0,
            _INK,
            0.12,
        )
        for tx, ty in layout:  # type: ignore[attr-defined]
            _tile(cv, tx, ty)

    # -- pieces ----------------------------------------------------------------------------------
    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        if kind.group == "die":
            prefix, value = kind.name.split("-", 1)
            if face != "top":
                value = die_side(_faces_of(prefix), value, face)
            _die_face(cv, prefix, value, w)
            return
        if kind.group == "checker":
            colour, ink = _ARMY[kind.name]
            _checker(cv, w, colour)
            draw_glyph(cv, EMBLEMS[kind.name], (0.0, 0.0), 0.3 * w, ink, colour)
        elif kind.group == "god":
            army = next(a for a, g in GODS.items() if g == kind.name)
            colour, ink = _ARMY[army]
            _checker(cv, w, colour)
            cv.circle((0.0, 0.0), 0.4 * w, _WHITE, width_mm=0.055 * w)
            draw_glyph(cv, kind.name, (0.0, 0.0), 0.3 * w, ink, colour)
        else:  # a Seth token
            colour, _ = _ARMY[kind.name.split("-", 1)[1]]
            outline(cv, "disc", w, h, colour)
            outline(cv, "disc", w, h, _WHITE, inset=0.12 * w)
            draw_glyph(cv, "seth", (0.0, 0.0), 0.3 * w, _BLACK, _WHITE)

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        if kind.group == "checker":
            return shade(_ARMY[kind.name][0], 0.72)
        if kind.group == "god":
            army = next(a for a, g in GODS.items() if g == kind.name)
            return shade(_ARMY[army][0], 0.72)
        if kind.group == "token":
            return _ARMY[kind.name.split("-", 1)[1]][0]
        prefix = kind.name.split("-", 1)[0]
        return {"chess": shade(_IVORY, 0.9), "hero": _BLACK, "d6": (235, 235, 235)}[prefix]

    # -- printing --------------------------------------------------------------------------------
    def sheets(self) -> list[Any]:
        p = PRINT_PX_PER_MM
        image, h = self.board_image(p, [])
        front = _tile_image(p, 0)
        back = _tile_image(p, 1)
        checkers = []
        for army in ARMIES:
            top = self.piece_face(army, p)
            checkers += [PrintItem(top, new_row=k == 0) for k in range(23)]
            checkers.append(PrintItem(self.piece_face(GODS[army], p), GODS[army].capitalize()))
        tokens = [
            PrintItem(self.piece_face(f"seth-{army}", p), new_row=k == 0)
            for army in ARMIES
            for k in range(6)
        ]
        nets = [
            PrintItem(
                die_net([self.piece_face(f"{prefix}-{f}", p) for f in _faces_of(prefix)], p),
                title,
                new_row=prefix == "chess",
            )
            for prefix, title in (("chess", "chess die"), ("hero", "hero die"), ("d6", "d6"))
        ]
        return [
            PosterSheet(
                "When Gods Collide tile mat",
                image,
                h,
                "Lay the 2x2 tiles on the thick grid lines. Markers 4-7 at the corners: keep them "
                "uncovered.",
                self.marker_spec(),
            ),
            PieceSheet(
                "When Gods Collide tiles, front",
                tuple(PrintItem(front) for _ in range(24)),
                "24 tiles of 2x2 squares (60 mm). Glue on card; glue the 'back' sheet behind for "
                "two-sided tiles.",
            ),
            PieceSheet(
                "When Gods Collide tiles, back",
                tuple(PrintItem(back) for _ in range(24)),
                "The backs: each square shows the same colour as on its front.",
            ),
            PieceSheet(
                "When Gods Collide checkers",
                tuple(checkers),
                "Per army: 12 tops, 11 plain undersides and the god's face for the underside of "
                "the god checker. "
                "Stick on 25 mm checkers.",
            ),
            PieceSheet(
                "When Gods Collide Seth tokens and dice",
                tuple(tokens + nets),
                "Seth tokens (6 per army). Dice: cut out, fold along the dashed lines, glue the "
                "grey tabs inside.",
            ),
        ]


def _faces_of(prefix: str) -> tuple[str, ...]:
    return {"chess": CHESS_FACES, "hero": HERO_FACES, "d6": ("1", "2", "3", "4", "5", "6")}[prefix]


def _tile_square(t: Any, where: str) -> tuple[int, int]:
    if isinstance(t, Square):
        x, y = t.x, t.y
    elif isinstance(t, dict) and "at" in t:
        try:
            x, y = (int(v) for v in str(t["at"]).split(","))
        except ValueError:
            raise ArtworkError(f"{where}: not a square 'x,y': {t['at']!r}") from None
    elif hasattr(t, "at") and isinstance(t.at, Square):
        x, y = t.at.x, t.at.y
    else:
        try:
            x, y = (int(v) for v in t)
        except (TypeError, ValueError):
            raise ArtworkError(
                f"{where}: a tile is an (x, y) pair, a Square or {{'at': 'x,y'}}, not {t!r}"
            ) from None
    if x % 2 or y % 2:
        raise ArtworkError(f"{where}: a tile's top-left square needs even coordinates, got {x},{y}")
    return int(x), int(y)


def _tile(cv: Canvas, tx: float, ty: float, flip: int = 0) -> None:
    for dx in (0, 1):
        for dy in (0, 1):
            light = (dx + dy + flip) % 2 == 0
            cv.rect(tx + dx, ty + dy, tx + dx + 1, ty + dy + 1, _LIGHT_SQ if light else _DARK_SQ)
    cv.rect(tx, ty, tx + 2, ty + 2, _TILE_EDGE, width_mm=0.7)


def _tile_image(px_per_mm: float, flip: int) -> np.ndarray:
    unit = MARKER_KITS[SPEC_NAME].unit_mm
    size = round(2 * unit * px_per_mm)
    m = np.array([[size / 2, 0, -0.5], [0, size / 2, -0.5], [0, 0, 1.0]])
    cv = Canvas((size, size), m, px_per_mm, alpha=True)
    cv.rect(0, 0, 2, 2, _TILE_EDGE, mask=True)
    _tile(cv, 0, 0, flip)
    return cv.result()


def _checker(cv: Canvas, w: float, colour: Colour) -> None:
    outline(cv, "disc", w, w, colour)
    cv.circle((0.0, 0.0), 0.46 * w, shade(colour, 0.8), width_mm=0.025 * w)  # the moulded rim
    cv.circle((0.0, 0.0), 0.4 * w, shade(colour, 1.12), width_mm=0.012 * w)


def _die_face(cv: Canvas, prefix: str, value: str, w: float) -> None:
    if prefix == "d6":
        outline(cv, "die", w, w, _WHITE)
        draw_pips(cv, int(value), w, _BLACK)
    elif prefix == "chess":
        outline(cv, "die", w, w, _IVORY)
        draw_glyph(cv, value, (0.0, 0.0), 0.4 * w, _BLACK, _IVORY)
    else:
        outline(cv, "die", w, w, _BLACK)
        draw_glyph(cv, value, (0.0, 0.0), 0.38 * w, _GOLD, _BLACK)

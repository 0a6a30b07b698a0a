"""Wormholes' kit: the galaxy mat, piecepack tiles (grid side), coins, pawns and dice.

The galaxy is a printed mat of 10 x 18 one-inch cells (``calibration.markers`` kit
``wormholes-galaxy``, markers 8-11) showing where the 23 tiles of the spiral go; the
piecepack tiles (2 inches, their grid side up: four cells) lie on it. Engine cell ``x,y``
(1-based) covers board squares ``[x-1, x] x [y-1, y]``, so its centre is ``(x - 0.5,
y - 0.5)``. Suits keep the piecepack colours: Suns red, Moons black, Crowns green, Arms blue.
Coins (3/4 inch) show the suit's symbol on one side and the value (n for null, A for the
ace, 2-5) on the other; pawns are fold-over standees in the suit colour; dice (1/2 inch)
carry the values in the suit colour.

>>> kit = WormholesKit.create()
>>> kit.board_size(), kit.mm_per_unit
((10.0, 18.0), 25.4)
>>> kit.cell_centre(10, 1)
(9.5, 0.5)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.markers import KITS as MARKER_KITS
from calibration.markers import MarkerSpec
from rules.wormholes.board import BASES, TILES
from vision.artwork.dice import die_net, die_side
from vision.artwork.draw import Canvas, Colour, hex_colour, shade
from vision.artwork.glyphs import curve, draw_glyph
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

__all__ = ["SUITS", "SUIT_COLOURS", "VALUES", "WormholesKit"]

SUITS = ("suns", "moons", "crowns", "arms")
#: Values in die order (face places 1..6): null, ace, 2, 3, 4, 5.
VALUES = ("null", "ace", "2", "3", "4", "5")
SUIT_COLOURS: dict[str, Colour] = {
    "suns": hex_colour("#d7261e"),
    "moons": hex_colour("#1b1b1b"),
    "crowns": hex_colour("#1e8c3a"),
    "arms": hex_colour("#1f4fb4"),
}
TILE_MM, COIN_MM, DIE_MM = 50.8, 19.05, 12.7
PAWN_MM = (15.9, 28.6)  # width, height of the standee
SPEC_NAME = "wormholes-galaxy"

_WOOD = hex_colour("#eedcb3")
_TILE, _TILE_LINE = hex_colour("#f3ead2"), hex_colour("#3a3530")
_MAT, _SLOT, _INK = hex_colour("#e9ebf0"), hex_colour("#b3b8c4"), hex_colour("#3a3f4a")
_WHITE, _BLACK = (255, 255, 255), hex_colour("#222222")
_VALUE_TEXT = {"null": "n", "ace": "A", "2": "2", "3": "3", "4": "4", "5": "5"}


@dataclass(frozen=True, eq=False)
class WormholesKit(Kit):
    """The Wormholes kit. ``layout`` for the board: ``None`` or ``"galaxy"`` (the 23 tiles
    laid on the mat, as in play) or ``"mat"`` (the bare printed mat)."""

    @classmethod
    def create(cls) -> WormholesKit:
        spec = MARKER_KITS[SPEC_NAME]
        pieces: dict[str, PieceKind] = {}
        for suit in SUITS:
            pieces[f"pawn-{suit}"] = PieceKind(
                f"pawn-{suit}", (PAWN_MM[0], 8.0), PAWN_MM[1], True, "rect", "pawn"
            )
        for suit in SUITS:
            pieces[f"coin-{suit}"] = PieceKind(
                f"coin-{suit}", (COIN_MM, COIN_MM), 2.5, False, "disc", "coin"
            )
        for value in VALUES:
            pieces[f"coin-{value}"] = PieceKind(
                f"coin-{value}", (COIN_MM, COIN_MM), 2.5, False, "disc", "coin"
            )
        for suit in SUITS:
            for value in VALUES:
                name = f"die-{suit}-{value}"
                pieces[name] = PieceKind(name, (DIE_MM, DIE_MM), DIE_MM, False, "die", "die")
        return cls("wormholes", spec.units, spec.unit_mm, pieces, "Wormholes")

    @staticmethod
    def cell_centre(x: int, y: int) -> tuple[float, float]:
        """Board coordinates of the centre of engine cell ``x,y`` (1-based)."""
        return x - 0.5, y - 0.5

    def _layout_key(self, layout: Any) -> Hashable:
        if layout is None or layout == "galaxy":
            return "galaxy"
        if layout == "mat":
            return "mat"
        raise ArtworkError(
            f"a Wormholes layout is 'galaxy' (tiles laid) or 'mat' (bare mat), not {layout!r}"
        )

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        return MARKER_KITS[SPEC_NAME]

    # -- the galaxy -------------------------------------------------------------------------------
    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        x0, y0, x1, y1 = spec.area
        cv.rect(x0, y0, x1, y1, _MAT)
        for t in TILES:
            tx, ty = t.x - 1, t.y - 1
            if layout == "galaxy":
                _tile(cv, tx, ty)
                continue
            cv.rect(tx + 0.04, ty + 0.04, tx + 1.96, ty + 1.96, _SLOT, width_mm=0.6)
            for dx in (0, 1):
                for dy in (0, 1):
                    cv.text(
                        f"{t.x + dx},{t.y + dy}", (tx + dx + 0.5, ty + dy + 0.5), 2.6, _SLOT, 0.12
                    )
        band = (spec.gap_mm + spec.marker_mm / 2) / spec.unit_mm
        cv.text(
            "Wormholes - galaxy mat: lay a tile, grid side up, on each outlined square",
            ((x0 + x1) / 2, y0 - band),
            5.0,
            _INK,
            0.12,
        )
        cv.text(
            "10 x 18 cells of 1 inch - markers 8-11 - cells are numbered x,y",
            ((x0 + x1) / 2, y1 + band),
            4.5,
            _INK,
            0.12,
        )
        for cells in BASES.values():
            for cell in cells:
                cx, cy = self.cell_centre(cell.x, cell.y)
                side = 1 if cell.x == 10 else -1
                cv.text("base", (cx + side * 1.0, cy), 3.2, _INK, 0.12)
                cv.line((cx + side * 0.55, cy), (cx + side * 0.62, cy), _INK, 0.6)

    # -- pieces -----------------------------------------------------------------------------------
    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        parts = kind.name.split("-")
        if kind.group == "pawn":
            colour = SUIT_COLOURS[parts[1]]
            if face == "front":
                _pawn(cv, w, h, parts[1])
            else:
                outline(cv, "rect", w, h, colour)
        elif kind.group == "coin":
            outline(cv, "disc", w, h, _WOOD)
            cv.circle((0.0, 0.0), 0.44 * w, shade(_WOOD, 0.85), width_mm=0.03 * w)
            if parts[1] in SUITS:
                draw_glyph(cv, parts[1], (0.0, 0.0), 0.34 * w, SUIT_COLOURS[parts[1]], _WOOD)
            else:
                _value(cv, parts[1], 0.5 * w, _BLACK)
        else:
            suit, value = parts[1], parts[2]
            if face != "top":
                value = die_side(VALUES, value, face)
            outline(cv, "die", w, h, _WHITE)
            _value(cv, value, 0.6 * w, SUIT_COLOURS[suit])

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        parts = kind.name.split("-")
        if kind.group == "pawn":
            return shade(SUIT_COLOURS[parts[1]], 0.8)
        if kind.group == "coin":
            return shade(_WOOD, 0.8)
        return (235, 235, 235)

    # -- printing ---------------------------------------------------------------------------------
    def sheets(self) -> list[Any]:
        p = PRINT_PX_PER_MM
        image, h = self.board_image(p, "mat")
        tile = _tile_image(p)
        coins = tuple(
            PrintItem(self.piece_face(f"coin-{suit}", p), back=self.piece_face(f"coin-{value}", p))
            for value in VALUES
            for suit in SUITS
        )
        pawns = [
            PrintItem(
                _standee(self.piece_face(f"pawn-{suit}", p, "front"), p),
                suit.capitalize(),
            )
            for suit in SUITS
        ]
        nets = [
            PrintItem(
                die_net([self.piece_face(f"die-{suit}-{v}", p) for v in VALUES], p),
                f"{suit} die",
            )
            for suit in SUITS
        ]
        return [
            PosterSheet(
                "Wormholes galaxy mat",
                image,
                h,
                "Lay the 23 tiles grid side up on the outlined squares. Markers 8-11: keep them "
                "uncovered.",
                self.marker_spec(),
            ),
            PieceSheet(
                "Wormholes tiles (grid side)",
                tuple(PrintItem(tile) for _ in range(24)),
                "24 piecepack tiles of 2 inches, grid side: 23 for the spiral and a spare.",
            ),
            PieceSheet(
                "Wormholes coins",
                coins,
                "Fold along the dashed line so each suit side lies on its value side, glue, cut "
                "out: "
                "24 coins (each suit: null, ace, 2-5).",
                fold=True,
            ),
            PieceSheet(
                "Wormholes pawns and dice",
                tuple(pawns + nets),
                "Pawns: fold at the dashed lines into a tent with the base tabs outward. "
                "Dice: fold along the dashed lines, glue the grey tabs inside.",
            ),
        ]


def _value(cv: Canvas, value: str, height: float, colour: Colour) -> None:
    text = _VALUE_TEXT[value]
    if text == "n":  # a lower-case letter: lift it to the middle of the face
        cv.text(text, (0.0, -0.16 * height), height, colour, 0.2, cv2.FONT_HERSHEY_DUPLEX)
    else:
        cv.text(text, (0.0, 0.0), height, colour, 0.2, cv2.FONT_HERSHEY_DUPLEX)


def _tile(cv: Canvas, tx: float, ty: float) -> None:
    cv.rect(tx, ty, tx + 2, ty + 2, _TILE)
    cv.line((tx + 1, ty + 0.06), (tx + 1, ty + 1.94), _TILE_LINE, 1.0)
    cv.line((tx + 0.06, ty + 1), (tx + 1.94, ty + 1), _TILE_LINE, 1.0)
    cv.rect(tx + 0.06, ty + 0.06, tx + 1.94, ty + 1.94, _TILE_LINE, width_mm=1.0)
    cv.rect(tx, ty, tx + 2, ty + 2, shade(_TILE, 0.7), width_mm=0.4)


def _tile_image(px_per_mm: float) -> np.ndarray:
    size = round(TILE_MM * px_per_mm)
    m = np.array([[size / 2, 0, -0.5], [0, size / 2, -0.5], [0, 0, 1.0]])
    cv = Canvas((size, size), m, px_per_mm, alpha=True)
    cv.rect(0, 0, 2, 2, _TILE, mask=True)
    _tile(cv, 0, 0)
    return cv.result()


def _pawn(cv: Canvas, w: float, h: float, suit: str) -> None:
    """A pawn standee: flat-topped (where the two faces fold together), round shoulders."""
    colour = SUIT_COLOURS[suit]
    x, y = w / 2, h / 2
    right = curve(
        [(0.2 * w, -y), (0.4 * w, -y + 0.08 * w), (x, -y + 0.4 * w), (x, -y + 0.6 * w)], 8
    )
    left = [(-px, py) for px, py in reversed(right)]
    cv.poly([*right, (x, y), (-x, y), *left], colour, mask=True)
    centre = (0.0, -y + 0.55 * w)
    cv.circle(centre, 0.4 * w, _WHITE)
    draw_glyph(cv, suit, centre, 0.32 * w, colour, _WHITE)
    cv.rect(-x, y - 0.12 * h, x, y, shade(colour, 0.75))


def _standee(front: np.ndarray, px_per_mm: float) -> np.ndarray:
    """A fold-over pawn: the back (upside down) above the front, a base tab at each end."""
    tab = round(8.0 * px_per_mm)
    h, w = front.shape[:2]
    back = front[::-1, ::-1]
    out = np.zeros((2 * h + 2 * tab, w, 4), np.uint8)
    out[:tab] = (225, 225, 225, 255)
    out[tab : tab + h] = back
    out[tab + h : tab + 2 * h] = front
    out[tab + 2 * h :] = (225, 225, 225, 255)
    dash = max(2, round(1.5 * px_per_mm))
    for y in (tab, tab + h, tab + 2 * h):
        for s in range(0, w, 2 * dash):
            out[y - 1 : y + 1, s : s + dash] = (120, 120, 120, 255)
    return out

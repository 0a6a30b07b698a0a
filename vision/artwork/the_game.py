"""The Game's kit: field corner markers, the scale marker, and front-dot stickers.

The Game is played on the ground with natural pieces, so nothing but its markers and
stickers is printed. The field (``calibration.markers.field_spec``: board units are inches,
``y`` away from the near edge, 3 inch markers 40-43 half an inch off the corners; or the
single 6 inch scale marker 44 outside the near-left corner) is drawn here on a neutral mat
for the renderer, which may lay its own ground under the markers instead.

Each piece carries a 12 mm dot sticker at its front, in its side's colour (red and blue by
default), with a white rim so it stands out on stone, bark or grass. The piece kinds
``red-piece`` and ``blue-piece`` are "natural": the renderer makes their bodies; their face
here is the footprint of a 1 inch piece with only the dot, at the front (the top of the
image), opaque. :meth:`TheGameKit.dot_sticker` draws the sticker alone.

>>> kit = TheGameKit.create()
>>> kit.board_size(), kit.board_size((36, 24))
((24.0, 24.0), (36.0, 24.0))
>>> kit.dot_sticker("blue", 5.0).shape
(60, 60, 4)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.markers import MarkerSpec, field_spec, scale_marker_spec
from vision.artwork.draw import Canvas, Colour, board_transform, hex_colour
from vision.artwork.kit import (
    PAPER,
    PRINT_PX_PER_MM,
    ArtworkError,
    Kit,
    PieceKind,
    PieceSheet,
    PrintItem,
    paint_markers,
)

__all__ = ["DOT_COLOURS", "DOT_MM", "PIECE_MM", "TheGameKit"]

DOT_COLOURS: dict[str, Colour] = {"red": hex_colour("#e01b24"), "blue": hex_colour("#1c58d8")}
DOT_MM = 12.0
PIECE_MM = 25.4  # the default footprint: a 1 inch disc
_MAT = hex_colour("#b7b9ab")
_INK = hex_colour("#222222")
_GUIDE = hex_colour("#c01c28")


@dataclass(frozen=True, eq=False)
class TheGameKit(Kit):
    """The Game's kit. ``layout`` for the field: ``None`` (24 x 24 inches) or
    ``(width, depth)`` in inches."""

    @classmethod
    def create(cls) -> TheGameKit:
        pieces = {
            f"{side}-piece": PieceKind(
                f"{side}-piece", (PIECE_MM, PIECE_MM), 15.0, False, "natural", "piece"
            )
            for side in DOT_COLOURS
        }
        return cls("the-game", "inch", 25.4, pieces, "The Game")

    def _layout_key(self, layout: Any) -> Hashable:
        if layout is None:
            return (24.0, 24.0)
        try:
            w, d = (float(v) for v in layout)
        except (TypeError, ValueError):
            raise ArtworkError(
                f"The Game's layout is the field's (width, depth) in inches, not {layout!r}"
            ) from None
        if not (1.0 <= w <= 240.0 and 1.0 <= d <= 240.0):
            raise ArtworkError(f"a field of {w:g} x {d:g} inches: give 1 to 240 inches a side")
        return (w, d)

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        w, d = self._layout_key(layout)  # type: ignore[misc]
        return field_spec(w, d)

    # -- the field --------------------------------------------------------------------------------
    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        x0, y0, x1, y1 = spec.area
        cv.rect(x0, y0, x1, y1, _MAT)

    # -- stickers ----------------------------------------------------------------------------------
    def dot_sticker(self, side: str, px_per_mm: float) -> np.ndarray:
        """A front-dot sticker (BGRA, ``DOT_MM`` wide) in ``side``'s colour."""
        if side not in DOT_COLOURS:
            raise ArtworkError(f"no dot colour for side {side!r} (sides: {', '.join(DOT_COLOURS)})")
        size = max(1, round(DOT_MM * px_per_mm))
        cv = Canvas.for_mm(
            DOT_MM, DOT_MM, px_per_mm, alpha=True, size_px=(size, size), background=(0, 0, 0)
        )
        _dot(cv, (0.0, 0.0), side)
        return cv.result()

    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        side = kind.name.split("-", 1)[0]
        # only the dot is printed: at the front of the piece, which faces the top of the image
        _dot(cv, (0.0, -h / 2 + DOT_MM / 2 + 0.5), side)

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        return DOT_COLOURS[kind.name.split("-", 1)[0]]

    # -- printing ---------------------------------------------------------------------------------
    def sheets(self) -> list[Any]:
        p = PRINT_PX_PER_MM
        spec = self.marker_spec()
        corners = tuple(
            PrintItem(
                _corner_card(spec, marker_id, p, 40.0),
                f"{spec.place_name(marker_id)} corner, id {marker_id}",
                cut_line=False,
            )
            for marker_id in spec.ids
        )
        scale = scale_marker_spec()
        dots = tuple(
            PrintItem(self.dot_sticker(side, p), new_row=k == 0)
            for side in DOT_COLOURS
            for k in range(42)
        )
        return [
            PieceSheet(
                "The Game field corner markers",
                corners,
                "Lay each marker outside its field corner, upright as read from the near edge, "
                "with the red "
                "cross on the field's corner (24 x 24 inches apart by default).",
            ),
            PieceSheet(
                "The Game scale marker",
                (
                    PrintItem(
                        _corner_card(scale, 44, p, 14.0), "scale marker, id 44", cut_line=False
                    ),
                ),
                "One-marker set-up: lay it outside the field's near-left corner, the red cross on "
                "the corner.",
            ),
            PieceSheet(
                "The Game front-dot stickers",
                dots,
                "Stick one dot at the front of each piece: red for one side, blue for the other.",
            ),
        ]


def _dot(cv: Canvas, c: tuple[float, float], side: str) -> None:
    cv.circle(c, DOT_MM / 2, (255, 255, 255), mask=True)
    cv.circle(c, DOT_MM / 2 - 1.5, DOT_COLOURS[side])


def _corner_card(spec: MarkerSpec, marker_id: int, px_per_mm: float, guide_mm: float) -> np.ndarray:
    """A marker with the field corner it belongs to: a red cross on the corner and the two
    field edges running ``guide_mm`` from it (BGRA, white paper)."""
    unit = spec.unit_mm
    corners = spec.marker_corners(marker_id)
    place = spec.places[spec.ids.index(marker_id)]
    x0, y0, x1, y1 = spec.area
    cx = x0 if place in ("tl", "bl") else x1
    cy = y0 if place in ("tl", "tr") else y1
    sx = 1 if cx == x0 else -1  # the field lies towards +sx, +sy from its corner
    sy = 1 if cy == y0 else -1
    g = guide_mm / unit
    quiet = 6.0 / unit  # white paper round the marker and the guides
    pts = np.vstack([corners, [[cx, cy], [cx + sx * g, cy + sy * g]]])
    lo, hi = pts.min(axis=0) - quiet, pts.max(axis=0) + quiet
    h, size = board_transform((lo[0], lo[1], hi[0], hi[1]), px_per_mm * unit, 0, spec.y_up)
    cv = Canvas(size, h, px_per_mm, background=PAPER, alpha=True)
    cv.rect(lo[0], lo[1], hi[0], hi[1], PAPER, mask=True)
    cv.line((cx, cy), (cx + sx * g, cy), _INK, 0.8)
    cv.line((cx, cy), (cx, cy + sy * g), _INK, 0.8)
    arm = 4.0 / unit
    cv.line((cx - arm, cy), (cx + arm, cy), _GUIDE, 0.5)
    cv.line((cx, cy - arm), (cx, cy + arm), _GUIDE, 0.5)
    cv.circle((cx, cy), 2.5 / unit, _GUIDE, width_mm=0.4)
    if guide_mm >= 30:
        cv.text("field", (cx + sx * g * 0.55, cy + sy * g * 0.55), 4.0, _INK, 0.12)
    image = cv.result()
    paint_markers(image, spec, h)
    return image

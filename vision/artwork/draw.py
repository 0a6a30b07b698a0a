"""Drawing helpers shared by every kit: a millimetre canvas, exact markers, piece outlines.

:class:`Canvas` draws in any plane coordinates (millimetres on a piece, board units on a
board) through an affine map to pixels; it supersamples small drawings and averages them
down, so edges are anti-aliased at any scale. Markers and scale bars are instead painted
with exact area coverage (:func:`paint_marker`, :func:`paint_rect`): each pixel gets the
fraction of its area the black covers, so their edges sit where the specification puts
them to a small fraction of a pixel, which the calibration code can measure.

>>> c = Canvas.for_mm(10.0, 10.0, px_per_mm=4.0)
>>> c.circle((0.0, 0.0), 3.0, (0, 0, 255))
>>> img = c.result()
>>> img.shape, tuple(int(v) for v in img[20, 20])
((40, 40, 3), (0, 0, 255))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

import cv2
import numpy as np

__all__ = [
    "Canvas",
    "Colour",
    "apply",
    "board_transform",
    "hex_colour",
    "marker_bits",
    "mix",
    "overlap_matrix",
    "paint_marker",
    "paint_rect",
    "shade",
    "supersample_for",
]

Colour = tuple[int, int, int]
_SHIFT = 4
_ONE = 1 << _SHIFT


def hex_colour(text: str) -> Colour:
    """``"#rrggbb"`` -> BGR."""
    t = text.lstrip("#")
    return int(t[4:6], 16), int(t[2:4], 16), int(t[0:2], 16)


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def shade(c: Colour, factor: float) -> Colour:
    """Darker (factor < 1) or lighter (> 1, towards white) version of ``c``."""
    if factor <= 1:
        return tuple(round(v * factor) for v in c)  # type: ignore[return-value]
    return mix(c, (255, 255, 255), min(1.0, factor - 1.0))


def supersample_for(px_per_mm: float) -> int:
    """How many times finer to draw so that details of ~0.1 mm anti-alias well."""
    return int(min(4, max(1, math.ceil(9.0 / px_per_mm))))


def board_transform(
    extent: tuple[float, float, float, float], px_per_unit: float, pad_px: int, y_up: bool = False
) -> tuple[np.ndarray, tuple[int, int]]:
    """The board -> pixel transform and image size for a board whose ``extent`` (x0, y0, x1,
    y1, board units) is drawn ``pad_px`` pixels inside the image edges. With ``y_up``, board
    ``y`` grows up the image. The extent's edges fall on pixel boundaries."""
    x0, y0, x1, y1 = extent
    w = math.ceil((x1 - x0) * px_per_unit - 1e-9) + 2 * pad_px
    h = math.ceil((y1 - y0) * px_per_unit - 1e-9) + 2 * pad_px
    if y_up:
        m = np.array(
            [
                [px_per_unit, 0, pad_px - 0.5 - x0 * px_per_unit],
                [0, -px_per_unit, pad_px - 0.5 + y1 * px_per_unit],
                [0, 0, 1.0],
            ]
        )
    else:
        m = np.array(
            [
                [px_per_unit, 0, pad_px - 0.5 - x0 * px_per_unit],
                [0, px_per_unit, pad_px - 0.5 - y0 * px_per_unit],
                [0, 0, 1.0],
            ]
        )
    return m, (w, h)


def apply(m: np.ndarray, points: Iterable[Sequence[float]]) -> np.ndarray:
    """Map points (N x 2) through the 3x3 (affine or projective) ``m``."""
    p = np.asarray(list(points) if not isinstance(points, np.ndarray) else points, float).reshape(
        -1, 2
    )
    q = (m @ np.c_[p, np.ones(len(p))].T).T
    return q[:, :2] / q[:, 2:3]


class Canvas:
    """A drawing surface with an affine map from drawing coordinates to output pixels.

    Widths and text heights are given in millimetres; ``units_per_mm`` converts them to
    drawing units (1 when drawing in millimetres). With ``alpha``, shapes drawn with
    ``mask=True`` also paint the alpha channel (the piece's outline).
    """

    def __init__(
        self,
        size_px: tuple[int, int],
        to_px: np.ndarray,
        px_per_mm: float,
        background: Colour = (255, 255, 255),
        alpha: bool = False,
        supersample: int | None = None,
    ) -> None:
        self.size = (int(size_px[0]), int(size_px[1]))
        self.ss = supersample or supersample_for(px_per_mm)
        s = self.ss
        # output pixel u (centre convention) -> fine pixel (u + 0.5) * s - 0.5
        fine = np.array([[s, 0, (s - 1) / 2.0], [0, s, (s - 1) / 2.0], [0, 0, 1.0]])
        self.to_fine = fine @ np.asarray(to_px, float)
        self.px_per_mm = float(px_per_mm)
        self.fine_per_mm = self.px_per_mm * s
        self.img = np.empty((self.size[1] * s, self.size[0] * s, 3), np.uint8)
        self.img[:] = background
        self.mask = np.zeros(self.img.shape[:2], np.uint8) if alpha else None
        self.background = background

    @classmethod
    def for_mm(
        cls,
        width_mm: float,
        height_mm: float,
        px_per_mm: float,
        background: Colour = (255, 255, 255),
        alpha: bool = False,
        size_px: tuple[int, int] | None = None,
    ) -> Canvas:
        """A canvas in millimetres, origin at the centre, ``y`` down, exactly filling an
        image of ``size_px`` (default: the size rounded to whole pixels)."""
        if size_px is None:
            size_px = (max(1, round(width_mm * px_per_mm)), max(1, round(height_mm * px_per_mm)))
        sx, sy = size_px[0] / width_mm, size_px[1] / height_mm
        m = np.array([[sx, 0, size_px[0] / 2 - 0.5], [0, sy, size_px[1] / 2 - 0.5], [0, 0, 1.0]])
        return cls(size_px, m, (sx + sy) / 2, background, alpha)

    # -- coordinates -------------------------------------------------------------------------
    def _pts(self, points: Iterable[Sequence[float]]) -> np.ndarray:
        q = apply(self.to_fine, points)
        return np.round(q * _ONE).astype(np.int32)

    def _w(self, width_mm: float) -> int:
        return max(1, round(width_mm * self.fine_per_mm))

    def _r(self, length: float) -> int:
        """A length in drawing units -> fine pixels x 16 (for shifted circle radii)."""
        scale = math.hypot(self.to_fine[0, 0], self.to_fine[1, 0])
        return max(1, round(length * scale * _ONE))

    # -- shapes ------------------------------------------------------------------------------
    def poly(
        self,
        points: Iterable[Sequence[float]],
        colour: Colour,
        width_mm: float | None = None,
        closed: bool = True,
        mask: bool = False,
    ) -> None:
        """A filled polygon, or its outline ``width_mm`` wide."""
        pts = self._pts(points)
        if width_mm is None:
            cv2.fillPoly(self.img, [pts], colour, cv2.LINE_AA, _SHIFT)
            if mask and self.mask is not None:
                cv2.fillPoly(self.mask, [pts], 255, cv2.LINE_AA, _SHIFT)
        else:
            cv2.polylines(self.img, [pts], closed, colour, self._w(width_mm), cv2.LINE_AA, _SHIFT)

    def polys(self, polygons: Sequence[Iterable[Sequence[float]]], colour: Colour) -> None:
        """Several filled polygons at once (holes where they overlap an even number of times)."""
        cv2.fillPoly(self.img, [self._pts(p) for p in polygons], colour, cv2.LINE_AA, _SHIFT)

    def line(self, a: Sequence[float], b: Sequence[float], colour: Colour, width_mm: float) -> None:
        self.poly([a, b], colour, width_mm, closed=False)

    def circle(
        self,
        centre: Sequence[float],
        radius: float,
        colour: Colour,
        width_mm: float | None = None,
        mask: bool = False,
    ) -> None:
        """A disc (or ring ``width_mm`` wide) of ``radius`` drawing units."""
        c = self._pts([centre])[0]
        r = self._r(radius)
        thickness = -1 if width_mm is None else self._w(width_mm)
        cv2.circle(self.img, (int(c[0]), int(c[1])), r, colour, thickness, cv2.LINE_AA, _SHIFT)
        if mask and self.mask is not None:
            cv2.circle(self.mask, (int(c[0]), int(c[1])), r, 255, thickness, cv2.LINE_AA, _SHIFT)

    def ellipse(
        self,
        centre: Sequence[float],
        axes: Sequence[float],
        angle: float,
        colour: Colour,
        width_mm: float | None = None,
        start: float = 0.0,
        end: float = 360.0,
    ) -> None:
        c = self._pts([centre])[0]
        ax = (self._r(axes[0]), self._r(axes[1]))
        thickness = -1 if width_mm is None else self._w(width_mm)
        cv2.ellipse(
            self.img,
            (int(c[0]), int(c[1])),
            ax,
            angle,
            start,
            end,
            colour,
            thickness,
            cv2.LINE_AA,
            _SHIFT,
        )

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        colour: Colour,
        width_mm: float | None = None,
        mask: bool = False,
    ) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour, width_mm, mask=mask)

    def rounded_rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        radius: float,
        colour: Colour,
        mask: bool = False,
    ) -> None:
        self.poly(rounded_rect_points(x0, y0, x1, y1, radius), colour, mask=mask)

    def text(
        self,
        text: str,
        centre: Sequence[float],
        height_mm: float,
        colour: Colour,
        weight: float = 0.12,
        font: int = cv2.FONT_HERSHEY_DUPLEX,
    ) -> None:
        """``text`` centred on ``centre``, capitals ``height_mm`` tall, strokes ``weight`` x
        the height thick (0.12 plain, 0.2 bold)."""
        if not text:
            return
        target = height_mm * self.fine_per_mm
        thick = max(1, round(weight * target))
        (_, base_h), _ = cv2.getTextSize("H", font, 1.0, 1)
        scale = target / base_h
        (w, _), _ = cv2.getTextSize(text, font, scale, thick)
        c = apply(self.to_fine, [centre])[0]
        org = (round(c[0] - w / 2), round(c[1] + target / 2))
        cv2.putText(self.img, text, org, font, scale, colour, thick, cv2.LINE_AA)

    def text_width_mm(
        self, text: str, height_mm: float, weight: float = 0.12, font: int = cv2.FONT_HERSHEY_DUPLEX
    ) -> float:
        target = height_mm * self.fine_per_mm
        thick = max(1, round(weight * target))
        (_, base_h), _ = cv2.getTextSize("H", font, 1.0, 1)
        (w, _), _ = cv2.getTextSize(text, font, target / base_h, thick)
        return w / self.fine_per_mm

    def result(self) -> np.ndarray:
        """The drawing at output resolution: BGR, or BGRA when made with ``alpha``."""
        img = self.img
        if self.ss > 1:
            img = cv2.resize(img, self.size, interpolation=cv2.INTER_AREA)
        if self.mask is None:
            return img
        mask = (
            self.mask
            if self.ss == 1
            else cv2.resize(self.mask, self.size, interpolation=cv2.INTER_AREA)
        )
        # Along the outline a pixel's colour mixes the piece with the canvas background in the
        # proportion its alpha gives; take the background out again, so that the edge has the
        # piece's own colour and compositing with alpha blends it once, not twice.
        a = mask.astype(np.float32)[:, :, None] / 255.0
        edge = (mask > 0) & (mask < 255)
        if edge.any():
            bg = np.asarray(self.background, np.float32)
            straight = (img.astype(np.float32) - bg * (1.0 - a)) / np.maximum(a, 1e-3)
            img = img.copy()
            img[edge] = np.clip(np.round(straight[edge]), 0, 255).astype(np.uint8)
        out = np.dstack([img, mask])
        out[mask == 0, :3] = 0
        return out


def rounded_rect_points(
    x0: float, y0: float, x1: float, y1: float, radius: float, steps: int = 8
) -> list[tuple[float, float]]:
    r = max(0.0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
    pts: list[tuple[float, float]] = []
    for cx, cy, a0 in (
        (x1 - r, y0 + r, -90),
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
    ):
        for i in range(steps + 1):
            a = math.radians(a0 + 90 * i / steps)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


# -- exact painting: markers and scale bars --------------------------------------------------


def overlap_matrix(edges: np.ndarray, n_px: int, start: int) -> np.ndarray:
    """Overlap (in pixels) of output pixels ``start .. start + n_px - 1`` with the intervals
    between consecutive ``edges`` (pixel coordinates, centre convention): n_px x len-1."""
    lo = np.arange(start, start + n_px, dtype=float)[:, None] - 0.5
    a = np.minimum(edges[:-1], edges[1:])[None, :]
    b = np.maximum(edges[:-1], edges[1:])[None, :]
    return np.clip(np.minimum(lo + 1.0, b) - np.maximum(lo, a), 0.0, None)


def _paint_grid(
    img: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray, dark: np.ndarray, colour: Colour
) -> None:
    """Blend ``colour`` into ``img`` with the exact coverage of the cells where ``dark`` is 1."""
    h, w = img.shape[:2]
    x0 = max(0, math.floor(x_edges.min() + 0.5))
    x1 = min(w, math.ceil(x_edges.max() + 0.5))
    y0 = max(0, math.floor(y_edges.min() + 0.5))
    y1 = min(h, math.ceil(y_edges.max() + 0.5))
    if x1 <= x0 or y1 <= y0:
        return
    wx = overlap_matrix(x_edges, x1 - x0, x0)
    wy = overlap_matrix(y_edges, y1 - y0, y0)
    cover = np.clip(wy @ dark.astype(float) @ wx.T, 0.0, 1.0)[:, :, None]
    region = img[y0:y1, x0:x1, :3].astype(float)
    region = region * (1.0 - cover) + np.asarray(colour, float)[None, None, :] * cover
    img[y0:y1, x0:x1, :3] = np.round(region).astype(np.uint8)


@lru_cache(maxsize=64)
def marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells, border included (6 x 6 for a 4x4 dictionary), 1 = black."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, int(marker_id), n)
    bits = (img < 128).astype(np.uint8)
    bits.setflags(write=False)
    return bits


def paint_marker(
    img: np.ndarray, corners_px: np.ndarray, bits: np.ndarray, colour: Colour = (0, 0, 0)
) -> None:
    """Paint a marker whose printed corners (ArUco order: top-left, top-right, bottom-right,
    bottom-left) land on ``corners_px``; the marker must be axis-aligned in the image (it
    may be mirrored by a flipped axis). The paper under it is left as it is."""
    c = np.asarray(corners_px, float)
    if abs(c[0, 1] - c[1, 1]) > 1e-6 or abs(c[0, 0] - c[3, 0]) > 1e-6:
        raise ValueError("paint_marker draws axis-aligned markers only")
    n = bits.shape[0]
    x_edges = c[0, 0] + (c[1, 0] - c[0, 0]) * np.arange(n + 1) / n
    y_edges = c[0, 1] + (c[3, 1] - c[0, 1]) * np.arange(n + 1) / n
    dark = bits
    if x_edges[0] > x_edges[-1]:
        x_edges, dark = x_edges[::-1], dark[:, ::-1]
    if y_edges[0] > y_edges[-1]:
        y_edges, dark = y_edges[::-1], dark[::-1, :]
    _paint_grid(img, x_edges, y_edges, dark, colour)


def paint_rect(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, colour: Colour) -> None:
    """Paint the rectangle ``[x0, x1] x [y0, y1]`` (pixel coordinates, centre convention)
    with exact coverage at its edges."""
    _paint_grid(
        img,
        np.array([min(x0, x1), max(x0, x1)]),
        np.array([min(y0, y1), max(y0, y1)]),
        np.ones((1, 1)),
        colour,
    )

"""The kit's drawings as the renderer uses them: cached, at a few scales, with outlines.

Kits draw slowly and return fresh copies; the renderer asks for the same faces thousands
of times at whatever scale a piece happens to have in the picture. :class:`FaceCache`
keeps each face at a few fixed scales (the coarsest one still finer than needed is used,
like a mipmap) and each board drawing with its smaller copies, and gives board units in
table millimetres.

>>> outline_of("disc", 30.0, 30.0).shape
(28, 2)
>>> from vision.render.fakekit import PlainKit
>>> cache = FaceCache(PlainKit(), board_ppm=2.0)
>>> cache.face("red-disc", "top", 3.0)[1]
4.0
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

__all__ = ["FaceCache", "outline_of", "BOARD_PPM", "PIECE_LEVELS"]

BOARD_PPM = 4.0  # pixels per mm of the finest board picture asked of a kit (by default)
PIECE_LEVELS = (2.0, 4.0, 8.0, 16.0)


@lru_cache(maxsize=256)
def outline_of(shape: str, width: float, depth: float, corner: float = 0.8) -> np.ndarray:
    """A piece's outline in its own frame (mm, centred): rounded rectangles for square,
    rect and die pieces, a 28-gon for discs. (Shared: do not modify the array.)"""
    out = _outline(shape, width, depth, corner)
    out.setflags(write=False)
    return out


def _outline(shape: str, width: float, depth: float, corner: float) -> np.ndarray:
    if shape == "disc":
        t = np.linspace(0, 2 * np.pi, 28, endpoint=False)
        return np.stack([width / 2 * np.cos(t), depth / 2 * np.sin(t)], 1)
    r = min(corner, width / 4, depth / 4)
    if r <= 0.05:
        w, d = width / 2, depth / 2
        return np.array([[-w, -d], [w, -d], [w, d], [-w, d]], float)
    pts = []
    for cx, cy, a0 in ((width / 2 - r, -depth / 2 + r, -90), (width / 2 - r, depth / 2 - r, 0),
                       (-width / 2 + r, depth / 2 - r, 90), (-width / 2 + r, -depth / 2 + r, 180)):
        for a in (a0, a0 + 45, a0 + 90):
            pts.append((cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))))
    return np.array(pts, float)


class FaceCache:
    """Kit drawings at a few scales, kept (kits draw slowly; the renderer asks often)."""

    def __init__(self, kit: Any, board_ppm: float = BOARD_PPM) -> None:
        self.kit = kit
        self.board_ppm = float(board_ppm)
        self._faces: dict[tuple[str, str, float], np.ndarray] = {}
        self._boards: dict[Any, list[tuple[np.ndarray, np.ndarray]]] = {}
        self._geometry: dict[Any, tuple[np.ndarray, tuple[float, float]]] = {}
        self._silhouettes: dict[tuple[str, float], tuple[np.ndarray, tuple[int, ...]]] = {}

    def face(self, kind: str, face: str, need_ppm: float) -> tuple[np.ndarray, float]:
        level = next((p for p in PIECE_LEVELS if p >= need_ppm * 1.1), PIECE_LEVELS[-1])
        key = (kind, face, level)
        img = self._faces.get(key)
        if img is None:
            img = np.ascontiguousarray(self.kit.piece_face(kind, level, face))
            self._faces[key] = img
        return img, level

    def silhouette(self, kind: str, level: float, face: np.ndarray, edge: Any) -> tuple[np.ndarray, tuple[int, ...]]:
        """A standing piece's picture filled with its edge colour (its thickness seen from the
        side) and the columns and rows its opaque part spans (first, last, first, last)."""
        key = (kind, level)
        hit = self._silhouettes.get(key)
        if hit is None:
            flat = face.copy()
            flat[..., :3] = np.asarray(edge, np.uint8)
            cols = np.flatnonzero(face[..., 3].max(axis=0) > 40)
            rows = np.flatnonzero(face[..., 3].max(axis=1) > 40)
            if len(cols) == 0:
                span = (0, face.shape[1] - 1, 0, face.shape[0] - 1)
            else:
                span = (int(cols[0]), int(cols[-1]), int(rows[0]), int(rows[-1]))
            hit = (flat, span)
            self._silhouettes[key] = hit
        return hit

    def board(self, layout: Any, need_ppm: float) -> tuple[np.ndarray, np.ndarray]:
        """BGRA board picture (alpha 0 on a one-pixel frame, for smooth edges) and its
        pixels -> table mm transform, at the coarsest level still finer than ``need_ppm``."""
        levels = self._levels(layout)
        for img, m in reversed(levels):
            if 1.0 / m[0, 0] >= need_ppm * 1.1:
                return img, m
        return levels[0]

    def board_geometry(self, layout: Any) -> tuple[np.ndarray, tuple[float, float]]:
        """Board units -> table mm (the board picture's top-left corner is the table's
        origin) and the picture's size in mm."""
        self._levels(layout)
        return self._geometry[_hashable(layout)]

    def _levels(self, layout: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        key = _hashable(layout)
        levels = self._boards.get(key)
        if levels is None:
            ppm = self.board_ppm
            image, board_to_px = self.kit.board_image(ppm, layout)
            bgra = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
            # pixel p (centres are integers, the picture spans -0.5 .. w - 0.5) -> mm
            px_to_mm = np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1]])
            self._geometry[key] = (px_to_mm @ board_to_px, (image.shape[1] / ppm, image.shape[0] / ppm))
            levels = [(bgra, px_to_mm)]
            while levels[-1][0].shape[0] > 64 and len(levels) < 4:
                prev, m = levels[-1]
                small = cv2.pyrDown(prev)
                # pixel centres: p_small = (p + 0.5) / 2 - 0.5
                up = np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])
                levels.append((small, m @ up))
            for img, _ in levels:
                img[0, :, 3] = img[-1, :, 3] = 0
                img[:, 0, 3] = img[:, -1, 3] = 0
            self._boards[key] = levels
            if len(self._boards) > 6:
                old = next(iter(self._boards))
                self._boards.pop(old)
                self._geometry.pop(old, None)
        return levels


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value

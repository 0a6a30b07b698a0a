"""A plain kit that follows the artwork contract, for tests and examples of the renderer.

An 8 x 8 board of 40 mm squares in two greys with four ArUco corner markers (ids 20-23,
which no game uses), and a few pieces of strong colours: a red disc, a blue square
counter, a green standing pawn and a white d6. Everything is drawn with a few OpenCV
calls, so the renderer can be tested without the real kits.

>>> kit = PlainKit()
>>> kit.board_size()
(8.0, 8.0)
>>> kit.piece_face("red-disc", 4.0).shape
(120, 120, 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.markers import MarkerSpec

__all__ = ["PlainKind", "PlainKit", "PLAIN_SPEC"]

PLAIN_SPEC = MarkerSpec(
    name="plain-test-board",
    game="plain",
    title="the plain test board",
    ids=(20, 21, 22, 23),
    places=("tl", "tr", "br", "bl"),
    area=(0.0, 0.0, 8.0, 8.0),
    units="square",
    size=(8.0, 8.0),
    unit_mm=40.0,
    marker_mm=30.0,
    gap_mm=5.0,
)


@dataclass(frozen=True)
class PlainKind:
    """The same fields as :class:`vision.artwork.kit.PieceKind`."""

    name: str
    footprint_mm: tuple[float, float]
    height_mm: float
    standing: bool
    shape: str
    group: str = ""


_COLOURS = {
    "red-disc": (40, 40, 220),
    "blue-square": (200, 90, 30),
    "green-pawn": (60, 170, 40),
}


@dataclass(frozen=True)
class PlainKit:
    """A kit for tests: see the module docstring."""

    game: str = "plain"
    units: str = "square"
    mm_per_unit: float = 40.0
    pieces: dict[str, PlainKind] = field(default_factory=lambda: {
        k.name: k for k in (
            PlainKind("red-disc", (30.0, 30.0), 4.0, False, "disc", "checker"),
            PlainKind("blue-square", (20.0, 20.0), 2.0, False, "square", "counter"),
            PlainKind("green-pawn", (16.0, 8.0), 30.0, True, "rect", "pawn"),
            *[PlainKind(f"d6-{v}", (16.0, 16.0), 16.0, False, "die", "die") for v in range(1, 7)],
        )
    })

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        return PLAIN_SPEC

    def kind(self, name: str) -> PlainKind:
        try:
            return self.pieces[name]
        except KeyError:
            raise ValueError(f"plain kit has no piece {name!r}") from None

    def board_size(self, layout: Any = None) -> tuple[float, float]:
        return PLAIN_SPEC.size

    def board_image(self, px_per_mm: float, layout: Any = None) -> tuple[np.ndarray, np.ndarray]:
        spec = PLAIN_SPEC
        x0, y0, x1, y1 = spec.extent()
        margin = 10.0 / spec.unit_mm  # 10 mm of white paper round everything
        unit_px = spec.unit_mm * px_per_mm
        w = int(round((x1 - x0 + 2 * margin) * unit_px))
        h = int(round((y1 - y0 + 2 * margin) * unit_px))
        # board unit u -> pixel (u - x0 + margin) * unit_px - 0.5 (pixel centres are integers)
        board_to_px = np.array([[unit_px, 0, (margin - x0) * unit_px - 0.5],
                                [0, unit_px, (margin - y0) * unit_px - 0.5], [0, 0, 1]])
        img = np.full((h, w, 3), 245, np.uint8)
        for i in range(8):
            for j in range(8):
                tone = 170 if (i + j) % 2 else 215
                a = _to_px(board_to_px, (i, j))
                b = _to_px(board_to_px, (i + 1, j + 1))
                img[a[1]:b[1], a[0]:b[0]] = (tone, tone + 5, tone - 10)
        aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        for marker_id in spec.ids:
            corners = spec.marker_corners(marker_id)
            a = _to_px(board_to_px, corners[0])
            b = _to_px(board_to_px, corners[2])
            side = b[0] - a[0]
            marker = cv2.aruco.generateImageMarker(aruco, marker_id, side)
            img[a[1]:a[1] + side, a[0]:a[0] + side] = marker[..., None]
        return img, board_to_px

    def piece_face(self, kind: str, px_per_mm: float, face: str = "top") -> np.ndarray:
        k = self.kind(kind)
        w, d = k.footprint_mm
        if face == "front":
            size = (max(1, round(w * px_per_mm)), max(1, round(k.height_mm * px_per_mm)))
        else:
            size = (max(1, round(w * px_per_mm)), max(1, round(d * px_per_mm)))
        img = np.zeros((size[1], size[0], 4), np.uint8)
        if k.shape == "die":
            img[:] = (235, 235, 235, 255)
            value = int(kind.split("-")[1]) if face == "top" else 2
            pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
                    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
                    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[value]
            for px, py in pips:
                c = (int(size[0] / 2 + px * size[0] * 0.27), int(size[1] / 2 + py * size[1] * 0.27))
                cv2.circle(img, c, max(1, int(size[0] * 0.09)), (20, 20, 20, 255), -1, cv2.LINE_AA)
            return img
        colour = _COLOURS[kind]
        if k.standing and face == "front":
            cx = size[0] / 2
            pts = np.array([[cx - size[0] * 0.45, size[1]], [cx - size[0] * 0.2, size[1] * 0.35],
                            [cx + size[0] * 0.2, size[1] * 0.35], [cx + size[0] * 0.45, size[1]]])
            cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), (*colour, 255), cv2.LINE_AA, 4)
            cv2.circle(img, (int(cx * 16), int(size[1] * 0.22 * 16)), int(size[0] * 0.3 * 16), (*colour, 255),
                       -1, cv2.LINE_AA, 4)
            return img
        if k.shape == "disc":
            cv2.ellipse(img, (int(size[0] * 8 - 8), int(size[1] * 8 - 8)), (int(size[0] * 8), int(size[1] * 8)),
                        0, 0, 360, (*colour, 255), -1, cv2.LINE_AA, 4)
        else:
            img[:] = (*colour, 255)
        return img

    def edge_colour(self, kind: str) -> tuple[int, int, int]:
        k = self.kind(kind)
        if k.shape == "die":
            return (215, 215, 215)
        b, g, r = _COLOURS[kind]
        return int(b * 0.7), int(g * 0.7), int(r * 0.7)


def _to_px(h: np.ndarray, p: Any) -> tuple[int, int]:
    q = h @ np.array([p[0], p[1], 1.0])
    return int(round(q[0] + 0.5)), int(round(q[1] + 0.5))

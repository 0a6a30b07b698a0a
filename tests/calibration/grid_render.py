"""Synthetic camera frames of a square-grid board with a known homography (test helper).

A board of ``cols x rows`` squares (checkered, or coloured rows like Battle Grounds) with a
frame around it lies on a textured table. A pinhole camera looks at it from ``elevation``
degrees above the table (90 = straight down) and ``azimuth`` degrees around it; the frame is
rendered at twice the output size and shrunk by area averaging (anti-aliased edges), then
lit unevenly, blurred and given sensor noise.

``board_to_image`` maps board coordinates (squares, origin at the top-left grid corner, x
right and y down as printed) to output pixel coordinates in OpenCV's convention (the centre
of pixel ``(col, row)`` is the point ``(col, row)``).

:func:`expected_turn` and :func:`corner_error` judge a found pose against the truth, with
the orientation rule of :mod:`calibration.grid` worked out independently from the truth.

>>> frame = render_frame(np.random.default_rng(0), squares=(8, 8), elevation_deg=60.0)
>>> frame.image.shape
(720, 1280, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from calibration.pose import BoardPose

__all__ = [
    "RenderedBoard",
    "camera_homography",
    "corner_error",
    "expected_turn",
    "random_frame",
    "render_frame",
    "symmetries",
]

SIZE = (1280, 720)  # output width, height
SUPERSAMPLE = 2
TEXTURE_PX = 48  # texture pixels per square
FOCAL_PX = 1000.0

# (light, dark) square colours, BGR
CHECKER_COLOURS = [
    ((235, 235, 235), (30, 30, 30)),
    ((170, 215, 235), (60, 90, 140)),  # beige / brown wood
    ((210, 235, 235), (80, 140, 60)),  # cream / green tournament board
    ((200, 200, 200), (90, 60, 60)),
]
ROW_COLOURS = [
    (60, 60, 200),
    (60, 140, 240),
    (60, 220, 230),
    (80, 180, 80),
    (200, 120, 60),
    (160, 60, 140),
]


@dataclass(frozen=True)
class RenderedBoard:
    """One rendered frame and the truth behind it."""

    image: np.ndarray
    board_to_image: np.ndarray
    squares: tuple[int, int]
    elevation_deg: float
    azimuth_deg: float

    def corners_in_image(self) -> np.ndarray:
        """The four outer grid corners (TL, TR, BR, BL in board terms) in pixels."""
        c, r = self.squares
        pts = np.array([[0, 0], [c, 0], [c, r], [0, r]], float)
        return _apply(self.board_to_image, pts)


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = np.c_[pts, np.ones(len(pts))] @ h.T
    return q[:, :2] / q[:, 2:3]


def camera_homography(
    squares: tuple[int, int],
    elevation_deg: float,
    azimuth_deg: float,
    fill: float = 0.7,
    offset: tuple[float, float] = (0.5, 0.5),
    margin: float = 0.0,
) -> np.ndarray:
    """Board squares -> output pixels for a camera ``elevation_deg`` above the table.

    The bounding box of the board and its frame (``margin`` squares wide) fills ``fill`` of
    the image in its tighter direction; ``offset`` places the box in the free space (0 =
    left/top, 1 = right/bottom).
    """
    cols, rows = squares
    tilt = math.radians(90.0 - elevation_deg)
    az = math.radians(azimuth_deg)
    rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    rx = np.array(
        [[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)], [0, math.sin(tilt), math.cos(tilt)]]
    )
    r = rx @ rz
    centre = np.array([[1, 0, -cols / 2], [0, 1, -rows / 2], [0, 0, 1]], float)
    lo_, hi_ = -margin, margin
    corners = np.array(
        [[lo_, lo_], [cols + hi_, lo_], [cols + hi_, rows + hi_], [lo_, rows + hi_]], float
    )
    w, h = SIZE
    dist = 2.0 * max(cols, rows)
    for _ in range(6):  # the projected size is close to proportional to 1 / distance
        k = np.array([[FOCAL_PX, 0, 0], [0, FOCAL_PX, 0], [0, 0, 1]])
        hom = k @ np.c_[r[:, 0], r[:, 1], [0, 0, dist]] @ centre
        box = _apply(hom, corners)
        extent = box.max(axis=0) - box.min(axis=0)
        scale = max(extent[0] / w, extent[1] / h) / fill
        dist *= scale
    k = np.array([[FOCAL_PX, 0, 0], [0, FOCAL_PX, 0], [0, 0, 1]])
    hom = k @ np.c_[r[:, 0], r[:, 1], [0, 0, dist]] @ centre
    box = _apply(hom, corners)
    lo, hi = box.min(axis=0), box.max(axis=0)
    free = np.array([w, h], float) - (hi - lo)
    shift = np.array(offset) * free - lo
    move = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])
    hom = move @ hom
    return hom / hom[2, 2]


def _background(rng: np.random.Generator) -> np.ndarray:
    """A table: smooth blotches, wood-like streaks and a few sharp-edged objects (BGR)."""
    w, h = SIZE
    base = rng.uniform(40, 200, size=3)
    img = np.zeros((h, w, 3), np.float32) + base.astype(np.float32)
    for cells, amp in ((4, 40.0), (16, 25.0), (64, 12.0)):
        noise = rng.normal(0, amp, size=(cells * h // w + 1, cells, 1)).astype(np.float32)
        img += cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)[:, :, None]
    streaks = rng.normal(0, 6, size=(h, 1)).astype(np.float32)  # wood grain
    img += cv2.GaussianBlur(np.repeat(streaks, w, axis=1), (0, 0), 3)[:, :, None]
    for _ in range(int(rng.integers(2, 6))):  # objects with straight edges on the table
        colour = rng.uniform(0, 255, size=3).tolist()
        centre = rng.uniform([0, 0], [w, h])
        size = rng.uniform(40, 250, size=2)
        angle = float(rng.uniform(0, 180))
        box = cv2.boxPoints((tuple(centre), tuple(size), angle)).astype(np.int32)
        cv2.fillConvexPoly(img, box, colour, lineType=cv2.LINE_AA)
    return img


def _board_texture(
    rng: np.random.Generator, squares: tuple[int, int], margin: float, style: str
) -> np.ndarray:
    cols, rows = squares
    p = TEXTURE_PX
    m = round(margin * p)
    tex = np.zeros((rows * p + 2 * m, cols * p + 2 * m, 3), np.float32)
    frame = rng.uniform(20, 230, size=3)
    tex[:] = frame
    light, dark = CHECKER_COLOURS[int(rng.integers(len(CHECKER_COLOURS)))]
    for y in range(rows):
        for x in range(cols):
            if style == "rows":
                colour = ROW_COLOURS[(x + 2 * y) % len(ROW_COLOURS)]
            else:
                colour = light if (x + y) % 2 == 0 else dark
            tex[m + y * p : m + (y + 1) * p, m + x * p : m + (x + 1) * p] = colour
    return tex


def render_frame(
    rng: np.random.Generator,
    squares: tuple[int, int] = (8, 8),
    elevation_deg: float = 60.0,
    azimuth_deg: float = 0.0,
    fill: float = 0.7,
    offset: tuple[float, float] = (0.5, 0.5),
    blur_sigma: float = 1.0,
    noise_sigma: float = 3.0,
    margin: float = 0.5,
    style: str = "checkered",
) -> RenderedBoard:
    """Render one frame; ``rng`` draws the colours, the table and the noise."""
    w, h = SIZE
    s = SUPERSAMPLE
    m = round(margin * TEXTURE_PX) / TEXTURE_PX
    truth = camera_homography(squares, elevation_deg, azimuth_deg, fill, offset, m)
    tex = _board_texture(rng, squares, m, style)
    p = TEXTURE_PX
    board_to_tex = np.array([[p, 0, p * m - 0.5], [0, p, p * m - 0.5], [0, 0, 1]])
    low_to_high = np.array([[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1]])
    high_to_tex = board_to_tex @ np.linalg.inv(truth) @ np.linalg.inv(low_to_high)
    big = cv2.resize(_background(rng), (w * s, h * s), interpolation=cv2.INTER_LINEAR)
    cv2.warpPerspective(
        tex,
        high_to_tex,
        (w * s, h * s),
        dst=big,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    light = 1.0 - rng.uniform(0.1, 0.45) * ((xx - cx) ** 2 + (yy - cy) ** 2) / float(w * w + h * h)
    img *= light[:, :, None]
    if blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    img += rng.normal(0, noise_sigma, size=img.shape).astype(np.float32)
    image = np.clip(img, 0, 255).astype(np.uint8)
    return RenderedBoard(
        image, truth, (int(squares[0]), int(squares[1])), float(elevation_deg), float(azimuth_deg)
    )


def random_frame(
    seed: int,
    squares: tuple[int, int] = (8, 8),
    style: str = "checkered",
    elevation_deg: float | None = None,
) -> RenderedBoard:
    """A frame with everything drawn from ``seed``: elevation 30-90 degrees (unless given),
    any azimuth, board and frame filling 45-85% of the image anywhere in it, blur sigma
    0.5-1.5 px, noise sigma 2-6 grey levels."""
    rng = np.random.default_rng(seed)
    elevation = float(rng.uniform(30, 90))
    return render_frame(
        rng,
        squares=squares,
        elevation_deg=elevation if elevation_deg is None else float(elevation_deg),
        azimuth_deg=float(rng.uniform(0, 360)),
        fill=float(rng.uniform(0.45, 0.85)),
        offset=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1))),
        blur_sigma=float(rng.uniform(0.5, 1.5)),
        noise_sigma=float(rng.uniform(2, 6)),
        margin=float(rng.uniform(0.25, 0.8)),
        style=style,
    )


def symmetries(squares: tuple[int, int]) -> list[np.ndarray]:
    """The turns of the board rectangle onto itself that keep it unmirrored."""
    c, r = squares
    turns = [np.eye(3), np.array([[-1, 0, c], [0, -1, r], [0, 0, 1]], float)]
    if c == r:
        turns += [
            np.array([[0, 1, 0], [-1, 0, c], [0, 0, 1]], float),
            np.array([[0, -1, c], [1, 0, 0], [0, 0, 1]], float),
        ]
    return turns


def expected_turn(frame: RenderedBoard) -> np.ndarray:
    """The documented orientation rule, worked out from the truth: of the board's allowed
    turns, the one whose middle line along x (left edge to right edge) points most nearly
    to the image's right."""
    c, r = frame.squares

    def rightness(turn: np.ndarray) -> tuple[float, float]:
        to_image = frame.board_to_image @ np.linalg.inv(turn)
        a, b = _apply(to_image, np.array([[0, r / 2], [c, r / 2]], float))
        d = (b - a) / np.linalg.norm(b - a)
        return round(float(d[0]), 9), float(d[1])

    return max(symmetries(frame.squares), key=rightness)


def corner_error(pose: BoardPose, frame: RenderedBoard) -> float:
    """The largest distance, in squares, between where the pose puts the four true outer
    corners and where the orientation rule says they are."""
    c, r = frame.squares
    corners = np.array([[0, 0], [c, 0], [c, r], [0, r]], float)
    wanted = _apply(expected_turn(frame), corners)
    got = pose.to_board(frame.corners_in_image())
    return float(np.linalg.norm(got - wanted, axis=1).max())

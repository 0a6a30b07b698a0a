"""Synthetic camera frames of a marker kit with a known homography, for tests and benchmarks.

A simple board (squares, hexes, or a patch of ground for the field) and the kit's markers
(drawn with ``cv2.aruco.generateImageMarker``) are projected by a pinhole camera looking down
at the table from ``tilt`` degrees (90: straight down, 30: a low, slanting view) onto a
textured background, rendered at twice the resolution and averaged down (anti-aliasing),
then blurred and given sensor noise. The true board -> image homography comes back with the
image, so a found pose can be scored exactly. Everything is drawn from ``seed``.

Pixel convention: as in OpenCV, integer pixel coordinates are pixel centres.

>>> from calibration.markers import kit
>>> frame = render_frame(kit("battle-grounds-advanced"), seed=3)
>>> frame.image.shape, frame.image.dtype.name
((720, 1280, 3), 'uint8')
>>> bool(np.array_equal(render_frame(kit("battle-grounds-advanced"), seed=3).image, frame.image))
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.markers import MarkerSpec
from calibration.pose import BoardPose

__all__ = [
    "SceneConfig",
    "SyntheticFrame",
    "camera_homography",
    "render_frame",
    "render_with_homography",
    "check_points",
    "pose_errors",
]


@dataclass(frozen=True)
class SceneConfig:
    """How synthetic frames are drawn. Ranges are ``(low, high)``, drawn uniformly per frame.

    ``tilt``: camera elevation above the table in degrees; ``distance``: camera distance in
    board diagonals (smaller: stronger perspective); ``fill``: how much of the frame the kit
    spans; ``blur``: Gaussian sigma in pixels; ``noise``: sensor noise sigma in grey levels.
    """

    width: int = 1280
    height: int = 720
    tilt: tuple[float, float] = (30.0, 90.0)
    distance: tuple[float, float] = (1.2, 2.5)
    fill: tuple[float, float] = (0.55, 0.95)
    blur: tuple[float, float] = (0.3, 1.2)
    noise: tuple[float, float] = (1.0, 4.0)
    supersample: int = 2


@dataclass(frozen=True)
class SyntheticFrame:
    """A rendered frame, the true board -> image homography, the camera tilt used and (from
    :func:`render_frame`) the camera matrix of the distortion-free camera that saw it."""

    image: np.ndarray
    board_to_image: np.ndarray
    tilt: float
    spec: MarkerSpec
    camera_matrix: np.ndarray | None = None

    def true_pose(self) -> BoardPose:
        return BoardPose.from_homography(
            np.linalg.inv(self.board_to_image), self.spec.units, self.spec.size
        )


def _uniform(rng: np.random.Generator, span: tuple[float, float]) -> float:
    return float(rng.uniform(span[0], span[1])) if span[1] > span[0] else float(span[0])


def camera_homography(
    spec: MarkerSpec,
    rng: np.random.Generator,
    config: SceneConfig = SceneConfig(),
    tilt: float | None = None,
) -> tuple[np.ndarray, float, np.ndarray]:
    """A board -> image homography of a camera ``tilt`` degrees above the table (drawn from
    ``config.tilt`` when not given) at a random azimuth, framing the kit in the frame.

    Returns the homography, the tilt and the camera matrix of that (distortion-free) camera:
    the framing is a zoom and a shift of the principal point."""
    tilt = _uniform(rng, config.tilt) if tilt is None else float(tilt)
    if not 5.0 <= tilt <= 90.0:
        raise CalibrationError(
            f"the camera tilt must be 5 to 90 degrees above the table, got {tilt}"
        )
    x0, y0, x1, y1 = spec.extent()
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    diag = math.hypot(x1 - x0, y1 - y0)
    dist = _uniform(rng, config.distance) * diag
    az = rng.uniform(0, 2 * math.pi)
    e = math.radians(tilt)
    normal = np.array([0.0, 0.0, 1.0 if spec.y_up else -1.0])  # the side the printing faces
    horiz = np.array([math.cos(az), math.sin(az), 0.0])
    cam = dist * (math.cos(e) * -horiz + math.sin(e) * normal)
    forward = -cam / np.linalg.norm(cam)
    up = horiz - forward * float(horiz @ forward)
    up /= np.linalg.norm(up)
    y_c = -up
    x_c = np.cross(y_c, forward)
    rot = np.stack([x_c, y_c, forward])
    t = -rot @ cam
    shift = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1.0]])
    h = np.c_[rot[:, 0], rot[:, 1], t] @ shift  # normalised image coordinates
    ext = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    q = (h @ np.c_[ext, np.ones(4)].T).T
    q = q[:, :2] / q[:, 2:3]
    lo, hi = q.min(axis=0), q.max(axis=0)
    scale = _uniform(rng, config.fill) * min(
        config.width / (hi - lo)[0], config.height / (hi - lo)[1]
    )
    slack = np.array([config.width, config.height]) - scale * (hi - lo)
    offset = slack * rng.uniform(0.1, 0.9, size=2) - scale * lo - 0.5
    fit = np.array([[scale, 0, offset[0]], [0, scale, offset[1]], [0, 0, 1.0]])
    out = fit @ h
    return out / out[2, 2], tilt, fit


def _background(rng: np.random.Generator, w: int, h: int, outdoor: bool) -> np.ndarray:
    """A table (wood-like stripes) or ground (grass-like mottling) texture, uint8 BGR."""
    xx = np.arange(w, dtype=np.float32)[None, :]
    yy = np.arange(h, dtype=np.float32)[:, None]
    angle = rng.uniform(0, math.pi)
    coarse = cv2.resize(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (w, h))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5)
    if outdoor:
        base = np.array([60, 120, 80], np.float32) + rng.uniform(-20, 20, 3).astype(np.float32)
        tex = 25 * coarse + 30 * fine
    else:
        base = np.array([90, 140, 180], np.float32) + rng.uniform(-40, 40, 3).astype(np.float32)
        u = xx * math.cos(angle) + yy * math.sin(angle)
        tex = 18 * np.sin(u / rng.uniform(6, 20) + 3 * coarse) + 10 * fine
    img = base[None, None, :] + tex[:, :, None] * np.array([1.0, 0.9, 0.8], np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def _paper(spec: MarkerSpec) -> tuple[float, float, float, float]:
    """The sheet the board and its markers are printed on (board units)."""
    x0, y0, x1, y1 = spec.extent()
    pad = 0.25 * spec.marker_size
    return x0 - pad, y0 - pad, x1 + pad, y1 + pad


def _draw_board(
    spec: MarkerSpec, canvas: np.ndarray, to_px: np.ndarray, rng: np.random.Generator
) -> None:
    """Draw the playing surface into ``canvas`` (the paper; board -> canvas affine ``to_px``)."""

    def px(points: Iterable) -> np.ndarray:
        p = np.asarray(list(points), float)
        return np.round((p @ to_px[:2, :2].T + to_px[:2, 2]) * 16).astype(np.int32)

    canvas[:] = (225, 232, 236)
    if spec.units == "square":
        w, h = int(spec.size[0]), int(spec.size[1])
        colours = rng.integers(60, 200, size=(2, 3))
        for x in range(w):
            for y in range(h):
                cell = px([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)])
                cv2.fillPoly(
                    canvas, [cell], [int(v) for v in colours[(x + y) % 2]], cv2.LINE_AA, shift=4
                )
    elif spec.units == "hex":  # pointy-top, circumradius 1, hex 0101 at the origin
        cols = round(spec.size[0] / math.sqrt(3)) + 1
        rows = round(spec.size[1] / 1.5) + 1
        for r in range(rows):
            for c in range(cols):
                cx, cy = math.sqrt(3) * (c + 0.5 * (r % 2)), 1.5 * r
                hexagon = px(
                    (
                        cx + math.cos(math.radians(60 * k - 30)),
                        cy + math.sin(math.radians(60 * k - 30)),
                    )
                    for k in range(6)
                )
                fill = (200, 215, 190) if rng.random() > 0.08 else (90, 90, 200)
                cv2.fillPoly(canvas, [hexagon], fill, cv2.LINE_AA, shift=4)
                cv2.polylines(canvas, [hexagon], True, (60, 60, 60), 1, cv2.LINE_AA, shift=4)


def _marker_bitmap(spec: MarkerSpec, marker_id: int, cell_px: int) -> tuple[np.ndarray, int]:
    """The marker with one module of white around it, and its width in modules (no margin)."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    bits = dictionary.markerSize + 2
    ink = cv2.aruco.generateImageMarker(dictionary, marker_id, bits * cell_px, borderBits=1)
    ink = (ink.astype(np.float32) * 0.85 + 20).astype(np.uint8)  # printed black is not black
    return cv2.copyMakeBorder(
        ink, cell_px, cell_px, cell_px, cell_px, cv2.BORDER_CONSTANT, value=236
    ), bits


def _warp_into(frame: np.ndarray, src: np.ndarray, m: np.ndarray, corners: np.ndarray) -> None:
    """Warp ``src`` through ``m`` onto ``frame`` (in place) where it lands; elsewhere the
    frame is left as it is (a transparent border)."""
    h, w = frame.shape[:2]
    lo = np.maximum(np.floor(corners.min(axis=0)).astype(int) - 2, 0)
    hi = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 3, [w, h])
    if np.any(hi <= lo):
        return
    shift = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1.0]])
    roi = np.ascontiguousarray(frame[lo[1] : hi[1], lo[0] : hi[0]])
    cv2.warpPerspective(
        src,
        shift @ m,
        (roi.shape[1], roi.shape[0]),
        dst=roi,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    frame[lo[1] : hi[1], lo[0] : hi[0]] = roi


def _project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = (h @ np.c_[pts, np.ones(len(pts))].T).T
    return q[:, :2] / q[:, 2:3]


def render_with_homography(
    spec: MarkerSpec,
    board_to_image: np.ndarray,
    seed: int,
    config: SceneConfig = SceneConfig(),
    hide: Iterable[int] = (),
    tilt: float = float("nan"),
) -> SyntheticFrame:
    """Render the kit as seen through ``board_to_image``; markers in ``hide`` are covered by a
    hand-like blob (the same seed gives the same textures, blur and noise)."""
    rng = np.random.default_rng(seed)
    s = config.supersample
    w, h = config.width, config.height
    to_ss = np.array(
        [[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1.0]]
    )  # frame px -> supersampled px
    hb = to_ss @ board_to_image
    frame = cv2.resize(
        _background(rng, w, h, spec.units == "inch"), (w * s, h * s), interpolation=cv2.INTER_LINEAR
    )
    if spec.units == "inch":  # each marker on its own sheet, lying on the ground
        for marker_id in spec.ids:
            c = spec.marker_corners(marker_id)
            lo, hi = c.min(axis=0) - 0.2 * spec.marker_size, c.max(axis=0) + 0.2 * spec.marker_size
            sheet = _project(
                hb, np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
            )
            cv2.fillPoly(
                frame,
                [np.round(sheet * 16).astype(np.int32)],
                (235, 238, 240),
                cv2.LINE_AA,
                shift=4,
            )
    else:  # the paper, drawn at about the frame's resolution where it is nearest
        x0, y0, x1, y1 = _paper(spec)
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        q = _project(hb, corners)
        reach = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).max()
        ppu = min(1.5 * reach / max(x1 - x0, y1 - y0), 3000.0 / max(x1 - x0, y1 - y0))
        to_px = np.array([[ppu, 0, -ppu * x0 - 0.5], [0, ppu, -ppu * y0 - 0.5], [0, 0, 1.0]])
        canvas = np.zeros((math.ceil(ppu * (y1 - y0)), math.ceil(ppu * (x1 - x0)), 3), np.uint8)
        _draw_board(spec, canvas, to_px, rng)
        _warp_into(frame, canvas, hb @ np.linalg.inv(to_px), q)
    cell = 24
    for marker_id in spec.ids:
        bitmap, bits = _marker_bitmap(spec, marker_id, cell)
        n = bits * cell  # the marker proper; bitmap pixel (cell, cell) is its top-left pixel
        corners = spec.marker_corners(marker_id)
        # bitmap pixel centres <-> marker corners: the marker's outer edge lies at cell - 0.5
        src = np.array([[-0.5, -0.5], [n - 0.5, -0.5], [n - 0.5, n - 0.5], [-0.5, n - 0.5]]) + cell
        to_board = cv2.getPerspectiveTransform(src.astype(np.float32), corners.astype(np.float32))
        pad = bitmap.shape[0] - 0.5
        outline = _project(
            hb @ to_board, np.array([[-0.5, -0.5], [pad, -0.5], [pad, pad], [-0.5, pad]])
        )
        _warp_into(frame, cv2.cvtColor(bitmap, cv2.COLOR_GRAY2BGR), hb @ to_board, outline)
    for marker_id in hide:
        _draw_hand(frame, hb, spec, marker_id, rng)
    small = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    shade = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), w, dtype=np.float32)
    small *= shade[None, :, None]
    sigma = _uniform(rng, config.blur)
    if sigma > 0:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    small += rng.normal(0, _uniform(rng, config.noise), small.shape).astype(np.float32)
    image = np.clip(np.round(small), 0, 255).astype(np.uint8)
    return SyntheticFrame(image, board_to_image / board_to_image[2, 2], tilt, spec)


def _draw_hand(
    frame: np.ndarray, hb: np.ndarray, spec: MarkerSpec, marker_id: int, rng: np.random.Generator
) -> None:
    """Cover a marker with a skin-coloured palm and fingers."""
    corners = spec.marker_corners(marker_id)
    q = (hb @ np.c_[corners, np.ones(4)].T).T
    q = q[:, :2] / q[:, 2:3]
    centre = q.mean(axis=0)
    r = float(np.linalg.norm(q - centre, axis=1).max()) * 1.3
    colour = (
        float(rng.uniform(90, 140)),
        float(rng.uniform(130, 170)),
        float(rng.uniform(190, 230)),
    )
    c = tuple(int(v) for v in centre)
    cv2.ellipse(
        frame,
        c,
        (int(r), int(r * 0.9)),
        float(rng.uniform(0, 180)),
        0,
        360,
        colour,
        -1,
        cv2.LINE_AA,
    )
    for k in range(4):
        angle = rng.uniform(0, 2 * math.pi)
        end = (int(c[0] + 2.2 * r * math.cos(angle)), int(c[1] + 2.2 * r * math.sin(angle)))
        cv2.line(frame, c, end, colour, max(2, int(r * 0.45)), cv2.LINE_AA)


def render_frame(
    spec: MarkerSpec,
    seed: int,
    config: SceneConfig = SceneConfig(),
    tilt: float | None = None,
    hide: Iterable[int] = (),
) -> SyntheticFrame:
    """A frame of the kit seen from a random camera (tilt drawn from ``config.tilt`` unless
    given), deterministic for ``seed``."""
    rng = np.random.default_rng([seed, 7])
    board_to_image, used_tilt, camera_matrix = camera_homography(spec, rng, config, tilt)
    frame = render_with_homography(spec, board_to_image, seed, config, hide, used_tilt)
    return replace(frame, camera_matrix=camera_matrix)


def check_points(spec: MarkerSpec, step: float = 1.0) -> np.ndarray:
    """Points to score a pose on: the board's four corners and a lattice ``step`` apart over
    the board's ``size`` rectangle (grid intersections; inches on the field)."""
    w, h = spec.size
    xs = np.arange(0.0, w + 1e-9, step)
    ys = np.arange(0.0, h + 1e-9, step)
    lattice = np.array([(x, y) for y in ys for x in xs])
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    return np.vstack([corners, lattice])


def pose_errors(
    pose: BoardPose, frame: SyntheticFrame, points: np.ndarray | None = None
) -> np.ndarray:
    """Distances, in board units, between ``points`` and where ``pose`` puts their true image
    positions (the image of each point under the true homography, mapped back by the pose)."""
    pts = check_points(frame.spec) if points is None else np.asarray(points, float)
    q = (frame.board_to_image @ np.c_[pts, np.ones(len(pts))].T).T
    seen = q[:, :2] / q[:, 2:3]
    return np.linalg.norm(pose.to_board(seen) - pts, axis=1)

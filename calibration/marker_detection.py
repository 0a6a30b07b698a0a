"""Finding the kits' ArUco markers in a frame, corners refined to sub-pixel.

OpenCV's detector finds the markers; each marker's corners are then refined by fitting
straight lines to its four outer edges (:func:`refine_marker_edges`). Part of
:mod:`calibration.markers`, which re-exports every name here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.marker_spec import DICTIONARY

__all__ = [
    "MarkerConfig",
    "MarkerSighting",
    "PointUndistorter",
    "as_gray",
    "detect_markers",
    "read_image",
    "refine_marker_edges",
]


@dataclass(frozen=True)
class MarkerConfig:
    """Detection and acceptance settings.

    ``min_coverage``: refuse a board covering less of the frame than this (its squares or hexes
    would be a few pixels wide). ``max_residual_px``: refuse (or drop one marker of) a fit whose
    marker corners disagree by more than this RMS, in pixels: well-found corners agree to a
    fraction of a pixel, so a larger figure means a moved marker or a bent board.
    ``refine_window``: half-size of the sub-pixel corner search, in pixels. ``edge_refine``:
    after OpenCV's sub-pixel corners, fit a straight line to each outer edge of the marker's
    black border and intersect them (see :func:`refine_marker_edges`).
    """

    min_coverage: float = 0.05
    max_residual_px: float = 3.0
    refine_window: int = 5
    min_perimeter_rate: float = 0.03
    edge_refine: bool = True
    edge_pad_px: int = 8


@dataclass(frozen=True)
class MarkerSighting:
    """The markers found in one frame: ``ids`` (N,) and ``corners`` (N, 4, 2) pixels in ArUco
    order, plus the frame's ``(width, height)``."""

    ids: np.ndarray
    corners: np.ndarray
    frame_size: tuple[int, int]

    def __post_init__(self) -> None:
        if self.ids.shape != (len(self.corners),) or self.corners.shape[1:] != (4, 2):
            raise CalibrationError(
                f"marker sighting: ids {self.ids.shape} and corners {self.corners.shape} disagree"
            )

    def __len__(self) -> int:
        return len(self.ids)

    def corners_of(self, marker_id: int) -> np.ndarray | None:
        hits = np.flatnonzero(self.ids == marker_id)
        return self.corners[hits[0]] if len(hits) else None

    def only(self, ids: Any) -> MarkerSighting:
        """The sighting restricted to ``ids`` (e.g. to hide markers in a test)."""
        keep = np.isin(self.ids, list(ids))
        return MarkerSighting(self.ids[keep], self.corners[keep], self.frame_size)


class PointUndistorter(Protocol):
    """Anything that maps distorted pixel points (N x 2) to undistorted ones (a camera
    calibration from :mod:`calibration.camera`)."""

    def undistort_points(
        self, points: Any, image_size: tuple[int, int] | None = None
    ) -> np.ndarray: ...


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file (BGR), or raise a :class:`CalibrationError` saying what is wrong."""
    p = Path(path)
    if not p.exists():
        raise CalibrationError(f"{p}: no such file: check the path")
    if p.is_dir():
        raise CalibrationError(f"{p}: is a folder, not an image file")
    data = np.fromfile(str(p), dtype=np.uint8) if p.stat().st_size else np.zeros(0, np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise CalibrationError(f"{p}: not a readable image (use a PNG or JPEG photo of the board)")
    return image


def as_gray(image: Any) -> np.ndarray:
    """A uint8 grey copy of a frame; refuses empty or malformed frames with a clear error."""
    if image is None:
        raise CalibrationError("empty frame: no image was given (is the camera connected?)")
    a = np.asarray(image)
    if a.size == 0 or a.ndim not in (2, 3) or min(a.shape[:2]) < 8:
        raise CalibrationError(
            f"empty frame (shape {a.shape}): is the camera connected and the lens uncovered?"
        )
    if a.ndim == 3 and a.shape[2] not in (1, 3, 4):
        raise CalibrationError(f"a frame must be grey, BGR or BGRA, got {a.shape[2]} channels")
    if a.dtype != np.uint8:
        if not np.issubdtype(a.dtype, np.number):
            raise CalibrationError(f"a frame must hold numbers, got {a.dtype}")
        top = 1.0 if a.dtype.kind == "f" and float(np.nanmax(a)) <= 1.0 else 255.0
        a = np.clip(np.nan_to_num(a.astype(float)) * (255.0 / top), 0, 255).astype(np.uint8)
    if a.ndim == 3:
        a = (
            a[:, :, 0]
            if a.shape[2] == 1
            else cv2.cvtColor(a, cv2.COLOR_BGRA2GRAY if a.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
        )
    return a


@lru_cache(maxsize=8)
def _detector(dictionary: str, config: MarkerConfig) -> Any:
    try:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    except AttributeError:
        raise CalibrationError(
            f"unknown ArUco dictionary {dictionary!r} (e.g. DICT_4X4_50)"
        ) from None
    return _make_detector(d, config)


def _make_detector(dictionary: Any, config: MarkerConfig) -> Any:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = int(config.refine_window)
    params.cornerRefinementMinAccuracy = 0.01
    params.cornerRefinementMaxIterations = 50
    params.minMarkerPerimeterRate = float(config.min_perimeter_rate)
    # Keep nested candidates (a marker's border and the edge of the paper it is printed on):
    # duplicates are settled below by which one has a marker's edges.
    params.minMarkerDistanceRate = 0.02
    # Read each bit from 8 x 8 pixels of the rectified marker (default 4): small, slanted
    # markers (a far corner seen at 30 degrees) decode far more often.
    params.perspectiveRemovePixelPerCell = 8
    # Threshold windows of 3 and 13 pixels (default also 23): as many markers found on the
    # synthetic benchmark and the real photos, in half the time.
    params.adaptiveThreshWinSizeMax = 13
    return cv2.aruco.ArucoDetector(dictionary, params)


def detect_markers(
    image: Any, dictionary: Any = DICTIONARY, config: MarkerConfig = MarkerConfig(), zoom: int = 1
) -> MarkerSighting:
    """Find ArUco markers in a frame, corners refined to sub-pixel.

    ``dictionary`` is a predefined dictionary's name (``"DICT_4X4_50"``) or a
    ``cv2.aruco.Dictionary`` (e.g. read from a file). ``zoom``: look at the frame enlarged
    this many times (bicubic), for markers too small or slanted to decode at its own size: a
    far corner seen low over the table, whose bits are a pixel or two (four times the
    pixels to search: for a frame where too few markers were found). The corners are given
    in the frame's own pixels either way.
    """
    gray = as_gray(image)
    size = (int(gray.shape[1]), int(gray.shape[0]))
    zoom = max(1, int(zoom))
    if zoom > 1:
        gray = cv2.resize(gray, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    detector = (
        _detector(dictionary, config)
        if isinstance(dictionary, str)
        else _make_detector(dictionary, config)
    )
    pad = max(0, int(config.edge_pad_px))
    if pad:
        gray = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=128)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None or len(ids) == 0:
        return MarkerSighting(np.zeros(0, int), np.zeros((0, 4, 2)), size)
    ids = np.asarray(ids, int).ravel()
    pts = np.asarray(corners, float).reshape(-1, 4, 2)
    d = (
        dictionary
        if not isinstance(dictionary, str)
        else cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    )
    modules = int(d.markerSize) + 2
    scores = np.ones(len(ids))
    if config.edge_refine:
        for k in range(len(ids)):
            pts[k], scores[k] = refine_marker_edges(gray, pts[k], modules)
    keep = []
    for marker_id in dict.fromkeys(ids.tolist()):  # a duplicated id: keep the sharpest marker edges
        hits = np.flatnonzero(ids == marker_id)
        keep.append(int(hits[np.argmax(scores[hits])]))
    keep.sort()
    # pixel centres: x in the enlarged frame is zoom * x + (zoom - 1) / 2 in the frame's own
    return MarkerSighting(ids[keep], (pts[keep] - pad - (zoom - 1) / 2) / zoom, size)


def refine_marker_edges(
    gray: np.ndarray, quad: np.ndarray, modules: int = 6
) -> tuple[np.ndarray, float]:
    """Corners from straight lines fitted to a marker's four outer edges.

    Along each side, the image is sampled across the edge; the edge is where the brightness
    rises fastest from the black border to the white margin (sub-pixel, by a parabola through
    the peak). A line fitted to those points per side, intersected with its neighbours, gives
    corners free of the bias corner detectors show on blurred, slanted corners. A first pass
    searches from one module inside to 1.3 modules outside the given quad (a candidate may
    follow the paper's outline, or shrink with the blur), a second pass half a module either
    side of the first result. ``modules``: the marker's width in bits, border included.

    Returns the corners and a score (edge contrast; 0 when the quad has no dark-inside,
    light-outside edges, as for the outline of the paper a marker is printed on). Falls back
    to the given corners, with score 0, when an edge cannot be measured.
    """
    quad = np.asarray(quad, float).reshape(4, 2)
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    if lengths.min() < 6:
        return quad, 0.0
    module = lengths.min() / modules
    # Inwards the next rising edge is two modules in (the border is one module wide);
    # outwards the kit keeps a white margin of at least one module.
    first = _edge_pass(gray, quad, -max(1.0, module), max(1.5, 1.3 * module))
    if first is None:
        return quad, 0.0
    second = _edge_pass(gray, first[0], -max(1.0, 0.5 * module), max(1.0, 0.5 * module))
    if second is None or np.abs(second[0] - quad).max() > 2.5 * module + 1:
        return quad, 0.0
    return second


def _edge_pass(
    gray: np.ndarray, quad: np.ndarray, inner: float, outer: float
) -> tuple[np.ndarray, float] | None:
    """One refinement pass over the four sides at once (offsets ``inner``..``outer`` pixels
    along each side's outward normal)."""
    sides = np.roll(quad, -1, axis=0) - quad
    lengths = np.linalg.norm(sides, axis=1)
    direction = sides / lengths[:, None]
    normal = np.stack([direction[:, 1], -direction[:, 0]], axis=1)
    outward = np.einsum("ij,ij->i", normal, quad + sides / 2 - quad.mean(axis=0)) >= 0
    normal[~outward] *= -1
    n = int(np.clip(lengths.min() / 2, 8, 32))
    t = np.linspace(0.12, 0.88, n)
    base = quad[:, None, :] + t[None, :, None] * sides[:, None, :]  # 4 x n x 2
    steps = np.arange(inner, outer + 1e-9, 0.25)
    where = (base[:, :, None, :] + steps[None, None, :, None] * normal[:, None, None, :]).reshape(
        4 * n, len(steps), 2
    )
    profile = cv2.remap(
        gray, where[..., 0].astype(np.float32), where[..., 1].astype(np.float32), cv2.INTER_LINEAR
    )
    grad = (profile[:, 2:].astype(np.float32) - profile[:, :-2]) / 0.5  # grey levels per pixel
    peak = np.argmax(grad, axis=1)
    rows = np.arange(len(grad))
    inside = (peak > 0) & (peak < grad.shape[1] - 1)
    pk = np.clip(peak, 1, grad.shape[1] - 2)
    g0, g1, g2 = grad[rows, pk - 1], grad[rows, pk], grad[rows, pk + 1]
    denom = g0 - 2 * g1 + g2
    frac = np.where(np.abs(denom) > 1e-6, 0.5 * (g0 - g2) / np.where(denom == 0, 1.0, denom), 0.0)
    offset = steps[pk + 1] + np.clip(frac, -0.5, 0.5) * 0.25
    good = inside & (g1 > 8.0)  # a printed edge, not noise
    points = base.reshape(-1, 2) + offset[:, None] * np.repeat(normal, n, axis=0)
    lines, contrast = [], []
    for k in range(4):
        mask = good[k * n : (k + 1) * n]
        line = _fit_line(points[k * n : (k + 1) * n][mask]) if mask.sum() >= 5 else None
        if line is None:
            return None
        lines.append(line)
        contrast.append(float(g1[k * n : (k + 1) * n][mask].mean()) * mask.sum() / n)
    corners = np.array([_intersect(lines[k - 1], lines[k]) for k in range(4)])
    if not np.all(np.isfinite(corners)):
        return None
    return corners, float(min(contrast))


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A point and unit direction of the total-least-squares line, after dropping outliers."""
    keep = np.ones(len(points), bool)
    for _ in range(3):
        p = points[keep]
        c = p.mean(axis=0)
        d = p - c
        sxx, syy, sxy = float(d[:, 0] @ d[:, 0]), float(d[:, 1] @ d[:, 1]), float(d[:, 0] @ d[:, 1])
        theta = 0.5 * math.atan2(2 * sxy, sxx - syy)
        u = np.array([math.cos(theta), math.sin(theta)])
        dist = np.abs((points - c) @ np.array([-u[1], u[0]]))
        mid = len(dist) // 2
        new = dist < max(0.5, 3 * 1.4826 * float(np.partition(dist, mid)[mid]))  # 3 robust sigmas
        if new.sum() < 5:
            return None
        if np.array_equal(new, keep):
            break
        keep = new
    return c, u


def _intersect(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    (p, d), (q, e) = a, b
    m = np.array([d, -e]).T
    if abs(np.linalg.det(m)) < 1e-9:
        return np.array([np.nan, np.nan])
    t = np.linalg.solve(m, q - p)
    return p + t[0] * d

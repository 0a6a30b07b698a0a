"""Fiducial markers: the kits' marker specification, detection, and the board pose they give.

Every printed kit carries ArUco markers from OpenCV's ``DICT_4X4_50`` dictionary (4x4 bits,
50 ids, robust at small sizes). Each board kind has its own ids, so a marker from another
game's kit is recognised as such. The specification lives here as data
(:class:`MarkerSpec`): the kit printer and the detector read the same numbers.

==========================  =========  ====================================================
kit                         ids        board units and size
==========================  =========  ====================================================
OneWorld map (14 x 23)      0-3        hexes (circumradius 15 mm), markers 40 mm
When Gods Collide tile mat  4-7        16 x 16 squares of 30 mm (the 2 x 2 tiles lie on it)
Wormholes galaxy            8-11       10 x 18 cells of 1 inch (piecepack tiles)
Battle Grounds basic        12-15      6 x 7 squares of 40 mm
Battle Grounds advanced     16-19      8 x 8 squares of 40 mm
The Game field              40-43      24 x 24 inches (any size), markers 3 inches
The Game scale marker       44         one 6 inch marker beside the field
==========================  =========  ====================================================

Ids 20-39 and 45-49 are reserved for later kits. The four markers of a kit are listed
top-left, top-right, bottom-right, bottom-left (board coordinates); each sits outside the
playing area, diagonally off its corner, with its inner corner ``gap`` away from the
area's corner along both edges. docs/calibration.md has the drawings and the printing rules.

>>> spec = kit("battle-grounds-advanced")
>>> spec.ids, spec.units, spec.size
((16, 17, 18, 19), 'square', (8.0, 8.0))
>>> spec.marker_corners(16).round(3).tolist()  # 30 mm marker, 5 mm gap, 40 mm squares
[[-0.875, -0.875], [-0.125, -0.875], [-0.125, -0.125], [-0.875, -0.125]]
>>> owner_of(41).name
'the-game-field'
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.pose import BoardPose, PoseQuality

__all__ = [
    "DICTIONARY",
    "MarkerSpec",
    "KITS",
    "kit",
    "kits_for_game",
    "owner_of",
    "oneworld_map_spec",
    "field_spec",
    "scale_marker_spec",
    "MarkerConfig",
    "MarkerSighting",
    "PointUndistorter",
    "read_image",
    "as_gray",
    "detect_markers",
    "refine_marker_edges",
    "MarkerFit",
    "MarkerWarning",
    "fit_markers",
    "locate_board",
    "pose_from_markers",
]

#: The ArUco dictionary of every kit.
DICTIONARY = "DICT_4X4_50"

_CORNER_NAMES = {"tl": "top-left", "tr": "top-right", "br": "bottom-right", "bl": "bottom-left"}
_FIELD_NAMES = {"tl": "near-left", "tr": "near-right", "br": "far-right", "bl": "far-left"}
_SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class MarkerSpec:
    """Where a kit's markers lie in board coordinates, and what the board is.

    ``area`` is the playing area ``(x0, y0, x1, y1)`` in board units (for a hex map the printed
    hexes, whose board origin is the centre of hex 0101); ``places`` says at which corner of
    the area each marker of ``ids`` sits (``tl``, ``tr``, ``br``, ``bl``: the corners
    ``(x0, y0)``, ``(x1, y0)``, ``(x1, y1)``, ``(x0, y1)``). Markers are printed ``marker_mm``
    wide, ``gap_mm`` off the area's corner; ``unit_mm`` is one board unit in millimetres.
    ``y_up`` marks a layout read with board ``y`` pointing up the printed marker (The Game's
    field: ``y`` grows away from the near edge, markers read upright from the near edge).
    ``size`` and ``units`` are those of the resulting :class:`~calibration.pose.BoardPose`.
    """

    name: str
    game: str
    title: str
    ids: tuple[int, ...]
    places: tuple[str, ...]
    area: tuple[float, float, float, float]
    units: str
    size: tuple[float, float]
    unit_mm: float
    marker_mm: float
    gap_mm: float
    y_up: bool = False
    dictionary: str = DICTIONARY

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.places) or not self.ids:
            raise CalibrationError(f"marker spec {self.name}: one place per marker id is needed")
        if any(p not in _CORNER_NAMES for p in self.places):
            raise CalibrationError(f"marker spec {self.name}: places must be tl, tr, br or bl")
        if min(self.unit_mm, self.marker_mm) <= 0 or self.gap_mm < 0:
            raise CalibrationError(f"marker spec {self.name}: sizes must be positive")

    @property
    def min_markers(self) -> int:
        """Markers needed for a pose: 3 of 4 corner markers, or the one scale marker."""
        return min(3, len(self.ids))

    @property
    def marker_size(self) -> float:
        """A marker's side in board units."""
        return self.marker_mm / self.unit_mm

    def with_marker_mm(self, marker_mm: float) -> MarkerSpec:
        """The same kit printed with markers ``marker_mm`` wide (same gap)."""
        if not marker_mm > 0:
            raise CalibrationError(
                f"the marker size must be a positive number of mm, got {marker_mm}"
            )
        return replace(self, marker_mm=float(marker_mm))

    def place_name(self, marker_id: int) -> str:
        """``"top-left"`` ... (``"near-left"`` ... on the field; ``"scale"`` for a lone marker)."""
        if len(self.ids) == 1:
            return "scale"
        place = self.places[self.ids.index(marker_id)]
        return (_FIELD_NAMES if self.y_up else _CORNER_NAMES)[place]

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The 4 x 2 board coordinates of a marker's corners in ArUco order (the printed
        marker's top-left, top-right, bottom-right, bottom-left)."""
        if marker_id not in self.ids:
            raise CalibrationError(f"marker id {marker_id} is not one of {self.title}'s markers")
        place = self.places[self.ids.index(marker_id)]
        x0, y0, x1, y1 = self.area
        m, g = self.marker_size, self.gap_mm / self.unit_mm
        left = x0 - g - m if place in ("tl", "bl") else x1 + g
        low = y0 - g - m if place in ("tl", "tr") else y1 + g  # the smaller board y
        square = np.array([[left, low], [left + m, low], [left + m, low + m], [left, low + m]])
        if self.y_up:  # printed top points to growing y
            square = square[[3, 2, 1, 0]]
        return square

    def extent(self) -> tuple[float, float, float, float]:
        """Bounding box of the playing area and all markers, in board units."""
        pts = np.vstack([self.marker_corners(i) for i in self.ids] + [self.area_corners()])
        return (*pts.min(axis=0).tolist(), *pts.max(axis=0).tolist())  # type: ignore[return-value]

    def area_corners(self) -> np.ndarray:
        """The playing area's corners ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``."""
        x0, y0, x1, y1 = self.area
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)

    def describe_ids(self) -> str:
        """``"ids 0-3"`` or ``"id 44"``."""
        if len(self.ids) == 1:
            return f"id {self.ids[0]}"
        lo, hi = min(self.ids), max(self.ids)
        if hi - lo + 1 == len(self.ids):
            return f"ids {lo}-{hi}"
        return "ids " + ", ".join(map(str, self.ids))


def oneworld_map_spec(columns: int = 14, rows: int = 23, hex_mm: float = 15.0) -> MarkerSpec:
    """The OneWorld map kit for a map of ``columns`` x ``rows`` hexes (circumradius ``hex_mm``).

    Board units are hex circumradii with the origin at the centre of hex 0101; the pose's
    size is the span of the corner hexes' centres, ``((columns - 1) * sqrt 3, 1.5 * (rows - 1))``.
    The printed hexes reach half a hex width further left, a whole width further right (even
    rows are shifted east) and one unit above and below.
    """
    if columns < 1 or rows < 1:
        raise CalibrationError("a hex map needs at least one column and one row")
    right = (columns - 1) * _SQRT3 + (_SQRT3 if rows > 1 else _SQRT3 / 2)
    return MarkerSpec(
        name="oneworld-map",
        game="oneworld",
        title="OneWorld's map",
        ids=(0, 1, 2, 3),
        places=("tl", "tr", "br", "bl"),
        area=(-_SQRT3 / 2, -1.0, right, 1.5 * (rows - 1) + 1.0),
        units="hex",
        size=((columns - 1) * _SQRT3, 1.5 * (rows - 1)),
        unit_mm=hex_mm,
        marker_mm=40.0,
        gap_mm=7.0,
    )


def _square_kit(
    name: str, game: str, title: str, first: int, cols: int, rows: int, mm: float
) -> MarkerSpec:
    return MarkerSpec(
        name=name,
        game=game,
        title=title,
        ids=(first, first + 1, first + 2, first + 3),
        places=("tl", "tr", "br", "bl"),
        area=(0.0, 0.0, float(cols), float(rows)),
        units="square",
        size=(float(cols), float(rows)),
        unit_mm=mm,
        marker_mm=30.0,
        gap_mm=5.0,
    )


def field_spec(width: float = 24.0, depth: float = 24.0, marker_mm: float = 76.2) -> MarkerSpec:
    """The Game's field: ``width`` x ``depth`` inches, a marker off each corner.

    Board coordinates are :class:`rules.geometry.FieldPoint` inches: origin at the near-left
    corner, ``x`` along the near edge, ``y`` away from it. The markers (3 inches by default)
    are read upright from the near edge and sit half an inch off the corners.
    """
    if not (width > 0 and depth > 0):
        raise CalibrationError(f"the field size must be positive inches, got {width} x {depth}")
    return MarkerSpec(
        name="the-game-field",
        game="the-game",
        title="The Game's field",
        ids=(40, 41, 42, 43),
        places=("tl", "tr", "br", "bl"),
        area=(0.0, 0.0, float(width), float(depth)),
        units="inch",
        size=(float(width), float(depth)),
        unit_mm=25.4,
        marker_mm=float(marker_mm),
        gap_mm=12.7,
        y_up=True,
    )


def scale_marker_spec(
    width: float = 24.0, depth: float = 24.0, marker_mm: float = 152.4
) -> MarkerSpec:
    """The Game's one-marker set-up: marker 44 (6 inches by default) lies outside the near-left
    corner of the field, its near-right... far-right corner half an inch diagonally off it, read
    upright from the near edge: the field is the ``width`` x ``depth`` rectangle beyond it."""
    base = field_spec(width, depth)
    return replace(
        base,
        name="the-game-scale",
        title="The Game's scale marker",
        ids=(44,),
        places=("tl",),
        marker_mm=float(marker_mm),
    )


#: Every kit, by name.
KITS: dict[str, MarkerSpec] = {
    s.name: s
    for s in (
        oneworld_map_spec(),
        _square_kit(
            "when-gods-collide-mat",
            "when-gods-collide",
            "When Gods Collide's tile mat",
            4,
            16,
            16,
            30.0,
        ),
        _square_kit("wormholes-galaxy", "wormholes", "Wormholes' galaxy", 8, 10, 18, 25.4),
        _square_kit(
            "battle-grounds-basic", "battle-grounds", "Battle Grounds' basic board", 12, 6, 7, 40.0
        ),
        _square_kit(
            "battle-grounds-advanced",
            "battle-grounds",
            "Battle Grounds' advanced board",
            16,
            8,
            8,
            40.0,
        ),
        field_spec(),
        scale_marker_spec(),
    )
}


def kit(name: str) -> MarkerSpec:
    """The kit called ``name`` (see :data:`KITS`)."""
    try:
        return KITS[name]
    except KeyError:
        raise CalibrationError(
            f"unknown marker kit {name!r} (known kits: {', '.join(KITS)})"
        ) from None


def kits_for_game(game: str) -> tuple[MarkerSpec, ...]:
    """The board kits of ``game`` (the field's scale marker is not a board kit)."""
    found = tuple(s for s in KITS.values() if s.game == game and len(s.ids) > 1)
    if not found:
        games = sorted({s.game for s in KITS.values()})
        raise CalibrationError(
            f"no marker kit for game {game!r} (kits exist for: {', '.join(games)})"
        )
    return found


def owner_of(marker_id: int) -> MarkerSpec | None:
    """The kit a marker id belongs to, if any."""
    for spec in KITS.values():
        if marker_id in spec.ids:
            return spec
    return None


# -- detection --------------------------------------------------------------------------


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
    image: Any, dictionary: Any = DICTIONARY, config: MarkerConfig = MarkerConfig()
) -> MarkerSighting:
    """Find ArUco markers in a frame, corners refined to sub-pixel.

    ``dictionary`` is a predefined dictionary's name (``"DICT_4X4_50"``) or a
    ``cv2.aruco.Dictionary`` (e.g. read from a file).
    """
    gray = as_gray(image)
    detector = (
        _detector(dictionary, config)
        if isinstance(dictionary, str)
        else _make_detector(dictionary, config)
    )
    corners, ids, _ = detector.detectMarkers(gray)
    size = (int(gray.shape[1]), int(gray.shape[0]))
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
    return MarkerSighting(ids[keep], pts[keep], size)


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


# -- pose from markers ------------------------------------------------------------------


class MarkerWarning(UserWarning):
    """A pose was found, but not from every marker (one hidden or ignored)."""


@dataclass(frozen=True)
class MarkerFit:
    """A board pose found from markers, and which markers it rests on.

    ``used``: ids the homography was fitted to; ``hidden``: the kit's ids not seen;
    ``ignored``: ids seen but dropped because they disagreed with the others; ``notes``:
    sentences for the user (which marker is hidden, which was ignored).
    """

    pose: BoardPose
    used: tuple[int, ...]
    hidden: tuple[int, ...]
    ignored: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def _describe_hidden(spec: MarkerSpec, hidden: list[int]) -> str:
    parts = [f"the {spec.place_name(i)} marker (id {i})" for i in hidden]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{text} {'is' if len(parts) == 1 else 'are'} hidden"


def _not_enough(spec: MarkerSpec, sighting: MarkerSighting, seen: list[int]) -> CalibrationError:
    hidden = [i for i in spec.ids if i not in seen]
    foreign: dict[str, list[int]] = {}
    unknown = 0
    for i in sighting.ids.tolist():
        owner = owner_of(int(i))
        if owner is None:
            unknown += 1
        elif owner.name != spec.name:
            foreign.setdefault(owner.name, []).append(int(i))
    if foreign:
        name = max(foreign, key=lambda n: len(foreign[n]))
    if foreign and len(foreign[name]) < min(2, len(KITS[name].ids)):
        unknown += sum(len(v) for v in foreign.values())  # one stray marker proves nothing:
        foreign = {}  # 4x4 codes are small, and printed icons sometimes read as one
    if foreign:
        owner = KITS[name]
        return CalibrationError(
            f"markers {owner.describe_ids()[4:]} belong to {owner.title}, not to {spec.title}: "
            f"is this the right game? ({spec.title} uses {spec.describe_ids()})"
        )
    if len(spec.ids) == 1:
        return CalibrationError(
            f"the scale marker ({spec.describe_ids()}) is not in view: lay it beside the field's "
            "near-left corner, uncovered, and keep it in the picture"
        )
    if not seen:
        extra = f" ({unknown} marker(s) with other ids were seen)" if unknown else ""
        return CalibrationError(
            f"no markers of {spec.title} found ({spec.describe_ids()}){extra}: are the corner "
            f"markers in view, uncovered, well lit and printed from {spec.dictionary}?"
        )
    return CalibrationError(
        f"only {len(seen)} of {len(spec.ids)} markers visible: {_describe_hidden(spec, hidden)}; "
        f"uncover them or move the camera so that at least {spec.min_markers} are in view"
    )


def _fit(board: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, float]:
    """Board -> image homography (least squares in the image, where the noise is) and its RMS."""
    h, _ = cv2.findHomography(board.astype(np.float64), image.astype(np.float64), 0)
    if h is None or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        raise CalibrationError("the markers give no usable board pose (are they all on one line?)")
    q = (h @ np.c_[board, np.ones(len(board))].T).T
    if np.any(q[:, 2] <= 0):
        raise CalibrationError(
            "the markers give no usable board pose: are they all on the board's plane?"
        )
    err = q[:, :2] / q[:, 2:3] - image
    return h, float(np.sqrt((err**2).sum(axis=1).mean()))


def _fit_pnp(
    board: np.ndarray, image: np.ndarray, camera_matrix: np.ndarray
) -> tuple[np.ndarray, float]:
    """Board -> image homography ``K [r1 r2 t]`` of the camera pose that sees the board points
    at ``image`` (undistorted pixels). With the intrinsics known, one marker's four corners fix
    the ground plane far better than a free homography can."""
    obj = np.c_[board, np.zeros(len(board))].astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(
        obj, image.astype(np.float64), camera_matrix, None, flags=cv2.SOLVEPNP_IPPE
    )
    if not ok:
        raise CalibrationError(
            "the scale marker gives no camera pose: is it flat and printed at the size given?"
        )
    rot, _ = cv2.Rodrigues(rvec)
    h = camera_matrix @ np.c_[rot[:, 0], rot[:, 1], tvec.ravel()]
    h = h / h[2, 2]
    err = _project(h, board) - image
    return h, float(np.sqrt((err**2).sum(axis=1).mean()))


def _coverage(board_to_image: np.ndarray, spec: MarkerSpec, frame: tuple[int, int]) -> float:
    """Fraction of the frame the playing area covers (clipped to the frame)."""
    q = (board_to_image @ np.c_[spec.area_corners(), np.ones(4)].T).T
    if np.any(q[:, 2] <= 0):
        raise CalibrationError(
            "the board would reach beyond the horizon: is the camera too low, or the marker size wrong?"
        )
    quad = (q[:, :2] / q[:, 2:3]).astype(np.float32)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        raise CalibrationError(
            "the markers do not form a flat board: are they where the kit puts them?"
        )
    w, h = frame
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area, _ = cv2.intersectConvexConvex(quad, rect)
    return float(max(area, 0.0)) / float(w * h)


def fit_markers(
    sighting: MarkerSighting,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),
) -> MarkerFit:
    """The board pose from the kit's markers in a sighting (at least 3 of 4, or the one
    scale marker); a :class:`CalibrationError` that says what to do otherwise.

    With a ``camera``, marker corners are undistorted first: the pose then maps undistorted
    pixels (undistort points with the same calibration before mapping them to the board).
    """
    seen = [i for i in spec.ids if sighting.corners_of(i) is not None]
    if len(seen) < spec.min_markers:
        raise _not_enough(spec, sighting, seen)
    image = np.stack([sighting.corners_of(i) for i in seen]).reshape(-1, 2)  # type: ignore[misc]
    if camera is not None:
        image = np.asarray(camera.undistort_points(image, sighting.frame_size), float).reshape(
            -1, 2
        )
    board = np.vstack([spec.marker_corners(i) for i in seen])
    matrix = getattr(camera, "matrix_for", None)
    if len(seen) == 1 and matrix is not None:  # a lone marker and known intrinsics: a 6-dof pose
        h, residual = _fit_pnp(board, image, np.asarray(matrix(sighting.frame_size), float))
    else:
        h, residual = _fit(board, image)
    used, ignored, notes = list(seen), [], []
    if len(seen) >= 4:
        # Each marker as the others predict it: one far off (moved, or a stray look-alike)
        # is dropped when the rest agree; the homography would otherwise bend towards it.
        best = None
        for k, drop in enumerate(seen):
            keep = np.arange(len(board)) // 4 != k
            hk, rk = _fit(board[keep], image[keep])
            off = float(np.linalg.norm(_project(hk, board[~keep]) - image[~keep], axis=1).mean())
            if best is None or off > best[0]:
                best = (off, hk, rk, drop)
        assert best is not None
        off, hk, rk, drop = best
        clear = residual > config.max_residual_px or (
            residual > 4 * max(rk, 0.25) and off > 2 * config.max_residual_px
        )  # the rest agree far better without it (a bent board spreads the error over all)
        if clear and rk <= config.max_residual_px:
            h, residual = hk, rk
            used.remove(drop)
            ignored.append(drop)
            notes.append(
                f"the {spec.place_name(drop)} marker (id {drop}) is {off:.0f} px from where the "
                "others put it: ignored (has it moved?)"
            )
    if residual > config.max_residual_px:
        raise CalibrationError(
            f"the markers disagree by {residual:.1f} px RMS: is the board flat, and are the markers "
            f"printed {spec.marker_mm:g} mm wide where the kit puts them?"
        )
    coverage = _coverage(h, spec, sighting.frame_size)
    if coverage < config.min_coverage:
        pct = f"{coverage * 100:.0f}" if coverage >= 0.01 else f"{coverage * 100:.1f}"
        raise CalibrationError(f"the board fills {pct}% of the frame: move the camera closer")
    hidden = [i for i in spec.ids if i not in seen]
    if hidden:
        notes.insert(
            0, f"{len(seen)} of {len(spec.ids)} markers visible: {_describe_hidden(spec, hidden)}"
        )
    method = "markers"
    if len(spec.ids) == 1:
        method = "scale marker + camera" if matrix is not None else "scale marker"
    quality = PoseQuality(method, residual, len(used), len(spec.ids), coverage)
    pose = BoardPose.from_homography(np.linalg.inv(h), spec.units, spec.size, quality)
    return MarkerFit(pose, tuple(used), tuple(hidden), tuple(ignored), tuple(notes))


def _project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    q = (h @ np.c_[points, np.ones(len(points))].T).T
    return q[:, :2] / q[:, 2:3]


def locate_board(
    image: Any,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),
) -> MarkerFit:
    """Detect the kit's markers in a frame and fit the board pose (see :func:`fit_markers`)."""
    return fit_markers(detect_markers(image, spec.dictionary, config), spec, camera, config)


def pose_from_markers(
    image: Any,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),
) -> BoardPose:
    """The board pose from one frame showing at least 3 of the kit's 4 corner markers.

    A hidden or ignored marker is reported as a :class:`MarkerWarning` (and in
    ``pose.quality.seen``); :func:`locate_board` returns the same notes as data.
    """
    fit = locate_board(image, spec, camera, config)
    for note in fit.notes:
        warnings.warn(note, MarkerWarning, stacklevel=2)
    return fit.pose

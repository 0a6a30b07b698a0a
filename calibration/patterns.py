"""Calibration patterns (printed chessboards and ChArUco boards) and finding them in a photo.

A pattern knows its geometry: where each of its corners lies on the printed sheet. Finding
it in a grey photo gives matching image points (N x 2 pixels) and object points (N x 3, on
the sheet's plane, z = 0, in the unit of the square size). Chessboard corners are refined to
sub-pixel with a window sized from the local spacing of the corners (see
:func:`refine_chessboard_corners`); ChArUco corners are refined by OpenCV's ChArUco detector.

>>> parse_square_size("2.5cm")
25.0
>>> parse_pattern_size("9x6")
(9, 6)
>>> ChessboardPattern((9, 6), 25.0).object_points()[:2].tolist()
[[0.0, 0.0, 0.0], [25.0, 0.0, 0.0]]
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError

__all__ = [
    "WINDOW_FRACTION",
    "CalibrationPattern",
    "CharucoPattern",
    "ChessboardPattern",
    "PatternNotFoundError",
    "detect_pattern",
    "find_chessboard_corners",
    "load_grey",
    "make_pattern",
    "parse_pattern_size",
    "parse_square_size",
    "pattern_from_json",
    "refine_chessboard_corners",
]

#: Half-width of the sub-pixel search window, as a fraction of the distance from a corner to
#: the nearest grid line that does not pass through it. The window must see only the two
#: edges that cross at the corner: larger windows take in the edges of neighbouring squares,
#: the paper's border and, in a wide-angle lens, visibly curved edges.
WINDOW_FRACTION = 0.3

#: Photos whose long side is above this are searched at a reduced size (the search is the
#: slow part); the corners are then refined at full resolution.
DETECT_MAX_SIDE = 1600

_MIN_CHARUCO_CORNERS = 6
#: the fewest pixels across (as searched) in which a calibration pattern can show
MIN_PATTERN_SIDE = 32
_UNITS_MM = {
    "mm": 1.0,
    "cm": 10.0,
    "m": 1000.0,
    "in": 25.4,
    "inch": 25.4,
    "inches": 25.4,
    '"': 25.4,
}


class PatternNotFoundError(CalibrationError):
    """The pattern is not in this photo; the message says the likely cause."""


def parse_square_size(text: str | float) -> float:
    """A printed square size in millimetres, from ``"25mm"``, ``"2.5cm"``, ``"1in"``, ``"0.025m"``.

    A bare number is taken as millimetres.

    >>> [parse_square_size(t) for t in ("25mm", "2.5 cm", "1in", "0.025m", "25")]
    [25.0, 25.0, 25.4, 25.0, 25.0]
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, unit = float(text), "mm"
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Z\"]*)\s*", str(text))
        if not m or m.group(2).lower() not in ("", *_UNITS_MM):
            raise CalibrationError(
                f"cannot read the square size {text!r}: give a number with a unit, "
                "e.g. 25mm, 2.5cm, 1in or 0.025m (a bare number is millimetres)"
            )
        value, unit = float(m.group(1)), (m.group(2).lower() or "mm")
    mm = value * _UNITS_MM[unit]
    if not math.isfinite(mm) or mm <= 0:
        raise CalibrationError(f"the square size must be a positive length, got {text!r}")
    return mm


def parse_pattern_size(text: str | tuple[int, int]) -> tuple[int, int]:
    """``"9x6"`` (or ``(9, 6)``) -> ``(9, 6)``; refuses anything else with a clear message."""
    if isinstance(text, str):
        m = re.fullmatch(r"\s*(\d+)\s*[xX*,]\s*(\d+)\s*", text)
        if not m:
            raise CalibrationError(
                f"cannot read the pattern size {text!r}: write it as COLSxROWS, e.g. 9x6"
            )
        return int(m.group(1)), int(m.group(2))
    try:
        a, b = text
        if int(a) != a or int(b) != b:
            raise ValueError
        return int(a), int(b)
    except (TypeError, ValueError):
        raise CalibrationError(
            f"the pattern size must be two whole numbers, e.g. (9, 6), got {text!r}"
        ) from None


def _positive(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise CalibrationError(f"{name} must be a positive length, got {value!r}")
    return v


@dataclass(frozen=True)
class ChessboardPattern:
    """A chessboard with ``size = (cols, rows)`` inner corners and squares of side ``square``.

    Inner corners, not squares: a board of 10 x 7 squares has 9 x 6 inner corners.
    """

    size: tuple[int, int]
    square: float

    kind = "chessboard"

    def __post_init__(self) -> None:
        cols, rows = parse_pattern_size(self.size)
        if cols < 3 or rows < 3:
            raise CalibrationError(
                f"a chessboard needs at least 3x3 inner corners, got {cols}x{rows} "
                "(count the corners where four squares meet)"
            )
        object.__setattr__(self, "size", (cols, rows))
        object.__setattr__(self, "square", _positive("the square size", self.square))

    def describe(self) -> str:
        return f"{self.size[0]}x{self.size[1]} chessboard"

    def object_points(self) -> np.ndarray:
        """The inner corners on the sheet (N x 3, z = 0), row by row, as OpenCV orders them."""
        cols, rows = self.size
        grid = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * self.square
        return np.c_[grid, np.zeros(len(grid))].astype(float)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "size": list(self.size), "square": self.square}


@dataclass(frozen=True)
class CharucoPattern:
    """A ChArUco board of ``size = (squares_x, squares_y)`` squares, each holding a marker.

    ``square`` and ``marker_length`` are in the same unit; ``dictionary`` names an OpenCV
    predefined dictionary (``"DICT_6X6_250"``). ``legacy`` selects the layout of boards
    printed by OpenCV before 4.6 (it differs only when ``squares_y`` is even).
    """

    size: tuple[int, int]
    square: float
    marker_length: float
    dictionary: str = "DICT_6X6_250"
    legacy: bool = False

    kind = "charuco"

    def __post_init__(self) -> None:
        sx, sy = parse_pattern_size(self.size)
        if sx < 2 or sy < 2 or (sx - 1) * (sy - 1) < _MIN_CHARUCO_CORNERS:
            raise CalibrationError(
                f"a ChArUco board of {sx}x{sy} squares is too small (count squares, e.g. 5x7)"
            )
        object.__setattr__(self, "size", (sx, sy))
        object.__setattr__(self, "square", _positive("the square length", self.square))
        object.__setattr__(
            self, "marker_length", _positive("the marker length", self.marker_length)
        )
        if self.marker_length >= self.square:
            raise CalibrationError(
                f"the marker ({self.marker_length:g}) must be smaller than its square ({self.square:g}): "
                "are the two lengths swapped or in different units?"
            )
        name = str(self.dictionary)
        if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
            raise CalibrationError(
                f"unknown ArUco dictionary {name!r} (use an OpenCV name such as DICT_6X6_250)"
            )
        object.__setattr__(self, "legacy", bool(self.legacy))

    def describe(self) -> str:
        return f"{self.size[0]}x{self.size[1]} ChArUco board ({self.dictionary})"

    def board(self) -> Any:
        """The ``cv2.aruco.CharucoBoard`` for this pattern."""
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        board = cv2.aruco.CharucoBoard(self.size, self.square, self.marker_length, dictionary)
        if self.legacy:
            board.setLegacyPattern(True)
        return board

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "size": list(self.size),
            "square": self.square,
            "marker_length": self.marker_length,
            "dictionary": self.dictionary,
            "legacy": self.legacy,
        }


CalibrationPattern = ChessboardPattern | CharucoPattern


def make_pattern(
    kind: str,
    size: str | tuple[int, int],
    square: float | str,
    marker_length: float | str | None = None,
    dictionary: str = "DICT_6X6_250",
    legacy: bool = False,
) -> CalibrationPattern:
    """The pattern of ``kind`` ``"chessboard"`` or ``"charuco"``; sizes may be given as text."""
    sq = parse_square_size(square) if isinstance(square, str) else square
    if kind == "chessboard":
        return ChessboardPattern(parse_pattern_size(size), sq)
    if kind == "charuco":
        if marker_length is None:
            raise CalibrationError(
                "a ChArUco board needs its marker length as well as its square length"
            )
        ml = parse_square_size(marker_length) if isinstance(marker_length, str) else marker_length
        return CharucoPattern(parse_pattern_size(size), sq, ml, dictionary, legacy)
    raise CalibrationError(f"unknown calibration pattern {kind!r}: use 'chessboard' or 'charuco'")


def pattern_from_json(data: Any, where: str = "pattern") -> CalibrationPattern:
    """A pattern from its JSON object; errors name the field (``pattern.size``)."""
    if not isinstance(data, dict):
        raise CalibrationError(f"field '{where}' must be an object with kind, size and square")
    kind = data.get("kind")
    if kind not in ("chessboard", "charuco"):
        raise CalibrationError(
            f"field '{where}.kind' must be 'chessboard' or 'charuco', got {kind!r}"
        )
    required = ["kind", "size", "square"] + (
        ["marker_length", "dictionary"] if kind == "charuco" else []
    )
    for name in required:
        if name not in data:
            raise CalibrationError(f"field '{where}.{name}' is missing")
    allowed = set(required) | ({"legacy"} if kind == "charuco" else set())
    for name in sorted(set(data) - allowed):
        raise CalibrationError(f"unknown field '{where}.{name}' (a typo?)")
    size = data["size"]
    if not (
        isinstance(size, list)
        and len(size) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in size)
    ):
        raise CalibrationError(f"field '{where}.size' must be two whole numbers, e.g. [9, 6]")
    for name in ("square", "marker_length"):
        if name in required and not _is_number(data[name]):
            raise CalibrationError(f"field '{where}.{name}' must be a number")
    if kind == "charuco" and not isinstance(data["dictionary"], str):
        raise CalibrationError(f"field '{where}.dictionary' must be a name such as DICT_6X6_250")
    try:
        if kind == "chessboard":
            return ChessboardPattern((size[0], size[1]), data["square"])
        return CharucoPattern(
            (size[0], size[1]),
            data["square"],
            data["marker_length"],
            data["dictionary"],
            bool(data.get("legacy", False)),
        )
    except CalibrationError as err:
        raise CalibrationError(f"field '{where}': {err}") from None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def load_grey(image: Any, name: str) -> np.ndarray:
    """A uint8 grey image from a path or an array; :class:`PatternNotFoundError` says why not."""
    if isinstance(image, (str, os.PathLike)):
        path = Path(image)
        if path.is_dir():
            raise PatternNotFoundError(f"{name}: is a folder, not a photo - give the photos in it")
        if not path.is_file():
            raise PatternNotFoundError(f"{name}: no such file - check the path")
        data = np.fromfile(str(path), dtype=np.uint8)
        grey = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if data.size else None
        if grey is None:
            raise PatternNotFoundError(
                f"{name}: cannot be read as an image - use a JPEG or PNG photo"
            )
        return grey
    a = np.asarray(image) if image is not None else np.zeros(0)
    if a.size == 0:
        raise PatternNotFoundError(f"{name}: the image is empty - did the camera deliver a frame?")
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (1, 3, 4)):
        raise PatternNotFoundError(
            f"{name}: not an image (array of shape {a.shape}); give grey, BGR or BGRA pixels"
        )
    if not np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_:
        raise PatternNotFoundError(f"{name}: pixels must be numbers, got {a.dtype}")
    if a.dtype != np.uint8:
        f = np.nan_to_num(a.astype(float))
        top = (
            1.0
            if a.dtype.kind == "f" and f.max() <= 1.0
            else (255.0 if a.dtype.kind == "f" else float(np.iinfo(a.dtype).max))
        )
        a = np.clip(f * (255.0 / top), 0, 255).astype(np.uint8)
    if a.ndim == 3:
        a = (
            a[:, :, 0]
            if a.shape[2] == 1
            else cv2.cvtColor(a, cv2.COLOR_BGRA2GRAY if a.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
        )
    return np.ascontiguousarray(a)


def find_chessboard_corners(pattern: ChessboardPattern, grey: np.ndarray) -> np.ndarray | None:
    """The inner corners (N x 2, OpenCV's order) to about a pixel, or ``None`` if not found.

    Tries OpenCV's sector-based detector (robust to blur and uneven light) with two settings,
    then the classic detector; large photos are searched at reduced size.
    """
    scale = min(1.0, DETECT_MAX_SIDE / max(grey.shape[:2]))
    if min(grey.shape[:2]) * scale < MIN_PATTERN_SIDE:
        return None  # too small or too narrow to show a pattern (OpenCV's search would fail)
    small = (
        grey
        if scale == 1.0
        else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    attempts = (
        lambda: cv2.findChessboardCornersSB(
            small, pattern.size, flags=cv2.CALIB_CB_NORMALIZE_IMAGE
        ),
        lambda: cv2.findChessboardCornersSB(
            small, pattern.size, flags=cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY
        ),
        lambda: cv2.findChessboardCorners(
            small, pattern.size, flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
        ),
    )
    for attempt in attempts:
        found, corners = attempt()
        if found and corners is not None and len(corners) == pattern.size[0] * pattern.size[1]:
            c = corners.reshape(-1, 2).astype(float)
            return c if scale == 1.0 else (c + 0.5) / scale - 0.5
    return None


def _corner_clearance(grid: np.ndarray) -> np.ndarray:
    """Per corner (rows x cols): the distance to the nearest grid line not through it.

    Each cell's two heights (area / side) are the distances between its opposite sides; a
    corner takes the smallest height of the up to four cells around it.
    """
    a = grid[:-1, 1:] - grid[:-1, :-1]  # top side of each cell
    b = grid[1:, :-1] - grid[:-1, :-1]  # left side of each cell
    area = np.abs(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])
    longest = np.maximum(np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1))
    cell = area / np.maximum(longest, 1e-9)
    padded = np.pad(cell, 1, constant_values=np.inf)
    return np.minimum.reduce([padded[:-1, :-1], padded[:-1, 1:], padded[1:, :-1], padded[1:, 1:]])


def refine_chessboard_corners(
    pattern: ChessboardPattern,
    grey: np.ndarray,
    corners: np.ndarray,
    window_fraction: float = WINDOW_FRACTION,
) -> np.ndarray:
    """Corners refined to sub-pixel (N x 2) with a search window sized per corner.

    OpenCV's ``cornerSubPix`` finds the point where the image gradients in a window all point
    away from; it is exact only when the window holds nothing but the two edges that cross at
    the corner. A fixed window (the tutorial's 11 x 11 half-size) reaches neighbouring squares
    on small or slanted boards; here each corner's half-window is ``WINDOW_FRACTION`` of its
    clearance (the distance to the nearest grid line that does not pass through it), or
    ``window_fraction`` when given.
    """
    cols, rows = pattern.size
    pts = np.asarray(corners, dtype=np.float32).reshape(-1, 2)
    clearance = _corner_clearance(pts.reshape(rows, cols, 2).astype(float)).ravel()
    half = np.maximum(2, np.floor(window_fraction * clearance)).astype(int)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 100, 1e-4)
    out = pts.copy()
    for w in np.unique(half):
        idx = np.flatnonzero(half == w)
        sub = np.ascontiguousarray(pts[idx].reshape(-1, 1, 2))
        out[idx] = cv2.cornerSubPix(grey, sub, (int(w), int(w)), (-1, -1), criteria).reshape(-1, 2)
    return out.astype(float)


def _find_charuco(
    pattern: CharucoPattern, grey: np.ndarray, name: str
) -> tuple[np.ndarray, np.ndarray]:
    board = pattern.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, marker_ids = detector.detectBoard(grey)
    n_markers = 0 if marker_ids is None else len(marker_ids)
    n_corners = 0 if ids is None else len(ids)
    if n_markers == 0:
        raise PatternNotFoundError(
            f"{name}: no {pattern.dictionary} markers found - is the dictionary right and the board in view and in focus?"
        )
    if n_corners < _MIN_CHARUCO_CORNERS:
        raise PatternNotFoundError(
            f"{name}: {n_markers} markers but only {n_corners} ChArUco corners found (need {_MIN_CHARUCO_CORNERS}) - "
            "show more of the board, and check the board size and the marker/square lengths"
        )
    if board.checkCharucoCornersCollinear(ids):
        raise PatternNotFoundError(
            f"{name}: the ChArUco corners found all lie on one line - show more of the board"
        )
    obj, img = board.matchImagePoints(corners, ids)
    return np.asarray(img, float).reshape(-1, 2), np.asarray(obj, float).reshape(-1, 3)


def detect_pattern(
    pattern: CalibrationPattern, grey: np.ndarray, name: str = "image"
) -> tuple[np.ndarray, np.ndarray]:
    """``(image_points N x 2, object_points N x 3)`` of ``pattern`` in a grey photo.

    Raises :class:`PatternNotFoundError` with the likely cause when the pattern is not found.
    """
    h, w = grey.shape[:2]
    if min(h, w) * min(1.0, DETECT_MAX_SIDE / max(h, w)) < MIN_PATTERN_SIDE:
        raise PatternNotFoundError(f"{name}: a {w}x{h} picture is too small or too narrow to show the pattern")
    if isinstance(pattern, CharucoPattern):
        return _find_charuco(pattern, grey, name)
    corners = find_chessboard_corners(pattern, grey)
    if corners is None:
        cols, rows = pattern.size
        if float(grey.std()) < 4.0:
            cause = "the image is almost uniform (too dark, overexposed or the lens covered?)"
        else:
            cause = (
                f"is the pattern size right? (inner corners, not squares: a board of {cols + 1}x{rows + 1} "
                f"squares has {cols}x{rows} inner corners) Is the whole board in the picture and in focus?"
            )
        raise PatternNotFoundError(f"{name}: no {cols}x{rows} chessboard found - {cause}")
    return refine_chessboard_corners(pattern, grey, corners), pattern.object_points()

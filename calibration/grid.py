"""Automatic board pose for square-grid boards: no markers, only the printed grid.

:func:`find_square_grid` finds a chess-like board (checkered, or squares of several colours
such as Battle Grounds' 6x7 and 8x8 boards) from its lines, following the approach of
chesscog's corner detection:

1. edges (Canny, thresholds from the image's own contrast) and straight lines (an oriented
   Hough transform) - :mod:`calibration.lines`;
2. the lines split into two families by direction (the two directions of the grid);
3. every line of one family meets every line of the other: candidate grid intersections;
4. RANSAC: a quadrilateral of four intersections (two neighbouring lines of each family) is
   taken to be one grid square, which fixes a homography to integer lattice points; the
   hypothesis under which most distinct lattice points have an intersection wins, refitted
   to all of them, and is refined to sub-pixel corners;
5. the board's extent: the window of ``cols x rows`` squares on that lattice with the most
   evidence (edges along its lines; squares alternating light/dark for checkered boards);
6. every grid intersection of the board is refined to sub-pixel accuracy in the image and the
   pose is a least-squares fit to all that agree with it and look like grid corners;
7. a checkered pattern that goes on past the board means the size asked for is wrong.

See docs/calibration-grid.md for the reasons behind each step, the figures and the limits.

Steps 1-4 are :mod:`calibration.lines`, step 5 and the orientation rule below
:mod:`calibration.grid_extent`, steps 6 and 7 :mod:`calibration.grid_refine`.

Orientation: without markers a board looks the same turned by 180 degrees (a square one,
by 90), so a rule picks the turn. Board ``x`` runs along the grid direction that points most
nearly to the image's right (judged on the board's middle line, from its left edge to its
right edge), and ``y`` along the other, so that the board is not mirrored (``y`` points down
the image when ``x`` points right). The board's top-left corner ``(0, 0)`` is then the
corner at the top-left as you look at the image. A board that is not square (6x7) keeps its
``cols`` along ``x`` and can only turn by 180 degrees: the rule picks the half turn whose
``x`` leans right (if ``x`` is exactly upright, the one pointing down).

>>> import numpy as np
>>> from calibration.grid import find_square_grid
>>> find_square_grid(np.zeros((480, 640), np.uint8))
Traceback (most recent call last):
...
calibration.errors.CalibrationError: no grid found: the image has no edges (blank, dark or out of focus) - is the camera covered, the lens capped or the board out of view?
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.grid_extent import _board_window, _orient
from calibration.grid_refine import _grid_corners, _grid_goes_on, _refine_lattice, _refine_points
from calibration.homography import apply_homography as _warp
from calibration.lines import HINT, LineConfig, edge_map, find_lattice
from calibration.pose import BoardPose, PoseQuality

__all__ = ["GridConfig", "GridDetection", "detect_square_grid", "find_square_grid"]


@dataclass(frozen=True)
class GridConfig:
    """Settings of automatic grid finding (defaults suit 640x400 to 1920x1080 frames).

    ``lines``: edges, lines and the RANSAC over their lattice (see :class:`LineConfig`).
    ``max_shift``: how far, in squares, sub-pixel refinement may move a predicted corner.
    ``fit_tol``: residual, in squares, above which a refined corner is left out of the fit.
    ``min_found``: the fraction of the board's intersections that must be confirmed.
    ``min_alignment``: the share of gradient energy around a confirmed corner that must run
    across the grid's lines (a corner on random texture scores about 0.4).
    ``refine_rounds``: sub-pixel refinement and fit, each round from the last fit's
    predictions; the first rounds search 0.4 of a square around each predicted corner, the
    last ``final_window`` of a square.
    """

    lines: LineConfig = field(default_factory=LineConfig)
    max_shift: float = 0.25
    fit_tol: float = 0.1
    min_found: float = 0.3
    min_alignment: float = 0.6
    refine_rounds: int = 2
    final_window: float = 0.3


@dataclass(frozen=True)
class GridDetection:
    """A found grid: the pose and the intersections that support it.

    ``board_points``: integer grid points ``(x, y)`` in squares; ``image_points``: where they
    were found in the image (pixels, sub-pixel), row for row.
    """

    pose: BoardPose
    board_points: np.ndarray
    image_points: np.ndarray


def find_square_grid(
    image: np.ndarray | str | os.PathLike[str],
    squares: tuple[int, int] = (8, 8),
    *,
    config: GridConfig | None = None,
) -> BoardPose:
    """The pose of a square-grid board of ``squares = (columns, rows)`` seen in ``image``.

    ``image`` is a BGR or grey frame, or the path of an image file. The pose is in units of
    ``"square"``, ``size == squares``; its quality has ``method="grid"``, the RMS residual
    of the intersections used, how many of the ``(cols + 1) * (rows + 1)`` were used, and
    the fraction of the frame the board covers. Raises :class:`CalibrationError`, saying
    why and what to do, when no such grid is found.
    """
    return detect_square_grid(image, squares, config=config).pose


def detect_square_grid(
    image: np.ndarray | str | os.PathLike[str],
    squares: tuple[int, int] = (8, 8),
    *,
    config: GridConfig | None = None,
) -> GridDetection:
    """Like :func:`find_square_grid`, also returning the intersections found."""
    config = config or GridConfig()
    cols, rows = _check_squares(squares)
    frame = _load(image)
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    full_h, full_w = grey.shape
    scale = min(1.0, config.lines.max_side / max(full_h, full_w))
    work = (
        frame
        if scale == 1.0
        else cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    work_grey = work if work.ndim == 2 else cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)

    edges, angle = edge_map(config.lines, work)
    if not edges.any():
        raise CalibrationError(
            "no grid found: the image has no edges (blank, dark or out of focus) - "
            "is the camera covered, the lens capped or the board out of view?"
        )
    smooth = cv2.GaussianBlur(grey, (0, 0), 0.7).astype(np.float32)
    try:
        found_lattice = find_lattice(config.lines, edges, angle, max(cols, rows) + 1)
        inlier_pts = found_lattice.points[found_lattice.inliers]
        to_work = np.array(
            [[scale, 0, 0.5 * scale - 0.5], [0, scale, 0.5 * scale - 0.5], [0, 0, 1]]
        )
        lattice = found_lattice.homography @ to_work
        lattice = _refine_lattice(
            config, smooth, lattice, _warp(np.linalg.inv(to_work), inlier_pts)
        )
        lattice = lattice @ np.linalg.inv(to_work)
        board_h = _board_window(lattice, inlier_pts, edges, work_grey, (cols, rows))
        board_h = _orient(board_h, (cols, rows))
        found = _finish(config, smooth, board_h @ to_work, (cols, rows))
    except (np.linalg.LinAlgError, cv2.error) as err:  # a degenerate grid, seen edge-on
        raise CalibrationError(
            f"no grid found: the lines found give a degenerate grid ({err}) - {HINT}"
        ) from None
    side = _grid_goes_on(smooth, found.pose)
    if side is not None:
        raise CalibrationError(
            f"the grid goes on past the {side} edge (as seen in the image) of a {cols}x{rows} "
            "board: is the board size right? (squares=(columns, rows) counts squares, not "
            "inner corners)"
        )
    return found


def _check_squares(squares: tuple[int, int]) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in squares)
        ok = (cols, rows) == tuple(squares) and cols >= 2 and rows >= 2
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise CalibrationError(
            f"squares must be two whole numbers of at least 2 (columns, rows), got {squares!r}"
        )
    return cols, rows


def _load(image: np.ndarray | str | os.PathLike[str]) -> np.ndarray:
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
        if frame is None:
            raise CalibrationError(
                f"cannot read an image from {path!r}: is it a JPEG or PNG file that exists?"
            )
        return frame
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise CalibrationError("the frame is empty: is the camera connected and delivering images?")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] != 3):
        raise CalibrationError(f"expected a grey or BGR image, got an array of shape {image.shape}")
    if min(image.shape[:2]) < 32:
        raise CalibrationError(
            f"the frame is only {image.shape[1]}x{image.shape[0]} pixels: use a real camera frame"
        )
    if image.dtype == np.uint16:
        image = (image // 257).astype(np.uint8)
    elif image.dtype != np.uint8:
        image = np.clip(np.nan_to_num(image.astype(float)), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)


def _finish(
    config: GridConfig, smooth: np.ndarray, h: np.ndarray, squares: tuple[int, int]
) -> GridDetection:
    """Refine every grid intersection of the board and build the pose."""
    cols, rows = squares
    img_h, img_w = smooth.shape
    board = (
        np.stack(np.meshgrid(np.arange(cols + 1), np.arange(rows + 1)), axis=-1)
        .reshape(-1, 2)
        .astype(float)
    )
    interior = (board[:, 0] > 0) & (board[:, 0] < cols) & (board[:, 1] > 0) & (board[:, 1] < rows)
    board_to_image, use, found = _refine_points(config, smooth, np.linalg.inv(h), board, interior)
    real = _grid_corners(config, smooth, board_to_image, board, found) & use
    if not (real == use).all():
        fit, _ = (
            cv2.findHomography(board[real], found[real], 0) if real.sum() >= 4 else (None, None)
        )
        board_to_image, use = (fit if fit is not None else board_to_image), real
    expected = (cols + 1) * (rows + 1)
    seen = int(use.sum())
    if seen < max(9, config.min_found * expected):
        raise CalibrationError(
            f"no grid found: only {seen} of the board's {expected} grid intersections could be "
            f"confirmed - is squares={squares} right, {HINT[3:]}"
        )
    residual = float(
        np.sqrt(np.mean(np.sum((_warp(board_to_image, board[use]) - found[use]) ** 2, axis=1)))
    )
    corners = _warp(board_to_image, np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], float))
    x, y = corners[:, 0], corners[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    quality = PoseQuality("grid", residual, seen, expected, min(1.0, area / (img_w * img_h)))
    pose = BoardPose.from_homography(np.linalg.inv(board_to_image), "square", (cols, rows), quality)
    return GridDetection(pose, board[use].copy(), found[use].copy())

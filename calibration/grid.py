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


def _refine_lattice(
    config: GridConfig, smooth: np.ndarray, lattice_h: np.ndarray, inlier_pts: np.ndarray
) -> np.ndarray:
    """The image -> lattice homography refitted to sub-pixel corners over the lattice's
    well-supported part (Hough lines are only straight approximations of a lens's view)."""
    lat = np.round(_warp(lattice_h, inlier_pts)).astype(int)
    ranges = []
    for k in (0, 1):
        keys, counts = np.unique(lat[:, k], return_counts=True)
        strong = keys[counts >= max(2, 0.3 * counts.max())]
        ranges.append(np.arange(strong.min(), strong.max() + 1))
    grid = np.stack(np.meshgrid(*ranges), axis=-1).reshape(-1, 2).astype(float)
    inner = (
        (grid[:, 0] > ranges[0][0])
        & (grid[:, 0] < ranges[0][-1])
        & (grid[:, 1] > ranges[1][0])
        & (grid[:, 1] < ranges[1][-1])
    )
    fit, use, _ = _refine_points(config, smooth, np.linalg.inv(lattice_h), grid, inner)
    if use.sum() < max(9, 0.3 * len(grid)):
        return lattice_h
    return np.linalg.inv(fit)


def _segment_support(
    edges: np.ndarray, to_image: np.ndarray, lines: np.ndarray, cells: np.ndarray, axis: int
) -> np.ndarray:
    """``support[k, j]``: the fraction of lattice line ``lines[k]`` between ``cells[j]`` and
    ``cells[j] + 1`` (along the other axis) that lies on an edge (``axis`` 0: lines
    ``x = k``; 1: lines ``y = k``). Parts outside the image count as no edge."""
    h, w = edges.shape
    t = (np.arange(12) + 0.5) / 12
    k, j, u = np.meshgrid(lines, cells, t, indexing="ij")
    along = (j + u).ravel()
    pts = np.c_[k.ravel(), along] if axis == 0 else np.c_[along, k.ravel()]
    with np.errstate(divide="ignore", invalid="ignore"):
        img = np.round(_warp(to_image, pts.astype(float)))
    ok = np.isfinite(img).all(axis=1)
    ok[ok] = (img[ok, 0] >= 0) & (img[ok, 0] < w) & (img[ok, 1] >= 0) & (img[ok, 1] < h)
    hit = np.zeros(len(pts))
    hit[ok] = edges[img[ok, 1].astype(int), img[ok, 0].astype(int)] > 0
    return hit.reshape(len(lines), len(cells), len(t)).mean(axis=2)


def _checker_evidence(
    grey: np.ndarray,
    lattice_h: np.ndarray,
    lo: tuple[int, int],
    hi: tuple[int, int],
    known: np.ndarray,
) -> np.ndarray:
    """``evidence[y, x]`` for the lattice squares in ``[lo, hi)``: how strongly each square
    takes part in a light/dark alternation with its neighbours.

    About 1 on a checkered board, 0 or random off it; everything is scaled by how
    consistent the alternation is, so a board whose squares do not alternate (coloured
    rows) gets evidence near 0 everywhere and its extent is found from its lines alone.
    """
    q = 8
    nx, ny = hi[0] - lo[0], hi[1] - lo[1]
    to_warp = np.array([[q, 0, -lo[0] * q], [0, q, -lo[1] * q], [0, 0, 1]], float) @ lattice_h
    warped = cv2.warpPerspective(
        grey.astype(np.float32),
        to_warp,
        (nx * q, ny * q),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=-1.0,
    )
    cells = warped.reshape(ny, q, nx, q)[:, 2:6, :, 2:6]
    valid = cells.min(axis=(1, 3)) >= 0
    mean = np.where(valid, cells.mean(axis=(1, 3)), np.nan)
    pad = np.pad(mean, 1, constant_values=np.nan)
    neigh = np.stack([pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]])
    count = np.isfinite(neigh).sum(axis=0)
    local = np.where(count > 0, np.nansum(neigh, axis=0) / np.maximum(count, 1), np.nan)
    sign = np.where(
        (np.add.outer(np.arange(ny), np.arange(nx)) + lo[0] + lo[1]) % 2 == 0, 1.0, -1.0
    )
    alt = np.nan_to_num(sign * (mean - local))
    top = alt[known & (alt != 0)]
    if top.size < 4:
        strong = np.abs(alt[alt != 0])
        if strong.size < 4:
            return np.zeros_like(alt)
        top = alt[np.abs(alt) >= np.median(strong)]
    spread = float(np.median(np.abs(top)))
    if spread < 2.0:
        return np.zeros_like(alt)
    kappa = float(np.mean(np.sign(top)))
    return np.clip(alt / spread, -1.0, 1.0) * kappa


def _box_sums(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Sums of every ``rows x cols`` box of ``values`` (``out[i, j]``: box at ``(i, j)``)."""
    c = np.pad(values, ((1, 0), (1, 0))).cumsum(axis=0).cumsum(axis=1)
    return c[rows:, cols:] - c[:-rows, cols:] - c[rows:, :-cols] + c[:-rows, :-cols]


def _board_window(
    lattice_h: np.ndarray,
    inlier_pts: np.ndarray,
    edges: np.ndarray,
    grey: np.ndarray,
    squares: tuple[int, int],
) -> np.ndarray:
    """Image -> board homography: the ``cols x rows`` window of the lattice with most
    evidence: lines on edges, and squares alternating light/dark (checkered boards).

    Intersections alone cannot tell the board's border: the board's frame, a shadow or an
    object on the table, parallel to the grid, can line up with it.
    """
    cols, rows = squares
    big = max(cols, rows)
    lat = np.round(_warp(lattice_h, inlier_pts)).astype(int)
    lo, hi = [], []
    for k in (0, 1):
        keys, counts = np.unique(lat[:, k], return_counts=True)
        keys = keys[counts >= 2] if (counts >= 2).sum() >= 2 else keys
        mid = int(np.median(lat[:, k]))
        lo.append(max(int(keys.min()), mid - 2 * big) - big)
        hi.append(min(int(keys.max()), mid + 2 * big) + big)
    to_image = np.linalg.inv(lattice_h)
    xs, ys = np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1)
    corners = np.zeros((len(ys), len(xs)), bool)
    inside = (lat >= lo).all(axis=1) & (lat <= hi).all(axis=1)
    corners[lat[inside, 1] - lo[1], lat[inside, 0] - lo[0]] = True
    known = corners[:-1, :-1] & corners[1:, :-1] & corners[:-1, 1:] & corners[1:, 1:]
    # edges may lie a little off the lattice (lens distortion): allow 8% of a square
    square_px = float(
        np.median(np.linalg.norm(_warp(to_image, lat + [1.0, 0.0]) - inlier_pts, axis=1))
    )
    radius = int(np.clip(round(0.08 * square_px), 2, 6))
    dilated = cv2.dilate(edges, np.ones((2 * radius + 1, 2 * radius + 1), np.uint8))
    edge_x = _segment_support(dilated, to_image, xs, ys[:-1], 0)  # [x line, y cell]
    edge_y = _segment_support(dilated, to_image, ys, xs[:-1], 1)  # [y line, x cell]
    checker = _checker_evidence(grey, lattice_h, (lo[0], lo[1]), (hi[0], hi[1]), known)  # [y, x]
    centre = lat.mean(axis=0)
    best = None
    for swapped, wx, wy in [(False, cols, rows)] + ([(True, rows, cols)] if cols != rows else []):
        if wx > len(xs) - 1 or wy > len(ys) - 1:
            continue
        score = (
            _box_sums(edge_x, wx + 1, wy) / wy
            + _box_sums(edge_y, wy + 1, wx).T / wx
            + _box_sums(checker, wy, wx).T * 6.0 / (wx + wy)
        )
        sx, sy = np.meshgrid(xs[: score.shape[0]], ys[: score.shape[1]], indexing="ij")
        score = score - 1e-3 * np.hypot(sx + wx / 2 - centre[0], sy + wy / 2 - centre[1])
        i, j = np.unravel_index(int(np.argmax(score)), score.shape)
        if best is None or score[i, j] > best[0]:
            best = (float(score[i, j]), swapped, int(sx[i, j]), int(sy[i, j]), wx, wy)
    if best is None:
        raise CalibrationError(
            f"no grid found: the lines found cover too little of a {cols}x{rows} board - {HINT}"
        )
    _, swapped, sx, sy, wx, wy = best
    shift = np.array([[1, 0, -sx], [0, 1, -sy], [0, 0, 1]], float)
    if swapped:
        shift = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], float) @ shift
    return shift @ lattice_h


def _orient(h: np.ndarray, squares: tuple[int, int]) -> np.ndarray:
    """Apply the orientation rule of the module docs to an image -> board homography.

    The board's ``x`` direction is judged on its middle line, from the middle of its left
    edge to the middle of its right edge; whether it is mirrored, at its centre.
    """
    cols, rows = squares
    centre = np.array([cols / 2, rows / 2])

    def x_axis(m: np.ndarray) -> np.ndarray:
        left, right = _warp(np.linalg.inv(m), np.array([[0, rows / 2], [cols, rows / 2]]))
        return (right - left) / np.linalg.norm(right - left)

    dx, dy = _warp(np.linalg.inv(h), np.array([centre + [0.5, 0], centre + [0, 0.5]])) - _warp(
        np.linalg.inv(h), centre[None]
    )
    if dx[0] * dy[1] - dx[1] * dy[0] < 0:
        h = np.array([[-1, 0, cols], [0, 1, 0], [0, 0, 1]], float) @ h
    turns = [np.eye(3), np.array([[-1, 0, cols], [0, -1, rows], [0, 0, 1]], float)]
    if cols == rows:
        turns += [
            np.array([[0, 1, 0], [-1, 0, cols], [0, 0, 1]], float),
            np.array([[0, -1, cols], [1, 0, 0], [0, 0, 1]], float),
        ]

    def rank(turn: np.ndarray) -> tuple[float, float]:
        d = x_axis(turn @ h)
        return round(float(d[0]), 9), float(d[1])  # most rightward; if level, most downward

    return max(turns, key=rank) @ h


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


def _refine_points(
    config: GridConfig,
    smooth: np.ndarray,
    board_to_image: np.ndarray,
    board: np.ndarray,
    interior: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel corners at the predicted image positions of the grid points ``board``, then
    a robust least-squares fit; ``refine_rounds`` times, each from the last fit's predictions.

    Returns the fitted board -> image homography, the mask of points used in it and where
    every point was found.
    """
    img_h, img_w = smooth.shape
    use = np.zeros(len(board), bool)
    found = np.zeros_like(board)
    for round_ in range(config.refine_rounds):
        with np.errstate(divide="ignore", invalid="ignore"):
            pred = _warp(board_to_image, board)
            step = np.minimum(
                np.linalg.norm(
                    _warp(board_to_image, board + [0.5, 0])
                    - _warp(board_to_image, board - [0.5, 0]),
                    axis=1,
                ),
                np.linalg.norm(
                    _warp(board_to_image, board + [0, 0.5])
                    - _warp(board_to_image, board - [0, 0.5]),
                    axis=1,
                ),
            )
        ok = np.isfinite(pred).all(axis=1) & np.isfinite(step)
        # the first rounds search 0.4 squares around the prediction; the last one, from a
        # better prediction, looks closer (0.3): less of the neighbouring squares' far edges
        share = 0.4 if round_ < config.refine_rounds - 1 else config.final_window
        win = np.clip(np.round(share * np.where(ok, step, 0)), 2, 20).astype(int)
        ok &= (pred[:, 0] > win + 1) & (pred[:, 0] < img_w - win - 2)
        ok &= (pred[:, 1] > win + 1) & (pred[:, 1] < img_h - win - 2)
        found = _subpixel(smooth, pred, win, ok)
        ok &= np.linalg.norm(found - pred, axis=1) < config.max_shift * step
        board_to_image, use = _robust_fit(config, board, found, ok, interior, step, board_to_image)
    return board_to_image, use, found


def _subpixel(smooth: np.ndarray, pred: np.ndarray, win: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """``cornerSubPix`` from each predicted point (where ``ok``) with its own window half-size."""
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 40, 0.01)
    found = pred.copy()
    for size in np.unique(win[ok]):
        sel = ok & (win == size)
        pts = pred[sel].astype(np.float32).reshape(-1, 1, 2)
        found[sel] = cv2.cornerSubPix(
            smooth, pts, (int(size), int(size)), (-1, -1), criteria
        ).reshape(-1, 2)
    return found


def _robust_fit(
    config: GridConfig,
    board: np.ndarray,
    found: np.ndarray,
    ok: np.ndarray,
    interior: np.ndarray,
    step: np.ndarray,
    previous: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Board -> image homography by least squares over the corners that agree with it.

    It starts from a least-median fit to the inner intersections (crossings of four squares,
    the most reliable corners; the border ones, next to the board's frame, may have wandered
    off or be pulled by blur), then keeps every corner within ``4 sigma`` (robust scale of
    the inner residuals, at least 0.5 px) and ``fit_tol`` squares, and refits until the set
    stops changing.
    """
    seed = ok & interior if (ok & interior).sum() >= 8 else ok
    if seed.sum() < 4:
        return previous, np.zeros(len(board), bool)
    fit, _ = cv2.findHomography(board[seed], found[seed], cv2.LMEDS if seed.sum() > 8 else 0)
    if fit is None:
        return previous, np.zeros(len(board), bool)
    use = seed
    for _ in range(10):
        res = np.linalg.norm(_warp(fit, board) - found, axis=1)
        sigma = 1.4826 * float(np.median(res[seed & use])) if (seed & use).any() else 0.0
        new_use = ok & (res < np.minimum(config.fit_tol * step, max(4.0 * sigma, 0.5)))
        if new_use.sum() < 4:
            break
        fit_new, _ = cv2.findHomography(board[new_use], found[new_use], 0)
        if fit_new is None:
            break
        fit = fit_new
        if (new_use == use).all():
            break
        use = new_use
    return fit, use


def _grid_corners(
    config: GridConfig,
    smooth: np.ndarray,
    board_to_image: np.ndarray,
    board: np.ndarray,
    found: np.ndarray,
) -> np.ndarray:
    """Which found points look like a grid corner: around them, most of the image's gradient
    energy is across one of the two grid lines through the point (random texture or noise
    has gradients in every direction; a piece standing on the corner has round edges), and
    some of it is across each of them (a straight edge, such as the board's frame, is not a
    corner).
    """
    img_h, img_w = smooth.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        u = _warp(board_to_image, board + [0.25, 0]) - _warp(board_to_image, board - [0.25, 0])
        v = _warp(board_to_image, board + [0, 0.25]) - _warp(board_to_image, board - [0, 0.25])
    step = 2 * np.minimum(np.linalg.norm(u, axis=1), np.linalg.norm(v, axis=1))
    ok = np.isfinite(step) & (step >= config.lines.min_square_px)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    offsets = np.linspace(-1.0, 1.0, 9)
    ox, oy = (a.ravel() for a in np.meshgrid(offsets, offsets))
    radius = np.clip(0.25 * np.nan_to_num(step), 2, 30)
    xs = np.round(found[:, 0:1] + radius[:, None] * ox).astype(int)
    ys = np.round(found[:, 1:2] + radius[:, None] * oy).astype(int)
    ok &= (
        (xs.min(axis=1) >= 1)
        & (xs.max(axis=1) < img_w - 1)
        & (ys.min(axis=1) >= 1)
        & (ys.max(axis=1) < img_h - 1)
    )
    xs, ys = np.clip(xs, 1, img_w - 2), np.clip(ys, 1, img_h - 2)
    gx = smooth[ys, xs + 1] - smooth[ys, xs - 1]
    gy = smooth[ys + 1, xs] - smooth[ys - 1, xs]
    energy = gx * gx + gy * gy
    along_u = np.abs(gx * u[:, 0:1] + gy * u[:, 1:2])  # small when the gradient is across u
    along_v = np.abs(gx * v[:, 0:1] + gy * v[:, 1:2])
    norm = np.sqrt(energy) + 1e-9
    limit = np.sin(np.deg2rad(20.0))
    across_u, across_v = along_u / norm < limit, along_v / norm < limit
    total = energy.sum(axis=1) + 1e-9
    share = (energy * (across_u | across_v)).sum(axis=1) / total
    # a corner has edges across both lines; an edge of the board's frame has only one
    both = np.minimum((energy * across_u).sum(axis=1), (energy * across_v).sum(axis=1)) / total
    contrast = np.sqrt(energy.mean(axis=1))
    return ok & (share >= config.min_alignment) & (both >= 0.1) & (contrast >= 2.0)


def _saddles(smooth: np.ndarray, pose: BoardPose, board: np.ndarray) -> np.ndarray:
    """Checker saddle strength at grid points: (top-left + bottom-right) - (top-right +
    bottom-left) of the grey levels a quarter square diagonally off each point, halved.

    Large at the crossing of four alternating squares, with a sign that alternates from
    one grid point to the next; near zero on a plain area, an edge or a plain grid line.
    ``nan`` where a sample falls outside the image.
    """
    offsets = np.array([[-0.25, -0.25], [0.25, 0.25], [0.25, -0.25], [-0.25, 0.25]])
    with np.errstate(divide="ignore", invalid="ignore"):
        pts = pose.to_image((board[:, None, :] + offsets[None]).reshape(-1, 2)).reshape(-1, 4, 2)
    h, w = smooth.shape
    inside = np.isfinite(pts).all(axis=(1, 2))
    inside[inside] = (
        (pts[inside] >= 0).all(axis=(1, 2))
        & (pts[inside, :, 0] < w - 1).all(axis=1)
        & (pts[inside, :, 1] < h - 1).all(axis=1)
    )
    safe = np.where(inside[:, None, None], pts, 0).astype(np.float32)
    values = cv2.remap(smooth, safe[..., 0], safe[..., 1], cv2.INTER_LINEAR)
    saddle = (values[:, 0] + values[:, 1] - values[:, 2] - values[:, 3]) / 2
    return np.where(inside, saddle, np.nan)


def _grid_goes_on(smooth: np.ndarray, pose: BoardPose) -> str | None:
    """For a checkered board: the side of the image past which its pattern clearly goes on.

    Probes the grid line one square outside each edge of the board. Where the pattern goes
    on, that line is the pattern's border or another row of crossings, in step with the
    board's own: their saddle strength is half the board's typical inner crossing or more;
    past a board's frame it is near zero. When 70% of the probe's points pass 0.3 of the
    typical strength and their median passes 0.35, the board is larger than the size asked
    for (typically the inner corners were counted instead of the squares). Boards that are
    not checkered are not checked (None).
    """
    cols, rows = (int(v) for v in pose.size)
    inner = (
        np.stack(np.meshgrid(np.arange(1, cols), np.arange(1, rows)), axis=-1)
        .reshape(-1, 2)
        .astype(float)
    )
    parity = (-1.0) ** inner.sum(axis=1)
    own = _saddles(smooth, pose, inner) * parity
    own = own[np.isfinite(own)]
    if own.size < 4:
        return None
    typical = float(np.median(own))
    if abs(typical) < 8.0 or float(np.mean(np.sign(own) == np.sign(typical))) < 0.8:
        return None  # not a checkered board
    centre = pose.to_image([[cols / 2, rows / 2]])[0]
    probes = [
        np.c_[np.full(rows - 1, -1.0), np.arange(1, rows)],
        np.c_[np.full(rows - 1, cols + 1.0), np.arange(1, rows)],
        np.c_[np.arange(1, cols), np.full(cols - 1, -1.0)],
        np.c_[np.arange(1, cols), np.full(cols - 1, rows + 1.0)],
    ]
    for board in probes:
        strength = _saddles(smooth, pose, board) * (-1.0) ** board.sum(axis=1) / typical
        seen = np.isfinite(strength)
        strong = strength[seen]
        if len(strong) >= 3 and (strong > 0.3).mean() >= 0.7 and np.median(strong) >= 0.35:
            dx, dy = pose.to_image(board[seen]).mean(axis=0) - centre
            return (
                ("right" if dx > 0 else "left")
                if abs(dx) >= abs(dy)
                else ("bottom" if dy > 0 else "top")
            )
    return None

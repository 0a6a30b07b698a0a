"""Sub-pixel grid corners, the robust fit to them, and the checks on the result (grid
finding, steps 6 and 7).

Part of :mod:`calibration.grid`: every predicted grid intersection is refined to sub-pixel
accuracy (:func:`_refine_points`), kept only where it looks like a grid corner
(:func:`_grid_corners`), and a checkered pattern that goes on past the board means the size
asked for is wrong (:func:`_grid_goes_on`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.homography import apply_homography as _warp
from calibration.pose import BoardPose

if TYPE_CHECKING:
    from calibration.grid import GridConfig


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

"""Where the board lies on the grid's lattice, and which way round (grid finding, step 5).

Part of :mod:`calibration.grid`: the lattice found from the image's lines (:mod:`calibration.lines`)
goes on past the board, so the board is the ``cols x rows`` window of it with the most evidence
(:func:`_board_window`); without markers it may be turned, so the orientation rule of
:mod:`calibration.grid` picks the turn (:func:`_orient`).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.homography import apply_homography as _warp
from calibration.lines import HINT


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
    """Apply the orientation rule (see :mod:`calibration.grid`) to an image -> board homography.

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

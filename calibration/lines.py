"""From pixels to a lattice: edges, Hough lines, two families, intersections, RANSAC.

The first half of automatic grid finding (see :mod:`calibration.grid`). Lines are kept in
Hesse normal form, one row ``(rho, theta, votes)`` per line: the points ``(x, y)`` with
``x cos(theta) + y sin(theta) = rho``, in pixels of the image given.

:func:`find_lattice` runs the whole half: the result is a homography from the image to a
*lattice*, integer coordinates in squares with an arbitrary origin, under which the most
line intersections land on integer points. Where the board lies on that lattice is decided
later, in :mod:`calibration.grid`.

The lines themselves (edges, Hough lines, the two families, their intersections) are
:mod:`calibration.line_detection`; this module builds the lattice from them (a RANSAC
over candidate squares) and re-exports the names of both.

>>> a = np.array([[10.0, 0.0, 50]])          # the vertical line x = 10
>>> b = np.array([[20.0, np.pi / 2, 50]])    # the horizontal line y = 20
>>> intersections(a, b).round(6).tolist()
[[[10.0, 20.0]]]
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.homography import apply_homography
from calibration.line_detection import (
    LineConfig,
    detect_lines,
    edge_map,
    intersections,
    order_family,
    split_families,
)

__all__ = [
    "Lattice",
    "LineConfig",
    "detect_lines",
    "edge_map",
    "find_lattice",
    "intersections",
    "order_family",
    "split_families",
]

HINT = "is the whole board in view and lit evenly?"


@dataclass(frozen=True)
class Lattice:
    """The lines' lattice: ``homography`` maps image pixels to lattice coordinates (squares,
    integer at grid intersections); ``points`` are the line intersections inside the image
    and ``inliers`` marks those that land on lattice points."""

    homography: np.ndarray
    points: np.ndarray
    inliers: np.ndarray


def find_lattice(config: LineConfig, edges: np.ndarray, angle: np.ndarray, reach: int) -> Lattice:
    """The lattice of the grid seen in an edge map (see :func:`edge_map`).

    ``reach``: the most squares a lattice point may lie from the hypothesis' square (one
    more than the board's longer side). Raises :class:`CalibrationError` when there are too
    few lines or they form no regular grid.
    """
    a, b = _line_families(config, edges, angle)
    points, index = _candidate_points(a, b, edges.shape)
    homography, inliers = _ransac(config, a, b, points, index, reach)
    return Lattice(homography, points, inliers)


def _line_families(
    config: LineConfig, edges: np.ndarray, angle: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    lines = detect_lines(config, edges, angle)
    ia, ib = split_families(lines)
    counts = sorted((len(ia), len(ib)))
    if counts[0] < config.min_lines:
        raise CalibrationError(
            f"no grid found: fewer than {config.min_lines} lines in one direction "
            f"({counts[0]} and {counts[1]} found) - {HINT}"
        )
    a, b = lines[ia], lines[ib]
    h, w = edges.shape
    pts = intersections(a, b).reshape(-1, 2)
    inside = np.isfinite(pts).all(axis=1)
    inside[inside] = (pts[inside] >= 0).all(axis=1) & (pts[inside, 0] < w) & (pts[inside, 1] < h)
    centre = np.median(pts[inside], axis=0) if inside.any() else np.array([w / 2, h / 2])
    a, b = order_family(config, a, centre), order_family(config, b, centre)
    if min(len(a), len(b)) < config.min_lines:
        raise CalibrationError(
            f"no grid found: fewer than {config.min_lines} distinct lines in one direction "
            f"({min(len(a), len(b))} and {max(len(a), len(b))} found) - {HINT}"
        )
    return a, b


def _candidate_points(
    a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Intersections inside the image: an ``M x 2`` array and their ``(i, j)`` line indices."""
    h, w = shape[:2]
    grid = intersections(a, b)
    ok = np.isfinite(grid).all(axis=2)
    ok[ok] = (grid[ok] >= 0).all(axis=1) & (grid[ok][:, 0] < w) & (grid[ok][:, 1] < h)
    index = np.argwhere(ok)
    return grid[ok], index


def _square_to_quads(quads: np.ndarray) -> np.ndarray:
    """Homographies taking the unit square (0,0),(1,0),(1,1),(0,1) to each quad (``N x 4 x 2``)."""
    x0, y0 = quads[:, 0, 0], quads[:, 0, 1]
    x1, y1 = quads[:, 1, 0], quads[:, 1, 1]
    x2, y2 = quads[:, 2, 0], quads[:, 2, 1]
    x3, y3 = quads[:, 3, 0], quads[:, 3, 1]
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dy1, dx2, dy2 = x1 - x2, y1 - y2, x3 - x2, y3 - y2
    det = dx1 * dy2 - dx2 * dy1
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (sx * dy2 - dx2 * sy) / det
        h = (dx1 * sy - sx * dy1) / det
    hom = np.empty((len(quads), 3, 3))
    hom[:, 0] = np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], axis=1)
    hom[:, 1] = np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], axis=1)
    hom[:, 2] = np.stack([g, h, np.ones_like(g)], axis=1)
    return hom


def _ransac(
    config: LineConfig,
    a: np.ndarray,
    b: np.ndarray,
    points: np.ndarray,
    index: np.ndarray,
    reach: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The image -> lattice homography that puts most intersections on integer points.

    Only points within ``reach`` squares of the hypothesis' square count (the board cannot
    be larger; far from it, points near the horizon land near integers by chance).
    """
    na, nb = len(a), len(b)
    slot = -np.ones((na, nb), int)
    slot[index[:, 0], index[:, 1]] = np.arange(len(index))
    quads = []
    for di in range(1, config.max_gap + 1):
        for dj in range(1, config.max_gap + 1):
            i, j = np.meshgrid(np.arange(na - di), np.arange(nb - dj), indexing="ij")
            i, j = i.ravel(), j.ravel()
            corners = np.stack(
                [slot[i, j], slot[i + di, j], slot[i + di, j + dj], slot[i, j + dj]], axis=1
            )
            quads.append(corners[(corners >= 0).all(axis=1)])
    cand = np.concatenate(quads) if quads else np.zeros((0, 4), int)
    if len(cand) == 0:
        raise CalibrationError(
            f"no grid found: the lines found do not cross inside the image - {HINT}"
        )
    if len(cand) > config.max_hypotheses:  # keep the squares whose weakest line is strongest
        weakest = np.minimum(
            a[index[cand[:, [0, 1]], 0], 2].min(axis=1), b[index[cand[:, [0, 3]], 1], 2].min(axis=1)
        )
        cand = cand[np.sort(np.argsort(-weakest, kind="stable")[: config.max_hypotheses])]
    quad_pts = points[cand]
    sides = np.linalg.norm(quad_pts - np.roll(quad_pts, 1, axis=1), axis=2).min(axis=1)
    quad_pts = quad_pts[sides >= config.min_square_px]
    fwd = _square_to_quads(quad_pts)
    good = np.isfinite(fwd).all(axis=(1, 2)) & (np.abs(np.linalg.det(fwd)) > 1e-12)
    fwd = fwd[good]
    if len(fwd) == 0:
        raise CalibrationError(f"no grid found: no four lines form a square - {HINT}")
    inv = np.linalg.inv(fwd)
    tol = config.inlier_tol
    counts = _count_lattice_points(inv, points, tol, reach)
    best_h, best_in, best_score = None, None, -1
    for n in np.argsort(-counts, kind="stable")[:12]:
        h, inl = _local_fit(inv[n], points, tol, reach)
        score = len(
            {tuple(v) for v in np.round(apply_homography(h, points[inl])).astype(int).tolist()}
        )
        if score > best_score:
            best_h, best_in, best_score = h, inl, score
    coarse = _coarsest_step(best_h, points[best_in])
    if coarse is not None:
        best_h, best_in = _local_fit(coarse @ best_h, points, tol, reach)
    lattice_pts = np.round(apply_homography(best_h, points[best_in]))
    nx, ny = (len(np.unique(lattice_pts[:, k])) for k in (0, 1))
    if best_score < 9 or min(nx, ny) < 3:
        raise CalibrationError(
            f"no grid found: the {len(a)} and {len(b)} lines found do not form a regular grid "
            f"(at best {best_score} intersections fit one) - {HINT}"
        )
    return best_h, best_in


def _coarsest_step(h: np.ndarray, inliers: np.ndarray) -> np.ndarray | None:
    """When the inliers lie mostly (three quarters) on every second (or third) lattice line
    of a direction, the lattice is too fine there: a stray line half-way between two grid
    lines (a board's frame half a square out, say) made a half square look like a square.
    Returns the affine map onto the coarser lattice, or None."""
    lat = np.round(apply_homography(h, inliers)).astype(int)
    scale, shift = np.ones(2), np.zeros(2)
    for k in (0, 1):
        for factor in (2, 3):
            residue = np.mod(lat[:, k], factor)
            counts = np.bincount(residue, minlength=factor)
            lines = len(np.unique(lat[residue == np.argmax(counts), k]))
            if counts.max() >= 0.75 * len(lat) and lines >= 3:
                scale[k], shift[k] = 1.0 / factor, -int(np.argmax(counts)) / factor
                break
    if (scale == 1).all():
        return None
    return np.array([[scale[0], 0, shift[0]], [0, scale[1], shift[1]], [0, 0, 1]])


def _count_lattice_points(
    inv: np.ndarray, points: np.ndarray, tol: float, reach: int
) -> np.ndarray:
    """For each hypothesis, how many distinct lattice points (within ``reach``) have an
    intersection within ``tol`` of them. Distinct points, not intersections: a hypothesis
    taking a large part of the image for one square puts many intersections near its four
    corners by chance."""
    side = 2 * reach + 1
    x = points[:, 0:1].astype(np.float32)
    y = points[:, 1:2].astype(np.float32)
    counts = np.zeros(len(inv), int)
    chunk = 512
    for start in range(0, len(inv), chunk):
        hyp = inv[start : start + chunk].astype(np.float32)
        n = len(hyp)
        # elementwise rather than a matrix product: small products on many BLAS threads
        # are slow when the machine is busy
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            w = 1.0 / (x * hyp[:, 2, 0] + y * hyp[:, 2, 1] + hyp[:, 2, 2])
            gx = (x * hyp[:, 0, 0] + y * hyp[:, 0, 1] + hyp[:, 0, 2]) * w
            gy = (x * hyp[:, 1, 0] + y * hyp[:, 1, 1] + hyp[:, 1, 2]) * w
            rx, ry = np.rint(gx), np.rint(gy)
            gx -= rx
            gy -= ry
            ok = (gx * gx + gy * gy < tol * tol) & (np.abs(rx) <= reach) & (np.abs(ry) <= reach)
        point, hyp_index = np.nonzero(ok)
        key = (hyp_index * side + (rx[point, hyp_index] + reach).astype(np.int64)) * side
        key += (ry[point, hyp_index] + reach).astype(np.int64)
        hist = np.bincount(key, minlength=n * side * side).reshape(n, -1)
        counts[start : start + n] = np.count_nonzero(hist, axis=1)
    return counts


def _local_fit(
    h: np.ndarray, points: np.ndarray, tol: float, reach: int, rounds: int = 6
) -> tuple[np.ndarray, np.ndarray]:
    """Refit a hypothesis to all its inliers until their number stops growing."""
    inl = _inliers(h, points, tol, reach)
    anchor = np.round(apply_homography(h, points[inl])).mean(axis=0) if inl.any() else np.zeros(2)
    for _ in range(rounds):
        if inl.sum() < 4:
            break
        target = np.round(apply_homography(h, points[inl]))
        new_h, _ = cv2.findHomography(points[inl], target, 0)
        if new_h is None:
            break
        new_inl = _inliers(new_h, points, tol, reach, anchor)
        if new_inl.sum() <= inl.sum():
            if new_inl.sum() == inl.sum():
                h = new_h
            break
        h, inl = new_h, new_inl
    return h, inl


def _inliers(
    h: np.ndarray, points: np.ndarray, tol: float, reach: int, anchor: np.ndarray | None = None
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        g = apply_homography(h, points)
    ok = np.isfinite(g).all(axis=1)
    ok[ok] = np.abs(g[ok] - (0 if anchor is None else anchor)).max(axis=1) <= reach
    r = np.full(len(points), np.inf)
    r[ok] = np.abs(g[ok] - np.round(g[ok])).max(axis=1)
    return r < tol

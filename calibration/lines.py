"""From pixels to a lattice: edges, Hough lines, two families, intersections, RANSAC.

The first half of automatic grid finding (see :mod:`calibration.grid`). Lines are kept in
Hesse normal form, one row ``(rho, theta, votes)`` per line: the points ``(x, y)`` with
``x cos(theta) + y sin(theta) = rho``, in pixels of the image given.

:func:`find_lattice` runs the whole half: the result is a homography from the image to a
*lattice*, integer coordinates in squares with an arbitrary origin, under which the most
line intersections land on integer points. Where the board lies on that lattice is decided
later, in :mod:`calibration.grid`.

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
class LineConfig:
    """Settings of edge and line detection.

    ``max_side``: larger images are shrunk to this longer side for edges and lines (the
    final fit always uses the full image). ``edge_percentile``: Canny's upper threshold is
    this percentile of the gradient magnitude (the lower one is ``edge_low_ratio`` of it),
    so the thresholds follow the image's contrast. ``bin_deg``/``bin_slack_deg``: width of
    the direction bins of the oriented Hough transform, and how far outside its bin an edge
    pixel's direction may lie. ``min_votes``: the fewest edge pixels on a line, as a
    fraction of the shorter image side; ``relative_votes``: lines with fewer votes than this
    fraction of the eighth strongest line are dropped. ``nms_px``: a line that stays this
    close to a stronger one wherever it runs on edges is dropped (one edge gives several
    neighbouring Hough peaks). ``max_lines``: the strongest lines kept.
    ``merge_px``/``merge_deg``: lines this close at the grid's centre are one line.

    RANSAC: ``min_lines``: the fewest lines each grid direction must show. ``max_gap``: a
    candidate square may skip ``max_gap - 1`` lines (spurious lines between two grid lines).
    ``max_hypotheses``: candidate squares scored (those whose weakest line has most votes
    when there are more). ``min_square_px``: the shortest side of a candidate square.
    ``inlier_tol``: how far, in squares, an intersection may lie from a lattice point.
    """

    max_side: int = 960
    blur_sigma: float = 1.0
    edge_percentile: float = 90.0
    edge_low_ratio: float = 0.4
    min_edge: float = 12.0
    hough_theta_deg: float = 0.5
    bin_deg: float = 15.0
    bin_slack_deg: float = 6.0
    min_votes: float = 0.06
    relative_votes: float = 0.3
    nms_px: float = 3.0
    max_lines: int = 100
    merge_px: float = 3.0
    merge_deg: float = 3.0
    min_lines: int = 4
    max_gap: int = 3
    max_hypotheses: int = 2000
    min_square_px: float = 5.0
    inlier_tol: float = 0.15


@dataclass(frozen=True)
class Lattice:
    """The lines' lattice: ``homography`` maps image pixels to lattice coordinates (squares,
    integer at grid intersections); ``points`` are the line intersections inside the image
    and ``inliers`` marks those that land on lattice points."""

    homography: np.ndarray
    points: np.ndarray
    inliers: np.ndarray


def edge_map(config: LineConfig, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Canny edges (uint8, 255 on an edge) and the direction of each edge pixel.

    The thresholds are set from the image's own gradients. Colour images use every channel
    (two squares of different colour but equal brightness still give an edge); their
    direction is the colour structure tensor's (Di Zenzo). The direction image holds, on
    edge pixels, the gradient angle in ``[0, pi)`` radians: the ``theta`` of the line the
    pixel lies on.
    """
    img = image if image.dtype == np.uint8 else np.clip(image, 0, 255).astype(np.uint8)
    if config.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), config.blur_sigma)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    sub = gx[::3, ::3] ** 2 + gy[::3, ::3] ** 2
    if sub.ndim == 3:
        sub = sub.max(axis=2)
    high = max(float(np.sqrt(np.percentile(sub, config.edge_percentile))), config.min_edge)
    edges = cv2.Canny(img, config.edge_low_ratio * high, high, L2gradient=True)
    ys, xs = np.nonzero(edges)
    dx, dy = gx[ys, xs], gy[ys, xs]
    if dx.ndim == 2:
        jxx, jyy, jxy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1), (dx * dy).sum(axis=1)
        theta = 0.5 * np.arctan2(2 * jxy, jxx - jyy)
    else:
        theta = np.arctan2(dy, dx)
    angle = np.zeros(edges.shape, np.float32)
    angle[ys, xs] = np.mod(theta, np.pi)
    return edges, angle


def detect_lines(config: LineConfig, edges: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """The strongest straight lines of an edge map: an ``N x 3`` array ``(rho, theta, votes)``.

    An oriented Hough transform: the edge pixels are split by direction into bins of
    ``bin_deg`` degrees, and each bin votes only for lines of its own direction, so the
    scattered edges of a textured table cannot add up to a line. ``theta`` lies in
    ``[0, pi)``; rows are sorted by votes, strongest first. No line gives a ``0 x 3`` array.
    """
    h, w = edges.shape[:2]
    votes = max(int(config.min_votes * min(h, w)), 10)
    step = np.deg2rad(config.hough_theta_deg)
    width = np.deg2rad(config.bin_deg)
    slack = np.deg2rad(config.bin_slack_deg)
    ys, xs = np.nonzero(edges)
    theta = angle[ys, xs]
    found = []
    for lo in np.arange(0.0, np.pi - 1e-9, width):
        diff = np.abs(np.mod(theta - lo - width / 2 + np.pi / 2, np.pi) - np.pi / 2)
        sel = diff < width / 2 + slack
        subset = np.zeros(edges.shape, np.uint8)
        subset[ys[sel], xs[sel]] = 255
        got = cv2.HoughLinesWithAccumulator(
            subset, 1.0, step, votes, min_theta=lo, max_theta=lo + width
        )
        if got is not None and len(got):
            found.append(got.reshape(-1, 3))
    if not found:
        return np.zeros((0, 3))
    lines = np.concatenate(found).astype(float)
    lines = lines[(lines[:, 1] >= 0) & (lines[:, 1] < np.pi)]
    lines = lines[np.argsort(-lines[:, 2], kind="stable")]
    reference = lines[min(len(lines) - 1, 7), 2]
    lines = lines[lines[:, 2] >= config.relative_votes * reference][: 4 * config.max_lines]
    return _suppress_neighbours(lines, edges, config.nms_px)[: config.max_lines]


def _supported_spans(lines: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """For each line, the two ends (``N x 2 x 2`` pixels) of the stretch of it that runs on
    edges: from the 5th to the 95th percentile of its samples (every 2 px) that lie on an
    edge; the whole visible line when it has fewer than 5 such samples."""
    h, w = edges.shape
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    reach = float(np.hypot(h, w))
    t = np.arange(-reach, reach, 2.0)[None, :]
    c, s = np.cos(lines[:, 1:2]), np.sin(lines[:, 1:2])
    x, y = lines[:, 0:1] * c - t * s, lines[:, 0:1] * s + t * c
    inside = (x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)
    on = np.zeros(x.shape, bool)
    on[inside] = near[y[inside].astype(int), x[inside].astype(int)]
    use = np.where(on.sum(axis=1, keepdims=True) >= 5, on, inside)
    count = np.cumsum(use, axis=1)
    total = np.maximum(count[:, -1:], 1)
    first = np.argmax(count >= np.maximum(0.05 * total, 1), axis=1)
    last = np.argmax(count >= 0.95 * total, axis=1)
    ends = np.zeros((len(lines), 2, 2))
    for k, idx in enumerate((first, last)):
        ends[:, k, 0] = x[np.arange(len(lines)), idx]
        ends[:, k, 1] = y[np.arange(len(lines)), idx]
    return ends


def _suppress_neighbours(lines: np.ndarray, edges: np.ndarray, px: float) -> np.ndarray:
    """Drop each line that stays within ``px`` of a stronger one all along the stretch where
    it runs on edges: one edge gives several neighbouring Hough peaks, differing a little in
    angle, and they are only close where the edge is."""
    ends = _supported_spans(lines, edges)
    normal = np.c_[np.cos(lines[:, 1]), np.sin(lines[:, 1])]
    keep = np.zeros(len(lines), bool)
    for i in range(len(lines)):
        kept = np.flatnonzero(keep)
        if len(kept):
            gap = np.abs(ends[i] @ normal[kept].T - lines[kept, 0])  # (2 ends, kept lines)
            if (gap.max(axis=0) < px).any():
                continue
        keep[i] = True
    return lines[keep]


def split_families(
    lines: np.ndarray, min_angle_deg: float = 15.0, iterations: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """Split lines into two families by direction (two-means on the doubled angle).

    Doubling the angle makes ``theta`` and ``theta + pi`` the same direction. The first
    centre is the strongest line, the second the line least parallel to it; votes weight
    the means. Returns the two families as index arrays into ``lines``; when the two
    directions are less than ``min_angle_deg`` apart there is only one family (the second
    is empty).
    """
    if len(lines) < 2:
        return np.arange(len(lines)), np.zeros(0, int)
    vec = np.c_[np.cos(2 * lines[:, 1]), np.sin(2 * lines[:, 1])]
    weight = lines[:, 2]
    c1 = vec[0]
    c2 = vec[int(np.argmin(vec @ c1))]
    label = np.zeros(len(lines), bool)
    for _ in range(iterations):
        label = vec @ c1 < vec @ c2
        new = []
        for members, old in ((~label, c1), (label, c2)):
            if not members.any():
                new.append(old)
                continue
            m = (vec[members] * weight[members, None]).sum(axis=0)
            n = np.linalg.norm(m)
            new.append(m / n if n > 0 else old)
        if np.allclose(new[0], c1) and np.allclose(new[1], c2):
            break
        c1, c2 = new
    if float(c1 @ c2) > np.cos(2 * np.deg2rad(min_angle_deg)):  # one direction only
        return np.arange(len(lines)), np.zeros(0, int)
    return np.flatnonzero(~label), np.flatnonzero(label)


def order_family(config: LineConfig, lines: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """One family's lines, normals turned one way, sorted across the family, duplicates merged.

    Lines are sorted by their signed distance from ``centre`` (a point inside the grid);
    two lines closer than ``merge_px`` there and within ``merge_deg`` in direction are one
    line, and the one with more votes stays.
    """
    if len(lines) == 0:
        return lines.reshape(0, 3)
    lines = lines.copy()
    vec = np.c_[np.cos(2 * lines[:, 1]), np.sin(2 * lines[:, 1])] * lines[:, 2:3]
    mean = np.arctan2(vec[:, 1].sum(), vec[:, 0].sum()) / 2
    flip = np.cos(lines[:, 1] - mean) < 0
    lines[flip, 0] *= -1
    lines[flip, 1] -= np.pi * np.sign(lines[flip, 1] - mean)
    offset = lines[:, 0] - (centre[0] * np.cos(lines[:, 1]) + centre[1] * np.sin(lines[:, 1]))
    order = np.argsort(offset, kind="stable")
    lines, offset = lines[order], offset[order]
    keep: list[int] = []
    tol = np.deg2rad(config.merge_deg)
    for i in range(len(lines)):
        if keep:
            j = keep[-1]
            if offset[i] - offset[j] < config.merge_px and abs(lines[i, 1] - lines[j, 1]) < tol:
                if lines[i, 2] > lines[j, 2]:
                    keep[-1] = i
                continue
        keep.append(i)
    return lines[keep]


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where each line of ``a`` meets each line of ``b``: an ``len(a) x len(b) x 2`` array.

    Nearly parallel pairs give ``nan``.
    """
    ra, ta = a[:, 0][:, None], a[:, 1][:, None]
    rb, tb = b[:, 0][None, :], b[:, 1][None, :]
    det = np.sin(tb - ta)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (ra * np.sin(tb) - rb * np.sin(ta)) / det
        y = (rb * np.cos(ta) - ra * np.cos(tb)) / det
    out = np.stack([x, y], axis=-1)
    out[np.abs(det) < np.sin(np.deg2rad(5.0))] = np.nan
    return out


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

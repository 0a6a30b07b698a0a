"""Straight lines in an image: edges, an oriented Hough transform, two families, crossings.

The first steps of automatic grid finding (see :mod:`calibration.lines`, which builds the
grid's lattice from these lines and re-exports every name here). Lines are kept in Hesse
normal form, one row ``(rho, theta, votes)`` per line: the points ``(x, y)`` with
``x cos(theta) + y sin(theta) = rho``, in pixels of the image given.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = [
    "LineConfig",
    "detect_lines",
    "edge_map",
    "intersections",
    "order_family",
    "split_families",
]


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

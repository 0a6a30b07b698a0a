"""Plane-to-plane homographies, estimated from point correspondences.

A board lying on a table is a plane: four or more known points on it (corner markers, the
printed grid) fix the homography between the image and board coordinates.

>>> import numpy as np
>>> board = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
>>> image = np.array([[10, 10], [110, 20], [100, 120], [5, 100]], float)
>>> H = homography_from_points(board, image)
>>> np.allclose(apply_homography(H, board), image)
True
"""

from __future__ import annotations

import numpy as np

from calibration.errors import CalibrationError

__all__ = ["homography_from_points", "apply_homography"]


def _normaliser(points: np.ndarray) -> np.ndarray:
    """Hartley normalisation: centre on the mean, scale the mean distance to sqrt(2)."""
    centre = points.mean(axis=0)
    spread = np.sqrt(((points - centre) ** 2).sum(axis=1)).mean()
    if spread < 1e-12:
        raise CalibrationError("all calibration points coincide: are the board corners visible?")
    s = np.sqrt(2) / spread
    return np.array([[s, 0, -s * centre[0]], [0, s, -s * centre[1]], [0, 0, 1]])


def homography_from_points(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3x3 homography ``H`` with ``dst ~ H @ src`` (least squares for more than 4 points).

    Raises :class:`CalibrationError` for fewer than four points or a degenerate layout
    (three or more of four points on one line).
    """
    src = np.asarray(src, dtype=float)
    dst = np.asarray(dst, dtype=float)
    if src.shape != dst.shape or src.ndim != 2 or src.shape[1] != 2:
        raise CalibrationError(f"point lists must both be N x 2, got {src.shape} and {dst.shape}")
    if len(src) < 4:
        raise CalibrationError(f"a homography needs at least 4 points, got {len(src)}")
    ts, td = _normaliser(src), _normaliser(dst)
    s = (ts @ np.c_[src, np.ones(len(src))].T).T
    d = (td @ np.c_[dst, np.ones(len(dst))].T).T
    rows = []
    for (x, y, _), (u, v, _) in zip(s, d):
        rows.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        rows.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    a = np.asarray(rows)
    _, sv, vt = np.linalg.svd(a)
    if sv[-2] < 1e-9 * sv[0]:
        raise CalibrationError("the calibration points are degenerate (three of them on one line?)")
    h = vt[-1].reshape(3, 3)
    h = np.linalg.inv(td) @ h @ ts
    if abs(h[2, 2]) < 1e-12:
        raise CalibrationError("the homography is degenerate")
    return h / h[2, 2]


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map N x 2 points through ``h``."""
    p = np.asarray(points, dtype=float)
    q = (h @ np.c_[p, np.ones(len(p))].T).T
    return q[:, :2] / q[:, 2:3]

"""Synthetic photos of a chessboard through a known lens, with the true corner positions.

Used to measure how well corners are found and a camera recovered, where real photos
cannot say what the truth is. Deterministic for a seed.

>>> views = render_chessboard_views(1, seed=3)
>>> image, corners = views[0]
>>> image.shape, corners.shape
((480, 640), (54, 2))
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.patterns import ChessboardPattern

__all__ = ["DEFAULT_K", "DEFAULT_D", "render_chessboard_views"]

#: A plausible 640x480 webcam: focal length ~520 px, strong barrel distortion.
DEFAULT_K = np.array([[520.0, 0.0, 318.5], [0.0, 522.0, 243.0], [0.0, 0.0, 1.0]])
DEFAULT_D = np.array([-0.25, 0.08, 0.0008, -0.0005, 0.0])


def render_chessboard_views(
    count: int,
    seed: int = 7,
    camera_matrix: np.ndarray = DEFAULT_K,
    dist_coeffs: np.ndarray = DEFAULT_D,
    size: tuple[int, int] = (640, 480),
    pattern: tuple[int, int] = (9, 6),
    supersample: int = 4,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` grey photos of a chessboard with ``pattern`` inner corners (unit squares),
    each with the true (N, 2) corner pixels; the board is drawn exactly through the lens
    (every supersampled pixel's ray is traced back onto the board), then blurred and noised.
    """
    w, h = size
    cols, rows = pattern
    ys, xs = np.mgrid[0 : h * supersample, 0 : w * supersample]
    pix = np.stack([(xs + 0.5) / supersample - 0.5, (ys + 0.5) / supersample - 0.5], -1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
    if hasattr(cv2, "undistortPointsIter"):
        rays = cv2.undistortPointsIter(pix, camera_matrix, dist_coeffs, None, None, criteria)
    else:
        rays = cv2.undistortPoints(pix, camera_matrix, dist_coeffs, None, None, None, criteria)
    rays = rays.reshape(h * supersample, w * supersample, 2)
    obj = ChessboardPattern(pattern, 1.0).object_points()
    centre = np.array([(cols - 1) / 2, (rows - 1) / 2, 0.0])
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    while len(out) < count:
        rvec = np.r_[rng.uniform(-0.6, 0.6, 2), rng.uniform(-0.5, 0.5)]
        rot, _ = cv2.Rodrigues(rvec)
        tvec = np.r_[rng.uniform(-2.5, 2.5), rng.uniform(-2, 2), rng.uniform(10, 16)] - rot @ centre
        truth = cv2.projectPoints(obj, rvec, tvec, camera_matrix, dist_coeffs)[0].reshape(-1, 2)
        if truth.min() < 15 or truth[:, 0].max() > w - 15 or truth[:, 1].max() > h - 15:
            continue
        to_board = np.linalg.inv(np.c_[rot[:, 0], rot[:, 1], tvec])
        q = rays[..., 0, None] * to_board[:, 0] + rays[..., 1, None] * to_board[:, 1] + to_board[:, 2]
        u, v = q[..., 0] / q[..., 2], q[..., 1] / q[..., 2]
        paper = (u > -1.5) & (u < cols + 0.5) & (v > -1.5) & (v < rows + 0.5)
        dark = ((np.floor(u) + np.floor(v)) % 2 == 1) & (u >= -1) & (u < cols) & (v >= -1) & (v < rows)
        img = cv2.resize(np.where(paper, np.where(dark, 35.0, 215.0), 90.0), (w, h), interpolation=cv2.INTER_AREA)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 1.0)) + rng.normal(0, 2.0, (h, w))
        out.append((np.clip(img, 0, 255).astype(np.uint8), truth))
    return out

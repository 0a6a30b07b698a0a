"""The front dot found again in the picture, near where the detector put it.

A detector's keypoint is a few pixels off; on a pebble, whose dot sits a fraction of an inch
from its centre, a few pixels are tens of degrees of facing. The dot is a saturated sticker
of its side's colour, so it is looked for round the keypoint: each pixel scored by how much
its side's colour stands out from the other two (red: R - max(G, B); blue: B - max(R, G)),
and the dot is the centroid of the scores above half the best, in the blob nearest the
keypoint. Sides named otherwise keep the keypoint.

>>> import numpy as np
>>> img = np.full((40, 40, 3), 120, np.uint8)
>>> img[18:23, 25:30] = (30, 30, 220)                    # a red dot centred on (27, 20)
>>> [round(v, 1) for v in refine_dot(img, (24.0, 18.0), "red", 8)]
[27.0, 20.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["refine_dot"]

#: For each side with a printed dot colour: the BGR channel that stands out.
CHANNEL = {"red": 2, "blue": 0}


def refine_dot(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int) -> tuple[float, float]:
    """The dot's centre (pixels) near ``keypoint``, within ``radius`` pixels; the keypoint
    itself when no dot of ``side``'s colour stands out there."""
    import cv2

    c = CHANNEL.get(side)
    if c is None:
        return keypoint
    h, w = image.shape[:2]
    x, y = round(keypoint[0]), round(keypoint[1])
    x0, y0, x1, y1 = max(0, x - radius), max(0, y - radius), min(w, x + radius + 1), min(h, y + radius + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return keypoint
    patch = image[y0:y1, x0:x1].astype(np.int16)
    others = [k for k in range(3) if k != c]
    score = patch[..., c] - np.maximum(patch[..., others[0]], patch[..., others[1]])
    best = int(score.max())
    if best < 40:  # nothing of that colour stands out
        return keypoint
    mask = (score >= best / 2).astype(np.uint8)
    n, labels, _, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return keypoint
    kx, ky = keypoint[0] - x0, keypoint[1] - y0
    k = 1 + int(np.argmin([(cx - kx) ** 2 + (cy - ky) ** 2 for cx, cy in cents[1:]]))
    weights = np.where(labels == k, score, 0).astype(float)
    total = weights.sum()
    if total <= 0:
        return keypoint
    yy, xx = np.mgrid[0:labels.shape[0], 0:labels.shape[1]]
    return float((weights * xx).sum() / total + x0), float((weights * yy).sum() / total + y0)

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

__all__ = ["dot_present", "dot_reach", "dot_side", "find_dot", "refine_dot", "sides_by_dot"]

#: For each side with a printed dot colour: the BGR channel that stands out.
CHANNEL = {"red": 2, "blue": 0}
#: A side's colour standing out by less than this near the dot: no dot of that side there.
ABSENT = 20
#: ... and by at least this: a dot of that side (scores as :func:`refine_dot` scores a pixel).
PRESENT = 60


def refine_dot(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int) -> tuple[float, float]:
    """The dot's centre (pixels) near ``keypoint``, within ``radius`` pixels; the keypoint
    itself when no dot of ``side``'s colour stands out there."""
    return _centroid(_scores(image, keypoint, side, radius), keypoint)


def find_dot(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int,
             sides: tuple[str, ...] = ("red", "blue"), search: int | None = None) -> tuple[str, tuple[float, float]]:
    """The side whose dot is at ``keypoint`` (as :func:`dot_side` decides it within ``radius``
    pixels) and that dot's centre (as :func:`refine_dot` finds it within ``search`` pixels,
    by default ``radius``): each colour's window is scored once.

    >>> img = np.full((40, 40, 3), 120, np.uint8)
    >>> img[18:23, 25:30] = (30, 30, 220)                    # a red dot centred on (27, 20)
    >>> side, (x, y) = find_dot(img, (26.0, 19.0), "blue", 5)
    >>> side, round(x, 1), round(y, 1)
    ('red', 27.0, 20.0)
    """
    side, found = _side_and_scores(image, keypoint, side, radius, sides)
    if search is not None and search != radius:
        found = _scores(image, keypoint, side, search)
    return side, _centroid(found, keypoint)


def dot_reach(box: np.ndarray | tuple[float, float, float, float]) -> int:
    """How far (pixels) round a detector's keypoint the dot is looked for: a quarter of the
    box's shorter side, at least 3.

    >>> dot_reach((10, 10, 50, 30)), dot_reach((0, 0, 4, 4))
    (5, 3)
    """
    return max(3, int(0.25 * min(box[2] - box[0], box[3] - box[1])))


def _centroid(found: tuple[np.ndarray, int, int] | None, keypoint: tuple[float, float]) -> tuple[float, float]:
    """The centroid of the strongest scores (those above half the best) in the blob nearest
    ``keypoint``; the keypoint itself when nothing stands out."""
    import cv2

    if found is None:
        return keypoint
    score, x0, y0 = found
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


def _scores(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int
            ) -> tuple[np.ndarray, int, int] | None:
    """How much ``side``'s colour stands out at each pixel within ``radius`` of ``keypoint``,
    and the window's corner; ``None`` for a side without a dot colour or a window off the
    image."""
    c = CHANNEL.get(side)
    if c is None:
        return None
    h, w = image.shape[:2]
    x, y = round(keypoint[0]), round(keypoint[1])
    x0, y0, x1, y1 = max(0, x - radius), max(0, y - radius), min(w, x + radius + 1), min(h, y + radius + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    patch = image[y0:y1, x0:x1].astype(np.int16)
    others = [k for k in range(3) if k != c]
    return patch[..., c] - np.maximum(patch[..., others[0]], patch[..., others[1]]), x0, y0


def dot_side(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int,
             sides: tuple[str, ...] = ("red", "blue")) -> str:
    """The side whose dot is at ``keypoint``: ``side`` (the detector's), unless nothing of its
    colour stands out within ``radius`` pixels and another side's dot does. A detector tells
    a red stone from a blue one by a dot a few pixels wide and now and then reads it wrong;
    the pixels are plainer.

    >>> img = np.full((40, 40, 3), 120, np.uint8)
    >>> img[18:23, 25:30] = (30, 30, 220)                    # a red dot
    >>> dot_side(img, (27.0, 20.0), "blue", 5), dot_side(img, (27.0, 20.0), "red", 5)
    ('red', 'red')
    >>> dot_side(img, (8.0, 8.0), "blue", 5)                 # no dot there: the detector's side
    'blue'
    """
    return _side_and_scores(image, keypoint, side, radius, sides)[0]


def dot_present(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int) -> bool:
    """Whether a dot of ``side``'s colour stands out within ``radius`` pixels of ``keypoint``
    (by :data:`PRESENT`; a side without a dot colour: never).

    >>> img = np.full((40, 40, 3), 120, np.uint8)
    >>> img[18:23, 25:30] = (30, 30, 220)                    # a red dot
    >>> dot_present(img, (27.0, 20.0), "red", 5), dot_present(img, (27.0, 20.0), "blue", 5)
    (True, False)
    >>> dot_present(img, (8.0, 8.0), "red", 5)
    False
    """
    found = _scores(image, keypoint, side, radius)
    return found is not None and int(found[0].max()) >= PRESENT


def _side_and_scores(image: np.ndarray, keypoint: tuple[float, float], side: str, radius: int,
                     sides: tuple[str, ...]) -> tuple[str, tuple[np.ndarray, int, int] | None]:
    """:func:`dot_side`'s side, with its colour's scores round ``keypoint`` (see :func:`_scores`)."""
    own = _scores(image, keypoint, side, radius)
    if own is None or int(own[0].max()) >= ABSENT:
        return side, own
    for other in sides:
        seen = _scores(image, keypoint, other, radius) if other != side else None
        if seen is not None and int(seen[0].max()) >= PRESENT:
            return other, seen
    return side, own


def sides_by_dot(image: np.ndarray, boxes: np.ndarray, keypoints: np.ndarray, names: list[str],
                 sides: tuple[str, ...] = ("red", "blue")) -> list[str]:
    """Class names (``side-kind``) with each piece's side checked by :func:`dot_side` at its
    front-dot keypoint (``keypoints`` N x 2, NaN: none; looked for within a quarter of the
    box's shorter side); other names as they are."""
    out = list(names)
    for i, name in enumerate(names):
        side, sep, rest = name.partition("-")
        if not sep or side not in sides or not np.all(np.isfinite(keypoints[i])):
            continue
        seen = dot_side(image, (float(keypoints[i][0]), float(keypoints[i][1])), side, dot_reach(boxes[i]), sides)
        out[i] = f"{seen}-{rest}"
    return out

"""Dice shared by the kits: which faces surround a top face, pips, and cut-and-fold nets.

A die's six faces are numbered 1 to 6 by their place on the die (opposite faces add up to
7). Every kit's die is laid out the same way: 1 up, 2 towards the viewer, 3 to the right,
4 to the left, 5 away and 6 down; that is also how the printed net folds.

>>> around(["1", "2", "3", "4", "5", "6"], "1")
('2', '4', '5', '3')
>>> die_side(["1", "2", "3", "4", "5", "6"], "1", "side-2")
'4'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.artwork.draw import Canvas, Colour
from vision.artwork.kit import ArtworkError

__all__ = ["around", "die_net", "die_side", "draw_pips"]

# face place (1..6) -> outward normal of the die in its reference position
_NORMALS = {1: (0, 0, 1), 6: (0, 0, -1), 2: (0, -1, 0), 5: (0, 1, 0), 3: (1, 0, 0), 4: (-1, 0, 0)}
_BY_NORMAL = {v: k for k, v in _NORMALS.items()}


def around(faces: Sequence[str], top: str) -> tuple[str, str, str, str]:
    """The four faces around ``top``, clockwise seen from above, starting from the near one
    (the lowest-numbered side face)."""
    if top not in faces:
        raise ArtworkError(f"no die face {top!r} (faces: {', '.join(faces)})")
    n = np.array(_NORMALS[list(faces).index(top) + 1])
    sides = sorted(k for k, v in _NORMALS.items() if int(np.dot(v, n)) == 0)
    v = np.array(_NORMALS[sides[0]])
    ring = []
    for _ in range(4):
        ring.append(faces[_BY_NORMAL[tuple(int(x) for x in v)] - 1])
        v = np.cross(v, n)
    return ring[0], ring[1], ring[2], ring[3]


def die_side(faces: Sequence[str], top: str, face: str) -> str:
    """The face shown as ``face`` (``side`` = ``side-1`` .. ``side-4``) when ``top`` is up."""
    k = 1 if face == "side" else int(face.rsplit("-", 1)[1])
    return around(faces, top)[k - 1]


_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def draw_pips(cv: Canvas, n: int, w: float, colour: Colour) -> None:
    """The pips of ``n`` on a face ``w`` wide centred on the origin."""
    for x, y in _PIPS[n]:
        cv.circle((0.27 * w * x, 0.27 * w * y), (0.12 if n == 1 else 0.09) * w, colour)


# net cell (column, row) of each face place: a cross, the strip 4 2 3 5 with 1 above 2, 6 below
_NET = {4: (0, 1), 2: (1, 1), 3: (2, 1), 5: (3, 1), 1: (1, 0), 6: (1, 2)}
# tabs: (face place, edge) to glue under its neighbour
_TABS = (
    (1, "left"),
    (1, "right"),
    (1, "top"),
    (6, "left"),
    (6, "right"),
    (6, "bottom"),
    (5, "right"),
)
_TAB = (225, 225, 225)
_FOLD = (110, 110, 110)


def die_net(face_images: Sequence[np.ndarray], px_per_mm: float) -> np.ndarray:
    """A cut-and-fold net (BGRA) of a die whose faces 1..6 are the square BGRA images given."""
    f = face_images[0].shape[0]
    t = round(0.3 * f)
    size = (4 * f + t, 3 * f + 2 * t)
    cv = Canvas(size, np.eye(3), px_per_mm, alpha=True, supersample=2)
    for place, edge in _TABS:
        col, row = _NET[place]
        x0, y0 = col * f - 0.5, row * f + t - 0.5
        x1, y1 = x0 + f, y0 + f
        k = 0.35 * t
        pts = {
            "left": [(x0, y0), (x0 - t, y0 + k), (x0 - t, y1 - k), (x0, y1)],
            "right": [(x1, y0), (x1 + t, y0 + k), (x1 + t, y1 - k), (x1, y1)],
            "top": [(x0, y0), (x0 + k, y0 - t), (x1 - k, y0 - t), (x1, y0)],
            "bottom": [(x0, y1), (x0 + k, y1 + t), (x1 - k, y1 + t), (x1, y1)],
        }[edge]
        cv.poly(pts, _TAB, mask=True)
        cv.poly(pts, _FOLD, width_mm=0.2)
    for place, (col, row) in _NET.items():
        x0, y0 = col * f - 0.5, row * f + t - 0.5
        cv.rect(x0, y0, x0 + f, y0 + f, (255, 255, 255), mask=True)
    out = cv.result()
    for place, (col, row) in _NET.items():
        img = face_images[place - 1]
        x0, y0 = col * f, row * f + t
        background = img[f // 2, max(2, f // 20), :3].astype(
            float
        )  # fills the face's rounded corners
        a = img[:, :, 3:4].astype(float) / 255.0
        out[y0 : y0 + f, x0 : x0 + f, :3] = np.round(
            img[:, :, :3] * a + background * (1 - a)
        ).astype(np.uint8)
    # dashed fold lines between faces
    dash = max(2, round(1.5 * px_per_mm))
    folds = [  # between the faces of the strip, and above and below its second face
        ((f, t + f), (f, t + 2 * f)),
        ((2 * f, t + f), (2 * f, t + 2 * f)),
        ((3 * f, t + f), (3 * f, t + 2 * f)),
        ((f, t + f), (2 * f, t + f)),
        ((f, t + 2 * f), (2 * f, t + 2 * f)),
    ]
    for (xa, ya), (xb, yb) in folds:
        n = max(abs(xb - xa), abs(yb - ya))
        for s in range(0, n, 2 * dash):
            e = min(n, s + dash)
            if xa == xb:
                out[ya + s : ya + e, max(0, xa - 1) : xa + 1, :3] = _FOLD
            else:
                out[max(0, ya - 1) : ya + 1, xa + s : xa + e, :3] = _FOLD
    return out

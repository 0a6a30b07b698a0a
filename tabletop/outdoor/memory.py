"""Pieces out of sight: kept where they were last seen while another piece stands in front.

A camera sees the field from one side, so a piece put down in front of another can hide
it: the detector finds what it can see, and a piece behind another is often not found. The
rules still count it (it observes, and is observed). Between two settled positions, a piece
the camera no longer shows is taken to be still there when

- no new reading of its side is left over to be it after a move (per side, more pieces
  are missing than new ones appeared: :func:`out_of_sight` keeps only that surplus), and
- at least :data:`COVERED` of where it stood, as the picture shows it (its foot and its top,
  at the assumed height), now lies under the boxes of pieces that are seen.

Before anything else is weighed, a piece missing whose place looks as it did in the last
still position's frame (the pixels of its place correlate, :func:`place_likeness`,
:data:`LIKE`) is kept (``"unchanged"``): it was not moved, the detector missed it. A piece
lifted away leaves other ground in sight; a camera moved a little is allowed for (the frames
are compared through their views). Only a place in sight counts: less than a quarter of it
under the boxes of pieces seen, and none of them new (a piece moved a little can still cover
much of its old place, a piece read as the other side stands on it, and where pieces in
front cover a place, its pixels are mostly theirs). A place covered so, too plain to tell
by, out of the picture, or changed (a shadow, the wind in the grass) is left to the rules
below. So is a piece whose front dot stood out at the last still position and no longer
does where it was (:func:`dot_gone`): a piece knocked down is turned on its side, its dot
out of sight, and its place may otherwise look much as it did.

Given the hands seen over the field since the last still position, a piece missing from
open ground that no hand came near is kept too (said as ``"untouched"``): a piece moves only
in a player's hand, so the detector missed it. A piece that vanished from open ground where
a hand reached is not kept: it moved, left the field or was taken away, and the session says
so as before. A piece lying under another (a leaf under a stone) is kept when the one on top
hides it, however close their centres, unless both are of one side and their centres within
half an inch (:data:`~tabletop.outdoor.assistant.TWICE`): that is taken for one piece the
detector read twice, now read once, a far likelier thing. A kept piece is read again as soon as the camera
shows it, and is dropped once it is neither hidden (a kept piece: less than a quarter of its
place covered, :data:`STAYS`) nor left alone by the hands.

While the players put their pieces down at the start of a sequence (``placing``), nothing
moves: a piece hidden behind one put down in front of it, even one of its own side, is kept,
and the new reading is the new piece (not the hidden one, moved); so is a piece kept then
and still hidden. But a piece seen at the last still position whose place only pieces that
were already there cover was in sight among them: gone now, it was moved (the first move),
so it is kept only as in play, when no new reading of its side can be it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

import numpy as np

from tabletop.outdoor.assistant import TWICE, FieldReport, pair_nearest
from tabletop.outdoor.dots import dot_present, dot_reach
from tabletop.outdoor.readings import PieceReading
from tabletop.outdoor.view import FieldView

__all__ = ["COVERED", "KEPT", "LIKE", "STAYS", "STILL", "covered_share", "dot_gone", "out_of_sight", "place_likeness"]

#: The ``method`` of a reading kept from an earlier position (:class:`PieceReading`).
KEPT = "kept"
#: A piece read again within this many inches of where it stood has not moved: the centres
#: of one piece in two settled positions differ by a few tenths of an inch at most.
STILL = 1.0
#: At least this share of a piece's place in the picture must lie under other pieces' boxes
#: for it to count as hidden behind them rather than gone: more of it covered than not.
COVERED = 0.5
#: A piece already kept (not seen at the last still position either) stays kept while this
#: share of :data:`COVERED` of its place is still covered: it is dropped only once its place
#: is mostly in sight, not as soon as the piece in front of it is moved a little.
STAYS = 0.5
#: A piece whose place correlates at least this well between two still positions' frames
#: (:func:`place_likeness`) still stands there. On followed rendered games with the detector
#: (benchmarks/outdoor_game.py, seed 2026, 60 games, 2286 pieces that stayed and were read
#: again): median 0.992, 5th percentile 0.956; the 318 places pieces were moved from, at most
#: 0.72 (and 0.96 for one piece read as the other side, which stood on its place).
LIKE = 0.9
_GRID = 12  # sample points a side over the piece's place in the picture


def covered_share(reading: PieceReading, boxes: Sequence[tuple[float, float, float, float]], view: FieldView,
                  height: float) -> float:
    """The share of where ``reading`` stands, as ``view`` shows it (the hull of its foot on
    the ground and at ``height`` inches), that lies inside one of ``boxes`` (pixels)."""
    import cv2

    outline = np.asarray(reading.outline or reading.footprint.outline(reading.centre.x, reading.centre.y,
                                                                      reading.facing), float).reshape(-1, 2)
    if not len(outline) or not boxes:
        return 0.0
    pts = np.vstack([view.to_image(outline, 0.0), view.to_image(outline, height)])
    if not np.all(np.isfinite(pts)):
        return 0.0
    hull = cv2.convexHull(pts.astype(np.float32))
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    if x1 - x0 < 1e-6 or y1 - y0 < 1e-6:
        return 0.0
    xs, ys = np.meshgrid(np.linspace(x0, x1, _GRID), np.linspace(y0, y1, _GRID))
    grid = np.c_[xs.ravel(), ys.ravel()]
    inside = np.array([cv2.pointPolygonTest(hull, (float(x), float(y)), False) >= 0 for x, y in grid])
    grid = grid[inside]
    if not len(grid):
        return 0.0
    b = np.asarray(boxes, float).reshape(-1, 4)
    under = ((grid[:, None, 0] >= b[None, :, 0]) & (grid[:, None, 0] <= b[None, :, 2])
             & (grid[:, None, 1] >= b[None, :, 1]) & (grid[:, None, 1] <= b[None, :, 3])).any(axis=1)
    return float(under.mean())


def place_likeness(reading: PieceReading, before: np.ndarray, before_view: FieldView, now: np.ndarray,
                   now_view: FieldView, height: float = 0.4) -> float | None:
    """How alike the pixels of where ``reading`` stood look in the frame ``before`` (seen
    through ``before_view``) and in ``now``: the normalised cross-correlation (-1 to 1) of
    the two frames' grey levels over its place (the hull of its foot on the ground and at
    ``height``) inside its box (where it was seen), ``now`` warped onto ``before`` through
    the two views at half the height (a hand-held camera moves a little between still
    positions; a session resumed from its log may get frames of another size). Where
    ``before`` sees the place as finely as ``now`` or finer, it is first taken through
    ``now``'s pixels and back (:func:`_seen_coarser`), so that what lies there is compared,
    not how finely each frame sees it: a ground with grain a third of a pixel wide, seen at
    half the size, 0.60 alike without, 0.97 with. A finer ``now`` needs nothing: sampled
    onto ``before``'s coarser grid, each pixel already averages about what one of
    ``before``'s covers.
    ``None`` when the place is not wholly in both frames or too plain to tell (grey levels
    spread by less than 2)."""
    import cv2

    outline = np.asarray(reading.outline or reading.footprint.outline(reading.centre.x, reading.centre.y,
                                                                      reading.facing), float).reshape(-1, 2)
    if not len(outline):
        return None
    pts = np.vstack([before_view.to_image(outline, 0.0), before_view.to_image(outline, height)])
    if not np.all(np.isfinite(pts)):
        return None
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    h_img, w_img = before.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w_img or y1 > h_img or x1 - x0 < 4 or y1 - y0 < 4:
        return None
    mid = height / 2
    onto = before_view.plane(mid) @ np.linalg.inv(now_view.plane(mid))  # now's pixels -> before's
    shift = np.array([[1.0, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    size = (int(x1 - x0), int(y1 - y0))
    a = before[y0:y1, x0:x1]
    back = np.linalg.inv(onto)  # before's pixels -> now's
    there = np.c_[pts, np.ones(len(pts))] @ back.T
    if np.any(there[:, 2] <= 0):
        return None
    there = there[:, :2] / there[:, 2:]
    if there.min() < 0 or np.any(there.max(axis=0) > [now.shape[1], now.shape[0]]):
        return None  # the place is not wholly in the frame now
    scale = _pixels_per_pixel(back, ((x0 + x1) / 2, (y0 + y1) / 2))  # now's pixels per before's
    if not 0.0 < scale < math.inf:
        return None
    if scale <= 1.0:  # before sees the place as finely as now or finer: seen as now's pixels see it
        a = _seen_coarser(before, (x0, y0, x1, y1), back, 1 / scale)
    b = cv2.warpPerspective(now, shift @ onto, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if a.ndim == 3:
        a, b = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)
    mask = np.zeros(a.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull((pts - [x0, y0]).astype(np.float32)).astype(np.int32), 1)
    bx0, by0, bx1, by1 = (float(v) for v in reading.box)
    in_box = np.zeros_like(mask)  # the part of its place where the piece was seen
    top, left = max(0, math.ceil(by0) - y0), max(0, math.ceil(bx0) - x0)
    in_box[top:max(0, math.floor(by1) + 1 - y0), left:max(0, math.floor(bx1) + 1 - x0)] = 1
    inside = (mask & in_box).astype(bool)
    if inside.sum() < 16:
        return None
    u, v = a[inside].astype(float), b[inside].astype(float)
    u, v = u - u.mean(), v - v.mean()
    su, sv = float(np.sqrt((u * u).mean())), float(np.sqrt((v * v).mean()))
    if su < 2.0 or sv < 2.0:
        return None
    return float((u * v).mean() / (su * sv))


def dot_gone(reading: PieceReading, before: np.ndarray, before_view: FieldView, now: np.ndarray,
             now_view: FieldView, height: float = 0.4) -> bool:
    """Whether ``reading``'s front dot (its field point at the piece's ``height``) stood out
    in its side's colour in the frame ``before`` (seen through ``before_view``) and no longer
    does at the same place in ``now``, within :func:`~tabletop.outdoor.dots.dot_reach` of its
    box. ``False`` for a piece without a dot read, a side without a dot colour, or a place
    out of either frame: nothing to tell by."""
    if reading.dot is None:
        return False
    pt = np.array([[reading.dot.x, reading.dot.y]], float)
    a, b = before_view.to_image(pt, height)[0], now_view.to_image(pt, height)[0]
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return False
    radius = dot_reach(reading.box)
    return dot_present(before, (float(a[0]), float(a[1])), reading.side, radius) and \
        not dot_present(now, (float(b[0]), float(b[1])), reading.side, radius)


def _pixels_per_pixel(m: np.ndarray, at: tuple[float, float]) -> float:
    """How many pixels of the image that homography ``m`` maps into one pixel maps to at
    ``at`` (the square root of the area ratio)."""
    x, y = at
    pts = np.array([[x, y, 1.0], [x + 1, y, 1.0], [x, y + 1, 1.0]]) @ m.T
    pts = pts[:, :2] / pts[:, 2:]
    (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
    return math.sqrt(abs(ax * by - ay * bx))


def _seen_coarser(image: np.ndarray, box: tuple[int, int, int, int], m: np.ndarray, ratio: float) -> np.ndarray:
    """The part ``box`` of ``image`` as a camera that sees it ``ratio`` times coarser would
    show it once warped back: each of that camera's pixels (homography ``m`` from ``image``'s
    pixels) averages what it covers, and is read back onto ``image``'s grid linearly, as the
    frame it is compared with is."""
    import cv2

    x0, y0, x1, y1 = box
    pad = int(math.ceil(2 * ratio)) + 2
    h, w = image.shape[:2]
    p0, q0, p1, q1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    part = image[q0:q1, p0:p1]
    sigma = 0.3 * math.sqrt(max(ratio * ratio - 1.0, 0.0))  # a box of ``ratio`` pixels, less the pixel's own
    if sigma >= 0.1:
        part = cv2.GaussianBlur(part, (0, 0), sigma)
    corners = np.array([[p0, q0, 1.0], [p1, q0, 1.0], [p1, q1, 1.0], [p0, q1, 1.0]]) @ m.T
    corners = corners[:, :2] / corners[:, 2:]
    u0, v0 = np.floor(corners.min(axis=0)).astype(int)
    u1, v1 = np.ceil(corners.max(axis=0)).astype(int)
    to_coarse = np.array([[1.0, 0, -u0], [0, 1, -v0], [0, 0, 1]]) @ m @ np.array([[1.0, 0, p0], [0, 1, q0], [0, 0, 1]])
    coarse = cv2.warpPerspective(part, to_coarse, (int(u1 - u0), int(v1 - v0)), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    to_box = np.array([[1.0, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ np.linalg.inv(m) @ np.array([[1.0, 0, u0], [0, 1, v0], [0, 0, 1]])
    return cv2.warpPerspective(coarse, to_box, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _grown(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A hand's box grown by half its size on each side: the frames seen show the hand at a
    few places of its way, not at every place it passed."""
    x0, y0, x1, y1 = box
    dx, dy = (x1 - x0) / 2, (y1 - y0) / 2
    return (x0 - dx, y0 - dy, x1 + dx, y1 + dy)


def out_of_sight(before: FieldReport, now: FieldReport, view: FieldView, height: float = 0.4,
                 covered: float = COVERED, hands: Sequence[tuple[float, float, float, float]] | None = None,
                 placing: bool = False, likeness: Callable[[PieceReading], float | None] | None = None,
                 acted_on: Collection[str] = ()) -> list[tuple[PieceReading, str]]:
    """The pieces of ``before`` that ``now`` (read in ``view``) does not show but that still
    stand where they were, each as a reading marked :data:`KEPT` (with its old id: name them
    again with the rest) and why: ``"hidden"`` (behind pieces ``now`` shows) or, given
    ``hands`` (the boxes of every hand seen over the field since ``before``, in ``view``'s
    pixels), ``"untouched"`` (no hand came near it: it cannot have moved, the detector
    missed it). ``placing``: the pieces are being put down (a sequence's set-up), not moved,
    so a hidden piece is kept even when a new reading of its side could be it: that reading
    is the piece put down in front of it. ``likeness``: how alike its place looks in the
    frames of ``before`` and ``now`` (:func:`place_likeness`); a piece whose place is in
    sight (less than a quarter of it under seen pieces' boxes, none of them new: a piece put
    down, moved, or read as the other side) and looks as it did (:data:`LIKE`) is kept
    (``"unchanged"``) before anything else is weighed: it was not moved, the detector missed
    it. A piece with a reading of its side now within :data:`~tabletop.outdoor.assistant.TWICE`
    of its place is not kept: it was that piece read a second time. A piece of ``acted_on``
    (ids of ``before``: pieces a piece of the other side closed in on since, to act) is kept
    only as ``"unchanged"``: behind the actor, or missed, it is as likely turned on its side."""
    fresh = [q for q in now.readings if q.method != KEPT]
    paired = pair_nearest([(r.side, r.centre) for r in before.readings], [(q.side, q.centre) for q in fresh], STILL)
    seen_before, seen_now = set(paired), set(paired.values())
    boxes = [q.box for q in fresh]
    put_down = [q.box for j, q in enumerate(fresh) if j not in seen_now]  # pieces not there before
    reached = [_grown(b) for b in hands or ()]
    kept: list[tuple[PieceReading, str]] = []
    for side in dict.fromkeys(r.side for r in before.readings):
        lost = [r for i, r in enumerate(before.readings) if i not in seen_before and r.side == side
                and not any(q.side == side and q.centre.distance(r.centre) <= TWICE for q in fresh)]  # read twice
        shares = [covered_share(r, boxes, view, height) for r in lost]  # how much seen pieces cover
        if likeness is not None:  # in sight, nothing new over it, and it looks as it did: still there
            alike = {k for k, r in enumerate(lost) if shares[k] < covered * STAYS
                     and covered_share(r, put_down, view, height) == 0.0 and (likeness(r) or -1.0) >= LIKE}
            kept += [(replace(lost[k], method=KEPT), "unchanged") for k in sorted(alike)]
            shares = [v for k, v in enumerate(shares) if k not in alike]
            lost = [r for k, r in enumerate(lost) if k not in alike]
        new = sum(1 for j, q in enumerate(fresh) if j not in seen_now and q.side == side)
        surplus = len(lost) - new
        if surplus <= 0 and not placing:  # every piece missing may be one of the new readings, moved
            continue
        why = []
        hidden_by_setup = 0
        for k, (r, share) in enumerate(zip(lost, shares)):
            if r.id in acted_on:
                continue
            if share >= (covered * STAYS if r.method == KEPT else covered):
                # unseen last time too, or hidden behind a piece just put down
                unseen = placing and (r.method == KEPT or covered_share(r, put_down, view, height) >= covered * STAYS)
                hidden_by_setup += unseen
                why.append((3.0 + share if unseen else 2.0 + share, k, "hidden"))
            elif hands is not None and covered_share(r, reached, view, height) == 0.0:
                why.append((1.0, k, "untouched"))
        # while placing, such a piece is kept beyond the surplus; one whose place only pieces
        # already there cover was in sight among them last time: it was moved
        take = max(surplus, hidden_by_setup) if placing else surplus
        kept += [(replace(lost[k], method=KEPT), reason) for _, k, reason in sorted(why, reverse=True)[:take]]
    return kept

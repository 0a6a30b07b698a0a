"""Each piece on the ground: its side, its centre and footprint in inches, and its facing.

The detector gives a box and the front dot for every piece, in the picture. A box centre is
not where a piece stands: a stone has height, and from a low camera its top and its dot lie
beyond its foot. So each piece is read on the ground plane itself:

1. the box's neighbourhood is warped onto the ground (``px_per_inch`` pixels an inch);
2. the piece is told from the ground around it by colour (the ground's colour is taken from
   the ring of the patch outside the box; a pixel is the piece's when its colour distance,
   with lightness weighed down, is well above the ground's own spread); where two boxes overlap, each pixel goes to the nearer piece, so pieces that
   touch or overlap are read apart;
3. on the ground a piece of height ``h`` covers its foot plus its top pushed away from the
   camera (by the factor ``H / (H - h)``, ``H`` the camera's height); the foot is what lies
   both in that silhouette and in the silhouette pulled back towards the camera by the same
   factor. ``piece_height`` (0.4" by default, a pebble) stands for every piece's height;
4. the centre is the foot's centroid, the footprint its convex hull (an engine polygon in
   the piece's own frame), and the front dot is lifted to ``piece_height`` before it is
   mapped: the facing runs from the centre to the dot, or, for long pieces (sticks, leaves),
   along the foot's long axis, turned to the dot's end.

When the piece cannot be told from the ground, the box centre lifted to half the height
stands for the centre and the game's default footprint for the foot (``method`` says which).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.geometry import FieldPoint
from rules.the_game.shapes import Footprint
from tabletop.outdoor.dots import dot_present, dot_reach, find_dot, refine_dot
from tabletop.outdoor.view import FieldView
from vision.detect_eval import box_iou
from vision.detections import Detections
from vision.facing import field_direction

__all__ = ["DOTS_APART", "ONE_PIECE_IOU", "PieceReading", "ReadingConfig", "box_dots", "lift_boxes", "name_pieces",
           "one_box_per_piece", "read_pieces"]

#: Two pieces' boxes mostly overlap less than this even when the pieces touch or lie on one
#: another (rendered fields); two boxes overlapping this much are one piece boxed twice, unless
#: they show two front dots (:func:`one_box_per_piece`): sticks laid side by side, a stone on
#: another, overlap up to 0.95.
ONE_PIECE_IOU = 0.6
#: Two overlapping boxes whose front dots are more than this share of the smaller box's
#: shorter side apart hold two pieces (one piece boxed twice puts both keypoints on its dot,
#: within a pixel or two).
DOTS_APART = 0.5
#: A less sure box holding this share of each of two boxes kept before it is one box over two
#: pieces side by side (the detector's guess at a piece between them), not a third piece.
SPANS_TWO = 0.7


@dataclass(frozen=True)
class ReadingConfig:
    """How pieces are read: ``piece_height`` inches; ``px_per_inch`` of the ground patches;
    ``min_confidence`` of a detection; ``axis_ratio``: a foot this much longer than wide
    takes its facing from its long axis; ``lightness_weight``: the weight of lightness
    against colour when telling a piece from the ground (shadows darken the ground);
    ``contrast``: a pixel differing from the ground by this many times the ground's own
    spread belongs to the piece (or Otsu's threshold, when lower); ``default_footprint``
    when the foot is not found; ``stick_ratio``: a piece whose fitted foot is this much
    longer than wide is a stick, fitted as a rectangle (an ellipse of a stick's length and
    width is half an inch short of its corners); ``read_facings``: how a facing reader's
    reading (:mod:`vision.facing`) is used where the detector has one: ``"fit"`` not at all
    (the facing runs from the centre to the dot), ``"reader"`` it is the facing, ``"axis"``
    it is the facing, but a stick keeps its fitted long axis, turned to the reader's end."""

    piece_height: float = 0.4
    px_per_inch: float = 24.0
    min_confidence: float = 0.25
    axis_ratio: float = 1.5
    stick_ratio: float = 2.0
    lightness_weight: float = 0.3
    contrast: float = 3.0
    default_footprint: Footprint = field(default_factory=lambda: Footprint.ellipse(1.0, 1.0))
    sides: tuple[str, ...] = ("red", "blue")
    method: str = "box"
    refine_dots: bool = True
    height_ratio: float | None = None
    read_facings: str = "reader"


@dataclass(frozen=True)
class PieceReading:
    """One piece as read: ``id`` (``R1``, ``B2``: side initial and number), ``side``,
    ``centre`` and ``dot`` in field inches, ``facing`` in degrees (counter-clockwise from the
    field's +x), ``footprint`` in the piece's frame, the detection's ``box`` and
    ``confidence``, and ``method``: ``fit`` (the prism that casts the box), ``ground`` (told
    from the ground by colour) or ``box`` (the box centre and the default footprint)."""

    id: str
    side: str
    centre: FieldPoint
    facing: float
    footprint: Footprint
    box: tuple[float, float, float, float]
    confidence: float
    dot: FieldPoint | None = None
    method: str = "fit"
    outline: tuple[tuple[float, float], ...] = ()  # the foot on the field (inches)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "side": self.side,
            "at": {"x": round(self.centre.x, 3), "y": round(self.centre.y, 3)},
            "facing": round(self.facing, 1), "footprint": self.footprint.to_json(),
            "confidence": round(self.confidence, 3), "method": self.method,
        }


def _side_of(name: str, sides: Sequence[str]) -> str | None:
    for s in sides:
        if name == s or name.startswith(f"{s}-"):
            return s
    return None


def read_pieces(image: np.ndarray, det: Detections, view: FieldView, config: ReadingConfig = ReadingConfig()) -> list[PieceReading]:
    """Every piece of a frame (undistorted, as :meth:`FieldSetup.locate` returns it) from the
    detector's :class:`~vision.detections.Detections`; named with :func:`name_pieces`."""
    names = [str(n) for n in (det.class_name if det.class_name is not None else det.class_id)]
    keep = [i for i, n in enumerate(names)
            if _side_of(n, config.sides) is not None and det.confidence[i] >= config.min_confidence]
    keep = one_box_per_piece(np.asarray(det.xyxy, float), np.asarray(det.confidence, float), keep,
                             dots=box_dots(det), image=image, names=names)
    boxes = np.asarray(det.xyxy, float)[keep] if keep else np.zeros((0, 4))
    h = config.piece_height
    # each box's centre lifted to half the height: where the piece roughly stands
    centres = view.to_field(np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], h / 2) \
        if len(boxes) else np.zeros((0, 2))
    read = det.read_facings()
    out: list[tuple[str, PieceReading]] = []
    for k, i in enumerate(keep):
        side = _side_of(names[i], config.sides)
        assert side is not None
        dot = None
        if det.keypoints is not None and det.keypoints.shape[1] > 0:
            kp = (float(det.keypoints[i, 0, 0]), float(det.keypoints[i, 0, 1]))
            if config.refine_dots:
                b = boxes[k]
                # a keypoint the detector doubts (the dot hidden or blurred): look all over the box
                sure = det.keypoints[i, 0, 2] >= 0.5
                search = None if sure else max(3, int(0.5 * max(b[2] - b[0], b[3] - b[1])))
                side, kp = find_dot(image, kp, side, dot_reach(b), config.sides, search)
            d = view.to_field([kp], h)[0]
            if np.all(np.isfinite(d)):
                dot = FieldPoint(float(d[0]), float(d[1]))
        fit = _fitted(view, boxes[k], centres[k], dot, config) if config.method == "box" else None
        if fit is not None:  # the prism that casts the box: an ellipse (a stick: a rectangle) along the facing
            x, y, length, width, fitted, shape = fit
            facing = fitted
            if dot is not None and read is not None:
                facing = _read_facing(view, boxes[k], float(read[i]), fit, fitted, config)
            at = FieldPoint(x, y)
            footprint = Footprint.rectangle(length, width) if shape == "rectangle" else Footprint.ellipse(length, width)
            footprint = _turned(footprint, facing - fitted)  # the foot stays where it was fitted
            reading = PieceReading("", side, at, facing, footprint, tuple(float(v) for v in boxes[k]),  # type: ignore[arg-type]
                                   float(det.confidence[i]), dot, "fit", footprint.outline(x, y, facing))
            out.append((side, reading))
            continue
        others = [(boxes[j], centres[j]) for j in range(len(boxes)) if j != k]
        foot = _foot(image, view, boxes[k], centres[k], others, config)
        if foot is not None:
            centre, hull, axis, elongation = foot
            method = "ground"
        else:
            centre, hull, axis, elongation, method = centres[k], None, None, 1.0, "box"
        facing = _facing(centre, dot, axis, elongation, config.axis_ratio)
        if dot is not None and read is not None:
            facing = _read_facing(view, boxes[k], float(read[i]), None, facing, config)
        at = FieldPoint(float(centre[0]), float(centre[1]))
        footprint, outline = _footprint(hull, at, facing, config.default_footprint)
        reading = PieceReading("", side, at, facing, footprint, tuple(float(v) for v in boxes[k]),  # type: ignore[arg-type]
                               float(det.confidence[i]), dot, method, outline)
        out.append((side, reading))
    return name_pieces([r for _, r in out], config.sides)


def lift_boxes(boxes: np.ndarray, dots: np.ndarray | None, view: FieldView,
               config: ReadingConfig = ReadingConfig(), image: np.ndarray | None = None,
               sides: Sequence[str | None] | None = None, read: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Centres (N x 2, field inches) and facings (N, degrees; NaN without a dot) of pieces
    from their boxes and front dots (undistorted pixels; ``dots`` N x 2, a NaN row for a box
    without one): the prism that casts each box, else its centre lifted to half the piece's
    height. With the ``image`` and each box's side (``sides``), each dot is first moved onto
    the dot of the side's colour near it (:func:`tabletop.outdoor.dots.refine_dot`). ``read``:
    a facing reader's facings (image degrees at each box's centre; NaN: none), used as
    ``config.read_facings`` says for the pieces with a dot. No ground segmentation: this is
    the live referee's fast reading."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    n, h = len(boxes), config.piece_height
    if n == 0:
        return np.zeros((0, 2)), np.zeros(0)
    centres = view.to_field(np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], h / 2)
    facings = np.full(n, np.nan)
    for k in range(n):
        dot = None
        if dots is not None and np.all(np.isfinite(dots[k])):
            kp = (float(dots[k][0]), float(dots[k][1]))
            if image is not None and sides is not None and sides[k] is not None and config.refine_dots:
                kp = refine_dot(image, kp, str(sides[k]), dot_reach(boxes[k]))
            d = view.to_field([kp], h)[0]
            if np.all(np.isfinite(d)):
                dot = FieldPoint(float(d[0]), float(d[1]))
                facings[k] = math.degrees(math.atan2(d[1] - centres[k, 1], d[0] - centres[k, 0])) % 360.0
        fit = _fitted(view, boxes[k], centres[k], dot, config) if np.all(np.isfinite(centres[k])) else None
        if fit is not None:
            centres[k] = fit[:2]
            if dot is not None:
                facings[k] = fit[4]
        if dot is not None and read is not None:
            facings[k] = _read_facing(view, boxes[k], float(read[k]), fit, float(facings[k]), config)
    return centres, facings


def _turned(footprint: Footprint, by: float) -> Footprint:
    """``footprint`` (in its piece's frame) for the same piece turned ``by`` degrees more: the
    same foot on the ground, so a polygon unless the turn is a half or whole one (or none).

    >>> _turned(Footprint.ellipse(2.0, 1.0), 180.0).shape.value
    'ellipse'
    >>> f = _turned(Footprint.rectangle(2.0, 1.0), 90.0)
    >>> [(round(p.x, 6) + 0.0, round(p.y, 6) + 0.0) for p in f.points]
    [(-0.5, -1.0), (0.5, -1.0), (0.5, 1.0), (-0.5, 1.0)]
    """
    off = by % 180.0
    if min(off, 180.0 - off) < 0.5:
        return footprint
    c, s = math.cos(math.radians(-by)), math.sin(math.radians(-by))
    return Footprint.polygon(tuple(FieldPoint(u * c - v * s, u * s + v * c) for u, v in footprint.local))


def _read_facing(view: FieldView, box: np.ndarray, read: float, fit: tuple[Any, ...] | None, facing: float,
                 config: ReadingConfig) -> float:
    """The facing of a piece with a dot, given a facing reader's reading ``read`` (image
    degrees at the box's centre; NaN: none) and the ``facing`` read without it (see
    ``ReadingConfig.read_facings``)."""
    if config.read_facings == "fit" or not math.isfinite(read):
        return facing
    at = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    r = field_direction(lambda pts: view.to_field(pts, 0.0), at, read)
    if not math.isfinite(r):
        return facing
    if config.read_facings == "axis" and fit is not None and fit[5] == "rectangle":
        a = fit[4] % 360.0
        return a if _angle(a, r) <= 90.0 else (a + 180.0) % 360.0
    return r


def one_box_per_piece(xyxy: np.ndarray, conf: np.ndarray, keep: list[int], iou: float = ONE_PIECE_IOU,
                      dots: np.ndarray | None = None, image: np.ndarray | None = None,
                      names: Sequence[str] | None = None) -> list[int]:
    """A weak detector may box one piece twice, once per side (its non-maximum suppression
    keeps classes apart): of two boxes overlapping that much, the more confident stays.

    Two sticks laid side by side, or a stone on another, overlap as much. Given the boxes'
    front-dot keypoints (``dots``, N x 2, NaN: none), two boxes whose dots are more than
    :data:`DOTS_APART` of the smaller box's shorter side apart are two pieces: one piece boxed
    twice shows its one dot twice. Given the ``image`` and the class ``names`` too, the less
    sure box's dot must also be seen there in its side's colour (:func:`~tabletop.outdoor.dots.dot_present`).

    A less sure box that holds most (:data:`SPANS_TWO`) of each of two boxes kept before it
    spans two pieces lying side by side: it is dropped, not read as a third piece between them.
    """
    out: list[int] = []
    overlap = box_iou(xyxy, xyxy)  # every pair's IoU, once
    for i in sorted(keep, key=lambda i: -conf[i]):
        if sum(_inside(xyxy[j], xyxy[i]) >= SPANS_TWO for j in out) >= 2:
            continue
        if all(overlap[i, j] < iou or _two_dots(xyxy, dots, image, names, j, i) for j in out):
            out.append(i)
    return sorted(out)


def _inside(inner: np.ndarray, outer: np.ndarray) -> float:
    """The share of box ``inner``'s area that lies within box ``outer``."""
    w = min(inner[2], outer[2]) - max(inner[0], outer[0])
    h = min(inner[3], outer[3]) - max(inner[1], outer[1])
    area = (inner[2] - inner[0]) * (inner[3] - inner[1])
    return float(max(w, 0.0) * max(h, 0.0) / area) if area > 0 else 0.0


def box_dots(det: Detections) -> np.ndarray | None:
    """Each box's front-dot keypoint (N x 2; NaN where the detector saw none), or ``None``."""
    if det.keypoints is None or det.keypoints.ndim != 3 or not det.keypoints.shape[1]:
        return None
    kp = np.asarray(det.keypoints[:, 0, :], float)
    seen = kp[:, 2] > 0 if kp.shape[1] > 2 else np.ones(len(kp), bool)
    return np.where(seen[:, None], kp[:, :2], np.nan)


def _two_dots(xyxy: np.ndarray, dots: np.ndarray | None, image: np.ndarray | None,
              names: Sequence[str] | None, kept: int, other: int) -> bool:
    """Whether boxes ``kept`` and ``other`` show two front dots (see :func:`one_box_per_piece`)."""
    if dots is None or not (np.all(np.isfinite(dots[kept])) and np.all(np.isfinite(dots[other]))):
        return False
    short = min(float(min(b[2] - b[0], b[3] - b[1])) for b in (xyxy[kept], xyxy[other]))
    if math.dist(dots[kept], dots[other]) <= DOTS_APART * short:
        return False
    if image is None or names is None:
        return True
    side = str(names[other]).partition("-")[0]
    return dot_present(image, (float(dots[other][0]), float(dots[other][1])), side, dot_reach(xyxy[other]))


def name_pieces(readings: Sequence[PieceReading], sides: Sequence[str] = ("red", "blue")) -> list[PieceReading]:
    """Ids by side in reading order: the side's initial (upper case) and a number, counted
    from the near edge (then from the left), so the same position gets the same names."""
    from dataclasses import replace

    out: list[PieceReading] = []
    for side in sides:
        mine = sorted((r for r in readings if r.side == side), key=lambda r: (round(r.centre.y, 1), r.centre.x))
        prefix = side[:1].upper()
        out += [replace(r, id=f"{prefix}{n}") for n, r in enumerate(mine, 1)]
    return out


# -- reading one piece's foot ----------------------------------------------------------------

def _patch(view: FieldView, box: np.ndarray, height: float, ppi: float) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """The ground patch under a box: field -> patch pixels (3x3) and its size."""
    corners = np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
    pts = np.vstack([view.to_field(corners, 0.0), view.to_field(corners, height)])
    lo = pts.min(axis=0) - 0.35
    hi = pts.max(axis=0) + 0.35
    span = np.minimum(hi - lo, 8.0)  # no piece is wider than 8 inches
    mid = (lo + hi) / 2
    lo, hi = mid - span / 2, mid + span / 2
    w, h = (math.ceil(v * ppi) + 1 for v in span)
    to_patch = np.array([[ppi, 0, -lo[0] * ppi], [0, ppi, -lo[1] * ppi], [0, 0, 1.0]])
    return to_patch, corners, (w, h)


def _foot(image: np.ndarray, view: FieldView, box: np.ndarray, rough: np.ndarray,
          others: list[tuple[np.ndarray, np.ndarray]], config: ReadingConfig) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    import cv2

    ppi = config.px_per_inch
    to_patch, corners, (w, h) = _patch(view, box, config.piece_height, ppi)
    if w < 6 or h < 6:
        return None
    patch_to_image = view.plane(0.0) @ np.linalg.inv(to_patch)
    patch = cv2.warpPerspective(image, patch_to_image, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    image_to_patch = np.linalg.inv(patch_to_image)

    def poly(c: np.ndarray) -> np.ndarray:
        q = np.c_[c, np.ones(len(c))] @ image_to_patch.T
        return q[:, :2] / q[:, 2:3]

    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, np.round(poly(corners) * 4).astype(np.int32), 255, cv2.LINE_8, 2)
    if inside.sum() < 255 * 12:
        return None
    own = _to_patch(to_patch, rough)
    for obox, ocentre in others:  # overlapping boxes: each pixel to the nearer piece
        oc = np.array([[obox[0], obox[1]], [obox[2], obox[1]], [obox[2], obox[3]], [obox[0], obox[3]]])
        theirs = np.zeros_like(inside)
        cv2.fillConvexPoly(theirs, np.round(poly(oc) * 4).astype(np.int32), 255, cv2.LINE_8, 2)
        both = (inside > 0) & (theirs > 0)
        if both.any():
            yy, xx = np.nonzero(both)
            oq = _to_patch(to_patch, ocentre)
            nearer = (xx - oq[0]) ** 2 + (yy - oq[1]) ** 2 < (xx - own[0]) ** 2 + (yy - own[1]) ** 2
            inside[yy[nearer], xx[nearer]] = 0
    lab = cv2.cvtColor(cv2.GaussianBlur(patch, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    ring = inside == 0
    if ring.sum() < 20:
        return None
    bg = np.median(lab[ring], axis=0)
    diff = lab - bg
    diff[..., 0] *= config.lightness_weight  # shadows change the lightness most
    dist = np.sqrt((diff ** 2).sum(axis=2))
    spread = float(np.median(dist[ring])) + 1e-3
    vals = dist[inside > 0]
    scaled = np.clip(vals / (vals.max() + 1e-6) * 255, 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(scaled.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    otsu = float(t) / 255 * (vals.max() + 1e-6)
    thr = max(min(otsu, config.contrast * spread), 2.5 * spread)
    mask = ((dist > thr) & (inside > 0)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    # the component nearest the rough centre, among the sizeable ones
    sizes = stats[1:, cv2.CC_STAT_AREA]
    cand = [k + 1 for k in range(n - 1) if sizes[k] >= max(6, 0.15 * sizes.max())]
    best = min(cand, key=lambda k: (cents[k][0] - own[0]) ** 2 + (cents[k][1] - own[1]) ** 2 - sizes[k - 1] * 0.5)
    sil = (labels == best).astype(np.uint8)
    area_box = float((inside > 0).sum())
    if sil.sum() < 0.08 * area_box:
        return None
    # the foot: inside the silhouette and inside the silhouette pulled back to the camera
    s = view.ground_scale(config.piece_height)
    foot_of_cam = _to_patch(to_patch, view.camera_position[:2])
    k = 1.0 / s
    pull = np.array([[k, 0, foot_of_cam[0] * (1 - k)], [0, k, foot_of_cam[1] * (1 - k)]])
    back = cv2.warpAffine(sil, pull, (w, h), flags=cv2.INTER_NEAREST)
    foot = sil & back
    if foot.sum() < 0.4 * sil.sum():
        foot = sil
    ys, xs = np.nonzero(foot)
    pts = np.c_[xs, ys].astype(float)
    c = pts.mean(axis=0)
    cov = np.cov((pts - c).T) if len(pts) > 2 else np.eye(2)
    evals, evecs = np.linalg.eigh(cov)
    axis = math.degrees(math.atan2(evecs[1, 1], evecs[0, 1]))
    elongation = math.sqrt(max(evals[1], 1e-9) / max(evals[0], 1e-9))
    contours, _ = cv2.findContours(foot, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull_px = cv2.convexHull(np.vstack(contours)).reshape(-1, 2).astype(float)
    # pixel p covers p .. p + 1: the outline runs along the pixels' outer edges
    hull_px = hull_px + 0.5 + 0.5 * np.sign(hull_px + 0.5 - c)
    inv = np.linalg.inv(to_patch)
    centre = _apply(inv, c + 0.5)
    hull = np.array([_apply(inv, p) for p in hull_px])
    return centre, hull, axis, elongation


def _fitted(view: FieldView, box: np.ndarray, rough: np.ndarray, dot: FieldPoint | None,
            config: ReadingConfig) -> tuple[float, float, float, float, float, str] | None:
    """``(x, y, length, width, facing degrees, shape)`` of the prism that casts the box
    (:func:`tabletop.outdoor.boxfit.fit_box`): on an ellipse, or on a rectangle when the
    ellipse is at least ``config.stick_ratio`` times as long as wide (a stick); ``None`` when
    none fits it."""
    from tabletop.outdoor.boxfit import fit_box

    probe = view.to_image(np.array([[rough[0], rough[1]], [rough[0] + 1.0, rough[1]], [rough[0], rough[1] + 1.0]]))
    ppi = max(float(np.linalg.norm(probe[1] - probe[0])), float(np.linalg.norm(probe[2] - probe[0])), 1.0)
    size = max(0.3, min(4.0, 0.8 * min(box[2] - box[0], box[3] - box[1]) / ppi))
    d = None if dot is None else np.array([dot.x, dot.y])
    facing = 0.0 if d is None else math.atan2(d[1] - rough[1], d[0] - rough[0])
    height = config.piece_height
    p, misfit = fit_box(view, box, d, height, np.array([rough[0], rough[1], size, size, facing]))
    if config.height_ratio is not None:  # a second fit with the height its width suggests
        height = min(max(config.height_ratio * min(p[2], p[3]), 0.05), 1.5)
        if d is not None:
            d = view.to_field(view.to_image([d], config.piece_height), height)[0]
        p, misfit = fit_box(view, box, d, height, p)
    shape = "ellipse"
    if np.all(np.isfinite(p)) and max(p[2], p[3]) >= config.stick_ratio * min(p[2], p[3]):
        long = np.r_[p[:2], max(p[2], p[3]), min(p[2], p[3]), p[4]]  # a stick is long along its facing
        stick, stick_misfit = fit_box(view, box, d, height, long, shape="rectangle")
        if np.all(np.isfinite(stick)) and stick[2] >= stick[3]:
            p, misfit, shape = stick, stick_misfit, "rectangle"
    if not np.all(np.isfinite(p)) or misfit > 0.25 * ppi + 3.0:
        return None
    return float(p[0]), float(p[1]), float(p[2]), float(p[3]), math.degrees(p[4]) % 360.0, shape


def _to_patch(m: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _apply(m, p)


def _apply(m: np.ndarray, p: Any) -> np.ndarray:
    q = m @ np.array([p[0], p[1], 1.0])
    return q[:2] / q[2]


def _facing(centre: np.ndarray, dot: FieldPoint | None, axis: float | None, elongation: float, ratio: float) -> float:
    if dot is None:
        return float(axis % 360.0) if axis is not None else 0.0
    toward = math.degrees(math.atan2(dot.y - centre[1], dot.x - centre[0])) % 360.0
    if axis is None or elongation < ratio:
        return toward
    # the long axis, turned to the end the dot is on (patch y runs with field y: same angles)
    a = axis % 360.0
    b = (a + 180.0) % 360.0
    return a if _angle(a, toward) <= _angle(b, toward) else b


def _angle(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def _footprint(hull: np.ndarray | None, at: FieldPoint, facing: float, default: Footprint) -> tuple[Footprint, tuple[tuple[float, float], ...]]:
    """The foot as an engine polygon in the piece's own frame (x forward), and on the field."""
    if hull is None or len(hull) < 3:
        return default, default.outline(at.x, at.y, facing)
    c, s = math.cos(math.radians(facing)), math.sin(math.radians(facing))
    local = [((x - at.x) * c + (y - at.y) * s, -(x - at.x) * s + (y - at.y) * c) for x, y in hull]
    try:
        fp = Footprint.polygon(tuple(FieldPoint(round(u, 4), round(v, 4)) for u, v in _simplify(local)))
    except ValueError:
        return default, default.outline(at.x, at.y, facing)
    return fp, fp.outline(at.x, at.y, facing)


def _simplify(points: list[tuple[float, float]], most: int = 16) -> list[tuple[float, float]]:
    """A convex hull with at most ``most`` corners, counter-clockwise."""
    import cv2

    arr = np.array(points, np.float32).reshape(-1, 1, 2)
    hull = cv2.convexHull(arr).reshape(-1, 2)
    eps = 0.01
    while len(hull) > most:
        hull = cv2.approxPolyDP(hull.reshape(-1, 1, 2), eps, True).reshape(-1, 2)
        eps *= 1.5
    pts = [(float(x), float(y)) for x, y in hull]
    area = sum(pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1] for i in range(len(pts)))
    return pts if area > 0 else pts[::-1]

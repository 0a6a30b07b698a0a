"""Scoring a detector on a labelled dataset: mAP50-95, cells, boards, facing, dice, confusions.

The figures are computed from the dataset's files every time:

* **mAP50-95** from the YOLO label files (``labels/``), so any ultralytics dataset works,
  your own photos included: COCO-style average precision (101-point interpolation) per
  class at IoU 0.50, 0.55 .. 0.95, averaged over the thresholds and the classes present.
  Detections at every confidence down to ``MAP_CONF`` take part, as in ultralytics' ``val``.
* **Per cell** (grid games, rendered data with ``truth/``): every cell of the board whose
  centre is in the frame counts. Its truth is the multiset of classes of the labelled
  pieces the ground truth puts on it (``cell``), an empty cell's truth is empty; the
  prediction is the multiset of classes of the detections (confidence at least the
  operating threshold, hands left out) whose anchor maps through the frame's homography
  into the cell, read as tabletop reads a cell (:func:`vision.detect_cells.one_read`: two
  boxes of one piece on a square, a figure boxed once as ``north-i`` and once as
  ``north-ii``, are one piece, the surer box; the figure with every box counted is given
  beside it). A piece held in a hand is on no cell (it and a detection overlapping
  it are left out). Anchors: the box centre for flat pieces; for standing ones the end
  of the box towards the point under the camera, moved half a base further away. A cell is right when the two agree: empty, or exactly the right pieces
  (a whole stack, a checker and its Seth token). **Whole board**: frames with every cell
  right.
* **Facing** (The Game): for each labelled piece with a seen front dot, the detection of
  the same class overlapping its box most (IoU >= 0.5); its facing is read by the reader
  given (``tabletop eval`` gives the live referee's own: the prism fitted to the box, the
  dot lifted to the piece's height), by default from its box centre to its keypoint, both
  mapped onto the field, and compared with the engine's facing. Median and 95th percentile
  of the error in degrees; pieces not found (or not read) are counted apart.
* **Dice**: labelled dice (the kit's ``die`` pieces) read right: a detection of the same
  class with IoU >= 0.5.
* **Confusion table**: labelled boxes matched to detections (IoU >= 0.5, highest
  confidence first): rows the true class, columns the detected one, ``missed`` and
  ``background`` (a detection matching nothing).

:func:`evaluate` takes any function from a frame to :class:`Detections`, so the scoring can
be checked with a perfect "detector" that reads the labels back (tests do).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.detect_cells import GRID_GAMES, FrameGeometry, board_cells, one_read
from vision.detections import Detections, box_iou

__all__ = ["CELL_ERRORS", "MAP_CONF", "EvalReport", "Sample", "UnreadableImageError", "average_precision", "box_iou",
           "cell_error", "evaluate", "load_samples"]

MAP_CONF = 0.001
IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class UnreadableImageError(ValueError):
    """An image of the dataset that cannot be read (a corrupt, truncated or empty file)."""


@dataclass(frozen=True)
class Sample:
    """One image of a dataset: its path, its labels (classes, boxes in pixels, keypoints)
    and its ground truth JSON when the dataset was rendered."""

    image: Path
    classes: np.ndarray
    boxes: np.ndarray
    keypoints: np.ndarray | None
    truth: Mapping[str, Any] | None
    size: tuple[int, int]  # width, height


def _read_labels(path: Path, size: tuple[int, int],
                 model_classes: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    w, h = size
    classes, boxes, kps = [], [], []
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not a label file (not UTF-8 text; a line is: class cx cy w h)") from None
        for n, line in enumerate(text.splitlines(), 1):
            parts = line.split()
            if not parts:
                continue
            try:
                values = [float(v) for v in parts]
            except ValueError:
                raise ValueError(f"{path}: line {n}: not numbers: {line.strip()!r}") from None
            if len(values) < 5:
                raise ValueError(f"{path}: line {n}: expected class cx cy w h, got {len(values)} values")
            c, cx, cy, bw, bh = values[:5]
            if not (math.isfinite(c) and c >= 0 and c == int(c)):
                raise ValueError(f"{path}: line {n}: the class must be a whole number from 0, got {parts[0]!r}")
            if model_classes is not None and c >= model_classes:
                many = f"{model_classes} class{'es' if model_classes != 1 else ''}"
                raise ValueError(f"{path}: line {n}: class {int(c)}, and the model has {many} (0 to "
                                 f"{model_classes - 1}): give the weights trained on these labels (--weights)")
            classes.append(int(c))
            boxes.append([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
            rest = values[5:]
            if len(rest) >= 3:
                kps.append([rest[0] * w, rest[1] * h, rest[2]])
            elif len(rest) >= 2:
                kps.append([rest[0] * w, rest[1] * h, 2.0])
            else:
                kps.append([0.0, 0.0, 0.0])
    keypoints = np.array(kps, float).reshape(-1, 3) if kps else None
    return np.array(classes, int), np.array(boxes, float).reshape(-1, 4), keypoints


def _numbers(value: Any, shape: tuple[int, ...] | None = None) -> bool:
    """Whether ``value`` is an array of finite numbers of ``shape`` (``None``: a flat list)."""
    try:
        array = np.asarray(value, float)
    except (TypeError, ValueError, OverflowError):
        return False
    fits = array.ndim == 1 if shape is None else array.shape == shape
    return fits and bool(np.all(np.isfinite(array)))


def _check_truth(truth: Mapping[str, Any], path: Path) -> None:
    """Refuse a ground truth whose parts the figures read are missing or malformed: the
    board's homography (an invertible 3 x 3 matrix), the camera's lens when given, and each
    labelled piece's box and class."""
    what = f"{path}: not a ground truth as 'tabletop render' writes it"
    h = truth.get("board", {}).get("board_to_image")
    if not _numbers(h, (3, 3)) or abs(float(np.linalg.det(np.asarray(h, float)))) < 1e-12:
        raise ValueError(f"{what} (board.board_to_image: a 3 x 3 homography is needed)")
    camera = truth.get("camera") or {}
    if not isinstance(camera, dict) or not all(camera.get(k) is None or _numbers(camera[k], shape)
                                               for k, shape in (("intrinsics", (3, 3)), ("distortion", None))):
        raise ValueError(f"{what} (camera: intrinsics a 3 x 3 matrix, distortion a list of numbers)")
    for i, piece in enumerate(truth.get("pieces", [])):
        if piece.get("in_labels") and not (_numbers(piece.get("box"), (4,)) and isinstance(piece.get("class"), str)
                                           and type(piece.get("class_id")) is int):
            raise ValueError(f"{what} (pieces[{i}]: a labelled piece has a box [x1, y1, x2, y2], a class and "
                             "a whole class_id)")


def load_samples(folder: Path, split: str | None = None, model_classes: int | None = None) -> list[Sample]:
    """The images of a dataset folder (``images/<split>/``, every split when ``split`` is
    ``None``; or ``images/`` and ``labels/`` without splits), with their labels and ground
    truth (``truth/<split>/``, when the dataset was rendered). With ``model_classes`` (the
    model's number of classes), a label of a class beyond them is refused."""
    import cv2

    folder = Path(folder)
    images = folder / "images"
    if split:
        splits = [split]
    elif images.is_dir():
        splits = sorted(p.name for p in images.iterdir() if p.is_dir())
        if not splits and any(p.suffix.lower() in IMAGE_SUFFIXES for p in images.iterdir()):
            splits = [""]  # images/ and labels/ without splits
    else:
        splits = []
    samples = []
    for sp in splits:
        for img in sorted((folder / "images" / sp).iterdir()):
            if img.suffix.lower() not in IMAGE_SUFFIXES or not img.is_file():
                continue
            truth_path = folder / "truth" / sp / f"{img.stem}.json"
            try:
                truth = json.loads(truth_path.read_text(encoding="utf-8")) if truth_path.is_file() else None
            except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, nested too deeply
                raise ValueError(f"{truth_path}: not a ground truth JSON file ({err})") from None
            if truth is not None and not isinstance(truth, dict):
                raise ValueError(f"{truth_path}: the ground truth must be a JSON object")
            if truth is not None and not (isinstance(truth.get("pieces", []), list)
                                          and all(isinstance(p, dict) for p in truth.get("pieces", []))
                                          and isinstance(truth.get("board", {}), dict)):
                raise ValueError(f"{truth_path}: not a ground truth as 'tabletop render' writes it "
                                 "(pieces: a list of objects, board: an object)")
            if truth is not None and truth.get("image_size"):
                try:
                    size = (int(truth["image_size"][0]), int(truth["image_size"][1]))
                except (TypeError, ValueError, IndexError, KeyError, OverflowError):
                    raise ValueError(f"{truth_path}: image_size must be [width, height]") from None
                if min(size) <= 0:
                    raise ValueError(f"{truth_path}: image_size must be [width, height], in pixels, got {size}")
            else:
                pixels = cv2.imread(str(img), cv2.IMREAD_UNCHANGED)
                if pixels is None:
                    raise UnreadableImageError(f"{img}: cannot read this image")
                size = (pixels.shape[1], pixels.shape[0])
            if truth is not None:
                _check_truth(truth, truth_path)
            classes, boxes, kps = _read_labels(folder / "labels" / sp / f"{img.stem}.txt", size, model_classes)
            samples.append(Sample(img, classes, boxes, kps, truth, size))
    return samples


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """COCO's 101-point interpolated average precision of a precision/recall curve.

    >>> average_precision(np.array([0.5, 1.0]), np.array([1.0, 1.0]))
    1.0
    """
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.flip(np.maximum.accumulate(np.flip(p)))
    x = np.linspace(0, 1, 101)
    idx = np.searchsorted(r, x, side="left")
    return float(np.mean(np.where(idx < len(p), p[np.minimum(idx, len(p) - 1)], 0.0)))


@dataclass
class _Matches:
    """Per detection (over all images): class, confidence, true-positive flag per IoU threshold."""

    cls: list[np.ndarray] = field(default_factory=list)
    conf: list[np.ndarray] = field(default_factory=list)
    tp: list[np.ndarray] = field(default_factory=list)
    n_true: Counter = field(default_factory=Counter)  # type: ignore[type-arg]


def _match_for_map(det: Detections, classes: np.ndarray, boxes: np.ndarray, acc: _Matches) -> None:
    acc.n_true.update(int(c) for c in classes)
    n = len(det)
    tp = np.zeros((n, len(IOU_THRESHOLDS)), bool)
    if n and len(classes):
        iou = box_iou(det.xyxy, boxes)
        iou[det.class_id[:, None] != classes[None, :]] = 0.0
        order = np.argsort(-det.confidence, kind="stable")
        for t, thr in enumerate(IOU_THRESHOLDS):
            used = np.zeros(len(classes), bool)
            for i in order:
                cand = np.where(~used & (iou[i] >= thr))[0]
                if len(cand):
                    j = cand[np.argmax(iou[i, cand])]
                    used[j] = True
                    tp[i, t] = True
    acc.cls.append(det.class_id.astype(int))
    acc.conf.append(det.confidence.astype(float))
    acc.tp.append(tp)


def _map(acc: _Matches) -> tuple[float, float, dict[int, float]]:
    """mAP50-95, mAP50 and AP50-95 per class (classes with labelled boxes)."""
    cls = np.concatenate(acc.cls) if acc.cls else np.zeros(0, int)
    conf = np.concatenate(acc.conf) if acc.conf else np.zeros(0)
    tp = np.concatenate(acc.tp) if acc.tp else np.zeros((0, len(IOU_THRESHOLDS)), bool)
    per_class: dict[int, float] = {}
    ap50 = []
    for c, n in sorted(acc.n_true.items()):
        sel = cls == c
        order = np.argsort(-conf[sel], kind="stable")
        t = tp[sel][order]
        if len(t) == 0:
            per_class[c] = 0.0
            ap50.append(0.0)
            continue
        ctp = np.cumsum(t, axis=0)
        cfp = np.cumsum(~t, axis=0)
        recall = ctp / n
        precision = ctp / np.maximum(ctp + cfp, 1e-12)
        aps = [average_precision(recall[:, k], precision[:, k]) for k in range(len(IOU_THRESHOLDS))]
        per_class[c] = float(np.mean(aps))
        ap50.append(aps[0])
    if not per_class:
        return float("nan"), float("nan"), {}
    return float(np.mean(list(per_class.values()))), float(np.mean(ap50)), per_class


def _greedy_pairs(det: Detections, boxes: np.ndarray, thr: float = 0.5) -> dict[int, int]:
    """Labelled box index -> detection index, by falling confidence, IoU >= ``thr``, any class."""
    pairs: dict[int, int] = {}
    if not len(det) or not len(boxes):
        return pairs
    iou = box_iou(det.xyxy, boxes)
    for i in np.argsort(-det.confidence, kind="stable"):
        free = [j for j in np.where(iou[i] >= thr)[0] if j not in pairs]
        if free:
            pairs[int(max(free, key=lambda j: iou[i, j]))] = int(i)
    return pairs


@dataclass
class EvalReport:
    """The figures of one evaluation; :meth:`text` prints them."""

    game: str
    images: int
    names: tuple[str, ...]
    map50_95: float
    map50: float
    ap_per_class: dict[int, float]
    cells: int = 0
    cells_right: int = 0
    cells_right_every_box: int = 0  # every box counted, none read as one piece with another
    cells_occupied: int = 0
    #: the cells read wrong (each piece read once), by what went wrong: ``missed`` (pieces
    #: there, none read), ``phantom`` (an empty cell read with pieces), ``piece`` (as many
    #: pieces read as are there, not the same ones), ``count`` (a stack read with more or
    #: fewer pieces than it holds)
    cell_errors: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    boards: int = 0
    boards_right: int = 0
    boards_right_every_box: int = 0
    facing_errors: list[float] = field(default_factory=list)
    facing_missed: int = 0
    dice: int = 0
    dice_right: int = 0
    confusion: np.ndarray | None = None  # (nc + 1) x (nc + 1): last row background, last column missed
    #: labelled pieces (hands left out) matched by centre (:func:`_centre_pairs`): to any
    #: piece, to one of its own class, and each such pair's label side over its box side
    centre_found: int = 0
    centre_right: int = 0
    label_to_box: list[float] = field(default_factory=list)
    seconds_per_image: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def cell_accuracy(self) -> float | None:
        return self.cells_right / self.cells if self.cells else None

    @property
    def board_accuracy(self) -> float | None:
        return self.boards_right / self.boards if self.boards else None

    @property
    def dice_accuracy(self) -> float | None:
        return self.dice_right / self.dice if self.dice else None

    @property
    def facing_median(self) -> float | None:
        return float(np.median(self.facing_errors)) if self.facing_errors else None

    @property
    def facing_p95(self) -> float | None:
        return float(np.percentile(self.facing_errors, 95)) if self.facing_errors else None

    def recall(self, right_class: bool) -> float | None:
        """Share of labelled pieces (hands left out) matched by a detection (IoU >= 0.5,
        confidence >= the threshold): of any piece class, or of their own class."""
        m = self.confusion
        if m is None:
            return None
        nc = len(self.names)
        pieces = [i for i in range(nc) if self.names[i] != "hand"]
        total = int(m[pieces].sum())
        if not total:
            return None
        if right_class:
            return float(sum(m[i, i] for i in pieces)) / total
        return float(m[np.ix_(pieces, pieces)].sum()) / total

    def _by_centre(self, matched: int) -> float | None:
        """``matched`` over the labelled pieces (hands left out), as :meth:`recall` counts them."""
        m = self.confusion
        if m is None:
            return None
        pieces = [i for i in range(len(self.names)) if self.names[i] != "hand"]
        total = int(m[pieces].sum())
        return matched / total if total else None

    def figures(self) -> dict[str, Any]:
        """The headline figures as plain values (``None``: not measurable on this data)."""
        return {
            "images": self.images,
            "map50_95": _round(self.map50_95),
            "map50": _round(self.map50),
            "cell_accuracy": _round(self.cell_accuracy),
            "cell_accuracy_every_box": _round(self.cells_right_every_box / self.cells) if self.cells else None,
            "cells": self.cells,
            "cells_wrong": {kind: self.cell_errors[kind] for kind in CELL_ERRORS} if self.cells else None,
            "empty_cells_share": _round(1 - self.cells_occupied / self.cells) if self.cells else None,
            "board_accuracy": _round(self.board_accuracy),
            "board_accuracy_every_box": _round(self.boards_right_every_box / self.boards) if self.boards else None,
            "boards": self.boards,
            "facing_median_deg": _round(self.facing_median, 2),
            "facing_p95_deg": _round(self.facing_p95, 2),
            "facing_pieces": len(self.facing_errors),
            "facing_missed": self.facing_missed,
            "pieces_found": _round(self.recall(right_class=False)),
            "pieces_found_right_class": _round(self.recall(right_class=True)),
            "pieces_found_by_centre": _round(self._by_centre(self.centre_found)),
            "pieces_found_by_centre_right_class": _round(self._by_centre(self.centre_right)),
            "label_to_box": _round(float(np.median(self.label_to_box))) if self.label_to_box else None,
            "dice_accuracy": _round(self.dice_accuracy),
            "dice": self.dice,
            "ms_per_image": round(self.seconds_per_image * 1000, 1),
        }

    def text(self) -> str:
        """The report as the ``eval`` command prints it."""
        f = self.figures()
        lines = [f"{self.game}: {self.images} images"]
        lines.append(f"mAP50-95          {_fmt(f['map50_95'])}   (mAP50 {_fmt(f['map50'])})")
        if self.cells:
            lines.append(f"per cell          {_pct(self.cell_accuracy)}   ({self.cells_right}/{self.cells} cells; "
                         f"{_pct(1 - self.cells_occupied / self.cells).strip()} of them empty; every box counted: "
                         f"{_pct(f['cell_accuracy_every_box']).strip()})")
            wrong = self.cells - self.cells_right
            if wrong:
                kinds = ", ".join(f"{self.cell_errors[k]} {CELL_ERRORS[k]}" for k in CELL_ERRORS if self.cell_errors[k])
                lines.append(f"cells read wrong  {wrong}: {kinds}")
            lines.append(f"whole board       {_pct(self.board_accuracy)}   ({self.boards_right}/{self.boards} frames; "
                         f"every box counted: {_pct(f['board_accuracy_every_box']).strip()})")
        else:
            lines.append("per cell          n/a (needs truth/ with a grid game's cells)")
        if self.facing_errors or self.facing_missed:
            lines.append(f"facing error      median {_fmt(f['facing_median_deg'], 1)} deg, "
                         f"95th percentile {_fmt(f['facing_p95_deg'], 1)} deg "
                         f"({len(self.facing_errors)} pieces; {self.facing_missed} not found)")
        if self.dice:
            lines.append(f"dice              {_pct(self.dice_accuracy)}   ({self.dice_right}/{self.dice} dice)")
        found, right = self.recall(right_class=False), self.recall(right_class=True)
        if found is not None:
            lines.append(f"pieces found      {_pct(found)}   (as some piece; {_pct(right).strip()} as the right one; "
                         f"IoU >= 0.5)")
            by_centre = self._by_centre(self.centre_found)
            if by_centre is not None and self.label_to_box:
                lines.append(f"  by centre       {_pct(by_centre)}   ({_pct(self._by_centre(self.centre_right)).strip()} "
                             f"as the right one; each box's centre in the other's: labels "
                             f"{float(np.median(self.label_to_box)):.2f} times the boxes' side, median)")
        lines.append(f"detector          {f['ms_per_image']} ms per image (while evaluating)")
        lines += [f"note: {n}" for n in self.notes]
        if self.confusion is not None:
            lines.append("")
            lines.append(self.confusion_text())
        return "\n".join(lines)

    def confusion_text(self) -> str:
        """Rows: true class; columns: detected class (by index), ``miss``; last row: false
        detections (background)."""
        m = self.confusion
        assert m is not None
        nc = len(self.names)
        used = [i for i in range(nc) if m[i].sum() or m[:, i].sum()]
        width = max(4, len(str(int(m.max()))) + 1)
        head = "confusion (rows: true class; columns: detected class; miss: not detected)"
        cols = "".join(f"{i:>{width}}" for i in used) + f"{'miss':>{width + 1}}"
        name_w = max([len(self.names[i]) for i in used] + [10]) + 5
        rows = [head, " " * name_w + cols]
        for i in used:
            cells = "".join(f"{int(m[i, j]) if m[i, j] else '.':>{width}}" for j in used)
            rows.append(f"{i:>3} {self.names[i]:<{name_w - 4}}{cells}{int(m[i, nc]):>{width + 1}}")
        cells = "".join(f"{int(m[nc, j]) if m[nc, j] else '.':>{width}}" for j in used)
        rows.append(f"{'':>3} {'background':<{name_w - 4}}{cells}{'':>{width + 1}}")
        return "\n".join(rows)


#: What can be wrong with a cell's reading, as the report names it.
CELL_ERRORS = {"missed": "missed (pieces there, none read)", "phantom": "phantom (pieces read on an empty cell)",
               "piece": "wrong piece (as many pieces, not the same)", "count": "wrong count (more or fewer pieces than there are)"}


def cell_error(want: Counter, got: Counter) -> str:  # type: ignore[type-arg]
    """What is wrong with a cell read as ``got`` (class: count) where ``want`` is there: a key
    of :data:`CELL_ERRORS`.

    >>> cell_error(Counter(a=1), Counter()), cell_error(Counter(), Counter(b=1))
    ('missed', 'phantom')
    >>> cell_error(Counter(a=2), Counter(a=1, b=1)), cell_error(Counter(a=2), Counter(a=3))
    ('piece', 'count')
    """
    there, read = sum(want.values()), sum(got.values())
    if not read:
        return "missed"
    if not there:
        return "phantom"
    return "piece" if there == read else "count"


def _round(v: float | None, digits: int = 4) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else round(float(v), digits)


def _fmt(v: float | None, digits: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:6.2f}%"


#: Reads the facing (degrees, the field's frame) of detection ``i`` of ``det`` in a frame whose
#: rendered ground truth (camera, board) is given, with the frame's pixels; ``None``: no reading.
FacingReader = Callable[[Detections, int, Mapping[str, Any], "np.ndarray | None"], "float | None"]


def _angle_diff(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def evaluate(game: str, samples: Sequence[Sample], detect: Callable[[np.ndarray], Detections],
             names: Sequence[str], *, conf: float = 0.25, progress: Callable[[int, int], None] | None = None,
             standing: Iterable[str] | None = None, dice_classes: Iterable[str] | None = None,
             facing: FacingReader | None = None) -> EvalReport:
    """Run ``detect`` (frame -> detections at every confidence down to ``MAP_CONF``) on
    ``samples`` and compute the figures (see the module docstring). ``conf``: the operating
    threshold for cells, dice, facing and confusions. ``standing``/``dice_classes``: class
    names of standing pieces (anchored at their base) and of dice; by default from the kit.
    ``facing``: how a piece's facing is read from its detection (the application's own
    reading); by default from the box centre to the keypoint, both mapped onto the field."""
    import time

    import cv2

    names = tuple(names)
    nc = len(names)
    standing_set, dice_set, base_radius = _kit_facts(game, standing, dice_classes)
    hand = names.index("hand") if "hand" in names else -1
    acc = _Matches()
    confusion = np.zeros((nc + 1, nc + 1), int)
    report = EvalReport(game, len(samples), names, float("nan"), float("nan"), {})
    spent = 0.0
    for k, s in enumerate(samples):
        frame = cv2.imread(str(s.image), cv2.IMREAD_COLOR)
        if frame is None:
            raise UnreadableImageError(f"{s.image}: cannot read this image")
        began = time.perf_counter()
        det = detect(frame)
        spent += time.perf_counter() - began
        _match_for_map(det, s.classes, s.boxes, acc)
        firm = det[det.confidence >= conf]
        pairs = _greedy_pairs(firm, s.boxes)
        _count_by_centre(firm, s, names, report)
        for j, c in enumerate(s.classes):
            i = pairs.get(j)
            confusion[c if 0 <= c < nc else nc, nc if i is None else min(int(firm.class_id[i]), nc)] += 1
        for i in set(range(len(firm))) - set(pairs.values()):
            confusion[nc, min(int(firm.class_id[i]), nc)] += 1
        if s.truth is not None:
            _truth_figures(game, s, firm, names, hand, standing_set, dice_set, base_radius, report,
                           facing, frame)
        if progress:
            progress(k + 1, len(samples))
    report.map50_95, report.map50, report.ap_per_class = _map(acc)
    report.confusion = confusion
    report.seconds_per_image = spent / max(1, len(samples))
    if samples and all(s.truth is None for s in samples):
        report.notes.append("no truth/ folder: per-cell, board, facing and dice figures need rendered ground truth")
    return report


def _kit_facts(game: str, standing: Iterable[str] | None,
               dice_classes: Iterable[str] | None) -> tuple[set[str], set[str], dict[str, float]]:
    radius: dict[str, float] = {}
    try:
        from vision.artwork import get_kit

        kit = get_kit(game)
    except Exception:  # noqa: BLE001 - a game without a kit: nothing known
        kit = None
    if kit is not None:
        for name, kind in kit.pieces.items():
            if kind.standing:
                radius[name] = min(kind.footprint_mm) / 2 / kit.mm_per_unit
    st = set(standing) if standing is not None else set(radius)
    if dice_classes is not None:
        dc = set(dice_classes)
    else:
        dc = {n for n, k in kit.pieces.items() if k.group == "die"} if kit is not None else set()
    return st, dc, radius


def _anchors(det: Detections, names: Sequence[str], geo: FrameGeometry, standing: set[str],
             base_radius: Mapping[str, float]) -> np.ndarray:
    """Board points under each detection: the box centre for flat pieces. A standing piece
    rises from its base towards the vertical vanishing point's opposite, so its base is at
    the end of the box nearest the image of the point under the camera (the box's bottom
    in an oblique view, any side in a view from above): that end, mapped onto the board and
    moved half a base away from the camera."""
    if not len(det):
        return np.zeros((0, 2))
    centres = det.anchors("center")
    out = geo.image_to_board(centres)
    nadir = geo.camera_on_board()
    nadir_img = None if nadir is None else (geo.h @ np.array([nadir[0], nadir[1], 1.0]))
    for i, c in enumerate(det.class_id):
        name = names[c] if 0 <= c < len(names) else ""
        if name not in standing:
            continue
        x1, y1, x2, y2 = det.xyxy[i]
        direction = np.array([0.0, 1.0])  # no camera known: the bottom of the box
        limit = np.inf
        if nadir_img is not None and abs(nadir_img[2]) > 1e-12:
            d = nadir_img[:2] / nadir_img[2] - centres[i]
            limit = float(np.hypot(*d))  # a camera right above the piece: stop there
            if limit > 1e-9:
                direction = d / limit
        half = np.array([(x2 - x1) / 2, (y2 - y1) / 2])
        with np.errstate(divide="ignore"):
            reach = float(np.min(np.where(np.abs(direction) > 1e-12, half / np.abs(direction), np.inf)))
        p = geo.image_to_board((centres[i] + direction * min(reach, limit))[None])[0]
        if nadir is not None:
            away = p - nadir
            norm = float(np.hypot(*away))
            if norm > 1e-9:  # half a base away from the camera, never past the point below it
                p = p + away / norm * min(base_radius.get(name, 0.0), norm)
        out[i] = p
    return out


def _truth_figures(game: str, s: Sample, det: Detections, names: Sequence[str], hand: int, standing: set[str],
                   dice: set[str], base_radius: Mapping[str, float], report: EvalReport,
                   facing_reader: FacingReader | None = None, frame: np.ndarray | None = None) -> None:
    truth = s.truth
    assert truth is not None
    pieces = [p for p in truth.get("pieces", []) if p.get("in_labels")]
    # a piece held in a hand is on no cell: neither it nor the detection of it counts there
    held = np.array([p["box"] for p in pieces if p.get("held")], float).reshape(-1, 4)
    geo = FrameGeometry.from_truth(truth)
    # dice: a labelled die read right when a detection of its class overlaps it
    for p in pieces:
        if p.get("class") in dice:
            report.dice += 1
            same = det[det.class_id == p["class_id"]]
            if len(same) and box_iou(np.array([p["box"]]), same.xyxy).max() >= 0.5:
                report.dice_right += 1
    if game in GRID_GAMES:
        cells = board_cells(game, truth)
        w, h = s.size
        centres = geo.board_to_image(cells.centres)
        inside = (centres[:, 0] >= 0) & (centres[:, 0] < w) & (centres[:, 1] >= 0) & (centres[:, 1] < h)
        counted = {lab for lab, ok in zip(cells.labels, inside) if ok}
        want: dict[str, Counter] = {lab: Counter() for lab in counted}  # type: ignore[type-arg]
        for p in pieces:
            if isinstance(p.get("cell"), str) and p["cell"] in want and not p.get("held"):
                want[p["cell"]][p["class"]] += 1
        keep = det.class_id != hand
        if len(held) and len(det):
            keep &= box_iou(det.xyxy, held).max(axis=1) < 0.5
        pieces_det = det[keep]
        on = [cells.cell_at((float(u), float(v))) for u, v in _anchors(pieces_det, names, geo, standing, base_radius)]
        classes = [names[c] if 0 <= c < len(names) else str(c) for c in pieces_det.class_id]
        once = one_read(game, on, classes, pieces_det.confidence, pieces_det.xyxy)
        report.cells_occupied += sum(1 for lab in counted if want[lab])
        report.cells += len(counted)
        for read_once in (True, False):
            got: dict[str, Counter] = {lab: Counter() for lab in counted}  # type: ignore[type-arg]
            for lab, cls, kept in zip(on, classes, once):
                if lab in got and (kept or not read_once):
                    got[lab][cls] += 1
            right = sum(1 for lab in counted if want[lab] == got[lab])
            if read_once:
                report.cell_errors.update(cell_error(want[lab], got[lab]) for lab in counted if want[lab] != got[lab])
                report.cells_right += right
                report.boards_right += int(bool(counted) and right == len(counted))
            else:
                report.cells_right_every_box += right
                report.boards_right_every_box += int(bool(counted) and right == len(counted))
        if counted:
            report.boards += 1
    if game == "the-game":
        for p in pieces:
            kp = p.get("keypoint")
            facing = (p.get("extra") or {}).get("facing")
            if kp is None or facing is None or kp[2] != 2:
                continue
            same = det[det.class_id == p["class_id"]]
            if not len(same) or same.keypoints is None:
                report.facing_missed += 1
                continue
            iou = box_iou(np.array([p["box"]]), same.xyxy)[0]
            i = int(np.argmax(iou))
            if iou[i] < 0.5:
                report.facing_missed += 1
                continue
            if facing_reader is not None:
                read = facing_reader(same, i, truth, frame)
                if read is None:
                    report.facing_missed += 1
                    continue
                measured = float(read)
            else:
                centre = same.anchors("center")[i]
                dot = same.keypoints[i, 0, :2]
                a, b = geo.image_to_board(np.array([centre, dot]))
                measured = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360.0
            report.facing_errors.append(_angle_diff(measured, float(facing)))


def _count_by_centre(firm: Detections, sample: Sample, names: Sequence[str], report: EvalReport) -> None:
    """Add ``sample``'s labelled pieces (hands left out) matched by centre to ``firm``'s
    boxes of pieces to ``report``: loosely labelled photos (a label wider than its piece)
    are matched where IoU 0.5 is not reached."""
    def pieces(class_ids: np.ndarray) -> np.ndarray:  # every class but the hand
        return np.array([not (0 <= int(c) < len(names) and names[int(c)] == "hand") for c in class_ids], bool)

    piece_boxes, piece_labels = pieces(firm.class_id), pieces(sample.classes)
    if not piece_labels.any():
        return
    boxes = sample.boxes[piece_labels]
    classes = np.asarray(sample.classes)[piece_labels]
    mine = firm[piece_boxes] if len(firm) else firm
    for j, i in _centre_pairs(mine, boxes).items():
        report.centre_found += 1
        report.centre_right += int(int(mine.class_id[i]) == int(classes[j]))
        report.label_to_box.append(_side_ratio(boxes[j], mine.xyxy[i]))


def labels_as_detections(sample: Sample) -> Detections:
    """A perfect detector for ``sample``: its own labels as detections (confidence 1)."""
    n = len(sample.classes)
    kps = sample.keypoints[:, None, :] if sample.keypoints is not None and n else None
    return Detections(sample.boxes.copy(), np.ones(n), sample.classes.copy(), None, kps)


#: A detection that matches no labelled object yet overlaps one this much (IoU) is on it: a
#: loose box, or the object boxed twice (:func:`transfer_figures`).
NEAR_IOU = 0.1


def transfer_figures(samples: Sequence[Sample], detect: Callable[[np.ndarray], Detections], names: Sequence[str],
                     kinds: Iterable[str], right_of: Mapping[int, str] | None = None,
                     conf: float = 0.25) -> dict[str, float | int | None]:
    """How a model does on photos labelled in another scheme (real checkers, real dice):
    of the labelled objects, the share found by a detection of one of ``kinds`` (IoU >= 0.5,
    confidence >= ``conf``), the share read as ``right_of[label class]`` when given, and
    the detections of ``kinds`` matching nothing, and of those, the ones that overlap a
    labelled object all the same (IoU >= :data:`NEAR_IOU`: a loose box, or one object boxed
    twice) rather than lying where nothing is labelled.

    Photos labelled by hand are often boxed loosely, so each figure is given a second way,
    matched by centre (:func:`_centre_pairs`: one detection to one object, each box's
    centre inside the other box): ``found_by_centre``, ``right_by_centre``,
    ``false_by_centre``, and ``label_to_box``, the median ratio of a labelled box's side to
    the side of the detection matched to it by centre (1.0: labels as tight as the boxes;
    1.4: labels 40 % wider, where a box fitting the object overlaps its label by IoU 0.5 at
    most)."""
    import cv2

    names = tuple(names)
    wanted = {i for i, n in enumerate(names) if n in set(kinds)}
    total = found = right = extra = near = 0
    found_c = right_c = 0
    extra_c = 0
    ratios: list[float] = []
    for s in samples:
        frame = cv2.imread(str(s.image), cv2.IMREAD_COLOR)
        if frame is None:
            raise UnreadableImageError(f"{s.image}: cannot read this image")
        det = detect(frame)
        det = det[(det.confidence >= conf) & np.isin(det.class_id, list(wanted))]
        pairs = _greedy_pairs(det, s.boxes)
        total += len(s.boxes)
        found += len(pairs)
        extra += len(det) - len(pairs)
        unmatched = np.setdiff1d(np.arange(len(det)), list(pairs.values()))
        if len(unmatched) and len(s.boxes):
            near += int((box_iou(det.xyxy[unmatched], s.boxes).max(axis=1) >= NEAR_IOU).sum())
        centre = _centre_pairs(det, s.boxes)
        found_c += len(centre)
        extra_c += len(det) - len(centre)
        for j, i in centre.items():
            ratios.append(_side_ratio(s.boxes[j], det.xyxy[i]))
        if right_of is not None:
            right += sum(1 for j, i in pairs.items() if names[det.class_id[i]] == right_of.get(int(s.classes[j])))
            right_c += sum(1 for j, i in centre.items() if names[det.class_id[i]] == right_of.get(int(s.classes[j])))
    return {
        "objects": total,
        "found": _round(found / total) if total else None,
        "right": _round(right / total) if total and right_of is not None else None,
        "false_detections": extra,
        "false_on_an_object": near,
        "images": len(samples),
        "found_by_centre": _round(found_c / total) if total else None,
        "right_by_centre": _round(right_c / total) if total and right_of is not None else None,
        "false_by_centre": extra_c,
        "label_to_box": _round(float(np.median(ratios))) if ratios else None,
    }


def _area(box: np.ndarray) -> float:
    return float(max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0))


def _side_ratio(label: np.ndarray, box: np.ndarray) -> float:
    """How many times a labelled box's side is a detection's (the square roots of their areas)."""
    return float(np.sqrt(_area(label) / max(_area(box), 1e-9)))


def _centre_pairs(det: Detections, boxes: np.ndarray) -> dict[int, int]:
    """Labelled box index -> detection index, matched by centre: by falling confidence, each
    detection to the free labelled box nearest its centre among those whose box holds the
    detection's centre and whose centre the detection's box holds. Loose labels (or loose
    boxes) do not stop a match; a box spanning two objects takes one at most, and a box
    beside an object, its centre off the object's label, takes none."""
    pairs: dict[int, int] = {}
    if not len(det) or not len(boxes):
        return pairs
    dc = (det.xyxy[:, :2] + det.xyxy[:, 2:]) / 2
    lc = (boxes[:, :2] + boxes[:, 2:]) / 2
    det_in_label = ((dc[:, None, 0] >= boxes[None, :, 0]) & (dc[:, None, 0] <= boxes[None, :, 2])
                    & (dc[:, None, 1] >= boxes[None, :, 1]) & (dc[:, None, 1] <= boxes[None, :, 3]))
    label_in_det = ((lc[None, :, 0] >= det.xyxy[:, None, 0]) & (lc[None, :, 0] <= det.xyxy[:, None, 2])
                    & (lc[None, :, 1] >= det.xyxy[:, None, 1]) & (lc[None, :, 1] <= det.xyxy[:, None, 3]))
    both = det_in_label & label_in_det
    distance = np.linalg.norm(dc[:, None, :] - lc[None, :, :], axis=2)
    for i in np.argsort(-det.confidence, kind="stable"):
        free = [j for j in np.where(both[i])[0] if j not in pairs]
        if free:
            pairs[int(min(free, key=lambda j: distance[i, j]))] = int(i)
    return pairs

"""How many counters a OneWorld stack holds, read from a crop around it.

OneWorld's counters stack on a hex, each a little off the one below, as players stack them.
The detector boxes each counter it sees, and a two-counter stack then gives two boxes that
overlap as much as one counter boxed twice does (IoU 0.3 to 0.8 either way, the weaker box as
sure as a stack's lower counter): the boxes alone cannot tell a stack of two from a single
counter read twice, nor a stack whose lower counter they missed. A :class:`StackReader` looks
at the stack itself, a crop ``pad`` times the surest box's longer side around it, and reads
how many counters stand there: ``1``, ``2`` or ``3+`` (its :data:`COUNTS`). The crop shows what
the boxes do not: the stack's flank, a counter thick per counter, and the rim of each counter
below the top one.

:func:`stacks` gathers a frame's boxes into stacks (boxes that overlap); :func:`settled` keeps,
of a stack with more boxes than the reader counts (and is sure of), the surest boxes, so a
single counter read twice is read once. A stack with fewer boxes than counters keeps its
boxes: which counter is missing, the crop does not say. The reader is saved beside the
detector's weights as ``<weights stem>.stacks.pt`` (shipped: ``models/oneworld.stacks.pt``),
and :class:`vision.detect.Detector` applies it to every frame.

>>> stacks(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [30, 30, 40, 40]]))
[[0, 1], [2]]
>>> counted(np.array([[0.1, 0.85, 0.05]]))
array([2])
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.dice_faces import (
    _crop,
    _fit,
    _Inference,
    _load_net,
    _probabilities,
    _save_net,
    beside,
    more_renders,
)

__all__ = ["COUNTS", "STACKS_SUFFIX", "STACK_IOU", "StackReader", "StackReaderError", "StackTraining",
           "counted", "settled", "stack_patches", "stacks", "stacks_path", "train_stack_reader"]

#: The reader beside weights ``W.pt`` is ``W.stacks.pt``.
STACKS_SUFFIX = ".stacks.pt"
#: What the reader answers: one counter, two, three or more.
COUNTS = ("1", "2", "3+")
#: Two boxes overlapping at least this much (IoU) are counters of one stack, or one counter
#: boxed twice. Counters of neighbouring hexes seen low overlap a little: at 0.25 they were
#: gathered into one stack now and then and one of them dropped (docs/models.md, "Stacks
#: counted").
STACK_IOU = 0.35
#: A stack's boxes beyond the reader's count are dropped only where the reader gives that
#: count at least this probability (the reader's answer, where it is the likelier half;
#: chosen with :data:`STACK_IOU` on renders of a seed never trained on nor scored on).
SURE_COUNT = 0.5
#: A little more than the stacks of two or more per single counter in rendered frames
#: (one hex in 25 to 30 holding counters): single counters are cut at about this share
#: times :attr:`StackTraining.singles`, then thinned to that ratio exactly.
SINGLES_SHARE = 0.06
#: Patches are cut at this many pixels (native scale) around each stack, then jittered.
PATCH = 128


class StackReaderError(Exception):
    """A stack reader that cannot be loaded or trained."""


def stacks_path(weights: str | os.PathLike[str]) -> Path:
    """Where the stack reader of detector weights ``weights`` lives (beside them)."""
    return beside(weights, STACKS_SUFFIX)


def stacks(xyxy: np.ndarray, touching: float = STACK_IOU) -> list[list[int]]:
    """The boxes ``xyxy`` gathered into stacks: boxes overlapping at least ``touching``
    (IoU), directly or through others, are one stack. Each stack lists its boxes' indices in
    order; stacks come in the order of their first box."""
    from vision.detections import box_iou

    boxes = np.asarray(xyxy, float).reshape(-1, 4)
    n = len(boxes)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if n > 1:
        iou = box_iou(boxes, boxes)
        for i, j in zip(*np.nonzero(np.triu(iou >= touching, 1))):
            parent[root(int(i))] = root(int(j))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def counted(p: np.ndarray) -> np.ndarray:
    """The count each row of probabilities (over :data:`COUNTS`) gives: 1, 2 or 3 (three or more)."""
    return np.asarray(p).argmax(axis=1) + 1


class StackReader:
    """A small classifier reading how many counters a stack holds (:data:`COUNTS`) from a crop
    ``pad`` times the longer side of its surest box, resized to ``size`` pixels square."""

    def __init__(self, net: Any, size: int = 48, pad: float = 2.0, source: Path | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
        if not 8 <= int(size) <= 128 or not 1.0 <= float(pad) <= 3.0:
            raise StackReaderError(f"crop size {size} (8 to 128 pixels) or pad {pad} (1 to 3) out of range")
        self.net = net.eval()
        self.size = int(size)
        self.pad = float(pad)
        self._run = _Inference(self.net, self.size)
        self.source = source
        self.metrics = dict(metrics or {})

    def __repr__(self) -> str:
        return f"StackReader({self.size} px crops, pad {self.pad})"

    @property
    def backend(self) -> str:
        """What runs the network (``"openvino"``, ``"onnx"`` or ``"torch"``)."""
        return self._run.backend

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StackReader:
        """Read a reader saved by :meth:`save` (or ``tabletop train``)."""
        path = Path(path)
        try:
            net, meta = _load_net(path, "counts")
            if tuple(meta["counts"]) != COUNTS:
                raise StackReaderError(f"{path}: counts {meta['counts']}, expected {list(COUNTS)}")
            reader = cls(net, meta["size"], meta["pad"], path, meta.get("metrics"))
            reader._run.prepare()
            return reader
        except StackReaderError:
            raise
        except Exception as err:  # noqa: BLE001 - torch raises many kinds for a bad file
            raise StackReaderError(f"{path}: not a stack reader ({type(err).__name__}: {err})") from None

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the reader to ``path`` (through a temporary file: a crash leaves no half file)."""
        meta = {"counts": list(COUNTS), "size": self.size, "pad": self.pad, "metrics": self.metrics}
        return _save_net(Path(path), self.net, meta)

    def read(self, frame: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        """For each box of ``xyxy`` (the surest box of a stack), the probabilities of
        :data:`COUNTS` for the stack around it in ``frame`` (BGR): one row a box."""
        xyxy = np.asarray(xyxy, float).reshape(-1, 4)
        if not len(xyxy):
            return np.zeros((0, len(COUNTS)))
        return _probabilities(self._run, frame, xyxy, self.size, self.pad)


def settled(reader: StackReader, frame: np.ndarray, xyxy: np.ndarray, confidence: np.ndarray,
            pieces: np.ndarray, sure: float = SURE_COUNT, touching: float = STACK_IOU) -> np.ndarray:
    """Which boxes to keep (a bool mask), the counters of each stack read by ``reader``.
    ``pieces``: a mask of the boxes that are counters (hands and dice are not, and are kept);
    a stack (:func:`stacks`) of more counter boxes than the reader counts, where it gives that
    count a probability of at least ``sure``, keeps its surest boxes, as many as it counts."""
    xyxy = np.asarray(xyxy, float).reshape(-1, 4)
    conf = np.asarray(confidence, float)
    keep = np.ones(len(xyxy), bool)
    ids = np.flatnonzero(np.asarray(pieces, bool))
    if len(ids) < 2:
        return keep
    groups = [[int(ids[i]) for i in g] for g in stacks(xyxy[ids], touching)]
    crowded = [sorted(g, key=lambda i: -conf[i]) for g in groups if len(g) > 1]
    if not crowded:
        return keep
    p = reader.read(frame, xyxy[[g[0] for g in crowded]])
    for g, row in zip(crowded, p):
        n = int(row.argmax()) + 1
        if row.max() >= sure and n < len(g) and not (n == len(COUNTS) and len(g) > n):
            keep[g[n:]] = False
    return keep


@dataclass(frozen=True)
class StackTraining:
    """How a stack reader is trained (a recipe's ``stack_reader`` section): epochs, seed,
    crop ``size`` and ``pad``, and ``renders`` ([{"count": N, "seed": S, "size": [W, H]}],
    the size optional) whose stacks, every split, join the training stacks."""

    epochs: int = 10
    seed: int = 0
    size: int = 48
    pad: float = 2.0
    renders: tuple[Any, ...] = ()
    #: single counters kept for training, at most this many times the stacks of two or more
    #: (most hexes hold one counter; the reader is asked about crowded boxes, half of them stacks)
    singles: float = 3.0

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> StackTraining | None:
        if doc is None:
            return None
        try:
            return cls(epochs=int(doc.get("epochs", 10)), seed=int(doc.get("seed", 0)), size=int(doc.get("size", 48)),
                       pad=float(doc.get("pad", 2.0)), renders=more_renders(doc.get("renders")),
                       singles=float(doc.get("singles", 3.0)))
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise StackReaderError(f"malformed stack_reader section: {err}") from None


def stack_patches(folder: Path, split: str, patch: int = PATCH, singles: float = 1.0, seed: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every stack of a rendered split (``truth/<split>/*.json``): a patch of ``patch`` pixels
    (native scale) around the box of its top labelled counter, its count (0: one counter, 1:
    two, 2: three or more: the labelled counters on its hex, as ``tabletop eval`` counts
    them) and that box's longer side (pixels). Counters held in a hand are on no hex.
    ``singles``: the share of single counters cut (chosen with ``seed``); stacks are all cut."""
    import cv2

    rng = np.random.default_rng([seed, *split.encode()])

    patches, labels, sides = [], [], []
    for truth_path in sorted((Path(folder) / "truth" / split).glob("*.json")):
        try:
            truth = json.loads(truth_path.read_text())
        except (OSError, ValueError):
            continue
        on: dict[str, list[dict[str, Any]]] = {}
        for p in truth.get("pieces", []):
            if p.get("in_labels") and not p.get("held") and isinstance(p.get("cell"), str) and p.get("class") != "hand":
                on.setdefault(p["cell"], []).append(p)
        on = {cell: pieces for cell, pieces in on.items() if len(pieces) > 1 or rng.random() < singles}
        if not on:
            continue
        image = cv2.imread(str(Path(folder) / truth["image"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        for pieces in on.values():
            top = max(pieces, key=lambda p: ((p.get("extra") or {}).get("stack_level", 0), p.get("visible", 1.0)))
            x1, y1, x2, y2 = (float(v) for v in top["box"])
            patches.append(_crop(image, (x1 + x2) / 2, (y1 + y2) / 2, patch, 0.0, patch))
            labels.append(min(len(pieces), len(COUNTS)) - 1)
            sides.append(max(x2 - x1, y2 - y1))
    if not patches:
        return np.zeros((0, patch, patch, 3), np.uint8), np.zeros(0, int), np.zeros(0)
    return np.stack(patches), np.array(labels), np.array(sides, float)


def _balanced(p: np.ndarray, y: np.ndarray, s: np.ndarray, singles: float, rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The patches with at most ``singles`` times as many single counters (label 0) as stacks
    (all of them where there is no stack to weigh them against)."""
    ones = np.flatnonzero(y == 0)
    limit = int(round(singles * int((y > 0).sum())))
    if len(ones) <= limit or limit == 0:
        return p, y, s
    keep = np.sort(np.concatenate([np.flatnonzero(y > 0), rng.choice(ones, limit, replace=False)]))
    return p[keep], y[keep], s[keep]


def train_stack_reader(folder: Path, settings: StackTraining, more: Sequence[Path] = (),
                       progress: Callable[[int, int, float, float], None] | None = None) -> StackReader:
    """Train a stack reader on the stacks of the rendered dataset ``folder`` (``truth/train``;
    ``truth/val`` validates) and of every split of each of the ``more`` rendered datasets.
    ``progress(epoch, epochs, loss, val_accuracy)`` after every epoch."""
    began = time.perf_counter()
    share = min(1.0, settings.singles * SINGLES_SHARE)
    parts = [stack_patches(Path(folder), "train", singles=share, seed=settings.seed)]
    for extra in more:
        parts += [stack_patches(Path(extra), split.name, singles=share, seed=settings.seed)
                  for split in sorted((Path(extra) / "truth").iterdir()) if split.is_dir()]
    train_p, train_y, train_s = (np.concatenate([part[k] for part in parts]) for k in range(3))
    val_p, val_y, val_s = stack_patches(Path(folder), "val", singles=share, seed=settings.seed)
    rng = np.random.default_rng(settings.seed)
    train_p, train_y, train_s = _balanced(train_p, train_y, train_s, settings.singles, rng)
    val_p, val_y, val_s = _balanced(val_p, val_y, val_s, settings.singles, rng)
    if len(set(train_y.tolist())) < 2:
        raise StackReaderError(f"{folder}: its renders need stacks of more than one count to learn from "
                               f"(truth/ with stacked counters)")
    net, accuracy = _fit(train_p, train_y, train_s, val_p, val_y, val_s, len(COUNTS), settings.epochs, 1,
                         settings.seed, settings.size, settings.pad, progress)
    metrics = {"val_accuracy": round(accuracy, 4), "val_stacks": len(val_p), "train_stacks": len(train_p),
               "train_counts": np.bincount(train_y, minlength=len(COUNTS)).tolist(), "epochs": settings.epochs,
               "seconds": round(time.perf_counter() - began, 1)}
    return StackReader(net, settings.size, settings.pad, None, metrics)

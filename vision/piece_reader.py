"""Pieces in two stages: the detector finds and boxes each piece, a small classifier re-reads
what it is from a crop of the frame around its box.

A piece on a board is 20 to 30 pixels across in a 640x480 frame, and what tells two of a
game's pieces apart is a few of those pixels: the level marks on a Battle Grounds figure's
base, the emblem of a OneWorld counter. The detector's class head reads them from a feature
map a fraction of the piece's size; a :class:`PieceReader` reads them from the piece's own
pixels, a crop resized to ``size`` pixels square, with a network that does nothing else. On
the Battle Grounds held-out renders the figures' levels are read right far more often by the
pair than by the detector alone (figures in ``models/battle-grounds.md``).

The reader re-reads only the classes it was trained on (``classes``: a game's pieces, never
its hands or dice), and it reports one of those same classes, so the pair reports the game's
own class names and nothing downstream knows there are two stages. What kind of object a box
holds (a Wormholes ship or coin: its ``group``) stays the detector's call, which sees the
whole object and its surroundings; the reader reads the marks that tell the classes of that
group apart (a coin's value, a ship's suit). A ship standing on a coin is often boxed once,
and the crop then shows a coin with a ship on it. It is saved beside the
detector's weights as ``<weights stem>.pieces.pt`` (shipped: ``models/<game>.pieces.pt``).

>>> pieces_path("runs/bg/battle-grounds.pt")
PosixPath('runs/bg/battle-grounds.pieces.pt')
>>> reader_classes(["north-sa", "north-i", "d6-3", "chess-die", "hand"])
('north-sa', 'north-i')
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.dice_faces import (
    MoreRenders,
    _fit,
    _Inference,
    _labelled_patches,
    _load_net,
    _probabilities,
    _save_net,
    beside,
    die_kind,
    is_die_kind,
    more_renders,
    training_patches,
)

__all__ = [
    "PIECES_SUFFIX",
    "PieceReader",
    "PieceReaderError",
    "PieceTraining",
    "pieces_path",
    "reader_classes",
    "train_piece_reader",
]

#: The reader beside weights ``W.pt`` is ``W.pieces.pt``.
PIECES_SUFFIX = ".pieces.pt"
#: Classes a piece reader never reads: a hand is boxed for what it hides, not read.
NOT_PIECES = frozenset({"hand"})
#: A reader learns a class (chosen by default) only from at least this many training pieces.
MIN_EXAMPLES = 20


class PieceReaderError(Exception):
    """A piece reader that cannot be loaded or trained."""


def pieces_path(weights: str | os.PathLike[str]) -> Path:
    """Where the piece reader of detector weights ``weights`` lives (beside them)."""
    return beside(weights, PIECES_SUFFIX)


def reader_classes(names: Sequence[str]) -> tuple[str, ...]:
    """The classes of ``names`` a piece reader reads by default: every class but hands, die
    faces and kinds of dice (a face reader reads dice)."""
    return tuple(n for n in names if n not in NOT_PIECES and die_kind(n) is None and not is_die_kind(n))


class PieceReader:
    """A small classifier that re-reads the class of a boxed piece from a crop around it.

    ``names``: the class names the detector reports (the game's); ``classes``: the ones the
    reader reads and may answer (its network's outputs, in that order); ``size``: crops are
    this many pixels square; ``pad``: a crop is this many times the box's longer side;
    ``groups``: the kind of object each class is (``{"coin-2": "coin", "pawn-suns": "pawn"}``):
    given the detector's class of a box, the reader answers a class of the same group.
    """

    def __init__(self, net: Any, names: Sequence[str], classes: Sequence[str], size: int = 40, pad: float = 1.3,
                 source: Path | None = None, metrics: dict[str, Any] | None = None,
                 groups: Mapping[str, str] | None = None) -> None:
        self.net = net.eval()
        self.names = tuple(names)
        self.classes = tuple(classes)
        unknown = [c for c in self.classes if c not in self.names]
        if unknown or len(set(self.classes)) != len(self.classes) or len(self.classes) < 2:
            raise PieceReaderError(f"a piece reader reads two or more of its game's classes, each once; got "
                                   f"{', '.join(self.classes) or 'none'}"
                                   + (f" ({', '.join(unknown)} not among {', '.join(self.names)})" if unknown else ""))
        if not 8 <= int(size) <= 128 or not 1.0 <= float(pad) <= 3.0:
            raise PieceReaderError(f"crop size {size} (8 to 128 pixels) or pad {pad} (1 to 3) out of range")
        self.size = int(size)
        self.pad = float(pad)
        self._run = _Inference(self.net, self.size)
        self.source = source
        self.metrics = dict(metrics or {})
        self.groups = {str(k): str(v) for k, v in (groups or {}).items()}
        columns: dict[str, list[int]] = {}  # the reader's classes of each group, as output columns
        for j, c in enumerate(self.classes):
            if c in self.groups:
                columns.setdefault(self.groups[c], []).append(j)
        self._columns = {g: np.array(js) for g, js in columns.items()}
        self._column = {c: j for j, c in enumerate(self.classes)}  # each class's output column

    def __repr__(self) -> str:
        return f"PieceReader({len(self.classes)} classes, {self.size} px crops)"

    @property
    def backend(self) -> str:
        """What runs the network: ``"openvino"``, ``"onnx"`` (ONNX Runtime) or ``"torch"``; decided on
        loading (else on the first read)."""
        return self._run.backend

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PieceReader:
        """Read a reader saved by :meth:`save` (or ``tabletop train``)."""
        path = Path(path)
        try:
            net, meta = _load_net(path, "classes")
            reader = cls(net, meta["names"], meta["classes"], meta["size"], meta["pad"], path, meta.get("metrics"),
                         meta.get("groups"))
            reader._run.prepare()  # a reader read from a file is for frames: ready before the first
            return reader
        except PieceReaderError:
            raise
        except Exception as err:  # noqa: BLE001 - torch raises many kinds for a bad file
            raise PieceReaderError(f"{path}: not a piece reader ({type(err).__name__}: {err})") from None

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the reader to ``path`` (through a temporary file: a crash leaves no half file)."""
        meta = {"names": list(self.names), "classes": list(self.classes), "size": self.size, "pad": self.pad,
                "metrics": self.metrics, "groups": self.groups}
        return _save_net(Path(path), self.net, meta)

    def read(self, frame: np.ndarray, xyxy: np.ndarray, detected: Sequence[str] | None = None,
             confidence: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
        """The class of each piece boxed in ``frame`` (BGR): class names (of ``classes``) and
        the reader's confidence in each. ``detected``: the detector's class of each box; with
        ``groups``, each answer is of the same group as the detector's class. ``confidence``
        (with ``detected``): the detector's confidence in its class of each box; the two
        readings are then combined (:func:`combined`)."""
        if not len(np.asarray(xyxy).reshape(-1, 4)):
            return [], np.zeros(0)
        p = _probabilities(self._run, frame, xyxy, self.size, self.pad)
        if detected is not None and confidence is not None:
            p = combined(p, [self._column.get(name, -1) for name in detected], confidence)
        best = p.argmax(axis=1)
        if detected is not None and len(self._columns) > 1:
            for i, name in enumerate(detected):
                columns = self._columns.get(self.groups.get(name, ""))
                if columns is not None and best[i] not in columns:
                    best[i] = columns[p[i, columns].argmax()]
        return [self.classes[j] for j in best], p[np.arange(len(best)), best]


def combined(p: np.ndarray, detected: Sequence[int], confidence: np.ndarray) -> np.ndarray:
    """The reader's probabilities ``p`` (a row a box) combined with the detector's reading of
    each box: its class (a column of ``p``; -1: none of the reader's classes) and its
    confidence ``c`` in it. The detector's reading counts as a distribution giving ``c`` to
    its class and sharing ``1 - c`` among the others, and the two readings are multiplied as
    independent evidence, then normalised: where the reader is unsure, the detector decides.

    >>> combined(np.array([[0.5, 0.3, 0.2]]), [1], np.array([0.8])).round(3).tolist()
    [[0.161, 0.774, 0.065]]
    """
    p = np.asarray(p, float)
    k = p.shape[1]
    c = np.clip(np.asarray(confidence, float), 1e-6, 1 - 1e-6)
    q = np.repeat(((1 - c) / max(k - 1, 1))[:, None], k, axis=1)
    rows = np.flatnonzero(np.asarray(detected) >= 0)
    q[rows, np.asarray(detected)[rows]] = c[rows]
    q[np.asarray(detected) < 0] = 1.0
    out = p * q
    return out / out.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class PieceTraining:
    """How a piece reader is trained (a recipe's ``piece_reader`` section). ``classes``:
    the classes it reads (empty: :func:`reader_classes` of the game's). ``renders``: more
    renders whose pieces, every split of them, join the training pieces, as the dice face
    reader's (:class:`vision.dice_faces.FaceTraining`): ``[{"count": N, "seed": S, "size":
    [W, H]}]``, the size optional; a camera with more pixels shows each piece larger.

    >>> PieceTraining.from_json({"epochs": 8, "renders": [{"count": 2000, "seed": 31, "size": "1280x960"}]}).renders
    (MoreRenders(count=2000, seed=31, size=(1280, 960)),)
    """

    epochs: int = 16
    seed: int = 0
    variants: int = 1  # fresh jittered crops of every piece per epoch
    size: int = 40
    pad: float = 1.3
    classes: tuple[str, ...] = ()
    renders: tuple[MoreRenders, ...] = ()

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> PieceTraining | None:
        if doc is None:
            return None
        try:
            return cls(epochs=int(doc.get("epochs", 16)), seed=int(doc.get("seed", 0)),
                       variants=int(doc.get("variants", 1)), size=int(doc.get("size", 40)),
                       pad=float(doc.get("pad", 1.3)), classes=tuple(str(c) for c in doc.get("classes", ())),
                       renders=more_renders(doc.get("renders")))
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise PieceReaderError(f"malformed piece_reader section: {err}") from None


def _only(patches: np.ndarray, labels: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The patches whose label is not -1."""
    keep = labels >= 0
    return patches[keep], labels[keep], sides[keep]


def train_piece_reader(folder: Path, names: Sequence[str], settings: PieceTraining,
                       progress: Callable[[int, int, float, float], None] | None = None,
                       groups: Mapping[str, str] | None = None, more: Sequence[Path] = ()) -> PieceReader:
    """Train a piece reader on the labelled pieces of the ultralytics dataset ``folder``
    (full-size renders or photos: ``images/{train,val}``, ``labels/{train,val}``); ``names``
    are its classes. ``more``: datasets with the same classes whose pieces, every split, are
    training pieces too (:attr:`PieceTraining.renders`); ``folder``'s validation pieces stay
    the validation. ``progress(epoch, epochs, loss, val_accuracy)`` is called after every
    epoch; the validation accuracy on the true boxes is kept in the reader's ``metrics``.
    ``groups``: the kind of object each class is (see :class:`PieceReader`), kept with it.
    Without ``settings.classes``, a class with fewer than :data:`MIN_EXAMPLES` labelled
    training pieces is left to the detector (``metrics["left_to_detector"]``): When Gods
    Collide's renders hold hardly any revealed god."""
    chosen = bool(settings.classes)
    classes = settings.classes or reader_classes(names)
    unknown = [c for c in classes if c not in names]
    if unknown:
        raise PieceReaderError(f"{', '.join(unknown)}: not classes of {folder}")
    began = time.perf_counter()
    index = {names.index(c): j for j, c in enumerate(classes)}
    try:
        train_p, train_y, train_s = training_patches(Path(folder), names, index, more)
    except ValueError as err:
        raise PieceReaderError(str(err)) from None
    val_p, val_y, val_s = _labelled_patches(Path(folder), "val", index)
    counts = np.bincount(train_y, minlength=len(classes))
    left: list[str] = []
    if not chosen:  # a class hardly ever seen cannot be learnt: the detector's reading of it stays
        left = [c for c, n in zip(classes, counts) if n < MIN_EXAMPLES]
        if left:
            kept = [j for j, c in enumerate(classes) if c not in left]
            remap = np.full(len(classes), -1, int)
            remap[kept] = np.arange(len(kept))
            classes = tuple(classes[j] for j in kept)
            train_p, train_y, train_s = _only(train_p, remap[train_y], train_s)
            val_p, val_y, val_s = _only(val_p, remap[val_y], val_s)
    elif (counts == 0).any():
        missing = [c for c, n in zip(classes, counts) if n == 0]
        raise PieceReaderError(f"{folder}: no labelled {', '.join(missing)} to learn from")
    if len(classes) < 2:
        raise PieceReaderError("a piece reader needs two or more classes of pieces to tell apart"
                               + (f" (too few labelled {', '.join(left)})" if left else ""))
    net, accuracy = _fit(train_p, train_y, train_s, val_p, val_y, val_s, len(classes), settings.epochs,
                         settings.variants, settings.seed, settings.size, settings.pad, progress)
    metrics = {"val_accuracy": round(accuracy, 4), "val_pieces": len(val_p), "train_pieces": len(train_p),
               "epochs": settings.epochs, "seconds": round(time.perf_counter() - began, 1),
               "left_to_detector": left}
    return PieceReader(net, names, classes, settings.size, settings.pad, None, metrics,
                       {c: groups[c] for c in classes if c in groups} if groups else None)

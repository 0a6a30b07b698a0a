"""The Game: which way a piece faces, read from a crop of the frame around its box.

The detector boxes each piece and puts a keypoint on its front dot; the facing is the
direction from the piece's centre to that dot. On a domed stone 13 pixels across the dot is
two or three pixels from the centre, so a box one pixel off turns that direction by tens of
degrees, and the box is the least precise thing the detector gives. A :class:`FacingReader`
reads the direction from the piece's own pixels instead: a crop around the box, resized to
``size`` pixels square, goes through a small network whose outputs are :data:`BINS` equal
steps of a full turn; the reading is the circular mean of the likeliest step and its
neighbours. It sees the piece's outline, its dot and which end of a stick is the front, and
a box a little off moves the crop, not the answer.

The reading is a direction in the image (degrees counter-clockwise from the image's +x, up
at 90, as :attr:`vision.detections.Detections.facing`). Every plane parallel to the ground
shares the ground's vanishing line, so a direction in the image at a point is the same
field direction whatever the height it is read at: :func:`field_direction` turns it into the
field's frame with the ground's homography alone. The reader is saved beside the detector's
weights as ``<weights stem>.facing.pt`` (shipped: ``models/the-game.facing.pt``).

>>> facing_path("runs/tg/the-game.pt")
PosixPath('runs/tg/the-game.facing.pt')
>>> h = np.diag([10.0, -10.0, 1.0]); h[:, 2] = [100, 300, 1]  # a field seen from straight above
>>> round(image_direction(h, (150.0, 250.0), 30.0), 6), round(field_direction(lambda p: _apply(np.linalg.inv(h), p), (150.0, 250.0), 30.0), 6)
(30.0, 30.0)
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.dice_faces import _crop, _fit, _Inference, _load_net, _probabilities, _save_net, beside

__all__ = [
    "BINS",
    "FACING_SUFFIX",
    "FacingReader",
    "FacingReaderError",
    "FacingTraining",
    "facing_patches",
    "facing_path",
    "field_direction",
    "image_direction",
    "read_dotted",
    "train_facing_reader",
]

#: The reader beside weights ``W.pt`` is ``W.facing.pt``.
FACING_SUFFIX = ".facing.pt"
#: The network's outputs: this many equal steps of a full turn (5 degrees each).
BINS = 72
#: The reading is the circular mean over the likeliest step and this many steps either side.
WINDOW = 2
#: A crop is read at this many quarter turns (exact turns of its pixels), each reading turned
#: back and the step probabilities averaged: the reader learnt every turn, and reads some turns
#: of a small or blurred piece better than others. On The Game's held-out renders (seed 1001)
#: the facing error fell from 2.5 / 20.8 to 2.1 / 19.3 degrees (median / 95th percentile);
#: outdoors (benchmarks/outdoor.py, seed 2026) from 1.6 / 14.5 to 1.3 / 12.9.
TURNS = 4
#: Patches are cut at the frame's own scale, this many pixels square, before any jitter.
PATCH = 128


class FacingReaderError(Exception):
    """A facing reader that cannot be loaded or trained."""


def facing_path(weights: str | os.PathLike[str]) -> Path:
    """Where the facing reader of detector weights ``weights`` lives (beside them)."""
    return beside(weights, FACING_SUFFIX)


def _apply(m: np.ndarray, points: Any) -> np.ndarray:
    pts = np.asarray(points, float).reshape(-1, 2)
    q = np.c_[pts, np.ones(len(pts))] @ np.asarray(m, float).T
    return q[:, :2] / q[:, 2:3]


def image_direction(board_to_image: np.ndarray, at: Sequence[float], field_deg: float, step: float = 0.05) -> float:
    """The image direction (degrees counter-clockwise from +x, up at 90) at image point ``at``
    of the field direction ``field_deg`` (counter-clockwise from the field's +x towards +y),
    for a camera whose ground plane maps to the image by ``board_to_image``."""
    g = _apply(np.linalg.inv(board_to_image), [at])[0]
    a = math.radians(field_deg)
    p, q = _apply(board_to_image, [g, g + step * np.array([math.cos(a), math.sin(a)])])
    return math.degrees(math.atan2(-(q[1] - p[1]), q[0] - p[0])) % 360.0


def field_direction(to_ground: Callable[[np.ndarray], np.ndarray], at: Sequence[float], image_deg: float,
                    step: float = 2.0) -> float:
    """The field direction (degrees) of the image direction ``image_deg`` at image point
    ``at``; ``to_ground`` maps image points (N x 2) onto the ground (field units). NaN where
    the points leave the ground (beyond the horizon)."""
    a = math.radians(image_deg)
    tip = (at[0] + step * math.cos(a), at[1] - step * math.sin(a))
    g = np.asarray(to_ground(np.array([[at[0], at[1]], tip], float)), float)
    if g.shape != (2, 2) or not np.all(np.isfinite(g)):
        return float("nan")
    return math.degrees(math.atan2(g[1, 1] - g[0, 1], g[1, 0] - g[0, 0])) % 360.0


def decode(p: np.ndarray, window: int = WINDOW) -> tuple[np.ndarray, np.ndarray]:
    """Directions (degrees) and confidences from step probabilities (N x bins): the circular
    mean over the likeliest step and ``window`` steps either side, and the probability there.

    >>> p = np.zeros((1, 8)); p[0, [1, 2]] = 0.5
    >>> a, c = decode(p, 1); round(float(a[0]), 3), round(float(c[0]), 3)
    (67.5, 1.0)
    """
    n, bins = p.shape
    if not n:
        return np.zeros(0), np.zeros(0)
    best = p.argmax(axis=1)
    offsets = np.arange(-window, window + 1)
    cols = (best[:, None] + offsets[None, :]) % bins
    w = p[np.arange(n)[:, None], cols]
    ang = np.radians(cols * 360.0 / bins)
    x, y = (w * np.cos(ang)).sum(axis=1), (w * np.sin(ang)).sum(axis=1)
    return np.degrees(np.arctan2(y, x)) % 360.0, w.sum(axis=1)


class FacingReader:
    """A small network that reads which way a boxed piece faces from a crop around its box.

    ``size``: crops are this many pixels square; ``pad``: a crop is this many times the box's
    longer side; ``bins``: outputs, equal steps of a full turn.
    """

    def __init__(self, net: Any, size: int = 48, pad: float = 1.5, bins: int = BINS, source: Path | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
        if not 8 <= int(size) <= 128 or not 1.0 <= float(pad) <= 3.0 or not 8 <= int(bins) <= 360:
            raise FacingReaderError(f"crop size {size} (8 to 128 pixels), pad {pad} (1 to 3) or steps {bins} "
                                    "(8 to 360) out of range")
        self.net = net.eval()
        self.size, self.pad, self.bins = int(size), float(pad), int(bins)
        self._run = _Inference(self.net, self.size)
        self.source = source
        self.metrics = dict(metrics or {})

    def __repr__(self) -> str:
        return f"FacingReader({self.bins} steps, {self.size} px crops)"

    @property
    def backend(self) -> str:
        """What runs the network: ``"openvino"``, ``"onnx"`` (ONNX Runtime) or ``"torch"``."""
        return self._run.backend

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> FacingReader:
        """Read a reader saved by :meth:`save` (or ``tabletop train``)."""
        path = Path(path)
        try:
            net, meta = _load_net(path, "steps")
            reader = cls(net, meta["size"], meta["pad"], len(meta["steps"]), path, meta.get("metrics"))
            reader._run.prepare()
            return reader
        except FacingReaderError:
            raise
        except Exception as err:  # noqa: BLE001 - torch raises many kinds for a bad file
            raise FacingReaderError(f"{path}: not a facing reader ({type(err).__name__}: {err})") from None

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the reader to ``path`` (through a temporary file: a crash leaves no half file)."""
        meta = {"steps": [round(k * 360.0 / self.bins, 3) for k in range(self.bins)], "size": self.size,
                "pad": self.pad, "metrics": self.metrics}
        return _save_net(Path(path), self.net, meta)

    def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The facing of each piece boxed in ``frame`` (BGR): image degrees (counter-clockwise
        from +x, up at 90) at each box's centre, and the reader's confidence in each (the
        probability within the reading's window)."""
        xyxy = np.asarray(xyxy, float).reshape(-1, 4)
        if not len(xyxy):
            return np.zeros(0), np.zeros(0)
        turns = TURNS if self.bins % 4 == 0 else 1
        return decode(_probabilities(self._run, frame, xyxy, self.size, self.pad, turns, directed=True))


def read_dotted(reader: Any, frame: np.ndarray, xyxy: np.ndarray, keypoints: np.ndarray | None,
                names: np.ndarray, facing: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The facings of a detector's boxes as the detector gives them: each box with a seen
    front dot (``keypoints`` N x 1 x 3, visibility above 0) that is not a hand read by
    ``reader`` (:meth:`FacingReader.read`), the others' ``facing`` (their keypoints'
    direction; NaN where none) kept. Returns the facings and the reader's confidence (NaN
    for a box it did not read), or ``facing`` and ``None`` when it read none."""
    if keypoints is None or not len(names):
        return facing, None
    dotted = np.flatnonzero((keypoints[:, 0, 2] > 0) & (np.asarray(names) != "hand"))
    if not len(dotted):
        return facing, None
    read, sure = reader.read(frame, np.asarray(xyxy)[dotted])
    out = np.full(len(names), np.nan) if facing is None else np.array(facing, float)
    conf = np.full(len(names), np.nan)
    out[dotted], conf[dotted] = read, sure
    return out, conf


@dataclass(frozen=True)
class FacingTraining:
    """How a facing reader is trained (a recipe's ``facing_reader`` section). ``renders``:
    extra renders of the game to learn from besides the detector's data (``count`` images of
    ``seed``), as the facing needs more pieces than the detector's renders hold."""

    epochs: int = 16
    seed: int = 0
    variants: int = 1
    size: int = 48
    pad: float = 1.5
    renders: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> FacingTraining | None:
        if doc is None:
            return None
        try:
            renders = tuple((int(r["count"]), int(r["seed"])) for r in doc.get("renders", ()))
            return cls(epochs=int(doc.get("epochs", 16)), seed=int(doc.get("seed", 0)),
                       variants=int(doc.get("variants", 1)), size=int(doc.get("size", 48)),
                       pad=float(doc.get("pad", 1.5)), renders=renders)
        except (TypeError, ValueError, KeyError) as err:
            raise FacingReaderError(f"malformed facing_reader section: {err}") from None


def facing_patches(folder: Path, split: str, bins: int = BINS, patch: int = PATCH
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every piece of a rendered split whose front dot is in view and whose facing the
    renderer's truth gives (``truth/<split>/*.json``): a patch of ``patch`` pixels around its
    labelled box (the frame's own scale), its facing as a step of ``bins`` (the nearest), its
    box's longer side (pixels) and its facing in the image (degrees), at the box's centre."""
    import cv2

    patches, labels, sides, angles = [], [], [], []
    for truth_path in sorted((Path(folder) / "truth" / split).glob("*.json")):
        try:
            truth = json.loads(truth_path.read_text(encoding="utf-8"))
            h = np.asarray(truth["board"]["board_to_image"], float)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        rows = []
        for p in truth.get("pieces", ()):
            kp, facing = p.get("keypoint"), (p.get("extra") or {}).get("facing")
            if p.get("in_labels") and kp is not None and kp[2] == 2 and facing is not None:
                rows.append((p["box"], float(facing)))
        if not rows:
            continue
        image = cv2.imread(str(Path(folder) / truth["image"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        for box, facing in rows:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            a = image_direction(h, (cx, cy), facing)
            patches.append(_crop(image, cx, cy, patch, 0.0, patch))
            labels.append(round(a * bins / 360.0) % bins)
            sides.append(max(box[2] - box[0], box[3] - box[1]))
            angles.append(a)
    if not patches:
        return np.zeros((0, patch, patch, 3), np.uint8), np.zeros(0, int), np.zeros(0), np.zeros(0)
    return np.stack(patches), np.array(labels), np.array(sides, float), np.array(angles, float)


def _joined(folders: Sequence[Path], split: str) -> tuple[np.ndarray, ...]:
    parts = [facing_patches(f, split) for f in folders]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def train_facing_reader(folders: Sequence[Path], settings: FacingTraining,
                        progress: Callable[[int, int, float, float], None] | None = None) -> FacingReader:
    """Train a facing reader on the pieces of rendered datasets ``folders`` (with the
    renderer's ``truth/``). ``progress(epoch, epochs, loss, val_share)`` after every epoch;
    the validation share within one step and the median error (degrees) on the true boxes are
    kept in the reader's ``metrics``."""
    began = time.perf_counter()
    train_p, train_y, train_s, _ = _joined(folders, "train")
    val_p, val_y, val_s, val_a = _joined(folders, "val")
    if len(train_p) < 10 * BINS:
        raise FacingReaderError(f"{', '.join(map(str, folders))}: only {len(train_p)} pieces with a seen front dot "
                                "and a known facing (rendered truth/) to learn from")
    net, share = _fit(train_p, train_y, train_s, val_p, val_y, val_s, BINS, settings.epochs, settings.variants,
                      settings.seed, settings.size, settings.pad, progress, turning=True)
    reader = FacingReader(net, settings.size, settings.pad, BINS)
    metrics: dict[str, Any] = {"val_within_one_step": round(share, 4), "val_pieces": len(val_p),
                               "train_pieces": len(train_p), "epochs": settings.epochs}
    if len(val_p):
        errors = reader_errors(reader, val_p, val_s, val_a)
        metrics.update(val_median_deg=round(float(np.median(errors)), 2),
                       val_p95_deg=round(float(np.percentile(errors, 95)), 2))
    metrics["seconds"] = round(time.perf_counter() - began, 1)
    reader.metrics = metrics
    return reader


def reader_errors(reader: FacingReader, patches: np.ndarray, sides: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Degrees between the reader's facing and the true one, each patch read from its
    labelled box (the patch's centre, ``sides`` its longer side)."""
    c = patches.shape[1] / 2 if len(patches) else 0.0
    out = []
    for p, s, a in zip(patches, sides, angles):
        box = np.array([[c - s / 2, c - s / 2, c + s / 2, c + s / 2]])
        read = float(reader.read(p, box)[0][0])
        out.append(abs((read - a + 180.0) % 360.0 - 180.0))
    return np.array(out)

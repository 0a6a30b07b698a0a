"""Dice in two stages: the detector finds a die, a small classifier reads its face.

A die on the table is 15 to 20 pixels across in a 640x480 frame, and a game has many face
classes (When Gods Collide: six chess faces, six hero faces, six d6 faces; Wormholes: six
faces on each suit's die). Trained as classes of their own, each face is a rare class the
detector barely sees, and it learns to find none of them. So the detector learns one class
per *kind* of die (``chess-die``, ``hero-die``, ``d6``, ``die-suns``...), which it sees on
every frame, and a :class:`FaceReader` reads the face (and so the kind) from a crop of each
die it finds.

The pair reports the game's own class names (``chess-rook``, ``d6-4``, ``die-suns-ace``),
so nothing downstream knows there are two stages. The reader is saved beside the detector's
weights as ``<weights stem>.faces.pt`` (shipped: ``models/<game>.faces.pt``).

>>> die_kind("chess-rook"), die_kind("d6-4"), die_kind("die-suns-ace"), die_kind("greek")
('chess-die', 'd6', 'die-suns', None)
>>> is_die_kind("die-suns"), is_die_kind("d6"), is_die_kind("d6-4")
(True, True, False)
>>> merged_names(["greek", "chess-king", "chess-rook", "d6-1", "hand"])
(('greek', 'chess-die', 'd6', 'hand'), (0, 1, 1, 2, 3))
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from vision.sizes import frame_size

__all__ = [
    "FACES_SUFFIX",
    "FaceReader",
    "FaceReaderError",
    "FaceTraining",
    "MoreRenders",
    "beside",
    "dataset_names",
    "die_kind",
    "faces_path",
    "is_die_kind",
    "merge_dataset",
    "merged_names",
    "more_renders",
    "reader_figures",
    "train_face_reader",
    "training_patches",
]

#: The reader beside weights ``W.pt`` is ``W.faces.pt``.
FACES_SUFFIX = ".faces.pt"
#: The crop around a die is this many times the longer side of its box (some table around it).
PAD = 1.4
#: Crops are resized to this many pixels square.
SIZE = 32
#: A die's crop is read at this many quarter turns and their probabilities averaged: a die
#: lies at any turn, and the reader, trained at any turn, reads some turns of a blurred face
#: better than others (the 200 dice of 100 renders of a seed used nowhere else, read from
#: their labelled boxes: 56.0 % right at one turn, 61.0 % at four).
TURNS = 4
#: A crop classifier does not read a crop again when the frame before had one around a box
#: within this many pixels of it (centre and size) ...
SAME_BOX_PX = 1.5
#: ... whose 8-pixel blocks all differ from it by less than this many levels (of 255) on
#: average: a still piece under a camera's noise (two or three levels a pixel), not a coin
#: turned over or a die showing another face in the same place (a pip changes a block by
#: tens of levels).
SAME_CROP_LEVELS = 4.0

_PREFIXES = (("chess-", "chess-die"), ("hero-", "hero-die"), ("d6-", "d6"))


class FaceReaderError(Exception):
    """A face reader that cannot be loaded or trained."""


def die_kind(name: str) -> str | None:
    """The kind of die a face class belongs to (``None``: not a die face). When Gods
    Collide: ``chess-*``, ``hero-*`` and ``d6-*``; Wormholes: ``die-<suit>-<face>``."""
    if name.startswith("die-"):
        suit, sep, face = name[len("die-"):].partition("-")
        return f"die-{suit}" if sep and suit and face else None
    for prefix, kind in _PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            return kind
    return None


def is_die_kind(name: str) -> bool:
    """Whether ``name`` is a kind of die as the detector finds it (``chess-die``, ``d6``,
    ``die-suns``), not a face."""
    return name in {kind for _, kind in _PREFIXES} or (name.startswith("die-") and die_kind(name) is None
                                                         and len(name) > len("die-"))


def merged_names(names: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The detector's classes when each kind of die is one class: the names, in the order
    of the game's classes (a kind where its first face was), and each game class's new id."""
    out: list[str] = []
    index: dict[str, int] = {}
    ids = []
    for name in names:
        key = die_kind(name) or name
        if key not in index:
            index[key] = len(out)
            out.append(key)
        ids.append(index[key])
    return tuple(out), tuple(ids)


def faces_path(weights: str | os.PathLike[str]) -> Path:
    """Where the face reader of detector weights ``weights`` lives (beside them)."""
    return beside(weights, FACES_SUFFIX)


def beside(weights: str | os.PathLike[str], suffix: str) -> Path:
    """The file beside detector weights ``weights`` named after them with ``suffix``
    instead of their own (a reader that goes with them).

    >>> beside("runs/m/oneworld.pt", ".pieces.pt").as_posix(), beside("m", ".faces.pt").as_posix()
    ('runs/m/oneworld.pieces.pt', 'm.faces.pt')
    """
    p = Path(weights)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(stem + suffix)


def dataset_names(folder: Path) -> list[str]:
    """The class names of the ultralytics dataset ``folder`` (its ``data.yaml``, names as a
    list or as a mapping of ids)."""
    import yaml

    names = yaml.safe_load((Path(folder) / "data.yaml").read_text(encoding="utf-8"))["names"]
    return [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)


def merge_dataset(src: Path, dst: Path) -> Path:
    """Copy the ultralytics dataset ``src`` (``data.yaml``, ``images/``, ``labels/``) to
    ``dst`` with every die face relabelled as its kind of die; images are hard-linked
    (copied where links cannot be made). Returns ``dst/data.yaml``."""
    import shutil

    import yaml

    src, dst = Path(src), Path(dst)
    doc = yaml.safe_load((src / "data.yaml").read_text(encoding="utf-8"))
    kinds, ids = merged_names(dataset_names(src))
    for folder in sorted((src / "images").rglob("*")):
        if not folder.is_file():
            continue
        rel = folder.relative_to(src / "images")
        target = dst / "images" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            try:
                os.link(folder, target)
            except OSError:
                shutil.copyfile(folder, target)
        label = (src / "labels" / rel).with_suffix(".txt")
        out = (dst / "labels" / rel).with_suffix(".txt")
        out.parent.mkdir(parents=True, exist_ok=True)
        rows = label.read_text(encoding="utf-8").splitlines() if label.is_file() else []
        lines = []
        for row in rows:
            parts = row.split()
            if not parts:
                continue
            parts[0] = str(ids[int(parts[0])])
            lines.append(" ".join(parts) + "\n")
        out.write_text("".join(lines), encoding="utf-8")
    doc = dict(doc, path=str(dst.resolve()), names=dict(enumerate(kinds)))
    (dst / "data.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return dst / "data.yaml"


def _crop(image: np.ndarray, cx: float, cy: float, side: float, angle: float = 0.0,
          size: int = SIZE) -> np.ndarray:
    """A ``size`` x ``size`` crop of ``image``: a square of ``side`` pixels centred on
    (cx, cy), turned by ``angle`` degrees; the border replicated where it leaves the image."""
    import cv2

    scale = size / max(side, 1.0)
    m = cv2.getRotationMatrix2D((float(cx), float(cy)), float(angle), scale)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    return cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _network(classes: int) -> Any:
    from torch import nn

    def block(a: int, b: int) -> list[Any]:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    return nn.Sequential(*block(3, 32), *block(32, 32), nn.MaxPool2d(2),
                         *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
                         *block(64, 128), *block(128, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(128, classes))


def _to_array(crops: np.ndarray) -> np.ndarray:
    """BGR ``uint8`` crops (N x H x W x 3) as the network takes them: RGB, N x 3 x H x W, centred."""
    x = np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
    return x / np.float32(255.0) - np.float32(0.5)


def _to_tensor(crops: np.ndarray) -> Any:
    import torch

    return torch.from_numpy(_to_array(crops))


class _Inference:
    """A crop classifier at inference time. The network is exported once to ONNX in memory (by
    :meth:`prepare`, else on the first read) and run by OpenVINO when it is installed (on a CPU
    with bfloat16 it reads 26 crops of 48 pixels in about half ONNX Runtime's time, the logits
    a few hundredths apart), else by ONNX Runtime (21 crops in about 14 ms on two cores, where
    torch takes about 27); torch runs it when neither can, or if the export fails."""

    def __init__(self, net: Any, size: int) -> None:
        self.net = net
        self.size = int(size)
        self._session: Any = None
        self._tried = False
        #: the last call's crop windows (cx, cy, side), the crops their probabilities were read
        #: from, and those probabilities (:func:`_probabilities`)
        self.recent: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def backend(self) -> str:
        """``"openvino"``, ``"onnx"`` or ``"torch"``: what reads the crops (decided on the first
        read)."""
        return "torch" if self._session is None else self._session.backend

    def prepare(self) -> None:
        """Export the network now (about 0.3 s): a reader loaded for a camera pays it at start-up,
        not on its first frame."""
        self._exported()

    def _exported(self) -> Any:
        if not self._tried:
            self._tried = True
            self._session = _exported_session(self.net, self.size)
        return self._session

    def logits(self, crops: np.ndarray) -> np.ndarray:
        x = _to_array(crops)
        session = self._exported()
        if session is not None:
            return session(x)
        import torch

        threads = torch.get_num_threads()
        # a few crops (dice): more threads only wait on each other; a board of pieces: the
        # cores share it
        torch.set_num_threads(1 if len(x) < 8 else threads)
        try:
            with torch.inference_mode():
                return self.net(torch.from_numpy(x)).numpy()
        finally:
            torch.set_num_threads(threads)


class _OpenVinoCrops:
    """OpenVINO's CPU runtime on a crop classifier's ONNX export (any number of crops)."""

    backend = "openvino"

    def __init__(self, onnx: bytes) -> None:
        from vision.detect import _openvino_compiled, _openvino_core

        self.request = _openvino_compiled(_openvino_core().read_model(onnx, b"")).create_infer_request()

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.request.infer({0: x})
        return self.request.get_output_tensor(0).data.copy()  # the request's buffer is reused


class _OnnxCrops:
    """ONNX Runtime on a crop classifier's ONNX export (any number of crops)."""

    backend = "onnx"

    def __init__(self, onnx: bytes) -> None:
        from vision.detect import _onnx_session

        self.session = _onnx_session(onnx)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(None, {"crops": x})[0]


def _exported_session(net: Any, size: int) -> Any:
    """A runner of ``net`` (any number of ``size``-pixel crops) on OpenVINO, else ONNX
    Runtime; None where neither is installed or the export fails (torch reads then)."""
    try:
        import io
        import warnings

        import torch

        buf = io.BytesIO()
        with warnings.catch_warnings():  # torch warns about its exporters' futures
            warnings.simplefilter("ignore")
            torch.onnx.export(net.eval(), torch.zeros(2, 3, size, size), buf, input_names=["crops"],
                              output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                              opset_version=17, dynamo=False)
    except Exception:  # noqa: BLE001 - an exporter that cannot: torch reads
        return None
    for runner in (_OpenVinoCrops, _OnnxCrops):
        try:
            return runner(buf.getvalue())
        except Exception:  # noqa: BLE001, S112 - not installed, or cannot load it: the next one
            continue
    return None


def _save_net(path: Path, net: Any, meta: dict[str, Any], **extra: Any) -> Path:
    """Write a crop classifier's weights and its ``meta`` (as JSON) to ``path``, through a
    temporary file: a crash leaves no half file."""
    import torch

    tmp = path.with_name(path.name + ".part")
    torch.save({"state": net.state_dict(), "meta": json.dumps(meta), **extra}, str(tmp))
    os.replace(tmp, path)
    return path


def _load_net(path: Path, classes_key: str) -> tuple[Any, dict[str, Any]]:
    """A crop classifier saved by :func:`_save_net` and its meta; the network has as many
    outputs as ``meta[classes_key]`` lists. Raises whatever torch or a bad file raises."""
    import torch

    doc = torch.load(str(path), map_location="cpu", weights_only=True)
    meta = json.loads(doc["meta"])
    net = _network(len(meta[classes_key]))
    net.load_state_dict(doc["state"])
    return net, meta


class FaceReader:
    """A small classifier that reads the face of a die from a crop around its box.

    ``names``: the class names the detector and reader report together (the game's);
    ``faces``: the face classes the network outputs; ``kinds``: each kind of die's faces
    (indices into ``faces``): the detector's classes that are dice.
    """

    def __init__(self, net: Any, names: Sequence[str], faces: Sequence[str], source: Path | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
        self.net = net.eval()
        self._run = _Inference(self.net, SIZE)
        self.names = tuple(names)
        self.faces = tuple(faces)
        self.source = source
        self.metrics = dict(metrics or {})
        kinds: dict[str, list[int]] = {}
        for i, face in enumerate(self.faces):
            kind = die_kind(face)
            if kind is None:
                raise FaceReaderError(f"{face!r} is not a die face")
            kinds.setdefault(kind, []).append(i)
        self.kinds = {k: tuple(v) for k, v in kinds.items()}

    def __repr__(self) -> str:
        return f"FaceReader({len(self.faces)} faces of {', '.join(self.kinds)})"

    @property
    def backend(self) -> str:
        """What runs the network: ``"openvino"``, ``"onnx"`` (ONNX Runtime) or ``"torch"``; decided on
        loading (else on the first read)."""
        return self._run.backend

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> FaceReader:
        """Read a reader saved by :meth:`save` (or ``tabletop train``)."""
        path = Path(path)
        try:
            net, meta = _load_net(path, "faces")
            reader = cls(net, meta["names"], meta["faces"], path, meta.get("metrics"))
            reader._run.prepare()
            return reader
        except FaceReaderError:
            raise
        except Exception as err:  # noqa: BLE001 - torch raises many kinds for a bad file
            raise FaceReaderError(f"{path}: not a dice face reader ({type(err).__name__}: {err})") from None

    def save(self, path: str | os.PathLike[str]) -> Path:
        meta = {"names": list(self.names), "faces": list(self.faces), "size": SIZE, "pad": PAD,
                "metrics": self.metrics}
        return _save_net(Path(path), self.net, meta, faces=list(self.faces))

    def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The face of each die boxed in ``frame`` (BGR): face class names and the reader's
        confidence in each. Any of the reader's faces may come out, whatever kind of die the
        detector called it: on the When Gods Collide held-out renders the reader tells the
        kind of a die right 97 % of the time, the detector 70 % (a chess die and a d6 are
        both white cubes at 13 pixels)."""
        if not len(np.asarray(xyxy).reshape(-1, 4)):
            return [], np.zeros(0)
        p = _probabilities(self._run, frame, xyxy, SIZE, PAD, TURNS)
        best = p.argmax(axis=1)
        return [self.faces[j] for j in best], p[np.arange(len(best)), best]


def _probabilities(run: _Inference, frame: np.ndarray, xyxy: np.ndarray, size: int, pad: float,
                   turns: int = 1, directed: bool = False) -> np.ndarray:
    """The classifier's class probabilities (one row a box) for the crops of ``frame``
    around boxes ``xyxy``: a square ``pad`` times each box's longer side, resized to
    ``size`` pixels; with ``turns`` above 1, the mean of the probabilities of each crop at
    that many quarter turns (4: 0, 90, 180 and 270 degrees, exact turns of the same pixels);
    ``directed``: the classes are equal steps of a full turn (a direction, counter-clockwise),
    so each turned crop's probabilities are turned back by as many quarters of the steps
    before the mean.
    A crop the last call read (the same window within :data:`SAME_BOX_PX`, the same pixels
    within :data:`SAME_CROP_LEVELS`) keeps that reading: a still board is read once, not
    once a frame."""
    xyxy = np.asarray(xyxy, float).reshape(-1, 4)
    if not len(xyxy):
        return np.zeros((0, 1))
    windows = np.c_[(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2,
                    pad * np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])]
    crops = np.stack([_crop(frame, cx, cy, side, 0.0, size) for cx, cy, side in windows])
    read_from, p, fresh = _recall(run.recent, windows, crops)
    if fresh.any():
        todo = crops[fresh]
        if turns > 1:
            todo = np.concatenate([np.rot90(todo, k, axes=(1, 2)) for k in range(turns)])
        logits = run.logits(todo)
        q = np.exp(logits - logits.max(axis=1, keepdims=True))
        q /= q.sum(axis=1, keepdims=True)
        q = q.reshape(turns, -1, q.shape[1])
        if directed:
            q = np.stack([np.roll(q[k], -k * q.shape[2] // 4, axis=1) for k in range(turns)])
        q = q.mean(axis=0)
        p = np.zeros((len(crops), q.shape[1])) if p is None else p
        p[fresh], read_from[fresh] = q, crops[fresh]
    run.recent = (windows, read_from, p)
    return p.copy()


def _recall(recent: tuple[np.ndarray, np.ndarray, np.ndarray] | None, windows: np.ndarray, crops: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """For each crop, the crop its probabilities come from and those probabilities when the
    last call read the same (:func:`_probabilities`); the crops to read (a mask)."""
    read_from, fresh = crops.copy(), np.ones(len(crops), bool)
    if recent is None or recent[1].shape[1:] != crops.shape[1:]:
        return read_from, None, fresh
    windows0, crops0, p0 = recent
    p = np.zeros((len(crops), p0.shape[1]))
    near = np.abs(windows[:, None, :] - windows0[None, :, :]).max(axis=2)  # new x old
    k = crops.shape[1] // 8 * 8
    for i in range(len(crops)):
        close = np.flatnonzero(near[i] <= SAME_BOX_PX)
        for j in close[np.argsort(near[i, close])]:
            d = crops[i, :k, :k].astype(np.float32) - crops0[j, :k, :k]
            blocks = d.reshape(k // 8, 8, k // 8, 8, -1).mean(axis=(1, 3))
            if np.abs(blocks).max() < SAME_CROP_LEVELS:
                read_from[i], p[i], fresh[i] = crops0[j], p0[j], False
                break
    return read_from, p, fresh


class MoreRenders(NamedTuple):
    """More renders for a reader to learn from: ``count`` images of ``seed``, at ``size``
    (width, height) or, ``None``, at the recipe's own image size."""

    count: int
    seed: int
    size: tuple[int, int] | None = None


def more_renders(doc: Any) -> tuple[MoreRenders, ...]:
    """The ``renders`` list of a reader's recipe section (``[{"count": N, "seed": S}]``, each
    with an optional ``"size": [W, H]`` or ``"WxH"``). Raises ``KeyError``, ``TypeError`` or
    ``ValueError`` on a malformed list, and ``ValueError`` on a count below 1."""
    renders = tuple(MoreRenders(int(r["count"]), int(r["seed"]), None if r.get("size") is None else frame_size(r["size"]))
                    for r in (doc or ()))
    if any(r.count < 1 for r in renders):
        raise ValueError("each of its renders needs a count of at least 1")
    return renders


def training_patches(folder: Path, names: Sequence[str], index: dict[int, int], more: Sequence[Path] = ()
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The training patches of a reader: the labelled boxes of ``folder``'s training split,
    and of every split of each of the ``more`` datasets, which must have ``names`` for their
    classes (``ValueError`` otherwise); see :func:`_labelled_patches`."""
    parts = [_labelled_patches(Path(folder), "train", index)]
    for extra in more:
        if tuple(dataset_names(Path(extra))) != tuple(names):
            raise ValueError(f"{extra}: its classes are not those of {folder}")
        parts += [_labelled_patches(Path(extra), split.name, index)
                  for split in sorted((Path(extra) / "images").iterdir()) if split.is_dir()]
    p, y, s = (np.concatenate([part[k] for part in parts]) for k in range(3))
    return p, y, s


@dataclass(frozen=True)
class FaceTraining:
    """How a face reader is trained (a recipe's ``dice_faces`` section). ``renders``: more
    renders (``[{"count": N, "seed": S}]`` in the recipe, with ``"size": [W, H]`` for another
    image size than the recipe's: a camera with more pixels) whose dice, every split of them,
    join the training dice: the reader learns from more dice than the detector's data holds
    (a die is a few of a render's pieces), and from dice as larger frames show them.
    ``camera_noise``: each training crop also as a real camera may give it (a colour cast,
    sensor noise, JPEG compression), for photos rather than renders.

    >>> FaceTraining.from_json({"epochs": 40, "renders": [{"count": 6000, "seed": 11},
    ...                         {"count": 10, "seed": 12, "size": [1280, 960]}]}).renders
    (MoreRenders(count=6000, seed=11, size=None), MoreRenders(count=10, seed=12, size=(1280, 960)))
    """

    epochs: int = 30
    seed: int = 0
    variants: int = 1  # fresh jittered crops of every die per epoch
    renders: tuple[MoreRenders, ...] = ()
    camera: bool = False

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> FaceTraining | None:
        if doc is None:
            return None
        try:
            camera = doc.get("camera_noise", False)
            if not isinstance(camera, bool):
                raise TypeError(f"camera_noise must be true or false, got {camera!r}")
            return cls(epochs=int(doc.get("epochs", 30)), seed=int(doc.get("seed", 0)),
                       variants=int(doc.get("variants", 1)), renders=more_renders(doc.get("renders")),
                       camera=camera)
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise FaceReaderError(f"malformed dice_faces section: {type(err).__name__}: {err}") from None


def _labelled_patches(folder: Path, split: str, classes: dict[int, int], patch: int = 96
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every labelled box of a split whose class is a key of ``classes`` (dice for the face
    reader, pieces for the piece reader): a patch of ``patch`` pixels around it (native
    scale), its label (``classes[class]``) and its box size (pixels)."""
    import cv2

    patches, labels, sides = [], [], []
    for img_path in sorted((folder / "images" / split).glob("*")):
        label = folder / "labels" / split / f"{img_path.stem}.txt"
        if not label.is_file():
            continue
        rows = [r.split() for r in label.read_text().splitlines() if r.strip()]
        rows = [r for r in rows if int(r[0]) in classes]
        if not rows:
            continue
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        for r in rows:
            cx, cy, bw, bh = float(r[1]) * w, float(r[2]) * h, float(r[3]) * w, float(r[4]) * h
            patches.append(_crop(image, cx, cy, patch, 0.0, patch))
            labels.append(classes[int(r[0])])
            sides.append(max(bw, bh))
    if not patches:
        return np.zeros((0, patch, patch, 3), np.uint8), np.zeros(0, int), np.zeros(0)
    return np.stack(patches), np.array(labels), np.array(sides, float)


def _jittered(patches: np.ndarray, sides: np.ndarray, rng: np.random.Generator, train: bool, size: int = SIZE,
              pad: float = PAD, turns: np.ndarray | None = None, camera: bool = False) -> np.ndarray:
    """Crops as the reader sees them behind a detector: a box a little off centre and off
    size, any turn, light and blur of a live camera (training); the true box (validation).
    ``turns``: each training crop's turn (degrees counter-clockwise) instead of a random one.
    ``camera``: each training crop also as a real camera may give it (:func:`_as_a_camera_gives`)."""
    import cv2

    c = patches.shape[1] / 2
    out = np.empty((len(patches), size, size, 3), np.uint8)
    for i, (p, s) in enumerate(zip(patches, sides)):
        if train:
            dx, dy = rng.normal(0, 0.08 * s, 2)
            side = pad * s * rng.uniform(0.85, 1.2)
            turn = rng.uniform(0, 360) if turns is None else float(turns[i])
            crop = _crop(p, c + dx, c + dy, side, turn, size)
            crop = crop.astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25)
            if rng.random() < 0.3:
                crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 1.0))
            if camera:
                out[i] = _as_a_camera_gives(crop, rng)
                continue
            out[i] = np.clip(crop + rng.normal(0, 3, crop.shape), 0, 255).astype(np.uint8)
        else:
            out[i] = _crop(p, c, c, pad * s, 0.0, size)
    return out


def _as_a_camera_gives(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A rendered crop (float BGR) as a real camera may give it: a colour cast (each channel's
    gain 0.85 to 1.15), more or less saturated (0.6 to 1.3), sensor noise of 2 to 8 levels,
    and half the time JPEG compression (quality 30 to 90), as a phone's photo or a webcam's
    stream is compressed. Renders are cleaner than any of these."""
    import cv2

    crop = crop * rng.uniform(0.85, 1.15, 3)
    grey = crop.mean(axis=2, keepdims=True)
    crop = grey + (crop - grey) * rng.uniform(0.6, 1.3)
    crop = np.clip(crop + rng.normal(0, rng.uniform(2, 8), crop.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 91))])
        if ok:
            crop = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return crop


def _fit(train_p: np.ndarray, train_y: np.ndarray, train_s: np.ndarray, val_p: np.ndarray, val_y: np.ndarray,
         val_s: np.ndarray, classes: int, epochs: int, variants: int, seed: int, size: int, pad: float,
         progress: Callable[[int, int, float, float], None] | None = None, turning: bool = False,
         camera: bool = False) -> tuple[Any, float]:
    """Train a crop classifier (:func:`_network`) on labelled patches (``_labelled_patches``):
    ``variants`` fresh jittered crops of each patch an epoch, a one-cycle schedule; ``progress(epoch,
    epochs, loss, val_accuracy)`` after every epoch. Returns the network and its last
    validation accuracy on the true boxes (NaN without validation patches).

    ``turning``: the labels are directions, ``classes`` equal steps of a full turn counter-clockwise
    (a facing reader): each crop is turned by a whole number of steps and its label with it,
    and the validation accuracy counts a direction within one step as right. ``camera``: the
    training crops also as a real camera may give them (colour cast, noise, compression)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = _network(classes)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = int(np.clip(len(train_p) // 16, 16, 128))  # enough steps an epoch on a small set too
    steps = epochs * variants * ((len(train_p) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=max(steps, 1))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    val_x = _to_tensor(_jittered(val_p, val_s, rng, False, size, pad)) if len(val_p) else None
    accuracy = float("nan")
    for epoch in range(1, epochs + 1):
        net.train()
        total, seen = 0.0, 0
        for _ in range(variants):
            if turning:
                steps_turned = rng.integers(0, classes, len(train_p))
                x_all = _to_tensor(_jittered(train_p, train_s, rng, True, size, pad, steps_turned * 360.0 / classes,
                                                camera))
                y_all = torch.from_numpy((train_y + steps_turned) % classes).long()
            else:
                x_all = _to_tensor(_jittered(train_p, train_s, rng, True, size, pad, camera=camera))
                y_all = torch.from_numpy(train_y).long()
            order = torch.from_numpy(rng.permutation(len(train_p)))
            for k in range(0, len(order), batch):
                idx = order[k:k + batch]
                opt.zero_grad()
                loss = loss_fn(net(x_all[idx]), y_all[idx])
                loss.backward()
                opt.step()
                sched.step()
                total += loss.item() * len(idx)
                seen += len(idx)
        if val_x is not None:
            net.eval()
            with torch.inference_mode():
                got = net(val_x).argmax(1).numpy()
                if turning:
                    off = np.abs(got - val_y) % classes
                    accuracy = float((np.minimum(off, classes - off) <= 1).mean())
                else:
                    accuracy = float((got == val_y).mean())
        if progress is not None:
            progress(epoch, epochs, total / max(seen, 1), accuracy)
    return net, accuracy


def train_face_reader(folder: Path, names: Sequence[str], settings: FaceTraining,
                      progress: Callable[[int, int, float, float], None] | None = None,
                      more: Sequence[Path] = ()) -> FaceReader:
    """Train a face reader on the dice of the ultralytics dataset ``folder`` (full-size
    renders: ``images/{train,val}``, ``labels/{train,val}``); ``names`` are its classes.
    ``more``: datasets of the same game (the same classes) whose dice, every split, are
    training dice too (:attr:`FaceTraining.renders`); ``folder``'s validation dice stay the
    validation. ``progress(epoch, epochs, loss, val_accuracy)`` is called after every epoch.
    The validation accuracy on the true boxes is kept in the reader's ``metrics``."""
    face_ids = [i for i, n in enumerate(names) if die_kind(n)]
    if not face_ids:
        raise FaceReaderError("this game has no dice faces to read")
    faces = tuple(names[i] for i in face_ids)
    index = {c: j for j, c in enumerate(face_ids)}
    began = time.perf_counter()
    try:
        train_p, train_y, train_s = training_patches(Path(folder), names, index, more)
    except ValueError as err:
        raise FaceReaderError(str(err)) from None
    val_p, val_y, val_s = _labelled_patches(Path(folder), "val", index)
    if len(train_p) < len(faces):
        raise FaceReaderError(f"{folder}: only {len(train_p)} dice to learn {len(faces)} faces from")
    net, accuracy = _fit(train_p, train_y, train_s, val_p, val_y, val_s, len(faces), settings.epochs,
                         settings.variants, settings.seed, SIZE, PAD, progress, camera=settings.camera)
    metrics = {"val_accuracy": round(accuracy, 4), "val_dice": len(val_p), "train_dice": len(train_p),
               "epochs": settings.epochs, "seconds": round(time.perf_counter() - began, 1)}
    return FaceReader(net, names, faces, None, metrics)


def reader_figures(reader: FaceReader, folder: Path, names: Sequence[str]) -> dict[str, Any]:
    """How a face reader does alone on the labelled dice of the ultralytics dataset
    ``folder`` (every split; ``names`` its classes), each read from its labelled box: faces
    right overall, by kind of die and by the box's longer side, and the kind right (the
    kind of the face read against the true one)."""
    index = {c: j for j, c in enumerate(i for i, n in enumerate(names) if die_kind(n))}
    faces = [names[c] for c in index]
    if tuple(faces) != reader.faces:
        raise FaceReaderError(f"{folder}: its dice faces are not the reader's ({len(faces)} against "
                              f"{len(reader.faces)})")
    splits = sorted(p.name for p in (Path(folder) / "images").iterdir() if p.is_dir())
    found = [_labelled_patches(Path(folder), split, index) for split in splits]
    patches = np.concatenate([f[0] for f in found]) if found else np.zeros((0, 96, 96, 3), np.uint8)
    truth = np.concatenate([f[1] for f in found]).astype(int) if found else np.zeros(0, int)
    sides = np.concatenate([f[2] for f in found]) if found else np.zeros(0)
    c = patches.shape[1] / 2
    read = []
    for p, s in zip(patches, sides):  # the labelled box: the same crop as behind a detector
        box = np.array([[c - s / 2, c - s / 2, c + s / 2, c + s / 2]])
        read.append(reader.faces.index(reader.read(p, box)[0][0]))
    got = np.array(read, int)

    def share(mask: np.ndarray) -> float | None:
        return round(float((got[mask] == truth[mask]).mean()), 4) if mask.any() else None

    kind_of = np.array([die_kind(f) for f in reader.faces], dtype=object)
    return {
        "dice": len(truth),
        "right": share(np.ones(len(truth), bool)),
        "kind_right": round(float((kind_of[got] == kind_of[truth]).mean()), 4) if len(truth) else None,
        "by_kind": {k: {"dice": int((kind_of[truth] == k).sum()), "right": share(kind_of[truth] == k)}
                    for k in reader.kinds},
        "by_side_px": {f"{lo}-{hi}": {"dice": int(((sides >= lo) & (sides < hi)).sum()),
                                      "right": share((sides >= lo) & (sides < hi))}
                       for lo, hi in ((0, 10), (10, 14), (14, 18), (18, 999))},
    }

"""The piece detector: shipped (or your own) weights in, :class:`~vision.detections.Detections` out.

>>> detector = Detector.load("oneworld")                  # doctest: +SKIP
>>> found = detector.detect(cv2.imread("frame.jpg"))      # doctest: +SKIP
>>> found.class_name, found.xyxy, found.confidence        # doctest: +SKIP

``Detector.load(game_or_path, backend)`` takes a game's short name (the weights shipped in
:mod:`models`) or a path to weights (``.pt`` from ultralytics or ``tabletop train``, or an
exported ``.onnx``). Three backends run the same weights:

* ``"ultralytics"``: ``YOLO(weights).predict``; the result is converted to numpy once,
  here, by :meth:`Detections.from_ultralytics`.
* ``"onnx"``: ONNX Runtime on the model exported once to ONNX (the export is cached in
  ``$TABLETOP_CACHE`` or ``~/.cache/tabletop``); letterboxing, decoding and non-maximum
  suppression are done here with numpy and OpenCV, as ultralytics does them.
* ``"openvino"``: OpenVINO's CPU runtime on the same ONNX export, with the same work around
  the network; on a CPU with bfloat16 instructions it computes in bfloat16 (OpenVINO's own
  default there), which reads the same pieces in far less time (docs/models.md). Its boxes
  and keypoints are ONNX Runtime's to a tenth of a pixel (the box decoding after the last
  convolution stays in 32-bit floats); its confidences differ by about a hundredth.
* ``"auto"`` (the default): OpenVINO when ``openvino`` is installed, else ONNX Runtime when
  ``onnxruntime`` is, else ultralytics (an export needs the ``onnx`` package too). Measured
  side by side with ``benchmarks/detector_speed.py`` (docs/models.md), OpenVINO is the
  fastest on a CPU, ultralytics (torch) the slowest.

A grid game's shipped weights read each frame at the size its pieces need
(:class:`PieceScale`, from the game's recipe); ``imgsz`` fixes one size for every frame.
The Game's read each frame twice, as it is and mirrored, and merge the two readings
(:func:`merged_with_mirror`; the recipe's ``inference.mirror``, ``mirror`` to choose).

Readers saved beside the weights join in: a dice face reader (``W.faces.pt``,
:mod:`vision.dice_faces`) reads the face of each die found, and a piece reader
(``W.pieces.pt``, :mod:`vision.piece_reader`) re-reads the class of each piece found,
its reading combined with the detector's class and confidence
(:func:`vision.piece_reader.combined`); a stack reader (``W.stacks.pt``,
:mod:`vision.stack_reader`: OneWorld's) counts the counters of each stack boxed more than
once, and the boxes beyond its count are dropped (a single counter read twice).

Nothing is imported or loaded until :meth:`Detector.load` is called; nothing is downloaded.
This module (with :mod:`vision.detect_train`) is the only place tabletop imports ultralytics.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import shutil
import threading
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from vision.detections import Detections, box_iou, facing_from_keypoints

__all__ = ["BACKENDS", "SIZES", "Detector", "DetectorError", "PieceScale", "onnx_export", "resolve_weights",
           "ultralytics_module"]

BACKENDS = ("auto", "ultralytics", "onnx", "openvino")
CACHE_ENV = "TABLETOP_CACHE"

#: Defaults as ultralytics' ``predict``: confidence threshold, NMS IoU, most boxes kept.
CONF = 0.25
IOU = 0.7
MAX_DET = 300
#: The sizes (the network input's longer side, pixels) a frame may be read at when its pieces
#: decide (:class:`PieceScale`): steps of 64, so that few ONNX exports are made and cached.
SIZES = tuple(range(384, 833, 64))


class DetectorError(Exception):
    """Root of the detection stage's errors: weights that cannot be loaded, bad datasets."""


_ULTRALYTICS_LOCK = threading.Lock()


def ultralytics_module() -> Any:
    """Import ultralytics set up to stay offline: with ``YOLO_OFFLINE=1`` it makes no online
    check, sends no analytics and tries no download (the user's ultralytics settings file
    is left as it is). The one place tabletop imports it."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    with _ULTRALYTICS_LOCK:
        try:
            import ultralytics
        except ImportError as err:  # pragma: no cover - a broken install
            raise DetectorError(f"ultralytics is not installed ({err}): pip install ultralytics") from None
    return ultralytics


def resolve_weights(game_or_path: str | os.PathLike[str]) -> Path:
    """A path to weights: a .pt or .onnx file as given, else the weights shipped for a game
    (a folder named after the game in the working folder is no weights file)."""
    path = Path(game_or_path)
    if path.suffix in (".pt", ".onnx"):
        if not path.is_file():
            raise DetectorError(f"{path}: no such weights file")
        return path
    import models

    try:
        return models.weights_path(str(game_or_path))
    except models.ModelNotFoundError as err:
        if path.exists():
            raise DetectorError(f"{path}: not a weights file (give a .pt or .onnx file)") from None
        raise DetectorError(f"{err}; or give a path to .pt or .onnx weights") from None


def _cache_dir() -> Path:
    root = os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "tabletop")
    return Path(root) / "models"


def onnx_export(weights: Path, imgsz: tuple[int, int] = (480, 640), folder: Path | None = None) -> Path:
    """Export ``weights`` (.pt) to ONNX for input ``imgsz`` (height, width), once: the file
    is cached by the weights' content, so a retrained model is exported again."""
    digest = hashlib.sha256(Path(weights).read_bytes()).hexdigest()[:12]
    folder = Path(folder) if folder is not None else _cache_dir()
    target = folder / f"{Path(weights).stem}-{digest}-{imgsz[0]}x{imgsz[1]}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    work = folder / f".export-{digest}-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    try:
        copy = work / Path(weights).name
        shutil.copyfile(weights, copy)
        try:
            model = ultralytics_module().YOLO(str(copy))
        except Exception as err:  # noqa: BLE001 - a truncated, empty or foreign file
            raise DetectorError(f"{weights} is not a model's weights file that can be read "
                                f"(empty, cut short or another kind of file: {type(err).__name__})") from None
        quiet = logging.getLogger("ultralytics")
        level = quiet.level
        quiet.setLevel(logging.WARNING)
        try:
            with warnings.catch_warnings():  # torch's tracer warns about ultralytics' shape checks
                warnings.simplefilter("ignore")
                out = model.export(format="onnx", imgsz=list(imgsz), simplify=False, dynamic=False, verbose=False)
        except Exception as err:  # noqa: BLE001 - ultralytics raises many kinds; one message
            raise DetectorError(f"could not export {weights} to ONNX: {type(err).__name__}: {err}") from None
        finally:
            quiet.setLevel(level)
        os.replace(out, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


@dataclass(frozen=True)
class ModelInfo:
    """What a detector knows about its weights."""

    source: Path
    names: tuple[str, ...]
    task: str  # "detect" or "pose"
    imgsz: int  # the inference size (longest side, pixels)
    kpt_shape: tuple[int, int] | None = None


@dataclass(frozen=True)
class PieceScale:
    """Frames read at the size their pieces need. A model learns pieces at the sizes its
    training images showed them; a camera nearer the board, or a frame of another shape,
    shows them larger or smaller. ``piece_px``: the median shorter side of a frame's pieces,
    in network input pixels, that the model reads best (a game recipe's
    ``inference.piece_px``); a frame is read at the size of ``sizes`` that brings its pieces'
    median nearest that, in ratio.

    >>> scale = PieceScale(15.0)
    >>> scale.size_for(12.5, lambda n: n / 640), scale.size_for(40.0, lambda n: n / 640)
    (768, 384)
    """

    piece_px: float
    sizes: tuple[int, ...] = SIZES
    #: the size a frame was read at is kept while its pieces look this near ``piece_px`` (in
    #: ratio) there: a frame whose pieces sit between two sizes is not read twice each time
    keep_within: float = 1.15

    def size_for(self, median_px: float, scale_at: Any, current: int | None = None) -> int:
        """The size for pieces whose median shorter side is ``median_px`` frame pixels;
        ``scale_at(n)``: how many network pixels a frame pixel becomes at size ``n``;
        ``current``: the size they were read at, kept when near enough.

        >>> PieceScale(15.0).size_for(12.5, lambda n: n / 640, current=704)  # 13.75 px there: near enough
        704
        """
        def off(n: int) -> float:
            return abs(math.log(max(median_px * scale_at(n), 1e-6) / self.piece_px))

        if current is not None and off(current) <= math.log(self.keep_within):
            return current
        return min(self.sizes, key=off)


class Detector:
    """Loaded weights that turn frames into :class:`Detections`. Make with :meth:`load`."""

    def __init__(self, backend: Any, info: ModelInfo, backend_name: str, conf: float = CONF,
                 iou: float = IOU, faces: Any = None, pieces: Any = None, facing: Any = None,
                 piece_scale: PieceScale | None = None, runner_at: Any = None, mirror: bool = False,
                 stacks: Any = None) -> None:
        self._backend = backend
        self.info = info
        #: each frame is read a second time mirrored left to right and the readings merged
        #: (:func:`merged_with_mirror`)
        self.mirror = bool(mirror)
        #: frames are read at the size their pieces need (``None``: always at ``info.imgsz``)
        self.piece_scale = piece_scale if runner_at is not None else None
        self._runner_at = runner_at  # size -> a runner of the same weights at that size
        self._runners = {info.imgsz: backend}
        self.imgsz = info.imgsz  # the size the last frame was read at
        #: how many frames were read at each size
        self.sizes_used: dict[int, int] = {}
        #: how many times the network ran for the last frame (1; one more when its pieces asked
        #: for another size, one more with :attr:`mirror`)
        self.reads_last_frame = 0
        self._hand = np.array([n == "hand" for n in info.names] + [False])
        self.backend = backend_name
        self.conf = conf
        self.iou = iou
        #: the dice face reader (:class:`vision.dice_faces.FaceReader`) when the model finds
        #: kinds of dice and a reader is saved beside its weights; ``None`` otherwise
        self.faces = faces
        self._names = info.names
        self._to_names: np.ndarray | None = None
        if faces is not None:
            self._index = {n: i for i, n in enumerate(faces.names)}
            # each model class's id among the reported names; -1: a kind of die, read by the reader
            self._to_names = np.array([-1 if n in faces.kinds else self._index.get(n, -2) for n in info.names], int)
            if (self._to_names == -2).any():
                missing = [n for n, i in zip(info.names, self._to_names) if i == -2]
                raise DetectorError(f"{faces.source}: the face reader does not belong to {info.source} "
                                    f"(it does not know {', '.join(missing)})")
            self._names = faces.names
        #: the piece reader (:class:`vision.piece_reader.PieceReader`) that re-reads the
        #: classes of the pieces found, when one is saved beside the weights; ``None`` otherwise
        self.pieces = pieces
        self._read_ids: np.ndarray | None = None
        if pieces is not None:
            unknown = [c for c in pieces.classes if c not in self._names]
            if unknown or tuple(pieces.names) != tuple(self._names):
                raise DetectorError(f"{pieces.source}: the piece reader does not belong to {info.source} "
                                    f"(its classes are not the model's: {', '.join(unknown or pieces.names)})")
            self._read_ids = np.array([self._names.index(c) for c in pieces.classes], int)
            self._id_of_read = dict(zip(pieces.classes, self._read_ids.tolist()))  # per frame: no list search
        #: the stack reader (:class:`vision.stack_reader.StackReader`) that counts the counters of
        #: each stack boxed more than once, when one is saved beside the weights; ``None`` otherwise
        self.stacks = stacks
        #: the facing reader (:class:`vision.facing.FacingReader`) that reads which way each
        #: piece with a front dot faces, when one is saved beside the weights; ``None`` otherwise
        self.facing = facing
        if facing is not None and not info.kpt_shape:
            raise DetectorError(f"{facing.source}: a facing reader needs a model with a front-dot keypoint; "
                                f"{info.source} has none")

    @property
    def names(self) -> tuple[str, ...]:
        """The class names reported (with a face reader: the game's own, die faces included)."""
        return self._names

    def __repr__(self) -> str:
        return f"Detector({self.info.source.name!r}, backend={self.backend!r}, classes={len(self.names)})"

    @classmethod
    def load(cls, game_or_path: str | os.PathLike[str], backend: str = "auto", *, conf: float = CONF,
             iou: float = IOU, imgsz: int | None = None, mirror: bool | None = None) -> Detector:
        """Load the weights shipped for a game (``"oneworld"``) or a weights file.

        ``backend``: ``"auto"``, ``"ultralytics"``, ``"onnx"`` or ``"openvino"`` (see the
        module docstring).
        ``imgsz``: frames are letterboxed to fit this many pixels on their longer side
        (640: a 640x480 frame is used as it is; the shipped models learnt pieces at that
        scale, from 320-pixel tiles of 640x480 renders): each frame is read at that size.
        By default (``None``), weights named after a game follow the game's recipe
        (:func:`models.inference_settings`): a grid game's frames are read at the size their
        pieces need (:class:`PieceScale`, starting at the recipe's size), others at 640.
        ``conf``, ``iou``: the confidence threshold and the overlap at which non-maximum
        suppression drops a box.
        ``mirror``: read each frame a second time mirrored left to right and merge the two
        readings (:func:`merged_with_mirror`: twice the network's time); by default
        (``None``) as the game's recipe says (``inference.mirror``: The Game's), else not.
        """
        import models

        try:  # the recipe's section is checked there
            size, piece_px, reads_mirrored = models.reading_settings(game_or_path)
        except ValueError as err:
            raise DetectorError(str(err)) from None
        mirror = reads_mirrored if mirror is None else bool(mirror)
        if imgsz is None:
            imgsz = size
        else:
            piece_px = None  # a size given: every frame is read at it
        if imgsz % 32 or not 32 <= imgsz <= 4096:
            raise DetectorError(f"imgsz must be a multiple of 32 from 32 to 4096, got {imgsz}")
        if backend not in BACKENDS:
            raise DetectorError(f"unknown backend {backend!r} (use {', '.join(BACKENDS)})")
        weights = resolve_weights(game_or_path)
        scale = PieceScale(piece_px) if piece_px is not None else None
        exported = _exported_backend(backend)
        if weights.suffix == ".onnx":
            if exported is None:
                raise DetectorError(f"{weights}: ONNX weights need backend 'onnx' or 'openvino' (or 'auto'), "
                                    "with onnxruntime or openvino installed")
            runner = _RUNNERS[exported](weights)
            return cls(runner, runner.info, runner.backend, conf, iou, _face_reader(weights, runner.info.names),
                       _piece_reader(weights), _facing_reader(weights), mirror=mirror, stacks=_stack_reader(weights))
        if exported is not None:
            at = _RunnerAt(weights, exported)
            runner = at(imgsz)
            return cls(runner, replace(runner.info, source=weights), runner.backend, conf, iou,
                       _face_reader(weights, runner.info.names), _piece_reader(weights), _facing_reader(weights),
                       scale, at, mirror, _stack_reader(weights))
        runner = _UltralyticsRunner(weights, imgsz)
        return cls(runner, runner.info, "ultralytics", conf, iou, _face_reader(weights, runner.info.names),
                   _piece_reader(weights), _facing_reader(weights), scale, _RunnerAt(weights, None, runner.model),
                   mirror, _stack_reader(weights))

    def prepare(self, progress: Any = None) -> tuple[int, ...]:
        """Make the runners of every size :attr:`piece_scale` may choose, now (an ONNX export
        each the first time, cached; an OpenVINO compile each run) rather than on the first
        frame whose pieces need that size: a live stream must not stall mid-game, for a
        second or, on a fresh install, for an export. ``progress(done, total, size)`` is
        called after each. Returns the sizes made now (none without a piece scale)."""
        if self.piece_scale is None or self._runner_at is None:
            return ()
        todo = tuple(n for n in self.piece_scale.sizes if n not in self._runners)
        for k, size in enumerate(todo):
            self._runners[size] = self._runner_at(size)
            if progress is not None:
                progress(k + 1, len(todo), size)
        return todo

    def detect(self, frame: np.ndarray, read_faces: bool = True) -> Detections:
        """The pieces (and hands) in ``frame``: a BGR ``uint8`` image (as OpenCV reads it).

        ``read_faces``: with a face reader, read the face of each die found (its class the
        face, ``face_confidence`` the reader's); ``False`` leaves each die its kind's name
        (class id -1, no face confidence), for :meth:`read_faces` to read only the dice a
        caller keeps."""
        frame = np.asarray(frame)
        if frame.ndim == 2:
            frame = np.repeat(frame[:, :, None], 3, axis=2)
        if frame.ndim != 3 or frame.shape[2] not in (3, 4) or frame.dtype != np.uint8:
            raise DetectorError(f"expected a BGR uint8 image (H x W x 3), got {frame.dtype} {frame.shape}")
        if frame.shape[2] == 4:
            frame = frame[:, :, :3]
        frame = np.ascontiguousarray(frame)
        found = self._read(frame)
        class_id = found.class_id
        face_conf = None
        dice = np.zeros(0, int)
        if self._to_names is not None and len(class_id):
            class_id = self._to_names[class_id.clip(0, len(self._to_names) - 1)]
            dice = np.flatnonzero(class_id < 0)
            if len(dice) and read_faces:
                faces, sure = self.faces.read(frame, found.xyxy[dice])
                class_id = class_id.copy()
                class_id[dice] = [self._index[f] for f in faces]
                face_conf = np.full(len(class_id), np.nan)
                face_conf[dice] = sure
        if self._read_ids is not None and len(class_id):
            read = np.flatnonzero(np.isin(class_id, self._read_ids))
            if len(read):
                classes, _ = self.pieces.read(frame, found.xyxy[read], [self._names[c] for c in class_id[read]],
                                              confidence=found.confidence[read])
                class_id = class_id.copy()
                class_id[read] = [self._id_of_read[c] for c in classes]
        names = np.array([self._names[c] if 0 <= c < len(self._names) else str(c) for c in class_id], dtype=object)
        if len(dice) and not read_faces:
            names[dice] = [self.info.names[c] for c in found.class_id[dice]]
        facing, facing_conf = found.facing, None
        if self.facing is not None:
            from vision.facing import read_dotted

            facing, facing_conf = read_dotted(self.facing, frame, found.xyxy, found.keypoints, names, facing)
        out = Detections(found.xyxy, found.confidence, class_id, facing, found.keypoints, names, facing_conf,
                         face_conf)
        if self.stacks is not None and len(out) > 1:
            from vision.stack_reader import settled

            counters = (out.confidence >= CONF) & ~self._hand[np.clip(found.class_id, -1, len(self._hand) - 1)]
            counters[dice] = False
            out = out[settled(self.stacks, frame, out.xyxy, out.confidence, counters)]
        return out

    def read_faces(self, frame: np.ndarray, det: Detections) -> Detections:
        """``det`` (this detector's :meth:`detect` of ``frame`` with ``read_faces=False``,
        or some of its boxes) with the face of each die read: its class the face,
        ``face_confidence`` the reader's (NaN for the other boxes). Without a face reader,
        ``det`` as it is."""
        if self.faces is None or not len(det) or det.class_name is None:
            return det
        dice = np.flatnonzero([n in self.faces.kinds for n in det.class_name])
        if not len(dice):
            return det
        faces, sure = self.faces.read(np.asarray(frame), det.xyxy[dice])
        class_id = np.asarray(det.class_id, int).copy()
        class_id[dice] = [self._index[f] for f in faces]
        names = np.asarray(det.class_name, object).copy()
        names[dice] = faces
        face_conf = (np.full(len(det), np.nan) if det.face_confidence is None
                     else np.asarray(det.face_confidence, float).copy())
        face_conf[dice] = sure
        return Detections(det.xyxy, det.confidence, class_id, det.facing, det.keypoints, names,
                          det.facing_confidence, face_conf)


    def _read(self, frame: np.ndarray) -> Detections:
        """The network's boxes in ``frame``, read at the size its pieces need when
        :attr:`piece_scale` is set: at the size the last frame was read at, then once more at
        another when the pieces found there say so."""
        found = self._backend.run(frame, self.conf, self.iou)
        self.reads_last_frame = 1
        if self.piece_scale is not None:
            sure = (found.confidence >= CONF) & ~self._hand[np.clip(found.class_id, -1, len(self._hand) - 1)]
            if sure.any():
                b = found.xyxy[sure]
                median = float(np.median(np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))
                h, w = frame.shape[:2]
                size = self.piece_scale.size_for(median, lambda n: self._runner_at.scale(n, h, w), self.imgsz)
                if size != self.imgsz:
                    if size not in self._runners:
                        self._runners[size] = self._runner_at(size)
                    self._backend, self.imgsz = self._runners[size], size
                    found = self._backend.run(frame, self.conf, self.iou)
                    self.reads_last_frame = 2
        self.sizes_used[self.imgsz] = self.sizes_used.get(self.imgsz, 0) + 1
        if self.mirror:
            mirrored = self._backend.run(np.ascontiguousarray(frame[:, ::-1]), self.conf, self.iou)
            self.reads_last_frame += 1
            found = merged_with_mirror(found, mirrored, frame.shape[1])
        return found


#: :func:`merged_with_mirror`: a box of the mirrored reading overlapping one of the plain
#: reading's by at least this much (intersection over union), the same class, is the same
#: piece (the two boxes are averaged) ...
SAME_PIECE_IOU = 0.6
#: ... unless that plain box overlaps another of the plain reading by this much or more: in
#: a crowd of boxes, which mirrored box is which is unsure, and the plain box stays as it is.
CROWDED_IOU = 0.1
#: A mirrored box overlapping every box of the plain reading by less than this is a piece
#: the plain reading missed: it is added when at least :data:`NEW_PIECE_CONF` sure (one
#: reading alone is weaker evidence than two). One in between is left out.
NEW_PIECE_IOU = 0.3
NEW_PIECE_CONF = 0.5


def merged_with_mirror(found: Detections, mirrored: Detections, width: int) -> Detections:
    """One reading of a frame from the network's boxes on it (``found``) and on the frame
    mirrored left to right (``mirrored``, ``width`` pixels wide). The mirrored boxes and
    keypoints are turned back; a box of ``found`` that the mirrored reading also has (the
    same class, :data:`SAME_PIECE_IOU`), unless it is in a crowd (:data:`CROWDED_IOU`),
    becomes the two boxes' and keypoints' mean weighted by their confidences, keeping
    ``found``'s confidence; a mirrored box clear of every box of ``found``
    (:data:`NEW_PIECE_IOU`) and sure enough (:data:`NEW_PIECE_CONF`) is added.

    The detector learnt pieces mirrored as well, and two readings of one piece average out
    part of each box's error: on The Game's outdoor frames (benchmarks/outdoor.py, seed
    2026, 300 frames) the distances edge to edge went from 0.103" / 0.503" to 0.100" /
    0.492" (median / p95) and the centres' p95 from 0.265" to 0.263". Adding every mirrored
    box clear of the others, however unsure, found half a point more pieces there (96.0 ->
    96.5 %) but put a phantom piece into a live turn; averaging boxes in a crowd read one
    live move wrong (docs/benchmarks.md, "The Game outdoors").

    >>> a = Detections(np.array([[10., 10, 20, 20]]), np.array([0.9]), np.array([0]))
    >>> m = Detections(np.array([[78., 10, 90, 20], [10, 40, 20, 50], [0, 0, 5, 5]]), np.array([0.9, 0.5, 0.3]),
    ...                np.array([0, 1, 1]))
    >>> out = merged_with_mirror(a, m, 100)  # the third mirrored box, alone and unsure, is left out
    >>> out.xyxy.round(3).tolist(), out.confidence.tolist(), out.class_id.tolist()
    ([[10.0, 10.0, 21.0, 20.0], [80.0, 40.0, 90.0, 50.0]], [0.9, 0.5], [0, 1])
    """
    if not len(mirrored):
        return found
    xyxy = mirrored.xyxy.astype(float).copy()
    xyxy[:, [0, 2]] = width - mirrored.xyxy[:, [2, 0]]
    kp = None
    if mirrored.keypoints is not None:
        kp = mirrored.keypoints.astype(float).copy()
        kp[:, :, 0] = width - kp[:, :, 0]
    overlap = box_iou(found.xyxy, xyxy)
    boxes = found.xyxy.astype(float).copy()
    keypoints = None if found.keypoints is None else found.keypoints.astype(float).copy()
    if keypoints is None and not len(found) and kp is not None:  # nothing found plainly: no keypoints to keep
        keypoints = np.zeros((0, *kp.shape[1:]))
    if len(found):
        best = overlap.argmax(axis=1)
        crowd = box_iou(found.xyxy, found.xyxy)
        np.fill_diagonal(crowd, 0.0)
        alone = crowd.max(axis=1) < CROWDED_IOU  # among overlapping boxes, which is which is unsure
        same = alone & (overlap[np.arange(len(found)), best] >= SAME_PIECE_IOU) & \
            (mirrored.class_id[best] == found.class_id)
        if same.any():
            j = best[same]
            wa, wb = found.confidence[same][:, None], mirrored.confidence[j][:, None]
            boxes[same] = (boxes[same] * wa + xyxy[j] * wb) / (wa + wb)
            if keypoints is not None and kp is not None:
                keypoints[same] = (keypoints[same] * wa[:, :, None] + kp[j] * wb[:, :, None]) / (wa + wb)[:, :, None]
    clear = overlap.max(axis=0, initial=0.0) < NEW_PIECE_IOU
    new = clear & (mirrored.confidence >= NEW_PIECE_CONF)
    boxes = np.concatenate([boxes, xyxy[new]])
    if keypoints is not None and kp is not None:
        keypoints = np.concatenate([keypoints, kp[new]])
    else:
        keypoints = None
    return Detections(boxes, np.concatenate([found.confidence, mirrored.confidence[new]]),
                      np.concatenate([found.class_id, mirrored.class_id[new]]),
                      None if keypoints is None else facing_from_keypoints(boxes, keypoints), keypoints)


def _exported_backend(backend: str) -> str | None:
    """The backend that runs an ONNX export for ``backend`` (``"onnx"`` or ``"openvino"``), or
    ``None`` for ultralytics; a backend asked for by name must be installed."""
    if backend == "ultralytics":
        return None
    needs = {"onnx": ("onnxruntime",), "openvino": ("openvino",)}
    for name in (backend,) if backend != "auto" else ("openvino", "onnx"):
        try:
            import onnx  # noqa: F401 - the export needs it
            for module in needs[name]:
                __import__(module)
        except ImportError:
            if backend != "auto":
                raise DetectorError(f"backend {backend!r} needs {' and '.join(needs[name])} and onnx: "
                                    f"pip install {' '.join(needs[name])} onnx") from None
            continue
        return name
    return None


class _RunnerAt:
    """Runners of one model's weights at any size (made on demand): ``exported`` (``"onnx"``
    or ``"openvino"``) on an ONNX export for that input, or (``None``) ultralytics at that
    ``imgsz``; ``scale``: how a frame is scaled there."""

    def __init__(self, weights: Path, exported: str | None, model: Any = None) -> None:
        self.weights, self.exported, self.model = weights, exported, model

    def __call__(self, size: int) -> Any:
        if self.exported is not None:
            return _RUNNERS[self.exported](onnx_export(self.weights, _onnx_input(size)))
        return _UltralyticsRunner(self.weights, size, self.model)

    def scale(self, size: int, h: int, w: int) -> float:
        """Network pixels per frame pixel when a ``h`` x ``w`` frame is read at ``size``."""
        if self.exported is not None:
            th, tw = _onnx_input(size)
            return min(th / h, tw / w)
        return size / max(h, w)


def _onnx_input(size: int) -> tuple[int, int]:
    """The ONNX input (height, width) for frames read at ``size``: 4:3, as cameras give them."""
    return size * 3 // 4 // 32 * 32, size


def _face_reader(weights: Path, model_names: tuple[str, ...]) -> Any:
    """The dice face reader saved beside ``weights``, when the model finds kinds of dice."""
    from vision.dice_faces import FaceReader, FaceReaderError, faces_path, is_die_kind

    if not any(is_die_kind(n) for n in model_names):
        return None
    path = faces_path(weights)
    if not path.is_file():
        warnings.warn(f"{weights} finds dice but no face reader is beside it ({path.name}): "
                      "dice are reported by kind only", stacklevel=3)
        return None
    try:
        return FaceReader.load(path)
    except FaceReaderError as err:
        raise DetectorError(str(err)) from None


def _piece_reader(weights: Path) -> Any:
    """The piece reader saved beside ``weights``, if any."""
    from vision.piece_reader import PieceReader, PieceReaderError, pieces_path

    return _reader_beside(pieces_path(weights), PieceReader.load, PieceReaderError)


def _stack_reader(weights: Path) -> Any:
    """The stack reader saved beside ``weights``, if any."""
    from vision.stack_reader import StackReader, StackReaderError, stacks_path

    return _reader_beside(stacks_path(weights), StackReader.load, StackReaderError)


def _facing_reader(weights: Path) -> Any:
    """The facing reader saved beside ``weights``, if any."""
    from vision.facing import FacingReader, FacingReaderError, facing_path

    return _reader_beside(facing_path(weights), FacingReader.load, FacingReaderError)


def _reader_beside(path: Path, load: Any, error: type[Exception]) -> Any:
    """The reader at ``path`` (``None`` when there is none); one that cannot be loaded is a
    :class:`DetectorError`."""
    if not path.is_file():
        return None
    try:
        return load(path)
    except error as err:
        raise DetectorError(str(err)) from None


class _UltralyticsRunner:
    def __init__(self, weights: Path, imgsz: int, model: Any = None) -> None:
        ul = ultralytics_module()
        try:
            self.model = model if model is not None else ul.YOLO(str(weights))
        except Exception as err:  # noqa: BLE001 - a corrupt or foreign file
            raise DetectorError(f"{weights}: cannot load these weights: {type(err).__name__}: {err}") from None
        names = self.model.names
        kpt = getattr(self.model.model, "kpt_shape", None)
        self.imgsz = imgsz
        self.info = ModelInfo(Path(weights), tuple(names[i] for i in range(len(names))), self.model.task,
                              self.imgsz, tuple(kpt) if kpt else None)

    def run(self, frame: np.ndarray, conf: float, iou: float) -> Detections:
        result = self.model.predict(frame, imgsz=self.imgsz, conf=conf, iou=iou, max_det=MAX_DET, verbose=False,
                                    device="cpu")[0]
        return Detections.from_ultralytics(result)


def letterbox(frame: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, float, int, int]:
    """``frame`` scaled to fit ``shape`` (height, width) and centred on grey (114), as
    ultralytics letterboxes; returns the canvas, the scale, and the top and left padding. A
    frame made smaller is averaged over each pixel's area (``INTER_AREA``), not sampled: a
    1280-pixel camera frame read at 640 then looks as the detector's 640-pixel training
    renders do, instead of aliased (When Gods Collide's held-out boards at 1280x960: 95.0 %
    fully right against 93.5 %; at 640x480, the four grid games' held-out figures moved by a
    frame at most). One made larger is interpolated.

    >>> canvas, r, top, left = letterbox(np.zeros((480, 640, 3), np.uint8), (640, 640))
    >>> canvas.shape, r, top, left
    ((640, 640, 3), 1.0, 80, 0)
    """
    import cv2

    h, w = frame.shape[:2]
    th, tw = shape
    r = min(th / h, tw / w)
    nh, nw = round(h * r), round(w * r)
    top, left = round((th - nh) / 2 - 0.1), round((tw - nw) / 2 - 0.1)
    if (nh, nw) == (h, w):
        img = frame
    else:
        img = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    canvas = np.full((th, tw, 3), 114, np.uint8)
    canvas[top:top + nh, left:left + nw] = img
    return canvas, r, top, left


class _OnnxRunner:
    """ONNX Runtime on an ultralytics export: letterbox, run, decode, NMS."""

    backend = "onnx"

    def __init__(self, path: Path) -> None:
        meta, self.shape = self._open(path)  # shape: the input's height, width
        names = _parse_names(meta.get("names", "{}"))
        kpt = _parse_tuple(meta.get("kpt_shape"))
        task = meta.get("task", "pose" if kpt else "detect")
        self.kpt_shape = kpt if task == "pose" else None
        self.info = ModelInfo(Path(path), names, task, max(self.shape), self.kpt_shape)

    def _open(self, path: Path) -> tuple[dict[str, str], tuple[int, int]]:
        """Load the network; its metadata (names, task, keypoints) and input height, width."""
        try:
            self.session = _onnx_session(str(path))
        except Exception as err:  # noqa: BLE001 - onnxruntime's own error types
            raise DetectorError(f"{path}: cannot load this ONNX model: {err}") from None
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        return dict(self.session.get_modelmeta().custom_metadata_map), (int(inp.shape[2]), int(inp.shape[3]))

    def _infer(self, canvas: np.ndarray) -> np.ndarray:
        """The network's output for one letterboxed BGR ``uint8`` frame (height x width x 3):
        (4 + classes [+ K*3]) x anchors."""
        blob = np.ascontiguousarray(canvas[:, :, ::-1].transpose(2, 0, 1)[None], dtype=np.float32)
        blob *= 1 / 255
        return self.session.run(None, {self.input_name: blob})[0][0]

    def run(self, frame: np.ndarray, conf: float, iou: float) -> Detections:
        h, w = frame.shape[:2]
        canvas, r, top, left = letterbox(frame, self.shape)
        out = self._infer(canvas)  # (4 + nc [+ K*3], A)
        nc = len(self.info.names)
        scores = out[4:4 + nc]
        cls = scores.argmax(axis=0)
        best = scores[cls, np.arange(scores.shape[1])]
        keep = best > conf
        if not keep.any():
            return Detections.empty()
        box, best, cls = out[:4, keep].T, best[keep], cls[keep]
        xyxy = np.stack([box[:, 0] - box[:, 2] / 2, box[:, 1] - box[:, 3] / 2,
                         box[:, 0] + box[:, 2] / 2, box[:, 1] + box[:, 3] / 2], axis=1)
        order = _nms(xyxy, best, cls, iou)[:MAX_DET]
        xyxy, best, cls = xyxy[order], best[order], cls[order]
        xyxy[:, [0, 2]] = ((xyxy[:, [0, 2]] - left) / r).clip(0, w)
        xyxy[:, [1, 3]] = ((xyxy[:, [1, 3]] - top) / r).clip(0, h)
        keypoints = facing = None
        if self.kpt_shape:
            k, d = self.kpt_shape
            kp = out[4 + nc:4 + nc + k * d, keep].T[order].reshape(-1, k, d).astype(float)
            kp[:, :, 0] = ((kp[:, :, 0] - left) / r).clip(0, w)  # clipped to the frame, as ultralytics does
            kp[:, :, 1] = ((kp[:, :, 1] - top) / r).clip(0, h)
            if d == 2:
                kp = np.concatenate([kp, np.ones(kp.shape[:2] + (1,))], axis=2)
            keypoints = kp
            facing = facing_from_keypoints(xyxy.astype(float), keypoints)
        return Detections(xyxy.astype(float), best.astype(float), cls.astype(int), facing, keypoints)


def _nms(xyxy: np.ndarray, scores: np.ndarray, cls: np.ndarray, iou: float) -> np.ndarray:
    """Class-aware non-maximum suppression (boxes of different classes never suppress
    each other, as in ultralytics); indices by falling score."""
    import cv2

    offset = cls.astype(np.float32)[:, None] * 7680.0  # ultralytics' max_wh: separate classes
    b = xyxy.astype(np.float32) + offset
    rects = np.stack([b[:, 0], b[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], axis=1)
    idx = cv2.dnn.NMSBoxes(rects.tolist(), scores.astype(np.float32).tolist(), 0.0, float(iou))
    idx = np.asarray(idx, dtype=int).reshape(-1)
    return idx[np.argsort(-scores[idx], kind="stable")]


def _parse_names(text: str) -> tuple[str, ...]:
    import ast

    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ()
    if isinstance(names, dict):
        return tuple(str(names[i]) for i in sorted(names))
    return tuple(str(n) for n in names)


def _parse_tuple(text: str | None) -> tuple[int, ...] | None:
    import ast

    if not text:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int):
        return (value, value)
    return tuple(int(v) for v in value)


class _OpenVinoRunner(_OnnxRunner):
    """OpenVINO's CPU runtime on the same ONNX export; the work around the network is
    :class:`_OnnxRunner`'s, but for the input's conversion: the letterboxed BGR ``uint8``
    frame goes in as it is, and the network's first steps (to RGB, to floats, divided by 255)
    are OpenVINO's, compiled with the rest, which spares a copy of the frame in 32-bit floats
    in numpy (about 8 ms of a 832-pixel read). Its precision is the runtime's default:
    bfloat16 on CPUs with bfloat16 instructions, 32-bit floats elsewhere."""

    backend = "openvino"

    def _open(self, path: Path) -> tuple[dict[str, str], tuple[int, int]]:
        core = _openvino_core()
        try:
            model = core.read_model(str(path))
            # the ONNX file's metadata, as OpenVINO keeps it
            meta = {key: model.get_rt_info(["framework", key]).astype(str) for key in ("names", "kpt_shape", "task")
                    if model.has_rt_info(["framework", key])}
            shape = model.inputs[0].get_shape()
            compiled = _openvino_compiled(_uint8_bgr_input(model))
        except Exception as err:  # noqa: BLE001 - openvino's own error types
            raise DetectorError(f"{path}: cannot load this ONNX model: {err}") from None
        self.request = compiled.create_infer_request()
        return meta, (int(shape[2]), int(shape[3]))

    def _infer(self, canvas: np.ndarray) -> np.ndarray:
        self.request.infer({0: canvas[None]})
        return self.request.get_output_tensor(0).data[0].copy()  # the request's buffer is reused


_RUNNERS = {"onnx": _OnnxRunner, "openvino": _OpenVinoRunner}


def _uint8_bgr_input(model: Any) -> Any:
    """``model`` (an ``openvino.Model`` whose input is RGB floats from 0 to 1, batch x
    channels x height x width, as ultralytics exports it) taking a BGR ``uint8`` image
    (batch x height x width x channels) instead, converted inside the network."""
    from openvino import Layout, Type
    from openvino.preprocess import ColorFormat, PrePostProcessor

    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(Type.u8).set_layout(Layout("NHWC")).set_color_format(ColorFormat.BGR)
    ppp.input().model().set_layout(Layout("NCHW"))
    ppp.input().preprocess().convert_element_type(Type.f32).convert_color(ColorFormat.RGB).scale(255.0)
    return ppp.build()


def _threads() -> int:
    """Threads for one network: every core, at most 8."""
    return max(1, min(os.cpu_count() or 1, 8))


def _onnx_session(model: str | bytes) -> Any:
    """An ONNX Runtime session on ``model`` (a path or the bytes of an ONNX file), on every
    core without busy-waiting threads: on a small shared CPU they cost more than they save."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.intra_op_num_threads = _threads()
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def _openvino_compiled(model: Any) -> Any:
    """``model`` (an ``openvino.Model``) compiled for the CPU, for one frame at a time on every core."""
    return _openvino_core().compile_model(model, "CPU", {"PERFORMANCE_HINT": "LATENCY",
                                                         "INFERENCE_NUM_THREADS": _threads()})


@lru_cache(maxsize=1)
def _openvino_core() -> Any:
    """One OpenVINO runtime for every model (made on first use)."""
    import openvino

    return openvino.Core()

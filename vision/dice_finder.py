"""Ordinary d6 dice found beside any game's pieces: the d6 finder (``models/d6.pt``).

OneWorld, Battle Grounds and The Game throw ordinary six-sided dice, which their detectors
do not know. The d6 finder, trained on renders of many kinds of die
(:mod:`vision.render.dice_scene`), reads them in the same frame: its detector boxes each die
(one class, ``d6``, whatever its face, when its recipe says ``train.dice_kinds``; else a class
per face) and a face reader reads the pips of the top face. :func:`with_dice` runs it after a
game's detector and adds its dice (classes ``d6-1`` .. ``d6-6``) to the game's detections, where the live referee reads a throw from them
(:func:`tabletop.live.rolls.thrown_d6`). A die is added only when the finder is at least
:data:`DICE_CONF` sure of it and its box does not overlap a piece the game's detector found
(:data:`ON_PIECE_IOU`): a square counter with a mark is no die. A die on boxes the game's
detector is unsure of, the finder sure of it and of its face, is a die that detector took for
a piece: it is kept and those boxes dropped (:func:`over_pieces`). The faces are read of the
dice kept (or that may win so) alone.

>>> found = Detections(np.array([[0., 0, 10, 10]]), np.array([0.9]), np.array([0]), class_name=np.array(["blade"], object))
>>> dice = Detections(np.array([[2., 2, 9, 9], [40, 40, 50, 50], [60, 60, 70, 70]]), np.array([0.9, 0.8, 0.2]),
...                   np.array([2, 4, 0]), class_name=np.array(["d6-3", "d6-5", "d6-1"], object))
>>> added(found, dice).class_name.tolist()  # one on the counter, one too unsure: left out
['blade', 'd6-5']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vision.detections import Detections, box_iou

__all__ = ["DICE_CONF", "MARKER_GROW", "ON_PIECE_IOU", "OVER_PIECE_CONF", "OVER_PIECE_FACE", "SAME_DIE_IOU",
           "UNSURE_PIECE", "DiceFinder", "added", "clear_of", "load_finder", "on_markers", "one_box_per_die",
           "over_pieces", "with_dice"]

#: The finder's confidence a die needs to be added (the referee takes a throw from them).
DICE_CONF = 0.3
#: A die box overlapping a piece box of the game's detector by this much (intersection over
#: union) or more is left out.
ON_PIECE_IOU = 0.1


#: A die the finder is at least this sure of (and of its face, :data:`OVER_PIECE_FACE`) over
#: boxes of the game's detector each less sure than :data:`UNSURE_PIECE` is a die the game's
#: detector took for a piece: the die is kept and those boxes dropped.
OVER_PIECE_CONF = 0.6
#: ... the face reader's confidence it needs (the referee's own for a throw).
OVER_PIECE_FACE = 0.9
#: ... and below this the game's detector's confidence in each box under it.
UNSURE_PIECE = 0.5


def clear_of(found: Detections | None, dice: Detections, conf: float = DICE_CONF, contested: bool = False
             ) -> np.ndarray:
    """Which boxes of ``dice`` are at least ``conf`` sure and clear of every box of ``found``
    (overlapping none by :data:`ON_PIECE_IOU`); with ``contested``, also those that lie on
    boxes of ``found`` only that a die might win (:func:`over_pieces`, whose face then decides)."""
    keep = np.asarray(dice.confidence) >= conf
    if found is not None and len(found) and keep.any():
        overlap = box_iou(dice.xyxy, found.xyxy) >= ON_PIECE_IOU
        clear = ~overlap.any(axis=1)
        if contested:
            clear |= _may_win(found, dice, overlap)
        keep &= clear
    return keep


def _may_win(found: Detections, dice: Detections, overlap: np.ndarray) -> np.ndarray:
    """Which dice lie on boxes of ``found`` (``overlap``: dice x found) each less sure than
    :data:`UNSURE_PIECE`, being :data:`OVER_PIECE_CONF` sure themselves (a hand's box never
    gives way)."""
    unsure = np.asarray(found.confidence) < UNSURE_PIECE
    if found.class_name is not None:
        unsure &= np.asarray(found.class_name, object) != "hand"
    return overlap.any(axis=1) & ~(overlap & ~unsure[None, :]).any(axis=1) & \
        (np.asarray(dice.confidence) >= OVER_PIECE_CONF)


def over_pieces(found: Detections, dice: Detections) -> tuple[np.ndarray, np.ndarray]:
    """The dice of ``dice`` that lie on boxes of ``found`` (by :data:`ON_PIECE_IOU`) each less
    sure than :data:`UNSURE_PIECE`, themselves at least :data:`OVER_PIECE_CONF` sure with a face
    read :data:`OVER_PIECE_FACE` surely: a die the game's detector took for a piece (the
    finder sure of a die and of its face, the game's detector unsure of its piece). Returns
    which dice win so, and which boxes of ``found`` lie under them.

    >>> found = Detections(np.array([[0., 0, 10, 10], [40, 40, 50, 50]]), np.array([0.3, 0.9]), np.array([0, 0]))
    >>> dice = Detections(np.array([[1., 1, 10, 10], [41, 41, 50, 50]]), np.array([0.8, 0.8]), np.array([0, 0]),
    ...                   face_confidence=np.array([0.95, 0.99]))
    >>> [m.tolist() for m in over_pieces(found, dice)]  # the second piece too sure to give way
    [[True, False], [True, False]]
    """
    if not len(found) or not len(dice) or dice.face_confidence is None:
        return np.zeros(len(dice), bool), np.zeros(len(found), bool)
    overlap = box_iou(dice.xyxy, found.xyxy) >= ON_PIECE_IOU
    wins = _may_win(found, dice, overlap) & (np.nan_to_num(np.asarray(dice.face_confidence, float)) >= OVER_PIECE_FACE)
    return wins, overlap[wins].any(axis=0)


#: A box whose centre lies within a kit's marker grown this many times about its centre is
#: the marker (a black square with white marks, as a die's face is), never a die.
MARKER_GROW = 1.5


def on_markers(xyxy: np.ndarray, markers: Sequence[np.ndarray], grow: float = MARKER_GROW) -> np.ndarray:
    """Which boxes ``xyxy`` (N x 4) have their centre within one of ``markers`` (each the
    4 x 2 image corners of a printed marker, in order round it) grown ``grow`` times about
    its centre.

    >>> square = np.array([[10., 10], [20, 10], [20, 20], [10, 20]])
    >>> on_markers(np.array([[12., 12, 18, 18], [18, 18, 24, 24], [30, 30, 40, 40]]), [square]).tolist()
    [True, True, False]
    """
    boxes = np.asarray(xyxy, float).reshape(-1, 4)
    inside = np.zeros(len(boxes), bool)
    if not len(boxes):
        return inside
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    for quad in markers:
        q = np.asarray(quad, float).reshape(-1, 2)
        if not np.isfinite(q).all():
            continue
        q = q.mean(axis=0) + grow * (q - q.mean(axis=0))
        edges = np.roll(q, -1, axis=0) - q
        to = centres[:, None, :] - q[None, :, :]
        cross = edges[None, :, 0] * to[:, :, 1] - edges[None, :, 1] * to[:, :, 0]
        inside |= (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
    return inside


def added(found: Detections, dice: Detections, conf: float = DICE_CONF) -> Detections:
    """``found`` (a game detector's detections, with class names) and the dice of ``dice``
    (the finder's) sure enough and clear of every box of ``found``; the columns ``found``
    has (keypoints, facings) are filled in for the dice as unread. The face confidences are
    the finder's for its dice (NaN for the boxes of ``found`` its detector's reader did not
    read), so that a die read unsurely still keeps the frame's dice from counting."""
    wins, _ = over_pieces(found, dice)
    wins &= np.asarray(dice.confidence) >= conf  # a die not added leaves the piece under it
    d = dice[clear_of(found, dice, conf) | wins]
    if not len(d):
        return found
    if wins.any():
        found = found[~(box_iou(dice.xyxy[wins], found.xyxy) >= ON_PIECE_IOU).any(axis=0)]
    n = len(d)
    names = d.class_name if d.class_name is not None else np.array([f"d6-{int(c) + 1}" for c in d.class_id], object)
    old_names = found.class_name if found.class_name is not None else np.array([str(c) for c in found.class_id], object)

    def column(a: np.ndarray | None, fill: float) -> np.ndarray | None:
        return None if a is None else np.concatenate([np.asarray(a, float), np.full(n, fill)])

    faces = None
    if found.face_confidence is not None or d.face_confidence is not None:
        faces = np.concatenate([np.full(len(found), np.nan) if found.face_confidence is None
                                else np.asarray(found.face_confidence, float),
                                np.full(n, np.nan) if d.face_confidence is None else np.asarray(d.face_confidence, float)])
    keypoints = None
    if found.keypoints is not None:
        keypoints = np.concatenate([found.keypoints, np.zeros((n, *found.keypoints.shape[1:]))])
    return Detections(
        np.concatenate([found.xyxy, d.xyxy]),
        np.concatenate([found.confidence, d.confidence]),
        np.concatenate([np.asarray(found.class_id, int), np.full(n, -1)]),
        column(found.facing, np.nan),
        keypoints,
        np.concatenate([old_names, names]),
        column(found.facing_confidence, np.nan),
        faces,
    )


#: Two of the finder's boxes overlapping this much (intersection over union) are one die:
#: the surer stays (the network suppresses overlaps within a class only).
SAME_DIE_IOU = 0.5


def one_box_per_die(det: Detections) -> Detections:
    """``det`` with, of boxes overlapping by :data:`SAME_DIE_IOU` or more whatever their
    class, the surest alone.

    >>> d = Detections(np.array([[0., 0, 10, 10], [1, 0, 11, 10], [30, 30, 40, 40]]), np.array([0.4, 0.6, 0.5]),
    ...                np.array([1, 3, 0]))
    >>> one_box_per_die(d).class_id.tolist()
    [3, 0]
    """
    if len(det) < 2:
        return det
    order = np.argsort(-np.asarray(det.confidence), kind="stable")
    overlap = box_iou(det.xyxy, det.xyxy)
    kept: list[int] = []
    for i in order:
        if all(overlap[i, j] < SAME_DIE_IOU for j in kept):
            kept.append(int(i))
    return det[np.array(sorted(kept, key=lambda i: -det.confidence[i]), int)]


class DiceFinder:
    """The d6 finder: its detector's dice (:func:`one_box_per_die`), each face read again by
    the face reader shipped beside it (``d6.faces.pt``, :class:`vision.dice_faces.FaceReader`)
    when there is one: the names are the reader's faces, ``face_confidence`` its confidence
    (the live referee counts a die only when that is sure, :data:`tabletop.live.board.SURE_FACE`)."""

    def __init__(self, detector: Any, faces: Any = None) -> None:
        self.detector = detector
        # a detector that finds a die whatever its face (one class, ``d6``) reads the faces
        # with the same reader already (``Detector.faces``): not read twice
        self.faces = None if getattr(detector, "faces", None) is not None else faces
        self._ids = {name: k for k, name in enumerate(detector.names)}

    @property
    def face_reader(self) -> Any:
        """The face reader that reads the dice's faces (the finder's own, or its detector's
        when the detector finds a die whatever its face), or ``None``."""
        return self.faces if self.faces is not None else getattr(self.detector, "faces", None)

    @classmethod
    def load(cls, weights: str = "d6", backend: str = "auto") -> DiceFinder:
        """The finder of ``weights`` (the shipped ``d6``, or a weights file), with the face
        reader beside it when there is one."""
        from vision.detect import Detector, resolve_weights
        from vision.dice_faces import FaceReader, faces_path

        path = faces_path(resolve_weights(weights))
        detector = Detector.load(weights, backend)
        reads = detector.faces is None and path.is_file()
        return cls(detector, FaceReader.load(path) if reads else None)

    def detect(self, frame: np.ndarray, pieces: Detections | None = None, conf: float = 0.0) -> Detections:
        """The dice in ``frame``, one box a die; with ``pieces`` (a game detector's reading
        of the same frame) or ``conf``, only those :func:`clear_of` them, whose faces alone
        are read (a box on a game's piece is no die, and its face is not read)."""
        own = getattr(self.detector, "faces", None) is not None
        d = one_box_per_die(self.detector.detect(frame, read_faces=False) if own else self.detector.detect(frame))
        if pieces is not None or conf > 0:
            d = d[clear_of(pieces, d, conf, contested=True)]
        if own:
            return self.detector.read_faces(frame, d)
        if self.faces is None or not len(d):
            return d
        faces, sure = self.faces.read(frame, d.xyxy)
        return Detections(d.xyxy, d.confidence, np.array([self._ids.get(f, -1) for f in faces], int),
                          class_name=np.array(faces, object), face_confidence=np.asarray(sure, float))


def load_finder(backend: str = "auto") -> DiceFinder | None:
    """The shipped d6 finder, or ``None`` when ``models/d6.pt`` is not shipped."""
    import models

    try:
        models.weights_path(models.DICE_FINDER)
    except models.ModelNotFoundError:
        return None
    return DiceFinder.load(models.DICE_FINDER, backend)


def with_dice(detect: Callable[[np.ndarray], Detections], finder: Any,
              conf: float = DICE_CONF) -> Callable[[np.ndarray], Detections]:
    """``detect`` followed by the d6 finder on the same frame, its dice :func:`added`."""
    def both(frame: np.ndarray) -> Detections:
        found = detect(frame)
        return added(found, finder.detect(frame, found, conf), conf)

    return both

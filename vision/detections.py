"""A column-oriented container for detections: one array per field, checked shapes.

Optional columns: ``facing`` (degrees), ``keypoints`` (N x K x 3: x, y, visibility or
confidence), ``class_name`` (the model's name of each box's class), ``facing_confidence``
(a facing reader's confidence in each facing it read) and ``face_confidence`` (a dice face
reader's confidence in each die's face it read).
:meth:`Detections.from_ultralytics` converts an ultralytics result once, at the boundary.

>>> import numpy as np
>>> d = Detections(xyxy=np.array([[0, 0, 10, 10], [5, 5, 9, 9]], float),
...                confidence=np.array([0.9, 0.4]), class_id=np.array([0, 1]))
>>> len(d[d.confidence > 0.5])
1
>>> d.anchors("bottom_center").tolist()
[[5.0, 10.0], [7.0, 9.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Detections", "box_iou", "facing_from_keypoints"]


@dataclass(frozen=True)
class Detections:
    """Boxes (x1, y1, x2, y2 in pixels), confidences and class ids; optionally facings in
    degrees, keypoints (N x K x 3) and class names.

    ``facing`` from a detector is in the image: degrees counter-clockwise from the image's
    +x axis with up at 90 (the way the field's facings turn), from the box centre towards
    the front-dot keypoint; the mapper turns it into the field's frame. Where a facing
    reader (:mod:`vision.facing`) read a box's facing from its pixels, ``facing_confidence``
    is finite for it and its ``facing`` is the reader's (the direction at the box's centre);
    ``None`` or NaN: the keypoint's direction. ``face_confidence``: where a dice face reader
    (:mod:`vision.dice_faces`) read a die's face, its confidence in that face (NaN for the
    other boxes).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    facing: np.ndarray | None = field(default=None)
    keypoints: np.ndarray | None = field(default=None)
    class_name: np.ndarray | None = field(default=None)
    facing_confidence: np.ndarray | None = field(default=None)
    face_confidence: np.ndarray | None = field(default=None)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.ndim != 2 or self.xyxy.shape[1] != 4:
            raise ValueError(f"xyxy must be N x 4, got {self.xyxy.shape}")
        for name in ("confidence", "class_id", "facing", "class_name", "facing_confidence", "face_confidence"):
            value = getattr(self, name)
            if value is not None and value.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {value.shape}")
        k = self.keypoints
        if k is not None and (k.ndim != 3 or k.shape[0] != n or k.shape[2] != 3):
            raise ValueError(f"keypoints must be N x K x 3 with N = {n}, got {k.shape}")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=int))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: np.ndarray | slice | int) -> Detections:
        if isinstance(index, int):
            index = slice(index, index + 1)
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            self.class_id[index],
            None if self.facing is None else self.facing[index],
            None if self.keypoints is None else self.keypoints[index],
            None if self.class_name is None else self.class_name[index],
            None if self.facing_confidence is None else self.facing_confidence[index],
            None if self.face_confidence is None else self.face_confidence[index],
        )

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """One ultralytics ``Results`` (of ``YOLO(...).predict``) as numpy columns: boxes,
        confidences, class ids and names, and for pose models the keypoints and the facing
        from each box's centre to its first keypoint (see :func:`facing_from_keypoints`)."""
        boxes = getattr(result, "boxes", None)
        if boxes is None or len(boxes) == 0:
            return cls.empty()
        xyxy = _numpy(boxes.xyxy).astype(float).reshape(-1, 4)
        conf = _numpy(boxes.conf).astype(float).reshape(-1)
        class_id = _numpy(boxes.cls).astype(int).reshape(-1)
        names = getattr(result, "names", None) or {}
        class_name = np.array([str(names.get(int(c), c)) for c in class_id], dtype=object)
        keypoints = facing = None
        kp = getattr(result, "keypoints", None)
        if kp is not None and getattr(kp, "data", None) is not None and len(kp.data) == len(xyxy):
            keypoints = _numpy(kp.data).astype(float)
            if keypoints.shape[-1] == 2:  # no visibility column: treat every point as seen
                keypoints = np.concatenate([keypoints, np.ones(keypoints.shape[:2] + (1,))], axis=2)
            facing = facing_from_keypoints(xyxy, keypoints)
        return cls(xyxy, conf, class_id, facing, keypoints, class_name)

    def read_facings(self) -> np.ndarray | None:
        """The facings a facing reader read (image degrees; NaN for a box it did not read), or
        ``None`` when no box was read that way (the facings, if any, are the keypoints').

        >>> d = Detections(np.zeros((2, 4)), np.ones(2), np.zeros(2, int), np.array([10.0, 20.0]),
        ...                facing_confidence=np.array([0.9, np.nan]))
        >>> d.read_facings().tolist()[0], Detections.empty().read_facings()
        (10.0, None)
        """
        if self.facing is None or self.facing_confidence is None:
            return None
        return np.where(np.isfinite(self.facing_confidence), np.asarray(self.facing, float), np.nan)

    def anchors(self, anchor: str = "center") -> np.ndarray:
        """Points per box: ``center``, or ``bottom_center`` where a standing piece meets the table."""
        x = (self.xyxy[:, 0] + self.xyxy[:, 2]) / 2
        if anchor == "center":
            y = (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2
        elif anchor == "bottom_center":
            y = self.xyxy[:, 3]
        else:
            raise ValueError(f"unknown anchor {anchor!r} (center or bottom_center)")
        return np.stack([x, y], axis=1)


def facing_from_keypoints(xyxy: np.ndarray, keypoints: np.ndarray) -> np.ndarray:
    """Degrees counter-clockwise from the image's +x axis (up is 90, as the field's facings
    turn), from each box's centre to its first keypoint; in [0, 360).

    >>> facing_from_keypoints(np.array([[0., 0, 10, 10]]), np.array([[[5., 0, 1]]])).tolist()
    [90.0]
    """
    cx = (xyxy[:, 0] + xyxy[:, 2]) / 2
    cy = (xyxy[:, 1] + xyxy[:, 3]) / 2
    dx = keypoints[:, 0, 0] - cx
    dy = cy - keypoints[:, 0, 1]
    return np.array([math.degrees(math.atan2(b, a)) % 360.0 for a, b in zip(dx, dy)], dtype=float)


def _numpy(value: Any) -> np.ndarray:
    """A torch tensor (on any device) or array-like as a numpy array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` (N x 4) with every box in ``b`` (M x 4): N x M.

    >>> box_iou(np.array([[0., 0, 2, 2]]), np.array([[1., 0, 3, 2], [0, 0, 2, 2]])).round(3).tolist()
    [[0.333, 1.0]]
    """
    a = np.asarray(a, float).reshape(-1, 4)
    b = np.asarray(b, float).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-12)

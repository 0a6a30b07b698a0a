"""A column-oriented container for detections: one array per field, checked shapes.

>>> import numpy as np
>>> d = Detections(xyxy=np.array([[0, 0, 10, 10], [5, 5, 9, 9]], float),
...                confidence=np.array([0.9, 0.4]), class_id=np.array([0, 1]))
>>> len(d[d.confidence > 0.5])
1
>>> d.anchors("bottom_center").tolist()
[[5.0, 10.0], [7.0, 9.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Detections"]


@dataclass(frozen=True)
class Detections:
    """Boxes (x1, y1, x2, y2 in pixels), confidences and class ids, optionally facings in degrees."""

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    facing: np.ndarray | None = field(default=None)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.ndim != 2 or self.xyxy.shape[1] != 4:
            raise ValueError(f"xyxy must be N x 4, got {self.xyxy.shape}")
        for name in ("confidence", "class_id", "facing"):
            value = getattr(self, name)
            if value is not None and value.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {value.shape}")

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
        )

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

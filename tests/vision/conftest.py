"""Test doubles shared by the reader tests: a detector backend that returns fixed detections
(the ``fixed_backend`` fixture: the class)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections


class FixedBackend:
    """A detector backend that finds ``found`` in every frame (what a reader then re-reads)."""

    def __init__(self, found: Detections) -> None:
        self.found = found

    def run(self, frame: np.ndarray, conf: float, iou: float) -> Detections:
        return self.found


@pytest.fixture
def fixed_backend() -> type[FixedBackend]:
    return FixedBackend

"""Vision stages: capture, detection, facing, mapping to cells or inches, tracking, overlays.

Every stage after the detector sees one type, :class:`~vision.detections.Detections`.
"""

from __future__ import annotations

from vision.detections import Detections
from vision.layout import HexLayout, SquareLayout

__all__ = ["Detections", "HexLayout", "SquareLayout"]

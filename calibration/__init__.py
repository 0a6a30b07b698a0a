"""Camera and board calibration: intrinsics, board and field pose, homographies, inch scale.

Stage functions take plain numpy arrays and return numpy arrays; nothing here knows about
any game's rules.
"""

from __future__ import annotations

from calibration.errors import CalibrationError
from calibration.homography import apply_homography, homography_from_points

__all__ = ["CalibrationError", "apply_homography", "homography_from_points"]

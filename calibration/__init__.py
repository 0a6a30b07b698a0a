"""Camera and board calibration: intrinsics, board and field pose, homographies, inch scale.

Stage functions take plain numpy arrays and return numpy arrays; nothing here knows about
any game's rules. Every board or field calibration returns a :class:`BoardPose`:

* :func:`pose_from_markers` - the kits' ArUco corner markers (:mod:`calibration.markers`);
* :func:`pose_from_corners` - four corners given by hand (:mod:`calibration.manual`);
* :func:`find_square_grid` - the printed grid of a square board (:mod:`calibration.grid`);
* :func:`pose_from_field` - The Game's field in inches (:mod:`calibration.field`).

:func:`calibrate_camera` finds a camera's intrinsics (:mod:`calibration.camera`);
:class:`PoseTracker` keeps a pose through a live stream (:mod:`calibration.tracker`).

The names are loaded on first use, so ``import calibration.errors`` (what the command line
needs to report errors) loads neither numpy nor OpenCV.
"""

from __future__ import annotations

import importlib
from typing import Any

from calibration.errors import CalibrationError

_LAZY = {
    "apply_homography": "calibration.homography",
    "homography_from_points": "calibration.homography",
    "BoardPose": "calibration.pose",
    "PoseQuality": "calibration.pose",
    "KITS": "calibration.markers",
    "MarkerSpec": "calibration.markers",
    "MarkerConfig": "calibration.markers",
    "MarkerSighting": "calibration.markers",
    "MarkerFit": "calibration.markers",
    "MarkerWarning": "calibration.markers",
    "kit": "calibration.markers",
    "kits_for_game": "calibration.markers",
    "detect_markers": "calibration.markers",
    "fit_markers": "calibration.markers",
    "locate_board": "calibration.markers",
    "sight_kit": "calibration.markers",
    "pose_from_markers": "calibration.markers",
    "parse_corners": "calibration.manual",
    "pose_from_corners": "calibration.manual",
    "locate_field": "calibration.field",
    "pose_from_field": "calibration.field",
    "PoseTracker": "calibration.tracker",
    "TrackerConfig": "calibration.tracker",
    "TrackerEvent": "calibration.tracker",
    "TrackerUpdate": "calibration.tracker",
    "CameraCalibration": "calibration.camera",
    "calibrate_camera": "calibration.camera",
    "find_square_grid": "calibration.grid",
}

__all__ = ["CalibrationError", *_LAZY]  # noqa: PLE0604 (the lazy names: strings)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'calibration' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

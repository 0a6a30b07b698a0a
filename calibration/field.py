"""The Game's outdoor field: a pose that measures the ground in inches.

Two set-ups (docs/calibration.md has the drawings):

* **four markers**, ids 40-43, just outside the field's near-left, near-right, far-right and
  far-left corners (3 inch markers, half an inch off each corner); at least three in view;
* **one scale marker**, id 44, printed 6 inches wide (or any known size) and laid just
  outside the near-left corner, half an inch diagonally off it, read upright from the near
  edge; the field is the ``width x depth`` rectangle beyond it. One marker fixes the whole
  ground plane, but errors in its four corners grow with the distance from it: prefer the
  four markers when the field is large or the camera low.

Board coordinates are :class:`rules.geometry.FieldPoint` inches: origin at the near-left
corner, ``x`` along the near edge, ``y`` away from it.

>>> parse_field_size("24x36")
(24.0, 36.0)
>>> parse_field_size('30"')
(30.0, 30.0)
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.markers import (
    MarkerConfig,
    MarkerFit,
    MarkerSighting,
    PointUndistorter,
    detect_markers,
    field_spec,
    fit_markers,
    scale_marker_spec,
)
from calibration.pose import BoardPose

__all__ = [
    "detect_field_markers",
    "fit_field",
    "locate_field",
    "parse_field_size",
    "parse_marker_mm",
    "pose_from_field",
]

_SIZE = re.compile(
    r'^\s*(\d+(?:\.\d*)?)\s*(?:(?:in|"|inch|inches)\s*)?(?:[x*]\s*(\d+(?:\.\d*)?)\s*(?:in|"|inch|inches)?)?\s*$',
    re.IGNORECASE,
)
_MM = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(mm|cm|in|inch|inches|\")?\s*$", re.IGNORECASE)


def parse_field_size(text: str) -> tuple[float, float]:
    """``"24x24"`` (inches, width along the near edge x depth) -> ``(24.0, 24.0)``; one number
    is a square field."""
    m = _SIZE.match(str(text))
    if not m:
        raise CalibrationError(
            f"not a field size: {text!r} (give WIDTHxDEPTH in inches, e.g. 24x24)"
        )
    w = float(m.group(1))
    d = float(m.group(2)) if m.group(2) else w
    if not (0 < w <= 1200 and 0 < d <= 1200):
        raise CalibrationError(
            f"the field must be between 0 and 1200 inches a side, got {w:g} x {d:g}"
        )
    return w, d


BARE_MM_MIN = 20.0
"""A marker size given with no unit is millimetres; under this it is refused, since it is
most likely inches or centimetres with the unit left out (``6`` for a 6-inch marker would make
every distance 25.4 times too short). With its unit, 5 mm and up is taken."""


def parse_marker_mm(text: str) -> float:
    """A printed marker size: millimetres by default, ``cm`` or ``in`` accepted.

    >>> parse_marker_mm("150"), parse_marker_mm("6in"), parse_marker_mm("7.5cm")
    (150.0, 152.4, 75.0)
    >>> parse_marker_mm("6")
    Traceback (most recent call last):
    calibration.errors.CalibrationError: a size with no unit is in millimetres, and 6 mm is smaller than any marker a camera reads across the field: give its unit, e.g. 6in or 6cm
    >>> parse_marker_mm("0")
    Traceback (most recent call last):
    calibration.errors.CalibrationError: a marker size must be above zero, got '0' (the printed marker's width, e.g. 152 or 6in)
    """
    negative = str(text).strip().startswith("-")
    m = _MM.match(str(text).strip()[1:] if negative else str(text))
    if not m:
        raise CalibrationError(f"not a marker size: {text!r} (give millimetres, e.g. 152 or 6in)")
    if negative or float(m.group(1)) <= 0:
        raise CalibrationError(f"a marker size must be above zero, got {text!r} (the printed marker's width, "
                               "e.g. 152 or 6in)")
    if m.group(2) is None and float(m.group(1)) < BARE_MM_MIN:  # "6" meant for a 6-inch marker
        raise CalibrationError(
            f"a size with no unit is in millimetres, and {float(m.group(1)):g} mm is smaller than any "
            f"marker a camera reads across the field: give its unit, e.g. {text}in or {text}cm"
        )
    value = round(
        float(m.group(1)) * {"mm": 1.0, "cm": 10.0}.get((m.group(2) or "mm").lower(), 25.4), 6
    )
    if not 5 <= value <= 2000:
        raise CalibrationError(
            f"a printed marker between 5 and 2000 mm wide is expected, got {value:g} mm"
        )
    return value


def fit_field(
    sighting: MarkerSighting,
    size: tuple[float, float] = (24.0, 24.0),
    marker_mm: float | None = None,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen)
) -> MarkerFit:
    """The field pose from a sighting: the four corner markers when at least three are in
    view (or two at opposite corners), else the scale marker. ``marker_mm`` is the printed
    side of the markers used (default: 3 inches for corner markers, 6 inches for the scale
    marker)."""
    corners = field_spec(*size)
    scale = scale_marker_spec(*size)
    if marker_mm is not None:
        corners, scale = corners.with_marker_mm(marker_mm), scale.with_marker_mm(marker_mm)
    seen = [i for i in corners.ids if sighting.corners_of(i) is not None]
    has_scale = sighting.corners_of(scale.ids[0]) is not None
    if corners.enough(seen) or not has_scale:
        try:
            fit = fit_markers(sighting, corners, camera, config)
        except CalibrationError as err:
            if seen or has_scale:
                raise
            raise CalibrationError(
                f"{err}; or lay the scale marker (id {scale.ids[0]}) beside the near-left corner"
            ) from None
    else:
        fit = fit_markers(sighting, scale, camera, config)
    outside = _corners_outside(fit.pose, sighting.frame_size)
    if outside:
        names = ", ".join(outside)
        note = f"the field's {names} corner{'s' if len(outside) > 1 else ''} lie{'' if len(outside) > 1 else 's'} outside the picture"
        fit = MarkerFit(fit.pose, fit.used, fit.hidden, fit.ignored, fit.notes + (note,))
    return fit


def _corners_outside(pose: BoardPose, frame: tuple[int, int]) -> list[str]:
    names = ("near-left", "near-right", "far-right", "far-left")
    w, h = frame
    pts = pose.board_corners_in_image()
    return [
        n for n, (x, y) in zip(names, pts) if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5)
    ]


def detect_field_markers(
    image: Any, config: MarkerConfig = MarkerConfig(), scale: float = 0.5  # noqa: B008 (frozen)
) -> MarkerSighting:
    """The field's markers in a frame, found fast: looked for in the frame shrunk by
    ``scale`` (a quarter of the pixels at 0.5), then each marker's corners refined on the
    full frame (:func:`calibration.marker_detection.refine_marker_edges`). When the small
    frame shows fewer than three of the field's markers and not the scale marker, the full
    frame is searched instead, so small or distant markers are not lost.

    >>> from calibration.markers import kit
    >>> from calibration.synthetic import render_frame
    >>> frame = render_frame(kit("the-game-field"), seed=3, tilt=60)
    >>> fast = detect_field_markers(frame.image)
    >>> full = detect_markers(frame.image, field_spec().dictionary)
    >>> sorted(fast.ids.tolist()) == sorted(full.ids.tolist())
    True
    >>> bool(np.abs(np.sort(fast.corners, axis=None) - np.sort(full.corners, axis=None)).max() < 0.5)
    True
    """
    import cv2

    from calibration.marker_detection import as_gray, refine_marker_edges

    gray = as_gray(image)
    dictionary = field_spec().dictionary
    if not 0 < scale < 1:
        return detect_markers(gray, dictionary, config)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    found = detect_markers(small, dictionary, MarkerConfig(
        config.min_coverage, config.max_residual_px, config.refine_window, config.min_perimeter_rate, False))
    wanted = {40, 41, 42, 43}
    if len(wanted & set(found.ids.tolist())) < 3 and 44 not in found.ids:
        return detect_markers(gray, dictionary, config)
    # corners of the small frame: pixel centres at (p + 0.5) / scale - 0.5 in the full one
    corners = (found.corners + 0.5) / scale - 0.5
    if config.edge_refine:
        corners = np.stack([refine_marker_edges(gray, q, 6)[0] for q in corners]) if len(corners) else corners
    size = (int(gray.shape[1]), int(gray.shape[0]))
    return MarkerSighting(found.ids, corners, size)


def locate_field(
    image: Any,
    size: tuple[float, float] = (24.0, 24.0),
    marker_mm: float | None = None,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen)
) -> MarkerFit:
    """Detect the field's markers in a frame and fit the pose (see :func:`fit_field`)."""
    return fit_field(
        detect_markers(image, field_spec().dictionary, config), size, marker_mm, camera, config
    )


def pose_from_field(
    image: Any,
    size: tuple[float, float] = (24.0, 24.0),
    marker_mm: float | None = None,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen)
) -> BoardPose:
    """The field pose in inches from one frame (four corner markers or the scale marker).

    >>> from calibration.markers import kit
    >>> from calibration.synthetic import render_frame
    >>> frame = render_frame(kit("the-game-scale"), seed=2, tilt=70)
    >>> pose = pose_from_field(frame.image)
    >>> pose.units, pose.quality.method
    ('inch', 'scale marker')
    >>> bool(np.abs(pose.to_board(frame.true_pose().to_image([[12, 12]])) - 12).max() < 0.5)
    True
    """
    return locate_field(image, size, marker_mm, camera, config).pose

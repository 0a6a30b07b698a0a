"""One frame through the outdoor assistant: field, pieces, rules, overlay.

:class:`OutdoorAssistant` holds what stays (the field set-up, the detector, the game's
options, the reading settings); :meth:`OutdoorAssistant.process` takes a camera frame and
returns an :class:`OutdoorFrame`. The detector sees only the field and a margin round it
(:func:`detect_on_field`): a phone held high shows much ground beyond the field, and
cutting it away keeps the pieces large in the detector's input.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from rules.the_game.options import TheGameOptions
from tabletop.outdoor.assistant import FieldReport, assess
from tabletop.outdoor.readings import PieceReading, ReadingConfig, read_pieces
from tabletop.outdoor.view import FieldSetup, FieldView
from vision.detections import Detections

__all__ = ["DetectionFailed", "OutdoorAssistant", "OutdoorFrame", "detect_on_field"]


class DetectionFailed(Exception):
    """The detector raised on one frame (a driver hiccup, a frame it cannot take): the frame
    is skipped, the session goes on."""


def detect_on_field(detect: Callable[[np.ndarray], Detections], image: np.ndarray, view: FieldView,
                    margin: float = 2.0) -> Detections:
    """``detect`` run on the part of ``image`` that shows the field and ``margin`` inches
    round it; boxes and dots come back in ``image``'s pixels."""
    w, d = view.pose.size
    pts = view.to_image(np.array([[-margin, -margin], [w + margin, -margin], [w + margin, d + margin],
                                  [-margin, d + margin]], float))
    hgt, wid = image.shape[:2]
    if not np.all(np.isfinite(pts)):
        return detect(image)
    x0, y0 = np.floor(np.clip(pts.min(axis=0), 0, [wid, hgt])).astype(int)
    x1, y1 = np.ceil(np.clip(pts.max(axis=0), 0, [wid, hgt])).astype(int)
    if x1 - x0 < 32 or y1 - y0 < 32 or (x1 - x0) * (y1 - y0) > 0.9 * wid * hgt:
        return detect(image)
    found = detect(np.ascontiguousarray(image[y0:y1, x0:x1]))
    if len(found) == 0:
        return found
    xyxy = found.xyxy + np.array([x0, y0, x0, y0], float)
    kp = None
    if found.keypoints is not None:
        kp = found.keypoints.copy()
        kp[:, :, 0] += x0
        kp[:, :, 1] += y0
    return Detections(xyxy, found.confidence, found.class_id, found.facing, kp, found.class_name,
                      found.facing_confidence)


@dataclass
class OutdoorFrame:
    """A frame's result: the undistorted ``image``, its ``view`` (``None``: no field found,
    ``error`` says why), the ``readings``, the rules' ``report``, the time each stage took
    (ms) and the ``hands`` seen over the field (boxes)."""

    image: np.ndarray | None
    view: FieldView | None = None
    readings: list[PieceReading] = field(default_factory=list)
    report: FieldReport | None = None
    error: str = ""
    times_ms: dict[str, float] = field(default_factory=dict)
    hands: list[tuple[float, float, float, float]] = field(default_factory=list)


class OutdoorAssistant:
    """The outdoor assistant: ``setup`` finds the field, ``detect`` the pieces (a
    :meth:`vision.detect.Detector.detect` or any frame -> :class:`Detections` callable),
    ``options`` the game's options (field size, stats), ``config`` how pieces are read."""

    def __init__(self, setup: FieldSetup, detect: Callable[[np.ndarray], Detections],
                 options: TheGameOptions | None = None, config: ReadingConfig | None = None,
                 crop: bool = True) -> None:
        self.setup = setup
        self.detect = detect
        self.options = options or TheGameOptions(field_width=setup.size[0], field_depth=setup.size[1])
        self.config = config or ReadingConfig(sides=tuple(self.options.sides))
        self.crop = crop

    def process(self, frame: Any) -> OutdoorFrame:
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        try:
            image, view = self.setup.locate(frame)
        except CalibrationError as err:
            return OutdoorFrame(None, None, error=str(err), times_ms={"field": 1000 * (time.perf_counter() - t0)})
        t1 = time.perf_counter()
        try:
            det = detect_on_field(self.detect, image, view) if self.crop else self.detect(image)
        except Exception as err:  # one frame's failure is said, and the session goes on
            raise DetectionFailed(f"{type(err).__name__}: {err}") from err
        t2 = time.perf_counter()
        readings = read_pieces(image, det, view, self.config)
        t3 = time.perf_counter()
        report = assess(readings, self.options)
        t4 = time.perf_counter()
        times.update(field=1000 * (t1 - t0), detect=1000 * (t2 - t1), read=1000 * (t3 - t2), rules=1000 * (t4 - t3))
        hands = _hands_over(det, view)
        return OutdoorFrame(image, view, readings, report, "", times, hands)


def _hands_over(det: Detections, view: FieldView) -> list[tuple[float, float, float, float]]:
    """The boxes of hands that reach over the field."""
    if len(det) == 0:
        return []
    names = det.class_name if det.class_name is not None else np.array([""] * len(det), dtype=object)
    poly = view.field_polygon
    x0, y0 = poly.min(axis=0)
    x1, y1 = poly.max(axis=0)
    out = []
    for i, name in enumerate(names):
        b = det.xyxy[i]
        if str(name) == "hand" and not (b[2] < x0 or b[0] > x1 or b[3] < y0 or b[1] > y1):
            out.append((float(b[0]), float(b[1]), float(b[2]), float(b[3])))
    return out

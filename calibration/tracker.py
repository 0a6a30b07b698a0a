"""Keeping the board pose through a live stream: hands over markers, bumps, a moved camera.

:class:`PoseTracker` takes frames (or per-frame marker sightings) one by one:

* until it has a pose it calibrates from any frame showing enough markers;
* then it keeps that pose. Each frame, the markers in view are compared with where the kept
  pose puts them (RMS of their corners, in pixels). While that residual stays small the
  pose stands, even when a hand hides some or all markers;
* when the residual stays above ``move_threshold_px`` for ``confirm_frames`` frames in a
  row (one bad frame is noise, several are a moved board or camera), the tracker fits a new
  pose from the current frame, if enough markers are in view, and says so (markers too
  small to decode there are looked at enlarged, as for a first pose: the camera moved back).

Checking a kept pose needs a pixel, not the edge-fitted corners a calibration is made from:
:meth:`PoseTracker.update` checks it with OpenCV's corners alone (about half the time of the
edge fit; within a pixel of the pose on rendered live turns, where the threshold is three), and
finds the markers again with their edges fitted only when those corners are more than half
the threshold off.

Each change worth announcing comes out as a :class:`TrackerEvent` with a sentence for the
announcer ("board moved: re-calibrated", "markers hidden: keeping the last pose").

>>> from calibration.markers import kit
>>> from calibration.synthetic import render_frame
>>> spec = kit("battle-grounds-advanced")
>>> tracker = PoseTracker(spec)
>>> [e.text for e in tracker.update(render_frame(spec, seed=1, tilt=80).image).events]
['board found: calibrated from 4 markers']
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.markers import (
    MarkerConfig,
    MarkerSighting,
    MarkerSpec,
    PointUndistorter,
    detect_markers,
    fit_markers,
    sight_kit,
)
from calibration.pose import BoardPose

__all__ = ["PoseTracker", "TrackerConfig", "TrackerEvent", "TrackerUpdate"]

SEARCHING = "searching"  # no pose yet
TRACKING = "tracking"  # pose confirmed by the markers in view
HOLDING = "holding"  # no marker in view: the last pose is kept
MOVED = "moved"  # the markers no longer agree with the pose and too few are in view to refit


@dataclass(frozen=True)
class TrackerConfig:
    """``move_threshold_px``: RMS disagreement, in pixels, between the markers in view and the
    kept pose above which a frame counts as "moved"; ``confirm_frames``: how many such frames
    in a row trigger a re-calibration."""

    move_threshold_px: float = 3.0
    confirm_frames: int = 3
    markers: MarkerConfig = field(default_factory=MarkerConfig)

    def __post_init__(self) -> None:
        if not self.move_threshold_px > 0 or self.confirm_frames < 1:
            raise CalibrationError(
                "the move threshold must be positive and confirm_frames at least 1"
            )


@dataclass(frozen=True)
class TrackerEvent:
    """Something to announce. ``kind``: ``calibrated``, ``hidden``, ``visible``,
    ``recalibrated`` or ``moved``; ``frame``: the frame number (from 1)."""

    kind: str
    text: str
    frame: int


@dataclass(frozen=True)
class TrackerUpdate:
    """The tracker after one frame: the pose to use (``None`` before the first calibration),
    the state (``searching``, ``tracking``, ``holding``, ``moved``), the kit's markers in view,
    their residual under the pose used (pixels; ``None`` when none is in view or there is no
    pose), the events of this frame, and ``problem``: why there is no pose yet, or why the
    moved board could not be re-calibrated."""

    pose: BoardPose | None
    state: str
    visible: tuple[int, ...]
    residual_px: float | None
    events: tuple[TrackerEvent, ...] = ()
    problem: str | None = None


class PoseTracker:
    """Feed it frames with :meth:`update` (or sightings with :meth:`update_sighting`)."""

    def __init__(
        self,
        spec: MarkerSpec,
        config: TrackerConfig | None = None,
        camera: PointUndistorter | None = None,
    ) -> None:
        self.spec = spec
        self.config = config or TrackerConfig()
        self.camera = camera
        self.reset()

    def reset(self) -> None:
        """Forget the pose (the next frame with enough markers calibrates afresh)."""
        self._pose: BoardPose | None = None
        self._state = SEARCHING
        self._frame = 0
        self._off_frames = 0
        self._hidden = False  # "markers hidden" was announced and not yet taken back

    @property
    def pose(self) -> BoardPose | None:
        return self._pose

    @property
    def state(self) -> str:
        return self._state

    def update(self, frame: Any) -> TrackerUpdate:
        """Detect the kit's markers in ``frame`` and update. A bad frame (empty, unreadable)
        raises :class:`CalibrationError` and leaves the tracker as it was. A kept pose is
        checked with the markers' corners as OpenCV finds them; their edges are fitted (as a
        calibration needs) only when those corners are off by more than half the threshold."""
        markers = self.config.markers
        if self._pose is not None and markers.edge_refine:
            quick = detect_markers(frame, self.spec.dictionary, replace(markers, edge_refine=False))
            visible = self._visible(quick)
            residual = self._residual(quick, visible)
            if residual is None or residual <= self.config.move_threshold_px / 2:
                self._frame += 1
                return self._follow(quick, visible, residual)
        if self._pose is None:  # a first pose: markers too small to decode are looked at closer
            return self.update_sighting(sight_kit(frame, self.spec, markers))
        sighting = detect_markers(frame, self.spec.dictionary, markers)
        if self._off_frames + 1 >= self.config.confirm_frames:
            # this frame re-calibrates if the markers are still off the pose: as for a first
            # pose, markers too small to decode (the camera moved back) are looked at closer
            visible = self._visible(sighting)
            residual = self._residual(sighting, visible)
            if residual is not None and residual > self.config.move_threshold_px and not self.spec.enough(visible):
                sighting = sight_kit(frame, self.spec, markers, sighting)
        return self.update_sighting(sighting)

    def update_sighting(self, sighting: MarkerSighting) -> TrackerUpdate:
        self._frame += 1
        visible = self._visible(sighting)
        if self._pose is None:
            return self._calibrate(
                sighting, visible, "calibrated", "board found: calibrated from {n} markers"
            )
        return self._follow(sighting, visible, self._residual(sighting, visible))

    def _visible(self, sighting: MarkerSighting) -> tuple[int, ...]:
        return tuple(i for i in self.spec.ids if sighting.corners_of(i) is not None)

    def _follow(self, sighting: MarkerSighting, visible: tuple[int, ...], residual: float | None) -> TrackerUpdate:
        """A kept pose checked against a sighting: kept, or re-calibrated once the markers
        have sat off it for :attr:`TrackerConfig.confirm_frames` frames."""
        events: list[TrackerEvent] = []
        all_visible = len(visible) == len(self.spec.ids)
        if residual is None or residual <= self.config.move_threshold_px:
            self._off_frames = 0
            if not all_visible and not self._hidden:
                events.append(self._event("hidden", "markers hidden: keeping the last pose"))
            elif all_visible and self._hidden:
                events.append(self._event("visible", "markers in view again"))
            self._hidden = not all_visible
            self._state = HOLDING if residual is None else TRACKING
            return TrackerUpdate(self._pose, self._state, visible, residual, tuple(events))
        self._off_frames += 1
        if self._off_frames < self.config.confirm_frames:
            return TrackerUpdate(self._pose, self._state, visible, residual)
        return self._calibrate(
            sighting, visible, "recalibrated", "board moved: re-calibrated", residual
        )

    # -- helpers ------------------------------------------------------------------------------
    def _event(self, kind: str, text: str) -> TrackerEvent:
        return TrackerEvent(kind, text, self._frame)

    def _residual(self, sighting: MarkerSighting, visible: tuple[int, ...]) -> float | None:
        if not visible or self._pose is None:
            return None
        seen = np.vstack([sighting.corners_of(i) for i in visible])  # type: ignore[misc]
        if self.camera is not None:
            seen = np.asarray(
                self.camera.undistort_points(seen, sighting.frame_size), float
            ).reshape(-1, 2)
        expected = self._pose.to_image(np.vstack([self.spec.marker_corners(i) for i in visible]))
        return float(np.sqrt(((seen - expected) ** 2).sum(axis=1).mean()))

    def _calibrate(
        self,
        sighting: MarkerSighting,
        visible: tuple[int, ...],
        kind: str,
        text: str,
        residual: float | None = None,
    ) -> TrackerUpdate:
        try:
            fit = fit_markers(sighting, self.spec, self.camera, self.config.markers)
        except CalibrationError as err:
            if self._pose is None:
                return TrackerUpdate(None, SEARCHING, visible, None, (), str(err))
            events = ()
            if self._state != MOVED:
                events = (self._event("moved", f"board moved: {err}"),)
            self._state = MOVED
            return TrackerUpdate(self._pose, MOVED, visible, residual, events, str(err))
        self._pose = fit.pose
        self._off_frames = 0
        self._state = TRACKING
        self._hidden = len(visible) < len(self.spec.ids)  # the calibration says how many it saw
        event = self._event(kind, text.format(n=len(fit.used)))
        return TrackerUpdate(self._pose, TRACKING, visible, fit.pose.quality.residual_px, (event,))

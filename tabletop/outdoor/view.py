"""The field as one camera sees it: the ground pose in inches and the camera above it.

:class:`FieldSetup` is what the players set up once: the field size, the markers (the four
corner markers, or the one scale marker of known size), an optional camera calibration
(lens distortion and focal length) or a fixed pose file. :meth:`FieldSetup.locate` turns a
frame into a :class:`FieldView`: the frame with the lens distortion removed, the pose
(undistorted pixels <-> field inches) and the camera's place above the field, recovered
from the pose and the focal length (given by the calibration, else estimated from the
pose itself). The camera's place is what lets a reading lift a point off the ground:
the top of a stone and its front dot stand some way above the ground, and seen at an
angle they fall beyond where the stone stands (:meth:`FieldView.to_field` with
``height``).

>>> import numpy as np
>>> from calibration.pose import BoardPose
>>> k = np.array([[800.0, 0, 639.5], [0, 800.0, 359.5], [0, 0, 1]])
>>> view = FieldView.from_camera(k, np.eye(3), np.array([-12.0, -12.0, 30.0]), (24, 24), (1280, 720))
>>> np.round(view.to_field([[639.5, 359.5]]), 3).tolist()       # straight down at the centre
[[12.0, 12.0]]
>>> round(view.camera_height, 2)
30.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.pose import BoardPose, PoseQuality

__all__ = ["FieldSetup", "FieldView", "IntrinsicsOnly", "estimate_focal"]


def estimate_focal(board_to_image: np.ndarray, size: tuple[int, int]) -> float | None:
    """The focal length (pixels) that makes a plane's homography a rigid camera pose, with
    the principal point at the image centre and square pixels; ``None`` when the view is too
    close to straight down to tell (the two constraints then vanish)."""
    w, h = size
    t = np.array([[1.0, 0, -(w - 1) / 2], [0, 1.0, -(h - 1) / 2], [0, 0, 1]])
    m = t @ np.asarray(board_to_image, float)
    m = m / np.linalg.norm(m[:, :2])
    (a1, a2), (b1, b2), (c1, c2) = m[0, :2], m[1, :2], m[2, :2]
    rows = np.array([[a1 * a2 + b1 * b2, c1 * c2], [a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2, c1 * c1 - c2 * c2]])
    scale = np.abs(rows[:, 1]).max()
    if scale < 1e-9:
        return None
    num = float(rows[:, 0] @ rows[:, 1])
    den = float(rows[:, 0] @ rows[:, 0])
    if den <= 0:
        return None
    w_inv = -num / den  # 1 / f^2
    if not w_inv > 0:
        return None
    f = 1.0 / math.sqrt(w_inv)
    return f if 0.25 * w <= f <= 6.0 * w else None


@dataclass(frozen=True)
class FieldView:
    """One frame's geometry: ``pose`` maps undistorted pixels <-> field inches on the ground;
    ``K`` the camera matrix (given or estimated); ``R``, ``t`` the camera pose with the
    field as the plane ``z = 0`` (inches); ``up`` is the sign of ``z`` on the camera's side."""

    pose: BoardPose
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    up: float
    size: tuple[int, int]
    focal_estimated: bool = False
    notes: tuple[str, ...] = field(default=())
    _scaled: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]

    @classmethod
    def from_pose(cls, pose: BoardPose, size: tuple[int, int], K: np.ndarray | None = None,
                  notes: tuple[str, ...] = ()) -> FieldView:
        """The camera above the field from the pose and a camera matrix (estimated when not
        given: principal point at the centre, focal length from the pose, else a 60 degree
        lens)."""
        estimated = K is None
        if K is None:
            f = estimate_focal(pose.board_to_image, size)
            if f is None:
                f = size[0] / 2 / math.tan(math.radians(30))
            K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1.0]])
        K = np.asarray(K, float)
        m = np.linalg.inv(K) @ pose.board_to_image
        lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
        m = m * lam
        centre = np.array([pose.size[0] / 2, pose.size[1] / 2, 1.0])
        if (m @ centre)[2] < 0:  # the field must lie in front of the camera
            m = -m
        u, _, vt = np.linalg.svd(np.column_stack([m[:, 0], m[:, 1], np.cross(m[:, 0], m[:, 1])]))
        R = u @ vt
        t = m[:, 2]
        cam = -R.T @ t
        up = 1.0 if cam[2] >= 0 else -1.0
        return cls(pose, K, R, t, up, (int(size[0]), int(size[1])), estimated, tuple(notes), K @ m)

    @classmethod
    def from_camera(cls, K: np.ndarray, R: np.ndarray, t: np.ndarray, field_size: tuple[float, float],
                    size: tuple[int, int]) -> FieldView:
        """A view made from a known camera (tests, renders): ``x_cam = R x_field + t``."""
        K, R, t = (np.asarray(v, float) for v in (K, R, t))
        h = K @ np.column_stack([R[:, 0], R[:, 1], t])
        pose = BoardPose.from_homography(np.linalg.inv(h), "inch", field_size,
                                         PoseQuality("given", 0.0, 0, 0, 0.0))
        return cls.from_pose(pose, size, K)

    # -- the camera ----------------------------------------------------------------------------
    @property
    def camera_position(self) -> np.ndarray:
        """The camera's centre in field inches: x, y on the field and its height above it."""
        c = -self.R.T @ self.t
        return np.array([c[0], c[1], abs(c[2])])

    @property
    def camera_height(self) -> float:
        return float(self.camera_position[2])

    def elevation_at(self, x: float, y: float) -> float:
        """Degrees between the ground and the line of sight to the field point ``(x, y)``."""
        c = self.camera_position
        return math.degrees(math.atan2(c[2], math.hypot(c[0] - x, c[1] - y)))

    def plane(self, height: float = 0.0) -> np.ndarray:
        """Field inches at ``height`` above the ground -> undistorted pixels (3x3)."""
        if height == 0.0:
            return self.pose.board_to_image
        h = self._scaled.copy()
        h[:, 2] += self.K @ self.R[:, 2] * (self.up * height)
        return h / h[2, 2]

    # -- points --------------------------------------------------------------------------------
    def to_field(self, points: Any, height: float = 0.0) -> np.ndarray:
        """Undistorted pixels (N x 2) -> field inches (N x 2) of the points at ``height``
        inches above the ground that the pixels see."""
        pts = np.asarray(points, float).reshape(-1, 2)
        if height == 0.0:
            return self.pose.to_board(pts)
        hm = np.linalg.inv(self.plane(height))
        q = np.c_[pts, np.ones(len(pts))] @ hm.T
        return q[:, :2] / q[:, 2:3]

    def to_image(self, points: Any, height: float = 0.0) -> np.ndarray:
        """Field inches (N x 2) at ``height`` above the ground -> undistorted pixels."""
        pts = np.asarray(points, float).reshape(-1, 2)
        q = np.c_[pts, np.ones(len(pts))] @ self.plane(height).T
        return q[:, :2] / q[:, 2:3]

    def on_ground(self, points: Any) -> np.ndarray:
        """Whether each undistorted pixel (N x 2) sees the ground: lies below the ground's
        horizon in the picture, on the side of it the field is on (a pixel above the horizon
        maps to a point behind the camera)."""
        pts = np.asarray(points, float).reshape(-1, 2)
        h = self.pose.image_to_board
        w, d = self.pose.size
        centre = self.pose.to_image([[w / 2, d / 2]])[0]
        side = float((h @ np.r_[centre, 1.0])[2])
        return (np.c_[pts, np.ones(len(pts))] @ h.T)[:, 2] * side > 0

    def ground_scale(self, height: float) -> float:
        """How much farther from the camera's foot a point ``height`` inches up appears on the
        ground (1 at the ground)."""
        hc = self.camera_height
        return hc / max(hc - height, 1e-6)

    @property
    def field_polygon(self) -> np.ndarray:
        """The field's corners in the (undistorted) image."""
        return self.pose.board_corners_in_image()


class IntrinsicsOnly:
    """A camera calibration as the marker fit wants it once the frame is undistorted: points
    stay where they are, the camera matrix is the calibration's."""

    def __init__(self, calibration: Any) -> None:
        self.calibration = calibration

    def undistort_points(self, points: Any, image_size: tuple[int, int] | None = None) -> np.ndarray:
        return np.asarray(points, float).reshape(-1, 2)

    def matrix_for(self, size: tuple[int, int]) -> np.ndarray:
        return np.asarray(self.calibration.matrix_for(size), float)


@dataclass
class FieldSetup:
    """How the field is found in a frame: ``size`` in inches, the markers (``markers``:
    ``auto``, ``corners`` or ``scale``; ``marker_mm`` their printed size), a camera
    ``calibration`` (a :class:`calibration.camera.CameraCalibration`) and a fixed ``pose``
    (a :class:`BoardPose` from ``tabletop calibrate field``) instead of the markers; ``track``:
    keep the pose through a stream while markers are hidden (a live camera held still)."""

    size: tuple[float, float] = (24.0, 24.0)
    markers: str = "auto"
    marker_mm: float | None = None
    calibration: Any = None
    pose: BoardPose | None = None
    track: bool = False
    events: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.markers not in ("auto", "corners", "scale"):
            raise CalibrationError(f"unknown marker set-up {self.markers!r} (use auto, corners or scale)")
        self._tracker: Any = None

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        if self.calibration is None:
            return frame
        return np.asarray(self.calibration.undistort(frame))

    def camera_matrix(self, size: tuple[int, int]) -> np.ndarray | None:
        if self.calibration is None:
            return None
        return np.asarray(self.calibration.matrix_for(size), float)

    def locate(self, frame: np.ndarray) -> tuple[np.ndarray, FieldView]:
        """The undistorted frame and its :class:`FieldView`; a :class:`CalibrationError`
        saying what to do when the field is not found."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim < 2 or frame.size == 0:
            raise CalibrationError("empty frame: is the camera delivering images?")
        image = self.undistort(frame)
        size = (image.shape[1], image.shape[0])
        k = self.camera_matrix(size)
        if self.pose is not None:
            return image, FieldView.from_pose(self.pose.for_frame(size), size, k, ("fixed pose",))
        sighting = self._sighting(frame, image)
        if self.track:
            return image, FieldView.from_pose(self._tracked(sighting), size, k, ("tracked",))
        fit = self._fit(sighting)
        return image, FieldView.from_pose(fit.pose, size, k, tuple(fit.notes))

    def _sighting(self, frame: np.ndarray, image: np.ndarray) -> Any:
        """The field's markers in undistorted pixels: found in the undistorted picture, where
        their edges are straight and their corners are placed best; with a lens calibration,
        a marker it lacks is looked for in the frame as the camera took it and its corners
        undistorted as points (undistorting the picture pushes its edges out, and markers
        near them with it)."""
        from calibration.field import detect_field_markers
        from calibration.marker_detection import MarkerSighting
        from calibration.markers import field_spec, scale_marker_spec

        sighting = detect_field_markers(image)
        if self.calibration is None:
            return sighting
        corners, scale = field_spec(*self.size), scale_marker_spec(*self.size)
        if corners.enough([i for i in corners.ids if sighting.corners_of(i) is not None]) \
                or sighting.corners_of(scale.ids[0]) is not None:
            return sighting  # enough to fit: the raw frame is not searched (a frame's time)
        wanted = (set(corners.ids) | set(scale.ids)) - set(sighting.ids.tolist())
        raw = detect_field_markers(frame)
        extra = [k for k, i in enumerate(raw.ids.tolist()) if i in wanted]
        if not extra:
            return sighting
        size = (image.shape[1], image.shape[0])
        corners = np.asarray(self.calibration.undistort_points(raw.corners[extra].reshape(-1, 2), size)).reshape(-1, 4, 2)
        return MarkerSighting(np.concatenate([sighting.ids, raw.ids[extra]]),
                              np.concatenate([sighting.corners.reshape(-1, 4, 2), corners]), sighting.frame_size)

    def _tracked(self, sighting: Any) -> BoardPose:
        """The pose kept through a stream (:class:`calibration.tracker.PoseTracker`): a hand
        over a marker, or a marker out of the frame for a while, keeps the last pose. The
        tracker's sentences go to :attr:`events`."""
        update = self._tracker_for(sighting).update_sighting(sighting)
        self.events.extend(e.text for e in update.events)
        if update.pose is None:
            raise CalibrationError(update.problem or "no field yet: are the markers in view?")
        return update.pose

    def _tracker_for(self, sighting: Any) -> Any:
        """The tracker of the markers laid out: the four corners' or the scale marker's, as
        ``--markers`` says; with ``auto``, the one whose markers are in view as
        :func:`calibration.field.fit_field` would choose (the corners' while some of them are
        and they gave a pose: a hand over two of them keeps it), and with neither in view the
        one that has a pose (a hand over the scale marker keeps the pose it gave)."""
        from calibration.markers import field_spec, scale_marker_spec
        from calibration.tracker import PoseTracker

        if self._tracker is None:
            camera = IntrinsicsOnly(self.calibration) if self.calibration is not None else None
            kinds = {"corners": field_spec(*self.size), "scale": scale_marker_spec(*self.size)}
            self._tracker = {
                kind: PoseTracker(spec if self.marker_mm is None else spec.with_marker_mm(self.marker_mm), camera=camera)
                for kind, spec in kinds.items() if self.markers in ("auto", kind)}
        if len(self._tracker) == 1:
            return next(iter(self._tracker.values()))
        corners, scale = self._tracker["corners"], self._tracker["scale"]
        seen = [i for i in corners.spec.ids if sighting.corners_of(i) is not None]
        if corners.spec.enough(seen) or (seen and corners.pose is not None):
            return corners  # in view, or some hidden by a hand: the corners' pose is kept
        if sighting.corners_of(scale.spec.ids[0]) is not None:
            return scale
        # neither in view enough (a hand over them): the one that has a pose keeps it
        return scale if corners.pose is None and scale.pose is not None else corners

    def _fit(self, sighting: Any) -> Any:
        from calibration.field import fit_field
        from calibration.markers import field_spec, fit_markers, scale_marker_spec

        camera = IntrinsicsOnly(self.calibration) if self.calibration is not None else None
        if self.markers == "auto":
            return fit_field(sighting, self.size, self.marker_mm, camera)
        if self.markers == "corners":
            spec = field_spec(*self.size)
        else:
            spec = scale_marker_spec(*self.size)
        if self.marker_mm is not None:
            spec = spec.with_marker_mm(self.marker_mm)
        return fit_markers(sighting, spec, camera)

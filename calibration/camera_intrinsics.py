"""A camera's intrinsics (:class:`CameraCalibration`) and the calibration file they are kept in.

A :class:`CameraCalibration` scales its camera matrix to other resolutions of the same shape,
undistorts frames and points for the live pipeline, and is saved as a JSON file (documented
in ``docs/calibration-camera.md``). :func:`calibration.camera.calibrate_camera` makes one from
photos; :mod:`calibration.camera` re-exports every name here.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.patterns import CalibrationPattern, pattern_from_json

__all__ = ["FILE_FORMAT", "FILE_VERSION", "CameraCalibration"]

FILE_FORMAT = "tabletop-camera-calibration"
FILE_VERSION = 1
_COEFF_COUNTS = (4, 5, 8, 12, 14)


@dataclass(frozen=True, eq=False)
class CameraCalibration:
    """A camera's intrinsics and how well the calibration photos agreed with them.

    ``camera_matrix`` (3 x 3) and ``dist_coeffs`` (OpenCV's order: k1, k2, p1, p2, k3[, k4,
    k5, k6]) hold for frames of ``image_size = (width, height)`` pixels. ``rms`` is the RMS
    reprojection error in pixels over the kept photos, ``per_image`` gives ``(name, rms)`` for
    each kept photo and ``dropped`` gives ``(name, reason)`` for each photo left out. The arrays
    are read-only copies; instances compare by identity.
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms: float
    per_image: tuple[tuple[str, float], ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()
    pattern: CalibrationPattern | None = None
    _maps: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        k = np.array(self.camera_matrix, dtype=float)
        if k.shape != (3, 3) or not np.all(np.isfinite(k)) or k[0, 0] <= 0 or k[1, 1] <= 0:
            raise CalibrationError(
                "camera_matrix must be a finite 3x3 matrix with positive focal lengths"
            )
        if not np.allclose(k[2], [0, 0, 1]) or k[1, 0] != 0:
            raise CalibrationError(
                "camera_matrix must have the form [[fx, s, cx], [0, fy, cy], [0, 0, 1]]"
            )
        d = np.array(self.dist_coeffs, dtype=float).ravel()
        if len(d) not in _COEFF_COUNTS or not np.all(np.isfinite(d)):
            raise CalibrationError(
                f"dist_coeffs must be {', '.join(map(str, _COEFF_COUNTS))} finite numbers, got {len(d)}"
            )
        try:
            w, h = (int(v) for v in self.image_size)
        except (TypeError, ValueError):
            raise CalibrationError(
                f"image_size must be (width, height), got {self.image_size!r}"
            ) from None
        if w <= 0 or h <= 0:
            raise CalibrationError(f"image_size must be positive, got {self.image_size!r}")
        try:
            rms = float(self.rms)
        except (TypeError, ValueError):
            rms = math.nan
        if not (math.isfinite(rms) and rms >= 0) or isinstance(self.rms, (str, bytes)):
            raise CalibrationError(f"rms must be a non-negative number, got {self.rms!r}")
        k.setflags(write=False)
        d.setflags(write=False)
        object.__setattr__(self, "camera_matrix", k)
        object.__setattr__(self, "dist_coeffs", d)
        object.__setattr__(self, "image_size", (w, h))
        object.__setattr__(self, "rms", rms)
        object.__setattr__(self, "per_image", tuple((str(n), float(r)) for n, r in self.per_image))
        object.__setattr__(self, "dropped", tuple((str(n), str(r)) for n, r in self.dropped))

    # --- scaling to another resolution -------------------------------------------------------

    def matrix_for(self, size: tuple[int, int]) -> np.ndarray:
        """The camera matrix for frames of ``size = (width, height)``.

        The same camera at another resolution of the same aspect ratio (1920x1080 -> 1280x720)
        scales the matrix; another aspect ratio means the sensor is cropped differently, and
        is refused: calibrate at that resolution.
        """
        w, h = int(size[0]), int(size[1])
        cw, ch = self.image_size
        if (w, h) == (cw, ch):
            return self.camera_matrix
        sx, sy = w / cw, h / ch
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CalibrationError(
                f"the frame is {w}x{h} but the camera was calibrated at {cw}x{ch}, another shape: "
                "calibrate the camera at the resolution you use"
            )
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        k[0, 2] += 0.5 * sx - 0.5  # pixel centres at integer coordinates
        k[1, 2] += 0.5 * sy - 0.5
        return k

    # --- frames and points --------------------------------------------------------------------

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame as an ideal pinhole camera with the same camera matrix would see it.

        The remapping tables are computed once per frame size and kept, so calling this on
        every frame of a live stream costs one ``cv2.remap``.
        """
        if (
            frame is None
            or not isinstance(frame, np.ndarray)
            or frame.size == 0
            or frame.ndim not in (2, 3)
        ):
            raise CalibrationError("empty frame: is the camera connected and delivering images?")
        h, w = frame.shape[:2]
        maps = self._maps.get((w, h))
        if maps is None:
            k = self.matrix_for((w, h))
            maps = cv2.initUndistortRectifyMap(k, self.dist_coeffs, None, k, (w, h), cv2.CV_16SC2)
            self._maps[(w, h)] = maps
        return cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def undistort_points(
        self, points: Any, image_size: tuple[int, int] | None = None
    ) -> np.ndarray:
        """Pixel points (N x 2) of a raw frame -> where :meth:`undistort` puts them (N x 2)."""
        pts = _points(points)
        if len(pts) == 0:
            return pts
        k = self.matrix_for(image_size or self.image_size)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
        src = pts.reshape(-1, 1, 2)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4
            out = cv2.undistortPointsIter(src, k, self.dist_coeffs, None, k, criteria)
        else:  # OpenCV 5
            out = cv2.undistortPoints(src, k, self.dist_coeffs, None, None, k, criteria)
        return out.reshape(-1, 2).astype(float)

    def distort_points(self, points: Any, image_size: tuple[int, int] | None = None) -> np.ndarray:
        """The inverse of :meth:`undistort_points`: undistorted pixels -> raw frame pixels."""
        pts = _points(points)
        if len(pts) == 0:
            return pts
        k = self.matrix_for(image_size or self.image_size)
        rays = np.c_[
            (pts[:, 0] - k[0, 2] - k[0, 1] * (pts[:, 1] - k[1, 2]) / k[1, 1]) / k[0, 0],
            (pts[:, 1] - k[1, 2]) / k[1, 1],
            np.ones(len(pts)),
        ]
        out, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return out.reshape(-1, 2).astype(float)

    # --- the calibration file -----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FILE_FORMAT,
            "version": FILE_VERSION,
            "image_size": list(self.image_size),
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.tolist(),
            "rms_px": self.rms,
            "per_image": [{"name": n, "rms_px": r} for n, r in self.per_image],
            "dropped": [{"name": n, "reason": r} for n, r in self.dropped],
            "pattern": None if self.pattern is None else self.pattern.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> CameraCalibration:
        """Read the JSON object written by :meth:`to_json`; errors name the offending field."""
        return _from_json(data)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the calibration file (JSON, documented in ``docs/calibration-camera.md``)."""
        try:
            Path(path).write_text(_dump(self.to_json()), encoding="utf-8")
        except OSError as err:
            raise CalibrationError(
                f"cannot write the calibration file {path}: {err.strerror}"
            ) from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CameraCalibration:
        """Read a calibration file; a malformed one raises :class:`CalibrationError` naming the field."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise CalibrationError(
                f"cannot read the calibration file {path}: {err} - check the path"
            ) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise CalibrationError(
                f"{path} is not JSON (line {err.lineno}): is it a calibration file written by "
                "'tabletop calibrate camera'?"
            ) from None
        except (ValueError, RecursionError):  # a number of thousands of digits; nesting too deep
            raise CalibrationError(
                f"{path} is not a calibration file written by 'tabletop calibrate camera' "
                "(JSON past the reader's limits)"
            ) from None
        try:
            return _from_json(data)
        except CalibrationError as err:
            raise CalibrationError(f"{path}: {err}") from None


def _dump(data: dict[str, Any]) -> str:
    """JSON with one field per line (one line per photo in the lists), for people to read."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items = ",\n".join(f"    {json.dumps(v)}" for v in value)
            lines.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _points(points: Any) -> np.ndarray:
    try:
        pts = np.asarray(points, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError("points must be numbers, N x 2") from None
    if pts.size == 0:
        return np.zeros((0, 2))
    if pts.shape[-1] != 2 or not np.all(np.isfinite(pts)):
        raise CalibrationError(
            f"points must be finite N x 2 pixel coordinates, got shape {pts.shape}"
        )
    return pts.reshape(-1, 2)


def _require(data: dict, name: str) -> Any:
    if name not in data:
        raise CalibrationError(f"field '{name}' is missing")
    return data[name]


def _number_array(value: Any, name: str, shape_text: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError(f"field '{name}' must be {shape_text} of numbers") from None
    if isinstance(value, (str, bytes)) or not np.all(np.isfinite(a)):
        raise CalibrationError(f"field '{name}' must be {shape_text} of finite numbers")
    return a


def _from_json(data: Any) -> CameraCalibration:
    if not isinstance(data, dict):
        raise CalibrationError("a calibration file holds one JSON object")
    if _require(data, "format") != FILE_FORMAT:
        raise CalibrationError(
            f"field 'format' must be {FILE_FORMAT!r}: this is not a camera calibration file"
        )
    if _require(data, "version") != FILE_VERSION:
        raise CalibrationError(
            f"field 'version' is {data['version']!r}; this program reads version {FILE_VERSION}"
        )
    size = _require(data, "image_size")
    if not (
        isinstance(size, list)
        and len(size) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise CalibrationError("field 'image_size' must be [width, height] in whole pixels")
    k = _number_array(_require(data, "camera_matrix"), "camera_matrix", "a 3x3 list")
    if k.shape != (3, 3):
        raise CalibrationError(f"field 'camera_matrix' must be 3x3, got shape {k.shape}")
    d = _number_array(_require(data, "dist_coeffs"), "dist_coeffs", "a list")
    if d.ndim != 1 or len(d) not in _COEFF_COUNTS:
        raise CalibrationError(
            f"field 'dist_coeffs' must be a list of {', '.join(map(str, _COEFF_COUNTS))} numbers"
        )
    rms = _require(data, "rms_px")
    if not (
        isinstance(rms, (int, float))
        and not isinstance(rms, bool)
        and math.isfinite(rms)
        and rms >= 0
    ):
        raise CalibrationError("field 'rms_px' must be a non-negative number")
    per_image = []
    for i, item in enumerate(_list(data, "per_image")):
        if not (
            isinstance(item, dict)
            and isinstance(item.get("name"), str)
            and isinstance(item.get("rms_px"), (int, float))
            and not isinstance(item.get("rms_px"), bool)
        ):
            raise CalibrationError(
                f'field \'per_image[{i}]\' must be {{"name": text, "rms_px": number}}'
            )
        per_image.append((item["name"], float(item["rms_px"])))
    dropped = []
    for i, item in enumerate(_list(data, "dropped")):
        if not (
            isinstance(item, dict)
            and isinstance(item.get("name"), str)
            and isinstance(item.get("reason"), str)
        ):
            raise CalibrationError(
                f'field \'dropped[{i}]\' must be {{"name": text, "reason": text}}'
            )
        dropped.append((item["name"], item["reason"]))
    raw_pattern = _require(data, "pattern")
    pattern = None if raw_pattern is None else pattern_from_json(raw_pattern)
    unknown = set(data) - {
        "format",
        "version",
        "image_size",
        "camera_matrix",
        "dist_coeffs",
        "rms_px",
        "per_image",
        "dropped",
        "pattern",
    }
    if unknown:
        raise CalibrationError(f"unknown field '{min(unknown)}' (a typo?)")
    return CameraCalibration(
        k, d, tuple(size), float(rms), tuple(per_image), tuple(dropped), pattern
    )


def _list(data: dict, name: str) -> list:
    value = _require(data, name)
    if not isinstance(value, list):
        raise CalibrationError(f"field '{name}' must be a list")
    return value

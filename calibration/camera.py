"""Camera intrinsics from photos of a printed chessboard or ChArUco board.

:func:`calibrate_camera` finds the pattern in every photo (dropping, with a message, the
photos where it is not found), refines the corners to sub-pixel, calibrates, measures the
RMS reprojection error of each photo, drops the photos whose error is far above the others
(a robust rule, below) and calibrates again without them. The result, a
:class:`CameraCalibration`, is saved as a JSON file (see ``docs/calibration-camera.md``) and
undistorts frames and points for the live pipeline.

The class and its file are :mod:`calibration.camera_intrinsics`; this module holds the
calibration procedure and the outlier rule, and re-exports the class.

Outlier rule: with ``m`` the median of the per-photo RMS errors and ``s = 1.4826 * MAD`` their
robust spread, a photo is dropped when its RMS is above ``m + outlier_k * s``, above
``outlier_ratio * m`` and above ``outlier_min_px``. The last two conditions keep photos that
are fine in absolute terms when the others agree unusually well (the rule is there to remove
gross errors: a blurred photo, a board that moved, a corner found in the wrong place). At
least ``min_images`` photos are always kept.

>>> import numpy as np
>>> cal = CameraCalibration(np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]]),
...                         np.zeros(5), (640, 480), rms=0.0)
>>> cal.undistort_points([[320.0, 240.0]]).tolist()
[[320.0, 240.0]]
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.camera_intrinsics import FILE_FORMAT, FILE_VERSION, CameraCalibration  # noqa: F401
from calibration.errors import CalibrationError
from calibration.patterns import (
    CalibrationPattern,
    ChessboardPattern,
    PatternNotFoundError,
    detect_pattern,
    find_chessboard_corners,
    load_grey,
    make_pattern,
    parse_pattern_size,
    parse_square_size,
)

__all__ = [
    "FILE_FORMAT",
    "CameraCalibration",
    "calibrate_camera",
    "find_outliers",
    "parse_pattern_size",
    "parse_square_size",
]

DISTORTION_MODELS = {"standard": 0, "rational": cv2.CALIB_RATIONAL_MODEL}
_MAD_TO_SIGMA = 1.4826


def find_outliers(
    errors: Sequence[float],
    outlier_k: float = 3.0,
    outlier_ratio: float = 1.5,
    outlier_min_px: float = 0.3,
    keep_at_least: int = 3,
) -> list[int]:
    """Indices of the per-photo RMS errors (pixels) far above the others, worst first.

    An error is an outlier when it is above ``median + outlier_k * 1.4826 * MAD``, above
    ``outlier_ratio * median`` and above ``outlier_min_px``; no more are returned than leave
    ``keep_at_least`` photos.

    >>> find_outliers([0.20, 0.21, 0.19, 0.22, 0.20, 1.3, 0.45])
    [5, 6]
    >>> find_outliers([0.03, 0.03, 0.04, 0.03, 0.07])
    []
    """
    e = np.asarray(errors, dtype=float)
    if len(e) == 0:
        return []
    limit = _outlier_limit(e, outlier_k, outlier_ratio, outlier_min_px)
    worst_first = [int(i) for i in np.argsort(-e, kind="stable") if e[i] > limit]
    return worst_first[: max(0, len(e) - keep_at_least)]


def _outlier_limit(
    e: np.ndarray, outlier_k: float, outlier_ratio: float, outlier_min_px: float
) -> float:
    median = float(np.median(e))
    spread = _MAD_TO_SIGMA * float(np.median(np.abs(e - median)))
    return max(median + outlier_k * spread, outlier_ratio * median, outlier_min_px)


@dataclass(frozen=True)
class _Fit:
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    rms: float
    per_image: np.ndarray


def _fit(views: list[tuple[np.ndarray, np.ndarray]], size: tuple[int, int], flags: int) -> _Fit:
    obj = [o.astype(np.float32).reshape(-1, 1, 3) for _, o in views]
    img = [i.astype(np.float32).reshape(-1, 1, 2) for i, _ in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    try:
        _, k, d, rvecs, tvecs = cv2.calibrateCamera(
            obj, img, size, None, None, flags=flags, criteria=criteria
        )
    except cv2.error as err:
        raise CalibrationError(
            "the calibration did not converge - take photos with the board tilted in different "
            f"directions and filling more of the frame (OpenCV: {str(err).strip().splitlines()[-1]})"
        ) from None
    sq_sums, counts = [], []
    for o, i, r, t in zip(obj, img, rvecs, tvecs):
        proj, _ = cv2.projectPoints(o, r, t, k, d)
        sq_sums.append(float(np.sum((proj.reshape(-1, 2) - i.reshape(-1, 2)) ** 2)))
        counts.append(len(o))
    per = np.sqrt(np.array(sq_sums) / np.array(counts))
    rms = math.sqrt(sum(sq_sums) / sum(counts))
    if not (np.all(np.isfinite(k)) and np.all(np.isfinite(d)) and math.isfinite(rms)):
        raise CalibrationError(
            "the calibration failed (no finite solution) - take photos of the board from more angles"
        )
    return _Fit(k, d.ravel(), rms, per)


def _names(images: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        if len(names) != len(images):
            raise CalibrationError(f"{len(names)} names given for {len(images)} images")
        return [str(n) for n in names]
    paths = [Path(x) if isinstance(x, (str, os.PathLike)) else None for x in images]
    base = [p.name if p is not None else f"image {i + 1}" for i, p in enumerate(paths)]
    if len(set(base)) == len(base):
        return base
    return [str(p) if p is not None else f"image {i + 1}" for i, p in enumerate(paths)]


def calibrate_camera(
    images: Sequence[str | os.PathLike[str] | np.ndarray],
    pattern: tuple[int, int] | str = (9, 6),
    square: float | str = 25.0,
    kind: str = "chessboard",
    *,
    marker_length: float | str | None = None,
    dictionary: str = "DICT_6X6_250",
    legacy_pattern: bool = False,
    names: Sequence[str] | None = None,
    distortion: str = "standard",
    outlier_k: float = 3.0,
    outlier_ratio: float = 1.5,
    outlier_min_px: float = 0.3,
    min_images: int = 3,
    on_message: Callable[[str], None] | None = None,
) -> CameraCalibration:
    """Calibrate a camera from photos (file paths or numpy images) of a printed pattern.

    ``kind="chessboard"``: ``pattern`` is the number of inner corners ``(cols, rows)`` and
    ``square`` the side of a square (millimetres if given as a number; text such as
    ``"25mm"`` or ``"1in"`` is converted). ``kind="charuco"``: ``pattern`` is the number of
    squares ``(squares_x, squares_y)``, ``square`` the square length and ``marker_length`` the
    marker's side in the same unit, ``dictionary`` the OpenCV dictionary name. ``distortion``
    is ``"standard"`` (k1, k2, p1, p2, k3) or ``"rational"`` (8 coefficients, for wide-angle
    lenses). Each photo dropped and why is passed to ``on_message`` and kept in
    ``CameraCalibration.dropped``.

    Raises :class:`CalibrationError` when fewer than ``min_images`` photos show the pattern.
    """
    spec = make_pattern(kind, pattern, square, marker_length, dictionary, legacy_pattern)
    if distortion not in DISTORTION_MODELS:
        raise CalibrationError(
            f"unknown distortion model {distortion!r}: use 'standard' or 'rational'"
        )
    if min_images < 1:
        raise CalibrationError("min_images must be at least 1")
    if isinstance(images, (str, os.PathLike, np.ndarray)):
        images = [images]
    images = list(images)
    labels = _names(images, names)
    say = on_message or (lambda _message: None)

    views: list[tuple[np.ndarray, np.ndarray]] = []
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    size: tuple[int, int] | None = None
    first_grey: np.ndarray | None = None

    def drop(name: str, reason: str) -> None:
        reason = reason[len(name) + 2 :] if reason.startswith(f"{name}: ") else reason
        dropped.append((name, reason))
        say(f"{name}: {reason} (dropped)")

    for image, name in zip(images, labels):
        try:
            grey = load_grey(image, name)
            shape = (int(grey.shape[1]), int(grey.shape[0]))
            if size is not None and shape != size:
                raise PatternNotFoundError(
                    f"{name}: is {shape[0]}x{shape[1]} but the photos before it are {size[0]}x{size[1]} - "
                    "use photos from one camera at one resolution"
                )
            first_grey = grey if first_grey is None else first_grey
            views.append(detect_pattern(spec, grey, name))
        except PatternNotFoundError as err:
            drop(name, str(err))
            continue
        size = shape
        kept.append(name)

    if len(views) < min_images:
        raise CalibrationError(
            _too_few(spec, len(views), len(images), min_images, dropped, first_grey)
        )
    if len(views) < 10:
        say(
            f"only {len(views)} photos show the pattern; 10 or more, with the board tilted in different "
            "directions, give a steadier calibration"
        )

    assert size is not None
    flags = DISTORTION_MODELS[distortion]
    fit = _fit(views, size, flags)
    outliers = find_outliers(fit.per_image, outlier_k, outlier_ratio, outlier_min_px, min_images)
    if outliers:
        median = float(np.median(fit.per_image))
        limit = _outlier_limit(fit.per_image, outlier_k, outlier_ratio, outlier_min_px)
        for i in outliers:
            drop(
                kept[i],
                f"RMS error {fit.per_image[i]:.2f} px, far above the median {median:.2f} px "
                f"(limit {limit:.2f} px): blurred, moved while taken, or a corner found in the wrong place?",
            )
        keep = [i for i in range(len(views)) if i not in set(outliers)]
        views = [views[i] for i in keep]
        kept = [kept[i] for i in keep]
        fit = _fit(views, size, flags)
    return CameraCalibration(
        fit.camera_matrix,
        fit.dist_coeffs,
        size,
        fit.rms,
        tuple(zip(kept, (float(r) for r in fit.per_image))),
        tuple(dropped),
        spec,
    )


def _too_few(
    spec: CalibrationPattern,
    found: int,
    given: int,
    min_images: int,
    dropped: list[tuple[str, str]],
    first_grey: np.ndarray | None,
) -> str:
    lines = [
        (
            f"only {found} of {given} images show a usable {spec.describe()}; "
            f"a calibration needs at least {min_images} (10 or more is better)."
        )
    ]
    if found == 0 and first_grey is not None and isinstance(spec, ChessboardPattern):
        cols, rows = spec.size
        smaller = (
            ChessboardPattern((cols - 1, rows - 1), spec.square) if min(cols, rows) > 3 else None
        )
        if smaller is not None and find_chessboard_corners(smaller, first_grey) is not None:
            lines.append(
                f"A {cols - 1}x{rows - 1} chessboard was found: count inner corners, not squares "
                f"(pattern {cols - 1}x{rows - 1}, --pattern {cols - 1}x{rows - 1} on the command line)."
            )
    by_reason: dict[str, list[str]] = {}
    for name, reason in dropped:
        by_reason.setdefault(reason, []).append(name)
    for reason, names in by_reason.items():
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"  {shown}: {reason}")
    return "\n".join(lines)

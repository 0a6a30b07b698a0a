"""Fiducial markers: the kits' marker specification, detection, and the board pose they give.

Every printed kit carries ArUco markers from OpenCV's ``DICT_4X4_50`` dictionary (4x4 bits,
50 ids, robust at small sizes). Each board kind has its own ids, so a marker from another
game's kit is recognised as such. The specification is kept as data
(:class:`MarkerSpec`): the kit printer and the detector read the same numbers.

==========================  =========  ====================================================
kit                         ids        board units and size
==========================  =========  ====================================================
OneWorld map (14 x 23)      0-3        hexes (circumradius 15 mm), markers 40 mm
When Gods Collide tile mat  4-7        16 x 16 squares of 30 mm (the 2 x 2 tiles lie on it)
Wormholes galaxy            8-11       10 x 18 cells of 1 inch (piecepack tiles)
Battle Grounds basic        12-15      6 x 7 squares of 40 mm
Battle Grounds advanced     16-19      8 x 8 squares of 40 mm
The Game field              40-43      24 x 24 inches (any size), markers 3 inches
The Game scale marker       44         one 6 inch marker beside the field
==========================  =========  ====================================================

Ids 20-39 and 45-49 are reserved for later kits. The four markers of a kit are listed
top-left, top-right, bottom-right, bottom-left (board coordinates); each sits outside the
playing area, diagonally off its corner, with its inner corner ``gap`` away from the
area's corner along both edges. docs/calibration.md has the drawings and the printing rules.

The specification is :mod:`calibration.marker_spec`, detection
:mod:`calibration.marker_detection`; this module fits the board pose to the markers found
and re-exports the names of both, so each of them can be imported from here.

>>> spec = kit("battle-grounds-advanced")
>>> spec.ids, spec.units, spec.size
((16, 17, 18, 19), 'square', (8.0, 8.0))
>>> spec.marker_corners(16).round(3).tolist()  # 30 mm marker, 5 mm gap, 40 mm squares
[[-0.875, -0.875], [-0.125, -0.875], [-0.125, -0.125], [-0.875, -0.125]]
>>> owner_of(41).name
'the-game-field'
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.marker_detection import (
    MarkerConfig,
    MarkerSighting,
    PointUndistorter,
    as_gray,
    detect_markers,
    read_image,
    refine_marker_edges,
)
from calibration.marker_spec import (
    DICTIONARY,
    KITS,
    MarkerSpec,
    field_spec,
    kit,
    kits_for_game,
    oneworld_map_spec,
    owner_of,
    scale_marker_spec,
)
from calibration.pose import BoardPose, PoseQuality

__all__ = [
    "DICTIONARY",
    "KITS",
    "MarkerConfig",
    "MarkerFit",
    "MarkerSighting",
    "MarkerSpec",
    "MarkerWarning",
    "PointUndistorter",
    "as_gray",
    "detect_markers",
    "field_spec",
    "fit_markers",
    "kit",
    "kits_for_game",
    "locate_board",
    "oneworld_map_spec",
    "owner_of",
    "pose_from_markers",
    "read_image",
    "refine_marker_edges",
    "scale_marker_spec",
    "sight_kit",
]


class MarkerWarning(UserWarning):
    """A pose was found, but not from every marker (one hidden or ignored)."""


@dataclass(frozen=True)
class MarkerFit:
    """A board pose found from markers, and which markers it rests on.

    ``used``: ids the homography was fitted to; ``hidden``: the kit's ids not seen;
    ``ignored``: ids seen but dropped because they disagreed with the others; ``notes``:
    sentences for the user (which marker is hidden, which was ignored).
    """

    pose: BoardPose
    used: tuple[int, ...]
    hidden: tuple[int, ...]
    ignored: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def _describe_hidden(spec: MarkerSpec, hidden: list[int]) -> str:
    parts = [f"the {spec.place_name(i)} marker (id {i})" for i in hidden]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{text} {'is' if len(parts) == 1 else 'are'} hidden"


def _not_enough(spec: MarkerSpec, sighting: MarkerSighting, seen: list[int]) -> CalibrationError:
    hidden = [i for i in spec.ids if i not in seen]
    foreign: dict[str, list[int]] = {}
    unknown = 0
    for i in sighting.ids.tolist():
        owner = owner_of(int(i))
        if owner is None:
            unknown += 1
        elif owner.name != spec.name:
            foreign.setdefault(owner.name, []).append(int(i))
    if foreign:
        name = max(foreign, key=lambda n: len(foreign[n]))
    if foreign and len(foreign[name]) < min(2, len(KITS[name].ids)):
        unknown += sum(len(v) for v in foreign.values())  # one stray marker proves nothing:
        foreign = {}  # 4x4 codes are small, and printed icons sometimes read as one
    if foreign:
        owner = KITS[name]
        ids = owner.describe_ids()  # "ids 0-3" or "id 44"
        which = f"markers {ids[4:]} belong" if ids.startswith("ids ") else f"marker {ids[3:]} belongs"
        return CalibrationError(
            f"{which} to {owner.title}, not to {spec.title}: "
            f"is this the right game? ({spec.title} uses {spec.describe_ids()})"
        )
    if len(spec.ids) == 1:
        return CalibrationError(
            f"the scale marker ({spec.describe_ids()}) is not in view: lay it beside the field's "
            "near-left corner, uncovered, and keep it in the picture"
        )
    if not seen:
        extra = f" ({unknown} marker(s) with other ids were seen)" if unknown else ""
        return CalibrationError(
            f"no markers of {spec.title} found ({spec.describe_ids()}){extra}: are the corner "
            f"markers in view, uncovered, well lit and printed from {spec.dictionary}?"
        )
    return CalibrationError(
        f"only {len(seen)} of {len(spec.ids)} markers visible: {_describe_hidden(spec, hidden)}; "
        f"uncover them or move the camera so that at least {spec.min_markers} are in view "
        "(or two at opposite corners)"
    )


def _fit(board: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, float]:
    """Board -> image homography (least squares in the image, where the noise is) and its RMS."""
    h, _ = cv2.findHomography(board.astype(np.float64), image.astype(np.float64), 0)
    if h is None or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        raise CalibrationError("the markers give no usable board pose (are they all on one line?)")
    q = (h @ np.c_[board, np.ones(len(board))].T).T
    if np.any(q[:, 2] <= 0):
        raise CalibrationError(
            "the markers give no usable board pose: are they all on the board's plane?"
        )
    err = q[:, :2] / q[:, 2:3] - image
    return h, float(np.sqrt((err**2).sum(axis=1).mean()))


def _fit_pnp(
    board: np.ndarray, image: np.ndarray, camera_matrix: np.ndarray
) -> tuple[np.ndarray, float]:
    """Board -> image homography ``K [r1 r2 t]`` of the camera pose that sees the board points
    at ``image`` (undistorted pixels). With the intrinsics known, one marker's four corners fix
    the ground plane far better than a free homography can."""
    obj = np.c_[board, np.zeros(len(board))].astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(
        obj, image.astype(np.float64), camera_matrix, None, flags=cv2.SOLVEPNP_IPPE
    )
    if not ok:
        raise CalibrationError(
            "the scale marker gives no camera pose: is it flat and printed at the size given?"
        )
    rot, _ = cv2.Rodrigues(rvec)
    h = camera_matrix @ np.c_[rot[:, 0], rot[:, 1], tvec.ravel()]
    h = h / h[2, 2]
    err = _project(h, board) - image
    return h, float(np.sqrt((err**2).sum(axis=1).mean()))


def _coverage(board_to_image: np.ndarray, spec: MarkerSpec, frame: tuple[int, int]) -> float:
    """Fraction of the frame the playing area covers (clipped to the frame)."""
    q = (board_to_image @ np.c_[spec.area_corners(), np.ones(4)].T).T
    if np.any(q[:, 2] <= 0):
        raise CalibrationError(
            "the board would reach beyond the horizon: is the camera too low, or the marker size wrong?"
        )
    quad = (q[:, :2] / q[:, 2:3]).astype(np.float32)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        raise CalibrationError(
            "the markers do not form a flat board: are they where the kit puts them?"
        )
    w, h = frame
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area, _ = cv2.intersectConvexConvex(quad, rect)
    return float(max(area, 0.0)) / float(w * h)


def fit_markers(
    sighting: MarkerSighting,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen, from marker_detection)
) -> MarkerFit:
    """The board pose from the kit's markers in a sighting (at least 3 of 4, two at opposite
    corners, or the one scale marker); a :class:`CalibrationError` that says what to do
    otherwise.

    With a ``camera``, marker corners are undistorted first: the pose then maps undistorted
    pixels (undistort points with the same calibration before mapping them to the board).
    """
    seen = [i for i in spec.ids if sighting.corners_of(i) is not None]
    if not spec.enough(seen):
        raise _not_enough(spec, sighting, seen)
    image = np.stack([sighting.corners_of(i) for i in seen]).reshape(-1, 2)  # type: ignore[misc]
    if camera is not None:
        image = np.asarray(camera.undistort_points(image, sighting.frame_size), float).reshape(
            -1, 2
        )
    board = np.vstack([spec.marker_corners(i) for i in seen])
    matrix = getattr(camera, "matrix_for", None)
    if len(seen) == 1 and matrix is not None:  # a lone marker and known intrinsics: a 6-dof pose
        h, residual = _fit_pnp(board, image, np.asarray(matrix(sighting.frame_size), float))
    else:
        h, residual = _fit(board, image)
    used, ignored, notes = list(seen), [], []
    if len(seen) >= 4:
        # Each marker as the others predict it: one far off (moved, or a stray look-alike)
        # is dropped when the rest agree; the homography would otherwise bend towards it.
        best = None
        for k, drop in enumerate(seen):
            keep = np.arange(len(board)) // 4 != k
            hk, rk = _fit(board[keep], image[keep])
            off = float(np.linalg.norm(_project(hk, board[~keep]) - image[~keep], axis=1).mean())
            if best is None or off > best[0]:
                best = (off, hk, rk, drop)
        assert best is not None
        off, hk, rk, drop = best
        clear = residual > config.max_residual_px or (
            residual > 4 * max(rk, 0.25) and off > 2 * config.max_residual_px
        )  # the rest agree far better without it (a bent board spreads the error over all)
        if clear and rk <= config.max_residual_px:
            h, residual = hk, rk
            used.remove(drop)
            ignored.append(drop)
            notes.append(
                f"the {spec.place_name(drop)} marker (id {drop}) is {off:.0f} px from where the "
                "others put it: ignored (has it moved?)"
            )
    if residual > config.max_residual_px:
        raise CalibrationError(
            f"the markers disagree by {residual:.1f} px RMS: is the board flat, and are the markers "
            f"printed {spec.marker_mm:g} mm wide where the kit puts them?"
        )
    coverage = _coverage(h, spec, sighting.frame_size)
    if coverage < config.min_coverage:
        pct = f"{coverage * 100:.0f}" if coverage >= 0.01 else f"{coverage * 100:.1f}"
        raise CalibrationError(f"the board fills {pct}% of the frame: move the camera closer")
    hidden = [i for i in spec.ids if i not in seen]
    if hidden:
        notes.insert(
            0, f"{len(seen)} of {len(spec.ids)} markers visible: {_describe_hidden(spec, hidden)}"
        )
    method = "markers"
    if len(spec.ids) == 1:
        method = "scale marker + camera" if matrix is not None else "scale marker"
    quality = PoseQuality(method, residual, len(used), len(spec.ids), coverage, spec.marker_mm)
    pose = BoardPose.from_homography(np.linalg.inv(h), spec.units, spec.size, quality)
    return MarkerFit(pose, tuple(used), tuple(hidden), tuple(ignored), tuple(notes))


def _project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    q = (h @ np.c_[points, np.ones(len(points))].T).T
    return q[:, :2] / q[:, 2:3]


def sight_kit(
    image: Any,
    spec: MarkerSpec,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen, from marker_detection)
    sighting: MarkerSighting | None = None,
) -> MarkerSighting:
    """The kit's markers in a frame. When too few are decoded to fix the pose, the frame is
    looked at again enlarged twice (``detect_markers(..., zoom=2)``) and the kit's markers
    found only there are added: the far side of a board seen low over the table, or from
    far, has markers whose bits are a pixel or two. :func:`fit_markers` then checks that
    they agree with the rest. ``sighting``: the frame's markers at its own size, when
    already detected (with ``config``)."""
    if sighting is None:
        sighting = detect_markers(image, spec.dictionary, config)
    if spec.enough([i for i in spec.ids if sighting.corners_of(i) is not None]):
        return sighting
    closer = detect_markers(image, spec.dictionary, config, zoom=2)
    missing = [i for i in spec.ids if sighting.corners_of(i) is None and closer.corners_of(i) is not None]
    if not missing:
        return sighting
    ids = np.concatenate([sighting.ids, np.array(missing, int)])
    corners = np.concatenate([sighting.corners.reshape(-1, 4, 2),
                              np.stack([closer.corners_of(i) for i in missing])])  # type: ignore[misc]
    return MarkerSighting(ids, corners, sighting.frame_size)


def locate_board(
    image: Any,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen, from marker_detection)
) -> MarkerFit:
    """Find the kit's markers in a frame (:func:`sight_kit`) and fit the board pose (see
    :func:`fit_markers`)."""
    return fit_markers(sight_kit(image, spec, config), spec, camera, config)


def pose_from_markers(
    image: Any,
    spec: MarkerSpec,
    camera: PointUndistorter | None = None,
    config: MarkerConfig = MarkerConfig(),  # noqa: B008 (frozen, from marker_detection)
) -> BoardPose:
    """The board pose from one frame showing at least 3 of the kit's 4 corner markers (or two
    at opposite corners).

    A hidden or ignored marker is reported as a :class:`MarkerWarning` (and in
    ``pose.quality.seen``); :func:`locate_board` returns the same notes as data.
    """
    fit = locate_board(image, spec, camera, config)
    for note in fit.notes:
        warnings.warn(note, MarkerWarning, stacklevel=2)
    return fit.pose

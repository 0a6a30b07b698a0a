"""The live pose tracker: hands over markers, a bumped board, a moved camera; golden event
sequences on synthetic frames and on two real photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.markers import MarkerSpec, detect_markers, kit, read_image
from calibration.synthetic import (
    camera_homography,
    pose_errors,
    render_frame,
    render_with_homography,
)
from calibration.tracker import HOLDING, MOVED, SEARCHING, TRACKING, PoseTracker, TrackerConfig

DATA = Path(__file__).resolve().parents[1] / "data" / "real" / "aruco"
SPEC = kit("battle-grounds-advanced")


def _views() -> tuple[np.ndarray, np.ndarray]:
    """Two camera views of the board: the second is the first after a bump (the board turned
    by about a degree and slid a few millimetres)."""
    first, _, _ = camera_homography(SPEC, np.random.default_rng(11), tilt=60)
    c, s = np.cos(np.radians(1.2)), np.sin(np.radians(1.2))
    bump = np.array([[c, -s, 0.15], [s, c, 0.1], [0, 0, 1]])  # in board squares
    return first, first @ bump


def _frame(view: np.ndarray, seed: int, hide: tuple[int, ...] = ()) -> np.ndarray:
    return render_with_homography(SPEC, view, seed, hide=hide).image


def test_golden_sequence_hands_then_a_bump() -> None:
    first, bumped = _views()
    script = [  # (view, hidden markers, expected state, expected events)
        (first, (), TRACKING, ["board found: calibrated from 4 markers"]),
        (first, (), TRACKING, []),
        (first, (17,), TRACKING, ["markers hidden: keeping the last pose"]),
        (first, (16, 17), TRACKING, []),
        (first, SPEC.ids, HOLDING, []),
        (first, SPEC.ids, HOLDING, []),
        (first, (), TRACKING, ["markers in view again"]),
        (bumped, (), TRACKING, []),  # moved: 1st frame
        (bumped, (), TRACKING, []),  # 2nd
        (bumped, (), TRACKING, ["board moved: re-calibrated"]),  # 3rd: confirmed
        (bumped, (), TRACKING, []),
    ]
    tracker = PoseTracker(SPEC)
    poses = []
    for n, (view, hidden, state, events) in enumerate(script, 1):
        update = tracker.update(_frame(view, seed=100 + n, hide=hidden))
        assert (update.state, [e.text for e in update.events]) == (state, events), f"frame {n}"
        assert all(e.frame == n for e in update.events)
        assert update.visible == tuple(i for i in SPEC.ids if i not in hidden)
        poses.append(update.pose)
    # the pose is kept (the same object) from calibration until the bump is confirmed
    assert all(p is poses[0] for p in poses[:9]) and poses[9] is not poses[0]
    truth_before = render_with_homography(SPEC, first, 0)
    truth_after = render_with_homography(SPEC, bumped, 0)
    assert pose_errors(poses[0], truth_before).max() <= 0.02
    assert pose_errors(poses[8], truth_after).max() > 0.1  # the stale pose, before confirmation
    assert pose_errors(poses[9], truth_after).max() <= 0.02


def test_a_single_odd_frame_does_not_recalibrate() -> None:
    first, bumped = _views()
    tracker = PoseTracker(SPEC, TrackerConfig(confirm_frames=2))
    tracker.update(_frame(first, 1))
    pose = tracker.pose
    odd = tracker.update(_frame(bumped, 2))
    assert odd.residual_px is not None and odd.residual_px > tracker.config.move_threshold_px
    assert tracker.update(_frame(first, 3)).events == () and tracker.pose is pose
    assert tracker.update(_frame(bumped, 4)).events == ()
    assert [e.kind for e in tracker.update(_frame(bumped, 5)).events] == ["recalibrated"]


def test_a_kept_pose_is_checked_without_fitting_edges_and_a_refit_fits_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Still frames check the pose with OpenCV's corners (no edge fit); the frame that
    re-calibrates after a bump is read with its edges fitted: the same pose as a fresh
    tracker calibrates from it."""
    import calibration.marker_detection as md

    fitted = []
    refine = md.refine_marker_edges
    monkeypatch.setattr(md, "refine_marker_edges", lambda *a, **k: fitted.append(1) or refine(*a, **k))
    first, bumped = _views()
    tracker = PoseTracker(SPEC, TrackerConfig(confirm_frames=1))
    tracker.update(_frame(first, 1))
    assert len(fitted) >= len(SPEC.ids)  # the calibration fits every marker's edges (and any other quad found)
    fitted.clear()
    still = [tracker.update(_frame(first, seed)) for seed in (2, 3, 4)]
    assert fitted == [] and all(u.state == TRACKING and u.events == () for u in still)
    assert all(u.residual_px < tracker.config.move_threshold_px / 2 for u in still)
    moved = tracker.update(_frame(bumped, 5))
    assert [e.kind for e in moved.events] == ["recalibrated"] and fitted
    fresh = PoseTracker(SPEC).update(_frame(bumped, 5)).pose
    assert np.allclose(moved.pose.to_image(np.array([[0.0, 0.0], [8.0, 8.0]])),
                       fresh.to_image(np.array([[0.0, 0.0], [8.0, 8.0]])))


def test_moved_with_too_few_markers_says_so_then_recovers() -> None:
    first, bumped = _views()
    tracker = PoseTracker(SPEC, TrackerConfig(confirm_frames=1))
    tracker.update(_frame(first, 1))
    stuck = tracker.update(_frame(bumped, 2, hide=(18, 19)))
    assert stuck.state == MOVED and stuck.pose is not None
    assert [e.text for e in stuck.events] == [
        (
            "board moved: only 2 of 4 markers visible: the bottom-right marker (id 18) and the bottom-left "
            "marker (id 19) are hidden; uncover them or move the camera so that at least 3 are in view "
                "(or two at opposite corners)"
        )
    ]
    assert tracker.update(_frame(bumped, 3, hide=(18, 19))).events == ()  # said once
    back = tracker.update(_frame(bumped, 4))
    assert (back.state, [e.kind for e in back.events]) == (TRACKING, ["recalibrated"])


def test_before_calibration_the_problem_is_reported() -> None:
    first, _ = _views()
    tracker = PoseTracker(SPEC)
    update = tracker.update(_frame(first, 1, hide=(16, 17, 18)))
    assert (update.state, update.pose, update.events) == (SEARCHING, None, ())
    assert update.problem is not None and update.problem.startswith("only 1 of 4 markers visible")
    with pytest.raises(CalibrationError, match="empty frame"):
        tracker.update(np.zeros((0, 0), np.uint8))
    assert tracker.state == SEARCHING
    assert [e.kind for e in tracker.update(_frame(first, 2)).events] == ["calibrated"]
    tracker.reset()
    assert tracker.pose is None and tracker.state == SEARCHING


def test_config_is_checked() -> None:
    with pytest.raises(CalibrationError):
        TrackerConfig(move_threshold_px=0)
    with pytest.raises(CalibrationError):
        TrackerConfig(confirm_frames=0)


def test_real_photos_board_moved_under_a_mouse() -> None:
    """Two real photos of a ChArUco board from slightly different places, the second with a
    mouse over part of it: the tracker keeps the first pose for two frames, then re-calibrates
    from the three corner markers still in view."""
    board = cv2.aruco.CharucoBoard(
        (5, 7), 0.04, 0.02, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    )
    centres = {
        int(i): np.array(o)[:, :2].mean(axis=0) / 0.04
        for i, o in zip(board.getIds(), board.getObjPoints())
    }
    spec = MarkerSpec(
        name="charuco",
        game="test",
        title="the tutorial ChArUco board",
        ids=(2, 4, 14, 12),
        places=("tl", "tr", "br", "bl"),
        area=(0.75, 1.75, 4.25, 5.25),
        units="square",
        size=(5.0, 7.0),
        unit_mm=40.0,
        marker_mm=20.0,
        gap_mm=0.0,
        dictionary="DICT_6X6_250",
    )
    still = read_image(DATA / "charuco_5x7_choriginal.jpg")
    covered = read_image(DATA / "charuco_5x7_occlusion.jpg")
    tracker = PoseTracker(spec)
    texts = [
        [e.text for e in tracker.update(image).events]
        for image in (still, still, covered, covered, covered)
    ]
    assert texts == [
        ["board found: calibrated from 4 markers"],
        [],
        [],
        [],
        ["board moved: re-calibrated"],
    ]
    sighting = detect_markers(covered, "DICT_6X6_250")
    expected = tracker.pose.to_image(np.array([centres[int(i)] for i in sighting.ids]))  # type: ignore[union-attr]
    err = np.linalg.norm(expected - sighting.corners.mean(axis=1), axis=1)
    assert np.sqrt((err**2).mean()) <= 1.0 and err.max() <= 2.0
    assert (
        tracker.update(covered).events == ()
    )  # the bottom-right marker stays hidden: said at calibration


def test_markers_too_small_to_decode_are_looked_for_closer_before_a_pose(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame where the far markers are too small to decode at the frame's own size (the
    mat seen from far, at 640x360): with no pose yet, the tracker looks again at the frame
    enlarged twice, and calibrates from the markers found there, where the points land."""
    spec = kit("when-gods-collide-mat")
    frame = render_frame(spec, seed=1, tilt=50)
    small = cv2.resize(frame.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    own = detect_markers(small, spec.dictionary)
    assert not spec.enough([i for i in spec.ids if own.corners_of(i) is not None])
    closer = detect_markers(small, spec.dictionary, zoom=2)
    for i in own.ids:  # the same markers found both ways agree on their corners
        assert np.abs(closer.corners_of(i) - own.corners_of(i)).max() < 0.5

    update = PoseTracker(spec).update(small)
    assert update.pose is not None and update.state == "tracking"
    assert update.events[0].text == f"board found: calibrated from {len(closer.ids)} markers"
    half = np.diag([0.5, 0.5, 1.0]) @ frame.board_to_image  # the true pose at half size
    corners = np.array([[0, 0], [16, 0], [16, 16], [0, 16]], float)
    truth = cv2.perspectiveTransform(corners[None], half)[0]
    assert np.abs(update.pose.to_image(corners) - truth).max() < 1.5

    followed = PoseTracker(spec)  # with a pose already, a frame is not looked at closer
    followed.update(small)
    import calibration.tracker as tracker_module

    calls: list[int] = []
    real = tracker_module.detect_markers

    def counting(*args: object, zoom: int = 1, **kwargs: object) -> object:
        calls.append(zoom)
        return real(*args, zoom=zoom, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tracker_module, "detect_markers", counting)
    followed.update(small)
    assert calls == [1]


def test_a_camera_moved_back_is_recalibrated_from_markers_looked_at_closer() -> None:
    """With a pose kept, the camera moves: the new view's far markers are too small to decode
    at the frame's own size. Once the markers have sat off the kept pose for
    ``confirm_frames`` frames, the tracker looks at the frame enlarged (as for a first pose)
    and re-calibrates to where the board now is, instead of staying on the old pose."""
    spec = kit("when-gods-collide-mat")
    near = render_frame(spec, seed=1, tilt=80)
    tracker = PoseTracker(spec)
    assert tracker.update(near.image).state == "tracking"
    far = render_frame(spec, seed=1, tilt=50)
    small = cv2.resize(far.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    own = detect_markers(small, spec.dictionary)
    assert own.ids.size and not spec.enough([i for i in spec.ids if own.corners_of(i) is not None])

    updates = [tracker.update(small) for _ in range(tracker.config.confirm_frames)]
    assert [u.state for u in updates[:-1]] == ["tracking"] * (len(updates) - 1)  # kept: one bad frame is noise
    assert updates[-1].state == "tracking"
    assert [e.text for e in updates[-1].events] == ["board moved: re-calibrated"]
    half = np.diag([0.5, 0.5, 1.0]) @ far.board_to_image  # the true pose at half size
    corners = np.array([[0, 0], [16, 0], [16, 16], [0, 16]], float)
    truth = cv2.perspectiveTransform(corners[None], half)[0]
    assert np.abs(updates[-1].pose.to_image(corners) - truth).max() < 1.5  # type: ignore[union-attr]

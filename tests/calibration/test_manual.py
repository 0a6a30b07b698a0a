"""Four corners given by hand: parsing, the pose, orders and shapes refused with a reason."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.manual import board_corners, board_geometry, parse_corners, pose_from_corners
from calibration.markers import kit
from calibration.synthetic import camera_homography


@pytest.mark.parametrize(
    "text, corners",
    [
        ("1,2 3,4 5,6 7,8", [[1, 2], [3, 4], [5, 6], [7, 8]]),
        ("  10.5, 20  30,40.25;50,60   -1,+2 ", [[10.5, 20], [30, 40.25], [50, 60], [-1, 2]]),
        ("0,0 .5,.5 1,1 2,.25", [[0, 0], [0.5, 0.5], [1, 1], [2, 0.25]]),
    ],
)
def test_parse_corners(text: str, corners: list[list[float]]) -> None:
    assert parse_corners(text).tolist() == corners


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "got nothing"),
        ("1,2 3,4 5,6", "exactly four corners .* got 3"),
        ("1,2 3,4 5,6 7,8 9,10", "got 5"),
        ("1,2 3,4 5,6 7:8", "corner 4 is not x,y"),
        ("1,2 a,4 5,6 7,8", "corner 2 is not x,y pixels: 'a,4'"),
        ("1,2 3,4 5,6 nan,8", "corner 4"),
    ],
)
def test_parse_corners_errors(text: str, words: str) -> None:
    with pytest.raises(CalibrationError, match=words):
        parse_corners(text)


@pytest.mark.parametrize(
    "name", ["battle-grounds-advanced", "wormholes-galaxy", "oneworld-map", "the-game-field"]
)
def test_true_corners_give_the_true_pose(name: str) -> None:
    spec = kit(name)
    truth, _, _ = camera_homography(spec, np.random.default_rng(7))
    corners = board_corners(spec.units, spec.size)
    q = (truth @ np.c_[corners, np.ones(4)].T).T
    pose = pose_from_corners(q[:, :2] / q[:, 2:3], spec.units, spec.size, frame_size=(1280, 720))
    assert pose.units == spec.units and pose.size == spec.size
    assert pose.quality.method == "manual" and (pose.quality.seen, pose.quality.expected) == (4, 4)
    assert 0 < pose.quality.coverage < 1
    lattice = np.array(
        [(x, y) for x in np.linspace(0, spec.size[0], 7) for y in np.linspace(0, spec.size[1], 9)]
    )
    seen = (truth @ np.c_[lattice, np.ones(len(lattice))].T).T
    assert np.allclose(pose.to_board(seen[:, :2] / seen[:, 2:3]), lattice, atol=1e-6)


def test_board_corners_and_geometry() -> None:
    assert board_corners("square", (8, 8)).tolist() == [[0, 0], [8, 0], [8, 8], [0, 8]]
    assert board_geometry("battle-grounds") == ("square", (8.0, 8.0))
    assert board_geometry("battle-grounds", (6, 7)) == ("square", (6.0, 7.0))
    assert board_geometry("wormholes") == ("square", (10.0, 18.0))
    assert board_geometry("the-game", field=(36, 24)) == ("inch", (36.0, 24.0))
    units, size = board_geometry("oneworld")  # the centres of the corner hexes of the 14 x 23 map
    assert units == "hex" and size == pytest.approx((13 * np.sqrt(3), 33.0))
    with pytest.raises(CalibrationError, match="unknown game 'chess'"):
        board_geometry("chess")
    with pytest.raises(CalibrationError, match="unknown board unit"):
        board_corners("cm", (1, 1))
    with pytest.raises(CalibrationError, match="must be positive"):
        board_corners("square", (0, 8))


SQUARE = [
    [100, 100],
    [500, 120],
    [520, 480],
    [90, 460],
]  # top-left, top-right, bottom-right, bottom-left


@pytest.mark.parametrize(
    "corners, units, words",
    [
        (
            [SQUARE[0], SQUARE[2], SQUARE[1], SQUARE[3]],
            "square",
            "convex quadrilateral: give them in the order top-left",
        ),
        (SQUARE[::-1], "square", "wrong way .*top-left, top-right, bottom-right, bottom-left"),
        (SQUARE, "inch", "wrong way .*near-left, near-right, far-right, far-left"),
        ([[1, 1], [2, 1], [2, 2], [1, 2]], "square", "almost coincide"),
        ([[0, 0], [100, 0], [200, 0], [0, 100]], "square", "convex"),
        ([[0, 0], [1, 0]], "square", "exactly four"),
        ([[0, 0], [100, 0], [100, float("inf")], [0, 100]], "square", "finite"),
    ],
)
def test_bad_corners_are_refused_with_the_order_to_use(
    corners: list, units: str, words: str
) -> None:
    with pytest.raises(CalibrationError, match=words):
        pose_from_corners(corners, units, (8, 8))


def test_field_corners_go_the_other_way_round() -> None:
    # seen from the near edge: near-left is bottom-left of the picture, far-left top-left
    near_left, near_right, far_right, far_left = [100, 600], [1100, 620], [900, 200], [300, 190]
    pose = pose_from_corners([near_left, near_right, far_right, far_left], "inch", (24, 24))
    assert np.allclose(pose.to_board([near_right, far_left]), [[24, 0], [0, 24]], atol=1e-9)


def test_corners_are_undistorted_with_a_camera() -> None:
    camera = CameraCalibration(
        np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]]),
        np.array([-0.3, 0.1, 0, 0, 0]),
        (1280, 720),
        rms=0.1,
    )
    raw = np.array(SQUARE, float)
    pose = pose_from_corners(raw, "square", (8, 8), frame_size=(1280, 720), camera=camera)
    ideal = camera.undistort_points(raw)
    assert np.abs(ideal - raw).max() > 5
    assert np.allclose(pose.board_corners_in_image(), ideal, atol=1e-6)

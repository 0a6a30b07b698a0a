"""Pixels <-> OneWorld hexes through a board pose: round trips over the whole bundled map."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.markers import kit, locate_board
from calibration.pose import BoardPose
from calibration.synthetic import camera_homography, render_frame
from rules.geometry import Hex
from rules.oneworld.board import bundled_map
from vision.hexmap import HexMapView

WORLD = bundled_map()
SPEC = kit("oneworld-map")


def _pose(seed: int, tilt: float) -> BoardPose:
    truth, _, _ = camera_homography(SPEC, np.random.default_rng(seed), tilt=tilt)
    return BoardPose.from_homography(np.linalg.inv(truth), "hex", SPEC.size)


@pytest.mark.parametrize("seed, tilt", [(1, 90), (2, 55), (3, 30)])
def test_every_map_hex_round_trips_through_its_centre_and_corners(seed: int, tilt: float) -> None:
    view = HexMapView(_pose(seed, tilt), WORLD)
    hexes = view.map_hexes()
    assert len(hexes) == len(WORLD.cells)
    centres = view.centers(hexes)
    assert view.hexes_at(centres) == hexes
    for h in hexes[::7]:
        assert view.hex_at(view.center(h)[0]) == h
        corners = view.corners(h)
        assert corners.shape == (6, 2)
        inside = corners + 0.1 * (view.center(h) - corners)  # a tenth of the way to the centre
        assert view.hexes_at(inside) == [h] * 6


def test_chaos_and_beyond_the_map_are_none() -> None:
    view = HexMapView(_pose(4, 70), WORLD)
    chaos = [
        h
        for h in (
            Hex.from_offset(c, r)
            for c in range(1, WORLD.columns + 1)
            for r in range(1, WORLD.rows + 1)
        )
        if not WORLD.on_map(h)
    ]
    assert chaos, "the default map has Chaos hexes"
    assert view.hexes_at(view.centers(chaos)) == [None] * len(chaos)
    beyond = [
        Hex.from_offset(0, 5),
        Hex.from_offset(WORLD.columns + 3, 10),
        Hex.from_offset(5, WORLD.rows + 2),
    ]
    assert view.hexes_at(view.centers(beyond)) == [None, None, None]


def test_hex_0101_is_the_origin_and_the_corner_hexes_span_the_pose_size() -> None:
    pose = _pose(5, 80)
    view = HexMapView(pose, WORLD)
    assert np.allclose(view.center(Hex.from_offset(1, 1)), pose.to_image([[0, 0]]))
    far = Hex.from_offset(WORLD.columns, WORLD.rows)  # 23 rows: the last row is not shifted
    assert np.allclose(view.center(far), pose.to_image([SPEC.size]))


def test_a_pose_found_from_markers_reads_every_hex_right() -> None:
    frame = render_frame(SPEC, seed=6, tilt=40)
    found = HexMapView(locate_board(frame.image, SPEC).pose, WORLD)
    true = HexMapView(frame.true_pose(), WORLD)
    hexes = found.map_hexes()
    assert found.hexes_at(true.centers(hexes)) == hexes
    # and every hex centre lands within a twentieth of a hex of the truth
    board = np.array([found.layout.center(h) for h in hexes])
    assert np.abs(found.board_points(true.centers(hexes)) - board).max() < 0.05


def test_a_camera_with_lens_distortion_round_trips_raw_pixels() -> None:
    camera = CameraCalibration(
        np.array([[1000.0, 0, 640], [0, 1000, 360], [0, 0, 1]]),
        np.array([-0.25, 0.08, 0, 0, 0]),
        (1280, 720),
        rms=0.1,
    )
    view = HexMapView(_pose(7, 60), WORLD, camera=camera, frame_size=(1280, 720))
    plain = HexMapView(view.pose, WORLD)
    hexes = view.map_hexes()
    raw = view.centers(hexes)
    assert np.abs(raw - plain.centers(hexes)).max() > 3  # the lens moves them
    assert view.hexes_at(raw) == hexes


def test_a_pose_in_squares_is_refused() -> None:
    with pytest.raises(CalibrationError, match="not hexes: calibrate OneWorld's map"):
        HexMapView(BoardPose.from_homography(np.eye(3), "square", (8, 8)), WORLD)

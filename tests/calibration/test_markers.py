"""Marker kits, detection and the board pose from markers: synthetic frames with a known
homography, bad input, and real ArUco photos (tests/data/real/aruco)."""

from __future__ import annotations

import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.markers import (
    DICTIONARY,
    KITS,
    MarkerConfig,
    MarkerSighting,
    MarkerSpec,
    MarkerWarning,
    as_gray,
    detect_markers,
    fit_markers,
    kit,
    kits_for_game,
    locate_board,
    owner_of,
    pose_from_markers,
    read_image,
    sight_kit,
)
from calibration.synthetic import pose_errors, render_frame

DATA = Path(__file__).resolve().parents[1] / "data" / "real" / "aruco"
GRID_TARGET = 0.02  # of a cell (issue 4)


# -- the kits ---------------------------------------------------------------------------


def test_every_kit_has_its_own_ids_from_the_dictionary() -> None:
    size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY)).bytesList.shape[0]
    seen: set[int] = set()
    for spec in KITS.values():
        assert spec.dictionary == DICTIONARY
        assert len(set(spec.ids)) == len(spec.ids)
        assert not seen & set(spec.ids), spec.name
        assert all(0 <= i < size for i in spec.ids)
        seen |= set(spec.ids)
    assert owner_of(41) is kit("the-game-field") and owner_of(44) is kit("the-game-scale")
    assert owner_of(0).name == "oneworld-map" and owner_of(30) is None


@pytest.mark.parametrize("name", sorted(KITS))
def test_each_marker_lies_outside_the_playing_area_off_its_corner(name: str) -> None:
    spec = kit(name)
    x0, y0, x1, y1 = spec.area
    gap = spec.gap_mm / spec.unit_mm
    for marker_id, place in zip(spec.ids, spec.places):
        c = spec.marker_corners(marker_id)
        side = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
        assert np.allclose(side, spec.marker_size)
        corner = {"tl": (x0, y0), "tr": (x1, y0), "br": (x1, y1), "bl": (x0, y1)}[place]
        nearest = c[np.argmin(np.linalg.norm(c - corner, axis=1))]
        assert np.allclose(np.abs(nearest - corner), gap)  # the inner corner, gap off both edges
        inside = (c[:, 0] > x0) & (c[:, 0] < x1) & (c[:, 1] > y0) & (c[:, 1] < y1)
        assert not inside.any()


def _turn(c: np.ndarray) -> float:
    x, y = c[:, 0], c[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def test_markers_read_upright_on_boards_and_from_the_near_edge_on_the_field() -> None:
    # ArUco corners go top-left, top-right, bottom-right, bottom-left of the printed marker:
    # clockwise with y down on a board; reversed on the field, whose y points away (up).
    assert _turn(kit("oneworld-map").marker_corners(0)) > 0
    assert _turn(kit("the-game-field").marker_corners(40)) < 0
    top = kit("the-game-field").marker_corners(40)[:2, 1]
    assert np.all(top == kit("the-game-field").marker_corners(40)[:, 1].max())


def test_a_kit_printed_at_another_size_keeps_its_gap() -> None:
    spec = kit("the-game-field").with_marker_mm(100)
    assert spec.marker_size == pytest.approx(100 / 25.4)
    assert spec.marker_corners(40).max(axis=0) == pytest.approx([-0.5, -0.5])
    with pytest.raises(CalibrationError, match="positive"):
        spec.with_marker_mm(0)


def test_kit_lookup_errors_say_what_exists() -> None:
    assert [s.name for s in kits_for_game("battle-grounds")] == [
        "battle-grounds-basic",
        "battle-grounds-advanced",
    ]
    with pytest.raises(CalibrationError, match="known kits"):
        kit("chess")
    with pytest.raises(CalibrationError, match="kits exist for"):
        kits_for_game("chess")
    with pytest.raises(CalibrationError, match="not one of"):
        kit("oneworld-map").marker_corners(40)


# -- accuracy on synthetic frames ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["battle-grounds-advanced", "oneworld-map"])
def test_pose_error_meets_the_target_over_seeded_frames(name: str) -> None:
    """30 frames, camera 30-90 degrees above the table: the worst of the board's corners and
    every grid point, median and 95th percentile, within 0.02 of a cell."""
    worst = []
    for seed in range(30):
        frame = render_frame(kit(name), seed=1000 + seed)
        fit = locate_board(frame.image, kit(name))
        assert fit.pose.units == kit(name).units and fit.pose.size == kit(name).size
        assert fit.pose.quality.method == "markers" and fit.pose.quality.residual_px < 1.0
        worst.append(pose_errors(fit.pose, frame).max())
    assert np.median(worst) <= GRID_TARGET
    assert np.percentile(worst, 95) <= GRID_TARGET


def test_a_hidden_marker_is_named_and_the_other_three_suffice() -> None:
    spec = kit("battle-grounds-advanced")
    frame = render_frame(spec, seed=21, tilt=65, hide=[17])
    fit = locate_board(frame.image, spec)
    assert fit.used == (16, 18, 19) and fit.hidden == (17,)
    assert fit.notes == ("3 of 4 markers visible: the top-right marker (id 17) is hidden",)
    assert (fit.pose.quality.seen, fit.pose.quality.expected) == (3, 4)
    assert pose_errors(fit.pose, frame).max() <= GRID_TARGET
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pose_from_markers(frame.image, spec)
    assert [str(w.message) for w in caught if w.category is MarkerWarning] == list(fit.notes)


def test_two_markers_on_one_side_are_refused_naming_the_hidden_ones() -> None:
    spec = kit("battle-grounds-advanced")
    frame = render_frame(spec, seed=22, tilt=75, hide=[18, 19])
    with pytest.raises(CalibrationError) as err:
        locate_board(frame.image, spec)
    assert str(err.value).startswith(
        "only 2 of 4 markers visible: the bottom-right marker (id 18) and the bottom-left marker (id 19) are hidden"
    )
    assert str(err.value).endswith("at least 3 are in view (or two at opposite corners)")


#: Two markers at opposite corners: each point of the board within this many board units
#: (a quarter of a cell, hex or inch) of where it is, on every kit.
DIAGONAL_TARGET = 0.25


@pytest.mark.parametrize("name", [n for n, s in KITS.items() if len(s.ids) == 4])
def test_two_markers_at_opposite_corners_suffice(name: str) -> None:
    spec = KITS[name]
    worst = []
    for k, pair in enumerate([(0, 2), (1, 3)] * 3):
        hide = [i for j, i in enumerate(spec.ids) if j not in pair]
        frame = render_frame(spec, seed=300 + k, tilt=40 + 9 * k, hide=hide)
        fit = locate_board(frame.image, spec)
        assert fit.used == tuple(spec.ids[j] for j in pair) and fit.hidden == tuple(hide)
        assert fit.notes[0].startswith("2 of 4 markers visible: ")
        assert (fit.pose.quality.seen, fit.pose.quality.expected) == (2, 4)
        worst.append(pose_errors(fit.pose, frame).max())
    assert max(worst) <= DIAGONAL_TARGET, worst


def test_a_marker_touching_the_frame_edge_is_found_where_it_is() -> None:
    """A tight framing: the frame's edge cuts a pixel into a marker's black border, so the
    border has no outline on that side. The grey frame round the picture gives it one; without
    it most such markers are lost."""
    spec = kit("battle-grounds-advanced")
    found = lost = 0
    for seed in range(40, 44):
        frame = render_frame(spec, seed=seed, tilt=60)
        full = detect_markers(frame.image, spec.dictionary)
        assert len(full) == 4
        for marker_id in full.ids:
            c = full.corners_of(marker_id)
            x0 = int(np.floor(c[:, 0].min())) + 1  # the left edge falls inside the border
            crop = frame.image[:, x0:]
            lost += marker_id not in detect_markers(crop, spec.dictionary, MarkerConfig(edge_pad_px=0)).ids
            seen = detect_markers(crop, spec.dictionary).corners_of(marker_id)
            if seen is not None:
                found += 1
                assert np.abs(seen + [x0, 0] - c).max() < 0.75  # the same corners, to a fraction of a pixel
    assert found >= 15 and lost >= 12, (found, lost)


def test_all_markers_hidden() -> None:
    spec = kit("oneworld-map")
    frame = render_frame(spec, seed=23, tilt=80, hide=spec.ids)
    with pytest.raises(CalibrationError, match=r"no markers of OneWorld's map found \(ids 0-3\)"):
        locate_board(frame.image, spec)


def test_markers_of_another_game_are_recognised() -> None:
    frame = render_frame(kit("the-game-field"), seed=24, tilt=70)
    with pytest.raises(CalibrationError) as err:
        pose_from_markers(frame.image, kit("oneworld-map"))
    assert str(err.value).startswith(
        "markers 40-43 belong to The Game's field, not to OneWorld's map: is this the right game?"
    )


def _sighting(
    spec: MarkerSpec, to_image: np.ndarray, frame: tuple[int, int] = (1280, 720)
) -> MarkerSighting:
    corners = []
    for marker_id in spec.ids:
        q = (to_image @ np.c_[spec.marker_corners(marker_id), np.ones(4)].T).T
        corners.append(q[:, :2] / q[:, 2:3])
    return MarkerSighting(np.array(spec.ids), np.array(corners), frame)


def test_a_board_far_away_is_refused() -> None:
    spec = kit("battle-grounds-advanced")
    tiny = np.array(
        [[14.0, 0, 600], [0, 14.0, 300], [0, 0, 1]]
    )  # 8 squares = 112 px: 1.4% of the frame
    with pytest.raises(
        CalibrationError, match=r"^the board fills 1% of the frame: move the camera closer$"
    ):
        fit_markers(_sighting(spec, tiny), spec)
    fit = fit_markers(
        _sighting(spec, np.array([[42.0, 0, 400], [0, 42.0, 200], [0, 0, 1]])), spec
    )  # 12%
    assert fit.pose.quality.coverage == pytest.approx(336 * 336 / (1280 * 720))


def test_a_moved_marker_is_ignored_and_named_misprinted_markers_refused() -> None:
    spec = kit("battle-grounds-advanced")
    to_image = np.array([[50.0, 5, 300], [-4, 48, 200], [0, 0.001, 1]])
    seen = _sighting(spec, to_image)
    moved = MarkerSighting(
        seen.ids, seen.corners + np.array([0, 0, 0, 1])[:, None, None] * [20.0, 0], seen.frame_size
    )
    fit = fit_markers(moved, spec)
    assert fit.ignored == (19,) and fit.used == (16, 17, 18)
    assert fit.notes == (
        "the bottom-left marker (id 19) is 20 px from where the others put it: ignored (has it moved?)",
    )
    assert np.allclose(
        fit.pose.board_to_image / fit.pose.board_to_image[2, 2],
        to_image / to_image[2, 2],
        atol=1e-6,
    )
    # markers printed a third too large: every one disagrees, none can be singled out
    big = np.array([(c - c.mean(axis=0)) * 4 / 3 + c.mean(axis=0) for c in seen.corners])
    with pytest.raises(
        CalibrationError, match=r"the markers disagree by [\d.]+ px RMS: .* printed 30 mm wide"
    ):
        fit_markers(MarkerSighting(seen.ids, big, seen.frame_size), spec)


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame, words",
    [
        (None, "empty frame: no image was given"),
        (np.zeros((0, 0, 3), np.uint8), "empty frame"),
        (np.zeros((720, 1280, 5), np.uint8), "grey, BGR or BGRA"),
        (np.array([["a", "b"]] * 10), "empty frame|numbers"),
    ],
)
def test_bad_frames_get_a_clear_error(frame: object, words: str) -> None:
    with pytest.raises(CalibrationError, match=words):
        pose_from_markers(frame, kit("oneworld-map"))


def test_a_blank_frame_has_no_markers() -> None:
    with pytest.raises(CalibrationError, match="no markers of Battle Grounds' basic board found"):
        pose_from_markers(np.zeros((720, 1280), np.uint8), kit("battle-grounds-basic"))


def test_frames_of_other_types_are_converted() -> None:
    frame = render_frame(kit("wormholes-galaxy"), seed=3, tilt=85).image
    bgra = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    as_float = frame.astype(np.float32) / 255.0
    for image in (bgra, as_float, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)):
        assert np.abs(as_gray(image).astype(int) - as_gray(frame)).max() <= 1
        assert locate_board(image, kit("wormholes-galaxy")).used == (8, 9, 10, 11)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="no such file: check the path"):
        read_image(tmp_path / "missing.png")
    with pytest.raises(CalibrationError, match="is a folder"):
        read_image(tmp_path)
    (tmp_path / "notes.png").write_text("not an image")
    with pytest.raises(CalibrationError, match="not a readable image"):
        read_image(tmp_path / "notes.png")
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(CalibrationError, match="not a readable image"):
        read_image(tmp_path / "empty.jpg")


# -- real photos --------------------------------------------------------------------------


def _charuco_spec() -> tuple[MarkerSpec, dict[int, np.ndarray]]:
    """The tutorial ChArUco board (5x7 squares of 0.04, markers 0.02) as a kit whose corner
    markers are ids 2, 4, 14, 12, in squares; and every marker's corners on the board."""
    board = cv2.aruco.CharucoBoard(
        (5, 7), 0.04, 0.02, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    )
    corners = {
        int(i): np.array(o)[:, :2] / 0.04 for i, o in zip(board.getIds(), board.getObjPoints())
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
    for marker_id in spec.ids:  # the kit's geometry is the board's
        assert np.allclose(spec.marker_corners(marker_id), corners[marker_id], atol=1e-6)
    return spec, corners


def _gridboard() -> tuple[MarkerSpec, dict[int, np.ndarray], cv2.aruco.Dictionary]:
    """The tutorial GridBoard (5x7 markers of 0.04, gaps 0.01, custom dictionary), in units of
    the 0.05 pitch, corner markers 0, 4, 34, 30."""
    store = cv2.FileStorage(str(DATA / "tutorial_dict.yml"), cv2.FILE_STORAGE_READ)
    dictionary = cv2.aruco.Dictionary()
    assert dictionary.readDictionary(store.root())
    board = cv2.aruco.GridBoard((5, 7), 0.04, 0.01, dictionary)
    corners = {
        int(i): np.array(o)[:, :2] / 0.05 for i, o in zip(board.getIds(), board.getObjPoints())
    }
    spec = MarkerSpec(
        name="gridboard",
        game="test",
        title="the tutorial GridBoard",
        ids=(0, 4, 34, 30),
        places=("tl", "tr", "br", "bl"),
        area=(0.8, 0.8, 4.0, 6.0),
        units="square",
        size=(5.0, 7.0),
        unit_mm=50.0,
        marker_mm=40.0,
        gap_mm=0.0,
    )
    for marker_id in spec.ids:
        assert np.allclose(spec.marker_corners(marker_id), corners[marker_id], atol=1e-6)
    return spec, corners, dictionary


def _centre_errors(
    fit_pose: object, sighting: MarkerSighting, board: dict[int, np.ndarray]
) -> np.ndarray:
    """Pixels between each detected marker's centre and where the pose puts it."""
    expected = fit_pose.to_image(np.array([board[int(i)].mean(axis=0) for i in sighting.ids]))  # type: ignore[attr-defined]
    return np.linalg.norm(expected - sighting.corners.mean(axis=1), axis=1)


PREDICTION_RMS_PX = 1.0  # a usable pose puts every marker of the sheet within a pixel or two
PREDICTION_MAX_PX = 2.0


@pytest.mark.parametrize(
    "photo, found, hidden",
    [("charuco_5x7_choriginal.jpg", 17, ()), ("charuco_5x7_occlusion.jpg", 13, (14,))],
)
def test_real_charuco_photos_corner_markers_predict_every_marker(
    photo: str, found: int, hidden: tuple[int, ...]
) -> None:
    spec, board = _charuco_spec()
    sighting = detect_markers(read_image(DATA / photo), spec.dictionary)
    assert len(sighting) == found
    fit = fit_markers(sighting, spec)
    assert fit.hidden == hidden
    if hidden:
        assert fit.notes == ("3 of 4 markers visible: the bottom-right marker (id 14) is hidden",)
    err = _centre_errors(fit.pose, sighting, board)
    assert np.sqrt((err**2).mean()) <= PREDICTION_RMS_PX and err.max() <= PREDICTION_MAX_PX


def test_real_gridboard_with_a_custom_dictionary() -> None:
    spec, board, dictionary = _gridboard()
    sighting = detect_markers(read_image(DATA / "gridboard_5x7_tutorialdict.png"), dictionary)
    assert sorted(sighting.ids.tolist()) == list(range(35))
    fit = fit_markers(sighting, spec)
    err = _centre_errors(fit.pose, sighting, board)
    assert np.sqrt((err**2).mean()) <= PREDICTION_RMS_PX and err.max() <= PREDICTION_MAX_PX


def test_edge_refinement_beats_subpixel_corners_alone_on_every_real_photo() -> None:
    charuco, charuco_board = _charuco_spec()
    grid, grid_board, dictionary = _gridboard()
    cases = [
        ("charuco_5x7_choriginal.jpg", charuco, charuco_board, charuco.dictionary),
        ("charuco_5x7_occlusion.jpg", charuco, charuco_board, charuco.dictionary),
        ("gridboard_5x7_tutorialdict.png", grid, grid_board, dictionary),
    ]
    for photo, spec, board, d in cases:
        image = read_image(DATA / photo)
        rms = {}
        for edges in (False, True):
            config = MarkerConfig(edge_refine=edges)
            sighting = detect_markers(image, d, config)
            err = _centre_errors(fit_markers(sighting, spec, config=config).pose, sighting, board)
            rms[edges] = float(np.sqrt((err**2).mean()))
        assert rms[True] < rms[False], (photo, rms)


def test_a_camera_calibration_undistorts_the_marker_corners() -> None:
    spec, _ = _charuco_spec()
    store = cv2.FileStorage(str(DATA / "tutorial_camera_charuco.yml"), cv2.FILE_STORAGE_READ)
    camera = CameraCalibration(
        store.getNode("camera_matrix").mat(),
        store.getNode("distortion_coefficients").mat().ravel(),
        (640, 480),
        rms=0.0,
    )
    sighting = detect_markers(read_image(DATA / "charuco_5x7_choriginal.jpg"), spec.dictionary)
    plain, undistorted = fit_markers(sighting, spec), fit_markers(sighting, spec, camera)
    # the pose maps undistorted pixels: the kit's corners land where undistortion puts them
    used = np.vstack([sighting.corners_of(i) for i in spec.ids])
    ideal = camera.undistort_points(used, sighting.frame_size)
    assert not np.allclose(ideal, used, atol=0.25)  # the lens moves these corners visibly
    on_board = np.vstack([spec.marker_corners(i) for i in spec.ids])

    def rms(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.sqrt(((a - b) ** 2).sum(axis=1).mean()))

    assert rms(undistorted.pose.to_image(on_board), ideal) < rms(
        undistorted.pose.to_image(on_board), used
    )
    assert rms(plain.pose.to_image(on_board), used) < rms(plain.pose.to_image(on_board), ideal)
    assert undistorted.pose.quality.residual_px <= PREDICTION_RMS_PX


def test_real_single_markers_photo_other_dictionary() -> None:
    image = read_image(DATA / "singlemarkers_6x6_250.jpg")
    assert sorted(detect_markers(image, "DICT_6X6_250").ids.tolist()) == [23, 40, 62, 98, 124, 203]
    # The kits' 4x4 dictionary reads none of them; but a 16-bit code is small, and the box's
    # printed "fragile" icon happens to read as marker 17 (Battle Grounds' advanced board). One
    # stray marker neither makes a pose nor proves the wrong game is on the table.
    stray = detect_markers(image)
    assert stray.ids.tolist() == [17] and stray.corners[0].mean(axis=0)[1] < 100
    with pytest.raises(CalibrationError) as err:
        pose_from_markers(image, kit("oneworld-map"))
    assert str(err.value).startswith(
        "no markers of OneWorld's map found (ids 0-3) (1 marker(s) with other ids were seen)"
    )
    with pytest.raises(
        CalibrationError, match="no markers of Battle Grounds' advanced board found|only 1 of 4"
    ):
        pose_from_markers(image, kit("battle-grounds-advanced"))


def test_a_board_whose_far_markers_are_too_small_to_decode_is_still_located() -> None:
    """The mat seen from far (640x360): two of its markers decode at the frame's own size,
    not enough for a pose; enlarged twice, the others do too, and the board is located
    where it is."""
    spec = kit("when-gods-collide-mat")
    frame = render_frame(spec, seed=1, tilt=50)
    small = cv2.resize(frame.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    own = detect_markers(small, spec.dictionary)
    assert len(own.ids) == 2 and not spec.enough(list(own.ids))
    seen = sight_kit(small, spec)
    assert set(own.ids) < set(seen.ids) <= set(spec.ids) and spec.enough(list(seen.ids))
    fit = locate_board(small, spec)
    corners = np.array([[0, 0], [16, 0], [16, 16], [0, 16]], float)
    truth = cv2.perspectiveTransform(corners[None], np.diag([0.5, 0.5, 1.0]) @ frame.board_to_image)[0]
    assert len(fit.used) >= 3 and np.abs(fit.pose.to_image(corners) - truth).max() < 1.5
    whole = sight_kit(frame.image, spec)  # at full size every marker decodes: no closer look
    assert sorted(whole.ids) == sorted(detect_markers(frame.image, spec.dictionary).ids)


def test_the_game_s_kit_is_its_field_as_the_game_s_options_size_it() -> None:
    """``kit_for``: The Game's markers lie off the corners of the field its options give
    (``field_width`` x ``field_depth`` inches), not of the default 24 x 24 one: a die thrown
    inside a larger field, where a 24-inch field's corner marker would lie, is no marker."""
    from calibration.marker_spec import field_spec, kit_for

    assert kit_for("the-game") == field_spec()
    big = kit_for("the-game", {"field_width": 36, "field_depth": 30})
    assert big.area == (0.0, 0.0, 36.0, 30.0) and big == field_spec(36.0, 30.0)
    centres = [big.marker_corners(i).mean(axis=0) for i in big.ids]
    assert all(not (0 < x < 36 and 0 < y < 30) for x, y in centres)  # every marker off the field

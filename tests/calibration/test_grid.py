"""Automatic grid finding (calibration.grid): synthetic frames with a known homography, the
real photos in tests/data/real/, and the errors for frames with no board."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import CalibrationError
from calibration.grid import GridDetection, detect_square_grid, find_square_grid
from calibration.homography import apply_homography

# tests/ is no package and pytest imports test files by path: put this folder on sys.path
# for the renderer beside this file
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parent))

from grid_render import corner_error, expected_turn, random_frame, render_frame

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
CHESSBOARD = sorted((REAL / "calibration-chessboard").glob("left*.jpg"))
CHECKERS = REAL / "checkers-printed"


# Synthetic frames: 1280x720, camera 30 to 90 degrees above the table, any turn of the board,
# blur sigma 0.5-1.5 px, noise sigma 2-6, a textured table with objects on it.
ELEVATIONS = (30, 40, 50, 60, 70, 80, 90)


def test_finds_8x8_boards_to_a_fiftieth_of_a_square() -> None:
    errors = []
    for seed, elevation in enumerate(ELEVATIONS * 2):
        frame = random_frame(100 + seed, (8, 8), elevation_deg=elevation)
        pose = find_square_grid(frame.image, (8, 8))
        errors.append(corner_error(pose, frame))
    assert np.median(errors) <= 0.02
    assert max(errors) <= 0.05  # no frame badly off either


def test_finds_6x7_boards_to_a_fiftieth_of_a_square() -> None:
    errors = []
    for seed, elevation in enumerate(ELEVATIONS):
        frame = random_frame(200 + seed, (6, 7), elevation_deg=elevation)
        pose = find_square_grid(frame.image, (6, 7))
        assert pose.size == (6.0, 7.0)
        errors.append(corner_error(pose, frame))
    assert np.median(errors) <= 0.02
    assert max(errors) <= 0.05


@pytest.mark.parametrize("seed", [300, 301, 302])
def test_finds_a_board_of_coloured_squares(seed: int) -> None:
    # Battle Grounds-like: squares of six colours, no light/dark alternation to lean on
    frame = random_frame(seed, (6, 7), style="rows")
    assert corner_error(find_square_grid(frame.image, (6, 7)), frame) <= 0.05


@pytest.mark.parametrize("azimuth", [0, 25, 80, 135, 180, 230, 300])
def test_orientation_rule_top_left_is_the_corner_at_the_top_left(azimuth: float) -> None:
    frame = render_frame(np.random.default_rng(7), (8, 8), elevation_deg=80, azimuth_deg=azimuth)
    pose = find_square_grid(frame.image, (8, 8))
    assert corner_error(pose, frame) <= 0.05
    left, right, top, bottom = pose.to_image([[0, 4], [8, 4], [4, 0], [4, 8]])
    x_axis, y_axis = right - left, bottom - top  # the board's middle lines, in the image
    assert x_axis[0] > 0.6 * abs(x_axis[1])  # x points right (within about 45 degrees)
    assert x_axis[0] * y_axis[1] - x_axis[1] * y_axis[0] > 0  # not mirrored: y turns down from x
    top_left = np.argmin(pose.board_corners_in_image().sum(axis=1))
    assert top_left == 0 or abs(azimuth % 90 - 45) < 25  # (0, 0) is the corner at the top-left


def test_non_square_board_turns_only_half_way() -> None:
    # a 6x7 board seen turned by 90 degrees keeps its 6 columns along x; x then runs along
    # the image's vertical, and the rule picks the half turn with x leaning right
    frame = render_frame(np.random.default_rng(8), (6, 7), elevation_deg=75, azimuth_deg=80)
    pose = find_square_grid(frame.image, (6, 7))
    assert corner_error(pose, frame) <= 0.05
    left, right = pose.to_image([[0, 3.5], [6, 3.5]])
    assert abs(right[1] - left[1]) > abs(right[0] - left[0])  # x runs up or down the image
    assert right[0] > left[0]  # ... leaning right


def test_quality_reports_residual_points_and_coverage() -> None:
    frame = random_frame(11, (8, 8), elevation_deg=55)
    found = detect_square_grid(frame.image, (8, 8))
    q = found.pose.quality
    assert (q.method, q.expected) == ("grid", 81)
    assert 0.5 * 81 <= q.seen <= 81 and q.seen == len(found.board_points) == len(found.image_points)
    to_image = frame.board_to_image @ np.linalg.inv(expected_turn(frame))
    truth = apply_homography(to_image, found.board_points)
    assert np.abs(found.image_points - truth).max() < 0.5  # every corner used lies on its true spot
    assert q.residual_px < 0.5
    c = frame.corners_in_image()
    area = 0.5 * abs(np.dot(c[:, 0], np.roll(c[:, 1], -1)) - np.dot(c[:, 1], np.roll(c[:, 0], -1)))
    assert q.coverage == pytest.approx(area / (1280 * 720), rel=0.02)
    assert found.pose.units == "square" and found.pose.size == (8.0, 8.0)


def test_accepts_grey_frames_and_file_paths(tmp_path: Path) -> None:
    frame = random_frame(12, (8, 8), elevation_deg=65)
    grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    assert corner_error(find_square_grid(grey, (8, 8)), frame) <= 0.05
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame.image)
    assert corner_error(find_square_grid(path, (8, 8)), frame) <= 0.05
    assert corner_error(find_square_grid(str(path), (8, 8)), frame) <= 0.05


def test_a_larger_checkered_pattern_is_refused() -> None:
    # asking for fewer squares than printed (counting inner corners is the usual way there)
    frame = random_frame(13, (10, 8), elevation_deg=70)
    with pytest.raises(CalibrationError, match="goes on past .* is the board size right"):
        find_square_grid(frame.image, (8, 8))
    assert corner_error(find_square_grid(frame.image, (10, 8)), frame) <= 0.05


# Real photos: OpenCV's calibration chessboard, 10x7 squares (9x6 inner corners), 640x480.
# Its end rows are printed cut in half, so the board's outer corners along that side are not
# printed; the 9x6 inner corners are.


def chessboard_corners(grey: np.ndarray) -> np.ndarray | None:
    """OpenCV's own inner corners of the 9x6 pattern (the sector-based finder; the
    exhaustive search with normalisation for the photos where the default misses)."""
    for flags in (0, cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_NORMALIZE_IMAGE):
        ok, corners = cv2.findChessboardCornersSB(grey, (9, 6), flags=flags)
        if ok:
            return corners.reshape(-1, 2)
    return None


def test_real_chessboard_photos_are_all_found() -> None:
    assert len(CHESSBOARD) >= 5  # 13 in the folder today
    for path in CHESSBOARD:
        found = detect_square_grid(path, (10, 7))
        assert found.pose.quality.seen >= 0.5 * 88, path.name


@pytest.mark.parametrize(
    "name", ["left01.jpg", "left04.jpg", "left07.jpg", "left12.jpg", "left14.jpg"]
)
def test_real_inner_corners_agree_with_opencv(name: str) -> None:
    image = cv2.imread(str(REAL / "calibration-chessboard" / name))
    reference = chessboard_corners(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert reference is not None
    found = detect_square_grid(image, (10, 7))
    bx, by = found.board_points[:, 0], found.board_points[:, 1]
    inner = (bx > 0) & (bx < 10) & (by > 0) & (by < 7)
    assert inner.sum() >= 45  # of 54
    ours = found.image_points[inner]
    gaps = np.linalg.norm(ours[:, None] - reference[None], axis=2).min(axis=1)
    assert np.median(gaps) < 0.25  # pixels
    assert gaps.max() < 2.0
    # the pose (a homography: straight lines) also agrees within the lens's distortion
    predicted = found.pose.to_image(found.board_points[inner])
    assert np.median(np.linalg.norm(predicted - ours, axis=1)) < 2.0


@pytest.mark.parametrize("name", ["left02.jpg", "left09.jpg"])
def test_real_inner_corner_count_is_refused(name: str) -> None:
    with pytest.raises(CalibrationError, match="goes on past"):
        find_square_grid(REAL / "calibration-chessboard" / name, (9, 6))


# Real photos: a printed checkers board under a robot-arm camera (vignetting, pieces on it).


def pieces(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Centres of the labelled pieces' boxes, in pixels."""
    boxes = np.loadtxt(CHECKERS / f"{name}.txt", ndmin=2)
    return boxes[:, 1:3] * [shape[1], shape[0]]


@pytest.mark.parametrize("name", ["bax1", "bax4"])
def test_real_checkers_pieces_stand_on_dark_squares(name: str) -> None:
    image = cv2.imread(str(CHECKERS / f"{name}.jpg"))
    pose = find_square_grid(image, (8, 8))
    squares = np.stack(np.meshgrid(np.arange(8), np.arange(8)), axis=-1).reshape(-1, 2)
    centres = pose.to_image(squares + 0.5).round().astype(int)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    level = grey[centres[:, 1], centres[:, 0]].astype(float)
    even = squares.sum(axis=1) % 2 == 0
    dark_parity = 0 if level[even].mean() < level[~even].mean() else 1
    on = pose.to_board(pieces(name, image.shape))
    cell = np.floor(on).astype(int)
    assert ((cell >= 0) & (cell < 8)).all()
    assert ((cell.sum(axis=1) % 2) == dark_parity).all()  # every piece on a playing square
    assert np.abs(on - (cell + 0.5)).max() < 0.35  # near its square's centre


def test_real_checkers_board_with_scattered_pieces_is_found() -> None:
    found = detect_square_grid(CHECKERS / "bax11.jpg", (8, 8))
    assert found.pose.quality.seen >= 0.5 * 81
    on = found.pose.to_board(pieces("bax11", (400, 640)))
    assert ((on >= 0) & (on < 8)).all()  # every piece lies on the board found


# Frames with no board: clear errors that say what to do.


def three_lines() -> np.ndarray:
    image = np.full((720, 1280), 200, np.uint8)
    for x in (400, 600, 800):
        cv2.line(image, (x, 100), (x, 620), 0, 3)
    return image


def noise(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (720, 1280, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.full((720, 1280, 3), 128, np.uint8), "no edges .* is the camera covered"),
        (np.zeros((720, 1280), np.uint8), "no edges"),
        (noise(1), "no grid found"),
        (noise(2), "no grid found"),
        (cv2.GaussianBlur(noise(3), (0, 0), 3), "no grid found"),
        (
            three_lines(),
            "fewer than 4 lines in one direction .* whole board in view and lit evenly",
        ),
        (np.zeros((0, 0, 3), np.uint8), "frame is empty"),
        (None, "frame is empty"),
        (np.zeros((10, 10), np.uint8), "only 10x10 pixels"),
        (np.zeros((720, 1280, 2), np.uint8), "grey or BGR"),
    ],
    ids=[
        "blank",
        "black",
        "noise-1",
        "noise-2",
        "smooth-noise",
        "three-lines",
        "empty",
        "none",
        "tiny",
        "two-channel",
    ],
)
def test_no_board_gives_a_clear_error(image: np.ndarray | None, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        find_square_grid(image, (8, 8))  # type: ignore[arg-type]


def test_a_grid_of_three_by_three_lines_is_not_an_8x8_board() -> None:
    image = three_lines()
    for y in (200, 360, 520):
        cv2.line(image, (300, y), (900, y), 0, 3)
    with pytest.raises(CalibrationError, match="no grid found"):
        find_square_grid(image, (8, 8))


def test_unreadable_file_gives_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="cannot read an image"):
        find_square_grid(tmp_path / "missing.jpg")
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    with pytest.raises(CalibrationError, match="cannot read an image"):
        find_square_grid(broken)


@pytest.mark.parametrize("squares", [(0, 8), (8,), (8.5, 8), ("a", "b"), (1, 8), None])
def test_bad_sizes_are_refused(squares: object) -> None:
    with pytest.raises(CalibrationError, match="squares must be two whole numbers"):
        find_square_grid(three_lines(), squares)  # type: ignore[arg-type]


def test_detection_type() -> None:
    frame = random_frame(14, (8, 8), elevation_deg=85)
    found = detect_square_grid(frame.image)
    assert isinstance(found, GridDetection)
    assert found.board_points.shape == found.image_points.shape
    assert set(np.unique(found.board_points)) <= set(range(9))

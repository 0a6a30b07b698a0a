"""Camera intrinsics: real photos, synthetic renders with a known camera, the file, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraCalibration, calibrate_camera, find_outliers
from calibration.errors import CalibrationError
from calibration.patterns import (
    CharucoPattern,
    ChessboardPattern,
    PatternNotFoundError,
    detect_pattern,
    parse_pattern_size,
    parse_square_size,
)
from calibration.synthetic_lens import render_chessboard_views

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
CHESS = sorted((REAL / "calibration-chessboard").glob("left*.jpg"))
ARUCO = REAL / "aruco"
CHARUCO_PHOTOS = [ARUCO / f"charuco_5x7_calib_img_0{i}.jpg" for i in (0, 2, 3)] + [
    ARUCO / "charuco_5x7_choriginal.jpg"
]


# --- the real chessboard photos ----------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> CameraCalibration:
    return calibrate_camera(CHESS, pattern=(9, 6), square=25.0)


def test_the_13_real_photos_are_all_there() -> None:
    assert [p.name for p in CHESS] == [f"left{i:02d}.jpg" for i in range(1, 15) if i != 10]


def test_real_photos_reach_the_target_rms(real: CameraCalibration) -> None:
    assert real.rms <= 0.25
    assert len(real.per_image) + len(real.dropped) == 13
    # The overall figure is the RMS over every corner of the kept photos (54 corners each).
    per = np.array([r for _, r in real.per_image])
    assert real.rms == pytest.approx(math.sqrt(np.mean(per**2)), rel=1e-9)


def test_real_photos_reach_the_target_with_all_13_kept() -> None:
    cal = calibrate_camera(CHESS, pattern=(9, 6), square=25.0, outlier_k=math.inf)
    assert len(cal.per_image) == 13 and cal.dropped == ()
    assert cal.rms <= 0.25
    assert all(r < 0.5 for _, r in cal.per_image)


def test_real_calibration_is_physically_sensible(real: CameraCalibration) -> None:
    k = real.camera_matrix
    assert real.image_size == (640, 480)
    assert abs(k[0, 0] - k[1, 1]) < 0.01 * k[0, 0]  # square pixels
    assert abs(k[0, 2] - 319.5) < 64 and abs(k[1, 2] - 239.5) < 48  # centre within 10% of the frame
    assert real.pattern == ChessboardPattern((9, 6), 25.0)


def test_a_warped_photo_is_dropped_as_an_outlier_with_a_message() -> None:
    photos = [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in CHESS]
    h, w = photos[0].shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    warped = cv2.remap(photos[0], xs + np.sin(ys / 25.0), ys + np.sin(xs / 31.0), cv2.INTER_CUBIC)
    messages: list[str] = []
    cal = calibrate_camera(
        [warped] + photos[1:],
        names=["warped.jpg"] + [p.name for p in CHESS[1:]],
        on_message=messages.append,
    )
    assert [name for name, _ in cal.dropped] == ["warped.jpg"]
    assert "far above the median" in cal.dropped[0][1]
    assert any(m.startswith("warped.jpg: RMS error") for m in messages)
    assert len(cal.per_image) == 12 and cal.rms <= 0.25


@pytest.mark.parametrize(
    "errors, expected",
    [
        ([0.20, 0.21, 0.19, 0.22, 0.20, 1.3, 0.45], [5, 6]),  # worst first
        ([0.18, 0.16, 0.17, 0.19, 0.23, 0.16, 0.18], []),  # spread of good photos
        ([0.030, 0.031, 0.029, 0.045, 0.07], []),  # tiny errors: below the absolute floor
        ([1.0, 1.1, 0.9, 1.05, 1.55], []),  # within 1.5 x the median (1.05)
        ([1.0, 1.1, 0.9, 1.05, 2.2], [4]),
        ([0.2, 5.0, 6.0], []),  # never fewer than 3 photos
        ([], []),
    ],
)
def test_outlier_rule(errors: list[float], expected: list[int]) -> None:
    assert find_outliers(errors) == expected


def test_outlier_rule_keeps_at_least_the_minimum() -> None:
    assert find_outliers([0.2] * 4 + [3.0, 4.0], keep_at_least=5) == [5]


# --- synthetic renders of a known camera --------------------------------------------------------

TRUE_K = np.array([[520.0, 0.0, 318.5], [0.0, 522.0, 243.0], [0.0, 0.0, 1.0]])
TRUE_D = np.array([-0.25, 0.08, 0.0008, -0.0005, 0.0])
W, H, SS = 640, 480, 4  # SS: supersampling per axis


@pytest.fixture(scope="module")
def renders() -> list[tuple[np.ndarray, np.ndarray]]:
    """12 photos of a 9x6 chessboard (unit squares) through TRUE_K / TRUE_D, with the true corners."""
    return render_chessboard_views(12, seed=7, camera_matrix=TRUE_K, dist_coeffs=TRUE_D, size=(W, H))


def test_corners_are_found_to_a_few_hundredths_of_a_pixel(
    renders: list[tuple[np.ndarray, np.ndarray]],
) -> None:
    pattern = ChessboardPattern((9, 6), 1.0)
    errors = []
    for img, truth in renders:
        found, _ = detect_pattern(pattern, img)
        e = np.linalg.norm(found - truth, axis=1)
        flipped = np.linalg.norm(found[::-1] - truth, axis=1)  # a 180-degree turn is the same board
        errors.append(min(e, flipped, key=np.mean))
    e = np.concatenate(errors)
    assert np.median(e) < 0.05
    assert np.percentile(e, 95) < 0.12


def test_a_known_camera_is_recovered(renders: list[tuple[np.ndarray, np.ndarray]]) -> None:
    cal = calibrate_camera([img for img, _ in renders], pattern="9x6", square="1in")
    k = cal.camera_matrix
    assert len(cal.per_image) == 12 and cal.rms < 0.1
    assert k[0, 0] == pytest.approx(TRUE_K[0, 0], rel=0.003) and k[1, 1] == pytest.approx(
        TRUE_K[1, 1], rel=0.003
    )
    assert abs(k[0, 2] - TRUE_K[0, 2]) < 1.0 and abs(k[1, 2] - TRUE_K[1, 2]) < 1.0
    truth = CameraCalibration(TRUE_K, TRUE_D, (W, H), 0.0)
    grid = np.mgrid[64:577:32, 48:433:32].T.reshape(-1, 2).astype(float)  # where the boards were
    assert np.abs(cal.undistort_points(grid) - truth.undistort_points(grid)).max() < 0.1


# --- undistortion ----------------------------------------------------------------------------------


def _brown(k: np.ndarray, d: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The Brown-Conrady lens model, written out: ideal pixels -> distorted pixels."""
    x, y = (pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1]
    k1, k2, p1, p2, k3 = d
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2**2 + k3 * r2**3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.c_[xd * k[0, 0] + k[0, 2], yd * k[1, 1] + k[1, 2]]


LENS_K = np.array([[500.0, 0.0, 322.0], [0.0, 500.0, 236.0], [0.0, 0.0, 1.0]])
LENS_D = np.array([-0.3, 0.1, 0.001, -0.001, 0.0])


def test_undistort_puts_a_synthetic_image_back_where_an_ideal_lens_would() -> None:
    cal = CameraCalibration(LENS_K, LENS_D, (640, 480), 0.0)
    ideal = np.mgrid[80:561:60, 60:421:60].T.reshape(-1, 2).astype(float)
    seen = _brown(LENS_K, LENS_D, ideal)
    ys, xs = np.mgrid[0:480, 0:640].astype(float)
    frame = np.zeros((480, 640))
    for px, py in seen:  # a soft dot at every distorted position
        frame += 250 * np.exp(-((xs - px) ** 2 + (ys - py) ** 2) / (2 * 2.0**2))
    flat = cal.undistort(np.clip(frame, 0, 255).astype(np.uint8)).astype(float)
    n, labels = cv2.connectedComponents((flat > 20).astype(np.uint8))
    centres = np.array(
        [
            [
                np.sum(xs * flat * (labels == i)) / np.sum(flat * (labels == i)),
                np.sum(ys * flat * (labels == i)) / np.sum(flat * (labels == i)),
            ]
            for i in range(1, n)
        ]
    )
    assert len(centres) == len(ideal)
    nearest = np.min(np.linalg.norm(ideal[:, None] - centres[None], axis=2), axis=1)
    assert nearest.max() < 0.15
    # In the raw frame the dots were far from there (the lens bends by several pixels).
    assert np.linalg.norm(seen - ideal, axis=1).max() > 10


def test_points_undistort_and_distort_as_the_lens_model_says() -> None:
    cal = CameraCalibration(LENS_K, LENS_D, (640, 480), 0.0)
    ideal = np.random.default_rng(3).uniform([40, 30], [600, 450], size=(50, 2))
    seen = _brown(LENS_K, LENS_D, ideal)
    assert np.allclose(cal.undistort_points(seen), ideal, atol=1e-4)
    assert np.allclose(cal.distort_points(ideal), seen, atol=1e-6)
    assert cal.undistort_points(np.zeros((0, 2))).shape == (0, 2)
    assert cal.undistort_points([322.0, 236.0]).tolist() == [[322.0, 236.0]]


def test_undistort_keeps_the_maps_and_handles_scaled_frames() -> None:
    cal = CameraCalibration(LENS_K, LENS_D, (640, 480), 0.0)
    frame = np.random.default_rng(0).integers(0, 255, (480, 640, 3), dtype=np.uint8)
    first = cal.undistort(frame)
    assert first.shape == frame.shape and first.dtype == frame.dtype
    assert np.array_equal(cal.undistort(frame), first)
    big = cal.undistort(cv2.resize(frame, (1280, 960)))  # same camera, twice the resolution
    assert big.shape == (960, 1280, 3)
    k2 = cal.matrix_for((1280, 960))
    assert k2[0, 0] == 1000.0 and k2[0, 2] == pytest.approx(2 * 322.0 + 0.5)
    ideal = np.array([[100.0, 100.0]])
    assert np.allclose(
        cal.undistort_points(cal.distort_points(ideal * 2, (1280, 960)), (1280, 960)), ideal * 2
    )


@pytest.mark.parametrize("frame", [None, np.zeros((0, 0), np.uint8), np.zeros((480,), np.uint8)])
def test_undistort_refuses_an_empty_frame(frame: object) -> None:
    cal = CameraCalibration(LENS_K, LENS_D, (640, 480), 0.0)
    with pytest.raises(CalibrationError, match="empty frame"):
        cal.undistort(frame)  # type: ignore[arg-type]


def test_undistort_refuses_a_frame_of_another_shape() -> None:
    cal = CameraCalibration(LENS_K, LENS_D, (640, 480), 0.0)
    with pytest.raises(CalibrationError, match="calibrate the camera at the resolution you use"):
        cal.undistort(np.zeros((720, 1280), np.uint8))


# --- the calibration file ------------------------------------------------------------------------


def test_calibration_file_round_trip(real: CameraCalibration, tmp_path: Path) -> None:
    path = tmp_path / "camera.json"
    real.save(path)
    back = CameraCalibration.load(path)
    assert np.array_equal(back.camera_matrix, real.camera_matrix)
    assert np.array_equal(back.dist_coeffs, real.dist_coeffs)
    assert (back.image_size, back.rms, back.per_image, back.dropped, back.pattern) == (
        real.image_size,
        real.rms,
        real.per_image,
        real.dropped,
        real.pattern,
    )
    data = json.loads(path.read_text())
    assert data["format"] == "tabletop-camera-calibration" and data["version"] == 1
    assert data["pattern"] == {"kind": "chessboard", "size": [9, 6], "square": 25.0}


def test_calibration_file_round_trip_with_a_charuco_pattern(tmp_path: Path) -> None:
    cal = CameraCalibration(
        LENS_K,
        LENS_D,
        (640, 480),
        0.2,
        (("a.jpg", 0.2),),
        (("b.jpg", "no board"),),
        CharucoPattern((5, 7), 40.0, 20.0, "DICT_6X6_250"),
    )
    cal.save(tmp_path / "c.json")
    back = CameraCalibration.load(tmp_path / "c.json")
    assert (
        back.pattern == cal.pattern
        and back.dropped == cal.dropped
        and back.per_image == cal.per_image
    )


def _good_file() -> dict:
    return CameraCalibration(
        LENS_K, LENS_D, (640, 480), 0.2, (("a.jpg", 0.2),), (), ChessboardPattern((9, 6), 25.0)
    ).to_json()


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d.pop("camera_matrix"), "camera_matrix"),
        (lambda d: d.update(camera_matrix=[[1, 0], [0, 1]]), "camera_matrix"),
        (
            lambda d: d.update(camera_matrix=[[500, 0, 320], [0, -500, 240], [0, 0, 1]]),
            "camera_matrix",
        ),
        (lambda d: d.update(camera_matrix="eye"), "camera_matrix"),
        (lambda d: d.update(dist_coeffs=[0.1, 0.2, 0.3]), "dist_coeffs"),
        (lambda d: d.update(dist_coeffs=[0.1, None, 0, 0, 0]), "dist_coeffs"),
        (lambda d: d.update(image_size=[640, -480]), "image_size"),
        (lambda d: d.pop("image_size"), "image_size"),
        (lambda d: d.update(rms_px="small"), "rms_px"),
        (lambda d: d.update(per_image=[{"name": "a.jpg"}]), "per_image[0]"),
        (lambda d: d.update(dropped={"a": 1}), "dropped"),
        (lambda d: d.update(pattern={"kind": "circles", "size": [4, 11], "square": 20}), "pattern"),
        (
            lambda d: d.update(pattern={"kind": "chessboard", "size": [9, 6], "square": -1}),
            "pattern",
        ),
        (lambda d: d.update(format="something-else"), "format"),
        (lambda d: d.update(version=7), "version"),
        (lambda d: d.update(camera_matirx=1), "camera_matirx"),
    ],
)
def test_malformed_calibration_files_are_refused_naming_the_field(
    tmp_path: Path, change, field: str
) -> None:
    data = _good_file()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as err:
        CameraCalibration.load(path)
    assert field in str(err.value) and "bad.json" in str(err.value)


@pytest.mark.parametrize("text, words", [("{not json", "not JSON"), ("[1, 2]", "one JSON object")])
def test_a_file_that_is_not_a_calibration_is_refused(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "x.json").write_text(text)
    with pytest.raises(CalibrationError, match=words):
        CameraCalibration.load(tmp_path / "x.json")


def test_a_missing_calibration_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="check the path"):
        CameraCalibration.load(tmp_path / "nowhere.json")


# --- bad input to the calibration -----------------------------------------------------------------


def test_unreadable_and_missing_files_are_dropped_and_named(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not a JPEG")
    messages: list[str] = []
    (tmp_path / "shots").mkdir()
    cal = calibrate_camera([junk, tmp_path / "gone.jpg", tmp_path / "shots", *CHESS[:4]], on_message=messages.append)
    assert dict(cal.dropped)["junk.jpg"].startswith("cannot be read as an image")
    assert "no such file" in dict(cal.dropped)["gone.jpg"]
    assert dict(cal.dropped)["shots"].startswith("is a folder, not a photo")
    assert len(cal.per_image) == 4
    assert any(m.startswith("junk.jpg: cannot be read") for m in messages)


def test_only_unreadable_files_give_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"")
    with pytest.raises(CalibrationError, match=r"(?s)only 0 of 1 images.*junk.jpg: cannot be read"):
        calibrate_camera([junk])


def test_empty_and_malformed_arrays_are_dropped() -> None:
    photos = [cv2.imread(str(p)) for p in CHESS[:3]]  # colour (BGR) arrays are fine
    cal = calibrate_camera([np.zeros((0, 0), np.uint8), np.zeros((4, 4, 7)), *photos])
    assert dict(cal.dropped)["image 1"].startswith("the image is empty")
    assert "not an image" in dict(cal.dropped)["image 2"]
    assert [n for n, _ in cal.per_image] == ["image 3", "image 4", "image 5"]


def test_wrong_pattern_size_says_what_to_do() -> None:
    with pytest.raises(CalibrationError) as err:
        calibrate_camera(CHESS[:3], pattern=(10, 7))
    text = str(err.value)
    assert "only 0 of 3 images" in text
    assert (
        "left01.jpg, left02.jpg, left03.jpg: no 10x7 chessboard found - "
        "is the pattern size right? (inner corners, not squares" in text
    )
    assert "(10 or more is better).\nA 9x6 chessboard was found" in text and "--pattern 9x6" in text


def test_too_few_images() -> None:
    with pytest.raises(
        CalibrationError,
        match="only 2 of 2 images show a usable 9x6 chessboard; a calibration needs at least 3",
    ):
        calibrate_camera(CHESS[:2])


def test_a_photo_of_another_size_is_dropped() -> None:
    photos = [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in CHESS[:4]]
    photos.insert(2, cv2.resize(photos[2], (320, 240)))
    cal = calibrate_camera(photos)
    assert dict(cal.dropped)["image 3"].startswith(
        "is 320x240 but the photos before it are 640x480"
    )


def test_a_blank_frame_is_reported_as_blank() -> None:
    with pytest.raises(PatternNotFoundError, match="almost uniform"):
        detect_pattern(
            ChessboardPattern((9, 6), 25.0), np.full((480, 640), 128, np.uint8), "blank.png"
        )


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"pattern": (1, 6)}, "at least 3x3"),
        ({"pattern": "nine by six"}, "COLSxROWS"),
        ({"square": -25.0}, "positive"),
        ({"square": "25 furlongs"}, "cannot read the square size"),
        ({"kind": "circles"}, "'chessboard' or 'charuco'"),
        ({"kind": "charuco", "pattern": (5, 7)}, "marker length"),
        ({"kind": "charuco", "pattern": (5, 7), "square": 20, "marker_length": 40}, "swapped"),
        (
            {
                "kind": "charuco",
                "pattern": (5, 7),
                "square": 40,
                "marker_length": 20,
                "dictionary": "DICT_9X9_1",
            },
            "unknown ArUco dictionary",
        ),
        ({"distortion": "fisheye"}, "unknown distortion model"),
    ],
)
def test_bad_pattern_settings_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(CalibrationError, match=words):
        calibrate_camera(CHESS[:3], **kwargs)


@pytest.mark.parametrize(
    "text, mm",
    [
        ("25mm", 25.0),
        ("2.5cm", 25.0),
        ("1in", 25.4),
        ("0.025m", 25.0),
        ("25", 25.0),
        (" 30 MM ", 30.0),
        ('1"', 25.4),
        ("1e1mm", 10.0),
        (12.5, 12.5),
    ],
)
def test_parse_square_size(text: str, mm: float) -> None:
    assert parse_square_size(text) == pytest.approx(mm)


@pytest.mark.parametrize("text", ["", "mm", "abc", "-5mm", "0", "0cm", "5ft", "25 mm mm", "nan"])
def test_parse_square_size_refuses_bad_text(text: str) -> None:
    with pytest.raises(CalibrationError, match="square size"):
        parse_square_size(text)


@pytest.mark.parametrize("text, size", [("9x6", (9, 6)), (" 7 X 7 ", (7, 7)), ((9, 6), (9, 6))])
def test_parse_pattern_size(text: object, size: tuple[int, int]) -> None:
    assert parse_pattern_size(text) == size  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["9", "9x", "x6", "9.5x6", (9.5, 6), (9, 6, 1), "nine"])
def test_parse_pattern_size_refuses_bad_text(text: object) -> None:
    with pytest.raises(CalibrationError, match="pattern size"):
        parse_pattern_size(text)  # type: ignore[arg-type]


# --- ChArUco on the OpenCV tutorial photos ---------------------------------------------------------


def test_charuco_calibration_agrees_with_the_tutorial_calibration() -> None:
    cal = calibrate_camera(
        CHARUCO_PHOTOS,
        pattern=(5, 7),
        square=0.04,
        kind="charuco",
        marker_length=0.02,
        dictionary="DICT_6X6_250",
    )
    assert len(cal.per_image) == 4 and cal.rms < 0.5
    ref = cv2.FileStorage(str(ARUCO / "tutorial_camera_charuco.yml"), cv2.FILE_STORAGE_READ)
    ref_k = ref.getNode("camera_matrix").mat()
    reference = CameraCalibration(
        ref_k, ref.getNode("distortion_coefficients").mat(), (640, 480), 0.0
    )
    k = cal.camera_matrix
    assert k[0, 0] == pytest.approx(ref_k[0, 0], rel=0.03) and k[1, 1] == pytest.approx(
        ref_k[1, 1], rel=0.03
    )
    assert abs(k[0, 2] - ref_k[0, 2]) < 10 and abs(k[1, 2] - ref_k[1, 2]) < 10

    # The two calibrations send each pixel along nearly the same ray (within 1 degree), over
    # the part of the frame the board covered (outside it both extrapolate).
    pattern = CharucoPattern((5, 7), 0.04, 0.02, "DICT_6X6_250")
    seen = np.concatenate(
        [
            detect_pattern(pattern, cv2.imread(str(p), cv2.IMREAD_GRAYSCALE))[0]
            for p in CHARUCO_PHOTOS
        ]
    )
    (x0, y0), (x1, y1) = seen.min(axis=0), seen.max(axis=0)
    grid = np.stack(np.meshgrid(np.linspace(x0, x1, 12), np.linspace(y0, y1, 9)), -1).reshape(-1, 2)

    def rays(c: CameraCalibration) -> np.ndarray:
        u, m = c.undistort_points(grid), c.camera_matrix
        return np.c_[(u[:, 0] - m[0, 2]) / m[0, 0], (u[:, 1] - m[1, 2]) / m[1, 1], np.ones(len(u))]

    a, b = rays(cal), rays(reference)
    cos = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 1.0


def test_charuco_corners_are_found_on_a_partly_covered_board() -> None:
    pattern = CharucoPattern((5, 7), 0.04, 0.02, "DICT_6X6_250")
    grey = cv2.imread(str(ARUCO / "charuco_5x7_occlusion.jpg"), cv2.IMREAD_GRAYSCALE)
    image_points, object_points = detect_pattern(pattern, grey, "occlusion")
    assert (
        6 <= len(image_points) < 24 and image_points.shape[1] == 2 and object_points.shape[1] == 3
    )
    assert np.all(np.abs(object_points[:, 2]) < 1e-12)
    full, _ = detect_pattern(pattern, cv2.imread(str(CHARUCO_PHOTOS[0]), cv2.IMREAD_GRAYSCALE))
    assert len(full) == 24  # all (5-1) x (7-1) inner corners


def test_charuco_with_the_wrong_dictionary_says_so() -> None:
    grey = cv2.imread(str(CHARUCO_PHOTOS[0]), cv2.IMREAD_GRAYSCALE)
    with pytest.raises(
        PatternNotFoundError, match="no DICT_4X4_50 markers found - is the dictionary right"
    ):
        detect_pattern(CharucoPattern((5, 7), 0.04, 0.02, "DICT_4X4_50"), grey, "img_00")

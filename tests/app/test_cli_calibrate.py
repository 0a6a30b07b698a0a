"""``tabletop calibrate camera | board | field``: outputs, files written, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.markers import kit
from calibration.pose import BoardPose
from calibration.synthetic import pose_errors, render_frame

CHESSBOARD = Path(__file__).resolve().parents[1] / "data" / "real" / "calibration-chessboard"


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Synthetic photos (1280x720) of kits with their true poses, written as PNG files."""
    folder = tmp_path_factory.mktemp("photos")
    shots = {
        "bg": render_frame(kit("battle-grounds-advanced"), seed=31, tilt=75),
        "bg_hidden": render_frame(kit("battle-grounds-advanced"), seed=32, tilt=75, hide=[18]),
        "ow": render_frame(kit("oneworld-map"), seed=33, tilt=70),
        "field": render_frame(kit("the-game-field"), seed=34, tilt=55),
        "scale": render_frame(kit("the-game-scale"), seed=35, tilt=65),
    }
    out = {}
    for name, frame in shots.items():
        path = folder / f"{name}.png"
        cv2.imwrite(str(path), frame.image)
        out[name] = (str(path), frame)
    blank = folder / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 128, np.uint8))
    out["blank"] = (str(blank), None)
    return out


def _pose(path: Path) -> BoardPose:
    return BoardPose.from_json(json.loads(path.read_text()))


def test_board_from_markers_writes_the_pose_and_an_overlay(cli, photos, tmp_path: Path) -> None:
    image, frame = photos["bg"]
    out, overlay = tmp_path / "pose.json", tmp_path / "check.png"
    r = cli(
        "calibrate",
        "board",
        image,
        "--game",
        "battle-grounds",
        "--out",
        str(out),
        "--overlay",
        str(overlay),
    )
    assert r.code == 0, r.err
    assert r.out.splitlines()[:2] == [
        "Battle Grounds' advanced board: pose from markers",
        "  markers used: 4 of 4",
    ]
    assert f"wrote {out}" in r.out
    doc = json.loads(out.read_text())
    assert (doc["format"], doc["game"], doc["units"], doc["undistorted"], doc["notes"]) == (
        "tabletop-board-pose",
        "battle-grounds",
        "square",
        False,
        [],
    )
    assert pose_errors(_pose(out), frame).max() <= 0.02
    drawn = cv2.imread(str(overlay))
    assert drawn.shape == frame.image.shape and not np.array_equal(drawn, frame.image)


def test_board_with_a_hidden_marker_notes_it(cli, photos, tmp_path: Path) -> None:
    r = cli(
        "calibrate",
        "board",
        photos["bg_hidden"][0],
        "--game",
        "battle-grounds",
        "--out",
        str(tmp_path / "p.json"),
    )
    assert r.code == 0
    assert (
        "note: 3 of 4 markers visible: the bottom-right marker (id 18) is hidden"
        in r.out.splitlines()
    )


def test_hex_map_overlay_and_pose(cli, photos, tmp_path: Path) -> None:
    image, frame = photos["ow"]
    r = cli(
        "calibrate",
        "board",
        image,
        "--game",
        "oneworld",
        "--out",
        str(tmp_path / "p.json"),
        "--overlay",
        str(tmp_path / "o.png"),
    )
    assert r.code == 0, r.err
    pose = _pose(tmp_path / "p.json")
    assert pose.units == "hex" and pose_errors(pose, frame).max() <= 0.02
    assert (tmp_path / "o.png").stat().st_size > 0


def test_board_from_corners(cli, photos, tmp_path: Path) -> None:
    image, frame = photos["bg"]
    corners = frame.true_pose().board_corners_in_image()
    text = " ".join(f"{x:.3f},{y:.3f}" for x, y in corners)
    r = cli(
        "calibrate",
        "board",
        image,
        "--game",
        "battle-grounds",
        "--corners",
        text,
        "--out",
        str(tmp_path / "p.json"),
    )
    assert r.code == 0, r.err
    pose = _pose(tmp_path / "p.json")
    assert pose.quality.method == "manual" and pose_errors(pose, frame).max() <= 0.001


def test_board_auto_finds_the_grid(cli, photos, tmp_path: Path) -> None:
    image, _ = photos["bg"]
    r = cli(
        "calibrate",
        "board",
        image,
        "--game",
        "battle-grounds",
        "--auto",
        "--squares",
        "8x8",
        "--out",
        str(tmp_path / "p.json"),
    )
    assert r.code == 0, r.err
    pose = _pose(tmp_path / "p.json")
    assert pose.quality.method == "grid" and pose.size == (8.0, 8.0)
    assert "grid points used" in r.out


def test_board_with_a_camera_file(cli, photos, tmp_path: Path) -> None:
    image, frame = photos["bg"]
    camera = tmp_path / "camera.json"
    CameraCalibration(
        np.array([[1000.0, 0, 639.5], [0, 1000, 359.5], [0, 0, 1]]),
        np.zeros(5),
        (1280, 720),
        rms=0.2,
    ).save(camera)
    r = cli(
        "calibrate",
        "board",
        image,
        "--game",
        "battle-grounds",
        "--camera",
        str(camera),
        "--out",
        str(tmp_path / "p.json"),
    )
    assert r.code == 0, r.err
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["undistorted"] is True and doc["camera"] == str(camera)
    assert pose_errors(_pose(tmp_path / "p.json"), frame).max() <= 0.02


def test_field_from_four_markers_and_from_the_scale_marker(cli, photos, tmp_path: Path) -> None:
    image, frame = photos["field"]
    r = cli(
        "calibrate",
        "field",
        image,
        "--out",
        str(tmp_path / "f.json"),
        "--overlay",
        str(tmp_path / "f.png"),
    )
    assert r.code == 0, r.err
    assert r.out.splitlines()[0] == "The Game's field: pose from markers"
    assert "  board: 24 x 24 inches" in r.out.splitlines()
    pose = _pose(tmp_path / "f.json")
    assert pose.units == "inch" and pose_errors(pose, frame).max() <= 0.05
    image, frame = photos["scale"]
    r = cli(
        "calibrate",
        "field",
        image,
        "--size",
        "24x24",
        "--marker-size",
        "6in",
        "--out",
        str(tmp_path / "s.json"),
    )
    assert r.code == 0, r.err
    assert r.out.splitlines()[:2] == [
        "The Game's field: pose from scale marker",
        "  scale marker used: 1 of 1",
    ]


def test_camera_from_the_real_chessboard_photos(cli, photos, tmp_path: Path) -> None:
    images = sorted(str(p) for p in CHESSBOARD.glob("left*.jpg"))[:6]
    odd = tmp_path / "left99.jpg"  # no chessboard in it
    cv2.imwrite(str(odd), cv2.resize(cv2.imread(photos["blank"][0]), (640, 480)))
    out = tmp_path / "camera.json"
    r = cli(
        "calibrate",
        "camera",
        *images,
        str(odd),
        "--pattern",
        "9x6",
        "--square",
        "25mm",
        "--out",
        str(out),
    )
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split() == ["image", "RMS", "(px)"]
    assert [line.split()[0] for line in lines[1:7]] == [Path(p).name for p in images]
    assert lines[7] == "dropped:" and lines[8].startswith("  left99.jpg: no 9x6 chessboard found")
    overall = [line for line in lines if line.startswith("overall RMS:")]
    assert overall and overall[0].endswith("px over 6 images")
    saved = CameraCalibration.load(out)
    assert float(overall[0].split()[2]) == pytest.approx(saved.rms, abs=5e-4)


@pytest.mark.parametrize(
    "args, words",
    [
        (["board", "{missing}", "--game", "oneworld"], "no such file: check the path"),
        (["board", "{notes}", "--game", "oneworld"], "not a readable image"),
        (["board", "{blank}", "--game", "oneworld"], "no markers of OneWorld's map found"),
        (
            ["board", "{field}", "--game", "oneworld"],
            "markers 40-43 belong to The Game's field, not to OneWorld's map",
        ),
        (["board", "{bg}", "--game", "chess"], "--game: unknown game 'chess'"),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--corners", "1,2 3,4"],
            "exactly four corners",
        ),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--corners", "1,1 9,1 9,9 1,9", "--auto"],
            "give one of --corners, --click or --auto",
        ),
        (["board", "{bg}", "--game", "oneworld", "--auto"], "--auto finds square grids; oneworld"),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--squares", "8x8"],
            "--squares goes with --auto, --corners or --click",
        ),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--auto", "--squares", "8by8"],
            "write it as COLSxROWS",
        ),
        (["board", "{bg}", "--game", "battle-grounds", "--camera", "{notes}"], "is not JSON"),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--camera", "{vga_camera}"],
            "calibrate the camera at the resolution you use",
        ),
        (
            ["board", "{bg}", "--game", "battle-grounds", "--overlay", "{tmp}/no/such/dir/o.png"],
            "cannot write the overlay",
        ),
        (["field", "{field}", "--size", "24 by 24"], "not a field size"),
        (["field", "{field}", "--marker-size", "huge"], "not a marker size"),
        (["field", "{field}", "--marker-size", "6"], "--marker-size: a size with no unit is in millimetres"),
        (
            ["field", "{bg}"],
            "markers 16-19 belong to Battle Grounds' advanced board, not to The Game's field",
        ),
        (["camera", "{notes}", "--pattern", "9x6"], "only 0 of 1 images"),
        (["camera", "{bg}", "--charuco", "5,7,40mm"], "--charuco: expected SQX,SQY,SQ,MK,DICT"),
        (
            ["camera", "{bg}", "--charuco", "5,7,40mm,20mm,DICT_6X6_250", "--pattern", "9x6"],
            "either --pattern/--square",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli, photos, tmp_path: Path, args: list[str], words: str
) -> None:
    notes = tmp_path / "notes.png"
    notes.write_text("not an image")
    vga = tmp_path / "vga.json"
    CameraCalibration(
        np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]]), np.zeros(5), (640, 480), rms=0.2
    ).save(vga)
    names = {
        "missing": str(tmp_path / "missing.png"),
        "notes": str(notes),
        "vga_camera": str(vga),
        "tmp": str(tmp_path),
    }
    names.update({k: v[0] for k, v in photos.items()})
    argv = ["calibrate"] + [a.format(**names) for a in args] + ["--out", str(tmp_path / "out.json")]
    r = cli(*argv)
    assert r.code == 2, r.out
    line = r.error_line()
    assert words in line, line
    assert not (tmp_path / "out.json").exists()


def test_a_folder_given_for_a_file_is_named_with_its_option(cli, photos, tmp_path: Path) -> None:
    """--out naming a folder, and a folder given among the camera's photos: one line saying
    which option wants a file, before any work is done."""
    folder = tmp_path / "folder"
    folder.mkdir()
    for argv, line in [
        (["board", photos["bg"][0], "--game", "battle-grounds", "--out", str(folder)],
         f"--out: {folder} is a folder: give a file for --out (e.g. {folder / 'board.json'})"),
        (["field", photos["field"][0], "--out", str(folder)],
         f"--out: {folder} is a folder: give a file for --out (e.g. {folder / 'field.json'})"),
        (["camera", photos["field"][0], "--out", str(folder)],
         f"--out: {folder} is a folder: give a file for --out (e.g. {folder / 'camera.json'})"),
        (["camera", str(folder), "--out", str(tmp_path / "c.json")],
         f"IMAGE: {folder} is a folder, not a photo: give the photos in it (e.g. {folder / '*.jpg'})"),
    ]:
        r = cli("calibrate", *argv)
        assert r.code == 2, r.out
        assert r.error_line() == f"tabletop: error: {line}"
    assert list(folder.iterdir()) == [] and not (tmp_path / "c.json").exists()


def test_calibrate_without_a_command_shows_its_help(cli) -> None:
    r = cli("calibrate")
    assert r.code == 2
    assert "calibrate commands" in r.err and "board" in r.err and "field" in r.err


def test_out_is_required(cli, photos) -> None:
    r = cli("calibrate", "field", photos["field"][0])
    assert r.code == 2
    assert "--out" in r.error_line()


def test_a_field_pose_is_scaled_to_frames_of_another_size_and_refused_for_another_shape(
        cli, photos, tmp_path: Path) -> None:
    """A pose maps the pixels of pictures of one size: a phone streaming at half the photo's
    size measures the same inches; a frame of another shape, or a lens calibration the pose
    was not made with, is refused, never measured wrong."""
    image, _ = photos["field"]
    pose_file = tmp_path / "field.json"
    assert cli("calibrate", "field", image, "--out", str(pose_file)).code == 0
    doc = json.loads(pose_file.read_text())
    assert doc["frame_size"] == [1280, 720] and doc["undistorted"] is False
    labels = tmp_path / "none.json"
    labels.write_text('{"pieces": []}')
    full = cv2.imread(image)
    half = tmp_path / "half.png"
    cv2.imwrite(str(half), cv2.resize(full, (640, 360), interpolation=cv2.INTER_AREA))

    def inches(photo: str, a: tuple[float, float], b: tuple[float, float], *extra: str) -> float:
        r = cli("measure", photo, f"{a[0]:.2f},{a[1]:.2f}", f"{b[0]:.2f},{b[1]:.2f}", "--labels", str(labels), "--pose",
                str(pose_file), "--json", *extra)
        assert r.code == 0, r.err
        return float(r.json()["measurement"]["inches"])

    a, b = (300.0, 500.0), (1000.0, 480.0)
    on_full = inches(image, a, b)
    on_half = inches(str(half), ((a[0] + 0.5) / 2 - 0.5, (a[1] + 0.5) / 2 - 0.5),
                     ((b[0] + 0.5) / 2 - 0.5, (b[1] + 0.5) / 2 - 0.5))
    assert on_full > 5 and abs(on_half - on_full) < 0.05
    other = tmp_path / "other.png"
    cv2.imwrite(str(other), cv2.resize(full, (640, 480)))
    r = cli("measure", str(other), "10,10", "20,20", "--labels", str(labels), "--pose", str(pose_file))
    assert r.code == 2 and "made from 1280x720 pictures and these frames are 640x480" in r.err
    doc["undistorted"] = True  # as 'calibrate field --camera' writes it
    pose_file.write_text(json.dumps(doc))
    r = cli("measure", image, "10,10", "20,20", "--labels", str(labels), "--pose", str(pose_file))
    assert r.code == 2 and "with the lens distortion removed (--camera): give the same camera calibration" in r.err


def test_a_pose_file_s_frame_size_is_read_back_and_checked() -> None:
    pose = BoardPose.from_homography(np.diag([0.1, 0.1, 1.0]), "inch", (24, 24), frame_size=(1280, 720))
    back = BoardPose.from_json(json.loads(json.dumps(pose.to_json())))
    assert back.frame_size == (1280, 720)
    assert back.for_frame((1280, 720)) is back
    assert np.allclose(back.for_frame((1920, 1080)).to_board([[30.0, 15.0]]), [[2.0, 1.0]])
    assert BoardPose.from_json({k: v for k, v in pose.to_json().items() if k != "frame_size"}).frame_size is None
    for bad in ([1280], [0, 720], [1280.5, 720], "1280x720", [True, 720]):
        with pytest.raises(CalibrationError, match="frame_size"):
            BoardPose.from_json({**pose.to_json(), "frame_size": bad})


def test_a_pose_file_s_printed_marker_size_is_read_back_and_checked() -> None:
    """A pose found from printed markers keeps their printed side through its file; one without
    it (made by hand, or by an earlier tabletop) reads back without; a bad one is refused."""
    from calibration.pose import PoseQuality

    quality = PoseQuality("scale marker", 0.2, 1, 1, 0.3, 101.6)
    pose = BoardPose.from_homography(np.diag([0.1, 0.1, 1.0]), "inch", (24, 24), quality, (1280, 720))
    assert BoardPose.from_json(json.loads(json.dumps(pose.to_json()))).quality.marker_mm == 101.6
    bare = {k: v for k, v in pose.to_json()["quality"].items() if k != "marker_mm"}
    assert BoardPose.from_json({**pose.to_json(), "quality": bare}).quality.marker_mm is None
    assert "marker_mm" not in BoardPose.from_homography(np.eye(3), "inch", (24, 24)).to_json()["quality"]
    for bad in (0, -5, "4in", float("nan"), [101.6]):
        with pytest.raises(CalibrationError, match="marker_mm|not a board pose"):
            BoardPose.from_json({**pose.to_json(), "quality": {**bare, "marker_mm": bad}})


def test_a_wrong_pattern_size_is_one_line_of_sentences(cli, tmp_path: Path) -> None:
    """The camera calibration's advice is several lines; on the command line it reads as
    one line of whole sentences, with no run-on joint and no indentation left in it."""
    chess = Path(__file__).resolve().parents[1] / "data" / "real" / "calibration-chessboard"
    photos = [str(p) for p in sorted(chess.glob("left*.jpg"))[:3]]
    r = cli("calibrate", "camera", *photos, "--pattern", "10x7", "--out", str(tmp_path / "c.json"))
    assert r.code == 2
    line = r.error_line()
    assert "(10 or more is better). A 9x6 chessboard was found" in line, line
    assert "on the command line). left01.jpg, left02.jpg" in line, line
    assert "  " not in line, line


def test_a_folder_among_the_camera_s_photos_is_dropped_not_refused(cli, tmp_path: Path) -> None:
    """'tabletop calibrate camera photos/*' where photos/ also holds a subfolder: the
    subfolder is dropped, named, like a photo without the pattern, and the photos calibrate."""
    images = sorted(str(p) for p in CHESSBOARD.glob("left*.jpg"))[:4]
    sub = tmp_path / "rejected"
    sub.mkdir()
    out = tmp_path / "camera.json"
    r = cli("calibrate", "camera", *images, str(sub), "--pattern", "9x6", "--out", str(out))
    assert r.code == 0, r.err
    assert "  rejected: is a folder, not a photo" in r.out
    assert CameraCalibration.load(out).rms > 0

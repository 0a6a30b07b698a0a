"""Bad input to the commands: one line naming what is wrong and exit status 2, never a
traceback (exit 3), and an existing game record never changed, nor a new one left behind.

No detector is loaded: where a command would load one before the bad input is read, a
stand-in that must never read a frame takes its place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

from tabletop.live.record import LiveRecord
from tabletop.records import parse_record

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
RECORDS = ROOT / "tabletop" / "data" / "records"
FIELD_PHOTO = SAMPLES / "the-game-turn-00.jpg"
DEEP = "[" * 100_000 + "]" * 100_000  # valid JSON, nested past the reader's limit
ONEWORLD_BOARD = (22.516660498395403, 33.0)  # the default map's pose size, hex units (the kit's)


class _NoDetector:
    """Stands in for a detector that the command must not get as far as using."""

    names = ("hand",)
    piece_scale = None
    backend = "none"
    info = SimpleNamespace(source=Path("none.pt"), imgsz=640)

    def detect(self, frame: Any) -> Any:
        raise AssertionError("bad input must be refused before a frame is read")


@pytest.fixture
def no_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.detect
    import vision.dice_finder

    monkeypatch.setattr(vision.detect.Detector, "load", classmethod(lambda cls, *a, **k: _NoDetector()))
    monkeypatch.setattr(vision.dice_finder, "load_finder", lambda *a, **k: None)


def _play(*extra: str) -> list[str]:
    return ["play", "oneworld", "--images", str(SAMPLES), "--no-window", "--out", "unused-frames", "--audio", "none",
            *extra]


def _untouched(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before
    assert not path.with_name(path.name + ".events.jsonl").exists()


# -- play --resume: the record is read in full before anything is written to it -------------


def test_resume_refuses_a_photo_and_leaves_it_as_it_was(cli, tmp_path: Path) -> None:
    photo = tmp_path / "game.jsonl"
    photo.write_bytes((SAMPLES / "oneworld-turn-00.jpg").read_bytes())  # binary, lines, no line end last
    before = photo.read_bytes()
    result = cli(*_play("--resume", str(photo)))
    assert result.code == 2
    assert "not a game record" in result.error_line()
    _untouched(photo, before)


def test_resume_of_another_games_record_writes_nothing(cli, tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    record.write_bytes((RECORDS / "wormholes.jsonl").read_bytes())
    before = record.read_bytes()
    result = cli(*_play("--resume", str(record)))
    assert result.code == 2
    assert "--resume: the record is a game of wormholes, not oneworld" in result.error_line()
    _untouched(record, before)


def test_resume_of_a_record_that_does_not_replay_is_not_cut(cli, tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    header = (RECORDS / "oneworld.jsonl").read_text().splitlines()[0]
    record.write_text(header + '\n{"action": {"type": "end-movement", "side": 7}}\n{"action": {"type": "mo')
    before = record.read_bytes()
    result = cli(*_play("--resume", str(record)))
    assert result.code == 2
    assert "line 2" in result.error_line()
    _untouched(record, before)


@pytest.mark.parametrize(("flag", "value"), [("--position", "start.json"), ("--options", '{"god_lives": 2}')])
def test_resume_refuses_a_position_or_options_of_its_own(cli, tmp_path: Path, flag: str, value: str) -> None:
    record = tmp_path / "game.jsonl"
    record.write_bytes((RECORDS / "oneworld.jsonl").read_bytes())
    before = record.read_bytes()
    result = cli(*_play("--resume", str(record), flag, value))
    assert result.code == 2
    assert f"{flag}: not with --resume" in result.error_line()
    _untouched(record, before)


def test_resume_refuses_an_undo_line_that_takes_back_another_action(cli, tmp_path: Path) -> None:
    """An undo must take back the last action standing, as 'rules replay' checks: a resumed
    record whose undo names another move was read as if the move were taken back."""
    lines = (RECORDS / "oneworld.jsonl").read_text().splitlines()
    first = json.loads(lines[1])["action"]
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join([lines[0], lines[1], json.dumps({"undo": dict(first, extra=1)})]) + "\n")
    before = record.read_bytes()
    result = cli(*_play("--resume", str(record)))
    assert result.code == 2
    assert "line 3: undo: takes back" in result.error_line() and "last action standing (line 2)" in result.error_line()
    _untouched(record, before)


def test_resume_keeps_a_whole_last_line_that_lacks_only_its_line_end(tmp_path: Path) -> None:
    text = (RECORDS / "oneworld.jsonl").read_text().rstrip("\n")
    record = tmp_path / "game.jsonl"
    record.write_text(text)
    live, _, n = LiveRecord.resume(record, sync=False)
    live.close()
    assert n == len(parse_record(text).entries)  # the last action is played, not dropped
    assert record.read_text() == text + "\n"  # and the next line will start on a line of its own


# -- play: nothing is created or opened until every input has been read ---------------------


@pytest.mark.parametrize("bad,needle", [("pose", "--pose"), ("video", "cannot read the video"),
                                        ("picture-named-video", "--video: no frame could be read"),
                                        ("audio", "--audio"), ("calibration", "--calibration")])
def test_play_leaves_no_new_record_behind_when_an_input_is_bad(cli, tmp_path: Path, no_detector: None,
                                                               bad: str, needle: str) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff\xd8\xff\x00 not a file of any kind \xff")
    record = tmp_path / "game.jsonl"
    source, audio, extra = ["--images", str(SAMPLES)], "none", []
    if bad == "video":
        video = tmp_path / "table.mp4"
        video.write_text("not a video\n")
        source = ["--video", str(video)]
    elif bad == "picture-named-video":  # OpenCV opens it as a sequence of pictures, of none
        video = tmp_path / "table.png"
        video.write_text("not a picture\n")
        source = ["--video", str(video)]
    elif bad == "audio":
        audio = f"wav:{junk}/said.wav"  # in a folder that is a file
    else:
        extra = [f"--{bad}", str(junk)]
    result = cli("play", "oneworld", *source, "--record", str(record), "--no-window", "--out",
                 str(tmp_path / "frames"), "--audio", audio, *extra)
    assert result.code == 2
    assert needle in result.error_line()
    assert not record.exists()


@pytest.mark.parametrize("source,needle", [(["--camera", "7"], "cannot open camera 7"),
                                           (["--url", "rtsp://192.0.2.1/live"], "cannot open the stream")])
def test_a_camera_or_stream_that_cannot_be_opened_leaves_nothing_behind(cli, tmp_path: Path, no_detector: None,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       source: list[str], needle: str) -> None:
    """A camera not plugged in (or a phone's address mistyped) is refused at once, before a
    record, a folder of frames or a WAV is made: a header-only record left behind would block
    the next try with "exists (use --resume)" (the outdoor session's log too). A stream lost later is reopened (test_live)."""
    from tabletop.live.inputs import Capture

    monkeypatch.setattr(Capture, "open", lambda self: None)
    record, frames, wav = tmp_path / "game.jsonl", tmp_path / "frames", tmp_path / "said.wav"
    result = cli("play", "oneworld", *source, "--record", str(record), "--no-window", "--out", str(frames),
                 "--audio", f"wav:{wav}")
    assert result.code == 2 and needle in result.error_line()
    result = cli("outdoor", *source, "--no-window", "--out", str(frames), "--audio", f"wav:{wav}",
                 "--log", str(record))
    assert result.code == 2 and needle in result.error_line()
    assert list(tmp_path.iterdir()) == []


def test_outdoor_with_a_source_of_no_frames_says_so_and_leaves_no_log(cli, tmp_path: Path, no_detector: None) -> None:
    video, log = tmp_path / "field.png", tmp_path / "field.jsonl"
    video.write_text("not a picture\n")
    result = cli("outdoor", "--video", str(video), "--log", str(log), "--no-window", "--out", str(tmp_path / "frames"),
                 "--audio", "none")
    assert result.code == 2 and "--video: no frame could be read" in result.error_line()
    assert not log.exists()


def test_a_file_given_as_the_frames_folder_is_refused_and_leaves_no_log(cli, tmp_path: Path,
                                                                         no_detector: None) -> None:
    """--out naming a file: one line naming --out, and no log begun (a log left holding only
    its header would block the next try with "exists (use --resume)"), nor a record."""
    taken = tmp_path / "frames"
    taken.write_text("a file already\n")
    record, log = tmp_path / "game.jsonl", tmp_path / "field.jsonl"
    result = cli("outdoor", "--images", str(SAMPLES), "--glob", "the-game-*", "--log", str(log), "--no-window",
                 "--out", str(taken), "--audio", "none")
    assert result.code == 2 and "--out: " in result.error_line() and "is a file, not a folder" in result.error_line()
    result = cli("play", "oneworld", "--images", str(SAMPLES), "--record", str(record), "--no-window", "--out",
                 str(taken), "--audio", "none")
    assert result.code == 2 and "--out: " in result.error_line() and "is a file, not a folder" in result.error_line()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames"]


def test_images_naming_a_file_says_it_is_a_file(cli, tmp_path: Path, no_detector: None) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes((SAMPLES / "oneworld-still-1.jpg").read_bytes())
    record, log = tmp_path / "game.jsonl", tmp_path / "field.jsonl"
    for argv in (["play", "oneworld", "--record", str(record)], ["outdoor", "--log", str(log)]):
        result = cli(*argv, "--images", str(photo), "--no-window", "--out", str(tmp_path / "frames"), "--audio", "none")
        assert result.code == 2
        assert result.error_line() == (f"tabletop: error: --images: {photo} is a file, not a folder: give the folder "
                                       "the photos are in")
        result = cli(*argv, "--images", str(tmp_path / "none"), "--no-window", "--out", str(tmp_path / "frames"),
                     "--audio", "none")
        assert result.error_line() == f"tabletop: error: --images: {tmp_path / 'none'}: no such folder"
    assert not record.exists() and not log.exists()


def test_a_record_whose_event_log_cannot_be_written_is_not_left_behind(cli, tmp_path: Path,
                                                                       no_detector: None) -> None:
    """The record's side log (RECORD.events.jsonl) cannot be opened (a folder of that name):
    one line naming it, and no header-only record left to block the next try."""
    record = tmp_path / "game.jsonl"
    (tmp_path / "game.jsonl.events.jsonl").mkdir()
    result = cli(*_play("--record", str(record)))
    assert result.code == 2 and "game.jsonl.events.jsonl" in result.error_line()
    assert not record.exists()


def test_a_new_record_never_takes_over_the_side_log_of_an_earlier_game(cli, tmp_path: Path,
                                                                      no_detector: None) -> None:
    """game.jsonl was deleted and game.jsonl.events.jsonl was left: a new --record game.jsonl
    is refused, naming the side log, which is left as it was (the new game's events would
    have been appended to the old game's); a resumed record appends to its own side log."""
    record = tmp_path / "game.jsonl"
    side = tmp_path / "game.jsonl.events.jsonl"
    side.write_text('{"time": "2026-01-02T20:15:07", "kind": "illegal"}\n')
    before = side.read_bytes()
    result = cli(*_play("--record", str(record)))
    assert result.code == 2
    assert result.error_line() == (f"tabletop: error: --record: {side} exists (the side log of an earlier game?): "
                                   "move it away or remove it, or give another --record")
    assert side.read_bytes() == before and not record.exists()
    with pytest.raises(FileExistsError):
        LiveRecord.create(record, "oneworld", {}, None)
    assert side.read_bytes() == before and not record.exists()
    side.unlink()
    fresh = LiveRecord.create(record, "oneworld", {}, None)
    fresh.event("first")
    fresh.close()
    again = LiveRecord.reopen(record, record.stat().st_size)
    again.event("second")
    again.close()
    assert [json.loads(line)["kind"] for line in side.read_text().splitlines()] == ["first", "second"]


def test_a_video_that_cannot_be_written_is_refused_before_the_record_is_begun(cli, tmp_path: Path,
                                                                              no_detector: None) -> None:
    """--video-out (or --out FILE.mp4) where no file can be made (a folder of that name):
    refused before the record is created, naming the option, not at the first frame with a
    header-only record left behind."""
    record = tmp_path / "game.jsonl"
    (tmp_path / "table.mp4").mkdir()
    for flag in ("--video-out", "--out"):
        extra = ["--out", str(tmp_path / "frames")] if flag == "--video-out" else []
        result = cli("play", "oneworld", "--images", str(SAMPLES), "--record", str(record), "--no-window",
                     *extra, flag, str(tmp_path / "table.mp4"), "--audio", "none")
        assert result.code == 2 and f"{flag}: " in result.error_line() and "table.mp4: cannot write the video" \
            in result.error_line()
        assert not record.exists() and not record.with_name(record.name + ".events.jsonl").exists()


def test_a_folder_of_pictures_none_readable_is_refused_and_leaves_no_record(cli, tmp_path: Path,
                                                                          no_detector: None) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    for name in ("a.jpg", "b.jpg"):
        (shots / name).write_bytes(b"not a picture")
    record, log = tmp_path / "game.jsonl", tmp_path / "field.jsonl"
    result = cli("play", "oneworld", "--images", str(shots), "--record", str(record), "--no-window", "--out",
                 str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and "--images: no frame could be read" in result.error_line()
    result = cli("outdoor", "--images", str(shots), "--log", str(log), "--no-window", "--out",
                 str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and "--images: no frame could be read" in result.error_line()
    assert not record.exists() and not log.exists()
    assert not record.with_name(record.name + ".events.jsonl").exists()


@pytest.mark.parametrize(("extra", "needle"), [
    (["--camera-size", "1280x720"], "--camera-size: only with --camera"),
    (["--no-frame-drop"], "--no-frame-drop: only with --camera or --url"),
])
@pytest.mark.parametrize("command", ["play", "outdoor"])
def test_a_camera_s_option_with_a_folder_is_refused(cli, tmp_path: Path, no_detector: None, command: str,
                                                     extra: list[str], needle: str) -> None:
    head = ["play", "oneworld"] if command == "play" else ["outdoor"]
    result = cli(*head, "--images", str(SAMPLES), "--no-window", "--out", str(tmp_path / "frames"),
                 "--audio", "none", *extra)
    assert result.code == 2 and needle in result.error_line()
    result = cli(*head, "--video", str(tmp_path / "game.mp4"), "--glob", "*.png", "--no-window", "--out",
                 str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and "--glob: only with --images" in result.error_line()
    assert list(tmp_path.iterdir()) == []


def test_a_pose_from_pictures_of_another_shape_is_refused_at_the_first_frame(cli, tmp_path: Path,
                                                                           no_detector: None) -> None:
    """The sample pictures are 4:3; a pose made from a 1280x720 photo maps other pixels:
    refused before any frame is read, and the record begun for it removed."""
    from calibration.pose import BoardPose

    pose = BoardPose.from_homography(np.diag([0.05, 0.05, 1.0]), "hex", ONEWORLD_BOARD, frame_size=(1280, 720))
    pose_file = tmp_path / "pose.json"
    pose_file.write_text(json.dumps({"format": "tabletop-board-pose", "version": 1, **pose.to_json(),
                                     "undistorted": False}))
    record = tmp_path / "game.jsonl"
    result = cli(*_play("--pose", str(pose_file), "--record", str(record)))
    assert result.code == 2
    assert "--pose: the board pose was made from 1280x720 pictures and these frames are 640x480, another shape" \
        in result.error_line()
    assert not record.exists() and not record.with_name(record.name + ".events.jsonl").exists()
    pose_file.write_text(json.dumps({**json.loads(pose_file.read_text()), "units": "inch", "size": [24.0, 24.0]}))
    log = tmp_path / "field.jsonl"
    result = cli("outdoor", "--images", str(SAMPLES), "--pose", str(pose_file), "--log", str(log), "--no-window",
                 "--out", str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and "--pose: the board pose was made from 1280x720 pictures" in result.error_line()
    assert not log.exists()
    from rules.the_game.options import TheGameOptions
    from tabletop.outdoor.log import FieldLog

    FieldLog.create(log, TheGameOptions()).close()
    before = log.read_bytes()
    result = cli("outdoor", "--images", str(SAMPLES), "--pose", str(pose_file), "--resume", str(log), "--no-window",
                 "--out", str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and log.read_bytes() == before  # a resumed log is never written to for it
    record.write_bytes((RECORDS / "oneworld.jsonl").read_bytes())
    before = record.read_bytes()
    pose_file.write_text(json.dumps({**json.loads(pose_file.read_text()), "units": "hex", "size": list(ONEWORLD_BOARD)}))
    result = cli(*_play("--pose", str(pose_file), "--resume", str(record)))
    assert result.code == 2
    _untouched(record, before)


def test_click_without_a_display_is_one_line(cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Clicking corners needs a window: with no display, say so and name --corners (OpenCV
    would abort the whole process in Qt)."""
    import tabletop.live.play

    monkeypatch.setattr(tabletop.live.play, "has_display", lambda: False)
    result = cli("calibrate", "board", str(SAMPLES / "oneworld-turn-00.jpg"), "--game", "oneworld", "--click",
                 "--out", str(tmp_path / "pose.json"))
    assert result.code == 2
    assert "--click needs a window" in result.error_line() and "--corners" in result.error_line()
    assert not (tmp_path / "pose.json").exists()


def test_play_refuses_a_pose_of_another_games_board(cli, tmp_path: Path, no_detector: None) -> None:
    from calibration.pose import BoardPose

    pose = tmp_path / "field.json"
    pose.write_text(json.dumps(BoardPose.from_homography(np.diag([0.05, 0.05, 1.0]), "inch", (24, 24)).to_json()))
    result = cli(*_play("--pose", str(pose)))
    assert result.code == 2
    assert "--pose" in result.error_line() and "inch units" in result.error_line()


def test_play_position_that_is_not_text(cli, tmp_path: Path) -> None:
    position = tmp_path / "start.json"
    position.write_bytes(b"\xff\xfe\x00")
    result = cli(*_play("--position", str(position)))
    assert result.code == 2
    assert result.error_line().startswith("tabletop: error: --position: ")


# -- pose files: measure, outdoor and play read them alike ----------------------------------

_POSE = {"image_to_board": [[0.05, 0, 0], [0, 0.05, 0], [0, 0, 1]], "units": "inch", "size": [24, 24]}


@pytest.mark.parametrize("doc,needle", [
    ({**_POSE, "image_to_board": [[1, 0], [0, 1]]}, "finite 3x3 matrix"),
    ({**_POSE, "size": [24]}, "'size'"),
    ({**_POSE, "size": [1e400, 24]}, "'size'"),
    ({**_POSE, "size": [0, 24]}, "'size'"),
    ({**_POSE, "image_to_board": [[1e308, 0, 0], [0, 1e308, 0], [0, 0, 1]]}, "degenerate"),
    ({**_POSE, "quality": [1]}, "'quality'"),
    ({**_POSE, "units": "hex"}, "hex units"),
    ([1, 2, 3], "expected a JSON object"),
    (DEEP, "nested too deeply"),
    (b"\xff\x00", "not even text"),
])
def test_measure_refuses_a_pose_file_that_is_not_a_field_pose(cli, tmp_path: Path, doc: Any, needle: str) -> None:
    pose = tmp_path / "pose.json"
    if isinstance(doc, bytes):
        pose.write_bytes(doc)
    else:
        pose.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    result = cli("measure", str(FIELD_PHOTO), "10,10", "20,20", "--pose", str(pose))
    assert result.code == 2
    line = result.error_line()
    assert line.startswith(f"tabletop: error: --pose: {pose}: ") and needle in line


@pytest.mark.parametrize("point", ["99999999,99999999", "640,10", "10,480"])
def test_measure_refuses_a_point_outside_the_picture(cli, point: str) -> None:
    photo = SAMPLES / "the-game-still-1.jpg"  # 640 x 480
    result = cli("measure", str(photo), "1,1", point, "--labels", str(photo.with_suffix(".json")))
    assert result.code == 2
    assert result.error_line() == (f"tabletop: error: measure: the point {point} is outside the picture (640 x 480 "
                                   "pixels: x from 0 to 639, y from 0 to 479)")


def test_measure_labels_nested_too_deeply(cli, tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text(DEEP)
    result = cli("measure", str(FIELD_PHOTO), "R1", "B1", "--labels", str(labels))
    assert result.code == 2
    assert "--labels: unreadable JSON: nested too deeply" in result.error_line()


# -- outdoor ---------------------------------------------------------------------------------


def test_outdoor_options_must_be_an_object(cli, tmp_path: Path) -> None:
    result = cli("outdoor", "--images", str(SAMPLES), "--options", "[1]", "--no-window", "--out", str(tmp_path),
                 "--audio", "none")
    assert result.code == 2
    assert "--options: expected a JSON object" in result.error_line()


def test_an_unwritable_wav_is_one_line_without_a_traceback(repo_root: Path, tmp_path: Path) -> None:
    """A WAV in a folder that cannot exist: no 'Exception ignored' from a half-made writer."""
    shots = tmp_path / "shots"
    shots.mkdir()
    cv2.imwrite(str(shots / "a.png"), np.zeros((48, 64, 3), np.uint8))
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    env.pop("TABLETOP_DEBUG", None)
    done = subprocess.run(  # the test reads the exit status
        [sys.executable, "-m", "tabletop", "outdoor", "--images", str(shots), "--labels", "--no-window",
         "--out", str(tmp_path / "frames"), "--audio", f"wav:{blocker}/said.wav"],
        check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("tabletop: error: --audio: cannot write ")
    assert done.stderr.count("\n") == 1, done.stderr


def test_a_file_that_is_no_video_is_one_line_without_ffmpeg_s_own(repo_root: Path, tmp_path: Path) -> None:
    """FFmpeg writes its own complaint ("moov atom not found") straight to standard error,
    past OpenCV's log level: silenced too, so bad input stays one line."""
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"garbage, not a video\n" * 10)
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    for name in ("TABLETOP_DEBUG", "OPENCV_LOG_LEVEL", "OPENCV_FFMPEG_LOGLEVEL"):
        env.pop(name, None)
    done = subprocess.run(  # the test reads the exit status
        [sys.executable, "-m", "tabletop", "outdoor", "--video", str(bad), "--no-window", "--out",
         str(tmp_path / "frames"), "--audio", "none"],
        check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("tabletop: error: ") and "cannot read the video" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


# -- calibrate -------------------------------------------------------------------------------


def test_calibrate_camera_on_pictures_too_small_for_a_pattern(cli, tmp_path: Path) -> None:
    tiny, thin = tmp_path / "tiny.png", tmp_path / "thin.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(thin), np.zeros((2, 4000, 3), np.uint8))
    for photos in ([tiny], [thin], [tiny, thin]):
        result = cli("calibrate", "camera", *map(str, photos), "--out", str(tmp_path / "camera.json"))
        assert result.code == 2
        assert "too small or too narrow" in result.error_line()
    assert not (tmp_path / "camera.json").exists()


def test_calibrate_board_with_a_camera_file_nested_too_deeply(cli, tmp_path: Path) -> None:
    camera = tmp_path / "camera.json"
    camera.write_text(DEEP)
    result = cli("calibrate", "board", str(SAMPLES / "oneworld-turn-00.jpg"), "--game", "oneworld",
                 "--camera", str(camera), "--out", str(tmp_path / "pose.json"))
    assert result.code == 2
    assert "not a calibration file" in result.error_line()


# -- JSON past the reader's limits ------------------------------------------------------------


@pytest.mark.parametrize("line,needle", [
    ('{"action": ' + DEEP + "}", "line 2: unreadable JSON: nested too deeply"),
    ('{"action": {"type": "move"}, "rolls": [' + "9" * 5000 + "]}", "line 2: unreadable JSON: a number with"),
])
def test_replay_of_a_record_past_the_json_readers_limits(cli, tmp_path: Path, line: str, needle: str) -> None:
    record = tmp_path / "game.jsonl"
    record.write_text('{"game": "oneworld"}\n' + line + "\n")
    result = cli("rules", "replay", str(record))
    assert result.code == 2
    assert needle in result.error_line()


def test_check_of_json_nested_too_deeply(cli) -> None:
    result = cli("rules", "check", "--game", "oneworld", stdin=DEEP)
    assert result.code == 2
    assert "<stdin>: unreadable JSON: nested too deeply" in result.error_line()


# -- eval on a malformed dataset -----------------------------------------------------------------


def _dataset(root: Path, image: bytes, label: str | bytes | None = None, truth: str | None = None) -> Path:
    for part in ("images", "labels", "truth"):
        (root / part / "train").mkdir(parents=True)
    (root / "images" / "train" / "a.jpg").write_bytes(image)
    if label is not None:
        (root / "labels" / "train" / "a.txt").write_bytes(label if isinstance(label, bytes) else label.encode())
    if truth is not None:
        (root / "truth" / "train" / "a.json").write_text(truth)
    return root


PHOTO = b"photo"  # stands for a real photo in the cases below
BOARD = {"board_to_image": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}  # a truth's homography
PIECE = {"box": [1, 2, 30, 40], "class": "borg-stone", "class_id": 0, "in_labels": True}


@pytest.mark.parametrize("image,label,truth,needle", [
    (b"hello\n", None, None, "a.jpg: cannot read this image"),
    (b"", None, json.dumps({"image_size": [640, 480], "board": BOARD}), "a.jpg: cannot read this image"),
    (PHOTO, b"\xff\xfe0 0.5 0.5 0.1 0.1\n", None, "a.txt: not a label file (not UTF-8 text"),
    # a truth the figures cannot read: refused before the detector runs, never a bug's exit 3
    (PHOTO, None, '{"image_size": [640, 480]}',
     "a.json: not a ground truth as 'tabletop render' writes it (board.board_to_image"),
    (PHOTO, None, '{"board": {"board_to_image": "x"}}', "(board.board_to_image: a 3 x 3 homography"),
    (PHOTO, None, '{"board": {"board_to_image": [[0, 0, 0], [0, 0, 0], [0, 0, 1]]}}', "(board.board_to_image"),
    (PHOTO, None, json.dumps({"board": BOARD, "camera": {"intrinsics": [1, 2]}}), "(camera: intrinsics a 3 x 3"),
    (PHOTO, None, json.dumps({"board": BOARD, "pieces": [PIECE, {"in_labels": True, "class": "borg-stone"}]}),
     "(pieces[1]: a labelled piece has a box"),
    (PHOTO, None, json.dumps({"image_size": [0, 0], "board": BOARD}), "image_size must be [width, height], in pixels"),
    (PHOTO, "inf 0.5 0.5 0.1 0.1\n", None, "the class must be a whole number"),
    (PHOTO, "nan 0.5 0.5 0.1 0.1\n", None, "the class must be a whole number"),
    (PHOTO, "-3 0.5 0.5 0.1 0.1\n", None, "the class must be a whole number"),
    (PHOTO, "0 0.5 0.5 0.1 0.1\n\n999 0.5 0.5 0.1 0.1\n", None,  # the stand-in detector has 1 class
     "labels/train/a.txt: line 3: class 999, and the model has 1 class (0 to 0): give the weights trained on"),
    (PHOTO, None, "[1, 2]", "must be a JSON object"),
    (PHOTO, None, '{"image_size": [640, 480], "pieces": 7}', "pieces: a list of objects"),
    (PHOTO, None, '{"image_size": "big"}', "image_size must be [width, height]"),
])
def test_eval_refuses_a_malformed_dataset(cli, tmp_path: Path, no_detector: None, image: bytes,
                                          label: str | None, truth: str | None, needle: str) -> None:
    if image == PHOTO:
        image = (SAMPLES / "oneworld-turn-00.jpg").read_bytes()
    folder = _dataset(tmp_path / "data", image, label, truth)
    result = cli("eval", "oneworld", "--data", str(folder))
    assert result.code == 2
    line = result.error_line()
    assert line.startswith("tabletop: error: --data: ") and needle in line


# -- numbers out of range are refused by the argument parser ---------------------------------


@pytest.mark.parametrize(("argv", "needle"), [
    (_play("--window", "-1"), "argument --window: the window must be 0 to 10 seconds, got -1"),
    (_play("--window", "nan"), "argument --window: the window must be 0 to 10 seconds, got nan"),
    (_play("--max-frames", "0"), "argument --max-frames: frames must be 1 to 1000000000, got 0"),
    (["outdoor", "--images", str(SAMPLES), "--height", "-0.5"],
     "argument --height: the pieces' height must be 0 to 12 inches, got -0.5"),
    (["outdoor", "--images", str(SAMPLES), "--max-frames", "-3"], "argument --max-frames: frames must be 1 to"),
    (["measure", str(FIELD_PHOTO), "R1", "B1", "--imgsz", "100"],
     "argument --imgsz: the image size must be a multiple of 32"),
    (["measure", str(FIELD_PHOTO), "R1", "B1", "--height", "13"],
     "argument --height: the pieces' height must be 0 to 12 inches, got 13"),
    (["measure", str(FIELD_PHOTO), "R1", "B1", "--marker-size", "6"],
     "--marker-size: a size with no unit is in millimetres, and 6 mm is smaller"),
    (["outdoor", "--images", str(SAMPLES), "--marker-size", "6"], "--marker-size: a size with no unit"),
    (["calibrate", "field", str(FIELD_PHOTO), "--marker-size", "0", "--out", "unused.json"],
     "--marker-size: a marker size must be above zero, got '0' (the printed marker's width, e.g. 152 or 6in)"),
    (["measure", str(FIELD_PHOTO), "R1", "B1", "--marker-size=-1cm"], "--marker-size: a marker size must be above zero"),
    (["outdoor", "--images", str(SAMPLES), "--marker-size", "0in"], "--marker-size: a marker size must be above zero"),
    (["measure", str(FIELD_PHOTO), "R1", "B1", "--field-size", "3x"], "--field-size: not a field size"),
    (["calibrate", "field", str(FIELD_PHOTO), "--size", "24 by 24", "--out", "unused.json"], "--size: not a field size"),
    # a negative index crashes OpenCV outright on some systems: refused before it is tried
    (_play("--camera", "-1")[:2] + ["--camera", "-1"], "argument --camera: a camera index (0: the first webcam) must be"),
    (["outdoor", "--camera", "-1"], "argument --camera: a camera index (0: the first webcam) must be 0 to 9999, got -1"),
])
def test_numbers_out_of_range_are_refused_before_anything_runs(cli, no_detector: None, argv: list[str],
                                                                needle: str) -> None:
    result = cli(*argv)
    assert result.code == 2
    assert needle in result.error_line()


def test_resume_looks_for_the_markers_of_the_record_s_own_board(cli, tmp_path: Path, no_detector: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed Battle Grounds game on the advanced board (its record's options; ``--options``
    is refused with ``--resume``) follows the advanced board's markers, not the basic one's."""
    import calibration.tracker

    header = json.loads((RECORDS / "battle-grounds.jsonl").read_text().splitlines()[0])
    header["options"]["board"] = "advanced"
    record = tmp_path / "game.jsonl"
    record.write_text(json.dumps(header) + "\n")
    kits: list[str] = []

    class Stop(Exception):
        pass

    def tracker(spec: Any, *args: Any, **kwargs: Any) -> Any:
        kits.append(spec.name)
        raise Stop

    monkeypatch.setattr(calibration.tracker, "PoseTracker", tracker)
    result = cli("play", "battle-grounds", "--images", str(SAMPLES), "--no-window", "--out", str(tmp_path / "f"),
                 "--audio", "none", "--resume",
                 str(record))
    assert kits == ["battle-grounds-advanced"], result.err


@pytest.mark.parametrize("method,printed", [("manual", False), ("markers", True)])
def test_play_with_a_fixed_pose_leaves_out_marker_spots_only_for_a_pose_found_from_them(
        cli, tmp_path: Path, no_detector: None, monkeypatch: pytest.MonkeyPatch, method: str, printed: bool) -> None:
    """``tabletop play --pose``: a pose from corners given by hand hands the live pipeline no
    marker spots (the board may have no markers beside it: a die there is a die); one found
    from the kit's markers hands it the kit."""
    from calibration.pose import BoardPose, PoseQuality
    from tabletop.live import play

    pose = BoardPose.from_homography(np.diag([0.05, 0.05, 1.0]), "hex", ONEWORLD_BOARD,
                                     PoseQuality(method, 0.0, 4, 4, 0.5), frame_size=(640, 480))
    pose_file = tmp_path / "pose.json"
    pose_file.write_text(json.dumps({"format": "tabletop-board-pose", "version": 1, **pose.to_json(),
                                     "undistorted": False}))
    handed: list[Any] = []

    class Handed(Exception):
        pass

    def capture(*args: Any, markers: Any = None, **kwargs: Any) -> Any:
        handed.append(markers)
        raise Handed

    monkeypatch.setattr(play, "build_pipeline", capture)
    cli(*_play("--pose", str(pose_file), "--glob", "oneworld-*"))  # stopped once the pipeline is asked for
    assert len(handed) == 1
    assert (handed[0] is not None) is printed
    if printed:
        assert handed[0].ids == play._marker_spec("oneworld", {}).ids


def test_a_fixed_pose_of_another_board_is_refused(cli, tmp_path: Path, no_detector: None) -> None:
    """A pose of another board than the game's puts the pieces on the wrong cells: refused
    before a record is made, naming both sizes and what to do (Battle Grounds' basic board is
    6 x 7 squares; a pose clicked by its corners defaults to 8 x 8, the advanced board's)."""
    from calibration.marker_spec import kit_for
    from calibration.pose import BoardPose

    assert kit_for("oneworld").size == ONEWORLD_BOARD
    pose = BoardPose.from_homography(np.diag([0.02, 0.02, 1.0]), "square", (8.0, 8.0), frame_size=(640, 480))
    pose_file = tmp_path / "pose.json"
    pose_file.write_text(json.dumps({"format": "tabletop-board-pose", "version": 1, **pose.to_json(),
                                     "undistorted": False}))
    record = tmp_path / "game.jsonl"
    head = ["play", "battle-grounds", "--images", str(SAMPLES), "--glob", "battle-grounds-*", "--no-window",
            "--out", str(tmp_path / "frames"), "--audio", "none", "--pose", str(pose_file), "--record", str(record)]
    result = cli(*head)
    assert result.code == 2
    assert "a pose of a board 8 x 8 squares, and this game's board is 6 x 7: calibrate this board" in result.error_line()
    assert "--squares 6x7" in result.error_line()
    assert not record.exists()

    field = BoardPose.from_homography(np.diag([0.05, 0.05, 1.0]), "inch", (36.0, 24.0), frame_size=(640, 480))
    pose_file.write_text(json.dumps({"format": "tabletop-board-pose", "version": 1, **field.to_json(),
                                     "undistorted": False}))
    result = cli("play", "the-game", "--images", str(SAMPLES), "--glob", "the-game-*", "--no-window",
                 "--out", str(tmp_path / "frames"), "--audio", "none", "--pose", str(pose_file), "--record", str(record))
    assert result.code == 2 and "a pose of a board 36 x 24 inches, and this game's board is 24 x 24" in \
        result.error_line() and "field_width" in result.error_line()
    log = tmp_path / "field.jsonl"
    result = cli("outdoor", "--images", str(SAMPLES), "--glob", "the-game-*", "--pose", str(pose_file), "--log",
                 str(log), "--no-window", "--out", str(tmp_path / "frames"), "--audio", "none")
    assert result.code == 2 and "36 x 24 inches" in result.error_line() and "--field-size" in result.error_line()
    assert not record.exists() and not log.exists() and not (tmp_path / "frames").exists()

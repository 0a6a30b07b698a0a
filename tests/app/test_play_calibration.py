"""``tabletop play --calibration FILE``: every frame is undistorted with the camera's
calibration before the board and the pieces are read."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import models
from calibration.camera import CameraCalibration
from tabletop.cli import main
from tabletop.live.play import undistorted

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _camera(k1: float, size: tuple[int, int] = (800, 600)) -> CameraCalibration:
    w, h = size
    k = np.array([[700.0, 0, w / 2 - 0.5], [0, 700.0, h / 2 - 0.5], [0, 0, 1]])
    return CameraCalibration(k, np.array([k1, 0, 0, 0, 0], float), size, 0.2)


def test_frames_are_undistorted_and_a_lost_frame_passes_as_it_is() -> None:
    cam = _camera(-0.3)
    frame = np.zeros((600, 800, 3), np.uint8)
    frame[::40] = 255  # horizontal lines: barrel distortion bends them
    got = list(undistorted([(frame, 0.0), (None, 0.1)], cam))
    assert got[1] == (None, 0.1)
    assert got[0][1] == 0.0
    assert np.array_equal(got[0][0], cam.undistort(frame))
    assert not np.array_equal(got[0][0], frame)


def test_a_bad_calibration_file_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "camera.json"
    bad.write_text("{not json")
    code = main(["play", "oneworld", "--images", str(SAMPLES), "--glob", "oneworld-turn-*.jpg", "--no-window",
                 "--out", str(tmp_path / "f"), "--audio", "none", "--calibration", str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "--calibration" in err


@pytest.mark.skipif("oneworld" not in models.available(), reason="models/oneworld.pt is not shipped")
def test_play_reads_the_sample_turn_through_an_undistorting_camera(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    m = json.loads((SAMPLES / "oneworld-turn.json").read_text())
    (tmp_path / "start.json").write_text(json.dumps(m["start"]))
    cam = tmp_path / "camera.json"
    cam.write_text(json.dumps(_camera(0.0).to_json()))  # the renderer's lens has no distortion
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["play", "oneworld", "--images", str(SAMPLES), "--glob", "oneworld-turn-*.jpg",
                 "--position", str(tmp_path / "start.json"), "--options", json.dumps(m["options"]),
                 "--rolls", "4", "--no-window", "--out", str(tmp_path / "f"), "--audio", "none",
                 "--calibration", str(cam)])
    text = out.getvalue()
    assert code == 0, text
    assert m["moves"][0]["announcement"] in text

"""``tabletop play`` end to end on the bundled sample sequences: real frames, real marker pose
tracking, the detector replaced by a ground-truth double (tests only; no trained model)."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import SAMPLES, manifest, truth_detections

from tabletop.cli import main


class TruthDetector:
    """Recognises each sample frame by its pixels and answers with its ground truth."""

    def __init__(self, game: str) -> None:
        import cv2

        self.by_hash = {}
        names: set[str] = set()
        for f in manifest(game)["frames"]:
            img = cv2.imread(str(SAMPLES / f["image"]))
            truth = json.loads((SAMPLES / f["truth"]).read_text())
            names.update(truth["classes"])
            self.by_hash[hashlib.sha1(img.tobytes()).hexdigest()] = truth
        self.names = tuple(sorted(names))

    def detect(self, frame: np.ndarray):
        return truth_detections(self.by_hash[hashlib.sha1(frame.tobytes()).hexdigest()])


def _play(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, game: str, *extra: str) -> tuple[int, str, Path]:
    import vision.detect
    import vision.dice_finder

    monkeypatch.setattr(vision.detect.Detector, "load", classmethod(lambda cls, *a, **k: TruthDetector(game)))
    monkeypatch.setattr(vision.dice_finder, "load_finder", lambda *a, **k: None)  # the double finds no dice
    m = manifest(game)
    start = tmp_path / "start.json"
    start.write_text(json.dumps(m["start"]))
    rolls = [r for mv in m["moves"] for r in mv["rolls"]]
    argv = ["play", game, "--images", str(SAMPLES), "--glob", f"{game}-turn-*.jpg", "--position", str(start),
            "--options", json.dumps(m["options"]), "--no-window", "--out", str(tmp_path / "frames"),
            "--audio", f"wav:{tmp_path / 'said.wav'}", *extra]
    if rolls:
        argv += ["--rolls", ",".join(map(str, rolls))]
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = main(argv)
    return code, out.getvalue(), tmp_path


@pytest.mark.parametrize("game", ["oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game"])
def test_play_a_sample_sequence_end_to_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, game: str) -> None:
    record = tmp_path / "game.jsonl"
    extra = ["--record", str(record)]
    if game == "the-game":  # the field in the samples has no markers: a pose file, as calibrate writes
        from calibration.pose import BoardPose

        board = json.loads((SAMPLES / "the-game-turn-00.json").read_text())["board"]
        pose = BoardPose.from_homography(np.linalg.inv(np.array(board["board_to_image"])), "inch",
                                         tuple(board["size"]))
        (tmp_path / "pose.json").write_text(json.dumps(pose.to_json()))
        extra += ["--pose", str(tmp_path / "pose.json")]
    code, text, folder = _play(monkeypatch, tmp_path, game, *extra)
    assert code == 0, text
    m = manifest(game)
    for mv in m["moves"]:
        if game == "the-game":  # distances measured from boxes differ from the truth by a few hundredths
            assert mv["announcement"].split(";")[0].split(" moves ")[0] in text
        else:
            assert mv["announcement"] in text
    assert "ILLEGAL" not in text or "Illegal" in text
    assert game == "the-game" or "board found" in text
    lines = record.read_text().splitlines()
    assert json.loads(lines[0])["game"] == game
    assert len(lines) == 1 + 1 + sum(len(mv["before"]) for mv in m["moves"])  # header, legal move, rolls
    frames = sorted((folder / "frames").glob("*.jpg"))
    assert len(frames) == len(m["frames"]) * 5
    with wave.open(str(folder / "said.wav")) as w:
        assert w.getnframes() > 0


def test_play_without_a_detector_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["play", "wormholes", "--images", str(SAMPLES), "--glob", "wormholes-turn-*.jpg",
                 "--position", str(tmp_path / "missing.json"), "--no-window", "--out", str(tmp_path)])
    assert code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_play_writes_an_mp4_of_the_annotated_frames(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import cv2

    import vision.detect

    monkeypatch.setattr(vision.detect.Detector, "load", classmethod(lambda cls, *a, **k: TruthDetector("wormholes")))
    m = manifest("wormholes")
    (tmp_path / "start.json").write_text(json.dumps(m["start"]))
    base = ["play", "wormholes", "--images", str(SAMPLES), "--glob", "wormholes-turn-*.jpg", "--position",
            str(tmp_path / "start.json"), "--options", json.dumps(m["options"]), "--no-window", "--audio", "none"]
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main([*base, "--out", str(tmp_path / "game.mp4")]) == 0
    assert main([*base, "--out", str(tmp_path / "frames"), "--video-out", str(tmp_path / "also.mp4")]) == 0
    n = len(m["frames"]) * 5
    first = cv2.imread(str(SAMPLES / m["frames"][0]["image"]))
    for video in ("game.mp4", "also.mp4"):
        cap = cv2.VideoCapture(str(tmp_path / video))
        assert cap.isOpened()
        assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == n
        assert cap.get(cv2.CAP_PROP_FPS) == pytest.approx(10.0)
        ok, img = cap.read()
        assert ok and img.shape == first.shape
        assert np.abs(img.astype(int) - first.astype(int)).mean() > 0.5  # the overlay is drawn on it
    assert len(list((tmp_path / "frames").glob("frame-*.jpg"))) == n
    assert (tmp_path / "game.mp4").is_file() and f"annotated frames: {n} written" in out.getvalue()


def test_play_video_out_must_be_an_mp4(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["play", "wormholes", "--images", str(SAMPLES), "--no-window", "--video-out", str(tmp_path / "a.avi")])
    assert code == 2
    assert "--video-out: the video must be an .mp4 file" in capsys.readouterr().err


@pytest.mark.parametrize("every", [False, True])
def test_play_reads_a_still_picture_once_unless_told_to_read_every_frame(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, every: bool) -> None:
    """``--images`` shows each picture for 5 frames 0.1 s apart: read at most three times by
    default (on the first frame, then every 0.2 s), five times with ``--read-every-frame``;
    the announcements are the same."""
    calls: list[int] = []
    detect = TruthDetector.detect

    def counting(self: TruthDetector, frame: np.ndarray):
        calls.append(1)
        return detect(self, frame)

    monkeypatch.setattr(TruthDetector, "detect", counting)
    code, text, _ = _play(monkeypatch, tmp_path, "oneworld", *(["--read-every-frame"] if every else []))
    assert code == 0, text
    pictures = len(manifest("oneworld")["frames"])
    if every:
        assert len(calls) == pictures * 5
    else:
        assert pictures <= len(calls) <= pictures * 3
    for mv in manifest("oneworld")["moves"]:
        assert mv["announcement"] in text


def test_play_refuses_a_board_wider_than_the_kit_mat_before_writing_a_record(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    m = manifest("when-gods-collide")
    start = dict(m["start"])
    tiles = list(start["tiles"])
    squares = [tuple(int(v) for v in t["at"].split(",")) for t in tiles]
    x, y = max(squares)  # the rightmost tile
    left = min(s[0] for s in squares)
    while x + 2 - left <= 16:  # a row of tiles running right from it, each touching the last
        x += 2
        tiles.append({"at": f"{x},{y}", "owner": tiles[-1]["owner"]})
    start["tiles"] = tiles
    (tmp_path / "wide.json").write_text(json.dumps(start))
    record = tmp_path / "game.jsonl"
    code = main(["play", "when-gods-collide", "--images", str(SAMPLES), "--position", str(tmp_path / "wide.json"),
                 "--options", json.dumps(m["options"]), "--record", str(record), "--no-window", "--out",
                 str(tmp_path / "frames")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "--position: the kit cannot lay out this board" in err and "the mat holds 16 x 16" in err
    assert not record.exists()


def test_play_goes_on_without_a_d6_finder_that_cannot_be_loaded(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    """The d6 finder is a help beside the game's detector: one that cannot be loaded is said,
    and the game is refereed without it (dice typed or rolled)."""
    import tabletop.live.play
    from vision.detect import DetectorError

    def broken(detector: object) -> None:
        raise DetectorError("models/d6.pt: cannot load these weights")

    monkeypatch.setattr(tabletop.live.play, "dice_finder_for", broken)
    code, text, _ = _play(monkeypatch, tmp_path, "oneworld")
    assert code == 0, text
    assert "the d6 finder could not be loaded" in text

"""The live window: the keys (a function, no window needed) and the real OpenCV window under a
virtual display (Xvfb), with a screenshot checked for the overlay."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.live.window import KEYS, Controls, handle_key

from .window_probe import read_xwd

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


# -- the keys, without a window ------------------------------------------------------------------
class FakePipe:
    def __init__(self) -> None:
        self.paused = False
        self.calls: list[str] = []

    def undo(self) -> str:
        self.calls.append("undo")
        return "B11-1118"

    def accept_other(self) -> str:
        self.calls.append("accept")
        return "other reading: B11 moves from 0618 to 1018."

    def recalibrate(self) -> None:
        self.calls.append("recalibrate")


class FakeAudio:
    muted = False

    def toggle_mute(self) -> bool:
        self.muted = not self.muted
        return self.muted


class FakeTracker:
    resets = 0

    def reset(self) -> None:
        self.resets += 1


@pytest.fixture
def controls() -> Controls:
    said: list[str] = []
    c = Controls(FakePipe(), FakeAudio(), FakeTracker(), said.append)
    c.said = said  # type: ignore[attr-defined]
    return c


@pytest.mark.parametrize(
    ("keys", "command", "calls", "said"),
    [
        ("p", "pause", [], ["paused: p to go on"]),
        ("pp", "pause", [], ["paused: p to go on", "going on"]),
        ("u", "undo", ["undo"], ["undone: B11-1118"]),
        ("a", "accept", ["accept"], ["other reading: B11 moves from 0618 to 1018."]),
        ("r", "recalibrate", ["recalibrate"], ["recalibrating: finding the board again"]),
        ("m", "mute", [], ["muted"]),
        ("mm", "mute", [], ["muted", "sound on"]),
        ("q", "quit", [], []),
        ("Q", "quit", [], []),
        ("x", None, [], []),
    ],
)
def test_each_key_does_what_it_says(controls: Controls, keys: str, command: str | None, calls: list[str],
                                    said: list[str]) -> None:
    results = [handle_key(ord(k), controls) for k in keys]
    assert results[-1] == command
    assert controls.pipe.calls == calls
    assert controls.said == said  # type: ignore[attr-defined]


def test_no_key_escape_and_the_key_table(controls: Controls) -> None:
    assert handle_key(None, controls) is None and handle_key(-1, controls) is None
    assert handle_key(27, controls) == "quit"
    assert handle_key(ord("r"), controls) == "recalibrate" and controls.tracker.resets == 1
    assert set(KEYS) == set("puarmq")
    assert not controls.pipe.paused


def test_digit_keys_type_the_dice_thrown_and_backspace_takes_one_back(controls: Controls) -> None:
    from rules.errors import RollNeededError
    from tabletop.live.pipeline import Rolls

    controls.pipe.rolls = Rolls([2])  # one roll given with --rolls
    assert [handle_key(ord(k), controls) for k in "45"] == ["die", "die"]
    assert controls.pipe.rolls.given == [2, 4, 5]
    assert handle_key(8, controls) == "take back die" and controls.pipe.rolls.given == [2, 4]
    assert handle_key(ord("7"), controls) is None  # no die shows it
    assert handle_key(ord("0"), controls) == "die"  # a piecepack die's null
    assert controls.said == ["die 4 typed (waiting: 2 4)", "die 5 typed (waiting: 2 4 5)",  # type: ignore[attr-defined]
                             "die 5 taken back (waiting: 2 4)", "die 0 typed (waiting: 2 4 0)"]
    assert [controls.pipe.rolls.roll(6, "a test") for _ in range(2)] == [2, 4]
    dropped: list[str] = []
    controls.pipe.rolls.say = dropped.append
    with pytest.raises(RollNeededError):  # the 0 is no face of the d6 the rules roll: dropped, and none is left
        controls.pipe.rolls.roll(6, "a test")
    assert dropped == ["Die 0 taken back: a d6 shows 1 to 6."] and controls.pipe.rolls.given == []
    assert handle_key(127, controls) == "take back die" and controls.said[-1] == "no die to take back"  # type: ignore[attr-defined]
    assert controls.pipe.calls == []


def test_recalibrate_with_a_fixed_pose_has_no_tracker_to_reset() -> None:
    pipe = FakePipe()
    assert handle_key(ord("r"), Controls(pipe, None, None, lambda s: None)) == "recalibrate"
    assert pipe.calls == ["recalibrate"]
    assert handle_key(ord("m"), Controls(pipe, None, None, lambda s: None)) == "mute"  # no sound: nothing to do


# -- the window under Xvfb ----------------------------------------------------------------------
def _gui() -> str:
    import cv2

    for line in cv2.getBuildInformation().splitlines():
        if line.strip().startswith("GUI:"):
            return line.split(":", 1)[1].strip()
    return ""


@pytest.fixture(scope="module")
def display() -> str:
    """A virtual display on a free number (Xvfb picks it), white behind the window."""
    missing = [p for p in ("Xvfb", "xwd") if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found (Debian: apt-get install xvfb x11-apps xdotool)")
    if _gui() in ("", "NONE"):
        pytest.skip("this OpenCV has no GUI (a headless build)")
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-wr", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        number = f.readline().strip()
    if not number:
        proc.kill()
        pytest.skip("Xvfb did not start")
    probe = ("import cv2, numpy as np; cv2.namedWindow('probe'); cv2.imshow('probe', np.zeros((8, 8, 3), np.uint8)); "
             "cv2.waitKey(50); cv2.destroyAllWindows()")
    env = dict(os.environ, DISPLAY=f":{number}")
    tried = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60,
                           check=False)
    if tried.returncode != 0:
        proc.terminate()
        proc.wait(timeout=10)
        why = (tried.stderr.strip().splitlines() or ["no message"])[-1]
        pytest.skip(f"OpenCV cannot open a window on Xvfb here: {why}")
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)


def _probe(display: str, tmp_path: Path, frame: int, key: str, *play: str) -> tuple[subprocess.CompletedProcess, Path]:
    shot = tmp_path / "screen.xwd"
    env = dict(os.environ, DISPLAY=display, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, str(HERE / "window_probe.py"), str(frame), str(shot), key, "--", *play],
                          check=False, capture_output=True, text=True, env=env, timeout=240, cwd=str(ROOT))
    return done, shot


def test_the_window_shows_the_overlay_and_q_quits(display: str, tmp_path: Path) -> None:
    import cv2

    import sample_images

    m = json.loads(sample_images.sequence("oneworld").read_text())
    (tmp_path / "start.json").write_text(json.dumps(m["start"]))
    frame = 28  # the sixth picture (after the legal move): the move's arrow is on the board
    key = "q" if shutil.which("xdotool") else ""  # typed into the window at that frame
    done, shot = _probe(display, tmp_path, frame, key, "play", "oneworld", "--images", str(sample_images.folder()),
                        "--glob", "oneworld-turn-*.jpg", "--position", str(tmp_path / "start.json"),
                        "--rolls", "4", "--audio", "none", "--out", str(tmp_path / "frames"))
    assert done.returncode == 0, done.stdout + done.stderr
    frames = len(m["frames"]) * 5
    assert f"{frame if key else frames} frames" in done.stdout  # q in the window stopped the game there
    assert "no window" not in done.stdout
    screen = read_xwd(shot)
    drawn = cv2.imread(str(tmp_path / "frames" / f"frame-{frame:05d}.jpg"))
    # the window shows the annotated frame, pixel for pixel (up to JPEG loss)
    score = cv2.matchTemplate(screen, drawn, cv2.TM_CCOEFF_NORMED)
    _, best, _, (x, y) = cv2.minMaxLoc(score)
    assert best > 0.95, f"the annotated frame is not on the screen (best match {best:.2f})"
    shown = screen[y:y + drawn.shape[0], x:x + drawn.shape[1]].astype(int)

    def count(bgr: tuple[int, int, int], tol: int = 40) -> int:
        return int((np.abs(shown - np.array(bgr)).sum(axis=2) < tol).sum())

    from tabletop.live.overlay import GREEN, WHITE, YELLOW

    assert count(YELLOW) > 500  # the board's outline and cell centres
    assert count(GREEN) > 200  # piece boxes and the legal move's arrow
    bar = shown[-20:]  # the status line: white text on black
    assert (bar.sum(axis=2) < 60).mean() > 0.6
    assert (np.abs(bar - np.array(WHITE)).sum(axis=2) < 120).sum() > 100


# -- the frame loop with a scripted window (no display) ---------------------------------------
class ScriptedWindow:
    """Returns the given keys in turn, from show() and wait() alike; records what was shown."""

    def __init__(self, keys: list[str | None]) -> None:
        self.keys = list(keys)
        self.shown: list[np.ndarray] = []

    def _next(self) -> int | None:
        k = self.keys.pop(0) if self.keys else None
        return None if k is None else ord(k)

    def show(self, img: np.ndarray, wait_ms: int = 1) -> int | None:
        self.shown.append(img)
        return self._next()

    def wait(self, wait_ms: int) -> int | None:
        return self._next()

    def is_open(self) -> bool:
        return True


class CountingPipe(FakePipe):
    def __init__(self) -> None:
        super().__init__()
        self.processed = 0

    def process(self, frame: np.ndarray, t: float) -> object:
        self.processed += 1
        return None


def test_pause_holds_the_picture_keys_still_work_and_q_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.live import overlay
    from tabletop.live.session import run_frames

    monkeypatch.setattr(overlay, "draw", lambda frame, result, pipe, fps=0.0: frame.copy())
    pipe = CountingPipe()
    said: list[str] = []
    controls = Controls(pipe, FakeAudio(), None, said.append)
    # frames 1, 2: no key; 3: p (paused: a banner), then while paused: nothing, u, p (go on); 4: q
    window = ScriptedWindow([None, None, "p", None, "u", "p", "q"])
    frames = [(np.full((40, 60, 3), i, np.uint8), i / 10) for i in range(10)]
    n = run_frames(iter(frames), pipe, window=window, on_key=lambda k: handle_key(k, controls))
    assert n == 4 and pipe.processed == 4
    assert said == ["paused: p to go on", "undone: B11-1118", "going on"]
    assert len(window.shown) == 5  # four frames and the paused banner over the third
    from tabletop.live.overlay import YELLOW

    band = window.shown[3][:26].astype(int)  # a dark band with yellow text: PAUSED ...
    assert (np.abs(band - np.array(YELLOW)).sum(axis=2) < 80).sum() > 20
    assert (band.sum(axis=2) < 30).mean() > 0.7
    assert np.array_equal(window.shown[3][27:], window.shown[2][27:])  # over the same picture

"""Motion over the board holds the reading back like a hand the detector saw."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import pipeline, truth_detections, truth_frames, truth_view

from tabletop.live.motion import BoardMotion, StillFrames

BOARD = np.array([[40, 30], [280, 30], [280, 210], [40, 210]], float)


def _picture(seed: int, noise: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.full((240, 320, 3), 120, np.int16)
    base[60:180, 80:240] = 60  # a board with something on it
    return np.clip(base + rng.integers(-noise, noise + 1, base.shape), 0, 255).astype(np.uint8)


def test_sensor_noise_and_exposure_are_no_motion() -> None:
    m = BoardMotion()
    assert not m.update(_picture(0), BOARD)
    assert not any(m.update(_picture(k), BOARD) for k in range(1, 6))
    brighter = np.clip(_picture(7).astype(int) + 12, 0, 255).astype(np.uint8)  # the exposure changed
    assert not m.update(brighter, BOARD)


def test_a_hand_entering_over_the_board_is_motion_and_outside_it_is_not() -> None:
    m = BoardMotion()
    m.update(_picture(0), BOARD)
    outside = _picture(1)
    outside[0:25, 0:100] = 230  # something moves beside the board
    assert not m.update(outside, BOARD)
    over = _picture(2)
    over[100:150, 120:200] = 230  # a hand over the board
    assert m.update(over, BOARD)
    assert m.update(_picture(3), BOARD)  # and gone again: the picture changed back
    assert not m.update(_picture(4), BOARD)


def test_no_position_is_accepted_while_the_board_moves() -> None:
    """Pictures that keep changing over the board, every frame read the same by the detector:
    no position is accepted (the window never fills), as with a hand seen."""
    pipe, _ = pipeline("battle-grounds")
    first = truth_frames("battle-grounds")[0]
    view = truth_view(first)
    pipe.detect = lambda frame: truth_detections(first)  # the detector sees the same every frame
    pipe.locate = lambda frame: type(view)(view.geometry, BOARD, view.quality)

    def waving(k: int) -> np.ndarray:  # something light sweeping across the board
        picture = _picture(k)
        picture[90:140, 60 + 15 * k:110 + 15 * k] = 230
        return picture

    results = [pipe.process(waving(k), 0.1 * k) for k in range(12)]
    assert [r.status for r in results[1:]] == ["motion"] * 11
    assert pipe.base is None
    still = [pipe.process(_picture(20 + k), 1.2 + 0.1 * k) for k in range(6)]
    assert still[0].status == "motion" and "accepted" in [r.status for r in still[1:]]
    assert pipe.base is not None



def _frame(seed: int, noise: int = 3) -> np.ndarray:
    """A 640x480 picture of a board with pieces on it, with fresh sensor noise per seed."""
    rng = np.random.default_rng(seed)
    base = np.full((480, 640, 3), 120, np.int16)
    base[120:360, 160:480] = 60
    for x in range(180, 460, 40):  # pieces of about 14 px
        base[200:214, x:x + 14] = 200
    return np.clip(base + rng.integers(-noise, noise + 1, base.shape), 0, 255).astype(np.uint8)


def test_still_frames_see_past_noise_and_exposure_but_not_a_piece_moved() -> None:
    s = StillFrames(refresh_s=1.0)
    first = _frame(0)
    assert not s.same(first, 0.0)  # nothing kept yet
    s.keep(first, 0.0)
    assert all(s.same(_frame(k, noise=4), 0.05 * k) for k in range(1, 10))
    assert s.same(np.clip(_frame(11).astype(int) + 15, 0, 255).astype(np.uint8), 0.6)  # exposure
    moved = _frame(12)
    moved[200:214, 180:194] = 60  # one piece lifted off ...
    moved[300:314, 300:314] = 200  # ... and put down elsewhere
    assert not s.same(moved, 0.6)
    turned = _frame(13)
    turned[200:214, 260:267] = 140  # half of one piece's top changed
    assert not s.same(turned, 0.6)
    sleeve = _frame(14)
    sleeve[0:40, 0:120] = 220  # something in the picture beside the board
    assert not s.same(sleeve, 0.6)
    assert not s.same(_frame(15), 1.0)  # a still frame is read again after refresh_s
    assert not s.same(first[:, :320], 0.5)  # another size
    s.reset()
    assert not s.same(first, 0.1)


@pytest.mark.parametrize("game", ["battle-grounds", "the-game"])
def test_a_still_frame_keeps_the_reading_of_the_frame_read_before_it(game: str) -> None:
    """A still picture is kept once two readings of it agree, and read again after two thirds
    of the window (0.3 s here): every third frame at 15 frames a second; a changed picture is
    read at once. The Game's field too: the window's vote holds at least two readings of each
    still picture, whose median place and share of frames the vote takes."""
    pipe, _ = pipeline(game)
    first = truth_frames(game)[0]
    view = truth_view(first)
    calls = {"detect": 0, "locate": 0}

    def detect(frame: np.ndarray) -> object:
        calls["detect"] += 1
        return truth_detections(first)

    def locate(frame: np.ndarray) -> object:
        calls["locate"] += 1
        return type(view)(view.geometry, BOARD * 2, view.quality)

    pipe.detect, pipe.locate = detect, locate
    results = [pipe.process(_frame(k), k / 15) for k in range(12)]  # 0.8 s of a still board
    fresh = [True, True, False, False, True, False, False, True, False, False, True, False]
    assert [r.fresh for r in results] == fresh
    assert calls == {"detect": 5, "locate": 5}
    last = [max(j for j in range(k + 1) if fresh[j]) for k in range(12)]
    assert all(r.seen is results[last[k]].seen for k, r in enumerate(results))
    assert "accepted" in [r.status for r in results]

    def moved(seed: int) -> np.ndarray:
        picture = _frame(seed)
        picture[300:314, 300:314] = 200  # a piece put down
        return picture

    assert pipe.process(moved(12), 12 / 15).fresh and calls["detect"] == 6
    assert pipe.process(moved(13), 13 / 15).fresh  # the new picture read twice ...
    assert not pipe.process(moved(14), 14 / 15).fresh  # ... and, the readings agreeing, kept
    assert pipe.process(_frame(15), 15 / 15).fresh and calls["detect"] == 8  # the piece lifted again
    pipe.recalibrate()
    assert pipe.process(_frame(16), 16 / 15).fresh and calls == {"detect": 9, "locate": 9}  # the board found again


def test_a_still_picture_read_otherwise_each_time_is_read_every_frame() -> None:
    """A weak detector that doubts (one reading with a piece, the next without, on the same
    picture): no reading is kept, and the window's vote gets every frame's."""
    pipe, _ = pipeline("battle-grounds")
    first = truth_frames("battle-grounds")[0]
    view = truth_view(first)
    piece = next(p["class"] for p in first["pieces"] if p.get("in_labels"))
    calls: list[int] = []

    def detect(frame: np.ndarray) -> object:
        calls.append(1)
        return truth_detections(first, drop={piece} if len(calls) % 2 else set())

    pipe.detect = detect
    pipe.locate = lambda frame: type(view)(view.geometry, BOARD * 2, view.quality)
    assert all(pipe.process(_frame(k), k / 15).fresh for k in range(9)) and len(calls) == 9


def test_every_frame_is_read_without_still_frames() -> None:
    pipe, _ = pipeline("battle-grounds")
    pipe.still = StillFrames(refresh_s=0.0)
    first = truth_frames("battle-grounds")[0]
    view = truth_view(first)
    calls = []
    pipe.detect = lambda frame: calls.append(1) or truth_detections(first)
    pipe.locate = lambda frame: type(view)(view.geometry, BOARD * 2, view.quality)
    assert all(pipe.process(_frame(k), 0.1 * k).fresh for k in range(5)) and len(calls) == 5


def test_a_detector_that_flickers_on_an_unchanged_picture_does_not_hold_the_position_back() -> None:
    """Every frame read, a weak detector misses one piece in one frame and another in the
    next (two pieces differing from the window's vote each time: past what the window lets
    flicker). On an unchanged picture that is the detector's doubt, not a move: the window
    fills and the position is accepted. The same readings while something moves in the
    picture (beside the board: no motion over it) restart the window every frame."""
    first = truth_frames("battle-grounds")[0]
    view = truth_view(first)
    a, b = [p["class"] for p in first["pieces"] if p.get("in_labels")][:2]

    def run(picture: object) -> list[str]:
        pipe, _ = pipeline("battle-grounds")
        pipe.still = StillFrames(refresh_s=0.0)
        calls: list[int] = []

        def detect(frame: np.ndarray) -> object:
            calls.append(1)
            return truth_detections(first, drop={a} if len(calls) % 2 else {b})

        pipe.detect = detect
        pipe.locate = lambda frame: type(view)(view.geometry, BOARD * 2, view.quality)
        out = [pipe.process(picture(k), k / 15).status for k in range(10)]
        assert len(calls) == 10  # every frame read
        return out

    def beside(k: int) -> np.ndarray:
        picture = _frame(k)
        picture[10:60, 10 + 20 * k:60 + 20 * k] = 230  # something passing beside the board
        return picture

    assert "accepted" in run(_frame)
    assert "accepted" not in run(beside)

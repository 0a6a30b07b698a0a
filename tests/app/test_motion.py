"""Motion over the board holds the reading back like a hand the detector saw."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import pipeline, truth_detections, truth_frames, truth_view

from tabletop.live.motion import BoardMotion

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


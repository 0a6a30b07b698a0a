from __future__ import annotations

import numpy as np
import pytest

from calibration import CalibrationError, apply_homography, homography_from_points


def _random_homography(rng: np.random.Generator) -> np.ndarray:
    h = np.eye(3) + rng.normal(scale=[[0.2, 0.2, 30], [0.2, 0.2, 30], [1e-4, 1e-4, 0]], size=(3, 3))
    return h / h[2, 2]


@pytest.mark.parametrize("seed", range(5))
def test_recovers_a_known_homography_from_many_points(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = _random_homography(rng)
    board = rng.uniform(0, 8, size=(12, 2))
    image = apply_homography(truth, board)
    estimate = homography_from_points(board, image)
    assert np.allclose(estimate, truth, atol=1e-6)


def test_round_trip_board_to_image_and_back() -> None:
    board = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float)
    image = np.array([[102, 88], [530, 101], [560, 470], [80, 455]], float)
    h = homography_from_points(board, image)
    back = apply_homography(np.linalg.inv(h), image)
    assert np.allclose(back, board, atol=1e-9)


@pytest.mark.parametrize(
    "src, dst, words",
    [
        (np.zeros((3, 2)), np.zeros((3, 2)), "at least 4"),
        (np.zeros((4, 2)), np.zeros((5, 2)), "N x 2"),
        (np.array([[0, 0], [1, 1], [2, 2], [3, 3]], float), np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float), "degenerate"),
        (np.ones((4, 2)), np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float), "coincide"),
    ],
)
def test_bad_point_sets_get_a_clear_error(src: np.ndarray, dst: np.ndarray, words: str) -> None:
    with pytest.raises(CalibrationError, match=words):
        homography_from_points(src, dst)

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.geometry import Hex, Square
from vision import Detections, HexLayout, SquareLayout

coords = st.integers(min_value=-30, max_value=30)


@given(coords, coords, st.floats(min_value=0.5, max_value=80), st.floats(-500, 500), st.floats(-500, 500))
def test_hex_centre_maps_back_to_its_hex(q: int, r: int, size: float, ox: float, oy: float) -> None:
    layout = HexLayout(size, (ox, oy))
    assert layout.hex_at(layout.center(Hex(q, r))) == Hex(q, r)


def test_hex_corners_are_inside_neighbouring_boundaries() -> None:
    layout = HexLayout(10.0)
    h = Hex(2, 3)
    cx, cy = layout.center(h)
    for x, y in layout.corners(h):
        assert abs(np.hypot(x - cx, y - cy) - 10.0) < 1e-9
        # a point a little inside the corner still belongs to the hex
        assert layout.hex_at((cx + 0.9 * (x - cx), cy + 0.9 * (y - cy))) == h


def test_adjacent_hex_centres_are_sqrt3_sizes_apart() -> None:
    layout = HexLayout(2.0)
    a = layout.center(Hex(0, 0))
    for n in Hex(0, 0).neighbors():
        b = layout.center(n)
        assert abs(np.hypot(b[0] - a[0], b[1] - a[1]) - 2.0 * np.sqrt(3)) < 1e-9


@given(coords, coords)
def test_square_round_trip(x: int, y: int) -> None:
    layout = SquareLayout(25.0, (13.0, -7.0))
    assert layout.square_at(layout.center(Square(x, y))) == Square(x, y)


def test_detections_validate_shapes_and_filter() -> None:
    d = Detections(np.array([[0, 0, 4, 2], [1, 1, 3, 5]], float), np.array([0.2, 0.8]), np.array([3, 1]))
    kept = d[d.confidence > 0.5]
    assert len(kept) == 1 and kept.class_id.tolist() == [1]
    assert d.anchors("center").tolist() == [[2.0, 1.0], [2.0, 3.0]]
    assert len(Detections.empty()) == 0
    with pytest.raises(ValueError, match="confidence"):
        Detections(np.zeros((2, 4)), np.zeros(3), np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="xyxy"):
        Detections(np.zeros((2, 3)), np.zeros(2), np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="anchor"):
        d.anchors("top")

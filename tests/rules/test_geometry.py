"""Coordinates shared by every game: hexes, hex sides, squares and field points."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import FormatError
from rules.geometry import FieldPoint, Hex, HexDirection, HexSide, Square, SquareDirection

ORIGIN = Hex(0, 0)
hexes = st.builds(Hex, st.integers(-60, 60), st.integers(-60, 60))
directions = st.sampled_from(list(HexDirection))


# -- neighbours and directions ---------------------------------------------------------------


def test_the_six_neighbours_of_the_origin() -> None:
    assert {d: ORIGIN.neighbor(d) for d in HexDirection} == {
        HexDirection.E: Hex(1, 0),
        HexDirection.NE: Hex(1, -1),
        HexDirection.NW: Hex(0, -1),
        HexDirection.W: Hex(-1, 0),
        HexDirection.SW: Hex(-1, 1),
        HexDirection.SE: Hex(0, 1),
    }
    assert list(ORIGIN.neighbors()) == [ORIGIN.neighbor(d) for d in HexDirection]
    assert ORIGIN + HexDirection.SE == Hex(0, 1)


@pytest.mark.parametrize(
    ("printed", "direction", "neighbour"),
    [
        # Odd printed rows are not shifted: the hexes above and below lie half a hex to the west.
        ("0303", HexDirection.E, "0403"),
        ("0303", HexDirection.W, "0203"),
        ("0303", HexDirection.NE, "0302"),
        ("0303", HexDirection.NW, "0202"),
        ("0303", HexDirection.SE, "0304"),
        ("0303", HexDirection.SW, "0204"),
        # Even printed rows are shifted half a hex east.
        ("0404", HexDirection.NE, "0503"),
        ("0404", HexDirection.NW, "0403"),
        ("0404", HexDirection.SE, "0505"),
        ("0404", HexDirection.SW, "0405"),
    ],
)
def test_neighbours_in_printed_numbering(printed: str, direction: HexDirection, neighbour: str) -> None:
    assert Hex.parse(printed).neighbor(direction).label() == neighbour


def test_opposite_and_mirrored_directions() -> None:
    for d in HexDirection:
        assert d.opposite().opposite() is d
        assert ORIGIN.neighbor(d).neighbor(d.opposite()) == ORIGIN
        assert d.mirrored_north_south().mirrored_north_south() is d
        assert d.mirrored_north_south().dq + d.mirrored_north_south().dr / 2 == d.dq + d.dr / 2
    assert HexDirection.NE.mirrored_north_south() is HexDirection.SE
    assert HexDirection.E.mirrored_north_south() is HexDirection.E


def test_direction_names_parse_and_bad_names_name_the_field() -> None:
    assert HexDirection.parse(" ne ") is HexDirection.NE
    with pytest.raises(FormatError) as err:
        HexDirection.parse("N", field="runeline")
    assert err.value.field == "runeline"
    assert "E, NE, NW, W, SW, SE" in str(err.value)


# -- distance and straight lines -------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        (Hex(0, 0), Hex(0, 0), 0),
        (Hex(0, 0), Hex(2, -1), 2),
        (Hex(0, 0), Hex(3, -3), 3),
        (Hex(0, 0), Hex(3, 0), 3),
        (Hex(0, 0), Hex(-2, -1), 3),
        (Hex(1, 2), Hex(-4, 3), 5),
    ],
)
def test_distance_table(a: Hex, b: Hex, distance: int) -> None:
    assert a.distance(b) == distance == b.distance(a)


@given(hexes, hexes, hexes)
@settings(max_examples=200, deadline=None)
def test_distance_is_a_metric(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(b) == b.distance(a) >= 0
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(c) <= a.distance(b) + b.distance(c)
    assert a.s == -a.q - a.r


@given(hexes, directions)
@settings(max_examples=100, deadline=None)
def test_every_neighbour_is_one_away_and_the_ring_has_six(h: Hex, d: HexDirection) -> None:
    assert h.distance(h.neighbor(d)) == 1
    assert len(set(h.neighbors())) == 6
    assert h.direction_to(h.neighbor(d)) is d


@given(hexes, directions, st.integers(1, 12))
@settings(max_examples=100, deadline=None)
def test_straight_lines(h: Hex, d: HexDirection, n: int) -> None:
    line = h.line(d, n)
    assert len(line) == n
    assert [h.distance(x) for x in line] == list(range(1, n + 1))
    assert line[0] == h.neighbor(d)
    assert all(h.direction_to(x) is d for x in line)


def test_direction_to_is_none_off_the_six_lines() -> None:
    assert ORIGIN.direction_to(ORIGIN) is None
    assert ORIGIN.direction_to(Hex(2, -1)) is None  # between E and NE
    assert ORIGIN.direction_to(Hex(-4, 4)) is HexDirection.SW
    assert ORIGIN.line(HexDirection.W, 0) == []


# -- hex sides ---------------------------------------------------------------------------------


def test_the_side_shared_by_two_hexes() -> None:
    a, b = Hex(2, 3), Hex(3, 3)
    side = HexSide.between(a, b)
    assert side == HexSide.between(b, a)
    assert side.hexes() == (a, b)
    assert a.side_towards(HexDirection.E) == side == b.side_towards(HexDirection.W)
    assert str(side) == f"{a.label()}/E"
    assert len({ORIGIN.side_towards(d) for d in HexDirection}) == 6


def test_a_side_needs_two_adjacent_hexes_in_order() -> None:
    with pytest.raises(ValueError, match="not adjacent"):
        HexSide.between(Hex(0, 0), Hex(2, 0))
    with pytest.raises(ValueError, match="a < b"):
        HexSide(Hex(1, 0), Hex(0, 0))


@given(hexes, directions)
@settings(max_examples=100, deadline=None)
def test_each_side_is_shared_by_exactly_its_two_hexes(h: Hex, d: HexDirection) -> None:
    side = h.side_towards(d)
    other = h.neighbor(d)
    assert other.side_towards(d.opposite()) == side
    assert set(side.hexes()) == {h, other}
    assert side.mirrored(lambda x: Hex(-x.q, -x.r)) == HexSide.between(Hex(-h.q, -h.r), Hex(-other.q, -other.r))


# -- printed (offset) numbering ------------------------------------------------------------------


def test_offset_examples() -> None:
    assert Hex.from_offset(1, 1) == Hex(0, 0)
    assert Hex.from_offset(3, 2) == Hex(2, 1)
    assert Hex.from_offset(4, 4) == Hex(2, 3)
    assert Hex(2, 3).offset() == (4, 4)
    assert Hex.from_offset(7, 12).label() == "0712"


@given(st.integers(-99, 99), st.integers(-99, 99))
@settings(max_examples=300, deadline=None)
def test_offset_to_axial_and_back(col: int, row: int) -> None:
    assert Hex.from_offset(col, row).offset() == (col, row)


@given(hexes)
@settings(max_examples=300, deadline=None)
def test_axial_to_offset_and_back(h: Hex) -> None:
    assert Hex.from_offset(*h.offset()) == h


@given(st.integers(1, 99), st.integers(1, 99))
@settings(max_examples=200, deadline=None)
def test_printed_labels_round_trip_on_any_map_size(col: int, row: int) -> None:
    h = Hex.from_offset(col, row)
    assert Hex.parse(h.label()) == h
    assert Hex.parse(f"{col}.{row}") == h == Hex.parse(f"{col},{row}")


def test_labels_off_the_printed_grid_still_round_trip() -> None:
    for h in (Hex.from_offset(0, 5), Hex.from_offset(-1, 3), Hex.from_offset(4, 0), Hex.from_offset(2, -2)):
        assert Hex.parse(h.label()) == h
    assert Hex.from_offset(-1, 3).label() == "-1,+3"
    assert str(Hex.from_offset(5, 9)) == "0509"


@pytest.mark.parametrize("bad", ["", "712", "07x2", "a,b", "1,2,3", "0712 extra"])
def test_bad_labels_are_format_errors_naming_the_field(bad: str) -> None:
    with pytest.raises(FormatError) as err:
        Hex.parse(bad, field="action.to")
    assert err.value.field == "action.to"


def test_a_label_must_be_text() -> None:
    with pytest.raises(FormatError, match="expected a hex label"):
        Hex.parse(712)  # type: ignore[arg-type]


# -- squares and field points -----------------------------------------------------------------


def test_square_basics() -> None:
    a = Square(3, 4)
    assert a + SquareDirection.N == Square(3, 3)
    assert a.step(SquareDirection.SE, 2) == Square(5, 6)
    assert a.chebyshev(Square(6, 2)) == 3
    assert a.manhattan(Square(6, 2)) == 5
    assert len(list(a.neighbors())) == 8
    assert set(a.neighbors(diagonal=False)) == {Square(3, 3), Square(4, 4), Square(3, 5), Square(2, 4)}
    assert str(a) == "3,4"
    assert {a: 1}[Square(3, 4)] == 1
    assert Square(1, 9) < Square(2, 0)


def test_square_directions() -> None:
    assert SquareDirection.orthogonal() == (SquareDirection.N, SquareDirection.E, SquareDirection.S, SquareDirection.W)
    assert all(d.diagonal for d in SquareDirection.diagonals())
    assert not any(d.diagonal for d in SquareDirection.orthogonal())
    assert {(d.dx, d.dy) for d in SquareDirection} == {
        (x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)
    }


def test_field_point_basics() -> None:
    a, b = FieldPoint(1.0, 2.0), FieldPoint(4.0, 6.0)
    assert a.distance(b) == 5.0
    assert (b - a).norm() == 5.0
    assert a + b == FieldPoint(5.0, 8.0)
    assert a.scaled(2) == FieldPoint(2.0, 4.0)
    assert a.bearing_to(FieldPoint(1.0, 5.0)) == pytest.approx(90.0)
    assert a.bearing_to(FieldPoint(0.0, 2.0)) == pytest.approx(180.0)
    assert a.bearing_to(FieldPoint(1.0, 0.0)) == pytest.approx(270.0)
    assert str(a) == '(1.00", 2.00")'


@given(
    st.floats(-100, 100, allow_nan=False),
    st.floats(-100, 100, allow_nan=False),
    st.floats(-100, 100, allow_nan=False),
    st.floats(-100, 100, allow_nan=False),
)
@settings(max_examples=100, deadline=None)
def test_field_point_distance_and_bearing(x1: float, y1: float, x2: float, y2: float) -> None:
    a, b = FieldPoint(x1, y1), FieldPoint(x2, y2)
    assert a.distance(b) == pytest.approx(b.distance(a))
    assert a.distance(b) == pytest.approx((b - a).norm())
    bearing = a.bearing_to(b)
    assert 0.0 <= bearing < 360.0
    if a.distance(b) > 1e-6:
        back = math.radians(bearing)
        assert a.x + a.distance(b) * math.cos(back) == pytest.approx(b.x, abs=1e-6)
        assert a.y + a.distance(b) * math.sin(back) == pytest.approx(b.y, abs=1e-6)


@pytest.mark.parametrize("col, row", [(100, 5), (3, 250), (0, 0), (-1, 3), (12, -4)])
def test_labels_of_large_or_negative_offsets_parse_back(col: int, row: int) -> None:
    h = Hex.from_offset(col, row)
    assert Hex.parse(h.label()) == h


def test_bearing_just_below_the_x_axis_stays_below_360() -> None:
    b = FieldPoint(0, 0).bearing_to(FieldPoint(1, -1e-17))
    assert 0.0 <= b < 360.0

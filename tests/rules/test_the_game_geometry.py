"""The Game: footprints, fields of vision, observation status and edge-to-edge gaps."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.geometry import FieldPoint
from rules.the_game.model import Piece, Presence
from rules.the_game.options import TheGameOptions
from rules.the_game.shapes import (
    ELLIPSE_CORNERS,
    Footprint,
    cone_hits_polygon,
    footprint_gap,
    gap,
    quick_sight,
    sees,
    unit,
)
from rules.the_game.sight import edge_gap, observation, within_range

DISC = Footprint.ellipse(1.0, 1.0)
OPTS = TheGameOptions()


def piece(pid: str, side: str, x: float, y: float, facing: float,
          footprint: Footprint = DISC, **kw: Any) -> Piece:
    return Piece(pid, side, side, FieldPoint(x, y), facing, footprint, **kw)


# -- footprints -------------------------------------------------------------------------
def test_rectangle_outline_is_turned_by_the_facing() -> None:
    stick = Footprint.rectangle(4.0, 1.0)  # 4" long front to back, 1" wide
    corners = stick.outline(10.0, 10.0, 90.0)  # facing +y: its length lies along y
    xs = sorted(round(x, 9) for x, _ in corners)
    ys = sorted(round(y, 9) for _, y in corners)
    assert (xs[0], xs[-1]) == (9.5, 10.5)
    assert (ys[0], ys[-1]) == (8.0, 12.0)


def test_ellipse_outline_has_the_documented_corners_and_radius() -> None:
    leaf = Footprint.ellipse(3.0, 1.0)
    assert len(leaf.outline(0, 0, 0)) == ELLIPSE_CORNERS
    assert leaf.radius == pytest.approx(1.5)


@pytest.mark.parametrize(
    "points, message",
    [
        ([(1, 0), (0, 1)], "at least 3 corners"),
        ([(1, 0), (-1, 1), (0, 0.2), (-1, -1)], "convex"),
        ([(5, 5), (6, 5), (6, 6), (5, 6)], "surround the piece's centre"),
        ([(1, 0), (2, 0), (3, 0)], "no area"),
    ],
)
def test_bad_polygons_are_refused_with_a_reason(points: list[tuple[float, float]],
                                                message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Footprint.polygon(tuple(FieldPoint(x, y) for x, y in points))


def test_clockwise_polygon_is_accepted_and_turned_counter_clockwise() -> None:
    square = Footprint.polygon(tuple(FieldPoint(x, y) for x, y in
                                     [(1, 1), (1, -1), (-1, -1), (-1, 1)]))
    a = square.outline(0, 0, 0)
    b = square.outline(5, 0, 0)
    assert gap(a, b)[0] == pytest.approx(3.0)


@pytest.mark.parametrize("length, width", [(0, 1), (1, -2), (float("nan"), 1), (1, math.inf)])
def test_sizes_must_be_positive_and_finite(length: float, width: float) -> None:
    with pytest.raises(ValueError, match="positive number"):
        Footprint.rectangle(length, width)


# -- gaps -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a, b, expected",
    [
        # two 2"x1" rectangles side by side along x, 1" between their long sides
        ((Footprint.rectangle(2, 1), 0, 0, 0), (Footprint.rectangle(2, 1), 0, 2, 0), 1.0),
        # end to end along x: centres 5" apart, half-lengths 1" each
        ((Footprint.rectangle(2, 1), 0, 0, 0), (Footprint.rectangle(2, 1), 5, 0, 0), 3.0),
        # corner to corner on the diagonal: corners (1, .5) and (4, 3.5) -> 3*sqrt(2)
        ((Footprint.rectangle(2, 1), 0, 0, 0), (Footprint.rectangle(2, 1), 5, 4, 0),
         3 * math.sqrt(2)),
        # overlapping rectangles touch: zero
        ((Footprint.rectangle(2, 1), 0, 0, 0), (Footprint.rectangle(2, 1), 1, 0, 90), 0.0),
        # a stick turned 90 degrees: its end points at the other piece
        ((Footprint.rectangle(4, 0.5), 0, 0, 90), (Footprint.rectangle(1, 1), 0, 5, 0), 2.5),
    ],
)
def test_gap_between_rectangles(a: tuple, b: tuple, expected: float) -> None:
    fa, xa, ya, ta = a
    fb, xb, yb, tb = b
    assert gap(fa.outline(xa, ya, ta), fb.outline(xb, yb, tb))[0] == pytest.approx(expected)


def test_gap_between_discs_matches_centre_distance_less_radii() -> None:
    # the inscribed 24-gon is at most r(1 - cos 7.5 deg) = 0.0043" short of the circle
    d = gap(DISC.outline(0, 0, 0), DISC.outline(3, 4, 33))[0]
    assert 4.0 <= d <= 4.0 + 2 * 0.5 * (1 - math.cos(math.pi / ELLIPSE_CORNERS))


@pytest.mark.parametrize("bearing", [0.0, 7.5, 22.5, 36.87, 53.13, 81.0, 200.0])
def test_the_pieces_gap_is_measured_against_their_true_outlines(bearing: float) -> None:
    """Discs 1" across with centres 2" apart are 1" apart edge to edge whatever the bearing
    (the 24-gon alone says up to 1.0086"); a 3" x 1" leaf is its half-length from its tip."""
    t = math.radians(bearing)
    a, b = piece("A", "red", 5, 5, 10), piece("B", "blue", 5 + 2 * math.cos(t), 5 + 2 * math.sin(t), 250)
    d, dx, dy = edge_gap(a, b)
    assert d == pytest.approx(1.0, abs=1e-9)
    assert (dx, dy) == pytest.approx((math.cos(t), math.sin(t)), abs=1e-6)  # the push closes it
    strict = TheGameOptions(tolerance=0.0)
    assert within_range(a, b, strict)
    far = piece("B", "blue", 5 + 2.001 * math.cos(t), 5 + 2.001 * math.sin(t), 250)
    assert not within_range(a, far, strict) and edge_gap(a, far)[0] == pytest.approx(1.001, abs=1e-9)
    leaf = piece("L", "red", 0, 0, bearing, Footprint.ellipse(3.0, 1.0))
    tip = piece("T", "blue", 4 * math.cos(t), 4 * math.sin(t), 0)  # along the leaf's length
    assert edge_gap(leaf, tip)[0] == pytest.approx(4 - 1.5 - 0.5, abs=1e-9)


def test_footprint_gap_agrees_with_dense_outlines() -> None:
    """Random ellipses against ellipses and rectangles: the exact gap against outlines of
    1500 points round an ellipse, 4000 round a rectangle: good to a ten-thousandth of an inch here."""
    def dense(fp: Footprint, x: float, y: float, facing: float) -> list[tuple[float, float]]:
        c, s = unit(facing)
        if fp.shape.value == "ellipse":
            loc = [(fp.length / 2 * math.cos(2 * math.pi * i / 1500), fp.width / 2 * math.sin(2 * math.pi * i / 1500))
                   for i in range(1500)]
        else:
            corners = fp.local
            loc = [(corners[k][0] + (corners[(k + 1) % 4][0] - corners[k][0]) * i / 1000,
                    corners[k][1] + (corners[(k + 1) % 4][1] - corners[k][1]) * i / 1000)
                   for k in range(4) for i in range(1000)]
        return [(x + u * c - v * s, y + u * s + v * c) for u, v in loc]

    rng = random.Random(11)
    checked = 0
    for _ in range(40):
        fa = Footprint.ellipse(rng.uniform(0.4, 3.0), rng.uniform(0.2, 1.2))
        fb = (Footprint.ellipse(rng.uniform(0.4, 3.0), rng.uniform(0.2, 1.2)) if rng.random() < 0.5
              else Footprint.rectangle(rng.uniform(0.5, 4.0), rng.uniform(0.2, 1.0)))
        pa = (0.0, 0.0, rng.uniform(0, 360))
        pb = (rng.uniform(-5, 5), rng.uniform(-5, 5), rng.uniform(0, 360))
        d = footprint_gap(fa, pa, fb, pb)[0]
        if d < 0.05:
            continue
        a_pts, b_pts = np.array(dense(fa, *pa)), np.array(dense(fb, *pb))
        best = float(np.sqrt(((a_pts[:, None, :] - b_pts[None, :, :]) ** 2).sum(axis=2)).min())
        assert d == pytest.approx(best, abs=2e-4)
        assert d <= gap(fa.outline(*pa), fb.outline(*pb))[0] + 1e-12  # never longer than the polygons'
        checked += 1
    assert checked >= 20


def _brute_gap(a: tuple, b: tuple) -> float:
    def seg(px: float, py: float, x0: float, y0: float, x1: float, y1: float) -> float:
        ex, ey = x1 - x0, y1 - y0
        t = max(0.0, min(1.0, ((px - x0) * ex + (py - y0) * ey) / (ex * ex + ey * ey)))
        return math.hypot(px - x0 - t * ex, py - y0 - t * ey)

    best = math.inf
    for p, q in ((a, b), (b, a)):
        for px, py in p:
            for k in range(len(q)):
                best = min(best, seg(px, py, *q[k], *q[(k + 1) % len(q)]))
    return best


shapes = st.sampled_from([Footprint.ellipse(1, 1), Footprint.ellipse(3, 0.8),
                          Footprint.rectangle(4, 0.5), Footprint.rectangle(1.5, 1.5),
                          Footprint.polygon((FieldPoint(1.5, 0), FieldPoint(-0.5, 1),
                                             FieldPoint(-0.5, -1)))])
coords = st.floats(-8, 8, allow_nan=False)
angles = st.floats(0, 360, allow_nan=False)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(shapes, coords, coords, angles, shapes, coords, coords, angles)
def test_gap_agrees_with_brute_force_and_its_push_closes_it(
    fa: Footprint, xa: float, ya: float, ta: float,
    fb: Footprint, xb: float, yb: float, tb: float,
) -> None:
    a, b = fa.outline(xa, ya, ta), fb.outline(xb, yb, tb)
    d, dx, dy = gap(a, b)
    if d > 0:
        assert d == pytest.approx(_brute_gap(a, b), abs=1e-9)
        assert math.hypot(dx, dy) == pytest.approx(d)
        moved = tuple((x + dx, y + dy) for x, y in a)
        assert gap(moved, b)[0] == pytest.approx(0.0, abs=1e-9)
    else:  # overlapping: some corner of one lies inside the other, or edges cross
        assert _brute_gap(a, b) < 1e-9 or _overlaps(a, b)
    assert gap(b, a)[0] == pytest.approx(d, abs=1e-9)


def _overlaps(a: tuple, b: tuple) -> bool:
    """A corner of one inside the other, or two edges crossing."""
    def inside(poly: tuple, x: float, y: float) -> bool:
        n = len(poly)
        return all((poly[(i + 1) % n][0] - poly[i][0]) * (y - poly[i][1])
                   - (poly[(i + 1) % n][1] - poly[i][1]) * (x - poly[i][0]) >= -1e-9
                   for i in range(n))

    def cross(o: tuple, p: tuple, q: tuple) -> float:
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    def crossing(p0: tuple, p1: tuple, q0: tuple, q1: tuple) -> bool:
        return (cross(p0, p1, q0) * cross(p0, p1, q1) < 0
                and cross(q0, q1, p0) * cross(q0, q1, p1) < 0)

    if any(inside(b, x, y) for x, y in a) or any(inside(a, x, y) for x, y in b):
        return True
    return any(crossing(a[i], a[(i + 1) % len(a)], b[j], b[(j + 1) % len(b)])
               for i in range(len(a)) for j in range(len(b)))


# -- vision -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "watcher, other, fov, expected",
    [
        ((0, 0, 0), (5, 0), 180, True),     # straight ahead
        ((0, 0, 0), (-5, 0), 180, False),   # straight behind
        ((0, 0, 90), (5, 0), 180, True),    # level with it: half the disc is in front
        ((0, 0, 90), (5, 0), 90, False),    # ... but not inside a 90-degree wedge
        ((0, 0, 0), (5, 5), 90, True),      # centre on the 90-degree wedge's rim: half in
        ((0, 0, 0), (5, 5.8), 90, False),   # 0.57" beyond the rim: the 0.5" disc is out
        ((0, 0, 0), (5, 5.6), 90, True),    # 0.42" beyond the rim: the disc pokes in
        ((0, 0, 0), (-5, 0), 360, True),    # all round vision
        ((0, 0, 0), (-5, 0), 340, False),   # a 20-degree blind spot hides a disc 5" back
        ((0, 0, 0), (-2, 0), 340, True),    # ... but not one 2" back (it looks wider)
        ((0, 0, 0), (-5, 0), 359, True),    # a 1-degree blind spot hides nothing that big
        ((0, 0, 0), (0.2, 0.0), 10, True),  # its centre inside the other's footprint
        ((0, 0, 0), (-0.5, 0.0), 180, False),  # a disc touching its centre from behind
        ((0, 0, 0), (-0.5, 0.0), 5, False),    # ... with any field of vision
    ],
)
def test_field_of_vision(watcher: tuple, other: tuple, fov: float, expected: bool) -> None:
    px, py, facing = watcher
    qx, qy = other
    assert sees(px, py, facing, qx, qy, DISC.radius, DISC.outline(qx, qy, 0), fov) is expected


@settings(max_examples=300, deadline=None, derandomize=True)
@given(coords, coords, angles, shapes, coords, coords, angles, st.floats(5, 355))
def test_quick_sight_never_contradicts_the_exact_test(
    px: float, py: float, facing: float, fq: Footprint, qx: float, qy: float, tq: float,
    fov: float,
) -> None:
    fx, fy = unit(facing)
    h = math.radians(fov) / 2
    outline = fq.outline(qx, qy, tq)
    quick = quick_sight(px, py, fx, fy, qx, qy, fq.radius, math.cos(h), math.sin(h))
    exact = cone_hits_polygon(px, py, fx, fy, h, outline)
    if quick is not None:
        assert quick is exact


def test_exact_sight_agrees_with_sampling_points_of_the_footprint() -> None:
    rng = random.Random(7)
    stick = Footprint.rectangle(6.0, 0.5)
    in_view = 0
    for _ in range(400):
        qx, qy, tq = rng.uniform(-6, 6), rng.uniform(-6, 6), rng.uniform(0, 360)
        fov = rng.choice([30.0, 90.0, 180.0, 270.0])
        outline = stick.outline(qx, qy, tq)
        exact = cone_hits_polygon(0, 0, 1, 0, math.radians(fov) / 2, outline)
        sampled = False
        for i in range(len(outline)):  # points along the outline and towards the centre
            (x0, y0), (x1, y1) = outline[i], outline[(i + 1) % len(outline)]
            for k in range(41):
                for w in (1.0, 0.5, 0.0):
                    x = (x0 + (x1 - x0) * k / 40) * w + qx * (1 - w)
                    y = (y0 + (y1 - y0) * k / 40) * w + qy * (1 - w)
                    if math.hypot(x, y) > 1e-9 and abs(math.degrees(math.atan2(y, x))) < fov / 2:
                        sampled = True
        if sampled:  # a sampled point in view proves the footprint is in view
            assert exact
            in_view += 1
    assert 100 < in_view < 400  # both kinds of case came up


# -- observation status -----------------------------------------------------------------
def _status(*pieces: Piece, **options: object) -> dict[str, tuple[bool, str]]:
    opts = TheGameOptions.from_json(options)
    return {k: (s.observed, s.reason) for k, s in observation(pieces, opts).items()}


def test_two_pieces_facing_each_other_observe_each_other() -> None:
    assert _status(piece("A", "red", 5, 5, 0), piece("B", "blue", 10, 5, 180)) == {
        "A": (True, "mutual"), "B": (True, "mutual")}


def test_a_piece_watched_from_behind_is_unaware_and_its_watcher_unseen() -> None:
    # A looks at B's back; B faces away with nothing in front of it
    assert _status(piece("A", "red", 5, 5, 0), piece("B", "blue", 10, 5, 0)) == {
        "A": (False, "unseen"), "B": (False, "horizon")}


def test_watching_counts_as_observed_when_the_option_says_so() -> None:
    result = _status(piece("A", "red", 5, 5, 0), piece("B", "blue", 10, 5, 0),
                     observer_counts_as_observed=True)
    assert result == {"A": (True, "watching"), "B": (False, "horizon")}


def test_friends_observe_each_other_too() -> None:
    # either side counts: two red pieces side by side, facing the same way
    assert _status(piece("A", "red", 5, 5, 90), piece("B", "red", 6.5, 5, 90))["A"] == (
        True, "mutual")
    # with a 90-degree field of vision the neighbour is out of sight
    assert _status(piece("A", "red", 5, 5, 90), piece("B", "red", 6.5, 5, 90),
                   field_of_vision=90)["A"] == (False, "horizon")


def test_idle_pieces_are_unobserved_and_moving_this_turn_resets_it() -> None:
    a = piece("A", "red", 5, 5, 0, idle=2)
    b = piece("B", "blue", 10, 5, 180)
    assert _status(a, b) == {"A": (False, "idle"), "B": (True, "mutual")}
    assert _status(piece("A", "red", 5, 5, 0, idle=2, busy=True), b)["A"] == (True, "mutual")
    assert _status(piece("A", "red", 5, 5, 0, idle=1), b)["A"] == (True, "mutual")
    assert _status(a, b, idle_turns=3)["A"] == (True, "mutual")


def test_pieces_out_of_play_neither_see_nor_are_seen() -> None:
    down = piece("B", "blue", 10, 5, 180, presence=Presence.DOWN)  # would face A
    c = piece("C", "blue", 4, 9, 270)  # behind A's shoulder, looking at A
    assert _status(piece("A", "red", 5, 5, 0), down, c) == {
        "A": (False, "horizon"), "C": (False, "unseen")}


def test_a_lone_standing_piece_is_the_last_piece() -> None:
    assert _status(piece("A", "red", 5, 5, 0)) == {"A": (False, "last-piece")}


def test_range_is_edge_to_edge_with_tolerance() -> None:
    a = piece("A", "red", 5, 5, 0)
    # centres 2.2" apart, radii 0.5": 1.2" edge to edge, inside 1" + 0.25" tolerance
    assert within_range(a, piece("B", "blue", 7.2, 5, 0), OPTS)
    assert not within_range(a, piece("B", "blue", 7.3, 5, 0), OPTS)
    long_stick = piece("S", "blue", 9.5, 5, 0, Footprint.rectangle(8, 0.5))
    assert within_range(a, long_stick, OPTS)  # centres 4.5" apart, but the end is 0.5" away

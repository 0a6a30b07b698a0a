"""The OneWorld map as data: the file format, its validation and the default map."""

from __future__ import annotations

import math

import pytest
from oneworld_support import H

from rules.errors import FormatError, MapError
from rules.geometry import Hex, HexDirection, HexSide
from rules.oneworld import End, OneWorld, Terrain, bundled_map, parse_map
from rules.oneworld.board import bundled_map_names

SMALL = """\
# a comment line
name Small test map   # a trailing comment
size 4 3
row 01 . P ~ .
row 02  .P..
row 03 T . . T
runeline 0101 E 0102 NE
fault 0202 E
"""


# -- the format ----------------------------------------------------------------------------------


def test_a_small_map_is_read_cell_by_cell() -> None:
    m = parse_map(SMALL)
    assert (m.name, m.columns, m.rows) == ("Small test map", 4, 3)
    assert m.terrain(H("0101")) is Terrain.FLATLAND
    assert m.terrain(H("0201")) is Terrain.PYLON
    assert m.terrain(H("0301")) is None and not m.on_map(H("0301"))  # '~' is Chaos
    assert m.is_pylon(H("0202"))  # spaces between cells are optional
    assert m.tower_hexes() == (H("0103"), H("0403"))  # left-hand (western) Tower first
    assert len(m.cells) == 11


def test_runelines_and_faults_lie_on_hex_sides() -> None:
    m = parse_map(SMALL)
    # One 'runeline' line may list several sides, each as a hex and a direction.
    assert m.runelines == {HexSide.between(H("0101"), H("0201")), HexSide.between(H("0102"), H("0201"))}
    assert m.faults == {HexSide.between(H("0202"), H("0302"))}
    assert m.runeline_between(H("0201"), H("0101"))  # either way round
    assert m.fault_between(H("0302"), H("0202"))
    assert not m.fault_between(H("0101"), H("0302"))  # not adjacent: no side at all


def test_the_precomputed_links_agree_with_the_sides() -> None:
    m = bundled_map()
    for h in m.cells:
        for d in HexDirection:
            n, rune, fault = m.link(h, d)
            assert n == h.neighbor(d)
            assert rune == m.runeline_between(h, n)
            assert fault == m.fault_between(h, n)


def test_a_map_written_out_reads_back_the_same() -> None:
    for m in (parse_map(SMALL), bundled_map()):
        again = parse_map(m.to_text())
        assert (again.name, again.columns, again.rows) == (m.name, m.columns, m.rows)
        assert again.cells == m.cells
        assert again.runelines == m.runelines
        assert again.faults == m.faults


def test_towers_may_be_left_out_of_test_maps_only_when_asked() -> None:
    text = "size 2 1\nrow 01 . .\n"
    assert parse_map(text, require_towers=False).tower_hexes() == ()
    with pytest.raises(MapError, match="exactly 2 Tower hexes"):
        parse_map(text)


# Every problem names its line: (map text, the field, words of the message).
BAD_MAPS = [
    pytest.param("size 2 1\nrow 01 . .\nrunelin 0101 E\n", "line 3", "unknown keyword", id="keyword"),
    pytest.param("row 01 . .\n", "line 1", "no 'size' line", id="no-size"),
    pytest.param("size 2\nrow 01 . .\n", "line 1", "two numbers", id="size-one-number"),
    pytest.param("size 0 3\n", "line 1", "1 to 99", id="size-zero"),
    pytest.param("size 2 1\nrow 01 . . .\n", "line 2", "has 3 cells, expected 2", id="row-too-long"),
    pytest.param("size 2 1\nrow 01 . X\n", "line 2", "unknown cell 'X' in column 2", id="cell"),
    pytest.param("size 2 2\nrow 01 . .\nrow 01 . .\n", "line 3", "given twice", id="row-twice"),
    pytest.param("size 2 2\nrow 01 . .\n", "line 2", "row 2 is missing", id="row-missing"),
    pytest.param("size 2 1\nrow 01 . .\nrow 02 . .\n", "line 3", "outside the map's 1 rows", id="row-extra"),
    pytest.param("size 2 1\nrow one . .\n", "line 2", "number first", id="row-label"),
    # Runelines and faults: the side must exist, i.e. join two hexes of the map.
    pytest.param("size 3 1\nrow 01 . . .\nruneline 0301 E\n", "line 3", "faces Chaos (no hex 0401)", id="rune-edge"),
    pytest.param("size 3 1\nrow 01 . ~ .\nruneline 0101 E\n", "line 3", "faces Chaos (no hex 0201)", id="rune-chaos"),
    pytest.param("size 3 1\nrow 01 . ~ .\nruneline 0201 E\n", "line 3", "hex 0201 is not on the map", id="rune-no-hex"),
    pytest.param("size 3 1\nrow 01 . . .\n\nfault 0901 W\n", "line 4", "hex 0901 is not on the map", id="fault-off-grid"),
    pytest.param("size 3 1\nrow 01 . . .\nfault 0101 N\n", "line 3", "unknown hex direction 'N'", id="direction"),
    pytest.param("size 3 1\nrow 01 . . .\nfault 01x1 E\n", "line 3", "not a hex label", id="label"),
    pytest.param("size 3 1\nrow 01 . . .\nfault 0101\n", "line 3", "pairs of hex and direction", id="odd-tokens"),
    pytest.param("size 3 1\nrow 01 . . .\nruneline 0101 E 0201\n", "line 3", "pairs of hex", id="half-pair"),
    pytest.param(
        "size 3 1\nrow 01 . . .\nruneline 0101 E\nfault 0201 W\n", "line 4", "already a runeline or fault", id="both"
    ),
    pytest.param(
        "size 3 1\nrow 01 . . .\nruneline 0101 E 0201 W\n", "line 3", "already a runeline or fault", id="twice"
    ),
]


@pytest.mark.parametrize(("text", "where", "words"), BAD_MAPS)
def test_bad_maps_are_refused_with_the_line_named(text: str, where: str, words: str) -> None:
    with pytest.raises(MapError) as err:
        parse_map(text, require_towers=False)
    assert err.value.field == where
    assert words in err.value.detail
    assert str(err.value).startswith(f"{where}: ")


def test_the_error_names_the_offending_runeline() -> None:
    text = "size 3 2\nrow 01 . . .\nrow 02  . . .\nruneline 0101 SE 0201 NE\n"
    with pytest.raises(MapError) as err:
        parse_map(text, require_towers=False)
    assert err.value.field == "line 4"
    assert "runeline 0201 NE" in err.value.detail  # the second pair on the line is the bad one


def test_a_map_error_is_a_format_error() -> None:
    assert issubclass(MapError, FormatError)


# -- geometry helpers of a map ----------------------------------------------------------------


def test_rows_from_each_end() -> None:
    m = parse_map(SMALL)
    assert m.rows_from_end(H("0101"), End.NORTH) == 1
    assert m.rows_from_end(H("0101"), End.SOUTH) == 3
    assert m.rows_from_end(H("0203"), End.SOUTH) == 1
    assert End.NORTH.other() is End.SOUTH


def test_reentry_rounds_the_sheet_to_the_opposite_end_or_side() -> None:
    m = parse_map("size 5 1\nrow 01 . . . . .\n", require_towers=False)
    assert m.reentry(H("0501"), HexDirection.E) == H("0101")
    assert m.reentry(H("0101"), HexDirection.W) == H("0501")
    # A one-row sheet: north-east out of 0301 is column 3 of the (same) opposite end.
    assert m.reentry(H("0301"), HexDirection.NE) == H("0301")
    # The default map, Chaos along its border: an end leads to the same column of the other
    # end, a side to the same row of the other side, through the Chaos on both sides.
    d = bundled_map()
    assert d.reentry(H("0501"), HexDirection.NE) == H("0523")
    assert d.reentry(H("0501"), HexDirection.NW) == H("0423")
    assert d.reentry(H("0523"), HexDirection.SE) == H("0501")
    assert d.reentry(H("1405"), HexDirection.E) == H("0105")
    assert d.reentry(H("0203"), HexDirection.W) == H("1303")  # 0103 and 1403 are Chaos


def test_the_edge_ring_runs_clockwise_around_the_map() -> None:
    m = bundled_map()
    ring = m.edge_ring()
    assert set(ring) == {h for h in m.cells if m.is_edge(h)} and len(set(ring)) == len(ring)
    assert not m.is_edge(H("0712")) and m.is_edge(H("0112"))
    # Hex by hex round the ragged border (its notches too), never a jump.
    assert all(a.distance(b) == 1 for a, b in zip(ring, ring[1:] + ring[:1]))

    def pixel(h: Hex) -> tuple[float, float]:
        return math.sqrt(3) * (h.q + h.r / 2), 1.5 * h.r

    pts = [pixel(h) for h in ring]
    twice_area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))
    assert twice_area > 0  # printed y grows southwards: a positive area runs clockwise
    west, east = H("0112"), H("1412")
    # Clockwise from the western Tower goes north (towards row 1), then east.
    assert ring[(ring.index(west) + 1) % len(ring)].offset()[1] < 12
    assert ring[(ring.index(east) + 1) % len(ring)].offset()[1] > 12


def test_the_edge_ring_follows_a_notched_border_step_by_step() -> None:
    """A west edge with a one-hex notch of Chaos: the ring goes round the notch, as a Tower
    moving along the edge would, rather than by angle across it."""
    text = """\
size 5 5
row 1 . . . . .
row 2  . . . . .
row 3 ~ . . . .
row 4  . . . . .
row 5 . . . . .
"""
    m = parse_map(text, require_towers=False)
    ring = m.edge_ring()
    assert all(a.distance(b) == 1 for a, b in zip(ring, ring[1:] + ring[:1]))
    i = ring.index(H("0104"))
    # northwards up the west edge: 0104 -> 0203 (round the notch at 0103) -> 0102
    assert [h.label() for h in (ring[(i + 1) % len(ring)], ring[(i + 2) % len(ring)])] == ["0203", "0102"]


# -- the default map ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_map():  # type: ignore[no-untyped-def]
    return bundled_map()


def test_the_default_map_is_bundled(default_map) -> None:  # type: ignore[no-untyped-def]
    assert "default" in bundled_map_names()
    assert default_map.name == "Default OneWorld map"
    assert (default_map.columns, default_map.rows) == (14, 23)
    assert len(default_map.cells) == 294
    assert OneWorld().board.cells == default_map.cells


def test_the_default_map_has_an_irregular_chaos_border(default_map) -> None:  # type: ignore[no-untyped-def]
    grid = {Hex.from_offset(c, r) for c in range(1, 15) for r in range(1, 24)}
    chaos = grid - set(default_map.cells)
    assert len(chaos) == 28
    chaos_rows = {h.offset()[1] for h in chaos}
    assert 1 in chaos_rows and 23 in chaos_rows and 12 not in chaos_rows
    assert all(default_map.is_edge(h) for h in default_map.cells if h.offset()[0] in (1, 14))


def test_the_default_map_is_mirror_symmetric_between_its_ends(default_map) -> None:  # type: ignore[no-untyped-def]
    m = default_map
    assert all(m.cells.get(m.mirrored(h)) is t for h, t in m.cells.items())
    assert {s.mirrored(m.mirrored) for s in m.runelines} == m.runelines
    assert {s.mirrored(m.mirrored) for s in m.faults} == m.faults


def test_the_default_maps_terrain(default_map) -> None:  # type: ignore[no-untyped-def]
    m = default_map
    counts = {t: sum(1 for x in m.cells.values() if x is t) for t in Terrain}
    assert counts == {Terrain.FLATLAND: 265, Terrain.PYLON: 27, Terrain.TOWER: 2}
    assert (len(m.runelines), len(m.faults)) == (22, 24)
    # The Towers: on opposite long (west and east) edges of the middle row.
    west, east = m.tower_hexes()
    assert (west.label(), east.label()) == ("0112", "1412")
    assert m.is_edge(west) and m.is_edge(east)
    # Pylons come in clusters: every pylon touches another one.
    pylons = [h for h, t in m.cells.items() if t is Terrain.PYLON]
    assert all(any(m.is_pylon(n) for n in h.neighbors()) for h in pylons)


def test_an_unknown_bundled_map_is_a_format_error() -> None:
    with pytest.raises(FormatError) as err:
        bundled_map("atlantis")
    assert err.value.field == "options.map"
    assert "default" in err.value.detail


def test_a_game_can_be_played_on_a_map_given_as_text() -> None:
    game = OneWorld.from_options({"map_text": SMALL})
    assert game.board.name == "Small test map"
    with pytest.raises(MapError):
        OneWorld.from_options({"map_text": "size 2 1\nrow 01 . .\n"})

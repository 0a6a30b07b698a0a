"""The OneWorld map: terrain per hex, runelines and faults per hex side, read from a text file.

The map file format (documented in docs/games/oneworld.md) is line based::

    # anything after '#' is a comment
    name Default OneWorld map
    size 14 23                 # columns rows, printed numbering CCRR from 0101
    row 01  ~ ~ . . P . . . . . . ~ ~ ~
    row 02   ~ . . . . . . . . . . . ~ ~
    ...                        # one 'row' line per row, in order
    runeline 0709 SE 0709 SW   # hex + direction of the side, as many pairs as you like
    fault 0412 E

Cells: ``.`` flatland, ``P`` pylon, ``T`` Tower of Balance, ``~`` Chaos (no hex). Spaces
between cells are optional; drawing even rows indented by one space shows the real shape.

>>> m = parse_map("size 2 1\\nrow 01 . P\\n", require_towers=False)
>>> m.terrain(Hex.from_offset(2, 1))
<Terrain.PYLON: 'P'>
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from importlib import resources

from rules.errors import FormatError, MapError
from rules.geometry import Hex, HexDirection, HexSide

__all__ = ["Terrain", "End", "OneWorldMap", "parse_map", "bundled_map", "bundled_map_names"]


class Terrain(Enum):
    FLATLAND = "."
    PYLON = "P"
    TOWER = "T"


class End(Enum):
    """The two short edges of the map, where the players set up."""

    NORTH = "north"
    SOUTH = "south"

    def other(self) -> End:
        return End.SOUTH if self is End.NORTH else End.NORTH


_CHAOS = "~"


@dataclass(frozen=True, eq=False)
class OneWorldMap:
    """A parsed map. Hexes not in ``cells`` are Chaos."""

    name: str
    columns: int
    rows: int
    cells: dict[Hex, Terrain]
    runelines: frozenset[HexSide]
    faults: frozenset[HexSide]
    _edge_ring: tuple[Hex, ...] = field(default=(), repr=False)
    _links: dict[tuple[Hex, HexDirection], tuple[Hex, bool, bool]] = field(default_factory=dict, repr=False)

    def link(self, h: Hex, d: HexDirection) -> tuple[Hex, bool, bool]:
        """The neighbour of map hex ``h`` towards ``d``, and whether a runeline or a fault
        lies on the side between them (precomputed: movement asks this very often)."""
        found = self._links.get((h, d))
        if found is None:
            n = h.neighbor(d)
            side = HexSide.between(h, n)
            found = (n, side in self.runelines, side in self.faults)
        return found

    # -- terrain ------------------------------------------------------------------------
    def on_map(self, h: Hex) -> bool:
        return h in self.cells

    def terrain(self, h: Hex) -> Terrain | None:
        return self.cells.get(h)

    def is_pylon(self, h: Hex) -> bool:
        return self.cells.get(h) is Terrain.PYLON

    def tower_hexes(self) -> tuple[Hex, ...]:
        """Tower hexes, the left-hand (western) one first."""
        towers = [h for h, t in self.cells.items() if t is Terrain.TOWER]
        return tuple(sorted(towers, key=lambda h: (h.offset()[0], h.offset()[1])))

    def runeline_between(self, a: Hex, b: Hex) -> bool:
        return HexSide.between(a, b) in self.runelines if a.distance(b) == 1 else False

    def fault_between(self, a: Hex, b: Hex) -> bool:
        return HexSide.between(a, b) in self.faults if a.distance(b) == 1 else False

    # -- ends ---------------------------------------------------------------------------
    def rows_from_end(self, h: Hex, end: End) -> int:
        """1 for a hex in the row touching ``end``, 2 for the next row, and so on."""
        row = h.offset()[1]
        return row if end is End.NORTH else self.rows + 1 - row

    # -- edges and Chaos ---------------------------------------------------------------
    def is_edge(self, h: Hex) -> bool:
        return h in self.cells and any(n not in self.cells for n in h.neighbors())

    def reentry(self, h: Hex, direction: HexDirection) -> Hex:
        """Where a being leaving ``h`` towards ``direction`` reappears (Chaos Gambit II).

        The universe is curved: the mapsheet's two ends meet, and so do its two sides. The
        being goes on towards ``direction`` through the Chaos beyond ``h`` until it leaves the
        sheet (its ``columns`` x ``rows`` of printed hexes), comes back in at the corresponding
        hex of the opposite end (the same column) or of the other side (the same row), and goes
        on the same way through the Chaos there to the first map hex. A line that meets no
        other map hex brings it back to ``h``.
        """
        cur = h.neighbor(direction)
        for _ in range(4 * (self.columns + self.rows)):  # more than any line round the sheet
            if cur in self.cells:
                return cur
            col, row = cur.offset()
            if not (1 <= col <= self.columns and 1 <= row <= self.rows):  # off the sheet: round it
                cur = Hex.from_offset((col - 1) % self.columns + 1, (row - 1) % self.rows + 1)
                if cur in self.cells:
                    return cur
            cur = cur.neighbor(direction)
        return h

    def edge_ring(self) -> tuple[Hex, ...]:
        """Edge hexes in clockwise order (as printed, north up) around the map's centre."""
        return self._edge_ring

    def mirrored(self, h: Hex) -> Hex:
        """The hex seen in a mirror laid across the middle row (north <-> south)."""
        col, row = h.offset()
        return Hex.from_offset(col, self.rows + 1 - row)

    def to_text(self) -> str:
        """The map in the file format (what :func:`parse_map` reads)."""
        lines = [f"name {self.name}", f"size {self.columns} {self.rows}"]
        width = max(2, len(str(self.rows)))
        for row in range(1, self.rows + 1):
            cells = []
            for col in range(1, self.columns + 1):
                t = self.cells.get(Hex.from_offset(col, row))
                cells.append(t.value if t else _CHAOS)
            indent = " " if row % 2 == 0 else ""
            lines.append(f"row {row:0{width}d} {indent}{' '.join(cells)}")
        for word, sides in (("runeline", self.runelines), ("fault", self.faults)):
            for side in sorted(sides):
                d = side.a.direction_to(side.b)
                assert d is not None
                lines.append(f"{word} {side.a.label()} {d.name}")
        return "\n".join(lines) + "\n"


#: The six directions clockwise as printed (north up).
_CLOCKWISE = (HexDirection.E, HexDirection.SE, HexDirection.SW, HexDirection.W, HexDirection.NW, HexDirection.NE)


def _ring(cells: dict[Hex, Terrain]) -> tuple[Hex, ...]:
    """The map's outer edge hexes in clockwise order as printed, each step to a neighbouring
    hex: the border is traced hex by hex with Chaos on the left (Moore tracing), so a ragged
    border with notches is followed round its notches, not sorted by angle. A hex the trace
    passes twice (a one-hex neck) counts once, where it is first reached."""
    if not cells:
        return ()
    start = min(cells, key=lambda h: (h.r, h.q))  # the top row's westmost hex: its west is Chaos
    back = _CLOCKWISE.index(HexDirection.W)
    order: list[Hex] = []
    seen_states: set[tuple[Hex, int]] = set()
    cur = start
    while (cur, back) not in seen_states:
        seen_states.add((cur, back))
        if cur not in order:
            order.append(cur)
        for k in range(1, 7):
            d = _CLOCKWISE[(back + k) % 6]
            nxt = cur.neighbor(d)
            if nxt in cells:
                outside = cur.neighbor(_CLOCKWISE[(back + k - 1) % 6])
                way = nxt.direction_to(outside)
                assert way is not None  # two hexes side by side round one hex touch
                cur, back = nxt, _CLOCKWISE.index(way)
                break
        else:
            break  # a lone hex
    return tuple(order)


def parse_map(text: str, require_towers: bool = True) -> OneWorldMap:
    """Read a map file's text; every problem is a :class:`MapError` naming its line."""
    name = "unnamed map"
    size: tuple[int, int] | None = None
    rows: dict[int, tuple[int, list[str]]] = {}
    side_lines: list[tuple[int, str, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        where = f"line {number}"
        if word == "name":
            name = rest or name
        elif word == "size":
            parts = rest.split()
            if len(parts) != 2 or not all(p.isdecimal() for p in parts):
                raise MapError(where, f"'size' needs two numbers (columns rows), got {rest!r}")
            size = (int(parts[0]), int(parts[1]))
            if not (1 <= size[0] <= 99 and 1 <= size[1] <= 99):
                raise MapError(where, "a map has 1 to 99 columns and rows")
        elif word == "row":
            label, _, cells = rest.partition(" ")
            if not label.isdecimal():  # not isdigit(): int() cannot read '²'
                raise MapError(where, f"'row' needs its number first, got {label!r}")
            cells_list = [c for c in cells if not c.isspace()]
            if int(label) in rows:
                raise MapError(where, f"row {int(label)} is given twice")
            rows[int(label)] = (number, cells_list)
        elif word in ("runeline", "fault"):
            side_lines.append((number, word, rest.split()))
        else:
            raise MapError(where, f"unknown keyword {word!r} (expected name, size, row, runeline or fault)")
    if size is None:
        raise MapError("line 1", "the map has no 'size' line")
    columns, nrows = size
    cells: dict[Hex, Terrain] = {}
    for row in range(1, nrows + 1):
        if row not in rows:
            raise MapError(f"line {len(text.splitlines())}", f"row {row} is missing")
        number, row_cells = rows[row]
        if len(row_cells) != columns:
            raise MapError(f"line {number}", f"row {row} has {len(row_cells)} cells, expected {columns}")
        for col, ch in enumerate(row_cells, start=1):
            if ch == _CHAOS:
                continue
            try:
                cells[Hex.from_offset(col, row)] = Terrain(ch)
            except ValueError:
                raise MapError(
                    f"line {number}", f"unknown cell {ch!r} in column {col} (use . P T or ~)"
                ) from None
    extra = sorted(set(rows) - set(range(1, nrows + 1)))
    if extra:
        raise MapError(f"line {rows[extra[0]][0]}", f"row {extra[0]} is outside the map's {nrows} rows")

    sides: dict[str, set[HexSide]] = {"runeline": set(), "fault": set()}
    for number, word, tokens in side_lines:
        where = f"line {number}"
        if not tokens or len(tokens) % 2:
            raise MapError(where, f"'{word}' needs pairs of hex and direction, e.g. '{word} 0712 NE'")
        for label, dname in zip(tokens[::2], tokens[1::2]):
            try:
                h = Hex.parse(label)
                d = HexDirection.parse(dname)
            except FormatError as err:
                raise MapError(where, f"{word} {label} {dname}: {err.detail}") from None
            other = h.neighbor(d)
            if h not in cells:
                raise MapError(where, f"{word} {label} {dname}: hex {label} is not on the map")
            if other not in cells:
                raise MapError(
                    where, f"{word} {label} {dname}: that side faces Chaos (no hex {other.label()})"
                )
            side = HexSide.between(h, other)
            if side in sides["runeline"] or side in sides["fault"]:
                raise MapError(where, f"{word} {label} {dname}: that side is already a runeline or fault")
            sides[word].add(side)
    towers = [h for h, t in cells.items() if t is Terrain.TOWER]
    if require_towers and len(towers) != 2:
        raise MapError("line 1", f"a OneWorld map needs exactly 2 Tower hexes (T), this one has {len(towers)}")
    links = {}
    for h in cells:
        for d in HexDirection:
            n = h.neighbor(d)
            side = HexSide.between(h, n)
            links[(h, d)] = (n, side in sides["runeline"], side in sides["fault"])
    return OneWorldMap(
        name=name,
        columns=columns,
        rows=nrows,
        cells=cells,
        runelines=frozenset(sides["runeline"]),
        faults=frozenset(sides["fault"]),
        _edge_ring=_ring(cells),
        _links=links,
    )


def bundled_map_names() -> list[str]:
    folder = resources.files("rules.oneworld") / "maps"
    return sorted(p.name[: -len(".owmap")] for p in folder.iterdir() if p.name.endswith(".owmap"))


def bundled_map(name: str = "default") -> OneWorldMap:
    """A map shipped with tabletop (read from the package's own data)."""
    if name not in bundled_map_names():
        known = ", ".join(bundled_map_names())
        raise FormatError("options.map", f"no bundled map called {name!r} (bundled: {known})")
    text = (resources.files("rules.oneworld") / "maps" / f"{name}.owmap").read_text(encoding="utf-8")
    return parse_map(text)

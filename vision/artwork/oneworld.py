"""OneWorld's kit: the mapsheet drawn from a map file, and the counter sheet.

The mapsheet follows the marker specification (``calibration.markers.oneworld_map_spec``):
pointy-top hexes of 15 mm circumradius, board units of one circumradius with the origin at
the centre of hex 0101. Flatland is green; pylons are pale blue-grey hexes holding a crystal
cluster; the Towers of Balance are sand-coloured hexes with a tower; runelines are thick
orange walls on hex sides; Faults of Chaos are black zigzags on a violet glow; Chaos is the
dark violet void around and between the hexes. Counters are 20 mm squares: BORG dark with
cream glyphs, CHEZ cream with dark glyphs; Stone a disc, Blade a triangle, Fog three bars
(the weather map's sign for fog), the Tower a tower in a frame, each god counter a star in a
gold ring (the three god counters are the god's three lives).

>>> kit = OneWorldKit.create()
>>> sorted(kit.pieces)[:3]
['borg-blade', 'borg-fog', 'borg-god']
>>> kit.piece_face("chez-fog", 4.0).shape
(80, 80, 4)
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from calibration.markers import MarkerSpec, oneworld_map_spec
from rules.geometry import Hex
from rules.oneworld.board import OneWorldMap, Terrain, bundled_map, bundled_map_names
from vision.artwork.draw import Canvas, Colour, hex_colour
from vision.artwork.glyphs import at, draw_glyph
from vision.artwork.kit import (
    PRINT_PX_PER_MM,
    ArtworkError,
    Kit,
    PieceKind,
    PieceSheet,
    PosterSheet,
    PrintItem,
    outline,
)
from vision.layout import HexLayout

__all__ = ["ASPECTS", "COUNTER_MM", "SIDES", "OneWorldKit"]

SIDES = ("borg", "chez")
ASPECTS = ("stone", "blade", "fog")
COUNTER_MM = 20.0
COUNTER_THICKNESS_MM = 2.0

# side -> (background, glyph, edge)
_SIDE_COLOURS: dict[str, tuple[Colour, Colour, Colour]] = {
    "borg": (hex_colour("#252a38"), hex_colour("#f3e8c8"), hex_colour("#1a1d27")),
    "chez": (hex_colour("#f1e6c4"), hex_colour("#3b2314"), hex_colour("#d6c8a2")),
}
_GOLD = hex_colour("#e2ad1f")

_FLATLAND = hex_colour("#79ad55")
_PYLON = hex_colour("#aebfc4")
_TOWER = hex_colour("#dcc38a")
_INK = hex_colour("#4a2f17")  # brown ink: hex outlines, labels, towers
_CHAOS = hex_colour("#22142e")
_SWIRL = hex_colour("#46295c")
_RUNE_CORE = hex_colour("#f7861c")
_RUNE_EDGE = hex_colour("#5a1f05")
_FAULT_GLOW = hex_colour("#9a55c8")
_FAULT = hex_colour("#120a18")
_CRYSTAL = hex_colour("#e4fbff")
_CRYSTAL_EDGE = hex_colour("#25485a")

_LAYOUT = HexLayout(size=1.0)


@lru_cache(maxsize=8)
def _map(name: str) -> OneWorldMap:
    return bundled_map(name)


@dataclass(frozen=True, eq=False)
class OneWorldKit(Kit):
    """The OneWorld kit. ``layout`` for the board: ``None`` (the default map), a bundled map
    name, or a :class:`~rules.oneworld.board.OneWorldMap`."""

    @classmethod
    def create(cls) -> OneWorldKit:
        spec = oneworld_map_spec()
        pieces: dict[str, PieceKind] = {}
        for side in SIDES:
            for what in (*ASPECTS, "tower", "god"):
                name = f"{side}-{what}"
                pieces[name] = PieceKind(
                    name, (COUNTER_MM, COUNTER_MM), COUNTER_THICKNESS_MM, False, "square", "counter"
                )
        return cls("oneworld", "hex", spec.unit_mm, pieces, "OneWorld")

    # -- layout and markers --------------------------------------------------------------
    def _layout_key(self, layout: Any) -> Hashable:
        if layout is None:
            return "default"
        if isinstance(layout, str):
            if layout not in bundled_map_names():
                raise ArtworkError(
                    f"no bundled OneWorld map {layout!r} (bundled: "
                    f"{', '.join(bundled_map_names())})"
                )
            return layout
        if isinstance(layout, OneWorldMap):
            return layout
        raise ArtworkError(
            f"a OneWorld board layout is a map name or a OneWorldMap, not {type(layout).__name__}"
        )

    def map_of(self, layout: Any = None) -> OneWorldMap:
        key = self._layout_key(layout)
        return key if isinstance(key, OneWorldMap) else _map(str(key))

    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        m = self.map_of(layout)
        return oneworld_map_spec(m.columns, m.rows, self.mm_per_unit)

    # -- the mapsheet ------------------------------------------------------------------------
    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        m = self.map_of(layout)
        x0, y0, x1, y1 = spec.area
        cv.rect(x0, y0, x1, y1, _CHAOS)
        _chaos_swirls(cv, spec.area)
        towers = m.tower_hexes()
        for h, terrain in m.cells.items():
            corners = _LAYOUT.corners(h)
            fill = {Terrain.FLATLAND: _FLATLAND, Terrain.PYLON: _PYLON, Terrain.TOWER: _TOWER}[
                terrain
            ]
            cv.poly(corners, fill)
        for h, terrain in m.cells.items():
            c = _LAYOUT.center(h)
            if terrain is Terrain.PYLON:
                _crystals(cv, c)
            elif terrain is Terrain.TOWER:
                draw_glyph(cv, "tower", (c[0], c[1] + 0.08), 0.62, _INK, _TOWER)
                cv.text("LEFT" if h == towers[0] else "RIGHT", (c[0], c[1] + 0.7), 1.6, _INK, 0.14)
        for h in m.cells:
            cv.poly(_LAYOUT.corners(h), _INK, width_mm=0.3)
            c = _LAYOUT.center(h)
            cv.text(h.label(), (c[0], c[1] - 0.66), 1.6, _INK, 0.1)
        for side in sorted(m.faults):
            a, b = _side_points(side.a, side.b)
            _fault(cv, a, b)
        for side in sorted(m.runelines):
            a, b = _side_points(side.a, side.b)
            cv.line(a, b, _RUNE_EDGE, 2.2)
            cv.line(a, b, _RUNE_CORE, 1.3)
        self._margins(cv, m, spec)

    def _margins(self, cv: Canvas, m: OneWorldMap, spec: MarkerSpec) -> None:
        x0, y0, x1, y1 = spec.area
        band = (spec.gap_mm + spec.marker_mm / 2) / spec.unit_mm
        mid = (x0 + x1) / 2
        cv.text("NORTH END (row 01)", (mid, y0 - band), 6.0, _INK, 0.13)
        cv.text(
            f"OneWorld: {m.name}, {m.columns} x {m.rows} hexes of {self.mm_per_unit:g} mm",
            (mid, y0 - band + 0.55),
            2.6,
            _INK,
            0.1,
        )
        cv.text(
            f"SOUTH END (row {m.rows:02d})", (x0 + (x1 - x0) * 0.22, y1 + band), 6.0, _INK, 0.13
        )
        # a legend: what each mark on the map is
        u = 1.0
        lx, ly = x0 + (x1 - x0) * 0.45, y1 + band
        entries = (
            ("pylon", _PYLON),
            ("tower", _TOWER),
            ("runeline", None),
            ("fault", None),
            ("Chaos", _CHAOS),
        )
        step = (x1 - lx) / len(entries)
        for i, (name, fill) in enumerate(entries):
            cx = lx + step * i + 0.6
            sw = [
                (cx - 0.45 * u, ly - 0.45 * u),
                (cx + 0.45 * u, ly - 0.45 * u),
                (cx + 0.45 * u, ly + 0.45 * u),
                (cx - 0.45 * u, ly + 0.45 * u),
            ]
            cv.poly(sw, fill or _FLATLAND)
            if name == "pylon":
                _crystals(cv, (cx, ly), 0.6)
            elif name == "tower":
                draw_glyph(cv, "tower", (cx, ly), 0.38, _INK, _TOWER)
            elif name == "runeline":
                cv.line((cx, ly - 0.45), (cx, ly + 0.45), _RUNE_EDGE, 2.2)
                cv.line((cx, ly - 0.45), (cx, ly + 0.45), _RUNE_CORE, 1.3)
            elif name == "fault":
                _fault(cv, np.array([cx, ly - 0.45]), np.array([cx, ly + 0.45]))
            cv.poly(sw, _INK, width_mm=0.3)
            cv.text(
                name,
                (cx + 0.55 + cv.text_width_mm(name, 3.2, 0.12) / 2 / self.mm_per_unit, ly),
                3.2,
                _INK,
                0.12,
            )

    # -- counters ------------------------------------------------------------------------------
    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        side, what = kind.name.split("-", 1)
        bg, fg, _ = _SIDE_COLOURS[side]
        outline(cv, "square", w, h, bg)
        r = 0.42 * w
        if what in ASPECTS:
            draw_glyph(cv, what, (0.0, 0.0), r, fg, bg)
            return
        cv.rect(
            -0.41 * w, -0.41 * w, 0.41 * w, 0.41 * w, fg, width_mm=0.05 * w
        )  # the frame of a special counter
        if what == "tower":
            draw_glyph(cv, "tower", (0.0, 0.02 * w), 0.32 * w, fg, bg)
        else:
            cv.circle((0.0, 0.0), 0.33 * w, _GOLD, width_mm=0.06 * w)
            draw_glyph(cv, "star", (0.0, 0.01 * w), 0.3 * w, fg, bg)

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        return _SIDE_COLOURS[kind.name.split("-", 1)[0]][2]

    # -- printing ------------------------------------------------------------------------------
    def sheets(self) -> list[Any]:
        image, h = self.board_image(PRINT_PX_PER_MM)
        spec = self.marker_spec()
        counts = {"stone": 13, "blade": 13, "fog": 13, "tower": 1, "god": 3}
        items = []
        for side in SIDES:
            for what, n in counts.items():
                face = self.piece_face(f"{side}-{what}", PRINT_PX_PER_MM)
                items += [PrintItem(face) for _ in range(n)]
        return [
            PosterSheet(
                "OneWorld mapsheet",
                image,
                h,
                f"Default map, hexes of {self.mm_per_unit:g} mm radius. Markers 0-3 at the "
                "corners: keep them flat "
                "and uncovered.",
                spec,
            ),
            PieceSheet(
                "OneWorld counters",
                tuple(items),
                "BORG (dark) and CHEZ (light): 13 Stone, 13 Blade, 13 Fog, a Tower and 3 god "
                "counters each. "
                "Glue on 2 mm card, cut along the grey lines.",
            ),
        ]


def _side_points(a: Hex, b: Hex) -> tuple[np.ndarray, np.ndarray]:
    """The two corners of hex ``a`` on its side shared with neighbour ``b``."""
    cb = np.asarray(_LAYOUT.center(b))
    corners = np.asarray(_LAYOUT.corners(a))
    nearest = np.argsort(np.linalg.norm(corners - cb, axis=1))[:2]
    return corners[nearest[0]], corners[nearest[1]]


def _fault(cv: Canvas, a: np.ndarray, b: np.ndarray) -> None:
    cv.line(a, b, _FAULT_GLOW, 2.6)
    d = b - a
    n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-12)
    steps = 6
    pts = [
        a + d * i / steps + n * (0.11 if i % 2 else -0.11) * (0 < i < steps)
        for i in range(steps + 1)
    ]
    cv.poly(pts, _FAULT, width_mm=0.8, closed=False)


def _crystals(cv: Canvas, c: tuple[float, float], scale: float = 1.0) -> None:
    shapes = (((0.0, 0.0), 0.0, 1.0), ((-0.3, 0.12), -28.0, 0.7), ((0.3, 0.12), 28.0, 0.72))
    for (dx, dy), angle, size in shapes[::-1]:
        unit = [
            (0.0, -0.55),
            (0.16, -0.36),
            (0.16, 0.32),
            (0.0, 0.42),
            (-0.16, 0.32),
            (-0.16, -0.36),
        ]
        pts = at(
            [(x * size, y * size) for x, y in unit],
            (c[0] + dx * scale, c[1] + dy * scale),
            scale,
            angle,
        )
        cv.poly(pts, _CRYSTAL)
        cv.poly(pts, _CRYSTAL_EDGE, width_mm=0.3)
        ridge = at(
            [(0.0, -0.55 * size), (0.0, 0.42 * size)],
            (c[0] + dx * scale, c[1] + dy * scale),
            scale,
            angle,
        )
        cv.line(ridge[0], ridge[1], _CRYSTAL_EDGE, 0.2)


def _chaos_swirls(cv: Canvas, area: tuple[float, float, float, float]) -> None:
    rng = np.random.default_rng(1979)
    x0, y0, x1, y1 = area
    n = int((x1 - x0) * (y1 - y0) / 6)
    for _ in range(n):
        r0 = rng.uniform(0.4, 1.1)
        cx, cy = (
            rng.uniform(x0 + r0 + 0.1, x1 - r0 - 0.1),
            rng.uniform(y0 + r0 + 0.1, y1 - r0 - 0.1),
        )
        turn = rng.choice([-1.0, 1.0])
        t = np.linspace(0, 2.6 * math.pi, 40)
        rad = r0 * (1 - t / (3.2 * math.pi))
        a0 = rng.uniform(0, 2 * math.pi)
        pts = np.c_[cx + rad * np.cos(a0 + turn * t), cy + rad * np.sin(a0 + turn * t)]
        cv.poly(pts, _SWIRL, width_mm=0.9, closed=False)

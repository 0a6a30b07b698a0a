"""The kits' marker specification, as data: :class:`MarkerSpec`, the kits and their ids.

The kit printer (:mod:`vision.artwork`) and the detector read the same numbers. The table of
kits, ids and sizes is in the documentation of :mod:`calibration.markers`, which re-exports
every name here; docs/calibration.md has the drawings and the printing rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from calibration.errors import CalibrationError

__all__ = [
    "DICTIONARY",
    "KITS",
    "MarkerSpec",
    "field_spec",
    "kit",
    "kit_for",
    "kits_for_game",
    "oneworld_map_spec",
    "owner_of",
    "scale_marker_spec",
]

#: The ArUco dictionary of every kit.
DICTIONARY = "DICT_4X4_50"

_CORNER_NAMES = {"tl": "top-left", "tr": "top-right", "br": "bottom-right", "bl": "bottom-left"}
_FIELD_NAMES = {"tl": "near-left", "tr": "near-right", "br": "far-right", "bl": "far-left"}
_SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class MarkerSpec:
    """Where a kit's markers lie in board coordinates, and what the board is.

    ``area`` is the playing area ``(x0, y0, x1, y1)`` in board units (for a hex map the printed
    hexes, whose board origin is the centre of hex 0101); ``places`` says at which corner of
    the area each marker of ``ids`` sits (``tl``, ``tr``, ``br``, ``bl``: the corners
    ``(x0, y0)``, ``(x1, y0)``, ``(x1, y1)``, ``(x0, y1)``). Markers are printed ``marker_mm``
    wide, ``gap_mm`` off the area's corner; ``unit_mm`` is one board unit in millimetres.
    ``y_up`` marks a layout read with board ``y`` pointing up the printed marker (The Game's
    field: ``y`` grows away from the near edge, markers read upright from the near edge).
    ``size`` and ``units`` are those of the resulting :class:`~calibration.pose.BoardPose`.
    """

    name: str
    game: str
    title: str
    ids: tuple[int, ...]
    places: tuple[str, ...]
    area: tuple[float, float, float, float]
    units: str
    size: tuple[float, float]
    unit_mm: float
    marker_mm: float
    gap_mm: float
    y_up: bool = False
    dictionary: str = DICTIONARY

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.places) or not self.ids:
            raise CalibrationError(f"marker spec {self.name}: one place per marker id is needed")
        if any(p not in _CORNER_NAMES for p in self.places):
            raise CalibrationError(f"marker spec {self.name}: places must be tl, tr, br or bl")
        if min(self.unit_mm, self.marker_mm) <= 0 or self.gap_mm < 0:
            raise CalibrationError(f"marker spec {self.name}: sizes must be positive")

    @property
    def min_markers(self) -> int:
        """Markers needed for a pose in any places: 3 of 4 corner markers, or the one scale
        marker (two at opposite corners suffice too: :meth:`enough`)."""
        return min(3, len(self.ids))

    def enough(self, seen: Sequence[int]) -> bool:
        """Whether the markers ``seen`` fix the board's pose: :attr:`min_markers` of them, or
        two at opposite corners of the area (their eight corners span the board along its
        diagonal; two on one side would leave the far side to extrapolation).

        >>> spec = MarkerSpec("k", "g", "K", (1, 2, 3, 4), ("tl", "tr", "br", "bl"),
        ...                   (0, 0, 8, 8), "cell", (8, 8), 40.0, 30.0, 5.0)
        >>> spec.enough([1, 3]), spec.enough([2, 4]), spec.enough([1, 2]), spec.enough([1, 2, 4])
        (True, True, False, True)
        """
        known = [i for i in dict.fromkeys(seen) if i in self.ids]
        if len(known) >= self.min_markers:
            return True
        if len(known) == 2 and len(self.ids) == 4:
            places = {self.places[self.ids.index(i)] for i in known}
            return places in ({"tl", "br"}, {"tr", "bl"})
        return False

    @property
    def marker_size(self) -> float:
        """A marker's side in board units."""
        return self.marker_mm / self.unit_mm

    def with_marker_mm(self, marker_mm: float) -> MarkerSpec:
        """The same kit printed with markers ``marker_mm`` wide (same gap)."""
        if not marker_mm > 0:
            raise CalibrationError(
                f"the marker size must be a positive number of mm, got {marker_mm}"
            )
        return replace(self, marker_mm=float(marker_mm))

    def place_name(self, marker_id: int) -> str:
        """``"top-left"`` ... (``"near-left"`` ... on the field; ``"scale"`` for a lone marker)."""
        if len(self.ids) == 1:
            return "scale"
        place = self.places[self.ids.index(marker_id)]
        return (_FIELD_NAMES if self.y_up else _CORNER_NAMES)[place]

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The 4 x 2 board coordinates of a marker's corners in ArUco order (the printed
        marker's top-left, top-right, bottom-right, bottom-left)."""
        if marker_id not in self.ids:
            raise CalibrationError(f"marker id {marker_id} is not one of {self.title}'s markers")
        place = self.places[self.ids.index(marker_id)]
        x0, y0, x1, y1 = self.area
        m, g = self.marker_size, self.gap_mm / self.unit_mm
        left = x0 - g - m if place in ("tl", "bl") else x1 + g
        low = y0 - g - m if place in ("tl", "tr") else y1 + g  # the smaller board y
        square = np.array([[left, low], [left + m, low], [left + m, low + m], [left, low + m]])
        if self.y_up:  # printed top points to growing y
            square = square[[3, 2, 1, 0]]
        return square

    def in_image(self, to_image: Callable[[np.ndarray], Any]) -> tuple[np.ndarray, ...]:
        """Each of the kit's markers' four corners (4 x 2 pixels, ArUco order) where
        ``to_image`` (board points in this kit's units -> image points, as
        :meth:`calibration.pose.BoardPose.to_image`) puts them: where the printed markers lie
        in a frame, whether or not they were found in it."""
        return tuple(np.asarray(to_image(self.marker_corners(i)), float).reshape(4, 2) for i in self.ids)

    def extent(self) -> tuple[float, float, float, float]:
        """Bounding box of the playing area and all markers, in board units."""
        pts = np.vstack([self.marker_corners(i) for i in self.ids] + [self.area_corners()])
        return (*pts.min(axis=0).tolist(), *pts.max(axis=0).tolist())  # type: ignore[return-value]

    def area_corners(self) -> np.ndarray:
        """The playing area's corners ``(x0, y0), (x1, y0), (x1, y1), (x0, y1)``."""
        x0, y0, x1, y1 = self.area
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)

    def describe_ids(self) -> str:
        """``"ids 0-3"`` or ``"id 44"``."""
        if len(self.ids) == 1:
            return f"id {self.ids[0]}"
        lo, hi = min(self.ids), max(self.ids)
        if hi - lo + 1 == len(self.ids):
            return f"ids {lo}-{hi}"
        return "ids " + ", ".join(map(str, self.ids))


def oneworld_map_spec(columns: int = 14, rows: int = 23, hex_mm: float = 15.0) -> MarkerSpec:
    """The OneWorld map kit for a map of ``columns`` x ``rows`` hexes (circumradius ``hex_mm``).

    Board units are hex circumradii with the origin at the centre of hex 0101; the pose's
    size is the span of the corner hexes' centres, ``((columns - 1) * sqrt 3, 1.5 * (rows - 1))``.
    The printed hexes reach half a hex width further left, a whole width further right (even
    rows are shifted east) and one unit above and below.
    """
    if columns < 1 or rows < 1:
        raise CalibrationError("a hex map needs at least one column and one row")
    right = (columns - 1) * _SQRT3 + (_SQRT3 if rows > 1 else _SQRT3 / 2)
    return MarkerSpec(
        name="oneworld-map",
        game="oneworld",
        title="OneWorld's map",
        ids=(0, 1, 2, 3),
        places=("tl", "tr", "br", "bl"),
        area=(-_SQRT3 / 2, -1.0, right, 1.5 * (rows - 1) + 1.0),
        units="hex",
        size=((columns - 1) * _SQRT3, 1.5 * (rows - 1)),
        unit_mm=hex_mm,
        marker_mm=40.0,
        gap_mm=7.0,
    )


def _square_kit(
    name: str, game: str, title: str, first: int, cols: int, rows: int, mm: float
) -> MarkerSpec:
    return MarkerSpec(
        name=name,
        game=game,
        title=title,
        ids=(first, first + 1, first + 2, first + 3),
        places=("tl", "tr", "br", "bl"),
        area=(0.0, 0.0, float(cols), float(rows)),
        units="square",
        size=(float(cols), float(rows)),
        unit_mm=mm,
        marker_mm=30.0,
        gap_mm=5.0,
    )


def field_spec(width: float = 24.0, depth: float = 24.0, marker_mm: float = 76.2) -> MarkerSpec:
    """The Game's field: ``width`` x ``depth`` inches, a marker off each corner.

    Board coordinates are :class:`rules.geometry.FieldPoint` inches: origin at the near-left
    corner, ``x`` along the near edge, ``y`` away from it. The markers (3 inches by default)
    are read upright from the near edge and sit half an inch off the corners.
    """
    if not (width > 0 and depth > 0):
        raise CalibrationError(f"the field size must be positive inches, got {width} x {depth}")
    return MarkerSpec(
        name="the-game-field",
        game="the-game",
        title="The Game's field",
        ids=(40, 41, 42, 43),
        places=("tl", "tr", "br", "bl"),
        area=(0.0, 0.0, float(width), float(depth)),
        units="inch",
        size=(float(width), float(depth)),
        unit_mm=25.4,
        marker_mm=float(marker_mm),
        gap_mm=12.7,
        y_up=True,
    )


def scale_marker_spec(
    width: float = 24.0, depth: float = 24.0, marker_mm: float = 152.4
) -> MarkerSpec:
    """The Game's one-marker set-up: marker 44 (6 inches by default) lies outside the near-left
    corner of the field, its near-right... far-right corner half an inch diagonally off it, read
    upright from the near edge: the field is the ``width`` x ``depth`` rectangle beyond it."""
    base = field_spec(width, depth)
    return replace(
        base,
        name="the-game-scale",
        title="The Game's scale marker",
        ids=(44,),
        places=("tl",),
        marker_mm=float(marker_mm),
    )


#: Every kit, by name.
KITS: dict[str, MarkerSpec] = {
    s.name: s
    for s in (
        oneworld_map_spec(),
        _square_kit(
            "when-gods-collide-mat",
            "when-gods-collide",
            "When Gods Collide's tile mat",
            4,
            16,
            16,
            30.0,
        ),
        _square_kit("wormholes-galaxy", "wormholes", "Wormholes' galaxy", 8, 10, 18, 25.4),
        _square_kit(
            "battle-grounds-basic", "battle-grounds", "Battle Grounds' basic board", 12, 6, 7, 40.0
        ),
        _square_kit(
            "battle-grounds-advanced",
            "battle-grounds",
            "Battle Grounds' advanced board",
            16,
            8,
            8,
            40.0,
        ),
        field_spec(),
        scale_marker_spec(),
    )
}


def kit(name: str) -> MarkerSpec:
    """The kit called ``name`` (see :data:`KITS`)."""
    try:
        return KITS[name]
    except KeyError:
        raise CalibrationError(
            f"unknown marker kit {name!r} (known kits: {', '.join(KITS)})"
        ) from None


def kits_for_game(game: str) -> tuple[MarkerSpec, ...]:
    """The board kits of ``game`` (the field's scale marker is not a board kit)."""
    found = tuple(s for s in KITS.values() if s.game == game and len(s.ids) > 1)
    if not found:
        games = sorted({s.game for s in KITS.values()})
        raise CalibrationError(
            f"no marker kit for game {game!r} (kits exist for: {', '.join(games)})"
        )
    return found


def kit_for(game: str, options: Any = None) -> MarkerSpec:
    """The marker layout a game is played with: The Game's field (``field_width`` x
    ``field_depth`` inches as its options give, 24 x 24 by default), or the board kit of
    ``game`` whose name holds its ``board`` option (``options``: the game's options as JSON;
    Battle Grounds' ``advanced`` board), else its first kit."""
    if game == "the-game":
        opts = options or {}
        return field_spec(float(opts.get("field_width", 24.0)), float(opts.get("field_depth", 24.0)))
    kits = kits_for_game(game)
    wanted = str((options or {}).get("board", ""))
    for k in kits:
        if wanted and wanted in k.name:
            return k
    return kits[0]


def owner_of(marker_id: int) -> MarkerSpec | None:
    """The kit a marker id belongs to, if any."""
    for spec in KITS.values():
        if marker_id in spec.ids:
            return spec
    return None

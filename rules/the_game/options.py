"""The Game's options: the field, the two stat sets, the measuring tolerance and the choices
the rulebook leaves open. JSON names are the field names; every value has a default.

>>> opts = TheGameOptions.from_json({"field_width": 36, "tolerance": 0.5})
>>> (opts.field_width, opts.field_depth, opts.tolerance)
(36.0, 24.0, 0.5)
>>> TheGameOptions.from_json({"field_widht": 36})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.FormatError: options.field_widht: unknown field (known fields: action_range, ...)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from rules.errors import FormatError
from rules.geometry import FieldPoint
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_float,
    get_int,
    get_list,
    get_str,
    parse_enum,
    path,
)
from rules.the_game.shapes import Footprint, Shape

__all__ = ["Scoring", "TheGameOptions", "footprint_from_json"]


class Scoring(Enum):
    """How the end of the seventh sequence is judged (the rulebook names no winner)."""

    NONE = "none"
    KNOCKDOWNS = "knockdowns"


@dataclass(frozen=True)
class TheGameOptions:
    """Options of a game of The Game (see docs/games/the-game.md for each one)."""

    field_width: float = 24.0
    field_depth: float = 24.0
    sequences: int = 7
    sides: tuple[str, str] = ("red", "blue")
    field_of_vision: float = 180.0
    observer_counts_as_observed: bool = False
    idle_turns: int = 2
    observed_move: float = 6.0
    unobserved_move: float = 12.0
    observed_roll: int = 3
    unobserved_roll: int = 5
    action_range: float = 1.0
    tolerance: float = 0.25
    unobserved_must_move: bool = True
    unobserved_full_move: bool = True
    opponent_chooses_group: bool = True
    setup_facing_check: bool = True
    footprint: Footprint = Footprint(Shape.ELLIPSE, 1.0, 1.0)  # noqa: RUF009 (frozen: shared safely)
    scoring: Scoring = Scoring.NONE

    def other(self, player: str) -> str:
        """The other player."""
        return self.sides[1] if player == self.sides[0] else self.sides[0]

    @classmethod
    def from_json(cls, data: Any, where: str = "options") -> TheGameOptions:
        obj: Mapping[str, Any] = as_object(data, where)
        names = {f.name for f in fields(cls)}
        for key in obj:
            if key not in names:
                raise FormatError(
                    path(where, key), f"unknown field (known fields: {', '.join(sorted(names))})"
                )
        kw: dict[str, Any] = {}
        for name in ("field_width", "field_depth", "observed_move", "unobserved_move",
                     "action_range"):
            if name in obj:
                kw[name] = _positive(obj, name, where)
        if "tolerance" in obj:
            value = get_float(obj, "tolerance", where)
            if not (math.isfinite(value) and 0.0 <= value <= 6.0):
                raise FormatError(path(where, "tolerance"), "must be between 0 and 6 inches")
            kw["tolerance"] = value
        if "field_of_vision" in obj:
            value = get_float(obj, "field_of_vision", where)
            if not (0.0 < value <= 360.0):
                raise FormatError(path(where, "field_of_vision"),
                                  f"must be more than 0 and at most 360 degrees, got {value:g}")
            kw["field_of_vision"] = value
        if "sequences" in obj:
            kw["sequences"] = get_int(obj, "sequences", where, lo=1, hi=99)
        if "idle_turns" in obj:
            kw["idle_turns"] = get_int(obj, "idle_turns", where, lo=1, hi=99)
        for name in ("observed_roll", "unobserved_roll"):
            if name in obj:
                kw[name] = get_int(obj, name, where, lo=0, hi=6)
        for name in ("observer_counts_as_observed", "unobserved_must_move",
                     "unobserved_full_move", "opponent_chooses_group", "setup_facing_check"):
            if name in obj:
                kw[name] = get_bool(obj, name, where)
        if "sides" in obj:
            kw["sides"] = _sides(get_list(obj, "sides", where), path(where, "sides"))
        if "footprint" in obj:
            kw["footprint"] = footprint_from_json(obj["footprint"], path(where, "footprint"))
        if "scoring" in obj:
            kw["scoring"] = parse_enum(obj["scoring"], Scoring, path(where, "scoring"))
        return cls(**kw)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Footprint):
                out[f.name] = value.to_json()
            elif isinstance(value, Enum):
                out[f.name] = value.value
            elif isinstance(value, tuple):
                out[f.name] = list(value)
            else:
                out[f.name] = value
        return out


#: The largest length anywhere in the game (a field side, a footprint), in inches: beyond it
#: the geometry would lose all precision (and a footprint cannot be larger than any field).
MAX_INCHES = 1000.0


def _positive(obj: Mapping[str, Any], name: str, where: str) -> float:
    value = get_float(obj, name, where)
    if not (math.isfinite(value) and 0.0 < value <= MAX_INCHES):
        raise FormatError(path(where, name), f"must be a positive number of inches, got {value!r}")
    return value


def _sides(items: list[Any], where: str) -> tuple[str, str]:
    if len(items) != 2:
        raise FormatError(where, f"name exactly two sides (dot colours), got {len(items)}")
    names = []
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            raise FormatError(path(where, i),
                              f"a side is named by a non-empty string, got {item!r}")
        names.append(item)
    if names[0] == names[1]:
        raise FormatError(where, "the two sides need different names")
    return names[0], names[1]


def footprint_from_json(data: Any, where: str) -> Footprint:
    """Read ``{"shape": "ellipse"|"rectangle", "length", "width"}`` or
    ``{"shape": "polygon", "points": [{"x", "y"}, ...]}`` (piece frame, x forward)."""
    obj = as_object(data, where)
    shape = parse_enum(get_str(obj, "shape", where), Shape, path(where, "shape"))
    allowed = {"shape", "points"} if shape is Shape.POLYGON else {"shape", "length", "width"}
    for key in obj:
        if key not in allowed:
            raise FormatError(path(where, key), f"not a field of a {shape.value} footprint "
                              f"(known fields: {', '.join(sorted(allowed))})")
    try:
        if shape is Shape.POLYGON:
            items = as_list(obj.get("points"), path(where, "points"))
            pts = tuple(point_from_json(p, path(path(where, "points"), i))
                        for i, p in enumerate(items))
            for i, p in enumerate(pts):
                if max(abs(p.x), abs(p.y)) > MAX_INCHES:
                    raise FormatError(path(path(where, "points"), i),
                                      f"a footprint corner lies at most {MAX_INCHES:g} inches "
                                      f"from the piece's centre, got ({p.x:g}, {p.y:g})")
            return Footprint.polygon(pts)
        length = get_float(obj, "length", where)
        width = get_float(obj, "width", where)
        for name, value in (("length", length), ("width", width)):
            if value > MAX_INCHES:
                raise FormatError(path(where, name),
                                  f"a footprint is at most {MAX_INCHES:g} inches, got {value:g}")
        if shape is Shape.ELLIPSE:
            return Footprint.ellipse(length, width)
        return Footprint.rectangle(length, width)
    except ValueError as exc:
        if isinstance(exc, FormatError):
            raise
        raise FormatError(where, str(exc)) from None


def point_from_json(data: Any, where: str) -> FieldPoint:
    """Read ``{"x": 3.5, "y": 12}`` into a :class:`FieldPoint` (finite numbers only)."""
    obj = as_object(data, where)
    for key in obj:
        if key not in ("x", "y"):
            raise FormatError(path(where, key), "unknown field (known fields: x, y)")
    x = get_float(obj, "x", where)
    y = get_float(obj, "y", where)
    for name, value in (("x", x), ("y", y)):
        if not math.isfinite(value):
            raise FormatError(path(where, name), "must be a finite number of inches")
    return FieldPoint(x, y)

"""Options of a When Gods Collide game: who plays, the army and board sizes, and every choice
the rulebook leaves open (each documented in docs/games/when-gods-collide.md).

>>> opts = WgcOptions.from_json({"armies": ["greek", "norse"], "checkers_per_army": 8})
>>> [a.value for a in opts.armies], opts.checkers_per_army, opts.tiles_per_army
(['greek', 'norse'], 8, 6)
>>> WgcOptions.from_json({"armies": ["greek"]})
Traceback (most recent call last):
...
rules.errors.FormatError: options.armies: 2 to 4 armies play, got 1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from rules.errors import FormatError
from rules.jsonutil import (
    as_object,
    get_bool,
    get_enum,
    get_int,
    get_list,
    parse_enum,
    path,
    reject_unknown,
)
from rules.when_gods_collide.model import Army

__all__ = ["GodReveal", "WindDistance", "WindLanding", "LostTurn", "WgcOptions"]


class GodReveal(Enum):
    """Who learns a god checker that was turned over but stays on the board."""

    MOVER = "mover"
    ALL = "all"


class WindDistance(Enum):
    """How far the God of Wind pushes: any distance up to the numbered die, or exactly it."""

    UP_TO = "up-to"
    EXACT = "exact"


class WindLanding(Enum):
    """What a push may end on: only empty squares, or a checker of another side (captured)."""

    BLOCKED = "blocked"
    CAPTURE = "capture"


class LostTurn(Enum):
    """What 'the Seth player loses a turn' costs: this turn only, or also the next one."""

    THIS = "this"
    NEXT = "next"


@dataclass(frozen=True)
class WgcOptions:
    """Options of a game; the JSON names are the field names.

    ``armies`` are listed in seat order (turns go round in that order). ``first_army`` skips
    the roll-off for the first tile. ``god_reveal``: who learns a god found by a movement
    that may not take it (the mover checks under the checker); ``seth_reveal``: the same for
    Seth's flip (turned face up on the table, so everybody by default). ``seth_tokens`` is
    each army's supply of Seth tokens (``None``: as many as needed).
    """

    armies: tuple[Army, ...] = tuple(Army)
    checkers_per_army: int = 12
    tiles_per_army: int = 6
    first_army: Army | None = None
    hero_die: bool = True
    referee_sees_gods: bool = True
    allow_pass: bool = False
    god_reveal: GodReveal = GodReveal.MOVER
    seth_reveal: GodReveal = GodReveal.ALL
    wind_distance: WindDistance = WindDistance.UP_TO
    wind_landing: WindLanding = WindLanding.BLOCKED
    seth_tokens: int | None = None
    seth_lost_turn: LostTurn = LostTurn.THIS

    @classmethod
    def from_json(cls, data: Any, where: str = "options") -> WgcOptions:
        obj: Mapping[str, Any] = as_object(data, where)
        reject_unknown(obj, {f.name for f in fields(cls)}, where)
        kw: dict[str, Any] = {}
        if "armies" in obj:
            kw["armies"] = _parse_armies(get_list(obj, "armies", where), path(where, "armies"))
        if "checkers_per_army" in obj:
            kw["checkers_per_army"] = get_int(obj, "checkers_per_army", where, lo=1, hi=64)
        if "tiles_per_army" in obj:
            kw["tiles_per_army"] = get_int(obj, "tiles_per_army", where, lo=1, hi=32)
        if obj.get("first_army") is not None:
            kw["first_army"] = get_enum(obj, "first_army", Army, where)
        for name in ("hero_die", "referee_sees_gods", "allow_pass"):
            if name in obj:
                kw[name] = get_bool(obj, name, where)
        for name, enum in (
            ("god_reveal", GodReveal),
            ("seth_reveal", GodReveal),
            ("wind_distance", WindDistance),
            ("wind_landing", WindLanding),
            ("seth_lost_turn", LostTurn),
        ):
            if name in obj:
                kw[name] = get_enum(obj, name, enum, where)
        if obj.get("seth_tokens") is not None:
            kw["seth_tokens"] = get_int(obj, "seth_tokens", where, lo=0, hi=999)
        options = cls(**kw)
        options._check(where)
        return options

    def _check(self, where: str) -> None:
        squares = 4 * self.tiles_per_army
        if self.checkers_per_army > squares:
            raise FormatError(
                path(where, "checkers_per_army"),
                f"{self.checkers_per_army} checkers do not fit on {self.tiles_per_army} tiles "
                f"({squares} squares)",
            )
        if self.first_army is not None and self.first_army not in self.armies:
            raise FormatError(
                path(where, "first_army"), f"{self.first_army.value} is not one of the armies"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "armies": [a.value for a in self.armies],
            "checkers_per_army": self.checkers_per_army,
            "tiles_per_army": self.tiles_per_army,
            "first_army": self.first_army.value if self.first_army else None,
            "hero_die": self.hero_die,
            "referee_sees_gods": self.referee_sees_gods,
            "allow_pass": self.allow_pass,
            "god_reveal": self.god_reveal.value,
            "seth_reveal": self.seth_reveal.value,
            "wind_distance": self.wind_distance.value,
            "wind_landing": self.wind_landing.value,
            "seth_tokens": self.seth_tokens,
            "seth_lost_turn": self.seth_lost_turn.value,
        }


def _parse_armies(items: list[Any], where: str) -> tuple[Army, ...]:
    armies = tuple(parse_enum(item, Army, path(where, i)) for i, item in enumerate(items))
    if not 2 <= len(armies) <= 4:
        raise FormatError(where, f"2 to 4 armies play, got {len(armies)}")
    for i, army in enumerate(armies):
        if army in armies[:i]:
            raise FormatError(path(where, i), f"{army.value} is listed twice")
    return armies

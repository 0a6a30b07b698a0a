"""Figures and rosters: who fights, with which six stats, powers and Battle Dice.

A roster is the data file the players write (JSON). It lists, for each side, the figures
that side may field and that side's Battle Dice. Figure ids are unique across the roster,
so an id names one physical figure.

>>> roster = load_bundled_roster("default")
>>> hulk = roster.figure("hulk")
>>> (hulk.name, hulk.level.value, hulk.owner, hulk.stat(Stat.STRENGTH))
('Hulk', 'III', 'south', 6)
>>> hulk.has_power(SUPER_SENSE)
False
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from typing import Any

from rules.errors import FormatError
from rules.jsonutil import (
    as_list,
    as_object,
    get_int,
    get_list,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
)

__all__ = [
    "SOUTH",
    "NORTH",
    "PLAYERS",
    "opponent",
    "player_index",
    "Stat",
    "STAT_ORDER",
    "Level",
    "HYPNOTIZE",
    "SUPER_SENSE",
    "SWAP_POWERS",
    "TELEPATHY",
    "TELEPORT",
    "ATTACK_POWERS",
    "Power",
    "FigureSpec",
    "BattleDie",
    "Roster",
    "roster_from_json",
    "roster_to_json",
    "load_bundled_roster",
]

SOUTH = "south"
NORTH = "north"
#: The two players, in the order of every per-player tuple in a state.
PLAYERS: tuple[str, str] = (SOUTH, NORTH)


def opponent(player: str) -> str:
    return NORTH if player == SOUTH else SOUTH


def player_index(player: str) -> int:
    return 0 if player == SOUTH else 1


class Stat(Enum):
    """The six stats of a figure, in the order of a figure's stat card."""

    INTELLIGENCE = "intelligence"
    STRENGTH = "strength"
    SPEED = "speed"
    DURABILITY = "durability"
    ENERGY_PROJECTION = "energy-projection"
    FIGHTING_SKILLS = "fighting-skills"

    @property
    def title(self) -> str:
        return self.value.replace("-", " ").title()


#: Stat card order; the ``stat-die`` white-square rule reads a die face 1-6 against it.
STAT_ORDER: tuple[Stat, ...] = tuple(Stat)


class Level(Enum):
    """A figure's level; the Cosmic figure is a level III figure that also decides the game."""

    SA = "S/A"
    I = "I"  # noqa: E741 - the level's printed name
    II = "II"
    III = "III"
    COSMIC = "Cosmic"

    @property
    def movement(self) -> Level:
        """The level whose movement a figure uses (Cosmic figures move as level III)."""
        return Level.III if self is Level.COSMIC else self


HYPNOTIZE = "Hypnotize"
SUPER_SENSE = "Super Sense"
SWAP_POWERS = "Swap Powers"
TELEPATHY = "Telepathy"
TELEPORT = "Teleport"
#: The attack powers the rulebook adapts for the board; any other power name is flavour
#: (announced with the figure) plus an optional battle bonus.
ATTACK_POWERS: tuple[str, ...] = (HYPNOTIZE, SUPER_SENSE, SWAP_POWERS, TELEPATHY, TELEPORT)
_WHEN = ("always", "attacking", "defending")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Power:
    """A power on a figure's card. ``bonus`` is added to the figure's battle total when it
    fights in the role ``when`` (``always``, ``attacking`` or ``defending``)."""

    name: str
    bonus: int = 0
    when: str = "always"

    def applies(self, attacking: bool) -> bool:
        return self.when == "always" or (self.when == "attacking") == attacking


@dataclass(frozen=True)
class FigureSpec:
    """One figure: its id, printed name, owner, level, six stats and powers."""

    id: str
    name: str
    owner: str
    level: Level
    stats: tuple[int, int, int, int, int, int]
    powers: tuple[Power, ...] = ()

    def stat(self, stat: Stat) -> int:
        return self.stats[STAT_ORDER.index(stat)]

    def has_power(self, name: str) -> bool:
        return any(p.name == name for p in self.powers)

    def bonus(self, attacking: bool) -> int:
        return sum(p.bonus for p in self.powers if p.applies(attacking))

    @property
    def cosmic(self) -> bool:
        return self.level is Level.COSMIC


@dataclass(frozen=True)
class BattleDie:
    """One Battle Die: its name, the rule printed on it, and the battle bonus it gives its
    owner while it lies in the Dice Zone (the roster's translation of its rule)."""

    name: str
    rule: str = ""
    bonus: int = 0


@dataclass(frozen=True)
class Roster:
    """Both sides' figures and Battle Dice."""

    name: str
    figures: tuple[FigureSpec, ...]
    dice: tuple[tuple[BattleDie, ...], tuple[BattleDie, ...]]
    _by_id: dict[str, FigureSpec] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )

    def __post_init__(self) -> None:
        self._by_id.update({f.id: f for f in self.figures})

    def figure(self, figure_id: str) -> FigureSpec:
        return self._by_id[figure_id]

    def get(self, figure_id: str) -> FigureSpec | None:
        return self._by_id.get(figure_id)

    def figures_of(self, player: str) -> list[FigureSpec]:
        return [f for f in self.figures if f.owner == player]

    def dice_of(self, player: str) -> tuple[BattleDie, ...]:
        return self.dice[player_index(player)]

    def die(self, player: str, name: str) -> BattleDie | None:
        return next((d for d in self.dice_of(player) if d.name == name), None)

    def count(self, player: str, level: Level) -> int:
        return sum(1 for f in self.figures_of(player) if f.level is level)


# -- JSON --------------------------------------------------------------------------------
def roster_from_json(data: Any, where: str = "roster") -> Roster:
    """Read and validate a roster; every problem is a :class:`FormatError` naming its field."""
    obj = as_object(data, where)
    reject_unknown(obj, {"name", "sides"}, where)
    name = get_str(obj, "name", where, "roster")
    sides = get_object(obj, "sides", where)
    reject_unknown(sides, set(PLAYERS), path(where, "sides"))
    figures: list[FigureSpec] = []
    dice: list[tuple[BattleDie, ...]] = []
    seen: dict[str, str] = {}
    for player in PLAYERS:
        side_where = path(path(where, "sides"), player)
        side = get_object(sides, player, path(where, "sides"))
        reject_unknown(side, {"figures", "dice"}, side_where)
        items = get_list(side, "figures", side_where)
        if not items:
            raise FormatError(path(side_where, "figures"), "a side needs at least one figure")
        for i, item in enumerate(items):
            fig_where = path(path(side_where, "figures"), i)
            fig = _figure_from_json(item, player, fig_where)
            if fig.id in seen:
                raise FormatError(
                    path(fig_where, "id"), f"figure id {fig.id!r} is already used at {seen[fig.id]}"
                )
            seen[fig.id] = fig_where
            figures.append(fig)
        cosmic = [f for f in figures if f.owner == player and f.cosmic]
        if len(cosmic) != 1:
            raise FormatError(
                path(side_where, "figures"),
                f"a side fields exactly one Cosmic figure, found {len(cosmic)}",
            )
        dice.append(_dice_from_json(side.get("dice"), path(side_where, "dice")))
    return Roster(name, tuple(figures), (dice[0], dice[1]))


def _figure_from_json(data: Any, owner: str, where: str) -> FigureSpec:
    obj = as_object(data, where)
    reject_unknown(obj, {"id", "name", "level", "stats", "powers"}, where)
    figure_id = get_str(obj, "id", where)
    if not _ID.match(figure_id):
        raise FormatError(
            path(where, "id"), f"{figure_id!r} is not a usable id (letters, digits, - _ .)"
        )
    name = get_str(obj, "name", where, figure_id)
    level = parse_enum(obj.get("level"), Level, path(where, "level"))
    stats_obj = get_object(obj, "stats", where)
    stats_where = path(where, "stats")
    reject_unknown(stats_obj, {s.value for s in Stat}, stats_where)
    stats = tuple(get_int(stats_obj, s.value, stats_where, lo=0, hi=6) for s in STAT_ORDER)
    powers_raw = get_list(obj, "powers", where, [])
    powers = tuple(
        _power_from_json(p, path(path(where, "powers"), i)) for i, p in enumerate(powers_raw)
    )
    return FigureSpec(figure_id, name, owner, level, stats, powers)  # type: ignore[arg-type]


def _power_from_json(data: Any, where: str) -> Power:
    if isinstance(data, str):
        return Power(_power_name(data, where))
    obj = as_object(data, where)
    reject_unknown(obj, {"name", "bonus", "when"}, where)
    name = _power_name(get_str(obj, "name", where), path(where, "name"))
    bonus = get_int(obj, "bonus", where, 0, lo=-6, hi=6)
    when = get_str(obj, "when", where, "always")
    if when not in _WHEN:
        raise FormatError(
            path(where, "when"), f"unknown value {when!r} (expected one of: {', '.join(_WHEN)})"
        )
    return Power(name, bonus, when)


def _power_name(text: str, where: str) -> str:
    clean = " ".join(text.split())
    if not clean:
        raise FormatError(where, "a power needs a name")
    for known in ATTACK_POWERS:  # the attack powers are matched whatever their case
        if clean.lower() == known.lower():
            return known
    return clean


def _dice_from_json(data: Any, where: str) -> tuple[BattleDie, ...]:
    if data is None:
        return tuple(BattleDie(f"die-{i}") for i in range(1, 7))
    items = as_list(data, where)
    if not 1 <= len(items) <= 12:
        raise FormatError(where, f"a side has 1 to 12 Battle Dice, got {len(items)}")
    out: list[BattleDie] = []
    for i, item in enumerate(items):
        die_where = path(where, i)
        obj = as_object(item, die_where)
        reject_unknown(obj, {"name", "rule", "bonus"}, die_where)
        name = get_str(obj, "name", die_where)
        if not name.strip():
            raise FormatError(path(die_where, "name"), "a die needs a name")
        if any(d.name == name for d in out):
            raise FormatError(
                path(die_where, "name"), f"die name {name!r} is used twice on this side"
            )
        rule = get_str(obj, "rule", die_where, "")
        out.append(BattleDie(name, rule, get_int(obj, "bonus", die_where, 0, lo=-6, hi=6)))
    return tuple(out)


def roster_to_json(roster: Roster) -> dict[str, Any]:
    """The JSON form read by :func:`roster_from_json` (round trip exact)."""
    sides: dict[str, Any] = {}
    for player in PLAYERS:
        sides[player] = {
            "figures": [_figure_to_json(f) for f in roster.figures_of(player)],
            "dice": [
                {"name": d.name, "rule": d.rule, "bonus": d.bonus} for d in roster.dice_of(player)
            ],
        }
    return {"name": roster.name, "sides": sides}


def _figure_to_json(fig: FigureSpec) -> dict[str, Any]:
    powers: list[Any] = [
        p.name
        if (p.bonus, p.when) == (0, "always")
        else {"name": p.name, "bonus": p.bonus, "when": p.when}
        for p in fig.powers
    ]
    return {
        "id": fig.id,
        "name": fig.name,
        "level": fig.level.value,
        "stats": {s.value: v for s, v in zip(STAT_ORDER, fig.stats)},
        "powers": powers,
    }


_BUNDLED = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def load_bundled_roster(name: str, where: str = "roster") -> Roster:
    """A roster shipped with the package (``rules/battle_grounds/rosters/<name>.json``)."""
    if not _BUNDLED.match(name):
        raise FormatError(where, f"{name!r} is not a bundled roster name")
    resource = resources.files("rules.battle_grounds").joinpath("rosters").joinpath(f"{name}.json")
    if not resource.is_file():
        raise FormatError(where, f"no bundled roster named {name!r} (try 'default')")
    try:
        data = json.loads(resource.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:  # pragma: no cover - bundled files are tested
        raise FormatError(where, f"bundled roster {name!r} is not valid JSON: {exc}") from None
    return roster_from_json(data, where)

"""OneWorld game options: the map, the numbers the rules fix, and every optional rule of
section 12, each off by default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from rules.errors import FormatError
from rules.jsonutil import as_object, get_bool, get_int, get_str, reject_unknown
from rules.oneworld.model import Side

__all__ = ["TowerDirection", "OneWorldOptions"]


class TowerDirection(Enum):
    CLOCKWISE = "clockwise"
    COUNTERCLOCKWISE = "counterclockwise"


@dataclass(frozen=True)
class OneWorldOptions:
    """Options of a OneWorld game. JSON names are the field names.

    >>> OneWorldOptions.from_json({"stacking_limit": 3}).stacking_limit
    3
    """

    map: str = "default"
    map_text: str | None = None
    borg_lives: int = 3
    chez_lives: int = 3
    stacking_limit: int = 4
    children_per_side: int = 13
    setup_god_rows: int = 3
    setup_child_range: int = 7
    # -- section 12 ------------------------------------------------------------------
    singing_grasses: bool = False
    friendly_obstacle: bool = False
    pylon_movement: bool = False
    flee_while_you_can: bool = False
    tower_elimination: bool = False
    frustration_clause: bool = False
    moving_towers: TowerDirection | None = None
    new_geography: bool = False
    more_balance: bool = False
    chaos_gambit_1: bool = False
    chaos_gambit_2: bool = False
    non_aligned_towers: bool = False
    borg_god_powers: int = 0
    chez_god_powers: int = 0

    def lives(self, side: Side) -> int:
        return self.borg_lives if side is Side.BORG else self.chez_lives

    def god_powers(self, side: Side) -> int:
        return self.borg_god_powers if side is Side.BORG else self.chez_god_powers

    @property
    def towers_in_play(self) -> bool:
        return not self.tower_elimination

    @classmethod
    def from_json(cls, data: Any, where: str = "options") -> OneWorldOptions:
        obj: Mapping[str, Any] = as_object(data, where)
        names = {f.name for f in fields(cls)} | {"god_lives", "god_powers"}
        reject_unknown(obj, names, where)
        kw: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in obj:
                continue
            if f.name in ("map", "map_text"):
                kw[f.name] = get_str(obj, f.name, where)
            elif f.name == "moving_towers":
                value = obj[f.name]
                if value is None:
                    kw[f.name] = None
                else:
                    try:
                        kw[f.name] = TowerDirection(value)
                    except ValueError:
                        raise FormatError(
                            f"{where}.moving_towers", "expected 'clockwise', 'counterclockwise' or null"
                        ) from None
            elif f.type in ("int", int):
                kw[f.name] = get_int(obj, f.name, where, lo=0, hi=99)
            else:
                kw[f.name] = get_bool(obj, f.name, where)
        # Conveniences: one number for both gods.
        if "god_lives" in obj:
            n = get_int(obj, "god_lives", where, lo=1, hi=99)
            kw.setdefault("borg_lives", n)
            kw.setdefault("chez_lives", n)
        elif kw.get("tower_elimination"):
            # Section 12: without Towers the gods have a single life (unless told otherwise).
            kw.setdefault("borg_lives", 1)
            kw.setdefault("chez_lives", 1)
        if "god_powers" in obj:
            n = get_int(obj, "god_powers", where, lo=0, hi=99)
            kw.setdefault("borg_god_powers", n)
            kw.setdefault("chez_god_powers", n)
        opts = cls(**kw)
        for name in ("borg_lives", "chez_lives", "stacking_limit", "children_per_side"):
            if getattr(opts, name) < 1:
                raise FormatError(f"{where}.{name}", "must be at least 1")
        if opts.tower_elimination and (opts.non_aligned_towers or opts.moving_towers or opts.more_balance):
            raise FormatError(f"{where}.tower_elimination", "cannot be combined with other Tower options")
        return opts

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        default = OneWorldOptions()
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name) or f.name in ("borg_lives", "chez_lives"):
                out[f.name] = value.value if isinstance(value, Enum) else value
        return out

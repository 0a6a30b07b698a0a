"""JSON for When Gods Collide states and actions (formats in docs/games/when-gods-collide.md).

Squares are written ``"x,y"``. Bad input raises :class:`~rules.errors.FormatError` naming
the field, e.g. ``position.checkers[3].at``.

>>> parse_square("4,-2", "action.to")
Square(x=4, y=-2)
>>> action_to_json(action_from_json({"type": "roll", "chess": "rook", "number": 3}))
{'type': 'roll', 'chess': 'rook', 'number': 3}
>>> action_from_json({"type": "move", "from": "1,1", "to": "1,x"})
Traceback (most recent call last):
...
rules.errors.FormatError: action.to: not a square: '1,x' (expected "x,y", e.g. "3,4")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.errors import FormatError
from rules.geometry import Square
from rules.jsonutil import (
    as_object,
    get_bool,
    get_enum,
    get_int,
    get_list,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
    require,
)
from rules.when_gods_collide.actions import (
    CallHero,
    Convert,
    FirstRoll,
    HeroRoll,
    LayTile,
    Move,
    Pass,
    Place,
    Push,
    Roll,
    WgcAction,
)
from rules.when_gods_collide.model import (
    Army,
    Checker,
    ChessFace,
    ConvertMethod,
    HeroFace,
    Identity,
    Phase,
    Tile,
    TurnRoll,
    WgcState,
    army_order,
)

__all__ = ["parse_square", "action_to_json", "action_from_json", "state_to_json", "read_state"]


def parse_square(value: Any, where: str) -> Square:
    if isinstance(value, str):
        parts = value.split(",")
        if len(parts) == 2:
            try:
                return Square(int(parts[0]), int(parts[1]))
            except ValueError:
                pass
    raise FormatError(where, f'not a square: {value!r} (expected "x,y", e.g. "3,4")')


def _squares(obj: Mapping[str, Any], key: str, where: str) -> list[Square]:
    items = get_list(obj, key, where)
    return [parse_square(v, path(path(where, key), i)) for i, v in enumerate(items)]


def _die(obj: Mapping[str, Any], where: str) -> int:
    number: int = get_int(obj, "number", where, lo=1, hi=6)
    return number


def _found_from_json(obj: Mapping[str, Any], where: str) -> frozenset[Square] | None:
    if obj.get("gods_found") is None:
        return None
    squares = _squares(obj, "gods_found", where)
    if len(set(squares)) != len(squares):
        raise FormatError(path(where, "gods_found"), "a square is listed twice")
    return frozenset(squares)


# -- actions ---------------------------------------------------------------------------

_FIELDS: dict[str, set[str]] = {
    "first-roll": {"number"},
    "tile": {"at"},
    "place": {"army", "at", "god"},
    "roll": {"chess", "number"},
    "call-hero": set(),
    "hero-roll": {"hero", "number"},
    "move": {"from", "to", "via", "gods_found"},
    "push": {"from", "to", "gods_found"},
    "convert": {"at", "method", "gods_found"},
    "pass": set(),
}


def action_from_json(data: Any, where: str = "action") -> WgcAction:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    if kind not in _FIELDS:
        raise FormatError(
            path(where, "type"), f"unknown action type {kind!r} (known: {', '.join(_FIELDS)})"
        )
    reject_unknown(obj, _FIELDS[kind] | {"type"}, where)
    if kind == "first-roll":
        return FirstRoll(get_int(obj, "number", where, lo=1, hi=6))
    if kind == "tile":
        return LayTile(parse_square(require(obj, "at", where), path(where, "at")))
    if kind == "place":
        return Place(
            get_enum(obj, "army", Army, where),
            parse_square(require(obj, "at", where), path(where, "at")),
            get_bool(obj, "god", where, default=False),
        )
    if kind == "roll":
        return Roll(get_enum(obj, "chess", ChessFace, where), _die(obj, where))
    if kind == "call-hero":
        return CallHero()
    if kind == "hero-roll":
        return HeroRoll(get_enum(obj, "hero", HeroFace, where), _die(obj, where))
    if kind == "pass":
        return Pass()
    found = _found_from_json(obj, where)
    if kind == "convert":
        at = parse_square(require(obj, "at", where), path(where, "at"))
        return Convert(at, get_enum(obj, "method", ConvertMethod, where), found)
    frm = parse_square(require(obj, "from", where), path(where, "from"))
    to = parse_square(require(obj, "to", where), path(where, "to"))
    if kind == "push":
        return Push(frm, to, found)
    via = tuple(_squares(obj, "via", where)) if "via" in obj else ()
    return Move(frm, to, via, found)


def action_to_json(action: WgcAction) -> dict[str, Any]:
    if isinstance(action, FirstRoll):
        return {"type": "first-roll", "number": action.number}
    if isinstance(action, LayTile):
        return {"type": "tile", "at": str(action.at)}
    if isinstance(action, Place):
        out: dict[str, Any] = {"type": "place", "army": action.army.value, "at": str(action.at)}
        if action.god:
            out["god"] = True
        return out
    if isinstance(action, Roll):
        return {"type": "roll", "chess": action.chess.value, "number": action.number}
    if isinstance(action, CallHero):
        return {"type": "call-hero"}
    if isinstance(action, HeroRoll):
        return {"type": "hero-roll", "hero": action.hero.value, "number": action.number}
    if isinstance(action, Pass):
        return {"type": "pass"}
    if isinstance(action, Convert):
        out = {"type": "convert", "at": str(action.at), "method": action.method.value}
    else:
        kind = "move" if isinstance(action, Move) else "push"
        out = {"type": kind, "from": str(action.frm), "to": str(action.to)}
        if isinstance(action, Move) and action.via:
            out["via"] = [str(s) for s in action.via]
    if action.gods_found is not None:
        out["gods_found"] = [str(s) for s in sorted(action.gods_found, key=lambda s: (s.y, s.x))]
    return out


# -- states ----------------------------------------------------------------------------

_STATE_FIELDS = {
    "phase", "alive", "current", "first", "tiles", "checkers", "roll", "captured", "rolloff",
    "skip",
}
_CHECKER_FIELDS = {"at", "army", "side", "identity", "public", "seen_by"}


def state_to_json(state: WgcState) -> dict[str, Any]:
    checkers = []
    for c in state.checkers:
        item: dict[str, Any] = {"at": str(c.at), "army": c.army.value, "identity": c.identity.value}
        if c.converted:
            item["side"] = c.side.value
        if c.public:
            item["public"] = True
        if c.seen_by:
            item["seen_by"] = [a.value for a in sorted(c.seen_by, key=army_order)]
        checkers.append(item)
    roll = state.roll
    return {
        "phase": state.phase.value,
        "alive": [a.value for a in state.alive],
        "current": state.current.value if state.current else None,
        "first": state.first.value if state.first else None,
        "tiles": [{"at": str(t.at), "owner": t.owner.value} for t in state.tiles],
        "checkers": checkers,
        "roll": None
        if roll is None
        else {
            "chess": roll.chess.value,
            "number": roll.number,
            "hero": roll.hero.value if roll.hero else None,
        },
        "captured": {a.value: n for a, n in state.captured},
        "rolloff": [{"army": a.value, "number": n} for a, n in state.rolloff],
        "skip": [a.value for a in sorted(state.skip, key=army_order)],
    }


def _army(value: Any, where: str, allowed: tuple[Army, ...]) -> Army:
    army = parse_enum(value, Army, where)
    if army not in allowed:
        raise FormatError(where, f"{army.value} is not playing in this game")
    return army


def _optional_army(
    obj: Mapping[str, Any], key: str, where: str, allowed: tuple[Army, ...]
) -> Army | None:
    value = obj.get(key)
    return None if value is None else _army(value, path(where, key), allowed)


def read_state(data: Any, armies: tuple[Army, ...], where: str = "position") -> WgcState:
    """Parse a state's JSON, keeping checkers in the order given.

    This checks the shape only; :func:`.validate.check_state` checks it against the rules.
    """
    obj = as_object(data, where)
    reject_unknown(obj, _STATE_FIELDS, where)
    phase = get_enum(obj, "phase", Phase, where)
    alive_list = get_list(obj, "alive", where)
    alive = [_army(v, path(path(where, "alive"), i), armies) for i, v in enumerate(alive_list)]
    for i, army in enumerate(alive):
        if army in alive[:i]:
            raise FormatError(path(path(where, "alive"), i), f"{army.value} is listed twice")
    alive_t = tuple(a for a in armies if a in alive)
    tiles = []
    for i, item in enumerate(get_list(obj, "tiles", where, default=[])):
        at = path(path(where, "tiles"), i)
        t = as_object(item, at)
        reject_unknown(t, {"at", "owner"}, at)
        tiles.append(
            Tile(
                parse_square(require(t, "at", at), path(at, "at")),
                _army(require(t, "owner", at), path(at, "owner"), armies),
            )
        )
    checkers = [
        _read_checker(item, path(path(where, "checkers"), i), armies)
        for i, item in enumerate(get_list(obj, "checkers", where, default=[]))
    ]
    roll = None
    if obj.get("roll") is not None:
        r_where = path(where, "roll")
        r = get_object(obj, "roll", where)
        reject_unknown(r, {"chess", "number", "hero"}, r_where)
        hero = None if r.get("hero") is None else get_enum(r, "hero", HeroFace, r_where)
        roll = TurnRoll(get_enum(r, "chess", ChessFace, r_where), _die(r, r_where), hero)
    captured: dict[Army, int] = {}
    c_where = path(where, "captured")
    for key in get_object(obj, "captured", where, default={}):
        army = _army(key, path(c_where, key), armies)
        captured[army] = get_int(obj["captured"], key, c_where, lo=0, hi=999)
    rolloff = []
    for i, item in enumerate(get_list(obj, "rolloff", where, default=[])):
        at = path(path(where, "rolloff"), i)
        e = as_object(item, at)
        reject_unknown(e, {"army", "number"}, at)
        number = None if e.get("number") is None else get_int(e, "number", at, lo=1, hi=6)
        rolloff.append((_army(require(e, "army", at), path(at, "army"), armies), number))
    skip = [
        _army(v, path(path(where, "skip"), i), armies)
        for i, v in enumerate(get_list(obj, "skip", where, default=[]))
    ]
    return WgcState(
        phase=phase,
        alive=alive_t,
        current=_optional_army(obj, "current", where, armies),
        first=_optional_army(obj, "first", where, armies),
        tiles=tuple(tiles),
        checkers=tuple(checkers),
        roll=roll,
        captured=tuple(
            sorted(((a, n) for a, n in captured.items() if n), key=lambda p: army_order(p[0]))
        ),
        rolloff=tuple(rolloff),
        skip=frozenset(skip),
    )


def _read_checker(item: Any, where: str, armies: tuple[Army, ...]) -> Checker:
    obj = as_object(item, where)
    reject_unknown(obj, _CHECKER_FIELDS, where)
    army = _army(require(obj, "army", where), path(where, "army"), armies)
    side = army if obj.get("side") is None else _army(obj["side"], path(where, "side"), armies)
    seen = [
        _army(v, path(path(where, "seen_by"), i), armies)
        for i, v in enumerate(get_list(obj, "seen_by", where, default=[]))
    ]
    return Checker(
        at=parse_square(require(obj, "at", where), path(where, "at")),
        army=army,
        side=side,
        identity=get_enum(obj, "identity", Identity, where),
        public=get_bool(obj, "public", where, default=False),
        seen_by=frozenset(seen),
    )

"""OneWorld positions and actions to and from JSON (the format is in docs/games/oneworld.md)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.errors import FormatError
from rules.geometry import Hex
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_int,
    get_list,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
)
from rules.oneworld.board import End, OneWorldMap
from rules.oneworld.model import (
    Action,
    Aspect,
    Child,
    ChooseTower,
    Combat,
    EndMovement,
    God,
    GodMove,
    GodTransform,
    Move,
    Phase,
    Position,
    SetUp,
    Side,
    Transform,
    by_side,
    sort_children,
)
from rules.oneworld.options import OneWorldOptions

__all__ = ["position_to_json", "position_from_json", "action_to_json", "action_from_json", "check_on_map"]


def _hex(value: Any, where: str) -> Hex:
    return Hex.parse(value, where)


def _side(value: Any, where: str) -> Side:
    return parse_enum(value, Side, where)


def _aspect(value: Any, where: str) -> Aspect:
    return parse_enum(value, Aspect, where)


def _sides_once(obj: Any, where: str) -> None:
    """Refuse an object keyed by side that names a side twice (``"borg"`` and ``"BORG"``)."""
    seen: set[Side] = set()
    for key in obj:
        side = _side(key, where)
        if side in seen:
            raise FormatError(path(where, key), f"{side.value} is named twice")
        seen.add(side)


def _child_id(value: Any, where: str) -> str:
    """A child's id: printable ASCII with no spaces (``B1``, ``C13``)."""
    if not isinstance(value, str):
        raise FormatError(where, f"expected a child id (a string such as 'B1'), got {value!r}")
    if not value or not value.isascii() or not value.isprintable() or " " in value:
        raise FormatError(where, f"not a child id: {value!r} (letters and digits, e.g. 'B1')")
    return value


# -- positions -------------------------------------------------------------------------

_POSITION_FIELDS = {
    "game", "phase", "active", "turn", "first_setup", "ends", "towers", "gods", "children",
    "under_tower", "lost", "this_turn", "combats", "combat", "drawn",
}


def position_to_json(p: Position) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": "oneworld",
        "phase": p.phase.value,
        "active": p.active.value,
        "turn": p.turn,
        "first_setup": p.first_setup.value,
        "ends": {s.value: e.value for s, e in p.ends},
        "towers": {s.value: h.label() for s, h in p.towers},
        "gods": {
            g.side.value: {"hex": g.hex.label() if g.hex else None, "lives": g.lives} for g in p.gods
        },
        "children": [
            {"id": c.id, "side": c.side.value, "aspect": c.aspect.value, "hex": c.hex.label()} for c in p.children
        ],
        "under_tower": {s.value: list(p.reserve(s)) for s in Side},
        "lost": {s.value: list(p.lost_of(s)) for s in Side},
        "this_turn": {
            "moved": sorted(p.moved),
            "god_attacked": p.god_attacked,
            "obstacles_used": {h.label(): n for h, n in p.obstacles_used},
            "god_transforms_used": p.god_transforms_used,
            "god_moved": p.god_moved,
        },
        "combats": [h.label() for h in p.combats],
        "combat": None,
        "drawn": p.drawn,
    }
    if p.combat is not None:
        c = p.combat
        out["combat"] = {
            "hex": c.hex.label(),
            "against_god": c.against_god,
            "rounds": c.rounds,
            "quiet_rounds": c.quiet_rounds,
            "chosen": {
                s.value: ([a.value for a in aspects] if aspects is not None else "hidden") for s, aspects in c.pending
            },
        }
    return out


def position_from_json(data: Any, options: OneWorldOptions, where: str = "position") -> Position:
    obj = as_object(data, where)
    reject_unknown(obj, _POSITION_FIELDS, where)
    if "game" in obj and obj["game"] != "oneworld":
        raise FormatError(path(where, "game"), f"this is a position of {obj['game']!r}, not oneworld")
    phase = parse_enum(obj.get("phase", "movement"), Phase, path(where, "phase"))
    active = _side(obj.get("active", "borg"), path(where, "active"))
    first = _side(obj.get("first_setup", "borg"), path(where, "first_setup"))
    turn = get_int(obj, "turn", where, default=1, lo=1)

    ends_obj = get_object(obj, "ends", where, default={})
    for key in ("ends", "towers", "gods", "under_tower", "lost"):
        _sides_once(get_object(obj, key, where, default={}), path(where, key))
    ends = tuple(
        (_side(k, path(where, "ends")), parse_enum(v, End, path(path(where, "ends"), k))) for k, v in ends_obj.items()
    )
    if len(ends) == 2 and ends[0][1] is ends[1][1]:
        raise FormatError(path(where, "ends"), f"both sides cannot set up at the {ends[0][1].value} end")
    towers_obj = get_object(obj, "towers", where, default={})
    towers = tuple(
        sorted(((_side(k, path(where, "towers")), _hex(v, path(path(where, "towers"), k))) for k, v in towers_obj.items()), key=lambda t: t[0].value)
    )
    gods_obj = get_object(obj, "gods", where, default={})
    gods = []
    for side in Side:
        w = path(path(where, "gods"), side.value)
        g = as_object(gods_obj.get(side.value, {}), w)
        reject_unknown(g, {"hex", "lives"}, w)
        h = g.get("hex")
        gods.append(God(side, _hex(h, path(w, "hex")) if h is not None else None, get_int(g, "lives", w, default=options.lives(side), lo=0, hi=99)))
    for k in gods_obj:
        _side(k, path(where, "gods"))

    children = []
    ids: set[str] = set()
    for i, item in enumerate(get_list(obj, "children", where, default=[])):
        w = path(path(where, "children"), i)
        c = as_object(item, w)
        reject_unknown(c, {"id", "side", "aspect", "hex"}, w)
        side = _side(c.get("side"), path(w, "side"))
        cid = _child_id(c.get("id", f"{side.prefix}{i + 1}"), path(w, "id"))
        if cid in ids:
            raise FormatError(path(w, "id"), f"two children share the id {cid!r}")
        ids.add(cid)
        children.append(Child(cid, side, _aspect(c.get("aspect"), path(w, "aspect")), _hex(c.get("hex"), path(w, "hex"))))

    def side_lists(key: str) -> tuple[tuple[Side, str], ...]:
        o = get_object(obj, key, where, default={})
        out = []
        for k, v in o.items():
            side = _side(k, path(where, key))
            for j, item in enumerate(as_list(v, path(path(where, key), k))):
                cid = _child_id(item, path(path(path(where, key), k), j))
                if cid in ids:
                    raise FormatError(path(path(path(where, key), k), j), f"{cid!r} is also on the map")
                ids.add(cid)
                out.append((side, cid))
        return tuple(out)

    under = side_lists("under_tower")
    lost = side_lists("lost")
    for side in Side:
        count = sum(1 for c in children if c.side is side) + sum(1 for s, _ in under + lost if s is side)
        if count > options.children_per_side:
            raise FormatError(
                path(where, "children"),
                f"{side.title} has {count} children; each side has {options.children_per_side}",
            )
    tt = get_object(obj, "this_turn", where, default={})
    wt = path(where, "this_turn")
    reject_unknown(tt, {"moved", "god_attacked", "obstacles_used", "god_transforms_used", "god_moved"}, wt)
    moved_ids = get_list(tt, "moved", wt, default=[])
    for j, m in enumerate(moved_ids):
        if _child_id(m, path(path(wt, "moved"), j)) not in ids:
            raise FormatError(path(path(wt, "moved"), j), f"no child {m!r} in this position")
    moved = frozenset(moved_ids)
    obst = get_object(tt, "obstacles_used", wt, default={})
    obstacles = tuple(sorted((_hex(k, path(wt, "obstacles_used")), get_int(obst, k, path(wt, "obstacles_used"), lo=0)) for k in obst))
    combats = tuple(_hex(h, path(path(where, "combats"), j)) for j, h in enumerate(get_list(obj, "combats", where, default=[])))
    combat = None
    if obj.get("combat") is not None:
        wc = path(where, "combat")
        co = as_object(obj["combat"], wc)
        reject_unknown(co, {"hex", "against_god", "rounds", "quiet_rounds", "chosen"}, wc)
        chosen = get_object(co, "chosen", wc, default={})
        pending = []
        for k, v in chosen.items():
            side = _side(k, path(wc, "chosen"))
            if v == "hidden":
                pending.append((side, None))
            else:
                pending.append((side, tuple(_aspect(a, path(path(path(wc, "chosen"), k), j)) for j, a in enumerate(as_list(v, path(path(wc, "chosen"), k))))))
        combat = Combat(
            _hex(co.get("hex"), path(wc, "hex")),
            against_god=get_bool(co, "against_god", wc, default=False),
            rounds=get_int(co, "rounds", wc, default=0, lo=0),
            quiet_rounds=get_int(co, "quiet_rounds", wc, default=0, lo=0),
            pending=tuple(pending),
        )
    if phase is Phase.COMBAT and combat is None:
        if not combats:
            raise FormatError(path(where, "combat"), "a position in the combat phase needs the combat being fought")
        combat = Combat(combats[0])
    if combat is not None and not combats:
        combats = (combat.hex,)
    return Position(
        phase=phase,
        active=active,
        turn=turn,
        first_setup=first,
        ends=ends,
        towers=towers,
        gods=(gods[0], gods[1]),
        children=sort_children(children),
        under_tower=by_side(under),
        lost=by_side(lost),
        moved=moved,
        god_attacked=get_bool(tt, "god_attacked", wt, default=False),
        obstacles_used=obstacles,
        god_transforms_used=get_int(tt, "god_transforms_used", wt, default=0, lo=0),
        god_moved=get_bool(tt, "god_moved", wt, default=False),
        combats=combats,
        combat=combat,
        drawn=get_bool(obj, "drawn", where, default=False),
    )


def check_on_map(
    p: Position, board: OneWorldMap, stacking_limit: int, where: str = "position", moving_towers: bool = False
) -> None:
    """Refuse positions that put pieces where the map has no hex or break stacking.

    A Tower stands on one of the map's Tower hexes, or anywhere on the map's edge when the
    Towers move (Moving Towers of Balance).
    """
    for i, c in enumerate(p.children):
        if c.hex not in board.cells:
            raise FormatError(f"{where}.children[{i}].hex", f"{c.id} is at {c.hex}, which is not on the map (Chaos)")
    for j, h in enumerate(p.combats):
        if h not in board.cells:
            raise FormatError(f"{where}.combats[{j}]", f"{h} is not on the map")
    if p.combat is not None and p.combat.hex not in board.cells:
        raise FormatError(f"{where}.combat.hex", f"{p.combat.hex} is not on the map")
    for h, _ in p.obstacles_used:
        if h not in board.cells:
            raise FormatError(f"{where}.this_turn.obstacles_used", f"{h} is not on the map")
    stacks = Counter((c.hex, c.side) for c in p.children)
    for (h, side), n in sorted(stacks.items(), key=lambda kv: (kv[0][0], kv[0][1].value)):
        if n > stacking_limit:
            raise FormatError(
                f"{where}.children", f"{n} {side.title} children share {h}; the stacking limit is {stacking_limit}"
            )
    for g in p.gods:
        if g.hex is not None and g.hex not in board.cells:
            raise FormatError(f"{where}.gods.{g.side.value}.hex", f"{g.hex} is not on the map")
    if len(p.towers) == 2 and p.towers[0][1] == p.towers[1][1]:
        raise FormatError(f"{where}.towers", f"both Towers are on {p.towers[0][1]}")
    for s, h in p.towers:
        if moving_towers and h in board.edge_ring():
            continue
        if h not in board.tower_hexes():
            where_ok = "a Tower hex or an edge hex" if moving_towers else "a Tower hex"
            raise FormatError(f"{where}.towers.{s.value}", f"{h} is not {where_ok} of this map")


# -- actions ---------------------------------------------------------------------------


def action_to_json(a: Action) -> dict[str, Any]:
    if isinstance(a, SetUp):
        out: dict[str, Any] = {
            "type": "setup",
            "side": a.side.value,
            "god": a.god.label(),
            "children": [{"hex": h.label(), "aspect": asp.value} for h, asp in a.children],
        }
        if a.end is not None:
            out["end"] = a.end.value
        return out
    if isinstance(a, ChooseTower):
        return {"type": "tower", "side": a.side.value, "hex": a.hex.label()}
    if isinstance(a, Move):
        out = {"type": "move", "piece": a.piece, "to": a.to.label()}
        if a.path:
            out["path"] = [h.label() for h in a.path]
        return out
    if isinstance(a, EndMovement):
        return {"type": "end-movement", "side": a.side.value}
    if isinstance(a, Transform):
        return {"type": "transform", "side": a.side.value, "hex": a.hex.label(), "aspects": [x.value for x in a.aspects]}
    if isinstance(a, GodTransform):
        return {"type": "god-transform", "side": a.side.value, "piece": a.piece, "aspect": a.aspect.value}
    if isinstance(a, GodMove):
        return {"type": "god-move", "side": a.side.value, "to": a.to.label()}
    raise TypeError(a)


_ACTION_FIELDS = {
    "setup": {"type", "side", "god", "children", "end"},
    "tower": {"type", "side", "hex"},
    "move": {"type", "piece", "to", "path"},
    "end-movement": {"type", "side"},
    "transform": {"type", "side", "hex", "aspects"},
    "god-transform": {"type", "side", "piece", "aspect"},
    "god-move": {"type", "side", "to"},
}


def action_from_json(data: Any, where: str = "action") -> Action:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    if kind not in _ACTION_FIELDS:
        raise FormatError(path(where, "type"), f"unknown action type {kind!r} (known: {', '.join(_ACTION_FIELDS)})")
    reject_unknown(obj, _ACTION_FIELDS[kind], where)

    def side() -> Side:
        return _side(obj.get("side"), path(where, "side"))

    if kind == "setup":
        items = get_list(obj, "children", where)
        children = []
        for i, item in enumerate(items):
            w = path(path(where, "children"), i)
            c = as_object(item, w)
            reject_unknown(c, {"hex", "aspect"}, w)
            children.append((_hex(c.get("hex"), path(w, "hex")), _aspect(c.get("aspect"), path(w, "aspect"))))
        end = parse_enum(obj["end"], End, path(where, "end")) if obj.get("end") is not None else None
        return SetUp(side(), _hex(obj.get("god"), path(where, "god")), tuple(children), end)
    if kind == "tower":
        return ChooseTower(side(), _hex(obj.get("hex"), path(where, "hex")))
    if kind == "move":
        piece = get_str(obj, "piece", where)
        to = _hex(obj.get("to"), path(where, "to"))
        steps = tuple(_hex(h, path(path(where, "path"), i)) for i, h in enumerate(get_list(obj, "path", where, default=[])))
        return Move(piece, to, steps)
    if kind == "end-movement":
        return EndMovement(side())
    if kind == "transform":
        aspects = tuple(_aspect(x, path(path(where, "aspects"), i)) for i, x in enumerate(get_list(obj, "aspects", where)))
        return Transform(side(), _hex(obj.get("hex"), path(where, "hex")), aspects)
    if kind == "god-transform":
        return GodTransform(side(), get_str(obj, "piece", where), _aspect(obj.get("aspect"), path(where, "aspect")))
    return GodMove(side(), _hex(obj.get("to"), path(where, "to")))

"""JSON for The Game's states and actions (formats in docs/games/the-game.md).

Every reader raises :class:`~rules.errors.FormatError` naming the field path, e.g.
``position.pieces[2].at.x``.

>>> opts = TheGameOptions()
>>> action_from_json({"type": "move", "piece": "R1", "to": {"x": 4, "y": 9.5}}, opts)
Move(piece='R1', to=FieldPoint(x=4.0, y=9.5), facing=None)
>>> action_from_json({"type": "act", "piece": "R1"}, opts)
Traceback (most recent call last):
...
rules.errors.FormatError: action.target: missing
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.errors import FormatError
from rules.geometry import FieldPoint
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_float,
    get_int,
    get_str,
    parse_enum,
    path,
    reject_unknown,
    require,
)
from rules.the_game.model import (
    Act,
    Action,
    Departure,
    Exit,
    Handover,
    Knockdown,
    Move,
    Pass,
    Phase,
    Piece,
    PieceSpec,
    Presence,
    Response,
    SequenceRecord,
    Setup,
    Split,
    SplitStage,
    Stay,
    Take,
    TheGameState,
)
from rules.the_game.options import TheGameOptions, footprint_from_json, point_from_json

__all__ = ["state_to_json", "state_from_json", "action_to_json", "action_from_json"]


def _pt(p: FieldPoint) -> dict[str, float]:
    return {"x": p.x, "y": p.y}


def _name(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = get_str(obj, key, where)
    if not value.strip():
        raise FormatError(path(where, key), "must not be empty")
    return value


def _player(obj: Mapping[str, Any], key: str, where: str, opts: TheGameOptions) -> str:
    value = get_str(obj, key, where)
    if value not in opts.sides:
        raise FormatError(path(where, key),
                          f"unknown player {value!r} (players: {', '.join(opts.sides)})")
    return value


def _angle(obj: Mapping[str, Any], key: str, where: str) -> float:
    value = get_float(obj, key, where)
    if not math.isfinite(value):
        raise FormatError(path(where, key), "a facing must be a finite number of degrees")
    return value


def _names(data: Any, where: str) -> tuple[str, ...]:
    items = as_list(data, where)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item:
            raise FormatError(path(where, i), f"expected a piece name, got {item!r}")
        out.append(item)
    return tuple(out)


# -- actions ----------------------------------------------------------------------------
def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Setup):
        return {"type": "setup", "first": action.first,
                "pieces": [_spec_to_json(s) for s in action.pieces]}
    if isinstance(action, Move):
        out: dict[str, Any] = {"type": "move", "piece": action.piece, "to": _pt(action.to)}
        if action.facing is not None:
            out["facing"] = action.facing
        return out
    if isinstance(action, Act):
        out = {"type": "act", "piece": action.piece, "target": action.target}
        if action.to is not None:
            out["to"] = _pt(action.to)
        return out
    if isinstance(action, (Exit, Stay)):
        return {"type": "exit" if isinstance(action, Exit) else "stay", "piece": action.piece}
    if isinstance(action, Pass):
        return {"type": "pass", "player": action.player}
    if isinstance(action, (Split, Take)):
        kind = "split" if isinstance(action, Split) else "take"
        return {"type": kind, "player": action.player, "group": list(action.group)}
    raise TypeError(f"not an action of The Game: {action!r}")


_ACTION_FIELDS = {
    "setup": {"type", "first", "pieces"},
    "move": {"type", "piece", "to", "facing"},
    "exit": {"type", "piece"},
    "stay": {"type", "piece"},
    "pass": {"type", "player"},
    "act": {"type", "piece", "target", "to"},
    "split": {"type", "player", "group"},
    "take": {"type", "player", "group"},
}


def action_from_json(data: Any, opts: TheGameOptions, where: str = "action") -> Action:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    if kind not in _ACTION_FIELDS:
        raise FormatError(path(where, "type"), f"unknown action type {kind!r} (known types: "
                          f"{', '.join(sorted(_ACTION_FIELDS))})")
    reject_unknown(obj, _ACTION_FIELDS[kind], where)
    if kind == "setup":
        specs = as_list(require(obj, "pieces", where), path(where, "pieces"))
        return Setup(tuple(_spec_from_json(s, path(path(where, "pieces"), i))
                           for i, s in enumerate(specs)),
                     _player(obj, "first", where, opts))
    if kind == "move":
        to = point_from_json(require(obj, "to", where), path(where, "to"))
        facing = _angle(obj, "facing", where) if obj.get("facing") is not None else None
        return Move(_name(obj, "piece", where), to, facing)
    if kind == "act":
        piece, target = _name(obj, "piece", where), _name(obj, "target", where)
        to = point_from_json(obj["to"], path(where, "to")) if obj.get("to") is not None else None
        return Act(piece, target, to)
    if kind == "exit":
        return Exit(_name(obj, "piece", where))
    if kind == "stay":
        return Stay(_name(obj, "piece", where))
    if kind == "pass":
        return Pass(_player(obj, "player", where, opts))
    group = _names(require(obj, "group", where), path(where, "group"))
    player = _player(obj, "player", where, opts)
    return Split(player, group) if kind == "split" else Take(player, group)


def _spec_to_json(spec: PieceSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"id": spec.id, "side": spec.side, "at": _pt(spec.at),
                           "facing": spec.facing}
    if spec.footprint is not None:
        out["footprint"] = spec.footprint.to_json()
    return out


def _spec_from_json(data: Any, where: str) -> PieceSpec:
    obj = as_object(data, where)
    reject_unknown(obj, {"id", "side", "at", "facing", "footprint"}, where)
    footprint = None
    if obj.get("footprint") is not None:
        footprint = footprint_from_json(obj["footprint"], path(where, "footprint"))
    return PieceSpec(_name(obj, "id", where), _name(obj, "side", where),
                     point_from_json(require(obj, "at", where), path(where, "at")),
                     _angle(obj, "facing", where), footprint)


# -- states -----------------------------------------------------------------------------
def _piece_to_json(p: Piece) -> dict[str, Any]:
    return {"id": p.id, "side": p.side, "controller": p.controller, "at": _pt(p.at),
            "facing": p.facing, "footprint": p.footprint.to_json(),
            "presence": p.presence.value, "idle": p.idle, "busy": p.busy, "done": p.done}


#: Rounding room (inches) for a centre computed on the edge, e.g. where a piece walked off.
_EDGE_SLACK = 1e-6

_PIECE_FIELDS = {"id", "side", "controller", "at", "facing", "footprint", "presence", "idle",
                 "busy", "done"}


def _piece_from_json(data: Any, where: str, opts: TheGameOptions) -> Piece:
    obj = as_object(data, where)
    reject_unknown(obj, _PIECE_FIELDS, where)
    side = _player(obj, "side", where, opts)
    controller = _player(obj, "controller", where, opts) if "controller" in obj else side
    footprint = opts.footprint
    if "footprint" in obj:
        footprint = footprint_from_json(obj["footprint"], path(where, "footprint"))
    presence = Presence.IN_PLAY
    if "presence" in obj:
        presence = parse_enum(obj["presence"], Presence, path(where, "presence"))
    at = point_from_json(require(obj, "at", where), path(where, "at"))
    slack = opts.tolerance + _EDGE_SLACK
    if not (-slack <= at.x <= opts.field_width + slack
            and -slack <= at.y <= opts.field_depth + slack):
        raise FormatError(path(where, "at"), f"({at.x:g}, {at.y:g}) is off the "
                          f"{opts.field_width:g} x {opts.field_depth:g} field")
    return Piece(
        _name(obj, "id", where), side, controller, at,
        _angle(obj, "facing", where) % 360.0, footprint, presence,
        get_int(obj, "idle", where, 0, lo=0, hi=10_000),
        get_bool(obj, "busy", where, False), get_bool(obj, "done", where, False),
    )


def _record_to_json(r: SequenceRecord) -> dict[str, Any]:
    return {
        "sequence": r.number, "first": r.first, "turns": r.turns,
        "knockdowns": [{"piece": k.piece, "by": k.by, "player": k.player} for k in r.knockdowns],
        "departures": [{"piece": d.piece, "player": d.player} for d in r.departures],
        "handovers": [{"splitter": h.splitter, "receiver": h.receiver, "pieces": list(h.pieces)}
                      for h in r.handovers],
        "last_piece": r.last_piece,
    }


def _record_from_json(data: Any, where: str, opts: TheGameOptions) -> SequenceRecord:
    obj = as_object(data, where)
    reject_unknown(obj, {"sequence", "first", "turns", "knockdowns", "departures", "handovers",
                         "last_piece"}, where)

    def each(key: str) -> list[tuple[Mapping[str, Any], str]]:
        items = as_list(obj.get(key, []), path(where, key))
        return [(as_object(item, path(path(where, key), i)), path(path(where, key), i))
                for i, item in enumerate(items)]

    knockdowns = []
    for o, w in each("knockdowns"):
        reject_unknown(o, {"piece", "by", "player"}, w)
        knockdowns.append(Knockdown(_name(o, "piece", w), _name(o, "by", w),
                                    _player(o, "player", w, opts)))
    departures = []
    for o, w in each("departures"):
        reject_unknown(o, {"piece", "player"}, w)
        departures.append(Departure(_name(o, "piece", w), _player(o, "player", w, opts)))
    handovers = []
    for o, w in each("handovers"):
        reject_unknown(o, {"splitter", "receiver", "pieces"}, w)
        handovers.append(Handover(_player(o, "splitter", w, opts), _player(o, "receiver", w, opts),
                                  _names(require(o, "pieces", w), path(w, "pieces"))))
    last = obj.get("last_piece")
    if last is not None and not isinstance(last, str):
        raise FormatError(path(where, "last_piece"), f"expected a piece name or null, got {last!r}")
    return SequenceRecord(
        get_int(obj, "sequence", where, lo=1, hi=opts.sequences),
        _player(obj, "first", where, opts),
        get_int(obj, "turns", where, 1, lo=0), tuple(knockdowns), tuple(departures),
        tuple(handovers), last,
    )


def state_to_json(state: TheGameState) -> dict[str, Any]:
    return {
        "sequence": state.sequence,
        "phase": state.phase.value,
        "turn": state.turn,
        "first": state.first,
        "next": state.next_player,
        "pieces": [_piece_to_json(p) for p in state.pieces],
        "response": None if state.response is None else
        {"responder": state.response.responder, "actor": state.response.actor},
        "split": None if state.split is None else
        {"splitter": state.split.splitter,
         "offer": None if state.split.offer is None else list(state.split.offer)},
        "record": None if state.record is None else _record_to_json(state.record),
        "records": [_record_to_json(r) for r in state.records],
    }


_STATE_FIELDS = {"sequence", "phase", "turn", "first", "next", "pieces", "response", "split",
                 "record", "records"}


def state_from_json(data: Any, opts: TheGameOptions, where: str = "position") -> TheGameState:
    obj = as_object(data, where)
    reject_unknown(obj, _STATE_FIELDS, where)
    phase = parse_enum(get_str(obj, "phase", where, "setup"), Phase, path(where, "phase"))
    items = as_list(obj.get("pieces", []), path(where, "pieces"))
    pieces = tuple(_piece_from_json(p, path(path(where, "pieces"), i), opts)
                   for i, p in enumerate(items))
    ids = [p.id for p in pieces]
    for i, pid in enumerate(ids):
        if pid in ids[:i]:
            raise FormatError(path(path(path(where, "pieces"), i), "id"),
                              f"two pieces are called {pid!r}")
    first = _optional_player(obj, "first", where, opts)
    nxt = _optional_player(obj, "next", where, opts)
    if phase in (Phase.MOVEMENT, Phase.ACTION):
        if first is None:
            raise FormatError(path(where, "first"), "who goes first must be given once play is on")
        if nxt is None:
            raise FormatError(path(where, "next"), "whose go it is must be given once play is on")
    response = _response(obj.get("response"), path(where, "response"), pieces)
    split = _split(obj.get("split"), path(where, "split"), opts, pieces)
    record = None
    if obj.get("record") is not None:
        record = _record_from_json(obj["record"], path(where, "record"), opts)
    records = tuple(_record_from_json(r, path(path(where, "records"), i), opts)
                    for i, r in enumerate(as_list(obj.get("records", []), path(where, "records"))))
    sequence = get_int(obj, "sequence", where, 1, lo=1, hi=opts.sequences)
    if len(records) != sequence - 1 + (1 if phase is Phase.OVER else 0):
        raise FormatError(path(where, "records"), f"sequence {sequence} ({phase.value}) needs "
                          "a record for each finished sequence")
    return TheGameState(sequence, phase, get_int(obj, "turn", where, 0, lo=0), first, nxt,
                        pieces, response, split, record, records)


def _optional_player(obj: Mapping[str, Any], key: str, where: str,
                     opts: TheGameOptions) -> str | None:
    return None if obj.get(key) is None else _player(obj, key, where, opts)


def _response(data: Any, where: str, pieces: tuple[Piece, ...]) -> Response | None:
    if data is None:
        return None
    obj = as_object(data, where)
    reject_unknown(obj, {"responder", "actor"}, where)
    ids = {p.id for p in pieces}
    names = []
    for key in ("responder", "actor"):
        name = _name(obj, key, where)
        if name not in ids:
            raise FormatError(path(where, key), f"no piece is called {name!r}")
        names.append(name)
    return Response(names[0], names[1])


def _split(data: Any, where: str, opts: TheGameOptions,
           pieces: tuple[Piece, ...]) -> SplitStage | None:
    if data is None:
        return None
    obj = as_object(data, where)
    reject_unknown(obj, {"splitter", "offer"}, where)
    offer = None
    if obj.get("offer") is not None:
        offer = _names(obj["offer"], path(where, "offer"))
        ids = {p.id for p in pieces}
        for i, name in enumerate(offer):
            if name not in ids:
                raise FormatError(path(path(where, "offer"), i), f"no piece is called {name!r}")
    return SplitStage(_player(obj, "splitter", where, opts), offer)

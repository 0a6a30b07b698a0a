"""JSON forms of Battle Grounds states and actions, read with field-naming errors.

>>> from rules.battle_grounds.options import BattleGroundsOptions
>>> table = Table(BattleGroundsOptions())
>>> action_from_json(table, {"type": "move", "piece": "hulk", "from": "c7", "to": "c5"})
Move(piece='hulk', frm=Square(x=2, y=6), to=Square(x=2, y=4))
>>> action_from_json(table, {"type": "move", "piece": "hulk", "from": "c7"})
Traceback (most recent call last):
...
rules.errors.FormatError: action.to: missing
"""

from __future__ import annotations

from typing import Any

from rules.battle_grounds.board import label, parse_label
from rules.battle_grounds.roster import PLAYERS, Stat, opponent
from rules.battle_grounds.state import (
    HIDDEN,
    PLAY,
    SETUP,
    Action,
    Battle,
    BattleMode,
    ChooseStat,
    FollowUp,
    FollowUpKind,
    Hidden,
    Hypnotize,
    Move,
    Pass,
    PickDie,
    Place,
    ReadDie,
    Skip,
    State,
    Swap,
)
from rules.battle_grounds.table import Table
from rules.errors import FormatError
from rules.geometry import Square
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
    require,
)

__all__ = ["state_to_json", "state_from_json", "action_to_json", "action_from_json"]

_STATE_KEYS = {
    "phase", "to_play", "turn", "passes", "board", "hypnotized", "holding",
    "dice_zone", "dice_read", "battle", "pending",
}  # fmt: skip


# -- states ------------------------------------------------------------------------------
def state_to_json(table: Table, state: State) -> dict[str, Any]:
    def dice(sets: tuple[frozenset[str], frozenset[str]], owner_of: Any) -> dict[str, list[str]]:
        return {
            p: [d.name for d in table.roster.dice_of(owner_of(p)) if d.name in sets[i]]
            for i, p in enumerate(PLAYERS)
        }

    return {
        "phase": state.phase,
        "to_play": state.to_play,
        "turn": state.turn,
        "passes": state.passes,
        "board": {label(sq): fig for sq, fig in state.board},
        "hypnotized": sorted(state.hypnotized),
        "holding": {p: list(state.holding[i]) for i, p in enumerate(PLAYERS)},
        "dice_zone": dice(state.dice_zone, lambda p: p),
        "dice_read": dice(state.dice_read, opponent),
        "battle": _battle_to_json(state.battle),
        "pending": [_followup_to_json(f) for f in state.pending],
    }


def _battle_to_json(battle: Battle | None) -> dict[str, Any] | None:
    if battle is None:
        return None

    def stat(value: Stat | Hidden | None) -> str | None:
        return None if value is None else value.value

    return {
        "attacker": battle.attacker,
        "defender": battle.defender,
        "from": label(battle.origin),
        "to": label(battle.target),
        "mode": battle.mode.value,
        "chooser": battle.chooser,
        "attacker_stat": stat(battle.attacker_stat),
        "defender_stat": stat(battle.defender_stat),
    }


def _followup_to_json(item: FollowUp) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": item.kind.value, "player": item.player}
    if item.figure is not None:
        out["figure"] = item.figure
    return out


def state_from_json(table: Table, data: Any, where: str = "position") -> State:
    """Read a state and check it can happen: every figure known and in one place only."""
    obj = as_object(data, where)
    reject_unknown(obj, _STATE_KEYS, where)
    phase = get_str(obj, "phase", where)
    if phase not in (SETUP, PLAY):
        raise FormatError(path(where, "phase"), f"unknown phase {phase!r} (expected setup or play)")
    to_play = _player(obj.get("to_play"), path(where, "to_play"))
    seen: dict[str, str] = {}

    def claim(fig: Any, field: str) -> str:
        if not isinstance(fig, str):
            raise FormatError(field, f"expected a figure id, got {fig!r}")
        if table.roster.get(fig) is None:
            raise FormatError(field, f"no figure {fig!r} on the roster")
        if fig in seen:
            raise FormatError(field, f"{fig} is already at {seen[fig]}")
        seen[fig] = field
        return fig

    board_where = path(where, "board")
    board_obj = get_object(obj, "board", where)
    at: dict[Square, str] = {}
    for key, fig in board_obj.items():
        square = parse_label(key, path(board_where, key))
        if not table.board.on_board(square):
            raise FormatError(
                path(board_where, key),
                f"{key} is off the {table.board.width}x{table.board.height} board",
            )
        at[square] = claim(fig, path(board_where, key))
    hyp_where = path(where, "hypnotized")
    hypnotized = frozenset(_strings(obj, "hypnotized", where))
    for i, fig in enumerate(_strings(obj, "hypnotized", where)):
        if fig not in at.values():
            raise FormatError(
                path(hyp_where, i), f"{fig!r} is not on the board, so it cannot be hypnotized"
            )
    holding = _per_player(
        obj, "holding", where, lambda p, items, w: tuple(_held(table, p, items, w, claim))
    )
    state = State(phase, to_play, tuple(sorted(at.items())), hypnotized, holding)  # type: ignore[arg-type]
    zones = _per_player(obj, "dice_zone", where, lambda p, items, w: _dice(table, p, p, items, w))
    read = _per_player(
        obj, "dice_read", where, lambda p, items, w: _dice(table, p, opponent(p), items, w)
    )
    for i, p in enumerate(PLAYERS):
        if len(zones[i]) > (table.dice_limit[p] if table.options.dice_zone else 0):
            raise FormatError(
                path(path(where, "dice_zone"), p), "more dice than the Dice Zone may hold"
            )
    battle = _battle_from_json(table, state, obj.get("battle"), path(where, "battle"))
    pending_raw = get_list(obj, "pending", where, [])
    pending = tuple(
        _followup_from_json(table, item, path(path(where, "pending"), i), claim)
        for i, item in enumerate(pending_raw)
    )
    cosmic_held = [f for held in holding for f in held if table.spec(f).cosmic]
    if len(cosmic_held) > 1:
        raise FormatError(path(where, "holding"), "only one Cosmic figure can be captured")
    if battle is not None and pending:
        raise FormatError(
            path(where, "pending"), "decisions cannot be owed while a battle waits for its stat"
        )
    if phase == SETUP:
        if battle is not None or pending or any(holding):
            raise FormatError(where, "during set-up there are no battles, captures or decisions")
        for sq, fig in at.items():
            slot = table.board.setup_slot(sq, table.owner(fig))
            spec = table.spec(fig)
            if (
                slot is None
                or (spec.cosmic and not slot.starred)
                or (not spec.cosmic and spec.level is not slot.level)
            ):
                raise FormatError(
                    path(board_where, label(sq)), f"{fig} cannot start on {label(sq)}"
                )
    turn = get_int(obj, "turn", where, 1, lo=1)
    passes = get_int(obj, "passes", where, 0, lo=0, hi=2)
    return state.evolve(
        dice_zone=zones, dice_read=read, battle=battle, pending=pending, turn=turn, passes=passes
    )


def _player(value: Any, where: str) -> str:
    if value not in PLAYERS:
        raise FormatError(where, f"unknown player {value!r} (expected south or north)")
    return str(value)


def _strings(obj: Any, key: str, where: str) -> list[str]:
    items = get_list(obj, key, where, [])
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise FormatError(path(path(where, key), i), f"expected a string, got {item!r}")
    return items


def _per_player(obj: Any, key: str, where: str, parse: Any) -> tuple[Any, Any]:
    field = path(where, key)
    raw = get_object(obj, key, where, {})
    reject_unknown(raw, set(PLAYERS), field)
    out = []
    for p in PLAYERS:
        items = as_list(raw.get(p, []), path(field, p))
        out.append(parse(p, items, path(field, p)))
    return out[0], out[1]


def _held(table: Table, player: str, items: list[Any], where: str, claim: Any) -> list[str]:
    out = []
    for i, fig in enumerate(items):
        fig = claim(fig, path(where, i))
        if table.owner(fig) == player:
            raise FormatError(
                path(where, i),
                f"{fig} belongs to {player}; a Holding Zone keeps only enemy figures",
            )
        out.append(fig)
    return out


def _dice(table: Table, player: str, owner: str, items: list[Any], where: str) -> frozenset[str]:
    names = {d.name for d in table.roster.dice_of(owner)}
    for i, name in enumerate(items):
        if not isinstance(name, str):
            raise FormatError(path(where, i), f"expected a Battle Die name, got {name!r}")
        if name not in names:
            raise FormatError(path(where, i), f"{owner} has no Battle Die named {name!r}")
    if len(set(items)) != len(items):
        raise FormatError(where, "a die is listed twice")
    return frozenset(items)


def _battle_from_json(table: Table, state: State, data: Any, where: str) -> Battle | None:
    if data is None:
        return None
    obj = as_object(data, where)
    reject_unknown(
        obj,
        {"attacker", "defender", "from", "to", "mode", "chooser", "attacker_stat", "defender_stat"},
        where,
    )
    origin = parse_label(require(obj, "from", where), path(where, "from"))
    target = parse_label(require(obj, "to", where), path(where, "to"))
    attacker, defender = get_str(obj, "attacker", where), get_str(obj, "defender", where)
    if state.at.get(origin) != attacker:
        raise FormatError(path(where, "attacker"), f"{attacker!r} is not on {label(origin)}")
    if state.at.get(target) != defender:
        raise FormatError(path(where, "defender"), f"{defender!r} is not on {label(target)}")
    if (
        table.controller(state, attacker) != state.to_play
        or table.controller(state, defender) == state.to_play
    ):
        raise FormatError(
            where, "the attacker must fight for the player to move and the defender for the other"
        )
    mode = parse_enum(obj.get("mode"), BattleMode, path(where, "mode"))
    if mode is BattleMode.FIXED:
        raise FormatError(path(where, "mode"), "a battle with a fixed stat never waits")
    chooser = obj.get("chooser")
    stats: list[Stat | Hidden | None] = []
    for key in ("attacker_stat", "defender_stat"):
        value = obj.get(key)
        if value is None:
            stats.append(None)
        elif value == HIDDEN.value:
            stats.append(HIDDEN)
        else:
            stats.append(parse_enum(value, Stat, path(where, key)))
    if mode is BattleMode.EACH_CHOOSES:
        if chooser is not None:
            raise FormatError(
                path(where, "chooser"), "when each player chooses there is no single chooser"
            )
        if stats[0] is not None and stats[1] is not None:
            raise FormatError(where, "both stats are chosen, so the battle would already be fought")
    else:
        chooser = _player(chooser, path(where, "chooser"))
        if any(s is not None for s in stats):
            raise FormatError(where, "own stats are only recorded when each player chooses")
        if mode is BattleMode.DEFENDER_CHOOSES and chooser != table.controller(state, defender):
            raise FormatError(
                path(where, "chooser"), "on an all-colour square the defender chooses"
            )
    return Battle(attacker, defender, origin, target, mode, chooser, stats[0], stats[1])


def _followup_from_json(table: Table, data: Any, where: str, claim: Any) -> FollowUp:
    obj = as_object(data, where)
    reject_unknown(obj, {"kind", "player", "figure"}, where)
    kind = parse_enum(obj.get("kind"), FollowUpKind, path(where, "kind"))
    player = _player(obj.get("player"), path(where, "player"))
    if kind is not FollowUpKind.RETURN:
        if "figure" in obj:
            raise FormatError(path(where, "figure"), f"a {kind.value} decision names no figure")
        return FollowUp(kind, player)
    fig = claim(require(obj, "figure", where), path(where, "figure"))
    if table.owner(fig) != player:
        raise FormatError(path(where, "figure"), f"{fig} goes back to its owner, not to {player}")
    return FollowUp(kind, player, fig)


# -- actions -----------------------------------------------------------------------------
def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Place):
        return {"type": "place", "piece": action.piece, "square": label(action.square)}
    if isinstance(action, Move):
        return {
            "type": "move",
            "piece": action.piece,
            "from": label(action.frm),
            "to": label(action.to),
        }
    if isinstance(action, Swap):
        return {"type": "swap", "piece": action.piece, "with": action.other, "power": action.power}
    if isinstance(action, Hypnotize):
        return {
            "type": "hypnotize",
            "piece": action.piece,
            "captive": action.captive,
            "square": label(action.square),
        }
    if isinstance(action, ChooseStat):
        return {"type": "choose-stat", "player": action.player, "stat": action.stat.value}
    if isinstance(action, PickDie):
        out: dict[str, Any] = {"type": "pick-die", "player": action.player, "die": action.die}
        if action.swap_out is not None:
            out["swap_out"] = action.swap_out
        return out
    if isinstance(action, ReadDie):
        return {"type": "read-die", "player": action.player, "die": action.die}
    if isinstance(action, Skip):
        return {"type": "skip", "player": action.player}
    if isinstance(action, Pass):
        return {"type": "pass", "player": action.player}
    raise TypeError(f"not a Battle Grounds action: {action!r}")


_ACTION_KEYS = {
    "place": {"piece", "square"},
    "move": {"piece", "from", "to"},
    "swap": {"piece", "with", "power"},
    "hypnotize": {"piece", "captive", "square"},
    "choose-stat": {"player", "stat"},
    "pick-die": {"player", "die", "swap_out"},
    "read-die": {"player", "die"},
    "skip": {"player"},
    "pass": {"player"},
}


def action_from_json(table: Table, data: Any, where: str = "action") -> Action:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    if kind not in _ACTION_KEYS:
        raise FormatError(
            path(where, "type"),
            f"unknown action type {kind!r} (expected one of: {', '.join(_ACTION_KEYS)})",
        )
    reject_unknown(obj, _ACTION_KEYS[kind] | {"type"}, where)

    def square(key: str) -> Square:
        return parse_label(require(obj, key, where), path(where, key))

    def player() -> str:
        return _player(require(obj, "player", where), path(where, "player"))

    if kind == "place":
        return Place(get_str(obj, "piece", where), square("square"))
    if kind == "move":
        return Move(get_str(obj, "piece", where), square("from"), square("to"))
    if kind == "swap":
        return Swap(
            get_str(obj, "piece", where), get_str(obj, "with", where), get_str(obj, "power", where)
        )
    if kind == "hypnotize":
        return Hypnotize(
            get_str(obj, "piece", where), get_str(obj, "captive", where), square("square")
        )
    if kind == "choose-stat":
        who = player()
        return ChooseStat(who, parse_enum(require(obj, "stat", where), Stat, path(where, "stat")))
    if kind == "pick-die":
        who = player()
        swap_out = obj.get("swap_out")
        if swap_out is not None and not isinstance(swap_out, str):
            raise FormatError(
                path(where, "swap_out"), f"expected a die name or null, got {swap_out!r}"
            )
        return PickDie(who, get_str(obj, "die", where), swap_out)
    if kind == "read-die":
        who = player()
        return ReadDie(who, get_str(obj, "die", where))
    if kind == "skip":
        return Skip(player())
    return Pass(player())

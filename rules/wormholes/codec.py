"""JSON for Wormholes states and actions (see docs/games/wormholes.md for the formats).

Cells are written ``"x,y"``; values are whole numbers 0..5 (0 is the null face). Every
malformed input raises :class:`~rules.errors.FormatError` naming the field.

>>> parse_square("7,1", "action.to")
Square(x=7, y=1)
>>> parse_square("7-1", "action.to")
Traceback (most recent call last):
...
rules.errors.FormatError: action.to: expected a cell written 'x,y' such as '7,1', got '7-1'
>>> action_to_json(action_from_json({"type": "move", "ship": "suns", "to": "7,1"}))
{'type': 'move', 'ship': 'suns', 'to': '7,1'}
"""

from __future__ import annotations

from typing import Any

from rules.errors import FormatError
from rules.geometry import Square
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_list,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
    require,
)
from rules.wormholes.board import (
    BASE_CELLS,
    CELLS,
    LENGTH,
    MAX_VALUE,
    PLAYERS,
    WIDTH,
    Suit,
    owner,
)
from rules.wormholes.model import (
    HIDDEN,
    SUIT_ORDER,
    Action,
    Activate,
    ChooseJump,
    ChooseOrder,
    ChooseSend,
    Coin,
    Jump,
    Move,
    Phase,
    Place,
    Rest,
    Reveal,
    Roll,
    RollOff,
    Send,
    Ship,
    Stay,
    Task,
    WormholesState,
)

__all__ = [
    "parse_square",
    "square_json",
    "state_to_json",
    "state_from_json",
    "action_to_json",
    "action_from_json",
]

COINS_PER_SUIT = MAX_VALUE + 1


def square_json(cell: Square) -> str:
    return f"{cell.x},{cell.y}"


def parse_square(data: Any, where: str) -> Square:
    """A cell from ``"x,y"`` (whole numbers); whether it is on the board is checked elsewhere."""
    if isinstance(data, str):
        parts = data.split(",")
        if len(parts) == 2 and all(p.strip().lstrip("-").isdigit() for p in parts):
            try:
                return Square(int(parts[0]), int(parts[1]))
            except ValueError:  # digits int() does not read ('²'), or a sign twice ('--5')
                pass
    raise FormatError(where, f"expected a cell written 'x,y' such as '7,1', got {data!r}")


def _board_cell(data: Any, where: str) -> Square:
    cell = parse_square(data, where)
    if cell not in CELLS:
        raise FormatError(where, f"{cell} is not a cell of the galaxy")
    return cell


def _grid_cell(data: Any, where: str) -> Square:
    """A cell of the 10 x 18 grid; whether the galaxy covers it is for the rules to say."""
    cell = parse_square(data, where)
    if not (1 <= cell.x <= WIDTH and 1 <= cell.y <= LENGTH):
        raise FormatError(where, f"{cell} is outside the {WIDTH} x {LENGTH} grid")
    return cell


def _player(data: Any, where: str, allow_none: bool = False) -> str | None:
    if data is None and allow_none:
        return None
    if data not in PLAYERS:
        raise FormatError(where, f"expected 'orthogonaliens' or 'diagonaliens', got {data!r}")
    return str(data)


def _player_at(obj: Any, key: str, where: str) -> str:
    """The player named by the required field ``key``."""
    return str(_player(require(obj, key, where), path(where, key)))


def _value(data: Any, where: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int) or not 0 <= data <= MAX_VALUE:
        raise FormatError(where, f"expected a value 0..{MAX_VALUE} (0 is null), got {data!r}")
    return data


def _count(data: Any, where: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int) or not 0 <= data <= COINS_PER_SUIT:
        raise FormatError(where, f"expected a count 0..{COINS_PER_SUIT}, got {data!r}")
    return data


def _suit_map(data: Any, where: str, read: Any) -> dict[Suit, Any]:
    obj = as_object(data, where)
    out: dict[Suit, Any] = {}
    for key, value in obj.items():
        suit = parse_enum(key, Suit, path(where, key))
        out[suit] = read(value, path(where, key))
    return out


# -- state -----------------------------------------------------------------------------
_STATE_FIELDS = frozenset(
    {"phase", "player", "first_placer", "ships", "coins", "hand", "idle", "dice", "pending",
     "winner", "reason"}
)


def state_to_json(state: WormholesState) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "player": state.player,
        "first_placer": state.first_placer,
        "ships": {
            s.suit.value: {"at": square_json(s.at), "skip_next": s.skip_next} for s in state.ships
        },
        "coins": [
            {
                "at": square_json(cell),
                "suit": coin.suit.value,
                "value": coin.value,
                "seen": coin.seen,
                "up": "value" if coin.value_up else "suit",
            }
            for cell, coin in state.coins
        ],
        "hand": {s.value: state.in_hand(s) for s in SUIT_ORDER},
        "idle": [s.value for s in state.idle],
        "dice": {s.value: v for s, v in state.dice},
        "pending": [_task_to_json(t) for t in state.tasks],
        "winner": state.winner,
        "reason": state.reason,
    }


def state_from_json(data: Any, where: str = "position") -> WormholesState:
    obj = as_object(data, where)
    reject_unknown(obj, _STATE_FIELDS, where)
    phase = parse_enum(require(obj, "phase", where), Phase, path(where, "phase"))
    player = _player(obj.get("player"), path(where, "player"), allow_none=True)
    if player is None and phase not in (Phase.ROLL_OFF, Phase.OVER):
        raise FormatError(path(where, "player"), f"the {phase.value} phase needs a player")
    first_placer = _player(obj.get("first_placer"), path(where, "first_placer"), allow_none=True)
    if first_placer is None and phase is Phase.PLACEMENT:
        raise FormatError(path(where, "first_placer"), "the placement phase needs the first placer")
    ships = _read_ships(require(obj, "ships", where), path(where, "ships"))
    coins = _read_coins(get_list(obj, "coins", where, []), path(where, "coins"))
    hand = _read_hand(obj, coins, where)
    idle = tuple(
        parse_enum(v, Suit, path(path(where, "idle"), i))
        for i, v in enumerate(get_list(obj, "idle", where, []))
    )
    dice = _suit_map(get_object(obj, "dice", where, {}), path(where, "dice"), _value)
    for suit in list(idle) + list(dice):
        if owner(suit) != player:
            raise FormatError(path(where, "dice" if suit in dice else "idle"),
                              f"the {suit.title} ship is not the mover's")
    tasks = tuple(
        _task_from_json(t, path(path(where, "pending"), i))
        for i, t in enumerate(get_list(obj, "pending", where, []))
    )
    winner = _player(obj.get("winner"), path(where, "winner"), allow_none=True)
    if (winner is None) != (phase is not Phase.OVER):
        raise FormatError(path(where, "winner"), "a winner is named when, and only when, the "
                          "phase is 'over'")
    return WormholesState(
        phase=phase,
        player=player,
        ships=ships,
        coins=tuple(sorted(coins.items())),
        hand=hand,
        first_placer=first_placer,
        idle=tuple(s for s in SUIT_ORDER if s in idle),
        dice=tuple((s, dice[s]) for s in SUIT_ORDER if s in dice),
        tasks=tasks,
        winner=winner,
        reason=get_str(obj, "reason", where, ""),
    )


def _read_ships(data: Any, where: str) -> tuple[Ship, ...]:
    obj = as_object(data, where)
    ships: list[Ship] = []
    taken: dict[Square, Suit] = {}
    for suit in SUIT_ORDER:
        at = path(where, suit.value)
        ship_obj = as_object(require(obj, suit.value, where), at)
        reject_unknown(ship_obj, {"at", "skip_next"}, at)
        cell = _board_cell(require(ship_obj, "at", at), path(at, "at"))
        other = taken.get(cell)
        if other is not None and owner(other) == owner(suit):
            raise FormatError(path(at, "at"), f"the {other.title} ship is already on {cell}")
        taken[cell] = suit
        ships.append(Ship(suit, cell, get_bool(ship_obj, "skip_next", at, False)))
    reject_unknown(obj, {s.value for s in SUIT_ORDER}, where)
    return tuple(ships)


def _read_coins(items: list[Any], where: str) -> dict[Square, Coin]:
    coins: dict[Square, Coin] = {}
    for i, item in enumerate(items):
        at = path(where, i)
        obj = as_object(item, at)
        reject_unknown(obj, {"at", "suit", "value", "seen", "up"}, at)
        cell = _board_cell(require(obj, "at", at), path(at, "at"))
        if cell in BASE_CELLS:
            raise FormatError(path(at, "at"), f"{cell} is a base: no wormhole may lie there")
        if cell in coins:
            raise FormatError(path(at, "at"), f"two wormholes on {cell}")
        suit = parse_enum(require(obj, "suit", at), Suit, path(at, "suit"))
        raw = obj.get("value")
        value: int | str | None = raw if raw in (None, HIDDEN) else _value(raw, path(at, "value"))
        seen = get_bool(obj, "seen", at, False)
        up = get_str(obj, "up", at, "suit")
        if up not in ("suit", "value"):
            raise FormatError(path(at, "up"), f"expected 'suit' or 'value', got {up!r}")
        if seen and not isinstance(value, int):
            raise FormatError(path(at, "value"), "a coin that has been seen needs its value")
        if up == "value" and not seen:
            raise FormatError(path(at, "seen"), "a coin showing its value has been seen")
        coins[cell] = Coin(suit, value, seen, up == "value")
    for suit in SUIT_ORDER:
        known: dict[int, Square] = {}
        for cell, coin in coins.items():
            if coin.suit is suit and coin.known is not None:
                if coin.known in known:
                    raise FormatError(where, f"two {suit.title} coins with value {coin.known} "
                                             f"({known[coin.known]} and {cell})")
                known[coin.known] = cell
    return coins


def _read_hand(
    obj: Any, coins: dict[Square, Coin], where: str
) -> tuple[int, int, int, int]:
    placed = {s: sum(1 for c in coins.values() if c.suit is s) for s in SUIT_ORDER}
    given = _suit_map(get_object(obj, "hand", where, {}), path(where, "hand"), _count)
    counts = []
    for suit in SUIT_ORDER:
        count = given.get(suit, COINS_PER_SUIT - placed[suit])
        if count + placed[suit] != COINS_PER_SUIT:
            left = COINS_PER_SUIT - placed[suit]
            raise FormatError(path(path(where, "hand"), suit.value),
                              f"{placed[suit]} {suit.title} coins are placed, so {left} "
                              f"must be in hand, not {count}")
        counts.append(count)
    return (counts[0], counts[1], counts[2], counts[3])


def _task_to_json(task: Task) -> dict[str, Any]:
    if isinstance(task, Activate):
        return {"type": "activate", "ship": task.ship.value, "at": square_json(task.at),
                "chooser": task.chooser}
    if isinstance(task, ChooseJump):
        return {"type": "jump", "ship": task.ship.value, "at": square_json(task.at),
                "value": task.value, "chooser": task.chooser}
    return {"type": "send", "ship": task.victim.value, "sender": task.sender}


def _task_from_json(data: Any, where: str) -> Task:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    ship = parse_enum(require(obj, "ship", where), Suit, path(where, "ship"))
    if kind == "activate":
        reject_unknown(obj, {"type", "ship", "at", "chooser"}, where)
        at = _board_cell(require(obj, "at", where), path(where, "at"))
        return Activate(ship, at, _player_at(obj, "chooser", where))
    if kind == "jump":
        reject_unknown(obj, {"type", "ship", "at", "value", "chooser"}, where)
        value = _value(require(obj, "value", where), path(where, "value"))
        if value == 0:
            raise FormatError(path(where, "value"), "a null wormhole makes no jump")
        at = _board_cell(require(obj, "at", where), path(where, "at"))
        return ChooseJump(ship, at, value, _player_at(obj, "chooser", where))
    if kind == "send":
        reject_unknown(obj, {"type", "ship", "sender"}, where)
        return ChooseSend(ship, _player_at(obj, "sender", where))
    raise FormatError(
        path(where, "type"), f"unknown pending effect {kind!r} (activate, jump, send)"
    )


# -- actions ---------------------------------------------------------------------------
def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, RollOff):
        return {"type": "roll-off", "orthogonaliens": action.orthogonaliens,
                "diagonaliens": action.diagonaliens}
    if isinstance(action, ChooseOrder):
        return {"type": "choose-order", "player": action.player,
                "first": "place" if action.place_first else "move"}
    if isinstance(action, Place):
        return {"type": "place", "suit": action.suit.value, "to": square_json(action.to)}
    if isinstance(action, Rest):
        return {"type": "rest", "player": action.player, "ships": [s.value for s in action.ships]}
    if isinstance(action, Roll):
        return {"type": "roll", "dice": {s.value: v for s, v in action.dice}}
    if isinstance(action, (Move, Jump)):
        return {"type": "move" if isinstance(action, Move) else "jump",
                "ship": action.ship.value, "to": square_json(action.to)}
    if isinstance(action, Stay):
        return {"type": "stay", "ship": action.ship.value}
    if isinstance(action, Reveal):
        return {"type": "reveal", "at": square_json(action.at), "value": action.value}
    if isinstance(action, Send):
        return {"type": "send", "ship": action.ship.value,
                "to": None if action.to is None else square_json(action.to)}
    raise TypeError(f"not a Wormholes action: {action!r}")


_ACTION_FIELDS = {
    "roll-off": {"orthogonaliens", "diagonaliens"},
    "choose-order": {"player", "first"},
    "place": {"suit", "to"},
    "rest": {"player", "ships"},
    "roll": {"dice"},
    "move": {"ship", "to"},
    "jump": {"ship", "to"},
    "stay": {"ship"},
    "reveal": {"at", "value"},
    "send": {"ship", "to"},
}


def action_from_json(data: Any, where: str = "action") -> Action:
    obj = as_object(data, where)
    kind = get_str(obj, "type", where)
    if kind not in _ACTION_FIELDS:
        known = ", ".join(_ACTION_FIELDS)
        raise FormatError(path(where, "type"), f"unknown action type {kind!r} (known: {known})")
    reject_unknown(obj, _ACTION_FIELDS[kind] | {"type"}, where)

    def ship() -> Suit:
        return parse_enum(require(obj, "ship", where), Suit, path(where, "ship"))

    def cell(key: str) -> Square:
        return _grid_cell(require(obj, key, where), path(where, key))

    if kind == "roll-off":
        return RollOff(_value(require(obj, "orthogonaliens", where), path(where, "orthogonaliens")),
                       _value(require(obj, "diagonaliens", where), path(where, "diagonaliens")))
    if kind == "choose-order":
        first = get_str(obj, "first", where)
        if first not in ("place", "move"):
            raise FormatError(path(where, "first"), f"expected 'place' or 'move', got {first!r}")
        return ChooseOrder(_player_at(obj, "player", where), first == "place")
    if kind == "place":
        return Place(parse_enum(require(obj, "suit", where), Suit, path(where, "suit")), cell("to"))
    if kind == "rest":
        items = as_list(require(obj, "ships", where), path(where, "ships"))
        ships = [parse_enum(v, Suit, path(path(where, "ships"), i)) for i, v in enumerate(items)]
        return Rest(_player_at(obj, "player", where), tuple(ships))
    if kind == "roll":
        dice = _suit_map(require(obj, "dice", where), path(where, "dice"), _value)
        return Roll(tuple(dice.items()))
    if kind == "move":
        return Move(ship(), cell("to"))
    if kind == "jump":
        return Jump(ship(), cell("to"))
    if kind == "stay":
        return Stay(ship())
    if kind == "reveal":
        return Reveal(cell("at"), _value(require(obj, "value", where), path(where, "value")))
    to = require(obj, "to", where)
    return Send(ship(), None if to is None else cell("to"))

"""How legal actions change a Wormholes position: set-up, turns and chained wormhole effects.

Effects that follow a landing wait on a stack in the state (``tasks``; the last one first):
landing on an opposing ship pushes a :class:`ChooseSend` on top of the landing cell's
:class:`Activate`, so the opponent is sent away before the wormhole fires (rule 8). An
activation needs the coin's value; while nobody knows it, the game waits for a
:class:`Reveal` chance action read off the flipped coin. A non-null wormhole pushes a
:class:`ChooseJump` when some direction is open.
"""

from __future__ import annotations

from dataclasses import replace

from rules.core import Event
from rules.geometry import Square
from rules.wormholes.board import DIAGO, ORTHO, Suit, opponent, opposing_bases, owner, suits_of
from rules.wormholes.model import (
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
    Stay,
    Task,
    WormholesState,
    player_title,
    ship_title,
    value_name,
)
from rules.wormholes.moves import jump_targets, wins_on
from rules.wormholes.options import WormholesOptions

__all__ = ["apply_action", "start_turn"]


def apply_action(
    state: WormholesState, opts: WormholesOptions, action: Action
) -> tuple[WormholesState, list[Event]]:
    """The position after a legal ``action``, and what happened, in order."""
    events: list[Event] = []
    handler = _HANDLERS[type(action)]
    return handler(state, opts, action, events), events  # type: ignore[operator]


# -- set-up ------------------------------------------------------------------------------
def _roll_off(
    state: WormholesState, opts: WormholesOptions, a: RollOff, ev: list[Event]
) -> WormholesState:
    ev.append(Event.of(
        "roll",
        f"Roll-off: OrthogonAliens {value_name(a.orthogonaliens)}, "
        f"DiagonAliens {value_name(a.diagonaliens)}.",
        orthogonaliens=a.orthogonaliens, diagonaliens=a.diagonaliens,
    ))
    if a.orthogonaliens == a.diagonaliens:
        ev.append(Event.of("roll", "A tie: both roll again.", tie=True))
        return state
    winner = ORTHO if a.orthogonaliens > a.diagonaliens else DIAGO
    ev.append(Event.of(
        "setup", f"The {player_title(winner)} rolled high and choose: place first or move first.",
        player=winner,
    ))
    return replace(state, phase=Phase.CHOOSE_ORDER, player=winner)


def _choose_order(
    state: WormholesState, opts: WormholesOptions, a: ChooseOrder, ev: list[Event]
) -> WormholesState:
    placer = a.player if a.place_first else opponent(a.player)
    ev.append(Event.of(
        "setup",
        f"The {player_title(placer)} place the first wormhole; the "
        f"{player_title(opponent(placer))} make the first move.",
        first_placer=placer, first_mover=opponent(placer),
    ))
    return replace(state, phase=Phase.PLACEMENT, player=placer, first_placer=placer)


def _place(
    state: WormholesState, opts: WormholesOptions, a: Place, ev: list[Event]
) -> WormholesState:
    player = owner(a.suit)
    state = state.with_coin(a.to, Coin(a.suit)).with_hand(a.suit, state.in_hand(a.suit) - 1)
    ev.append(Event.of(
        "setup",
        f"The {player_title(player)} place {_a(a.suit.title)} wormhole on {a.to}, suit up.",
        player=player, suit=a.suit.value, at=a.to,
    ))
    for nxt in (opponent(player), player):
        if any(state.in_hand(s) for s in suits_of(nxt)):
            return replace(state, player=nxt)
    first_mover = opponent(state.first_placer or opponent(player))
    ev.append(Event.of(
        "phase", f"Every wormhole is placed. The {player_title(first_mover)} move first.",
        first_mover=first_mover,
    ))
    return start_turn(state, opts, first_mover, ev)


# -- turns -------------------------------------------------------------------------------
def start_turn(
    state: WormholesState, opts: WormholesOptions, player: str, ev: list[Event]
) -> WormholesState:
    """Begin ``player``'s turn: ships in black holes lose it; then declare, roll or pass."""
    while True:
        idle = []
        for suit in suits_of(player):
            ship = state.ship(suit)
            if ship.skip_next:
                state = state.with_ship(replace(ship, skip_next=False))
                idle.append(suit)
                ev.append(Event.of(
                    "turn", f"{ship_title(suit, True)} is in a black hole and loses this turn.",
                    ship=suit.value, lost_turn=True,
                ))
        state = replace(state, phase=Phase.ROLL, player=player, idle=tuple(idle), dice=(), tasks=())
        active = [s for s in suits_of(player) if s not in idle]
        bases = opposing_bases(player)
        if opts.both_ships_win and any(state.ship(s).at in bases for s in active):
            ev.append(Event.of(
                "turn", f"The {player_title(player)}' turn: say which ship on a base rests.",
                player=player,
            ))
            return replace(state, phase=Phase.DECLARE)
        if active:
            dice = " and ".join(s.title for s in active)
            ev.append(Event.of(
                "turn", f"The {player_title(player)}' turn: roll the {dice} "
                f"{'dice' if len(active) > 1 else 'die'}.", player=player,
            ))
            return state
        ev.append(Event.of(
            "turn", f"The {player_title(player)} have no ship to move; the turn passes.",
            player=player, passed=True,
        ))
        player = opponent(player)


def _rest(
    state: WormholesState, opts: WormholesOptions, a: Rest, ev: list[Event]
) -> WormholesState:
    idle = tuple(s for s in suits_of(a.player) if s in state.idle or s in a.ships)
    for suit in a.ships:
        ev.append(Event.of(
            "turn", f"{ship_title(suit, True)} rests on the base and rolls no die.",
            ship=suit.value, rest=True,
        ))
    active = [s for s in suits_of(a.player) if s not in idle]
    if active:
        return replace(state, phase=Phase.ROLL, idle=idle)
    ev.append(Event.of("turn", f"The {player_title(a.player)} roll no die; the turn passes.",
                       player=a.player, passed=True))
    return start_turn(state, opts, opponent(a.player), ev)


def _roll(
    state: WormholesState, opts: WormholesOptions, a: Roll, ev: list[Event]
) -> WormholesState:
    said = ", ".join(f"{s.title} {value_name(v)}" for s, v in a.dice)
    ev.append(Event.of(
        "roll", f"The {player_title(state.player or '')} roll {said}.",
        dice={s.value: v for s, v in a.dice},
    ))
    return replace(state, phase=Phase.MOVE, dice=a.dice)


def _use_die(state: WormholesState, ship: Suit) -> WormholesState:
    return replace(state, dice=tuple((s, v) for s, v in state.dice if s is not ship))


# -- ship actions ------------------------------------------------------------------------
def _move(
    state: WormholesState, opts: WormholesOptions, a: Move, ev: list[Event]
) -> WormholesState:
    ship = state.ship(a.ship)
    n = state.die_of(a.ship)
    state = _use_die(state, a.ship).with_ship(replace(ship, at=a.to))
    ev.append(Event.of(
        "move", f"{ship_title(a.ship, True)} flies {n} from {ship.at} to {a.to}.",
        ship=a.ship.value, frm=ship.at, to=a.to, by="die",
    ))
    return _land(state, opts, a.ship, a.to, True, ev)


def _stay(
    state: WormholesState, opts: WormholesOptions, a: Stay, ev: list[Event]
) -> WormholesState:
    at = state.ship(a.ship).at
    n = state.die_of(a.ship)
    state = _use_die(state, a.ship)
    if n == 0:
        text = f"{ship_title(a.ship, True)} rolled null and stays on {at}."
    else:
        text = f"{ship_title(a.ship, True)} cannot fly {n} in any direction and stays on {at}."
    ev.append(Event.of("move", text, ship=a.ship.value, at=at, stayed=True))
    if n == 0 and state.coin_on(at) is not None:
        state = _push(state, Activate(a.ship, at, owner(a.ship)))
    return _settle(state, opts, ev)


def _reveal(
    state: WormholesState, opts: WormholesOptions, a: Reveal, ev: list[Event]
) -> WormholesState:
    coin = state.coin_on(a.at)
    assert coin is not None  # the verdict checked it
    if coin.known is None:
        state = state.with_coin(a.at, replace(coin, value=a.value))
    return _settle(state, opts, ev)


def _jump(
    state: WormholesState, opts: WormholesOptions, a: Jump, ev: list[Event]
) -> WormholesState:
    task = state.tasks[-1]
    assert isinstance(task, ChooseJump)
    ship = state.ship(a.ship)
    state = replace(state, tasks=state.tasks[:-1]).with_ship(replace(ship, at=a.to))
    ev.append(Event.of(
        "move", f"{ship_title(a.ship, True)} jumps {task.value} through hyperspace "
        f"from {ship.at} to {a.to}.", ship=a.ship.value, frm=ship.at, to=a.to, by="wormhole",
    ))
    return _land(state, opts, a.ship, a.to, False, ev)


def _send(
    state: WormholesState, opts: WormholesOptions, a: Send, ev: list[Event]
) -> WormholesState:
    task = state.tasks[-1]
    assert isinstance(task, ChooseSend)
    state = replace(state, tasks=state.tasks[:-1])
    ship = state.ship(a.ship)
    if a.to is None:
        ev.append(Event.of(
            "move", f"The {player_title(task.sender)} leave {ship_title(a.ship)} on {ship.at}.",
            ship=a.ship.value, at=ship.at, by="transport", stayed=True,
        ))
        return _settle(state, opts, ev)
    state = state.with_ship(replace(ship, at=a.to))
    ev.append(Event.of(
        "move", f"The {player_title(task.sender)} send {ship_title(a.ship)} from {ship.at} "
        f"to {a.to}.", ship=a.ship.value, frm=ship.at, to=a.to, by="transport",
    ))
    if state.coin_on(a.to) is not None:
        chooser = owner(a.ship) if opts.sent_jump_chooser == "owner" else task.sender
        state = _push(state, Activate(a.ship, a.to, chooser))
    return _settle(state, opts, ev)


# -- landing and effects -----------------------------------------------------------------
def _land(
    state: WormholesState,
    opts: WormholesOptions,
    suit: Suit,
    cell: Square,
    activates: bool,
    ev: list[Event],
) -> WormholesState:
    """After a die move (``activates``) or a jump ends on ``cell``: win, send, activate."""
    player = owner(suit)
    if wins_on(state, opts, suit, cell):
        reason = (
            f"{ship_title(suit, True)} landed on the {player_title(opponent(player))}' "
            f"base at {cell}."
        )
        ev.append(Event.of("victory", f"{reason} The {player_title(player)} win!",
                           winner=player, ship=suit.value, at=cell))
        return replace(state, phase=Phase.OVER, player=None, idle=(), dice=(), tasks=(),
                       winner=player, reason=reason)
    if activates and state.coin_on(cell) is not None:
        state = _push(state, Activate(suit, cell, player))
    for other in state.ships_on(cell):
        if owner(other) != player:
            ev.append(Event.of(
                "capture", f"{ship_title(suit, True)} lands on {ship_title(other)} at "
                f"{cell}: the {player_title(player)} send it elsewhere.",
                ship=suit.value, victim=other.value, at=cell,
            ))
            state = _push(state, ChooseSend(other, player))
    return _settle(state, opts, ev)


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "AEIOU" else f"a {word}"


def _push(state: WormholesState, task: Task) -> WormholesState:
    return replace(state, tasks=state.tasks + (task,))


def _settle(state: WormholesState, opts: WormholesOptions, ev: list[Event]) -> WormholesState:
    """Resolve pending effects until a choice or a reveal is needed, then go on with the turn."""
    while state.tasks:
        task = state.tasks[-1]
        if not isinstance(task, Activate):
            return state
        coin = state.coin_on(task.at)
        if coin is None or state.ship(task.ship).at != task.at:
            state = replace(state, tasks=state.tasks[:-1])  # the ship was sent away meanwhile
            continue
        if coin.known is None:
            ev.append(Event.of(
                "power", f"Flip the {coin.suit.title} wormhole under {ship_title(task.ship)} "
                f"on {task.at} and show its value.",
                ship=task.ship.value, at=task.at, suit=coin.suit.value, reveal=True,
            ))
            return state
        state = _activate(state, opts, task, coin, ev)
    if state.dice:
        return state
    player = state.player or ""
    ev.append(Event.of("turn", f"The {player_title(player)}' turn is over.", player=player))
    return start_turn(state, opts, opponent(player), ev)


def _activate(
    state: WormholesState, opts: WormholesOptions, task: Activate, coin: Coin, ev: list[Event]
) -> WormholesState:
    value = coin.known
    assert value is not None
    state = replace(state, tasks=state.tasks[:-1])
    state = state.with_coin(task.at, replace(coin, seen=True, value_up=not coin.value_up))
    who = ship_title(task.ship, True)
    ev.append(Event.of(
        "power", f"{who} activates the {coin.suit.title} wormhole on {task.at}: "
        f"its value is {value_name(value)}; the coin now shows its "
        f"{'suit' if coin.value_up else 'value'}.",
        ship=task.ship.value, at=task.at, suit=coin.suit.value, value=value,
    ))
    if value == 0:
        ship = state.ship(task.ship)
        ev.append(Event.of("power", f"A black hole! {who} loses its next turn.",
                           ship=task.ship.value, at=task.at, black_hole=True))
        return state.with_ship(replace(ship, skip_next=True))
    targets = jump_targets(state, opts, task.ship, coin.suit, value)
    if not targets:
        ev.append(Event.of(
            "move", f"{who} cannot jump {value} either way along the {coin.suit.title} axis "
            "and stays.", ship=task.ship.value, at=task.at, stayed=True,
        ))
        return state
    return _push(state, ChooseJump(task.ship, task.at, value, task.chooser))


_HANDLERS = {
    RollOff: _roll_off,
    ChooseOrder: _choose_order,
    Place: _place,
    Rest: _rest,
    Roll: _roll,
    Move: _move,
    Stay: _stay,
    Reveal: _reveal,
    Jump: _jump,
    Send: _send,
}

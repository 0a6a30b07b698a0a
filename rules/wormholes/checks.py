"""Legality in Wormholes: what the game waits for, every legal action, and why one is refused.

The game always waits for exactly one kind of action (see :func:`awaiting`); chance
actions (the roll-off, the turn's dice, a coin's value read when it is flipped) have their
possible results in :func:`chance_outcomes`.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations, product

from rules.core import Verdict
from rules.geometry import Square, SquareDirection
from rules.wormholes.board import (
    BASE_CELLS,
    CELLS,
    MAX_VALUE,
    Suit,
    opposing_bases,
    owner,
    suits_of,
)
from rules.wormholes.model import (
    Action,
    Activate,
    ChooseJump,
    ChooseOrder,
    ChooseSend,
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
    WormholesState,
    player_title,
    ship_title,
    value_name,
)
from rules.wormholes.moves import (
    check_line,
    die_targets,
    jump_targets,
    send_targets,
    sibling,
    wins_on,
)
from rules.wormholes.options import WormholesOptions

__all__ = [
    "awaiting",
    "legal_actions",
    "chance_outcomes",
    "possible_values",
    "verdict",
    "rolling_ships",
    "move_options",
]

_KIND: dict[type, str] = {
    RollOff: "roll-off",
    ChooseOrder: "choose-order",
    Place: "place",
    Rest: "rest",
    Roll: "roll",
    Move: "move",
    Stay: "move",
    Reveal: "reveal",
    Jump: "jump",
    Send: "send",
}
_WAITING_FOR = {
    "roll-off": "the roll-off that decides who chooses the order",
    "choose-order": "the roll-off winner to choose whether to place or move first",
    "place": "the next wormhole to be placed",
    "rest": "the choice of which ship on an opposing base rests",
    "roll": "the dice of this turn",
    "reveal": "the value of the wormhole that was just activated",
    "jump": "the direction of a wormhole jump",
    "send": "where the ship that was landed on is sent",
    "move": "a ship to move by its die",
}
_ALL_DIRECTIONS = tuple(SquareDirection)


def awaiting(state: WormholesState) -> str:
    """The kind of action the game waits for now (``"nothing"`` once it is over)."""
    phase = state.phase
    if phase is Phase.MOVE and state.tasks:
        task = state.tasks[-1]
        if isinstance(task, Activate):
            return "reveal"
        return "jump" if isinstance(task, ChooseJump) else "send"
    return {
        Phase.ROLL_OFF: "roll-off",
        Phase.CHOOSE_ORDER: "choose-order",
        Phase.PLACEMENT: "place",
        Phase.DECLARE: "rest",
        Phase.ROLL: "roll",
        Phase.MOVE: "move",
    }.get(phase, "nothing")


def rolling_ships(state: WormholesState) -> tuple[Suit, ...]:
    """The mover's ships whose dice are rolled this turn."""
    if state.player is None:
        return ()
    return tuple(s for s in suits_of(state.player) if s not in state.idle)


def chance_outcomes(state: WormholesState) -> list[tuple[Action, float]]:
    kind = awaiting(state)
    if kind == "roll-off":
        faces = range(MAX_VALUE + 1)
        return [(RollOff(a, b), 1 / 36) for a, b in product(faces, faces)]
    if kind == "roll":
        ships = rolling_ships(state)
        combos = list(product(range(MAX_VALUE + 1), repeat=len(ships)))
        return [(Roll(tuple(zip(ships, c))), 1 / len(combos)) for c in combos]
    if kind == "reveal":
        at = state.tasks[-1].at  # type: ignore[union-attr]
        values = possible_values(state)
        return [(Reveal(at, v), 1 / len(values)) for v in values]
    return []


def possible_values(state: WormholesState) -> list[int]:
    """Values the coin awaiting a reveal can have: its known value, else its suit's unseen ones."""
    task = state.tasks[-1]
    coin = state.coin_on(task.at)  # type: ignore[union-attr]
    if coin is None:
        return []
    if coin.known is not None:
        return [coin.known]
    taken = {c.known for _, c in state.coins if c.suit is coin.suit}
    return [v for v in range(MAX_VALUE + 1) if v not in taken]


def legal_actions(state: WormholesState, opts: WormholesOptions) -> list[Action]:
    kind = awaiting(state)
    player = state.player or ""
    if kind in ("roll-off", "roll", "reveal"):
        return [a for a, _ in chance_outcomes(state)]
    if kind == "choose-order":
        return [ChooseOrder(player, True), ChooseOrder(player, False)]
    if kind == "place":
        free = sorted(c for c in CELLS if c not in BASE_CELLS and state.coin_on(c) is None)
        return [Place(s, c) for s in suits_of(player) if state.in_hand(s) for c in free]
    if kind == "rest":
        able = _can_rest(state)
        return [Rest(player, c) for k in range(len(able) + 1) for c in combinations(able, k)]
    if kind == "jump":
        task = state.tasks[-1]
        assert isinstance(task, ChooseJump)
        coin = state.coin_on(task.at)
        assert coin is not None  # coins never leave the board
        suit = coin.suit
        return [Jump(task.ship, t) for t in jump_targets(state, opts, task.ship, suit, task.value)]
    if kind == "send":
        task = state.tasks[-1]
        assert isinstance(task, ChooseSend)
        out: list[Action] = [Send(task.victim, t) for t in send_targets(state)]
        return out + [Send(task.victim, None)] if opts.transport_optional else out
    if kind == "move":
        return list(move_options(state, opts))
    return []


def _can_rest(state: WormholesState) -> tuple[Suit, ...]:
    bases = opposing_bases(state.player or "")
    return tuple(s for s in rolling_ships(state) if state.ship(s).at in bases)


def move_options(state: WormholesState, opts: WormholesOptions) -> list[Move | Stay]:
    """Every legal die move now, with the both-dice rule applied when it is on."""
    options: list[Move | Stay] = []
    for suit, n in state.dice:
        targets = die_targets(state, opts, suit, n)
        options.extend([Move(suit, t) for t in targets] if targets else [Stay(suit)])
    if not opts.strict_both_dice or len(state.dice) < 2:
        return options
    # A move that wins is always allowed (the game ends with a die unused), and it sets no
    # bar: the other moves are held to what the other moves can do.
    ends = [_ends(state, opts, a) for a in options]
    wins = [isinstance(a, Move) and any(wins_on(state, opts, a.ship, e) for e in where)
            for a, where in zip(options, ends)]
    scores = [0 if win else _dice_used(state, opts, a, where) for a, where, win in zip(options, ends, wins)]
    best = max((score for score, win in zip(scores, wins) if not win), default=0)
    return [a for a, score, win in zip(options, scores, wins) if win or score == best]


def _ends(state: WormholesState, opts: WormholesOptions, first: Move | Stay) -> list[Square]:
    """Where the ship of ``first`` may stand once its die is used: the landing cell, or, when
    it lands on a wormhole both players have seen, where that wormhole's jump takes it (each
    open way, the mover's choice; the landing cell when none is open or it is a black hole).
    An unseen wormhole cannot be foreseen: its landing cell stands for it."""
    if isinstance(first, Stay):
        return [state.ship(first.ship).at]
    coin = state.coin_on(first.to)
    if coin is None or not coin.seen or not coin.known:
        return [first.to]
    if wins_on(state, opts, first.ship, first.to):
        return [first.to]
    there = state.with_ship(replace(state.ship(first.ship), at=first.to))
    return jump_targets(there, opts, first.ship, coin.suit, coin.known) or [first.to]


def _dice_used(state: WormholesState, opts: WormholesOptions, first: Move | Stay, ends: list[Square]) -> int:
    """How many dice a turn starting with ``first`` (not a winning move) can use, the other
    ship's die judged from the best of ``ends`` (:func:`_ends`)."""
    other = sibling(first.ship)
    n = state.die_of(other) or 0
    second = 1 if any(die_targets(state, opts, other, n, own_at=at) for at in ends) else 0
    return (1 if isinstance(first, Move) else 0) + second


# -- verdicts ----------------------------------------------------------------------------
def verdict(state: WormholesState, opts: WormholesOptions, action: Action) -> Verdict:
    if state.phase is Phase.OVER:
        return Verdict.illegal("game-over", f"The game is over: {state.reason}")
    kind = _KIND.get(type(action))
    if kind is None:
        return Verdict.illegal("unknown-action", f"{action!r} is not a Wormholes action.")
    expected = awaiting(state)
    if kind != expected:
        return Verdict.illegal(
            f"awaiting-{expected}", f"Not now: the game waits for {_WAITING_FOR[expected]}."
        )
    check = _CHECKS[type(action)]
    return check(state, opts, action)  # type: ignore[operator]


def _bad_value(v: int) -> Verdict | None:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_VALUE:
        return Verdict.illegal("bad-value", f"{v!r} is not a piecepack value (0 for null, 1..5).")
    return None


def _not_your_turn(state: WormholesState, player: str) -> Verdict:
    return Verdict.illegal(
        "not-your-turn", f"It is the {player_title(state.player or '')}' turn, not the "
        f"{player_title(player)}'.",
    )


def _check_roll_off(state: WormholesState, opts: WormholesOptions, a: RollOff) -> Verdict:
    for value in (a.orthogonaliens, a.diagonaliens):
        bad = _bad_value(value)
        if bad is not None:
            return bad
    return Verdict.ok()


def _check_choose_order(state: WormholesState, opts: WormholesOptions, a: ChooseOrder) -> Verdict:
    return _not_your_turn(state, a.player) if a.player != state.player else Verdict.ok()


def _check_place(state: WormholesState, opts: WormholesOptions, a: Place) -> Verdict:
    if owner(a.suit) != state.player:
        return _not_your_turn(state, owner(a.suit))
    if not state.in_hand(a.suit):
        return Verdict.illegal("no-coins-left", f"Every {a.suit.title} coin is already placed.")
    if a.to not in CELLS:
        return Verdict.illegal("off-board", f"{a.to} is not a cell of the galaxy.")
    if a.to in BASE_CELLS:
        return Verdict.illegal("base-cell", f"{a.to} is a base: no wormhole goes on a base.")
    if state.coin_on(a.to) is not None:
        return Verdict.illegal("wormhole-there", f"{a.to} already holds a wormhole.")
    return Verdict.ok()


def _check_rest(state: WormholesState, opts: WormholesOptions, a: Rest) -> Verdict:
    if a.player != state.player:
        return _not_your_turn(state, a.player)
    able = _can_rest(state)
    for suit in a.ships:
        if suit not in able:
            return Verdict.illegal(
                "cannot-rest", f"Only a ship of yours on an opposing base may rest; "
                f"{ship_title(suit)} may not.",
            )
    return Verdict.ok()


def _check_roll(state: WormholesState, opts: WormholesOptions, a: Roll) -> Verdict:
    due = rolling_ships(state)
    got = [s for s, _ in a.dice]
    if len(got) != len(set(got)) or set(got) != set(due):
        names = " and ".join(s.title for s in due)
        return Verdict.illegal("wrong-dice", f"This turn the {names} die must be rolled, no other.")
    for _, v in a.dice:
        bad = _bad_value(v)
        if bad is not None:
            return bad
    return Verdict.ok()


def _check_ship_turn(state: WormholesState, suit: Suit) -> Verdict | None:
    if owner(suit) != state.player:
        return _not_your_turn(state, owner(suit))
    if suit in state.idle:
        return Verdict.illegal("ship-idle", f"{ship_title(suit, True)} sits this turn out.")
    if state.die_of(suit) is None:
        return Verdict.illegal("die-used", f"The {suit.title} die is already used this turn.")
    return None


def _check_move(state: WormholesState, opts: WormholesOptions, a: Move) -> Verdict:
    refused = _check_ship_turn(state, a.ship)
    if refused is not None:
        return refused
    n = state.die_of(a.ship) or 0
    if n == 0:
        return Verdict.illegal("null-roll", f"The {a.ship.title} die shows null: the ship stays.")
    what = f"The {a.ship.title} die"
    line = check_line(state, opts, a.ship, a.to, n, _ALL_DIRECTIONS, False, what)
    if not line:
        return line
    return _both_dice(state, opts, a)


def _check_stay(state: WormholesState, opts: WormholesOptions, a: Stay) -> Verdict:
    refused = _check_ship_turn(state, a.ship)
    if refused is not None:
        return refused
    n = state.die_of(a.ship) or 0
    targets = die_targets(state, opts, a.ship, n)
    if targets:
        return Verdict.illegal(
            "must-move", f"The {a.ship.title} die must be used: the ship can fly {n} to "
            + ", ".join(str(t) for t in targets) + ".",
        )
    return _both_dice(state, opts, a)


def _both_dice(state: WormholesState, opts: WormholesOptions, a: Move | Stay) -> Verdict:
    if a in move_options(state, opts):
        return Verdict.ok()
    return Verdict.illegal(
        "must-use-both-dice", "That would leave the other ship without a move when another "
        "choice uses both dice: move so that both dice can be used.",
    )


def _check_reveal(state: WormholesState, opts: WormholesOptions, a: Reveal) -> Verdict:
    task = state.tasks[-1]
    assert isinstance(task, Activate)
    if a.at != task.at:
        return Verdict.illegal(
            "wrong-wormhole", f"The wormhole being activated is on {task.at}, not {a.at}."
        )
    bad = _bad_value(a.value)
    if bad is not None:
        return bad
    values = possible_values(state)
    if a.value in values:
        return Verdict.ok()
    coin = state.coin_on(a.at)
    if coin is not None and coin.known is not None:
        return Verdict.illegal(
            "wrong-value", f"The wormhole on {a.at} is known to be {value_name(coin.known)}.")
    return Verdict.illegal(
        "value-taken", f"Another {coin.suit.title if coin else ''} wormhole is already known to be "
        f"{value_name(a.value)}; check the coin again.",
    )


def _check_jump(state: WormholesState, opts: WormholesOptions, a: Jump) -> Verdict:
    task = state.tasks[-1]
    assert isinstance(task, ChooseJump)
    if a.ship != task.ship:
        return Verdict.illegal("wrong-ship", f"{ship_title(task.ship, True)} is the one jumping.")
    coin = state.coin_on(task.at)
    assert coin is not None  # coins never leave the board
    suit = coin.suit
    return check_line(state, opts, a.ship, a.to, task.value, opts.axis(suit).directions,
                      opts.jumps_cross_gaps, f"The {suit.title} wormhole")


def _check_send(state: WormholesState, opts: WormholesOptions, a: Send) -> Verdict:
    task = state.tasks[-1]
    assert isinstance(task, ChooseSend)
    if a.ship != task.victim:
        return Verdict.illegal("wrong-ship", f"{ship_title(task.victim, True)} is the one to send.")
    if a.to is None:
        if opts.transport_optional:
            return Verdict.ok()
        return Verdict.illegal("must-send", "A ship that is landed on must be sent elsewhere.")
    if a.to not in CELLS:
        return Verdict.illegal("off-board", f"{a.to} is not a cell of the galaxy.")
    here = state.ships_on(a.to)
    if a.to == state.ship(a.ship).at:
        return Verdict.illegal("same-cell", f"Send {ship_title(a.ship)} away from {a.to}.")
    if any(owner(s) == task.sender for s in here):
        return Verdict.illegal("own-ship", f"{a.to} holds one of your own ships.")
    if here:
        return Verdict.illegal(
            "occupied", f"{a.to} holds {ship_title(here[0])}: two ships of one side never share "
            "a cell."
        )
    return Verdict.ok()


_CHECKS = {
    RollOff: _check_roll_off,
    ChooseOrder: _check_choose_order,
    Place: _check_place,
    Rest: _check_rest,
    Roll: _check_roll,
    Move: _check_move,
    Stay: _check_stay,
    Reveal: _check_reveal,
    Jump: _check_jump,
    Send: _check_send,
}

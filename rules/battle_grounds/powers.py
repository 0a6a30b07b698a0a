"""Attack powers used as a turn's action: Swap Powers, Teleport and Hypnotize.

- Swap Powers: the figure changes places with any friendly figure standing in its
  controller's Staging Zone (the first two rows of that player's side).
- Teleport: the figure changes places with a friendly figure on an adjacent square
  (any of the eight neighbours).
- Hypnotize: the controller takes an enemy figure out of their own Holding Zone and puts
  it on an empty square of their Staging Zone, where it now fights for them.

Each is used instead of a move, by a figure whose card has the power, and ends the turn.
Super Sense and Telepathy act after battles (see :mod:`rules.battle_grounds.battle`).
"""

from __future__ import annotations

from rules.battle_grounds.board import label
from rules.battle_grounds.roster import HYPNOTIZE, SWAP_POWERS, TELEPORT
from rules.battle_grounds.state import Hypnotize, State, Swap
from rules.battle_grounds.table import Table
from rules.core import Event, Verdict

__all__ = [
    "actor_verdict",
    "swap_verdict",
    "hypnotize_verdict",
    "power_actions",
    "apply_swap",
    "apply_hypnotize",
]

_SWAPS = (SWAP_POWERS, TELEPORT)


def actor_verdict(table: Table, state: State, piece: str) -> Verdict:
    """Checks shared by every turn action: the figure exists, is on the board, and is the
    mover's."""
    if table.roster.get(piece) is None:
        return Verdict.illegal("unknown-piece", f"No figure {piece!r} is on the roster.")
    if piece not in state.where:
        return Verdict.illegal("unknown-piece", f"{table.name(piece)} is not on the board.")
    if table.controller(state, piece) != state.to_play:
        return Verdict.illegal(
            "not-your-turn",
            f"It is {state.to_play}'s turn; {table.name(piece)} fights for "
            f"{table.controller(state, piece)}.",
        )
    return Verdict.ok()


def swap_verdict(table: Table, state: State, action: Swap) -> Verdict:
    verdict = actor_verdict(table, state, action.piece)
    if not verdict.legal:
        return verdict
    name = table.name(action.piece)
    if action.power not in _SWAPS:
        return Verdict.illegal(
            "unknown-power", f"{action.power!r} does not swap figures; use Swap Powers or Teleport."
        )
    if not table.spec(action.piece).has_power(action.power):
        return Verdict.illegal("lacks-power", f"{name} does not have {action.power}.")
    if table.roster.get(action.other) is None or action.other not in state.where:
        return Verdict.illegal("unknown-piece", f"{table.name(action.other)} is not on the board.")
    if action.other == action.piece:
        return Verdict.illegal("swap-with-self", f"{name} cannot change places with itself.")
    if table.controller(state, action.other) != state.to_play:
        return Verdict.illegal(
            "not-friendly", f"{name} may only change places with a figure of its own side."
        )
    here, there = state.where[action.piece], state.where[action.other]
    if action.power == SWAP_POWERS and not table.board.in_staging_zone(there, state.to_play):
        return Verdict.illegal(
            "not-in-staging-zone",
            f"Swap Powers reaches only figures in {state.to_play}'s first two rows; "
            f"{table.name(action.other)} is on {label(there)}.",
        )
    if action.power == TELEPORT and here.chebyshev(there) != 1:
        return Verdict.illegal(
            "not-adjacent",
            f"Teleport reaches only an adjacent figure; {table.name(action.other)} is on "
            f"{label(there)}.",
        )
    return Verdict.ok()


def hypnotize_verdict(table: Table, state: State, action: Hypnotize) -> Verdict:
    verdict = actor_verdict(table, state, action.piece)
    if not verdict.legal:
        return verdict
    player = state.to_play
    if not table.spec(action.piece).has_power(HYPNOTIZE):
        return Verdict.illegal(
            "lacks-power", f"{table.name(action.piece)} does not have Hypnotize."
        )
    if action.captive not in state.holding_of(player):
        return Verdict.illegal(
            "not-held", f"{table.name(action.captive)} is not in {player}'s Holding Zone."
        )
    if not table.board.in_staging_zone(action.square, player):
        return Verdict.illegal(
            "not-staging-square",
            f"A hypnotized figure goes onto one of {player}'s first two rows; "
            f"{label(action.square)} is not one.",
        )
    if action.square in state.at:
        return Verdict.illegal(
            "occupied",
            f"{label(action.square)} already holds {table.name(state.at[action.square])}.",
        )
    return Verdict.ok()


def power_actions(table: Table, state: State, piece: str) -> list[Swap | Hypnotize]:
    """Every legal power action of ``piece`` (which fights for the player to move)."""
    spec = table.spec(piece)
    player = state.to_play
    out: list[Swap | Hypnotize] = []
    here = state.where[piece]
    friends = [(sq, f) for sq, f in table.figures_of(state, player) if f != piece]
    if spec.has_power(SWAP_POWERS):
        out.extend(
            Swap(piece, f, SWAP_POWERS)
            for sq, f in friends
            if table.board.in_staging_zone(sq, player)
        )
    if spec.has_power(TELEPORT):
        out.extend(Swap(piece, f, TELEPORT) for sq, f in friends if here.chebyshev(sq) == 1)
    if spec.has_power(HYPNOTIZE):
        squares = table.empty_staging(state, player)
        out.extend(Hypnotize(piece, c, s) for c in state.holding_of(player) for s in squares)
    return out


def apply_swap(table: Table, state: State, action: Swap) -> tuple[State, list[Event]]:
    at = dict(state.at)
    here, there = state.where[action.piece], state.where[action.other]
    at[here], at[there] = action.other, action.piece
    text = (
        f"{action.power}: {table.name(action.piece)} ({label(here)}) and "
        f"{table.name(action.other)} ({label(there)}) change places."
    )
    event = Event.of("power", text, power=action.power, figure=action.piece, other=action.other)
    return state.with_board(at), [event]


def apply_hypnotize(table: Table, state: State, action: Hypnotize) -> tuple[State, list[Event]]:
    player = state.to_play
    held = list(state.holding_of(player))
    held.remove(action.captive)
    at = dict(state.at)
    at[action.square] = action.captive
    new = state.with_board(at).with_holding(player, tuple(held))
    new = new.evolve(hypnotized=state.hypnotized | {action.captive})
    text = (
        f"Hypnotize: {table.name(action.piece)} turns {table.name(action.captive)}, who now fights "
        f"for {player} from {label(action.square)}."
    )
    event = Event.of(
        "power",
        text,
        power=HYPNOTIZE,
        figure=action.piece,
        captive=action.captive,
        square=label(action.square),
    )
    return new, [event]

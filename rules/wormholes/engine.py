"""The Wormholes engine: the piecepack race through a spiral galaxy of wormholes.

Chance is an explicit actor (:data:`~rules.core.CHANCE`): the roll-off, the dice of each
turn and the hidden value of a coin when it is first activated all arrive as chance actions
read off the table, so ``_apply`` never asks for a roll.

>>> game = Wormholes()
>>> state = game.initial_state()
>>> game.to_move(state)
('chance',)
>>> from rules.wormholes.model import RollOff
>>> state = game.apply(state, RollOff(4, 2)).state
>>> game.to_move(state), len(game.legal_actions(state))
(('orthogonaliens',), 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.core import CHANCE, Dice, Event, GameRules, Outcome, Verdict
from rules.wormholes import checks
from rules.wormholes.board import PLAYERS
from rules.wormholes.codec import action_from_json, action_to_json, state_from_json, state_to_json
from rules.wormholes.flow import apply_action
from rules.wormholes.model import (
    HIDDEN,
    SUIT_ORDER,
    Action,
    ChooseJump,
    ChooseSend,
    Jump,
    Move,
    Phase,
    Send,
    Ship,
    Stay,
    WormholesState,
)
from rules.wormholes.options import WormholesOptions

__all__ = ["Wormholes"]


class Wormholes(GameRules[WormholesState, Action]):
    """Wormholes (piecepack game by Marty and Ron Hale-Evans, v0.6).

    Players: ``orthogonaliens`` (Suns and Moons) and ``diagonaliens`` (Crowns and Arms).
    """

    name = "wormholes"
    title = "Wormholes (piecepack)"

    def __init__(self, options: WormholesOptions | None = None) -> None:
        self.options = options or WormholesOptions()

    # -- the game ---------------------------------------------------------------------
    def players(self) -> tuple[str, ...]:
        return PLAYERS

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Wormholes:
        return cls(WormholesOptions.from_json(options))

    def options_to_json(self) -> dict[str, Any]:
        return self.options.to_json()

    def initial_state(self) -> WormholesState:
        """Ships on their start cells, every coin in hand, the roll-off to come."""
        ships = tuple(Ship(s, self.options.start_of(s)) for s in SUIT_ORDER)
        return WormholesState(phase=Phase.ROLL_OFF, player=None, ships=ships)

    def to_move(self, state: WormholesState) -> tuple[str, ...]:
        kind = checks.awaiting(state)
        if kind == "nothing":
            return ()
        if kind in ("roll-off", "roll", "reveal"):
            return (CHANCE,)
        if state.tasks:
            task = state.tasks[-1]
            if isinstance(task, ChooseJump):
                return (task.chooser,)
            if isinstance(task, ChooseSend):
                return (task.sender,)
        return (state.player,) if state.player else ()

    def awaiting(self, state: WormholesState) -> str:
        """The kind of action awaited: roll-off, choose-order, place, rest, roll, move,
        reveal, jump, send, or nothing once the game is over."""
        return checks.awaiting(state)

    def legal_actions(self, state: WormholesState) -> list[Action]:
        return checks.legal_actions(state, self.options)

    def chance_outcomes(self, state: WormholesState) -> list[tuple[Action, float]]:
        return checks.chance_outcomes(state)

    def verdict(self, state: WormholesState, action: Action) -> Verdict:
        return checks.verdict(state, self.options, action)

    def _apply(
        self, state: WormholesState, action: Action, dice: Dice
    ) -> tuple[WormholesState, list[Event]]:
        # Every roll reaches this engine as a chance action, so ``dice`` is never asked.
        return apply_action(state, self.options, action)

    def outcome(self, state: WormholesState) -> Outcome | None:
        if state.phase is not Phase.OVER or state.winner is None:
            return None
        return Outcome(state.winner, state.reason)

    def view(self, state: WormholesState, player: str | None) -> WormholesState:
        """The referee (``None``) sees all; a player sees unseen coin values as ``"hidden"``."""
        if player is None:
            return state
        coins = tuple(
            (cell, coin if coin.seen else replace(coin, value=HIDDEN)) for cell, coin in state.coins
        )
        return replace(state, coins=coins)

    def pieces(self, state: WormholesState) -> list[str]:
        """The four ships, by suit: ``suns``, ``moons``, ``crowns``, ``arms``."""
        return [ship.suit.value for ship in state.ships]

    def piece_of(self, action: Action) -> str | None:
        """The ship an action moves (a transport moves the ship sent), else ``None``."""
        if isinstance(action, (Move, Stay, Jump, Send)):
            return action.ship.value
        return None

    # -- notation and JSON ------------------------------------------------------------
    def notation(self, action: Action) -> str:
        return str(action)

    def state_to_json(self, state: WormholesState) -> dict[str, Any]:
        return state_to_json(state)

    def state_from_json(self, data: Any) -> WormholesState:
        return state_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_json(action)

    def action_from_json(self, data: Any) -> Action:
        return action_from_json(data)

"""The Battle Grounds engine: dispatches each action to its rule and passes the turn.

A turn is one action of the player to move: a move (an attack when it enters an enemy's
square), a power used as the action (Swap Powers, Teleport, Hypnotize), or a pass when
nothing else is legal. An attack may wait for stat choices (:class:`ChooseStat`); a move
or a battle may leave decisions owed (:mod:`rules.battle_grounds.decisions`). The turn
passes once none is left.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.battle_grounds import codec
from rules.battle_grounds.battle import choose_stat, release_followup, start_battle
from rules.battle_grounds.board import label
from rules.battle_grounds.decisions import (
    apply_decision,
    decision_actions,
    decision_verdict,
    describe,
)
from rules.battle_grounds.movement import destinations, move_verdict
from rules.battle_grounds.options import BattleGroundsOptions
from rules.battle_grounds.powers import (
    actor_verdict,
    apply_hypnotize,
    apply_swap,
    hypnotize_verdict,
    power_actions,
    swap_verdict,
)
from rules.battle_grounds.roster import PLAYERS, Stat, opponent
from rules.battle_grounds.setup import (
    apply_setup,
    default_placements,
    empty_setup_state,
    setup_actions,
    setup_players,
    setup_verdict,
)
from rules.battle_grounds.state import (
    HIDDEN,
    PLAY,
    SETUP,
    Action,
    BattleMode,
    ChooseStat,
    Hypnotize,
    Move,
    Pass,
    Place,
    State,
    Swap,
)
from rules.battle_grounds.table import Table
from rules.core import Dice, Event, GameRules, Outcome, Verdict
from rules.errors import FormatError, IllegalActionError

__all__ = ["BattleGrounds"]

_STATS = tuple(Stat)


class BattleGrounds(GameRules[State, Action]):
    """Battle Grounds: chess-like battles of Marvel Heroes Battle Dice figures.

    >>> from rules.battle_grounds.board import parse_label as parse
    >>> game = BattleGrounds.from_options({"board": "basic"})
    >>> state = game.lineup()
    >>> game.to_move(state), len(game.legal_actions(state))
    (('south',), 12)
    >>> step = game.apply(state, Move("wolverine", parse("b6"), parse("b5")))
    >>> [e.kind for e in step.events]
    ['move', 'turn']
    """

    name = "battle-grounds"
    title = "Battle Grounds"

    def __init__(self, options: BattleGroundsOptions | None = None) -> None:
        self.options = options if options is not None else BattleGroundsOptions()
        self.table = Table(self.options)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> BattleGrounds:
        return cls(BattleGroundsOptions.from_json(dict(options)))

    def options_to_json(self) -> dict[str, Any]:
        return self.options.to_json()

    def players(self) -> tuple[str, ...]:
        return PLAYERS

    # -- starting positions ---------------------------------------------------------------
    def initial_state(self) -> State:
        """An empty board in the set-up phase: both players place their figures."""
        return empty_setup_state(self.table)

    def lineup(self, placements: list[Place] | None = None) -> State:
        """The state after the given set-up placements (default: :func:`default_placements`);
        raises :class:`IllegalActionError` for a placement the set-up rules refuse."""
        state = self.initial_state()
        for place in placements if placements is not None else default_placements(self.table):
            state = self.apply(state, place).state
        if state.phase != PLAY:
            raise IllegalActionError(
                Verdict.illegal("setup-incomplete", "Some set-up squares are still empty.")
            )
        return state

    # -- whose move ---------------------------------------------------------------------
    def to_move(self, state: State) -> tuple[str, ...]:
        if self.outcome(state) is not None:
            return ()
        if state.phase == SETUP:
            return setup_players(self.table, state)
        if state.battle is not None:
            return self._stat_choosers(state)
        if state.pending:
            return (state.pending[0].player,)
        return (state.to_play,)

    def _stat_choosers(self, state: State) -> tuple[str, ...]:
        battle = state.battle
        assert battle is not None
        if battle.mode is not BattleMode.EACH_CHOOSES:
            return (battle.chooser,) if battle.chooser else ()
        out = []
        if battle.attacker_stat is None:
            out.append(self.table.controller(state, battle.attacker))
        if battle.defender_stat is None:
            out.append(self.table.controller(state, battle.defender))
        return tuple(p for p in PLAYERS if p in out)

    # -- legality -----------------------------------------------------------------------
    def verdict(self, state: State, action: Action) -> Verdict:
        outcome = self.outcome(state)
        if outcome is not None:
            return Verdict.illegal("game-over", f"The game is over: {outcome.reason}")
        if state.phase == SETUP:
            if not isinstance(action, Place):
                return Verdict.illegal(
                    "wrong-phase", "The game is still being set up: place figures first."
                )
            return setup_verdict(self.table, state, action)
        if state.battle is not None:
            return self._choose_verdict(state, action)
        if state.pending:
            return decision_verdict(self.table, state, action)
        if isinstance(action, Move):
            return self._move_verdict(state, action)
        if isinstance(action, Swap):
            return swap_verdict(self.table, state, action)
        if isinstance(action, Hypnotize):
            return hypnotize_verdict(self.table, state, action)
        if isinstance(action, Pass):
            if action.player != state.to_play:
                return Verdict.illegal("not-your-turn", f"It is {state.to_play}'s turn.")
            if self._turn_actions(state):
                return Verdict.illegal(
                    "pass-not-allowed",
                    "A player may pass only when no figure can move or use a power.",
                )
            return Verdict.ok()
        return Verdict.illegal(
            "wrong-phase", f"It is {state.to_play}'s turn to move a figure or use a power."
        )

    def _choose_verdict(self, state: State, action: Action) -> Verdict:
        if not isinstance(action, ChooseStat):
            return Verdict.illegal(
                "wrong-phase", "A battle is waiting for its battle stat to be chosen."
            )
        choosers = self._stat_choosers(state)
        if action.player not in choosers:
            return Verdict.illegal(
                "not-your-turn", f"The battle stat is chosen by {' and '.join(choosers)}."
            )
        return Verdict.ok()

    def _move_verdict(self, state: State, action: Move) -> Verdict:
        verdict = actor_verdict(self.table, state, action.piece)
        if not verdict.legal:
            return verdict
        if state.where[action.piece] != action.frm:
            return Verdict.illegal(
                "wrong-from",
                f"{self.table.name(action.piece)} stands on {label(state.where[action.piece])}, "
                f"not {label(action.frm)}.",
            )
        level = self.table.spec(action.piece).level
        return move_verdict(
            self.table.board,
            state.at,
            lambda f: self.table.controller(state, f),
            level,
            action.frm,
            action.to,
            state.to_play,
        )

    def legal_actions(self, state: State) -> list[Action]:
        if self.outcome(state) is not None:
            return []
        if state.phase == SETUP:
            return list(setup_actions(self.table, state))
        if state.battle is not None:
            return [ChooseStat(p, s) for p in self._stat_choosers(state) for s in _STATS]
        if state.pending:
            return list(decision_actions(self.table, state))
        return self._turn_actions(state) or [Pass(state.to_play)]

    def _turn_actions(self, state: State) -> list[Action]:
        table, player = self.table, state.to_play
        out: list[Action] = []

        def controller(fig: str) -> str:
            return table.controller(state, fig)

        for square, fig in state.board:
            if controller(fig) != player:
                continue
            spec = table.spec(fig)
            for to in destinations(table.board, state.at, controller, spec.level, square, player):
                out.append(Move(fig, square, to))
            if spec.powers:
                out.extend(power_actions(table, state, fig))
        return out

    # -- carrying out -------------------------------------------------------------------
    def _apply(self, state: State, action: Action, dice: Dice) -> tuple[State, list[Event]]:
        table = self.table
        if state.phase == SETUP:
            assert isinstance(action, Place)
            return apply_setup(table, state, action)
        if state.battle is not None:
            assert isinstance(action, ChooseStat)
            new, events = choose_stat(table, state, action, dice)
        elif state.pending:
            new, events = apply_decision(table, state, action)  # type: ignore[arg-type]
        elif isinstance(action, Move):
            new, events = self._apply_move(state, action, dice)
        elif isinstance(action, Swap):
            new, events = apply_swap(table, state, action)
        elif isinstance(action, Hypnotize):
            new, events = apply_hypnotize(table, state, action)
        else:
            assert isinstance(action, Pass)
            new = state.evolve(passes=state.passes + 1)
            events = [
                Event.of(
                    "turn", f"{action.player.title()} cannot move and passes.", player=action.player
                )
            ]
        if not isinstance(action, Pass) and state.passes:
            new = new.evolve(passes=0)
        return self._after(new, events)

    def _apply_move(self, state: State, action: Move, dice: Dice) -> tuple[State, list[Event]]:
        table = self.table
        if action.to in state.at:
            return start_battle(table, state, action.piece, action.frm, action.to, dice)
        at = dict(state.at)
        del at[action.frm]
        at[action.to] = action.piece
        new = state.with_board(at)
        text = f"{table.name(action.piece)} moves from {label(action.frm)} to {label(action.to)}."
        events = [
            Event.of("move", text, piece=action.piece, frm=label(action.frm), to=label(action.to))
        ]
        owed = release_followup(table, new, state.to_play, action.frm, action.to)
        return new.evolve(pending=tuple(owed)), events

    def _after(self, state: State, events: list[Event]) -> tuple[State, list[Event]]:
        """Announce what is awaited next, or pass the turn when nothing is."""
        if self.outcome(state) is None and state.battle is None and state.pending:
            events.append(
                Event.of(
                    "phase",
                    describe(self.table, state.pending[0]),
                    decision=state.pending[0].kind.value,
                )
            )
            return state, events
        if state.battle is not None or self._game_won(state):
            return state, events
        nxt = opponent(state.to_play)
        state = state.evolve(to_play=nxt, turn=state.turn + 1)
        outcome = self.outcome(state)
        if outcome is not None:
            events.append(Event.of("draw", f"The game is drawn: {outcome.reason}"))
        else:
            events.append(Event.of("turn", f"{nxt.title()} to move.", player=nxt, turn=state.turn))
        return state, events

    # -- the end ------------------------------------------------------------------------
    def _game_won(self, state: State) -> bool:
        return any(self.table.spec(f).cosmic for held in state.holding for f in held)

    def outcome(self, state: State) -> Outcome | None:
        for player, held in zip(PLAYERS, state.holding):
            for fig in held:
                if self.table.spec(fig).cosmic:
                    return Outcome(
                        player, f"{player} captured the Cosmic figure {self.table.name(fig)}"
                    )
        if state.passes >= 2:
            return Outcome(None, "neither player could move")
        limit = self.options.turn_limit
        if limit and state.phase == PLAY and state.turn > limit:
            return Outcome(None, f"the turn limit of {limit} was reached")
        return None

    def pieces(self, state: State) -> list[str]:
        """Every figure an action may name now: during set-up the whole roster; later the
        figures on the board, in the Holding Zones, and one on its way home."""
        if state.phase == SETUP:
            return [f.id for f in self.table.roster.figures]
        out = [fig for _, fig in state.board]
        out.extend(fig for held in state.holding for fig in held)
        out.extend(p.figure for p in state.pending if p.figure is not None)
        return out

    # -- hidden information -------------------------------------------------------------
    def view(self, state: State, player: str | None) -> State:
        """A player does not see the other player's secret stat choice."""
        battle = state.battle
        if player is None or battle is None or battle.mode is not BattleMode.EACH_CHOOSES:
            return state
        if (
            self.table.controller(state, battle.attacker) != player
            and battle.attacker_stat is not None
        ):
            battle = replace(battle, attacker_stat=HIDDEN)
        if (
            self.table.controller(state, battle.defender) != player
            and battle.defender_stat is not None
        ):
            battle = replace(battle, defender_stat=HIDDEN)
        return state.evolve(battle=battle)

    def die_rule(self, state: State, player: str | None, owner: str, die: str) -> str:
        """The rule on ``owner``'s die ``die`` as ``player`` may know it: their own dice and
        dice read with Super Sense; any other is ``"hidden"``."""
        spec = self.table.roster.die(owner, die)
        if spec is None:
            raise FormatError("die", f"{owner} has no Battle Die named {die!r}")
        if player is None or player == owner or die in state.dice_read_by(player):
            return spec.rule
        return HIDDEN.value

    # -- notation and JSON --------------------------------------------------------------
    def notation(self, action: Action) -> str:
        name = self.table.name
        if isinstance(action, Move):
            return f"{name(action.piece)} {label(action.frm)}-{label(action.to)}"
        if isinstance(action, Place):
            return f"{name(action.piece)} @{label(action.square)}"
        if isinstance(action, Swap):
            return f"{name(action.piece)} {action.power} <-> {name(action.other)}"
        if isinstance(action, Hypnotize):
            return f"{name(action.piece)} Hypnotize {name(action.captive)} @{label(action.square)}"
        return str(action)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return codec.state_to_json(self.table, state)

    def state_from_json(self, data: Any) -> State:
        return codec.state_from_json(self.table, data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return codec.action_to_json(action)

    def action_from_json(self, data: Any) -> Action:
        return codec.action_from_json(self.table, data)

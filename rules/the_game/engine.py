"""The Game (Nic Evans, 2016): the engine.

One d6 is rolled for every action a piece makes on another (including a free response);
it is asked for inside :meth:`TheGame._apply` as ``dice.roll(6, "<actor> acting on
<target>")``. No other action needs a roll. Nothing is hidden: every piece stands (or lies)
on the field in plain sight, so :meth:`TheGame.view` shows everyone everything.

>>> game = TheGame.from_options({})
>>> state = game.apply(game.initial_state(), game.default_setup()).state
>>> (state.phase.value, game.to_move(state))
('movement', ('red',))
>>> game.observation(state)["R1"].reason
'mutual'
>>> [game.notation(a) for a in game.actions_of(state, "R1")]
['R1 6.00,12.00 @90', 'R1 off', 'R1 stays']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from rules.core import Dice, Event, GameRules, Outcome, Verdict
from rules.the_game import codec
from rules.the_game.acting import close_in, resolve
from rules.the_game.flow import announce_last_piece, due, final_outcome, hand_over, settle
from rules.the_game.legal import legal_actions, unlisted
from rules.the_game.model import (
    Act,
    Action,
    Departure,
    Exit,
    Knockdown,
    Move,
    Pass,
    Phase,
    Piece,
    Presence,
    Response,
    Setup,
    Split,
    Stay,
    Take,
    TheGameState,
)
from rules.the_game.moves import MovePlan, must_move, plan_exit, plan_move
from rules.the_game.options import TheGameOptions
from rules.the_game.setup import check_setup, default_setup, place
from rules.the_game.sight import Sighting, observation
from rules.the_game.survivors import apply_split, split_verdict

__all__ = ["TheGame"]


def _bad(code: str, message: str, **details: Any) -> Verdict:
    return Verdict.illegal(code, message, **details)


class TheGame(GameRules[TheGameState, Action]):
    """The outdoor observation game, refereed from measured positions."""

    name: ClassVar[str] = "the-game"
    title: ClassVar[str] = "The Game"

    def __init__(self, options: TheGameOptions | None = None) -> None:
        self.options = options or TheGameOptions()

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> TheGame:
        return cls(TheGameOptions.from_json(options))

    def options_to_json(self) -> dict[str, Any]:
        return self.options.to_json()

    def players(self) -> tuple[str, ...]:
        return self.options.sides

    def initial_state(self) -> TheGameState:
        """Sequence 1 waiting for its set-up (see :meth:`default_setup`)."""
        return TheGameState()

    def default_setup(self, per_side: int = 3) -> Setup:
        """A plain facing-rows set-up, handy for trying the engine out."""
        return default_setup(self.options, per_side)

    # -- reading a position -------------------------------------------------------------
    def observation(self, state: TheGameState) -> dict[str, Sighting]:
        """Every standing piece's observation status, with who sees whom."""
        return observation(state.pieces, self.options)

    def to_move(self, state: TheGameState) -> tuple[str, ...]:
        if state.phase is Phase.OVER:
            return ()
        if state.phase is Phase.SETUP:
            return self.options.sides
        if state.split is not None:
            splitter = state.split.splitter
            return (splitter,) if state.split.offer is None else (self.options.other(splitter),)
        if state.response is not None:
            responder = state.piece(state.response.responder)
            return (responder.controller,) if responder else ()
        return (state.next_player,) if state.next_player else ()

    def outcome(self, state: TheGameState) -> Outcome | None:
        """``None`` until the last sequence ends; then no winner, unless the option
        ``scoring`` is ``"knockdowns"`` (see :func:`~rules.the_game.flow.final_outcome`)."""
        if state.phase is not Phase.OVER:
            return None
        return final_outcome(state, self.options)

    def view(self, state: TheGameState, player: str | None) -> TheGameState:
        """Everyone sees the whole field: The Game has no hidden information."""
        return state

    def legal_actions(self, state: TheGameState) -> list[Action]:
        """Every legal discrete action, and one representative of each kind of measured move
        per piece (see :mod:`rules.the_game.legal`)."""
        return legal_actions(self, state)

    def unlisted(self, state: TheGameState) -> str | None:
        return unlisted(self, state)

    # -- legality -------------------------------------------------------------------------
    def status(self, state: TheGameState, piece: Piece) -> tuple[bool, bool]:
        """(observed, last piece) for a standing piece."""
        standing = state.in_play()
        if len(standing) == 1:
            return False, True
        return observation(standing, self.options)[piece.id].observed, False

    def verdict(self, state: TheGameState, action: Action) -> Verdict:
        opts = self.options
        if state.phase is Phase.OVER:
            return _bad("game-over", f"All {opts.sequences} sequences have been played.")
        if isinstance(action, Setup):
            if state.phase is not Phase.SETUP:
                return _bad("wrong-phase", "Pieces are set up only at the start of a sequence.")
            return check_setup(action, opts)
        if state.phase is Phase.SETUP:
            return _bad("wrong-phase", f"Sequence {state.sequence} must be set up first.")
        if state.split is not None:
            return split_verdict(state, action, opts)
        if isinstance(action, (Split, Take)):
            return _bad("no-split", "Survivors are split only when one player has no standing "
                                    "pieces left.")
        if state.response is not None:
            return self._response_verdict(state, action)
        if isinstance(action, Pass):
            return self._pass_verdict(state, action)
        return self._piece_verdict(state, action)

    def _own(self, state: TheGameState, piece_id: str, role: str = "") -> Piece | Verdict:
        piece = state.piece(piece_id)
        if piece is None:
            return _bad("unknown-piece", f"There is no piece called {piece_id} on the field.",
                        piece=piece_id)
        if not piece.in_play:
            how = "lies on its side" if piece.presence is Presence.DOWN else "has left the field"
            return _bad("out-of-play", f"{piece_id} {how} and is out of play.", piece=piece_id)
        if role == "mine" and piece.controller not in self.to_move(state):
            return _bad("not-your-turn", f"{piece_id} belongs to {piece.controller}, but it is "
                        f"{self._whose(state)}'s go.", piece=piece_id)
        return piece

    def _whose(self, state: TheGameState) -> str:
        return " or ".join(self.to_move(state)) or "nobody"

    def _piece_verdict(self, state: TheGameState, action: Action) -> Verdict:
        opts = self.options
        if not isinstance(action, (Move, Exit, Stay, Act)):
            return _bad("unknown-action", f"{action!r} is not an action of The Game.")
        numbers = [] if isinstance(action, (Exit, Stay)) or action.to is None else [
            action.to.x, action.to.y]
        if isinstance(action, Move) and action.facing is not None:
            numbers.append(action.facing)
        if not all(math.isfinite(n) for n in numbers):
            return _bad("bad-measurement", "A measured position or facing is not a finite "
                        "number; measure the piece again.")
        moving = state.phase is Phase.MOVEMENT
        if isinstance(action, (Move, Exit)) and not moving:
            return _bad("wrong-phase", "Pieces move only in the movement phase.")
        if isinstance(action, Act) and moving:
            return _bad("wrong-phase", "Pieces act only in the action phase.")
        piece = self._own(state, action.piece, "mine")
        if isinstance(piece, Verdict):
            return piece
        if piece.done:
            word = "moved" if moving else "acted"
            return _bad(f"already-{word}", f"{piece.id} has already {word} or been left alone "
                        "this phase.", piece=piece.id)
        if isinstance(action, Act):
            return self._act_verdict(state, piece, action)
        if isinstance(action, Stay):
            if not moving:
                if not due(state, piece, opts):
                    return _bad("nothing-to-act-on", f"{piece.id} has no piece of the other "
                                "player within action range.", piece=piece.id)
                return Verdict.ok(f"{piece.id} does not act.")
            observed, last = self.status(state, piece)
            if must_move(observed, last, opts):
                why = "the last piece" if last else "unobserved"
                return _bad("must-move", f"{piece.id} is {why} and must move towards the "
                            "nearest edge.", piece=piece.id)
            return Verdict.ok(f"{piece.id} stays where it is.")
        plan = self._plan(state, piece, action)
        if isinstance(plan, Verdict):
            return plan
        where = f"walks off at the {plan.edge} edge" if plan.leaves else "may end there"
        return Verdict.ok(f'{piece.id} {where} after {plan.distance:.2f}".',
                          distance=round(plan.distance, 4))

    def _plan(self, state: TheGameState, piece: Piece, action: Move | Exit) -> Verdict | MovePlan:
        observed, last = self.status(state, piece)
        if isinstance(action, Exit):
            return plan_exit(piece, observed, last, self.options)
        return plan_move(piece, action.to, action.facing, observed, last, self.options)

    def _pass_verdict(self, state: TheGameState, action: Pass) -> Verdict:
        if action.player not in self.to_move(state):
            return _bad("not-your-turn", f"It is {self._whose(state)}'s go, not "
                        f"{action.player}'s.", player=action.player)
        if state.phase is Phase.MOVEMENT:
            for p in state.pieces:
                if (p.controller == action.player and due(state, p, self.options)
                        and must_move(*self.status(state, p), self.options)):
                    return _bad("must-move", f"{p.id} must move, so {action.player} cannot "
                                "leave all its pieces alone.", piece=p.id)
        return Verdict.ok(f"{action.player} leaves its remaining pieces alone this phase.")

    def _act_verdict(self, state: TheGameState, actor: Piece, action: Act) -> Verdict:
        target = self._own(state, action.target)
        if isinstance(target, Verdict):
            return target
        if target.controller == actor.controller:
            return _bad("same-side", f"{actor.id} and {target.id} are both {actor.controller}'s; "
                        "a piece acts only on the other player's pieces.", target=target.id)
        closer = close_in(actor, target, action.to, self.options)
        if isinstance(closer, Verdict):
            return closer
        res = resolve(state.pieces, closer, target, self.options)
        return Verdict.ok(f"{actor.id} may act on {target.id} and {res.chance_text()}.",
                          number=res.number)

    def _response_verdict(self, state: TheGameState, action: Action) -> Verdict:
        response = state.response
        assert response is not None
        if isinstance(action, Stay) and action.piece == response.responder:
            return Verdict.ok(f"{response.responder} does not respond.")
        if isinstance(action, Act) and (action.piece, action.target) == (
            response.responder, response.actor
        ):
            actor = self._own(state, action.piece)
            if isinstance(actor, Verdict):
                return actor
            return self._act_verdict(state, actor, action)
        return _bad("response-pending", f"{response.responder} may first answer "
                    f"{response.actor}'s failed action with a free action of its own (or stay).",
                    responder=response.responder, actor=response.actor)

    # -- carrying out -----------------------------------------------------------------------
    def _apply(
        self, state: TheGameState, action: Action, dice: Dice
    ) -> tuple[TheGameState, list[Event]]:
        opts = self.options
        events: list[Event] = []
        if isinstance(action, Setup):
            new, event = place(state, action, opts)
            events.append(event)
            return settle(new, opts, events), events
        if isinstance(action, Split):
            return apply_split(state, action, opts, events), events
        if isinstance(action, Take):
            assert state.split is not None
            return hand_over(state, state.split.splitter, action.group, opts, events), events
        if isinstance(action, Pass):
            pieces = tuple(replace(p, done=True) if p.controller == action.player
                           and p.in_play and not p.done else p for p in state.pieces)
            events.append(Event.of("phase", f"{action.player.capitalize()} leaves its remaining "
                                   f"pieces alone this {state.phase.value} phase.",
                                   player=action.player))
            new = replace(state, pieces=pieces, next_player=opts.other(action.player))
            return settle(new, opts, events), events
        piece = state.piece(action.piece)
        assert piece is not None
        if isinstance(action, Act):
            return self._apply_act(state, piece, action, dice, events), events
        if isinstance(action, Stay):
            if state.response is not None:
                events.append(Event.of("attack", f"{piece.id} lets the chance to respond pass.",
                                       piece=piece.id, declined=True))
                return settle(replace(state, response=None), opts, events), events
            kind, what = ("move", "stays where it is") if state.phase is Phase.MOVEMENT else (
                "attack", "does not act")
            events.append(Event.of(kind, f"{piece.id} {what}.", piece=piece.id, stayed=True))
            new = self._put(state, replace(piece, done=True), opts.other(piece.controller))
            return settle(new, opts, events), events
        plan = self._plan(state, piece, action)
        assert isinstance(plan, MovePlan)
        observed, last = self.status(state, piece)
        how = "observed" if observed else ("the last piece" if last else "unobserved")
        nxt = opts.other(piece.controller)
        if plan.leaves:
            gone = replace(piece, presence=Presence.OFF, at=plan.exit_point or piece.at,
                           busy=True, done=True)
            events.append(Event.of("lost", f'{piece.id} ({how}) walks {plan.distance:.2f}" off '
                                   f"the {plan.edge} edge and leaves play.", piece=piece.id,
                                   edge=plan.edge, distance=round(plan.distance, 4)))
            new = self._put(state, gone, nxt)
            if new.record is not None:
                record = new.record
                record = replace(record, departures=record.departures
                                 + (Departure(piece.id, piece.controller),),
                                 last_piece=piece.id if last else record.last_piece)
                new = replace(new, record=record)
            if not last:
                announce_last_piece(new, events)
            return settle(new, opts, events), events
        assert plan.to is not None
        moved = plan.distance > opts.tolerance
        after = replace(piece, at=plan.to, facing=plan.facing, done=True,
                        busy=piece.busy or moved)
        if moved:
            text = (f'{piece.id} ({how}) moves {plan.distance:.2f}" and ends facing '
                    f"{plan.facing:g}°.")
        elif plan.facing != piece.facing:
            text = f"{piece.id} turns on the spot to face {plan.facing:g}°."
        else:
            text = f"{piece.id} stays in place."
        events.append(Event.of("move", text, piece=piece.id, distance=round(plan.distance, 4),
                               to=plan.to, facing=plan.facing, observed=observed))
        return settle(self._put(state, after, nxt), opts, events), events

    @staticmethod
    def _put(state: TheGameState, piece: Piece, next_player: str | None) -> TheGameState:
        pieces = tuple(piece if p.id == piece.id else p for p in state.pieces)
        return replace(state, pieces=pieces, next_player=next_player or state.next_player)

    def _apply_act(self, state: TheGameState, actor: Piece, action: Act, dice: Dice,
                   events: list[Event]) -> TheGameState:
        opts = self.options
        target = state.piece(action.target)
        assert target is not None
        responding = state.response is not None
        closer = close_in(actor, target, action.to, opts)
        assert isinstance(closer, Piece)
        res = resolve(state.pieces, closer, target, opts)
        word = "responds against" if responding else "acts on"
        events.append(Event.of("attack", f"{actor.id} {word} {target.id} ({res.explain()}): it "
                               f"{res.chance_text()}.", piece=actor.id, target=target.id,
                               number=res.number, response=responding))
        roll = dice.roll(6, f"{actor.id} acting on {target.id}")
        success = roll > res.number
        events.append(Event.of("roll", f"{actor.controller.capitalize()} rolls {roll}: "
                               f"{'success' if success else 'failure'}.", roll=roll,
                               number=res.number, success=success))
        after = replace(closer, busy=True, done=closer.done or not responding)
        nxt = None if responding else opts.other(actor.controller)
        state = self._put(replace(state, response=None), after, nxt)
        if success:
            down = replace(target, presence=Presence.DOWN)
            state = self._put(state, down, None)
            events.append(Event.of("elimination", f"{target.id} is turned on its side and is out "
                                   "of play.", piece=target.id, by=actor.id,
                                   player=actor.controller))
            if state.record is not None:
                kd = Knockdown(target.id, actor.id, actor.controller)
                state = replace(state, record=replace(
                    state.record, knockdowns=state.record.knockdowns + (kd,)))
            announce_last_piece(state, events)
        elif not responding:
            state = replace(state, response=Response(target.id, actor.id))
            events.append(Event.of("attack", f"{target.id} may answer with a free action against "
                                   f"{actor.id}.", piece=target.id, target=actor.id,
                                   offered=True))
        return settle(state, opts, events)

    # -- notation and JSON ----------------------------------------------------------------
    def notation(self, action: Action) -> str:
        if isinstance(action, Move):
            turn = "" if action.facing is None else f" @{action.facing:g}"
            return f"{action.piece} {action.to.x:.2f},{action.to.y:.2f}{turn}"
        if isinstance(action, Exit):
            return f"{action.piece} off"
        if isinstance(action, Act):
            return f"{action.piece} x {action.target}"
        return str(action)

    def state_to_json(self, state: TheGameState) -> dict[str, Any]:
        return codec.state_to_json(state)

    def state_from_json(self, data: Any) -> TheGameState:
        return codec.state_from_json(data, self.options)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return codec.action_to_json(action)

    def action_from_json(self, data: Any) -> Action:
        return codec.action_from_json(data, self.options)

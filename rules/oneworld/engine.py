"""The OneWorld referee: set-up, the three-phase turn, combat, reinforcement, victory.

>>> game = OneWorld.from_options({})
>>> state = game.initial_state()
>>> game.to_move(state)
('borg',)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from itertools import combinations_with_replacement
from typing import Any

from rules.core import Dice, Event, GameRules, Outcome, Verdict
from rules.errors import MapError
from rules.geometry import Hex
from rules.oneworld import codec, turn
from rules.oneworld.board import OneWorldMap, bundled_map, parse_map
from rules.oneworld.model import (
    Action,
    Aspect,
    Child,
    ChooseTower,
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
)
from rules.oneworld.movement import Plan, Snapshot, plan_along, plans_for, standing_towers, why_not
from rules.oneworld.options import OneWorldOptions
from rules.oneworld.setup import apply_setup, apply_tower, check_setup, check_tower, setup_step

__all__ = ["OneWorld"]

FAULT_DEATH = (1, 2)  # chart 13.2


def _map_of(options: OneWorldOptions) -> OneWorldMap:
    """The options' map; a bad ``map_text`` names that option and the line at fault."""
    if not options.map_text:
        return bundled_map(options.map)
    try:
        return parse_map(options.map_text)
    except MapError as err:
        raise MapError(f"options.map_text: {err.field}", err.detail) from None


class OneWorld(GameRules[Position, Action]):
    name = "oneworld"
    title = "OneWorld"

    def __init__(self, options: OneWorldOptions | None = None, board: OneWorldMap | None = None) -> None:
        self.options = options or OneWorldOptions()
        if board is None:
            board = _map_of(self.options)
        self.board = board

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> OneWorld:
        return cls(OneWorldOptions.from_json(dict(options)))

    def options_to_json(self) -> dict[str, Any]:
        return self.options.to_json()

    def players(self) -> tuple[str, ...]:
        return (Side.BORG.value, Side.CHEZ.value)

    def initial_state(self, first_setup: Side = Side.BORG) -> Position:
        o = self.options
        return Position(
            phase=Phase.SETUP,
            active=first_setup,
            first_setup=first_setup,
            gods=(God(Side.BORG, None, o.borg_lives), God(Side.CHEZ, None, o.chez_lives)),
        )

    # -- who acts ------------------------------------------------------------------------
    def to_move(self, state: Position) -> tuple[str, ...]:
        if state.phase is Phase.OVER:
            return ()
        if state.phase is Phase.SETUP:
            step = setup_step(self.options, state)
            return (step[1].value,) if step else ()
        if state.phase is Phase.COMBAT and state.combat is not None:
            c = state.combat
            if c.against_god:
                attacker = state.active
                side = attacker if not c.submitted(attacker) else attacker.other()
                return (side.value,)
            return tuple(s.value for s in Side if not c.submitted(s))
        return (state.active.value,)

    # -- legality ------------------------------------------------------------------------
    def verdict(self, state: Position, action: Action) -> Verdict:
        if state.phase is Phase.OVER or self.outcome(state) is not None:
            return Verdict.illegal("game-over", "the game is over")
        if isinstance(action, SetUp):
            return check_setup(self.board, self.options, state, action)
        if isinstance(action, ChooseTower):
            return check_tower(self.board, self.options, state, action)
        if state.phase is Phase.SETUP:
            return Verdict.illegal("setup-first", "set-up is not finished yet")
        if isinstance(action, Move):
            return self._check_move(state, action)
        if isinstance(action, EndMovement):
            if state.phase is not Phase.MOVEMENT:
                return Verdict.illegal("wrong-phase", "the movement phase is already over")
            if action.side is not state.active:
                return Verdict.illegal("not-your-turn", f"it is {state.active.title}'s turn")
            return Verdict.ok()
        if isinstance(action, Transform):
            return self._check_transform(state, action)
        if isinstance(action, GodTransform):
            return self._check_god_transform(state, action)
        if isinstance(action, GodMove):
            return self._check_god_move(state, action)
        return Verdict.illegal("unknown-action", f"not a OneWorld action: {action!r}")

    def _mover(self, state: Position, piece: str, side: Side | None = None) -> tuple[Child | None, Verdict]:
        if state.phase is not Phase.MOVEMENT:
            return None, Verdict.illegal("wrong-phase", f"children move only in the movement phase (now: {state.phase.value})")
        child = state.child(piece)
        if child is None:
            if piece in state.reserve(Side.BORG) + state.reserve(Side.CHEZ):
                return None, Verdict.illegal("not-on-map", f"{piece} is under its Tower, not on the map")
            return None, Verdict.illegal("unknown-piece", f"there is no child {piece!r} on the map")
        if child.side is not state.active:
            return None, Verdict.illegal("not-your-turn", f"{piece} belongs to {child.side.title}; it is {state.active.title}'s turn")
        return child, Verdict.ok()

    def _plan(self, state: Position, action: Move) -> tuple[Plan | None, Verdict]:
        child, v = self._mover(state, action.piece)
        if child is None:
            return None, v
        if child.id in state.moved:
            return None, Verdict.illegal("already-moved", f"{child.id} has already moved this turn")
        snap = Snapshot(self.board, self.options, state)
        if action.path and action.path[-1] != action.to:
            return None, Verdict.illegal("bad-path", "the path must end at the destination")
        if action.path and child.aspect is not Aspect.BLADE:
            plan, reason = plan_along(snap, child, action.path)
            if plan is None:
                route = "-".join(h.label() for h in action.path)
                code, message = why_not(snap, child, action.to)
                if code != reason:  # the stated path decides; keep the fuller sentence when they agree
                    code, message = reason, f"{child.id} cannot follow the path {route} ({reason.replace('-', ' ')})"
                return None, Verdict.illegal(code, message)
            return plan, Verdict.ok()
        plans = [p for p in plans_for(snap, child) if p.to == action.to]
        if action.path:
            along = [p for p in plans if p.path == action.path]
            if plans and not along:
                route = "-".join(h.label() for h in action.path)
                return None, Verdict.illegal(
                    "bad-path", f"{child.id} reaches {action.to} only straight along its line, not by {route}"
                )
            plans = along
        if not plans:
            code, message = why_not(snap, child, action.to)
            if action.path and code in ("stacking", "unreachable"):
                route = "-".join(h.label() for h in action.path)
                code, message = "bad-path", f"{child.id} cannot follow the path {route}"
            return None, Verdict.illegal(code, message)
        return min(plans, key=lambda p: (p.faults, p.obstacle, p.path)), Verdict.ok()

    def _check_move(self, state: Position, action: Move) -> Verdict:
        plan, v = self._plan(state, action)
        if plan is None:
            return v
        return Verdict.ok(f"{action.piece} may move to {action.to}", faults=plan.faults)

    def _check_transform(self, state: Position, action: Transform) -> Verdict:
        c = state.combat
        if state.phase is not Phase.COMBAT or c is None:
            return Verdict.illegal("wrong-phase", "there is no combat to fight now")
        if action.hex != c.hex:
            return Verdict.illegal("wrong-combat", f"the combat being fought is at {c.hex}")
        if c.submitted(action.side):
            return Verdict.illegal("already-chosen", f"{action.side.title} has already chosen for this round")
        if c.against_god:
            attacker = state.active
            if action.side is not attacker and not c.submitted(attacker):
                return Verdict.illegal("child-first", "the attacking child transforms before the god announces")
            if len(action.aspects) != 1:
                return Verdict.illegal("aspect-count", "a fight with a god takes exactly one aspect a side")
            return Verdict.ok()
        need = len(state.children_at(c.hex, action.side))
        if len(action.aspects) != need:
            return Verdict.illegal(
                "aspect-count", f"{action.side.title} has {need} children at {c.hex}, not {len(action.aspects)}"
            )
        return Verdict.ok()

    def _check_god_transform(self, state: Position, action: GodTransform) -> Verdict:
        allowed = self.options.god_powers(action.side)
        if allowed == 0:
            return Verdict.illegal("option-off", f"{action.side.title}'s god has no power to transform children")
        if state.phase is not Phase.MOVEMENT or action.side is not state.active:
            return Verdict.illegal("not-your-turn", "a god transforms children in its own movement phase")
        if state.god_transforms_used >= allowed:
            return Verdict.illegal("power-used", f"{action.side.title} may transform {allowed} child(ren) a turn")
        child = state.child(action.piece)
        if child is None or child.side is not action.side:
            return Verdict.illegal("unknown-piece", f"{action.piece} is not one of {action.side.title}'s children")
        if state.children_at(child.hex, action.side.other()) or child.hex == state.god(action.side.other()).hex:
            return Verdict.illegal("in-combat", f"{child.id} is in combat")
        if child.aspect is action.aspect:
            return Verdict.illegal("same-aspect", f"{child.id} is already {action.aspect.title}")
        return Verdict.ok()

    def _check_god_move(self, state: Position, action: GodMove) -> Verdict:
        if not self.options.flee_while_you_can:
            return Verdict.illegal("option-off", "gods do not move (Flee-While-You-Can is not in play)")
        if state.phase is not Phase.MOVEMENT or action.side is not state.active:
            return Verdict.illegal("not-your-turn", "a god flees in its own movement phase")
        god = state.god(action.side)
        if god.lives >= self.options.lives(action.side):
            return Verdict.illegal("not-wounded", "a god may flee only after losing a life")
        if state.god_moved:
            return Verdict.illegal("already-moved", "the god has already moved this turn")
        assert god.hex is not None
        if god.hex.distance(action.to) != 1:
            return Verdict.illegal("too-far", "a fleeing god moves one hex")
        if action.to not in self.board.cells:
            return Verdict.illegal("chaos", "a god does not flee into Chaos")
        if action.to in standing_towers(self.board, state):
            return Verdict.illegal("tower", "nobody may enter a Tower of Balance")
        if state.children_at(action.to) or action.to == state.god(action.side.other()).hex:
            return Verdict.illegal("occupied", f"{action.to} is occupied")
        return Verdict.ok()

    # -- listing --------------------------------------------------------------------------
    def unlisted(self, state: Position) -> str | None:
        if state.phase is Phase.SETUP and self.outcome(state) is None:
            return "a set-up position: its actions (a set-up, the Tower's choice) are not listed, set-ups being too many"
        return None

    def legal_actions(self, state: Position) -> list[Action]:
        if state.phase is Phase.OVER or self.outcome(state) is not None:
            return []
        if state.phase is Phase.SETUP:
            return []  # set-ups are too many to list; verdict() checks any that is proposed
        if state.phase is Phase.COMBAT:
            return self._transforms(state)
        out: list[Action] = []
        snap = Snapshot(self.board, self.options, state)
        for child in state.children:
            if child.side is state.active and child.id not in state.moved:
                seen: set[Hex] = set()
                for plan in plans_for(snap, child):
                    if plan.to not in seen:
                        seen.add(plan.to)
                        out.append(Move(child.id, plan.to))
        out.extend(self._god_actions(state))
        out.append(EndMovement(state.active))
        return out

    def pieces(self, state: Position) -> list[str]:
        return [c.id for c in state.children]

    def piece_moves(self, state: Position, piece: str) -> list[Move]:
        return [a for a in self.legal_actions(state) if isinstance(a, Move) and a.piece == piece]

    def _transforms(self, state: Position) -> list[Action]:
        c = state.combat
        if c is None:
            return []
        out: list[Action] = []
        for side_name in self.to_move(state):
            side = Side(side_name)
            n = 1 if c.against_god else len(state.children_at(c.hex, side))
            for combo in combinations_with_replacement(list(Aspect), n):
                out.append(Transform(side, c.hex, combo))
        return out

    def _god_actions(self, state: Position) -> list[Action]:
        out: list[Action] = []
        side = state.active
        if self.options.god_powers(side) > state.god_transforms_used:
            for child in state.children_of(side):
                for aspect in Aspect:
                    a = GodTransform(side, child.id, aspect)
                    if self._check_god_transform(state, a):
                        out.append(a)
        god = state.god(side)
        if self.options.flee_while_you_can and god.hex is not None:
            for n in god.hex.neighbors():
                a2 = GodMove(side, n)
                if self._check_god_move(state, a2):
                    out.append(a2)
        return out

    # -- carrying out -----------------------------------------------------------------------
    def _apply(self, state: Position, action: Action, dice: Dice) -> tuple[Position, list[Event]]:
        if isinstance(action, SetUp):
            pos, events = apply_setup(self.options, state, action)
            if setup_step(self.options, pos) is None:
                second = pos.first_setup.other()
                pos = replace(pos, phase=Phase.MOVEMENT, active=second, turn=1)
                events.append(Event.of("turn", f"Set-up is complete. {second.title} moves first.", side=second.value))
            else:
                pos = replace(pos, active=setup_step(self.options, pos)[1])  # type: ignore[index]
            return pos, events
        if isinstance(action, ChooseTower):
            pos, events = apply_tower(self.board, state, action)
            step = setup_step(self.options, pos)
            return (replace(pos, active=step[1]) if step else pos), events
        if isinstance(action, Move):
            return self._apply_move(state, action, dice)
        if isinstance(action, EndMovement):
            return turn.end_movement(self.board, self.options, state, dice)
        if isinstance(action, Transform):
            return turn.apply_transform(self.board, self.options, state, action)
        if isinstance(action, GodTransform):
            child = state.child(action.piece)
            assert child is not None
            pos = state.with_children([replace(child, aspect=action.aspect)])
            pos = replace(pos, god_transforms_used=state.god_transforms_used + 1)
            return pos, [
                Event.of(
                    "power",
                    f"{action.side.title}'s god turns {child.id} from {child.aspect.title} to {action.aspect.title}.",
                    piece=child.id,
                    aspect=action.aspect.value,
                )
            ]
        if isinstance(action, GodMove):
            god = state.god(action.side)
            pos = replace(state.with_god(replace(god, hex=action.to)), god_moved=True)
            return pos, [Event.of("move", f"{action.side.title}'s god flees to {action.to}.", god=action.side.value, to=action.to)]
        raise TypeError(action)

    def _apply_move(self, state: Position, action: Move, dice: Dice) -> tuple[Position, list[Event]]:
        plan, _ = self._plan(state, action)
        assert plan is not None
        child = state.child(action.piece)
        assert child is not None
        events: list[Event] = []
        name = f"{child.side.title} {child.aspect.title} {child.id}"
        pos = replace(state, moved=state.moved | {child.id})
        for step in plan.fault_steps:
            crossed = plan.path[step]
            roll = dice.roll(6, f"{child.id} crossing the fault into {crossed.label()}")
            dies = roll in FAULT_DEATH
            events.append(
                Event.of(
                    "roll",
                    f"{name} crosses a Fault of Chaos: rolled {roll}, {'it is lost in the fault' if dies else 'no effect'}.",
                    piece=child.id,
                    roll=roll,
                    hex=crossed,
                )
            )
            if dies:
                pos = turn.eliminate(self.board, self.options, pos, [child])
                events.append(Event.of("elimination", f"{name} is destroyed by the Fault of Chaos.", piece=child.id, cause="fault"))
                return pos, events
        if plan.into_chaos:
            if self.options.chaos_gambit_1:
                pos = turn.eliminate(self.board, self.options, pos, [child])  # under its Tower, as though destroyed
                text = f"{name} goes into Chaos and returns beneath its Tower."
            else:
                pos = replace(pos.without_children({child.id}), lost=by_side(pos.lost + ((child.side, child.id),)))
                text = f"{name} goes into Chaos Itself and is lost for good."
            events.append(Event.of("lost", text, piece=child.id))
            return pos, events
        pos = pos.with_children([replace(child, hex=plan.to)])
        if plan.obstacle:
            used = dict(pos.obstacles_used)
            used[plan.to] = used.get(plan.to, 0) + 1
            pos = replace(pos, obstacles_used=tuple(sorted(used.items())))
        text = f"{name} moves from {child.hex} to {plan.to}."
        if plan.god_attack:
            pos = replace(pos, god_attacked=True)
            text = f"{name} moves from {child.hex} to {plan.to} and attacks the god {child.side.other().title}!"
        elif plan.fight:
            text = f"{name} moves from {child.hex} to {plan.to} and meets the enemy there: combat."
        events.insert(0, Event.of("move", text, piece=child.id, frm=child.hex, to=plan.to))
        return pos, events

    # -- result and views ---------------------------------------------------------------
    def outcome(self, state: Position) -> Outcome | None:
        for god in state.gods:
            if god.hex is not None and god.lives <= 0:
                return Outcome(god.side.other().value, f"{god.side.title} has lost all its lives")
        if state.drawn:
            return Outcome(None, "no children left on either side")
        return None

    def view(self, state: Position, player: str | None) -> Position:
        if player is None or state.combat is None:
            return state
        me = Side(player)
        c = state.combat
        pending = tuple((s, a if s is me else None) for s, a in c.pending)
        return replace(state, combat=replace(c, pending=pending))

    # -- JSON -----------------------------------------------------------------------------
    def state_to_json(self, state: Position) -> dict[str, Any]:
        return codec.position_to_json(state)

    def state_from_json(self, data: Any) -> Position:
        pos = codec.position_from_json(data, self.options)
        moving = self.options.moving_towers is not None
        codec.check_on_map(pos, self.board, self.options.stacking_limit, moving_towers=moving)
        return pos

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return codec.action_to_json(action)

    def action_from_json(self, data: Any) -> Action:
        return codec.action_from_json(data)

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
from rules.geometry import Hex
from rules.oneworld import codec
from rules.oneworld.board import OneWorldMap, bundled_map, parse_map
from rules.oneworld.combat import losses
from rules.oneworld.model import (
    Action,
    Aspect,
    Child,
    ChooseTower,
    Combat,
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
from rules.oneworld.options import OneWorldOptions, TowerDirection
from rules.oneworld.setup import apply_setup, apply_tower, check_setup, check_tower, setup_step

__all__ = ["OneWorld"]

FAULT_DEATH = (1, 2)  # chart 13.2
TOWER_CHART = {1: Aspect.STONE, 2: Aspect.STONE, 3: Aspect.BLADE, 4: Aspect.BLADE, 5: Aspect.FOG, 6: Aspect.FOG}
FRUSTRATION_ROUNDS = 3


class OneWorld(GameRules[Position, Action]):
    name = "oneworld"
    title = "OneWorld"

    def __init__(self, options: OneWorldOptions | None = None, board: OneWorldMap | None = None) -> None:
        self.options = options or OneWorldOptions()
        if board is None:
            board = parse_map(self.options.map_text) if self.options.map_text else bundled_map(self.options.map)
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
            return self._end_movement(state, dice)
        if isinstance(action, Transform):
            return self._apply_transform(state, action)
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

    def _eliminate(self, pos: Position, children: list[Child]) -> Position:
        """Dead children go under their Tower (into the dead pile without Towers)."""
        ids = {c.id for c in children}
        pos = pos.without_children(ids)
        entries = tuple((c.side, c.id) for c in children)
        if self.options.towers_in_play:
            return replace(pos, under_tower=by_side(pos.under_tower + entries))
        return replace(pos, lost=by_side(pos.lost + entries))

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
                pos = self._eliminate(pos, [child])
                events.append(Event.of("elimination", f"{name} is destroyed by the Fault of Chaos.", piece=child.id, cause="fault"))
                return pos, events
        if plan.into_chaos:
            if self.options.chaos_gambit_1:
                pos = self._eliminate(pos, [child])  # under its Tower, as though destroyed
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

    # -- reinforcement and combat ----------------------------------------------------------
    def _end_movement(self, state: Position, dice: Dice) -> tuple[Position, list[Event]]:
        pos, events = self._reinforce(state, dice)
        fights = sorted({c.hex for c in pos.children if pos.children_at(c.hex, c.side.other())})
        enemy_god = pos.god(pos.active.other()).hex
        attack = [enemy_god] if enemy_god is not None and pos.children_at(enemy_god, pos.active) else []
        combats = tuple(attack + fights)
        if not combats:
            pos2, more = self._end_turn(pos)
            return pos2, events + more
        pos = replace(pos, phase=Phase.COMBAT, combats=combats, combat=Combat(combats[0], against_god=bool(attack)))
        events.append(Event.of("phase", f"Combat at {', '.join(h.label() for h in combats)}.", hexes=list(combats)))
        return pos, events

    def _reinforce(self, pos: Position, dice: Dice) -> tuple[Position, list[Event]]:
        side = pos.active
        o = self.options
        reserve = pos.reserve(side)
        if not o.towers_in_play or not reserve:
            return pos, []
        on_map = len(pos.children_of(side))
        if on_map >= o.children_per_side:
            return pos, []
        if o.more_balance and on_map >= len(pos.children_of(side.other())):
            return pos, [Event.of("reinforcement", f"No reinforcement for {side.title}: it does not have fewer children.", side=side.value)]
        events: list[Event] = []
        if o.non_aligned_towers:
            left, right = self.board.tower_hexes()
            r = dice.roll(6, "which Tower brings the reinforcement (odd: left, even: right)")
            tower = left if r % 2 else right
            events.append(Event.of("roll", f"Rolled {r}: the reinforcement appears at the {'left' if r % 2 else 'right'}-hand Tower.", roll=r))
        else:
            t = pos.tower_of(side)
            if t is None:
                return pos, []
            tower = t
        if len(pos.children_at(tower, side)) >= o.stacking_limit or pos.children_at(tower, side.other()):
            events.append(Event.of("reinforcement", f"The Tower at {tower} is full: no reinforcement.", side=side.value))
            return pos, events
        roll = dice.roll(6, f"{side.title}'s reinforcement (Tower chart)")
        aspect = TOWER_CHART[roll]
        piece = reserve[0]
        under = list(pos.under_tower)
        under.remove((side, piece))
        pos = replace(pos, under_tower=tuple(under)).with_children([Child(piece, side, aspect, tower)])
        events.append(
            Event.of(
                "reinforcement",
                f"Rolled {roll}: {side.title} gains a {aspect.title} ({piece}) on the Tower at {tower}.",
                side=side.value,
                piece=piece,
                aspect=aspect.value,
                roll=roll,
                hex=tower,
            )
        )
        return pos, events

    def _apply_transform(self, state: Position, action: Transform) -> tuple[Position, list[Event]]:
        c = state.combat
        assert c is not None
        c = replace(c, pending=c.pending + ((action.side, tuple(action.aspects)),))
        pos = replace(state, combat=c)
        if not (c.submitted(Side.BORG) and c.submitted(Side.CHEZ)):
            return pos, [Event.of("combat", f"{action.side.title} has chosen in secret.", side=action.side.value)]
        if c.against_god:
            return self._resolve_god(pos)
        return self._resolve_round(pos)

    def _resolve_round(self, pos: Position) -> tuple[Position, list[Event]]:
        c = pos.combat
        assert c is not None
        chosen = {s: sorted(c.chosen(s) or (), key=_aspect_order) for s in Side}
        lost_b, lost_c = losses(chosen[Side.BORG], chosen[Side.CHEZ])
        lost = {Side.BORG: lost_b, Side.CHEZ: lost_c}
        # Survivors show the aspects they hurled; the dead go under their Towers.
        updated: list[Child] = []
        dead: list[Child] = []
        for side in Side:
            mine = sorted(pos.children_at(c.hex, side), key=lambda ch: ch.id)
            assigned = [replace(ch, aspect=a) for ch, a in zip(mine, chosen[side])]
            for aspect, n in lost[side].items():
                victims = [ch for ch in assigned if ch.aspect is aspect][-n:]
                dead.extend(victims)
            updated.extend(ch for ch in assigned if ch not in dead)
        pos = pos.with_children(updated)
        pos = self._eliminate(pos, dead)
        rounds = c.rounds + 1
        quiet = 0 if dead else c.quiet_rounds + 1
        reveal = "; ".join(f"{s.title} {'+'.join(a.title for a in chosen[s])}" for s in Side)
        killed = ", ".join(f"{ch.side.title} {ch.aspect.title} {ch.id}" for ch in dead) or "nobody"
        events = [
            Event.of(
                "combat-round",
                f"Round {rounds} at {c.hex}: {reveal}. Eliminated: {killed}.",
                hex=c.hex,
                round=rounds,
                borg=[a.value for a in chosen[Side.BORG]],
                chez=[a.value for a in chosen[Side.CHEZ]],
                eliminated=[ch.id for ch in dead],
            )
        ]
        for ch in dead:
            events.append(Event.of("elimination", f"{ch.side.title} {ch.aspect.title} {ch.id} is eliminated.", piece=ch.id, cause="combat"))
        left = {s: pos.children_at(c.hex, s) for s in Side}
        if self.options.frustration_clause and quiet >= FRUSTRATION_ROUNDS and left[Side.BORG] and left[Side.CHEZ]:
            both = list(left[Side.BORG] + left[Side.CHEZ])
            pos = self._eliminate(pos, both)
            events.append(Event.of("elimination", f"Frustration: {FRUSTRATION_ROUNDS} rounds without a loss at {c.hex}; both sides are eliminated.", hex=c.hex, cause="frustration"))
            left = {s: () for s in Side}
        if left[Side.BORG] and left[Side.CHEZ]:
            return replace(pos, combat=Combat(c.hex, rounds=rounds, quiet_rounds=quiet)), events
        winner = next((s for s in Side if left[s]), None)
        events.append(
            Event.of(
                "combat",
                f"Combat at {c.hex} is over: {winner.title + ' holds the hex' if winner else 'nobody is left'}.",
                hex=c.hex,
                winner=winner.value if winner else None,
            )
        )
        pos2, more = self._next_combat(pos)
        return pos2, events + more

    def _resolve_god(self, pos: Position) -> tuple[Position, list[Event]]:
        c = pos.combat
        assert c is not None
        attacker = pos.active
        defender = attacker.other()
        child_aspect = (c.chosen(attacker) or (Aspect.STONE,))[0]
        god_aspect = (c.chosen(defender) or (Aspect.STONE,))[0]
        child = pos.children_at(c.hex, attacker)[0]
        events = [
            Event.of(
                "attack",
                f"{defender.title} announces {god_aspect.title}; the child {child.id} shows {child_aspect.title}.",
                hex=c.hex,
                child=child_aspect.value,
                god=god_aspect.value,
            )
        ]
        god = pos.god(defender)
        if child_aspect.beats(god_aspect):
            god = replace(god, lives=god.lives - 1)
            pos = pos.with_god(god)
            events.append(Event.of("life-lost", f"{defender.title} loses a life! {god.lives} left.", side=defender.value, lives=god.lives))
        else:
            events.append(Event.of("combat", f"{defender.title} loses no life.", side=defender.value))
        pos = self._eliminate(pos, [replace(child, aspect=child_aspect)])
        events.append(Event.of("elimination", f"The attacking child {child.id} is destroyed, as attackers of a god always are.", piece=child.id, cause="god"))
        if god.lives <= 0:
            pos = replace(pos, phase=Phase.OVER, combat=None, combats=())
            events.append(Event.of("victory", f"{defender.title} has no lives left. {attacker.title} wins!", winner=attacker.value))
            return pos, events
        pos2, more = self._next_combat(pos)
        return pos2, events + more

    def _next_combat(self, pos: Position) -> tuple[Position, list[Event]]:
        rest = pos.combats[1:]
        if rest:
            return replace(pos, combats=rest, combat=Combat(rest[0])), []
        return self._end_turn(replace(pos, combats=(), combat=None))

    def _end_turn(self, pos: Position) -> tuple[Position, list[Event]]:
        events: list[Event] = []
        side = pos.active
        if self.options.moving_towers and pos.tower_of(side) is not None:
            pos, ev = self._move_tower(pos, side)
            events.extend(ev)
        if not self.options.towers_in_play and not pos.children:
            events.append(Event.of("draw", "Neither god has a child left and no Tower to bring more: a draw.", reason="no-children"))
            return replace(pos, phase=Phase.OVER, drawn=True), events
        nxt = side.other()
        pos = replace(
            pos,
            phase=Phase.MOVEMENT,
            active=nxt,
            turn=pos.turn + 1,
            moved=frozenset(),
            god_attacked=False,
            obstacles_used=(),
            god_transforms_used=0,
            god_moved=False,
            combat=None,
            combats=(),
        )
        events.append(Event.of("turn", f"Turn {pos.turn}: {nxt.title} to move.", side=nxt.value, turn=pos.turn))
        return pos, events

    def _move_tower(self, pos: Position, side: Side) -> tuple[Position, list[Event]]:
        ring = list(self.board.edge_ring())
        current = pos.tower_of(side)
        if current not in ring:
            return pos, []
        step = 1 if self.options.moving_towers is TowerDirection.CLOCKWISE else -1
        i = ring.index(current)
        busy = {c.hex for c in pos.children} | {g.hex for g in pos.gods} | {h for _, h in pos.towers}
        for k in range(1, len(ring)):
            cand = ring[(i + step * k) % len(ring)]
            if cand not in busy:
                towers = tuple((s, cand if s is side else h) for s, h in pos.towers)
                return replace(pos, towers=towers), [
                    Event.of("phase", f"{side.title}'s Tower moves along the edge to {cand}.", side=side.value, to=cand)
                ]
        return pos, []

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


def _aspect_order(a: Aspect) -> int:
    return list(Aspect).index(a)

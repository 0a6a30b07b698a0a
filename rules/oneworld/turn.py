"""The second half of a OneWorld turn: reinforcement, combat rounds, the end of the turn.

Functions of the map, the options and a position; :class:`~rules.oneworld.engine.OneWorld`
calls them once the movement phase is over.
"""

from __future__ import annotations

from dataclasses import replace

from rules.core import Dice, Event
from rules.oneworld.board import OneWorldMap
from rules.oneworld.combat import losses
from rules.oneworld.model import (
    Aspect,
    Child,
    Combat,
    Phase,
    Position,
    Side,
    Transform,
    by_side,
    sort_children,
)
from rules.oneworld.options import OneWorldOptions, TowerDirection

__all__ = ["apply_transform", "eliminate", "end_movement", "end_turn"]

TOWER_CHART = {1: Aspect.STONE, 2: Aspect.STONE, 3: Aspect.BLADE, 4: Aspect.BLADE, 5: Aspect.FOG, 6: Aspect.FOG}
FRUSTRATION_ROUNDS = 3


def eliminate(board: OneWorldMap, options: OneWorldOptions, pos: Position, children: list[Child]) -> Position:
    """Dead children go under their Tower (into the dead pile without Towers)."""
    ids = {c.id for c in children}
    pos = pos.without_children(ids)
    entries = tuple((c.side, c.id) for c in children)
    if options.towers_in_play:
        return replace(pos, under_tower=by_side(pos.under_tower + entries))
    return replace(pos, lost=by_side(pos.lost + entries))

def end_movement(board: OneWorldMap, options: OneWorldOptions, state: Position, dice: Dice) -> tuple[Position, list[Event]]:
    pos, events = reinforce(board, options, state, dice)
    fights = sorted({c.hex for c in pos.children if pos.children_at(c.hex, c.side.other())})
    enemy_god = pos.god(pos.active.other()).hex
    attack = [enemy_god] if enemy_god is not None and pos.children_at(enemy_god, pos.active) else []
    combats = tuple(attack + fights)
    if not combats:
        pos2, more = end_turn(board, options, pos)
        return pos2, events + more
    pos = replace(pos, phase=Phase.COMBAT, combats=combats, combat=Combat(combats[0], against_god=bool(attack)))
    events.append(Event.of("phase", f"Combat at {', '.join(h.label() for h in combats)}.", hexes=list(combats)))
    return pos, events

def reinforce(board: OneWorldMap, options: OneWorldOptions, pos: Position, dice: Dice) -> tuple[Position, list[Event]]:
    side = pos.active
    o = options
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
        left, right = board.tower_hexes()
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

def apply_transform(board: OneWorldMap, options: OneWorldOptions, state: Position, action: Transform) -> tuple[Position, list[Event]]:
    c = state.combat
    assert c is not None
    c = replace(c, pending=c.pending + ((action.side, tuple(action.aspects)),))
    pos = replace(state, combat=c)
    if not (c.submitted(Side.BORG) and c.submitted(Side.CHEZ)):
        return pos, [Event.of("combat", f"{action.side.title} has chosen in secret.", side=action.side.value)]
    if c.against_god:
        return resolve_god(board, options, pos)
    return resolve_round(board, options, pos)

def resolve_round(board: OneWorldMap, options: OneWorldOptions, pos: Position) -> tuple[Position, list[Event]]:
    c = pos.combat
    assert c is not None
    chosen = {s: sorted(c.chosen(s) or (), key=_aspect_order) for s in Side}
    lost_b, lost_c = losses(chosen[Side.BORG], chosen[Side.CHEZ])
    lost = {Side.BORG: lost_b, Side.CHEZ: lost_c}
    # Survivors show the aspects they hurled; the dead go under their Towers.
    updated: list[Child] = []
    dead: list[Child] = []
    for side in Side:
        # Children in number order (B2 before B10), not by the text of their ids.
        mine = sort_children(pos.children_at(c.hex, side))
        assigned = [replace(ch, aspect=a) for ch, a in zip(mine, chosen[side])]
        for aspect, n in lost[side].items():
            victims = [ch for ch in assigned if ch.aspect is aspect][-n:]
            dead.extend(victims)
        updated.extend(ch for ch in assigned if ch not in dead)
    pos = pos.with_children(updated)
    pos = eliminate(board, options, pos, dead)
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
    if options.frustration_clause and quiet >= FRUSTRATION_ROUNDS and left[Side.BORG] and left[Side.CHEZ]:
        both = list(left[Side.BORG] + left[Side.CHEZ])
        pos = eliminate(board, options, pos, both)
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
    pos2, more = next_combat(board, options, pos)
    return pos2, events + more

def resolve_god(board: OneWorldMap, options: OneWorldOptions, pos: Position) -> tuple[Position, list[Event]]:
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
    pos = eliminate(board, options, pos, [replace(child, aspect=child_aspect)])
    events.append(Event.of("elimination", f"The attacking child {child.id} is destroyed, as attackers of a god always are.", piece=child.id, cause="god"))
    if god.lives <= 0:
        pos = replace(pos, phase=Phase.OVER, combat=None, combats=())
        events.append(Event.of("victory", f"{defender.title} has no lives left. {attacker.title} wins!", winner=attacker.value))
        return pos, events
    pos2, more = next_combat(board, options, pos)
    return pos2, events + more

def next_combat(board: OneWorldMap, options: OneWorldOptions, pos: Position) -> tuple[Position, list[Event]]:
    rest = pos.combats[1:]
    if rest:
        return replace(pos, combats=rest, combat=Combat(rest[0])), []
    return end_turn(board, options, replace(pos, combats=(), combat=None))

def end_turn(board: OneWorldMap, options: OneWorldOptions, pos: Position) -> tuple[Position, list[Event]]:
    events: list[Event] = []
    side = pos.active
    if options.moving_towers and pos.tower_of(side) is not None:
        pos, ev = move_tower(board, options, pos, side)
        events.extend(ev)
    if not options.towers_in_play and not pos.children:
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

def move_tower(board: OneWorldMap, options: OneWorldOptions, pos: Position, side: Side) -> tuple[Position, list[Event]]:
    ring = list(board.edge_ring())
    current = pos.tower_of(side)
    if current not in ring:
        return pos, []
    step = 1 if options.moving_towers is TowerDirection.CLOCKWISE else -1
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


def _aspect_order(a: Aspect) -> int:
    return list(Aspect).index(a)

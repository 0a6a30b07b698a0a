"""Passing the turn: to the next army in seat order, at once when nothing can be done, and
removing an army whose god was captured."""

from __future__ import annotations

from dataclasses import replace

from rules.core import Event
from rules.when_gods_collide.listing import has_movement
from rules.when_gods_collide.model import Army, HeroFace, Phase, WgcState
from rules.when_gods_collide.options import LostTurn, WgcOptions

__all__ = ["can_call_hero", "eliminate", "end_turn", "settle"]


def _name(army: Army) -> str:
    return army.culture


def can_call_hero(state: WgcState, options: WgcOptions) -> bool:
    """Whether the player to move may roll the hero die now (a 6, once a turn, if in play)."""
    roll = state.roll
    return (
        options.hero_die
        and state.phase is Phase.MOVE
        and roll is not None
        and roll.hero is None
        and roll.number == 6
    )


def eliminate(state: WgcState, army: Army, events: list[Event]) -> WgcState:
    """Take ``army`` (its god captured) out of play with every checker fighting for it."""
    gone = [c for c in state.checkers if c.side is army]
    many = len(gone) != 1
    events.append(
        Event.of(
            "elimination",
            f"The {_name(army)} army is out of the game: its {len(gone)} remaining "
            f"checker{'s leave' if many else ' leaves'} the board.",
            army=army.value,
            removed=len(gone),
        )
    )
    return replace(
        state,
        alive=tuple(a for a in state.alive if a is not army),
        checkers=tuple(c for c in state.checkers if c.side is not army),
        skip=state.skip - {army},
    )


def end_turn(state: WgcState, events: list[Event]) -> WgcState:
    """Hand the dice to the next army in seat order (skipping any that lose this turn)."""
    current = state.current
    assert current is not None
    i = state.alive.index(current)
    order = state.alive[i + 1 :] + state.alive[: i + 1]
    skip = set(state.skip)
    nxt = current
    for candidate in order + order:
        if candidate in skip:
            skip.discard(candidate)
            events.append(
                Event.of("turn", f"{_name(candidate)} loses this turn.", player=candidate.value)
            )
            continue
        nxt = candidate
        break
    events.append(Event.of("turn", f"{_name(nxt)} to roll.", player=nxt.value))
    return replace(state, phase=Phase.ROLL, current=nxt, roll=None, skip=frozenset(skip))


def settle(state: WgcState, options: WgcOptions, events: list[Event]) -> WgcState:
    """Pass the turn at once when the player to move can neither move nor call the hero die."""
    if state.phase is not Phase.MOVE or can_call_hero(state, options):
        return state
    if has_movement(state, options):
        return state
    roll, mover = state.roll, state.current
    assert roll is not None and mover is not None
    if roll.hero is HeroFace.SETH:
        events.append(
            Event.of(
                "turn",
                f"Seth finds no checker {_name(mover)} can convert: {_name(mover)} loses the turn.",
                player=mover.value,
            )
        )
        if options.seth_lost_turn is LostTurn.NEXT:
            state = replace(state, skip=state.skip | {mover})
    else:
        dice = roll.hero.title if roll.hero is not None else f"{roll.chess.title} {roll.number}"
        events.append(
            Event.of(
                "turn",
                f"{_name(mover)} has no legal movement ({dice}); the turn passes.",
                player=mover.value,
            )
        )
    return end_turn(state, events)

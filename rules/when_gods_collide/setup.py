"""Set-up: the roll-off for the first tile, laying tiles in turn, and placing the armies.

* Roll-off: every army rolls the numbered die in seat order; the highest lays the first
  tile (and later moves first); tied highest armies roll again.
* Tiles: from the first army on, in seat order, one tile per turn until every army has laid
  its share. A tile is a 2x2 block at even coordinates; after the first, each must share an
  edge with a tile already down.
* Armies: each army places its checkers one by one on squares of its own tiles, all armies
  at once. With ``referee_sees_gods`` one of them must be marked as the god checker (shown
  to the referee alone); without it, the referee learns gods only when they are turned over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from rules.core import Event, Verdict
from rules.geometry import Square
from rules.when_gods_collide.actions import FirstRoll, LayTile, Place
from rules.when_gods_collide.knowledge import normalize
from rules.when_gods_collide.model import (
    Army,
    Checker,
    Identity,
    Phase,
    Tile,
    WgcState,
    sorted_checkers,
)
from rules.when_gods_collide.options import WgcOptions

__all__ = [
    "start",
    "tile_problem",
    "board_problem",
    "first_roll",
    "lay_tile",
    "place",
    "check_tile",
    "check_place",
    "tile_choices",
    "place_choices",
    "placed",
    "deploying",
]


def start(options: WgcOptions) -> WgcState:
    """The state before anything is on the table."""
    if options.first_army is not None:
        first = options.first_army
        return WgcState(Phase.TILES, options.armies, current=first, first=first)
    rolloff = tuple((a, None) for a in options.armies)
    return WgcState(Phase.FIRST_ROLL, options.armies, rolloff=rolloff)


def first_roll(state: WgcState, action: FirstRoll) -> tuple[WgcState, list[Event]]:
    entries = list(state.rolloff)
    i = next(i for i, (_, n) in enumerate(entries) if n is None)
    army = entries[i][0]
    entries[i] = (army, action.number)
    events = [
        Event.of(
            "roll",
            f"{army.culture} rolls {action.number} for the first tile.",
            player=army.value,
            number=action.number,
        )
    ]
    if any(n is None for _, n in entries):
        return replace(state, rolloff=tuple(entries)), events
    top = max(n for _, n in entries if n is not None)
    best = [a for a, n in entries if n == top]
    if len(best) > 1:
        names = " and ".join(a.culture for a in best)
        events.append(Event.of("roll", f"{names} tie with {top}: they roll again.", number=top))
        return replace(state, rolloff=tuple((a, None) for a in best)), events
    winner = best[0]
    events.append(
        Event.of(
            "phase",
            f"{winner.culture} lays the first tile and will move first.",
            player=winner.value,
        )
    )
    return replace(state, phase=Phase.TILES, current=winner, first=winner, rolloff=()), events


def tile_problem(origins: Iterable[Square], at: Square) -> tuple[str, str] | None:
    """Why a tile cannot be laid at ``at`` next to tiles at ``origins`` (``None``: it can)."""
    laid = set(origins)
    if at.x % 2 or at.y % 2:
        return "tile-misaligned", (
            f"A tile's top-left square has even coordinates; {at} does not line up with the grid."
        )
    if at in laid:
        return "tile-overlap", f"A tile already covers {at}."
    if laid and not laid & set(Tile(at, Army.GREEK).neighbours()):
        return "tile-detached", f"A tile at {at} would not touch the board along an edge."
    return None


def board_problem(tiles: Iterable[Tile]) -> tuple[int, str] | None:
    """The first tile (by index) that breaks the set-up rule, with the reason.

    A set of tiles is a legal board when it could have been laid one by one, each touching
    an earlier one along an edge: that is, when the tiles are aligned, distinct and
    edge-connected.
    """
    tiles = list(tiles)
    seen: dict[Square, int] = {}
    for i, tile in enumerate(tiles):
        if tile.at.x % 2 or tile.at.y % 2:
            return i, f"{tile.at} is not a tile corner (both coordinates must be even)"
        if tile.at in seen:
            return i, f"a tile at {tile.at} is listed twice"
        seen[tile.at] = i
    if not tiles:
        return None
    reached = {tiles[0].at}
    frontier = [tiles[0]]
    while frontier:
        tile = frontier.pop()
        for nb in tile.neighbours():
            if nb in seen and nb not in reached:
                reached.add(nb)
                frontier.append(tiles[seen[nb]])
    for i, tile in enumerate(tiles):
        if tile.at not in reached:
            return i, f"the tile at {tile.at} does not touch the rest of the board along an edge"
    return None


def check_tile(state: WgcState, action: LayTile) -> Verdict:
    problem = tile_problem(state.board.origins, action.at)
    return Verdict.illegal(*problem) if problem else Verdict.ok()


def lay_tile(state: WgcState, options: WgcOptions, action: LayTile) -> tuple[WgcState, list[Event]]:
    army = state.current
    assert army is not None
    tiles = state.tiles + (Tile(action.at, army),)
    events = [
        Event.of(
            "setup",
            f"{army.culture} lays a tile at {action.at}.",
            player=army.value,
            at=str(action.at),
        )
    ]
    if len(tiles) == len(state.alive) * options.tiles_per_army:
        events.append(Event.of("phase", "The battlefield is complete: place your armies."))
        return replace(state, phase=Phase.DEPLOY, tiles=tiles, current=None), events
    i = state.alive.index(army)
    nxt = state.alive[(i + 1) % len(state.alive)]
    return replace(state, tiles=tiles, current=nxt), events


def tile_choices(state: WgcState) -> list[LayTile]:
    """Where the next tile may go (the very first: the origin, standing for anywhere)."""
    origins = state.board.origins
    if not origins:
        return [LayTile(Square(0, 0))]
    spots = {nb for t in state.tiles for nb in t.neighbours() if nb not in origins}
    return [LayTile(sq) for sq in sorted(spots, key=lambda s: (s.y, s.x))]


def placed(state: WgcState, army: Army) -> list[Checker]:
    return [c for c in state.checkers if c.army is army]


def check_place(state: WgcState, options: WgcOptions, action: Place) -> Verdict:
    army, at = action.army, action.at
    if army not in state.alive:
        return Verdict.illegal("not-playing", f"The {army.culture} army is not in this game.")
    mine = placed(state, army)
    if len(mine) >= options.checkers_per_army:
        return Verdict.illegal(
            "army-deployed", f"All {options.checkers_per_army} {army.culture} checkers are placed."
        )
    owner = state.board.owner.get(at)
    if owner is None:
        return Verdict.illegal("not-a-square", f"{at} is a gap, not a square of the board.")
    if owner is not army:
        return Verdict.illegal(
            "not-own-tile", f"{at} is on a {owner.culture} tile; place on your own tiles."
        )
    if at in state.occupant:
        return Verdict.illegal("square-occupied", f"A checker already stands on {at}.")
    has_god = any(c.identity is Identity.GOD for c in mine)
    if action.god:
        if not options.referee_sees_gods:
            return Verdict.illegal(
                "referee-not-told", "In this game the referee is not shown the god checkers."
            )
        if has_god:
            return Verdict.illegal(
                "god-already-placed", f"The {army.culture} god checker is placed."
            )
    elif (
        options.referee_sees_gods
        and not has_god
        and len(mine) == options.checkers_per_army - 1
    ):
        return Verdict.illegal(
            "god-missing",
            f"This is the last {army.culture} checker and no god checker has been shown to the "
            "referee: this one must be it.",
        )
    return Verdict.ok()


def place(state: WgcState, options: WgcOptions, action: Place) -> tuple[WgcState, list[Event]]:
    if action.god:
        identity = Identity.GOD
    else:
        identity = Identity.MORTAL if options.referee_sees_gods else Identity.UNKNOWN
    checker = Checker(action.at, action.army, action.army, identity)
    state = replace(state, checkers=sorted_checkers((*state.checkers, checker)))
    events = [
        Event.of(
            "setup",
            f"{action.army.culture} places a checker on {action.at}.",
            player=action.army.value,
            at=str(action.at),
        )
    ]
    if all(len(placed(state, a)) == options.checkers_per_army for a in state.alive):
        first = state.first or state.alive[0]
        events.append(
            Event.of(
                "phase",
                f"The armies stand ready. {first.culture} rolls first.",
                player=first.value,
            )
        )
        state = normalize(replace(state, phase=Phase.ROLL, current=first, first=first))
    return state, events


def place_choices(state: WgcState, options: WgcOptions) -> list[Place]:
    out: list[Place] = []
    for army in deploying(state, options):
        mine = placed(state, army)
        has_god = any(c.identity is Identity.GOD for c in mine)
        last = len(mine) == options.checkers_per_army - 1
        if not options.referee_sees_gods or has_god:
            flags = [False]
        else:
            flags = [True] if last else [False, True]
        for tile in state.tiles:
            if tile.owner is not army:
                continue
            for sq in tile.squares():
                if sq not in state.occupant:
                    out.extend(Place(army, sq, flag) for flag in flags)
    return out


def deploying(state: WgcState, options: WgcOptions) -> tuple[Army, ...]:
    """Armies still placing checkers."""
    return tuple(a for a in state.alive if len(placed(state, a)) < options.checkers_per_army)

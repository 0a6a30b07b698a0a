"""Checks a position read from JSON against the rules; each problem names its field.

>>> from rules.when_gods_collide.options import WgcOptions
>>> from rules.when_gods_collide.codec import read_state
>>> data = {"phase": "tiles", "alive": ["greek", "norse"], "current": "greek",
...         "tiles": [{"at": "0,0", "owner": "greek"}, {"at": "4,0", "owner": "norse"}]}
>>> opts = WgcOptions.from_json({"armies": ["greek", "norse"]})
>>> try:
...     check_state(read_state(data, opts.armies), opts)
... except FormatError as err:
...     print(err.field, "-", err.detail)
position.tiles[1] - the tile at 4,0 does not touch the rest of the board along an edge
"""

from __future__ import annotations

from collections import Counter

from rules.errors import FormatError
from rules.jsonutil import path
from rules.when_gods_collide.model import Identity, Phase, WgcState
from rules.when_gods_collide.options import WgcOptions
from rules.when_gods_collide.setup import board_problem

__all__ = ["check_state"]

_SETUP = (Phase.FIRST_ROLL, Phase.TILES, Phase.DEPLOY)
_PLAY = (Phase.ROLL, Phase.MOVE, Phase.HERO_ROLL)


def check_state(state: WgcState, options: WgcOptions, where: str = "position") -> None:
    """Raise :class:`FormatError` for the first thing in ``state`` the rules do not allow."""
    _check_players(state, options, where)
    _check_tiles(state, options, where)
    _check_checkers(state, options, where)
    _check_turn(state, where)


def _check_players(state: WgcState, options: WgcOptions, where: str) -> None:
    phase = state.phase
    if phase in _SETUP and state.alive != options.armies:
        raise FormatError(path(where, "alive"), "every army is in play during set-up")
    if phase is Phase.OVER and len(state.alive) != 1:
        raise FormatError(path(where, "alive"), "a finished game has exactly one army left")
    if phase is not Phase.OVER and len(state.alive) < 2:
        raise FormatError(path(where, "alive"), "a game in progress needs at least two armies")
    needs_current = phase in (Phase.TILES, *_PLAY)
    if needs_current and state.current is None:
        raise FormatError(path(where, "current"), f"the {phase.value} phase needs a player to act")
    if not needs_current and state.current is not None:
        raise FormatError(
            path(where, "current"), f"no single player acts in the {phase.value} phase"
        )
    if state.current is not None and state.current not in state.alive:
        raise FormatError(path(where, "current"), f"{state.current.value} is out of the game")
    for army in state.skip:
        if army not in state.alive:
            raise FormatError(path(where, "skip"), f"{army.value} is out of the game")
    if phase is Phase.FIRST_ROLL:
        if not state.rolloff:
            raise FormatError(path(where, "rolloff"), "the roll-off needs at least one army")
        names = [a for a, _ in state.rolloff]
        if len(set(names)) != len(names):
            raise FormatError(path(where, "rolloff"), "an army appears twice")
        rolled = [n is not None for _, n in state.rolloff]
        if all(rolled) or rolled != sorted(rolled, reverse=True):
            raise FormatError(
                path(where, "rolloff"), "armies roll in order and at least one is still to roll"
            )
    elif state.rolloff:
        raise FormatError(path(where, "rolloff"), "only the first-roll phase has a roll-off")
    if phase in (Phase.MOVE, Phase.HERO_ROLL):
        if state.roll is None:
            raise FormatError(path(where, "roll"), f"the {phase.value} phase needs the turn's dice")
        if phase is Phase.HERO_ROLL and (state.roll.hero is not None or state.roll.number != 6):
            raise FormatError(
                path(where, "roll"),
                "the hero die is awaited only after a 6 and before any hero roll",
            )
    elif state.roll is not None:
        raise FormatError(
            path(where, "roll"), f"no dice lie on the table in the {phase.value} phase"
        )


def _check_tiles(state: WgcState, options: WgcOptions, where: str) -> None:
    problem = board_problem(state.tiles)
    if problem is not None:
        index, reason = problem
        raise FormatError(path(path(where, "tiles"), index), reason)
    total = len(options.armies) * options.tiles_per_army
    if state.phase in _SETUP:
        counts = Counter(t.owner for t in state.tiles)
        for army, n in counts.items():
            if n > options.tiles_per_army:
                raise FormatError(
                    path(where, "tiles"),
                    f"{army.value} has {n} tiles; each army lays {options.tiles_per_army}",
                )
        if state.phase is Phase.FIRST_ROLL and state.tiles:
            raise FormatError(path(where, "tiles"), "no tile is laid before the roll-off")
        if state.phase is Phase.TILES and len(state.tiles) >= total:
            raise FormatError(path(where, "tiles"), "every tile is already laid")
        if state.phase is Phase.DEPLOY and len(state.tiles) != total:
            raise FormatError(
                path(where, "tiles"), f"the armies deploy once all {total} tiles are laid"
            )
    elif not state.tiles:
        raise FormatError(path(where, "tiles"), "there is no board")


def _check_checkers(state: WgcState, options: WgcOptions, where: str) -> None:
    board = state.board
    seen: set[object] = set()
    gods: Counter[object] = Counter()
    natives: Counter[object] = Counter()
    for i, c in enumerate(state.checkers):
        here = path(path(where, "checkers"), i)
        if c.at not in board:
            raise FormatError(path(here, "at"), f"{c.at} is not a square of the board")
        if c.at in seen:
            raise FormatError(path(here, "at"), f"two checkers stand on {c.at}")
        seen.add(c.at)
        if state.phase in _SETUP and state.phase is not Phase.DEPLOY:
            raise FormatError(here, "no checker is placed before the armies deploy")
        if state.phase is Phase.DEPLOY:
            if c.converted or c.public or c.seen_by:
                raise FormatError(here, "a checker being placed is plain and face down")
            if board.owner[c.at] is not c.army:
                raise FormatError(path(here, "at"), f"{c.at} is not on a {c.army.value} tile")
        if c.side not in state.alive:
            raise FormatError(path(here, "side"), f"{c.side.value} is out of the game")
        if c.converted and c.identity not in (Identity.MORTAL,):
            raise FormatError(path(here, "identity"), "a converted checker was shown to be mortal")
        if c.identity is Identity.GOD:
            gods[c.side] += 1
            if gods[c.side] > 1:
                raise FormatError(
                    path(here, "identity"), f"{c.side.value} has only one god checker"
                )
        natives[c.army] += 1
        if natives[c.army] > options.checkers_per_army:
            raise FormatError(
                here, f"{c.army.value} has only {options.checkers_per_army} checkers in this game"
            )
    for army, n in state.captured:
        if natives[army] + n > options.checkers_per_army:
            raise FormatError(
                path(path(where, "captured"), army.value),
                f"{army.value} has {options.checkers_per_army} checkers in this game: "
                f"{natives[army]} on the board and {n} captured is too many",
            )
    if state.phase in _SETUP:
        return
    for army in state.alive:
        possible = (Identity.GOD, Identity.UNKNOWN, Identity.HIDDEN)
        if not any(c.side is army and c.identity in possible for c in state.checkers):
            raise FormatError(
                path(where, "checkers"),
                f"{army.value} is in play, so its god checker must be on the board",
            )


def _check_turn(state: WgcState, where: str) -> None:
    if state.phase in (Phase.TILES, Phase.DEPLOY) and state.first is None:
        raise FormatError(path(where, "first"), "the army that laid the first tile must be named")

"""Set-up: each player fills the first two rows of their side, figure by figure.

Each set-up square takes one level (see :mod:`rules.battle_grounds.board`): the Cosmic
figure must stand on one of the two starred level III squares, so while it is still off
the board the last free starred square is kept for it. Both players place at the same
time, in any order; play begins when every set-up square is filled.
"""

from __future__ import annotations

from rules.battle_grounds.board import label
from rules.battle_grounds.roster import PLAYERS, Level
from rules.battle_grounds.state import PLAY, SETUP, Place, State
from rules.battle_grounds.table import Table
from rules.core import Event, Verdict
from rules.geometry import Square

__all__ = [
    "empty_setup_state",
    "setup_players",
    "setup_verdict",
    "setup_actions",
    "apply_setup",
    "default_placements",
]


def empty_setup_state(table: Table) -> State:
    return State(phase=SETUP, to_play=table.options.first_player, board=())


def setup_players(table: Table, state: State) -> tuple[str, ...]:
    """The players who still have empty set-up squares."""
    return tuple(p for p in PLAYERS if any(s not in state.at for s in table.board.setup_squares(p)))


def setup_verdict(table: Table, state: State, action: Place) -> Verdict:
    spec = table.roster.get(action.piece)
    if spec is None:
        return Verdict.illegal("unknown-piece", f"No figure {action.piece!r} is on the roster.")
    if action.piece in state.where:
        return Verdict.illegal(
            "already-placed", f"{spec.name} is already on {label(state.where[action.piece])}."
        )
    board = table.board
    if not board.on_board(action.square):
        return Verdict.illegal(
            "off-board", f"There is no square {label(action.square)} on this board."
        )
    slot = board.setup_slot(action.square, spec.owner)
    if slot is None:
        return Verdict.illegal(
            "not-setup-square",
            f"{spec.name} must start on the first two rows of {spec.owner}'s side; "
            f"{label(action.square)} is not one of them.",
        )
    if action.square in state.at:
        return Verdict.illegal(
            "occupied",
            f"{label(action.square)} already holds {table.name(state.at[action.square])}.",
        )
    if spec.cosmic:
        if not slot.starred:
            return Verdict.illegal(
                "cosmic-needs-star",
                f"The Cosmic figure {spec.name} may only start on a starred square; "
                f"{label(action.square)} is a level {slot} square.",
            )
        return Verdict.ok()
    if spec.level is not slot.level:
        return Verdict.illegal(
            "wrong-level",
            f"{label(action.square)} takes a level {slot.level.value} figure; {spec.name} is level "
            f"{spec.level.value}.",
        )
    if slot.starred and not _cosmic_placed(table, state, spec.owner):
        free_stars = [
            s
            for s in board.setup_squares(spec.owner)
            if s not in state.at
            and (sl := board.setup_slot(s, spec.owner)) is not None
            and sl.starred
        ]
        if len(free_stars) <= 1:
            return Verdict.illegal(
                "star-reserved",
                f"{label(action.square)} is the last starred square and must be kept for "
                f"{spec.owner}'s Cosmic figure.",
            )
    return Verdict.ok()


def _cosmic_placed(table: Table, state: State, player: str) -> bool:
    return any(table.spec(f).cosmic and table.owner(f) == player for _, f in state.board)


def setup_actions(table: Table, state: State) -> list[Place]:
    out: list[Place] = []
    for player in setup_players(table, state):
        squares = [s for s in table.board.setup_squares(player) if s not in state.at]
        for spec in table.roster.figures_of(player):
            if spec.id in state.where:
                continue
            for square in squares:
                action = Place(spec.id, square)
                if setup_verdict(table, state, action).legal:
                    out.append(action)
    return out


def apply_setup(table: Table, state: State, action: Place) -> tuple[State, list[Event]]:
    at = dict(state.at)
    at[action.square] = action.piece
    spec = table.spec(action.piece)
    state = state.with_board(at)
    events = [
        Event.of(
            "setup",
            f"{spec.owner.title()} places {spec.name} ({spec.level.value}) on "
            f"{table.colour_words(action.square)}.",
            piece=action.piece,
            square=label(action.square),
        )
    ]
    if not setup_players(table, state):
        first = table.options.first_player
        state = state.evolve(phase=PLAY, to_play=first, turn=1)
        events.append(
            Event.of("phase", f"Set-up complete. {first.title()} moves first.", player=first)
        )
    return state, events


def default_placements(table: Table) -> list[Place]:
    """A complete, legal set-up: each side's figures in roster order, level by level, the
    Cosmic figure on the first starred square."""
    out: list[Place] = []
    for player in PLAYERS:
        pools: dict[Level, list[str]] = {}
        for spec in table.roster.figures_of(player):
            pools.setdefault(spec.level, []).append(spec.id)
        cosmic_done = False
        squares: list[Square] = table.board.setup_squares(player)
        for square in squares:
            slot = table.board.setup_slot(square, player)
            assert slot is not None
            if slot.starred and not cosmic_done:
                out.append(Place(pools[Level.COSMIC][0], square))
                cosmic_done = True
            else:
                out.append(Place(pools[slot.level].pop(0), square))
    return out

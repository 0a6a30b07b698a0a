"""Setting up a sequence: both players place all their pieces, facing each other.

A set-up is legal when every piece has a unique id, belongs to one of the two sides, lies
wholly on the field (within the measuring tolerance), and each side has at least one
piece. With ``setup_facing_check`` on (the default) every piece must also have some piece
of the other side in its field of vision: that is how the referee reads "facing each
other". Who goes first is settled at the table (a roll or agreement) and given in the
set-up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rules.core import Event, Verdict
from rules.geometry import FieldPoint
from rules.the_game.model import Phase, Piece, PieceSpec, SequenceRecord, Setup, TheGameState
from rules.the_game.options import TheGameOptions
from rules.the_game.sight import observation

__all__ = ["check_setup", "place", "default_setup", "piece_ids"]


def _pieces(setup: Setup, opts: TheGameOptions) -> tuple[Piece, ...]:
    return tuple(
        Piece(s.id, s.side, s.side, s.at, s.facing % 360.0, s.footprint or opts.footprint)
        for s in setup.pieces
    )


def check_setup(setup: Setup, opts: TheGameOptions) -> Verdict:
    """Legal or not, and why (see the module's description)."""
    if setup.first not in opts.sides:
        return Verdict.illegal("unknown-player", f"{setup.first!r} is not a player here; the "
                               f"players are {opts.sides[0]} and {opts.sides[1]}.")
    seen: set[str] = set()
    for spec in setup.pieces:
        if not all(math.isfinite(n) for n in (spec.at.x, spec.at.y, spec.facing)):
            return Verdict.illegal("bad-measurement", f"{spec.id}'s position or facing is not "
                                   "a finite number; measure it again.", piece=spec.id)
        if spec.id in seen:
            return Verdict.illegal("duplicate-piece", f"Two pieces are called {spec.id}; "
                                   "every piece needs its own name.", piece=spec.id)
        seen.add(spec.id)
        if spec.side not in opts.sides:
            return Verdict.illegal("unknown-side", f"{spec.id} belongs to {spec.side!r}, which "
                                   f"is neither {opts.sides[0]} nor {opts.sides[1]}.",
                                   piece=spec.id)
    for side in opts.sides:
        if not any(s.side == side for s in setup.pieces):
            return Verdict.illegal("side-without-pieces",
                                   f"{side.capitalize()} has placed no pieces.", side=side)
    pieces = _pieces(setup, opts)
    tol = opts.tolerance
    for p in pieces:
        xs = [x for x, _ in p.outline]
        ys = [y for _, y in p.outline]
        over = max(-min(xs), -min(ys), max(xs) - opts.field_width, max(ys) - opts.field_depth)
        if over > tol:
            return Verdict.illegal(
                "outside-field",
                f'{p.id} sticks out of the field by {over:.2f}"; place every piece wholly '
                "inside it.", piece=p.id, excess=round(over, 4),
            )
    if opts.setup_facing_check:
        table = observation(pieces, opts, last_piece_rule=False)
        sides = {p.id: p.side for p in pieces}
        for p in pieces:
            if not any(sides[q] != p.side for q in table[p.id].sees):
                return Verdict.illegal(
                    "facing-away",
                    f"{p.id} has no piece of the other side in its field of vision; at the "
                    "start of a sequence both sides face each other.", piece=p.id,
                )
    return Verdict.ok(f"Sequence set up with {len(pieces)} pieces; {setup.first} goes first.")


def place(state: TheGameState, setup: Setup, opts: TheGameOptions) -> tuple[TheGameState, Event]:
    """The state at the start of the sequence's first turn."""
    pieces = _pieces(setup, opts)
    counts = ", ".join(f"{side} {sum(1 for p in pieces if p.side == side)}" for side in opts.sides)
    event = Event.of(
        "setup",
        f"Sequence {state.sequence} of {opts.sequences}: pieces placed ({counts}); "
        f"{setup.first} goes first.",
        sequence=state.sequence, first=setup.first, pieces=len(pieces),
    )
    new = TheGameState(
        sequence=state.sequence, phase=Phase.MOVEMENT, turn=1, first=setup.first,
        next_player=setup.first, pieces=pieces,
        record=SequenceRecord(state.sequence, setup.first), records=state.records,
    )
    return new, event


def piece_ids(opts: TheGameOptions, count: int) -> dict[str, list[str]]:
    """Short piece names per side: the side's initial and a number (``R1``, ``B2``), or the
    side's whole name when both sides share an initial."""
    a, b = opts.sides
    same = a[0].upper() == b[0].upper()
    return {s: [f"{s if same else s[0].upper()}{i + 1}" for i in range(count)] for s in (a, b)}


def default_setup(opts: TheGameOptions, per_side: int = 3, first: str | None = None) -> Setup:
    """A plain set-up: each side in a row a quarter of the way in from its own edge (near
    or far), pieces evenly spread, everyone facing straight at the other row."""
    names = piece_ids(opts, per_side)
    specs: list[PieceSpec] = []
    rows: Sequence[tuple[str, float, float]] = (
        (opts.sides[0], opts.field_depth * 0.25, 90.0),
        (opts.sides[1], opts.field_depth * 0.75, 270.0),
    )
    for side, y, facing in rows:
        for i, pid in enumerate(names[side]):
            x = opts.field_width * (i + 1) / (per_side + 1)
            specs.append(PieceSpec(pid, side, FieldPoint(x, y), facing))
    return Setup(tuple(specs), first or opts.sides[0])

"""Every movement open to the player to move, for ``legal_actions`` and for "must the turn
pass?".

Candidates are built from the geometry alone (:mod:`.movement`); then a movement that would
end on a god checker its power may not take is dropped when the mover already knows that
checker is the god, and actions that turn over checkers the referee cannot name are listed
once per consistent ``gods_found`` (:func:`~.knowledge.reveal_variants`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from rules.geometry import Square, SquareDirection
from rules.when_gods_collide.actions import Convert, Move, PlayAction, Push
from rules.when_gods_collide.knowledge import knows_god, reveal_variants
from rules.when_gods_collide.model import (
    Army,
    ChessFace,
    ConvertMethod,
    HeroFace,
    Identity,
    WgcState,
)
from rules.when_gods_collide.movement import (
    double_knight_targets,
    face_targets,
    princess_chains,
    push_walk,
    slide,
)
from rules.when_gods_collide.options import WgcOptions, WindDistance, WindLanding

__all__ = ["candidates", "legal_play", "has_movement", "tokens_in_use"]

Candidate = tuple[PlayAction, tuple[Square, ...]]


def tokens_in_use(state: WgcState, army: Army) -> int:
    """Seth tokens of ``army`` lying on the board (one per checker it converted)."""
    return sum(1 for c in state.checkers if c.side is army and c.army is not army)


def candidates(state: WgcState, options: WgcOptions) -> Iterator[Candidate]:
    """Movements the geometry allows, each with the squares whose checkers it turns over."""
    roll, mover = state.roll, state.current
    assert roll is not None and mover is not None
    board, sides = state.board, state.sides
    hero, face, number = roll.hero, roll.chess, roll.number
    own = [c.at for c in state.checkers if c.side is mover]

    if hero is HeroFace.GOD_OF_WIND:
        capture = options.wind_landing is WindLanding.CAPTURE
        exact = options.wind_distance is WindDistance.EXACT
        for c in state.checkers:
            if c.side is mover:
                continue
            for d in SquareDirection:
                walk, _ = push_walk(board, sides, c.at, d, number, capture)
                for to in walk[-1:] if exact else walk:
                    yield Push(c.at, to), ((to,) if to in sides else ())
        return
    if hero is HeroFace.SETH:
        methods = []
        if state.captured_count(mover) > 0:
            methods.append(ConvertMethod.REPLACE)
        limit = options.seth_tokens
        tokens_left = limit is None or tokens_in_use(state, mover) < limit
        for c in state.checkers:
            if c.side is mover:
                continue
            usable = list(methods)
            if tokens_left or c.army is mover:
                usable.insert(0, ConvertMethod.TOKEN)
            for method in usable:
                yield Convert(c.at, method), (c.at,)
        return
    for frm in own:
        if hero is HeroFace.PRINCESS:
            yield from _princess(state, frm, face, number)
            continue
        if hero is None:
            targets = face_targets(board, sides, frm, mover, face, number)
        elif hero is HeroFace.IMP:
            found: dict[Square, None] = {}
            for f in ChessFace:
                found.update(dict.fromkeys(face_targets(board, sides, frm, mover, f, number)))
            targets = list(found)
        elif hero is HeroFace.DOUBLE_KNIGHT:
            targets = sorted(double_knight_targets(board, sides, frm, mover), key=_order)
        else:  # Winged Sandals: anywhere on the board without an own checker
            targets = [sq for sq in board.squares() if sides.get(sq) is not mover]
        for to in targets:
            yield Move(frm, to), ((to,) if to in sides else ())


def _princess(state: WgcState, frm: Square, face: ChessFace, number: int) -> Iterator[Candidate]:
    board, sides, mover = state.board, state.sides, state.current
    assert mover is not None
    if face.sliding:
        for d in face.directions:
            path, _ = slide(board, sides, frm, d, mover, number, through_enemies=True)
            # she may stop on any checker she captures (the plain move's end), or go on
            for k, sq in enumerate(path):
                if sq in sides or k == len(path) - 1:
                    yield Move(frm, sq), tuple(t for t in path[: k + 1] if t in sides)
        return
    for chain in princess_chains(board, sides, frm, mover, face, number):
        # every square before the last held an enemy (the chain goes on only after one)
        yield Move(frm, chain[-1], chain[:-1]), chain if chain[-1] in sides else chain[:-1]


def _order(sq: Square) -> tuple[int, int]:
    return sq.y, sq.x


def _forbidden_ends(state: WgcState) -> frozenset[Square]:
    """Squares a movement may not end on: gods the mover knows, when the power spares gods."""
    roll, mover = state.roll, state.current
    assert roll is not None and mover is not None
    if roll.hero is None or roll.hero.can_capture_god:
        return frozenset()
    return frozenset(c.at for c in state.checkers if knows_god(c, mover))


def _ends_on(action: PlayAction, flips: tuple[Square, ...], squares: frozenset[Square]) -> bool:
    if not flips or not squares:
        return False
    end = action.at if isinstance(action, Convert) else action.to
    return flips[-1] == end and end in squares


def legal_play(state: WgcState, options: WgcOptions) -> list[PlayAction]:
    """Every legal movement (with each consistent ``gods_found`` where one is needed)."""
    forbidden = _forbidden_ends(state)
    unknown = any(c.identity is Identity.UNKNOWN for c in state.checkers)
    out: list[PlayAction] = []
    for action, flips in candidates(state, options):
        if _ends_on(action, flips, forbidden):
            continue
        if not unknown or not flips:
            out.append(action)
            continue
        for found in reveal_variants(state, flips):
            out.append(action if found is None else replace(action, gods_found=found))
    return out


def has_movement(state: WgcState, options: WgcOptions) -> bool:
    """Whether the player to move has any legal movement at all."""
    forbidden = _forbidden_ends(state)
    return any(not _ends_on(a, flips, forbidden) for a, flips in candidates(state, options))

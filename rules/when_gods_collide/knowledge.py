"""Who knows which checker is a god: deductions, flips, and each player's view.

Three kinds of knowledge are kept per checker (see :class:`~.model.Checker`):

* the referee's: ``identity`` (``UNKNOWN`` when the referee was not told at set-up);
* everybody's: ``public`` (the face was shown to all, or everyone can deduce it);
* private: ``seen_by`` (players who turned the checker over and found a god they could
  not take - the rulebook's "they now know which checker is the god checker").

A player's view keeps only what that player may know; everything else reads ``HIDDEN``.

>>> from rules.geometry import Square
>>> seen = frozenset({Army.GREEK})
>>> god = Checker(Square(0, 0), Army.NORSE, Army.NORSE, Identity.GOD, seen_by=seen)
>>> other = Checker(Square(1, 0), Army.NORSE, Army.NORSE, Identity.MORTAL)
>>> state = WgcState(Phase.ROLL, (Army.GREEK, Army.NORSE, Army.EGYPTIAN), checkers=(god, other))
>>> [c.identity.value for c in view(state, Army.GREEK).checkers]
['god', 'mortal']
>>> [c.identity.value for c in view(state, Army.EGYPTIAN).checkers]
['hidden', 'hidden']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import product

from rules.geometry import Square
from rules.when_gods_collide.model import Army, Checker, Identity, Phase, WgcState

__all__ = [
    "normalize",
    "view",
    "knows_god",
    "identities",
    "reveal_variants",
    "Problem",
]

Problem = tuple[str, str]
_SETUP = (Phase.FIRST_ROLL, Phase.TILES, Phase.DEPLOY)


def normalize(state: WgcState) -> WgcState:
    """Apply the deductions every state in play must carry (set-up states are left alone).

    For each army still in play: when the referee knows no god and only one of the army's
    checkers is still unknown, that one is the god; once the god is known, the army's other
    unknown checkers are mortal. When all but one of the army's checkers are known to
    everybody (or the god itself is), everybody knows them all.
    """
    if state.phase in _SETUP:
        return state
    checkers = list(state.checkers)
    changed = False
    for army in state.alive:
        idx = [i for i, c in enumerate(checkers) if c.side is army]
        gods = [i for i in idx if checkers[i].identity is Identity.GOD]
        unknown = [i for i in idx if checkers[i].identity is Identity.UNKNOWN]
        if not gods and len(unknown) == 1:
            checkers[unknown[0]] = replace(checkers[unknown[0]], identity=Identity.GOD)
            gods, changed = unknown, True
        elif gods and unknown:
            for i in unknown:
                checkers[i] = replace(checkers[i], identity=Identity.MORTAL)
            changed = True
        hidden = [i for i in idx if not checkers[i].public]
        god_public = any(checkers[i].public for i in gods)
        if hidden and (len(hidden) == 1 or god_public):
            for i in hidden:
                checkers[i] = replace(checkers[i], public=True)
            changed = True
    return replace(state, checkers=tuple(checkers)) if changed else state


def knows_god(checker: Checker, player: Army) -> bool:
    """Whether ``checker`` is a god and ``player`` knows it."""
    return checker.identity is Identity.GOD and checker.known_to(player)


def view(state: WgcState, player: Army | None) -> WgcState:
    """What ``player`` may know of ``state`` (``None``: the referee, who sees everything).

    A player sees the faces of their own checkers, of public ones, of those they turned over
    themselves, and of every checker of a side whose god they know (the rest are mortal).
    Who else has seen a checker is dropped: that alone would point at a god.
    """
    if player is None:
        return state
    known_sides = {c.side for c in state.checkers if knows_god(c, player)}
    out = []
    for c in state.checkers:
        visible = c.known_to(player) or c.side in known_sides
        out.append(
            replace(
                c,
                identity=c.identity if visible else Identity.HIDDEN,
                seen_by=c.seen_by & {player},
            )
        )
    return replace(state, checkers=tuple(out))


def identities(
    state: WgcState, flips: Sequence[Square], gods_found: frozenset[Square] | None
) -> dict[Square, bool] | Problem:
    """Whether each flipped checker is a god, from the referee's knowledge and ``gods_found``.

    Returns a problem (code, sentence) when the referee needs to be told and was not, or
    when what was found cannot be true.
    """
    occupant = state.occupant
    if gods_found is not None:
        for sq in sorted(gods_found - set(flips)):
            return "reveal-not-flipped", f"This action does not turn over a checker on {sq}."
    out: dict[Square, bool] = {}
    for sq in flips:
        c = occupant[sq]
        if c.identity in (Identity.GOD, Identity.MORTAL):
            truth = c.identity is Identity.GOD
            if gods_found is not None and (sq in gods_found) != truth:
                return "reveal-mismatch", (
                    f"What was found under the checker on {sq} does not match what the referee "
                    "was told."
                )
            out[sq] = truth
        elif gods_found is None:
            return "reveal-needed", (
                f"The referee was not told which {c.army.culture} checker is the god: say whether "
                f"the checker on {sq} turned out to be it (gods_found)."
            )
        else:
            out[sq] = sq in gods_found
    by_side: dict[Army, list[Square]] = {}
    for sq in flips:
        by_side.setdefault(occupant[sq].side, []).append(sq)
    for side, squares in by_side.items():
        if sum(out[sq] for sq in squares) > 1:
            return "reveal-mismatch", f"The {side.culture} army has only one god checker."
        if not any(out[sq] for sq in squares) and not _god_elsewhere(state, side, squares):
            return "reveal-mismatch", (
                f"One of the {side.culture} checkers turned over must be the god: no other "
                "could be."
            )
    return out


def _god_elsewhere(state: WgcState, side: Army, flipped: Iterable[Square]) -> bool:
    skip = set(flipped)
    return any(
        c.side is side and c.at not in skip and c.identity in (Identity.GOD, Identity.UNKNOWN)
        for c in state.checkers
    )


def reveal_variants(state: WgcState, flips: Sequence[Square]) -> list[frozenset[Square] | None]:
    """Every consistent ``gods_found`` for an action turning over ``flips``.

    ``[None]`` when the referee knows every flipped checker; otherwise one set per way the
    unknown checkers could turn out (at most one god per army, never leaving an army without
    a possible god), each set also naming the flipped checkers known to be gods.
    """
    occupant = state.occupant
    unknown = [sq for sq in flips if occupant[sq].identity is Identity.UNKNOWN]
    if not unknown:
        return [None]
    known_gods = {sq for sq in flips if occupant[sq].identity is Identity.GOD}
    by_side: dict[Army, list[Square]] = {}
    for sq in unknown:
        by_side.setdefault(occupant[sq].side, []).append(sq)
    choices: list[list[Square | None]] = []
    for side, squares in by_side.items():
        options: list[Square | None] = list(squares)
        if _god_elsewhere(state, side, squares):
            options.append(None)
        choices.append(options)
    return [
        frozenset(known_gods | {sq for sq in combo if sq is not None})
        for combo in product(*choices)
    ]

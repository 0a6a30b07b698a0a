"""The Game: actions read by what they leave on the field.

:func:`tabletop.live.infer.infer` reads The Game's moves by matching points: a piece gone
from its place and a piece arrived elsewhere. Other actions leave the field otherwise: a
piece that walks off (``exit``) is gone and nothing arrives; a piece that acts closes in on
its target (less than the action range, often less than the detector's wander) and, when its
roll succeeds, the target is turned on its side, no longer seen as a piece; when it fails,
the target still stands. Such an action is found by applying each legal exit and act (with
the dice given, as the action would be played) and comparing the field the engine then has
with the field seen: every standing piece seen where the engine puts it (an unmoved piece
within :data:`~tabletop.live.infer.NEAR_IN` of where the camera saw it at the last
position; a piece that closed in within :data:`~tabletop.live.infer.JITTER_IN` of its new
place, offset as the camera saw it), and nothing else seen.

Actions that change nothing on the field (a piece left unmoved, a side that passes, a piece
that does not act or answer) are read from the action after them: see
:func:`passes_before`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from rules.errors import IllegalActionError, RollNeededError
from tabletop.live.board import SeenBoard
from tabletop.live.explain import piece_classes
from tabletop.live.infer import ANCHOR_IN, JITTER_IN, NEAR_IN, legal, locations
from tabletop.live.outcomes import Fixed, Outcome, tried

__all__ = ["CLEAR_IN", "FIELD_ACTIONS", "PASS_DEPTH", "field_awaiting", "field_outcomes", "misfit", "passes_before", "shows"]

#: The actions of The Game read by what they leave on the field.
FIELD_ACTIONS = ("exit", "act")
#: The actions that leave the field as it was: read from the action after them.
STILL_ACTIONS = ("stay", "pass")
#: At most this many such actions in a row are read before one the field shows (a side that
#: leaves its last pieces alone, and the other's action phase that opens with a piece that
#: does not act).
PASS_DEPTH = 3
#: An exit or act is read only when the field it leaves fits what is seen better by at least
#: this much (inches, summed over the pieces) than the field left as it was and than every
#: other such action ending otherwise: the rules' own measuring tolerance. A piece that closed
#: in by less did not visibly; the action after it tells.
CLEAR_IN = 0.25


def _standing(game: Any, state: Any) -> list[tuple[str, str, tuple[float, float]]]:
    """(piece id, detector class, point) of each standing piece."""
    sj = game.state_to_json(state)
    classes = piece_classes(game, sj)
    return [(pid, classes[pid], (float(at[0]), float(at[1]))) for pid, at in locations(game.name, sj)]


def shows(game: Any, state: Any, after: Any, base: SeenBoard, seen: SeenBoard) -> bool:
    """Whether ``seen`` is the field of ``after`` (an engine state one action after
    ``state``, whose field the camera saw as ``base``): see :func:`misfit`."""
    return misfit(game, state, after, base, seen) is not None


def misfit(game: Any, state: Any, after: Any, base: SeenBoard, seen: SeenBoard,
           still: Iterable[str] = ()) -> float | None:
    """How far (inches, summed) the pieces seen lie from where the engine state ``after``
    (one action after ``state``, whose field the camera saw as ``base``) puts them, shifted
    by the offset the camera gave each at ``base`` (the nearest seen piece of its class
    within :data:`ANCHOR_IN`); ``None`` unless each standing piece of ``after`` has one seen
    piece of its class, within :data:`NEAR_IN` when the action left it in place and
    :data:`JITTER_IN` when it moved, and no other piece is seen. ``still``: pieces that
    ``after`` has knocked down, counted as standing where they stood (not laid down yet)."""
    standing = _standing(game, state)
    was = {pid: at for pid, _, at in standing}
    offsets: dict[str, tuple[float, float]] = {}
    used: set[int] = set()
    for pid, cls, at in sorted(standing, key=lambda x: x[0]):
        near = [(math.dist(at, q.point), j) for j, q in enumerate(base.pieces)
                if j not in used and q.cls == cls and math.dist(at, q.point) <= ANCHOR_IN]
        if near:
            j = min(near)[1]
            used.add(j)
            offsets[pid] = (base.pieces[j].point[0] - at[0], base.pieces[j].point[1] - at[1])
    now = _standing(game, after)
    up = {pid for pid, _, _ in now}
    now += [x for x in standing if x[0] in set(still) and x[0] not in up]
    if len(now) != len(seen.pieces):
        return None
    pairs = []
    for pid, cls, at in now:
        dx, dy = offsets.get(pid, (0.0, 0.0))
        moved = pid not in was or math.dist(was[pid], at) > 1e-6
        reach = JITTER_IN if moved else NEAR_IN
        for j, q in enumerate(seen.pieces):
            d = math.dist((at[0] + dx, at[1] + dy), q.point)
            if q.cls == cls and d <= reach:
                pairs.append((d, pid, j))
    matched: set[str] = set()
    taken: set[int] = set()
    total = 0.0
    for d, pid, j in sorted(pairs):
        if pid not in matched and j not in taken:
            matched.add(pid)
            taken.add(j)
            total += d
    return total if len(matched) == len(now) else None


def _candidates(game: Any, state: Any) -> list[Any]:
    return [a for a in legal(game, state) if game.action_to_json(a).get("type") in FIELD_ACTIONS]


def _end(game: Any, state: Any) -> str:
    return json.dumps(game.state_to_json(state), sort_keys=True, default=str)


def _clear(fits: list[tuple[float, int, Any]], null: float | None) -> list[tuple[float, int, Any]]:
    """Of (misfit, order, item), those the field tells from the rest: better than the field
    left as it was (``null``, its misfit; ``None``: the field did change) by at least
    :data:`CLEAR_IN`, and within :data:`CLEAR_IN` of the best."""
    fits = sorted(f for f in fits if null is None or f[0] <= null - CLEAR_IN)
    return [f for f in fits if f[0] <= fits[0][0] + CLEAR_IN] if fits else []


def field_outcomes(game: Any, state: Any, base: SeenBoard, seen: SeenBoard, rolls: Any,
                   wanting: list[Any] | None = None) -> tuple[list[Outcome], bool]:
    """The legal exits and acts whose field is ``seen`` (:func:`misfit`) clearly better than
    the field left as it was and than the others (:func:`_clear`: a piece that closed in by
    less than :data:`CLEAR_IN` did not visibly), applied with the dice given to ``rolls`` (a
    :class:`tabletop.live.pipeline.Rolls`, left as it is: an action whose die is not given is
    added to ``wanting``), best first; and whether they all end in one position (of two
    pieces that did not visibly close in, either may have knocked the target down)."""
    null = misfit(game, state, state, base, seen)
    fits: list[tuple[float, int, Any]] = []
    for k, action in enumerate(_candidates(game, state)):
        outcome = tried(game, state, action, rolls, wanting)
        off = None if outcome is None else misfit(game, state, outcome.step.state, base, seen)
        if off is not None:
            fits.append((off, k, outcome))
    found = [o for *_, o in _clear(fits, null)]
    return found, len({_end(game, o.step.state) for o in found}) == 1


def field_awaiting(game: Any, state: Any, base: SeenBoard, seen: SeenBoard, candidates: Iterable[Any],
                   standing: bool = False) -> list[Any]:
    """Of ``candidates`` (acts whose die is not given), those that some roll of a d6 would
    make leave the field as seen, told apart as :func:`field_outcomes` tells them: the roll
    is then asked for (the field shows whether it succeeded, not what it showed). With
    ``standing``, the field is compared with every piece still standing, whatever the roll
    (the referee rolls, and the target is laid down once its roll says so; an act that cannot
    fail is read too)."""
    null = misfit(game, state, state, base, seen)
    fits: list[tuple[float, int, Any]] = []
    for k, action in enumerate(candidates):
        best = None
        for face in range(1, 7):
            try:
                step = game.apply(state, action, Fixed([face]))
            except (RollNeededError, IllegalActionError):
                continue
            down = [str(e.detail("piece")) for e in step.events if e.kind == "elimination"] if standing else []
            off = misfit(game, state, step.state, base, seen, down)
            if off is not None and (best is None or off < best):
                best = off
        if best is not None:
            fits.append((best, k, action))
    return [a for *_, a in _clear(fits, null)]


def _still(game: Any, state: Any) -> list[Any]:
    """The legal actions now that leave the field as it is: stays first, then a pass."""
    acts = [a for a in legal(game, state) if game.action_to_json(a).get("type") in STILL_ACTIONS]
    return sorted(acts, key=lambda a: game.action_to_json(a).get("type") == "pass")


def passes_before(game: Any, state: Any, rolls: Any, depth: int = PASS_DEPTH) -> Iterator[list[tuple[Any, Any]]]:
    """Runs of up to ``depth`` actions that leave the field as it is (:data:`STILL_ACTIONS`),
    each a list of (action, step) applied with the dice given only, shortest runs first; within
    a length, stays before a pass (a stay leaves the side's other pieces free to move, a pass
    none), then in the engine's order of pieces. Only runs none of whose actions is by the
    player to move after them: the field shows them by the other side acting (a side's own
    pieces left alone never make its own action legal, so a move too long is never read as
    one made a turn later). The caller reads the field after each run and takes the first that
    makes it read as a legal action."""
    runs: list[list[tuple[Any, Any, tuple[str, ...]]]] = [[]]
    for _ in range(depth):
        longer = []
        for run in runs:
            now = run[-1][1].state if run else state
            if game.outcome(now) is not None:
                continue
            for action in _still(game, now):
                try:
                    step = game.apply(now, action, type(rolls)(rolls.given))
                except (RollNeededError, IllegalActionError):
                    continue
                longer.append([*run, (action, step, game.to_move(now))])
        for run in longer:
            if not set(game.to_move(run[-1][1].state)) & {p for *_, who in run for p in who}:
                yield [(action, step) for action, step, _ in run]
        runs = longer

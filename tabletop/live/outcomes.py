"""Reading an action by what the engine says it leaves on the board.

The cost model (:mod:`tabletop.live.explain`) reads a move as one piece that leaves a cell and
arrives at another. Some legal actions change the board otherwise: a fight lost removes the
attacker, a counter that steps into Chaos or is struck by a fault is gone, taking a god
removes its whole army, a Princess captures along her way, a swap exchanges two figures, a
conversion puts a token on a checker. Such an action is found by applying each legal action
that touches what changed (with the game's dice, as the move would be played) and comparing
the cells it changes with the cells seen to change: an action whose change is exactly the
one seen, when all such actions end in the same position, is the action played.

Presence is compared, not counts (a cell either shows a class or not), so like counters
stacked and read as one box neither help nor hurt.

>>> change({("a1", "red"), ("b2", "blue")}, {("a1", "red"), ("c3", "blue")})
(frozenset({('c3', 'blue')}), frozenset({('b2', 'blue')}))
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core import GameRules
from rules.errors import IllegalActionError, RollNeededError
from tabletop.live.board import SeenBoard
from tabletop.live.explain import fixed_pieces, piece_classes
from tabletop.live.infer import PASSES, locations

__all__ = ["Outcome", "change", "engine_cells", "engine_pieces", "exact_outcomes", "seen_cells"]

Cells = frozenset[tuple[str, str]]


def engine_pieces(game: GameRules[Any, Any], state: Any) -> Counter[tuple[str, str]]:
    """(cell, detector class) of everything the engine has on the board, one per piece: its
    pieces, the Towers, gods and coins, and When Gods Collide's Seth tokens on converted
    checkers."""
    sj = game.state_to_json(state)
    classes = piece_classes(game, sj)
    out = Counter((str(cell), classes[piece]) for piece, cell in locations(game.name, sj) if piece in classes)
    out.update((str(cell), kind) for _, cell, kind in fixed_pieces(game.name, sj))
    if game.name == "when-gods-collide":
        out.update((c["at"], f"seth-{c['side']}") for c in sj.get("checkers", [])
                   if c.get("at") and c.get("side") and c["side"] != c["army"])
    return out


def engine_cells(game: GameRules[Any, Any], state: Any) -> Cells:
    """The (cell, detector class) pairs :func:`engine_pieces` has: which classes each cell shows."""
    return frozenset(engine_pieces(game, state))


def seen_cells(board: SeenBoard) -> Cells:
    return frozenset((str(cell), cls) for cell, cls in board.cells())


def change(before: Iterable[tuple[str, str]], after: Iterable[tuple[str, str]]) -> tuple[Cells, Cells]:
    """(added, removed): what ``after`` shows that ``before`` did not, and the reverse."""
    b, a = frozenset(before), frozenset(after)
    return a - b, b - a


@dataclass
class Outcome:
    """A legal action applied: its step, the dice left to give after it and what the dice
    said while it was applied (a seeded roll, to be said once it is played)."""

    action: Any
    step: Any
    given_left: list[int]
    said: list[str] = field(default_factory=list)


def _mentions(value: Any, cells: set[str]) -> bool:
    if isinstance(value, str):
        return value in cells
    if isinstance(value, Mapping):
        return any(_mentions(v, cells) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_mentions(v, cells) for v in value)
    return False


def exact_outcomes(game: GameRules[Any, Any], state: Any, base: SeenBoard, seen: SeenBoard, rolls: Any,
                   among: Iterable[Any] | None = None) -> tuple[list[Outcome], bool]:
    """The legal actions (of ``among``, default all that touch a cell seen to change, and those
    that move nothing themselves but may resolve what does: :data:`tabletop.live.infer.PASSES`) whose
    change to the board is exactly the change from ``base`` to ``seen``, applied with
    ``rolls`` (a :class:`tabletop.live.pipeline.Rolls`; an action whose dice are not given is
    left out), in the engine's order; and whether they all end in one position (two counters
    alike, either moved, end the same; a Princess passing a hidden god or not does not).
    ``rolls`` is left as it was."""
    seen_added, seen_removed = change(seen_cells(base), seen_cells(seen))
    if not seen_added and not seen_removed:
        return [], False
    touched = {cell for cell, _ in seen_added | seen_removed}
    name = game.name
    where = {str(piece): str(cell) for piece, cell in locations(name, game.state_to_json(state))}
    if among is None:
        among = []
        for a in game.legal_actions(state):
            aj = game.action_to_json(a)
            piece = aj.get("piece", aj.get("ship"))
            if _mentions(aj, touched) or (isinstance(piece, str) and where.get(piece) in touched) \
                    or aj.get("type") in PASSES.get(name, ()):  # an end of movement may resolve fights
                among.append(a)
    before = engine_cells(game, state)
    given, say = list(rolls.given), rolls.say
    found: list[Outcome] = []
    ends: set[str] = set()
    for action in among:
        said: list[str] = []
        rolls.say = said.append
        try:
            step = game.apply(state, action, rolls)
        except (RollNeededError, IllegalActionError):
            continue
        finally:
            rolls.say = say
            left, rolls.given[:] = list(rolls.given), given
        if change(before, engine_cells(game, step.state)) == (seen_added, seen_removed):
            found.append(Outcome(action, step, left, said))
            ends.add(json.dumps(game.state_to_json(step.state), sort_keys=True, default=str))
    return found, len(ends) == 1

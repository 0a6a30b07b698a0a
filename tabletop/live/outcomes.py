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
from dataclasses import dataclass
from typing import Any

from rules.core import GameRules
from rules.errors import IllegalActionError, RollNeededError
from tabletop.live.board import SeenBoard
from tabletop.live.explain import fixed_pieces, piece_classes
from tabletop.live.infer import PASSES, legal, locations

__all__ = ["DECIDING", "NAMED_ONLY", "Fixed", "Outcome", "awaiting_dice", "change", "covers", "engine_cells",
           "engine_pieces", "exact_outcomes", "reaches", "seen_cells", "through_choice", "tried"]

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


def covers(seen: tuple[Cells, Cells], expected: tuple[Cells, Cells], laid: Iterable[tuple[str, str]] = ()) -> bool:
    """Whether the change ``seen`` (added, removed) is the change ``expected``, but for
    classes gone from sight where a counter was put on top of them (a cell where ``expected``
    adds something, or where counters are ``laid``), and for the (cell, class) of ``laid``
    newly seen: counters laid on a pile (OneWorld's dead beneath their Tower). A counter put
    on a Tower, a god or a stack hides what lies under it."""
    (s_add, s_rem), (e_add, e_rem) = seen, expected
    laid = frozenset(laid)
    if not e_add <= s_add or not s_add - e_add <= laid or not e_rem <= s_rem:
        return False
    on_top = {cell for cell, _ in e_add} | {cell for cell, _ in laid}
    return all(cell in on_top for cell, _ in s_rem - e_rem)


@dataclass
class Outcome:
    """A legal action applied with the dice given: its step, and the dice left after it."""

    action: Any
    step: Any
    given_left: list[int]


def _mentions(value: Any, cells: set[str]) -> bool:
    if isinstance(value, str):
        return value in cells
    if isinstance(value, Mapping):
        return any(_mentions(v, cells) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_mentions(v, cells) for v in value)
    return False


def exact_outcomes(game: GameRules[Any, Any], state: Any, base: SeenBoard, seen: SeenBoard, rolls: Any,
                   among: Iterable[Any] | None = None,
                   wanting: list[Any] | None = None) -> tuple[list[Outcome], bool]:
    """The legal actions (of ``among``, default all that touch a cell seen to change, and those
    that move nothing themselves but may resolve what does: :data:`tabletop.live.infer.PASSES`) whose
    change to the board is exactly the change from ``base`` to ``seen`` (which classes each
    cell shows; when none is new or gone but some cell shows one more of a class, how many of
    each), applied with
    the dice given to ``rolls`` (a :class:`tabletop.live.pipeline.Rolls`, left as it is: no
    seeded die is drawn for a trial; an action whose dice are not given is left out), in the
    engine's order (those whose dice are not given are added to ``wanting``); and whether they
    all end in one position (two counters
    alike, either moved, end the same; a Princess passing a hidden god or not does not).
    """
    seen_added, seen_removed = change(seen_cells(base), seen_cells(seen))
    counted = not seen_added and not seen_removed  # no class new or gone: compare how many of each
    if counted:  # a counter put on a like one (a reinforcement on a Tower hex already holding its kind)
        seen_added, seen_removed = frozenset(seen.cells() - base.cells()), frozenset(base.cells() - seen.cells())
        if not seen_added:  # one fewer only: like counters stacked read as one box, as often as not
            return [], False
    touched = {cell for cell, _ in seen_added | seen_removed}
    name = game.name
    where = {str(piece): str(cell) for piece, cell in locations(name, game.state_to_json(state))}
    if among is None:
        among = []
        for a in legal(game, state):
            aj = game.action_to_json(a)
            piece = aj.get("piece", aj.get("ship"))
            if _mentions(aj, touched) or (isinstance(piece, str) and where.get(piece) in touched) \
                    or aj.get("type") in PASSES.get(name, ()):  # an end of movement may resolve fights
                among.append(a)
    before = engine_pieces(game, state) if counted else engine_cells(game, state)
    found: list[Outcome] = []
    ends: set[str] = set()
    for action in among:
        outcome = tried(game, state, action, rolls, wanting)
        if outcome is None:
            continue
        if counted:
            after = engine_pieces(game, outcome.step.state)
            shows = (frozenset(after - before), frozenset(before - after))
        else:
            shows = change(before, engine_cells(game, outcome.step.state))
        if covers((seen_added, seen_removed), shows) or \
                (not counted and reaches(game, action, touched)
                 and through_choice(game, outcome.step.state, before, (seen_added, seen_removed))):
            found.append(outcome)
            ends.add(json.dumps(game.state_to_json(outcome.step.state), sort_keys=True, default=str))
    return found, len(ends) == 1


def tried(game: GameRules[Any, Any], state: Any, action: Any, rolls: Any, wanting: list[Any] | None = None
          ) -> Outcome | None:
    """``action`` applied to ``state`` with the dice given to ``rolls`` only (a copy of them:
    a seeded die is drawn once an action is taken), as an :class:`Outcome`; ``None`` when the
    engine refuses it, or when it needs a die not given (it is then added to ``wanting``)."""
    trial = type(rolls)(rolls.given)
    try:
        step = game.apply(state, action, trial)
    except RollNeededError:
        if wanting is not None:
            wanting.append(action)
        return None
    except IllegalActionError:
        return None
    return Outcome(action, step, list(trial.given))


class Fixed:
    """Dice that show ``faces`` in turn, and then none."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def roll(self, sides: int, what: str) -> int:
        if not self.faces:
            raise RollNeededError(what, sides)
        return min(self.faces.pop(0), sides)


#: Games whose dice decide only what the cells an action names then show: a Battle Grounds
#: battle (its stat and its dice say which figure stays, on the attacker's square or the
#: target's; every other square is as it was).
NAMED_ONLY = ("battle-grounds",)


def _named(value: Any) -> set[str]:
    """Every string in an action's JSON (its cells among them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return set().union(*map(_named, value)) if value else set()
    return set()


def reaches(game: GameRules[Any, Any], action: Any, cells: Iterable[str]) -> bool:
    """Whether ``action``, through whatever dice and choices follow it, may change every one
    of ``cells``: in a game of :data:`NAMED_ONLY`, only where it names them all; elsewhere
    always (nothing is known of what its dice may move)."""
    return game.name not in NAMED_ONLY or set(cells) <= _named(game.action_to_json(action))


def awaiting_dice(game: GameRules[Any, Any], state: Any, base: SeenBoard, seen: SeenBoard,
                  candidates: Iterable[Any], most: int = 2) -> list[Any]:
    """Of ``candidates`` (legal actions whose dice are not given), those that some roll of at
    most ``most`` d6 would make change the board exactly as seen from ``base`` to ``seen``
    (a battle lost, its dice thrown on the table but not typed in). In a game of
    :data:`NAMED_ONLY`, an action that does not name every cell seen to change is left
    untried: no roll makes it change the board so (every roll and choice is tried otherwise,
    which takes a fifth of a second for one battle)."""
    from itertools import product

    seen_change = change(seen_cells(base), seen_cells(seen))
    where = {cell for cell, _ in seen_change[0] | seen_change[1]}
    before = engine_cells(game, state)
    out = []
    memo: dict[str, bool] = {}  # many rolls lead to one position waiting for a choice
    for action in candidates:
        if not reaches(game, action, where):
            continue
        for n in range(1, most + 1):
            if any(_matches(game, state, action, faces, before, seen_change, memo)
                   for faces in product(range(1, 7), repeat=n)):
                out.append(action)
                break
    return out


def _matches(game: GameRules[Any, Any], state: Any, action: Any, faces: tuple[int, ...], before: Cells,
             seen_change: tuple[Cells, Cells], memo: dict[str, bool] | None = None) -> bool:
    try:
        step = game.apply(state, action, Fixed(faces))
    except (RollNeededError, IllegalActionError):
        return False
    if change(before, engine_cells(game, step.state)) == seen_change:
        return True
    if memo is None:
        return through_choice(game, step.state, before, seen_change)
    key = json.dumps(game.state_to_json(step.state), sort_keys=True, default=str)
    if key not in memo:
        memo[key] = through_choice(game, step.state, before, seen_change)
    return memo[key]


#: Choices the rules wait for that decide what the board then shows, though the board does not
#: show the choice: an action that leads to one may be what the table shows once it is made.
DECIDING = {"battle-grounds": ("choose-stat",)}


def through_choice(game: GameRules[Any, Any], state: Any, before: Cells, seen_change: tuple[Cells, Cells],
                   depth: int = 2) -> bool:
    """Whether ``state`` waits for a choice of :data:`DECIDING` (a Battle Grounds battle stat,
    chosen by one player, or by each in secret: up to ``depth`` choices in turn) some value of
    which, with some roll of two dice for the battle, changes the board from ``before`` as
    seen. The battle fought out on the table shows its result, never the stat: the action
    that led to it is read, and the choice asked for (:mod:`tabletop.live.choices`)."""
    from itertools import product

    from tabletop.live.choices import awaited

    kinds = DECIDING.get(game.name, ())
    if depth <= 0 or not kinds:
        return False
    for choice in awaited(game, state):
        if game.action_to_json(choice).get("type") not in kinds:
            return False
        for faces in [(), *product(range(1, 7), repeat=2)]:
            try:
                step = game.apply(state, choice, Fixed(faces))
            except RollNeededError:
                continue
            except IllegalActionError:
                break
            if change(before, engine_cells(game, step.state)) == seen_change:
                return True
            if not faces and through_choice(game, step.state, before, seen_change, depth - 1):
                return True  # the first of two secret choices: the second decides with the dice
            if not faces:
                break
    return False

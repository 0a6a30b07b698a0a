"""A roll the rules await as an action, from dice typed in the window or given with ``--rolls``.

Some rolls are actions of their own: When Gods Collide's first-tile roll, the chess die and the
numbered die of a turn, the hero die and the numbered die thrown again with it; Wormholes'
roll-off and the piecepack dice of a turn. They are read off the table when the game's model
reads those dice; when it does not (or no dice are seen), the player throws them and types
them, one key a die, in the order :func:`describe` gives:

* a numbered die (d6) by its number, 1 to 6;
* the chess die and the hero die by the place of the face on the die, 1 to 6, in the order of
  :data:`CHESS` and :data:`HERO` (the window shows it when a roll is awaited);
* a piecepack die by its value: 0 null, 1 ace, 2 to 5.

:func:`typed_chance` picks, among the outcomes the engine lists for the awaited roll, the
one those keys name; it is the engine's own action, so nothing here knows the rules beyond
which die shows what.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import GameRules
from rules.when_gods_collide.model import ChessFace, HeroFace
from rules.wormholes.model import Suit

__all__ = ["CHESS", "HERO", "TypedDiceError", "describe", "keys_of", "typed_chance"]

#: the chess die's faces in the order their keys (1 to 6) name them
CHESS = tuple(f.value for f in ChessFace)
#: the hero die's faces in the order their keys (1 to 6) name them
HERO = tuple(f.value for f in HeroFace)
_SUITS = tuple(s.value for s in Suit)


class TypedDiceError(ValueError):
    """Dice typed that are not a roll the engine awaits (a 7, a null on a d6)."""


def _dice(game: str, action: Mapping[str, Any]) -> list[tuple[str, int]] | None:
    """The dice ``action`` (a chance action's JSON) shows: (the die's name, its key) each, in
    the order they are typed; ``None`` for an action no die shows."""
    kind = action.get("type")
    if game == "when-gods-collide":
        if kind == "first-roll":
            return [("the numbered die", int(action["number"]))]
        if kind == "roll":
            return [("the chess die", CHESS.index(action["chess"]) + 1), ("the numbered die", int(action["number"]))]
        if kind == "hero-roll":
            return [("the hero die", HERO.index(action["hero"]) + 1), ("the numbered die", int(action["number"]))]
    if game == "wormholes":
        if kind == "roll-off":
            return [("the OrthogonAliens' die", int(action["orthogonaliens"])),
                    ("the DiagonAliens' die", int(action["diagonaliens"]))]
        if kind == "roll":
            dice = action["dice"]
            return [(f"the {suit} die", int(dice[suit])) for suit in _SUITS if suit in dice]
    return None


def keys_of(game: str, action: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The keys that type the chance action ``action`` (its JSON), in order; ``None`` when no
    die shows it.

    >>> keys_of("when-gods-collide", {"type": "roll", "chess": "queen", "number": 4})
    (4, 4)
    >>> keys_of("wormholes", {"type": "roll", "dice": {"moons": 3, "suns": 0}})
    (0, 3)
    """
    dice = _dice(game, action)
    return None if dice is None else tuple(key for _, key in dice)


def _legend(name: str) -> str:
    if name == "the chess die":
        return " (" + ", ".join(f"{k} {face}" for k, face in enumerate(CHESS, 1)) + ")"
    if name == "the hero die":
        return " (" + ", ".join(f"{k} {face}" for k, face in enumerate(HERO, 1)) + ")"
    if name == "the numbered die":
        return " (1 to 6)"
    return " (0 null, 1 ace, 2 to 5)"


def _outcomes(game: GameRules[Any, Any], state: Any) -> list[tuple[Any, list[tuple[str, int]]]]:
    out = []
    for action, _ in game.chance_outcomes(state):
        dice = _dice(game.name, game.action_to_json(action))
        if dice is not None:
            out.append((action, dice))
    return out


def describe(game: GameRules[Any, Any], state: Any) -> str | None:
    """What to type for the roll the engine awaits in ``state``, e.g. "the chess die (1 king,
    ..., 6 rook), then the numbered die (1 to 6)"; ``None`` when no roll of dice is awaited."""
    outcomes = _outcomes(game, state)
    if not outcomes:
        return None
    names = [name for name, _ in outcomes[0][1]]
    return ", then ".join(name + _legend(name) for name in names)


def typed_chance(game: GameRules[Any, Any], state: Any, given: Sequence[int]) -> tuple[Any, int] | None:
    """The chance action the engine awaits in ``state`` whose dice are the first of ``given``
    (typed or ``--rolls``), and how many of them it takes; ``None`` when no roll of dice is
    awaited or too few are given yet. Raises :class:`TypedDiceError` when the first dice
    given are no roll the engine lists (they should be taken back)."""
    outcomes = _outcomes(game, state)
    if not outcomes:
        return None
    count = len(outcomes[0][1])
    if len(given) < count:
        return None
    keys = tuple(int(v) for v in given[:count])
    for action, dice in outcomes:
        if tuple(key for _, key in dice) == keys:
            return action, count
    what = describe(game, state)
    raise TypedDiceError(f"{', '.join(map(str, keys))} is not a roll of {what}")

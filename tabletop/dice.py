"""The one seeded die roller at the application edge.

Engines never roll dice: they ask a :class:`rules.core.Dice` for each roll they need. When no
dice are read off the table (demos, simulations, record generators), :class:`SeededDice`
provides them, reproducibly.

>>> a, b = SeededDice(7), SeededDice(7)
>>> [a.roll(6, "fault") for _ in range(5)] == [b.roll(6, "fault") for _ in range(5)]
True
>>> 1 <= SeededDice(1).roll(20, "a d20") <= 20
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["SeededDice", "RollRecord"]


@dataclass(frozen=True)
class RollRecord:
    """One roll made: how many sides, what it was for, what came up."""

    sides: int
    what: str
    value: int


class SeededDice:
    """Fair dice from a seeded generator; the same seed gives the same rolls.

    Satisfies :class:`rules.core.Dice`, so it can be passed straight to ``game.apply``.
    Every roll is kept in :attr:`history`.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed)
        self.history: list[RollRecord] = []

    def roll(self, sides: int, what: str) -> int:
        """A number from 1 to ``sides``; ``what`` says what the roll is for."""
        if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
            raise ValueError(f"a die needs at least one side, got {sides!r}")
        value = self._random.randint(1, sides)
        self.history.append(RollRecord(sides, what, value))
        return value

    def __repr__(self) -> str:
        return f"SeededDice(seed={self.seed}, rolled={len(self.history)})"

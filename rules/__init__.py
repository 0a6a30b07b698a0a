"""Pure game engines for tabletop: no camera, no model, no file or network access.

Each game is a :class:`~rules.core.GameRules` subclass found through the registry::

    from rules import get_game
    game = get_game("oneworld")
"""

from __future__ import annotations

from rules.core import Dice, Event, GameRules, Outcome, RollFeed, Transition, Verdict
from rules.errors import (
    FormatError,
    IllegalActionError,
    InvalidPositionError,
    MapError,
    RollNeededError,
    RulesError,
    UnknownGameError,
)
from rules.geometry import FieldPoint, Hex, HexDirection, HexSide, Square, SquareDirection
from rules.registry import game_names, get_game

__all__ = [
    "Dice",
    "Event",
    "FieldPoint",
    "FormatError",
    "GameRules",
    "Hex",
    "HexDirection",
    "HexSide",
    "IllegalActionError",
    "InvalidPositionError",
    "MapError",
    "Outcome",
    "RollFeed",
    "RollNeededError",
    "RulesError",
    "Square",
    "SquareDirection",
    "Transition",
    "UnknownGameError",
    "Verdict",
    "game_names",
    "get_game",
]

"""Battle Grounds: a chess-like board game for Marvel Heroes Battle Dice figures (fan rules,
2006), on the basic 6x7 or the advanced 8x8 board.

The registry finds the engine as ``rules.battle_grounds:BattleGrounds``; see
docs/games/battle-grounds.md for the rules as implemented and every decision taken.
"""

from __future__ import annotations

from rules.battle_grounds.board import Board, Colour, label, parse_label
from rules.battle_grounds.engine import BattleGrounds
from rules.battle_grounds.options import BattleGroundsOptions
from rules.battle_grounds.roster import NORTH, PLAYERS, SOUTH, Level, Roster, Stat
from rules.battle_grounds.state import (
    HIDDEN,
    Action,
    Battle,
    BattleMode,
    ChooseStat,
    FollowUp,
    FollowUpKind,
    Hypnotize,
    Move,
    Pass,
    PickDie,
    Place,
    ReadDie,
    Skip,
    State,
    Swap,
)

__all__ = [
    "Action",
    "Battle",
    "BattleGrounds",
    "BattleGroundsOptions",
    "BattleMode",
    "Board",
    "ChooseStat",
    "Colour",
    "FollowUp",
    "FollowUpKind",
    "HIDDEN",
    "Hypnotize",
    "Level",
    "Move",
    "NORTH",
    "PLAYERS",
    "Pass",
    "PickDie",
    "Place",
    "ReadDie",
    "Roster",
    "SOUTH",
    "Skip",
    "Stat",
    "State",
    "Swap",
    "label",
    "parse_label",
]

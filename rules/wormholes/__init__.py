"""Wormholes (piecepack): the rules engine. See docs/games/wormholes.md.

The package is split by concern: ``board`` (the galaxy and suits), ``model`` (value types),
``options``, ``moves`` (where ships may go), ``checks`` (legality), ``flow`` (what actions
do), ``codec`` (JSON) and ``engine`` (the :class:`Wormholes` class).
"""

from __future__ import annotations

from rules.wormholes.board import DIAGO, ORTHO, Axis, Suit
from rules.wormholes.engine import Wormholes
from rules.wormholes.model import (
    HIDDEN,
    ChooseOrder,
    Coin,
    Jump,
    Move,
    Phase,
    Place,
    Rest,
    Reveal,
    Roll,
    RollOff,
    Send,
    Ship,
    Stay,
    WormholesState,
)
from rules.wormholes.options import WormholesOptions

__all__ = [
    "Axis",
    "ChooseOrder",
    "Coin",
    "DIAGO",
    "HIDDEN",
    "Jump",
    "Move",
    "ORTHO",
    "Phase",
    "Place",
    "Rest",
    "Reveal",
    "Roll",
    "RollOff",
    "Send",
    "Ship",
    "Stay",
    "Suit",
    "Wormholes",
    "WormholesOptions",
    "WormholesState",
]

"""OneWorld (Metagaming, 1979): the hex wargame of two gods and their shape-changing children.

>>> from rules.oneworld import OneWorld
>>> game = OneWorld.from_options({"god_lives": 2})
>>> game.options.borg_lives
2
"""

from __future__ import annotations

from rules.oneworld.board import End, OneWorldMap, Terrain, bundled_map, parse_map
from rules.oneworld.engine import OneWorld
from rules.oneworld.model import (
    Action,
    Aspect,
    Child,
    ChooseTower,
    Combat,
    EndMovement,
    God,
    GodMove,
    GodTransform,
    Move,
    Phase,
    Position,
    SetUp,
    Side,
    Transform,
)
from rules.oneworld.options import OneWorldOptions, TowerDirection

__all__ = [
    "Action", "Aspect", "Child", "ChooseTower", "Combat", "End", "EndMovement", "God", "GodMove",
    "GodTransform", "Move", "OneWorld", "OneWorldMap", "OneWorldOptions", "Phase", "Position", "SetUp",
    "Side", "Terrain", "TowerDirection", "Transform", "bundled_map", "parse_map",
]

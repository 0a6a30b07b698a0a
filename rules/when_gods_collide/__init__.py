"""When Gods Collide (MetaDreams, 2022): a chess variant on a board of 2x2 tiles with gaps,
where 2 to 4 armies of checkers move by the chess die and each hides its god checker.

>>> from rules.when_gods_collide import WhenGodsCollide, parse_diagram, Roll, Move, ChessFace
>>> from rules.geometry import Square
>>> game = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})
>>> state = parse_diagram('''
...     G . . .
...     . . . .
...     g . . N
...     . . . .
... ''')
>>> state = game.apply(state, Roll(ChessFace.ROOK, 3)).state
>>> step = game.apply(state, Move(Square(0, 2), Square(3, 2)))
>>> [e.kind for e in step.events]
['move', 'capture', 'elimination', 'victory']
>>> game.outcome(step.state).winner
'greek'
"""

from __future__ import annotations

from rules.when_gods_collide.actions import (
    CallHero,
    Convert,
    FirstRoll,
    HeroRoll,
    LayTile,
    Move,
    Pass,
    Place,
    PlayAction,
    Push,
    Roll,
    WgcAction,
)
from rules.when_gods_collide.diagram import parse_diagram, render
from rules.when_gods_collide.engine import WhenGodsCollide
from rules.when_gods_collide.model import (
    Army,
    Board,
    Checker,
    ChessFace,
    ConvertMethod,
    HeroFace,
    Identity,
    Phase,
    Tile,
    TurnRoll,
    WgcState,
)
from rules.when_gods_collide.options import (
    GodReveal,
    LostTurn,
    WgcOptions,
    WindDistance,
    WindLanding,
)

__all__ = [
    "Army", "Board", "CallHero", "Checker", "ChessFace", "Convert", "ConvertMethod", "FirstRoll",
    "GodReveal", "HeroFace", "HeroRoll", "Identity", "LayTile", "LostTurn", "Move", "Pass",
    "Phase", "Place", "PlayAction", "Push", "Roll", "Tile", "TurnRoll", "WgcAction", "WgcOptions",
    "WgcState", "WhenGodsCollide", "WindDistance", "WindLanding", "parse_diagram", "render",
]

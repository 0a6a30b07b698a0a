"""The Game (Nic Evans, 2016), the outdoor observation game, as a pure rules engine.

Pieces stand anywhere on a continuous field; the camera reports each move as the piece's
measured end position and facing. Modules:

* :mod:`~rules.the_game.shapes`: footprints, fields of vision, edge-to-edge gaps;
* :mod:`~rules.the_game.sight`: who sees whom, who is observed, action range;
* :mod:`~rules.the_game.moves`: judging measured moves and leaving the field;
* :mod:`~rules.the_game.acting`: closing in and the number to beat;
* :mod:`~rules.the_game.flow`: phases, turns, splitting survivors, sequence ends;
* :mod:`~rules.the_game.setup`, :mod:`~rules.the_game.legal`, :mod:`~rules.the_game.codec`;
* :mod:`~rules.the_game.engine`: :class:`TheGame` itself.

See docs/games/the-game.md.
"""

from __future__ import annotations

from rules.the_game.engine import TheGame
from rules.the_game.model import (
    Act,
    Action,
    Exit,
    Move,
    Pass,
    Phase,
    Piece,
    PieceSpec,
    Presence,
    SequenceRecord,
    Setup,
    Split,
    Stay,
    Take,
    TheGameState,
)
from rules.the_game.options import Scoring, TheGameOptions
from rules.the_game.shapes import Footprint, Shape
from rules.the_game.sight import Sighting

__all__ = [
    "Act",
    "Action",
    "Exit",
    "Footprint",
    "Move",
    "Pass",
    "Phase",
    "Piece",
    "PieceSpec",
    "Presence",
    "Scoring",
    "SequenceRecord",
    "Setup",
    "Shape",
    "Sighting",
    "Split",
    "Stay",
    "Take",
    "TheGame",
    "TheGameOptions",
    "TheGameState",
]

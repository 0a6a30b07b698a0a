"""How every game looks on a table: printable kits shared by the printer and the renderer.

A :class:`Kit` per game gives the board unit's physical size, the :class:`PieceKind` of
every piece the detectors read, and draws the printed surfaces: the board with its
calibration markers (:meth:`Kit.board_image`, with the transform from board units to its
pixels) and the faces of the pieces (:meth:`Kit.piece_face`, BGRA).
:mod:`vision.artwork.pages` lays the same drawings out on paper at 300 dpi and ``tabletop
print`` writes them, so what the renderer trains the detectors on is what the players
print. docs/kits.md describes every kit.

>>> kit = get_kit("battle-grounds")
>>> kit.units, kit.mm_per_unit, kit.board_size()
('square', 40.0, (6.0, 7.0))
>>> image, board_to_px = kit.board_image(px_per_mm=1.0)
>>> image.dtype.name, board_to_px.shape
('uint8', (3, 3))
>>> kit.piece_face("south-iii", 2.0).shape
(68, 68, 4)
"""

from __future__ import annotations

from vision.artwork.battle_grounds import BattleGroundsKit
from vision.artwork.kit import (
    PRINT_PX_PER_MM,
    ArtworkError,
    Kit,
    PieceKind,
    PieceSheet,
    PosterSheet,
    PrintItem,
    Sheet,
)
from vision.artwork.oneworld import OneWorldKit
from vision.artwork.the_game import TheGameKit
from vision.artwork.when_gods_collide import WhenGodsCollideKit
from vision.artwork.wormholes import WormholesKit

__all__ = [
    "KITS",
    "PRINT_PX_PER_MM",
    "ArtworkError",
    "Kit",
    "PieceKind",
    "PieceSheet",
    "PosterSheet",
    "PrintItem",
    "Sheet",
    "get_kit",
]

#: Every game's kit, by the game's registry name. Building a kit draws nothing: drawings
#: are made (and cached) on the first call that needs them.
KITS: dict[str, Kit] = {
    kit.game: kit
    for kit in (
        OneWorldKit.create(),
        WhenGodsCollideKit.create(),
        WormholesKit.create(),
        BattleGroundsKit.create(),
        TheGameKit.create(),
    )
}


def get_kit(game: str) -> Kit:
    """The kit of ``game`` (a registry name such as ``"oneworld"``)."""
    try:
        return KITS[game]
    except KeyError:
        raise ArtworkError(
            f"no printable kit for game {game!r} (kits: {', '.join(KITS)})"
        ) from None

"""The actions of When Gods Collide, small frozen values with readable ``str``.

Dice are chance actions: :class:`FirstRoll`, :class:`Roll` and :class:`HeroRoll` carry the
faces read off the table. The rest are the players' choices. ``gods_found`` on a capturing
or flipping action says which of the checkers it turns over were god checkers; it is only
needed when the referee was not told that army's god (``None``: let the referee decide).

>>> str(Move(Square(1, 1), Square(3, 3)))
'1,1-3,3'
>>> str(Move(Square(0, 0), Square(2, 2), via=(Square(1, 1),), gods_found=frozenset({Square(2, 2)})))
'0,0-1,1-2,2 [god 2,2]'
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.geometry import Square
from rules.when_gods_collide.model import Army, ChessFace, ConvertMethod, HeroFace

__all__ = [
    "FirstRoll",
    "LayTile",
    "Place",
    "Roll",
    "CallHero",
    "HeroRoll",
    "Move",
    "Push",
    "Convert",
    "Pass",
    "WgcAction",
    "PlayAction",
]


def _found(gods_found: frozenset[Square] | None) -> str:
    if gods_found is None:
        return ""
    if not gods_found:
        return " [no god]"
    squares = " ".join(str(s) for s in sorted(gods_found))
    return f" [god {squares}]"


@dataclass(frozen=True)
class FirstRoll:
    """The numbered die rolled by the next army in the roll-off for the first tile."""

    number: int

    def __str__(self) -> str:
        return f"first-tile roll {self.number}"


@dataclass(frozen=True)
class LayTile:
    """The player to move lays a tile with its top-left square at ``at``."""

    at: Square

    def __str__(self) -> str:
        return f"tile {self.at}"


@dataclass(frozen=True)
class Place:
    """``army`` places one checker at ``at``; ``god``: it is the god checker (told privately)."""

    army: Army
    at: Square
    god: bool = False

    def __str__(self) -> str:
        return f"{self.army.value} {self.at}{' (god)' if self.god else ''}"


@dataclass(frozen=True)
class Roll:
    """The chess die and the numbered die of a turn."""

    chess: ChessFace
    number: int

    def __str__(self) -> str:
        return f"roll {self.chess.value} {self.number}"


@dataclass(frozen=True)
class CallHero:
    """After a 6 on the numbered die, the player chooses to roll the hero die."""

    def __str__(self) -> str:
        return "call hero"


@dataclass(frozen=True)
class HeroRoll:
    """The hero die and the numbered die rolled again with it."""

    hero: HeroFace
    number: int

    def __str__(self) -> str:
        return f"hero {self.hero.value} {self.number}"


@dataclass(frozen=True)
class Move:
    """An own checker moves from ``frm`` to ``to``.

    ``via``: for a Princess chain of King, Pawn or Knight steps, the squares landed on
    before ``to``, in order (empty otherwise).
    """

    frm: Square
    to: Square
    via: tuple[Square, ...] = ()
    gods_found: frozenset[Square] | None = None

    def __str__(self) -> str:
        squares = "-".join(str(s) for s in (self.frm, *self.via, self.to))
        return squares + _found(self.gods_found)


@dataclass(frozen=True)
class Push:
    """God of Wind: the enemy checker on ``frm`` is pushed in a straight line to ``to``."""

    frm: Square
    to: Square
    gods_found: frozenset[Square] | None = None

    def __str__(self) -> str:
        return f"push {self.frm}-{self.to}{_found(self.gods_found)}"


@dataclass(frozen=True)
class Convert:
    """Seth: the enemy checker on ``at`` is flipped and, if not a god, joins the mover."""

    at: Square
    method: ConvertMethod
    gods_found: frozenset[Square] | None = None

    def __str__(self) -> str:
        return f"seth {self.at} {self.method.value}{_found(self.gods_found)}"


@dataclass(frozen=True)
class Pass:
    """The player moves nothing this turn."""

    def __str__(self) -> str:
        return "pass"


PlayAction = Move | Push | Convert
WgcAction = FirstRoll | LayTile | Place | Roll | CallHero | HeroRoll | Move | Push | Convert | Pass

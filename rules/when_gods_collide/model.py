"""Value types of When Gods Collide: armies, dice faces, tiles, checkers and the state.

Everything here is immutable and compares by value. Squares live on one global lattice
(``x`` grows to the right, ``y`` downwards); a tile is a 2x2 block whose top-left square has
even coordinates, and every square no tile covers is a gap.

>>> Tile(Square(2, 0), Army.GREEK).squares()
(Square(x=2, y=0), Square(x=3, y=0), Square(x=2, y=1), Square(x=3, y=1))
>>> Army.NORSE.god, HeroFace.DOUBLE_KNIGHT.title
('Odin', 'Double Knight')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property, lru_cache

from rules.geometry import Square, SquareDirection

__all__ = [
    "Army",
    "ChessFace",
    "HeroFace",
    "ConvertMethod",
    "Phase",
    "Identity",
    "Tile",
    "Board",
    "board_of",
    "Checker",
    "TurnRoll",
    "WgcState",
    "army_order",
    "sorted_checkers",
]


class Army(Enum):
    """The four armies, named by culture; the value is the player's name."""

    BABYLONIAN = "babylonian"
    EGYPTIAN = "egyptian"
    GREEK = "greek"
    NORSE = "norse"

    @property
    def culture(self) -> str:
        return self.value.capitalize()

    @property
    def emblem(self) -> str:
        """What the army's checkers show: Ziggurat, Sphinx, Temple or Viking Ship."""
        return _EMBLEMS[self]

    @property
    def god(self) -> str:
        return _GODS[self]


_EMBLEMS = {
    Army.BABYLONIAN: "Ziggurat",
    Army.EGYPTIAN: "Sphinx",
    Army.GREEK: "Temple",
    Army.NORSE: "Viking Ship",
}
_GODS = {
    Army.BABYLONIAN: "Marduk",
    Army.EGYPTIAN: "Amun-Ra",
    Army.GREEK: "Zeus",
    Army.NORSE: "Odin",
}
_ARMY_INDEX = {army: i for i, army in enumerate(Army)}


def army_order(army: Army) -> int:
    """Sort key putting armies in their fixed order (Babylonian first)."""
    return _ARMY_INDEX[army]


class ChessFace(Enum):
    """The chess die; ``number`` is the face's place on the die (1 to 6)."""

    KING = "king"
    PAWN = "pawn"
    KNIGHT = "knight"
    QUEEN = "queen"
    BISHOP = "bishop"
    ROOK = "rook"

    @property
    def title(self) -> str:
        return self.value.capitalize()

    @property
    def sliding(self) -> bool:
        """Queen, Bishop and Rook slide the numbered die's count; the others do not."""
        return self in (ChessFace.QUEEN, ChessFace.BISHOP, ChessFace.ROOK)

    @property
    def directions(self) -> tuple[SquareDirection, ...]:
        """The straight lines a sliding face may follow (empty for the others)."""
        if self is ChessFace.QUEEN:
            return tuple(SquareDirection)
        if self is ChessFace.BISHOP:
            return SquareDirection.diagonals()
        if self is ChessFace.ROOK:
            return SquareDirection.orthogonal()
        return ()


class HeroFace(Enum):
    """The hero die, rolled by choice after a 6 on the numbered die."""

    IMP = "imp"
    DOUBLE_KNIGHT = "double-knight"
    WINGED_SANDALS = "winged-sandals"
    GOD_OF_WIND = "god-of-wind"
    PRINCESS = "princess"
    SETH = "seth"

    @property
    def title(self) -> str:
        return _HERO_TITLES[self]

    @property
    def can_capture_god(self) -> bool:
        """Only the Imp and the Double Knight may take a god checker."""
        return self in (HeroFace.IMP, HeroFace.DOUBLE_KNIGHT)


_HERO_TITLES = {
    HeroFace.IMP: "Imp",
    HeroFace.DOUBLE_KNIGHT: "Double Knight",
    HeroFace.WINGED_SANDALS: "Winged Sandals",
    HeroFace.GOD_OF_WIND: "God of Wind",
    HeroFace.PRINCESS: "Princess",
    HeroFace.SETH: "Seth, Who Sows Discord",
}


class ConvertMethod(Enum):
    """How Seth turns an enemy checker: a Seth token on it, or swapping in a captured own one."""

    TOKEN = "token"
    REPLACE = "replace"


class Phase(Enum):
    FIRST_ROLL = "first-roll"  # numbered-die roll-off for who lays the first tile
    TILES = "tiles"  # players take turns laying tiles
    DEPLOY = "deploy"  # each army places its checkers on its own tiles
    ROLL = "roll"  # the chess die and the numbered die are awaited
    MOVE = "move"  # the player to move chooses (or calls the hero die)
    HERO_ROLL = "hero-roll"  # the hero die and the re-rolled numbered die are awaited
    OVER = "over"


class Identity(Enum):
    """What is under a checker, as far as a state's holder knows.

    ``UNKNOWN``: the referee was not told (the face is found when the checker is flipped).
    ``HIDDEN`` appears only in a player's view: the player may not know it.
    """

    GOD = "god"
    MORTAL = "mortal"
    UNKNOWN = "unknown"
    HIDDEN = "hidden"


@dataclass(frozen=True)
class Tile:
    """A 2x2 tile; ``at`` is its top-left square (even coordinates), ``owner`` who laid it."""

    at: Square
    owner: Army

    def squares(self) -> tuple[Square, ...]:
        x, y = self.at.x, self.at.y
        return (Square(x, y), Square(x + 1, y), Square(x, y + 1), Square(x + 1, y + 1))

    def neighbours(self) -> tuple[Square, ...]:
        """Origins of the four tiles that would share an edge with this one."""
        x, y = self.at.x, self.at.y
        return (Square(x + 2, y), Square(x - 2, y), Square(x, y + 2), Square(x, y - 2))


class Board:
    """The real squares of a set of tiles and the army that owns each square."""

    def __init__(self, tiles: Iterable[Tile]) -> None:
        self.tiles = tuple(tiles)
        self.origins = frozenset(t.at for t in self.tiles)
        self.owner: dict[Square, Army] = {sq: t.owner for t in self.tiles for sq in t.squares()}

    def __contains__(self, square: object) -> bool:
        return square in self.owner

    def __len__(self) -> int:
        return len(self.owner)

    def squares(self) -> list[Square]:
        return sorted(self.owner)


@lru_cache(maxsize=256)
def board_of(tiles: tuple[Tile, ...]) -> Board:
    """The (cached) board for a tuple of tiles."""
    return Board(tiles)


@dataclass(frozen=True)
class Checker:
    """A checker on the board.

    ``army`` is the army the checker belongs to (its colour); ``side`` the army it fights for,
    which differs only after Seth converted it with a token. ``identity`` is what the holder
    of the state knows of its hidden face. ``public``: every player has seen or can deduce
    the face. ``seen_by``: players who learned the face privately (a god they could not take).
    """

    at: Square
    army: Army
    side: Army
    identity: Identity
    public: bool = False
    seen_by: frozenset[Army] = frozenset()

    @property
    def converted(self) -> bool:
        return self.side is not self.army

    def known_to(self, player: Army) -> bool:
        """Whether ``player`` knows what is under this checker."""
        return self.public or self.army is player or player in self.seen_by


@dataclass(frozen=True)
class TurnRoll:
    """The dice of the current turn: chess die, numbered die, and the hero die once rolled."""

    chess: ChessFace
    number: int
    hero: HeroFace | None = None


@dataclass(frozen=True)
class WgcState:
    """A When Gods Collide position.

    ``alive``: armies still in play, in seat order. ``current``: who lays a tile or moves.
    ``first``: who laid the first tile (and so moves first). ``checkers`` are sorted by
    square. ``captured``: per army, how many of its mortal checkers are out of play (Seth can
    bring them back). ``rolloff``: the numbered-die roll-off for the first tile, one entry per
    army still in it (``None`` until it rolls). ``skip``: armies that lose their next turn.
    """

    phase: Phase
    alive: tuple[Army, ...]
    current: Army | None = None
    first: Army | None = None
    tiles: tuple[Tile, ...] = ()
    checkers: tuple[Checker, ...] = ()
    roll: TurnRoll | None = None
    captured: tuple[tuple[Army, int], ...] = ()
    rolloff: tuple[tuple[Army, int | None], ...] = ()
    skip: frozenset[Army] = field(default=frozenset())

    @cached_property
    def board(self) -> Board:
        return board_of(self.tiles)

    @cached_property
    def occupant(self) -> Mapping[Square, Checker]:
        """The checker on each occupied square."""
        return {c.at: c for c in self.checkers}

    @cached_property
    def sides(self) -> Mapping[Square, Army]:
        """The side of the checker on each occupied square."""
        return {c.at: c.side for c in self.checkers}

    def captured_count(self, army: Army) -> int:
        return dict(self.captured).get(army, 0)

    def checkers_of(self, side: Army) -> list[Checker]:
        return [c for c in self.checkers if c.side is side]


def sorted_checkers(checkers: Iterable[Checker]) -> tuple[Checker, ...]:
    """Checkers in the canonical order a state keeps them in (by square)."""
    return tuple(sorted(checkers, key=lambda c: (c.at.y, c.at.x)))

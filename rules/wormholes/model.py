"""Wormholes value types: coins, ships, pending effects, the state and the actions.

Everything here is immutable and compares by value. A state never holds a bare tuple for a
cell: cells are :class:`~rules.geometry.Square` values.

>>> Move(Suit.SUNS, Square(7, 1))
Move(ship=<Suit.SUNS: 'suns'>, to=Square(x=7, y=1))
>>> str(Move(Suit.SUNS, Square(7, 1)))
'suns to 7,1'
>>> Roll.of({Suit.MOONS: 0, Suit.SUNS: 3}) == Roll.of({Suit.SUNS: 3, Suit.MOONS: 0})
True
>>> str(Roll.of({Suit.SUNS: 3, Suit.MOONS: 0}))
'roll suns 3, moons null'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property

from rules.geometry import Square
from rules.wormholes.board import PLAYER_TITLES, VALUE_NAMES, Suit

__all__ = [
    "HIDDEN",
    "SUIT_ORDER",
    "Phase",
    "Coin",
    "Ship",
    "Activate",
    "ChooseJump",
    "ChooseSend",
    "Task",
    "WormholesState",
    "RollOff",
    "ChooseOrder",
    "Place",
    "Rest",
    "Roll",
    "Move",
    "Stay",
    "Reveal",
    "Jump",
    "Send",
    "Action",
    "value_name",
    "suit_sorted",
    "ship_title",
    "player_title",
]

#: What a player's view shows instead of a coin value that player has not seen.
HIDDEN = "hidden"

SUIT_ORDER: tuple[Suit, ...] = tuple(Suit)
_SUIT_INDEX = {s: i for i, s in enumerate(SUIT_ORDER)}


def value_name(value: int) -> str:
    """The piecepack name of a value: ``0`` is ``null``, ``1`` is ``ace``."""
    return VALUE_NAMES[value]


class Phase(Enum):
    """Where the game is: set-up, then turns of declare (variant only), roll and move."""

    ROLL_OFF = "roll-off"
    CHOOSE_ORDER = "choose-order"
    PLACEMENT = "placement"
    DECLARE = "declare"
    ROLL = "roll"
    MOVE = "move"
    OVER = "over"


@dataclass(frozen=True)
class Coin:
    """A wormhole: a coin of ``suit`` whose other side is ``value``.

    ``value`` is the number when the referee knows it, ``None`` when nobody has read it yet
    and :data:`HIDDEN` in a player's view of a coin that player has not seen. ``seen``: both
    players have seen the value (it was activated at least once). ``value_up``: the value
    side is the one showing now.
    """

    suit: Suit
    value: int | str | None = None
    seen: bool = False
    value_up: bool = False

    @property
    def known(self) -> int | None:
        """The value if the referee knows it, else ``None``."""
        return self.value if isinstance(self.value, int) else None


@dataclass(frozen=True)
class Ship:
    """A starship (pawn) of ``suit`` on cell ``at``; ``skip_next``: it sits in a black hole
    and loses its owner's next turn."""

    suit: Suit
    at: Square
    skip_next: bool = False


@dataclass(frozen=True)
class Activate:
    """Pending: ``ship`` activates the wormhole on ``at``; ``chooser`` will pick the jump's
    direction. Waits for a :class:`Reveal` while the coin's value is unknown."""

    ship: Suit
    at: Square
    chooser: str


@dataclass(frozen=True)
class ChooseJump:
    """Pending: ``chooser`` picks the direction of ``ship``'s jump of ``value`` from ``at``."""

    ship: Suit
    at: Square
    value: int
    chooser: str


@dataclass(frozen=True)
class ChooseSend:
    """Pending: ``sender`` landed on ``victim`` and sends it elsewhere."""

    victim: Suit
    sender: str


Task = Activate | ChooseJump | ChooseSend


@dataclass(frozen=True)
class WormholesState:
    """A position. ``player`` is who acts in this phase (the mover during turns).

    ``ships`` is in suit order (Suns, Moons, Crowns, Arms); ``coins`` is sorted by cell;
    ``hand`` counts each suit's coins not yet placed. ``idle`` lists the mover's ships that
    sit this turn out (a lost turn, or resting on a base in the variant), ``dice`` the unused
    dice of this turn, ``tasks`` the pending effects (the last one is resolved first).
    """

    phase: Phase
    player: str | None
    ships: tuple[Ship, ...]
    coins: tuple[tuple[Square, Coin], ...] = ()
    hand: tuple[int, int, int, int] = (6, 6, 6, 6)
    first_placer: str | None = None
    idle: tuple[Suit, ...] = ()
    dice: tuple[tuple[Suit, int], ...] = ()
    tasks: tuple[Task, ...] = ()
    winner: str | None = None
    reason: str = ""

    @cached_property
    def coin_map(self) -> dict[Square, Coin]:
        return dict(self.coins)

    @cached_property
    def ship_cells(self) -> dict[Square, tuple[Suit, ...]]:
        out: dict[Square, tuple[Suit, ...]] = {}
        for s in self.ships:
            out[s.at] = out.get(s.at, ()) + (s.suit,)
        return out

    def ship(self, suit: Suit) -> Ship:
        return self.ships[_SUIT_INDEX[suit]]

    def ships_on(self, cell: Square) -> tuple[Suit, ...]:
        return self.ship_cells.get(cell, ())

    def coin_on(self, cell: Square) -> Coin | None:
        return self.coin_map.get(cell)

    def in_hand(self, suit: Suit) -> int:
        return self.hand[_SUIT_INDEX[suit]]

    def die_of(self, suit: Suit) -> int | None:
        for s, v in self.dice:
            if s is suit:
                return v
        return None

    # -- functional updates -----------------------------------------------------------
    def with_ship(self, ship: Ship) -> WormholesState:
        i = _SUIT_INDEX[ship.suit]
        return replace(self, ships=self.ships[:i] + (ship,) + self.ships[i + 1 :])

    def with_coin(self, cell: Square, coin: Coin) -> WormholesState:
        coins = dict(self.coins)
        coins[cell] = coin
        return replace(self, coins=tuple(sorted(coins.items())))

    def with_hand(self, suit: Suit, count: int) -> WormholesState:
        hand = list(self.hand)
        hand[_SUIT_INDEX[suit]] = count
        return replace(self, hand=(hand[0], hand[1], hand[2], hand[3]))


def suit_sorted(suits: Iterable[Suit]) -> tuple[Suit, ...]:
    return tuple(sorted(set(suits), key=_SUIT_INDEX.__getitem__))


# -- actions ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RollOff:
    """Chance: each player's die for choosing who places first (0 is null; ties roll again)."""

    orthogonaliens: int
    diagonaliens: int

    def __str__(self) -> str:
        return (
            f"roll-off: OrthogonAliens {value_name(self.orthogonaliens)}, "
            f"DiagonAliens {value_name(self.diagonaliens)}"
        )


@dataclass(frozen=True)
class ChooseOrder:
    """The roll-off winner chooses to place the first wormhole or to make the first move."""

    player: str
    place_first: bool

    def __str__(self) -> str:
        verb = "places" if self.place_first else "moves"
        return f"{PLAYER_TITLES.get(self.player, self.player)} {verb} first"


@dataclass(frozen=True)
class Place:
    """Put a coin of ``suit`` suit side up on cell ``to``."""

    suit: Suit
    to: Square

    def __str__(self) -> str:
        return f"{self.suit.value} wormhole on {self.to}"


@dataclass(frozen=True)
class Rest:
    """Variant: ``player`` rolls no die this turn for the ``ships`` standing on opposing bases."""

    player: str
    ships: tuple[Suit, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "ships", suit_sorted(self.ships))

    def __str__(self) -> str:
        who = PLAYER_TITLES.get(self.player, self.player)
        if not self.ships:
            return f"{who} roll every die"
        return f"{who} rest " + " and ".join(s.value for s in self.ships)


@dataclass(frozen=True)
class Roll:
    """Chance: the dice rolled this turn, by suit (0 is null)."""

    dice: tuple[tuple[Suit, int], ...]

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "dice", tuple(sorted(self.dice, key=lambda sv: _SUIT_INDEX[sv[0]]))
        )

    @classmethod
    def of(cls, dice: Mapping[Suit, int]) -> Roll:
        return cls(tuple(dice.items()))

    def __str__(self) -> str:
        return "roll " + ", ".join(f"{s.value} {value_name(v)}" for s, v in self.dice)


@dataclass(frozen=True)
class Move:
    """Move ``ship`` by its die, in a straight line, to ``to``."""

    ship: Suit
    to: Square

    def __str__(self) -> str:
        return f"{self.ship.value} to {self.to}"


@dataclass(frozen=True)
class Stay:
    """``ship`` uses its die without moving: a null roll, or no move exists."""

    ship: Suit

    def __str__(self) -> str:
        return f"{self.ship.value} stays"


@dataclass(frozen=True)
class Reveal:
    """Chance: the value read off the coin on ``at`` when it is activated."""

    at: Square
    value: int

    def __str__(self) -> str:
        return f"wormhole on {self.at} is {value_name(self.value)}"


@dataclass(frozen=True)
class Jump:
    """The wormhole jump of ``ship`` ends on ``to`` (this picks the direction)."""

    ship: Suit
    to: Square

    def __str__(self) -> str:
        return f"{self.ship.value} jumps to {self.to}"


@dataclass(frozen=True)
class Send:
    """Send the opposing ``ship`` that was landed on to ``to`` (``None``: leave it there,
    only when the options make transport optional)."""

    ship: Suit
    to: Square | None

    def __str__(self) -> str:
        if self.to is None:
            return f"{self.ship.value} left where it is"
        return f"{self.ship.value} sent to {self.to}"


Action = RollOff | ChooseOrder | Place | Rest | Roll | Move | Stay | Reveal | Jump | Send


def ship_title(suit: Suit, capital: bool = False) -> str:
    """The ship's name for announcements: ``'the Suns ship'`` (``'The Suns ship'``)."""
    return f"{'The' if capital else 'the'} {suit.title} ship"


def player_title(player: str) -> str:
    return PLAYER_TITLES.get(player, player)

"""Battle Grounds states and actions: small frozen values that compare by value and hash.

A :class:`State` holds where every figure stands, both Holding Zones, both Dice Zones,
whose turn it is, and what the game is waiting for: a battle whose stat must still be
chosen (:class:`Battle`) or decisions that follow a battle or a move (:class:`FollowUp`).

>>> from rules.geometry import Square
>>> str(Move("hulk", Square(2, 6), Square(2, 4)))
'hulk c7-c5'
>>> str(Swap("nightcrawler", "wolverine", "Teleport"))
'nightcrawler Teleport <-> wolverine'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property

from rules.battle_grounds.board import label
from rules.battle_grounds.roster import Stat, player_index
from rules.geometry import Square

__all__ = [
    "Hidden",
    "HIDDEN",
    "SETUP",
    "PLAY",
    "BattleMode",
    "Battle",
    "FollowUpKind",
    "FollowUp",
    "State",
    "Place",
    "Move",
    "Swap",
    "Hypnotize",
    "ChooseStat",
    "PickDie",
    "ReadDie",
    "Skip",
    "Pass",
    "Action",
]

SETUP = "setup"
PLAY = "play"


class Hidden(Enum):
    """The explicit marker a player's view puts where the opponent's secret choice was."""

    HIDDEN = "hidden"


HIDDEN = Hidden.HIDDEN


class BattleMode(Enum):
    """Who chooses the battle stat when the defender's square does not fix it."""

    DEFENDER_CHOOSES = "defender-chooses"  # an all-colour square: one stat for both
    ROLL_OFF = "roll-off"  # a white square: the roll-off's chooser (lower die by default) chooses for both
    EACH_CHOOSES = "each-chooses"  # roll-off tie, or both figures on white: secret, own stat
    FIXED = "fixed"  # the square's colour or the stat die fixed it: such a battle never waits


@dataclass(frozen=True)
class Battle:
    """A battle waiting for its stat. The attacker is still on ``origin``: the Battle Zone
    is the two squares ``origin`` and ``target``."""

    attacker: str
    defender: str
    origin: Square
    target: Square
    mode: BattleMode
    chooser: str | None = None  # the player choosing for both (not in EACH_CHOOSES)
    attacker_stat: Stat | Hidden | None = None  # EACH_CHOOSES only: chosen so far
    defender_stat: Stat | Hidden | None = None


class FollowUpKind(Enum):
    """Decisions owed after a move or a battle, resolved in the order they are queued."""

    RETURN = "return"  # a hypnotized figure lost: its owner puts it back on a coloured square
    RELEASE = "release"  # far-end release: free an own figure from the opponent's Holding Zone
    READ_DIE = "read-die"  # Super Sense: read one of the opponent's Battle Dice (optional)
    TELEPATHY = "telepathy"  # move a die from the Rolling/Staging Zone to the Dice Zone (optional)
    LOST_DIE = "lost-die"  # the battle's loser may put a die into the Dice Zone (optional)

    @property
    def optional(self) -> bool:
        return self not in (FollowUpKind.RETURN, FollowUpKind.RELEASE)


@dataclass(frozen=True)
class FollowUp:
    kind: FollowUpKind
    player: str
    figure: str | None = None  # RETURN: the figure going home


@dataclass(frozen=True)
class State:
    """A Battle Grounds position. Per-player tuples are in :data:`PLAYERS` order
    (south, north). ``board`` pairs are sorted by square."""

    phase: str
    to_play: str
    board: tuple[tuple[Square, str], ...]
    hypnotized: frozenset[str] = frozenset()
    holding: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    dice_zone: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    dice_read: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    battle: Battle | None = None
    pending: tuple[FollowUp, ...] = ()
    turn: int = 1
    passes: int = 0

    # -- look-ups -----------------------------------------------------------------------
    @cached_property
    def at(self) -> dict[Square, str]:
        """Square -> figure id."""
        return dict(self.board)

    @cached_property
    def where(self) -> dict[str, Square]:
        """Figure id -> square, for figures on the board."""
        return {fig: sq for sq, fig in self.board}

    def holding_of(self, player: str) -> tuple[str, ...]:
        return self.holding[player_index(player)]

    def dice_zone_of(self, player: str) -> frozenset[str]:
        return self.dice_zone[player_index(player)]

    def dice_read_by(self, player: str) -> frozenset[str]:
        return self.dice_read[player_index(player)]

    # -- building new states -------------------------------------------------------------
    def with_board(self, at: dict[Square, str]) -> State:
        return replace(self, board=tuple(sorted(at.items())))

    def with_holding(self, player: str, figures: tuple[str, ...]) -> State:
        i = player_index(player)
        holding = (figures, self.holding[1]) if i == 0 else (self.holding[0], figures)
        return replace(self, holding=holding)

    def with_dice_zone(self, player: str, dice: frozenset[str]) -> State:
        i = player_index(player)
        zones = (dice, self.dice_zone[1]) if i == 0 else (self.dice_zone[0], dice)
        return replace(self, dice_zone=zones)

    def with_dice_read(self, player: str, dice: frozenset[str]) -> State:
        i = player_index(player)
        read = (dice, self.dice_read[1]) if i == 0 else (self.dice_read[0], dice)
        return replace(self, dice_read=read)

    def evolve(self, **changes: object) -> State:
        return replace(self, **changes)  # type: ignore[arg-type]


# -- actions -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Place:
    """Put a figure from off the board onto ``square``: set-up, far-end release, or the
    return of a hypnotized figure to its owner."""

    piece: str
    square: Square

    def __str__(self) -> str:
        return f"{self.piece} @{label(self.square)}"


@dataclass(frozen=True)
class Move:
    """Move a figure; moving onto an enemy figure's square is an attack."""

    piece: str
    frm: Square
    to: Square

    def __str__(self) -> str:
        return f"{self.piece} {label(self.frm)}-{label(self.to)}"


@dataclass(frozen=True)
class Swap:
    """Use Swap Powers or Teleport: ``piece`` and the friendly figure ``other`` change places."""

    piece: str
    other: str
    power: str

    def __str__(self) -> str:
        return f"{self.piece} {self.power} <-> {self.other}"


@dataclass(frozen=True)
class Hypnotize:
    """Use Hypnotize: bring ``captive`` from the user's Holding Zone onto ``square``."""

    piece: str
    captive: str
    square: Square

    def __str__(self) -> str:
        return f"{self.piece} Hypnotize {self.captive} @{label(self.square)}"


@dataclass(frozen=True)
class ChooseStat:
    player: str
    stat: Stat

    def __str__(self) -> str:
        return f"{self.player} chooses {self.stat.value}"


@dataclass(frozen=True)
class PickDie:
    """Move ``die`` into the Dice Zone (``swap_out`` goes back when the zone is full)."""

    player: str
    die: str
    swap_out: str | None = None

    def __str__(self) -> str:
        swap = f" (for {self.swap_out})" if self.swap_out else ""
        return f"{self.player} puts {self.die} in the Dice Zone{swap}"


@dataclass(frozen=True)
class ReadDie:
    player: str
    die: str

    def __str__(self) -> str:
        return f"{self.player} reads {self.die}"


@dataclass(frozen=True)
class Skip:
    """Decline the optional decision now awaited."""

    player: str

    def __str__(self) -> str:
        return f"{self.player} skips"


@dataclass(frozen=True)
class Pass:
    """Let the turn go by; legal only when nothing else is."""

    player: str

    def __str__(self) -> str:
        return f"{self.player} passes"


Action = Place | Move | Swap | Hypnotize | ChooseStat | PickDie | ReadDie | Skip | Pass

"""OneWorld positions and actions: small immutable value types."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum

from rules.geometry import Hex
from rules.oneworld.board import End

__all__ = [
    "Side",
    "Aspect",
    "Phase",
    "Child",
    "God",
    "Combat",
    "Position",
    "SetUp",
    "ChooseTower",
    "Move",
    "EndMovement",
    "Transform",
    "GodTransform",
    "GodMove",
    "Action",
]


class Side(Enum):
    BORG = "borg"
    CHEZ = "chez"

    def other(self) -> Side:
        return Side.CHEZ if self is Side.BORG else Side.BORG

    @property
    def title(self) -> str:
        return self.value.upper()

    @property
    def prefix(self) -> str:
        return "B" if self is Side.BORG else "C"


class Aspect(Enum):
    STONE = "stone"
    BLADE = "blade"
    FOG = "fog"

    def beats(self, other: Aspect) -> bool:
        """Chart 13.1: Stone defeats Blade, Blade defeats Fog, Fog defeats Stone."""
        return _BEATS[self] is other

    @property
    def title(self) -> str:
        return self.value.capitalize()


_BEATS = {Aspect.STONE: Aspect.BLADE, Aspect.BLADE: Aspect.FOG, Aspect.FOG: Aspect.STONE}


class Phase(Enum):
    SETUP = "setup"
    MOVEMENT = "movement"
    COMBAT = "combat"
    OVER = "over"


@dataclass(frozen=True)
class Child:
    """A child on the map. Children compare by value (id, side, aspect and hex), so two
    positions are equal only when every child stands in the same hex with the same aspect."""

    id: str
    side: Side
    aspect: Aspect
    hex: Hex


@dataclass(frozen=True)
class God:
    """A god (its three counters stay together); ``hex`` is None before set-up."""

    side: Side
    hex: Hex | None
    lives: int


@dataclass(frozen=True)
class Combat:
    """The combat being fought now, in ``hex``.

    ``pending`` holds the transformations chosen in secret for the current round; an entry
    whose aspects are ``None`` is one a player's view may not see (it exists, but is hidden).
    """

    hex: Hex
    against_god: bool = False
    rounds: int = 0
    quiet_rounds: int = 0
    pending: tuple[tuple[Side, tuple[Aspect, ...] | None], ...] = ()

    def submitted(self, side: Side) -> bool:
        return any(s is side for s, _ in self.pending)

    def chosen(self, side: Side) -> tuple[Aspect, ...] | None:
        for s, aspects in self.pending:
            if s is side:
                return aspects
        return None


@dataclass(frozen=True)
class Position:
    """Everything the referee knows about a OneWorld game at one moment."""

    phase: Phase
    active: Side
    turn: int = 1
    first_setup: Side = Side.BORG
    ends: tuple[tuple[Side, End], ...] = ()
    towers: tuple[tuple[Side, Hex], ...] = ()
    gods: tuple[God, God] = (God(Side.BORG, None, 3), God(Side.CHEZ, None, 3))
    children: tuple[Child, ...] = ()
    under_tower: tuple[tuple[Side, str], ...] = ()
    lost: tuple[tuple[Side, str], ...] = ()
    # -- this turn ----------------------------------------------------------------------
    moved: frozenset[str] = frozenset()
    god_attacked: bool = False
    obstacles_used: tuple[tuple[Hex, int], ...] = ()
    god_transforms_used: int = 0
    god_moved: bool = False
    combats: tuple[Hex, ...] = ()
    combat: Combat | None = None
    drawn: bool = False

    # -- lookups ------------------------------------------------------------------------
    def god(self, side: Side) -> God:
        return self.gods[0] if side is Side.BORG else self.gods[1]

    def end_of(self, side: Side) -> End | None:
        return dict(self.ends).get(side)

    def tower_of(self, side: Side) -> Hex | None:
        return dict(self.towers).get(side)

    def child(self, piece: str) -> Child | None:
        for c in self.children:
            if c.id == piece:
                return c
        return None

    def children_of(self, side: Side) -> tuple[Child, ...]:
        return tuple(c for c in self.children if c.side is side)

    def children_at(self, h: Hex, side: Side | None = None) -> tuple[Child, ...]:
        return tuple(c for c in self.children if c.hex == h and (side is None or c.side is side))

    def reserve(self, side: Side) -> tuple[str, ...]:
        """Ids of the side's counters waiting under its Tower of Balance."""
        return tuple(i for s, i in self.under_tower if s is side)

    def lost_of(self, side: Side) -> tuple[str, ...]:
        return tuple(i for s, i in self.lost if s is side)

    def obstacles_used_at(self, h: Hex) -> int:
        return dict(self.obstacles_used).get(h, 0)

    def occupancy(self) -> dict[Hex, Counter[Side]]:
        out: dict[Hex, Counter[Side]] = {}
        for c in self.children:
            out.setdefault(c.hex, Counter())[c.side] += 1
        return out

    # -- building new positions ----------------------------------------------------------
    def with_god(self, god: God) -> Position:
        gods = (god, self.gods[1]) if god.side is Side.BORG else (self.gods[0], god)
        return replace(self, gods=gods)

    def without_children(self, ids: set[str] | frozenset[str]) -> Position:
        return replace(self, children=tuple(c for c in self.children if c.id not in ids))

    def with_children(self, new: list[Child] | tuple[Child, ...]) -> Position:
        replaced = {c.id for c in new}
        kept = [c for c in self.children if c.id not in replaced]
        return replace(self, children=tuple(sorted(kept + list(new), key=_child_key)))


def _child_key(c: Child) -> tuple[str, int, str]:
    digits = "".join(ch for ch in c.id if ch.isdigit())
    return (c.id.rstrip("0123456789"), int(digits) if digits else 0, c.id)


def sort_children(children: list[Child] | tuple[Child, ...]) -> tuple[Child, ...]:
    return tuple(sorted(children, key=_child_key))


def by_side(entries: tuple[tuple[Side, str], ...]) -> tuple[tuple[Side, str], ...]:
    """Counters under the Towers (or out of play) in one canonical order: BORG's first, each
    side's in the order they arrived (the first under a Tower is the first to come back)."""
    return tuple(e for e in entries if e[0] is Side.BORG) + tuple(e for e in entries if e[0] is Side.CHEZ)


# ---------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetUp:
    """A player's whole set-up: the end defended, the god's hex and the children placed."""

    side: Side
    god: Hex
    children: tuple[tuple[Hex, Aspect], ...]
    end: End | None = None

    def __str__(self) -> str:
        end = f" at the {self.end.value} end" if self.end else ""
        return f"{self.side.title} sets up{end}: god {self.god}, {len(self.children)} children"


@dataclass(frozen=True)
class ChooseTower:
    side: Side
    hex: Hex

    def __str__(self) -> str:
        return f"{self.side.title} takes the Tower at {self.hex}"


@dataclass(frozen=True)
class Move:
    """Move one child to ``to`` (off the map for Chaos), optionally along a stated path.

    ``path`` lists every hex entered, ending with ``to``; without it the referee picks the
    path crossing the fewest faults (it cannot see the path a player had in mind).
    """

    piece: str
    to: Hex
    path: tuple[Hex, ...] = ()

    def __str__(self) -> str:
        via = f" via {','.join(h.label() for h in self.path[:-1])}" if len(self.path) > 1 else ""
        return f"{self.piece}-{self.to}{via}"


@dataclass(frozen=True)
class EndMovement:
    """The active player ends the movement phase (reinforcement and combat follow)."""

    side: Side

    def __str__(self) -> str:
        return f"{self.side.title} ends movement"


@dataclass(frozen=True)
class Transform:
    """One player's secret choice of aspects for a combat round in ``hex``.

    For a fight with a god, the attacker gives the child's aspect and the god's player the
    aspect the god announces.
    """

    side: Side
    hex: Hex
    aspects: tuple[Aspect, ...]

    def __str__(self) -> str:
        return f"{self.side.title} at {self.hex}: {'+'.join(a.title for a in self.aspects)}"


@dataclass(frozen=True)
class GodTransform:
    """God Powers option: a god changes the aspect of one of its children not in combat."""

    side: Side
    piece: str
    aspect: Aspect

    def __str__(self) -> str:
        return f"{self.side.title} turns {self.piece} to {self.aspect.title}"


@dataclass(frozen=True)
class GodMove:
    """Flee-While-You-Can option: a wounded god moves one hex."""

    side: Side
    to: Hex

    def __str__(self) -> str:
        return f"{self.side.title} god flees to {self.to}"


Action = SetUp | ChooseTower | Move | EndMovement | Transform | GodTransform | GodMove

"""The Game's value types: pieces, the state of a game, the record of each sequence, actions.

Everything here is immutable and hashable. Positions are :class:`~rules.geometry.FieldPoint`
in inches (``x`` along the near edge, ``y`` away from it) and facings are degrees
counter-clockwise from the +x axis.

>>> str(Move("R1", FieldPoint(3.0, 4.5), 90.0))
'R1 to (3.00", 4.50") facing 90°'
>>> str(Act("R1", "B2"))
'R1 acts on B2'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from rules.geometry import FieldPoint
from rules.the_game.shapes import Footprint, Outline

__all__ = [
    "Phase",
    "Presence",
    "Piece",
    "Knockdown",
    "Departure",
    "Handover",
    "SequenceRecord",
    "Response",
    "SplitStage",
    "TheGameState",
    "PieceSpec",
    "Setup",
    "Move",
    "Exit",
    "Stay",
    "Pass",
    "Act",
    "Split",
    "Take",
    "Action",
]


class Phase(Enum):
    """Where a sequence stands."""

    SETUP = "setup"
    MOVEMENT = "movement"
    ACTION = "action"
    OVER = "over"


class Presence(Enum):
    """Whether a piece is still playing: standing, turned on its side, or gone off the field."""

    IN_PLAY = "in-play"
    DOWN = "down"
    OFF = "off"


@dataclass(frozen=True)
class Piece:
    """One character model on the field.

    ``side`` is the colour of its dot; ``controller`` is the player moving it now (they
    differ after the survivors of a sequence are split). ``idle`` counts the whole turns
    since it last moved or acted; ``busy`` says it moved or acted in the turn under way;
    ``done`` says it has had its go in the phase under way.
    """

    id: str
    side: str
    controller: str
    at: FieldPoint
    facing: float
    footprint: Footprint
    presence: Presence = Presence.IN_PLAY
    idle: int = 0
    busy: bool = False
    done: bool = False

    @property
    def in_play(self) -> bool:
        return self.presence is Presence.IN_PLAY

    @cached_property
    def outline(self) -> Outline:
        """The footprint's corners on the field (counter-clockwise)."""
        return self.footprint.outline(self.at.x, self.at.y, self.facing)


@dataclass(frozen=True)
class Knockdown:
    """A successful action: ``piece`` was turned on its side by ``by``, moved by ``player``."""

    piece: str
    by: str
    player: str


@dataclass(frozen=True)
class Departure:
    """A piece that walked off the field while ``player`` controlled it."""

    piece: str
    player: str


@dataclass(frozen=True)
class Handover:
    """Survivors split: ``receiver`` took control of ``pieces`` from ``splitter``."""

    splitter: str
    receiver: str
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class SequenceRecord:
    """What happened in one sequence (kept for the whole game)."""

    number: int
    first: str
    turns: int = 1
    knockdowns: tuple[Knockdown, ...] = ()
    departures: tuple[Departure, ...] = ()
    handovers: tuple[Handover, ...] = ()
    last_piece: str | None = None

    def knockdowns_by(self, player: str) -> int:
        return sum(1 for k in self.knockdowns if k.player == player)


@dataclass(frozen=True)
class Response:
    """A failed action waiting for its target's free response."""

    responder: str
    actor: str


@dataclass(frozen=True)
class SplitStage:
    """The survivors of a sequence being divided; ``offer`` is set once they are split
    into two equal groups and the other player is to choose one."""

    splitter: str
    offer: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TheGameState:
    """A position of The Game.

    ``record`` is the sequence under way (``None`` before its set-up); ``records`` the
    finished ones. ``next_player`` is whose go it is in the alternation of the phase.
    """

    sequence: int = 1
    phase: Phase = Phase.SETUP
    turn: int = 0
    first: str | None = None
    next_player: str | None = None
    pieces: tuple[Piece, ...] = ()
    response: Response | None = None
    split: SplitStage | None = None
    record: SequenceRecord | None = None
    records: tuple[SequenceRecord, ...] = field(default=())

    def piece(self, piece_id: str) -> Piece | None:
        for p in self.pieces:
            if p.id == piece_id:
                return p
        return None

    def in_play(self) -> list[Piece]:
        return [p for p in self.pieces if p.presence is Presence.IN_PLAY]


# -- actions ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PieceSpec:
    """A piece as placed at the start of a sequence (``footprint`` ``None``: the default)."""

    id: str
    side: str
    at: FieldPoint
    facing: float
    footprint: Footprint | None = None

    def __str__(self) -> str:
        return f"{self.id} ({self.side}) at {self.at} facing {self.facing:g}°"


@dataclass(frozen=True)
class Setup:
    """Both players' pieces placed for a new sequence, and who goes first."""

    pieces: tuple[PieceSpec, ...]
    first: str

    def __str__(self) -> str:
        return f"set up {len(self.pieces)} pieces, {self.first} first"


@dataclass(frozen=True)
class Move:
    """A measured move: the piece's centre ended at ``to`` facing ``facing`` (``None``:
    facing unchanged). A ``to`` on or beyond the field's edge means it walked off."""

    piece: str
    to: FieldPoint
    facing: float | None = None

    def __str__(self) -> str:
        turn = "" if self.facing is None else f" facing {self.facing:g}°"
        return f"{self.piece} to {self.to}{turn}"


@dataclass(frozen=True)
class Exit:
    """The piece walks off the field (it was picked up, so no end position is measured)."""

    piece: str

    def __str__(self) -> str:
        return f"{self.piece} walks off"


@dataclass(frozen=True)
class Stay:
    """The piece is deliberately left alone this phase (or declines its free response)."""

    piece: str

    def __str__(self) -> str:
        return f"{self.piece} stays"


@dataclass(frozen=True)
class Pass:
    """The player leaves all their pieces that have not had their go in this phase."""

    player: str

    def __str__(self) -> str:
        return f"{self.player} passes"


@dataclass(frozen=True)
class Act:
    """``piece`` acts on ``target``; ``to`` is its measured position after closing in
    (``None``: the referee works it out)."""

    piece: str
    target: str
    to: FieldPoint | None = None

    def __str__(self) -> str:
        return f"{self.piece} acts on {self.target}"


@dataclass(frozen=True)
class Split:
    """The survivor's player divides their pieces: ``group`` is one of the two groups."""

    player: str
    group: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.player} splits off {', '.join(self.group)}"


@dataclass(frozen=True)
class Take:
    """The other player chooses one of the two equal groups and takes control of it."""

    player: str
    group: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.player} takes {', '.join(self.group)}"


Action = Setup | Move | Exit | Stay | Pass | Act | Split | Take

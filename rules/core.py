"""What every game engine shares: verdicts, events, outcomes, dice inputs and the engine base.

An engine is a static :class:`GameRules` (the rules plus the options chosen for a game)
working on immutable states. The engine never rolls dice itself: every roll comes in as an
input, either as a plain sequence of numbers or as any object with a ``roll`` method (a
seeded roller at the application edge, or dice read off the table).

The life of an action::

    verdict = game.verdict(state, action)          # legal or not, and why; no dice needed
    step = game.apply(state, action, rolls=[3, 5])  # new state + events; raises if illegal
    game.outcome(step.state)                        # None while the game goes on
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from rules.errors import FormatError, IllegalActionError, RollNeededError

__all__ = [
    "CHANCE",
    "Verdict",
    "Event",
    "Outcome",
    "Transition",
    "Dice",
    "RollFeed",
    "GameRules",
    "freeze",
]


#: The name :meth:`GameRules.to_move` uses for "a die must be rolled now".
CHANCE = "chance"


def freeze(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """A hashable, ordered copy of a small mapping (for value types' detail fields)."""
    if not mapping:
        return ()
    return tuple(sorted(mapping.items()))


@dataclass(frozen=True)
class Verdict:
    """Whether an action is legal, with a machine-readable ``code`` and a sentence.

    >>> Verdict.ok().legal
    True
    >>> v = Verdict.illegal("runeline", "Fog may not cross a runeline")
    >>> (v.legal, v.code)
    (False, 'runeline')
    """

    legal: bool
    code: str
    message: str
    details: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def ok(cls, message: str = "legal", **details: Any) -> Verdict:
        return cls(True, "ok", message, freeze(details))

    @classmethod
    def illegal(cls, code: str, message: str, **details: Any) -> Verdict:
        return cls(False, code, message, freeze(details))

    def __bool__(self) -> bool:
        return self.legal

    def detail(self, key: str, default: Any = None) -> Any:
        return dict(self.details).get(key, default)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"legal": self.legal, "code": self.code, "message": self.message}
        if self.details:
            out["details"] = {k: _jsonable(v) for k, v in self.details}
        return out


@dataclass(frozen=True)
class Event:
    """Something that happened, with the sentence the announcer speaks.

    ``kind`` is one of a small vocabulary shared by all games (see docs/formats.md):
    ``setup``, ``move``, ``roll``, ``combat``, ``combat-round``, ``elimination``, ``lost``,
    ``reinforcement``, ``attack``, ``life-lost``, ``capture``, ``turn``, ``phase``,
    ``power``, ``victory``, ``draw``.
    """

    kind: str
    text: str
    details: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, kind: str, text: str, **details: Any) -> Event:
        return cls(kind, text, freeze(details))

    def detail(self, key: str, default: Any = None) -> Any:
        return dict(self.details).get(key, default)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.details:
            out["details"] = {k: _jsonable(v) for k, v in self.details}
        return out


@dataclass(frozen=True)
class Outcome:
    """The end of a game: a winner (a player name) or a draw (``winner is None``)."""

    winner: str | None
    reason: str

    @property
    def draw(self) -> bool:
        return self.winner is None

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "draw": self.draw, "reason": self.reason}


S = TypeVar("S")
A = TypeVar("A")


@dataclass(frozen=True)
class Transition(Generic[S]):
    """The result of applying an action: the new state, what happened, the rolls used."""

    state: S
    events: tuple[Event, ...] = ()
    rolls_used: tuple[int, ...] = field(default=())


class Dice(Protocol):
    """Anything that can produce a die roll when an engine needs one."""

    def roll(self, sides: int, what: str) -> int: ...


class RollFeed:
    """Rolls taken in order from a sequence; raises :class:`RollNeededError` when it runs out.

    >>> feed = RollFeed([4, 1])
    >>> feed.roll(6, "fault"), feed.roll(6, "fault")
    (4, 1)
    >>> feed.remaining
    0
    """

    def __init__(self, rolls: Iterable[int], field_name: str = "rolls") -> None:
        self._rolls = list(rolls)
        self._next = 0
        self._field = field_name
        self.used: list[int] = []

    def roll(self, sides: int, what: str) -> int:
        if self._next >= len(self._rolls):
            raise RollNeededError(what, sides)
        value = self._rolls[self._next]
        where = f"{self._field}[{self._next}]"
        if isinstance(value, bool) or not isinstance(value, int):
            raise FormatError(where, f"a roll must be a whole number, got {value!r}")
        if not 1 <= value <= sides:
            raise FormatError(where, f"roll {value} is out of range for a d{sides} ({what})")
        self._next += 1
        self.used.append(value)
        return value

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self._next


class _RecordingDice:
    """Wraps a caller's dice object to remember the rolls it gave."""

    def __init__(self, dice: Dice) -> None:
        self._dice = dice
        self.used: list[int] = []

    def roll(self, sides: int, what: str) -> int:
        value = self._dice.roll(sides, what)
        self.used.append(value)
        return value


class GameRules(ABC, Generic[S, A]):
    """A game's static description and rules. Subclasses implement the hooks.

    Subclasses set ``name`` (the registry key), ``title`` and ``players`` and implement
    :meth:`legal_actions`, :meth:`verdict`, :meth:`_apply`, :meth:`outcome` and the JSON
    hooks. ``_apply`` may assume the action has passed :meth:`verdict`.
    """

    name: ClassVar[str]
    title: ClassVar[str]

    # -- rules ------------------------------------------------------------------------
    @abstractmethod
    def players(self) -> tuple[str, ...]:
        """The players' names as they appear in states, actions and outcomes."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[A]:
        """Every action that is legal now (for every player who may act now)."""

    @abstractmethod
    def verdict(self, state: S, action: A) -> Verdict:
        """Legal or not, and why. Needs no dice: rolls decide results, not legality."""

    @abstractmethod
    def _apply(self, state: S, action: A, dice: Dice) -> tuple[S, list[Event]]:
        """Carry out a legal action, asking ``dice`` for every roll it needs."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    @classmethod
    @abstractmethod
    def from_options(cls, options: Mapping[str, Any]) -> GameRules[S, A]:
        """An engine for a game played with ``options`` (JSON-style, validated)."""

    def initial_state(self) -> S:
        """The state before set-up begins (engines whose start needs input may refuse)."""
        raise NotImplementedError(f"{self.name}: a starting position must be given")

    def to_move(self, state: S) -> tuple[str, ...]:
        """The players who may act now (several when choices are made in secret).

        :data:`CHANCE` among them means a roll is awaited as a chance action; its possible
        results are :meth:`chance_outcomes`.
        """
        return self.players()

    def chance_outcomes(self, state: S) -> list[tuple[A, float]]:
        """When a roll is awaited as an action: each possible result with its probability."""
        return []

    def pieces(self, state: S) -> list[str] | None:
        """Ids of the pieces in play, or ``None`` when the game does not name its pieces."""
        return None

    def unlisted(self, state: S) -> str | None:
        """Why :meth:`legal_actions` leaves out actions that are legal in ``state`` (too many
        to list; :meth:`verdict` judges any one proposed), or ``None`` when its list is whole."""
        return None

    def piece_of(self, action: A) -> str | None:
        """The piece an action moves or uses, for ``tabletop rules moves`` (``None``: none)."""
        return getattr(action, "piece", None)

    def actions_of(self, state: S, piece: str) -> list[A]:
        """The legal actions that move or use ``piece``."""
        return [a for a in self.legal_actions(state) if self.piece_of(a) == piece]

    def view(self, state: S, player: str | None) -> S:
        """What ``player`` may see of ``state``; ``None`` is the referee, who sees all."""
        return state

    def apply(self, state: S, action: A, rolls: Sequence[int] | Dice = ()) -> Transition[S]:
        """Check and carry out ``action``.

        ``rolls`` is either a sequence, used in order and all of which must be used, or a
        :class:`Dice`. Raises :class:`IllegalActionError` (with the verdict) when the rules
        forbid the action and :class:`RollNeededError` when a roll is missing.
        """
        verdict = self.verdict(state, action)
        if not verdict.legal:
            raise IllegalActionError(verdict)
        if isinstance(rolls, Sequence):
            feed = RollFeed(rolls)
            new_state, events = self._apply(state, action, feed)
            if feed.remaining:
                raise FormatError(
                    "rolls",
                    f"{len(rolls)} roll(s) given but only {len(feed.used)} needed for this action",
                )
            return Transition(new_state, tuple(events), tuple(feed.used))
        recorder = _RecordingDice(rolls)
        new_state, events = self._apply(state, action, recorder)
        return Transition(new_state, tuple(events), tuple(recorder.used))

    # -- notation and JSON ------------------------------------------------------------
    @abstractmethod
    def state_to_json(self, state: S) -> dict[str, Any]: ...

    @abstractmethod
    def state_from_json(self, data: Any) -> S: ...

    @abstractmethod
    def action_to_json(self, action: A) -> dict[str, Any]: ...

    @abstractmethod
    def action_from_json(self, data: Any) -> A: ...

    def notation(self, action: A) -> str:
        """A short readable form of an action (``str(action)`` unless overridden)."""
        return str(action)

    def options_to_json(self) -> dict[str, Any]:
        return {}


def _jsonable(value: Any) -> Any:
    """Turn detail values (hexes, squares, enums, tuples) into JSON-friendly ones."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "label") and callable(value.label):
        return value.label()
    if hasattr(value, "to_json") and callable(value.to_json):
        return value.to_json()
    if hasattr(value, "value") and hasattr(value, "name"):  # enums
        return value.value if isinstance(value.value, (str, int)) else value.name
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)

"""The referee: one game, its current state, and every action checked before it counts.

:class:`Referee` is what the command line's ``replay`` and ``demo`` drive today from records,
and what the camera pipeline will drive from the table later. :func:`replay` walks a
:class:`~tabletop.records.GameRecord` through a referee step by step.

>>> from tabletop.records import parse_record
>>> record = parse_record('{"game": "oneworld"}')
>>> referee = Referee.for_record(record)
>>> referee.game.title, referee.to_move()
('OneWorld', ('borg',))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rules.core import Dice, GameRules, Outcome, Transition, Verdict
from rules.errors import (
    FormatError,
    IllegalActionError,
    RollNeededError,
    RulesError,
    UnknownGameError,
)
from rules.registry import game_class
from tabletop.errors import IllegalRecordActionError, RecordError
from tabletop.records import GameRecord, RecordEntry

__all__ = ["Referee", "ReplayStep", "replay", "load_game"]


def load_game(name: str, options: Any = None) -> GameRules[Any, Any]:
    """The engine for ``name`` with ``options``; an engine that is not finished yet (its
    package exists but not its class) is reported as unknown rather than crashing."""
    if options is not None and not isinstance(options, dict):
        raise FormatError("options", "expected an object")
    try:
        cls = game_class(name)
    except (ImportError, AttributeError) as err:
        raise UnknownGameError(f"the {name!r} engine is not available yet ({err})") from None
    return cls.from_options(options or {})


class Referee:
    """Holds a game's engine and current state; applies only legal actions."""

    def __init__(self, game: GameRules[Any, Any], state: Any) -> None:
        self.game = game
        self.state = state

    @classmethod
    def for_record(cls, record: GameRecord) -> Referee:
        """A referee at the start of ``record`` (its header's game, options and position)."""
        h = record.header
        where = f"line {record.header_line}"
        try:
            game = load_game(h.game, h.options)
        except FormatError as err:
            raise RecordError(f"{where}: {err.field}", err.detail, record.source) from None
        except RulesError as err:  # unknown game
            raise RecordError(f"{where}: game", str(err), record.source) from None
        try:
            if h.position is None:
                state = game.initial_state()
            else:
                state = game.state_from_json(h.position)
        except NotImplementedError:
            raise RecordError(
                f"{where}: position",
                f"missing: a {game.title} record must give its starting position",
                record.source,
            ) from None
        except FormatError as err:
            field = err.field if err.field.startswith("position") else f"position.{err.field}"
            raise RecordError(f"{where}: {field}", err.detail, record.source) from None
        except RulesError as err:
            raise RecordError(f"{where}: position", str(err), record.source) from None
        return cls(game, state)

    def to_move(self) -> tuple[str, ...]:
        return self.game.to_move(self.state)

    def check(self, action: Any) -> Verdict:
        return self.game.verdict(self.state, action)

    def play(self, action: Any, rolls: Sequence[int] | Dice = ()) -> Transition[Any]:
        """Apply ``action`` (raises :class:`IllegalActionError` or :class:`RollNeededError`)."""
        step = self.game.apply(self.state, action, rolls)
        self.state = step.state
        return step

    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)


@dataclass(frozen=True)
class ReplayStep:
    """One record entry played: its line, the action, its notation and what happened."""

    line: int
    action: Any
    notation: str
    transition: Transition[Any]


def replay(record: GameRecord, referee: Referee | None = None) -> Iterator[ReplayStep]:
    """Play ``record``'s entries in order, yielding each step.

    Raises :class:`IllegalRecordActionError` at the first action the rules forbid and
    :class:`RecordError` for an entry that cannot be read (bad action JSON, missing or
    out-of-range rolls), each with the entry's line number.
    """
    ref = referee or Referee.for_record(record)
    for entry in record.entries:
        yield _play_entry(ref, entry, record.source)


def _play_entry(ref: Referee, entry: RecordEntry, source: str) -> ReplayStep:
    where = f"line {entry.line}"
    try:
        action = ref.game.action_from_json(entry.action)
    except FormatError as err:
        raise RecordError(f"{where}: {err.field}", err.detail, source) from None
    notation = ref.game.notation(action)
    verdict = ref.check(action)
    if not verdict.legal:
        raise IllegalRecordActionError(entry.line, notation, verdict, source)
    try:
        transition = ref.play(action, entry.rolls)
    except IllegalActionError as err:  # the engine changed its mind between verdict and apply
        raise IllegalRecordActionError(entry.line, notation, err.verdict, source) from None
    except RollNeededError as err:
        given = len(entry.rolls)
        raise RecordError(
            f"{where}: rolls", f"{notation} needs more rolls than the {given} given: {err}", source
        ) from None
    except FormatError as err:
        raise RecordError(f"{where}: {err.field}", err.detail, source) from None
    return ReplayStep(entry.line, action, notation, transition)

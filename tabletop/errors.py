"""Errors raised by the application package: one root, narrow subclasses.

Errors from the rules engines (:class:`rules.errors.RulesError`) pass through unchanged;
the command line turns both kinds into one line on standard error.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TabletopError", "RecordError", "IllegalRecordActionError", "InputError"]


class TabletopError(Exception):
    """Root of every error the application package raises."""


class RecordError(TabletopError, ValueError):
    """A game record that cannot be read or replayed.

    ``where`` says where the problem is (``line 7``, ``line 1: game``) and ``source`` names
    the record (a file name), so the message can point a user at the exact spot.

    >>> str(RecordError("line 1: game", "missing", source="game.jsonl"))
    'game.jsonl: line 1: game: missing'
    """

    def __init__(self, where: str, message: str, source: str | None = None) -> None:
        self.where = where
        self.detail = message
        self.source = source
        text = f"{where}: {message}" if where else message
        super().__init__(f"{source}: {text}" if source else text)

    def with_source(self, source: str) -> RecordError:
        return RecordError(self.where, self.detail, source)


class IllegalRecordActionError(TabletopError):
    """A record holds an action the rules forbid (the replay stops there).

    Carries the record line, the action's notation and the engine's verdict.
    """

    def __init__(self, line: int, notation: str, verdict: Any, source: str | None = None) -> None:
        self.line = line
        self.notation = notation
        self.verdict = verdict
        self.source = source
        where = f"{source}: line {line}" if source else f"line {line}"
        super().__init__(f"{where}: illegal action {notation}: {verdict.message}")


class InputError(TabletopError, ValueError):
    """Command-line input that cannot be used (a file, an option, a JSON document).

    ``field`` names the culprit (``<stdin>``, ``--piece``, a file name) like
    :class:`rules.errors.FormatError` does for positions and actions.

    >>> str(InputError("--piece", "no piece 'Z9' on the board"))
    "--piece: no piece 'Z9' on the board"
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.detail = message

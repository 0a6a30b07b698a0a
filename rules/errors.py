"""Errors raised by the rules package: one root, narrow subclasses."""

from __future__ import annotations

__all__ = [
    "RulesError",
    "FormatError",
    "MapError",
    "UnknownGameError",
    "IllegalActionError",
    "RollNeededError",
    "InvalidPositionError",
]


class RulesError(Exception):
    """Root of every error the rules package raises."""


class FormatError(RulesError, ValueError):
    """Input (JSON, a map file, a label) that does not have the expected shape.

    ``field`` names where the problem is, as a dotted path such as ``action.to``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.detail = message

    def within(self, prefix: str) -> FormatError:
        """The same error with ``prefix`` put in front of its field path."""
        field = f"{prefix}.{self.field}" if self.field else prefix
        return type(self)(field, self.detail)


class MapError(FormatError):
    """A map file that cannot be used; ``field`` is ``line N``."""


class UnknownGameError(RulesError, KeyError):
    def __str__(self) -> str:  # KeyError quotes its argument; we want a sentence
        return str(self.args[0]) if self.args else "unknown game"


class InvalidPositionError(RulesError, ValueError):
    """A position that breaks the rules (e.g. a set-up outside the allowed zone)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class IllegalActionError(RulesError, ValueError):
    """Raised by ``apply`` for an action the rules forbid; carries the verdict."""

    def __init__(self, verdict) -> None:  # type: ignore[no-untyped-def]
        super().__init__(verdict.message)
        self.verdict = verdict


class RollNeededError(RulesError):
    """An action needs a die roll that was not supplied."""

    def __init__(self, what: str, sides: int = 6) -> None:
        super().__init__(f"a d{sides} roll is needed for {what}")
        self.what = what
        self.sides = sides

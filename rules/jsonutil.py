"""Small helpers for reading JSON-shaped input with errors that name the field.

Every engine's ``*_from_json`` uses these, so that bad input always becomes a
:class:`~rules.errors.FormatError` whose ``field`` is a dotted path (``position.children[3].hex``).

>>> obj = {"turn": "3"}
>>> get_int(obj, "turn", "position")
Traceback (most recent call last):
...
rules.errors.FormatError: position.turn: expected a whole number, got '3'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, TypeVar

from rules.errors import FormatError

__all__ = [
    "path",
    "as_object",
    "as_list",
    "require",
    "get_int",
    "get_float",
    "get_str",
    "get_bool",
    "get_enum",
    "get_list",
    "get_object",
    "parse_each",
    "reject_unknown",
]

T = TypeVar("T")
E = TypeVar("E", bound=Enum)
_MISSING = object()


def path(prefix: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else key


def as_object(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise FormatError(where, f"expected an object, got {_kind(data)}")
    return data


def as_list(data: Any, where: str) -> list[Any]:
    if not isinstance(data, list):
        raise FormatError(where, f"expected a list, got {_kind(data)}")
    return data


def require(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise FormatError(path(where, key), "missing")
    return obj[key]


def _get(obj: Mapping[str, Any], key: str, where: str, default: Any) -> Any:
    if key in obj:
        return obj[key]
    if default is _MISSING:
        raise FormatError(path(where, key), "missing")
    return default


def get_int(
    obj: Mapping[str, Any],
    key: str,
    where: str,
    default: Any = _MISSING,
    lo: int | None = None,
    hi: int | None = None,
) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path(where, key), f"expected a whole number, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            raise FormatError(path(where, key), f"{_short(value)} is out of range ({lo} or more)")
        if lo is None:
            raise FormatError(path(where, key), f"{_short(value)} is out of range ({hi} or less)")
        raise FormatError(path(where, key), f"{_short(value)} is out of range ({lo}..{hi})")
    return value


def get_float(obj: Mapping[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path(where, key), f"expected a number, got {value!r}")
    try:
        return float(value)
    except OverflowError:  # a whole number too large for a float (JSON allows any length)
        raise FormatError(path(where, key), f"{_short(value)} is too large a number") from None


def get_str(obj: Mapping[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, str):
        raise FormatError(path(where, key), f"expected a string, got {value!r}")
    return value


def get_bool(obj: Mapping[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, bool):
        raise FormatError(path(where, key), f"expected true or false, got {value!r}")
    return value


def get_enum(
    obj: Mapping[str, Any], key: str, enum: type[E], where: str, default: Any = _MISSING
) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    return parse_enum(value, enum, path(where, key))


def parse_enum(value: Any, enum: type[E], where: str) -> E:
    for member in enum:
        if value == member.value or (isinstance(value, str) and value.lower() == member.name.lower()):
            return member
    choices = ", ".join(str(m.value) for m in enum)
    raise FormatError(where, f"unknown value {value!r} (expected one of: {choices})")


def get_list(obj: Mapping[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    return as_list(value, path(where, key))


def get_object(obj: Mapping[str, Any], key: str, where: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, where, default)
    if value is default and default is not _MISSING:
        return value
    return as_object(value, path(where, key))


def parse_each(items: list[Any], where: str, parse: Callable[[Any, str], T]) -> list[T]:
    """``parse(item, field)`` for each item, with the item's index in the field path."""
    return [parse(item, path(where, i)) for i, item in enumerate(items)]


def reject_unknown(obj: Mapping[str, Any], allowed: set[str] | frozenset[str], where: str) -> None:
    """Refuse keys a format does not define (typos should not pass silently)."""
    for key in obj:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise FormatError(path(where, key), f"unknown field (known fields: {known})")


def _short(value: Any, limit: int = 24) -> str:
    """``repr(value)``, cut short: error messages stay one readable line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )

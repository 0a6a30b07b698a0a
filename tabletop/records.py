"""Game records: a header line and one line per action, in JSON Lines.

A record is how a game is kept, replayed and shared (the format is in docs/formats.md)::

    {"game": "oneworld", "options": {"god_lives": 3}}
    {"action": {"type": "move", "piece": "C4", "to": "0714"}}
    {"action": {"type": "end-movement", "side": "chez"}, "rolls": [5]}

Line 1 is the header: ``game`` (required), ``options`` and ``position`` (optional; without a
position the game starts from the engine's initial state) and ``comment``. Every later line
is an entry: ``action`` (the engine's action JSON), ``rolls`` (the die rolls the action used,
in order) and ``comment``. Blank lines are ignored. Records are read without knowing the
game; :mod:`tabletop.referee` checks the actions.

>>> text = '{"game": "oneworld"}\\n\\n{"action": {"type": "end-movement", "side": "borg"}}\\n'
>>> record = parse_record(text)
>>> record.header.game, [e.line for e in record.entries]
('oneworld', [3])
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tabletop.errors import RecordError

__all__ = [
    "RecordHeader",
    "RecordEntry",
    "GameRecord",
    "parse_record",
    "read_record",
    "bundled_record",
    "bundled_record_names",
    "RecordWriter",
    "json_limit",
]

HEADER_FIELDS = frozenset({"game", "options", "position", "comment"})
ENTRY_FIELDS = frozenset({"action", "rolls", "comment"})
BUNDLED_PACKAGE = "tabletop.data.records"
SUFFIX = ".jsonl"


@dataclass(frozen=True)
class RecordHeader:
    """What a record's first line says: the game, its options and where it starts."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    position: Any = None
    comment: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game, "options": dict(self.options)}
        if self.position is not None:
            out["position"] = self.position
        if self.comment is not None:
            out["comment"] = self.comment
        return out


@dataclass(frozen=True)
class RecordEntry:
    """One action of a record, with the rolls it used and its line number in the file."""

    line: int
    action: Any
    rolls: tuple[int, ...] = ()
    comment: str | None = None

    def to_json(self) -> dict[str, Any]:
        return entry_json(self.action, self.rolls, self.comment)


@dataclass(frozen=True)
class GameRecord:
    """A whole record: the header, the entries in order, and where it was read from."""

    header: RecordHeader
    entries: tuple[RecordEntry, ...] = ()
    source: str = "<record>"
    header_line: int = 1

    def lines(self) -> Iterator[str]:
        """The record as JSON Lines (without line ends), header first."""
        yield _dump(self.header.to_json())
        for entry in self.entries:
            yield _dump(entry.to_json())


def entry_json(
    action: Any, rolls: Sequence[int] = (), comment: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"action": action}
    if rolls:
        out["rolls"] = list(rolls)
    if comment is not None:
        out["comment"] = comment
    return out


def _dump(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False)


# -- reading ----------------------------------------------------------------------------


def parse_record(text: str, source: str = "<record>") -> GameRecord:
    """Read a record from its text; every problem is a :class:`RecordError` naming the line."""
    try:
        return _parse(text, source)
    except RecordError as err:
        raise err.with_source(source) from None


def _parse(text: str, source: str) -> GameRecord:
    header: RecordHeader | None = None
    header_line = 1
    entries: list[RecordEntry] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        obj = _load_line(raw, number)
        if header is None:
            header, header_line = _header(obj, number), number
        elif isinstance(obj, dict) and "undo" in obj:
            _undo(obj, number, entries)
        else:
            entries.append(_entry(obj, number))
    if header is None:
        raise RecordError(
            "line 1",
            'the record is empty: its first line must be a header such as {"game": "oneworld"}',
        )
    return GameRecord(header, tuple(entries), source, header_line)


def _undo(obj: dict[str, Any], number: int, entries: list[RecordEntry]) -> None:
    """An undo line (written by the live referee: ``{"undo": ACTION, "comment": ...}``) takes
    back the last action still standing, which must be ``ACTION``."""
    where = f"line {number}"
    _reject_unknown(obj, frozenset({"undo", "comment"}), where)
    if not entries:
        raise RecordError(f"{where}: undo", "there is no action to take back")
    if obj["undo"] != entries[-1].action:
        raise RecordError(
            f"{where}: undo",
            f"takes back {json.dumps(obj['undo'])}, but the last action standing (line "
            f"{entries[-1].line}) is {json.dumps(entries[-1].action)}",
        )
    entries.pop()


def _load_line(raw: str, number: int) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise RecordError(
            f"line {number}", f"invalid JSON at column {err.colno}: {err.msg}"
        ) from None
    except (ValueError, RecursionError) as err:  # a number of thousands of digits; nesting too deep
        raise RecordError(f"line {number}", f"unreadable JSON: {json_limit(err)}") from None


def json_limit(err: ValueError | RecursionError) -> str:
    """What a JSON text that is valid but past the reader's limits holds, in words."""
    return "nested too deeply" if isinstance(err, RecursionError) else "a number with too many digits"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _header(obj: Any, number: int) -> RecordHeader:
    where = f"line {number}"
    example = '{"game": "oneworld", "options": {}}'
    if not isinstance(obj, dict):
        raise RecordError(
            where, f"the header must be a JSON object such as {example}, got {_kind(obj)}"
        )
    if "game" not in obj:
        if "action" in obj:
            raise RecordError(
                where, f"the first line must be the header ({example}), not an action"
            )
        raise RecordError(f"{where}: game", f"missing (the header names the game, e.g. {example})")
    _reject_unknown(obj, HEADER_FIELDS, where)
    game = obj["game"]
    if not isinstance(game, str) or not game:
        raise RecordError(
            f"{where}: game", f"expected a game name such as 'oneworld', got {game!r}"
        )
    options = obj.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError(f"{where}: options", f"expected an object, got {_kind(options)}")
    return RecordHeader(game, options, obj.get("position"), _comment(obj, where))


def _entry(obj: Any, number: int) -> RecordEntry:
    where = f"line {number}"
    if not isinstance(obj, dict):
        raise RecordError(
            where,
            'an entry must be a JSON object such as {"action": {...}, "rolls": [3]}, '
            f"got {_kind(obj)}",
        )
    if "action" not in obj:
        if "game" in obj:
            raise RecordError(
                where, "a second header: a record holds one game (the header is line 1)"
            )
        raise RecordError(f"{where}: action", "missing")
    _reject_unknown(obj, ENTRY_FIELDS, where)
    rolls = obj.get("rolls", [])
    if not isinstance(rolls, list):
        raise RecordError(
            f"{where}: rolls", f"expected a list of whole numbers, got {_kind(rolls)}"
        )
    for i, value in enumerate(rolls):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError(
                f"{where}: rolls[{i}]", f"a roll must be a whole number, got {value!r}"
            )
    return RecordEntry(number, obj["action"], tuple(rolls), _comment(obj, where))


def _comment(obj: Mapping[str, Any], where: str) -> str | None:
    comment = obj.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise RecordError(f"{where}: comment", f"expected a string, got {_kind(comment)}")
    return comment


def _reject_unknown(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    for key in obj:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise RecordError(f"{where}: {key}", f"unknown field (known fields: {known})")


def read_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read a record file (UTF-8). Raises :class:`OSError` when the file cannot be read."""
    p = Path(path)
    return parse_record(p.read_text(encoding="utf-8"), str(path))


def bundled_record_names() -> list[str]:
    """The games that have a record shipped with tabletop (in ``tabletop/data/records``)."""
    folder = resources.files(BUNDLED_PACKAGE)
    return sorted(p.name[: -len(SUFFIX)] for p in folder.iterdir() if p.name.endswith(SUFFIX))


def bundled_record(game: str) -> GameRecord:
    """The record shipped for ``game``, read from the installed package's own data."""
    names = bundled_record_names()
    if game not in names:
        known = ", ".join(names) or "none"
        raise RecordError("", f"no bundled record for {game!r} (bundled records: {known})")
    item = resources.files(BUNDLED_PACKAGE) / f"{game}{SUFFIX}"
    return parse_record(item.read_text(encoding="utf-8"), f"{game}{SUFFIX} (bundled)")


# -- writing ----------------------------------------------------------------------------


class RecordWriter:
    """Writes a record as the game is played: the header at once, then one line per action.

    Every line is flushed (and synced to disk unless ``sync=False``) as soon as it is written,
    so a crash loses nothing that was already played. Refuses to overwrite an existing file
    unless ``overwrite=True``.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "game.jsonl")
    >>> with RecordWriter(path, RecordHeader("oneworld", {"god_lives": 3})) as writer:
    ...     writer.append({"type": "end-movement", "side": "borg"}, rolls=[4])
    2
    >>> [e.rolls for e in read_record(path).entries]
    [(4,)]
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: RecordHeader,
        *,
        overwrite: bool = False,
        sync: bool = True,
    ) -> None:
        self.path = Path(path)
        self.sync = sync
        self._file: IO[str] | None = open(  # noqa: SIM115 (kept open: one line flushed per entry)
            self.path, "w" if overwrite else "x", encoding="utf-8", newline="\n"
        )
        self.lines_written = 0
        self._write(header.to_json())

    def append(self, action: Any, rolls: Iterable[int] = (), comment: str | None = None) -> int:
        """Write one entry and return its line number."""
        return self._write(entry_json(action, tuple(rolls), comment))

    def _write(self, obj: Mapping[str, Any]) -> int:
        if self._file is None:
            raise ValueError(f"the record {self.path} is closed")
        self._file.write(_dump(obj) + "\n")
        self._file.flush()
        if self.sync:
            os.fsync(self._file.fileno())
        self.lines_written += 1
        return self.lines_written

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> RecordWriter:  # noqa: PYI034 (typing.Self needs Python 3.11)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

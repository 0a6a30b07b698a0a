"""The live game record: append-only JSON Lines, flushed (and synced) per line.

The record itself is a plain game record (:mod:`tabletop.records`: a header, then one line
per action with its rolls), so ``tabletop rules replay`` reads it; each entry's ``comment``
holds the time and the announcement. Verdicts of illegal moves, impossible positions and
stream events go to a side log beside it (``RECORD.events.jsonl``), also one JSON object per
line with its time; a new record makes a new side log (one already there is refused, never
appended to), a resumed record appends to its own. A crash can at worst leave a half-written
last line, which :meth:`LiveRecord.resume` drops.

Taking a move back (the ``u`` key) appends an undo line to the record, never rewrites it::

    {"undo": {"type": "move", "piece": "B11", "to": "1118"}, "comment": "2026-... undone: B11-1118"}

``undo`` holds the action taken back: the last action still standing. :func:`plain_text`
gives the record without undo lines and the actions they took back (blank lines keep the
line numbers), which :meth:`LiveRecord.resume` replays.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tabletop.errors import RecordError
from tabletop.records import RecordHeader, entry_json, parse_record
from tabletop.referee import Referee, replay

__all__ = ["LiveRecord", "cut_short", "kept_bytes", "plain_text", "stamp", "trim_to"]


def stamp(t: float | None = None) -> str:
    """``t`` (seconds since the epoch; now by default) as a UTC time, ``2026-11-24T11:34:47``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() if t is None else t))


def _whole_line(tail: bytes) -> bool:
    """Whether ``tail``, the end of a record after its last line end, is a whole JSON line."""
    try:
        json.loads(tail.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return bool(tail.strip())


def kept_bytes(raw: bytes) -> int:
    """How many bytes of ``raw``, an append-only JSON Lines file, to keep: all but a last
    line cut short by a crash (no line end, not JSON); a whole last line that lacks only its
    line end is kept."""
    cut = len(raw)
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1
        if _whole_line(raw[cut:]):
            cut = len(raw)
    return cut


def cut_short(path: str | os.PathLike[str], kept: int) -> bool:
    """Whether :func:`trim_to` ``kept`` will drop a line of the file at ``path`` (more than
    blank space after its first ``kept`` bytes): a resumed session says so."""
    with open(path, "rb") as f:
        f.seek(kept)
        return bool(f.read().strip())


def trim_to(path: str | os.PathLike[str], kept: int) -> None:
    """Make the file at ``path`` ready for appending after its first ``kept`` bytes
    (:func:`kept_bytes`): what follows is dropped, and a last line without its line end
    gets one."""
    with open(path, "r+b") as f:
        if f.seek(0, os.SEEK_END) > kept:
            f.truncate(kept)
        if kept:
            f.seek(kept - 1)
            if f.read(1) != b"\n":
                f.write(b"\n")


def plain_text(text: str) -> str:
    r"""``text`` (a live record) with every undo line and the action it took back blanked.

    >>> t = '{"game": "x"}\n{"action": 1}\n{"action": 2}\n{"undo": 2}\n{"action": 3}\n'
    >>> plain_text(t).splitlines()
    ['{"game": "x"}', '{"action": 1}', '', '', '{"action": 3}']
    """
    lines = text.split("\n")
    standing: list[int] = []  # indices of the action lines still standing
    header = False
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        if not header:
            header = True
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue  # left for the record's own parser to report
        if isinstance(obj, dict) and "undo" in obj:
            lines[i] = ""
            if standing:
                lines[standing.pop()] = ""
        else:
            standing.append(i)
    return "\n".join(lines)


class LiveRecord:
    def __init__(self, path: str | os.PathLike[str], *, sync: bool = True, _append: bool = False,
                 header: RecordHeader | None = None) -> None:
        self.path = Path(path)
        self.events_path = self.path.with_name(self.path.name + ".events.jsonl")
        self.sync = sync
        if not _append and header is None:
            raise ValueError("a new record needs a header")
        mode = "a" if _append else "x"
        self._file = open(self.path, mode, encoding="utf-8", newline="\n")  # noqa: SIM115 - open for the whole game
        self._events: Any = None
        try:
            # a new record's side log is new too: one left by an earlier game is never appended to
            self._events = open(self.events_path, mode, encoding="utf-8", newline="\n")  # noqa: SIM115 - open for the whole game
            if header is not None and not _append:
                self._write(self._file, header.to_json())
        except BaseException:  # a side log that cannot be written, or the header: no new record
            self._file.close()  # is left behind, nor a new side log that would refuse the next try
            if self._events is not None:
                self._events.close()
            if not _append:
                self.path.unlink(missing_ok=True)
                if self._events is not None:
                    self.events_path.unlink(missing_ok=True)
            raise

    @classmethod
    def create(cls, path: str | os.PathLike[str], game: str, options: Any, position: Any,
               sync: bool = True) -> LiveRecord:
        return cls(path, sync=sync, header=RecordHeader(game, dict(options or {}), position,
                                                        f"tabletop play, started {stamp()}"))

    @classmethod
    def resume(cls, path: str | os.PathLike[str], sync: bool = True) -> tuple[LiveRecord, Referee, int]:
        """Open an existing record to continue it: (record, referee at its end, entries).

        The record is read and replayed in full before anything is written: a file that is not
        a record of a game, or holds an action it cannot replay, raises and is left untouched."""
        referee, n, kept = cls.read(path)
        return cls.reopen(path, kept, sync=sync), referee, n

    @staticmethod
    def read(path: str | os.PathLike[str]) -> tuple[Referee, int, int]:
        """Read and replay an existing record without writing to it: (referee at its end,
        entries, bytes to keep). A last line cut short by a crash (no line end, not JSON) is
        left out of the bytes kept; a whole last line that lacks only its line end is kept."""
        p = Path(path)
        if p.is_dir():
            raise RecordError("", "is a folder, not a game record", str(p))
        raw = p.read_bytes()
        cut = kept_bytes(raw)
        try:
            text = raw[:cut].decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError("", "not a game record (not UTF-8 text; a record is JSON Lines)", str(p)) from None
        record = parse_record(text, str(p))  # undo lines checked against what they take back
        referee = Referee.for_record(record)
        n = sum(1 for _ in replay(record, referee))
        return referee, n, cut

    @classmethod
    def reopen(cls, path: str | os.PathLike[str], kept: int, sync: bool = True) -> LiveRecord:
        """Open a record :meth:`read` accepted for appending: the half-written line after
        ``kept`` bytes is dropped, and a whole last line without its line end gets one."""
        trim_to(path, kept)
        return cls(Path(path), sync=sync, _append=True)

    def _write(self, f: Any, obj: Any) -> None:
        f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        f.flush()
        if self.sync:
            os.fsync(f.fileno())

    def action(self, action_json: Any, rolls: Iterable[int] = (), announcement: str = "",
               t: float | None = None) -> None:
        self._write(self._file, entry_json(action_json, tuple(rolls), f"{stamp(t)} {announcement}".strip()))
        self.event("action", action=action_json, rolls=list(rolls), announcement=announcement, t=t)

    def undo(self, action_json: Any, notation: str = "", t: float | None = None) -> None:
        """Append an undo line: ``action_json``, the last action standing, is taken back."""
        self._write(self._file, {"undo": action_json, "comment": f"{stamp(t)} undone: {notation}".strip()})
        self.event("undo", action=action_json, notation=notation, t=t)

    def event(self, kind: str, t: float | None = None, **data: Any) -> None:
        self._write(self._events, {"time": stamp(t), "kind": kind, **data})

    def close(self) -> None:
        for f in (self._file, self._events):
            if not f.closed:
                f.close()

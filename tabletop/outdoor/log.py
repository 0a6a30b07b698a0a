"""The outdoor session's log: what the assistant read and said, kept as it goes.

``tabletop outdoor --log FILE`` writes it and ``--resume FILE`` continues the session it
holds. JSON Lines, one object a line, each flushed (and synced) the moment it is written, so
a crash, a camera pulled out or the window closed loses nothing already read or said::

    {"format": "tabletop-outdoor-log/1", "options": {"field_width": 24.0, ...}, "comment": "..."}
    {"time": "2026-11-24T11:35:02", "said": "Field read: 1 red, 1 blue pieces.", "kind": "info"}
    {"time": "2026-11-24T11:35:02", "position": {"sequence": 1, "placing": true, "pieces": [
      {"id": "R1", "side": "red", "at": {"x": 3.2, "y": 6.8}, "facing": 109.0,
       "footprint": {"shape": "ellipse", "length": 1.2, "width": 0.9}, "confidence": 0.91,
       "method": "fit", "box": [412.0, 220.5, 440.2, 251.0]}, ...]}}

Line 1 is the header: ``format``, the game's ``options`` (:class:`rules.the_game.options.TheGameOptions`
as JSON, the field's size included) and a ``comment``. Then, in the order they came, each
announcement (``said``; ``kind``: ``info``, ``legal`` or ``illegal``) and each settled
position (``position``: the ``sequence`` being played, whether its pieces are still being put
down, ``placing``, and every piece as read, or kept where it was last seen: ``method``
``kept``; ``box`` is the piece's box in the frame it was last seen in, in pixels, ``null``
when not known; then what the session knew beyond the pieces: ``down``, where pieces said to
be knocked down stood, and ``left``, where pieces said to have left the field lie, each a
list of ``{"side": ..., "at": {"x": ..., "y": ...}}``, and ``order``, whose go it is:
``{"first": "red", "phase": "movement", "turn": 2, "done": [places of the pieces that had
their go], "split": false}``; a log written without them resumes with none). A
resumed session starts from the log's last position: the next still position is compared
with it, as if the session had never stopped. A last line cut short by a crash is dropped
when the log is resumed; any other line that cannot be read is refused, with its number, and
the file is left as it was.

Beside the log lie the last settled position's frame, ``FILE.still.jpg`` (undistorted, as
the pieces were read from it), and ``FILE.still.json``: which position it shows (its number
among the log's positions) and the camera it was seen through, so that a resumed session can
tell whether a piece it misses still stands where it was (its place looks as it did)::

    {"format": "tabletop-outdoor-still/1", "position": 7, "size": [1280, 720],
     "field": [24.0, 24.0], "K": [[...], [...], [...]], "R": [[...], [...], [...]], "t": [...]}

Each is replaced whole (written aside, then renamed), the picture first: a crash between the
two leaves a ``position`` that is not the log's last, and the picture is not used.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from rules.errors import FormatError
from rules.geometry import FieldPoint
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_float,
    get_int,
    get_str,
    path,
    reject_unknown,
)
from rules.the_game.options import TheGameOptions, footprint_from_json, point_from_json
from tabletop.errors import RecordError
from tabletop.live.record import kept_bytes, stamp, trim_to
from tabletop.outdoor.assistant import FieldReport
from tabletop.outdoor.order import Order, places
from tabletop.outdoor.readings import PieceReading

if TYPE_CHECKING:
    from tabletop.outdoor.view import FieldView

__all__ = ["FORMAT", "STILL_FORMAT", "FieldLog", "LoggedSession", "read_log", "read_still", "still_paths"]

FORMAT = "tabletop-outdoor-log/1"
STILL_FORMAT = "tabletop-outdoor-still/1"
_STILL = frozenset({"format", "position", "size", "field", "K", "R", "t"})
_HEADER = frozenset({"format", "options", "comment"})
_SAID = frozenset({"time", "said", "kind"})
_POSITION = frozenset({"time", "position"})
_PIECE = frozenset({"id", "side", "at", "facing", "footprint", "confidence", "method", "box"})
_KINDS = ("info", "legal", "illegal")
_METHODS = ("fit", "ground", "box", "kept")  # how a piece was read (PieceReading.method; kept: memory.KEPT)


@dataclass(frozen=True)
class LoggedSession:
    """What a log holds: the game's ``options``, its last settled position's pieces
    (``None``: no position settled yet), the ``sequence`` being played then and whether
    pieces were still being put down (``placing``), how many positions and announcements
    it holds, and how many of its bytes are whole lines (:func:`tabletop.live.record.kept_bytes`)."""

    options: TheGameOptions
    readings: tuple[PieceReading, ...] | None
    sequence: int
    placing: bool
    positions: int
    said: int
    kept: int
    #: What the session knew beyond the pieces at its last position (``down``, ``left``:
    #: lists of (side, point); ``order``: an :class:`~tabletop.outdoor.order.Order`); empty
    #: for a log written before these were kept.
    memo: dict[str, Any] = field(default_factory=dict)


class FieldLog:
    """An outdoor session's log, open for appending (:meth:`create` a new one, :meth:`resume`
    one that exists)."""

    def __init__(self, path: str | os.PathLike[str], file: IO[str], sync: bool = True, positions: int = 0) -> None:
        self.path = Path(path)
        self.sync = sync
        #: How many positions the log holds.
        self.positions = positions
        self._file: IO[str] | None = file

    @classmethod
    def create(cls, path: str | os.PathLike[str], options: TheGameOptions, sync: bool = True) -> FieldLog:
        """Start a new log at ``path`` (which must not exist: ``FileExistsError``)."""
        log = cls(path, open(path, "x", encoding="utf-8", newline="\n"), sync)  # noqa: SIM115 - open for the whole session
        log._forget_still()  # a picture left beside an older log of that name is not this log's
        log._write({"format": FORMAT, "options": options.to_json(), "comment": f"tabletop outdoor, started {stamp()}"})
        return log

    @classmethod
    def resume(cls, path: str | os.PathLike[str], sync: bool = True) -> tuple[FieldLog, LoggedSession]:
        """Open an existing log to continue it: the log (for appending) and what it holds. The
        log is read in full before anything is written: one that cannot be read raises
        :class:`~tabletop.errors.RecordError` and is left untouched."""
        held = read_log(path)
        return cls.reopen(path, held.kept, sync, held.positions), held

    @classmethod
    def reopen(cls, path: str | os.PathLike[str], kept: int, sync: bool = True, positions: int = 0) -> FieldLog:
        """Open a log :func:`read_log` accepted for appending after its ``kept`` bytes (a
        last line cut short by a crash is dropped); ``positions``: how many it holds."""
        trim_to(path, kept)
        return cls(path, open(path, "a", encoding="utf-8", newline="\n"), sync, positions)

    def said(self, text: str, kind: str = "info", t: float | None = None) -> None:
        """Log one announcement (``t``: seconds since the epoch; now by default)."""
        self._write({"time": stamp(t), "said": text, "kind": kind})

    def position(self, report: FieldReport, sequence: int, placing: bool, t: float | None = None,
                 picture: tuple[np.ndarray, FieldView] | None = None, memo: dict[str, Any] | None = None) -> None:
        """Log a settled position: its pieces, the sequence and whether pieces are being put
        down; ``picture``, its frame and view, is kept beside the log (``None``: the picture
        of an earlier position is no longer used); ``memo``, what the session knows beyond the
        pieces (:meth:`tabletop.outdoor.live.OutdoorSession.memo`: ``down``, ``left``, ``order``)."""
        body = {"sequence": sequence, "placing": placing, "pieces": [_piece_json(r) for r in report.readings]}
        self._write({"time": stamp(t), "position": {**body, **(memo or {})}})
        self.positions += 1
        if picture is None:
            self._forget_still()
        else:
            self._keep_still(*picture)

    def _keep_still(self, image: np.ndarray, view: FieldView) -> None:
        import cv2

        jpg, meta = still_paths(self.path)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        try:
            if not ok:
                raise OSError("the frame cannot be encoded")
            self._replace(jpg, data.tobytes())
            self._replace(meta, json.dumps({
                "format": STILL_FORMAT, "position": self.positions, "size": list(view.size),
                "field": [float(v) for v in view.pose.size], "K": np.asarray(view.K, float).tolist(),
                "R": np.asarray(view.R, float).tolist(), "t": np.asarray(view.t, float).ravel().tolist()}).encode())
        except OSError:  # the frame is a help, not the record: the session goes on without it
            self._forget_still()

    def _forget_still(self) -> None:
        for p in reversed(still_paths(self.path)):  # the description first: without it the picture is not used
            with contextlib.suppress(OSError):
                p.unlink(missing_ok=True)

    def _replace(self, target: Path, data: bytes) -> None:
        aside = target.with_name(target.name + ".part")
        with open(aside, "wb") as f:
            f.write(data)
            f.flush()
            if self.sync:
                os.fsync(f.fileno())
        os.replace(aside, target)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> FieldLog:  # noqa: PYI034 (typing.Self needs Python 3.11)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, obj: Any) -> None:
        if self._file is None:
            raise ValueError(f"the log {self.path} is closed")
        self._file.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._file.flush()
        if self.sync:
            os.fsync(self._file.fileno())


def read_log(path: str | os.PathLike[str]) -> LoggedSession:
    """Read an outdoor session's log without writing to it (see the module docstring);
    :class:`~tabletop.errors.RecordError` names the line that cannot be read."""
    p = Path(path)
    source = str(p)
    if p.is_dir():
        raise RecordError("", "is a folder, not an outdoor session's log", source)
    try:
        raw = p.read_bytes()
    except OSError as err:
        raise RecordError("", f"cannot be read ({err.strerror or err})", source) from None
    kept = kept_bytes(raw)
    try:
        text = raw[:kept].decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError("", "not an outdoor session's log (not UTF-8 text; a log is JSON Lines)", source) from None
    options: TheGameOptions | None = None
    readings: tuple[PieceReading, ...] | None = None
    memo: dict[str, Any] = {}
    sequence, placing, positions, said = 1, True, 0, 0
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise RecordError(where, f"invalid JSON at column {err.colno}: {err.msg}", source) from None
        except RecursionError:
            raise RecordError(where, "nested too deeply to be a log line", source) from None
        try:
            if options is None:
                options = _header(obj)
            elif isinstance(obj, dict) and "position" in obj:
                reject_unknown(obj, _POSITION, "")
                readings, sequence, placing, memo = _position(obj["position"], options)
                positions += 1
            else:
                body = as_object(obj, "")
                reject_unknown(body, _SAID, "")
                get_str(body, "said", "")
                if get_str(body, "kind", "") not in _KINDS:
                    raise FormatError("kind", f"expected one of {', '.join(_KINDS)}, got {body['kind']!r}")
                said += 1
        except FormatError as err:
            raise RecordError(f"{where}: {err.field}" if err.field else where, err.detail, source) from None
    if options is None:
        raise RecordError("", "empty: an outdoor session's log starts with its header line", source)
    return LoggedSession(options, readings, sequence, placing, positions, said, kept, memo)


def still_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Where the log at ``path`` keeps its last settled position's frame and its description."""
    return Path(f"{path}.still.jpg"), Path(f"{path}.still.json")


def read_still(path: str | os.PathLike[str], position: int) -> tuple[np.ndarray, FieldView] | None:
    """The frame and view kept beside the log at ``path`` if they show its ``position``-th
    position (its last), else ``None`` (none kept, or one of an earlier position);
    :class:`~tabletop.errors.RecordError` when they are there but cannot be read."""
    import cv2

    from calibration.errors import CalibrationError
    from tabletop.outdoor.view import FieldView

    jpg, meta = still_paths(path)
    if not meta.exists() or not jpg.exists():
        return None
    source = str(meta)
    try:
        obj = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RecordError("", f"cannot be read ({err})", source) from None
    try:
        body = as_object(obj, "")
        if body.get("format") != STILL_FORMAT:
            raise FormatError("format", f"expected {STILL_FORMAT!r}, got {body.get('format')!r}")
        reject_unknown(body, _STILL, "")
        if get_int(body, "position", "", lo=1) != position:
            return None
        size = _numbers(body, "size", (2,))
        field = _numbers(body, "field", (2,))
        K, R, t = _numbers(body, "K", (3, 3)), _numbers(body, "R", (3, 3)), _numbers(body, "t", (3,))
        if min(size) < 1 or min(field) <= 0:
            raise FormatError("size", "the frame's and the field's sizes must be positive")
    except FormatError as err:
        raise RecordError(err.field, err.detail, source) from None
    image = cv2.imdecode(np.fromfile(jpg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise RecordError("", "not a picture that can be read", str(jpg))
    width, height = int(size[0]), int(size[1])
    if image.shape[:2] != (height, width):
        raise RecordError("size", f"the picture is {image.shape[1]}x{image.shape[0]}, the description says "
                          f"{width}x{height}", source)
    try:
        view = FieldView.from_camera(K, R, t, (float(field[0]), float(field[1])), (width, height))
    except (np.linalg.LinAlgError, ValueError, CalibrationError) as err:
        raise RecordError("", f"not a camera that can be used ({err})", source) from None
    return image, view


def _numbers(body: dict[str, Any], key: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        values = np.asarray(body.get(key), float)
    except (TypeError, ValueError):
        values = np.zeros(0)
    if values.shape != shape or not np.all(np.isfinite(values)):
        raise FormatError(key, f"expected {'x'.join(map(str, shape))} finite numbers")
    return values


def _header(obj: Any) -> TheGameOptions:
    body = as_object(obj, "")
    if body.get("format") != FORMAT:
        raise FormatError("format", f"expected {FORMAT!r} (the first line of an outdoor session's log), "
                          f"got {body.get('format')!r}")
    reject_unknown(body, _HEADER, "")
    return TheGameOptions.from_json(body.get("options", {}), "options")


def _position(data: Any, options: TheGameOptions) -> tuple[tuple[PieceReading, ...], int, bool, dict[str, Any]]:
    where = "position"
    obj = as_object(data, where)
    reject_unknown(obj, {"sequence", "placing", "pieces", "down", "left", "order"}, where)
    memo: dict[str, Any] = {}
    for key in ("down", "left"):
        if key in obj:
            memo[key] = [places(item, path(path(where, key), i))
                         for i, item in enumerate(as_list(obj[key], path(where, key)))]
    if obj.get("order") is not None:
        memo["order"] = Order.from_json(obj["order"], path(where, "order"))
    sides = {side for key in ("down", "left") for side, _ in memo.get(key, [])}
    if "order" in memo:
        sides |= memo["order"].sides()
    unknown = sorted(sides - set(options.sides))
    if unknown:
        raise FormatError(where, f"side {unknown[0]!r} is not one of the game's sides ({', '.join(options.sides)})")
    sequence = get_int(obj, "sequence", where, lo=1)  # past the last sequence once the game is over
    placing = get_bool(obj, "placing", where)
    items = as_list(obj.get("pieces"), path(where, "pieces"))
    readings = tuple(_piece(item, path(path(where, "pieces"), i), options) for i, item in enumerate(items))
    ids = [r.id for r in readings]
    if len(set(ids)) != len(ids):
        raise FormatError(path(where, "pieces"), "two pieces with one id")
    return readings, sequence, placing, memo


def _piece_json(r: PieceReading) -> dict[str, Any]:
    # a kept piece keeps the box it was last seen in: whether its place still looks as it did is
    # told inside it (memory.place_likeness), after a restart too
    box = None if not any(r.box) else [round(float(v), 1) for v in r.box]
    return {**r.to_json(), "box": box}


def _piece(data: Any, where: str, options: TheGameOptions) -> PieceReading:
    obj = as_object(data, where)
    reject_unknown(obj, _PIECE, where)
    side = get_str(obj, "side", where)
    if side not in options.sides:
        raise FormatError(path(where, "side"), f"expected one of the sides {', '.join(options.sides)}, got {side!r}")
    facing = _finite(obj, "facing", where)
    confidence = _finite(obj, "confidence", where)
    box = obj.get("box")
    if box is None:
        corners: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    else:
        values = as_list(box, path(where, "box"))
        if len(values) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                       and math.isfinite(v) for v in values):
            raise FormatError(path(where, "box"), "expected four pixel coordinates [x0, y0, x1, y1], or null")
        corners = (float(values[0]), float(values[1]), float(values[2]), float(values[3]))
    at: FieldPoint = point_from_json(obj.get("at"), path(where, "at"))
    footprint = footprint_from_json(obj.get("footprint"), path(where, "footprint"))
    method = get_str(obj, "method", where)
    if method not in _METHODS:
        raise FormatError(path(where, "method"), f"expected one of {', '.join(_METHODS)}, got {method!r}")
    return PieceReading(get_str(obj, "id", where), side, at, facing % 360.0, footprint, corners, confidence,
                        None, method, footprint.outline(at.x, at.y, facing))


def _finite(obj: Any, key: str, where: str) -> float:
    value = float(get_float(obj, key, where))
    if not math.isfinite(value):
        raise FormatError(path(where, key), "must be a finite number")
    return value

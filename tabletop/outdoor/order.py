"""Whose go it is outdoors, in The Game's order of play, from the goes the camera sees.

The engine's order (:mod:`rules.the_game.flow`): within a phase the sides take turns, each
giving one of its pieces its go; a side with nothing left to do is skipped. In the movement
phase every standing piece is due a go; in the action phase only the pieces with a piece of
the other side within action range. When nobody is due, the movement phase gives way to the
action phase, and the action phase ends the turn; the side that went first in the sequence
goes first in every phase.

The camera sees a piece move, walk off, close in to act, or knock one down without moving;
:class:`Order` counts such a piece as having had its go, and after each still position says
who goes next:
*"Blue to move."*; once both sides' pieces have had their goes, *"Turn 1: the action phase.
Red to act."* or *"Turn 2: Red to move."*. A piece left alone on purpose (a stay, a pass)
shows nothing, so it still counts as due: the sides still take turns, and the phase is said
to end only once the pieces the camera saw standing have all gone. Once the survivors are
split (:attr:`Order.split`), who plays which piece no front dot tells: nobody's go is said.

>>> from rules.geometry import FieldPoint
>>> from rules.the_game.shapes import Footprint
>>> from tabletop.outdoor.assistant import assess
>>> from tabletop.outdoor.readings import PieceReading
>>> disc = Footprint.ellipse(1.0, 1.0)
>>> def piece(pid, x, y):
...     return PieceReading(pid, "red" if pid[0] == "R" else "blue", FieldPoint(x, y), 90.0, disc, (0, 0, 1, 1), 1.0)
>>> order = Order()
>>> order.after("red", {"R1"}, assess([piece("R1", 4, 8), piece("B1", 20, 20)]))
'Blue to move.'
>>> order.after("blue", {"B1"}, assess([piece("R1", 4, 8), piece("B1", 20, 14)]))
'Turn 2: Red to move.'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rules.errors import FormatError
from rules.geometry import FieldPoint
from rules.jsonutil import as_list, as_object, get_bool, get_int, get_str, path, reject_unknown
from rules.the_game.options import point_from_json
from rules.the_game.sight import within
from tabletop.outdoor.assistant import FieldReport, pair_nearest
from tabletop.outdoor.memory import STILL

__all__ = ["Order", "place_json", "places"]


def places(data: Any, where: str) -> tuple[str, FieldPoint]:
    """A (side, point) place from ``{"side": ..., "at": {"x": ..., "y": ...}}``."""
    obj = as_object(data, where)
    reject_unknown(obj, {"side", "at"}, where)
    return get_str(obj, "side", where), point_from_json(obj.get("at"), path(where, "at"))


def place_json(place: tuple[str, FieldPoint]) -> dict[str, Any]:
    side, at = place
    return {"side": side, "at": {"x": round(at.x, 3), "y": round(at.y, 3)}}


class Order:
    """The order of play of one sequence, followed from still position to still position."""

    def __init__(self) -> None:
        self.first: str | None = None  # the side that went first this sequence
        self.phase = "movement"
        self.turn = 1
        self._done: list[tuple[str, FieldPoint]] = []  # (side, place) of the pieces that had their go
        #: The survivors were split: who plays which piece no front dot tells, so whose go it
        #: is is not said again this sequence.
        self.split = False

    def to_json(self) -> dict[str, Any]:
        """The order as the outdoor log keeps it (:meth:`from_json` reads it back)."""
        return {"first": self.first, "phase": self.phase, "turn": self.turn,
                "done": [place_json(p) for p in self._done], "split": self.split}

    @classmethod
    def from_json(cls, data: Any, where: str = "order") -> Order:
        """An order from :meth:`to_json`'s object; :class:`~rules.errors.FormatError` names a
        field that is not one."""
        obj = as_object(data, where)
        reject_unknown(obj, {"first", "phase", "turn", "done", "split"}, where)
        order = cls()
        first = obj.get("first")
        if first is not None and not isinstance(first, str):
            raise FormatError(path(where, "first"), f"expected a side or null, got {first!r}")
        order.first = first
        order.phase = get_str(obj, "phase", where)
        if order.phase not in ("movement", "action"):
            raise FormatError(path(where, "phase"), f"expected movement or action, got {order.phase!r}")
        order.turn = get_int(obj, "turn", where, lo=1)
        order._done = [places(item, path(path(where, "done"), i))
                       for i, item in enumerate(as_list(obj.get("done", []), path(where, "done")))]
        order.split = get_bool(obj, "split", where, default=False)
        return order

    def sides(self) -> set[str]:
        """The sides the order names (the first side, those of the pieces that had their go)."""
        return {side for side, _ in self._done} | ({self.first} if self.first else set())

    def reset(self) -> None:
        """A new sequence: nobody has gone yet."""
        self.__init__()  # type: ignore[misc]

    def after(self, side: str | None, went: Iterable[str], report: FieldReport) -> str | None:
        """Who goes next, once ``side`` had a go: its pieces ``went`` (their ids in ``report``,
        the position now) moved or closed in to act, or walked off. ``None`` when no side, or
        both, had one (a piece gone for no reason the rules give; the goes seen still count),
        or no piece stands, or the survivors were split (:attr:`split`)."""
        if not report.readings or self.split:
            return None
        went = set(went)
        # the places of the pieces that had their go, followed to where the pieces stand now
        pairs = pair_nearest(self._done, [(r.side, r.centre) for r in report.readings], STILL)
        done = set(pairs.values()) | {j for j, r in enumerate(report.readings) if r.id in went}
        self._done = [(report.readings[j].side, report.readings[j].centre) for j in sorted(done)]
        if side is None:
            return None
        if self.first is None:
            self.first = side
        for who in [s for s in report.options.sides if s != side] + [side]:
            if self._due(who, report, done):
                return f"{who.capitalize()} {'to move' if self.phase == 'movement' else 'to act'}."
        return self._next_phase(report)

    def _due(self, side: str, report: FieldReport, done: set[int]) -> bool:
        reach = report.options.action_range + report.options.tolerance
        for j, (r, p) in enumerate(zip(report.readings, report.pieces)):
            if r.side != side or j in done:
                continue
            if self.phase == "movement" or any(q.side != p.side and within(p, q, reach) for q in report.pieces):
                return True
        return False

    def _next_phase(self, report: FieldReport) -> str | None:
        """Nobody is due: movement gives way to action (when some piece has a piece of the
        other side within range), action to the next turn's movement."""
        self._done = []
        first = self.first or report.options.sides[0]
        sides = [first] + [s for s in report.options.sides if s != first]
        if self.phase == "movement":
            self.phase = "action"
            for who in sides:
                if self._due(who, report, set()):
                    return f"Turn {self.turn}: the action phase. {who.capitalize()} to act."
        self.phase, self.turn = "movement", self.turn + 1
        for who in sides:
            if self._due(who, report, set()):
                return f"Turn {self.turn}: {who.capitalize()} to move."
        return None

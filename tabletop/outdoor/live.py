"""The outdoor assistant on a live stream: settled positions announced, moves judged, clicks measured.

:class:`OutdoorSession` is fed frames; each goes through :class:`OutdoorAssistant`. A
position counts once it has stood still (every piece within half an inch and 20 degrees of
where it was, but for one piece the detector is unsure of: :func:`_same`) for ``window_s``
seconds with no hand over the field (the pieces and sides most of the window's frames show,
:func:`averaged`); then the session says
what changed since the last settled position (:func:`tabletop.outdoor.assistant.changes`:
moves judged, pieces closing in to act, knocked down or gone off the field; pieces read off
the field are out of play from then on), whose go it is next (:mod:`tabletop.outdoor.order`),
what each piece may do now (only the pieces whose advice changed), and when a side has no
piece left or the field is empty. A piece that
a piece put down in front of it hides from the camera, or that the detector misses where no
hand came since the last still position or where the picture shows its place as it was, is
kept where it was last seen
(:mod:`tabletop.outdoor.memory`; ``remember=False`` reads each position on its own). While
the pieces are being put down (:attr:`OutdoorSession.placing`: from the first field read or an
empty field until a still position adds no piece), a piece hidden behind a new one of its own
side is kept too, rather than read as moved to where the new one stands, and nothing is judged
(a piece set down again elsewhere is set-up, not a move). Sentences go
to ``say`` (an :class:`tabletop.live.audio.Audio`'s ``announce``, or ``print``).

:func:`click_to_measure` gives any OpenCV window (``tabletop outdoor``'s own, or ``tabletop
play``'s) two-click measuring through :class:`~tabletop.outdoor.measure.ClickMeasure`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from rules.geometry import FieldPoint
from rules.the_game.sight import within
from tabletop.outdoor.assistant import (
    FieldReport,
    assess,
    changes,
    in_play,
    off_field,
    pair_nearest,
    to_piece,
)
from tabletop.outdoor.dots import dot_present, dot_reach
from tabletop.outdoor.frame import OutdoorAssistant, OutdoorFrame
from tabletop.outdoor.measure import ClickMeasure
from tabletop.outdoor.memory import KEPT, LIKE, STILL, dot_gone, out_of_sight, place_likeness
from tabletop.outdoor.order import Order, place_json
from tabletop.outdoor.readings import PieceReading, name_pieces

__all__ = ["OutdoorSession", "averaged", "click_to_measure", "play_frame", "position_key", "register_play_window"]


def position_key(report: FieldReport, left: Sequence[tuple[str, FieldPoint]] = ()) -> tuple[tuple[str, float, float, float], ...]:
    """The pieces seen on the field as (side, x, y, facing), for telling a still position from
    a moving one (pieces kept out of sight, pieces lying off the field, and pieces of ``left``,
    places where a piece said to have left the field still lies, all out of play, left out)."""
    return tuple(sorted((r.side, r.centre.x, r.centre.y, r.facing) for r in report.readings
                        if r.method != KEPT and not off_field(r.centre, report.options) and not _near(r, left)))


def _near(r: PieceReading, places: Sequence[tuple[str, FieldPoint]]) -> bool:
    """Whether ``r`` stands within :data:`~tabletop.outdoor.memory.STILL` of one of ``places``
    (side, point) of its side."""
    return any(side == r.side and at.distance(r.centre) <= STILL for side, at in places)


#: A piece found in one frame and not in the next, within this many inches (centre to centre)
#: of another piece, is a piece half hidden behind it that the detector finds now and then:
#: the position has not changed (one such piece at a time).
CROWDED = 3.0


def _crowded(p: tuple, pieces: tuple) -> bool:
    return any(q is not p and math.hypot(q[1] - p[1], q[2] - p[2]) <= CROWDED for q in pieces)


def _same(a: tuple, b: tuple, inches: float = 0.5, degrees: float = 20.0, vanish: bool = True) -> bool:
    """Whether two frames' pieces (:func:`position_key`) show one position: each piece within
    ``inches`` and ``degrees`` of its own in the other frame (paired one to one, nearest
    first: two readings of one piece in a frame pair with two pieces, not one), but for one
    piece the detector is unsure of: one read as a piece of the other side in the same place
    (a front dot seen at either end: pieces do not change sides), or (with ``vanish``: two
    frames of one still window) one whose facing is read otherwise in the same place (a front
    dot hard to see), or one close beside another (:data:`CROWDED`) that only one of the
    frames shows."""
    pairs = pair_nearest([(p[0], FieldPoint(p[1], p[2])) for p in a], [(q[0], FieldPoint(q[1], q[2])) for q in b],
                         inches, lambda i, j: abs((b[j][3] - a[i][3] + 180) % 360 - 180) <= degrees)
    paired_a, paired_b = set(pairs), set(pairs.values())
    old = [p for i, p in enumerate(a) if i not in paired_a]
    new = [q for j, q in enumerate(b) if j not in paired_b]
    if len(old) + len(new) > 2:
        return False
    if len(old) == len(new) == 1:
        p, q = old[0], new[0]
        return (p[0] != q[0] or vanish) and math.hypot(q[1] - p[1], q[2] - p[2]) <= inches
    if len(old) + len(new) == 0:
        return True
    return vanish and len(old) + len(new) == 1 and (_crowded(*old, a) if old else _crowded(*new, b))


#: How a kept piece's absence is said (:func:`tabletop.outdoor.memory.out_of_sight`'s reasons).
_UNSEEN = {"hidden": "hidden behind another piece", "untouched": "not seen, but no hand came near it",
           "unchanged": "not found, but its place looks as it did"}


def _counts(report: FieldReport) -> str:
    """How many pieces of each side ``report`` holds: "3 red, 2 blue"."""
    return ", ".join(f"{sum(1 for r in report.readings if r.side == s)} {s}" for s in report.options.sides)


def _acted_on(before: FieldReport, after: FieldReport) -> set[str]:
    """The pieces of ``before`` that a piece of the other side closed in on by ``after``
    (:func:`tabletop.outdoor.assistant.changes`)."""
    return {c.target for c in changes(before, after) if c.target is not None}


def _shifted_only(before: FieldReport, after: FieldReport) -> bool:
    """Whether every piece of ``before`` is read again within :data:`~tabletop.outdoor.memory.STILL`
    of where it stood, and nothing else is read: no piece moved. While the pieces are put
    down, that is a piece put down against one of its own side and read as one with it (or
    hiding it), not the first move."""
    if len(after.readings) != len(before.readings):
        return False
    pairs = pair_nearest([(r.side, r.centre) for r in before.readings], [(q.side, q.centre) for q in after.readings], STILL)
    return len(pairs) == len(before.readings)


#: A hand's box (pixels) over the whole field: the frames between two sessions (a crash and
#: ``--resume``) were not watched, so no piece missing then is kept as "no hand came near it".
UNWATCHED = (-1e9, -1e9, 1e9, 1e9)


class OutdoorSession:
    """Frames in, announcements out. ``window_s``: how long a position must stand still;
    ``remember``: keep a piece where it was last seen while it is hidden behind another, or
    missed where no hand came (:mod:`tabletop.outdoor.memory`); ``on_settle(report,
    sequence, placing)``: called with each settled position once it is announced, its frame
    in :attr:`settled_picture` (a log, :mod:`tabletop.outdoor.log`)."""

    def __init__(self, assistant: OutdoorAssistant, say: Callable[[str, str], None],
                 window_s: float = 0.6, remember: bool = True,
                 on_settle: Callable[[FieldReport, int, bool], None] | None = None) -> None:
        self.assistant = assistant
        self.on_settle = on_settle
        self.remember = remember
        self.say = say
        self.window_s = window_s
        self.settled: FieldReport | None = None
        self.said: dict[str, str] = {}
        self._key: tuple | None = None
        self._since: float | None = None
        self.last: OutdoorFrame | None = None
        self.missing_field = False
        self._window: list[FieldReport] = []
        self._hands: list[tuple[float, float, float, float]] = []
        self.sequence = 1
        #: Whether the pieces are being put down (a sequence's set-up): from the first field read,
        #: or an empty field, until a settled position adds no piece.
        self.placing = True
        self._settled_picture: tuple[Any, Any] | None = None
        #: Where pieces said to be knocked down stood, this sequence: one seen there again was not.
        self._down: list[tuple[str, FieldPoint]] = []
        #: Where pieces said to have left the field lie, still in sight inside its edge (an
        #: unobserved piece stopped within the tolerance of it): out of play while they lie there.
        self._left: list[tuple[str, FieldPoint]] = []
        #: Whose go it is (The Game's order of play), from the goes seen this sequence.
        self.order = Order()

    def resume(self, readings: Sequence[PieceReading], sequence: int, placing: bool,
               picture: tuple[Any, Any] | None = None, memo: Mapping[str, Any] | None = None) -> FieldReport:
        """Continue a session from a settled position it left (:mod:`tabletop.outdoor.log`):
        the next still position is compared with ``readings``, in sequence ``sequence``, the
        pieces still being put down if ``placing``; ``picture``: that position's frame and its
        view (:attr:`settled_picture`, kept beside the log), to tell whether a piece missed
        then still stands where it was (``None``: such a piece is not kept). Nobody watched
        the field meanwhile, so a piece missing then may have been lifted (:data:`UNWATCHED`).
        ``memo``: what the session knew then beyond the pieces, as the log read it back
        (:func:`tabletop.outdoor.log.read_log`: ``down`` and ``left``, (side, point) places;
        ``order``, an :class:`~tabletop.outdoor.order.Order`). Says the position and returns it."""
        report = in_play(assess(readings, getattr(self.assistant, "options", None)))  # a log may hold one past the edge
        self.settled, self.sequence, self.placing = report, sequence, placing
        memo = memo or {}
        self._down = list(memo.get("down", []))
        self._left = list(memo.get("left", []))
        self.order = memo.get("order") or Order()
        self.said = {r.id: report.advice[r.id].sentence() for r in report.readings}
        self._settled_picture = picture
        self._hands = [UNWATCHED]  # nobody watched between the sessions: a hand may have reached any piece
        counts = _counts(report)
        if sequence > report.options.sequences:
            self.say(f"Resumed after the end of the game (sequence {report.options.sequences} was the last): "
                     f"{counts} pieces.", "info")
        else:
            self.say(f"Resumed sequence {sequence}{' (setting up)' if placing else ''}: {counts} pieces.", "info")
        return report

    def memo(self) -> dict[str, Any]:
        """What the session knows beyond the settled position's pieces, for the log to keep
        (:meth:`resume` takes it back): where pieces said to be knocked down stood (one seen
        standing there again is said so), where pieces said to have left the field lie
        (out of play while they lie there), and whose go it is (:class:`~tabletop.outdoor.order.Order`)."""
        return {"down": [place_json(p) for p in self._down], "left": [place_json(p) for p in self._left],
                "order": self.order.to_json()}

    @property
    def settled_picture(self) -> tuple[Any, Any] | None:
        """The last settled position's frame (undistorted) and its view, ``None`` without one."""
        return self._settled_picture

    @property
    def settling(self) -> bool:
        """Whether a position is being watched to see that it stands still."""
        return self._since is not None

    def process(self, frame: Any, t: float) -> OutdoorFrame:
        result = self.assistant.process(frame)
        self.last = result
        events = getattr(self.assistant.setup, "events", None) if hasattr(self.assistant, "setup") else None
        while events:
            self.say(events.pop(0).capitalize() + ".", "info")
        if result.report is None:
            if not self.missing_field:
                self.say(f"No field: {result.error}", "info")
                self.missing_field = True
            self._since = self._key = None
            return result
        if self.missing_field:
            self.say("Field found.", "info")
            self.missing_field = False
        if result.hands:
            self._since = self._key = None
            self._hands += result.hands  # where a piece may have been moved since the last still position
            return result
        key = position_key(result.report, self._left)
        if self._key is None or not _same(key, self._key):
            self._key, self._since = key, t
            self._window = [result.report]
            return result
        self._window.append(result.report)
        if self._since is not None and t - self._since >= self.window_s:
            self._since = self._key = None  # a window read: the next frame starts the next one
            report = averaged(self._window, getattr(self.assistant, "options", None))
            lying = self._lying(report)
            if lying:  # turned on their sides: no longer pieces, whatever the detector still boxes there
                report = assess(name_pieces([r for r in report.readings if r not in lying], report.options.sides),
                                report.options)
            if self.settled is None or not _same(position_key(report, self._left), position_key(self.settled, self._left),
                                                 vanish=False):
                self._settle(report)
            else:  # the position stands as it was: the hands seen since moved nothing
                self._hands = []
        return result

    def _settle(self, report: FieldReport) -> None:
        report = self._with_hidden(report)
        self._left = [(side, at) for side, at in self._left if any(r.side == side and r.centre.distance(at) <= STILL
                                                                   for r in report.readings)]  # unless taken away
        # pieces lying past an edge are out of play, and those said to have left that lie inside it
        playing = [r for r in report.readings if not off_field(r.centre, report.options) and not _near(r, self._left)]
        on_field = report if len(playing) == len(report.readings) else assess(playing, report.options)
        if self.placing and self.settled is not None and len(on_field.readings) <= len(self.settled.readings) \
                and not _shifted_only(self.settled, on_field):
            self.placing = False  # (without memory: _with_hidden has not looked) no piece was put down
        counts = f"{_counts(on_field)} pieces"
        outside = len(report.readings) - len(on_field.readings)
        if outside:
            counts += f" ({outside} more outside the field, not in play)"
        split = False  # a side has just lost its last piece, two or more survivors stand
        if self.settled is None:
            self.say(f"Field read: {counts}.", "info")
        elif self.placing:  # pieces were put down: nothing moved, nothing to judge
            self.say(f"Setting up: {counts}.", "info")
        else:
            said = changes(self.settled, report)
            for c in said:
                self.say(c.text, "illegal" if "too far" in c.text or "must" in c.text else "legal")
            self._standing_again(self.settled, on_field)
            self._down += [(r.side, r.centre) for c in said if c.down and (r := self.settled.reading(c.down)) is not None]
            left = {c.out_of_play for c in said if c.out_of_play}
            if left:
                self._left += [(r.side, r.centre) for r in on_field.readings if r.id in left]
                on_field = assess([r for r in on_field.readings if r.id not in left], on_field.options)
            movers = {c.side for c in said if c.side}
            went = {c.by for c in said if c.by}  # the pieces that had their go (ids in the position now)
            out = {r.side for r in self.settled.readings} - {r.side for r in on_field.readings}
            split = bool(out) and len(on_field.readings) >= 2 and not self.order.split
            self.order.split = self.order.split or split  # said below, with the split
            nxt = self.order.after(next(iter(movers)) if len(movers) == 1 else None, went, on_field)
            if nxt:
                self.say(nxt, "info")
        report = on_field
        sides = {r.side for r in report.readings}
        if self.settled is not None and not self.placing:
            before = {r.side for r in self.settled.readings}
            for side in sorted(before - sides):
                if len(report.readings) >= 2:
                    self.say(f"{side.capitalize()} has no piece left standing: split the survivors.", "info")
                    if split:  # the dots no longer tell who plays which piece
                        self.say("Whose go it is is not said again this sequence: the front dots no longer "
                                 "tell who plays which piece.", "info")
                elif report.readings:  # one piece alone splits into nothing: it walks off (engine: flow)
                    last = report.readings[0]
                    self.say(f"{last.side.capitalize()} {last.id} is the last piece standing: unaware of anyone, "
                             "it walks towards the nearest edge until it leaves the field.", "info")
            if before and not sides:
                self._down, self._left = [], []
                self.order.reset()
                self.sequence += 1
                self.placing = True
                total = getattr(getattr(self.assistant, "options", None), "sequences", 7)
                if self.sequence > total:
                    self.say(f"No piece is left on the field: sequence {total} is over, and with it the game.", "info")
                else:
                    self.say(f"No piece is left on the field: sequence {self.sequence - 1} is over. "
                             f"Set up sequence {self.sequence}.", "info")
        now = {r.id: report.advice[r.id].sentence() for r in report.readings}
        for pid, text in now.items():
            if self.said.get(pid) != text:
                self.say(text, "info")
        self.said = now
        self.settled = report
        last = self.last  # its picture (a copy: a camera may fill one buffer) tells whether a place looks as it did
        self._settled_picture = None if last is None or last.image is None or last.view is None \
            else (last.image.copy(), last.view)
        if self.on_settle is not None:
            self.on_settle(report, self.sequence, self.placing)

    def _standing_again(self, before: FieldReport, after: FieldReport) -> None:
        """Say so of a piece of ``after`` that ``before`` lacks (paired nearest first, as moves
        are: a piece that moved is not one of them) standing where a piece was said to be
        knocked down (within :data:`~tabletop.outdoor.memory.STILL`, same side): the action
        failed, and the piece, hidden or missed then, is in play."""
        pairs = pair_nearest([(r.side, r.centre) for r in before.readings], [(q.side, q.centre) for q in after.readings])
        new = [q for j, q in enumerate(after.readings) if j not in set(pairs.values())]
        for q in new:
            was = next((d for d in self._down if d[0] == q.side and d[1].distance(q.centre) <= STILL), None)
            if was is not None:
                self._down.remove(was)
                self.say(f"{q.side.capitalize()} {q.id} stands where a piece was said to be knocked down: it was not, "
                         "and is in play.", "info")

    def _lying(self, report: FieldReport) -> list[PieceReading]:
        """The readings of ``report`` (a still window's) that are pieces knocked down: each
        stands where a piece of the last settled position stood (within
        :data:`~tabletop.outdoor.memory.STILL`, read as either side: a piece on its side is
        boxed now and then, unsurely, as either; as the other side only while that side has
        more readings than it had pieces in sight (one kept out of sight counting only where it
        is read again): else the reading is one of its own pieces, such as the actor that
        closed in, moved there), that piece stood within action range of a
        piece of the other side, and its front dot, seen in the settled position's picture, is
        gone from the latest frame (:func:`~tabletop.outdoor.memory.dot_gone`) where no other
        piece read now stands over it (a piece closing in from the camera's side may hide a
        dot), nor does a dot of its colour stand out where the reading now puts its dot (a
        piece moved or turned by less than :data:`~tabletop.outdoor.memory.STILL` took its dot
        along: an actor closing in), and a piece of the other side read now, not itself taken
        for one lying, stands within action range of where it stood (it knocked it down: a
        piece in range of none, its dot out of sight, is an actor turned away from the camera).
        So are, in the still positions after, the readings where a piece was said to be knocked
        down that are no piece of the last settled position and whose place looks as it did in
        its picture (:func:`~tabletop.outdoor.memory.place_likeness`, :data:`~tabletop.outdoor.memory.LIKE`):
        the piece still lies there (stood up again, its place looks otherwise, and that is said).
        Without the settled position's picture, none."""
        now = self.last
        if self.settled is None or self._settled_picture is None or now is None or now.image is None \
                or now.view is None:
            return []
        (before, before_view), opts = self._settled_picture, report.options
        reach = opts.action_range + opts.tolerance
        height = getattr(getattr(self.assistant, "config", None), "piece_height", 0.4)
        fresh = [q for q in report.readings if q.method != KEPT]
        # the pieces of the last settled position read again now (nearest first, each reading once)
        paired = pair_nearest([(o.side, o.centre) for o in self.settled.readings],
                              [(q.side, q.centre) for q in fresh], STILL)
        # readings of each side beyond the pieces it had: only such a one, read as the other
        # side, can be a piece of this side lying (not a piece of that side, moved here)
        # (a piece kept out of sight then counts only where a reading of its own stands now,
        # not one that is the reading of a piece beside it)
        spare = {side: sum(1 for q in fresh if q.side == side and not off_field(q.centre, opts)
                           and not _near(q, self._left))
                 - sum(1 for i, o in enumerate(self.settled.readings) if o.side == side
                       and (o.method != KEPT or i in paired))
                 for side in {q.side for q in fresh}}
        lying: list[PieceReading] = []
        was: list[PieceReading] = []  # the settled piece each lies for
        for r in self.settled.readings:
            adv = self.settled.advice.get(r.id)
            if r.dot is None or r.method == KEPT or adv is None or not adv.targets:  # none in range to act on it
                continue
            here = [q for q in fresh if q.centre.distance(r.centre) <= STILL and q not in lying
                    and (q.side == r.side or spare[q.side] > 0)]
            if not here:
                continue
            q = min(here, key=lambda q: q.centre.distance(r.centre))
            x, y = now.view.to_image([[r.dot.x, r.dot.y]], height)[0]
            if any(o is not q and o.box[0] <= x <= o.box[2] and o.box[1] <= y <= o.box[3] for o in fresh):
                continue  # another piece stands over where its dot was
            if q.dot is not None:  # the piece, moved or turned a little, shows its dot where it reads it now
                u, v = now.view.to_image([[q.dot.x, q.dot.y]], height)[0]
                if np.isfinite(u) and np.isfinite(v) and dot_present(now.image, (float(u), float(v)), r.side,
                                                                     dot_reach(q.box)):
                    continue
            if dot_gone(r, before, before_view, now.image, now.view, height):
                lying.append(q)
                was.append(r)
                spare[q.side] -= q.side != r.side
        # knocked down by a piece of the other side that stands, read now, in range of it: a
        # piece in range of none (its dot only out of sight, turned away from the camera) stands
        standing = [o for o in fresh if o not in lying]
        down = [q for q, r in zip(lying, was)
                if any(o.side != r.side and within(to_piece(r), to_piece(o), reach) for o in standing)]
        # a piece said to be knocked down, still boxed where it lies in the still positions
        # after: a reading there that is no piece of the last one (moved a little) and whose
        # place looks as it did then, when the piece already lay there, still lies
        read_again = set(paired.values())
        for _, at in self._down:
            here = [q for j, q in enumerate(fresh) if j not in read_again and q not in down and q.centre.distance(at) <= STILL]
            if here:
                q = min(here, key=lambda q: q.centre.distance(at))
                if (place_likeness(q, before, before_view, now.image, now.view, height) or -1.0) >= LIKE:
                    down.append(q)
        return down

    def _likeness(self, view: Any, height: float) -> Callable[[PieceReading], float | None] | None:
        """How alike a piece's place looks in the last settled position's picture and in the
        latest frame (seen through ``view``): :func:`tabletop.outdoor.memory.place_likeness`,
        and not alike at all (-1) when its front dot stood out there and is gone
        (:func:`tabletop.outdoor.memory.dot_gone`: turned on its side); ``None`` without both
        pictures."""
        now = self.last
        if self._settled_picture is None or now is None or now.image is None:
            return None
        (before, before_view), after = self._settled_picture, now.image
        return lambda r: -1.0 if dot_gone(r, before, before_view, after, view, height) else \
            place_likeness(r, before, before_view, after, view, height)

    def _with_hidden(self, report: FieldReport) -> FieldReport:
        """``report`` with the pieces of the last settled position that still stand where they
        were though unseen (:func:`tabletop.outdoor.memory.out_of_sight`: hidden behind others,
        or missed where no hand came), each said once."""
        view = self.last.view if self.last is not None else None
        hands, self._hands = self._hands, []
        if not self.remember or self.settled is None or view is None:
            return report
        height = getattr(getattr(self.assistant, "config", None), "piece_height", 0.4)
        likeness = self._likeness(view, height)
        kept = out_of_sight(self.settled, report, view, height, hands=hands, placing=self.placing, likeness=likeness,
                            acted_on=() if self.placing else _acted_on(self.settled, report))
        if self.placing and len(report.readings) + len(kept) <= len(self.settled.readings) \
                and not _shifted_only(self.settled, report):
            self.placing = False  # no piece was put down: the play has begun, pieces move
            kept = out_of_sight(self.settled, report, view, height, hands=hands, likeness=likeness,
                                acted_on=_acted_on(self.settled, report))
        if not kept:
            return report
        was_kept = {r.id for r in self.settled.readings if r.method == KEPT}
        newly = {(r.side, r.centre.x, r.centre.y): why for r, why in kept if r.id not in was_kept}
        report = assess(name_pieces([*report.readings, *(r for r, _ in kept)], report.options.sides), report.options)
        for r in report.readings:
            why = newly.get((r.side, r.centre.x, r.centre.y)) if r.method == KEPT else None
            if why is not None:
                self.say(f"{r.side.capitalize()} {r.id} is {_UNSEEN[why]}: kept where it was last seen.", "info")
        return report


def averaged(reports: list[FieldReport], options: Any = None) -> FieldReport:
    """One report from the frames of a still window: the pieces that at least half of the
    frames show (a piece half hidden behind another is found in some frames only), each with
    its centre, facing (:func:`_facing`) and foot's size averaged over the frames that show it
    within half an inch (a detector's boxes jitter from frame to frame; the pieces do not),
    named again."""
    from dataclasses import replace

    from rules.the_game.shapes import Footprint, Shape

    last = reports[-1]
    opts = options if options is not None else last.options
    if len(reports) == 1:
        return last
    groups: list[list[PieceReading]] = []  # one piece's readings, the latest frame's first
    for rep in reversed(reports):
        taken: set[int] = set()
        for q in rep.readings:
            near = [(g[0].centre.distance(q.centre), k) for k, g in enumerate(groups)
                    if k not in taken and g[0].side == q.side and g[0].centre.distance(q.centre) <= 0.5]
            if near:
                k = min(near)[1]
                groups[k].append(q)
                taken.add(k)
            else:
                groups.append([q])
                taken.add(len(groups) - 1)
    # a piece read as either side in one place: the side most frames read (the latest on a tie)
    outvoted = {k for k, g in enumerate(groups) for j, h in enumerate(groups)
                if h[0].side != g[0].side and h[0].centre.distance(g[0].centre) <= 0.5
                and (len(h) > len(g) or (len(h) == len(g) and j < k))}
    out = []
    for k, group in enumerate(groups):
        if k in outvoted or 2 * len(group) < len(reports):
            continue
        r = group[0]
        centre = FieldPoint(sum(q.centre.x for q in group) / len(group), sum(q.centre.y for q in group) / len(group))
        facing = _facing(group)
        foot = r.footprint
        sizes = [(q.footprint.length, q.footprint.width) for q in group if q.footprint.shape is Shape.ELLIPSE]
        if foot.shape is Shape.ELLIPSE and sizes:
            foot = Footprint.ellipse(sum(a for a, _ in sizes) / len(sizes), sum(b for _, b in sizes) / len(sizes))
        out.append(replace(r, centre=centre, facing=facing, footprint=foot,
                           outline=foot.outline(centre.x, centre.y, facing)))
    return assess(name_pieces(out, opts.sides), opts)


def _facing(group: list[PieceReading], degrees: float = 20.0) -> float:
    """A piece's facing over a window's readings of it: the mean of those within ``degrees`` of
    the reading most others agree with (the latest frame's on a tie), so that a front dot now
    and then read at the other end does not turn the mean sideways."""
    def apart(a: float, b: float) -> float:
        return abs((a - b + 180.0) % 360.0 - 180.0)

    anchor = max(group, key=lambda q: sum(apart(q.facing, o.facing) <= degrees for o in group))
    agree = [q.facing for q in group if apart(q.facing, anchor.facing) <= degrees]
    return math.degrees(math.atan2(sum(math.sin(math.radians(f)) for f in agree),
                                   sum(math.cos(math.radians(f)) for f in agree))) % 360.0


def click_to_measure(window: str, session_or_frame: Callable[[], OutdoorFrame | None],
                     say: Callable[[str], None]) -> ClickMeasure:
    """Two clicks in the OpenCV ``window`` measure between pieces or points of the latest
    frame (``session_or_frame()`` returns it); the distance is said with ``say``. The window
    must exist (``cv2.namedWindow``)."""
    import cv2

    cm = ClickMeasure(on_result=lambda m: say(m.text), on_note=say)

    def mouse(event: int, x: int, y: int, flags: int = 0, param: Any = None) -> None:
        latest = session_or_frame()
        if latest is not None:
            cm.update(latest.view, latest.report)
        cm.mouse(event, x, y, flags, param)

    cv2.setMouseCallback(window, mouse)
    return cm


def play_frame(result: Any, size: tuple[int, int], options: Any = None) -> OutdoorFrame | None:
    """A ``tabletop play the-game`` frame result (:class:`tabletop.live.pipeline.FrameResult`)
    as an :class:`OutdoorFrame`: its pose as the field, its seen pieces as readings (the
    game's default foot), assessed by the rules; ``None`` without a field or pieces."""
    from rules.the_game.options import TheGameOptions
    from tabletop.outdoor.view import FieldView

    pose = getattr(getattr(getattr(result, "view", None), "geometry", None), "pose", None)
    seen = getattr(result, "seen", None)
    if pose is None or seen is None:
        return None
    opts = options or TheGameOptions(field_width=pose.size[0], field_depth=pose.size[1])
    readings = []
    for p in seen.pieces:
        side = p.cls.split("-", 1)[0]
        if side not in opts.sides:
            continue
        at = FieldPoint(float(p.point[0]), float(p.point[1]))
        facing = float(p.facing or 0.0)
        readings.append(PieceReading("", side, at, facing, opts.footprint, p.box, p.confidence, None, "box",
                                     opts.footprint.outline(at.x, at.y, facing)))
    readings = name_pieces(readings, opts.sides)
    return OutdoorFrame(None, FieldView.from_pose(pose, size), readings, assess(readings, opts))


def register_play_window(window: str, pipeline: Any, say: Callable[[str], None]) -> ClickMeasure:
    """Two-click measuring in ``tabletop play the-game``'s window: the pipeline's frames are
    watched (its ``process`` is wrapped to keep the latest result) and the distance between
    the two pieces or points clicked is said."""
    latest: dict[str, Any] = {}
    process = pipeline.process

    def watched(frame: Any, t: float | None = None) -> Any:
        result = process(frame, t)
        if frame is not None and hasattr(frame, "shape"):
            latest["frame"] = play_frame(result, (frame.shape[1], frame.shape[0]), getattr(pipeline.game, "options", None))
        return result

    pipeline.process = watched
    return click_to_measure(window, lambda: latest.get("frame"), say)

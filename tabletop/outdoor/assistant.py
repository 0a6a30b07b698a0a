"""What each piece may do, from the pieces as read, through The Game's rules engine.

:func:`assess` turns the readings of a frame into engine pieces, asks
:func:`rules.the_game.sight.observation` who is observed, and gives each piece its
:class:`Advice`: its move (up to 6" anywhere, or 12" straight to the nearest edge), the
edge it would walk off by, and the pieces of the other side it may act on with the number
to beat. :func:`compare` reads the move between two positions and judges it with the
engine (:func:`rules.the_game.moves.plan_move`): too long and by how much, off the field.
Every sentence is plain text for :class:`tabletop.announcer.Announcer`.

A single frame cannot tell how long a piece has stood idle, so the idle rule is left to the
engine's game record (``tabletop play``); sight alone decides here.

>>> from rules.the_game.shapes import Footprint
>>> from tabletop.outdoor.readings import PieceReading
>>> disc = Footprint.ellipse(1.0, 1.0)
>>> r1 = PieceReading("R1", "red", FieldPoint(12, 10), 90.0, disc, (0, 0, 1, 1), 1.0)
>>> b1 = PieceReading("B1", "blue", FieldPoint(12, 11.5), 270.0, disc, (0, 0, 1, 1), 1.0)
>>> report = assess([r1, b1])
>>> report.advice["R1"].sentence()
'Red R1 is observed: up to 6 inches. It may act on B1 (0.5 inches away): needs above 3.'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from rules.core import Verdict
from rules.geometry import FieldPoint
from rules.the_game.acting import close_in, resolve
from rules.the_game.model import Piece
from rules.the_game.moves import Field, plan_move
from rules.the_game.options import TheGameOptions
from rules.the_game.shapes import contains
from rules.the_game.sight import Sighting, edge_gap, observation, within
from tabletop.outdoor.readings import PieceReading

__all__ = ["TWICE", "Advice", "Change", "FieldReport", "assess", "changes", "compare", "in_play", "inches",
           "off_field", "progress", "whose_move"]

#: Two readings of one side whose centres lie within this many inches are one piece read
#: twice (a whole box and a half one): two pieces of a side stand this close only lying on
#: one another. A piece missing now with a reading of its side this close was such a reading.
TWICE = 0.5

_EDGE_NORMALS = {"near": (0.0, -1.0), "far": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


def inches(x: float) -> str:
    """``3.456`` -> ``'3.5 inches'`` (one decimal; ``'1 inch'``)."""
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return f"{text} inch" if text == "1" else f"{text} inches"


@dataclass(frozen=True)
class Advice:
    """One piece's status and what it may do. ``targets``: (piece id, gap in inches, number
    to beat) for each piece of the other side within action range; ``close``: the status
    turns on less than the measuring tolerance (a piece that only just sees, or only just
    misses, another that looks back: worth a look by eye)."""

    piece: PieceReading
    sighting: Sighting
    move: float
    edge: str
    edge_distance: float
    walk_to: FieldPoint
    leaves: bool
    targets: tuple[tuple[str, float, int], ...] = ()
    close: bool = False

    @property
    def observed(self) -> bool:
        return self.sighting.observed

    def sentence(self) -> str:
        who = f"{self.piece.side.capitalize()} {self.piece.id}"
        if self.observed:
            text = f"{who} is observed: up to {inches(self.move)}."
        else:
            why = {"horizon": "it faces the horizon", "unseen": "nobody it sees is looking back",
                   "last-piece": "it is the last piece"}.get(self.sighting.reason, self.sighting.reason)
            if self.leaves:
                text = f"{who} is unobserved ({why}): it walks {inches(self.edge_distance)} straight off the {self.edge} edge."
            else:
                text = f"{who} is unobserved ({why}): {inches(self.move)} straight towards the {self.edge} edge."
        if self.close:
            text = text[:-1] + ", only just: check by eye."
        for tid, d, number in self.targets:
            chance = "cannot succeed" if number >= 6 else (f"needs above {number}" if number >= 1 else "cannot fail")
            text += f" It may act on {tid} ({inches(d)} away): {chance}."
        return text


@dataclass(frozen=True)
class FieldReport:
    """A frame's pieces as the rules see them."""

    readings: tuple[PieceReading, ...]
    pieces: tuple[Piece, ...]
    advice: dict[str, Advice] = field(default_factory=dict)
    options: TheGameOptions = field(default_factory=TheGameOptions)

    def reading(self, piece_id: str) -> PieceReading | None:
        for r in self.readings:
            if r.id.lower() == piece_id.lower():
                return r
        return None

    def distance(self, a: str, b: str) -> float:
        """Edge-to-edge distance between two pieces' footprints, in inches."""
        pa, pb = self._piece(a), self._piece(b)
        return edge_gap(pa, pb)[0]

    def _piece(self, piece_id: str) -> Piece:
        for p in self.pieces:
            if p.id.lower() == piece_id.lower():
                return p
        raise KeyError(piece_id)

    def sentences(self) -> list[str]:
        return [self.advice[r.id].sentence() for r in self.readings if r.id in self.advice]


def to_piece(r: PieceReading) -> Piece:
    return Piece(r.id, r.side, r.side, r.centre, r.facing % 360.0, r.footprint)


def assess(readings: Sequence[PieceReading], options: TheGameOptions | None = None) -> FieldReport:
    """Each piece's :class:`Advice` on a field of ``options`` (default 24" x 24"). A piece read
    off the field (:func:`off_field`) is out of play: it stays among the report's pieces (a
    move there is judged, :func:`changes`) but gets no advice, and neither sees nor is seen."""
    opts = options or TheGameOptions()
    pieces = tuple(to_piece(r) for r in readings)
    playing = tuple(p for p in pieces if not off_field(p.at, opts))
    table = observation(playing, opts)
    fld = Field(opts.field_width, opts.field_depth)
    advice: dict[str, Advice] = {}
    reach = opts.action_range + opts.tolerance
    for r, p in zip(readings, pieces):
        if p.id not in table:
            continue
        s = table[p.id]
        edge, e = fld.nearest(p.at)
        move = opts.observed_move if s.observed else opts.unobserved_move
        nx, ny = _EDGE_NORMALS[edge]
        step = e if (not s.observed and e <= move) else (move if not s.observed else min(move, e))
        walk_to = FieldPoint(p.at.x + nx * step, p.at.y + ny * step)
        targets = []
        for q in playing:
            if q.side == p.side or not within(p, q, reach):
                continue
            # the number to beat is the engine's: read once the actor has closed in (friends
            # beside it, and what it and its target see, may change on the way)
            closer = close_in(p, q, None, opts)
            if isinstance(closer, Piece):
                targets.append((q.id, edge_gap(p, q)[0], resolve(playing, closer, q, opts).number))
        leaves = not s.observed and e <= move
        close = _close_call(p, playing, s.observed, opts)
        advice[p.id] = Advice(r, s, move, edge, e, walk_to, leaves, tuple(sorted(targets, key=lambda t: t[1])), close)
    return FieldReport(tuple(readings), pieces, advice, opts)


def _reach(a: Piece, b: Piece) -> float:
    """How far ``b``'s footprint reaches in front of ``a`` (inches along ``a``'s facing)."""
    fx, fy = math.cos(math.radians(a.facing)), math.sin(math.radians(a.facing))
    return max((x - a.at.x) * fx + (y - a.at.y) * fy for x, y in b.outline)


def _close_call(p: Piece, pieces: Sequence[Piece], observed: bool, opts: TheGameOptions) -> bool:
    """Whether ``p``'s status turns on less than the tolerance: with the half-plane field of
    vision, its best mutual gaze holds by less than the tolerance, or a gaze it lacks fails by
    less. (Other fields of vision: never flagged.)"""
    if abs(opts.field_of_vision - 180.0) > 1e-9:
        return False
    margins = [min(_reach(p, q), _reach(q, p)) for q in pieces if q.id != p.id]
    if not margins:
        return False
    best = max(margins)
    return abs(best) < opts.tolerance if observed or best <= 0 else False


def pair_nearest(a: Sequence[tuple[str, FieldPoint]], b: Sequence[tuple[str, FieldPoint]],
                 within: float = math.inf, fits: Callable[[int, int], bool] | None = None) -> dict[int, int]:
    """Items of ``a`` paired with items of ``b`` (each a side and a field point), same side,
    nearest first, at most ``within`` inches apart (and, given ``fits``, only items ``i`` of
    ``a`` and ``j`` of ``b`` for which ``fits(i, j)``), each item once: ``{index in a: index in b}``."""
    pairs = sorted((pa.distance(pb), i, j) for i, (sa, pa) in enumerate(a) for j, (sb, pb) in enumerate(b)
                   if sa == sb and pa.distance(pb) <= within and (fits is None or fits(i, j)))
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in pairs:
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def _match(before: Sequence[Piece], after: Sequence[Piece]) -> dict[str, Piece]:
    """Pieces of ``before`` found again in ``after`` (same side, nearest first)."""
    pairs = pair_nearest([(p.side, p.at) for p in before], [(q.side, q.at) for q in after])
    return {before[i].id: after[j] for i, j in pairs.items()}


def _overlap(a: Piece, b: Piece) -> bool:
    """Whether two pieces of one side were read one over the other: the centre of one
    within the other's foot on the ground."""
    return a.id != b.id and a.side == b.side and (contains(a.outline, b.at.x, b.at.y)
                                                  or contains(b.outline, a.at.x, a.at.y))


@dataclass(frozen=True)
class Change:
    """One thing that happened between two settled positions: its sentence, the side that
    did it (``None``: nobody's doing, e.g. a piece gone for no reason the rules give), for a
    piece now out of play that the camera still sees (past an edge) its id in the position
    after, and the pieces acted on."""

    text: str
    side: str | None = None
    out_of_play: str | None = None
    #: The piece of the position before that was closed in on (to act on it), or said to be
    #: knocked down: its id there.
    target: str | None = None
    down: str | None = None
    #: The piece that did it (moved, closed in, walked off, knocked one down): its id in the position after.
    by: str | None = None


def changes(before: FieldReport, after: FieldReport) -> list[Change]:
    """What happened between two positions, as :class:`Change` s: each moved piece's move
    judged by the rules (with its status before the move), pieces that left the field,
    pieces that closed in on a piece of the other side to act, and pieces knocked down.

    - A piece of ``before`` missing from ``after`` where a piece of its side stands within
      :data:`TWICE`, or whose centre lay within the foot of a piece of its side found again
      (still or moved; or that piece's centre within its foot), was a second reading of that
      piece: nothing is said of it.
    - A piece missing that stood within action range of a piece of the other side was
      knocked down by it (turned on its side, it is no longer read as a piece), or, when its
      move could also have taken it off the field, either.
    - A piece moved no further than the action range that the engine lets close in on a
      piece of the other side within range of it (:func:`rules.the_game.acting.close_in`:
      as close as it could go) closed in to act: the move is not judged as a move.
    - A piece read on or past the field's edge (:func:`off_field`), moved there or not, has
      left play (:attr:`Change.out_of_play`)."""
    opts = before.options
    fld = Field(opts.field_width, opts.field_depth)
    found = _match(before.pieces, after.pieces)
    standing = len(before.pieces)
    reach = opts.action_range + opts.tolerance
    closed: dict[str, str] = {}  # target id -> the piece that closed in on it
    out: list[Change] = []
    gone: list[Piece] = []
    for p in before.pieces:
        adv = before.advice.get(p.id)
        observed = adv.observed if adv else True
        q = found.get(p.id)
        who = f"{p.side.capitalize()} {p.id}"
        if q is None and (any(o.side == p.side and o.at.distance(p.at) <= TWICE for o in after.pieces)
                          or any(_overlap(o, p) for o in before.pieces if o.id in found)):
            continue  # one piece read twice before, once now (here or where it moved to): nothing left
        if q is None:
            gone.append(p)
            continue
        moved = p.at.distance(q.at)
        if moved <= opts.tolerance:
            if off_field(q.at, opts):
                out.append(Change(f"{who} stands outside the field: it is out of play.", None, q.id))
            continue
        target = _closed_in_on(p, q, before.pieces, opts) if moved <= reach + MEASURE else None
        if target is not None:
            closed[target.id] = p.id
            out.append(Change(f"{who} closed in on {target.id} to act.", p.side, target=target.id, by=q.id))
            continue
        plan = plan_move(p, q.at, q.facing, observed, standing == 1, opts)
        if isinstance(plan, Verdict):
            off = q.id if off_field(q.at, opts) else None
            out.append(Change(f"{who}: {plan.message}" + (" It is out of play." if off else ""), p.side, off,
                              by=q.id))
        elif plan.leaves:
            out.append(Change(f"{who} moved {inches(plan.distance)} and left the field at the {plan.edge} edge.",
                              p.side, q.id, by=q.id))
        else:
            limit = opts.observed_move if observed else opts.unobserved_move
            out.append(Change(f"{who} moved {inches(moved)} ({'observed' if observed else 'unobserved'}: "
                              f"{inches(limit)} allowed).", p.side, by=q.id))
    for p in gone:
        out.append(_gone(p, before, closed, fld, reach, found))
    return out


def compare(before: FieldReport, after: FieldReport) -> list[str]:
    """The sentences of :func:`changes`."""
    return [c.text for c in changes(before, after)]


def off_field(at: FieldPoint, opts: TheGameOptions) -> bool:
    """Whether a piece's centre is on or past the field's edge: a piece whose centre reaches
    the edge has left play (:mod:`rules.the_game.moves`), even when the camera still sees it
    lying there."""
    return not Field(opts.field_width, opts.field_depth).strictly_inside(at)


def in_play(report: FieldReport) -> FieldReport:
    """``report`` without the pieces read off the field (:func:`off_field`), assessed again."""
    kept = [r for r in report.readings if not off_field(r.centre, report.options)]
    return report if len(kept) == len(report.readings) else assess(kept, report.options)


#: How far off the camera may read the gaps of a closing in, beyond the rules' tolerance
#: (inches): about the 95th percentile of distances read outdoors (docs/benchmarks.md). A
#: piece that went no further than it had to, give or take this, and ends this close, closed in.
MEASURE = 0.5


def _closed_in_on(p: Piece, q: Piece, pieces: Sequence[Piece], opts: TheGameOptions) -> Piece | None:
    """The piece of the other side (within action range of ``p``) that ``p``, now read at
    ``q``, closed in on as the engine lets it, its gaps read within :data:`MEASURE` beyond
    the rules' tolerance (the nearest such piece), or ``None``."""
    read = replace(opts, tolerance=opts.tolerance + MEASURE)
    best: tuple[float, Piece] | None = None
    for t in pieces:
        if t.side == p.side or off_field(t.at, opts) or not within(p, t, opts.action_range + opts.tolerance):
            continue
        closer = close_in(p, t, q.at, read)
        if isinstance(closer, Piece):
            left = edge_gap(closer, t)[0]
            if best is None or left < best[0]:
                best = (left, t)
    return None if best is None else best[1]


def _gone(p: Piece, before: FieldReport, closed: dict[str, str], fld: Field, reach: float,
          found: dict[str, Piece] | None = None) -> Change:
    """What is said of a piece no longer read: knocked down by a piece of the other side in
    range of it (the one that closed in on it, if one did; when it is the only one, it had
    its go, :attr:`Change.by`, as it acted without moving), left the field (its move could
    reach an edge), both possible, or neither (a piece lifted, or missed)."""
    opts = before.options
    who = f"{p.side.capitalize()} {p.id}"
    adv = before.advice.get(p.id)
    observed = adv.observed if adv else True
    edge, e = fld.nearest(p.at)
    could_leave = e <= (opts.observed_move if observed else opts.unobserved_move) + opts.tolerance
    actors = [closed[p.id]] if p.id in closed else \
        [o.id for o in before.pieces if o.side != p.side and o.id in before.advice and within(o, p, reach)]
    other = next((o.side for o in before.pieces if o.id in actors), None)
    by = f"{other.capitalize()} {' or '.join(actors)}" if other else ""
    if actors and (p.id in closed or not could_leave):
        actor = (found or {}).get(actors[0]) if len(actors) == 1 else None
        return Change(f"{who} is out of play: knocked down by {by}.", other, down=p.id,
                      by=actor.id if actor is not None else None)
    if actors:
        return Change(f"{who} is out of play: it left the field at the {edge} edge, or {by} knocked it down.", None,
                      down=p.id)
    if could_leave:
        return Change(f"{who} left the field at the {edge} edge.", p.side)
    return Change(f"{who} is gone, but the nearest edge was {inches(e)} away: put it back "
                  "or lay it on its side if it was knocked down.", None)


def whose_move(game: object, state: object) -> str:
    """"Red to move (movement phase, sequence 1, turn 2)." from an engine state."""
    to_move = game.to_move(state)  # type: ignore[attr-defined]
    phase = getattr(getattr(state, "phase", None), "value", "")
    if not to_move:
        return "Nobody is to move: the game is over."
    names = " or ".join(p.capitalize() for p in to_move)
    return f"{names} to move ({phase} phase, sequence {state.sequence}, turn {state.turn})."  # type: ignore[attr-defined]


def progress(game: object, before: object, after: object) -> list[str]:
    """The end of a sequence and of the game, between two engine states."""
    out: list[str] = []
    if getattr(after, "sequence", 0) > getattr(before, "sequence", 0) or (
            getattr(getattr(after, "phase", None), "value", "") == "over"
            and getattr(getattr(before, "phase", None), "value", "") != "over"):
        out.append(f"Sequence {before.sequence} is over.")  # type: ignore[attr-defined]
        if getattr(getattr(after, "phase", None), "value", "") != "over":
            out.append(f"Set up the pieces of sequence {after.sequence}.")  # type: ignore[attr-defined]
    outcome = game.outcome(after)  # type: ignore[attr-defined]
    if outcome is not None and game.outcome(before) is None:  # type: ignore[attr-defined]
        winner = getattr(outcome, "winner", None)
        out.append(f"The game is over: {str(winner).capitalize() + ' wins' if winner else 'no winner'}"
                   f" ({getattr(outcome, 'reason', '')}).")
    return out

"""Who sees whom, who is observed, and who is within action range.

A piece *sees* another when some part of the other's footprint lies inside its field of
vision (a wedge centred on its facing, default 180 degrees). A piece is *observed* when it
and some other standing piece, of either side, see each other. It is unobserved when no
such pair exists (it may still be watched from behind, unaware), when nothing at all is in
its field of vision (it faces the horizon), when it has neither moved nor acted for
``idle_turns`` whole turns, and when it is the last piece standing in its sequence.

>>> from rules.the_game.shapes import Footprint
>>> disc = Footprint.ellipse(1.0, 1.0)
>>> a = Piece("A", "red", "red", FieldPoint(5, 5), 0.0, disc)     # faces +x
>>> b = Piece("B", "blue", "blue", FieldPoint(10, 5), 180.0, disc)  # faces A
>>> c = Piece("C", "blue", "blue", FieldPoint(5, 9), 90.0, disc)    # faces away from A
>>> table = observation((a, b, c), TheGameOptions())
>>> [(s.piece, s.observed, s.reason) for s in table.values()]
[('A', True, 'mutual'), ('B', True, 'mutual'), ('C', False, 'horizon')]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from rules.geometry import FieldPoint
from rules.the_game.model import Piece
from rules.the_game.options import TheGameOptions
from rules.the_game.shapes import cone_hits_polygon, footprint_gap, gap, quick_sight, unit

__all__ = [
    "Sighting",
    "observation",
    "is_observed",
    "edge_gap",
    "within",
    "within_range",
    "roll_stat",
    "moved_piece",
]


@dataclass(frozen=True)
class Sighting:
    """A piece's observation status and why.

    ``reason`` is ``mutual`` (observed), ``unseen`` (it sees others but none sees it back),
    ``horizon`` (nothing in its field of vision), ``idle`` (it has stood still too long),
    ``last-piece`` (the only one left), or ``watching`` (observed only because the option
    ``observer_counts_as_observed`` is on).
    """

    piece: str
    observed: bool
    reason: str
    sees: tuple[str, ...]
    seen_by: tuple[str, ...]

    @property
    def partners(self) -> tuple[str, ...]:
        """The pieces it shares a mutual gaze with."""
        return tuple(p for p in self.sees if p in self.seen_by)


def _vision_matrix(pieces: Sequence[Piece], fov: float) -> list[list[bool]]:
    """``m[i][j]``: piece ``i`` sees piece ``j``."""
    n = len(pieces)
    if fov >= 360.0:
        return [[i != j for j in range(n)] for i in range(n)]
    h = math.radians(fov) / 2.0
    cos_h, sin_h = math.cos(h), math.sin(h)
    geo = [(p.at.x, p.at.y, *unit(p.facing), p.footprint.radius) for p in pieces]
    m = [[False] * n for _ in range(n)]
    for i in range(n):
        px, py, fx, fy, _ = geo[i]
        row = m[i]
        for j in range(n):
            if i != j:
                qx, qy, _, _, qr = geo[j]
                seen = quick_sight(px, py, fx, fy, qx, qy, qr, cos_h, sin_h)
                if seen is None:
                    seen = cone_hits_polygon(px, py, fx, fy, h, pieces[j].outline)
                row[j] = seen
    return m


def observation(
    pieces: Iterable[Piece], opts: TheGameOptions, last_piece_rule: bool = True
) -> dict[str, Sighting]:
    """The :class:`Sighting` of every standing piece among ``pieces``, by id.

    Pieces on their side or off the field neither see nor are seen. ``last_piece_rule``
    makes a lone standing piece unobserved (the end of a sequence).
    """
    standing = [p for p in pieces if p.in_play]
    m = _vision_matrix(standing, opts.field_of_vision)
    out: dict[str, Sighting] = {}
    alone = last_piece_rule and len(standing) == 1
    for i, p in enumerate(standing):
        sees = tuple(standing[j].id for j in range(len(standing)) if m[i][j])
        seen_by = tuple(standing[j].id for j in range(len(standing)) if m[j][i])
        idle = 0 if p.busy else p.idle
        if alone:
            observed, reason = False, "last-piece"
        elif idle >= opts.idle_turns:
            observed, reason = False, "idle"
        elif not sees:
            observed, reason = False, "horizon"
        elif any(q in seen_by for q in sees):
            observed, reason = True, "mutual"
        elif opts.observer_counts_as_observed:
            observed, reason = True, "watching"
        else:
            observed, reason = False, "unseen"
        out[p.id] = Sighting(p.id, observed, reason, sees, seen_by)
    return out


def is_observed(pieces: Sequence[Piece], piece: Piece, opts: TheGameOptions) -> bool:
    """Whether ``piece`` is observed now (the quick form of :func:`observation`)."""
    return observation(pieces, opts)[piece.id].observed


def roll_stat(observed: bool, opts: TheGameOptions) -> int:
    return opts.observed_roll if observed else opts.unobserved_roll


def edge_gap(a: Piece, b: Piece) -> tuple[float, float, float]:
    """Edge-to-edge distance between two pieces' footprints (their true outlines:
    :func:`rules.the_game.shapes.footprint_gap`) and the push that would bring ``a`` into
    contact with ``b``."""
    return footprint_gap(a.footprint, (a.at.x, a.at.y, a.facing), b.footprint, (b.at.x, b.at.y, b.facing),
                         (a.outline, b.outline))


#: A gap this much over a limit is taken as on it: the floating-point rounding of a measured
#: gap (a billionth of an inch), so that pieces set exactly 1" apart are 1" apart.
ROUNDING = 1e-9


def within(a: Piece, b: Piece, limit: float) -> bool:
    """Whether two pieces' footprints are at most ``limit`` apart, edge to edge. The
    polygons' gap settles most pairs (it is never shorter than the true one, and longer by
    at most the two insets); only a pair in between is measured exactly."""
    limit += ROUNDING
    if a.at.distance(b.at) - a.footprint.radius - b.footprint.radius > limit:  # the radii are exact
        return False
    d0 = gap(a.outline, b.outline)[0]
    if d0 <= limit:
        return True
    if d0 > limit + a.footprint.inset + b.footprint.inset:
        return False
    return edge_gap(a, b)[0] <= limit


def within_range(a: Piece, b: Piece, opts: TheGameOptions) -> bool:
    """Whether two pieces are within action range (with the measuring tolerance)."""
    return within(a, b, opts.action_range + opts.tolerance)


def moved_piece(piece: Piece, to: FieldPoint, facing: float | None = None) -> Piece:
    """The same piece standing somewhere else (a new object, so its outline is redrawn)."""
    return replace(piece, at=to, facing=piece.facing if facing is None else facing % 360.0)

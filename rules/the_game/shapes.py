"""Footprints on the ground, fields of vision and edge-to-edge gaps, all in inches.

A piece's footprint is a convex shape given in the piece's own frame: ``x`` points to its
front (the way it faces) and ``y`` to its left. On the field it is turned by the piece's
facing (degrees counter-clockwise from the field's +x axis) and carried to its centre.
Ellipses are drawn as inscribed polygons of :data:`ELLIPSE_CORNERS` corners (under 1 % of the
radius inside them) for sight; distances between pieces (:func:`footprint_gap`) are measured
against the true ellipses.

>>> disc = Footprint(Shape.ELLIPSE, 1.0, 1.0)
>>> a = disc.outline(0.0, 0.0, 0.0)
>>> b = disc.outline(3.0, 0.0, 0.0)
>>> round(gap(a, b)[0], 3)   # centres 3" apart, radii 0.5": 2" edge to edge
2.0
>>> sees(0.0, 0.0, 0.0, 3.0, 0.0, 0.5, b, 180.0)   # facing +x: the disc is in front
True
>>> sees(3.0, 0.0, 0.0, 0.0, 0.0, 0.5, a, 180.0)   # facing +x, the other disc is behind
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any

from rules.geometry import FieldPoint

__all__ = [
    "ELLIPSE_CORNERS",
    "Shape",
    "Footprint",
    "Outline",
    "footprint_gap",
    "gap",
    "sees",
    "cone_hits_polygon",
    "quick_sight",
    "unit",
]

#: How many corners approximate an ellipse footprint.
ELLIPSE_CORNERS = 24

#: A world outline: the footprint's corners on the field, counter-clockwise.
Outline = tuple[tuple[float, float], ...]

_EPS = 1e-12


def unit(degrees: float) -> tuple[float, float]:
    """The unit vector of a facing given in degrees counter-clockwise from +x."""
    r = math.radians(degrees)
    return math.cos(r), math.sin(r)


class Shape(Enum):
    """The kinds of footprint a piece may have."""

    ELLIPSE = "ellipse"
    RECTANGLE = "rectangle"
    POLYGON = "polygon"


@dataclass(frozen=True)
class Footprint:
    """A piece's shape on the ground, in its own frame (``x`` forward, ``y`` to its left).

    Ellipses and rectangles use ``length`` (front to back) and ``width`` (side to side);
    polygons list their convex outline in ``points`` and must surround the centre.
    Construct through :meth:`ellipse`, :meth:`rectangle` or :meth:`polygon`, which check
    the numbers (``ValueError`` with a sentence when they are unusable).
    """

    shape: Shape
    length: float = 0.0
    width: float = 0.0
    points: tuple[FieldPoint, ...] = field(default=())

    @classmethod
    def ellipse(cls, length: float, width: float) -> Footprint:
        _check_size(length, width)
        return cls(Shape.ELLIPSE, float(length), float(width))

    @classmethod
    def rectangle(cls, length: float, width: float) -> Footprint:
        _check_size(length, width)
        return cls(Shape.RECTANGLE, float(length), float(width))

    @classmethod
    def polygon(cls, points: tuple[FieldPoint, ...]) -> Footprint:
        fp = cls(Shape.POLYGON, 0.0, 0.0, tuple(points))
        _check_polygon(fp.local)
        return fp

    @cached_property
    def local(self) -> Outline:
        """The corners in the piece's own frame, counter-clockwise."""
        if self.shape is Shape.ELLIPSE:
            a, b = self.length / 2.0, self.width / 2.0
            step = 2.0 * math.pi / ELLIPSE_CORNERS
            return tuple(
                (a * math.cos(i * step), b * math.sin(i * step)) for i in range(ELLIPSE_CORNERS)
            )
        if self.shape is Shape.RECTANGLE:
            a, b = self.length / 2.0, self.width / 2.0
            return ((a, -b), (a, b), (-a, b), (-a, -b))
        pts = tuple((p.x, p.y) for p in self.points)
        return pts if _signed_area(pts) >= 0 else tuple(reversed(pts))

    @cached_property
    def inset(self) -> float:
        """How far at most :attr:`local` lies inside the true footprint: an ellipse's
        inscribed polygon falls short of it by under ``a (1 - cos(pi / n))`` (``a`` its
        longer half-axis, ``n`` :data:`ELLIPSE_CORNERS`); rectangles and polygons are exact."""
        if self.shape is not Shape.ELLIPSE:
            return 0.0
        return max(self.length, self.width) / 2.0 * (1.0 - math.cos(math.pi / ELLIPSE_CORNERS)) * 1.001

    def support(self, facing: float, ux: float, uy: float) -> float:
        """How far the footprint, centred at the origin and turned by ``facing``, reaches in
        the field direction ``(ux, uy)`` (a unit vector): its support function, exact for an
        ellipse (not its polygon)."""
        c, s = unit(facing)
        lx, ly = ux * c + uy * s, -ux * s + uy * c
        if self.shape is Shape.ELLIPSE:
            return math.hypot(self.length / 2.0 * lx, self.width / 2.0 * ly)
        return max(x * lx + y * ly for x, y in self.local)

    @cached_property
    def radius(self) -> float:
        """The distance from the centre to the farthest point of the footprint."""
        return max(math.hypot(x, y) for x, y in self.local)

    def outline(self, x: float, y: float, facing: float) -> Outline:
        """The footprint placed on the field: centre ``(x, y)``, turned by ``facing``."""
        c, s = unit(facing)
        return tuple((x + u * c - v * s, y + u * s + v * c) for u, v in self.local)

    def describe(self) -> str:
        if self.shape is Shape.POLYGON:
            return f"{len(self.points)}-cornered polygon"
        return f'{self.shape.value} {self.length:g}" x {self.width:g}"'

    def to_json(self) -> dict[str, Any]:
        if self.shape is Shape.POLYGON:
            return {"shape": "polygon", "points": [{"x": p.x, "y": p.y} for p in self.points]}
        return {"shape": self.shape.value, "length": self.length, "width": self.width}


def _check_size(length: float, width: float) -> None:
    for name, value in (("length", length), ("width", width)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"the {name} must be a positive number of inches, got {value!r}")


def _signed_area(pts: Outline) -> float:
    n = len(pts)
    return 0.5 * sum(
        pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n)
    )


def _check_polygon(pts: Outline) -> None:
    """Refuse polygons that are not convex, are flat, or leave out the piece's centre."""
    n = len(pts)
    if n < 3:
        raise ValueError("a polygon footprint needs at least 3 corners")
    if not all(math.isfinite(c) for p in pts for c in p):
        raise ValueError("polygon corners must be finite numbers")
    if _signed_area(pts) <= _EPS:
        raise ValueError("the polygon encloses no area (are two corners the same?)")
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
        if (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1) < -_EPS:
            raise ValueError(
                "the polygon must be convex with its corners in order around it "
                "(for a bent stick, list the corners of its convex hull)"
            )
    if not _contains(pts, 0.0, 0.0):
        raise ValueError("the polygon must surround the piece's centre (0, 0): corners are "
                         "given in the piece's own frame, not in field coordinates")


def contains(outline: Outline, x: float, y: float) -> bool:
    """Whether a footprint placed on the field (:meth:`Footprint.outline`) covers the
    point ``(x, y)``, its edge included.

    >>> contains(Footprint.rectangle(3.5, 0.5).outline(10, 10, 0), 11.5, 10.2)
    True
    >>> contains(Footprint.rectangle(3.5, 0.5).outline(10, 10, 90), 11.5, 10.2)
    False
    """
    return _contains(outline, x, y)


def _contains(pts: Outline, x: float, y: float) -> bool:
    """Whether a convex counter-clockwise polygon contains a point (boundary included)."""
    n = len(pts)
    for i in range(n):
        (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % n]
        if (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) < -1e-9:
            return False
    return True


# -- gaps between footprints ------------------------------------------------------------
def _lowest_first(pts: Outline) -> list[tuple[float, float]]:
    k = min(range(len(pts)), key=lambda i: (pts[i][1], pts[i][0]))
    return list(pts[k:] + pts[:k])


def _minkowski(p: Outline, q: Outline) -> list[tuple[float, float]]:
    """The Minkowski sum of two convex counter-clockwise polygons (edges merged by angle)."""
    a = _lowest_first(p)
    b = _lowest_first(q)
    na, nb = len(a), len(b)
    a += a[:2]
    b += b[:2]
    out: list[tuple[float, float]] = []
    i = j = 0
    while i < na or j < nb:
        out.append((a[i][0] + b[j][0], a[i][1] + b[j][1]))
        ex, ey = a[i + 1][0] - a[i][0], a[i + 1][1] - a[i][1]
        fx, fy = b[j + 1][0] - b[j][0], b[j + 1][1] - b[j][1]
        cross = ex * fy - ey * fx
        if cross >= 0 and i < na:
            i += 1
        if cross <= 0 and j < nb:
            j += 1
    return out


def gap(a: Outline, b: Outline) -> tuple[float, float, float]:
    """Edge-to-edge distance between two convex outlines, and the push that closes it.

    Returns ``(distance, dx, dy)``: moving ``a`` by ``(dx, dy)`` (a vector ``distance``
    long) brings it into contact with ``b``. Touching or overlapping outlines give zeros.
    """
    m = _minkowski(a, tuple((-x, -y) for x, y in b))
    n = len(m)
    inside = True
    best = math.inf
    bx = by = 0.0
    for k in range(n):
        x0, y0 = m[k]
        x1, y1 = m[(k + 1) % n]
        ex, ey = x1 - x0, y1 - y0
        if ex * (-y0) - ey * (-x0) < 0:
            inside = False
        length2 = ex * ex + ey * ey
        t = 0.0 if length2 <= _EPS else max(0.0, min(1.0, -(x0 * ex + y0 * ey) / length2))
        cx, cy = x0 + t * ex, y0 + t * ey
        d = math.hypot(cx, cy)
        if d < best:
            best, bx, by = d, cx, cy
    if inside or best <= 1e-12:
        return 0.0, 0.0, 0.0
    return best, -bx, -by


def footprint_gap(fa: Footprint, a: tuple[float, float, float], fb: Footprint, b: tuple[float, float, float],
                  outlines: tuple[Outline, Outline] | None = None) -> tuple[float, float, float]:
    """:func:`gap` between two footprints placed at ``a`` and ``b`` (``x, y, facing``),
    against their true outlines: exact for ellipses too, whose :attr:`Footprint.local`
    polygons lie a little inside them (``outlines``: those polygons placed, if already made).

    Two convex shapes apart are as far apart as their widest separation along any direction
    ``u``: ``(centre_b - centre_a) . u - support_a(u) - support_b(-u)``, largest in the
    direction of the shortest gap. The polygons' gap gives that direction to within a few
    degrees; the separation is then maximised around it (its level sets are arcs, so the
    search cannot settle on a wrong peak).

    >>> disc = Footprint.ellipse(1.0, 1.0)
    >>> t = math.radians(7.5)   # between two corners of the discs' polygons
    >>> round(gap(disc.outline(0, 0, 0), disc.outline(2 * math.cos(t), 2 * math.sin(t), 0))[0], 4)
    1.0086
    >>> round(footprint_gap(disc, (0, 0, 0), disc, (2 * math.cos(t), 2 * math.sin(t), 0))[0], 6)
    1.0
    """
    pa = outlines[0] if outlines else fa.outline(*a)
    pb = outlines[1] if outlines else fb.outline(*b)
    d0, dx, dy = gap(pa, pb)
    if d0 <= 0.0 or (fa.shape is not Shape.ELLIPSE and fb.shape is not Shape.ELLIPSE):
        return d0, dx, dy
    cx, cy = b[0] - a[0], b[1] - a[1]

    def apart(t: float) -> float:
        ux, uy = math.cos(t), math.sin(t)
        return cx * ux + cy * uy - fa.support(a[2], ux, uy) - fb.support(b[2], -ux, -uy)

    t0 = math.atan2(dy, dx)  # the polygons' direction of their gap
    lo, hi = t0 - math.pi / 4, t0 + math.pi / 4
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = apart(m1), apart(m2)
    for _ in range(40):
        if f1 < f2:
            lo, m1, f1 = m1, m2, f2
            m2 = lo + ratio * (hi - lo)
            f2 = apart(m2)
        else:
            hi, m2, f2 = m2, m1, f1
            m1 = hi - ratio * (hi - lo)
            f1 = apart(m1)
    t = (lo + hi) / 2.0
    d = apart(t)
    d0_apart = apart(t0)  # every direction's separation is a lower bound: keep the larger
    if d0_apart > d:
        t, d = t0, d0_apart
    if d <= 1e-12:
        return 0.0, 0.0, 0.0
    d = min(d, d0)
    return d, d * math.cos(t), d * math.sin(t)


# -- vision -----------------------------------------------------------------------------
def sees(
    px: float,
    py: float,
    facing: float,
    qx: float,
    qy: float,
    q_radius: float,
    q_outline: Outline,
    field_of_vision: float,
) -> bool:
    """Whether a piece at ``(px, py)`` facing ``facing`` has any part of another in view.

    The field of vision is a wedge of ``field_of_vision`` degrees centred on the facing,
    with its point at the watcher's centre. The other piece counts as in view when some
    part of its footprint lies strictly inside the wedge (a footprint that only grazes its
    rim does not). ``q_radius`` (the other footprint's radius) settles most cases without
    looking at its corners.
    """
    if field_of_vision >= 360.0:
        return True
    fx, fy = unit(facing)
    h = math.radians(field_of_vision) / 2.0
    quick = quick_sight(px, py, fx, fy, qx, qy, q_radius, math.cos(h), math.sin(h))
    if quick is not None:
        return quick
    return cone_hits_polygon(px, py, fx, fy, h, q_outline)


def quick_sight(
    px: float,
    py: float,
    fx: float,
    fy: float,
    qx: float,
    qy: float,
    q_radius: float,
    cos_h: float,
    sin_h: float,
) -> bool | None:
    """The cheap half of :func:`sees`: ``True`` when the other's centre is in the wedge,
    ``False`` when its whole bounding circle is outside, ``None`` when only its corners
    can tell (``(fx, fy)`` is the unit facing, ``h`` the half-angle)."""
    vx, vy = qx - px, qy - py
    along = vx * fx + vy * fy
    side = abs(fx * vy - fy * vx)
    if along * sin_h - side * cos_h > 0:  # the other's centre is inside the wedge
        return True
    if along * cos_h + side * sin_h <= 0:  # the wedge's nearest point is its tip
        if vx * vx + vy * vy >= q_radius * q_radius:
            return False
    elif side * cos_h - along * sin_h >= q_radius:  # the wedge's rim is out of reach
        return False
    return None


def cone_hits_polygon(
    px: float, py: float, fx: float, fy: float, half: float, outline: Outline
) -> bool:
    """Exact test: does the wedge (tip ``(px, py)``, axis ``(fx, fy)``, half-angle ``half``
    in radians) share an area with the polygon?

    The corners' directions seen from the tip are unwound along the outline; a full turn
    means the tip is inside the polygon, otherwise the directions span one arc (the
    polygon's shadow), which must overlap the wedge.
    """
    angles: list[float] = []
    for x, y in outline:
        wx, wy = x - px, y - py
        if abs(wx) < 1e-12 and abs(wy) < 1e-12:
            continue  # a corner on the tip: the others span the directions into the polygon
        angles.append(math.atan2(fx * wy - fy * wx, fx * wx + fy * wy))
    lifted = [angles[0]]
    for k in range(1, len(angles) + 1):
        step = angles[k % len(angles)] - angles[k - 1]
        step = (step + math.pi) % (2.0 * math.pi) - math.pi
        lifted.append(lifted[-1] + step)
    if abs(lifted[-1] - lifted[0]) > math.pi:
        return True
    lo, hi = min(lifted), max(lifted)
    for k in (-2, -1, 0, 1, 2):
        shift = 2.0 * math.pi * k
        if min(hi, half + shift) - max(lo, -half + shift) > 1e-12:
            return True
    return False

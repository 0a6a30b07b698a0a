"""Symbols shared by the kits: big, simple, high-contrast shapes that survive blur and a
slanting view (a detector sees a counter a few dozen pixels wide).

Every glyph is drawn on a :class:`~vision.artwork.draw.Canvas` inside the circle of radius
``r`` around ``c`` (drawing units), in ``fg``; ``bg`` is the colour behind it, used for cut
details (an eye, a slit). Shapes are designed in a unit box (x right, y down, -1..1).

>>> from vision.artwork.draw import Canvas
>>> canvas = Canvas.for_mm(20, 20, 4.0)
>>> draw_glyph(canvas, "star", (0, 0), 9, (0, 0, 0), (255, 255, 255))
>>> int(canvas.result()[40, 40, 0])
0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from vision.artwork.draw import Canvas, Colour

__all__ = ["GLYPHS", "at", "curve", "draw_glyph", "star_points"]

Pts = list[tuple[float, float]]


def at(points: Sequence[Sequence[float]], c: Sequence[float], r: float, angle: float = 0.0) -> Pts:
    """Unit-box points scaled by ``r``, turned ``angle`` degrees, moved to ``c``."""
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    return [(c[0] + r * (x * ca - y * sa), c[1] + r * (x * sa + y * ca)) for x, y in points]


def star_points(n: int = 5, inner: float = 0.45, outer: float = 1.0, start: float = -90.0) -> Pts:
    pts = []
    for i in range(2 * n):
        rad = outer if i % 2 == 0 else inner
        a = math.radians(start + 180.0 * i / n)
        pts.append((rad * math.cos(a), rad * math.sin(a)))
    return pts


def curve(points: Sequence[Sequence[float]], steps: int = 12) -> Pts:
    """A smooth curve (Catmull-Rom) through ``points``."""
    p = np.asarray(points, float)
    out: Pts = []
    for i in range(len(p) - 1):
        p0 = p[max(i - 1, 0)]
        p1, p2 = p[i], p[i + 1]
        p3 = p[min(i + 2, len(p) - 1)]
        for t in np.linspace(0, 1, steps, endpoint=False):
            t2, t3 = t * t, t * t * t
            q = 0.5 * (
                (2 * p1)
                + (-p0 + p2) * t
                + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                + (-p0 + 3 * p1 - 3 * p2 + p3) * t3
            )
            out.append((float(q[0]), float(q[1])))
    out.append((float(p[-1][0]), float(p[-1][1])))
    return out


def _arc(cx: float, cy: float, r: float, a0: float, a1: float, steps: int = 24) -> Pts:
    return [
        (cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a)))
        for a in np.linspace(a0, a1, steps)
    ]


Glyph = Callable[[Canvas, Sequence[float], float, Colour, Colour], None]


# -- OneWorld --------------------------------------------------------------------------------


def _stone(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.circle(c, 0.66 * r, fg)


def _blade(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.poly(at([(0, -0.8), (0.72, 0.62), (-0.72, 0.62)], c, r), fg)


def _fog(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    for y in (-0.5, 0.0, 0.5):  # the weather map's sign for fog: three bars
        cv.poly(
            at([(-0.68, y - 0.15), (0.68, y - 0.15), (0.68, y + 0.15), (-0.68, y + 0.15)], c, r), fg
        )


def _tower(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    body = [
        (-0.42, 0.78),
        (0.42, 0.78),
        (0.34, -0.3),
        (0.52, -0.3),
        (0.52, -0.8),
        (0.3, -0.8),
        (0.3, -0.6),
        (0.1, -0.6),
        (0.1, -0.8),
        (-0.1, -0.8),
        (-0.1, -0.6),
        (-0.3, -0.6),
        (-0.3, -0.8),
        (-0.52, -0.8),
        (-0.52, -0.3),
        (-0.34, -0.3),
    ]
    cv.poly(at(body, c, r), fg)
    cv.poly(at([*_arc(0, 0.78, 0.17, 180, 360, 10), (0.17, 0.79), (-0.17, 0.79)], c, r), bg)  # door


def _god(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.poly(at(star_points(5, 0.44, 0.9), c, r), fg)


# -- When Gods Collide: emblems, gods, Seth, hero die ---------------------------------------


def _ziggurat(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    for i, (w, y0, y1) in enumerate(
        ((0.85, 0.35, 0.7), (0.62, 0.0, 0.38), (0.4, -0.33, 0.03), (0.2, -0.62, -0.3))
    ):
        cv.poly(at([(-w, y0), (w, y0), (w, y1), (-w, y1)], c, r), fg)


def _sphinx(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # a reclining sphinx facing right: long body, paws forward, head in a flaring headdress
    body = [
        (-0.92, 0.62),
        (0.95, 0.62),
        (0.95, 0.42),
        (0.55, 0.42),
        (0.52, 0.18),
        (0.66, 0.12),
        (0.58, -0.32),
        (0.5, -0.6),
        (0.3, -0.74),
        (0.1, -0.62),
        (0.0, -0.3),
        (-0.02, 0.05),
        (-0.35, 0.02),
        (-0.72, 0.08),
        (-0.9, 0.32),
    ]
    cv.poly(at(body, c, r), fg)
    cv.poly(at([(0.12, -0.5), (0.22, -0.5), (0.12, 0.0), (0.04, 0.0)], c, r), bg)  # headdress fold


def _temple(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.poly(at([(-0.88, -0.38), (0, -0.82), (0.88, -0.38)], c, r), fg)
    cv.poly(at([(-0.8, -0.34), (0.8, -0.34), (0.8, -0.22), (-0.8, -0.22)], c, r), fg)
    for x in (-0.6, -0.2, 0.2, 0.6):
        cv.poly(at([(x - 0.1, -0.16), (x + 0.1, -0.16), (x + 0.1, 0.5), (x - 0.1, 0.5)], c, r), fg)
    cv.poly(at([(-0.88, 0.56), (0.88, 0.56), (0.88, 0.76), (-0.88, 0.76)], c, r), fg)


def _ship(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    hull = curve(
        [(-0.95, -0.35), (-0.75, 0.3), (-0.3, 0.55), (0.3, 0.55), (0.75, 0.3), (0.95, -0.35)], 8
    )
    hull += [(0.8, -0.3), (0.62, 0.18), (0.3, 0.3), (-0.3, 0.3), (-0.62, 0.18), (-0.8, -0.3)]
    cv.poly(at(hull, c, r), fg)
    cv.poly(at([(-0.04, 0.32), (0.04, 0.32), (0.04, -0.9), (-0.04, -0.9)], c, r), fg)
    cv.poly(at([(-0.5, -0.8), (0.5, -0.8), (0.45, 0.12), (-0.45, 0.12)], c, r), fg)
    for x in (-0.25, 0.0, 0.25):  # sail stripes
        cv.poly(
            at([(x - 0.05, -0.72), (x + 0.05, -0.72), (x + 0.05, 0.05), (x - 0.05, 0.05)], c, r), bg
        )


def _marduk(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # the marru: a spade-headed staff
    cv.poly(
        at(
            [
                (0, -0.95),
                (0.5, -0.2),
                (0.12, -0.2),
                (0.12, 0.6),
                (-0.12, 0.6),
                (-0.12, -0.2),
                (-0.5, -0.2),
            ],
            c,
            r,
        ),
        fg,
    )
    cv.circle(at([(0, 0.72)], c, r)[0], 0.22 * r, fg)


def _amun_ra(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.circle(at([(0, 0.42)], c, r)[0], 0.45 * r, fg)  # the sun disc
    for s in (-1, 1):  # the two tall plumes
        cv.poly(
            at(
                [
                    (s * 0.06, 0.02),
                    (s * 0.34, 0.02),
                    (s * 0.3, -0.7),
                    (s * 0.16, -0.95),
                    (s * 0.06, -0.7),
                ],
                c,
                r,
            ),
            fg,
        )


def _zeus(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    bolt = [
        (0.2, -0.95),
        (-0.45, 0.1),
        (-0.05, 0.1),
        (-0.3, 0.95),
        (0.5, -0.2),
        (0.08, -0.2),
        (0.38, -0.95),
    ]
    cv.poly(at(bolt, c, r), fg)


def _odin(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # the valknut: three interlaced triangles, drawn as thick outlines
    for i in range(3):
        tri = [
            (0.62 * math.cos(math.radians(a)), 0.62 * math.sin(math.radians(a)))
            for a in (-90, 30, 150)
        ]
        off = (
            0.28 * math.cos(math.radians(-90 + 120 * i)),
            0.28 * math.sin(math.radians(-90 + 120 * i)),
        )
        cv.poly(
            at([(x + off[0], y + off[1]) for x, y in tri], c, r),
            fg,
            width_mm=0.13 * r * mm_per_unit(cv),
        )


def mm_per_unit(cv: Canvas) -> float:
    """Millimetres per drawing unit of ``cv`` (1 when drawing in millimetres)."""
    return math.hypot(cv.to_fine[0, 0], cv.to_fine[1, 0]) / cv.fine_per_mm


def _seth(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # the was sceptre: an angled animal head on a staff with a forked foot
    staff = [
        (-0.1, -0.55),
        (0.1, -0.55),
        (0.1, 0.6),
        (0.3, 0.95),
        (0.12, 0.95),
        (0.0, 0.75),
        (-0.12, 0.95),
        (-0.3, 0.95),
        (-0.1, 0.6),
    ]
    cv.poly(at(staff, c, r), fg)
    cv.poly(
        at(
            [
                (-0.14, -0.5),
                (0.12, -0.5),
                (0.55, -0.72),
                (0.5, -0.88),
                (0.1, -0.84),
                (-0.1, -0.95),
                (-0.2, -0.78),
            ],
            c,
            r,
        ),
        fg,
    )


def _imp(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.circle(at([(0, 0.15)], c, r)[0], 0.62 * r, fg)
    for s in (-1, 1):
        cv.poly(at([(s * 0.2, -0.3), (s * 0.62, -0.92), (s * 0.55, -0.2)], c, r), fg)  # horns
        cv.poly(at([(s * 0.1, -0.02), (s * 0.42, -0.12), (s * 0.38, 0.08)], c, r), bg)  # eyes
    cv.poly(
        at(
            [
                *curve([(-0.3, 0.38), (0, 0.52), (0.3, 0.38)], 6),
                (0.25, 0.48),
                (0, 0.62),
                (-0.25, 0.48),
            ],
            c,
            r,
        ),
        bg,
    )


def _knight(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    _base(cv, c, r, fg)
    head = [
        (-0.5, 0.66),
        (0.55, 0.66),
        (0.5, 0.2),
        (0.42, -0.2),
        (0.3, -0.55),
        (0.12, -0.78),
        (0.0, -0.95),
        (-0.1, -0.74),
        (-0.35, -0.58),
        (-0.62, -0.26),
        (-0.74, -0.04),
        (-0.62, 0.1),
        (-0.35, 0.02),
        (-0.18, 0.06),
        (-0.36, 0.36),
        (-0.48, 0.52),
    ]
    cv.poly(at(head, c, r), fg)
    cv.circle(at([(-0.18, -0.45)], c, r)[0], 0.08 * r, bg)


def _double_knight(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    _knight(cv, (c[0] - 0.36 * r, c[1] + 0.08 * r), 0.62 * r, fg, bg)
    _knight(cv, (c[0] + 0.36 * r, c[1] - 0.08 * r), 0.62 * r, fg, bg)


def _sandal(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.ellipse(at([(0.15, 0.62)], c, r)[0], (0.8 * r, 0.16 * r), 0, fg)  # the sole
    cv.poly(
        at([(-0.6, 0.6), (0.92, 0.6), (0.7, 0.36), (0.2, 0.22), (-0.35, 0.12), (-0.6, 0.25)], c, r),
        fg,
    )
    for a, ln in ((-165, 0.8), (-135, 1.05), (-105, 0.9)):  # the wing at the heel
        t = math.radians(a)
        centre = (-0.45 + 0.5 * ln * math.cos(t), 0.1 + 0.5 * ln * math.sin(t))
        cv.ellipse(at([centre], c, r)[0], (0.5 * ln * r, 0.16 * r), a, fg)


def _wind(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    w = 0.15 * r * mm_per_unit(cv)
    for y, ln in ((-0.45, 0.9), (0.0, 1.0), (0.45, 0.7)):
        cv.poly(
            at([(-0.85, y), (0.35 * ln, y), *_arc(0.35 * ln, y - 0.22, 0.22, 90, -200, 14)], c, r),
            fg,
            width_mm=w,
            closed=False,
        )


def _princess(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    tiara = [
        (-0.85, 0.5),
        (0.85, 0.5),
        (0.8, -0.2),
        (0.45, 0.1),
        (0.0, -0.6),
        (-0.45, 0.1),
        (-0.8, -0.2),
    ]
    cv.poly(at(tiara, c, r), fg)
    for x, y in ((-0.82, -0.32), (0.0, -0.74), (0.82, -0.32)):
        cv.circle(at([(x, y)], c, r)[0], 0.14 * r, fg)
    cv.circle(at([(0.0, 0.18)], c, r)[0], 0.16 * r, bg)


# -- chess pieces (the chess die) -------------------------------------------------------------


def _base(cv: Canvas, c: Sequence[float], r: float, fg: Colour) -> None:
    cv.poly(at([(-0.62, 0.92), (0.62, 0.92), (0.55, 0.66), (-0.55, 0.66)], c, r), fg)


def _body(cv: Canvas, c: Sequence[float], r: float, fg: Colour, top: float, w: float = 0.2) -> None:
    cv.poly(at([(-0.42, 0.7), (0.42, 0.7), (w, top), (-w, top)], c, r), fg)


def _pawn(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # the short piece: a ball on a cone, its top well below the others'
    _base(cv, c, r, fg)
    _body(cv, c, r, fg, 0.2, 0.16)
    cv.ellipse(at([(0, 0.22)], c, r)[0], (0.34 * r, 0.1 * r), 0, fg)
    cv.circle(at([(0, -0.12)], c, r)[0], 0.32 * r, fg)


def _rook(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    _base(cv, c, r, fg)
    _body(cv, c, r, fg, -0.3, 0.34)
    top = [
        (-0.5, -0.25),
        (-0.5, -0.88),
        (-0.28, -0.88),
        (-0.28, -0.68),
        (-0.1, -0.68),
        (-0.1, -0.88),
        (0.1, -0.88),
        (0.1, -0.68),
        (0.28, -0.68),
        (0.28, -0.88),
        (0.5, -0.88),
        (0.5, -0.25),
    ]
    cv.poly(at(top, c, r), fg)


def _bishop(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # a tall pointed mitre with its slit
    _base(cv, c, r, fg)
    _body(cv, c, r, fg, 0.05, 0.16)
    cv.ellipse(at([(0, 0.08)], c, r)[0], (0.38 * r, 0.1 * r), 0, fg)
    mitre = curve([(0.0, -0.98), (0.26, -0.66), (0.36, -0.3), (0.24, 0.02)], 8)
    cv.poly(at(mitre + [(-x, y) for x, y in reversed(mitre)], c, r), fg)
    cv.poly(at([(-0.02, -0.42), (0.2, -0.64), (0.28, -0.56), (0.06, -0.34)], c, r), bg)


def _queen(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    _base(cv, c, r, fg)
    _body(cv, c, r, fg, -0.2, 0.24)
    crown = [
        (-0.45, -0.1),
        (0.45, -0.1),
        (0.68, -0.68),
        (0.3, -0.38),
        (0.0, -0.84),
        (-0.3, -0.38),
        (-0.68, -0.68),
    ]
    cv.poly(at(crown, c, r), fg)
    for x, y in ((-0.68, -0.72), (0.0, -0.9), (0.68, -0.72)):
        cv.circle(at([(x, y)], c, r)[0], 0.1 * r, fg)


def _king(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    _base(cv, c, r, fg)
    _body(cv, c, r, fg, -0.2, 0.26)
    cv.ellipse(at([(0, -0.25)], c, r)[0], (0.45 * r, 0.28 * r), 0, fg)
    cv.poly(at([(-0.08, -0.98), (0.08, -0.98), (0.08, -0.45), (-0.08, -0.45)], c, r), fg)
    cv.poly(at([(-0.26, -0.84), (0.26, -0.84), (0.26, -0.7), (-0.26, -0.7)], c, r), fg)


# -- piecepack suits ---------------------------------------------------------------------------


def _sun(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    cv.circle(c, 0.48 * r, fg)
    rays = []
    for i in range(12):
        a = math.radians(30 * i)
        for rad, da in ((0.58, -0.16), (0.96, 0.0), (0.58, 0.16)):
            rays.append((rad * math.cos(a + da), rad * math.sin(a + da)))
        cv.poly(at(rays[-3:], c, r), fg)


def _moon(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    big, small, d = (
        0.9,
        0.72,
        0.45,
    )  # outer disc, the disc cut out of it, and its offset (to the right)
    xi = (d * d + big * big - small * small) / (2 * d)
    yi = math.sqrt(max(big * big - xi * xi, 0.0))
    a_out = math.degrees(math.atan2(yi, xi))
    a_in = math.degrees(math.atan2(yi, xi - d))
    outer = _arc(0, 0, big, a_out, 360 - a_out, 40)
    inner = _arc(d, 0, small, 360 - a_in, a_in, 40)
    cv.poly(at(outer + inner, c, r, angle=-20), fg)


def _crown(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    crown = [
        (-0.8, 0.62),
        (0.8, 0.62),
        (0.8, -0.42),
        (0.4, 0.02),
        (0.0, -0.62),
        (-0.4, 0.02),
        (-0.8, -0.42),
    ]
    cv.poly(at(crown, c, r), fg)
    for x, y in ((-0.8, -0.55), (0.0, -0.76), (0.8, -0.55)):
        cv.circle(at([(x, y)], c, r)[0], 0.14 * r, fg)
    cv.poly(at([(-0.8, 0.36), (0.8, 0.36), (0.8, 0.44), (-0.8, 0.44)], c, r), bg)


def _arms(cv: Canvas, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    # a fleur-de-lis: the heraldic "arms"
    middle = curve([(0, 0.15), (-0.22, -0.2), (-0.2, -0.6), (0, -0.95)], 8) + curve(
        [(0, -0.95), (0.2, -0.6), (0.22, -0.2), (0, 0.15)], 8
    )
    cv.poly(at(middle, c, r), fg)
    for s in (-1, 1):
        petal = curve(
            [
                (s * 0.08, 0.12),
                (s * 0.35, -0.05),
                (s * 0.55, -0.35),
                (s * 0.82, -0.5),
                (s * 0.92, -0.2),
                (s * 0.75, 0.1),
                (s * 0.45, 0.28),
                (s * 0.12, 0.3),
            ],
            6,
        )
        cv.poly(at(petal, c, r), fg)
        foot = curve(
            [(s * 0.05, 0.4), (s * 0.25, 0.55), (s * 0.45, 0.85), (s * 0.2, 0.78), (s * 0.0, 0.6)],
            6,
        )
        cv.poly(at(foot, c, r), fg)
    cv.poly(at([(-0.55, 0.26), (0.55, 0.26), (0.55, 0.44), (-0.55, 0.44)], c, r), fg)


GLYPHS: dict[str, Glyph] = {
    "stone": _stone,
    "blade": _blade,
    "fog": _fog,
    "tower": _tower,
    "star": _god,
    "ziggurat": _ziggurat,
    "sphinx": _sphinx,
    "temple": _temple,
    "ship": _ship,
    "marduk": _marduk,
    "amun-ra": _amun_ra,
    "zeus": _zeus,
    "odin": _odin,
    "seth": _seth,
    "imp": _imp,
    "double-knight": _double_knight,
    "winged-sandals": _sandal,
    "god-of-wind": _wind,
    "princess": _princess,
    "king": _king,
    "queen": _queen,
    "rook": _rook,
    "bishop": _bishop,
    "knight": _knight,
    "pawn": _pawn,
    "suns": _sun,
    "moons": _moon,
    "crowns": _crown,
    "arms": _arms,
}


def draw_glyph(cv: Canvas, name: str, c: Sequence[float], r: float, fg: Colour, bg: Colour) -> None:
    """Draw glyph ``name`` (a key of :data:`GLYPHS`) in the circle of radius ``r`` around ``c``."""
    GLYPHS[name](cv, c, r, fg, bg)

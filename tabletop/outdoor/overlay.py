"""The outdoor overlay, drawn on the ground plane so that it looks right in perspective.

Everything is laid out in field inches and carried into the picture through the field's
homography (:meth:`FieldView.to_image`): the field's edge, each piece's foot (green when
observed, orange when unobserved), its field of vision as a wedge, the 6" movement circle
of an observed piece or the 12" arrow of an unobserved one to the nearest edge, the 1"
action ring round each foot, a line to each piece it may act on with the number to beat,
and a measurement between two pieces or points. Drawing happens on a copy of the frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop.outdoor.assistant import FieldReport, inches
from tabletop.outdoor.view import FieldView

__all__ = ["OBSERVED", "UNOBSERVED", "draw_field", "ring"]

OBSERVED = (80, 200, 60)
UNOBSERVED = (0, 150, 255)
EDGE = (0, 230, 255)
WHITE = (255, 255, 255)
MEASURE = (255, 80, 220)
HIDDEN = (170, 170, 170)  # a piece kept where it was last seen, out of the camera's sight


def ring(outline: Sequence[tuple[float, float]], distance: float, steps: int = 12) -> np.ndarray:
    """The outline grown by ``distance`` inches all round (a convex outline's Minkowski sum
    with a disc), as a closed polygon on the field."""
    import cv2

    pts = np.asarray(outline, float).reshape(-1, 2)
    a = np.linspace(0, 2 * math.pi, steps, endpoint=False)
    disc = np.c_[np.cos(a), np.sin(a)] * distance
    grown = (pts[:, None, :] + disc[None, :, :]).reshape(-1, 2)
    return cv2.convexHull(grown.astype(np.float32)).reshape(-1, 2).astype(float)


def _poly(img: np.ndarray, view: FieldView, pts: np.ndarray, colour: Any, thick: int = 1,
          closed: bool = True, fill_alpha: float = 0.0, fills: dict[float, list[Any]] | None = None) -> None:
    """Draw a field polygon's outline; with ``fill_alpha``, queue its filling in ``fills``
    (filled later, all at once per transparency: :func:`_fill`)."""
    import cv2

    q = view.to_image(pts)
    if not np.all(np.isfinite(q)) or np.abs(q).max() > 1e5:
        return
    q = np.round(q * 4).astype(np.int32).reshape(-1, 1, 2)
    if fill_alpha > 0 and fills is not None:
        fills.setdefault(fill_alpha, []).append((q, colour))
    cv2.polylines(img, [q], closed, colour, thick, cv2.LINE_AA, 2)


def _fill(img: np.ndarray, fills: dict[float, list[Any]]) -> None:
    """The queued fillings, blended in one pass per transparency."""
    import cv2

    for alpha, polys in fills.items():
        layer = img.copy()
        for q, colour in polys:
            cv2.fillPoly(layer, [q], colour, cv2.LINE_AA, 2)
        cv2.addWeighted(layer, alpha, img, 1 - alpha, 0, dst=img)


def _text(img: np.ndarray, at: np.ndarray, text: str, colour: Any, scale: float = 0.45) -> None:
    import cv2

    x, y = int(at[0]), int(at[1])
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def _clip(pts: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    return np.c_[np.clip(pts[:, 0], 0, size[0]), np.clip(pts[:, 1], 0, size[1])]


def draw_field(frame: np.ndarray, view: FieldView, report: FieldReport, *, wedge: float = 3.0,
               measure: tuple[np.ndarray, np.ndarray, str] | None = None, status: str = "",
               hidden: Sequence[Any] = ()) -> np.ndarray:
    """A copy of ``frame`` (undistorted, as the view saw it) with the overlay. ``wedge``: the
    length of the drawn field of vision (inches); ``measure``: two field points and a label;
    ``hidden``: readings of pieces kept out of sight (:mod:`tabletop.outdoor.memory`), outlined
    in grey where they were last seen; pieces read off the field (out of play, no advice) are
    outlined in grey too, marked "out"."""
    import cv2

    img = frame.copy()
    w, d = report.options.field_width, report.options.field_depth
    _poly(img, view, np.array([[0, 0], [w, 0], [w, d], [0, d]], float), EDGE, 2)
    fov = report.options.field_of_vision
    fills: dict[float, list[Any]] = {}
    # each advised piece once: its reading, advice, colour, centre and outline on the field
    shown = [(r, adv, OBSERVED if adv.observed else UNOBSERVED, np.array([r.centre.x, r.centre.y]),
              np.array(r.outline or r.footprint.outline(r.centre.x, r.centre.y, r.facing)))
             for r in report.readings if (adv := report.advice.get(r.id)) is not None]
    for r, adv, colour, c, outline in shown:
        a = np.radians(np.linspace(r.facing - fov / 2, r.facing + fov / 2, 25))
        fan = np.vstack([c, c + wedge * np.c_[np.cos(a), np.sin(a)]])
        _poly(img, view, _clip(fan, (w, d)), colour, 1, True, 0.18, fills)
        _poly(img, view, outline, colour, 2, True, 0.35, fills)
    _fill(img, fills)
    for r, adv, colour, c, outline in shown:
        _poly(img, view, ring(outline, report.options.action_range), colour, 1)
        if adv.observed:
            t = np.linspace(0, 2 * math.pi, 73)
            circle = c + adv.move * np.c_[np.cos(t), np.sin(t)]
            _poly(img, view, _clip(circle, (w, d)), colour, 1, True)
        else:
            p0, p1 = view.to_image([c, [adv.walk_to.x, adv.walk_to.y]])
            if np.all(np.isfinite([p0, p1])):
                cv2.arrowedLine(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), colour, 2,
                                cv2.LINE_AA, tipLength=0.08)
        for tid, dist, number in adv.targets:
            other = report.reading(tid)
            if other is None or r.id > tid:
                continue
            p0, p1 = view.to_image([c, [other.centre.x, other.centre.y]])
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), WHITE, 1, cv2.LINE_AA)
            _text(img, (p0 + p1) / 2, f"{inches(dist)}, above {number}", WHITE, 0.4)
        q = view.to_image([c])[0]
        _text(img, q + np.array([8, -8]), f"{r.id} {'obs' if adv.observed else 'unobs'}", colour)
    out = [(r, "out") for r in report.readings if r.id not in report.advice]  # off the field: out of play
    for r, label in [*((r, "unseen") for r in hidden), *out]:
        outline = np.array(r.outline or r.footprint.outline(r.centre.x, r.centre.y, r.facing))
        _poly(img, view, outline, HIDDEN, 1, True)
        _text(img, view.to_image([[r.centre.x, r.centre.y]])[0] + np.array([8, 8]), f"{r.id} {label}", HIDDEN)
    if measure is not None:
        a_pt, b_pt, label = measure
        p0, p1 = view.to_image([a_pt, b_pt])
        cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), MEASURE, 2, cv2.LINE_AA)
        for p in (p0, p1):
            cv2.circle(img, tuple(int(v) for v in p), 4, MEASURE, -1, cv2.LINE_AA)
        _text(img, (p0 + p1) / 2 + np.array([6, -6]), label, MEASURE, 0.6)
    if status:
        cv2.rectangle(img, (0, img.shape[0] - 22), (img.shape[1], img.shape[0]), (0, 0, 0), -1)
        cv2.putText(img, status[:150], (6, img.shape[0] - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45, WHITE, 1, cv2.LINE_AA)
    return img

"""Measuring between two pieces or points, for ``tabletop measure IMAGE A B`` and clicks in a window.

A and B are piece ids as the photo's own reading names them (``R1``, ``B2``; drawn by ``--out``) or pixel points ``x,y``
of the photo. Between two pieces the distance is the rules' one, edge to edge between their
feet; from a point to a piece, to the piece's edge; between two points, straight along the
ground. :class:`ClickMeasure` does the same for two clicks in a live window: give its
:meth:`ClickMeasure.mouse` to ``cv2.setMouseCallback`` and feed it each frame's result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.geometry import FieldPoint
from rules.the_game.shapes import Footprint, footprint_gap, gap
from tabletop.errors import InputError
from tabletop.outdoor.assistant import FieldReport, inches
from tabletop.outdoor.view import FieldView

__all__ = ["ClickMeasure", "Measurement", "measure", "parse_target"]

_POINT = re.compile(r"^\s*(-?\d+(?:\.\d*)?)\s*,\s*(-?\d+(?:\.\d*)?)\s*$")


@dataclass(frozen=True)
class Measurement:
    """A distance in inches between ``a`` and ``b`` (what was asked), with the two field
    points the line is drawn between and a sentence."""

    a: str
    b: str
    distance: float
    start: FieldPoint
    end: FieldPoint
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "inches": round(self.distance, 3), "text": self.text,
                "from": {"x": round(self.start.x, 3), "y": round(self.start.y, 3)},
                "to": {"x": round(self.end.x, 3), "y": round(self.end.y, 3)}}


def parse_target(text: str) -> tuple[str, tuple[float, float] | None]:
    """``"R1"`` -> ``("R1", None)``; ``"640,360"`` -> ``("640,360", (640.0, 360.0))``."""
    m = _POINT.match(text)
    if m:
        return text.strip(), (float(m.group(1)), float(m.group(2)))
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", text.strip()):
        raise InputError("measure", f"{text!r} is neither a piece id (R1, B2) nor a pixel point x,y")
    return text.strip().upper(), None


#: A ground point measured to, as a footprint: a disc a ten-thousandth of an inch across.
_POINT_FOOT = Footprint.ellipse(1e-4, 1e-4)


def _dot(p: FieldPoint) -> tuple[tuple[float, float], ...]:
    e = 1e-4
    return ((p.x + e, p.y), (p.x - e / 2, p.y + e), (p.x - e / 2, p.y - e))


def measure(report: FieldReport, a: tuple[str, FieldPoint | None], b: tuple[str, FieldPoint | None]) -> Measurement:
    """The distance between two pieces (ids) or field points of one frame's report."""
    ends = []
    for name, point in (a, b):
        if point is not None:
            ends.append((name, point, _POINT_FOOT, (point.x, point.y, 0.0)))
            continue
        piece = next((p for p in report.pieces if p.id.lower() == name.lower()), None)
        if piece is None:
            known = ", ".join(p.id for p in report.pieces) or "none were found"
            raise InputError("measure", f"no piece {name} in the picture (pieces: {known})")
        ends.append((piece.id, piece.at, piece.footprint, (piece.at.x, piece.at.y, piece.facing)))
    (na, pa, fa, qa), (nb, pb, fb, qb) = ends
    d = footprint_gap(fa, qa, fb, qb)[0]  # edge to edge, against the pieces' true outlines
    if a[1] is not None and b[1] is not None:
        d = pa.distance(pb)
        text = f"{na} to {nb}: {inches(d)} along the ground"
    else:
        text = f"{na} to {nb}: {inches(d)} edge to edge (centres {inches(pa.distance(pb))} apart)"
    return Measurement(na, nb, d, pa, pb, text)


class ClickMeasure:
    """Two clicks in a window -> a distance in inches. Feed it each frame's result with
    :meth:`update` (the view and the report); a click near a piece picks the piece, else the
    ground point; the third click starts over.

    >>> cm = ClickMeasure()
    >>> cm.click(10, 10) is None   # no field seen yet
    True
    """

    def __init__(self, on_result: Callable[[Measurement], None] | None = None, pick_inches: float = 0.75,
                 on_note: Callable[[str], None] | None = None) -> None:
        self.view: FieldView | None = None
        self.report: FieldReport | None = None
        self.picks: list[tuple[str, FieldPoint | None]] = []
        self.result: Measurement | None = None
        self.on_result = on_result
        self.on_note = on_note  # told of a click that picks nothing
        self.pick_inches = pick_inches

    def update(self, view: FieldView | None, report: FieldReport | None) -> None:
        if view is not None and report is not None:
            self.view, self.report = view, report

    def click(self, x: float, y: float) -> Measurement | None:
        """A click at pixel ``(x, y)`` of the undistorted frame; the measurement once two are in.
        A click above the ground's horizon (the sky, a wall far off) sees no point of the
        ground: it picks nothing and ``on_note`` is told."""
        if self.view is None or self.report is None:
            return None
        if not self.view.on_ground([[x, y]])[0]:
            if self.on_note is not None:
                self.on_note(f"{x:.0f},{y:.0f} is above the ground's horizon: click a piece or a point on the ground")
            return None
        fx, fy = self.view.to_field([[x, y]])[0]
        at = FieldPoint(float(fx), float(fy))
        near = min(self.report.pieces, key=lambda p: p.at.distance(at), default=None)
        pick: tuple[str, FieldPoint | None]
        if near is not None and (gap(near.outline, _dot(at))[0] <= self.pick_inches):
            pick = (near.id, None)
        else:
            pick = (f"{x:.0f},{y:.0f}", at)
        if len(self.picks) >= 2:
            self.picks, self.result = [], None
        self.picks.append(pick)
        if len(self.picks) == 2:
            self.result = measure(self.report, self.picks[0], self.picks[1])
            if self.on_result is not None:
                self.on_result(self.result)
            return self.result
        return None

    def mouse(self, event: int, x: int, y: int, flags: int = 0, param: Any = None) -> None:
        """``cv2.setMouseCallback(window, click_measure.mouse)``: left clicks measure."""
        import cv2

        if event == cv2.EVENT_LBUTTONDOWN:
            self.click(x, y)

    def overlay(self) -> tuple[np.ndarray, np.ndarray, str] | None:
        """What :func:`tabletop.outdoor.overlay.draw_field` draws for the last measurement."""
        if self.result is None:
            return None
        r = self.result
        return np.array([r.start.x, r.start.y]), np.array([r.end.x, r.end.y]), inches(r.distance)

"""A piece's foot from its box and front dot alone: the prism that casts that box.

A piece is modelled as a prism ``height`` inches tall standing on an ellipse of ``length``
(along its facing) by ``width`` inches (or, for a stick, a rectangle: ``shape``), centred at
``(x, y)`` on the field and turned by ``facing``. Seen through the camera it fills a box in the picture; its front dot lies on
its long axis, on its top. :func:`fit_box` finds the five numbers (centre, length, width,
facing) whose prism casts the detected box (four edges, in pixels) with the dot on its axis,
by damped Gauss-Newton from a start where the box centre stands. The ground texture plays
no part, so it works on grass as on sand; the price is the assumed height.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop.outdoor.view import FieldView

__all__ = ["SHAPES", "fit_box", "prism_box"]

_T = np.linspace(0, 2 * math.pi, 20, endpoint=False)
_UNIT = {"ellipse": np.c_[np.cos(_T), np.sin(_T)],
         "rectangle": np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])}  # its corners: its extremes
SHAPES = tuple(_UNIT)


def _prism_boxes(params: np.ndarray, planes: tuple[np.ndarray, np.ndarray], shape: str) -> np.ndarray:
    """The box (x0, y0, x1, y1 pixels) of each row of ``params`` (x, y, length, width, facing
    radians), all at once: the foot's outline through the ground's plane ``planes[0]`` and
    through the top's ``planes[1]``."""
    c, s = np.cos(params[:, 4]), np.sin(params[:, 4])
    unit = _UNIT[shape]
    u = unit[None, :, 0] * (params[:, 2:3] / 2)
    v = unit[None, :, 1] * (params[:, 3:4] / 2)
    pts = np.ones((len(params), len(unit), 3))
    pts[:, :, 0] = params[:, 0:1] + u * c[:, None] - v * s[:, None]
    pts[:, :, 1] = params[:, 1:2] + u * s[:, None] + v * c[:, None]
    img = np.concatenate([pts @ planes[0].T, pts @ planes[1].T], axis=1)
    img = img[:, :, :2] / img[:, :, 2:3]
    return np.concatenate([img.min(axis=1), img.max(axis=1)], axis=1)


def prism_box(view: FieldView, params: np.ndarray, height: float, planes: tuple[np.ndarray, np.ndarray] | None = None,
              shape: str = "ellipse") -> np.ndarray:
    """The box (x0, y0, x1, y1 pixels) of the prism ``params = (x, y, length, width,
    facing radians)`` standing ``height`` inches tall on an ellipse or a rectangle."""
    planes = planes if planes is not None else (view.plane(0.0), view.plane(height))
    return _prism_boxes(np.asarray(params, float)[None], planes, shape)[0]


def fit_box(view: FieldView, box: np.ndarray, dot: np.ndarray | None, height: float,
            start: np.ndarray, iterations: int = 15, shape: str = "ellipse") -> tuple[np.ndarray, float]:
    """``(x, y, length, width, facing radians)`` of the prism on an ellipse or a rectangle
    (``shape``) that casts ``box``, with the front ``dot`` (field inches, at the top) on its
    axis, from ``start`` (same five numbers); and the RMS misfit in pixels. A box edge on the picture's border (a piece cut by the
    frame) says nothing about the piece and is left out."""
    planes = (view.plane(0.0), view.plane(height))
    p = np.asarray(start, float).copy()
    box = np.asarray(box, float)
    # pixels an inch here: the dot's misfit counts like the box edges' misfit
    probe = view.to_image(np.array([[p[0], p[1]], [p[0] + 1.0, p[1]], [p[0], p[1] + 1.0]]))
    ppi = float(max(np.linalg.norm(probe[1] - probe[0]), np.linalg.norm(probe[2] - probe[0]), 1.0))

    w, h = view.size
    free = np.array([box[0] > 1.0, box[1] > 1.0, box[2] < w - 2.0, box[3] < h - 2.0], float)

    def residuals(qs: np.ndarray) -> np.ndarray:
        """The misfit of each row of ``qs``: the prism's box edges against the free edges of
        ``box`` (pixels), and the dot's distance from the axis and behind the centre (inches,
        weighed as pixels); every row at once, as the Jacobian's five steps are."""
        rows = (_prism_boxes(qs, planes, shape) - box) * free
        if dot is None:
            return rows
        c, s = np.cos(qs[:, 4]), np.sin(qs[:, 4])
        dx, dy = dot[0] - qs[:, 0], dot[1] - qs[:, 1]
        across = -dx * s + dy * c  # the dot's distance from the axis
        behind = np.minimum(0.0, dx * c + dy * s)  # and it is in front of the centre
        return np.column_stack([rows, ppi * across, ppi * behind])

    def residual(q: np.ndarray) -> np.ndarray:
        return residuals(q[None])[0]

    lam = 1e-2
    r = residual(p)
    cost = float(r @ r)
    steps = np.array([0.02, 0.02, 0.02, 0.02, 0.01])
    shifted = np.diag(steps)
    for _ in range(iterations):
        jac = (residuals(p + shifted) - r).T / steps
        a = jac.T @ jac
        g = jac.T @ r
        improved = False
        for _ in range(6):
            delta = np.linalg.solve(a + lam * np.diag(np.diag(a) + 1e-9), -g)
            q = p + delta
            q[2] = min(max(q[2], 0.15), 8.0)
            q[3] = min(max(q[3], 0.15), 8.0)
            rq = residual(q)
            cq = float(rq @ rq)
            if cq < cost:
                p, r, cost = q, rq, cq
                lam = max(lam / 3, 1e-6)
                improved = True
                break
            lam *= 4
        if not improved or float(np.abs(delta).max()) < 1e-3:
            break
    return p, math.sqrt(cost / len(r))

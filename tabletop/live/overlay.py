"""The annotated frame: the board outline and cells, each piece with its reading, the last move
as an arrow (red with the reason when illegal), and a status line."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["banner", "draw"]

GREEN = (60, 200, 60)
RED = (40, 40, 230)
WHITE = (255, 255, 255)
YELLOW = (0, 220, 255)


def _board_point(mapper: Any, where: Any) -> np.ndarray | None:
    if isinstance(where, tuple):
        return np.array([where], float)
    if isinstance(where, dict):
        return np.array([[where["x"], where["y"]]], float)
    cells = getattr(mapper, "cells", None)
    if cells is None or where not in cells.labels:
        return None
    return cells.centres[cells.labels.index(where)].reshape(1, 2)


def draw(frame: np.ndarray, result: Any, pipeline: Any, fps: float = 0.0) -> np.ndarray:
    """A copy of ``frame`` with the overlay for one :class:`~tabletop.live.pipeline.FrameResult`."""
    import cv2

    img = frame.copy()
    view = result.view
    geo = getattr(view, "geometry", None)
    to_image = getattr(geo, "board_to_image", None)
    if view is not None and view.polygon is not None:
        cv2.polylines(img, [np.asarray(view.polygon, np.int32).reshape(-1, 1, 2)], True, YELLOW, 2)
    cells = getattr(pipeline.mapper, "cells", None)
    if to_image is not None and cells is not None and len(cells.centres):
        for x, y in to_image(cells.centres):
            if np.isfinite(x) and np.isfinite(y):
                cv2.circle(img, (int(x), int(y)), 1, YELLOW, -1)
    if result.seen is not None:
        for p in result.seen.pieces:
            x0, y0, x1, y1 = (int(v) for v in p.box)
            cv2.rectangle(img, (x0, y0), (x1, y1), GREEN, 1)
            where = p.cell if p.cell is not None else f"{p.point[0]:.1f},{p.point[1]:.1f}"
            cv2.putText(img, f"{p.cls} {where}", (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.35, WHITE, 1,
                        cv2.LINE_AA)
        for h in result.seen.hands:
            cv2.rectangle(img, (int(h[0]), int(h[1])), (int(h[2]), int(h[3])), RED, 2)
    if to_image is not None:  # hint lights: where a lifted piece may legally go
        for targets in getattr(pipeline, "hints", {}).values():
            for target in targets:
                b = _board_point(pipeline.mapper, target)
                if b is not None:
                    x, y = to_image(b)[0]
                    cv2.circle(img, (int(x), int(y)), 7, (255, 200, 0), 2)
    move = pipeline.last_move
    reason = ""
    if move is not None and to_image is not None:
        a, b = _board_point(pipeline.mapper, move.frm), _board_point(pipeline.mapper, move.to)
        colour = GREEN if move.kind == "legal" else RED
        if a is not None and b is not None:
            pa, pb = to_image(a)[0], to_image(b)[0]
            cv2.arrowedLine(img, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), colour, 3, tipLength=0.2)
        if move.kind == "illegal" and move.verdict is not None:
            reason = "ILLEGAL: " + move.verdict.message
    if reason:
        cv2.putText(img, reason[:110], (8, img.shape[0] - 30), cv2.FONT_HERSHEY_SIMPLEX, 0.45, RED, 1, cv2.LINE_AA)
    try:
        turn = ", ".join(pipeline.game.to_move(pipeline.state))
    except Exception:  # noqa: BLE001 - the status line never stops the overlay
        turn = "?"
    quality = getattr(view, "quality", "") if view is not None else "no board"
    status = f"{result.status} | pose {quality} | {fps:.1f} fps | to move: {turn}"
    given = getattr(getattr(pipeline, "rolls", None), "given", None)
    if given:  # dice typed (or given) and not used yet
        status += " | dice: " + " ".join(map(str, given))
    choice = pipeline.choice_status() if hasattr(pipeline, "choice_status") else ""
    if choice:  # a choice the board cannot show, awaited
        status += f" | {choice}"
    if result.message:
        status += f" | {result.message}"
    cv2.rectangle(img, (0, img.shape[0] - 20), (img.shape[1], img.shape[0]), (0, 0, 0), -1)
    cv2.putText(img, status[:120], (6, img.shape[0] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.42, WHITE, 1, cv2.LINE_AA)
    return img


def banner(img: np.ndarray, text: str) -> np.ndarray:
    """A copy of ``img`` with ``text`` in a dark band across its top (e.g. "PAUSED")."""
    import cv2

    out = img.copy()
    cv2.rectangle(out, (0, 0), (out.shape[1], 26), (0, 0, 0), -1)
    cv2.putText(out, text[:100], (8, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, YELLOW, 1, cv2.LINE_AA)
    return out

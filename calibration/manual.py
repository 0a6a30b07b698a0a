"""A board pose from four corners given by hand: on the command line, or clicked in a window.

For a board without markers (the 1979 OneWorld mapsheet, a bought When Gods Collide set) the
user gives the image positions of the board's four corners, in the order top-left,
top-right, bottom-right, bottom-left (clockwise as the board is printed; on The Game's field:
near-left, near-right, far-right, far-left). Which points count as corners depends on the
board units:

* squares: the outer corners of the grid, so the pose spans ``cols x rows`` squares;
* hexes: the centres of the four corner hexes (0101, CC01, CCRR, 01RR), the corners of the
  rectangle the pose's ``size`` spans (see :func:`calibration.markers.oneworld_map_spec`);
* inches: the field's corners.

>>> pose = pose_from_corners(parse_corners("100,100 500,100 500,500 100,500"), "square", (8, 8))
>>> pose.to_board([[300, 300]]).round(6).tolist()
[[4.0, 4.0]]
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.homography import homography_from_points
from calibration.markers import PointUndistorter
from calibration.pose import UNITS, BoardPose, PoseQuality

__all__ = [
    "ORDER",
    "FIELD_ORDER",
    "parse_corners",
    "board_corners",
    "pose_from_corners",
    "board_geometry",
    "click_corners",
]

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_POINT = re.compile(rf"^\s*({_NUMBER})\s*,\s*({_NUMBER})\s*$")
ORDER = "top-left, top-right, bottom-right, bottom-left"
FIELD_ORDER = "near-left, near-right, far-right, far-left"


def parse_corners(text: str) -> np.ndarray:
    """``"x1,y1 x2,y2 x3,y3 x4,y4"`` (pixels) -> a 4 x 2 array.

    >>> parse_corners("10,20 30.5,20 30,40 10,40.25").tolist()
    [[10.0, 20.0], [30.5, 20.0], [30.0, 40.0], [10.0, 40.25]]
    """
    if not isinstance(text, str) or not text.strip():
        raise CalibrationError(f'give four corners as "x,y x,y x,y x,y" ({ORDER}), got nothing')
    parts = re.sub(r"\s*,\s*", ",", text.strip()).replace(";", " ").split()
    if len(parts) != 4:
        raise CalibrationError(
            f'give exactly four corners as "x,y x,y x,y x,y" ({ORDER}), got {len(parts)}: {text!r}'
        )
    out = []
    for k, part in enumerate(parts, 1):
        m = _POINT.match(part)
        if not m:
            raise CalibrationError(f"corner {k} is not x,y pixels: {part!r} (e.g. 412.5,96)")
        out.append((float(m.group(1)), float(m.group(2))))
    return np.array(out, float)


def board_corners(units: str, size: tuple[float, float]) -> np.ndarray:
    """Board coordinates of the four corners a user gives: the ``size`` rectangle's corners
    ``(0, 0), (w, 0), (w, h), (0, h)``."""
    if units not in UNITS:
        raise CalibrationError(f"unknown board unit {units!r} (use one of {', '.join(UNITS)})")
    w, h = (float(v) for v in size)
    if not (w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h)):
        raise CalibrationError(f"the board size must be positive, got {size!r}")
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], float)


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _is_convex(quad: np.ndarray) -> bool:
    turns = []
    for k in range(4):
        a, b, c = quad[k], quad[(k + 1) % 4], quad[(k + 2) % 4]
        u, v = b - a, c - b
        turns.append(float(u[0] * v[1] - u[1] * v[0]))
    return all(t > 0 for t in turns) or all(t < 0 for t in turns)


def pose_from_corners(
    corners_px: Any,
    units: str,
    size: tuple[float, float],
    *,
    frame_size: tuple[int, int] | None = None,
    camera: PointUndistorter | None = None,
) -> BoardPose:
    """The board pose from the image positions of its four corners (4 x 2 pixels, in the
    order top-left, top-right, bottom-right, bottom-left; near-left, near-right, far-right,
    far-left for the field in inches).

    ``frame_size`` (width, height) lets the quality report the board's coverage; a ``camera``
    undistorts the corners first.
    """
    try:
        px = np.asarray(corners_px, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError(f"corners must be four x,y pixel pairs ({ORDER})") from None
    if px.shape != (4, 2) or not np.all(np.isfinite(px)):
        raise CalibrationError(
            f"give exactly four finite x,y corners ({ORDER}), got shape {px.shape}"
        )
    board = board_corners(units, size)
    if camera is not None:
        px = np.asarray(camera.undistort_points(px, frame_size), float).reshape(4, 2)
    order = FIELD_ORDER if units == "inch" else ORDER
    span = float(np.ptp(px, axis=0).max())
    if span < 8 or min(np.linalg.norm(px - np.roll(px, -1, axis=0), axis=1)) < 4:
        raise CalibrationError(
            f"the four corners almost coincide: click the board's corners ({order})"
        )
    if not _is_convex(px):
        raise CalibrationError(
            f"the four corners do not form a convex quadrilateral: give them in the order {order}"
        )
    # Boards are printed with y down (clockwise on screen); the field's y grows away from the
    # near edge, which reverses the turn.
    if (_signed_area(px) > 0) != (units != "inch"):
        raise CalibrationError(
            f"the corners go round the wrong way (is the image mirrored?): give them in the order {order}"
        )
    to_image = homography_from_points(board, px)
    coverage = 0.0
    if frame_size is not None:
        w, h = frame_size
        inside = np.clip(px, [0, 0], [w, h])
        coverage = abs(_signed_area(inside)) / float(w * h)
    quality = PoseQuality("manual", 0.0, 4, 4, coverage)
    return BoardPose.from_homography(np.linalg.inv(to_image), units, size, quality)


def board_geometry(
    game: str, squares: tuple[int, int] | None = None, field: tuple[float, float] = (24.0, 24.0)
) -> tuple[str, tuple[float, float]]:
    """Board units and pose size of ``game`` for manual corners: OneWorld's default map
    (hexes, corner-hex centres), The Game's field (``field`` inches), or ``squares``
    (columns, rows; defaults: Battle Grounds 8 x 8, Wormholes 10 x 18, When Gods Collide 16 x 16)."""
    if game == "oneworld":
        from calibration.markers import oneworld_map_spec

        spec = oneworld_map_spec()
        return spec.units, spec.size
    if game == "the-game":
        return "inch", (float(field[0]), float(field[1]))
    defaults = {"battle-grounds": (8, 8), "wormholes": (10, 18), "when-gods-collide": (16, 16)}
    if game not in defaults:
        raise CalibrationError(
            f"unknown game {game!r} (known: oneworld, {', '.join(defaults)}, the-game)"
        )
    cols, rows = squares or defaults[game]
    return "square", (float(cols), float(rows))


def click_corners(
    image: np.ndarray, title: str = "click the board's four corners", order: str = ORDER
) -> np.ndarray:
    """Show ``image`` in a window and let the user click four corners in ``order`` (top-left,
    top-right, bottom-right, bottom-left; :data:`FIELD_ORDER` for the field); Backspace undoes
    a click, Esc cancels. Needs a display."""
    import cv2

    points: list[tuple[float, float]] = []

    def on_mouse(event: int, x: int, y: int, flags: int, param: Any) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(points) < 4:
            points.append((float(x), float(y)))

    try:
        cv2.namedWindow(title, cv2.WINDOW_NORMAL)
        cv2.setMouseCallback(title, on_mouse)
        while len(points) < 4:
            view = image.copy()
            for k, p in enumerate(points):
                c = (int(p[0]), int(p[1]))
                cv2.circle(view, c, 6, (0, 0, 255), 2)
                cv2.putText(
                    view,
                    str(k + 1),
                    (c[0] + 8, c[1] - 8),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.7,
                    (0, 0, 255),
                    2,
                )
            next_name = order.split(", ")[len(points)]
            cv2.putText(
                view,
                f"click the {next_name} corner (Esc: cancel)",
                (10, 30),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.8,
                (0, 255, 255),
                2,
            )
            cv2.imshow(title, view)
            key = cv2.waitKey(30) & 0xFF
            if key == 27:
                raise CalibrationError(
                    "corner picking cancelled: give the corners with --corners instead"
                )
            if key == 8 and points:
                points.pop()
    except cv2.error:
        raise CalibrationError(
            "no window can be opened here: give the corners with --corners"
        ) from None
    finally:
        try:
            cv2.destroyWindow(title)
        except cv2.error:
            pass
    return np.array(points, float)

"""Pixels <-> hexes of a OneWorld map seen by the camera.

A :class:`~calibration.pose.BoardPose` in ``"hex"`` units maps image pixels to board
coordinates whose unit is the hex circumradius and whose origin is the centre of hex 0101;
:class:`vision.layout.HexLayout` (pointy-top, size 1) turns board coordinates into hexes and
back; the map file says which hexes exist (the rest is Chaos).

>>> import numpy as np
>>> from calibration.pose import BoardPose
>>> from rules.oneworld.board import parse_map
>>> world = parse_map("size 3 2\\nrow 01 . . .\\nrow 02 . . .\\n", require_towers=False)
>>> view = HexMapView(BoardPose.from_homography(np.diag([0.05, 0.05, 1.0]), "hex", (3.46, 1.5)), world)
>>> view.hex_at((0.0, 0.0)).label()
'0101'
>>> view.center(Hex.parse("0202")).round(3).tolist()
[[51.962, 30.0]]
>>> view.hex_at((-500.0, 0.0)) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.pose import BoardPose
from rules.geometry import Hex
from rules.oneworld.board import OneWorldMap
from vision.layout import HexLayout

__all__ = ["HexMapView"]


@dataclass(frozen=True)
class HexMapView:
    """A OneWorld map as the camera sees it.

    ``camera`` (optional, a :class:`calibration.camera.CameraCalibration`): when the pose was
    found from undistorted points, raw pixels are undistorted before mapping and hex
    positions distorted back into the raw frame; ``frame_size`` is then the frame's
    ``(width, height)``.
    """

    pose: BoardPose
    world: OneWorldMap
    camera: Any = None
    frame_size: tuple[int, int] | None = None
    layout: HexLayout = field(default_factory=lambda: HexLayout(size=1.0))

    def __post_init__(self) -> None:
        if self.pose.units != "hex":
            raise CalibrationError(
                f"the board pose is in {self.pose.units}s, not hexes: calibrate OneWorld's map "
                "('tabletop calibrate board IMAGE --game oneworld')"
            )

    # -- pixels -> hexes --------------------------------------------------------------------
    def board_points(self, pixels: Any) -> np.ndarray:
        """Board coordinates (hex units) of N x 2 pixels."""
        px = np.asarray(pixels, dtype=float).reshape(-1, 2)
        if self.camera is not None:
            px = np.asarray(self.camera.undistort_points(px, self.frame_size), float).reshape(-1, 2)
        return self.pose.to_board(px)

    def hexes_at(self, pixels: Any) -> list[Hex | None]:
        """The map hex under each pixel (``None`` off the map: Chaos or beyond the edge)."""
        out: list[Hex | None] = []
        for x, y in self.board_points(pixels):
            h = self.layout.hex_at((float(x), float(y)))
            out.append(h if self.world.on_map(h) else None)
        return out

    def hex_at(self, pixel: Any) -> Hex | None:
        """The map hex under one pixel ``(x, y)``, or ``None`` off the map."""
        return self.hexes_at(np.asarray(pixel, dtype=float).reshape(1, 2))[0]

    # -- hexes -> pixels --------------------------------------------------------------------
    def _to_image(self, board: np.ndarray) -> np.ndarray:
        px = self.pose.to_image(board)
        if self.camera is not None:
            px = np.asarray(self.camera.distort_points(px, self.frame_size), float).reshape(-1, 2)
        return px

    def center(self, h: Hex) -> np.ndarray:
        """The pixel (1 x 2) of the centre of hex ``h`` (any hex, on the map or not)."""
        return self._to_image(np.array([self.layout.center(h)], float))

    def centers(self, hexes: Any) -> np.ndarray:
        """The pixels (N x 2) of the centres of ``hexes``."""
        pts = np.array([self.layout.center(h) for h in hexes], float).reshape(-1, 2)
        return self._to_image(pts)

    def corners(self, h: Hex) -> np.ndarray:
        """The six corners of hex ``h`` in pixels (6 x 2), starting at the east-north-east one
        and going clockwise on the printed map."""
        return self._to_image(np.array(self.layout.corners(h), float))

    def map_hexes(self) -> list[Hex]:
        """Every hex of the map, in printed order (row by row)."""
        return sorted(self.world.cells, key=lambda h: (h.offset()[1], h.offset()[0]))

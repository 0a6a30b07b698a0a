"""The one result of every board or field calibration: a :class:`BoardPose`.

Whichever way a board was found (fiducial markers, four corners given by hand, or the grid
found automatically), the result is the same type: the homography from image pixels to
board coordinates, its inverse for drawing overlays, the unit of the board coordinates and
a quality figure that says how much to trust it.

Board coordinates are a plane laid on the board: ``x`` to the right and ``y`` down as the
board is printed, origin at the board's top-left corner, measured in ``units``:

* ``"square"``: one unit per grid square (square-grid games);
* ``"hex"``: one unit per hex circumradius, origin at the centre of hex 0101 (see
  :class:`vision.layout.HexLayout`);
* ``"inch"``: inches on the table or the ground (The Game's field).

>>> import numpy as np
>>> pose = BoardPose.from_homography(np.diag([0.1, 0.1, 1.0]), units="square", size=(8, 8))
>>> pose.to_board([[40.0, 20.0]]).tolist()
[[4.0, 2.0]]
>>> pose.to_image([[4.0, 2.0]]).tolist()
[[40.0, 20.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.errors import CalibrationError
from calibration.homography import apply_homography

__all__ = ["PoseQuality", "BoardPose", "UNITS"]

UNITS = ("square", "hex", "inch")
#: a pose read from a file whose homography is this ill-conditioned is degenerate (real ones: about 1e4)
MAX_CONDITION = 1e12


@dataclass(frozen=True)
class PoseQuality:
    """How a pose was found and how far to trust it.

    ``residual_px`` is the RMS distance, in pixels, between the reference points seen in the
    image and where the pose puts them (0 for exactly four points); ``coverage`` is the
    fraction of the frame the board covers; ``seen``/``expected`` count markers, corners or
    grid points used. ``marker_mm``: for a pose found from printed markers, the side they
    were printed at (``None`` when not known), so that where they lie is known too.
    """

    method: str
    residual_px: float
    seen: int
    expected: int
    coverage: float
    marker_mm: float | None = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "method": self.method,
            "residual_px": round(float(self.residual_px), 4),
            "seen": self.seen,
            "expected": self.expected,
            "coverage": round(float(self.coverage), 4),
        }
        if self.marker_mm is not None:
            out["marker_mm"] = round(float(self.marker_mm), 4)
        return out


@dataclass(frozen=True)
class BoardPose:
    """Image pixels <-> board coordinates for one camera view of one board."""

    image_to_board: np.ndarray
    board_to_image: np.ndarray
    units: str
    size: tuple[float, float]
    quality: PoseQuality = field(default_factory=lambda: PoseQuality("given", 0.0, 0, 0, 0.0))
    frame_size: tuple[int, int] | None = None  # the pictures' (width, height) when known: see for_frame

    def __post_init__(self) -> None:
        if self.units not in UNITS:
            raise CalibrationError(f"unknown board unit {self.units!r} (use one of {', '.join(UNITS)})")
        for name in ("image_to_board", "board_to_image"):
            m = getattr(self, name)
            if not isinstance(m, np.ndarray) or m.shape != (3, 3) or not np.all(np.isfinite(m)):
                raise CalibrationError(f"{name} must be a finite 3x3 matrix")

    @classmethod
    def from_homography(
        cls,
        image_to_board: np.ndarray,
        units: str,
        size: tuple[float, float],
        quality: PoseQuality | None = None,
        frame_size: tuple[int, int] | None = None,
    ) -> BoardPose:
        h = np.asarray(image_to_board, dtype=float)
        try:
            inv = np.linalg.inv(h)
        except np.linalg.LinAlgError:
            raise CalibrationError("the board homography cannot be inverted (degenerate view)") from None
        return cls(h / h[2, 2], inv / inv[2, 2], units, (float(size[0]), float(size[1])),
                   quality or PoseQuality("given", 0.0, 0, 0, 0.0), frame_size)

    def to_board(self, points: Any) -> np.ndarray:
        return apply_homography(self.image_to_board, np.asarray(points, dtype=float).reshape(-1, 2))

    def to_image(self, points: Any) -> np.ndarray:
        return apply_homography(self.board_to_image, np.asarray(points, dtype=float).reshape(-1, 2))

    def board_corners_in_image(self) -> np.ndarray:
        w, h = self.size
        return self.to_image([[0, 0], [w, 0], [w, h], [0, h]])

    def for_frame(self, size: tuple[int, int]) -> BoardPose:
        """This pose for frames of ``size`` (width, height) pixels. A pose maps the pixels of
        pictures of one size: frames of another size but the same shape (a camera or phone
        streaming at a lower resolution than the photo the pose was made from) have its
        pixels scaled; frames of another shape (another crop of the sensor) cannot be mapped,
        and raise a :class:`CalibrationError`. A pose whose pictures' size is not known is
        taken as it is.

        >>> pose = BoardPose.from_homography(np.diag([0.1, 0.1, 1.0]), "square", (8, 8), frame_size=(1280, 720))
        >>> pose.for_frame((640, 360)).to_board([[20.0, 10.0]]).tolist()
        [[4.0, 2.0]]
        """
        size = (int(size[0]), int(size[1]))
        if self.frame_size is None or size == self.frame_size:
            return self
        (w0, h0), (w, h) = self.frame_size, size
        if abs(w / w0 - h / h0) > 0.01 * max(w / w0, h / h0):
            raise CalibrationError(
                f"the board pose was made from {w0}x{h0} pictures and these frames are {w}x{h}, another "
                "shape (another crop of the camera's picture): calibrate the board again from a frame "
                "of this camera at this size"
            )
        scale = np.diag([w / w0, h / h0, 1.0])
        return BoardPose.from_homography(self.image_to_board @ np.linalg.inv(scale), self.units, self.size,
                                         self.quality, frame_size=size)

    def to_json(self) -> dict[str, Any]:
        out = {
            "image_to_board": self.image_to_board.tolist(),
            "units": self.units,
            "size": list(self.size),
            "quality": self.quality.to_json(),
        }
        if self.frame_size is not None:
            out["frame_size"] = list(self.frame_size)
        return out

    @classmethod
    def from_json(cls, data: Any) -> BoardPose:
        """Read the JSON object :meth:`to_json` writes; anything else raises a
        :class:`CalibrationError` naming the field."""
        if not isinstance(data, dict):
            raise CalibrationError(f"not a board pose: expected a JSON object, got {type(data).__name__}")
        for name in ("image_to_board", "units", "size"):
            if name not in data:
                raise CalibrationError(f"not a board pose: field '{name}' is missing")
        q = data.get("quality") or {}
        if not isinstance(q, dict):
            raise CalibrationError("not a board pose: field 'quality' must be an object")
        try:
            printed = q.get("marker_mm")
            quality = PoseQuality(
                str(q.get("method", "given")),
                float(q.get("residual_px", 0.0)),
                int(q.get("seen", 0)),
                int(q.get("expected", 0)),
                float(q.get("coverage", 0.0)),
                None if printed is None else float(printed),
            )
            h = np.asarray(data["image_to_board"], dtype=float)
            size = tuple(float(v) for v in data["size"])
        except (TypeError, ValueError, OverflowError) as err:
            raise CalibrationError(f"not a board pose: {err}") from None
        if h.shape != (3, 3) or not np.all(np.isfinite(h)):
            raise CalibrationError("not a board pose: field 'image_to_board' must be a finite 3x3 matrix")
        if quality.marker_mm is not None and not (np.isfinite(quality.marker_mm) and quality.marker_mm > 0):
            raise CalibrationError("not a board pose: field 'quality.marker_mm' must be the markers' printed "
                                   "side in mm, a number above 0")
        if len(size) != 2 or not all(np.isfinite(v) and v > 0 for v in size):
            raise CalibrationError("not a board pose: field 'size' must be [width, height], two numbers above 0")
        if not np.linalg.cond(h) < MAX_CONDITION:
            raise CalibrationError("the board homography cannot be inverted (degenerate view)")
        frame = data.get("frame_size")
        if frame is not None:
            if not (isinstance(frame, list) and len(frame) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 100_000 for v in frame)):
                raise CalibrationError("not a board pose: field 'frame_size' must be [width, height] in pixels")
            frame = (frame[0], frame[1])
        return cls.from_homography(h, str(data["units"]), (size[0], size[1]), quality, frame)

"""A pinhole camera with lens distortion, placed above the table, and how to draw with it.

The world frame is the table: ``x`` and ``y`` in millimetres lie on the table, oriented as
the board is printed (``x`` to the right, ``y`` down the sheet), and ``z`` points *into*
the table, so that a point ``h`` millimetres above the table has ``z = -h``. With that
choice a camera looking straight down with no roll is the identity rotation, and its
image shows the board the way it is printed.

A :class:`Camera` holds OpenCV's intrinsics ``K`` and distortion ``(k1, k2, p1, p2, k3)``
and the pose ``x_cam = R @ x_world + t``. The renderer draws an ideal (undistorted) image
on a slightly larger canvas and bends it through the lens at the end (:meth:`distortion_maps`);
labels are projected through the lens directly (:meth:`project`), so they match the pixels.

>>> cam = Camera.looking_at(target=(0.0, 0.0), elevation=90, azimuth=90, roll=0,
...                         distance=500.0, hfov=60.0, size=(640, 480))
>>> np.round(cam.project([[0.0, 0.0, 0.0]]), 3).tolist()
[[319.5, 239.5]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

__all__ = ["Camera", "sample_camera", "CameraRanges", "undistort_pixels"]


def undistort_pixels(points: Any, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Pixels of a distorted image (N x 2) -> where an ideal pinhole camera with the same
    ``K`` would see them (iterative, accurate to a thousandth of a pixel)."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-7)
    if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4
        out = cv2.undistortPointsIter(pts, K, dist, None, K, crit)
    else:  # OpenCV 5 folded the iterative form into undistortPoints
        out = cv2.undistortPoints(pts, K, dist, None, K, criteria=crit)
    return np.asarray(out, float).reshape(-1, 2)


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``K`` (3x3), distortion (5,), rotation ``R`` (3x3), translation ``t`` (3,)."""

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]  # width, height in pixels
    meta: dict[str, float] = field(default_factory=dict, compare=False)

    # -- construction ----------------------------------------------------------------
    @classmethod
    def looking_at(
        cls,
        target: tuple[float, float],
        elevation: float,
        azimuth: float,
        roll: float,
        distance: float,
        hfov: float,
        size: tuple[int, int],
        dist: Any = (0.0, 0.0, 0.0, 0.0, 0.0),
        principal_offset: tuple[float, float] = (0.0, 0.0),
    ) -> Camera:
        """A camera ``distance`` mm from ``target`` (a point on the table), ``elevation``
        degrees above the table (90: straight down) and at ``azimuth`` degrees around it
        (90: sitting at the bottom edge of the printed board), rolled by ``roll`` degrees,
        with a horizontal field of view of ``hfov`` degrees."""
        w, h = size
        e, a = math.radians(elevation), math.radians(azimuth)
        toward = np.array([math.cos(a), math.sin(a), 0.0])  # from the target to the camera
        up = np.array([0.0, 0.0, -1.0])
        target3 = np.array([target[0], target[1], 0.0])
        centre = target3 + distance * (math.cos(e) * toward + math.sin(e) * up)
        f = target3 - centre
        f /= np.linalg.norm(f)
        y = toward - (toward @ f) * f
        y /= np.linalg.norm(y)
        x = np.cross(y, f)
        r = math.radians(roll)
        x, y = math.cos(r) * x + math.sin(r) * y, -math.sin(r) * x + math.cos(r) * y
        R = np.stack([x, y, f])
        t = -R @ centre
        fx = (w / 2) / math.tan(math.radians(hfov) / 2)
        K = np.array(
            [[fx, 0, (w - 1) / 2 + principal_offset[0]], [0, fx, (h - 1) / 2 + principal_offset[1]], [0, 0, 1]]
        )
        meta = {"elevation": elevation, "azimuth": azimuth, "roll": roll, "distance": distance, "hfov": hfov}
        return cls(K, np.asarray(dist, float).reshape(5), R, t, (int(w), int(h)), meta)

    # -- geometry --------------------------------------------------------------------
    @property
    def centre(self) -> np.ndarray:
        """The camera's position in the world (mm)."""
        return -self.R.T @ self.t

    def depth(self, points: Any) -> np.ndarray:
        """Distance of world points along the viewing axis (mm)."""
        p = np.asarray(points, float).reshape(-1, 3)
        return p @ self.R[2] + self.t[2]

    def project(self, points: Any) -> np.ndarray:
        """World points (N x 3, mm) to pixels of the final image, through the lens."""
        p = np.asarray(points, float).reshape(-1, 3)
        if len(p) == 0:
            return np.zeros((0, 2))
        rvec, _ = cv2.Rodrigues(self.R)
        out, _ = cv2.projectPoints(p, rvec, self.t.astype(float), self.K, self.dist)
        return out.reshape(-1, 2)

    def project_ideal(self, points: Any, K: np.ndarray | None = None) -> np.ndarray:
        """World points to pixels of a distortion-free pinhole image with intrinsics ``K``."""
        p = np.asarray(points, float).reshape(-1, 3)
        c = p @ self.R.T + self.t
        q = c @ (self.K if K is None else K).T
        return q[:, :2] / q[:, 2:3]

    def plane_homography(self, height: float = 0.0, K: np.ndarray | None = None) -> np.ndarray:
        """3x3 homography from table points ``(x, y)`` in mm at ``height`` mm above the table
        to ideal (undistorted) pixels."""
        KK = self.K if K is None else K
        m = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * (-height) + self.t])
        h = KK @ m
        return h / h[2, 2]

    def sees_from_above(self, height: float = 0.0) -> bool:
        """Whether the camera is above the plane at ``height`` (it sees its top side)."""
        return float(self.centre[2]) < -height

    def sees_only_table(self, max_distance: float) -> bool:
        """Whether every ray through the (ideal canvas of the) image meets the table in front
        of the camera, within ``max_distance`` mm: no horizon, no sky, no wall in view."""
        K, (cw, ch), _ = self.canvas()
        corners = np.array([[0, 0, 1], [cw - 1, 0, 1], [cw - 1, ch - 1, 1], [0, ch - 1, 1]], float)
        rays = (self.R.T @ (np.linalg.inv(K) @ corners.T)).T  # world directions
        c = self.centre
        for d in rays:
            if d[2] <= 1e-6:  # pointing up or level: never meets the table
                return False
            t = -c[2] / d[2]
            if t * np.linalg.norm(d) > max_distance:
                return False
        return True

    # -- the lens --------------------------------------------------------------------
    def has_distortion(self) -> bool:
        return bool(np.any(np.abs(self.dist) > 1e-9))

    def canvas(self) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
        """Intrinsics, size and offset of the ideal canvas that covers the whole final image
        once bent through the lens (larger than the image for barrel distortion)."""
        w, h = self.size
        if not self.has_distortion():
            return self.K.copy(), (w, h), (0, 0)
        border = np.array(
            [[x, y] for x in np.linspace(0, w - 1, 9) for y in (0, h - 1)]
            + [[x, y] for y in np.linspace(0, h - 1, 7) for x in (0, w - 1)],
            float,
        )
        ideal = undistort_pixels(border, self.K, self.dist)
        left = int(math.ceil(max(0.0, -ideal[:, 0].min()))) + 2
        top = int(math.ceil(max(0.0, -ideal[:, 1].min()))) + 2
        right = int(math.ceil(max(0.0, ideal[:, 0].max() - (w - 1)))) + 2
        bottom = int(math.ceil(max(0.0, ideal[:, 1].max() - (h - 1)))) + 2
        K = self.K.copy()
        K[0, 2] += left
        K[1, 2] += top
        return K, (w + left + right, h + top + bottom), (left, top)

    def distortion_maps(self, canvas_offset: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps: for each pixel of the final image, where to read the ideal
        canvas. Computed on a coarse grid and interpolated (distortion is smooth)."""
        w, h = self.size
        step = 16
        gx = np.arange(0, w + step, step, dtype=float)
        gy = np.arange(0, h + step, step, dtype=float)
        xs, ys = np.meshgrid(gx, gy)
        pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
        ideal = undistort_pixels(pts, self.K, self.dist).reshape(len(gy), len(gx), 2)
        ideal[..., 0] += canvas_offset[0]
        ideal[..., 1] += canvas_offset[1]
        # bilinear upsampling of the coarse grid to every pixel
        ux = (np.arange(w) / step).astype(np.float32)
        uy = (np.arange(h) / step).astype(np.float32)
        mx, my = np.meshgrid(ux, uy)
        map_x = cv2.remap(ideal[..., 0].astype(np.float32), mx, my, cv2.INTER_LINEAR)
        map_y = cv2.remap(ideal[..., 1].astype(np.float32), mx, my, cv2.INTER_LINEAR)
        return map_x, map_y

    # -- ground truth ----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        rvec, _ = cv2.Rodrigues(self.R)
        return {
            "image_size": [self.size[0], self.size[1]],
            "intrinsics": [[round(float(v), 6) for v in row] for row in self.K],
            "distortion": [round(float(v), 8) for v in self.dist],
            "rotation": [[round(float(v), 9) for v in row] for row in self.R],
            "rvec": [round(float(v), 9) for v in rvec.ravel()],
            "translation": [round(float(v), 6) for v in self.t],
            "position_mm": [round(float(v), 4) for v in self.centre],
            **{k: round(float(v), 4) for k, v in self.meta.items()},
        }


@dataclass(frozen=True)
class CameraRanges:
    """The spread of camera placements drawn by :func:`sample_camera`."""

    elevation: tuple[float, float] = (30.0, 90.0)  # degrees off the table
    hfov: tuple[float, float] = (45.0, 78.0)  # horizontal field of view, degrees
    roll_sigma: float = 6.0  # degrees; rolls are normal, clipped to +-25
    fill: tuple[float, float] = (0.55, 1.0)  # board extent / frame extent
    centre_jitter: float = 0.12  # of the board size
    distortion_share: float = 0.6  # share of frames with a visible lens distortion
    k1: tuple[float, float] = (-0.18, 0.06)


def sample_camera(
    rng: np.random.Generator,
    board_mm: tuple[float, float],
    size: tuple[int, int],
    ranges: CameraRanges = CameraRanges(),
    centre_mm: tuple[float, float] | None = None,
    extent_mm: tuple[float, float] | None = None,
) -> Camera:
    """A random camera that frames a board of ``board_mm`` (width, depth) on the table.

    ``centre_mm`` is the point to aim at (default the board centre); ``extent_mm`` the
    area that should fill the frame (default the board). The distance is solved so that
    the area covers a random share ``ranges.fill`` of the frame.
    """
    bw, bh = board_mm
    cx, cy = centre_mm if centre_mm is not None else (bw / 2, bh / 2)
    ew, eh = extent_mm if extent_mm is not None else (bw, bh)
    # steep views are more common than grazing ones: weight towards the top of the range
    lo, hi = ranges.elevation
    elevation = lo + (hi - lo) * float(rng.random() ** 0.8)
    azimuth = float(rng.uniform(0, 360))
    roll = float(np.clip(rng.normal(0, ranges.roll_sigma), -25, 25))
    hfov = float(rng.uniform(*ranges.hfov))
    fill = float(rng.uniform(*ranges.fill))
    jx, jy = rng.uniform(-1, 1, 2) * ranges.centre_jitter * np.array([ew, eh])
    target = (cx + jx, cy + jy)
    dist = np.zeros(5)
    if rng.random() < ranges.distortion_share:
        dist[0] = rng.uniform(*ranges.k1)
        dist[1] = rng.uniform(-0.5, 0.5) * abs(dist[0]) * 0.5
        dist[2:4] = rng.normal(0, 0.0008, 2)
    corners = np.array(
        [[cx - ew / 2, cy - eh / 2, 0], [cx + ew / 2, cy - eh / 2, 0],
         [cx + ew / 2, cy + eh / 2, 0], [cx - ew / 2, cy + eh / 2, 0]], float
    )
    w, h = size
    distance = math.hypot(ew, eh) / (2 * math.tan(math.radians(hfov) / 2)) / fill
    for _ in range(12):
        cam = Camera.looking_at(target, elevation, azimuth, roll, distance, hfov, size, dist)
        for _ in range(4):  # solve the distance so that the area fills the wanted share
            p = cam.project_ideal(corners)
            span = max((p[:, 0].max() - p[:, 0].min()) / w, (p[:, 1].max() - p[:, 1].min()) / h)
            distance *= max(0.3, min(3.0, span / fill))
            cam = Camera.looking_at(target, elevation, azimuth, roll, distance, hfov, size, dist)
        if cam.sees_only_table(max_distance=8.0 * distance) or elevation >= 89.0:
            break
        elevation = min(90.0, elevation + 4.0)  # the horizon was in view: look down more
    return cam

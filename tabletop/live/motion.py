"""Motion over the board, from the pictures themselves.

The detector sees most hands, not all: a hand at the board's edge, blurred or half out of the
picture is easily missed, and a position read while it is there may be announced under it.
Something moving over the board changes the picture between two frames; a still board
changes only by sensor noise and the camera's exposure. So each frame's board region is
compared with the last one's, small and blurred: a pixel that differs by more than ``level``
grey levels (beyond the median difference, which is exposure) has changed, and more than
``share`` of the board's pixels changed is motion.

>>> import numpy as np
>>> still = np.full((120, 160, 3), 90, np.uint8)
>>> board = np.array([[20, 20], [140, 20], [140, 100], [20, 100]], float)
>>> m = BoardMotion()
>>> m.update(still, board), m.update(still + 2, board)
(False, False)
>>> hand = still.copy(); hand[30:60, 30:70] = 200
>>> m.update(hand, board)
True

A still board also needs reading only once: :class:`StillFrames` tells whether a frame shows
what the last frame read in full showed (the same test over the whole picture, finer and
stricter), so its board pose and pieces can be kept instead of found again.

>>> s = StillFrames()
>>> s.same(still, 0.0)
False
>>> s.keep(still, 0.0)
>>> s.same(still + 2, 0.1), s.same(hand, 0.1), s.same(still, 0.2)
(True, False, False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["BoardMotion", "StillFrames"]


class BoardMotion:
    """Whether the board region of a frame differs from the last frame's (see the module)."""

    def __init__(self, width: int = 160, level: float = 30.0, share: float = 0.004) -> None:
        self.width = width
        self.level = level
        self.share = share
        self._last: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._key: Any = None

    def reset(self) -> None:
        self._last = None

    def update(self, frame: Any, polygon: Any) -> bool:
        """True when something moved over the board since the last frame given (never for the
        first frame, nor for anything that is not a picture)."""
        import cv2

        if not isinstance(frame, np.ndarray) or frame.ndim < 2 or frame.size == 0 or polygon is None:
            return False
        small = _shrunk(frame, self.width)
        size = (small.shape[1], small.shape[0])
        poly = np.asarray(polygon, float).reshape(-1, 2) * (self.width / max(frame.shape[1], 1))
        key = (size, poly.round(0).tobytes())
        if key != self._key:  # the board moved in the picture (or a new size): a new mask
            mask = np.zeros(size[::-1], np.uint8)
            cv2.fillPoly(mask, [poly.round().astype(np.int32)], 1)
            self._mask, self._key = mask.astype(bool), key
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            return False
        inside = self._mask
        if inside is None or not inside.any():
            return False
        diff = (small - last)[inside]
        changed = np.abs(diff - np.median(diff)) > self.level
        return bool(changed.mean() > self.share)


class StillFrames:
    """Whether a frame shows what the frame last read in full showed, up to sensor noise and
    exposure: the whole picture, at ``width`` pixels across and blurred, differs from that
    frame's by more than ``level`` grey levels (beyond the median difference) in fewer than
    ``pixels`` places. A piece put down, lifted or turned, a hand or a sleeve anywhere in
    the picture, a camera nudged or a light switched changes far more than that; sensor noise
    (a few levels), smoothed over the blur, never reaches it. The comparison is with the
    frame last read, not the frame before, so a slow drift adds up until it is read again.
    A still picture is :meth:`due` to be read again ``refresh_s`` after it was, so that a
    weak detector's miss or doubt on one reading is outvoted by the next (``refresh_s=0``:
    every frame is read in full, and still compared: a reading that differs on an unchanged
    picture is the detector's doubt, not a move)."""

    def __init__(self, width: int = 320, level: float = 24.0, pixels: int = 4, refresh_s: float = 0.2) -> None:
        self.width = width
        self.level = level
        self.pixels = pixels
        self.refresh_s = refresh_s
        self._kept: np.ndarray | None = None
        self._t = 0.0
        self._seen: tuple[Any, np.ndarray | None] | None = None  # the last frame compared, small

    def reset(self) -> None:
        self._kept = None

    def _small(self, frame: Any) -> np.ndarray | None:
        if self._seen is not None and self._seen[0] is frame:
            return self._seen[1]
        if not isinstance(frame, np.ndarray) or frame.ndim < 2 or frame.size == 0:
            return None
        small = _shrunk(frame, min(self.width, frame.shape[1]))
        self._seen = (frame, small)
        return small

    def unchanged(self, frame: Any) -> bool:
        """True when ``frame`` shows what the frame given to :meth:`keep` showed (never for
        anything that is not a picture)."""
        kept = self._kept
        if kept is None:
            return False
        small = self._small(frame)
        if small is None or small.shape != kept.shape:
            return False
        diff = small - kept
        return int(np.count_nonzero(np.abs(diff - np.median(diff)) > self.level)) < self.pixels

    def due(self, t: float) -> bool:
        """True when the frame kept was read ``refresh_s`` or more before ``t``."""
        return t - self._t >= self.refresh_s - 1e-6 or t < self._t  # 3 frames of 1/15 s: 0.2 s

    def same(self, frame: Any, t: float) -> bool:
        """True when ``frame`` shows what the frame kept showed and is not yet due."""
        return not self.due(t) and self.unchanged(frame)

    def keep(self, frame: Any, t: float) -> None:
        """Remember ``frame``, read in full at time ``t``, as the one to compare with."""
        self._kept, self._t = self._small(frame), t


def _shrunk(frame: np.ndarray, width: int) -> np.ndarray:
    """``frame`` in grey, ``width`` pixels across (its height in proportion), blurred over 3x3
    pixels, as signed integers ready to subtract."""
    import cv2

    h, w = frame.shape[:2]
    size = (width, max(1, round(h * width / max(w, 1))))
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (3, 3), 0).astype(np.int16)

"""Running the live referee over a source of frames: the loop shared by ``tabletop play`` and
``tabletop demo``.

Each frame goes through the pipeline; its annotated copy (:func:`tabletop.live.overlay.draw`)
goes to a :class:`FrameSink` (numbered JPEGs, an MP4, or both) and to the window when there is
one (:mod:`tabletop.live.window`), whose keys steer the game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FrameSink", "run_frames"]


class FrameSink:
    """Where annotated frames go: ``folder/frame-NNNNN.jpg`` and/or an MP4 (``mp4v``) at
    ``fps``. Frames of another size than the first are scaled to it (a video has one size).

    >>> import tempfile, os
    >>> sink = FrameSink(video=os.path.join(tempfile.mkdtemp(), "a.mp4"), fps=10)
    >>> for _ in range(3):
    ...     sink.write(np.zeros((48, 64, 3), np.uint8))
    >>> sink.close()
    3
    """

    def __init__(self, folder: str | Path | None = None, video: str | Path | None = None,
                 fps: float = 10.0) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.video = Path(video) if video is not None else None
        self.fps = fps
        self.count = 0
        self._writer: Any = None
        self._size: tuple[int, int] | None = None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        if self.video is not None:
            self.video.parent.mkdir(parents=True, exist_ok=True)
            existed = self.video.exists()
            try:  # refused now, not at the first frame when a game is already under way
                with open(self.video, "ab"):
                    pass
            except OSError as err:
                raise OSError(f"{self.video}: cannot write the video there: {err.strerror or err}") from None
            if not existed:
                self.video.unlink()

    def write(self, img: np.ndarray) -> None:
        import cv2

        self.count += 1
        if self.folder is not None:
            cv2.imwrite(str(self.folder / f"frame-{self.count:05d}.jpg"), img)
        if self.video is None:
            return
        if self._writer is None:
            h, w = img.shape[:2]
            self._size = (w, h)
            self._writer = cv2.VideoWriter(str(self.video), cv2.VideoWriter_fourcc(*"mp4v"), self.fps, (w, h))
            if not self._writer.isOpened():
                self._writer = None
                raise OSError(f"{self.video}: cannot write an MP4 here (OpenCV has no mp4v encoder?)")
        if (img.shape[1], img.shape[0]) != self._size:
            img = cv2.resize(img, self._size)
        self._writer.write(img)

    def close(self) -> int:
        """Finish the files; the number of frames written."""
        if self._writer is not None:
            self._writer.release()
            self._writer = None
        return self.count


def run_frames(source: Iterable[tuple[Any, float]], pipe: Any, *, sink: FrameSink | None = None,
               window: Any = None, max_frames: int | None = None,
               on_key: Callable[[int], str | None] | None = None) -> int:
    """Feed ``source`` through ``pipe``; draw each readable frame for ``sink`` and ``window``.

    ``window`` (a :class:`tabletop.live.window.Window`) shows each frame and returns the key
    pressed; ``on_key`` does what the key says and returns its command (``"quit"`` stops,
    while paused the picture is held and only keys are read). Returns the number of frames read."""
    from tabletop.live.overlay import banner, draw

    started, n = time.monotonic(), 0
    for frame, t in source:
        n += 1
        result = pipe.process(frame, t)
        if frame is not None and (sink is not None or window is not None):
            fps = n / max(1e-6, time.monotonic() - started)
            img = draw(frame, result, pipe, fps)
            if sink is not None:
                sink.write(img)
            if window is not None and on_key is not None:
                command = on_key(window.show(img))
                if pipe.paused and command != "quit":  # hold the picture until p again
                    window.show(banner(img, "PAUSED: p go on, u undo, a other reading, q quit"))
                while pipe.paused and command != "quit" and window.is_open():
                    command = on_key(window.wait(100))
                if command == "quit" or not window.is_open():
                    break
        if max_frames and n >= max_frames:
            break
    return n

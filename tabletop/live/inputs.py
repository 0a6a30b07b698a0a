"""Frame sources for ``tabletop play``: a camera, a video file, a folder of images, a URL.

Every source yields ``(frame, t)`` (a BGR image or ``None`` for a frame that could not be
read, and the time in seconds). :class:`Reopening` wraps a stream (camera, URL) and reopens
it with back-off when it is lost, saying so; the game goes on from where it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["IMAGE_SUFFIXES", "Capture", "ImageFolder", "Reopening", "open_source"]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class ImageFolder:
    """The images of a folder in name order, each shown for ``hold_s`` seconds of stream time
    (``repeat`` frames ``1/fps`` apart): a still photo stands for a still table."""

    def __init__(self, folder: str | Path, fps: float = 10.0, hold_s: float = 0.5, pattern: str = "*") -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{self.folder}: no such folder")
        self.paths = sorted(p for p in self.folder.glob(pattern) if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise FileNotFoundError(f"{self.folder}: no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.repeat = max(1, round(hold_s * fps))

    def __iter__(self) -> Iterator[tuple[Any, float]]:
        import cv2

        t = 0.0
        for p in self.paths:
            frame = cv2.imread(str(p))  # None when the file is corrupt
            for _ in range(self.repeat):
                yield frame, t
                t += 1.0 / self.fps


class Capture:
    """An OpenCV capture (camera index, video file or URL) as frames; ends when it fails."""

    def __init__(self, target: int | str, opener: Callable[[Any], Any] | None = None) -> None:
        self.target = target
        self.opener = opener

    def open(self) -> Any:
        if self.opener is not None:
            return self.opener(self.target)
        import cv2

        return cv2.VideoCapture(self.target)

    def frames(self, cap: Any) -> Iterator[tuple[Any, float]]:
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            yield frame, time.monotonic()


class Reopening:
    """A live stream that is reopened with back-off (``delays``, seconds, the last repeated up
    to ``attempts`` tries in all) when it is lost; ``say`` hears "stream lost", "reopened"."""

    def __init__(self, capture: Capture, say: Callable[[str], None] = print, *,
                 delays: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0), attempts: int = 8,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.capture = capture
        self.say = say
        self.delays = delays
        self.attempts = attempts
        self.sleep = sleep
        self.reopened = 0

    def _open(self) -> Any:
        try:
            cap = self.capture.open()
        except Exception:  # noqa: BLE001 - any failure to open is a failed try
            return None
        if cap is None or (hasattr(cap, "isOpened") and not cap.isOpened()):
            return None
        return cap

    def __iter__(self) -> Iterator[tuple[Any, float]]:
        cap = self._open()
        if cap is None:
            raise ConnectionError(f"cannot open {self.capture.target!r}")
        while True:
            yield from self.capture.frames(cap)
            if hasattr(cap, "release"):
                cap.release()
            self.say(f"stream {self.capture.target!r} lost: reopening")
            for i in range(self.attempts):
                self.sleep(self.delays[min(i, len(self.delays) - 1)])
                cap = self._open()
                if cap is not None:
                    self.reopened += 1
                    self.say(f"stream {self.capture.target!r} reopened after {i + 1} tries")
                    break
            else:
                self.say(f"stream {self.capture.target!r} is gone after {self.attempts} tries: stopping")
                return


def open_source(*, camera: int | None = None, video: str | None = None, images: str | None = None,
                url: str | None = None, say: Callable[[str], None] = print, pattern: str = "*") -> Any:
    """The frame source for the command's input option (exactly one given)."""
    if images is not None:
        return ImageFolder(images, pattern=pattern)
    if video is not None:
        if not Path(video).is_file():
            raise FileNotFoundError(f"{video}: no such video file")
        cap = Capture(video)

        def once() -> Iterator[tuple[Any, float]]:  # a file ends; it is not reopened
            c = cap.open()
            if not c.isOpened():
                raise ConnectionError(f"cannot read the video {video}")
            fps = c.get(5) or 30.0  # cv2.CAP_PROP_FPS
            n = 0
            while True:
                ok, frame = c.read()
                if not ok:
                    return
                yield frame, n / fps
                n += 1

        return once()
    if camera is not None:
        return Reopening(Capture(camera), say)
    if url is not None:
        return Reopening(Capture(url), say)
    raise ValueError("one of --camera, --video, --images or --url is needed")

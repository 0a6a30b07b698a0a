"""Frame sources for ``tabletop play``: a camera, a video file, a folder of images, a URL.

Every source yields ``(frame, t)`` (a BGR image or ``None`` for a frame that could not be
read, and the time in seconds). :class:`Reopening` wraps a stream (camera, URL) and reopens
it with back-off when it is lost, saying so; the game goes on from where it was.

A live stream does not wait for the referee. When reading a frame takes longer than the camera
takes to deliver the next (a crowded field, a slow machine), frames queue in the camera's buffer
and every verdict comes later than the one before. So :class:`Capture` can read the stream on a
thread of its own and keep only the newest frame (``newest=True``, as ``tabletop play`` does for
``--camera`` and ``--url``): the referee always reads what the table shows now, and the stale
frames it skipped are counted in :attr:`Capture.dropped`.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["IMAGE_SUFFIXES", "Capture", "ImageFolder", "Reopening", "frames_folder", "open_source"]

#: undecodable frames in a row after which a video file is taken to have ended (its frame count overstated)
BROKEN_RUN = 300

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


class _Newest:
    """Reads ``cap`` on a thread and keeps only the newest frame, with the time it came."""

    def __init__(self, cap: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.clock = clock
        self.dropped = 0  # frames replaced by a newer one before they were taken
        self.error: Exception | None = None  # what ended the stream, when a read raised
        self._cond = threading.Condition()
        self._item: tuple[Any, float] | None = None  # the newest frame not taken yet
        self._ended = False
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="tabletop-frames", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop:
                ok, frame = self.cap.read()
                t = self.clock()
                if not ok:
                    break
                with self._cond:
                    self.dropped += self._item is not None
                    self._item = (frame, t)
                    self._cond.notify()
        except Exception as err:  # noqa: BLE001 - a failed read is a lost stream, as in Capture.frames
            self.error = err
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def take(self) -> tuple[Any, float] | None:
        """The newest frame not taken yet, waiting for one; ``None`` once the stream ended
        (the last frame it gave is taken first)."""
        with self._cond:
            while self._item is None and not self._ended:
                self._cond.wait()
            item, self._item = self._item, None
            return item

    def close(self, timeout: float = 2.0) -> None:
        """Stop reading and wait for the thread (a read in progress ends first), so that the
        capture can be released."""
        self._stop = True
        self._thread.join(timeout)


class Capture:
    """An OpenCV capture (camera index, video file or URL) as frames; ends when it fails.

    ``newest``: read the stream on a thread and yield only the newest frame each time the
    referee asks, skipping (and counting in :attr:`dropped`) those that came while it was busy;
    otherwise every frame is yielded in order."""

    def __init__(self, target: int | str, opener: Callable[[Any], Any] | None = None, *,
                 newest: bool = False, size: tuple[int, int] | None = None) -> None:
        self.target = target
        self.opener = opener
        self.newest = newest
        self.dropped = 0
        #: the frame size asked of a camera (width, height; ``None``: the camera's own) ...
        self.size = size
        #: ... and the size it gave when last opened (``None``: not known)
        self.given: tuple[int, int] | None = None

    def open(self) -> Any:
        if self.opener is not None:
            cap = self.opener(self.target)
        else:
            import cv2

            cap = cv2.VideoCapture(self.target)
        if cap is not None and self.size is not None and hasattr(cap, "set"):
            cap.set(3, float(self.size[0]))  # cv2.CAP_PROP_FRAME_WIDTH: a camera takes the nearest
            cap.set(4, float(self.size[1]))  # cv2.CAP_PROP_FRAME_HEIGHT  size it has
        if cap is not None and hasattr(cap, "get"):
            w, h = int(cap.get(3) or 0), int(cap.get(4) or 0)
            self.given = (w, h) if w > 0 and h > 0 else None
        return cap

    def frames(self, cap: Any) -> Iterator[tuple[Any, float]]:
        if self.newest:
            yield from self._newest(cap)
            return
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            yield frame, time.monotonic()

    def _newest(self, cap: Any) -> Iterator[tuple[Any, float]]:
        reader = _Newest(cap)
        try:
            while (item := reader.take()) is not None:
                yield item
        finally:
            reader.close()  # before the caller releases ``cap``
            self.dropped += reader.dropped


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
        self._first: Any = None  # opened by :meth:`start`, read from by the first iteration

    def start(self) -> Reopening:
        """Open the stream now, so that a camera or URL that cannot be opened at all is refused
        (:class:`ConnectionError`) before anything is written; a stream lost later is reopened."""
        if self._first is None:
            self._first = self._open()
            if self._first is None:
                raise ConnectionError(self._cannot_open())
        return self

    def _cannot_open(self) -> str:
        target = self.capture.target
        if isinstance(target, int):
            return (f"cannot open camera {target} (not plugged in, used by another program, or not "
                    "this number: try --camera 0)")
        return f"cannot open the stream {target!r} (check the address, and that the phone's camera app is serving)"

    def _open(self) -> Any:
        try:
            cap = self.capture.open()
        except Exception:  # noqa: BLE001 - any failure to open is a failed try
            return None
        if cap is None or (hasattr(cap, "isOpened") and not cap.isOpened()):
            return None
        return cap

    def __iter__(self) -> Iterator[tuple[Any, float]]:
        cap, self._first = (self._first if self._first is not None else self._open()), None
        if cap is None:
            raise ConnectionError(self._cannot_open())
        asked, given = self.capture.size, self.capture.given
        if asked is not None:
            if given is None:
                self.say(f"camera {self.capture.target!r}: asked for {asked[0]}x{asked[1]} frames; it does not say "
                         "what it gives")
            elif given != asked:
                self.say(f"camera {self.capture.target!r} gives {given[0]}x{given[1]} frames (asked for "
                         f"{asked[0]}x{asked[1]}: its nearest size)")
            else:
                self.say(f"camera {self.capture.target!r}: {given[0]}x{given[1]} frames")
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
                url: str | None = None, say: Callable[[str], None] = print, pattern: str = "*",
                newest: bool = True, camera_size: tuple[int, int] | None = None, window_s: float = 0.3) -> Any:
    """The frame source for the command's input option (exactly one given); ``newest``: a
    camera or URL yields only its newest frame each time (see :class:`Capture`), a video file
    or a folder always every frame; ``camera_size``: the frame size asked of a camera;
    ``window_s``: how long a position must stay still to be read, so that each photo of a
    folder is held long enough to be one (half a second at least)."""
    if images is not None:
        if not Path(images).is_dir():
            from tabletop.errors import InputError

            raise InputError("--images", f"{images} is a file, not a folder: give the folder the photos are in"
                             if Path(images).exists() else f"{images}: no such folder")
        return ImageFolder(images, pattern=pattern, hold_s=max(0.5, window_s + 0.2))
    if video is not None:
        if not Path(video).is_file():
            raise FileNotFoundError(f"{video}: no such video file")
        c = Capture(video).open()  # opened at once: a file that is no video is refused before anything starts
        if not c.isOpened():
            c.release()
            raise ConnectionError(f"cannot read the video {video} (not a video file OpenCV can open)")

        def once() -> Iterator[tuple[Any, float]]:  # a file ends; it is not reopened
            fps = c.get(5) or 30.0  # cv2.CAP_PROP_FPS
            count = int(c.get(7) or 0)  # cv2.CAP_PROP_FRAME_COUNT, 0 when the file does not say
            n = 0
            broken: list[int] = []  # frames that could not be decoded since the last good one
            try:
                while True:
                    ok, frame = c.read()
                    if not ok:
                        if n >= count or len(broken) >= BROKEN_RUN:  # the end of the file (or of what it says)
                            break
                        broken.append(n)  # a damaged frame: the frames after it are read on
                        n += 1
                        continue
                    if broken:
                        say(_broken_frames(video, broken))
                        broken = []
                    yield frame, n / fps
                    n += 1
                if broken:
                    say(_broken_frames(video, broken, at_end=True))
            finally:
                c.release()

        return once()
    if camera is not None:
        return Reopening(Capture(camera, newest=newest, size=camera_size), say)
    if url is not None:
        return Reopening(Capture(url, newest=newest), say)
    raise ValueError("one of --camera, --video, --images or --url is needed")


def _broken_frames(video: str, frames: list[int], at_end: bool = False) -> str:
    """The line said for a run of a video's ``frames`` (numbered from 0) that could not be decoded."""
    which = f"frame {frames[0] + 1}" if len(frames) == 1 else f"frames {frames[0] + 1}-{frames[-1] + 1}"
    return f"{video}: {which} could not be decoded, skipped" + (" (the end of the file is damaged)" if at_end else "")


def none_read(frames: int, *, video: str | None, images: str | None, started: tuple[str, ...] = ()) -> None:
    """Refuse a video or folder that gave no readable frame (``frames``; a camera or stream that gives none
    has already said why): the files ``started`` (a record or log this run began, holding only
    its header, and the record's event log) are removed, since nothing was played or seen."""
    if frames or not (video or images):
        return
    from tabletop.errors import InputError

    for path in started:
        Path(path).unlink(missing_ok=True)
    raise InputError("--video" if video else "--images",
                     f"no frame could be read from {video or images} (is it a video, or a folder of pictures?)")


def frames_folder(path: str | Path, flag: str = "--out") -> Path:
    """Make the folder ``path`` for annotated frames (and its parents), refusing in one line
    naming ``flag`` a file in its way or a place where it cannot be made."""
    from tabletop.errors import InputError

    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(flag, f"{path} is a file, not a folder: give a folder for the annotated frames") from None
    except OSError as err:
        raise InputError(flag, f"cannot make the folder {path}: {err.strerror or err}") from None
    return folder


def check_source_options(args: Any) -> None:
    """Refuse an option of one kind of source given with another, where it would be ignored:
    ``--camera-size`` is asked of a camera, ``--no-frame-drop`` matters for a camera or URL
    (a file is always read whole), ``--glob`` picks the files of ``--images``."""
    from tabletop.errors import InputError

    live = args.camera is not None or args.url is not None
    if args.camera_size is not None and args.camera is None:
        raise InputError("--camera-size", "only with --camera (a video, folder or stream comes at its own size)")
    if args.no_frame_drop and not live:
        raise InputError("--no-frame-drop", "only with --camera or --url (a video or folder is always read whole)")
    if args.glob != "*" and args.images is None:
        raise InputError("--glob", "only with --images (it picks the folder's files)")


def fitting_pose(source: Iterable[tuple[Any, float]], pose: Any) -> Iterator[tuple[Any, float]]:
    """``source``'s frames, the first readable one checked against the fixed ``pose`` (its
    picture's size: another size of the same shape is scaled, another shape is refused as bad
    input, an :class:`tabletop.errors.InputError` naming ``--pose``). The check is made at
    once, before this returns, so that nothing is written for a game that cannot be read: the
    frames it took to find a readable one are handed on first."""
    from calibration.errors import CalibrationError
    from tabletop.errors import InputError

    frames = iter(source)
    taken = []
    for frame, t in frames:
        taken.append((frame, t))
        if frame is not None and getattr(frame, "ndim", 0) >= 2:
            try:
                pose.for_frame((frame.shape[1], frame.shape[0]))
            except CalibrationError as err:
                raise InputError("--pose", str(err)) from None
            break
    return itertools.chain(taken, frames)

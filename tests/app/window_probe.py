"""Runs ``tabletop play`` with its window and acts at one frame (tests only; run as a script
under a virtual display by ``test_window.py``).

    python window_probe.py FRAME SHOT.xwd [KEY] -- PLAY-ARGUMENTS...

At the FRAME-th picture shown, once the window has painted it (the screen is grabbed with
``xwd`` into SHOT.xwd until the picture is on it, for up to 20 s: a loaded machine paints
late), then KEY (e.g. ``q``) is typed into the window with ``xdotool`` and read back through
the window's own key loop (for up to 20 s).
"""

from __future__ import annotations

import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def read_xwd(path: Path) -> np.ndarray:
    """A screen dump from ``xwd`` (ZPixmap, TrueColor or DirectColor, 24 or 32 bits per pixel)
    as a BGR image."""
    data = path.read_bytes()
    h = struct.unpack(">25I", data[:100])
    header, width, height, byte_order, bpp, bpl, ncolors = h[0], h[4], h[5], h[7], h[11], h[12], h[19]
    assert h[2] == 2 and bpp in (24, 32), f"unexpected xwd format {h[2]} with {bpp} bits per pixel"
    start = header + 12 * ncolors
    rows = np.frombuffer(data[start:start + bpl * height], np.uint8).reshape(height, bpl)
    px = rows[:, :width * (bpp // 8)].reshape(height, width, bpp // 8)
    if byte_order == 1:  # MSB first: X R G B
        px = px[:, :, ::-1]
    return np.ascontiguousarray(px[:, :, :3])


def on_screen(shot: str, img: np.ndarray) -> bool:
    """Whether the screen dump ``shot`` shows ``img`` (as painted, up to a few grey levels)."""
    import cv2

    screen = read_xwd(Path(shot))
    if screen.shape[0] < img.shape[0] or screen.shape[1] < img.shape[1]:
        return False
    return float(cv2.matchTemplate(screen, np.ascontiguousarray(img[:, :, :3]), cv2.TM_CCOEFF_NORMED).max()) > 0.99


def main(argv: list[str]) -> int:
    split = argv.index("--")
    frame, shot = int(argv[0]), argv[1]
    typed = argv[2] if split > 2 else ""
    play = argv[split + 1:]
    from tabletop.live import window

    original = window.Window.show
    seen = {"n": 0}

    def show(self: window.Window, img: object, wait_ms: int = 1) -> int | None:
        key = original(self, img, wait_ms)
        seen["n"] += 1
        if seen["n"] != frame:
            return key
        deadline = time.monotonic() + 20
        while True:
            for _ in range(15):  # let the window paint
                self.wait(20)
            subprocess.run(["xwd", "-root", "-silent", "-out", shot], check=True)
            if time.monotonic() > deadline or on_screen(shot, img):
                break
        if typed:
            subprocess.run(["xdotool", "search", "--name", self.title, "windowfocus", "--sync", "%1",
                            "key", "--clearmodifiers", typed], check=False, capture_output=True, timeout=20)
            typed_by = time.monotonic() + 20  # a loaded machine delivers the key late too
            while time.monotonic() < typed_by:
                key = self.wait(20)
                if key is not None:
                    return key
        return key

    window.Window.show = show  # type: ignore[method-assign]
    from tabletop.cli import main as tabletop

    return tabletop(play)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Runs ``tabletop play`` with its window and acts at one frame (tests only; run as a script
under a virtual display by ``test_window.py``).

    python window_probe.py FRAME SHOT.xwd [KEY] -- PLAY-ARGUMENTS...

At the FRAME-th picture shown, once the window has painted, the screen is grabbed with
``xwd`` into SHOT.xwd; then KEY (e.g. ``q``) is typed into the window with ``xdotool`` and
read back through the window's own key loop.
"""

from __future__ import annotations

import subprocess
import sys


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
        for _ in range(15):  # let the window paint
            self.wait(20)
        subprocess.run(["xwd", "-root", "-silent", "-out", shot], check=True)
        if typed:
            subprocess.run(["xdotool", "search", "--name", self.title, "windowfocus", "--sync", "%1",
                            "key", "--clearmodifiers", typed], check=False, capture_output=True, timeout=20)
            for _ in range(50):
                key = self.wait(20)
                if key is not None:
                    return key
        return key

    window.Window.show = show  # type: ignore[method-assign]
    from tabletop.cli import main as tabletop

    return tabletop(play)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``tabletop render``: write a labelled dataset of camera views of a game.

    tabletop render GAME --count N --out DIR [--seed S] [--size 640x480] [--hands 0.3]

The renderer itself lives in :mod:`vision.render`; this module reads the command line,
checks it (one line and exit status 2 for bad input), hands the renderer the game record
bundled with tabletop as a source of positions, and shows a progress bar on standard error.
docs/rendering.md describes the dataset.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tabletop.argtypes import frame_size, share, whole
from tabletop.errors import InputError

__all__ = ["ProgressBar", "add_render_parser", "parse_size", "run_render"]

MAX_COUNT = 10_000_000


def parse_size(text: str) -> tuple[int, int] | None:
    """``"640x480"`` -> (640, 480); ``"random"`` -> ``None`` (sizes from 640x480 to 1920x1080).

    >>> parse_size("1280x720"), parse_size("random")
    ((1280, 720), None)
    """
    if text.strip().lower() == "random":
        return None
    return frame_size(text, "such as 640x480, or 'random'")


def add_render_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], parser_class: type,
                      exit_text: str) -> argparse.ArgumentParser:
    """Register ``render`` on the ``tabletop`` subparsers."""
    render = commands.add_parser(
        "render",
        help="render a labelled dataset of camera views of a game (for training detectors)",
        description=(
            "Render camera views of legal positions of GAME (from its rules engine: random playouts\n"
            "and the game record bundled with tabletop) with the game's printable kit, and write an\n"
            "ultralytics dataset: data.yaml, images/, labels/ (YOLO; YOLO pose with the front dot as\n"
            "keypoint for The Game) and truth/ (per image: the position in the engine's JSON, the\n"
            "camera, the board homography, every piece). The same seed gives the same files."
        ),
        formatter_class=formatter,
        epilog=(
            "examples:\n"
            "  tabletop render oneworld --count 1000 --out runs/oneworld --seed 1\n"
            "  tabletop render the-game --count 200 --out runs/field --size random --hands 0.5\n\n"
            "More in docs/rendering.md.\n\n" + exit_text
        ),
    )
    render.add_argument("game", metavar="GAME", help="the game's short name, e.g. oneworld (see 'tabletop games')")
    render.add_argument("--count", type=whole("images", 1, MAX_COUNT, "the count"), required=True, metavar="N", help="how many images to render")
    render.add_argument("--out", required=True, metavar="DIR", help="the dataset folder (created; must be empty)")
    render.add_argument("--seed", type=whole("", 0, 2**32 - 1, "the seed"), default=0, metavar="S", help="the seed (default 0)")
    render.add_argument("--size", type=parse_size, default=(640, 480), metavar="WxH",
                        help="image size, or 'random' for sizes from 640x480 to 1920x1080 (default 640x480)")
    render.add_argument("--hands", type=share(), default=0.3, metavar="SHARE",
                        help="share of images with hands over the table (default 0.3)")
    render.add_argument("--val", type=share(), default=0.1, metavar="SHARE",
                        help="share of images for validation (default 0.1; every 1/SHARE-th image)")
    render.add_argument("--laid-out", type=share(), default=0.0, metavar="SHARE",
                        help="share of stacks laid out side by side instead (OneWorld's children, as players "
                             "lay them out to reveal a combat round; default 0)")
    render.add_argument("--workers", type=whole("processes", 1, 64, "workers"), default=1, metavar="N",
                        help="render in N processes (default 1; the files are the same)")
    render.add_argument("--force", action="store_true", help="write into a folder that already holds files")
    render.set_defaults(run=run_render)
    return render


class ProgressBar:
    """A one-line progress bar on a terminal; a line every tenth of the way otherwise."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 28) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.began = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.began
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        if self.tty:
            filled = int(self.width * done / total)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total} {rate:5.1f} img/s  ETA {left:5.0f} s ")
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
            return
        tenth = done * 10 // total
        if tenth != self._last_tenth or done == total:
            self._last_tenth = tenth
            self.stream.write(f"{self.label}: {done}/{total} ({rate:.1f} img/s, about {left:.0f} s left)\n")
            self.stream.flush()


def _check_out(folder: Path, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise InputError("--out", f"{folder} is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise InputError("--out", f"{folder} is not empty: choose a new folder, or add --force to write into it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".tabletop-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise InputError("--out", f"cannot write to {folder}: {err.strerror or err}") from None


def run_render(args: argparse.Namespace, out: TextIO) -> int:
    """Render ``args.count`` images of ``args.game`` into ``args.out``."""
    from rules.registry import get_game

    get_game(args.game)  # an unknown game: one line, exit 2 (RulesError)
    try:
        from vision.artwork import ArtworkError, get_kit
        from vision.render import RenderOptions
        from vision.render.dataset import write_dataset
    except ImportError as err:  # pragma: no cover - a broken install
        raise InputError("render", f"the renderer cannot be loaded: {err}") from None
    try:
        get_kit(args.game)
    except ArtworkError as err:
        raise InputError("GAME", str(err)) from None
    folder = Path(args.out)
    _check_out(folder, args.force)
    record = _bundled_record_text(args.game)
    options = RenderOptions(size=args.size, hands=args.hands, laid_out=args.laid_out)
    val_every = round(1 / args.val) if args.val > 0 else 0
    bar = ProgressBar(f"rendering {args.game}")
    try:
        summary = write_dataset(args.game, folder, args.count, seed=args.seed, options=options, record=record,
                                val_every=val_every, workers=args.workers, progress=bar)
    except OSError as err:
        raise InputError("--out", f"cannot write to {folder}: {err.strerror or err}") from None
    size = "random sizes" if args.size is None else f"{args.size[0]}x{args.size[1]}"
    out.write(
        f"{summary['count']} images of {args.game} ({size}, seed {args.seed}) in {summary['seconds']:.1f} s "
        f"({summary['images_per_second']} img/s)\n"
        f"dataset: {summary['yaml']}\n"
    )
    return 0


def _bundled_record_text(game: str) -> str | None:
    from tabletop.records import BUNDLED_PACKAGE, SUFFIX, bundled_record_names

    if game not in bundled_record_names():
        return None
    from importlib import resources

    return (resources.files(BUNDLED_PACKAGE) / f"{game}{SUFFIX}").read_text(encoding="utf-8")


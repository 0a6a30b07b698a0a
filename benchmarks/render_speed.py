"""Benchmark: rendered images per second at 640x480, per game.

Each game's renderer is built as ``tabletop render`` builds it (the bundled game record as a
source of positions, 30 % of images with hands), warmed up (the texture bank and the noise
bank are made once per process and kept: ``Renderer.warm_up``, a few seconds) and on a few
images (the kit's drawings, also kept), then
times the full making of N images: a position from the engine, the scene, the camera view,
the composite, the sensor effects, the JPEG, the YOLO labels and the ground-truth JSON,
written to a temporary folder. One process, one image at a time. Target: at least 20
images a second for every game.

With ``--workers N`` it also times a whole dataset of the same size made the way
``tabletop render --workers N`` makes it (process start-up and warm-up included).

Run from the repository root:
``python3 benchmarks/render_speed.py [--count N] [--games a,b] [--workers N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.rendering import _bundled_record_text
from vision.render import Renderer, RenderOptions
from vision.render.dataset import _prepare, split_of, write_dataset, write_sample

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
TARGET = 20.0
WARM_UP = 8


def measure(game: str, count: int, folder: Path) -> tuple[float, float, float]:
    """Images per second of wall-clock time and of this process's CPU time over ``count``
    images, and the slowest image in ms."""
    renderer = Renderer(game, seed=1, options=RenderOptions(size=(640, 480), hands=0.3),
                        record=_bundled_record_text(game))
    renderer.warm_up()  # the texture and noise banks, made once per process
    for i in range(WARM_UP):
        renderer.render(10_000 + i)
    times = []
    began, cpu = time.perf_counter(), time.process_time()
    for i in range(count):
        t = time.perf_counter()
        write_sample(folder, split_of(i, 10), f"{game}-{i:06d}", renderer.render(i))
        times.append(time.perf_counter() - t)
    total, cpu = time.perf_counter() - began, time.process_time() - cpu
    return count / total, count / cpu, max(times) * 1000


def measure_workers(game: str, count: int, workers: int, folder: Path) -> float:
    """Images per second of wall-clock time for ``tabletop render --workers N`` as a user
    runs it: worker start-up and warm-up included."""
    began = time.perf_counter()
    write_dataset(game, folder / f"{game}-w{workers}", count, seed=1,
                  options=RenderOptions(size=(640, 480), hands=0.3), record=_bundled_record_text(game),
                  workers=workers)
    return count / (time.perf_counter() - began)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=120, help="images timed per game (default 120)")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default: all five)")
    parser.add_argument("--workers", type=int, default=0,
                        help="also time a whole dataset of --count images made with this many processes")
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"render speed at 640x480: {args.count} images per game after {WARM_UP} warm-up images, "
          f"one process (target: {TARGET:g} images a second)")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} at the start (other work slows the "
          "wall-clock figure; the CPU figure counts only this process's own time, all its threads)")
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _prepare(folder)
        for game in games:
            rate, cpu_rate, slowest = measure(game, args.count, folder)
            rates.append(rate)
            verdict = "met" if rate >= TARGET else "NOT met"
            print(f"  {game:18s} {rate:6.1f} images/s wall clock, {cpu_rate:6.1f} per CPU-second "
                  f"(slowest image {slowest:4.0f} ms)   target {verdict}")
            if args.workers > 1:
                wrate = measure_workers(game, args.count, args.workers, folder)
                print(f"  {'':18s} {wrate:6.1f} images/s with --workers {args.workers} (start-up included)")
    if rates:
        print(f"  {'all games':18s} {statistics.mean(rates):6.1f} images/s on average, slowest game "
              f"{min(rates):.1f} images/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

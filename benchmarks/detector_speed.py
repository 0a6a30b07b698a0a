"""Detector time per 640x480 frame: ultralytics, ONNX Runtime and OpenVINO side by side.

    python3 benchmarks/detector_speed.py [--frames 40] [--repeat 3] [--threads 2] [--imgsz N]
                                         [--backend B] [--size WxH] [GAME_OR_WEIGHTS ...]

For each model (default: every shipped one) it renders ``--frames`` 640x480 frames (``--size``:
a camera with more pixels, the same views) of the model's game with a fixed seed (weights given by path are timed on OneWorld frames), loads
the model once per backend, runs 5 warm-up frames, then times ``Detector.detect`` (the
whole call: letterbox, inference, decoding, non-maximum suppression, conversion to
``Detections``) over every frame ``--repeat`` times, with ``time.perf_counter``. It prints
the median, mean and 95th percentile in milliseconds per backend, the load average, and how
many boxes each backend agrees on with ultralytics (the same class and IoU >= 0.9), against
the target of 60 ms. Every size a grid game may be read at is made before the timing, as
``tabletop play`` makes them at start-up (a compile there is not a frame's time). Each frame
is another camera view: a frame whose pieces need another size than the last is read twice
(at the last size, then at its own); The Game's frames are read twice, as they are and
mirrored (vision/detect.py). A camera held still is read once a frame; the median of
the frames read once is printed too (``once``). Torch is limited to ``--threads`` threads (default: 2, the cores of the
development machine); ONNX Runtime and OpenVINO use every core, at most 8, as tabletop does. A grid game's frames are read at the size their pieces
need, as its recipe says (``--imgsz N``: every frame at N); the sizes used are printed.
docs/models.md records the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tabletop.argtypes import frame_size

TARGET_MS = 60.0


def frames_for(game: str, count: int, seed: int = 20261120,  # type: ignore[type-arg]
               size: tuple[int, int] = (640, 480)) -> list:
    from vision.render import Renderer, RenderOptions

    renderer = Renderer(game, seed=seed, options=RenderOptions(size=size))
    return [renderer.render(i).image for i in range(count)]


def time_backend(weights: str, backend: str, frames: list, repeat: int,  # type: ignore[no-untyped-def,type-arg]
                 imgsz: int | None = None):
    from vision.detect import Detector

    began = time.perf_counter()
    detector = Detector.load(weights, backend, **({"imgsz": imgsz} if imgsz else {}))
    detector.prepare()
    load_s = time.perf_counter() - began
    for f in frames[:5]:
        detector.detect(f)
    times, once, results = [], [], []
    for r in range(repeat):
        for f in frames:
            t = time.perf_counter()
            found = detector.detect(f)
            times.append((time.perf_counter() - t) * 1000)
            if detector.reads_last_frame == 1 + detector.mirror:  # at the size the frame before was read at
                once.append(times[-1])
            if r == 0:
                results.append(found)
    return detector, load_s, times, once, results


def agreement(a: list, b: list) -> tuple[int, int]:  # type: ignore[type-arg]
    from vision.detect_eval import box_iou

    same = total = 0
    for x, y in zip(a, b):
        total += max(len(x), len(y))
        if len(x) and len(y):
            iou = box_iou(x.xyxy, y.xyxy)
            iou[x.class_id[:, None] != y.class_id[None, :]] = 0
            same += int((iou.max(axis=1) >= 0.9).sum())
    return same, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="games or weight files (default: every shipped model)")
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--imgsz", type=int, help="read every frame at this size (default: as each model's recipe "
                        "says: a grid game's frames at the size their pieces need)")
    parser.add_argument("--backend", choices=("ultralytics", "onnx", "openvino"), action="append",
                        help="time this backend only (may be repeated)")
    parser.add_argument("--size", type=frame_size, default=(640, 480), metavar="WxH",
                        help="the frames' size (default 640x480, the target's; 1280x960: a camera with more pixels)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    torch.set_num_threads(args.threads)
    import models

    names = args.models or models.available()
    if not names:
        print("no shipped models and none given")
        return 1
    backends = args.backend or ["ultralytics", "onnx", "openvino"]
    for backend, module in (("onnx", "onnxruntime"), ("openvino", "openvino")):
        try:
            __import__(module)
        except ImportError:
            if backend in backends:
                backends.remove(backend)
                print(f"{module} is not installed: {backend} is not timed (pip install {module} onnx)")
    print(f"{args.frames} frames x {args.repeat}, {args.size[0]}x{args.size[1]}, {args.threads} threads, "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{'model':<22}{'backend':<13}{'median':>9}{'mean':>9}{'p95':>9}{'once':>9}{'load s':>9}  "
          f"target {TARGET_MS:.0f} ms")
    for name in names:
        game = name if not Path(name).suffix else "oneworld"
        frames = frames_for(game, args.frames, size=args.size)
        found = {}
        for backend in backends:
            detector, load_s, times, once, results = time_backend(name, backend, frames, args.repeat, args.imgsz)
            found[backend] = results
            q = statistics.quantiles(times, n=20)[-1]
            verdict = "met" if statistics.median(times) <= TARGET_MS else "missed"
            sizes = ", ".join(f"{n}: {k}" for n, k in sorted(detector.sizes_used.items()))
            single = f"{statistics.median(once):>8.1f}" if once else f"{'-':>8}"
            print(f"{Path(name).name:<22}{backend:<13}{statistics.median(times):>8.1f} {statistics.mean(times):>8.1f} "
                  f"{q:>8.1f} {single} {load_s:>8.1f}  {verdict}  (frames read at px: {sizes}; "
                  f"{len(once)} of {len(times)} read once)")
        for other in sorted(found.keys() - {"ultralytics"}) if "ultralytics" in found else ():
            same, total = agreement(found["ultralytics"], found[other])
            print(f"{'':<22}boxes {other} and ultralytics agree on: {same}/{total}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""OneWorld's cells read with and without the stack reader, at several of its settings.

    python3 benchmarks/stack_reader.py --data DIR [--frames 200] [--reader R] [--sure 0.4 0.5 0.6]
                                       [--touching 0.25 0.35 0.45] [--json]

``DIR``: rendered OneWorld frames with their truth (``tabletop render oneworld --count 200
--seed 3001 --val 0 --out DIR``). The shipped detector (its piece reader with it) reads each
frame once, as ``tabletop eval`` does; the cells are then scored (``vision.detect_eval``:
per cell, whole board, what the wrong cells are) as they are without a stack reader, and with
the reader ``R`` (default the shipped ``models/oneworld.stacks.pt``) at each pair of
``--sure`` (``vision.stack_reader.SURE_COUNT``: how sure of a count the reader must be for
boxes beyond it to be dropped) and ``--touching`` (``STACK_IOU``: how much two boxes overlap
to be one stack). The shipped settings were chosen so, on seed 3001, and measured on 1001.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="rendered OneWorld frames with truth/")
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--reader", help="a stack reader file (default: the shipped one)")
    parser.add_argument("--sure", type=float, nargs="+", default=[0.4, 0.5, 0.6])
    parser.add_argument("--touching", type=float, nargs="+", default=[0.25, 0.35, 0.45])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import cv2
    import numpy as np

    import models
    from vision.detect import CONF, Detector
    from vision.detect_eval import MAP_CONF, evaluate, load_samples
    from vision.stack_reader import StackReader, settled, stacks_path

    samples = [s for s in load_samples(Path(args.data)) if s.truth is not None][: args.frames]
    if not samples:
        parser.error(f"{args.data}: no rendered frames with truth/")
    reader = StackReader.load(args.reader or stacks_path(models.weights_path("oneworld")))
    detector = Detector.load("oneworld", conf=MAP_CONF)
    detector.stacks = None  # the raw reading; the reader is applied below
    hands = [i for i, n in enumerate(detector.names) if n == "hand"]
    read = []
    began = time.perf_counter()
    for s in samples:
        frame = cv2.imread(str(s.image), cv2.IMREAD_COLOR)
        det = detector.detect(frame)
        counters = (det.confidence >= CONF) & ~np.isin(det.class_id, hands)
        read.append((frame, det, counters))
    seconds = time.perf_counter() - began

    def score(sure: float | None, touching: float) -> dict[str, object]:
        frames = iter(read)
        spent = [0.0]

        def detect(_: object) -> object:
            frame, det, counters = next(frames)
            if sure is None:
                return det
            t = time.perf_counter()
            keep = settled(reader, frame, det.xyxy, det.confidence, counters, sure=sure, touching=touching)
            spent[0] += time.perf_counter() - t
            return det[keep]

        report = evaluate("oneworld", samples, detect, detector.names)
        return {"sure": sure, "touching": None if sure is None else touching,
                "cell": round(report.cell_accuracy, 5), "board": round(report.board_accuracy, 4),
                "wrong": dict(sorted(Counter(report.cell_errors).items())),
                "reader_ms": round(1000 * spent[0] / len(samples), 2)}

    rows = [score(None, 0.0)] + [score(a, b) for a, b in itertools.product(args.sure, args.touching)]
    if args.json:
        print(json.dumps({"frames": len(samples), "detector_s": round(seconds, 1), "rows": rows}))
        return 0
    print(f"{len(samples)} frames of {args.data}; detector {seconds / len(samples) * 1000:.0f} ms a frame")
    print(f"{'reader':>18}  {'per cell':>8}  {'board':>6}  {'ms':>5}  wrong cells")
    for r in rows:
        name = "none" if r["sure"] is None else f"sure {r['sure']:.2f} iou {r['touching']:.2f}"
        wrong = ", ".join(f"{k} {v}" for k, v in r["wrong"].items())  # type: ignore[union-attr]
        print(f"{name:>18}  {100 * r['cell']:7.2f}%  {100 * r['board']:5.1f}%  {r['reader_ms']:5.2f}  {wrong}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

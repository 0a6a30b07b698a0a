"""Benchmark: the live referee's move reading with a simulated weak detector, every game.

Each bundled sample turn is fed to :class:`tabletop.live.pipeline.LivePipeline` (5 frames per
image, 10 fps, the sample's true board pose) with detections made from the ground truth and
spoilt at random, as the shipped nano detectors spoil them: each piece missed with
probability ``miss``, read as another class of its side with probability ``swap``, read twice
(a second, less sure box of another class) with probability ``double``, and each hand missed
with probability ``hand``. Noise is drawn per image (a still camera: the same boxes for the
image's 5 frames, as ``tabletop play --images`` gives) or per frame (a video, each image
held 1.5 s: 15 frames).

A run counts as right when the verdict codes are the manifest's and nothing else is said (no
extra move, impossible position or unreadable move). Prints, per game and noise level, the
share of 40 seeded runs that are right. Results in docs/benchmarks.md.

Run from the repository root: ``nice -n 10 python3 benchmarks/live_reading_noise.py``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np

import sample_images
from benchmarks.live_reading import parse_games
from rules.registry import get_game
from tabletop.live.board import BoardMapper
from tabletop.live.explain import side_of
from tabletop.live.pipeline import FrameView, LivePipeline, Rolls
from vision.detect_cells import FrameGeometry
from vision.detections import Detections

LEVELS = {  # miss, swap, double, hand
    "clean": (0.0, 0.0, 0.0, 0.0),
    "light": (0.04, 0.08, 0.03, 0.2),
    "nano": (0.08, 0.15, 0.05, 0.4),
    "heavy": (0.15, 0.25, 0.08, 0.6),
}
RUNS = 40
DICE = ("die-", "d6-", "chess-", "hero-", "hand")


def _spoil(truth: dict[str, Any], rng: np.random.Generator, level: tuple[float, float, float, float]) -> Detections:
    miss, swap, double, hand = level
    classes = [c for c in truth["classes"] if not c.startswith(DICE)]
    boxes, names, conf = [], [], []
    for p in truth["pieces"]:
        if not p.get("in_labels"):
            continue
        cls = p["class"]
        if not cls.startswith(DICE) and p.get("cell") is not None:
            if rng.random() < miss:
                continue
            others = [c for c in classes if c != cls and side_of(c) == side_of(cls)]
            if others and rng.random() < swap:
                cls = others[int(rng.integers(len(others)))]
            if others and rng.random() < double:
                w = p["box"][2] - p["box"][0]
                boxes.append([b + 0.05 * w for b in p["box"]])  # one object, two boxes: nearly the same
                names.append(others[int(rng.integers(len(others)))])
                conf.append(0.3)
        boxes.append(p["box"])
        names.append(cls)
        conf.append(0.6)
    for h in truth.get("hands", []):
        if rng.random() >= hand:
            boxes.append(h["box"])
            names.append("hand")
            conf.append(0.6)
    if not boxes:
        return Detections.empty()
    n = len(boxes)
    return Detections(np.array(boxes, float), np.array(conf), np.zeros(n, int), np.full(n, np.nan),
                      np.zeros((n, 1, 3)), class_name=np.array(names, dtype=object))


def _view(truth: dict[str, Any]) -> FrameView:
    return FrameView(FrameGeometry.from_truth(truth), np.array(truth["board"]["corners_in_image"], float), "truth")


def run(game: str, level: tuple[float, float, float, float], seed: int, per_frame: bool) -> bool:
    m = json.loads(sample_images.sequence(game).read_text())
    truths = [json.loads((sample_images.folder() / f["truth"]).read_text()) for f in m["frames"]]
    engine = get_game(game, m["options"])
    mapper = BoardMapper.for_game(game, truths[0]["position"], m["options"], tuple(truths[0]["board"]["size"]))
    rng = np.random.default_rng(seed)
    rolls = [r for mv in m["moves"] for r in mv["rolls"]]
    pipe = LivePipeline(engine, engine.state_from_json(m["start"]), lambda _f: Detections.empty(),
                        lambda _f: None, mapper, rolls=Rolls(rolls))
    t = 0.0
    for truth in truths:
        det = _spoil(truth, rng, level)
        view = _view(truth)
        for _ in range(15 if per_frame else 5):
            if per_frame:
                det = _spoil(truth, rng, level)
            pipe.detect = lambda _f, d=det: d
            pipe.locate = lambda _f, v=view: v
            pipe.process(truth, t)
            t += 0.1
    codes = []  # the verdicts read, a reading repeated in a row (the same position voted again) once
    for r in pipe.readings:
        if r.kind in ("legal", "illegal") and (not codes or codes[-1] != (r.verdict.code, str(r.action_json))):
            codes.append((r.verdict.code, str(r.action_json)))
    codes = [c for c, _ in codes]
    said = [k for k, text in pipe.announced if k in ("legal", "illegal") or text.startswith("Cannot")]
    want = [mv["verdict"]["code"] for mv in m["moves"]]
    return codes == want and len(said) == len(m["moves"]) + sum(len(mv["before"]) for mv in m["moves"])


def main(games: list[str]) -> None:
    print(f"right runs of {RUNS} (verdicts as the manifest, nothing else said)")
    print(f"{'game':18s} {'noise':6s} {'per image':>10s} {'per frame':>10s}")
    for game in games:
        for name, level in LEVELS.items():
            img = sum(run(game, level, s, False) for s in range(RUNS))
            vid = sum(run(game, level, s, True) for s in range(RUNS))
            print(f"{game:18s} {name:6s} {img:>7d}/{RUNS} {vid:>7d}/{RUNS}", flush=True)
    print("noise levels (miss, swap, double, hand missed):", {k: v for k, v in LEVELS.items()})


if __name__ == "__main__":
    main(parse_games(sys.argv[1:], __doc__))

"""Test doubles for the live referee, built from the sample sequences' ground truth (tests only).

A "frame" here is a frame's ground-truth dict; the detector double turns it into
:class:`~vision.detections.Detections` (every labelled piece and hand, as a perfect detector
would), and the pose double gives the truth's board geometry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import sample_images
from rules.registry import get_game
from tabletop.live.board import BoardMapper
from tabletop.live.pipeline import FrameView, LivePipeline, Rolls
from vision.detect_cells import FrameGeometry
from vision.detections import Detections, facing_from_keypoints

SAMPLES = Path(sample_images.__file__).parent
GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")


def manifest(game: str) -> dict[str, Any]:
    return json.loads(sample_images.sequence(game).read_text())


def truth_frames(game: str) -> list[dict[str, Any]]:
    m = manifest(game)
    return [json.loads((SAMPLES / f["truth"]).read_text()) for f in m["frames"]]


def truth_detections(truth: dict[str, Any], drop: set[str] = frozenset()) -> Detections:  # type: ignore[assignment]
    boxes, names, facing, kps = [], [], [], []
    conf, faces = [], []
    for p in truth["pieces"]:
        if p.get("in_labels") and p["class"] not in drop:
            boxes.append(p["box"])
            names.append(p["class"])
            conf.append(p.get("confidence", 0.9))  # a noisy double may set its own
            faces.append(p.get("face_confidence", np.nan))  # and a die's, as a face reader reads it
            kp = p.get("keypoint")
            kps.append([[0.0, 0.0, 0.0]] if kp is None else [kp])
            facing.append(np.nan if kp is None else facing_from_keypoints(
                np.array([p["box"]], float), np.array([[kp]], float))[0])
    for h in truth.get("hands", []):
        boxes.append(h["box"])
        names.append("hand")
        conf.append(0.9)
        faces.append(np.nan)
        facing.append(np.nan)
        kps.append([[0.0, 0.0, 0.0]])
    n = len(boxes)
    if not n:
        return Detections.empty()
    xyxy = np.array(boxes, float).reshape(-1, 4)
    face_confidence = np.array(faces, float) if np.isfinite(faces).any() else None
    return Detections(xyxy, np.array(conf, float), np.zeros(n, int), np.array(facing, float),
                      np.array(kps, float), class_name=np.array(names, dtype=object), face_confidence=face_confidence)


def truth_view(truth: dict[str, Any]) -> FrameView | None:
    if truth.get("board") is None:
        return None
    geo = FrameGeometry.from_truth(truth)
    poly = np.array(truth["board"]["corners_in_image"], float)
    return FrameView(geo, poly, "truth")


def pipeline(game: str, *, rolls: list[int] | None = None, audio: Any = None, record: Any = None,
             state: Any = None, window_s: float = 0.3) -> tuple[LivePipeline, dict[str, Any]]:
    m = manifest(game)
    engine = get_game(game, m["options"])
    first = truth_frames(game)[0]
    mapper = BoardMapper.for_game(game, first["position"], m["options"], tuple(first["board"]["size"]))
    if rolls is None:
        rolls = [r for mv in m["moves"] for r in mv["rolls"]]
    pipe = LivePipeline(engine, state if state is not None else engine.state_from_json(m["start"]),
                        truth_detections, truth_view, mapper, audio=audio, record=record,
                        rolls=Rolls(rolls), window_s=window_s)
    return pipe, m


def feed(pipe: LivePipeline, frames: list[Any], t0: float = 0.0, repeat: int = 5, dt: float = 0.1) -> float:
    """Each frame shown ``repeat`` times, ``dt`` seconds apart (a still camera at 1/dt fps)."""
    t = t0
    for f in frames:
        for _ in range(repeat):
            pipe.process(f, t)
            t += dt
    return t

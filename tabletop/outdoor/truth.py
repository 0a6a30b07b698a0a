"""A rendered frame's ground truth as the outdoor assistant's inputs and answers.

The renderer (:mod:`vision.render`) writes, for every The Game frame, the engine position
and each piece's box and front dot in the picture. From them: the detections a perfect
detector would give (:func:`detections_from_truth`, optionally with the box and dot jitter
of a real one), the camera calibration of the lens that took the frame, and the engine's
pieces as they really stand (:func:`truth_pieces`), to score readings against.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rules.the_game.model import Piece
from tabletop.outdoor.assistant import pair_nearest
from vision.detections import Detections

__all__ = ["detections_from_truth", "match_readings", "truth_calibration", "truth_pieces", "visible_ids"]


def visible_ids(truth: Mapping[str, Any]) -> set[str]:
    """The pieces a detector is asked to find on the ground (those with a label: seen enough,
    in frame; not one a hand is lifting)."""
    return {p["piece"] for p in truth.get("pieces", [])
            if p.get("in_labels") and p.get("piece") and not p.get("held")}


def match_readings(pieces: Mapping[str, Piece], readings: Sequence[Any], within: float = 1.5) -> dict[str, int]:
    """Each true piece's reading (its index in ``readings``): same side, nearest centres
    first, at most ``within`` inches apart, each reading once."""
    ids = list(pieces)
    pairs = pair_nearest([(pieces[pid].side, pieces[pid].at) for pid in ids], [(q.side, q.centre) for q in readings],
                         within)
    return {ids[i]: k for i, k in pairs.items()}


def detections_from_truth(truth: Mapping[str, Any], rng: np.random.Generator | None = None,
                          box_px: float = 0.0, dot_px: float = 0.0, calibration: Any = None) -> Detections:
    """The labelled pieces on the ground, and the hands, as detections (confidence 1): exact, or with Gaussian jitter of
    ``box_px`` on each box edge and ``dot_px`` on the dot when ``rng`` is given. The labels
    are pixels of the frame as the lens took it; with ``calibration`` (the frames are read
    undistorted) each box is the box round its corners undistorted, and each dot undistorted."""
    rows = [p for p in truth.get("pieces", []) if p.get("in_labels") and p.get("keypoint") and not p.get("held")]
    hands = [h for h in truth.get("hands", []) if h.get("box")]
    if not rows and not hands:
        return Detections.empty()
    xyxy = np.array([p["box"] for p in rows] + [h["box"] for h in hands], float).reshape(-1, 4)
    kp = np.array([[[p["keypoint"][0], p["keypoint"][1], 1.0]] for p in rows] + [[[0.0, 0.0, 0.0]]] * len(hands),
                  float).reshape(-1, 1, 3)
    if calibration is not None:
        size = tuple(truth.get("image_size") or calibration.image_size)
        x0, y0, x1, y1 = xyxy.T
        corners = np.stack([np.c_[x0, y0], np.c_[x1, y0], np.c_[x1, y1], np.c_[x0, y1]], axis=1).reshape(-1, 2)
        flat = np.asarray(calibration.undistort_points(corners, size), float).reshape(-1, 4, 2)
        xyxy = np.c_[flat[:, :, 0].min(axis=1), flat[:, :, 1].min(axis=1), flat[:, :, 0].max(axis=1),
                     flat[:, :, 1].max(axis=1)]
        if len(rows):
            kp[: len(rows), 0, :2] = np.asarray(calibration.undistort_points(kp[: len(rows), 0, :2], size), float)
    if rng is not None:
        xyxy[: len(rows)] += rng.normal(0, box_px, (len(rows), 4))
        kp[: len(rows), :, :2] += rng.normal(0, dot_px, (len(rows), 1, 2))
    names = np.array([p["class"] for p in rows] + ["hand"] * len(hands), dtype=object)
    classes = list(truth.get("classes") or [])
    hand_id = classes.index("hand") if "hand" in classes else 2
    ids = np.array([int(p.get("class_id", 0)) for p in rows] + [hand_id] * len(hands), int)
    return Detections(xyxy, np.ones(len(names)), ids, None, kp, names)


def truth_pieces(truth: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> list[Piece]:
    """The engine's standing pieces of the frame's position that stand on the ground (a piece
    a hand is lifting is left out), idleness cleared: a camera sees only where pieces stand
    and face."""
    from dataclasses import replace

    from rules.the_game.codec import state_from_json
    from rules.the_game.options import TheGameOptions

    opts = TheGameOptions.from_json(dict(options or truth.get("position_source", {}).get("options") or {}))
    state = state_from_json(truth["position"], opts)
    lifted = {p.get("piece") for p in truth.get("pieces", []) if p.get("held")}
    return [replace(p, idle=0, busy=True) for p in state.pieces if p.in_play and p.id not in lifted]


def truth_calibration(truth: Mapping[str, Any]) -> Any:
    """The camera calibration of the lens that took the frame (as ``tabletop calibrate
    camera`` would measure it)."""
    from calibration.camera import CameraCalibration

    cam = truth["camera"]
    return CameraCalibration(np.array(cam["intrinsics"], float), np.array(cam["distortion"], float),
                             tuple(truth["image_size"]), rms=0.0)

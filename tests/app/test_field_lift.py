"""The live referee reads The Game's pieces where they stand, not where their box centres
meet the ground: on the sample turn's frames, with the labelled boxes and dots."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import truth_detections, truth_frames, truth_view

from tabletop.live.board import BoardMapper


def _errors(image_size: tuple[int, int] | None) -> tuple[list[float], list[float]]:
    """Distance (inches) and facing (degrees) errors of every labelled piece of the sample
    frames without a hand."""
    dist: list[float] = []
    turn: list[float] = []
    for f in truth_frames("the-game"):
        if f.get("hands"):
            continue
        mapper = BoardMapper.for_game("the-game", f["position"], {}, tuple(f["board"]["size"]))
        seen = mapper.map(truth_detections(f), truth_view(f).geometry, None, image_size and tuple(f["image_size"]))
        for p in f["pieces"]:
            if not p["in_labels"]:
                continue
            got = min(seen.pieces, key=lambda q: math.dist(q.point, p["board"]))
            dist.append(math.dist(got.point, p["board"]))
            if got.facing is not None:
                turn.append(abs((got.facing - p["extra"]["facing"] + 180) % 360 - 180))
    return dist, turn


def test_pieces_are_read_where_they_stand() -> None:
    lifted, facings = _errors((1, 1))
    centres, _ = _errors(None)
    assert len(lifted) == len(centres) > 0
    assert np.median(lifted) < 0.25  # the distance target, for exact boxes
    assert np.median(lifted) < 0.5 * np.median(centres)
    assert facings and np.median(facings) <= 10.0

"""benchmarks/outdoor.py: the pieces to find are told apart by how much of each the picture
shows, from the renderer's labels of its frames."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import outdoor  # noqa: E402 (from benchmarks/, put on the path above)

from tabletop.outdoor.truth import visible_ids  # noqa: E402


def test_pieces_to_find_are_told_apart_by_how_much_of_them_is_in_sight():
    assert outdoor._sight({"under_hand": True, "visible": 0.9}) == "hand"
    assert outdoor._sight({"under_hand": False, "visible": outdoor.HIDDEN - 0.01}) == "hidden"
    assert outdoor._sight({"under_hand": False, "visible": outdoor.HIDDEN}) == "clear"
    seen: dict[str, int] = {}
    for i, out in outdoor.render_frames(2026, (640, 360)):
        labels = {p["piece"]: p for p in out.truth["pieces"] if p.get("piece")}
        for pid in visible_ids(out.truth):
            kind = outdoor._sight(labels[pid])
            seen[kind] = seen.get(kind, 0) + 1
            if kind == "hand":  # a piece under a hand is in a frame with a hand
                assert out.truth.get("hands")
        if len(seen) == 3 or i >= 60:
            break
    assert set(seen) == set(outdoor.SIGHT), seen
    assert seen["clear"] > seen["hand"] and seen["clear"] > seen["hidden"]


def test_the_game_benchmark_follows_every_sample_given(monkeypatch, capsys):
    """benchmarks/outdoor_game.py ``--sample N`` (repeatable) follows each game given, however
    few ``--games`` says (labelled boxes, the set-up alone: a few seconds)."""
    import outdoor_game

    monkeypatch.setattr(sys, "argv", ["outdoor_game.py", "--truth-boxes", "--moves", "0", "--games", "1",
                                      "--sample", "3", "--sample", "5"])
    assert outdoor_game.main() == 0
    followed = [line for line in capsys.readouterr().err.splitlines() if line.startswith("game ")]
    assert [line.split("(sample ")[1].split(")")[0] for line in followed] == ["3", "5"], followed

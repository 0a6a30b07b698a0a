"""The OneWorld combat benchmark (benchmarks/live_combat.py): the record's rounds among
children, drawn and read end to end, here one round with the ground-truth detector double."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import live_combat  # noqa: E402 (the repository root, put on the path above)


def test_the_rounds_are_the_record_s_rounds_among_children() -> None:
    rounds = live_combat.rounds()
    assert len(rounds) == 18
    for r in rounds:
        game = r["game"]
        assert r["combat"].combat is not None and not r["combat"].combat.against_god
        assert r["start"].combat is None or r["start"] is r["combat"]  # an end of movement before it, or not
        assert r["end"].combat is None or r["end"].combat.rounds > r["combat"].combat.rounds \
            or r["end"].combat.hex != r["combat"].combat.hex
        assert set(r["chosen"]) == {"borg", "chez"} and game.name == "oneworld"


def test_a_rendered_round_is_read_with_the_truth_double() -> None:
    """The record's first round (line 20: BORG Stone+Fog against CHEZ Stone, after BORG's end
    of movement), drawn with the eliminated taken off: read right, the round announced."""
    r = next(x for x in live_combat.rounds() if x["index"] == 19)
    renderer = live_combat.TurnRenderer("oneworld", (640, 480))
    images, truths, hands = live_combat.draw(renderer, r, r["end"], 7103 + r["index"])
    assert hands == [False, True, True, True, False] and images[0].shape == (480, 640, 3)
    got = live_combat.run(r, images, truths, hands, "truth")
    assert got["outcome"] == "right", got["said"]
    assert any(text.startswith("Round 1 at 0411: BORG Stone+Fog; CHEZ Stone.") for text in got["said"])

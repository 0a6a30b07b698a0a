"""Benchmark: observation status of 20 pieces in The Game, and the verdict of a measured move.

The position: 10 red and 10 blue pieces on the default 24" x 24" field, in ragged facing
ranks, with mixed footprints (1" discs, leaves, sticks and stones) and facings turned this
way and that (every fourth piece looks back; with 180 degrees of vision it still sees
its neighbours in the rank), so that some pairs need the exact footprint test. The timed operations:

* ``TheGame.observation(state)``: who sees whom and every piece's status. Timed on fresh
  piece objects each time (nothing cached from the previous run). Target: under 1 ms.
* ``TheGame.verdict(state, Move(...))``: judging one measured move of an observed piece.

Run from the repository root: ``python3 benchmarks/the_game_bench.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.geometry import FieldPoint
from rules.the_game import Footprint, Move, PieceSpec, Setup, TheGame, TheGameState

TARGET_MS = 1.0
REPEATS = 2000
FOOTPRINTS = [
    Footprint.ellipse(1.0, 1.0),
    Footprint.ellipse(1.6, 0.9),
    Footprint.rectangle(2.5, 0.4),
    Footprint.polygon((FieldPoint(0.7, 0), FieldPoint(0.2, 0.6), FieldPoint(-0.6, 0.4),
                       FieldPoint(-0.5, -0.5), FieldPoint(0.3, -0.6))),
]


def twenty_pieces() -> TheGameState:
    """10 pieces a side in a ragged rank each, facings fanned out by up to 50 degrees and
    every fourth piece looking back the other way."""
    specs = []
    for side, row, facing in (("red", 5.0, 90.0), ("blue", 18.0, 270.0)):
        for i in range(10):
            x = 1.8 + i * 2.3
            turn = ((i * 37) % 101 - 50) * 1.0  # -50..50, no randomness needed
            if i % 4 == 3:
                turn += 180.0  # every fourth piece looks back
            specs.append(PieceSpec(f"{side[0].upper()}{i + 1}", side,
                                   FieldPoint(x, row + (i % 3) * 0.7), facing + turn,
                                   FOOTPRINTS[i % len(FOOTPRINTS)]))
    game = TheGame.from_options({"setup_facing_check": False})  # some face away
    return game.apply(game.initial_state(), Setup(tuple(specs), "red")).state


def time_ms(operation: Callable[[], object], prepare: Callable[[], None] | None = None,
            repeats: int = REPEATS) -> tuple[float, float]:
    """Median and best wall time of ``operation`` in milliseconds."""
    times = []
    for _ in range(repeats):
        if prepare is not None:
            prepare()
        start = time.perf_counter()
        operation()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), min(times)


def main() -> int:
    game = TheGame()
    state = twenty_pieces()
    table = game.observation(state)
    observed = sum(s.observed for s in table.values())

    fresh = {"state": state}

    def refresh() -> None:  # new piece objects: no outline cached from the last run
        fresh["state"] = replace(state, pieces=tuple(replace(p) for p in state.pieces))

    median, best = time_ms(lambda: game.observation(fresh["state"]), refresh)
    print(f"observation status of {len(table)} pieces ({observed} observed): "
          f"median {median:.3f} ms, best {best:.3f} ms (target: under {TARGET_MS:.0f} ms)")
    print("  target met" if median < TARGET_MS else "  TARGET MISSED")

    mover = state.piece("R3")
    move = Move("R3", FieldPoint(mover.at.x + 3.1, mover.at.y + 4.6), 75.0)  # 5.55"
    verdict = game.verdict(state, move)
    median_v, best_v = time_ms(lambda: game.verdict(state, move), repeats=REPEATS // 2)
    print(f"verdict of a measured move ({verdict.code}: {verdict.message}): "
          f"median {median_v:.3f} ms, best {best_v:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

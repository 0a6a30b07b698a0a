"""Benchmark: legal actions of Battle Grounds on the full advanced board.

Builds the advanced 8x8 board with both full sides (16 figures each, the default roster's
line-up), then a middle-game position reached from it by a fixed sequence of moves, and
times ``legal_actions`` on each. Target: under 5 ms.

Run from the repository root: ``python3 benchmarks/battle_grounds_bench.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.battle_grounds import BattleGrounds, Move, State, parse_label

TARGET_MS = 5.0
REPEATS = 2000


def opening_moves(game: BattleGrounds, state: State) -> State:
    """A few quiet moves that open lines for the level II and III figures."""
    for piece, a, b in [
        ("wolverine", "b7", "b6"),
        ("bullseye", "b2", "b3"),
        ("daredevil", "c7", "c6"),
        ("kraven", "c2", "c3"),
        ("black-widow", "f7", "f6"),
        ("rhino", "f2", "f3"),
        ("jubilee", "e7", "e6"),
        ("aim-agent", "e2", "e3"),
    ]:
        state = game.apply(state, Move(piece, parse_label(a), parse_label(b))).state
    return state


def time_legal_actions(game: BattleGrounds, state: State) -> tuple[float, float, int]:
    count = len(game.legal_actions(state))
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        game.legal_actions(state)
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples), count


def main() -> int:
    game = BattleGrounds.from_options({"board": "advanced"})
    full = game.lineup()
    for title, state in [
        ("opening line-up", full),
        ("after 8 quiet moves", opening_moves(game, full)),
    ]:
        median, best, count = time_legal_actions(game, state)
        print(
            f"battle-grounds legal_actions, advanced 8x8 board, both full sides ({title}): "
            f"{count} actions, median {median:.3f} ms, best {best:.3f} ms "
            f"(target < {TARGET_MS:.0f} ms, {REPEATS} repetitions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

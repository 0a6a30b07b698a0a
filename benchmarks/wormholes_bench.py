"""Benchmark: Wormholes legal actions for a roll in a full mid-game position.

All four ships are in mid-galaxy and all 24 coins lie on the board (half of them already
seen). The OrthogonAliens have rolled Suns ace, Moons 2; the figure is the time to list every
legal action (both ships' moves, with the both-dice rule applied). Target: under 5 ms.

Run from the repository root: ``python3 benchmarks/wormholes_bench.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.wormholes import Wormholes, WormholesState
from rules.wormholes.board import BASE_CELLS, CELLS

TARGET_MS = 5.0
REPEATS = 2000
SUITS = ("suns", "moons", "crowns", "arms")


def mid_game(game: Wormholes) -> WormholesState:
    """The benchmark position, built through the documented JSON format."""
    cells = sorted(CELLS - BASE_CELLS)[::3][:24]
    coins = []
    for i, cell in enumerate(cells):
        seen = i % 2 == 0
        coins.append({
            "at": f"{cell.x},{cell.y}",
            "suit": SUITS[i % 4],
            "value": i // 4,  # each suit gets the values 0..5 once
            "seen": seen,
            "up": "value" if seen and i % 4 == 0 else "suit",
        })
    return game.state_from_json({
        "phase": "move",
        "player": "orthogonaliens",
        "first_placer": "diagonaliens",
        "ships": {
            "suns": {"at": "5,9"},
            "moons": {"at": "7,12"},
            "crowns": {"at": "4,13"},
            "arms": {"at": "6,6"},
        },
        "coins": coins,
        "dice": {"suns": 1, "moons": 2},
    })


def main() -> int:
    game = Wormholes()
    state = mid_game(game)
    actions = game.legal_actions(state)
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        game.legal_actions(state)
        times.append((time.perf_counter() - start) * 1000.0)
    median, best = statistics.median(times), min(times)
    print(f"wormholes: legal actions for a roll, 4 ships + 24 coins on the board "
          f"({len(actions)} actions)")
    print(f"  median {median:.4f} ms, best {best:.4f} ms over {REPEATS} runs "
          f"(target < {TARGET_MS:.0f} ms: {'met' if median < TARGET_MS else 'MISSED'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

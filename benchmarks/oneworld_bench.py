#!/usr/bin/env python3
"""How long the OneWorld engine takes to list every legal action of a full position.

Two positions on the default map, mid-game, with the side to move (BORG) holding a mix of
Stone, Blade and Fog spread over its half and CHEZ's children over the other half:

* standard: 13 children a side, 26 on the map (the standard game's full position);
* stress:   26 children a side, 52 on the map (the option ``children_per_side=26``; the
  issue's "26 children a side").

For each, ``game.legal_actions(state)`` is timed with ``time.perf_counter`` over many
repetitions; the median and the best time are printed against the 5 ms target. Usage, from
the repository root::

    python3 benchmarks/oneworld_bench.py [--repeat N]

Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse
import platform
import random
import statistics
import time
from collections import Counter

from rules.geometry import Hex
from rules.oneworld import (
    Aspect,
    Child,
    End,
    God,
    Move,
    OneWorld,
    OneWorldOptions,
    Phase,
    Position,
    Side,
)

TARGET_MS = 5.0
SEED = 1979


def full_position(game: OneWorld, per_side: int) -> Position:
    """A mid-game position: each side's children spread over rows 4-11 (BORG) and 13-20
    (CHEZ) of the default map, a third of each aspect, at most two to a hex, none on a Tower
    or a god. The same seed always gives the same position."""
    rng = random.Random(SEED)
    board = game.board
    towers = set(board.tower_hexes())
    gods = (God(Side.BORG, Hex.parse("0702"), 3), God(Side.CHEZ, Hex.parse("0722"), 3))
    taken = {g.hex for g in gods} | towers
    children: list[Child] = []
    for side, rows in ((Side.BORG, range(4, 12)), (Side.CHEZ, range(13, 21))):
        spots = sorted(h for h in board.cells if h.offset()[1] in rows and h not in taken)
        stacks: Counter[Hex] = Counter()
        aspects = [Aspect.STONE, Aspect.BLADE, Aspect.FOG]
        for i in range(per_side):
            h = rng.choice([s for s in spots if stacks[s] < 2])
            stacks[h] += 1
            children.append(Child(f"{side.prefix}{i + 1}", side, aspects[i % 3], h))
    pos = Position(
        phase=Phase.MOVEMENT,
        active=Side.BORG,
        turn=9,
        ends=((Side.BORG, End.NORTH), (Side.CHEZ, End.SOUTH)),
        towers=((Side.BORG, board.tower_hexes()[0]), (Side.CHEZ, board.tower_hexes()[1])),
        gods=gods,
        children=tuple(children),
    )
    return game.state_from_json(game.state_to_json(pos))  # validated like any input


def measure(game: OneWorld, pos: Position, repeat: int) -> tuple[float, float, int]:
    for _ in range(20):  # warm up
        game.legal_actions(pos)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        actions = game.legal_actions(pos)
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times), min(times), len(actions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=500, help="timed repetitions per position (default 500)")
    args = parser.parse_args(argv)

    print(f"OneWorld legal_actions benchmark - Python {platform.python_version()} on {platform.machine()}, "
          f"{platform.system()}; target {TARGET_MS:.1f} ms")
    print(f"{'position':<42} {'children':>8} {'actions':>8} {'median ms':>10} {'best ms':>8}  target")
    for label, per_side in (("standard: 13 a side (26 on the map)", 13), ("stress: 26 a side (children_per_side=26)", 26)):
        game = OneWorld(OneWorldOptions(children_per_side=per_side))
        pos = full_position(game, per_side)
        movers = len(pos.children_of(pos.active))
        median, best, n = measure(game, pos, args.repeat)
        moves = sum(1 for a in game.legal_actions(pos) if isinstance(a, Move))
        verdict = "met" if median < TARGET_MS else "MISSED"
        print(f"{label:<42} {len(pos.children):>8} {n:>8} {median:>10.3f} {best:>8.3f}  {verdict} "
              f"({movers} movers, {moves} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

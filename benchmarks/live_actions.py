"""Every legal action of the bundled games, read by the live referee from a perfect board.

    python3 benchmarks/live_actions.py [--game NAME] [--every N] [--no-hand] [--json]

For each grid game, the positions of its bundled record (``tabletop/data/records``, every
N-th), every action the engine allows there is applied with seeded dice, and the board a
perfect detector would show before and after it (one box per cell and class the engine has
there, one box per piece: :func:`tabletop.live.outcomes.engine_pieces`; like counters stacked
are offset as players stack them) handed to the live referee's acceptance
step, as a settled window hands it a position (after a hand over the board, unless
``--no-hand``). An action is read right when the referee's engine state is then the state the
action made, alike when it is the state of another action that leaves the very same board (a
counter moved where its twin could have gone: no camera tells them apart); the same board
before and after (an action the camera cannot see: an end of
movement, a pass, a set-up choice) is counted apart, since only the move after it can show
it (docs/live.md, "Actions the camera cannot see"). The figures are per action type; the
detector, the window's vote and the camera are left out: this measures the reading of moves.
Set-up placements are counted too, though the live referee starts from a set-up position:
which figure of a level, or a god or a mortal checker face down, was placed the board does
not show.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds")


def _replay(name: str) -> tuple[Any, list[Any]]:
    from rules.registry import get_game

    lines = [json.loads(x) for x in (ROOT / "tabletop" / "data" / "records" / f"{name}.jsonl").read_text().splitlines()
             if x.strip()]
    game = get_game(name, lines[0].get("options") or {})
    state = game.state_from_json(lines[0]["position"]) if lines[0].get("position") else game.initial_state()
    states = [state]
    for e in lines[1:]:
        state = game.apply(state, game.action_from_json(e["action"]), e.get("rolls", [])).state
        states.append(state)
    return game, states


def _board(game: Any, state: Any) -> Any:
    from tabletop.live.board import SeenBoard, SeenPiece
    from tabletop.live.outcomes import engine_pieces

    return SeenBoard(game.name, tuple(SeenPiece(cls, cell, (0.0, 0.0), (0.0, 0.0, 10.0, 10.0), 0.9)
                                      for cell, cls in sorted(engine_pieces(game, state).elements())))


def _key(game: Any, state: Any) -> str:
    return json.dumps(game.state_to_json(state), sort_keys=True, default=str)


def measure(name: str, every: int = 3, touched: bool = True) -> dict[str, Counter[str]]:
    """{action type: Counter of "right", "alike" (read as another action that leaves the same
    board: no camera can tell them apart), "wrong", "error", "unseen" (the board shows nothing
    of it)}."""
    from rules.core import CHANCE
    from tabletop.dice import SeededDice
    from tabletop.live.pipeline import FrameResult, LivePipeline, Rolls

    game, states = _replay(name)
    out: dict[str, Counter[str]] = {}
    for i, state in enumerate(states[::every]):
        if game.outcome(state) is not None or CHANCE in game.to_move(state):
            continue
        before = _board(game, state)
        for action in game.legal_actions(state):
            kind = game.action_to_json(action).get("type", "?")
            step = game.apply(state, action, SeededDice(i))
            after = _board(game, step.state)
            tally = out.setdefault(kind, Counter())
            if after.key() == before.key():
                tally["unseen"] += 1
                continue
            pipe = LivePipeline(game, state, None, None, None, rolls=Rolls(list(step.rolls_used)))
            pipe.base = before
            try:
                pipe._accept(after, FrameResult(1, 0.0, "accepted"), touched)
            except Exception:  # noqa: BLE001 - counted, never a stop
                tally["error"] += 1
                continue
            if _key(game, pipe.state) == _key(game, step.state):
                tally["right"] += 1
            elif _board(game, pipe.state).key() == after.key():
                tally["alike"] += 1  # another action that leaves the same board: a twin counter moved
            else:
                tally["wrong"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (may be repeated)")
    parser.add_argument("--every", type=int, default=3, help="every N-th position of the record (default 3)")
    parser.add_argument("--no-hand", action="store_true", help="no hand seen over the board between the two")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {g: measure(g, max(1, args.every), not args.no_hand) for g in (args.game or GAMES)}
    if args.json:
        print(json.dumps({g: {k: dict(v) for k, v in r.items()} for g, r in results.items()}, indent=1))
        return 0
    for g, r in results.items():
        seen = sum(v["right"] + v["alike"] + v["wrong"] + v["error"] for v in r.values())
        right = sum(v["right"] + v["alike"] for v in r.values())
        print(f"{g}: {right} of {seen} actions the board shows read right or as one alike on the board "
              f"({100 * right / max(1, seen):.1f} %); {sum(v['unseen'] for v in r.values())} show nothing")
        for kind, v in sorted(r.items()):
            print(f"  {kind:14s} right {v['right']:5d}  alike {v['alike']:4d}  wrong {v['wrong']:5d}  "
                  f"errors {v['error']:3d}  unseen {v['unseen']:5d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

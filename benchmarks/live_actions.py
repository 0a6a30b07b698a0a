"""Every legal action of the bundled games, read by the live referee from a perfect board.

    python3 benchmarks/live_actions.py [--game NAME] [--every N] [--no-hand] [--json]

For each game, the positions of its bundled record (``tabletop/data/records``, every
N-th), every action the engine allows there is applied with seeded dice, and the board a
perfect detector would show before and after it (one box per cell and class the engine has
there, one box per piece: :func:`tabletop.live.outcomes.engine_pieces`; like counters stacked
are offset as players stack them; The Game: one seen piece per standing piece at its engine
point and facing, of its side's class) handed to the live referee's acceptance
step, as a settled window hands it a position (after a hand over the board, unless
``--no-hand``). An action is read right when the referee's engine state is then the state the
action made (The Game: places and facings to :data:`SAME_IN`), alike when it is the state of
another action that leaves the very same board (a counter moved where its twin could have
gone: no camera tells them apart); the same board before and after (an action the camera
cannot see: an end of movement, a pass, a stay, a set-up choice) is counted apart, since only
the move after it can show it (docs/live.md, "Actions the camera cannot see"): such an action
is then followed by the first legal action after it that the board shows (or, when none
does, by one that does not and the first after that one which does: OneWorld's end of
movement and a combat round's two secret choices), all handed over at once, and counted as
read with the action after when the referee ends in the state they made, or one alike on
the board with the same player to move. The Game's acts are counted apart by
what the seeded roll did (the target knocked down, or not). The figures are per action type;
the detector, the window's vote and the camera are left out: this measures the reading of
moves. Set-up placements are counted too, though the live referee starts from a set-up
position: which figure of a level, or a god or a mortal checker face down, was placed the
board does not show.
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

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
#: The Game: two readings of a place or facing this close (inches, degrees) are the same; the
#: referee writes a move read to the hundredth of an inch and the tenth of a degree.
SAME_IN = 0.02


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

    if game.name == "the-game":  # one piece per standing piece, at its point and facing
        from tabletop.live.explain import piece_classes

        sj = game.state_to_json(state)
        classes = piece_classes(game, sj)
        return SeenBoard(game.name, tuple(
            SeenPiece(classes[p["id"]], None, (p["at"]["x"], p["at"]["y"]), (0.0, 0.0, 10.0, 10.0), 0.9, p["facing"])
            for p in sj["pieces"] if p.get("presence", "in-play") == "in-play"))
    return SeenBoard(game.name, tuple(SeenPiece(cls, cell, (0.0, 0.0), (0.0, 0.0, 10.0, 10.0), 0.9)
                                      for cell, cls in sorted(engine_pieces(game, state).elements())))


def _key(game: Any, state: Any) -> str:
    return json.dumps(game.state_to_json(state), sort_keys=True, default=str)


def _same_state(game: Any, a: Any, b: Any) -> bool:
    """Whether two engine states are one (The Game: places and facings within :data:`SAME_IN`)."""
    if game.name != "the-game":
        return _key(game, a) == _key(game, b)
    return _near(game.state_to_json(a), game.state_to_json(b))


def _near(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_near(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_near(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            d = abs(a - b)
            return d <= SAME_IN or abs(d - 360.0) <= SAME_IN
        return False
    return a == b


def _same_board(a: Any, b: Any) -> bool:
    """Whether two perfect boards show the same (The Game: places and facings alike)."""
    if a.game != "the-game":
        return a.key() == b.key()
    pa = sorted((p.cls, p.point, p.facing) for p in a.pieces)
    pb = sorted((p.cls, p.point, p.facing) for p in b.pieces)
    return len(pa) == len(pb) and all(x[0] == y[0] and _near([*x[1], x[2]], [*y[1], y[2]]) for x, y in zip(pa, pb))


def _kind(game: Any, action: Any, step: Any) -> str:
    """The action's type; The Game's actions on a piece split by what the roll did."""
    kind = game.action_to_json(action).get("type", "?")
    if game.name == "the-game" and kind == "act":
        down = any(e.kind == "elimination" for e in step.events)
        kind = "act, " + ("knocks down" if down else "fails")
    return kind


def _read(game: Any, state: Any, before: Any, after: Any, rolls: list[int], touched: bool) -> Any:
    """The live referee's engine state once it has accepted ``after`` over ``before``."""
    from tabletop.live.pipeline import FrameResult, LivePipeline, Rolls

    pipe = LivePipeline(game, state, None, None, None, rolls=Rolls(list(rolls)))
    pipe.base = before
    pipe._accept(after, FrameResult(1, 0.0, "accepted"), touched)
    return pipe.state


def _next_seen(game: Any, state: Any, board: Any, seed: int, depth: int = 2) -> Any:
    """The first legal action after ``state`` that the board shows (its step), or ``None``;
    when none does, the first that shows after one more that does not (OneWorld's end of
    movement and a combat round: two secret choices, the second revealing both), as a list
    of the two steps."""
    from rules.core import CHANCE
    from tabletop.dice import SeededDice

    if game.outcome(state) is not None or CHANCE in game.to_move(state):
        return None
    quiet = []
    for action in game.legal_actions(state):
        step = game.apply(state, action, SeededDice(seed))
        if not _same_board(_board(game, step.state), board):
            return step
        quiet.append(step)
    for step in quiet if depth > 1 else ():
        then = _next_seen(game, step.state, board, seed, 1)
        if then is not None:
            return [step, then]
    return None


def measure(name: str, every: int = 3, touched: bool = True) -> dict[str, Counter[str]]:
    """{action type: Counter of "right", "alike" (read as another action that leaves the same
    board: no camera can tell them apart), "wrong", "error", "unseen" (the board shows nothing
    of it) and, of those unseen, "then" (read right, or alike, with the first action after it
    that the board shows: both seen at once, as the table shows them)}."""
    from rules.core import CHANCE
    from tabletop.dice import SeededDice

    game, states = _replay(name)
    out: dict[str, Counter[str]] = {}
    for i, state in enumerate(states[::every]):
        if game.outcome(state) is not None or CHANCE in game.to_move(state):
            continue
        before = _board(game, state)
        for action in game.legal_actions(state):
            step = game.apply(state, action, SeededDice(i))
            kind = _kind(game, action, step)
            after = _board(game, step.state)
            tally = out.setdefault(kind, Counter())
            rolls = list(step.rolls_used)
            shown = not _same_board(after, before)
            if not shown:  # read, if at all, with the first action after it that the board shows
                tally["unseen"] += 1
                step = _next_seen(game, step.state, after, i)
                if step is None:
                    continue
                for s in step if isinstance(step, list) else [step]:
                    rolls += list(s.rolls_used)
                step = step[-1] if isinstance(step, list) else step
                after = _board(game, step.state)
            try:
                read = _read(game, state, before, after, rolls, touched)
            except Exception:  # noqa: BLE001 - counted, never a stop
                tally["error" if shown else "then error"] += 1
                continue
            if _same_state(game, read, step.state):
                tally["right" if shown else "then"] += 1
            elif _same_board(_board(game, read), after) and (shown or game.to_move(read) == game.to_move(step.state)):
                # another action that leaves the same board: a twin counter moved, another piece stayed
                tally["alike" if shown else "then"] += 1
            elif shown:
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
        unseen = sum(v["unseen"] for v in r.values())
        then = sum(v["then"] for v in r.values())
        print(f"{g}: {right} of {seen} actions the board shows read right or as one alike on the board "
              f"({100 * right / max(1, seen):.1f} %); {unseen} show nothing, {then} of them read with the "
              "action after")
        for kind, v in sorted(r.items()):
            print(f"  {kind:18s} right {v['right']:5d}  alike {v['alike']:4d}  wrong {v['wrong']:5d}  "
                  f"errors {v['error']:3d}  unseen {v['unseen']:5d}  then {v['then']:5d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Write the bundled OneWorld game record, tabletop/data/records/oneworld.jsonl.

The game is played by the OneWorld engine itself, so every line of the record is legal:

* both sides set up with :func:`rules.oneworld.setup.example_setup` (BORG first, at the north
  end; CHEZ, setting up second, chooses the left-hand Tower);
* each turn the side to move sends up to three children towards the enemy god (the move that
  brings a child closest, never into Chaos), attacking the god whenever a child can reach it,
  and then ends its movement;
* in combat each side chooses its aspects at random;
* dice come from :class:`tabletop.dice.SeededDice`, choices from a seeded ``random.Random``.

The same seed always writes the same file. The game ends when a god has lost all its lives
(3, the default). Usage::

    python tools/make_oneworld_record.py            # rewrite the bundled record
    python tools/make_oneworld_record.py --check    # exit 1 if the bundled record is stale
    python tools/make_oneworld_record.py --seed 5 --output /tmp/game.jsonl
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.oneworld import (
    Aspect,
    ChooseTower,
    EndMovement,
    Move,
    OneWorld,
    Phase,
    Position,
    Side,
    Transform,
)
from rules.oneworld.setup import example_setup, setup_step
from tabletop.dice import SeededDice
from tabletop.records import RecordHeader, RecordWriter

DEFAULT_SEED = 1
DEFAULT_OUTPUT = ROOT / "tabletop" / "data" / "records" / "oneworld.jsonl"
OPTIONS: dict[str, Any] = {"god_lives": 3}
MOVERS_PER_TURN = 3
MAX_ACTIONS = 2000  # a safety net: the policy always ends a game long before this


def choose_action(game: OneWorld, state: Position, rng: random.Random, moved_this_turn: int) -> Any:
    """The scripted policy's next action for whoever is to act."""
    if state.phase is Phase.SETUP:
        step = setup_step(game.options, state)
        assert step is not None
        kind, side = step
        if kind == "tower":
            return ChooseTower(side, game.board.tower_hexes()[0])
        return example_setup(game.board, game.options, state, side)
    if state.phase is Phase.COMBAT:
        assert state.combat is not None
        side = Side(game.to_move(state)[0])
        n = 1 if state.combat.against_god else len(state.children_at(state.combat.hex, side))
        return Transform(side, state.combat.hex, tuple(rng.choice(list(Aspect)) for _ in range(n)))
    side = state.active
    end = EndMovement(side)
    if moved_this_turn >= MOVERS_PER_TURN:
        return end
    target = state.god(side.other()).hex
    assert target is not None
    moves = [
        a for a in game.legal_actions(state) if isinstance(a, Move) and a.to in game.board.cells
    ]
    attacks = [m for m in moves if m.to == target]
    if attacks:
        return attacks[0]

    def gain(m: Move) -> int:
        child = state.child(m.piece)
        assert child is not None
        return child.hex.distance(target) - m.to.distance(target)

    forward = [m for m in moves if gain(m) > 0]
    if not forward:
        return end
    # The child nearest the enemy god goes first; it takes the move that gains the most.
    return min(forward, key=lambda m: (m.to.distance(target), -gain(m), m.piece, m.to))


def play(
    seed: int = DEFAULT_SEED,
) -> tuple[RecordHeader, list[tuple[dict[str, Any], tuple[int, ...]]], Any]:
    """Play a whole game; returns the header, the (action JSON, rolls) entries and the outcome."""
    game = OneWorld.from_options(OPTIONS)
    state = game.initial_state()
    dice = SeededDice(seed)
    rng = random.Random(seed)
    entries: list[tuple[dict[str, Any], tuple[int, ...]]] = []
    moved = 0
    while game.outcome(state) is None:
        if len(entries) >= MAX_ACTIONS:
            raise RuntimeError(f"no winner after {MAX_ACTIONS} actions; try another seed")
        action = choose_action(game, state, rng, moved)
        step = game.apply(state, action, dice)
        moved = (
            moved + 1
            if isinstance(action, Move)
            else (0 if isinstance(action, EndMovement) else moved)
        )
        if step.state.turn != state.turn:
            moved = 0
        entries.append((game.action_to_json(action), step.rolls_used))
        state = step.state
    comment = (
        "BORG and CHEZ set up at opposite ends of the default map; then each turn the side to "
        "move sends up to three children at the enemy god, fighting whatever is in the way, "
        f"until one god has lost all {game.options.borg_lives} lives. "
        f"Made by tools/make_oneworld_record.py (seed {seed})."
    )
    return RecordHeader("oneworld", dict(OPTIONS), None, comment), entries, game.outcome(state)


def write(path: Path, seed: int = DEFAULT_SEED) -> tuple[int, Any]:
    header, entries, outcome = play(seed)
    with RecordWriter(path, header, overwrite=True, sync=False) as writer:
        for action, rolls in entries:
            writer.append(action, rolls)
    return len(entries) + 1, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"seed for dice and choices (default {DEFAULT_SEED})",
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="where to write the record"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if --output differs from a fresh record",
    )
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / "fresh.jsonl"
            write(fresh, args.seed)
            same = args.output.exists() and fresh.read_bytes() == args.output.read_bytes()
        print(
            f"{args.output}: "
            + ("up to date" if same else "STALE: rerun tools/make_oneworld_record.py")
        )
        return 0 if same else 1
    lines, outcome = write(args.output, args.seed)
    print(f"wrote {args.output}: {lines} lines; {outcome.winner.upper()} wins ({outcome.reason})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

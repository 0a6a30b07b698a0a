"""Property tests on random OneWorld playouts (hypothesis draws the seed and the options).

Every reachable position keeps stacking, the children cap, parental concern and the Tower
rules; every listed action is accepted, and moves to hexes that are not listed are refused
with a reason; lives never grow; every position survives a JSON round trip.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import Transition
from rules.errors import IllegalActionError
from rules.geometry import Hex
from rules.oneworld import (
    Action,
    ChooseTower,
    EndMovement,
    GodMove,
    GodTransform,
    Move,
    OneWorld,
    OneWorldOptions,
    Phase,
    Position,
    Side,
    Transform,
    parse_map,
)
from rules.oneworld.movement import standing_towers
from rules.oneworld.setup import example_setup, setup_step

# A small battlefield (9 x 13) so that random play meets the enemy within a few turns: pylon
# clusters, runelines and faults, Towers on the west and east edges of the middle row and a
# ragged Chaos border.
SKIRMISH = """\
name skirmish
size 9 13
row 01 ~ . . . . . . . ~
row 02  . . . . . . . . ~
row 03 . . P P . . . . .
row 04  . . . . . . P . .
row 05 . . . . . . P . .
row 06  . . . . . . . . .
row 07 T . . . . . . . T
row 08  . . . . . . . . .
row 09 . . P . . . . . .
row 10  . . P . . . . . .
row 11 . . . . . P P . .
row 12  . . . . . . . . ~
row 13 ~ . . . . . . . ~
runeline 0406 E 0406 SE 0506 SW 0308 E
fault 0306 E 0606 SE 0508 E 0209 NE
"""

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"friendly_obstacle": True},
    {"pylon_movement": True},
    {"flee_while_you_can": True},
    {"god_lives": 2, "stacking_limit": 2},
    {"tower_elimination": True, "god_lives": 2},
    {"frustration_clause": True},
    {"moving_towers": "clockwise"},
    {"moving_towers": "counterclockwise", "new_geography": True},
    {"more_balance": True},
    {"chaos_gambit_1": True},
    {"chaos_gambit_2": True},
    {"non_aligned_towers": True},
    {"god_powers": 1, "borg_lives": 1, "borg_god_powers": 2},
    {"stacking_limit": 3, "children_per_side": 8},
]

CODES = {
    "ok", "game-over", "setup-first", "wrong-phase", "not-your-turn", "unknown-piece", "not-on-map",
    "already-moved", "bad-path", "too-far", "no-move", "runeline", "pylon", "tower", "own-god",
    "god-attack-used", "chaos", "enemy-in-the-way", "stacking", "pylon-movement", "unreachable",
    "blade-straight-line", "blade-blocked", "blade-must-move-five", "blade-stopped", "wrong-combat",
    "already-chosen", "child-first", "aspect-count", "option-off", "power-used", "in-combat",
    "same-aspect", "not-wounded", "occupied", "unknown-action",
}


class Dice:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, sides: int, what: str) -> int:
        return self.rng.randint(1, sides)


def start(game: OneWorld) -> Position:
    pos = game.initial_state()
    while pos.phase is Phase.SETUP:
        step = setup_step(game.options, pos)
        assert step is not None
        kind, side = step
        if kind == "tower":
            action: Action = ChooseTower(side, game.board.tower_hexes()[0])
        else:
            action = example_setup(game.board, game.options, pos, side)
        pos = game.apply(pos, action).state
    return pos


def choose(game: OneWorld, pos: Position, actions: list[Action], rng: random.Random) -> Action:
    """A random player with a taste for the enemy god and a dislike of Chaos."""
    if pos.phase is Phase.COMBAT:
        return rng.choice(actions)
    moves = [a for a in actions if isinstance(a, Move)]
    others = [a for a in actions if isinstance(a, (GodMove, GodTransform))]
    if not moves or rng.random() < 0.12:
        return rng.choice(others) if others and rng.random() < 0.5 else EndMovement(pos.active)
    piece = rng.choice(sorted({m.piece for m in moves}))
    mine = [m for m in moves if m.piece == piece]
    safe = [m for m in mine if game.board.on_map(m.to)] or mine
    if rng.random() < 0.05:
        return rng.choice(mine)
    target = pos.god(pos.active.other()).hex
    if target is not None and rng.random() < 0.7:
        return min(safe, key=lambda m: (m.to.distance(target), rng.random()))
    return rng.choice(safe)


# -- invariants ------------------------------------------------------------------------------------


def check_position(game: OneWorld, pos: Position) -> None:
    o = game.options
    ids = [c.id for c in pos.children] + [i for _, i in pos.under_tower] + [i for _, i in pos.lost]
    assert len(ids) == len(set(ids)), "a child is in two places"
    for side in Side:
        on_map = pos.children_of(side)
        assert len(on_map) <= o.children_per_side, "the children cap"
        total = len(on_map) + len(pos.reserve(side)) + len(pos.lost_of(side))
        assert total == o.children_per_side, "children appear or vanish"
    for (h, side), n in Counter((c.hex, c.side) for c in pos.children).items():
        assert n <= o.stacking_limit, f"stacking broken at {h}"
    towers = standing_towers(game.board, pos)
    for c in pos.children:
        assert game.board.on_map(c.hex), f"{c.id} off the map"
        assert c.hex != pos.god(c.side).hex, f"{c.id} in its own god's hex"
        if c.hex in towers:
            owner = {h: s for s, h in pos.towers}.get(c.hex)
            assert owner in (None, c.side), f"{c.id} stands on the enemy Tower"
    for god in pos.gods:
        assert 0 <= god.lives <= o.lives(god.side)
        assert god.hex is not None and game.board.on_map(god.hex)
        intruders = pos.children_at(god.hex, god.side.other())
        if intruders:  # only the one attacker of this turn, waiting for its fight
            assert god.side is not pos.active and pos.god_attacked and len(intruders) == 1
            assert pos.phase in (Phase.MOVEMENT, Phase.COMBAT)
    mixed = [h for h, count in pos.occupancy().items() if len(count) == 2]
    if pos.phase is Phase.MOVEMENT:
        for h in mixed:  # only where the side to move has just walked in
            assert any(c.id in pos.moved for c in pos.children_at(h, pos.active))
    elif pos.phase is Phase.OVER:
        assert game.outcome(pos) is not None
    if pos.phase is not Phase.OVER:
        assert game.outcome(pos) is None
    # JSON, also of what each player may see.
    assert game.state_from_json(game.state_to_json(pos)) == pos
    for player in ("borg", "chez"):
        view = game.view(pos, player)
        assert game.state_from_json(game.state_to_json(view)) == view


def check_transition(game: OneWorld, before: Position, action: Action, step: Transition[Position]) -> None:
    after = step.state
    for side in Side:
        assert after.god(side).lives <= before.god(side).lives, "a god's lives grew"
    if isinstance(action, Move) and game.board.on_map(action.to) and after.child(action.piece) is not None:
        assert action.to not in standing_towers(game.board, before), "a child entered a Tower"
        assert action.to != before.god(after.child(action.piece).side).hex
    for event in step.events:
        assert event.kind in {
            "setup", "move", "roll", "combat", "combat-round", "elimination", "lost",
            "reinforcement", "attack", "life-lost", "turn", "phase", "power", "victory", "draw",
        }
        assert event.text


def check_actions(game: OneWorld, pos: Position, actions: list[Action], rng: random.Random) -> None:
    """Listed actions are legal and apply; mutated ones are refused with a reason."""
    sample = rng.sample(actions, min(len(actions), 12))
    for action in sample:
        assert game.verdict(pos, action).legal, action
    for action in rng.sample(sample, min(len(sample), 3)):
        game.apply(pos, action, Dice(rng))
    listed: dict[str, set[Hex]] = {}
    for a in actions:
        if isinstance(a, Move):
            listed.setdefault(a.piece, set()).add(a.to)
    mutants: list[Action] = []
    for piece, tos in listed.items():
        child = pos.child(piece)
        assert child is not None
        for _ in range(3):
            to = Hex(child.hex.q + rng.randint(-6, 6), child.hex.r + rng.randint(-6, 6))
            if to not in tos:
                mutants.append(Move(piece, to))
    mutants.append(Move("X99", pos.children[0].hex if pos.children else Hex(0, 0)))
    mutants.append(EndMovement(pos.active.other()))
    if pos.combat is not None:
        mutants.append(Transform(Side.BORG, pos.combat.hex, ()))
        mutants.append(Transform(Side.CHEZ, Hex(-9, -9), ()))
    for action in mutants:
        verdict = game.verdict(pos, action)
        assert not verdict.legal, action
        assert verdict.code in CODES and verdict.message, verdict
        try:
            game.apply(pos, action, Dice(rng))
        except IllegalActionError as err:
            assert err.verdict == verdict
        else:
            raise AssertionError(f"{action} was applied")


def playout(game: OneWorld, seed: int, steps: int) -> Position:
    rng = random.Random(seed)
    pos = start(game)
    check_position(game, pos)
    for _ in range(steps):
        if game.outcome(pos) is not None:
            break
        actions = game.legal_actions(pos)
        assert actions, "a live game always offers an action"
        if rng.random() < 0.3:
            check_actions(game, pos, actions, rng)
        action = choose(game, pos, actions, rng)
        step = game.apply(pos, action, Dice(rng))
        check_transition(game, pos, action, step)
        pos = step.state
        check_position(game, pos)
    return pos


@given(seed=st.integers(0, 2**32 - 1), options=st.sampled_from(OPTION_SETS))
@settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_playouts_keep_the_rules(seed: int, options: dict[str, Any]) -> None:
    game = OneWorld(OneWorldOptions.from_json(options), parse_map(SKIRMISH))
    playout(game, seed, steps=120)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_playouts_on_the_default_map(seed: int) -> None:
    playout(OneWorld(), seed, steps=80)


def test_the_random_player_reaches_the_interesting_parts() -> None:
    """The playouts above are worth something only if they fight, attack gods and end games."""
    kinds: Counter[str] = Counter()
    finished = 0
    for seed in range(8):
        game = OneWorld(OneWorldOptions(), parse_map(SKIRMISH))
        rng = random.Random(seed)
        pos = start(game)
        for _ in range(400):
            if game.outcome(pos) is not None:
                finished += 1
                break
            step = game.apply(pos, choose(game, pos, game.legal_actions(pos), rng), Dice(rng))
            kinds.update(e.kind for e in step.events)
            pos = step.state
    for kind in ("combat-round", "attack", "life-lost", "reinforcement", "roll", "elimination"):
        assert kinds[kind] > 0, kind
    assert finished >= 4

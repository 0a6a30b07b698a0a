"""Wormholes property tests: seeded random playouts under several option sets.

Every reachable state keeps the game's invariants; every listed action is accepted; actions
mutated from legal ones are refused with a reason unless they are legal too; states, views
and actions round-trip through JSON.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import CHANCE
from rules.geometry import Square
from rules.wormholes import (
    HIDDEN,
    ChooseOrder,
    Jump,
    Move,
    Phase,
    Place,
    Rest,
    Reveal,
    Roll,
    RollOff,
    Send,
    Stay,
    Suit,
    Wormholes,
    WormholesState,
)
from rules.wormholes.board import BASE_CELLS, CELLS, PLAYERS, opposing_bases, owner, suits_of
from rules.wormholes.model import ChooseSend

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"both_ships_win": True},
    {"transport_optional": True, "sent_jump_chooser": "sender"},
    {"jumps_cross_gaps": True, "own_ship_blocks_passage": False, "strict_both_dice": False},
]
#: The whole 10 x 18 grid and a ring around it: board cells, gaps and beyond.
GRID = [Square(x, y) for x in range(12) for y in range(20)]


def check_invariants(game: Wormholes, state: WormholesState) -> None:
    # Ships: on board cells, never two of one side together; sides share a cell only while
    # a send is pending or when transport is optional.
    for ship in state.ships:
        assert ship.at in CELLS
    for player in PLAYERS:
        a, b = (state.ship(s).at for s in suits_of(player))
        assert a != b
    sending = any(isinstance(t, ChooseSend) for t in state.tasks)
    shared = [cell for cell, ships in state.ship_cells.items() if len(ships) > 1]
    assert not shared or sending or game.options.transport_optional
    # Coins: off the bases, one per cell, every coin either placed or in hand, known values
    # distinct within a suit, a value shown or seen only once known.
    for cell, coin in state.coins:
        assert cell in CELLS and cell not in BASE_CELLS
        assert not coin.value_up or coin.seen
        assert not coin.seen or isinstance(coin.value, int)
    for suit in Suit:
        placed = [c for _, c in state.coins if c.suit is suit]
        assert len(placed) + state.in_hand(suit) == 6
        known = [c.known for c in placed if c.known is not None]
        assert len(known) == len(set(known))
    # Turn bookkeeping.
    if state.phase is not Phase.MOVE:
        assert not state.dice and not state.tasks
    elif not state.tasks:
        assert state.dice
    for suit, _ in state.dice:
        assert owner(suit) == state.player and suit not in state.idle
    # The end is a value: over exactly when there is an outcome and nobody is to move.
    outcome = game.outcome(state)
    assert (outcome is not None) == (state.phase is Phase.OVER) == (game.to_move(state) == ())
    legal = game.legal_actions(state)
    assert bool(legal) == (outcome is None)
    if outcome is not None:
        bases = opposing_bases(outcome.winner or "")
        on_base = [s for s in suits_of(outcome.winner or "") if state.ship(s).at in bases]
        assert len(on_base) == 2 if game.options.both_ships_win else len(on_base) >= 1
    if game.to_move(state) == (CHANCE,):
        outcomes = game.chance_outcomes(state)
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert [a for a, _ in outcomes] == legal
    # Values: hashable, and JSON and views round-trip.
    assert hash(state) == hash(game.state_from_json(game.state_to_json(state)))
    assert game.state_from_json(game.state_to_json(state)) == state
    for player in PLAYERS:
        view = game.view(state, player)
        for (cell, coin), (_, seen) in zip(state.coins, view.coins):
            assert seen.value == (coin.value if coin.seen else HIDDEN)
        assert game.state_from_json(game.state_to_json(view)) == view


def mutate(action: Any, rng: random.Random) -> Any:
    """An action like ``action`` with one thing changed (it may still be legal)."""
    cell = rng.choice(GRID)
    suit = rng.choice(list(Suit))
    value = rng.randint(0, 6)
    if isinstance(action, (Move, Jump)):
        return replace(action, to=cell) if rng.random() < 0.7 else replace(action, ship=suit)
    if isinstance(action, Send):
        return replace(action, to=rng.choice([cell, None])) if rng.random() < 0.8 else replace(
            action, ship=suit)
    if isinstance(action, Stay):
        return rng.choice([Stay(suit), Move(action.ship, cell)])
    if isinstance(action, Place):
        return rng.choice([replace(action, to=cell), replace(action, suit=suit)])
    if isinstance(action, Roll):
        dice = dict(action.dice)
        if rng.random() < 0.5:
            dice[rng.choice(list(dice))] = value
        else:
            dice[suit] = value
        return Roll.of(dice)
    if isinstance(action, Reveal):
        return rng.choice([replace(action, value=value), replace(action, at=cell)])
    if isinstance(action, RollOff):
        return RollOff(value, rng.randint(0, 6))
    if isinstance(action, ChooseOrder):
        return ChooseOrder(rng.choice(PLAYERS), rng.random() < 0.5)
    if isinstance(action, Rest):
        return Rest(rng.choice(PLAYERS), tuple(rng.sample(list(Suit), rng.randint(0, 2))))
    raise AssertionError(f"no mutation for {action!r}")


def choose(game: Wormholes, state: WormholesState, legal: list[Any], rng: random.Random) -> Any:
    if game.to_move(state) == (CHANCE,):
        outcomes = game.chance_outcomes(state)
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    return rng.choice(legal)


@settings(max_examples=36, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    options=st.sampled_from(OPTION_SETS),
    steps=st.integers(40, 320),
)
def test_random_playouts(seed: int, options: dict[str, Any], steps: int) -> None:
    game = Wormholes.from_options(options)
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(steps):
        check_invariants(game, state)
        if game.outcome(state) is not None:
            break
        legal = game.legal_actions(state)
        listed = set(legal)
        for action in rng.sample(legal, min(len(legal), 12)):
            assert game.verdict(state, action).legal, action
            assert game.action_from_json(game.action_to_json(action)) == action
        for action in rng.sample(legal, min(len(legal), 3)):
            game.apply(state, action)  # raises if apply disagrees with the verdict
        for action in rng.sample(legal, min(len(legal), 6)):
            mutant = mutate(action, rng)
            verdict = game.verdict(state, mutant)
            assert verdict.legal == (mutant in listed), (mutant, verdict)
            if not verdict.legal:
                assert verdict.code != "ok" and verdict.message
        state = game.apply(state, choose(game, state, legal, rng)).state


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_standard_games_end_with_a_ship_on_an_opposing_base(seed: int) -> None:
    game = Wormholes()
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(3000):
        if game.outcome(state) is not None:
            break
        state = game.apply(state, choose(game, state, game.legal_actions(state), rng)).state
    outcome = game.outcome(state)
    assert outcome is not None
    winner = outcome.winner or ""
    assert any(state.ship(s).at in opposing_bases(winner) for s in suits_of(winner))

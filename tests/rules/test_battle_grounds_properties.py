"""Battle Grounds property tests: seeded random playouts from the empty set-up board to the
end, checking the game's invariants in every state reached, that the listed legal actions
and the verdicts agree (for listed actions and for mutated ones), and JSON round trips."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle_grounds import (
    HIDDEN,
    PLAYERS,
    BattleGrounds,
    ChooseStat,
    Hypnotize,
    Move,
    Pass,
    PickDie,
    Place,
    ReadDie,
    Skip,
    Stat,
    State,
    Swap,
)
from rules.battle_grounds.options import WHITE_SQUARE_RULES
from rules.battle_grounds.roster import ATTACK_POWERS, opponent
from rules.geometry import Square


class SeededDice:
    """Dice for the tests only: the engine never rolls by itself."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, sides: int, what: str) -> int:
        return self.rng.randint(1, sides)


def check_invariants(game: BattleGrounds, state: State) -> None:
    table = game.table
    places: list[str] = [fig for _, fig in state.board]
    for player, held in zip(PLAYERS, state.holding):
        for fig in held:
            assert table.owner(fig) == opponent(player), "a Holding Zone keeps only enemy figures"
        places.extend(held)
    places.extend(p.figure for p in state.pending if p.figure is not None)
    assert len(places) == len(set(places)), "a figure is in two places"
    assert all(table.board.on_board(sq) for sq, _ in state.board)
    assert state.hypnotized <= set(state.where), "only figures on the board are hypnotized"
    for player in PLAYERS:
        assert len(state.dice_zone_of(player)) <= table.dice_limit[player]
    captured_cosmic = [f for held in state.holding for f in held if table.spec(f).cosmic]
    assert len(captured_cosmic) <= 1
    outcome = game.outcome(state)
    assert (outcome is None) == bool(game.to_move(state))
    if state.phase == "play":
        # every figure set up is still somewhere: board, a Holding Zone, or on its way home
        assert len(places) == sum(len(table.board.setup_squares(p)) for p in PLAYERS)
        if outcome is None:
            cosmic_on_board = [f for f in state.where if table.spec(f).cosmic]
            assert len(cosmic_on_board) == 2
    if state.battle is not None:
        battle = state.battle
        assert (
            state.at[battle.origin] == battle.attacker
            and state.at[battle.target] == battle.defender
        )
        assert table.controller(state, battle.attacker) != table.controller(state, battle.defender)
        assert not state.pending
    for player in PLAYERS:
        seen = game.view(state, player)
        assert game.state_from_json(game.state_to_json(seen)) == seen
        if seen.battle is not None:
            battle = seen.battle
            own_stat = (
                battle.attacker_stat
                if table.controller(state, battle.attacker) == player
                else battle.defender_stat
            )
            assert own_stat is not HIDDEN, "a player always sees their own choice"
    assert game.state_from_json(game.state_to_json(state)) == state


def mutate(game: BattleGrounds, action: Any, rng: random.Random) -> Any:
    """A nearby action, legal or not."""
    board = game.table.board
    ids = [f.id for f in game.table.roster.figures]
    dice = [d.name for p in PLAYERS for d in game.table.roster.dice_of(p)]

    def square() -> Square:
        return Square(rng.randint(-1, board.width), rng.randint(-1, board.height))

    def near(s: Square) -> Square:
        return Square(s.x + rng.randint(-2, 2), s.y + rng.randint(-2, 2))

    player = rng.choice(PLAYERS)
    if rng.random() < 0.1:
        return rng.choice([Pass(player), Skip(player), ChooseStat(player, rng.choice(list(Stat)))])
    if isinstance(action, Move):
        return rng.choice([
            Move(action.piece, action.frm, near(action.to)),
            Move(action.piece, near(action.frm), action.to),
            Move(rng.choice(ids), action.frm, action.to),
            Move(action.piece, action.frm, square()),
        ])  # fmt: skip
    if isinstance(action, Place):
        return rng.choice([Place(action.piece, square()), Place(rng.choice(ids), action.square)])
    if isinstance(action, Swap):
        return rng.choice(
            [
                Swap(action.piece, rng.choice(ids), action.power),
                Swap(action.piece, action.other, rng.choice(ATTACK_POWERS)),
            ]
        )
    if isinstance(action, Hypnotize):
        return rng.choice(
            [
                Hypnotize(action.piece, rng.choice(ids), action.square),
                Hypnotize(action.piece, action.captive, square()),
            ]
        )
    if isinstance(action, ChooseStat):
        return ChooseStat(player, rng.choice(list(Stat)))
    if isinstance(action, PickDie):
        return PickDie(player, rng.choice(dice), rng.choice([None, *dice]))
    if isinstance(action, ReadDie):
        return ReadDie(player, rng.choice(dice))
    return type(action)(opponent(action.player))


def playout(game: BattleGrounds, seed: int, max_steps: int, full_check_every: int) -> State:
    rng = random.Random(seed)
    state = game.initial_state()
    for step in range(max_steps):
        check_invariants(game, state)
        actions = game.legal_actions(state)
        if game.outcome(state) is not None:
            assert actions == []
            break
        assert actions, "a game that is not over always offers an action"
        assert len(set(actions)) == len(actions)
        listed = set(actions)
        for action in actions:
            verdict = game.verdict(state, action)
            assert verdict.legal, (action, verdict)
        if step % full_check_every == 0:
            for action in actions:  # every listed action is carried out by apply
                game.apply(state, action, SeededDice(random.Random(rng.random())))
        for _ in range(6):
            other = mutate(game, rng.choice(actions), rng)
            verdict = game.verdict(state, other)
            assert verdict.legal == (other in listed), (other, verdict)
            if not verdict.legal:
                assert verdict.code != "ok" and verdict.message
        action = rng.choice(actions)
        assert game.action_from_json(game.action_to_json(action)) == action
        state = game.apply(state, action, SeededDice(rng)).state
    return state


@settings(max_examples=14, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    board=st.sampled_from(["basic", "advanced"]),
    white=st.sampled_from(WHITE_SQUARE_RULES),
)
def test_random_playouts_keep_the_invariants(seed: int, board: str, white: str) -> None:
    game = BattleGrounds.from_options({"board": board, "white_square_rule": white})
    playout(game, seed, max_steps=260, full_check_every=5)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_playouts_without_the_dice_zone(seed: int) -> None:
    game = BattleGrounds.from_options(
        {"board": "advanced", "dice_zone": False, "first_player": "north"}
    )
    state = playout(game, seed, max_steps=200, full_check_every=50)
    assert state.dice_zone == (frozenset(), frozenset())


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_games_end_with_a_cosmic_capture(seed: int) -> None:
    # Skip the set-up with the default line-up and play until someone wins (random play
    # on a small board always gets there well within the step budget).
    game = BattleGrounds()
    rng = random.Random(seed)
    state = game.lineup()
    for _ in range(3000):
        if game.outcome(state) is not None:
            break
        state = game.apply(state, rng.choice(game.legal_actions(state)), SeededDice(rng)).state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner in PLAYERS
    loser = opponent(outcome.winner)
    held = state.holding_of(outcome.winner)
    assert any(game.table.spec(f).cosmic and game.table.owner(f) == loser for f in held)

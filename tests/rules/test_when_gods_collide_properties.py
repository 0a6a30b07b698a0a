"""When Gods Collide: random playouts (seeded) checking what must hold in every state."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import CHANCE
from rules.geometry import Square
from rules.when_gods_collide import (
    CallHero,
    Convert,
    ConvertMethod,
    FirstRoll,
    HeroRoll,
    Identity,
    LayTile,
    Move,
    Pass,
    Phase,
    Place,
    Push,
    Roll,
    WgcState,
    WhenGodsCollide,
)
from rules.when_gods_collide.knowledge import knows_god

OPTIONS = st.fixed_dictionaries(
    {
        "armies": st.sampled_from(
            [
                ["greek", "norse"],
                ["norse", "egyptian", "greek"],
                ["babylonian", "egyptian", "greek", "norse"],
            ]
        ),
        "tiles_per_army": st.integers(1, 3),
        "checkers_per_army": st.integers(1, 4),
        "referee_sees_gods": st.booleans(),
        "wind_landing": st.sampled_from(["blocked", "capture"]),
        "wind_distance": st.sampled_from(["up-to", "exact"]),
        "god_reveal": st.sampled_from(["mover", "all"]),
        "seth_reveal": st.sampled_from(["mover", "all"]),
        "allow_pass": st.booleans(),
        "seth_tokens": st.sampled_from([None, 0, 1]),
        "seth_lost_turn": st.sampled_from(["this", "next"]),
    }
)


def check_invariants(game: WhenGodsCollide, state: WgcState) -> None:
    options = game.options
    squares = [c.at for c in state.checkers]
    assert len(squares) == len(set(squares))
    assert all(sq in state.board for sq in squares)
    assert list(state.checkers) == sorted(state.checkers, key=lambda c: (c.at.y, c.at.x))
    natives: dict[Any, int] = {}
    for c in state.checkers:
        natives[c.army] = natives.get(c.army, 0) + 1
        assert c.side in state.alive
        if c.converted:
            assert c.identity is Identity.MORTAL and c.public
    assert all(n <= options.checkers_per_army for n in natives.values())
    over = state.phase is Phase.OVER
    assert (game.outcome(state) is not None) == over
    if over:
        assert len(state.alive) == 1
        assert game.legal_actions(state) == [] and game.to_move(state) == ()
        outcome = game.outcome(state)
        assert outcome is not None and outcome.winner == state.alive[0].value
        return
    assert game.to_move(state)
    assert game.legal_actions(state)
    if state.phase in (Phase.ROLL, Phase.MOVE, Phase.HERO_ROLL):
        assert state.current in state.alive
        for army in state.alive:
            mine = [c for c in state.checkers if c.side is army]
            gods = [c for c in mine if c.identity is Identity.GOD]
            unknown = [c for c in mine if c.identity is Identity.UNKNOWN]
            assert len(gods) == 1 or (not gods and len(unknown) >= 2)
            if gods:
                assert gods[0].army is army and not unknown


def check_views(game: WhenGodsCollide, state: WgcState, rng: random.Random) -> None:
    for player in state.alive:
        seen = game.view(state, player.value)
        assert len(seen.checkers) == len(state.checkers)
        god_known = {c.side for c in state.checkers if knows_god(c, player)}
        for c, v in zip(state.checkers, seen.checkers):
            assert v.seen_by <= {player}
            allowed = c.known_to(player) or c.side in god_known
            assert (v.identity is not Identity.HIDDEN) == allowed
            if allowed:
                assert v.identity is c.identity
        # moving an unseen god to another unseen checker of its army changes nothing for player
        for army in state.alive:
            if army is player or army in god_known:
                continue
            hidden = [
                c for c in state.checkers
                if c.side is army and c.army is army and not c.known_to(player)
                and c.identity in (Identity.GOD, Identity.MORTAL)
            ]
            god = [c for c in hidden if c.identity is Identity.GOD]
            mortal = [c for c in hidden if c.identity is Identity.MORTAL]
            if god and mortal:
                other = rng.choice(mortal)
                swapped = tuple(
                    replace(c, identity=Identity.MORTAL) if c is god[0]
                    else replace(c, identity=Identity.GOD) if c is other else c
                    for c in state.checkers
                )
                assert game.view(replace(state, checkers=swapped), player.value) == seen


def mutations(action: Any, rng: random.Random) -> list[Any]:
    def near(sq: Square) -> Square:
        dx, dy = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1), (2, 1), (1, 1)])
        return Square(sq.x + dx, sq.y + dy)

    if isinstance(action, Move):
        out = [replace(action, to=near(action.to)), replace(action, frm=near(action.frm))]
        if action.via:
            out.append(replace(action, via=action.via[:-1]))
        found = action.gods_found
        out.append(replace(action, gods_found=frozenset({action.to}) if not found else frozenset()))
        return out
    if isinstance(action, Push):
        return [replace(action, to=near(action.to)), replace(action, frm=near(action.frm))]
    if isinstance(action, Convert):
        token = action.method is ConvertMethod.TOKEN
        other = ConvertMethod.REPLACE if token else ConvertMethod.TOKEN
        return [replace(action, at=near(action.at)), replace(action, method=other)]
    if isinstance(action, Place):
        return [replace(action, at=near(action.at)), replace(action, god=not action.god)]
    if isinstance(action, LayTile):
        return [LayTile(near(action.at)), LayTile(Square(action.at.x + 2, action.at.y + 4))]
    if isinstance(action, (FirstRoll, Roll, HeroRoll)):
        return [replace(action, number=7)]
    return [Pass(), CallHero()]


def play(game: WhenGodsCollide, seed: int, max_steps: int) -> WgcState:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(max_steps):
        check_invariants(game, state)
        data = game.state_to_json(state)
        assert game.state_from_json(data) == state
        if state.phase is Phase.OVER:
            break
        check_views(game, state, rng)
        legal = game.legal_actions(state)
        legal_set = set(legal)
        assert len(legal_set) == len(legal)
        sample = rng.sample(legal, min(6, len(legal)))
        for action in sample:
            assert game.verdict(state, action).legal
            assert game.action_from_json(game.action_to_json(action)) == action
            for wrong in mutations(action, rng):
                if wrong in legal_set or (isinstance(wrong, LayTile) and not state.tiles):
                    continue
                verdict = game.verdict(state, wrong)
                if verdict.legal:
                    # A true statement of what was found is always accepted; the list gives
                    # the unstated form when the referee knows every flipped checker.
                    assert isinstance(wrong, (Move, Push, Convert)), wrong
                    assert replace(wrong, gods_found=None) in legal_set, wrong
                    continue
                assert verdict.code != "ok" and verdict.message
        if CHANCE in game.to_move(state):
            action = rng.choice(legal)
        elif CallHero() in legal_set and rng.random() < 0.8:
            action = CallHero()
        else:
            action = rng.choice(sample)
        before = len(state.checkers)
        step = game.apply(state, action)
        assert step.events
        if state.phase is not Phase.DEPLOY:
            assert len(step.state.checkers) <= before
        state = step.state
    return state


@settings(max_examples=120, deadline=None, derandomize=True)
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_random_playouts_keep_every_invariant(options: dict[str, Any], seed: int) -> None:
    game = WhenGodsCollide.from_options(options)
    play(game, seed, max_steps=220)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_full_size_games_reach_an_end(seed: int) -> None:
    game = WhenGodsCollide.from_options(
        {"armies": ["greek", "norse"], "checkers_per_army": 6, "tiles_per_army": 3}
    )
    final = play(game, seed, max_steps=2000)
    assert final.phase is Phase.OVER

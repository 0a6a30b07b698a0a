"""The Game: random playouts (seeded in the test) checking invariants, legality and JSON."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.geometry import FieldPoint
from rules.the_game import (
    Act,
    Exit,
    Footprint,
    Move,
    Pass,
    Phase,
    PieceSpec,
    Presence,
    Setup,
    Split,
    Stay,
    Take,
    TheGame,
    TheGameState,
)
from rules.the_game.flow import due
from rules.the_game.moves import Field
from rules.the_game.sight import edge_gap

OPTION_SETS = [
    {},
    {"sequences": 2, "field_width": 36, "field_depth": 30, "field_of_vision": 120,
     "idle_turns": 1},
    {"sequences": 2, "observer_counts_as_observed": True, "unobserved_full_move": False,
     "unobserved_must_move": False, "opponent_chooses_group": False, "tolerance": 0.1},
    {"sequences": 3, "field_of_vision": 300, "scoring": "knockdowns", "sides": ["gold", "grey"],
     "footprint": {"shape": "rectangle", "length": 1.2, "width": 0.6}},
]
FOOTPRINTS = [None, Footprint.ellipse(1.6, 0.9), Footprint.rectangle(2.5, 0.4),
              Footprint.polygon((FieldPoint(0.7, 0), FieldPoint(0.2, 0.6),
                                 FieldPoint(-0.6, 0.4), FieldPoint(-0.5, -0.5)))]
SETUP_CODES = {"ok", "facing-away", "outside-field"}


class Dice:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, sides: int, what: str) -> int:
        return self.rng.randint(1, sides)


def random_setup(game: TheGame, rng: random.Random) -> Setup:
    opts = game.options
    w, d = opts.field_width, opts.field_depth
    specs = []
    for k, side in enumerate(opts.sides):
        for i in range(rng.randint(1, 4)):
            y = rng.uniform(1.5, d * 0.45) if k == 0 else rng.uniform(d * 0.55, d - 1.5)
            facing = (90.0 if k == 0 else 270.0) + rng.uniform(-60, 60)
            at = FieldPoint(rng.uniform(1.5, w - 1.5), y)
            specs.append(PieceSpec(f"{side[0]}{k}{i}", side, at, facing, rng.choice(FOOTPRINTS)))
    return Setup(tuple(specs), rng.choice(opts.sides))


def measured_move(game: TheGame, state: TheGameState, rng: random.Random) -> Move | None:
    """A random move of a due piece of the player to move: half the time anywhere within
    6", half the time straight at the nearest piece of the other player, stopping short
    of it by a little (or None when the player has no piece due)."""
    player = game.to_move(state)[0]
    mine = [p for p in state.pieces if p.controller == player and due(state, p, game.options)]
    if not mine:
        return None
    p = rng.choice(mine)
    others = [q for q in state.in_play() if q.controller != player]
    if others and rng.random() < 0.5:
        q = min(others, key=lambda q: p.at.distance(q.at))
        d = p.at.distance(q.at)
        r = min(game.options.observed_move, max(0.0, edge_gap(p, q)[0] - rng.uniform(0.1, 0.9)))
        a = math.atan2(q.at.y - p.at.y, q.at.x - p.at.x) if d > 0 else 0.0
        facing = math.degrees(a) + rng.uniform(-30, 30)
    else:
        r = game.options.observed_move * math.sqrt(rng.random())
        a = rng.uniform(0, 2 * math.pi)
        facing = rng.uniform(0, 360)
    return Move(p.id, FieldPoint(p.at.x + r * math.cos(a), p.at.y + r * math.sin(a)), facing)


def check_invariants(game: TheGame, state: TheGameState) -> None:
    opts = game.options
    hash(state)
    assert game.state_from_json(game.state_to_json(state)) == state
    assert (game.outcome(state) is not None) == (state.phase is Phase.OVER)
    assert len(state.records) == state.sequence - 1 + (state.phase is Phase.OVER)
    ids = [p.id for p in state.pieces]
    assert len(ids) == len(set(ids))
    standing = state.in_play()
    if state.phase in (Phase.MOVEMENT, Phase.ACTION):
        assert standing and state.record is not None
        down = {p.id for p in state.pieces if p.presence is Presence.DOWN}
        off = {p.id for p in state.pieces if p.presence is Presence.OFF}
        assert down == {k.piece for k in state.record.knockdowns}
        assert off == {d.piece for d in state.record.departures}
        movers = game.to_move(state)
        assert len(movers) == 1
        if state.split is not None:
            assert len({p.controller for p in standing}) == 1 and len(standing) >= 2
        elif state.response is not None:
            responder = state.piece(state.response.responder)
            actor = state.piece(state.response.actor)
            assert responder.in_play and actor.in_play and actor.done
            assert responder.controller != actor.controller == game.options.other(movers[0])
        else:
            assert any(p.controller == movers[0] and due(state, p, opts) for p in standing)
    for sighting in game.observation(state).values():
        if sighting.reason == "mutual":
            assert sighting.observed and sighting.partners
        if sighting.reason == "horizon":
            assert not sighting.sees and not sighting.observed
        if sighting.observed:
            assert sighting.reason in ("mutual", "watching")


def mutations(game: TheGame, state: TheGameState, action: Any) -> list[tuple[Any, set[str]]]:
    """Illegal variants of a legal action, with the verdict codes each may get."""
    opts = game.options
    out: list[tuple[Any, set[str]]] = []
    if state.response is not None:
        out.append((Pass(game.to_move(state)[0]), {"response-pending"}))
        return out
    player = game.to_move(state)[0] if state.phase is not Phase.SETUP else None
    others = [p for p in state.in_play() if p.controller != player]
    if isinstance(action, (Move, Exit, Stay, Act)):
        out.append((type(action)("ZZ", *list(vars(action).values())[1:]), {"unknown-piece"}))
        if others:
            out.append((type(action)(others[0].id, *list(vars(action).values())[1:]),
                        {"not-your-turn"}))
    if isinstance(action, Act):
        friends = [p for p in state.in_play() if p.controller == player and p.id != action.piece]
        if friends:
            out.append((Act(action.piece, friends[0].id), {"same-side"}))
    if isinstance(action, Move):
        piece = state.piece(action.piece)
        observed = game.observation(state)[piece.id].observed and len(state.in_play()) > 1
        if observed:
            far = opts.observed_move + opts.tolerance + 0.5
            field = Field(opts.field_width, opts.field_depth)
            for k in range(16):
                a = k * math.pi / 8
                to = FieldPoint(piece.at.x + far * math.cos(a), piece.at.y + far * math.sin(a))
                if field.strictly_inside(to):
                    out.append((Move(piece.id, to, None), {"too-far"}))
                    break
    if isinstance(action, Pass):
        out.append((Pass(opts.other(action.player)), {"not-your-turn"}))
    if isinstance(action, Split):
        out.append((Split(action.player, action.group + ("ZZ",)), {"not-your-piece"}))
    if isinstance(action, Take):
        everyone = tuple(p.id for p in state.in_play())
        out.append((Take(action.player, everyone), {"not-a-group"}))
    if isinstance(action, Setup):
        out.append((Setup(action.pieces + action.pieces[:1], action.first), {"duplicate-piece"}))
    return out


def playout(game: TheGame, seed: int, max_steps: int) -> Counter[str]:
    """Play from the start; returns how often each event kind happened (and ``steps``)."""
    seen: Counter[str] = Counter()
    rng = random.Random(seed)
    dice = Dice(rng)
    state = game.initial_state()
    steps = 0
    while game.outcome(state) is None and steps < max_steps:
        check_invariants(game, state)
        listed = game.legal_actions(state)
        assert listed
        for action in listed:  # every listed action is accepted, and applies
            verdict = game.verdict(state, action)
            assert verdict.legal, (action, verdict)
            game.apply(state, action, Dice(random.Random(steps)))
            assert game.action_from_json(game.action_to_json(action)) == action
        for action in rng.sample(listed, min(3, len(listed))):
            for mutant, codes in mutations(game, state, action):
                verdict = game.verdict(state, mutant)
                assert not verdict.legal and verdict.code in codes, (mutant, verdict)
                assert verdict.message
        action = rng.choice(listed)
        acts = [a for a in listed if isinstance(a, Act)]
        if acts and rng.random() < 0.8:  # pieces in range mostly act
            action = rng.choice(acts)
        if state.phase is Phase.SETUP and rng.random() < 0.7:
            candidate = random_setup(game, rng)
            verdict = game.verdict(state, candidate)
            assert verdict.code in SETUP_CODES, verdict
            if verdict.legal:
                action = candidate
        elif state.phase is Phase.MOVEMENT and state.split is None and rng.random() < 0.7:
            candidate = measured_move(game, state, rng)
            if candidate is not None:
                piece = state.piece(candidate.piece)
                verdict = game.verdict(state, candidate)
                if game.observation(state)[piece.id].observed and len(state.in_play()) > 1:
                    assert verdict.legal, verdict  # within 6": always allowed when observed
                    action = candidate
                else:
                    assert verdict.code in {"ok", "too-short", "not-towards-edge", "too-far"}
        step = game.apply(state, action, dice)
        seen.update(e.kind for e in step.events)
        seen[type(action).__name__] += 1
        if state.response is not None and isinstance(action, Act):
            seen["response"] += 1
        state = step.state
        steps += 1
    check_invariants(game, state)
    seen["steps"] = steps
    return seen


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(range(len(OPTION_SETS))))
def test_random_playouts_keep_the_rules_consistent(seed: int, which: int) -> None:
    game = TheGame.from_options(OPTION_SETS[which])
    playout(game, seed, max_steps=250)


def test_fixed_seed_playouts_reach_the_end_and_visit_every_kind_of_position() -> None:
    seen: Counter[str] = Counter()
    for seed in range(6):
        game = TheGame.from_options(OPTION_SETS[seed % len(OPTION_SETS)])
        result = playout(game, seed, max_steps=2000)
        assert result["steps"] < 2000 and result["draw"] + result["victory"] == 1
        seen += result
    # the checks above ran through splits, responses, knockdowns and walking off
    for kind in ("Split", "Take", "Act", "response", "Move", "Exit", "Stay", "Pass",
                 "elimination", "lost"):
        assert seen[kind] > 0, kind


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(0.6, 23.4), st.floats(0.6, 23.4), st.floats(0.6, 23.4), st.floats(0.6, 23.4))
def test_an_observed_move_is_legal_exactly_when_it_is_short_enough(
    x0: float, y0: float, x1: float, y1: float
) -> None:
    game = TheGame()
    state = game.state_from_json({
        "phase": "movement", "turn": 1, "first": "red", "next": "red",
        "pieces": [{"id": "R1", "side": "red", "at": {"x": x0, "y": y0}, "facing": 0},
                   {"id": "B1", "side": "blue", "at": {"x": x0 + 0.001, "y": y0 + 0.001},
                    "facing": 180}],
    })
    # overlapping discs facing opposite ways: each has the other's centre in its footprint,
    # so they see each other whatever the positions
    assert game.observation(state)["R1"].observed
    verdict = game.verdict(state, Move("R1", FieldPoint(x1, y1), None))
    distance = math.hypot(x1 - x0, y1 - y0)
    assert verdict.legal == (distance <= 6.25)
    if not verdict.legal:
        assert verdict.code == "too-far"
        assert abs(verdict.detail("excess") - (distance - 6)) < 1e-3

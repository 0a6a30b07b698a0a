"""Legal positions to render, drawn from the rules engines.

A position is only ever produced by an engine: either by replaying a game record (the
application passes the one bundled for the game, ``tabletop/data/records/<game>.jsonl``,
as text) or by a seeded random
playout from the engine's starting position (random legal actions, chance outcomes drawn
with their probabilities, dice rolled by a seeded roller), after a set-up made by the
game's own helpers (OneWorld's ``example_setup`` and random set-ups checked by the
engine's verdict; The Game's ``default_setup`` with the pieces scattered).

Images come in blocks that share one game (a record or a playout): block ``b`` of seed
``s`` always plays the same game, and image ``i`` of it the same moment of that game, so
a dataset is reproducible image by image, in any order and in any worker process.

>>> sampler = PositionSampler("wormholes", seed=3)
>>> a = sampler.sample(5)
>>> b = PositionSampler("wormholes", seed=3).sample(5)
>>> a.game.state_to_json(a.state) == b.game.state_to_json(b.state)
True
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.core import CHANCE, GameRules
from rules.errors import RulesError
from rules.registry import get_game

__all__ = ["GAME_OPTIONS", "PositionSampler", "RngDice", "Sampled", "replay_record"]

#: Options varied between playouts, per game (each playout picks one at random).
GAME_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "oneworld": [{}],
    "when-gods-collide": [
        {"armies": ["greek", "norse"]},
        {"armies": ["babylonian", "egyptian"]},
        {"armies": ["egyptian", "greek", "norse"], "checkers_per_army": 8, "tiles_per_army": 4},
        {"armies": ["babylonian", "egyptian", "greek", "norse"], "checkers_per_army": 8, "tiles_per_army": 4},
    ],
    "wormholes": [{}],
    "battle-grounds": [{"board": "basic"}, {"board": "advanced"}],
    "the-game": [{}],
}

#: Images that share one game, per game (a OneWorld playout costs most to make).
BLOCKS = {"oneworld": 64}

#: Longest random playout, in actions, per game (longer games are cut).
MAX_STEPS = {"oneworld": 100, "when-gods-collide": 160, "wormholes": 140, "battle-grounds": 140, "the-game": 120}


class RngDice:
    """Dice for ``game.apply`` from a numpy generator (seeded by the caller)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def roll(self, sides: int, what: str) -> int:
        return int(self.rng.integers(1, sides + 1))


@dataclass(frozen=True)
class Sampled:
    """One legal position: the engine, its state, and where it came from."""

    game: GameRules[Any, Any]
    state: Any
    source: str  # "record:<game>" or "playout:<block>"
    step: int  # actions played since the start of the source

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "step": self.step, "options": self.game.options_to_json()}


class _Trajectory:
    """The states of one game, extended on demand."""

    def __init__(self, game: GameRules[Any, Any], start: Any, rng: np.random.Generator, limit: int, source: str,
                 states: list[Any] | None = None, name: str = "") -> None:
        self.game = game
        self.name = name
        self.states = states if states is not None else [start]
        self.rng = rng
        self.limit = limit
        self.source = source
        self.done = states is not None

    def state_at(self, k: int) -> tuple[int, Any]:
        while not self.done and len(self.states) <= k:
            nxt = _random_step(self.game, self.states[-1], self.rng, self.name)
            if nxt is None or len(self.states) > self.limit:
                self.done = True
                break
            self.states.append(nxt)
        k = min(k, len(self.states) - 1)
        return k, self.states[k]


class PositionSampler:
    """Legal positions of ``game`` for image ``index`` of a dataset made with ``seed``."""

    def __init__(self, game: str, seed: int, record: str | None = None, block: int | None = None,
                 record_share: float = 0.35) -> None:
        get_game(game)  # fails early for an unknown game
        self.name = game
        self.seed = int(seed)
        self.block = block or BLOCKS.get(game, 32)
        self.record_text = record
        self.record_share = record_share if record else 0.0
        self._cache: OrderedDict[int, _Trajectory] = OrderedDict()
        self._record: tuple[GameRules[Any, Any], list[Any]] | None = None

    def sample(self, index: int) -> Sampled:
        b = index // self.block
        traj = self._trajectory(b)
        rng = np.random.default_rng([self.seed, index, 101])
        n = traj.limit  # not how far the playout got so far: the same k in any order of calls
        # later moments are more interesting (the board is set up); skip most of set-up
        lo = 0 if n < 8 else int(n * 0.12)
        k = int(rng.integers(lo, max(lo + 1, n)))
        k, state = traj.state_at(k)
        # a playout that ended early leaves the last states over-represented: fine. Some
        # moments show nothing to detect (The Game between sequences): take an earlier one.
        j = k
        while j > 0 and not _shows_pieces(self.name, traj.game, state):
            j -= 1
            state = traj.states[j]
        if _shows_pieces(self.name, traj.game, state):
            return Sampled(traj.game, state, traj.source, j)
        for j in range(k + 1, k + 80):  # nothing before: look ahead instead
            j, state = traj.state_at(j)
            if _shows_pieces(self.name, traj.game, state):
                return Sampled(traj.game, state, traj.source, j)
        k, state = traj.state_at(k)
        return Sampled(traj.game, state, traj.source, k)

    def _trajectory(self, b: int) -> _Trajectory:
        t = self._cache.get(b)
        if t is not None:
            self._cache.move_to_end(b)
            return t
        rng = np.random.default_rng([self.seed, b, 7])
        if rng.random() < self.record_share:
            game, states = self._record_states()
            t = _Trajectory(game, states[0], rng, len(states), f"record:{self.name}", states, self.name)
        else:
            choices = GAME_OPTIONS.get(self.name, [{}])
            options = choices[int(rng.integers(len(choices)))]
            game = get_game(self.name, options)
            start = _start(self.name, game, rng)
            t = _Trajectory(game, start, rng, MAX_STEPS.get(self.name, 120), f"playout:{b}", name=self.name)
        self._cache[b] = t
        while len(self._cache) > 3:
            self._cache.popitem(last=False)
        return t

    def _record_states(self) -> tuple[GameRules[Any, Any], list[Any]]:
        if self._record is None:
            assert self.record_text is not None
            self._record = replay_record(self.record_text)
        return self._record


def replay_record(text: str) -> tuple[GameRules[Any, Any], list[Any]]:
    """The engine of a game record (JSON Lines, docs/formats.md) and every state it passes
    through, start included. Raises :class:`RulesError` or ``ValueError`` for a bad record."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not lines or not isinstance(lines[0], dict) or "game" not in lines[0]:
        raise ValueError("a game record starts with a header naming the game")
    header = lines[0]
    game = get_game(header["game"], header.get("options") or {})
    state = game.state_from_json(header["position"]) if header.get("position") is not None else game.initial_state()
    states = [state]
    for entry in lines[1:]:
        action = game.action_from_json(entry["action"])
        state = game.apply(state, action, list(entry.get("rolls", []))).state
        states.append(state)
    return game, states


def _shows_pieces(name: str, game: GameRules[Any, Any], state: Any) -> bool:
    """Whether a position has pieces on the board worth a picture (The Game between two
    sequences has none; When Gods Collide has none while tiles are laid)."""
    if name == "the-game":
        pieces = game.state_to_json(state).get("pieces", [])
        return any(p.get("presence") == "in-play" for p in pieces)
    if name == "when-gods-collide":
        return bool(game.state_to_json(state).get("checkers"))
    return True


def _random_step(game: GameRules[Any, Any], state: Any, rng: np.random.Generator, name: str = "") -> Any | None:
    """One random legal action (or chance outcome) applied; ``None`` when the game is over
    or stuck. The Game's set-ups are scattered at random rather than in the engine's
    plain rows."""
    if game.outcome(state) is not None:
        return None
    if name == "the-game" and game.state_to_json(state).get("phase") == "setup":
        try:
            return _the_game_setup(game, state, rng)
        except RulesError:
            pass
    to_move = game.to_move(state)
    if not to_move:
        return None
    try:
        if CHANCE in to_move:
            outcomes = game.chance_outcomes(state)
            if not outcomes:
                return None
            p = np.array([w for _, w in outcomes], float)
            action = outcomes[int(rng.choice(len(outcomes), p=p / p.sum()))][0]
        else:
            actions = game.legal_actions(state)
            if not actions:
                return None
            action = actions[int(rng.integers(len(actions)))]
            if name == "when-gods-collide":
                return _on_the_mat(game, state, action, actions, rng)
        return game.apply(state, action, RngDice(rng)).state
    except RulesError:
        return None


def _mat_holds(game: GameRules[Any, Any], state: Any) -> bool:
    """Whether the kit can lay When Gods Collide's tiles out on its 16 x 16 mat."""
    from vision.artwork import ArtworkError
    from vision.artwork.when_gods_collide import WhenGodsCollideKit

    tiles = game.state_to_json(state).get("tiles") or []
    if not tiles:  # none laid yet
        return True
    try:
        WhenGodsCollideKit.mat_offset(tiles)
    except ArtworkError:
        return False
    return True


def _on_the_mat(game: GameRules[Any, Any], state: Any, action: Any, actions: list[Any],
                rng: np.random.Generator) -> Any | None:
    """``action`` applied, or, when it lays a tile where the kit's mat cannot hold the board,
    another of ``actions`` that keeps it on the mat (``None``: none does): a rendered table
    is always one the kit can lay out."""
    after = game.apply(state, action, RngDice(rng)).state
    if _mat_holds(game, after):
        return after
    for i in rng.permutation(len(actions)):
        if actions[int(i)] == action:
            continue
        after = game.apply(state, actions[int(i)], RngDice(rng)).state
        if _mat_holds(game, after):
            return after
    return None


# -- starting positions that need a set-up -------------------------------------------------

def _start(name: str, game: GameRules[Any, Any], rng: np.random.Generator) -> Any:
    state = game.initial_state() if name != "the-game" else None
    if name == "oneworld":
        return _oneworld_start(game, state, rng)
    if name == "the-game":
        return _the_game_start(game, rng)
    return state


def _oneworld_start(game: Any, state: Any, rng: np.random.Generator) -> Any:
    """Both set-ups (random ones the engine accepts, else the example set-up) and the Tower
    choice, played through the engine."""
    from rules.oneworld.model import ChooseTower, Side
    from rules.oneworld.setup import example_setup

    board, options = game.board, game.options
    for side in (Side.BORG, None, Side.CHEZ):
        if side is None:
            towers = list(board.tower_hexes())
            action: Any = ChooseTower(Side.CHEZ, towers[int(rng.integers(len(towers)))])
        else:
            action = _random_setup(game, state, side, rng) or example_setup(board, options, state, side)
        state = game.apply(state, action, RngDice(rng)).state
    return state


def _random_setup(game: Any, state: Any, side: Any, rng: np.random.Generator) -> Any | None:
    from rules.oneworld.model import Aspect, End, SetUp

    board, options = game.board, game.options
    taken = state.end_of(side.other())
    end = taken.other() if taken else (End.NORTH if rng.random() < 0.5 else End.SOUTH)
    towers = set(board.tower_hexes())
    cells = sorted(board.cells)
    home = [h for h in cells if board.rows_from_end(h, end) <= options.setup_god_rows and h not in towers]
    for _ in range(6):
        god = home[int(rng.integers(len(home)))]
        near = [h for h in cells if h != god and h not in towers and 0 < h.distance(god) <= min(4, options.setup_child_range)]
        placed = []
        counts: dict[Any, int] = {}
        aspects = list(Aspect)
        while len(placed) < options.children_per_side and near:
            h = near[int(rng.integers(len(near)))]
            if counts.get(h, 0) >= options.stacking_limit:
                continue
            counts[h] = counts.get(h, 0) + 1
            placed.append((h, aspects[int(rng.integers(3))]))
        action = SetUp(side, god, tuple(placed), end if taken is None else None)
        if game.verdict(state, action).legal:
            return action
    return None


def _the_game_start(game: Any, rng: np.random.Generator) -> Any:
    return _the_game_setup(game, game.initial_state(), rng)


def _the_game_setup(game: Any, state: Any, rng: np.random.Generator) -> Any:
    """A set-up of 2 to 5 pieces a side, natural shapes, scattered facing each other."""
    base = game.default_setup(int(rng.integers(2, 6)))
    data = game.action_to_json(base)
    width = game.options.field_width
    depth = game.options.field_depth
    shapes = [
        {"shape": "ellipse", "length": 1.0, "width": 1.0},
        {"shape": "ellipse", "length": 1.6, "width": 0.9},
        {"shape": "ellipse", "length": 2.2, "width": 1.4},
        {"shape": "rectangle", "length": 2.5, "width": 0.4},
        {"shape": "rectangle", "length": 3.5, "width": 0.5},
        {"shape": "polygon", "points": [{"x": 0.9, "y": 0.0}, {"x": 0.2, "y": 0.6}, {"x": -0.8, "y": 0.3},
                                         {"x": -0.7, "y": -0.4}, {"x": 0.3, "y": -0.6}]},
    ]
    for _ in range(10):
        pieces = []
        for p in data["pieces"]:
            q = dict(p)
            near = q["side"] == data["pieces"][0]["side"]
            y = rng.uniform(2.5, depth * 0.42) if near else rng.uniform(depth * 0.58, depth - 2.5)
            x = rng.uniform(2.5, width - 2.5)
            q["at"] = {"x": round(float(x), 2), "y": round(float(y), 2)}
            facing = 90.0 if near else 270.0
            q["facing"] = round(float(facing + rng.normal(0, 25)), 1)
            q["footprint"] = shapes[int(rng.integers(len(shapes)))]
            pieces.append(q)
        candidate = dict(data, pieces=pieces)
        try:
            action = game.action_from_json(candidate)
        except RulesError:
            continue
        if game.verdict(state, action).legal:
            return game.apply(state, action).state
    return game.apply(state, base).state


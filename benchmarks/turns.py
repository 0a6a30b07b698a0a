"""Rendered turn sequences for the live referee benchmark: a legal or an illegal move, frame by frame.

A turn starts from a position reached by a seeded random legal playout of the game's engine
(:class:`vision.render.positions.PositionSampler`, with a seed of its own: not the sample
images' record, not the training or evaluation seeds). The mover is the player the engine
waits for; the move is either one of the engine's legal move actions, or one of the mover's
pieces put on a random empty cell (The Game: a random point clear of the other pieces) that
the engine refuses, checked with ``game.verdict``. The Game's moves, legal or not, put the
moved piece down clear of the others: a hand cannot put a piece into another's place. (The
playouts' own positions, where the engine let pieces end on one another, are drawn as they
are.) The frames are drawn as ``tools/make_sample_images.py`` draws the sample
turns (its :class:`TurnMaker` and hand frames: reach, lift, carry, put down), at 640x480, in
one camera view per turn, and laid out on a stream clock::

    board x STILL_BEFORE | reach, lift, carry, put-down, each x HAND_REPEAT | board after x STILL_AFTER

at :data:`FPS` frames a second. A still frame shown several times gets fresh sensor noise
each time (a camera never gives the same frame twice).

>>> turn = make_turn("battle-grounds", seed=7, index=0, legal=False, size=(320, 240))
>>> turn.legal, turn.verdict.legal, len(turn.stream) == STILL_BEFORE + 4 * HAND_REPEAT + STILL_AFTER
(False, False, True)
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.core import CHANCE, GameRules, Verdict
from rules.errors import RulesError
from vision.artwork import ArtworkError
from vision.render import RenderOptions

__all__ = [
    "FPS",
    "HAND_REPEAT",
    "STILL_AFTER",
    "STILL_BEFORE",
    "StreamFrame",
    "Turn",
    "TurnRenderer",
    "make_turn",
    "same_on_table",
    "sample_position",
]

FPS = 15.0
STILL_BEFORE = 8  # 0.53 s: the position before is accepted (window 0.3 s) before the hand comes
HAND_REPEAT = 2  # each hand moment twice: 8 frames, 0.53 s with a hand over the board
STILL_AFTER = 15  # 1 s of the board after the move: time for the window and for a late reading
NOISE = 3  # sensor noise of a repeated still frame, +-levels of 255


@cache
def _samples_tool() -> Any:
    """``tools/make_sample_images.py`` as a module (its turn drawing is reused, unchanged)."""
    spec = importlib.util.spec_from_file_location("make_sample_images", ROOT / "tools" / "make_sample_images.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_sample_images", module)
    spec.loader.exec_module(module)
    return module


@dataclass
class StreamFrame:
    """One frame of the stream: which drawn picture it shows, its time, whether a hand is
    over the board in the ground truth."""

    picture: int
    t: float
    moment: str
    hand_over_board: bool


@dataclass
class Turn:
    """One rendered turn: the engine and its position, the move (engine JSON), whether the
    engine allows it, the pictures (image and ground truth) and the stream of frames."""

    game_name: str
    index: int
    game: GameRules[Any, Any]
    state: Any
    action: dict[str, Any]
    legal: bool
    verdict: Verdict
    mover: str
    images: list[np.ndarray]
    truths: list[dict[str, Any]]
    stream: list[StreamFrame]
    seed: int

    def frame(self, k: int, rng: np.random.Generator | None = None, noise: int = NOISE) -> np.ndarray:
        """The image of stream frame ``k``; with ``rng``, with fresh sensor noise (uniform,
        +-``noise`` levels)."""
        img = self.images[self.stream[k].picture]
        if rng is None or noise <= 0:
            return img
        grain = rng.integers(-noise, noise + 1, img.shape, dtype=np.int16)
        return np.clip(img.astype(np.int16) + grain, 0, 255).astype(np.uint8)

    @property
    def looks(self) -> dict[str, tuple[str, str]]:
        """Piece id -> (class, cell) as the table shows them before the move."""
        return {str(p["piece"]): (p["class"], json.dumps(p.get("cell"), sort_keys=True))
                for p in self.truths[0]["pieces"] if p.get("piece") is not None}

    @property
    def first_free(self) -> float:
        """Stream time of the first frame after the hand has left the board for good."""
        last_hand = max(i for i, f in enumerate(self.stream) if f.hand_over_board)
        return self.stream[last_hand + 1].t


# -- positions and moves -----------------------------------------------------------------------

def _move_actions(game: GameRules[Any, Any], state: Any) -> list[dict[str, Any]]:
    to_move = game.to_move(state)
    if not to_move or CHANCE in to_move or len(to_move) != 1 or game.outcome(state) is not None:
        return []
    return [aj for aj in (game.action_to_json(a) for a in game.legal_actions(state)) if aj.get("type") == "move"]


def sample_position(game_name: str, seed: int, index: int) -> tuple[GameRules[Any, Any], Any]:
    """A position of a seeded random playout where one player is to make a move (a piece
    that moves), for turn ``index`` of ``seed``."""
    from vision.render.positions import PositionSampler, _random_step

    sampler = PositionSampler(game_name, seed=seed)
    rng = np.random.default_rng([seed, index, 17])
    for attempt in range(50):
        sampled = sampler.sample(index * 50 + attempt)
        game, state = sampled.game, sampled.state
        for _ in range(40):
            if _move_actions(game, state):
                return game, state
            nxt = _random_step(game, state, rng, game_name)
            if nxt is None:
                break
            state = nxt
    raise RuntimeError(f"{game_name}: no position with a move to make near turn {index} of seed {seed}")


def _piece_key(game_name: str, aj: dict[str, Any]) -> Any:
    return aj.get("piece", aj.get("ship", aj.get("from")))


def same_on_table(looks: dict[str, tuple[str, str]], a: dict[str, Any], b: dict[str, Any] | None) -> bool:
    """Whether moves ``a`` and ``b`` (engine JSON) look the same to a camera: the same
    destination (The Game: within 0.75 inch), and the same piece or one of the same class
    from the same cell (two Stones of a OneWorld stack)."""
    if not b:
        return False
    ta, tb = a.get("to"), b.get("to")
    if isinstance(ta, dict) and isinstance(tb, dict):
        if math.dist((ta["x"], ta["y"]), (tb["x"], tb["y"])) > 0.75:
            return False
    elif str(ta) != str(tb):
        return False
    if "from" in a and "from" in b and str(a["from"]) != str(b["from"]):
        return False
    pa, pb = a.get("piece", a.get("ship")), b.get("piece", b.get("ship"))
    if pa is None or pb is None or str(pa) == str(pb):
        return True
    return str(pa) in looks and looks.get(str(pa)) == looks.get(str(pb))


def _illegal_move(game_name: str, game: GameRules[Any, Any], state: Any, legal: list[dict[str, Any]],
                  rng: np.random.Generator) -> tuple[dict[str, Any], Verdict] | None:
    """One of the mover's movable pieces put where the engine says no: a random empty cell
    (The Game: a point 1-8 inches beyond its longest listed legal move, clear of the other
    pieces), checked by
    ``verdict``. A The Game move refused as too long by no more than the camera's measure
    (:func:`_measurable`) is not taken: the referee reads it, by design, as the longest
    legal move."""
    tool = _samples_tool()
    pos = game.state_to_json(state)
    pieces = sorted({json.dumps(_piece_key(game_name, aj)) for aj in legal})
    rng.shuffle(pieces)
    for key in pieces[:6]:
        mine = [aj for aj in legal if json.dumps(_piece_key(game_name, aj)) == key]
        what = tool.moved_piece(game_name, mine[0], pos)
        for to in _candidates(game_name, game, pos, mine, what, rng):
            aj = dict(mine[0], to=to)
            if game_name == "the-game":
                aj["facing"] = next(p for p in pos["pieces"] if p["id"] == what["piece"]).get("facing", 0.0)
            try:
                verdict = game.verdict(state, game.action_from_json(aj))
            except (RulesError, ValueError, KeyError):
                continue
            if not verdict.legal and _measurable(verdict):
                return aj, verdict
    return None


def _measurable(verdict: Verdict) -> bool:
    """Whether an illegal move is one a camera can tell from a legal one: not a move refused as
    too long (The Game) by at most the tolerance and the camera's measure of distance
    (``tabletop.live.infer.MEASURE_IN``). The engine lists a sample of a piece's legal moves,
    so a point beyond the longest one listed may be only a little beyond the piece's limit."""
    from tabletop.live.infer import MEASURE_IN

    info = dict(verdict.details or ())
    if verdict.code != "too-far" or "excess" not in info:
        return True
    return float(info["excess"]) > float(info.get("tolerance", 0.0)) + MEASURE_IN


def _candidates(game_name: str, game: GameRules[Any, Any], pos: dict[str, Any], mine: list[dict[str, Any]],
                what: dict[str, Any], rng: np.random.Generator) -> list[Any]:
    if game_name == "the-game":
        frm = what["from"]
        reach = max(math.dist((frm["x"], frm["y"]), (a["to"]["x"], a["to"]["y"])) for a in mine)
        width, depth = game.options.field_width, game.options.field_depth
        out = []
        for _ in range(40):
            d = reach + float(rng.uniform(1.0, 8.0))
            ang = float(rng.uniform(0.0, 2 * math.pi))
            x, y = frm["x"] + d * math.cos(ang), frm["y"] + d * math.sin(ang)
            if 2.0 <= x <= width - 2.0 and 2.0 <= y <= depth - 2.0 and _room_for(pos, what["piece"], x, y):
                out.append({"x": round(x, 2), "y": round(y, 2)})
        return out[:8]
    from tabletop.live.infer import locations
    from vision.detect_cells import board_cells

    cells = board_cells(game_name, {"position": pos, "position_source": {"options": game.options_to_json()}})
    taken = {str(c) for _, c in locations(game_name, pos)}
    allowed = {str(a["to"]) for a in mine}
    free = [c for c in cells.labels if c not in taken and c not in allowed and c != str(what["from"])]
    rng.shuffle(free)
    return free[:12]


def _outline(p: dict[str, Any], at: tuple[float, float] | None = None, facing: float | None = None) -> Any:
    """A The Game piece's footprint on the field (engine JSON), where it is or at ``at``."""
    from rules.the_game.options import footprint_from_json

    x, y = at if at is not None else (p["at"]["x"], p["at"]["y"])
    turn = float(p.get("facing", 0.0) if facing is None else facing)
    return footprint_from_json(p["footprint"], "footprint").outline(x, y, turn)


def _in_play(pos: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in pos["pieces"] if p.get("presence", "in-play") == "in-play"]


def _room_for(pos: dict[str, Any], moved: str, x: float, y: float, facing: float | None = None) -> bool:
    """Whether The Game's piece ``moved``, put down at ``(x, y)`` (facing ``facing``, or as it
    does), leaves every other piece in play clear: a hand cannot put a piece into another's
    place (nor under it), as a grid game's move goes to an empty cell."""
    from rules.the_game.shapes import gap

    pieces = _in_play(pos)
    here = _outline(next(p for p in pieces if p["id"] == moved), (x, y), facing)
    return all(gap(here, _outline(p))[0] > 0.0 for p in pieces if p["id"] != moved)


def _has_room(game_name: str, pos: dict[str, Any], aj: dict[str, Any]) -> bool:
    """Whether move ``aj`` puts its piece down clear of the others (The Game; always on a grid)."""
    if game_name != "the-game":
        return True
    return _room_for(pos, aj["piece"], aj["to"]["x"], aj["to"]["y"], aj.get("facing"))


def _table_after(game_name: str, pos: dict[str, Any], aj: dict[str, Any]) -> dict[str, Any]:
    """The position as the table shows it once the piece is down (a captured When Gods
    Collide checker taken off its square)."""
    tool = _samples_tool()
    if game_name == "when-gods-collide":
        pos = dict(pos, checkers=[c for c in pos.get("checkers", []) if c.get("at") != aj["to"]])
    return tool.table_after(game_name, pos, aj)


# -- drawing -------------------------------------------------------------------------------------

@cache
def _maker_class() -> type:
    """The sample tool's :class:`TurnMaker`, except that the moved piece, put down on a
    stack (OneWorld's counters), lies on top of it, as a player puts it."""
    tool = _samples_tool()

    class OnTopMaker(tool.TurnMaker):  # type: ignore[misc,name-defined]
        on_top: tuple[Any, Any] | None = None

        def plan(self, game: GameRules[Any, Any], state: Any, view: Any) -> Any:
            plan = super().plan(game, state, view)
            if self.on_top is not None and state is self.on_top[0]:
                _put_on_top(plan, self.on_top[1])
            return plan

    return OnTopMaker


def _put_on_top(plan: Any, match: Any) -> None:
    moved = [p for p in plan.pieces if match(p)]
    if len(moved) != 1 or not moved[0].group:
        return
    m = moved[0]
    top = max((p for p in plan.pieces if p.group == m.group), key=lambda p: p.z)
    if top is not m:
        plan.pieces = [replace(p, z=top.z) if p is m else replace(p, z=m.z) if p is top else p
                       for p in plan.pieces]


class TurnRenderer:
    """Draws turns of one game (one renderer, so its kit is loaded once)."""

    def __init__(self, game_name: str, size: tuple[int, int] = (640, 480)) -> None:
        tool = _samples_tool()
        self.name = game_name
        self.size = size
        self.maker = _maker_class().__new__(_maker_class())
        self.maker.on_top = None
        self.maker.name = game_name
        self.maker.seed = 0
        self.maker.renderer = tool.Renderer(game_name, seed=0, options=RenderOptions(
            size=size, hands=0.0, camera=tool.TURN_CAMERA))

    def draw(self, game: GameRules[Any, Any], state: Any, aj: dict[str, Any], seed: int
             ) -> tuple[list[np.ndarray], list[dict[str, Any]], list[str], list[int]]:
        """The pictures of the turn (board before, four hand moments, board after), their
        ground truth, their moments, and the picture each stream frame shows."""
        tool = _samples_tool()
        maker = self.maker
        maker.seed = seed
        pos = game.state_to_json(state)
        what = tool.moved_piece(self.name, aj, pos)
        after = game.state_from_json(_table_after(self.name, pos, aj))
        mover = next(p for p in game.to_move(state) if p != CHANCE)
        players = list(game.players())
        seat = (270.0 if players.index(mover) % 2 == 0 else 90.0) if mover in players else 270.0
        plan = tool.TurnPlan(game, None, state)
        m0 = tool._matcher(self.name, what["piece"], what["from"])
        m1 = tool._matcher(self.name, what["piece"], what["to"])
        maker.on_top = (after, m1)  # a piece put on a stack lies on top of it
        probe = maker.renderer.view_for(game, state, np.random.default_rng([seed, 1]))
        points = [(p.x, p.y) for p in (maker.find(maker.plan(game, state, probe), m0),
                                       maker.find(maker.plan(game, after, probe), m1))]
        view = maker.choose_view(plan, points, [seat])
        start_p = maker.find(maker.plan(game, state, view), m0)
        end_p = maker.find(maker.plan(game, after, view), m1)
        rng = np.random.default_rng([seed, 11])
        look = tool._player_look(maker, game.players(), mover)
        cells = (start_p.label.cell if start_p.label else None, end_p.label.cell if end_p.label else None)
        frames = [tool.Frame("board", "before", state, "start", None, dice_from=state)]
        frames += tool._hand_frames(maker, rng, look, 0, seat, state, "start", after, "after", start_p, end_p,
                                    m0, m1, cells, state)
        frames.append(tool.Frame("board", "after", after, "after", 0, dice_from=state))
        images, truths = [], []
        for i, fr in enumerate(frames):
            rendered = maker.render(plan, fr, view, i)
            images.append(rendered.image)
            truths.append(rendered.truth)
        order = [0] * STILL_BEFORE + [k for k in (1, 2, 3, 4) for _ in range(HAND_REPEAT)] + [5] * STILL_AFTER
        return images, truths, [f.moment for f in frames], order


def hand_over_board(truth: dict[str, Any]) -> bool:
    """Whether a hand of the ground truth touches the board's outline (the pipeline's own
    rule, on the true boxes); The Game: any hand in the picture."""
    hands = truth.get("hands") or []
    board = truth.get("board")
    if not hands:
        return False
    if board is None or not board.get("corners_in_image"):
        return True
    poly = np.asarray(board["corners_in_image"], float).reshape(-1, 2)
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    return any(not (h["box"][2] < x0 or h["box"][0] > x1 or h["box"][3] < y0 or h["box"][1] > y1)
               for h in hands)


def make_turn(game_name: str, seed: int, index: int, legal: bool, renderer: TurnRenderer | None = None,
              size: tuple[int, int] = (640, 480)) -> Turn:
    """Turn ``index`` of ``seed``: a legal move (one of the engine's, at random) or an illegal
    one (a movable piece put where the engine says no), drawn frame by frame."""
    renderer = renderer or TurnRenderer(game_name, size)
    for shift in range(20):
        game, state = sample_position(game_name, seed, index + 1000 * shift)
        rng = np.random.default_rng([seed, index, shift, 23])
        legal_moves = _move_actions(game, state)
        if legal:
            pos = game.state_to_json(state)
            roomy = [aj for aj in legal_moves if _has_room(game_name, pos, aj)]
            if not roomy:
                continue
            aj = roomy[int(rng.integers(len(roomy)))]
            verdict = game.verdict(state, game.action_from_json(aj))
        else:
            try:
                found = _illegal_move(game_name, game, state, legal_moves, rng)
            except ArtworkError:  # tiles spread wider than the kit's mat: no camera shows it
                continue
            if found is None:
                continue
            aj, verdict = found
        if verdict.legal != legal:
            raise RuntimeError(f"{game_name}: the engine calls {aj} {'legal' if verdict.legal else 'illegal'}")
        try:
            images, truths, moments, order = renderer.draw(game, state, aj, seed * 100_003 + index * 101 + shift)
        except (RuntimeError, RulesError, KeyError, ValueError, StopIteration):
            continue  # no camera shows it, or the moved piece is not drawn alone: another position
        looks = {str(p["piece"]): (p["class"], json.dumps(p.get("cell"), sort_keys=True))
                 for p in truths[0]["pieces"] if p.get("piece") is not None}
        if not legal and any(same_on_table(looks, aj, other) for other in legal_moves):
            continue  # a legal move of a twin piece looks just the same: not a test of the referee
        stream = [StreamFrame(p, k / FPS, moments[p], hand_over_board(truths[p])) for k, p in enumerate(order)]
        if not any(f.hand_over_board for f in stream):
            continue
        mover = next(p for p in game.to_move(state) if p != CHANCE)
        return Turn(game_name, index, game, state, aj, legal, verdict, mover, images, truths, stream, seed)
    raise RuntimeError(f"{game_name}: no drawable {'legal' if legal else 'illegal'} turn {index} of seed {seed}")

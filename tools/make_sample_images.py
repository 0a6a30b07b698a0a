#!/usr/bin/env python3
"""Write the bundled sample images, ``sample_images/``: stills and one turn per game.

For each game (docs/sample-images.md has the details):

* **stills**: ``<game>-still-<k>.jpg`` with the renderer's ground truth beside it
  (``<game>-still-<k>.json``), images ``0 .. STILLS - 1`` of ``tabletop render GAME
  --seed SEED`` (random positions, views and hands), written as JPEG at quality 90;
* **a turn**: ``<game>-turn-<nn>.jpg`` (each with its ground truth ``.json``), all in one
  camera view: the board; a hand reaching in, lifting a piece, carrying it and putting it
  down; the board after a legal move; then the same for an illegal move and the board as
  the table then shows it. ``<game>-turn.json`` is the sequence's manifest: the game and its
  options, the starting position (engine JSON), the frames in order with what each shows,
  and for each move the action, the rolls, the engine's verdict and what it announces.

The positions come from the game records bundled with tabletop; every move is checked by
the rules engine while the images are made (a legal move that the engine refuses, or an
illegal one that it accepts, stops the tool). Everything random follows from the seed, so
the same seed writes the same bytes on the same machine and library versions. Usage::

    python tools/make_sample_images.py                   # rewrite sample_images/
    python tools/make_sample_images.py --check           # exit 1 if sample_images/ is stale
    python tools/make_sample_images.py --game wormholes --out /tmp/samples
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.core import GameRules
from vision.render import Hand, Placement, Renderer, RenderOptions, ScenePlan, View
from vision.render.camera import CameraRanges
from vision.render.effects import jpeg
from vision.render.positions import replay_record
from vision.render.scene import PieceLabel
from vision.render.scenes import Placer

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
DEFAULT_SEED = 1
DEFAULT_OUTPUT = ROOT / "sample_images"
JPEG_QUALITY = 90
STILLS = 3
STILL_SIZE = (640, 480)
TURN_SIZE = (800, 600)
MANIFEST_FORMAT = "tabletop-sample-turn/1"

#: cameras for the turns: the whole board (or The Game's pieces) in view, seen fairly steeply
TURN_CAMERA = CameraRanges(elevation=(48.0, 80.0), hfov=(50.0, 66.0), roll_sigma=4.0, fill=(0.78, 0.9),
                           centre_jitter=0.04, distortion_share=0.4, k1=(-0.12, 0.04))


# -- what each turn shows ------------------------------------------------------------------
@dataclass(frozen=True)
class MoveScript:
    """One move of a turn: the action (engine JSON), its rolls, whether the engine must
    accept it, where the mover sits (degrees in the table plane, from the board towards the
    player's shoulder), and the chance actions (dice read off the table) that come first."""

    action: dict[str, Any]
    legal: bool
    seat: float
    rolls: tuple[int, ...] = ()
    before: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class TurnScript:
    """A turn of ``game``: the position after ``entries`` actions of the bundled record,
    then ``moves`` (a legal one, then an illegal one)."""

    game: str
    entries: int
    moves: tuple[MoveScript, ...]
    note: str


TURNS: dict[str, TurnScript] = {
    "oneworld": TurnScript(
        "oneworld", 33,
        (MoveScript({"type": "move", "piece": "B11", "to": "1118"}, True, 270.0, rolls=(4,)),
         MoveScript({"type": "move", "piece": "B2", "to": "0514"}, False, 270.0)),
        "Turn 8, BORG to move (seated at the north end). BORG's Blade B11 runs five hexes east from "
        "0618 to 1118 across a Fault of Chaos (rolled 4: no effect). Then BORG's Stone B2 is moved "
        "three hexes, 0312 to 0514: a Stone moves one hex."),
    "when-gods-collide": TurnScript(
        "when-gods-collide", 43,
        (MoveScript({"type": "move", "from": "3,3", "to": "0,3"}, True, 90.0),
         MoveScript({"type": "move", "from": "1,2", "to": "1,4"}, False, 270.0,
                    before=({"type": "roll", "chess": "knight", "number": 3},))),
        "Greek and Norse; Greek rolled Rook and 4 and slides a checker from 3,3 to 0,3 (it stops at "
        "the gap). Norse then rolls Knight and 3 and moves a checker two squares straight, 1,2 to 1,4: "
        "not a knight's jump."),
    "wormholes": TurnScript(
        "wormholes", 92,
        (MoveScript({"type": "move", "ship": "suns", "to": "6,9"}, True, 270.0),
         MoveScript({"type": "move", "ship": "moons", "to": "6,7"}, False, 270.0)),
        "The OrthogonAliens rolled Suns 3 and Moons 3. The Suns ship flies 3 from 3,9 to 6,9; then "
        "the Moons ship is moved 4 cells, 2,7 to 6,7, where its die says 3."),
    "battle-grounds": TurnScript(
        "battle-grounds", 43,
        (MoveScript({"type": "move", "piece": "spider-man", "from": "f6", "to": "d4"}, True, 90.0),
         MoveScript({"type": "move", "piece": "kraven", "from": "f2", "to": "f4"}, False, 270.0)),
        "Basic board, South to move: Spider-Man (level II) moves two squares diagonally, f6 to d4. "
        "North then moves Kraven (level I) two squares, f2 to f4: a level I figure moves one square."),
    "the-game": TurnScript(
        "the-game", 12,
        (MoveScript({"type": "move", "piece": "R4", "to": {"x": 11.6, "y": 10.5}, "facing": 50.0}, True, 90.0),
         MoveScript({"type": "move", "piece": "B1", "to": {"x": 14.4, "y": 11.35}, "facing": 313.0}, False, 270.0)),
        "Sequence 2, turn 1, movement phase, red first. Red's observed piece R4 moves 4.4\" towards "
        "the blue pieces. Blue's observed piece B1 then moves 8.5\": an observed piece moves at most 6\"."),
}


# -- engine helpers ------------------------------------------------------------------------
def bundled_record_text(game: str) -> str:
    return (resources.files("tabletop.data.records") / f"{game}.jsonl").read_text(encoding="utf-8")


def start_position(script: TurnScript) -> tuple[GameRules[Any, Any], Any]:
    """The engine and the position after ``script.entries`` actions of the bundled record."""
    game, states = replay_record(bundled_record_text(script.game))
    return game, states[script.entries]


def moved_piece(game_name: str, action: dict[str, Any], position: dict[str, Any]) -> dict[str, Any]:
    """What a move action moves: the piece's id (or ``None``), its cell before and after."""
    if game_name == "oneworld":
        child = next(c for c in position["children"] if c["id"] == action["piece"])
        return {"piece": action["piece"], "from": child["hex"], "to": action["to"]}
    if game_name == "when-gods-collide":
        return {"piece": None, "from": action["from"], "to": action["to"]}
    if game_name == "wormholes":
        return {"piece": action["ship"], "from": position["ships"][action["ship"]]["at"], "to": action["to"]}
    if game_name == "battle-grounds":
        return {"piece": action["piece"], "from": action["from"], "to": action["to"]}
    if game_name == "the-game":
        p = next(p for p in position["pieces"] if p["id"] == action["piece"])
        return {"piece": action["piece"], "from": p["at"], "to": action["to"]}
    raise ValueError(f"no sample turn for game {game_name!r}")


def dice_on_table(game_name: str, position: dict[str, Any]) -> dict[str, Any] | None:
    """The dice a move is made with, when they are part of the position (When Gods Collide's
    roll, the Wormholes dice not yet used this turn); ``None`` for the other games, whose
    rolls are inputs of the action itself (``rolls``)."""
    if game_name == "when-gods-collide":
        return position.get("roll")
    if game_name == "wormholes":
        return position.get("dice") or None
    return None


def table_after(game_name: str, position: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """The position as the table shows it once ``action``'s piece has been put down where the
    action says, whether the rules allow it or not (for drawing an illegal move)."""
    pos = json.loads(json.dumps(position))
    if game_name == "oneworld":
        next(c for c in pos["children"] if c["id"] == action["piece"])["hex"] = action["to"]
    elif game_name == "when-gods-collide":
        next(c for c in pos["checkers"] if c["at"] == action["from"])["at"] = action["to"]
    elif game_name == "wormholes":
        pos["ships"][action["ship"]]["at"] = action["to"]
    elif game_name == "battle-grounds":
        pos["board"][action["to"]] = pos["board"].pop(action["from"])
    elif game_name == "the-game":
        p = next(p for p in pos["pieces"] if p["id"] == action["piece"])
        p["at"] = dict(action["to"])
        if action.get("facing") is not None:
            p["facing"] = float(action["facing"])
    else:
        raise ValueError(f"no sample turn for game {game_name!r}")
    return pos


# -- drawing a turn ------------------------------------------------------------------------
@dataclass
class Frame:
    """One frame to draw: the engine state whose pieces lie on the table, the hand (if any)
    and the piece it holds (its placement on the table, lifted)."""

    shows: str  # "board" or "hand"
    moment: str  # before, reach, lift, carry, put-down, after, roll
    state: Any
    state_name: str
    move: int | None = None
    hand: Hand | None = None
    held: Placement | None = None
    held_of: Callable[[Placement], bool] | None = None
    dice_from: Any = None  # the state whose dice lie on the table (they stay until rolled again)


@dataclass
class TurnPlan:
    game: GameRules[Any, Any]
    script: TurnScript
    start: Any
    moves: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _matcher(game_name: str, piece: str | None, cell: Any) -> Callable[[Placement], bool]:
    """Finds the moved piece's placement in a scene plan (by the engine's id, or for When
    Gods Collide's anonymous checkers by the square it stands on)."""
    def match(p: Placement) -> bool:
        lab = p.label
        if lab is None or p.key.startswith("die-") or p.key.startswith("captured-"):
            return False
        if piece is not None:
            return lab.piece == piece and not p.key.endswith("/token") and lab.cell is not None
        return lab.cell == cell and not p.key.endswith("/token")
    return match


class TurnMaker:
    """Draws the frames of one game's turn in one view."""

    def __init__(self, game_name: str, seed: int) -> None:
        self.name = game_name
        self.seed = seed
        self.renderer = Renderer(game_name, seed=seed,
                                 options=RenderOptions(size=TURN_SIZE, hands=0.0, camera=TURN_CAMERA))

    # -- scenes ------------------------------------------------------------------------------
    def placer(self, view: View) -> Placer:
        r = self.renderer
        return Placer(r.kit, view.layout, view.scene_seed, view.sloppiness,
                      r.composer.faces.board_geometry(view.layout))

    def plan(self, game: GameRules[Any, Any], state: Any, view: View) -> ScenePlan:
        """The pieces of ``state`` on the table, as :meth:`Renderer.render_state` lays them."""
        assert self.renderer.adapter is not None
        placer = self.placer(view)
        plan = self.renderer.adapter[1](game, state, placer)
        if plan.dice_area is None:
            plan.dice_area = placer.dice_area(np.random.default_rng([view.scene_seed, 3]))
        return plan

    def find(self, plan: ScenePlan, match: Callable[[Placement], bool]) -> Placement:
        found = [p for p in plan.pieces if match(p)]
        if len(found) != 1:
            raise RuntimeError(f"{self.name}: expected one moved piece in the scene, found {len(found)}")
        return found[0]

    # -- the view ----------------------------------------------------------------------------
    def choose_view(self, plan: TurnPlan, points: list[tuple[float, float]], seats: list[float]) -> View:
        """A camera that frames the board (The Game: the pieces and where they go), sits away
        from the players' seats (their arms come in from the side or the far end) and sees
        every point of the moves well inside the picture."""
        r = self.renderer
        assert r.adapter is not None
        layout = r.adapter[0](plan.game, plan.start)
        _, (w, h) = r.composer.faces.board_geometry(layout)
        if r.keypoints:  # The Game: a big field with small pieces: frame the pieces
            probe = self.plan(plan.game, plan.start, r.new_view(np.random.default_rng([self.seed, 0]), layout))
            pts = np.array([[p.x, p.y] for p in probe.pieces if p.label is not None] + list(points))
            lo, hi = pts.min(axis=0) - 90.0, pts.max(axis=0) + 90.0
            focus = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        else:
            focus = (0.0, 0.0, float(w), float(h))
        for attempt in range(200):
            rng = np.random.default_rng([self.seed, _crc(self.name), 7, attempt])
            view = r.new_view(rng, layout, focus=focus)
            az = float(view.camera.meta["azimuth"])
            if min(abs((az - s + 180.0) % 360.0 - 180.0) for s in seats) < 50.0:
                continue  # the photographer would sit in a player's chair
            px = view.camera.project(np.array([[x, y, 0.0] for x, y in points]))
            cw, ch = view.camera.size
            if (px[:, 0] < 0.12 * cw).any() or (px[:, 0] > 0.88 * cw).any() or \
                    (px[:, 1] < 0.15 * ch).any() or (px[:, 1] > 0.85 * ch).any():
                continue
            # a calm look: no motion blur, little focus blur, the file's own JPEG quality
            look = replace(view.look, motion_blur=(0.0, 0.0), focus_blur=min(view.look.focus_blur, 0.8),
                           jpeg_quality=JPEG_QUALITY)
            return replace(view, look=look)
        raise RuntimeError(f"{self.name}: no camera found that shows the whole turn")

    # -- frames ------------------------------------------------------------------------------
    def render(self, plan: TurnPlan, frame: Frame, view: View, index: int) -> Any:
        game = plan.game
        scene = self.plan(game, frame.state, view)
        if frame.dice_from is not None:  # dice lie as last rolled, whatever the position says now
            dice = [p for p in self.plan(game, frame.dice_from, view).pieces if p.key.startswith("die-")]
            scene.pieces = [p for p in scene.pieces if not p.key.startswith("die-")] + dice
        if frame.held is not None:
            assert frame.held_of is not None
            scene.pieces = [p for p in scene.pieces if not frame.held_of(p)] + [frame.held]
        hands = [frame.hand] if frame.hand is not None else []
        rng = np.random.default_rng([self.seed, _crc(self.name), 9, index])
        truth = {"position": game.state_to_json(frame.state), "game": self.name}
        return self.renderer.render_plan(scene, view, hands=hands, rng=rng, truth=truth)


def _lifted(p: Placement, x: float, y: float, z: float, turn: float, cell: Any) -> Placement:
    """``p`` held in a hand at ``(x, y)``, ``z`` mm above the table."""
    assert p.label is not None
    lab = PieceLabel(p.label.cls, p.label.piece, p.label.side, cell, None, dict(p.label.extra, held=True))
    return Placement(p.kind, x, y, p.key, lab, p.rotation + turn, z, p.face, "", p.drawn, held=True,
                     turn_to_camera=p.turn_to_camera)


def _piece_size(maker: TurnMaker, p: Placement) -> tuple[float, float]:
    """Footprint (largest side, mm) and height (mm) of a placed piece."""
    if p.drawn is not None:
        o = p.drawn.outline
        return float(max(np.ptp(o[:, 0]), np.ptp(o[:, 1]))), float(p.drawn.height)
    kind = maker.renderer.kit.kind(p.kind)
    return float(max(kind.footprint_mm)), float(kind.height_mm)


_SKINS = ((95, 130, 185), (120, 155, 205), (70, 100, 150), (150, 180, 225), (45, 70, 110))
_SLEEVES = ((40, 40, 40), (120, 70, 30), (50, 50, 140), (40, 100, 40), (150, 150, 150))


def _player_look(maker: TurnMaker, players: Sequence[str], player: str | None) -> dict[str, Any]:
    """Skin, sleeve and build of a player's hand: the same in every move of that player,
    different for the other player."""
    base = np.random.default_rng([maker.seed, _crc(maker.name), 13]).integers(0, 5, 2)
    idx = list(players).index(player) if player in players else 0
    rng = np.random.default_rng([maker.seed, _crc(maker.name), _crc(str(player)), 14])
    return {"skin": _SKINS[(int(base[0]) + 2 * idx) % 5], "sleeve": _SLEEVES[(int(base[1]) + 2 * idx) % 5],
            "scale": float(rng.uniform(0.85, 1.0)), "cuff": float(rng.choice([0.0, 60.0, 180.0])),
            "left": bool(rng.random() < 0.2)}


def _hand_frames(maker: TurnMaker, rng: np.random.Generator, look: dict[str, Any], move: int, seat: float,
                 before: Any,
                 before_name: str, after: Any, after_name: str, start: Placement, end: Placement,
                 match_before: Callable[[Placement], bool], match_after: Callable[[Placement], bool],
                 cells: tuple[Any, Any], dice_from: Any) -> list[Frame]:
    """Reach, lift, carry and put down: the hand of a player sitting at ``seat``."""
    size, height = _piece_size(maker, start)
    standing = start.face == "front"
    angle = seat + float(rng.normal(0.0, 8.0))
    back = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
    grip = size / 2 + 20.0  # the fingertips close on the piece's near side

    def hand_at(x: float, y: float, z: float, pinch: bool, spread: float = 0.15) -> Hand:
        top = z + (height * 0.8 if standing else height + 3.0)
        tip = np.array([x, y]) + back * grip
        return Hand(tip=(float(tip[0]), float(tip[1])), height=float(top), from_angle=angle, spread=spread,
                    pinch=pinch, **look)

    sx, sy, ex, ey = start.x, start.y, end.x, end.y
    mx, my = (sx + ex) / 2, (sy + ey) / 2
    reach = hand_at(sx, sy, 30.0, pinch=False, spread=0.55)
    reach = replace(reach, tip=(reach.tip[0] + float(back[0]) * 30.0, reach.tip[1] + float(back[1]) * 30.0))
    lift_z, carry_z = (10.0, 30.0) if not standing else (8.0, 22.0)
    return [
        Frame("hand", "reach", before, before_name, move, reach, dice_from=dice_from),
        Frame("hand", "lift", before, before_name, move, hand_at(sx, sy, lift_z, pinch=True),
              _lifted(start, sx, sy, lift_z, 4.0, cells[0]), match_before, dice_from=dice_from),
        Frame("hand", "carry", before, before_name, move, hand_at(mx, my, carry_z, pinch=True),
              _lifted(start, mx, my, carry_z, 8.0, cells[0]), match_before, dice_from=dice_from),
        Frame("hand", "put-down", after, after_name, move, hand_at(ex, ey, 0.6, pinch=True),
              _lifted(end, ex, ey, 0.6, 0.0, cells[1]), match_after, dice_from=dice_from),
    ]


def plan_turn(maker: TurnMaker) -> tuple[TurnPlan, View]:
    """Play the turn through the engine (checking every verdict) and lay out its frames."""
    script = TURNS[maker.name]
    game, start = start_position(script)
    plan = TurnPlan(game, script, start)
    state, state_name = start, "start"
    dice_state = start
    rng = np.random.default_rng([maker.seed, _crc(maker.name), 11])
    # first pass: the engine's verdicts and the positions, and where each piece lies
    steps = []
    for k, move in enumerate(script.moves):
        chance = []
        for c in move.before:
            act = game.action_from_json(c)
            verdict = game.verdict(state, act)
            if not verdict.legal:
                raise RuntimeError(f"{maker.name}: chance action {c} refused: {verdict.message}")
            step = game.apply(state, act)
            state = step.state
            state_name = f"after roll {k}"
            dice_state = state
            chance.append({"action": game.action_to_json(act), "notation": game.notation(act),
                           "verdict": verdict.to_json(), "events": [e.to_json() for e in step.events],
                           "announcement": " ".join(e.text for e in step.events)})
        act = game.action_from_json(move.action)
        verdict = game.verdict(state, act)
        if verdict.legal != move.legal:
            raise RuntimeError(f"{maker.name}: the engine calls {move.action} {'legal' if verdict.legal else 'illegal'}"
                               f" ({verdict.code}: {verdict.message})")
        pos = game.state_to_json(state)
        what = moved_piece(maker.name, move.action, pos)
        entry: dict[str, Any] = {
            "index": k,
            "expect": "legal" if move.legal else "illegal",
            "player": _mover(game, state),
            "before": chance,
            "action": game.action_to_json(act),
            "notation": game.notation(act),
            "rolls": list(move.rolls),
            "dice": dice_on_table(maker.name, pos),
            **what,
            "verdict": verdict.to_json(),
        }
        if move.legal:
            step = game.apply(state, act, list(move.rolls))
            entry["events"] = [e.to_json() for e in step.events]
            entry["announcement"] = " ".join(e.text for e in step.events)
            after, after_name = step.state, f"after move {k}"
        else:
            entry["events"] = []
            entry["announcement"] = verdict.message
            table = table_after(maker.name, pos, move.action)
            after, after_name = game.state_from_json(table), f"table after move {k}"
            entry["table_position"] = game.state_to_json(after)
        steps.append((k, move, what, state, state_name, after, after_name, dice_state, bool(chance)))
        plan.moves.append(entry)
        if move.legal:
            state, state_name = after, after_name
    # the camera: every cell the turn touches well in view, away from the players
    probe_view = maker.renderer.view_for(game, start, np.random.default_rng([maker.seed, 1]))
    points = []
    for k, move, what, before, _, after, _, _, _ in steps:
        m0 = _matcher(maker.name, what["piece"], what["from"])
        m1 = _matcher(maker.name, what["piece"], what["to"])
        for st, m in ((before, m0), (after, m1)):
            p = maker.find(maker.plan(game, st, probe_view), m)
            points.append((p.x, p.y))
    view = maker.choose_view(plan, points, [m.seat for m in script.moves])
    # second pass: the frames
    plan.frames.append(Frame("board", "before", start, "start", None, dice_from=start))
    for k, move, what, before, before_name, after, after_name, dice_state, rolled in steps:
        if rolled:
            plan.frames.append(Frame("board", "roll", before, before_name, k, dice_from=dice_state))
        m0 = _matcher(maker.name, what["piece"], what["from"])
        m1 = _matcher(maker.name, what["piece"], what["to"])
        start_p = maker.find(maker.plan(game, before, view), m0)
        end_p = maker.find(maker.plan(game, after, view), m1)
        look = _player_look(maker, game.players(), plan.moves[k]["player"])
        plan.frames += _hand_frames(maker, rng, look, k, move.seat, before, before_name, after, after_name, start_p, end_p,
                                    m0, m1, (start_p.label.cell if start_p.label else None,
                                             end_p.label.cell if end_p.label else None), dice_state)
        plan.frames.append(Frame("board", "after", after, after_name, k, dice_from=dice_state))
    for k, entry in enumerate(plan.moves):
        entry["frames"] = [i for i, f in enumerate(plan.frames) if f.move == k]
    return plan, view


def _mover(game: GameRules[Any, Any], state: Any) -> str | None:
    players = [p for p in game.to_move(state) if p != "chance"]
    return players[0] if len(players) == 1 else None


# -- writing -------------------------------------------------------------------------------
def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _truth(rendered: Any, image: str) -> dict[str, Any]:
    truth = dict(rendered.truth, image=image, labels=None, jpeg_quality=JPEG_QUALITY,
                 yolo=rendered.yolo_text().splitlines(), classes=rendered.class_names)
    truth["look"] = dict(truth.get("look") or {}, jpeg_quality=JPEG_QUALITY)
    return truth


def write_stills(game_name: str, folder: Path, seed: int) -> list[Path]:
    """Images ``0 .. STILLS - 1`` of the game's dataset for ``seed``, with ground truth."""
    r = Renderer(game_name, seed=seed, options=RenderOptions(size=STILL_SIZE), record=bundled_record_text(game_name))
    out = []
    for k in range(STILLS):
        rendered = r.render(k)
        stem = f"{game_name}-still-{k + 1}"
        (folder / f"{stem}.jpg").write_bytes(jpeg(rendered.image, JPEG_QUALITY))
        (folder / f"{stem}.json").write_text(_dump(_truth(rendered, f"{stem}.jpg")), encoding="utf-8")
        out += [folder / f"{stem}.jpg", folder / f"{stem}.json"]
    return out


def write_turn(game_name: str, folder: Path, seed: int) -> list[Path]:
    """The game's turn: its frames (each with ground truth) and the manifest."""
    maker = TurnMaker(game_name, seed)
    plan, view = plan_turn(maker)
    game = plan.game
    out = []
    frames_json = []
    for i, frame in enumerate(plan.frames):
        rendered = maker.render(plan, frame, view, i)
        stem = f"{game_name}-turn-{i:02d}"
        (folder / f"{stem}.jpg").write_bytes(jpeg(rendered.image, JPEG_QUALITY))
        (folder / f"{stem}.json").write_text(_dump(_truth(rendered, f"{stem}.jpg")), encoding="utf-8")
        out += [folder / f"{stem}.jpg", folder / f"{stem}.json"]
        held = next((p for p in rendered.truth["pieces"] if p["held"]), None)
        frames_json.append({
            "index": i,
            "image": f"{stem}.jpg",
            "truth": f"{stem}.json",
            "shows": frame.shows,
            "moment": frame.moment,
            "move": frame.move,
            "position": frame.state_name,
            "hand": frame.hand is not None,
            "held": None if held is None else {"piece": held["piece"], "class": held["class"], "box": held["box"]},
            "hand_box": rendered.truth["hands"][0]["box"] if rendered.truth["hands"] else None,
        })
    manifest = {
        "format": MANIFEST_FORMAT,
        "game": game_name,
        "title": game.title,
        "options": game.options_to_json(),
        "seed": seed,
        "source": {"record": f"tabletop/data/records/{game_name}.jsonl", "after_entries": plan.script.entries},
        "description": plan.script.note,
        "image_size": list(TURN_SIZE),
        "jpeg_quality": JPEG_QUALITY,
        "camera": view.camera.to_json(),
        "start": game.state_to_json(plan.start),
        "frames": frames_json,
        "moves": plan.moves,
    }
    path = folder / f"{game_name}-turn.json"
    path.write_text(_dump(manifest), encoding="utf-8")
    return out + [path]


def write_game(game_name: str, folder: str | Path, seed: int = DEFAULT_SEED) -> list[Path]:
    """Every sample file of ``game_name`` (stills, turn frames, manifest) into ``folder``,
    replacing that game's old ones. Returns the paths written."""
    if game_name not in GAMES:
        raise ValueError(f"no samples for game {game_name!r} (games: {', '.join(GAMES)})")
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for old in list(root.glob(f"{game_name}-still-*")) + list(root.glob(f"{game_name}-turn*")):
        old.unlink()
    return write_stills(game_name, root, seed) + write_turn(game_name, root, seed)


def _differences(made: Path, bundled: Path, games: Sequence[str]) -> list[str]:
    out = []
    for game_name in games:
        names = {p.name for p in made.glob(f"{game_name}-*")} | {p.name for p in bundled.glob(f"{game_name}-*")}
        for name in sorted(names):
            a, b = made / name, bundled / name
            if not a.exists() or not b.exists() or a.read_bytes() != b.read_bytes():
                out.append(name)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (may be repeated)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUTPUT, help="folder to write (default: sample_images/)")
    parser.add_argument("--check", action="store_true", help="make the files in a temporary folder and exit 1 "
                                                             "if they differ from those in --out")
    args = parser.parse_args(argv)
    games = args.game or list(GAMES)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            for g in games:
                write_game(g, tmp, args.seed)
            stale = _differences(Path(tmp), args.out, games)
        if stale:
            print(f"{len(stale)} sample file(s) differ: {', '.join(stale[:10])}", file=sys.stderr)
            return 1
        print(f"sample images for {len(games)} game(s) are up to date")
        return 0
    total = 0
    for g in games:
        paths = write_game(g, args.out, args.seed)
        size = sum(p.stat().st_size for p in paths)
        total += size
        print(f"{g}: {len(paths)} files, {size / 1e6:.2f} MB")
    print(f"total {total / 1e6:.2f} MB in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The bundled sample images: every game has stills and a turn, the turns' moves replay
through the rules engines with the stated verdicts, the ground truth matches the images,
the whole folder stays under 20 MB, and the maker reproduces its files byte for byte."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import pytest

import sample_images
from rules.registry import get_game

GAMES = ["oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game"]
ROOT = Path(__file__).resolve().parents[1]
MAX_BYTES = 20 * 1000 * 1000


@cache
def manifest(game: str) -> dict[str, Any]:
    return json.loads(sample_images.sequence(game).read_text(encoding="utf-8"))


@cache
def truth_of(name: str) -> dict[str, Any]:
    return json.loads((sample_images.folder() / name).read_text(encoding="utf-8"))


def load_maker() -> Any:
    spec = importlib.util.spec_from_file_location("make_sample_images", ROOT / "tools" / "make_sample_images.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def moved(game: str, move: dict[str, Any], truth: dict[str, Any], cell: Any) -> dict[str, Any]:
    """The moved piece in a frame's ground truth (When Gods Collide's checkers have no id:
    found by the square they stand on)."""
    found = [p for p in truth["pieces"]
             if (p["piece"] == move["piece"] if move["piece"] is not None else p["cell"] == cell)
             and p["cell"] is not None and not str(p["class"]).startswith("seth")]
    assert len(found) == 1, f"{game}: the moved piece is not alone in {truth['image']}"
    return found[0]


# -- what is there --------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_stills_and_a_turn(game: str) -> None:
    stills = sample_images.stills(game)
    assert len(stills) >= 3
    for image in stills:
        assert sample_images.truth(image).is_file()
        assert truth_of(sample_images.truth(image).name)["game"] == game
    m = manifest(game)
    assert m["game"] == game and m["format"] == "tabletop-sample-turn/1"
    assert 8 <= len(m["frames"]) <= 12


def test_every_image_is_a_still_or_a_frame_and_every_frame_is_there() -> None:
    framed = {f["image"] for g in GAMES for f in manifest(g)["frames"]}
    still = {p.name for p in sample_images.stills()}
    assert {p.name for p in sample_images.paths()} == framed | still
    assert [p.name for p in sample_images.sequences()] == sorted(f"{g}-turn.json" for g in GAMES)
    with pytest.raises(FileNotFoundError, match="no sample turn"):
        sample_images.sequence("chess")


@pytest.mark.parametrize("game", GAMES)
def test_a_turn_shows_the_board_then_a_hand_moving_a_piece_then_the_board(game: str) -> None:
    m = manifest(game)
    frames = m["frames"]
    assert [f["index"] for f in frames] == list(range(len(frames)))
    assert frames[0]["shows"] == "board" and frames[-1]["shows"] == "board"
    assert [mv["expect"] for mv in m["moves"]] == ["legal", "illegal"]
    for mv in m["moves"]:
        own = [frames[i] for i in mv["frames"]]
        assert [f["moment"] for f in own if f["shows"] == "hand"] == ["reach", "lift", "carry", "put-down"]
        assert own[-1]["shows"] == "board" and own[-1]["moment"] == "after"
        for f in own:
            assert f["shows"] in ("board", "hand") and f["hand"] == (f["shows"] == "hand")
            assert (f["held"] is not None) == (f["moment"] in ("lift", "carry", "put-down"))


# -- the rules ------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_move_replays_through_the_engine_with_the_stated_verdict(game: str) -> None:
    m = manifest(game)
    engine = get_game(game, m["options"])
    state = engine.state_from_json(m["start"])
    assert engine.state_to_json(state) == m["start"]
    positions = {"start": m["start"]}
    for k, mv in enumerate(m["moves"]):
        for chance in mv["before"]:  # dice read off the table
            step = engine.apply(state, engine.action_from_json(chance["action"]))
            assert [e.to_json() for e in step.events] == chance["events"]
            state = step.state
            positions[f"after roll {k}"] = engine.state_to_json(state)
        action = engine.action_from_json(mv["action"])
        verdict = engine.verdict(state, action)
        assert verdict.to_json() == mv["verdict"]
        if mv["expect"] == "legal":
            assert verdict.legal
            step = engine.apply(state, action, mv["rolls"])
            assert list(step.rolls_used) == mv["rolls"]
            assert [e.to_json() for e in step.events] == mv["events"]
            assert mv["announcement"] == " ".join(e.text for e in step.events)
            state = step.state
            positions[f"after move {k}"] = engine.state_to_json(state)
        else:
            assert not verdict.legal and mv["announcement"] == verdict.message
            table = engine.state_from_json(mv["table_position"])  # what the table shows reads back
            positions[f"table after move {k}"] = engine.state_to_json(table)
    # each frame's ground truth holds the position it shows
    for f in m["frames"]:
        assert truth_of(f["truth"])["position"] == positions[f["position"]], f["image"]


def test_the_game_illegal_move_is_more_than_six_inches_by_an_observed_piece() -> None:
    m = manifest("the-game")
    engine = get_game("the-game", m["options"])
    state = engine.state_from_json(m["start"])
    legal, illegal = m["moves"]
    state = engine.apply(state, engine.action_from_json(legal["action"])).state
    piece = illegal["action"]["piece"]
    assert engine.observation(state)[piece].observed
    start = next(p["at"] for p in engine.state_to_json(state)["pieces"] if p["id"] == piece)
    to = illegal["action"]["to"]
    assert math.hypot(to["x"] - start["x"], to["y"] - start["y"]) > 6.25
    assert illegal["verdict"]["code"] == "too-far"


# -- the pictures ---------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_image_sizes_match_the_manifest_and_the_ground_truth(game: str) -> None:
    m = manifest(game)
    for f in m["frames"]:
        image = cv2.imread(str(sample_images.folder() / f["image"]))
        assert image is not None, f["image"]
        assert [image.shape[1], image.shape[0]] == m["image_size"] == truth_of(f["truth"])["image_size"]
    for still in sample_images.stills(game):
        image = cv2.imread(str(still))
        assert [image.shape[1], image.shape[0]] == truth_of(sample_images.truth(still).name)["image_size"]
        assert (image.shape[1], image.shape[0]) in ((640, 480), (800, 600))


def _truth_names() -> list[str]:
    names = [sample_images.truth(p).name for p in sample_images.stills()]
    return names + [f["truth"] for g in GAMES for f in manifest(g)["frames"]]


def test_ground_truth_boxes_lie_inside_the_image() -> None:
    for name in _truth_names():
        t = truth_of(name)
        w, h = t["image_size"]
        assert t["image"] == name.replace(".json", ".jpg")
        labelled = [p for p in t["pieces"] if p["in_labels"]]
        assert labelled, name
        assert len(t["yolo"]) == len(labelled) + len(t["hands"])
        for p in labelled + t["hands"]:
            x1, y1, x2, y2 = p["box"]
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h, (name, p)


@pytest.mark.parametrize("game", GAMES)
def test_the_hand_carries_the_piece_from_its_cell_to_where_it_is_put_down(game: str) -> None:
    m = manifest(game)
    frames = m["frames"]
    for mv in m["moves"]:
        first = mv["frames"][0]
        board_before = truth_of(frames[first - 1]["truth"])
        board_after = truth_of(frames[mv["frames"][-1]]["truth"])
        here = moved(game, mv, board_before, mv["from"])
        there = moved(game, mv, board_after, mv["to"])
        assert here["in_labels"] and there["in_labels"] and not here["held"] and not there["held"]
        a, b = centre(here["box"]), centre(there["box"])
        span = math.dist(a, b)
        assert span > 20, "the move is seen to move the piece"
        held = {}
        for i in mv["frames"]:
            t = truth_of(frames[i]["truth"])
            pieces = [p for p in t["pieces"] if p["held"]]
            if frames[i]["moment"] not in ("lift", "carry", "put-down"):
                assert not pieces
                continue
            assert len(pieces) == 1 and pieces[0]["in_labels"] and pieces[0]["visible"] > 0.5
            assert len(t["hands"]) == 1
            hx1, hy1, hx2, hy2 = t["hands"][0]["box"]
            x1, y1, x2, y2 = pieces[0]["box"]
            assert x1 < hx2 + 8 and hx1 - 8 < x2 and y1 < hy2 + 8 and hy1 - 8 < y2, "the piece is in the hand"
            held[frames[i]["moment"]] = centre(pieces[0]["box"])
        size = max(here["box"][2] - here["box"][0], here["box"][3] - here["box"][1])
        assert math.dist(held["lift"], a) < 0.6 * size + 10
        assert math.dist(held["put-down"], b) < 0.6 * size + 10
        assert math.dist(held["carry"], a) < span and math.dist(held["carry"], b) < span


@pytest.mark.parametrize("game", GAMES)
def test_pieces_the_hand_does_not_move_stay_exactly_where_they_were(game: str) -> None:
    m = manifest(game)
    truths = [truth_of(f["truth"]) for f in m["frames"]]
    touched = {json.dumps(mv[k]) for mv in m["moves"] for k in ("from", "to")}
    moving = {mv["piece"] for mv in m["moves"]} - {None}

    def still(t: dict[str, Any]) -> dict[str, list[float]]:
        return {json.dumps([p["class"], p["piece"], p["cell"], (p.get("extra") or {}).get("stack_level")]): p["box"]
                for p in t["pieces"] if p["piece"] not in moving and json.dumps(p["cell"]) not in touched}

    first = still(truths[0])
    assert len(first) >= 5
    for t in truths[1:]:
        now = still(t)
        assert {k: now[k] for k in first if k in now} == {k: first[k] for k in first if k in now}, t["image"]


def test_all_sample_files_together_stay_under_20_mb() -> None:
    files = [p for p in sample_images.folder().iterdir() if p.suffix in (".jpg", ".json")]
    assert sum(p.stat().st_size for p in files) < MAX_BYTES


def test_the_maker_writes_the_same_files_again(tmp_path: Path) -> None:
    maker = load_maker()
    game = "wormholes"
    written = maker.write_game(game, tmp_path, seed=manifest(game)["seed"])
    bundled = sorted(p.name for p in sample_images.folder().iterdir() if p.name.startswith(f"{game}-"))
    assert sorted(p.name for p in written) == bundled
    for path in written:
        assert path.read_bytes() == (sample_images.folder() / path.name).read_bytes(), path.name

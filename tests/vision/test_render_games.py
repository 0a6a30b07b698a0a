"""Every game renders with its real kit; seeds reproduce; the dataset and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from calibration.markers import detect_markers
from rules.registry import get_game
from tabletop.cli import main
from tabletop.rendering import _bundled_record_text
from vision.render import Renderer, RenderOptions
from vision.render.camera import undistort_pixels
from vision.render.dataset import write_dataset
from vision.render.positions import PositionSampler

GAMES = ["oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game"]

_RENDERERS: dict[str, Renderer] = {}


def renderer(game: str) -> Renderer:
    if game not in _RENDERERS:
        _RENDERERS[game] = Renderer(game, seed=5, options=RenderOptions(hands=0.3), record=_bundled_record_text(game))
    return _RENDERERS[game]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_renders_a_labelled_view_of_a_legal_position(game: str) -> None:
    r = renderer(game)
    out = r.render(3)
    h, w = out.image.shape[:2]
    assert (w, h) == (640, 480) and out.image.dtype == np.uint8
    assert out.image.std() > 10  # a picture, not a blank
    truth = out.truth
    # the position is the engine's own JSON, and it reads back
    engine = get_game(game, truth["position_source"]["options"])
    state = engine.state_from_json(truth["position"])
    assert engine.state_to_json(state) == truth["position"]
    assert truth["game"] == game
    assert set(truth["camera"]) >= {"intrinsics", "distortion", "rotation", "translation"}
    assert len(truth["board"]["board_to_image"]) == 3
    labelled = [p for p in truth["pieces"] if p["in_labels"]]
    assert labelled, "some pieces are in view"
    assert len(out.labels) == len(labelled) + len(truth["hands"])
    for lab in out.labels:
        assert 0 <= lab.class_id < len(out.class_names)
        x1, y1, x2, y2 = lab.box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
    for p in truth["pieces"]:
        assert p["class"] in r.kit.pieces
        assert 0.0 <= p["visible"] <= 1.0


@pytest.mark.parametrize("game", GAMES)
def test_pieces_sit_on_their_cells(game: str) -> None:
    """A piece's board coordinates (as placed, with the player's wobble) are inside or next
    to the cell the engine says it is on."""
    r = renderer(game)
    out = r.render(7)
    for p in out.truth["pieces"]:
        if p["cell"] is None or p["board"] is None or p.get("held"):
            continue
        u, v = p["board"]
        cell = p["cell"]
        if game == "oneworld":
            from rules.geometry import Hex
            from vision.layout import HexLayout

            assert HexLayout(1.0).hex_at((u, v)) == Hex.parse(cell)
        elif game == "wormholes":
            x, y = (int(c) for c in cell.split(","))
            assert x - 1 <= u <= x and y - 1 <= v <= y
        elif game == "battle-grounds":
            assert ord(cell[0]) - ord("a") <= u <= ord(cell[0]) - ord("a") + 1
            assert int(cell[1:]) - 1 <= v <= int(cell[1:])
        elif game == "the-game":
            assert abs(u - cell["x"]) < 1e-6 and abs(v - cell["y"]) < 1e-6
        elif game == "when-gods-collide":
            from vision.artwork.when_gods_collide import WhenGodsCollideKit

            dx, dy = WhenGodsCollideKit.mat_offset(out.truth["position"]["tiles"])
            x, y = (int(c) for c in cell.split(","))
            assert x + dx <= u <= x + dx + 1 and y + dy <= v <= y + dy + 1


def test_oneworld_stacks_laid_out_lie_side_by_side_in_their_hex() -> None:
    """``laid_out``: each hex of two or more children (none with a Tower or a god) laid side
    by side, as players lay out a combat round: its counters a step apart, flat on the
    table, each still in its hex. None laid out without it (the same scene, stacked)."""
    import itertools
    import math

    from rules.geometry import Hex
    from vision.layout import HexLayout
    from vision.render.scenes import Placer
    from vision.render.scenes import oneworld as scene

    sampler = PositionSampler("oneworld", 5, _bundled_record_text("oneworld"))
    kit = renderer("oneworld").kit
    laid = stacked = 0
    for index in range(12):
        sampled = sampler.sample(index)
        plans = [scene.plan(sampled.game, sampled.state, Placer(kit, None, 11, 0.5, laid_out=share))
                 for share in (0.0, 1.0)]
        for plan, share in zip(plans, (0.0, 1.0)):
            hexes: dict[str, list] = {}
            for p in plan.pieces:
                hexes.setdefault(p.label.cell, []).append(p)
            for cell, ps in hexes.items():
                if len(ps) < 2:
                    continue
                children = all(p.label.cls.endswith(("stone", "blade", "fog")) for p in ps) and \
                    not any(p.label.extra.get("under_tower") for p in ps)
                flat = all(p.z == 0.0 for p in ps)
                assert flat == (share == 1.0 and children), (cell, share)
                if flat:
                    laid += 1
                    gaps = [math.dist(a.label.board, b.label.board) for a, b in itertools.pairwise(ps)]
                    assert all(abs(g - scene.laid_out_step(len(ps))) < 0.3 for g in gaps), gaps
                    assert all(HexLayout(1.0).hex_at(p.label.board) == Hex.parse(cell) for p in ps)
                else:
                    stacked += 1
    assert laid >= 3 and stacked >= 3, (laid, stacked)


def test_oneworld_counters_laid_out_keep_their_centres_in_their_hex_however_sloppy() -> None:
    """Two children laid out in a hex lie a step apart around its centre, each with the
    sloppiest player's wobble (sloppiness 1: the wobble at its clip): every counter's centre
    still lies in its hex, whatever the row's direction (a pointy-top hex is 0.87 from its
    centre to a side)."""
    from types import SimpleNamespace

    from rules.geometry import Hex
    from vision.layout import HexLayout
    from vision.render.scenes import Placer
    from vision.render.scenes import oneworld as scene

    kit = renderer("oneworld").kit
    first = Placer(kit, None, 0, 1.0)
    geometry = (first.board_to_mm, first.board_extent_mm)
    cells = [f"{q:02d}{r:02d}" for q in range(1, 9) for r in range(1, 9)]
    pos = {"children": [{"side": side, "aspect": "stone", "hex": cell, "id": f"{side[0]}{cell}"}
                        for cell in cells for side in ("borg", "chez")]}
    game = SimpleNamespace(state_to_json=lambda state: pos)
    out = []
    for seed in range(200):
        plan = scene.plan(game, None, Placer(kit, None, seed, 1.0, geometry=geometry, laid_out=1.0))
        assert all(p.z == 0.0 for p in plan.pieces)  # every hex laid out
        out += [(seed, p.label.cell, p.label.board) for p in plan.pieces
                if HexLayout(1.0).hex_at(p.label.board) != Hex.parse(p.label.cell)]
    assert not out, out


def test_the_real_board_homography_meets_the_detected_markers() -> None:
    """On a render of a real kit, the ground-truth homography puts each marker corner where
    cv2.aruco finds it (after undistorting the detected corners with the true lens)."""
    r = renderer("battle-grounds")
    checked = 0
    for index in range(40, 70):
        out = r.render(index)
        if out.truth["look"]["focus_blur"] > 0.5 or out.truth["look"]["motion_blur"][0] > 0:
            continue
        seen = detect_markers(out.image)
        board = out.truth["board"]
        layout = "advanced" if board["size"] == [8.0, 8.0] else "basic"
        spec = r.kit.marker_spec(layout)
        h = np.asarray(board["board_to_image"])
        cam = out.truth["camera"]
        K, dist = np.asarray(cam["intrinsics"]), np.asarray(cam["distortion"])
        for marker_id in spec.ids:
            found = seen.corners_of(marker_id)
            if found is None:
                continue
            q = (h @ np.c_[spec.marker_corners(marker_id), np.ones(4)].T).T
            assert np.abs(q[:, :2] / q[:, 2:3] - undistort_pixels(found, K, dist)).max() < 2.0
            checked += 1
        if checked >= 8:
            break
    assert checked >= 8


def test_the_same_seed_gives_the_same_bytes_and_another_seed_does_not(tmp_path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder, seed in ((a, 9), (b, 9), (c, 10)):
        write_dataset("wormholes", folder, 3, seed=seed, record=_bundled_record_text("wormholes"))
    for rel in ("images/train/000000.jpg", "labels/train/000001.txt", "truth/train/000002.json"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes()
    assert (a / "images/train/000000.jpg").read_bytes() != (c / "images/train/000000.jpg").read_bytes()


def test_image_i_is_the_same_whatever_is_rendered_before_it() -> None:
    first = Renderer("when-gods-collide", seed=2).render(40)
    other = Renderer("when-gods-collide", seed=2)
    other.render(3)
    other.render(70)
    again = other.render(40)
    assert np.array_equal(first.image, again.image)
    assert first.yolo_text() == again.yolo_text()


def test_positions_are_reproducible_in_any_order() -> None:
    a = PositionSampler("oneworld", seed=4)
    b = PositionSampler("oneworld", seed=4)
    order = [5, 70, 1, 66, 30]
    got_a = {i: _json(a, i) for i in order}
    got_b = {i: _json(b, i) for i in reversed(order)}
    assert got_a == got_b
    assert len({json.dumps(v, sort_keys=True) for v in got_a.values()}) > 2


def _json(sampler: PositionSampler, index: int) -> dict:
    s = sampler.sample(index)
    return s.game.state_to_json(s.state)


def test_when_gods_collide_playouts_keep_their_tiles_on_the_kit_mat() -> None:
    """A playout never lays a tile where the kit's 16 x 16 mat cannot hold the board: seed
    22's 108th playout (images 3424 to 3455) drew such a tile, and its images could not be
    rendered. Each of its positions now is one the kit lays out, and renders."""
    from vision.artwork.when_gods_collide import WhenGodsCollideKit

    sampler = PositionSampler("when-gods-collide", 22)
    for index in range(3424, 3456, 4):
        s = sampler.sample(index)
        tiles = s.game.state_to_json(s.state)["tiles"]
        squares = [tuple(int(v) for v in t["at"].split(",")) for t in tiles]
        assert max(x for x, _ in squares) + 2 - min(x for x, _ in squares) <= 16
        assert max(y for _, y in squares) + 2 - min(y for _, y in squares) <= 16
        WhenGodsCollideKit.mat_offset(tiles)  # raises ArtworkError for a board off the mat
    rendered = Renderer("when-gods-collide", seed=22).render(3424)
    assert rendered.image.shape[:2] == (480, 640) and rendered.yolo_text().strip()


def test_the_dataset_yaml_loads_with_the_class_names(tmp_path) -> None:
    summary = write_dataset("the-game", tmp_path, 2, seed=1, options=RenderOptions(hands=0.0), val_every=2)
    data = yaml.safe_load((tmp_path / "data.yaml").read_text())
    names = Renderer("the-game", seed=1).class_names
    assert data["names"] == dict(enumerate(names))
    assert data["train"] == "images/train" and data["val"] == "images/val"
    assert data["kpt_shape"] == [1, 3] and data["flip_idx"] == [0]
    assert summary["count"] == 2
    assert (tmp_path / "images/val/000001.jpg").exists() and (tmp_path / "images/train/000000.jpg").exists()
    for line in (tmp_path / "labels/train/000000.txt").read_text().splitlines():
        assert len(line.split()) == 8  # pose format: class, box, one keypoint
    truth = json.loads((tmp_path / "truth/train/000000.json").read_text())
    assert truth["image"] == "images/train/000000.jpg"
    manifest = json.loads((tmp_path / "dataset.json").read_text())
    assert manifest["keypoints"] == ["front-dot"] and manifest["classes"] == names


def test_render_command_writes_a_dataset(tmp_path, capsys) -> None:
    out = tmp_path / "ds"
    code = main(["render", "battle-grounds", "--count", "2", "--out", str(out), "--seed", "3", "--hands", "0"])
    assert code == 0
    assert "2 images of battle-grounds" in capsys.readouterr().out
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["names"][len(data["names"]) - 1] == "hand"
    assert len(list((out / "images" / "train").glob("*.jpg"))) == 2
    laid = tmp_path / "laid"
    assert main(["render", "oneworld", "--count", "1", "--out", str(laid), "--laid-out", "0.5"]) == 0
    assert json.loads((laid / "dataset.json").read_text())["laid_out"] == 0.5


@pytest.mark.parametrize(
    "argv, message",
    [
        (["render", "chess", "--count", "1"], "unknown game 'chess'"),
        (["render", "oneworld", "--count", "0"], "the count must be"),
        (["render", "oneworld", "--count", "1", "--size", "big"], "expected WIDTHxHEIGHT"),
        (["render", "oneworld", "--count", "1", "--hands", "2"], "between 0 and 1"),
        (["render", "oneworld", "--count", "1", "--laid-out", "-1"], "between 0 and 1"),
    ],
)
def test_render_command_refuses_bad_input_in_one_line(tmp_path, capsys, argv, message) -> None:
    code = main(argv + ["--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_render_command_refuses_a_folder_it_cannot_use(tmp_path, capsys) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "something.txt").write_text("x")
    assert main(["render", "wormholes", "--count", "1", "--out", str(full)]) == 2
    assert "is not empty" in capsys.readouterr().err
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(["render", "wormholes", "--count", "1", "--out", str(a_file)]) == 2
    assert "is a file" in capsys.readouterr().err
    blocked = a_file / "under"
    assert main(["render", "wormholes", "--count", "1", "--out", str(blocked)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_oneworld_a_crowded_hex_laid_out_keeps_every_counter_in_its_hex() -> None:
    """A combat hex of eight children (four of each side, the stacking limit) laid out side
    by side: the row is drawn closer so that every counter still lies in its hex (its
    label's cell), not on the hexes around it."""
    import collections

    from rules.geometry import Hex
    from vision.layout import HexLayout
    from vision.render.scenes import Placer
    from vision.render.scenes import oneworld as scene

    sampled = PositionSampler("oneworld", 5, _bundled_record_text("oneworld")).sample(3)
    game, pos = sampled.game, sampled.game.state_to_json(sampled.state)
    busy = set((pos.get("towers") or {}).values()) | {g["hex"] for g in (pos.get("gods") or {}).values()
                                                       if g and g.get("hex")}
    target = next(c["hex"] for c in pos["children"] if c.get("hex") and c["hex"] not in busy)
    sides: dict[str, list] = collections.defaultdict(list)
    for child in pos["children"]:
        if child.get("hex"):
            sides[child["side"]].append(child)
    for children in sides.values():
        for child in children[:4]:
            child["hex"] = target
    state = game.state_from_json(pos)
    kit = renderer("oneworld").kit
    for seed in range(6):
        ps = [p for p in scene.plan(game, state, Placer(kit, None, seed, 0.5, laid_out=1.0)).pieces
              if p.label.cell == target]
        assert len(ps) == 8 and all(p.z == 0.0 for p in ps)
        assert [HexLayout(1.0).hex_at(p.label.board) for p in ps] == [Hex.parse(target)] * 8, seed

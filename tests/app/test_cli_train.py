"""``tabletop train`` and ``tabletop eval``: bad input is one line and exit 2; eval's figures
come from the files (a broken label file shows the drop)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import models
from tests.app.conftest import Runner

SHIPPED = models.available()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Rendered datasets of three 640x480 frames of each shipped game (fixed seed)."""
    from vision.render import RenderOptions
    from vision.render.dataset import write_dataset

    out = {}
    for game in SHIPPED[:1] or ["oneworld"]:
        folder = tmp_path_factory.mktemp(game)
        write_dataset(game, folder, 3, seed=4242, options=RenderOptions(size=(640, 480)), val_every=3)
        out[game] = folder
    return out


def _staged(path: Path, stages: int = 1) -> Path:
    """The Game's shipped recipe with ``stages`` later stages (a 'then' section), written to ``path``."""
    doc = json.loads(Path(models.__file__).with_name("the-game.json").read_text())
    then = [{"epochs": 3, "hyperparameters": {"lr0": 0.0005, "warmup_epochs": 0}}]
    if stages > 1:
        then.append({"epochs": 2, "hyperparameters": {"lr0": 0.0002}, "renders": [{"count": 4, "seed": 7}]})
    doc["then"] = then
    path.write_text(json.dumps(doc))
    return path


def _recording_ultralytics(monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict[str, object]], list[str]]:
    """Ultralytics replaced by a double: each training's arguments and the weights it starts
    from are recorded (in the two lists returned, as trainings run), and it writes a best.pt."""
    import types

    from vision import detect_train

    asked: list[dict[str, object]] = []
    sources: list[str] = []

    class Yolo:
        def __init__(self, source: str) -> None:
            self.source = source

        def add_callback(self, event: str, fn: object) -> None:
            pass

        def train(self, **args: object) -> None:
            asked.append(args)
            sources.append(self.source)
            weights = Path(str(args["project"])) / str(args["name"]) / "weights"
            weights.mkdir(parents=True, exist_ok=True)
            (weights / "best.pt").write_text("trained")
            self.trainer = types.SimpleNamespace(best=str(weights / "best.pt"), last=str(weights / "last.pt"),
                                                 save_dir=str(weights.parent), metrics={})

    monkeypatch.setattr(detect_train, "ultralytics_module", lambda: types.SimpleNamespace(YOLO=Yolo))
    return asked, sources


def _bad_yaml(folder: Path) -> Path:
    (folder / "images" / "train").mkdir(parents=True)
    (folder / "data.yaml").write_text("names: [a, b\ntrain: images/train\n")
    return folder


def _no_names(folder: Path) -> Path:
    (folder / "images" / "train").mkdir(parents=True)
    (folder / "data.yaml").write_text("train: images/train\nval: images/train\n")
    return folder


def _yaml_of(folder: Path, text: bytes) -> Path:
    (folder / "images" / "train").mkdir(parents=True)
    (folder / "data.yaml").write_bytes(b"train: images/train\nval: images/train\n" + text)
    return folder


def _no_yaml(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    return folder


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["train", "chess"], "unknown game 'chess'"),
        (["train", "oneworld", "--imgsz", "100"], "multiple of 32"),
        (["train", "oneworld", "--epochs", "0"], "epochs must be 1 to"),
        (["train", "oneworld", "--fraction", "2"], "share above 0 and at most 1"),
        (["train", "oneworld", "--data", "{missing}"], "no such folder"),
        (["train", "oneworld", "--data", "{no_yaml}"], "no data.yaml in it"),
        (["train", "oneworld", "--data", "{a_file}"], "file.txt is a file, not a folder: give the dataset's folder"),
        (["train", "oneworld", "--data", "{bad_yaml}"], "not valid YAML at line"),
        (["train", "oneworld", "--data", "{no_names}"], "missing names"),
        (["train", "oneworld", "--data", "{named_by_letters}"], "names must map whole class ids (0, 1, ...) to names"),
        (["train", "oneworld", "--data", "{not_text}"], "data.yaml: not a data.yaml (not UTF-8 text)"),
        (["train", "oneworld", "--out", "{a_file}"], "is a file, not a folder"),
        (["train", "oneworld", "--faces-only"], "oneworld's recipe has no dice face reader"),
        (["train", "when-gods-collide", "--faces-only", "--data", "{no_yaml}"], "trained on renders, not with --data"),
        (["train", "the-game", "--pieces-only"], "the-game's recipe has no piece reader"),
        (["train", "battle-grounds", "--pieces-only", "--data", "{no_yaml}"], "not with --data or --faces-only"),
        (["train", "oneworld", "--pieces-only", "--continue", "{a_file}"], "not with --data, --faces-only, --pieces"),
        (["train", "oneworld", "--facing-only"], "oneworld's recipe has no facing reader"),
        (["train", "the-game", "--stacks-only"], "the-game's recipe has no stack reader"),
        (["train", "oneworld", "--stacks-only", "--data", "{no_yaml}"], "stack reader is trained on renders alone"),
        (["train", "oneworld", "--stacks-only", "--continue", "{a_file}"], "--facing-only or --stacks-only"),
        (["train", "the-game", "--facing-only", "--data", "{no_yaml}"], "trained on renders alone: not with --data"),
        (["train", "the-game", "--recipe", "{staged}", "--continue", "{missing}.pt"], "no such weights file"),
        (["train", "the-game", "--recipe", "{staged}", "--continue", "{a_file}"], "not a weights file"),
        (["train", "the-game", "--continue", "{a_file}", "--data", "{no_yaml}"], "not with --data"),
        (["train", "oneworld", "--recipe", "{missing}.json"], "no such recipe file"),
        (["train", "oneworld", "--recipe", "{a_file}"], "invalid JSON at line 1"),
        (["train", "oneworld", "--recipe", "{no_yaml}"], "is a folder, not a recipe file"),
        (["train", "oneworld", "--workers", "0"], "workers must be 1 to"),
        (["eval", "oneworld"], "the following arguments are required: --data"),
        (["eval", "chess", "--data", "{no_yaml}"], "unknown game 'chess'"),
        (["eval", "oneworld", "--data", "{missing}"], "no such folder"),
        (["eval", "oneworld", "--data", "{bad_yaml}"], "no images found"),
        (["eval", "oneworld", "--data", "{a_file}"], "file.txt is a file, not a folder: give the dataset's folder"),
        (["eval", "oneworld", "--data", "{no_yaml}", "--split", "test"], "no images/test"),
        (["eval", "oneworld", "--data", "{labelled}", "--weights", "{missing}.pt"], "no such weights file"),
        (["eval", "oneworld", "--data", "{labelled}", "--backend", "tf"], "invalid choice: 'tf'"),
        (["eval", "oneworld", "--data", "{garbled}"], "not numbers"),
        (["eval", "oneworld", "--data", "{labelled}", "--imgsz", "650"], "must be a multiple of 32"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          argv: list[str], expected: str) -> None:
    monkeypatch.chdir(tmp_path)  # input wrongly taken would render into ./runs: not into the checkout
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    labelled = tmp_path / "labelled"
    (labelled / "images" / "train").mkdir(parents=True)
    (labelled / "labels" / "train").mkdir(parents=True)
    import cv2
    import numpy as np

    cv2.imwrite(str(labelled / "images" / "train" / "a.jpg"), np.zeros((48, 64, 3), np.uint8))
    (labelled / "labels" / "train" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    garbled = tmp_path / "garbled"
    shutil.copytree(labelled, garbled)
    (garbled / "labels" / "train" / "a.txt").write_text("zero 0.5 0.5 0.1 0.1\n")
    paths = {
        "missing": str(tmp_path / "missing"),
        "no_yaml": str(_no_yaml(tmp_path / "no-yaml")),
        "bad_yaml": str(_bad_yaml(tmp_path / "bad-yaml")),
        "no_names": str(_no_names(tmp_path / "no-names")),
        "named_by_letters": str(_yaml_of(tmp_path / "named-by-letters", b"names: {a: stone, b: blade}\n")),
        "not_text": str(_yaml_of(tmp_path / "not-text", b"names: [\xff]\n")),
        "a_file": str(a_file),
        "labelled": str(labelled),
        "garbled": str(garbled),
        "staged": str(_staged(tmp_path / "staged.json")),
    }
    result = cli(*[a.format(**paths) for a in argv])
    assert result.code == 2, result
    assert expected in result.error_line()


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
def test_eval_prints_every_figure(cli: Runner, tiny: dict[str, Path]) -> None:
    game, folder = next(iter(tiny.items()))
    result = cli("eval", game, "--data", str(folder), "--backend", "ultralytics")
    assert result.code == 0, result.err
    for heading in ("mAP50-95", "per cell", "whole board", "confusion"):
        assert heading in result.out


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
def test_eval_figures_drop_on_a_broken_label_file(cli: Runner, tiny: dict[str, Path], tmp_path: Path) -> None:
    game, folder = next(iter(tiny.items()))
    result = cli("eval", game, "--data", str(folder), "--backend", "ultralytics", "--json")
    assert result.code == 0, result.err
    good = json.loads(result.out)
    assert good["images"] == 3 and good["map50_95"] is not None and good["map50_95"] > 0
    assert isinstance(good["imgsz"], int) and isinstance(good["by_piece_size"], bool)
    assert sum(good["sizes"].values()) == good["images"]  # each image read once, at one size
    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    names = json.loads((folder / "dataset.json").read_text())["classes"]
    for label in (broken / "labels").rglob("*.txt"):  # every box given the wrong class
        rows = [ln.split() for ln in label.read_text().splitlines() if ln.strip()]
        label.write_text("".join(" ".join([str((int(r[0]) + 1) % len(names))] + r[1:]) + "\n" for r in rows))
    for truth in (broken / "truth").rglob("*.json"):  # and the truth's pieces moved one cell over
        doc = json.loads(truth.read_text())
        cells = [p["cell"] for p in doc["pieces"]]
        for p, cell in zip(doc["pieces"], cells[1:] + cells[:1]):
            p["cell"] = cell
        truth.write_text(json.dumps(doc))
    result = cli("eval", game, "--data", str(broken), "--backend", "ultralytics", "--json")
    assert result.code == 0, result.err
    bad = json.loads(result.out)
    assert bad["map50_95"] < good["map50_95"]
    if good["cell_accuracy"] is not None:
        assert bad["cell_accuracy"] < good["cell_accuracy"]


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
def test_fine_tuning_on_a_handful_of_labelled_images_writes_loadable_weights(
    cli: Runner, tiny: dict[str, Path], tmp_path: Path
) -> None:
    from vision.detect import Detector
    from vision.detect_train import load_recipe
    from vision.piece_reader import pieces_path

    game, folder = next(iter(tiny.items()))
    stale = pieces_path(tmp_path / f"{game}.pt")
    has_reader = load_recipe(game).piece_reader is not None
    if has_reader:  # a reader of an earlier training in the same folder would re-read the new weights
        stale.write_bytes(b"earlier")
    result = cli("train", game, "--data", str(folder), "--epochs", "1", "--imgsz", "64", "--out", str(tmp_path))
    assert result.code == 0, result.err
    assert "epoch 1/1 done" in result.err
    weights = tmp_path / f"{game}.pt"
    assert f"weights: {weights}" in result.out
    assert Detector.load(weights, "ultralytics").names == Detector.load(game, "ultralytics").names
    assert not stale.exists()
    assert Detector.load(weights, "ultralytics").pieces is None


def test_continue_refuses_a_recipe_without_a_second_stage(cli: Runner, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shipped recipe has a second stage; one without (a user's own recipe) is refused
    with one line and exit 2 before anything is rendered."""
    from dataclasses import replace

    from vision import detect_train

    shipped = detect_train.load_recipe

    def without_then(game: str) -> detect_train.Recipe:
        return replace(shipped(game), then=())

    monkeypatch.setattr(detect_train, "load_recipe", without_then)
    monkeypatch.chdir(tmp_path)
    result = cli("train", "oneworld", "--continue", str(models.weights_path("oneworld")))
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        "tabletop: error: --continue: oneworld's recipe has no second stage ('then' section)"]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("stages", [1, 2])
def test_continue_runs_only_the_last_stage_for_the_epochs_given(cli: Runner, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch, stages: int) -> None:
    """``--continue W --epochs N``: renders (or reuses) the data, then one ultralytics run from
    ``W`` for N epochs with the last stage's hyper-parameters and data (ultralytics replaced by
    a double that records what it is asked)."""
    from vision import detect_train

    asked, sources = _recording_ultralytics(monkeypatch)
    start = tmp_path / "first.pt"
    shutil.copyfile(models.weights_path("the-game"), start)
    recipe = _staged(tmp_path / "staged.json", stages)
    later = detect_train.later_stages(detect_train.load_recipe("the-game", recipe))
    assert len(later) == stages
    result = cli("train", "the-game", "--recipe", str(recipe), "--continue", str(start), "--epochs", "2",
                 "--count", "2", "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    ((source, args),) = zip(sources, asked)
    assert source == str(start) and args["epochs"] == 2
    assert args["name"] == ("run-then" if len(later) == 1 else f"run-then-{len(later)}")
    for key, value in later[-1].hyperparameters.items():
        assert args[key] == value
    assert "continuing" in result.out and "stage" in result.out
    if later[-1].renders:  # its data: the renders' tiles and the stage's extra renders' (a share of them)
        import yaml

        doc = yaml.safe_load(Path(str(args["data"])).read_text())
        assert len(doc["train"]) == 1 + len(later[-1].renders)
        assert all(Path(d).is_dir() and any(Path(d).iterdir()) for d in doc["train"])
    assert (tmp_path / "out" / "the-game.pt").read_text() == "trained"


def test_continue_renders_only_what_the_last_stage_trains_on(cli: Runner, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A recipe whose second stage adds renders and whose third does not: ``--continue``
    runs the third alone, on the first renders' tiles, and renders nothing for the second."""
    from dataclasses import replace

    from vision import detect_train

    asked, _ = _recording_ultralytics(monkeypatch)
    shipped = detect_train.load_recipe

    def three_stages(game: str) -> detect_train.Recipe:
        return replace(shipped(game), then=(
            {"epochs": 2, "hyperparameters": {}, "renders": ((40, 5),)},
            {"epochs": 3, "hyperparameters": {"lr0": 0.0002}, "renders": ()}))

    monkeypatch.setattr(detect_train, "load_recipe", three_stages)
    start = tmp_path / "second.pt"
    shutil.copyfile(models.weights_path("the-game"), start)
    out = tmp_path / "out"
    result = cli("train", "the-game", "--continue", str(start), "--count", "2", "--out", str(out))
    assert result.code == 0, result.err
    (args,) = asked
    assert args["name"] == "run-then-2" and args["epochs"] == 3 and args["lr0"] == 0.0002
    assert Path(str(args["data"])) == out / "tiles-320" / "data.yaml"
    assert "third stage" in result.out
    assert not (out / "data-seed5").exists()


def test_continue_refuses_weights_of_other_classes_than_the_data(cli: Runner, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``tabletop train d6 --continue W``: the shipped recipe's detector learns one class
    (``train.dice_kinds``), so weights of the finder before it, a class a face, are refused
    (ultralytics would quietly start their class head afresh); the shipped one-class weights
    continue on the relabelled renders."""
    import torch

    from vision.dice_faces import faces_path

    asked, sources = _recording_ultralytics(monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    shutil.copyfile(faces_path(models.weights_path("d6")), faces_path(out / "d6.pt"))  # no face reader training
    ckpt = torch.load(models.weights_path("d6"), map_location="cpu", weights_only=False)
    ckpt["model"].names = {k: f"d6-{k + 1}" for k in range(6)}
    six = tmp_path / "six.pt"
    torch.save(ckpt, six)
    result = cli("train", "d6", "--continue", str(six), "--count", "4", "--out", str(out))
    assert result.code == 2 and asked == []
    assert "--continue" in result.err and "d6-1" in result.err, result.err
    one = tmp_path / "one.pt"
    shutil.copyfile(models.weights_path("d6"), one)
    result = cli("train", "d6", "--continue", str(one), "--count", "4", "--out", str(out))
    assert result.code == 0, result.err
    assert sources == [str(one)] and Path(str(asked[0]["data"])) == out / "data-dice-kinds" / "data.yaml"


def test_a_later_stage_s_dice_among_games_are_game_frames_with_dice_labelled(cli: Runner, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A d6 recipe whose last stage has ``dice_among``: ``--continue`` renders frames of those
    games (a share of them with ``--count``) with dice thrown among their pieces, the dice
    labelled as the finder's one class and nothing else (the games' pieces and markers are no
    dice), and trains on the dice renders and on them, validated on the dice renders alone."""
    import yaml

    from vision.detect_train import Recipe, RecipeError
    from vision.dice_faces import faces_path

    asked, _ = _recording_ultralytics(monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    shutil.copyfile(faces_path(models.weights_path("d6")), faces_path(out / "d6.pt"))  # no face reader training
    doc = json.loads((Path(models.__file__).parent / "d6.json").read_text())
    doc["then"] = [*doc["then"][:1], {"epochs": 2, "dice_among": [{"game": "oneworld", "count": 1600, "seed": 5},
                                                                  {"game": "the-game", "count": 2, "seed": 6}]}]
    recipe = tmp_path / "among.json"
    recipe.write_text(json.dumps(doc))
    one = tmp_path / "one.pt"
    shutil.copyfile(models.weights_path("d6"), one)
    result = cli("train", "d6", "--recipe", str(recipe), "--continue", str(one), "--count", "8", "--out", str(out))
    assert result.code == 0, result.err
    (args,) = asked
    data = yaml.safe_load(Path(str(args["data"])).read_text())
    assert data["names"] == {0: "d6"} and data["val"] == [str(out / "data-dice-kinds" / "images" / "val")]
    kinds, *among = (Path(d) for d in data["train"])
    assert kinds == out / "data-dice-kinds" / "images" / "train"
    assert [d.parts[-3] for d in among] == ["dice-among-oneworld-seed5", "dice-among-the-game-seed6"]
    assert [len(list(d.glob("*.jpg"))) for d in among] == [8, 2]  # the recipe's share of each
    labels = [line.split() for d in among for f in sorted((d.parent.parent / "labels" / "train").glob("*.txt"))
              for line in f.read_text().splitlines()]
    assert labels and all(parts[0] == "0" and len(parts) == 5 for parts in labels)  # dice, one class
    doc["then"][-1]["dice_among"][0]["count"] = 1
    with pytest.raises(RecipeError, match="dice_among: each needs a count of at least 2"):
        Recipe.from_json(doc)


def test_pieces_only_trains_and_saves_a_loadable_piece_reader(cli: Runner, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``--pieces-only`` renders the recipe's data and trains just the piece reader, saved
    beside where the weights go; run again it keeps the reader already trained."""
    from dataclasses import replace

    from vision import detect_train
    from vision.piece_reader import PieceReader

    shipped = detect_train.load_recipe

    def quick(game: str) -> detect_train.Recipe:  # one epoch on small crops: the flow, not the accuracy
        recipe = shipped(game)
        return replace(recipe, piece_reader={**(recipe.piece_reader or {}), "epochs": 1, "size": 16})

    monkeypatch.setattr(detect_train, "load_recipe", quick)
    out = tmp_path / "out"
    result = cli("train", "battle-grounds", "--pieces-only", "--count", "10", "--out", str(out))
    assert result.code == 0, result.err
    assert "piece reader epoch 1/1" in result.err
    reader = PieceReader.load(out / "battle-grounds.pieces.pt")
    assert reader.size == 16 and set(reader.classes) <= set(reader.names) and "hand" not in reader.classes
    assert reader.groups == {c: "base" for c in reader.classes}  # the kit's kind of object, kept with it
    assert f"saved {out / 'battle-grounds.pieces.pt'}" in result.out
    assert not (out / "battle-grounds.pt").exists()  # no detector was trained
    again = cli("train", "battle-grounds", "--count", "10", "--out", str(out), "--epochs", "1", "--fraction", "0.01",
                "--imgsz", "64")
    assert "using the piece reader already trained" in again.out, again.err


def test_stacks_only_trains_the_stack_reader_on_the_recipes_renders(cli: Runner, tmp_path: Path) -> None:
    """``--stacks-only`` renders the recipe's data and its stack reader's more renders (a quick
    trial's share), trains just the stack reader and saves it beside where the weights go; run
    again it trains it anew on the renders already made."""
    from vision.stack_reader import StackReader

    doc = json.loads(Path(models.__file__).with_name("oneworld.json").read_text())
    doc["stack_reader"] = {**doc["stack_reader"], "epochs": 1, "size": 16,
                           "renders": [{"count": 3000, "seed": 9}]}
    out = tmp_path / "out"
    result = _train_with(cli, tmp_path, "oneworld", doc, "--stacks-only", 10, out)
    assert result.code == 0, result.err
    assert "stack reader epoch 1/1" in result.err
    assert f"stacks of {out / 'data'} and {out / 'data-seed9'}" in result.out
    reader = StackReader.load(out / "oneworld.stacks.pt")
    assert reader.size == 16 and reader.metrics["train_stacks"] > 0
    assert f"saved {out / 'oneworld.stacks.pt'}" in result.out
    assert not (out / "oneworld.pt").exists() and not (out / "oneworld.pieces.pt").exists()  # nothing else trained
    again = _train_with(cli, tmp_path, "oneworld", doc, "--stacks-only", 10, out)  # asked for: trained anew
    assert again.code == 0 and "stack reader epoch 1/1" in again.err and "using the dataset already" in again.out
    doc["stack_reader"]["renders"] = [{"seed": 9}]
    bad = _train_with(cli, tmp_path, "oneworld", doc, "--stacks-only", 10, tmp_path / "bad")
    assert bad.code == 2 and "malformed stack_reader section" in bad.err and "Traceback" not in bad.err


def test_the_d6_finder_s_face_reader_trains_on_its_section_s_more_renders(cli: Runner, tmp_path: Path) -> None:
    """``tabletop train d6 --faces-only`` with ``dice_faces.renders``: those dice renders are
    made (a quick trial's share of them) and their dice join the reader's training dice, as
    for a game's face reader."""
    from vision.dice_faces import FaceReader

    doc = json.loads(Path(models.__file__).with_name("d6.json").read_text())
    doc["dice_faces"] = {"epochs": 1, "renders": [{"count": 3200, "seed": 9}]}
    out = tmp_path / "out"
    result = _train_with(cli, tmp_path, "d6", doc, "--faces-only", 4, out)
    assert result.code == 0, result.err
    extra = json.loads((out / "data-seed9" / "dataset.json").read_text())
    assert (extra["count"], extra["seed"]) == (8, 9)  # 4 of the recipe's 1600: 8 of these 3200
    assert f"on the dice of {out / 'data'} and {out / 'data-seed9'}" in result.out
    reader = FaceReader.load(out / "d6.faces.pt")
    faces = set(range(6))
    assert _labelled(out / "data-seed9" / "labels", faces) > 0
    assert reader.metrics["train_dice"] == sum(_labelled(out / d, faces) for d in ("data/labels/train",
                                                                                   "data-seed9/labels"))
    assert not (out / "d6.pt").exists()


def _train_with(cli: Runner, tmp_path: Path, game: str, doc: dict[str, Any], only: str, count: int,
                out: Path) -> Any:
    """``tabletop train GAME --recipe R ONLY --count N --out OUT`` with ``doc`` written as R."""
    recipe = tmp_path / f"{game}-recipe.json"
    recipe.write_text(json.dumps(doc))
    return cli("train", game, "--recipe", str(recipe), only, "--count", str(count), "--out", str(out))


def _labelled(labels: Path, classes: set[int]) -> int:
    """How many boxes of ``classes`` the label files under ``labels`` hold."""
    return sum(int(row.split()[0]) in classes for f in labels.rglob("*.txt") for row in f.read_text().splitlines())


def test_faces_only_renders_the_recipes_more_dice_and_trains_on_them(cli: Runner, tmp_path: Path) -> None:
    """A ``dice_faces`` section with ``renders``: those renders are made (a quick trial's
    share of them) and their dice join the reader's training dice; a bad section is one line."""
    from vision.dice_faces import FaceReader, dataset_names, die_kind

    doc = json.loads(Path(models.__file__).with_name("when-gods-collide.json").read_text())
    doc["dice_faces"] = {"epochs": 1, "renders": [{"count": 6000, "seed": 9},
                                                  {"count": 3000, "seed": 9, "size": [800, 600]}]}
    out = tmp_path / "out"
    result = _train_with(cli, tmp_path, "when-gods-collide", doc, "--faces-only", 6, out)
    assert result.code == 0, result.err
    extra = json.loads((out / "data-seed9" / "dataset.json").read_text())
    assert (extra["count"], extra["seed"]) == (12, 9)  # 6 of the recipe's 3000: 12 of these 6000
    larger = json.loads((out / "data-seed9-800x600" / "dataset.json").read_text())
    assert (larger["count"], larger["seed"]) == (6, 9)  # the same seed, its own folder, larger frames
    import cv2

    frame = cv2.imread(str(next((out / "data-seed9-800x600" / "images").rglob("*.jpg"))))
    assert frame.shape[:2] == (600, 800)
    assert (f"on the dice of {out / 'data'} and {out / 'data-seed9'} and {out / 'data-seed9-800x600'}"
            in result.out)
    reader = FaceReader.load(out / "when-gods-collide.faces.pt")
    dice = {i for i, n in enumerate(dataset_names(out / "data")) if die_kind(n)}
    assert _labelled(out / "data-seed9" / "labels", dice) > 0
    assert reader.metrics["train_dice"] == sum(_labelled(out / d, dice) for d in (
        "data/labels/train", "data-seed9/labels", "data-seed9-800x600/labels"))
    doc["dice_faces"] = {"epochs": 1, "renders": [{"count": 0, "seed": 9}]}
    bad = _train_with(cli, tmp_path, "when-gods-collide", doc, "--faces-only", 6, tmp_path / "bad")
    assert bad.code != 0 and "renders needs a count of at least 1" in bad.err


def test_pieces_only_renders_the_recipes_more_pieces_and_trains_on_them(cli: Runner, tmp_path: Path) -> None:
    """A ``piece_reader`` section with ``renders``: those renders are made (a quick trial's
    share), larger frames in a folder of their own, and their pieces join the reader's
    training pieces; its validation stays the recipe's own renders'; a bad section is one line."""
    from vision.dice_faces import dataset_names
    from vision.piece_reader import PieceReader

    doc = json.loads(Path(models.__file__).with_name("battle-grounds.json").read_text())
    doc["piece_reader"] = {**doc["piece_reader"], "epochs": 1, "size": 16,
                           "renders": [{"count": 3000, "seed": 9, "size": "800x600"}]}
    out = tmp_path / "out"
    result = _train_with(cli, tmp_path, "battle-grounds", doc, "--pieces-only", 10, out)
    assert result.code == 0, result.err
    larger = json.loads((out / "data-seed9-800x600" / "dataset.json").read_text())
    assert (larger["count"], larger["seed"]) == (10, 9)  # 10 of the recipe's 3000: 10 of these 3000
    assert f"pieces of {out / 'data'} and {out / 'data-seed9-800x600'}" in result.out
    reader = PieceReader.load(out / "battle-grounds.pieces.pt")
    names = dataset_names(out / "data")
    read = {names.index(c) for c in reader.classes}
    assert _labelled(out / "data-seed9-800x600" / "labels", read) > 0
    assert reader.metrics["train_pieces"] == (_labelled(out / "data" / "labels" / "train", read)
                                              + _labelled(out / "data-seed9-800x600" / "labels", read))
    assert reader.metrics["val_pieces"] == _labelled(out / "data" / "labels" / "val", read)
    doc["piece_reader"]["renders"] = [{"seed": 9}]
    bad = _train_with(cli, tmp_path, "battle-grounds", doc, "--pieces-only", 10, tmp_path / "bad")
    assert bad.code == 2 and "malformed piece_reader section" in bad.err and "Traceback" not in bad.err


def test_a_recipe_file_and_a_gpu_reach_the_training(cli: Runner, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``--recipe FILE`` trains with that file's epochs, batch and hyper-parameters instead of
    the shipped recipe's, and ``--device 0 --workers 3`` asks ultralytics for GPU 0 with three
    batch-loading workers (ultralytics and CUDA replaced by doubles)."""
    import torch

    asked, _ = _recording_ultralytics(monkeypatch)
    doc = json.loads(Path(models.__file__).with_name("oneworld.json").read_text())
    doc["train"].update(epochs=7, batch=32)
    doc["hyperparameters"].update(lr0=0.0031, time=0.25)
    doc.pop("then", None)
    recipe = tmp_path / "oneworld-gpu.json"
    recipe.write_text(json.dumps(doc))
    out = tmp_path / "out"
    out.mkdir()  # the shipped piece and stack readers beside the weights: they are not trained again here
    for reader in ("oneworld.pieces.pt", "oneworld.stacks.pt"):
        shutil.copyfile(Path(models.__file__).with_name(reader), out / reader)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    result = cli("train", "oneworld", "--recipe", str(recipe), "--count", "2", "--device", "0", "--workers", "3",
                 "--out", str(out))
    assert result.code == 0, result.err
    (args,) = asked  # one stage: the file has no 'then'
    assert (args["epochs"], args["batch"], args["lr0"], args["time"]) == (7, 32, 0.0031, 0.25)
    assert (args["device"], args["workers"]) == ("0", 3)

    asked.clear()
    again = cli("train", "oneworld", "--recipe", str(recipe), "--count", "2", "--workers", "3", "--out", str(out))
    assert again.code == 0, again.err
    assert (asked[0]["device"], asked[0]["workers"]) == ("cpu", 0)  # on the CPU, batches load in-process

    wrong = cli("train", "oneworld", "--recipe", str(recipe), "--device", "1", "--out", str(out))
    assert wrong.code == 2 and "'1': not a GPU of this machine (it has 1: 0 to 0)" in wrong.err
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    none = cli("train", "oneworld", "--device", "0", "--out", str(out))
    assert none.code == 2 and "no CUDA GPU is usable on this machine" in none.err
    other = cli("train", "the-game", "--recipe", str(recipe), "--out", str(out))
    assert other.code == 2 and "a recipe for 'oneworld', not 'the-game'" in other.err


def _quick_d6(cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dice_kinds: bool) -> tuple[Any, Path]:
    """``tabletop train d6`` on 12 renders, one epoch of the detector at 128 px and one of the
    face reader (the flow, not the accuracy), its detector learning a die whatever its face
    or each face as a class; what it printed and where it wrote."""
    from dataclasses import replace

    from vision import detect_train

    shipped = detect_train.load_recipe

    def quick(game: str) -> detect_train.Recipe:
        recipe = shipped(game)
        return replace(recipe, dice_kinds=dice_kinds, dice_faces={**(recipe.dice_faces or {}), "epochs": 1})

    monkeypatch.setattr(detect_train, "load_recipe", quick)
    out = tmp_path / "out"
    result = cli("train", "d6", "--count", "12", "--epochs", "1", "--imgsz", "128", "--out", str(out))
    assert result.code == 0, result.err
    return result, out


def test_the_d6_finder_is_trained_with_its_face_reader(cli: Runner, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``tabletop train d6`` renders dice frames (not a game), trains the detector and then
    the face reader beside it; the two load as the finder the live referee runs. Here with
    a recipe whose detector learns each face as a class (the finder reads the faces again);
    the shipped recipe's one class: the test below."""
    from vision.dice_finder import DiceFinder

    result, out = _quick_d6(cli, tmp_path, monkeypatch, dice_kinds=False)  # a class a face
    doc = json.loads((out / "data" / "dataset.json").read_text())
    assert doc["game"] == "d6" and doc["count"] == 12
    assert "face reader epoch 1/1" in result.err and f"saved {out / 'd6.faces.pt'}" in result.out
    finder = DiceFinder.load(str(out / "d6.pt"), "ultralytics")
    assert finder.faces is not None and finder.detector.names == tuple(f"d6-{k}" for k in range(1, 7))
    assert "d6" in cli("train", "--help").out


def test_a_d6_finder_that_finds_a_die_whatever_its_face_learns_one_class(cli: Runner, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``train.dice_kinds`` in its recipe the d6 finder's detector learns one class,
    ``d6``, from a copy of the renders relabelled so; the face reader beside it reads the
    faces, and the finder reports them as before."""
    from vision.dice_finder import DiceFinder

    result, out = _quick_d6(cli, tmp_path, monkeypatch, dice_kinds=True)
    assert "relabelling each kind of die as one detector class" in result.out
    merged = (out / "data-dice-kinds" / "labels" / "train")
    rows = [r for f in merged.glob("*.txt") for r in f.read_text().splitlines()]
    assert rows and {r.split()[0] for r in rows} == {"0"}
    finder = DiceFinder.load(str(out / "d6.pt"), "ultralytics")
    assert finder.detector.info.names == ("d6",) and finder.face_reader is not None and finder.faces is None
    assert finder.detector.names == tuple(f"d6-{k}" for k in range(1, 7))


def test_the_d6_finder_is_fine_tuned_on_photos_labelled_by_their_faces(cli: Runner, tmp_path: Path) -> None:
    """Photos labelled by faces (``d6-1`` .. ``d6-6``), as the renders are, fine-tune the
    shipped d6 finder: where its recipe has the detector find a die whatever its face
    (``train.dice_kinds``), the photos are relabelled so, and the shipped face reader goes
    beside the new weights; the finder loads from them and reports faces."""
    from vision.detect_train import load_recipe
    from vision.dice_finder import DiceFinder
    from vision.render.dice_scene import write_dice_dataset

    photos = tmp_path / "photos"
    write_dice_dataset(photos, 6, seed=5, val_every=3)
    out = tmp_path / "out"
    result = cli("train", "d6", "--data", str(photos), "--epochs", "1", "--imgsz", "64", "--out", str(out))
    assert result.code == 0, result.err
    finder = DiceFinder.load(str(out / "d6.pt"), "ultralytics")
    assert finder.face_reader is not None and finder.detector.names == tuple(f"d6-{k}" for k in range(1, 7))
    one_class = load_recipe("d6").dice_kinds
    assert ("relabelling each kind of die" in result.out) == one_class
    assert finder.detector.info.names == (("d6",) if one_class else finder.detector.names)


def test_dice_photos_not_laid_out_as_images_and_labels_are_refused_for_relabelling(cli: Runner, tmp_path: Path) -> None:
    """Dice relabelled as their kinds for the detector (the d6 finder's one class) are read
    from the dataset's images/ and labels/: photos laid out otherwise (a split's own
    images/ and labels/, as some labelling tools export them) are refused in one line that
    says the layout, not with a missing file of the relabelled copy."""
    import yaml

    from vision.render.dice_scene import write_dice_dataset

    src = tmp_path / "src"
    write_dice_dataset(src, 3, seed=5, val_every=3)
    photos = tmp_path / "photos"
    for split, to in (("train", "train"), ("val", "valid")):
        for kind in ("images", "labels"):
            shutil.copytree(src / kind / split, photos / to / kind)
    names = yaml.safe_load((src / "data.yaml").read_text())["names"]
    (photos / "data.yaml").write_text(yaml.safe_dump({"train": "train/images", "val": "valid/images", "names": names}))
    result = cli("train", "d6", "--data", str(photos), "--epochs", "1", "--imgsz", "64", "--out", str(tmp_path / "o"))
    assert result.code == 2, (result.out, result.err)
    assert result.err.startswith("tabletop: error: --data:") and "images/" in result.err, result.err


def test_fine_tuning_dice_twice_into_one_folder_trains_on_the_second_photos_alone(tmp_path: Path) -> None:
    """The copy of the photos relabelled by kind of die is made afresh for each fine-tuning:
    photos of an earlier one in the same output folder do not join the next."""
    import io

    from tabletop.training import _fine_tune_dice
    from vision.render.dice_scene import write_dice_dataset

    first, second, out = tmp_path / "first", tmp_path / "second", tmp_path / "out"
    write_dice_dataset(first, 4, seed=5, val_every=2)
    write_dice_dataset(second, 2, seed=6, val_every=2)
    weights = models.weights_path(models.DICE_FINDER)
    _fine_tune_dice("d6", weights, first, out, io.StringIO())
    data = _fine_tune_dice("d6", weights, second, out, io.StringIO())
    copied = sorted(p.name for p in (data.parent / "images").rglob("*") if p.is_file())
    assert copied == sorted(p.name for p in (second / "images").rglob("*") if p.is_file()) and len(copied) == 2


def test_stacks_only_trains_no_other_reader(cli: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--stacks-only`` on a recipe that also has a facing reader (The Game's, with a
    ``stack_reader`` section added) trains the stack reader alone, as ``--pieces-only`` and
    ``--faces-only`` train theirs alone."""
    from tabletop import training

    ran: list[str] = []
    monkeypatch.setattr(training, "_facing_reader_stage", lambda *a, **k: ran.append("facing"))
    monkeypatch.setattr(training, "_stack_reader_stage", lambda *a, **k: ran.append("stacks"))
    doc = json.loads(Path(models.__file__).with_name("the-game.json").read_text())
    assert doc.get("facing_reader") is not None
    doc["stack_reader"] = {"epochs": 1, "size": 16}
    result = _train_with(cli, tmp_path, "the-game", doc, "--stacks-only", 2, tmp_path / "out")
    assert result.code == 0, result.err
    assert ran == ["stacks"]


def test_help_gives_the_defaults_a_fine_tuning_uses(cli: Runner) -> None:
    """``--data`` trains 30 epochs at 640 unless told otherwise; the help says both."""
    text = " ".join(cli("train", "--help").out.split())
    assert "30 when fine-tuning" in text and "640 when fine-tuning" in text

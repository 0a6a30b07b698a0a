"""Training recipes and the tiles the shipped models learn from (no training here)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from vision.detect_train import Recipe, RecipeError, load_recipe, resolved_data_yaml, tile_dataset


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three rendered frames of The Game (pose labels), fixed seed."""
    from vision.render import RenderOptions
    from vision.render.dataset import write_dataset

    folder = tmp_path_factory.mktemp("field")
    write_dataset("the-game", folder, 3, seed=77, options=RenderOptions(size=(640, 480)), val_every=3)
    return folder


def test_tiles_are_full_scale_crops_with_their_labels(field: Path, tmp_path: Path) -> None:
    yaml_path = tile_dataset(field, tmp_path / "a", 320, 2, seed=5)
    tiles = sorted((tmp_path / "a" / "images").rglob("*.jpg"))
    assert len(tiles) == 6 and {cv2.imread(str(t)).shape for t in tiles} == {(320, 320, 3)}
    rows = [ln.split() for t in (tmp_path / "a" / "labels").rglob("*.txt") for ln in t.read_text().splitlines()]
    assert rows, "no piece in any tile"
    for r in rows:
        assert len(r) == 8  # class, box, keypoint x y v
        values = np.array([float(v) for v in r[1:7]])
        assert ((values >= 0) & (values <= 1)).all()
        assert int(r[7]) in (0, 1, 2)
    text = yaml_path.read_text()
    assert "kpt_shape" in text and "hand" in text
    # the same seed, the same tiles
    tile_dataset(field, tmp_path / "b", 320, 2, seed=5)
    for a in tiles:
        b = tmp_path / "b" / a.relative_to(tmp_path / "a")
        assert a.read_bytes() == b.read_bytes()


def test_a_tile_keeps_a_box_only_when_half_of_it_is_inside(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "images" / "train").mkdir(parents=True)
    (src / "labels" / "train").mkdir(parents=True)
    cv2.imwrite(str(src / "images" / "train" / "a.png"), np.zeros((480, 640, 3), np.uint8))
    # a box in the top-left corner, one straddling x = 320, one far away at the bottom right
    (src / "labels" / "train" / "a.txt").write_text(
        "0 0.05 0.05 0.05 0.05\n1 0.5 0.1 0.1 0.1\n2 0.95 0.95 0.05 0.05\n")
    (src / "data.yaml").write_text("train: images/train\nval: images/train\nnames: [a, b, c]\n")
    tile_dataset(src, tmp_path / "out", 320, 1, seed=0)
    lines = (tmp_path / "out" / "labels" / "train" / "a_0.txt").read_text().splitlines()
    classes = {ln.split()[0] for ln in lines}
    assert "2" not in classes or "0" not in classes  # never both ends of the frame in 320 px


def test_recipes_say_what_is_wrong() -> None:
    with pytest.raises(RecipeError, match="malformed recipe: it has no 'data'"):
        Recipe.from_json({"game": "oneworld"})
    with pytest.raises(RecipeError, match="malformed recipe: it has no 'architecture'"):
        Recipe.from_json({"game": "oneworld", "data": {"count": 10, "seed": 1}})
    with pytest.raises(RecipeError, match="no training recipe for 'chess'"):
        load_recipe("chess")
    base = {"game": "d6", "architecture": "yolo11n.yaml", "data": {"count": 10, "seed": 1}}
    with pytest.raises(RecipeError, match="train.dice_kinds is true or false, not 'yes'"):
        Recipe.from_json({**base, "train": {"dice_kinds": "yes"}})
    with pytest.raises(RecipeError, match="train.dice_kinds needs a dice_faces section"):
        Recipe.from_json({**base, "train": {"dice_kinds": True}})  # no face reader would read the faces
    assert Recipe.from_json({**base, "train": {"dice_kinds": True}, "dice_faces": {"epochs": 1}}).dice_kinds
    assert not Recipe.from_json(base).dice_kinds


def test_a_dataset_yaml_gets_an_absolute_path(tmp_path: Path) -> None:
    data = tmp_path / "mine"
    (data / "images" / "train").mkdir(parents=True)
    (data / "images" / "val").mkdir(parents=True)
    (data / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: [a, b]\n")
    out, doc = resolved_data_yaml(data, tmp_path / "run")
    assert Path(doc["path"]) == data.resolve() and doc["names"] == {0: "a", 1: "b"}
    assert out.parent == tmp_path / "run"


def test_a_dataset_yaml_without_a_path_given_as_a_relative_folder(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """README's layout (``train: images/train``, ``val: images/val``, ``names``: no ``path``)
    given as ``--data my-photos`` from the folder holding it: the images lie in the folder
    itself, not in ``my-photos/my-photos``."""
    data = tmp_path / "my-photos"
    (data / "images" / "train").mkdir(parents=True)
    (data / "images" / "val").mkdir(parents=True)
    (data / "data.yaml").write_text("train: images/train\nval: images/val\nnames: [a, b]\n")
    monkeypatch.chdir(tmp_path)
    _, doc = resolved_data_yaml(Path("my-photos"), tmp_path / "run")
    assert Path(doc["path"]) == data.resolve()


def _recipe(**then: object) -> Recipe:
    doc: dict[str, object] = {"game": "the-game", "architecture": "yolo11n-pose.yaml", "data": {"count": 4, "seed": 1},
                              "train": {"epochs": 5}, "hyperparameters": {"optimizer": "auto", "scale": 0.3}}
    if then:
        doc["then"] = then
    return Recipe.from_json(doc)


def test_a_second_stage_takes_its_epochs_and_its_hyperparameters_over_the_first() -> None:
    from vision.detect_train import later_stages

    assert later_stages(_recipe()) == []
    (stage,) = later_stages(_recipe(epochs=3, hyperparameters={"optimizer": "AdamW", "lr0": 0.001}))
    assert stage.epochs == 3 and stage.then == () and stage.renders == ()
    assert dict(stage.hyperparameters) == {"optimizer": "AdamW", "scale": 0.3, "lr0": 0.001}
    with pytest.raises(RecipeError, match="then.epochs"):
        _recipe(epochs=0)


def test_a_later_stage_may_train_at_its_own_image_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage's ``imgsz`` (the d6 finder's stage at the frames' full 640 px) is the size it
    trains at; stages without one keep the recipe's; a size that is no multiple of 32 is refused."""
    import types

    from vision import detect_train
    from vision.detect_train import later_stages

    plain = Recipe.from_json({"game": "the-game", "architecture": "yolo11n-pose.yaml", "data": {"count": 4, "seed": 1},
                              "train": {"epochs": 5, "imgsz": 416},
                              "then": [{"epochs": 2, "imgsz": 640}, {"epochs": 1}]})
    assert [s.imgsz for s in later_stages(plain)] == [640, 416]
    with pytest.raises(RecipeError, match="then.imgsz must be a multiple of 32"):
        _recipe(epochs=2, imgsz=650)
    monkeypatch.setattr(detect_train, "ultralytics_module", lambda: types.SimpleNamespace(YOLO=_FakeYOLO))
    _FakeYOLO.calls = []
    start = tmp_path / "shipped.pt"
    start.write_text("shipped")
    detect_train.continue_training(plain, tmp_path / "data.yaml", tmp_path / "out", start)
    ((_, args),) = _FakeYOLO.calls
    assert args["imgsz"] == 416 and args["epochs"] == 1  # the last stage: the recipe's size
    _FakeYOLO.calls = []
    two = Recipe.from_json({**json_of(plain), "then": [{"epochs": 3, "imgsz": 640}]})
    detect_train.continue_training(two, tmp_path / "data.yaml", tmp_path / "out2", start)
    ((_, args),) = _FakeYOLO.calls
    assert args["imgsz"] == 640 and args["epochs"] == 3


def json_of(recipe: Recipe) -> dict[str, object]:
    """The recipe ``recipe`` as its file would hold it (the sections these tests use)."""
    return {"game": recipe.game, "architecture": recipe.architecture,
            "data": {"count": recipe.data_count, "seed": recipe.data_seed},
            "train": {"epochs": recipe.epochs, "imgsz": recipe.imgsz}}


def _three_stages() -> Recipe:
    return Recipe.from_json({
        "game": "the-game", "architecture": "yolo11n-pose.yaml", "data": {"count": 4, "seed": 1},
        "train": {"epochs": 5}, "hyperparameters": {"optimizer": "auto", "scale": 0.3},
        "then": [{"epochs": 3, "hyperparameters": {"optimizer": "AdamW", "lr0": 0.001}},
                 {"epochs": 2, "hyperparameters": {"lr0": 0.0005}, "renders": [{"count": 6, "seed": 7}]}]})


def test_later_stages_carry_the_hyperparameters_of_the_stages_before_and_their_own_renders() -> None:
    from vision.detect_train import later_stages

    second, third = later_stages(_three_stages())
    assert (second.epochs, second.renders) == (3, ())
    assert (third.epochs, third.renders) == (2, ((6, 7, 0.0),))
    assert dict(third.hyperparameters) == {"optimizer": "AdamW", "scale": 0.3, "lr0": 0.0005}
    assert later_stages(_recipe()) == []
    with pytest.raises(RecipeError, match="count of at least 2"):
        Recipe.from_json({"game": "g", "architecture": "a", "data": {"count": 4, "seed": 1},
                          "then": [{"epochs": 2, "renders": [{"count": 1, "seed": 3}]}]})
    laid = Recipe.from_json({"game": "oneworld", "architecture": "a", "data": {"count": 4, "seed": 1},
                             "then": [{"epochs": 2, "renders": [{"count": 6, "seed": 3, "laid_out": 0.6}]}]})
    assert later_stages(laid)[0].renders == ((6, 3, 0.6),)
    with pytest.raises(RecipeError, match="laid_out is a share"):
        Recipe.from_json({"game": "g", "architecture": "a", "data": {"count": 4, "seed": 1},
                          "then": [{"epochs": 2, "renders": [{"count": 6, "seed": 3, "laid_out": 1.5}]}]})


def test_a_union_dataset_trains_on_every_set_and_validates_on_the_first(tmp_path: Path) -> None:
    import yaml

    from vision.detect_train import union_data_yaml

    for name in ("base", "more"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "data.yaml").write_text(
            f"path: {tmp_path / name}\ntrain: images/train\nval: images/val\nnames: {{0: a, 1: b}}\nkpt_shape: [1, 3]\n")
    out = union_data_yaml(tmp_path / "base" / "data.yaml", [tmp_path / "more" / "data.yaml"], tmp_path / "u.yaml")
    doc = yaml.safe_load(out.read_text())
    assert doc["train"] == [str(tmp_path / "base" / "images" / "train"), str(tmp_path / "more" / "images" / "train")]
    assert doc["val"] == [str(tmp_path / "base" / "images" / "val")]
    assert doc["names"] == {0: "a", 1: "b"} and doc["kpt_shape"] == [1, 3]
    (tmp_path / "more" / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: [c]\n")
    with pytest.raises(RecipeError, match="classes differ"):
        union_data_yaml(tmp_path / "base" / "data.yaml", [tmp_path / "more" / "data.yaml"], tmp_path / "u.yaml")


class _FakeYOLO:
    """Records what ultralytics would be asked; 'trains' by writing the weights file."""

    calls: ClassVar[list[tuple[str, dict[str, object]]]] = []

    def __init__(self, source: str) -> None:
        self.source = source

    def add_callback(self, event: str, fn: object) -> None:
        pass

    def train(self, **args: object) -> None:
        _FakeYOLO.calls.append((self.source, args))
        run = Path(str(args["project"])) / str(args["name"]) / "weights"
        run.mkdir(parents=True, exist_ok=True)
        (run / "best.pt").write_text(f"{args['name']} from {Path(self.source).name}")

        class Trainer:
            best = str(run / "best.pt")
            last = str(run / "last.pt")
            save_dir = str(run.parent)
            metrics: ClassVar[dict[str, float]] = {}

        self.trainer = Trainer()


def test_training_runs_the_second_stage_from_the_first_stages_best_weights(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from vision import detect_train

    monkeypatch.setattr(detect_train, "ultralytics_module", lambda: types.SimpleNamespace(YOLO=_FakeYOLO))
    _FakeYOLO.calls = []
    recipe = _recipe(epochs=3, hyperparameters={"lr0": 0.001, "warmup_epochs": 0})
    result = detect_train.train(recipe, tmp_path / "data.yaml", tmp_path / "out")
    (first_source, first), (second_source, second) = _FakeYOLO.calls
    assert first_source == "yolo11n-pose.yaml" and first["epochs"] == 5 and "lr0" not in first
    assert Path(second_source).name == "the-game.first-stage.pt"
    assert Path(second_source).read_text() == "run from yolo11n-pose.yaml"
    assert second["epochs"] == 3 and second["lr0"] == 0.001 and second["warmup_epochs"] == 0
    assert second["name"] == "run-then" and second["optimizer"] == "auto"
    assert result.epochs == 8
    assert result.weights.read_text() == "run-then from the-game.first-stage.pt"

    # fine-tuning on a user's photos runs one stage, from the weights given
    _FakeYOLO.calls = []
    start = tmp_path / "shipped.pt"
    start.write_text("shipped")
    detect_train.train(recipe, tmp_path / "data.yaml", tmp_path / "mine", start_from=start)
    assert [Path(source).name for source, _ in _FakeYOLO.calls] == ["shipped.pt"]

    # only the second stage, from given weights
    _FakeYOLO.calls = []
    detect_train.continue_training(recipe, tmp_path / "data.yaml", tmp_path / "more", start)
    ((source, args),) = _FakeYOLO.calls
    assert Path(source).name == "shipped.pt" and args["epochs"] == 3
    with pytest.raises(RecipeError, match="no 'then' stage"):
        detect_train.continue_training(_recipe(), tmp_path / "data.yaml", tmp_path / "more", start)


def test_each_later_stage_starts_from_the_one_before_on_its_own_data(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from vision import detect_train

    monkeypatch.setattr(detect_train, "ultralytics_module", lambda: types.SimpleNamespace(YOLO=_FakeYOLO))
    _FakeYOLO.calls = []
    result = detect_train.train(_three_stages(), tmp_path / "data.yaml", tmp_path / "out",
                                stage_data=[None, tmp_path / "more.yaml"])
    first, second, third = _FakeYOLO.calls
    assert [Path(str(a["data"])).name for _, a in (first, second, third)] == ["data.yaml", "data.yaml", "more.yaml"]
    assert Path(third[0]).name == "the-game.second-stage.pt"
    assert Path(third[0]).read_text() == "run-then from the-game.first-stage.pt"
    assert third[1]["name"] == "run-then-2" and third[1]["lr0"] == 0.0005 and third[1]["optimizer"] == "AdamW"
    assert result.epochs == 10 and result.weights.read_text() == "run-then-2 from the-game.second-stage.pt"

    # continuing runs the last stage alone
    _FakeYOLO.calls = []
    start = tmp_path / "shipped.pt"
    start.write_text("shipped")
    detect_train.continue_training(_three_stages(), tmp_path / "more.yaml", tmp_path / "again", start)
    ((source, args),) = _FakeYOLO.calls
    assert Path(source).name == "shipped.pt" and args["epochs"] == 2 and args["name"] == "run-then-2"


def test_renders_of_different_laid_out_shares_go_to_different_folders(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage's extra renders are rendered once into ``data-seed<S>-laid<percent>`` and used
    again when their count and seed match: two shares that round to one whole percent
    (0.12 and 0.125) must not share a folder, or the second silently trains on the first's
    images. Whole percents keep their names (``-laid30``)."""
    import io

    from tabletop import training

    names: list[str] = []
    monkeypatch.setattr(training, "_render", lambda recipe, folder, out: names.append(folder.name) or folder)
    for share in (0.3, 0.12, 0.125, 0.001, 0.004, 0.0):
        training._extra_render(_recipe(), tmp_path, 10, 7, 1.0, io.StringIO(), laid_out=share)
    assert names[0] == "data-seed7-laid30" and names[-1] == "data-seed7"
    assert len(set(names)) == len(names), names

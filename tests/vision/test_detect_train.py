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
    with pytest.raises(RecipeError, match="malformed recipe"):
        Recipe.from_json({"game": "oneworld"})
    with pytest.raises(RecipeError, match="no training recipe for 'chess'"):
        load_recipe("chess")


def test_a_dataset_yaml_gets_an_absolute_path(tmp_path: Path) -> None:
    data = tmp_path / "mine"
    (data / "images" / "train").mkdir(parents=True)
    (data / "images" / "val").mkdir(parents=True)
    (data / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: [a, b]\n")
    out, doc = resolved_data_yaml(data, tmp_path / "run")
    assert Path(doc["path"]) == data.resolve() and doc["names"] == {0: "a", 1: "b"}
    assert out.parent == tmp_path / "run"


def _recipe(**then: object) -> Recipe:
    doc: dict[str, object] = {"game": "the-game", "architecture": "yolo11n-pose.yaml", "data": {"count": 4, "seed": 1},
                              "train": {"epochs": 5}, "hyperparameters": {"optimizer": "auto", "scale": 0.3}}
    if then:
        doc["then"] = then
    return Recipe.from_json(doc)


def test_a_second_stage_takes_its_epochs_and_its_hyperparameters_over_the_first() -> None:
    from vision.detect_train import second_stage

    assert second_stage(_recipe()) is None
    stage = second_stage(_recipe(epochs=3, hyperparameters={"optimizer": "AdamW", "lr0": 0.001}))
    assert stage is not None
    assert stage.epochs == 3 and stage.then is None
    assert dict(stage.hyperparameters) == {"optimizer": "AdamW", "scale": 0.3, "lr0": 0.001}
    with pytest.raises(RecipeError, match="then.epochs"):
        _recipe(epochs=0)


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

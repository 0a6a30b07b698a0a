"""Shipped weights: package data that loads, with a recipe and a model card for each."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

import models
from vision.detect_train import Recipe, load_recipe

SHIPPED = models.available()
GAMES = ("oneworld", "battle-grounds", "when-gods-collide", "wormholes", "the-game")


def test_only_known_games_are_shipped() -> None:
    assert set(SHIPPED) <= set(GAMES)


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_weights_are_nano_package_data_with_recipe_and_card(game: str) -> None:
    path = models.weights_path(game)
    assert path.is_file() and path.stat().st_size < 8_000_000  # nano: a few MB
    assert resources.files("models").joinpath(f"{game}.pt").is_file()
    recipe = load_recipe(game)
    assert recipe.game == game and recipe.architecture.endswith(".yaml")  # from scratch, never a download
    assert recipe.data_seed != recipe.eval_seed
    card = resources.files("models").joinpath(f"{game}.md").read_text(encoding="utf-8")
    for needed in ("Data recipe", "Seed", "Epochs", "Image size", "Training time", "mAP50-95"):
        assert needed.lower() in card.lower(), f"models/{game}.md says nothing of {needed}"


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_weights_load_with_their_game_classes(game: str) -> None:
    from vision.artwork import get_kit
    from vision.detect import Detector

    detector = Detector.load(game, "ultralytics")
    assert detector.names == (*get_kit(game).pieces, "hand")
    section = json.loads(resources.files("models").joinpath(f"{game}.json").read_text(encoding="utf-8")).get(
        "inference", {})
    assert detector.info.imgsz == section.get("imgsz", 640)  # frames read as the recipe says
    assert (detector.piece_scale is not None) == ("piece_px" in section)
    fixed = Detector.load(game, "ultralytics", imgsz=640)  # unless told otherwise
    assert fixed.info.imgsz == 640 and fixed.piece_scale is None
    assert (detector.info.task == "pose") == load_recipe(game).keypoints
    if load_recipe(game).piece_reader is not None:  # its piece reader ships beside it and joins in
        reader = detector.pieces
        assert reader is not None and reader.names == detector.names
        assert len(reader.classes) >= 2 and set(reader.classes) <= set(detector.names) - {"hand"}
    # a stack reader too (OneWorld's: the counters of a stack boxed more than once)
    assert (detector.stacks is not None) == (load_recipe(game).stack_reader is not None)
    # a facing reader ships beside the weights exactly where the recipe trains one
    assert (detector.facing is not None) == (load_recipe(game).facing_reader is not None)
    # and so does a dice face reader: the detector finds kinds of dice, the reader their faces
    assert (detector.faces is not None) == (load_recipe(game).dice_faces is not None)
    if detector.faces is not None:
        assert set(detector.faces.faces) == {n for n in detector.names if n.startswith(("die-", "chess-", "hero-", "d6-"))}
        assert not set(detector.faces.kinds) & set(detector.names)  # a kind is never reported, only its faces


def test_recipes_parse() -> None:
    for entry in resources.files("models").iterdir():
        if entry.name.endswith(".json"):
            recipe = Recipe.from_json(json.loads(entry.read_text(encoding="utf-8")))
            assert recipe.epochs >= 1 and recipe.imgsz % 32 == 0


def test_the_checker_model_finds_real_paper_checkers_it_never_saw() -> None:
    """When Gods Collide's model learnt from renders alone. Three real photos of a printed
    board with paper checker discs (tests/data/real/checkers-printed: 72 discs, labelled by
    their own project, green and red rather than the armies' colours): it finds most of the
    discs as some checker and takes nothing else on the board for one."""
    import cv2

    from vision.detect import Detector
    from vision.detect_eval import Sample, _read_labels, transfer_figures

    folder = Path(__file__).resolve().parents[1] / "data" / "real" / "checkers-printed"
    photos = []
    for image in sorted(folder.glob("*.jpg")):
        pixels = cv2.imread(str(image))
        size = (pixels.shape[1], pixels.shape[0])
        classes, boxes, keypoints = _read_labels(image.with_suffix(".txt"), size)
        photos.append(Sample(image, classes, boxes, keypoints, None, size))
    detector = Detector.load("when-gods-collide")
    checkers = ("babylonian", "egyptian", "greek", "norse", "marduk", "amun-ra", "zeus", "odin")
    figures = transfer_figures(photos, detector.detect, tuple(detector.names), checkers, None, 0.25)
    assert figures["objects"] == 72
    assert figures["found"] >= 0.5 and figures["found_by_centre"] >= 0.5, figures
    assert figures["false_detections"] <= 2, figures

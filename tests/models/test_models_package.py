from __future__ import annotations

import json

import pytest

import models


def test_asking_for_weights_that_are_not_shipped_names_what_is() -> None:
    with pytest.raises(models.ModelNotFoundError, match="no shipped weights called 'nonexistent'"):
        models.weights_path("nonexistent")


def test_weights_named_after_no_game_are_read_at_the_default_size() -> None:
    assert models.inference_settings("runs/mine/detector.pt") == (models.DEFAULT_IMGSZ, None) == (640, None)


def test_weights_named_after_a_game_are_read_as_its_recipe_says(tmp_path, monkeypatch) -> None:
    (tmp_path / "dominoes.json").write_text(json.dumps({"game": "dominoes", "inference": {"imgsz": 800}}))
    (tmp_path / "go.json").write_text(json.dumps({"game": "go", "inference": {"imgsz": 768, "piece_px": 14.5}}))
    (tmp_path / "draughts.json").write_text(json.dumps({"game": "draughts"}))
    monkeypatch.setattr(models.resources, "files", lambda package: tmp_path)
    assert models.inference_settings("runs/train-dominoes/dominoes.pt") == (800, None)
    assert models.inference_settings("dominoes.onnx") == (800, None)
    assert models.inference_settings("go.pt") == (768, 14.5)  # read at the size the pieces need
    assert models.inference_settings("draughts.pt") == (640, None)  # a recipe without the section: the default


@pytest.mark.parametrize("entry, expected", [
    ('{"inference": {"imgsz": 650}}', "must be a multiple of 32"),
    ('{"inference": {"imgsz": "large"}}', "must be a multiple of 32"),
    ('{"inference": {"piece_px": 0.5}}', "piece_px must be a number of pixels"),
    ('{"inference": {"piece_px": "small"}}', "piece_px must be a number of pixels"),
    ('{"inference": ', "invalid JSON"),
])
def test_a_bad_inference_section_in_a_recipe_is_named(tmp_path, monkeypatch, entry: str, expected: str) -> None:
    (tmp_path / "dominoes.json").write_text(entry)
    monkeypatch.setattr(models.resources, "files", lambda package: tmp_path)
    with pytest.raises(ValueError, match=expected):
        models.inference_settings("dominoes.pt")


def test_whether_weights_read_each_frame_mirrored_too_is_the_recipes_call(tmp_path, monkeypatch) -> None:
    (tmp_path / "dominoes.json").write_text(json.dumps({"game": "dominoes", "inference": {"mirror": True}}))
    (tmp_path / "draughts.json").write_text(json.dumps({"game": "draughts", "inference": {"imgsz": 800}}))
    (tmp_path / "go.json").write_text(json.dumps({"game": "go", "inference": {"mirror": "yes"}}))
    (tmp_path / "chess.json").write_text(json.dumps({"game": "chess", "inference": [640]}))
    monkeypatch.setattr(models.resources, "files", lambda package: tmp_path)
    assert models.reads_mirrored("runs/train-dominoes/dominoes.pt") is True
    assert models.reads_mirrored("draughts.pt") is False and models.reads_mirrored("mine.pt") is False
    with pytest.raises(ValueError, match="inference.mirror must be true or false"):
        models.reads_mirrored("go.pt")
    with pytest.raises(ValueError, match="inference must be an object"):
        models.inference_settings("chess.pt")

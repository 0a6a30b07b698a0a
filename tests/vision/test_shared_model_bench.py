"""benchmarks/shared_model.py: the shared detector's data keeps each game's classes apart and
makes one class of what the games share (a hand)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import shared_model  # noqa: E402 (from benchmarks/, put on the path above)


def _dataset(root: Path, names: list[str], rows: dict[str, list[str]], split: str = "train") -> Path:
    (root / "images" / split).mkdir(parents=True)
    (root / "labels" / split).mkdir(parents=True)
    for stem, lines in rows.items():
        (root / "images" / split / f"{stem}.jpg").write_bytes(b"jpeg")
        (root / "labels" / split / f"{stem}.txt").write_text("".join(x + "\n" for x in lines))
    (root / "data.yaml").write_text(yaml.safe_dump({"names": dict(enumerate(names))}))
    return root


def test_two_games_map_onto_one_set_of_classes(tmp_path):
    a = _dataset(tmp_path / "a", ["stone", "blade", "hand"], {"x": ["0 0.5 0.5 0.1 0.1", "2 0.2 0.2 0.3 0.3"]})
    b = _dataset(tmp_path / "b", ["north", "hand"], {"x": ["1 0.4 0.4 0.2 0.2", "0 0.6 0.6 0.1 0.1"]})
    shared = ["stone", "blade", "hand", "north"]
    out = tmp_path / "shared"
    shared_model._mapped(a, out, [shared.index(n) for n in shared_model._names(a)], shared, "a-")
    shared_model._mapped(b, out, [shared.index(n) for n in shared_model._names(b)], shared, "b-")
    assert sorted(p.name for p in (out / "images" / "train").iterdir()) == ["a-x.jpg", "b-x.jpg"]
    assert (out / "labels" / "train" / "a-x.txt").read_text().split("\n")[:2] == ["0 0.5 0.5 0.1 0.1", "2 0.2 0.2 0.3 0.3"]
    assert (out / "labels" / "train" / "b-x.txt").read_text().split("\n")[:2] == ["2 0.4 0.4 0.2 0.2", "3 0.6 0.6 0.1 0.1"]
    assert shared_model._names(out) == shared


def test_a_held_out_set_goes_whole_into_validation(tmp_path):
    held = _dataset(tmp_path / "held", ["north", "hand"], {"y": ["1 0.5 0.5 0.2 0.2"]})
    out = tmp_path / "held-own"
    shared_model._mapped(held, out, [0, 1], ["north", "hand"], "", "val")
    doc = yaml.safe_load((out / "data.yaml").read_text())
    assert doc["val"] == "images/val" and (out / "images" / "val" / "y.jpg").is_symlink()
    assert (out / "labels" / "val" / "y.txt").read_text() == "1 0.5 0.5 0.2 0.2\n"

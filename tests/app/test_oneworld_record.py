"""The bundled OneWorld record and the script that makes it."""

from __future__ import annotations

import importlib.util
import json

import pytest


@pytest.fixture(scope="module")
def maker(repo_root):
    path = repo_root / "tools" / "make_oneworld_record.py"
    spec = importlib.util.spec_from_file_location("make_oneworld_record", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bundled_path(repo_root):
    return repo_root / "tabletop" / "data" / "records" / "oneworld.jsonl"


def test_record_is_short_and_well_formed(bundled_path):
    lines = bundled_path.read_text(encoding="utf-8").splitlines()
    assert 50 < len(lines) < 300
    header = json.loads(lines[0])
    assert header["game"] == "oneworld" and header["options"] == {"god_lives": 3}
    assert all("action" in json.loads(line) for line in lines[1:])


def test_the_script_rewrites_the_bundled_record_exactly(maker, bundled_path, tmp_path):
    fresh = tmp_path / "oneworld.jsonl"
    assert maker.main(["--output", str(fresh)]) == 0
    assert fresh.read_bytes() == bundled_path.read_bytes()


def test_check_mode_spots_a_stale_record(maker, bundled_path, tmp_path, capsys):
    assert maker.main(["--check", "--output", str(bundled_path)]) == 0
    stale = tmp_path / "stale.jsonl"
    stale.write_text(bundled_path.read_text(encoding="utf-8")[:-10], encoding="utf-8")
    assert maker.main(["--check", "--output", str(stale)]) == 1
    assert "STALE" in capsys.readouterr().out


def test_other_seeds_also_play_to_the_end(maker):
    header, entries, outcome = maker.play(seed=2)
    assert outcome is not None and outcome.winner in ("borg", "chez")
    assert header.game == "oneworld" and len(entries) < 1000

"""The sample-turn benchmarks read their command line: --help explains them and an unknown
game is refused, rather than either being taken for a game's name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ("live_reading.py", "live_reading_noise.py")


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_explains_the_benchmark(script: str) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"],
                         check=False, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout and "GAME" in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_unknown_game_is_refused(script: str) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "chess"],
                         check=False, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2
    assert "unknown game 'chess'" in run.stderr and "Traceback" not in run.stderr

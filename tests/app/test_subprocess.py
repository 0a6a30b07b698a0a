"""``python -m tabletop`` as a separate process, from a directory outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def run(repo_root: Path, tmp_path: Path):
    def go(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, PYTHONPATH=str(repo_root))
        env.pop("TABLETOP_DEBUG", None)
        return subprocess.run(  # the tests read the exit status
            [sys.executable, "-m", "tabletop", *argv],
            check=False,
            input=stdin,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )

    return go


def test_replay_example_from_another_directory(run):
    done = run("rules", "replay", "--example", "oneworld", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Game over: borg wins (CHEZ has lost all its lives).\n"
    assert done.stderr == ""


def test_malformed_json_is_one_line_without_traceback(run):
    done = run("rules", "check", "--game", "oneworld", stdin='{"action": [}')
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        done.stderr
        == "tabletop: error: <stdin>: invalid JSON at line 1, column 13: Expecting value\n"
    )


def test_illegal_action_exit_status(run):
    done = run(
        "rules",
        "check",
        "--game",
        "oneworld",
        "--compact",
        stdin='{"action": {"type": "end-movement", "side": "borg"}}',
    )
    assert done.returncode == 1
    assert '"code": "setup-first"' in done.stdout


def test_games_lists_oneworld(run):
    done = run("games")
    assert done.returncode == 0
    assert any(line.split()[:2] == ["oneworld", "OneWorld"] for line in done.stdout.splitlines())

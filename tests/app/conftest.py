"""Shared helpers for the application tests: run the CLI in-process, positions from the
bundled OneWorld record."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tabletop.cli import main
from tabletop.records import GameRecord, bundled_record
from tabletop.referee import Referee

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def json_lines(self) -> list[Any]:
        return [json.loads(line) for line in self.out.splitlines()]

    def error_line(self) -> str:
        """The single line a failing command writes on standard error."""
        lines = self.err.splitlines()
        assert len(lines) == 1, self.err
        assert "Traceback" not in self.err
        assert lines[0].startswith("tabletop: error: "), lines[0]
        return lines[0]


Runner = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Runner:
    """``cli("rules", "check", ..., stdin=...)`` runs ``main`` and captures what it printed."""

    def run(*argv: str, stdin: str | dict[str, Any] = "") -> Result:
        text = stdin if isinstance(stdin, str) else json.dumps(stdin)
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        code = main(list(argv))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def record() -> GameRecord:
    """The bundled OneWorld record."""
    return bundled_record("oneworld")


@pytest.fixture(scope="session")
def lines(record: GameRecord) -> SimpleNamespace:
    """Lines of the bundled OneWorld record worth starting from."""
    with_rolls = [e.line for e in record.entries if e.rolls]
    moves = [e.line for e in record.entries if e.action.get("type") == "move"]
    return SimpleNamespace(
        first_move=moves[0], first_roll=with_rolls[0], last=record.entries[-1].line
    )


@pytest.fixture(scope="session")
def position_before(record: GameRecord) -> Callable[[int], dict[str, Any]]:
    """``position_before(n)``: the position JSON just before the record's line ``n`` is played."""
    cache: dict[int, dict[str, Any]] = {}

    def at(line: int) -> dict[str, Any]:
        if line not in cache:
            referee = Referee.for_record(record)
            for entry in record.entries:
                if entry.line >= line:
                    break
                referee.play(referee.game.action_from_json(entry.action), entry.rolls)
            cache[line] = referee.game.state_to_json(referee.state)
        return json.loads(json.dumps(cache[line]))  # a fresh copy each time

    return at


@pytest.fixture(scope="session")
def entry_at(record: GameRecord) -> Callable[[int], dict[str, Any]]:
    """``entry_at(n)``: the record's entry on line ``n`` as JSON."""
    by_line = {e.line: e for e in record.entries}
    return lambda line: json.loads(json.dumps(by_line[line].to_json()))  # a fresh copy each time

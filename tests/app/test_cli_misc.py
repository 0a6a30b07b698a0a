"""``tabletop games``, ``tabletop demo``, help, version, and the last line of defence."""

from __future__ import annotations

import pytest

import tabletop
from tabletop import cli as cli_module


def test_games_lists_oneworld_with_its_title_and_example(cli):
    result = cli("games")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == "Games the referee knows:"
    oneworld = next(line for line in lines if line.split()[0] == "oneworld")
    assert "OneWorld" in oneworld
    assert oneworld.endswith("example: tabletop rules replay --example oneworld")


def test_games_json(cli):
    result = cli("games", "--json")
    assert result.code == 0
    games = {g["name"]: g for g in result.json()}
    assert games["oneworld"] == {"name": "oneworld", "title": "OneWorld", "example_record": True}


def test_games_skips_an_engine_that_is_not_finished(cli, monkeypatch):
    from rules import registry

    monkeypatch.setitem(registry.GAMES, "half-done", "rules.oneworld:NoSuchEngine")
    result = cli("games", "--json")
    assert result.code == 0
    names = [g["name"] for g in result.json()]
    assert "oneworld" in names and "half-done" not in names
    check = cli("rules", "moves", "--game", "half-done", stdin={})
    assert check.code == 2
    assert "the 'half-done' engine is not available yet" in check.error_line()


def test_demo_record_welcomes_replays_and_suggests_what_next(cli):
    result = cli("demo", "--record")
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith("Welcome to tabletop")
    assert "About this game: " in out
    assert "Add --speak" in out
    assert "CHEZ has no lives left. BORG wins!" in out
    assert "Game over: borg wins (CHEZ has lost all its lives)." in out
    assert "What to try next:" in out and "tabletop rules replay --example oneworld --json" in out
    assert result.err == ""


def test_demo_with_a_delay_and_speech_unavailable(cli, monkeypatch):
    pauses = []
    monkeypatch.setattr("tabletop.commands.time.sleep", pauses.append)
    monkeypatch.setattr("tabletop.announcer.shutil.which", lambda name: None)
    result = cli("demo", "--record", "--delay", "0.25", "--speak")
    assert result.code == 0
    assert result.err.startswith("tabletop: warning: no speech program found")
    assert len(result.err.splitlines()) == 1
    assert pauses and set(pauses) == {0.25}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["demo", "--delay", "soon"], "--delay: expected a number of seconds, got 'soon'"),
        (["demo", "--delay", "-1"], "--delay: the delay must be between 0 and 60 seconds"),
        (["demo", "--record", "--game", "chess"], "no bundled record for 'chess'"),
        (["demo", "--game", "chess"], "--game: no sample turn for 'chess'"),
        (["demo", "--delay", "1"], "--delay: only with --record"),
        (["demo", "--speak"], "--speak: only with --record"),
        (["fly"], "invalid choice: 'fly'"),
        (["rules", "check", "--game", "oneworld", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_are_one_line(cli, argv, expected):
    result = cli(*argv)
    assert result.code == 2
    assert expected in result.error_line()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "tabletop: a computer-vision referee"),
        (["rules"], "Talk to the rules engines"),
    ],
)
def test_no_command_prints_help_and_exits_2(cli, argv, expected):
    result = cli(*argv)
    assert result.code == 2
    assert expected in result.err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], ["games", "demo", "rules", "exit status:", "docs/cli.md"]),
        (["rules", "--help"], ["check", "moves", "replay"]),
        (["games", "--help"], ["--json"]),
        (["demo", "--help"], ["--speak", "--delay", "--game", "--out", "--record"]),
        (
            ["rules", "check", "--help"],
            ["--game", "FILE", "needs_rolls", "--compact", "exit status:"],
        ),
        (["rules", "moves", "--help"], ["--game", "--piece", "notation"]),
        (["rules", "replay", "--help"], ["LOG", "--example", "--quiet", "--json", "--speak"]),
    ],
)
def test_help_explains_each_command_and_option(cli, argv, expected):
    result = cli(*argv)
    assert result.code == 0
    for word in expected:
        assert word in result.out


def test_version(cli):
    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"tabletop {tabletop.__version__}"


def test_a_bug_is_one_line_and_exit_3(cli, monkeypatch):
    def broken(args, out):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(cli_module, "run_games", broken)
    monkeypatch.delenv(cli_module.DEBUG_ENV, raising=False)
    result = cli("games")
    assert result.code == 3
    lines = result.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("tabletop: internal error: ZeroDivisionError: oops (this is a bug")


def test_debug_shows_the_traceback_of_a_bug(cli, monkeypatch):
    def broken(args, out):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(cli_module, "run_games", broken)
    monkeypatch.setenv(cli_module.DEBUG_ENV, "1")
    with pytest.raises(ZeroDivisionError):
        cli("games")

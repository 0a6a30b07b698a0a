"""``tabletop rules replay``: announcements by record line, illegal actions, bad records."""

from __future__ import annotations

import json

import pytest


def write_record(tmp_path, lines, name="game.jsonl"):
    path = tmp_path / name
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n",
        encoding="utf-8",
    )
    return str(path)


@pytest.fixture
def bundled_lines(repo_root):
    return (
        (repo_root / "tabletop" / "data" / "records" / "oneworld.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    )


def test_example_replays_to_the_victory(cli, lines):
    result = cli("rules", "replay", "--example", "oneworld")
    assert result.code == 0, result.err
    out = result.out.splitlines()
    assert out[0].startswith("Replaying oneworld.jsonl (bundled): OneWorld, ")
    assert out[1].split()[0] == "2"  # numbered by record line: the header is line 1
    assert out[-2] == f"{lines.last:>3}  CHEZ has no lives left. BORG wins!"
    assert out[-1] == "Game over: borg wins (CHEZ has lost all its lives)."
    assert result.err == ""


def test_replay_of_a_file_matches_the_example(cli, tmp_path, bundled_lines):
    path = write_record(tmp_path, bundled_lines)
    from_file = cli("rules", "replay", path)
    example = cli("rules", "replay", "--example", "oneworld")
    assert from_file.code == 0
    assert from_file.out.splitlines()[1:] == example.out.splitlines()[1:]


def test_replay_from_standard_input(cli, bundled_lines):
    result = cli("rules", "replay", "-", "--quiet", stdin="\n".join(bundled_lines))
    assert result.code == 0
    assert result.out == "Game over: borg wins (CHEZ has lost all its lives).\n"


def test_quiet_prints_only_the_result(cli):
    result = cli("rules", "replay", "--example", "oneworld", "--quiet")
    assert result.code == 0
    assert result.out.splitlines() == ["Game over: borg wins (CHEZ has lost all its lives)."]


def test_json_prints_events_then_the_outcome(cli, record):
    result = cli("rules", "replay", "--example", "oneworld", "--json")
    assert result.code == 0
    rows = result.json_lines()
    events, last = rows[:-1], rows[-1]
    assert last == {
        "outcome": {"winner": "borg", "draw": False, "reason": "CHEZ has lost all its lives"}
    }
    assert all(set(e) >= {"line", "kind", "text"} for e in events)
    assert {e["line"] for e in events} == {entry.line for entry in record.entries}
    assert [e["line"] for e in events] == sorted(e["line"] for e in events)
    assert events[-1]["kind"] == "victory" and events[-1]["details"] == {"winner": "borg"}


def test_blank_lines_are_ignored_and_numbering_follows_the_file(cli, tmp_path, bundled_lines):
    path = write_record(tmp_path, [bundled_lines[0], "", "   ", *bundled_lines[1:3]])
    result = cli("rules", "replay", path, "--json")
    assert result.code == 0
    rows = result.json_lines()
    assert [r["line"] for r in rows[:-1]] == [4, 5]  # one event each: set-up, Tower chosen
    assert rows[-1] == {"outcome": None}


def test_an_unfinished_record_says_who_is_to_move(cli, tmp_path, bundled_lines):
    path = write_record(tmp_path, bundled_lines[:10])
    result = cli("rules", "replay", path)
    assert result.code == 0
    assert (
        result.out.splitlines()[-1] == "The record ends here; the game is not over (borg to move)."
    )


def test_illegal_action_stops_the_replay_with_its_line(cli, tmp_path, bundled_lines):
    bad = {"action": {"type": "move", "piece": "B1", "to": "0703"}}  # CHEZ is to move
    path = write_record(tmp_path, [*bundled_lines[:6], json.dumps(bad), *bundled_lines[6:]])
    result = cli("rules", "replay", path)
    assert result.code == 1
    out = result.out.splitlines()
    assert out[-1].startswith("Line 7: illegal action B1-0703: ")
    assert "(not-your-turn). The replay stops here." in out[-1]
    assert out[-2].startswith("  6  ")  # everything before it was announced
    assert result.err == ""


def test_illegal_action_in_json_mode(cli, tmp_path, bundled_lines):
    bad = {"action": {"type": "end-movement", "side": "borg"}}
    path = write_record(tmp_path, [*bundled_lines[:5], json.dumps(bad)])
    result = cli("rules", "replay", path, "--json")
    assert result.code == 1
    last = result.json_lines()[-1]
    assert last["illegal"]["line"] == 6
    assert last["illegal"]["action"] == "BORG ends movement"
    assert last["illegal"]["verdict"]["code"] == "not-your-turn"


def test_actions_after_the_end_are_illegal(cli, tmp_path, bundled_lines):
    path = write_record(
        tmp_path, [*bundled_lines, json.dumps({"action": {"type": "end-movement", "side": "borg"}})]
    )
    result = cli("rules", "replay", path, "--quiet")
    assert result.code == 1
    assert result.out.startswith(
        f"Line {len(bundled_lines) + 1}: illegal action BORG ends movement: the game is over"
    )


# -- bad records: one line on stderr, exit 2 ---------------------------------------------------


HEADER = {"game": "oneworld", "options": {"god_lives": 3}}


@pytest.mark.parametrize(
    ("record_lines", "expected"),
    [
        ([], "line 1: the record is empty"),
        ([{"options": {}}], "line 1: game: missing"),
        (
            [{"action": {"type": "end-movement", "side": "borg"}}],
            "line 1: the first line must be the header",
        ),
        (["[1, 2]"], "line 1: the header must be a JSON object"),
        ([{"game": 7}], "line 1: game: expected a game name"),
        ([{"game": "chess"}], "line 1: game: unknown game 'chess'"),
        ([{"game": "oneworld", "players": 2}], "line 1: players: unknown field"),
        (
            [{"game": "oneworld", "options": {"god_lives": 0}}],
            "line 1: options.god_lives: 0 is out of range",
        ),
        (
            [{"game": "oneworld", "options": "fast"}],
            "line 1: options: expected an object, got a string",
        ),
        (
            [
                {
                    "game": "oneworld",
                    "position": {"children": [{"side": "borg", "aspect": "fog", "hex": "3030"}]},
                }
            ],
            "line 1: position.children[0].hex: B1 is at 3030, which is not on the map",
        ),
        (['{"game": "oneworld"'], "line 1: invalid JSON at column 20"),
        ([HEADER, "{oops}"], "line 2: invalid JSON at column 2"),
        ([HEADER, {"rolls": [1]}], "line 2: action: missing"),
        ([HEADER, {"action": {}, "dice": [1]}], "line 2: dice: unknown field"),
        ([HEADER, {"action": {"type": "move"}, "rolls": 4}], "line 2: rolls: expected a list"),
        (
            [HEADER, {"action": {"type": "move"}, "rolls": ["six"]}],
            "line 2: rolls[0]: a roll must be a whole number",
        ),
        ([HEADER, HEADER], "line 2: a second header"),
        (
            [HEADER, {"action": {"type": "move", "piece": "B1", "to": "99x"}}],
            "line 2: action.to: not a hex label: '99x'",
        ),
    ],
)
def test_bad_records_name_the_line_and_field(cli, tmp_path, record_lines, expected):
    path = write_record(tmp_path, record_lines)
    result = cli("rules", "replay", path)
    assert result.code == 2
    assert result.error_line().startswith(f"tabletop: error: {path}: {expected}")


def test_missing_rolls_in_a_record(cli, tmp_path, bundled_lines, lines):
    cut = bundled_lines[: lines.first_roll]
    entry = json.loads(cut[-1])
    del entry["rolls"]
    path = write_record(tmp_path, [*cut[:-1], json.dumps(entry)])
    result = cli("rules", "replay", path)
    assert result.code == 2
    line = result.error_line()
    assert line.startswith(f"tabletop: error: {path}: line {lines.first_roll}: rolls: ")
    assert "needs more rolls than the 0 given" in line


def test_roll_out_of_range_in_a_record(cli, tmp_path, bundled_lines, lines):
    cut = bundled_lines[: lines.first_roll]
    entry = json.loads(cut[-1])
    entry["rolls"] = [9]
    path = write_record(tmp_path, [*cut[:-1], json.dumps(entry)])
    result = cli("rules", "replay", path)
    assert result.code == 2
    assert result.error_line().startswith(
        f"tabletop: error: {path}: line {lines.first_roll}: "
        "rolls[0]: roll 9 is out of range for a d6"
    )


def test_missing_record_file(cli, tmp_path):
    missing = tmp_path / "none.jsonl"
    result = cli("rules", "replay", str(missing))
    assert result.code == 2
    assert (
        result.error_line()
        == f"tabletop: error: {missing}: cannot read it: No such file or directory"
    )


def test_unknown_example(cli):
    result = cli("rules", "replay", "--example", "chess")
    assert result.code == 2
    assert result.error_line().startswith(
        "tabletop: error: no bundled record for 'chess' (bundled records: "
    )


@pytest.mark.parametrize(
    "argv", [["rules", "replay"], ["rules", "replay", "x.jsonl", "--example", "oneworld"]]
)
def test_replay_needs_exactly_one_source(cli, argv):
    result = cli(*argv)
    assert result.code == 2
    assert "--example GAME" in result.error_line()


def test_speak_without_a_speech_program_warns_once_and_goes_on(cli, monkeypatch):
    monkeypatch.setattr("tabletop.announcer.shutil.which", lambda name: None)
    result = cli("rules", "replay", "--example", "oneworld", "--speak")
    assert result.code == 0
    assert result.err.count("warning") == 1
    assert result.err.startswith("tabletop: warning: no speech program found")
    assert result.out.splitlines()[-1].startswith("Game over")


def test_speak_uses_the_speech_program(cli, monkeypatch):
    said = []
    monkeypatch.setattr("tabletop.announcer.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(
        "tabletop.announcer.subprocess.run", lambda argv, input, **kw: said.append((argv[0], input))
    )
    result = cli("rules", "replay", "--example", "oneworld", "--speak")
    assert result.code == 0 and result.err == ""
    assert said[0] == (
        "/usr/bin/espeak-ng",
        "BORG defends the north end; the god sits at 0702 with 13 children around it.",
    )
    assert said[-1][1] == "Game over: borg wins (CHEZ has lost all its lives)."


@pytest.mark.parametrize(
    "game", ["oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game"]
)
def test_every_bundled_record_replays(cli, game):
    from tabletop.records import bundled_record_names

    assert game in bundled_record_names()
    result = cli("rules", "replay", "--example", game, "--quiet")
    assert result.code == 0, result.out + result.err
    assert "Game over" in result.out

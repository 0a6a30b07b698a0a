"""``tabletop rules check``: verdicts, new positions, rolls, and every kind of bad input."""

from __future__ import annotations

import json

import pytest

from rules.oneworld import OneWorld
from rules.oneworld.setup import example_setup


@pytest.fixture
def move_input(position_before, entry_at, lines):
    """CHEZ's first move of the bundled game, with the position it was made in."""
    return {
        "position": position_before(lines.first_move),
        "action": entry_at(lines.first_move)["action"],
    }


def test_legal_action_prints_verdict_events_and_new_position(cli, move_input):
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 0, result.err
    data = result.json()
    assert set(data) == {"verdict", "events", "rolls_used", "position", "outcome", "to_move"}
    assert data["verdict"]["legal"] is True and data["verdict"]["code"] == "ok"
    assert [e["kind"] for e in data["events"]] == ["move"]
    piece, to = move_input["action"]["piece"], move_input["action"]["to"]
    moved = next(c for c in data["position"]["children"] if c["id"] == piece)
    assert moved["hex"] == to
    assert piece in data["position"]["this_turn"]["moved"]
    assert data["outcome"] is None
    assert data["rolls_used"] == []
    assert result.err == ""


def test_new_position_can_be_checked_again(cli, move_input):
    first = cli("rules", "check", "--game", "oneworld", stdin=move_input).json()
    again = {
        "position": first["position"],
        "action": {"type": "end-movement", "side": first["to_move"][0]},
    }
    result = cli("rules", "check", "--game", "oneworld", stdin=again)
    assert result.code == 0, result.err
    assert result.json()["verdict"]["legal"] is True


def test_illegal_action_prints_only_the_verdict_and_exits_1(cli, move_input):
    move_input["action"]["to"] = "0101"  # far from any straight line of the Blade
    result = cli("rules", "check", "--game", "oneworld", "--compact", stdin=move_input)
    assert result.code == 1
    assert len(result.out.splitlines()) == 1
    data = result.json()
    assert data == {"verdict": data["verdict"]}
    assert data["verdict"]["legal"] is False
    assert data["verdict"]["code"] == "blade-straight-line"
    assert data["verdict"]["message"]


def test_action_by_the_wrong_player_is_illegal(cli, position_before, lines):
    data = {
        "position": position_before(lines.first_move),
        "action": {"type": "end-movement", "side": "borg"},
    }
    result = cli("rules", "check", "--game", "oneworld", stdin=data)
    assert result.code == 1
    assert result.json()["verdict"]["code"] == "not-your-turn"


def test_moving_a_piece_that_is_not_on_the_map_is_an_illegal_action(cli, move_input):
    move_input["action"]["piece"] = "Z9"
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 1
    assert result.json()["verdict"]["code"] == "unknown-piece"


def test_missing_rolls_give_the_verdict_and_needs_rolls(cli, position_before, entry_at, lines):
    data = {
        "position": position_before(lines.first_roll),
        "action": entry_at(lines.first_roll)["action"],
    }
    result = cli("rules", "check", "--game", "oneworld", stdin=data)
    assert result.code == 0, result.err
    out = result.json()
    assert out["needs_rolls"] is True
    assert out["verdict"]["legal"] is True
    assert out["roll"]["sides"] == 6 and out["roll"]["given"] == 0
    assert "position" not in out and "events" not in out


def test_given_rolls_are_used(cli, position_before, entry_at, lines):
    data = {"position": position_before(lines.first_roll), **entry_at(lines.first_roll)}
    result = cli("rules", "check", "--game", "oneworld", stdin=data)
    assert result.code == 0, result.err
    out = result.json()
    assert out["rolls_used"] == data["rolls"]
    assert "reinforcement" in [e["kind"] for e in out["events"]]


def test_winning_action_reports_the_outcome(cli, position_before, entry_at, lines):
    data = {"position": position_before(lines.last), **entry_at(lines.last)}
    out = cli("rules", "check", "--game", "oneworld", stdin=data).json()
    assert out["outcome"] == {
        "winner": "borg",
        "draw": False,
        "reason": "CHEZ has lost all its lives",
    }
    assert out["events"][-1]["kind"] == "victory"
    assert out["to_move"] == []


def test_without_a_position_the_game_starts_from_its_initial_state(cli):
    game = OneWorld.from_options({})
    setup = example_setup(
        game.board, game.options, game.initial_state(), game.initial_state().active
    )
    result = cli(
        "rules", "check", "--game", "oneworld", stdin={"action": game.action_to_json(setup)}
    )
    assert result.code == 0, result.err
    assert result.json()["events"][0]["kind"] == "setup"


def test_options_are_passed_to_the_engine(cli):
    game = OneWorld.from_options({})
    setup = example_setup(
        game.board, game.options, game.initial_state(), game.initial_state().active
    )
    data = {"action": game.action_to_json(setup), "options": {"god_lives": 5}}
    out = cli("rules", "check", "--game", "oneworld", stdin=data).json()
    assert out["position"]["gods"]["borg"]["lives"] == 5


def test_input_from_a_file_and_from_dash(cli, tmp_path, move_input):
    path = tmp_path / "input.json"
    path.write_text(json.dumps(move_input), encoding="utf-8")
    from_file = cli("rules", "check", "--game", "oneworld", str(path))
    from_dash = cli("rules", "check", "--game", "oneworld", "-", stdin=move_input)
    assert from_file.code == from_dash.code == 0
    assert from_file.out == from_dash.out


def test_compact_prints_one_line(cli, move_input):
    result = cli("rules", "check", "--game", "oneworld", "--compact", stdin=move_input)
    assert len(result.out.splitlines()) == 1
    assert result.json()["verdict"]["legal"] is True


# -- bad input: one line on stderr naming the field, exit 2 ------------------------------------


def test_bad_hex_label_names_the_field(cli, move_input):
    move_input["action"]["to"] = "99x"
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 2
    assert result.out == ""
    assert result.error_line() == (
        "tabletop: error: action.to: not a hex label: '99x' (expected column and row, e.g. '0712')"
    )


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"position": {}, "action": }', "line 1, column 28"),
        ('{\n  "action": {"type": "move",}\n}', "line 2, column 29"),
    ],
)
def test_malformed_json_gives_line_and_column(cli, text, where):
    result = cli("rules", "check", "--game", "oneworld", stdin=text)
    assert result.code == 2
    line = result.error_line()
    assert line.startswith("tabletop: error: <stdin>: invalid JSON at ")
    assert where in line


@pytest.mark.parametrize("text", ["", " \n"])
def test_empty_input_says_the_action_is_missing(cli, tmp_path, text):
    result = cli("rules", "check", "--game", "oneworld", stdin=text)
    assert result.code == 2
    assert result.error_line() == ('tabletop: error: <stdin>: empty: the action is missing: give a JSON object with '
                                   'at least "action", the action to check (docs/formats.md)')
    path = tmp_path / "empty.json"
    path.write_text(text, encoding="utf-8")
    result = cli("rules", "check", "--game", "oneworld", str(path))
    assert result.code == 2 and result.error_line().startswith(f"tabletop: error: {path}: empty: the action is missing")


def test_malformed_json_in_a_file_names_the_file(cli, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{nope", encoding="utf-8")
    result = cli("rules", "check", "--game", "oneworld", str(path))
    assert result.code == 2
    assert f"{path}: invalid JSON at line 1, column 2" in result.error_line()


def test_missing_file(cli, tmp_path):
    missing = tmp_path / "nowhere.json"
    result = cli("rules", "check", "--game", "oneworld", str(missing))
    assert result.code == 2
    assert (
        result.error_line()
        == f"tabletop: error: {missing}: cannot read it: No such file or directory"
    )


def test_unknown_game(cli, move_input):
    result = cli("rules", "check", "--game", "chess", stdin=move_input)
    assert result.code == 2
    line = result.error_line()
    assert "unknown game 'chess'" in line and "oneworld" in line


def test_coordinates_off_the_map(cli, move_input):
    move_input["position"]["children"][0]["hex"] = "4040"
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 2
    line = result.error_line()
    assert line.startswith("tabletop: error: position.children[0].hex: ")
    assert "4040" in line and "not on the map" in line


def test_roll_out_of_range(cli, position_before, entry_at, lines):
    data = {
        "position": position_before(lines.first_roll),
        "action": entry_at(lines.first_roll)["action"],
        "rolls": [7],
    }
    result = cli("rules", "check", "--game", "oneworld", stdin=data)
    assert result.code == 2
    assert result.error_line().startswith(
        "tabletop: error: rolls[0]: roll 7 is out of range for a d6"
    )


def test_too_many_rolls(cli, move_input):
    move_input["rolls"] = [3]
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 2
    assert (
        result.error_line()
        == "tabletop: error: rolls: 1 roll(s) given but only 0 needed for this action"
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("action"), "tabletop: error: action: missing"),
        (
            lambda d: d.update(colour="red"),
            ("tabletop: error: colour: unknown field "
            "(known fields: action, options, position, rolls)"),
        ),
        (lambda d: d.update(rolls=3), "tabletop: error: rolls: expected a list, got int"),
        (
            lambda d: d.update(options=[1]),
            "tabletop: error: options: expected an object, got a list",
        ),
        (
            lambda d: d.update(options={"god_lives": "x"}),
            "tabletop: error: options.god_lives: expected a whole number, got 'x'",
        ),
        (
            lambda d: d["action"].update(type="fly"),
            "tabletop: error: action.type: unknown action type 'fly'",
        ),
        (
            lambda d: d["position"].update(phase="dinner"),
            "tabletop: error: position.phase: unknown value 'dinner'",
        ),
    ],
)
def test_bad_fields_are_named(cli, move_input, change, expected):
    change(move_input)
    result = cli("rules", "check", "--game", "oneworld", stdin=move_input)
    assert result.code == 2
    assert result.error_line().startswith(expected)


def test_input_must_be_an_object(cli):
    result = cli("rules", "check", "--game", "oneworld", stdin="[1, 2]")
    assert result.code == 2
    assert result.error_line() == "tabletop: error: input: expected an object, got a list"


def test_missing_game_option_is_a_usage_error(cli, move_input):
    result = cli("rules", "check", stdin=move_input)
    assert result.code == 2
    assert "--game" in result.error_line()

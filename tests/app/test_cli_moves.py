"""``tabletop rules moves``: every legal action, or one piece's, with notation."""

from __future__ import annotations

import pytest

from rules.oneworld import OneWorld


@pytest.fixture
def position(position_before, lines):
    return position_before(lines.first_move)


def test_lists_every_legal_action_with_notation(cli, position):
    result = cli("rules", "moves", "--game", "oneworld", stdin={"position": position})
    assert result.code == 0, result.err
    data = result.json()
    game = OneWorld.from_options({})
    expected = game.legal_actions(game.state_from_json(position))
    assert data["to_move"] == ["chez"]
    assert "not_listed" not in data  # the list is whole
    assert len(data["actions"]) == len(expected) > 1
    assert all(a["notation"] for a in data["actions"])
    assert {"type": "end-movement", "side": "chez", "notation": "CHEZ ends movement"} in data[
        "actions"
    ]


def test_piece_lists_only_that_piece(cli, position):
    result = cli(
        "rules", "moves", "--game", "oneworld", "--piece", "C8", stdin={"position": position}
    )
    assert result.code == 0, result.err
    actions = result.json()["actions"]
    game = OneWorld.from_options({})
    expected = game.actions_of(game.state_from_json(position), "C8")
    assert [a["notation"] for a in actions] == [game.notation(a) for a in expected]
    assert actions and all(a["piece"] == "C8" and a["type"] == "move" for a in actions)
    assert all(a["notation"] == f"C8-{a['to']}" for a in actions)


def test_piece_of_the_player_not_to_move_has_no_actions(cli, position):
    result = cli(
        "rules", "moves", "--game", "oneworld", "--piece", "B1", stdin={"position": position}
    )
    assert result.code == 0
    assert result.json()["actions"] == []


def test_unknown_piece_is_bad_input(cli, position):
    result = cli(
        "rules", "moves", "--game", "oneworld", "--piece", "Z9", stdin={"position": position}
    )
    assert result.code == 2
    line = result.error_line()
    assert line.startswith(
        "tabletop: error: --piece: no piece 'Z9' on the board (pieces on the board: B1, B2,"
    )


def test_without_a_position_lists_the_starting_position_actions(cli):
    """OneWorld starts with the set-up, whose actions are not listed (set-ups are too many):
    the empty list comes with a field saying so."""
    result = cli("rules", "moves", "--game", "oneworld", stdin={})
    assert result.code == 0
    assert result.json() == {
        "to_move": ["borg"], "actions": [],
        "not_listed": "a set-up position: its actions (a set-up, the Tower's choice) are not listed, set-ups "
                      "being too many; check one with 'tabletop rules check'"}


@pytest.mark.parametrize("game", ["wormholes", "oneworld"])
def test_empty_input_is_read_as_an_empty_object(cli, tmp_path, game):
    """Both fields are optional: no input at all (standard input at its end, an empty file)
    lists the moves of the game's starting position, as {} does."""
    expected = cli("rules", "moves", "--game", game, stdin={})
    assert expected.code == 0
    for text in ("", "  \n"):
        result = cli("rules", "moves", "--game", game, stdin=text)
        assert result.code == 0, result.err
        assert result.out == expected.out
    path = tmp_path / "empty.json"
    path.write_text("", encoding="utf-8")
    assert cli("rules", "moves", "--game", game, str(path)).out == expected.out


def test_moves_accepts_a_check_input_and_ignores_its_action(cli, position):
    plain = cli("rules", "moves", "--game", "oneworld", stdin={"position": position})
    with_action = cli(
        "rules",
        "moves",
        "--game",
        "oneworld",
        stdin={"position": position, "action": {}, "rolls": [9]},
    )
    assert with_action.code == 0
    assert with_action.out == plain.out


def test_moves_rejects_unknown_fields(cli, position):
    result = cli(
        "rules", "moves", "--game", "oneworld", stdin={"position": position, "piece": "B1"}
    )
    assert result.code == 2
    assert (
        result.error_line()
        == "tabletop: error: piece: unknown field (known fields: action, options, position, rolls)"
    )


def test_moves_from_a_file(cli, tmp_path, position):
    import json

    path = tmp_path / "position.json"
    path.write_text(json.dumps({"position": position}), encoding="utf-8")
    result = cli("rules", "moves", "--game", "oneworld", "--compact", str(path))
    assert result.code == 0
    assert len(result.out.splitlines()) == 1


def test_moves_unknown_game(cli):
    result = cli("rules", "moves", "--game", "go", stdin={})
    assert result.code == 2
    assert "unknown game 'go'" in result.error_line()

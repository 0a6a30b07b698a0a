"""Wormholes JSON: options, states and actions round-trip; malformed input names its field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rules.errors import FormatError
from rules.geometry import Square
from rules.wormholes import (
    HIDDEN,
    ChooseOrder,
    Jump,
    Move,
    Place,
    Rest,
    Reveal,
    Roll,
    RollOff,
    Send,
    Stay,
    Suit,
    Wormholes,
    WormholesOptions,
)

GAME = Wormholes()

MID_GAME: dict[str, Any] = {
    "phase": "move",
    "player": "orthogonaliens",
    "first_placer": "diagonaliens",
    "ships": {
        "suns": {"at": "7,9", "skip_next": False},
        "moons": {"at": "5,13", "skip_next": True},
        "crowns": {"at": "7,9", "skip_next": False},
        "arms": {"at": "3,5", "skip_next": False},
    },
    "coins": [
        {"at": "5,6", "suit": "suns", "value": None, "seen": False, "up": "suit"},
        {"at": "7,9", "suit": "arms", "value": 2, "seen": True, "up": "value"},
        {"at": "8,3", "suit": "arms", "value": 4, "seen": False, "up": "suit"},
    ],
    "hand": {"suns": 5, "moons": 6, "crowns": 6, "arms": 4},
    "idle": [],
    "dice": {"moons": 0},
    "pending": [
        {"type": "activate", "ship": "suns", "at": "7,9", "chooser": "orthogonaliens"},
        {"type": "send", "ship": "crowns", "sender": "orthogonaliens"},
    ],
    "winner": None,
    "reason": "",
}


def test_state_json_round_trips_exactly() -> None:
    state = GAME.state_from_json(MID_GAME)
    assert GAME.state_to_json(state) == MID_GAME
    assert GAME.state_from_json(json.loads(json.dumps(GAME.state_to_json(state)))) == state


def test_player_views_mark_unseen_values_hidden_and_round_trip() -> None:
    state = GAME.state_from_json(MID_GAME)
    assert GAME.view(state, None) == state
    for player in GAME.players():
        view = GAME.view(state, player)
        values = {c["at"]: c["value"] for c in GAME.state_to_json(view)["coins"]}
        assert values == {"5,6": HIDDEN, "7,9": 2, "8,3": HIDDEN}
        assert GAME.state_from_json(GAME.state_to_json(view)) == view


def test_a_hidden_value_is_revealed_by_a_chance_action_in_a_view_too() -> None:
    # A client that holds only its view can still follow an activation: the value is unknown
    # to it, so every value not seen on another Arms coin is possible.
    data = dict(MID_GAME, pending=[
        {"type": "activate", "ship": "suns", "at": "8,3", "chooser": "orthogonaliens"}])
    data["ships"] = dict(MID_GAME["ships"], suns={"at": "8,3"}, crowns={"at": "1,17"})
    view = GAME.view(GAME.state_from_json(data), "diagonaliens")
    assert [a.value for a, _ in GAME.chance_outcomes(view)] == [0, 1, 3, 4, 5]
    referee = GAME.state_from_json(data)
    assert [a.value for a, _ in GAME.chance_outcomes(referee)] == [4]


ACTIONS = [
    RollOff(0, 5),
    ChooseOrder("diagonaliens", True),
    ChooseOrder("orthogonaliens", False),
    Place(Suit.CROWNS, Square(4, 5)),
    Rest("orthogonaliens", (Suit.SUNS,)),
    Rest("diagonaliens", ()),
    Roll.of({Suit.SUNS: 3, Suit.MOONS: 0}),
    Roll.of({Suit.ARMS: 5}),
    Move(Suit.SUNS, Square(7, 1)),
    Stay(Suit.MOONS),
    Reveal(Square(5, 6), 0),
    Jump(Suit.ARMS, Square(10, 1)),
    Send(Suit.CROWNS, Square(5, 5)),
    Send(Suit.CROWNS, None),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_action_json_round_trips(action: Any) -> None:
    data = GAME.action_to_json(action)
    assert GAME.action_from_json(json.loads(json.dumps(data))) == action
    assert GAME.notation(action) == str(action) and str(action)


def test_a_gap_in_the_grid_is_a_rules_matter_not_a_format_error() -> None:
    action = GAME.action_from_json({"type": "move", "ship": "suns", "to": "10,9"})
    state = GAME.state_from_json(dict(MID_GAME, pending=[], dice={"suns": 3}))
    assert GAME.verdict(state, action).code == "off-board"


def test_notation_reads_like_a_referee() -> None:
    assert [GAME.notation(a) for a in ACTIONS[6:13]] == [
        "roll suns 3, moons null",
        "roll arms 5",
        "suns to 7,1",
        "moons stays",
        "wormhole on 5,6 is null",
        "arms jumps to 10,1",
        "crowns sent to 5,5",
    ]
    assert GAME.piece_of(Move(Suit.SUNS, Square(7, 1))) == "suns"
    assert GAME.piece_of(Send(Suit.CROWNS, None)) == "crowns"
    assert GAME.piece_of(Roll.of({Suit.SUNS: 1})) is None
    state = GAME.state_from_json(MID_GAME)
    assert GAME.pieces(state) == ["suns", "moons", "crowns", "arms"]
    sends = GAME.actions_of(state, "crowns")  # the Crowns ship waits to be sent: 92 - 3 cells
    assert len(sends) == 89 and all(isinstance(a, Send) for a in sends)
    assert GAME.actions_of(state, "suns") == []


def test_options_round_trip() -> None:
    data = {
        "both_ships_win": True,
        "own_ship_blocks_passage": False,
        "jumps_cross_gaps": True,
        "strict_both_dice": False,
        "transport_optional": True,
        "sent_jump_chooser": "sender",
        "suit_axes": {"suns": "ew", "moons": "ns", "crowns": "nesw", "arms": "nwse"},
        "start": {"suns": "10,2", "moons": "10,1", "crowns": "1,18", "arms": "1,17"},
    }
    game = Wormholes.from_options(data)
    assert game.options_to_json() == data
    assert Wormholes.from_options({}).options == WormholesOptions()
    assert game.initial_state().ship(Suit.SUNS).at == Square(10, 2)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"foo": 1}, "options.foo"),
        ({"both_ships_win": "yes"}, "options.both_ships_win"),
        ({"strict_both_dice": 1}, "options.strict_both_dice"),
        ({"sent_jump_chooser": "me"}, "options.sent_jump_chooser"),
        ({"suit_axes": {"suns": "diagonal"}}, "options.suit_axes.suns"),
        ({"suit_axes": {"stars": "ns"}}, "options.suit_axes.stars"),
        ({"suit_axes": ["ns"]}, "options.suit_axes"),
        ({"start": {"suns": "1,17"}}, "options.start.suns"),
        ({"start": {"suns": "10-1"}}, "options.start.suns"),
        ({"start": {"suns": "10,2"}}, "options.start.moons"),
        ([], "options"),
    ],
)
def test_bad_options_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        Wormholes.from_options(data)
    assert err.value.field == field


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("move", "action"),
        ({}, "action.type"),
        ({"type": "fly"}, "action.type"),
        ({"type": "move", "ship": "suns"}, "action.to"),
        ({"type": "move", "ship": "stars", "to": "7,1"}, "action.ship"),
        ({"type": "move", "ship": "suns", "to": "7-1"}, "action.to"),
        ({"type": "move", "ship": "suns", "to": [7, 1]}, "action.to"),
        ({"type": "move", "ship": "suns", "to": "11,1"}, "action.to"),
        ({"type": "move", "ship": "suns", "to": "1,19"}, "action.to"),
        ({"type": "move", "ship": "suns", "to": "7,1", "by": 3}, "action.by"),
        ({"type": "stay"}, "action.ship"),
        ({"type": "roll", "dice": {"suns": 6}}, "action.dice.suns"),
        ({"type": "roll", "dice": {"suns": True}}, "action.dice.suns"),
        ({"type": "roll", "dice": {"stars": 1}}, "action.dice.stars"),
        ({"type": "roll", "dice": [1, 2]}, "action.dice"),
        ({"type": "roll-off", "orthogonaliens": 2}, "action.diagonaliens"),
        ({"type": "roll-off", "orthogonaliens": -1, "diagonaliens": 2}, "action.orthogonaliens"),
        ({"type": "reveal", "at": "7,1", "value": "ace"}, "action.value"),
        ({"type": "reveal", "value": 1}, "action.at"),
        ({"type": "send", "ship": "crowns"}, "action.to"),
        ({"type": "send", "ship": "crowns", "to": "0,0"}, "action.to"),
        ({"type": "jump", "ship": "crowns", "to": 7}, "action.to"),
        ({"type": "choose-order", "player": "aliens", "first": "place"}, "action.player"),
        ({"type": "choose-order", "player": "orthogonaliens", "first": "later"}, "action.first"),
        ({"type": "place", "suit": "hearts", "to": "4,5"}, "action.suit"),
        ({"type": "rest", "player": "diagonaliens", "ships": ["arms", "x"]}, "action.ships[1]"),
        ({"type": "rest", "player": "diagonaliens", "ships": "arms"}, "action.ships"),
    ],
)
def test_bad_actions_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        GAME.action_from_json(data)
    assert err.value.field == field


def _with(path: str, value: Any) -> dict[str, Any]:
    """MID_GAME with one field replaced (``a.b[2].c``); ``...`` deletes it."""
    data = json.loads(json.dumps(MID_GAME))
    keys: list[Any] = []
    for part in path.split("."):
        name, _, index = part.partition("[")
        keys.append(name)
        if index:
            keys.append(int(index.rstrip("]")))
    target: Any = data
    for key in keys[:-1]:
        target = target[key]
    if value is ...:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ([], "position"),
        (_with("phase", ...), "position.phase"),
        (_with("phase", "battle"), "position.phase"),
        (_with("player", None), "position.player"),
        (_with("player", "nobody"), "position.player"),
        (_with("extra", 1), "position.extra"),
        (_with("ships.crowns", ...), "position.ships.crowns"),
        (_with("ships.suns.at", "2,9"), "position.ships.suns.at"),
        (_with("ships.suns.at", "seven"), "position.ships.suns.at"),
        (_with("ships.suns.speed", 3), "position.ships.suns.speed"),
        (_with("ships.suns.skip_next", "no"), "position.ships.suns.skip_next"),
        (_with("ships.moons.at", "7,9"), "position.ships.moons.at"),
        (_with("ships.comets", {"at": "5,5"}), "position.ships.comets"),
        (_with("coins", {}), "position.coins"),
        (_with("coins[1].at", "10,1"), "position.coins[1].at"),
        (_with("coins[1].at", "5,6"), "position.coins[1].at"),
        (_with("coins[0].value", 9), "position.coins[0].value"),
        (_with("coins[0].suit", "stars"), "position.coins[0].suit"),
        (_with("coins[0].seen", True), "position.coins[0].value"),
        (_with("coins[0].up", "value"), "position.coins[0].seen"),
        (_with("coins[0].up", "edge"), "position.coins[0].up"),
        (_with("coins[2].value", 2), "position.coins"),
        (_with("hand.suns", 6), "position.hand.suns"),
        (_with("hand.suns", 7), "position.hand.suns"),
        (_with("dice", {"crowns": 2}), "position.dice"),
        (_with("dice", {"moons": 6}), "position.dice.moons"),
        (_with("idle", ["arms"]), "position.idle"),
        (_with("pending[0].type", "explode"), "position.pending[0].type"),
        (_with("pending[0].chooser", "nobody"), "position.pending[0].chooser"),
        (_with("pending[1].ship", "comet"), "position.pending[1].ship"),
        (_with("pending", [{"type": "jump", "ship": "suns", "at": "7,9", "value": 0,
                            "chooser": "orthogonaliens"}]), "position.pending[0].value"),
        (_with("winner", "orthogonaliens"), "position.winner"),
        (_with("phase", "placement") | {"first_placer": None}, "position.first_placer"),
        (_with("reason", 5), "position.reason"),
    ],
)
def test_bad_positions_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FormatError) as err:
        GAME.state_from_json(data)
    assert err.value.field == field

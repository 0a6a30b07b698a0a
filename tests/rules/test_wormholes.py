"""Wormholes rules: the galaxy, golden playthroughs, a table of cases per rule, hand counts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.core import CHANCE, Event
from rules.errors import IllegalActionError
from rules.geometry import Square
from rules.registry import get_game
from rules.wormholes import (
    HIDDEN,
    ChooseOrder,
    Jump,
    Move,
    Phase,
    Place,
    Rest,
    Reveal,
    Roll,
    RollOff,
    Send,
    Stay,
    Suit,
    Wormholes,
    WormholesState,
)
from rules.wormholes.board import BASES, CELLS, TILES, suits_of
from rules.wormholes.moves import wins_on

SUNS, MOONS, CROWNS, ARMS = Suit.SUNS, Suit.MOONS, Suit.CROWNS, Suit.ARMS
ORTHO, DIAGO = "orthogonaliens", "diagonaliens"
HOME = {"suns": "10,1", "moons": "10,2", "crowns": "1,17", "arms": "1,18"}
RECORD = Path(__file__).parents[2] / "tabletop/data/records/wormholes.jsonl"


def sq(text: str) -> Square:
    x, y = text.split(",")
    return Square(int(x), int(y))


def pos(
    ships: dict[str, str] | None = None,
    coins: dict[str, Any] | None = None,
    dice: dict[str, int] | None = None,
    player: str = ORTHO,
    phase: str = "move",
    **extra: Any,
) -> WormholesState:
    """A position from a compact description; a coin is ``suit``, ``(suit, value)`` (known to
    the referee only) or ``(suit, value, True)`` (seen by both players)."""
    coin_list = []
    for cell, c in (coins or {}).items():
        suit, value, seen = (c, None, False) if isinstance(c, str) else (tuple(c) + (False,))[:3]
        coin_list.append({"at": cell, "suit": suit, "value": value, "seen": seen})
    data = {
        "phase": phase,
        "player": player,
        "first_placer": extra.pop("first_placer", DIAGO),
        "ships": {k: {"at": v} for k, v in {**HOME, **(ships or {})}.items()},
        "coins": coin_list,
        "dice": dice or {},
        **extra,
    }
    return Wormholes().state_from_json(data)


def play(
    game: Wormholes, state: WormholesState, *actions: Any
) -> tuple[WormholesState, list[Event]]:
    events: list[Event] = []
    for action in actions:
        step = game.apply(state, action)
        state = step.state
        events.extend(step.events)
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def winner(game: Wormholes, state: WormholesState) -> str | None:
    outcome = game.outcome(state)
    return None if outcome is None else outcome.winner


GAME = Wormholes()


# -- the galaxy ------------------------------------------------------------------------
def test_layout_has_23_tiles_92_cells_and_half_turn_symmetry() -> None:
    assert len(TILES) == 23 and len(CELLS) == 92
    assert all(Square(11 - c.x, 19 - c.y) in CELLS for c in CELLS)
    rows = {y: sorted(c.x for c in CELLS if c.y == y) for y in range(1, 19)}
    assert rows[17] == rows[18] == [1, 2, 3, 4]
    assert rows[11] == list(range(5, 11)) and rows[7] == list(range(1, 7))
    assert rows[1] == [7, 8, 9, 10] and rows[9] == list(range(3, 9))
    assert BASES[ORTHO] == (Square(10, 1), Square(10, 2))
    assert BASES[DIAGO] == (Square(1, 17), Square(1, 18))


def test_registry_builds_the_engine_with_options() -> None:
    game = get_game("wormholes", {"both_ships_win": True})
    assert isinstance(game, Wormholes) and game.options.both_ships_win
    assert game.players() == (ORTHO, DIAGO)
    assert Wormholes.from_options(game.options_to_json()).options == game.options


# -- golden playthroughs ---------------------------------------------------------------
def test_setup_roll_off_choice_and_alternating_placement() -> None:
    state = GAME.initial_state()
    assert GAME.to_move(state) == (CHANCE,) and len(GAME.chance_outcomes(state)) == 36
    state, events = play(GAME, state, RollOff(2, 2))
    assert kinds(events) == ["roll", "roll"] and events[1].detail("tie") is True
    assert state.phase is Phase.ROLL_OFF
    state, events = play(GAME, state, RollOff(1, 4), ChooseOrder(DIAGO, place_first=False))
    assert kinds(events) == ["roll", "setup", "setup"]
    assert events[2].detail("first_placer") == ORTHO and events[2].detail("first_mover") == DIAGO
    free = sorted(c for c in CELLS if c not in BASES[ORTHO] + BASES[DIAGO])
    order = []
    for i in range(24):
        player = GAME.to_move(state)[0]
        order.append(player)
        suit = suits_of(player)[(i // 2) % 2]
        state, events = play(GAME, state, Place(suit, free[i]))
        assert events[0].kind == "setup" and events[0].detail("at") == free[i]
    assert order == [ORTHO, DIAGO] * 12
    assert kinds(events) == ["setup", "phase", "turn"]
    assert events[1].detail("first_mover") == DIAGO
    assert GAME.to_move(state) == (CHANCE,) and state.player == DIAGO
    assert state.hand == (0, 0, 0, 0) and len(state.coins) == 24
    assert all(coin.value is None and not coin.value_up for _, coin in state.coins)


def test_turn_with_hidden_wormhole_forced_jump_then_second_die() -> None:
    state = pos(coins={"7,1": "suns", "8,6": "moons"}, phase="roll")
    state, events = play(GAME, state, Roll.of({SUNS: 3, MOONS: 1}), Move(SUNS, sq("7,1")))
    assert kinds(events) == ["roll", "move", "power"] and events[2].detail("reveal") is True
    assert GAME.to_move(state) == (CHANCE,)
    # All six Suns values are possible: no Suns coin has been seen yet.
    assert [a.value for a, _ in GAME.chance_outcomes(state)] == [0, 1, 2, 3, 4, 5]
    state, events = play(GAME, state, Reveal(sq("7,1"), 2))
    assert kinds(events) == ["power"] and events[0].detail("value") == 2
    # A Suns jump runs north/south; north of row 1 is off the board, so only south is left.
    assert GAME.legal_actions(state) == [Jump(SUNS, sq("7,3"))]
    coin = state.coin_on(sq("7,1"))
    assert coin is not None and coin.seen and coin.value_up and coin.value == 2
    state, events = play(GAME, state, Jump(SUNS, sq("7,3")), Move(MOONS, sq("9,2")))
    assert kinds(events) == ["move", "move", "turn", "turn"]
    assert events[0].detail("by") == "wormhole" and state.player == DIAGO
    assert state.phase is Phase.ROLL and state.ship(SUNS).at == sq("7,3")
    seen_by_diago = GAME.view(state, DIAGO)
    assert seen_by_diago.coin_on(sq("7,1")).value == 2  # type: ignore[union-attr]
    assert seen_by_diago.coin_on(sq("8,6")).value == HIDDEN  # type: ignore[union-attr]


def test_black_hole_loses_a_turn_and_a_null_roll_reactivates_it() -> None:
    state = pos(coins={"8,2": "moons"}, phase="roll")
    state, events = play(GAME, state, Roll.of({SUNS: 1, MOONS: 2}), Move(MOONS, sq("8,2")),
                         Reveal(sq("8,2"), 0))
    assert kinds(events)[-2:] == ["power", "power"] and state.ship(MOONS).skip_next
    assert events[-1].detail("black_hole") is True
    state, _ = play(GAME, state, Move(SUNS, sq("9,1")), Roll.of({CROWNS: 1, ARMS: 1}),
                    Move(CROWNS, sq("2,17")))
    state, events = play(GAME, state, Move(ARMS, sq("2,18")))
    assert [e.detail("lost_turn") for e in events if e.kind == "turn"] == [None, True, None]
    assert state.idle == (MOONS,) and not state.ship(MOONS).skip_next
    assert GAME.verdict(state, Roll.of({SUNS: 2, MOONS: 2})).code == "wrong-dice"
    state, _ = play(GAME, state, Roll.of({SUNS: 1}), Move(SUNS, sq("10,1")),
                    Roll.of({CROWNS: 1, ARMS: 1}), Move(CROWNS, sq("3,17")), Move(ARMS, sq("3,18")))
    assert state.idle == () and GAME.to_move(state) == (CHANCE,)
    state, events = play(GAME, state, Roll.of({SUNS: 1, MOONS: 0}), Stay(MOONS))
    assert kinds(events)[-3:] == ["move", "power", "power"]
    assert events[-1].detail("black_hole") is True
    coin = state.coin_on(sq("8,2"))
    assert coin is not None and not coin.value_up and coin.seen  # flipped back, suit up
    assert state.ship(MOONS).skip_next


def test_a_null_roll_on_a_wormhole_activates_it_and_an_unusable_die_does_not() -> None:
    # The Suns ship was thrown onto the Crowns wormhole on 7,3 last turn (no activation then).
    # The Moons ship sits on a Suns wormhole on 4,9, where a 5 leads nowhere: no activation.
    state = pos(ships={"suns": "7,3", "moons": "4,9"}, coins={"7,3": "crowns", "4,9": "suns"},
                dice={"suns": 0, "moons": 5})
    state, events = play(GAME, state, Stay(MOONS))
    assert kinds(events) == ["move"] and events[0].detail("stayed") is True
    assert not state.coin_on(sq("4,9")).seen  # type: ignore[union-attr]
    state, events = play(GAME, state, Stay(SUNS))
    assert kinds(events) == ["move", "power"] and events[1].detail("reveal") is True
    assert GAME.to_move(state) == (CHANCE,)


def test_landing_on_an_opponent_in_a_wormhole_sends_it_first_then_activates() -> None:
    state = pos(
        ships={"suns": "4,9", "crowns": "7,9"},
        coins={"7,9": ("arms", 2, True), "5,6": "suns"},
        dice={"suns": 3, "moons": 1},
    )
    state, events = play(GAME, state, Move(SUNS, sq("7,9")))
    assert kinds(events) == ["move", "capture"] and events[1].detail("victim") == "crowns"
    assert GAME.to_move(state) == (ORTHO,)
    assert len(GAME.legal_actions(state)) == 89  # 92 cells less the three holding ships
    state, events = play(GAME, state, Send(CROWNS, sq("5,6")), Reveal(sq("5,6"), 1))
    assert kinds(events) == ["move", "power", "power"]
    # The Crowns ship's owner picks the way along the Suns axis: one cell north or south.
    assert GAME.to_move(state) == (DIAGO,)
    assert GAME.legal_actions(state) == [Jump(CROWNS, sq("5,5")), Jump(CROWNS, sq("5,7"))]
    state, events = play(GAME, state, Jump(CROWNS, sq("5,5")))
    # Now the Suns ship fires the Arms wormhole it landed on (known: 2). North-east is a gap,
    # so the only way is south-west.
    assert kinds(events) == ["move", "power"] and events[1].detail("value") == 2
    assert GAME.to_move(state) == (ORTHO,) and GAME.legal_actions(state) == [Jump(SUNS, sq("5,11"))]
    state, events = play(GAME, state, Jump(SUNS, sq("5,11")))
    assert state.coin_on(sq("7,9")).value_up is True  # type: ignore[union-attr]
    assert state.dice == ((MOONS, 1),) and GAME.to_move(state) == (ORTHO,)


def test_sender_picks_the_jump_when_the_option_says_so() -> None:
    game = Wormholes.from_options({"sent_jump_chooser": "sender"})
    state = pos(ships={"suns": "4,9", "crowns": "7,9"}, coins={"5,6": ("suns", 1)},
                dice={"suns": 3, "moons": 1})
    state, events = play(game, state, Move(SUNS, sq("7,9")), Send(CROWNS, sq("5,6")))
    assert kinds(events)[-1] == "power" and events[-1].detail("value") == 1  # known to referee
    assert game.to_move(state) == (ORTHO,)


def test_jump_onto_an_opponent_on_a_wormhole_sends_it_but_does_not_activate() -> None:
    state = pos(
        ships={"suns": "5,11", "crowns": "7,9"},
        coins={"6,10": ("arms", 1, True), "7,9": ("moons", 3)},
        dice={"suns": 1, "moons": 1},
    )
    state, _ = play(GAME, state, Move(SUNS, sq("6,10")))
    assert GAME.legal_actions(state) == [Jump(SUNS, sq("7,9")), Jump(SUNS, sq("5,11"))]
    state, events = play(GAME, state, Jump(SUNS, sq("7,9")))
    assert kinds(events) == ["move", "capture"]
    state, events = play(GAME, state, Send(CROWNS, sq("3,5")))
    assert kinds(events) == ["move"]
    coin = state.coin_on(sq("7,9"))
    assert coin is not None and not coin.seen and not coin.value_up
    assert state.ship(SUNS).at == sq("7,9") and GAME.to_move(state) == (ORTHO,)


@pytest.mark.parametrize("crowns", ["5,9", "1,17"])
def test_exact_landing_on_an_opposing_base_wins_with_a_die_unused(crowns: str) -> None:
    # With the Crowns ship at home on 1,17 the game ends before any transport.
    state = pos(ships={"suns": "3,17", "crowns": crowns}, dice={"suns": 2, "moons": 4})
    state, events = play(GAME, state, Move(SUNS, sq("1,17")))
    assert kinds(events) == ["move", "victory"] and events[1].detail("winner") == ORTHO
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == ORTHO and "1,17" in outcome.reason
    assert GAME.to_move(state) == () and GAME.legal_actions(state) == []
    assert GAME.verdict(state, Move(MOONS, sq("10,6"))).code == "game-over"


def test_a_wormhole_jump_onto_an_opposing_base_wins() -> None:
    state = pos(ships={"suns": "3,13", "crowns": "5,9", "arms": "6,9"},
                coins={"3,16": ("arms", 2)}, dice={"suns": 3, "moons": 1})
    state, _ = play(GAME, state, Move(SUNS, sq("3,16")))
    assert GAME.legal_actions(state) == [Jump(SUNS, sq("5,14")), Jump(SUNS, sq("1,18"))]
    state, events = play(GAME, state, Jump(SUNS, sq("1,18")))
    assert kinds(events) == ["move", "victory"] and winner(GAME, state) == ORTHO


def test_a_sent_ship_that_jumps_onto_its_target_base_wins_for_its_owner() -> None:
    state = pos(ships={"suns": "4,9", "moons": "5,13", "crowns": "7,9"},
                coins={"8,3": ("arms", 2, True)}, dice={"suns": 3, "moons": 1})
    state, _ = play(GAME, state, Move(SUNS, sq("7,9")), Send(CROWNS, sq("8,3")))
    assert GAME.to_move(state) == (DIAGO,)
    state, events = play(GAME, state, Jump(CROWNS, sq("10,1")))
    assert kinds(events) == ["move", "victory"] and winner(GAME, state) == DIAGO


def test_variant_both_ships_rest_and_win() -> None:
    game = Wormholes.from_options({"both_ships_win": True})
    state = pos(ships={"suns": "3,17", "moons": "8,9", "crowns": "1,17"},
                dice={"suns": 2, "moons": 1})
    state, events = play(game, state, Move(SUNS, sq("1,17")))
    assert kinds(events) == ["move", "capture"] and game.outcome(state) is None
    state, events = play(game, state, Send(CROWNS, sq("5,5")), Move(MOONS, sq("7,9")),
                         Roll.of({CROWNS: 1, ARMS: 1}), Move(CROWNS, sq("5,4")),
                         Move(ARMS, sq("2,18")))
    assert state.phase is Phase.DECLARE and game.to_move(state) == (ORTHO,)
    assert game.legal_actions(state) == [Rest(ORTHO, ()), Rest(ORTHO, (SUNS,))]
    assert game.verdict(state, Rest(ORTHO, (MOONS,))).code == "cannot-rest"
    state, _ = play(game, state, Rest(ORTHO, (SUNS,)))
    assert game.chance_outcomes(state)[0][0] == Roll.of({MOONS: 0})
    state, _ = play(game, state, Roll.of({MOONS: 1}), Move(MOONS, sq("6,10")),
                    Roll.of({CROWNS: 1, ARMS: 1}), Move(CROWNS, sq("5,3")), Move(ARMS, sq("2,17")))
    state = state.with_ship(replace(state.ship(MOONS), at=sq("3,18")))
    state, _ = play(game, state, Rest(ORTHO, (SUNS,)), Roll.of({MOONS: 2}))
    state, events = play(game, state, Move(MOONS, sq("1,18")))
    assert kinds(events) == ["move", "victory"] and winner(game, state) == ORTHO


def test_turn_passes_when_every_ship_of_the_mover_is_in_a_black_hole() -> None:
    state = pos(ships={"crowns": "3,5", "arms": "3,9"}, player=DIAGO, dice={"crowns": 1},
                idle=["arms"], coins={"4,5": "moons"})
    state = state.with_ship(replace(state.ship(ARMS), skip_next=True))
    state, events = play(GAME, state, Move(CROWNS, sq("4,5")), Reveal(sq("4,5"), 0))
    assert kinds(events) == ["move", "power", "power", "power", "turn", "turn"]
    assert events[3].detail("black_hole") is True
    state, events = play(GAME, state, Roll.of({SUNS: 1, MOONS: 1}), Move(SUNS, sq("9,1")),
                         Move(MOONS, sq("9,2")))
    assert [e.kind for e in events][-5:] == ["turn", "turn", "turn", "turn", "turn"]
    assert events[-2].detail("passed") is True and state.player == ORTHO
    assert not state.ship(CROWNS).skip_next and not state.ship(ARMS).skip_next


# -- one table of cases per rule clause ---------------------------------------------------
# Suns on 5,9 with a 3, Moons on 5,11 with a 2 (rows 7-8 cover x 1-6, rows 9-10 x 3-8).
MID = {"ships": {"suns": "5,9", "moons": "5,11"}, "dice": {"suns": 3, "moons": 2}}


@pytest.mark.parametrize(
    ("action", "code", "options"),
    [
        (Move(SUNS, sq("5,6")), "ok", {}),
        (Move(SUNS, sq("8,12")), "ok", {}),
        (Move(MOONS, sq("3,9")), "ok", {}),
        (Move(SUNS, sq("5,10")), "wrong-distance", {}),
        (Move(SUNS, sq("6,11")), "not-straight", {}),
        (Move(SUNS, sq("8,6")), "crosses-gap", {}),  # north-east crosses 7,7, a gap
        (Move(SUNS, sq("2,9")), "off-board", {}),
        (Move(SUNS, sq("5,12")), "own-ship-in-way", {}),
        (Move(SUNS, sq("5,12")), "ok", {"own_ship_blocks_passage": False}),
        (Move(MOONS, sq("5,9")), "own-ship", {}),
        (Move(MOONS, sq("5,9")), "own-ship", {"own_ship_blocks_passage": False}),
        (Move(CROWNS, sq("1,14")), "not-your-turn", {}),
        (Stay(SUNS), "must-move", {}),
        (Jump(SUNS, sq("5,6")), "awaiting-move", {}),
        (Place(SUNS, sq("5,6")), "awaiting-move", {}),
        (Roll.of({SUNS: 1, MOONS: 1}), "awaiting-move", {}),
    ],
)
def test_die_moves(action: Any, code: str, options: dict[str, Any]) -> None:
    assert Wormholes.from_options(options).verdict(pos(**MID), action).code == code


@pytest.mark.parametrize(
    ("state_kw", "action", "code"),
    [
        ({"dice": {"suns": 0, "moons": 2}}, Move(SUNS, sq("7,1")), "null-roll"),
        ({"dice": {"suns": 0, "moons": 2}}, Stay(SUNS), "ok"),
        ({"dice": {"suns": 5, "moons": 1}}, Stay(SUNS), "must-move"),  # 5 south-west: 5,6
        ({"dice": {"suns": 1, "moons": 5}}, Stay(MOONS), "ok"),  # a 5 from 10,2 goes nowhere
        ({"dice": {"suns": 1}}, Move(MOONS, sq("9,2")), "die-used"),
        ({"dice": {"suns": 1}, "idle": ["moons"]}, Move(MOONS, sq("9,2")), "ship-idle"),
        ({"dice": {"suns": 1}, "idle": ["moons"]}, Stay(MOONS), "ship-idle"),
    ],
)
def test_null_rolls_used_dice_and_idle_ships(
    state_kw: dict[str, Any], action: Any, code: str
) -> None:
    assert GAME.verdict(pos(**state_kw), action).code == code


# Suns on 10,1 can use a 4 only south-west (9,2 8,3 7,4 6,5), and the Moons ship sits on 8,3.
STRICT = {"ships": {"moons": "8,3"}, "dice": {"suns": 4, "moons": 1}}


@pytest.mark.parametrize(
    ("action", "strict_code", "loose_code"),
    [
        (Move(MOONS, sq("8,4")), "ok", "ok"),
        (Move(MOONS, sq("7,2")), "ok", "ok"),
        (Move(MOONS, sq("7,4")), "must-use-both-dice", "ok"),  # still in the Suns ship's way
        (Move(MOONS, sq("9,2")), "must-use-both-dice", "ok"),
        (Stay(SUNS), "must-use-both-dice", "ok"),
    ],
)
def test_both_dice_must_be_used_when_possible(
    action: Any, strict_code: str, loose_code: str
) -> None:
    state = pos(**STRICT)
    assert GAME.verdict(state, action).code == strict_code
    loose = Wormholes.from_options({"strict_both_dice": False})
    assert loose.verdict(state, action).code == loose_code


def test_a_winning_move_does_not_make_the_other_moves_illegal() -> None:
    # Suns on 2,17 with an ace may land on the DiagonAliens' base at 1,17 or 1,18; Moons on
    # 4,8 with a 5 has no move now nor after any Suns move. No turn uses both dice, so the
    # Suns moves that do not win, and Moons' Stay, are as legal as the win.
    state = pos(ships={"suns": "2,17", "moons": "4,8", "crowns": "7,9", "arms": "8,9"},
                dice={"suns": 1, "moons": 5})
    moves = set(GAME.legal_actions(state))
    assert {Move(SUNS, sq("1,17")), Move(SUNS, sq("1,18"))} <= moves
    for cell in ("3,16", "3,17", "3,18", "2,18"):
        assert Move(SUNS, sq(cell)) in moves and GAME.verdict(state, Move(SUNS, sq(cell))).legal
    assert GAME.verdict(state, Stay(MOONS)).legal
    # Where some turn uses both dice, a move that spoils the second die is still refused,
    # and the win still allowed: Suns 2,17 (ace), Moons 2,18 (3).
    state = pos(ships={"suns": "2,17", "moons": "2,18", "crowns": "7,9", "arms": "8,9"},
                dice={"suns": 1, "moons": 3})
    assert GAME.verdict(state, Move(SUNS, sq("1,17"))).legal
    assert GAME.verdict(state, Move(SUNS, sq("3,17"))).code == "must-use-both-dice"
    assert Move(SUNS, sq("3,17")) not in GAME.legal_actions(state)
    assert any(isinstance(a, Move) and a.ship is SUNS and not wins_on(state, GAME.options, SUNS, a.to)
               for a in GAME.legal_actions(state))


def test_both_dice_look_past_a_wormhole_both_players_have_seen() -> None:
    # Suns 1,7 and Moons 5,3, both dice 4: Moons' only move is to 5,7.
    # A seen Suns-4 wormhole on 5,7 throws a Suns ship landing there on to 5,11, where it no
    # longer stands in Moons' way: both dice are used, so the landing is allowed.
    seen = pos(ships={"suns": "1,7", "moons": "5,3"}, coins={"5,7": ("suns", 4, True)},
               dice={"suns": 4, "moons": 4})
    assert GAME.verdict(seen, Move(SUNS, sq("5,7"))).legal
    state, _ = play(GAME, seen, Move(SUNS, sq("5,7")), Jump(SUNS, sq("5,11")))
    assert GAME.verdict(state, Move(MOONS, sq("5,7"))).legal
    # Not yet seen (the referee alone knows its value): the landing cell is all that counts.
    unseen = pos(ships={"suns": "1,7", "moons": "5,3"}, coins={"5,7": ("suns", 4)},
                 dice={"suns": 4, "moons": 4})
    assert GAME.verdict(unseen, Move(SUNS, sq("5,7"))).code == "must-use-both-dice"
    # And the other way: a seen Crowns-5 wormhole on 2,7 throws Suns (ace, from 1,7) to 7,12,
    # Moons' only square for its 5 from 2,17; 2,8 instead leaves it free.
    block = pos(ships={"suns": "1,7", "moons": "2,17"}, coins={"2,7": ("crowns", 5, True)},
                dice={"suns": 1, "moons": 5})
    assert GAME.verdict(block, Move(SUNS, sq("2,7"))).code == "must-use-both-dice"
    assert GAME.verdict(block, Move(SUNS, sq("2,8"))).legal


def test_a_winning_move_is_never_refused_by_the_both_dice_rule() -> None:
    # Every Suns cell and die that reach the DiagonAliens' base, against every cell and die
    # of the Moons ship: the landing on the base is always legal.
    start = pos(ships={"crowns": "5,9", "arms": "6,9"}, dice={"suns": 1, "moons": 1})
    checked = 0
    for suns in sorted(CELLS):
        for base in BASES[DIAGO]:
            n = max(abs(suns.x - base.x), abs(suns.y - base.y))
            dx, dy = abs(suns.x - base.x), abs(suns.y - base.y)
            if not (dx == 0 or dy == 0 or dx == dy) or not 1 <= n <= 5:
                continue
            for moons in sorted(CELLS - {suns}):
                for m in range(1, 6):
                    state = replace(
                        start.with_ship(replace(start.ship(SUNS), at=suns))
                        .with_ship(replace(start.ship(MOONS), at=moons)),
                        dice=((SUNS, n), (MOONS, m)),
                    )
                    verdict = GAME.verdict(state, Move(SUNS, base))
                    if verdict.code in ("crosses-gap", "own-ship", "own-ship-in-way"):
                        continue
                    assert verdict.legal, (suns, n, moons, m, verdict)
                    checked += 1
    assert checked > 5000


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Place(SUNS, sq("5,6")), "ok"),
        (Place(SUNS, sq("10,2")), "base-cell"),
        (Place(SUNS, sq("1,17")), "base-cell"),
        (Place(CROWNS, sq("5,6")), "not-your-turn"),
        (Place(SUNS, sq("4,5")), "wormhole-there"),
        (Place(SUNS, sq("6,6")), "wormhole-there"),
        (Place(MOONS, sq("5,6")), "no-coins-left"),
        (Place(SUNS, sq("1,1")), "off-board"),
        (Move(SUNS, sq("9,1")), "awaiting-place"),
    ],
)
def test_placement(action: Any, code: str) -> None:
    moons = {c: "moons" for c in ("6,5", "6,6", "7,5", "7,6", "8,5", "8,6")}
    state = pos(phase="placement", coins={"4,5": "suns", **moons}, first_placer=ORTHO)
    assert GAME.verdict(state, action).code == code


def test_placement_with_no_moons_in_hand_needs_them_all_on_the_board() -> None:
    # The table above relies on the position reader checking the counts.
    from rules.errors import FormatError

    with pytest.raises(FormatError) as err:
        pos(phase="placement", hand={"moons": 0}, first_placer=ORTHO)
    assert err.value.field == "position.hand.moons"


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Roll.of({SUNS: 2, MOONS: 0}), "ok"),
        (Roll.of({SUNS: 2}), "wrong-dice"),
        (Roll.of({SUNS: 2, MOONS: 1, CROWNS: 1}), "wrong-dice"),
        (Roll.of({CROWNS: 2, ARMS: 1}), "wrong-dice"),
        (Roll.of({SUNS: 6, MOONS: 1}), "bad-value"),
        (Move(SUNS, sq("9,1")), "awaiting-roll"),
        (RollOff(1, 2), "awaiting-roll"),
        (ChooseOrder(ORTHO, True), "awaiting-roll"),
    ],
)
def test_rolls(action: Any, code: str) -> None:
    assert GAME.verdict(pos(phase="roll"), action).code == code


def _revealing(**coins: Any) -> WormholesState:
    cells = {"7,1": "suns", "8,6": ("suns", 3), **coins}
    return pos(coins=cells, dice={"moons": 1},
               pending=[{"type": "activate", "ship": "suns", "at": "7,1", "chooser": ORTHO}],
               ships={"suns": "7,1"})


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Reveal(sq("7,1"), 2), "ok"),
        (Reveal(sq("7,1"), 0), "ok"),
        (Reveal(sq("7,1"), 3), "value-taken"),  # the Suns 3 is known to lie on 8,6
        (Reveal(sq("8,6"), 2), "wrong-wormhole"),
        (Reveal(sq("7,1"), 6), "bad-value"),
        (Move(MOONS, sq("9,2")), "awaiting-reveal"),
    ],
)
def test_reveals(action: Any, code: str) -> None:
    state = _revealing()
    assert GAME.to_move(state) == (CHANCE,)
    assert GAME.verdict(state, action).code == code


def test_reveal_of_a_value_the_referee_knows_must_match() -> None:
    state = _revealing(**{"7,1": ("suns", 4)})
    assert GAME.chance_outcomes(state) == [(Reveal(sq("7,1"), 4), 1.0)]
    assert GAME.verdict(state, Reveal(sq("7,1"), 2)).code == "wrong-value"
    assert GAME.verdict(state, Reveal(sq("7,1"), 4)).legal


def _jumping(value: int, ship_at: str, coin: str, **ships: str) -> WormholesState:
    return pos(ships={"suns": ship_at, **ships}, coins={ship_at: (coin, value, True)},
               dice={"moons": 1}, pending=[{"type": "jump", "ship": "suns", "at": ship_at,
                                            "value": value, "chooser": ORTHO}])


@pytest.mark.parametrize(
    ("state", "action", "code"),
    [
        (_jumping(2, "5,9", "crowns"), Jump(SUNS, sq("3,7")), "ok"),
        (_jumping(2, "5,9", "crowns"), Jump(SUNS, sq("7,11")), "ok"),
        (_jumping(2, "5,9", "crowns"), Jump(SUNS, sq("7,7")), "not-on-axis"),
        (_jumping(2, "5,9", "crowns"), Jump(SUNS, sq("5,7")), "not-on-axis"),
        (_jumping(2, "5,9", "crowns"), Jump(SUNS, sq("6,10")), "wrong-distance"),
        (_jumping(2, "5,9", "crowns"), Jump(MOONS, sq("3,7")), "wrong-ship"),
        (_jumping(2, "5,9", "crowns", moons="3,7"), Jump(SUNS, sq("3,7")), "own-ship"),
        (_jumping(2, "5,9", "crowns", moons="4,8"), Jump(SUNS, sq("3,7")), "own-ship-in-way"),
        (_jumping(2, "5,9", "moons"), Jump(SUNS, sq("3,9")), "ok"),
        (_jumping(3, "5,9", "moons"), Jump(SUNS, sq("8,9")), "ok"),
        (_jumping(3, "5,9", "moons"), Jump(SUNS, sq("2,9")), "off-board"),
        (_jumping(2, "5,9", "suns"), Jump(SUNS, sq("5,11")), "ok"),
        (_jumping(2, "5,9", "arms"), Jump(SUNS, sq("3,11")), "off-board"),
        (_jumping(2, "5,9", "arms"), Jump(SUNS, sq("7,7")), "off-board"),
        (_jumping(4, "5,9", "arms"), Jump(SUNS, sq("9,5")), "off-board"),
        (_jumping(4, "3,13", "arms"), Jump(SUNS, sq("7,9")), "crosses-gap"),
        (_jumping(2, "5,9", "crowns"), Move(SUNS, sq("3,7")), "awaiting-jump"),
    ],
)
def test_jumps(state: WormholesState, action: Any, code: str) -> None:
    assert GAME.verdict(state, action).code == code


def test_jumps_may_cross_gaps_with_the_option() -> None:
    state = _jumping(4, "3,13", "arms")  # north-east: 4,12 (gap) 5,11 6,10 7,9
    assert Wormholes.from_options({"jumps_cross_gaps": True}).verdict(
        state, Jump(SUNS, sq("7,9"))).legal


def test_an_axis_blocked_both_ways_leaves_the_ship_where_it_is() -> None:
    # A Crowns 2 from 8,2 would go to 6,0 or 10,4: both off the board.
    state = pos(coins={"8,2": ("crowns", 2, True)}, dice={"suns": 1, "moons": 2})
    state, events = play(GAME, state, Move(MOONS, sq("8,2")))
    assert kinds(events) == ["move", "power", "move"] and events[2].detail("stayed") is True
    assert state.ship(MOONS).at == sq("8,2") and not state.tasks


def test_suit_axes_are_an_option() -> None:
    game = Wormholes.from_options({"suit_axes": {"crowns": "ew"}})
    state = _jumping(2, "5,9", "crowns")
    assert game.legal_actions(state) == [Jump(SUNS, sq("7,9")), Jump(SUNS, sq("3,9"))]
    assert game.verdict(state, Jump(SUNS, sq("3,7"))).code == "not-on-axis"


def _sending(**options: Any) -> tuple[Wormholes, WormholesState]:
    state = pos(ships={"suns": "7,9", "crowns": "7,9", "arms": "3,9", "moons": "4,5"},
                dice={"moons": 1},
                pending=[{"type": "send", "ship": "crowns", "sender": ORTHO}])
    return Wormholes.from_options(options), state


@pytest.mark.parametrize(
    ("action", "code", "options"),
    [
        (Send(CROWNS, sq("5,5")), "ok", {}),
        (Send(CROWNS, sq("10,1")), "ok", {}),  # home to the OrthogonAliens' own base
        (Send(CROWNS, sq("1,17")), "ok", {}),
        (Send(CROWNS, sq("4,5")), "own-ship", {}),
        (Send(CROWNS, sq("3,9")), "occupied", {}),
        (Send(CROWNS, sq("7,9")), "same-cell", {}),
        (Send(CROWNS, sq("1,1")), "off-board", {}),
        (Send(ARMS, sq("5,5")), "wrong-ship", {}),
        (Send(CROWNS, None), "must-send", {}),
        (Send(CROWNS, None), "ok", {"transport_optional": True}),
        (Move(MOONS, sq("4,4")), "awaiting-send", {}),
    ],
)
def test_sends(action: Any, code: str, options: dict[str, Any]) -> None:
    game, state = _sending(**options)
    assert game.verdict(state, action).code == code


def test_a_sent_ship_lands_without_winning_and_a_ship_left_in_place_shares_the_cell() -> None:
    game, state = _sending(transport_optional=True)
    sent, _ = play(game, state, Send(CROWNS, sq("10,1")))
    assert game.outcome(sent) is None and sent.ship(CROWNS).at == sq("10,1")
    kept, events = play(game, state, Send(CROWNS, None))
    assert kept.ships_on(sq("7,9")) == (SUNS, CROWNS) and events[0].detail("stayed") is True


@pytest.mark.parametrize(
    ("state", "action", "code"),
    [
        (GAME.initial_state(), RollOff(0, 5), "ok"),
        (GAME.initial_state(), RollOff(0, 7), "bad-value"),
        (GAME.initial_state(), Place(SUNS, sq("5,5")), "awaiting-roll-off"),
        (pos(phase="choose-order"), ChooseOrder(ORTHO, False), "ok"),
        (pos(phase="choose-order"), ChooseOrder(DIAGO, False), "not-your-turn"),
        (pos(phase="declare", ships={"suns": "1,17", "crowns": "5,9"}), Rest(DIAGO, ()),
         "not-your-turn"),
        (pos(phase="declare", ships={"suns": "1,17", "crowns": "5,9"}), Rest(ORTHO, (SUNS,)),
         "ok"),
    ],
)
def test_set_up_and_declare_actions(state: WormholesState, action: Any, code: str) -> None:
    assert GAME.verdict(state, action).code == code


def test_illegal_apply_raises_with_the_verdict() -> None:
    with pytest.raises(IllegalActionError) as err:
        GAME.apply(pos(**MID), Move(SUNS, sq("8,6")))
    assert err.value.verdict.code == "crosses-gap"
    assert "7,7" in err.value.verdict.message


# -- hand counts (perft style) ----------------------------------------------------------
def test_count_start_of_play_with_two_aces() -> None:
    # Suns on 10,1 with an ace: W 9,1 and SW 9,2 (S is its twin, the rest is off the board).
    # Moons on 10,2 with an ace: W 9,2 and NW 9,1. Every first move leaves the other ship a
    # move (the cell each leaves opens up), so all four count: 2 + 2 = 4.
    state = pos(dice={"suns": 1, "moons": 1})
    assert sorted(map(str, GAME.legal_actions(state))) == [
        "moons to 9,1", "moons to 9,2", "suns to 9,1", "suns to 9,2"]


def test_count_three_and_five_from_the_base() -> None:
    # Suns 3: W to 7,1 and SW via 9,2 8,3 to 7,4 (2 moves). Moons 5 from 10,2: W runs off
    # row 2 at 6,2, every other way leaves the board at once, N is its twin: no move, so
    # the Moons die is spent by a stay: 2 + 1 = 3.
    state = pos(dice={"suns": 3, "moons": 5})
    assert len(GAME.legal_actions(state)) == 3
    assert Stay(MOONS) in GAME.legal_actions(state)


@pytest.mark.parametrize(("options", "count"), [({}, 6), ({"own_ship_blocks_passage": False}, 7)])
def test_count_in_mid_galaxy(options: dict[str, Any], count: int) -> None:
    # Crowns on 5,9 with a 2: N 5,7; E lands on 7,9; SE 7,11; S 5,11; W 3,9; NW 3,7; NE
    # stops at 7,7 (a gap) and SW at 3,11 (a gap): 6 cells. The Arms ship on 6,9 blocks the
    # way east unless own ships may be crossed; its null die gives one stay. 5 + 1 or 6 + 1.
    state = pos(ships={"crowns": "5,9", "arms": "6,9"}, player=DIAGO,
                dice={"crowns": 2, "arms": 0})
    assert len(Wormholes.from_options(options).legal_actions(state)) == count


@pytest.mark.parametrize(("options", "count"), [({}, 4), ({"strict_both_dice": False}, 7)])
def test_count_under_the_both_dice_rule(options: dict[str, Any], count: int) -> None:
    # Moons on 8,3 with an ace has six cells (N 8,2, NE 9,2, S 8,4, SW 7,4, W 7,3, NW 7,2;
    # east is off the board). Two of them (9,2 and 7,4) stay on the Suns ship's only line,
    # and the Suns ship cannot move now (a stay). Strict: the four moves that free it. Loose:
    # 6 + 1.
    state = pos(**STRICT)
    assert len(Wormholes.from_options(options).legal_actions(state)) == count


def test_count_first_placement() -> None:
    # 92 cells less the 4 base cells, for each of the placer's two suits: 2 x 88 = 176.
    state = pos(phase="placement", first_placer=ORTHO)
    assert len(GAME.legal_actions(state)) == 176


# -- the bundled record ----------------------------------------------------------------
def test_bundled_record_replays_to_a_win() -> None:
    lines = [json.loads(line) for line in RECORD.read_text().splitlines() if line.strip()]
    header = lines[0]
    assert header["game"] == "wormholes"
    game = get_game("wormholes", header["options"])
    assert "position" not in header  # the record starts from the initial state
    state = game.initial_state()
    seen: set[str] = set()
    black_holes = 0
    for n, line in enumerate(lines[1:], start=2):
        assert game.outcome(state) is None, f"game ended before line {n}"
        step = game.apply(state, game.action_from_json(line["action"]), line.get("rolls", []))
        state = step.state
        seen.update(e.kind for e in step.events)
        black_holes += sum(1 for e in step.events if e.detail("black_hole"))
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == DIAGO
    assert {"setup", "phase", "roll", "move", "power", "capture", "victory"} <= seen
    assert black_holes >= 2

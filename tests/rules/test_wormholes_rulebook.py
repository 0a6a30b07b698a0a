"""Wormholes checked clause by clause against the rulebook (v0.6) and GAMES.md.

Each test plays a short scenario through the engine's public API and names, in its docstring,
the rule it pins down. These cover rules the other Wormholes tests leave implicit.
"""

from __future__ import annotations

from typing import Any

from rules.core import CHANCE, Event
from rules.geometry import Square
from rules.wormholes import (
    ChooseOrder,
    Jump,
    Move,
    Phase,
    Place,
    Reveal,
    Roll,
    RollOff,
    Send,
    Stay,
    Suit,
    Wormholes,
    WormholesState,
)
from rules.wormholes.board import BASE_CELLS, CELLS, suits_of

SUNS, MOONS, CROWNS, ARMS = Suit.SUNS, Suit.MOONS, Suit.CROWNS, Suit.ARMS
ORTHO, DIAGO = "orthogonaliens", "diagonaliens"
HOME = {"suns": "10,1", "moons": "10,2", "crowns": "1,17", "arms": "1,18"}
GAME = Wormholes()


def sq(text: str) -> Square:
    x, y = text.split(",")
    return Square(int(x), int(y))


def pos(
    ships: dict[str, str] | None = None,
    coins: dict[str, Any] | None = None,
    dice: dict[str, int] | None = None,
    player: str = ORTHO,
    phase: str = "move",
) -> WormholesState:
    """A position: a coin is ``suit`` (value unknown) or ``{"suit": ..., "value": ...,
    "seen": ..., "up": ...}`` as in the JSON format."""
    coin_list = [
        {"at": cell, "suit": c} if isinstance(c, str) else {"at": cell, **c}
        for cell, c in (coins or {}).items()
    ]
    return GAME.state_from_json({
        "phase": phase,
        "player": player,
        "first_placer": DIAGO,
        "ships": {k: {"at": v} for k, v in {**HOME, **(ships or {})}.items()},
        "coins": coin_list,
        "dice": dice or {},
    })


def play(state: WormholesState, *actions: Any) -> tuple[WormholesState, list[Event]]:
    events: list[Event] = []
    for action in actions:
        step = GAME.apply(state, action)
        state = step.state
        events.extend(step.events)
    return state, events


def reveals(events: list[Event]) -> list[Any]:
    """The cells of the coins the engine asked to flip and read."""
    return [e.detail("at") for e in events if e.detail("reveal")]


def activations(events: list[Event]) -> list[Any]:
    """The cells of the wormholes activated (their value known and used)."""
    return [e.detail("at") for e in events if e.kind == "power" and e.detail("value") is not None]


def test_roll_off_winner_who_places_first_lets_the_other_player_move_first() -> None:
    """Set-up 3 and 4: the high roller picks placing first or moving first and the other
    player gets the other role; the players then alternate, one coin at a time, on any cell
    that is neither a base nor already holds a wormhole, until every coin is down."""
    state, _ = play(GAME.initial_state(), RollOff(5, 3), ChooseOrder(ORTHO, place_first=True))
    assert state.phase is Phase.PLACEMENT and GAME.to_move(state) == (ORTHO,)
    free = sorted(CELLS - BASE_CELLS)
    placers = []
    for i in range(24):
        player = GAME.to_move(state)[0]
        placers.append(player)
        state, _ = play(state, Place(suits_of(player)[(i // 2) % 2], free[i]))
    assert placers == [ORTHO, DIAGO] * 12
    assert state.phase is Phase.ROLL and state.player == DIAGO
    assert GAME.to_move(state) == (CHANCE,)


def test_a_die_move_flies_over_ships_and_wormholes_without_touching_them() -> None:
    """Play 1: a ship may pass over other ships and wormholes; only the cell it lands on
    counts, so what it passes over is neither sent away nor activated."""
    state = pos(ships={"crowns": "9,1"}, coins={"8,1": "arms"}, dice={"suns": 3, "moons": 1})
    state, events = play(state, Move(SUNS, sq("7,1")))
    assert [e.kind for e in events] == ["move"]
    assert state.ship(CROWNS).at == sq("9,1") and state.ship(SUNS).at == sq("7,1")
    coin = state.coin_on(sq("8,1"))
    assert coin is not None and coin.value is None and not coin.seen and not coin.value_up


def test_a_ship_whose_only_landing_is_its_twin_cannot_move() -> None:
    """Play 7: a ship never lands on its own twin, whose cell counts as off the board; if
    that was its only move, it does not move at all (its die is spent standing still)."""
    # A 4 from 10,1 only fits south-west (9,2 8,3 7,4 6,5), and the Moons ship is on 6,5.
    state = pos(ships={"moons": "6,5"}, dice={"suns": 4, "moons": 0})
    assert GAME.verdict(state, Move(SUNS, sq("6,5"))).code == "own-ship"
    assert sorted(map(str, GAME.legal_actions(state))) == ["moons stays", "suns stays"]
    state, _ = play(state, Stay(SUNS))
    assert state.ship(SUNS).at == sq("10,1")


def test_a_jump_blocked_one_way_by_the_twin_must_go_the_other_way() -> None:
    """Play 5 with play 7: a jump that cannot be made one way along its axis (here because
    the ship's own twin stands at the end) must be made the other way if it can."""
    moons_2 = {"suit": "moons", "value": 2, "seen": True, "up": "value"}
    state = pos(ships={"suns": "5,11", "moons": "7,9"}, coins={"5,9": moons_2},
                dice={"suns": 2, "moons": 1})
    state, events = play(state, Move(SUNS, sq("5,9")))
    assert activations(events) == [sq("5,9")] and reveals(events) == []
    assert GAME.to_move(state) == (ORTHO,)
    assert GAME.legal_actions(state) == [Jump(SUNS, sq("3,9"))]


def test_a_wormhole_seen_before_jumps_by_its_value_and_flips_back_to_its_suit() -> None:
    """Play 4 and 5: landing on a wormhole that was activated before makes the same jump
    again without a new reading, and the coin is turned over once more on every activation."""
    suns_2 = {"suit": "suns", "value": 2, "seen": True, "up": "value"}
    state = pos(coins={"7,1": suns_2}, dice={"suns": 3, "moons": 1})
    state, events = play(state, Move(SUNS, sq("7,1")))
    assert activations(events) == [sq("7,1")] and reveals(events) == []
    coin = state.coin_on(sq("7,1"))
    assert coin is not None and coin.value == 2 and not coin.value_up
    # North of row 1 is off the board: the jump can only go south.
    assert GAME.legal_actions(state) == [Jump(SUNS, sq("7,3"))]


def test_a_jump_onto_a_second_wormhole_fires_it_only_on_the_ships_next_null_roll() -> None:
    """Play 5: a ship thrown by a jump onto another wormhole does not activate it that
    turn; if that ship's next roll is a null it stays put, which activates the wormhole."""
    state = pos(coins={"7,1": "suns", "7,3": "crowns"}, phase="roll")
    state, events = play(state, Roll.of({SUNS: 3, MOONS: 1}), Move(SUNS, sq("7,1")),
                         Reveal(sq("7,1"), 2), Jump(SUNS, sq("7,3")))
    assert reveals(events) == [sq("7,1")] and activations(events) == [sq("7,1")]
    coin = state.coin_on(sq("7,3"))
    assert coin is not None and not coin.seen and not coin.value_up
    state, events = play(state, Move(MOONS, sq("9,2")), Roll.of({CROWNS: 1, ARMS: 1}),
                         Move(CROWNS, sq("2,17")), Move(ARMS, sq("2,18")))
    assert reveals(events) == [] and state.player == ORTHO
    state, events = play(state, Roll.of({SUNS: 0, MOONS: 1}), Stay(SUNS))
    assert reveals(events) == [sq("7,3")] and GAME.to_move(state) == (CHANCE,)
    assert state.ship(SUNS).at == sq("7,3")


def test_an_opponent_sent_into_a_black_hole_loses_its_owners_next_turn() -> None:
    """Play 6 and 7: a ship that is landed on may be sent to any cell, a black hole
    included; being sent onto a wormhole activates it, so a null there makes the ship lose
    its next turn while its twin plays on."""
    black_hole = {"suit": "suns", "value": 0, "seen": True, "up": "value"}
    state = pos(ships={"suns": "4,9", "crowns": "7,9"}, coins={"5,6": black_hole},
                dice={"suns": 3, "moons": 1})
    state, events = play(state, Move(SUNS, sq("7,9")), Send(CROWNS, sq("5,6")))
    assert [e.detail("black_hole") for e in events if e.kind == "power"] == [None, True]
    assert state.ship(CROWNS).skip_next and state.ship(CROWNS).at == sq("5,6")
    coin = state.coin_on(sq("5,6"))
    assert coin is not None and not coin.value_up  # flipped back to its suit side
    state, _ = play(state, Move(MOONS, sq("9,2")))
    assert state.player == DIAGO and state.idle == (CROWNS,)
    assert [a for a, _ in GAME.chance_outcomes(state)] == [Roll.of({ARMS: v}) for v in range(6)]
    assert GAME.verdict(state, Roll.of({CROWNS: 1, ARMS: 1})).code == "wrong-dice"


def test_a_sent_ships_jump_onto_another_wormhole_does_not_activate_it() -> None:
    """Play 5 with play 7: a ship sent onto a wormhole activates it, but the jump that
    follows never activates the wormhole it ends on."""
    suns_1 = {"suit": "suns", "value": 1, "seen": True, "up": "value"}
    state = pos(ships={"suns": "4,9", "crowns": "7,9"}, coins={"5,6": suns_1, "5,7": "moons"},
                dice={"suns": 3, "moons": 1})
    state, events = play(state, Move(SUNS, sq("7,9")), Send(CROWNS, sq("5,6")))
    assert activations(events) == [sq("5,6")] and GAME.to_move(state) == (DIAGO,)
    state, events = play(state, Jump(CROWNS, sq("5,7")))
    assert reveals(events) == [] and activations(events) == []
    coin = state.coin_on(sq("5,7"))
    assert coin is not None and not coin.seen
    assert GAME.to_move(state) == (ORTHO,) and state.dice == ((MOONS, 1),)

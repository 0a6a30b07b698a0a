"""When Gods Collide checked against its rulebook and GAMES.md, one scenario per rule.

Each test names the rule it checks; the first ones were failing before the engine was fixed,
the others pin down rules that held but had no test of their own.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from wgc_support import mv, ring, sq, state_of

from rules.geometry import Square
from rules.when_gods_collide import (
    Army,
    ChessFace,
    Convert,
    ConvertMethod,
    HeroFace,
    Identity,
    Move,
    Phase,
    Push,
    TurnRoll,
    WhenGodsCollide,
)

GAME = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})
BLIND = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "referee_sees_gods": False})
THREE = WhenGodsCollide.from_options({"armies": ["egyptian", "greek", "norse"]})
THREE_CAPTURE = WhenGodsCollide.from_options(
    {"armies": ["egyptian", "greek", "norse"], "wind_landing": "capture"}
)
EGN = (Army.EGYPTIAN, Army.GREEK, Army.NORSE)


def squares(*labels: str) -> frozenset[Square]:
    return frozenset(sq(s) for s in labels)


# -- disagreements found (failing before the fix) ----------------------------------------------


@pytest.mark.parametrize(
    "diagram,chess,number,move,other",
    [
        # a rook Princess runs 0,0-3,0: past the god on 1,0, capturing the mortal on 2,0
        ("G n n .\n. n . .", "rook", 3, mv("0,0", "3,0", found=squares("1,0")), "1,1"),
        # a king Princess chain: onto the god on 1,0 (not taken), then takes 2,1
        ("G n . n\n. . n .", "king", 2, mv("0,0", "2,1", "1,0", found=squares("1,0")), "3,0"),
    ],
    ids=["rook-run", "king-chain"],
)
def test_a_god_the_princess_passes_is_known_from_then_on(
    diagram: str, chess: str, number: int, move: Move, other: str
) -> None:
    """Hero die, Princess and 'illegal capture of the god': the Princess goes on through a
    god checker without taking it, and whoever turned it over now knows it is the god. When
    the referee was not told the god at set-up, the flip is what tells it: afterwards the
    checker must count as the god (so its army's other checkers are mortal), the mover may
    not try to take it with a power that spares gods, and no other checker of that army can
    be claimed to be its god."""
    state = state_of(diagram, chess, number, HeroFace.PRINCESS, unknown=[Army.NORSE])
    assert BLIND.verdict(state, move).code == "ok"
    step = BLIND.apply(state, move)
    assert [e.kind for e in step.events] == ["move", "power", "capture", "turn"]
    after = step.state
    god = after.occupant[sq("1,0")]
    assert god.identity is Identity.GOD and god.known_to(Army.GREEK)
    assert after.occupant[sq(other)].identity is Identity.MORTAL
    assert BLIND.view(after, "greek").occupant[sq("1,0")].identity is Identity.GOD
    assert BLIND.view(after, "norse").occupant[sq("1,0")].seen_by == frozenset()
    # Greek's next turn: the Winged Sandals may not go for the god Greek has seen...
    again = replace(
        after,
        current=Army.GREEK,
        phase=Phase.MOVE,
        roll=TurnRoll(ChessFace.KING, 3, HeroFace.WINGED_SANDALS),
    )
    here = str(move.to)
    assert BLIND.verdict(again, mv(here, "1,0")).code == "god-protected"
    assert all(not (isinstance(a, Move) and a.to == sq("1,0")) for a in BLIND.legal_actions(again))
    # ...and the other Norse checker cannot turn out to be the god as well
    claim = mv(here, other, found=squares(other))
    assert BLIND.verdict(again, claim).code == "reveal-mismatch"
    assert BLIND.verdict(again, mv(here, other, found=frozenset())).code == "ok"


# -- rules that held, now pinned down ------------------------------------------------------------


@pytest.mark.parametrize(
    "chess,frm,to",
    [
        ("pawn", "1,3", "0,2"),  # a pawn takes one square diagonally
        ("king", "1,3", "2,4"),  # a king across the corner between two gaps
        ("knight", "1,3", "3,4"),  # a knight over the gap on 2,3
        ("queen", "1,3", "1,0"),  # a queen of exactly 3
    ],
)
def test_plain_chess_die_movements_take_the_god(chess: str, frm: str, to: str) -> None:
    """During your turn, capturing: landing on an enemy checker captures it; if it is the god
    checker its army is out of the game with all its checkers. Only some hero powers spare
    gods: an ordinary chess-die movement takes one. With three armies the game goes on and the
    turn passes to the next army still in play."""
    placements = {"1,3": "g", "5,5": "G", "0,0": "E", "5,0": "e", to: "N", "4,0": "n"}
    state = state_of(ring(placements), chess, 3, armies=EGN, current=Army.GREEK)
    step = THREE.apply(state, mv(frm, to))
    assert [e.kind for e in step.events] == ["move", "capture", "elimination", "turn"]
    assert step.events[1].detail("god") is True
    after = step.state
    assert after.alive == (Army.EGYPTIAN, Army.GREEK)
    assert all(c.side is not Army.NORSE for c in after.checkers)
    assert after.phase is Phase.ROLL and after.current is Army.EGYPTIAN


def test_the_last_god_standing_wins() -> None:
    """End of the game: when a capture leaves a single god in play, its army has won (here
    the third army, Norse, was already out)."""
    state = state_of(
        "G g . .\n. e E .", "king", 1, armies=(Army.EGYPTIAN, Army.GREEK), current=Army.GREEK
    )
    step = THREE.apply(state, mv("1,0", "2,1"))
    assert [e.kind for e in step.events] == ["move", "capture", "elimination", "victory"]
    assert step.state.alive == (Army.GREEK,)
    assert sorted(str(c.at) for c in step.state.checkers) == ["0,0", "2,1"]
    outcome = THREE.outcome(step.state)
    assert outcome is not None and outcome.winner == "greek"
    assert step.state.phase is Phase.OVER and THREE.legal_actions(step.state) == []


def test_the_princess_runs_through_a_god_she_knows_but_cannot_stop_on_it() -> None:
    """Hero die, Princess: she keeps moving after each capture, within the numbered die, and
    may move on through a god checker, but never takes it - even one the mover already knows,
    which she may still pass."""
    state = state_of("g n N n . .\nG . . . . .", "rook", 4, HeroFace.PRINCESS)
    state = replace(state, checkers=tuple(
        replace(c, seen_by=frozenset({Army.GREEK})) if c.at == sq("2,0") else c
        for c in state.checkers
    ))
    assert mv("0,0", "4,0") in GAME.legal_actions(state)
    step = GAME.apply(state, mv("0,0", "4,0"))
    assert [e.kind for e in step.events] == ["move", "capture", "power", "capture", "turn"]
    assert step.state.occupant[sq("2,0")].identity is Identity.GOD
    assert Army.NORSE in step.state.alive and step.state.captured == ((Army.NORSE, 2),)
    short = replace(state, roll=TurnRoll(ChessFace.ROOK, 2, HeroFace.PRINCESS))
    assert GAME.verdict(short, mv("0,0", "2,0")).code == "god-protected"
    assert mv("0,0", "2,0") not in GAME.legal_actions(short)


def test_god_of_wind_moves_a_god_onto_nothing_and_never_captures_one() -> None:
    """Hero die, God of Wind: the pushed checker may be a god, but a push may never capture a
    god. With pushes allowed to capture (an option), pushing onto a hidden god is undone and
    the mover, alone, learns that it is the god; pushing onto a mortal captures it."""
    diagram = "G . e n\n. E . N"
    state = state_of(diagram, "king", 2, HeroFace.GOD_OF_WIND, armies=EGN, current=Army.GREEK)
    attempt = Push(sq("2,0"), sq("3,1"))
    step = THREE_CAPTURE.apply(state, attempt)
    assert [e.kind for e in step.events] == ["power"]
    after = step.state
    assert after.checkers == tuple(
        replace(c, seen_by=frozenset({Army.GREEK})) if c.at == sq("3,1") else c
        for c in state.checkers
    )
    assert THREE_CAPTURE.view(after, "greek").occupant[sq("3,1")].identity is Identity.GOD
    assert THREE_CAPTURE.view(after, "egyptian").occupant[sq("3,1")].identity is Identity.HIDDEN
    assert THREE_CAPTURE.verdict(after, attempt).code == "god-protected"
    step = THREE_CAPTURE.apply(after, Push(sq("2,0"), sq("3,0")))
    assert [e.kind for e in step.events] == ["move", "capture", "turn"]
    assert step.state.occupant[sq("3,0")].side is Army.EGYPTIAN
    assert step.state.captured == ((Army.NORSE, 1),)
    # the god itself may be pushed
    step = THREE.apply(state, Push(sq("3,1"), sq("2,1")))
    assert step.state.occupant[sq("2,1")].identity is Identity.GOD


def test_seth_with_one_opponent_down_to_its_god_converts_another_army() -> None:
    """Hero die, Seth: the turn is lost only when a single opposing checker is left. With
    three armies, one opponent reduced to its (obvious) god does not stop Seth: the mover
    converts a checker of the other opponent, and the lone god is never offered."""
    diagram = "G . E e\n. N . e"
    state = state_of(diagram, "king", 2, HeroFace.SETH, armies=EGN, current=Army.GREEK)
    legal = THREE.legal_actions(state)
    assert {a.at for a in legal if isinstance(a, Convert)} == squares("2,0", "3,0", "3,1")
    assert THREE.verdict(state, Convert(sq("1,1"), ConvertMethod.TOKEN)).code == "god-protected"
    step = THREE.apply(state, Convert(sq("3,1"), ConvertMethod.TOKEN))
    assert [e.kind for e in step.events] == ["power", "turn"]
    converted = step.state.occupant[sq("3,1")]
    assert converted.army is Army.EGYPTIAN and converted.side is Army.GREEK
    assert step.state.current is Army.NORSE

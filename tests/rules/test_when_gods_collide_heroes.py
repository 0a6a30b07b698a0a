"""When Gods Collide: every hero power, and which of them may take, move or pass the god."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from wgc_support import mv, ring, sq

from rules.errors import IllegalActionError
from rules.when_gods_collide import (
    Army,
    CallHero,
    ChessFace,
    Convert,
    ConvertMethod,
    HeroFace,
    HeroRoll,
    Identity,
    Move,
    Phase,
    Push,
    Roll,
    TurnRoll,
    WgcState,
    WhenGodsCollide,
    parse_diagram,
)

GAME = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})
THREE = WhenGodsCollide.from_options({"armies": ["egyptian", "greek", "norse"]})


def hero_state(
    diagram: str, hero: HeroFace, number: int, chess: str = "king", **kw: Any
) -> WgcState:
    roll = TurnRoll(ChessFace(chess), number, hero)
    return parse_diagram(diagram, phase=Phase.MOVE, roll=roll, **kw)


EGN = (Army.EGYPTIAN, Army.GREEK, Army.NORSE)


LONE = ring({"1,3": "G", "5,5": "N"})


# -- the hero die arrives ----------------------------------------------------------------------


def test_hero_roll_rerolls_the_numbered_die() -> None:
    state = GAME.apply(parse_diagram(LONE), Roll(ChessFace.BISHOP, 6)).state
    state = GAME.apply(state, CallHero()).state
    step = GAME.apply(state, HeroRoll(HeroFace.WINGED_SANDALS, 2))
    assert step.state.roll == TurnRoll(ChessFace.BISHOP, 2, HeroFace.WINGED_SANDALS)
    assert step.events[0].kind == "roll" and step.events[0].detail("hero") == "winged-sandals"


# -- Imp -----------------------------------------------------------------------------------------

IMP_CASES = [
    ("1,3", "3,4", "ok"),  # as a knight
    ("1,3", "1,2", "ok"),  # as a king, pawn, rook or queen
    ("1,3", "1,1", "ok"),  # as a rook or queen of 2
    ("1,3", "3,5", "ok"),  # as a bishop of 2, across the corner
    ("1,3", "1,0", "no-chess-movement"),  # 3 squares, the numbered die says 2
    ("1,3", "0,0", "no-chess-movement"),
    ("1,3", "2,3", "not-a-square"),
]


@pytest.mark.parametrize("frm,to,code", IMP_CASES)
def test_imp_chooses_any_chess_movement(frm: str, to: str, code: str) -> None:
    state = hero_state(LONE, HeroFace.IMP, 2)
    assert GAME.verdict(state, mv(frm, to)).code == code


def test_imp_counts_the_union_of_all_faces() -> None:
    # From 1,3 with 2 on the numbered die: king 0,2 1,2 0,3 2,4; knight 2,1 0,1 3,4 2,5;
    # queen/rook 1,1; queen/bishop 3,5 (pawn, rook and bishop add nothing new): 10.
    assert len(GAME.legal_actions(hero_state(LONE, HeroFace.IMP, 2))) == 10


def test_imp_may_capture_the_god() -> None:
    state = hero_state(ring({"4,4": "g", "5,5": "N", "0,0": "n", "1,3": "G"}), HeroFace.IMP, 1)
    step = GAME.apply(state, mv("4,4", "5,5"))
    assert [e.kind for e in step.events] == ["move", "capture", "elimination", "victory"]
    outcome = GAME.outcome(step.state)
    assert outcome is not None and outcome.winner == "greek"
    assert "Imp" in step.events[0].text


# -- Double Knight -------------------------------------------------------------------------------


def test_double_knight_destinations() -> None:
    # First jumps from 1,3: 2,1 0,1 3,4 2,5. Second jumps (not back to 1,3): from 2,1 to
    # 4,2 4,0 0,0 0,2; from 0,1 to 2,0; from 3,4 to 5,5 (the Norse god) 5,3 4,2; from 2,5
    # to 4,4. Distinct destinations: 8.
    actions = GAME.legal_actions(hero_state(LONE, HeroFace.DOUBLE_KNIGHT, 3))
    assert sorted(str(a.to) for a in actions) == sorted(
        ["4,2", "4,0", "0,0", "0,2", "2,0", "5,5", "5,3", "4,4"]
    )


@pytest.mark.parametrize(
    "diagram,to,code",
    [
        (LONE, "0,0", "ok"),
        (LONE, "3,4", "not-a-double-knight"),  # a single jump is not enough
        (LONE, "1,3", "no-movement"),
        (ring({"1,3": "G", "3,4": "n", "5,5": "N"}), "5,3", "not-a-double-knight"),  # middle taken
        (ring({"1,3": "G", "3,4": "n", "5,5": "N"}), "4,4", "ok"),  # via 2,5
        (ring({"1,3": "G", "0,0": "g", "5,5": "N"}), "0,0", "own-checker"),
    ],
)
def test_double_knight_rules(diagram: str, to: str, code: str) -> None:
    state = hero_state(diagram, HeroFace.DOUBLE_KNIGHT, 1)
    assert GAME.verdict(state, mv("1,3", to)).code == code


def test_double_knight_may_capture_the_god() -> None:
    step = GAME.apply(hero_state(LONE, HeroFace.DOUBLE_KNIGHT, 1), mv("1,3", "5,5"))
    assert step.state.phase is Phase.OVER
    assert step.events[1].detail("god") is True


# -- Winged Sandals ---------------------------------------------------------------------------

SANDALS = ring({"1,3": "g", "0,0": "G", "5,0": "n", "5,5": "N"})


@pytest.mark.parametrize(
    "frm,to,code",
    [
        ("1,3", "4,5", "ok"),
        ("0,0", "5,0", "ok"),  # captures the mortal there
        ("1,3", "5,5", "ok"),  # the god is not known to Greek: an attempt (see below)
        ("1,3", "0,0", "own-checker"),
        ("1,3", "2,2", "not-a-square"),
        ("5,0", "4,0", "not-your-checker"),
    ],
)
def test_winged_sandals_go_anywhere(frm: str, to: str, code: str) -> None:
    assert GAME.verdict(hero_state(SANDALS, HeroFace.WINGED_SANDALS, 4), mv(frm, to)).code == code


def test_winged_sandals_count() -> None:
    # 28 squares; two Greek checkers may each go to the 26 squares without a Greek: 52.
    assert len(GAME.legal_actions(hero_state(SANDALS, HeroFace.WINGED_SANDALS, 4))) == 52


def test_winged_sandals_cannot_take_the_god_and_the_mover_learns_it() -> None:
    state = hero_state(SANDALS, HeroFace.WINGED_SANDALS, 4)
    assert GAME.view(state, "greek").occupant[sq("5,5")].identity is Identity.HIDDEN
    step = GAME.apply(state, mv("1,3", "5,5"))
    after = step.state
    assert [e.kind for e in step.events] == ["power"]
    assert "choose another movement" in step.events[0].text
    # nothing moved, the dice stay, Greek still moves with the Sandals
    assert after.phase is Phase.MOVE and after.current is Army.GREEK
    assert after.roll == state.roll
    assert {c.at for c in after.checkers} == {c.at for c in state.checkers}
    # and Greek now knows the Norse god; trying again is refused outright
    assert GAME.view(after, "greek").occupant[sq("5,5")].identity is Identity.GOD
    assert GAME.view(after, "greek").occupant[sq("5,0")].identity is Identity.MORTAL
    verdict = GAME.verdict(after, mv("1,3", "5,5"))
    assert verdict.code == "god-protected"
    assert mv("1,3", "5,5") not in GAME.legal_actions(after)
    assert mv("0,0", "5,5") not in GAME.legal_actions(after)
    step = GAME.apply(after, mv("0,0", "5,0"))
    assert [e.kind for e in step.events] == ["move", "capture", "turn"]


def test_what_the_mover_learns_stays_private() -> None:
    diagram = ring({"1,3": "G", "0,0": "e", "1,0": "E", "5,0": "n", "5,5": "N"})
    state = hero_state(diagram, HeroFace.WINGED_SANDALS, 4, armies=EGN, current=Army.GREEK)
    after = THREE.apply(state, mv("1,3", "5,5")).state
    assert THREE.view(after, "greek").occupant[sq("5,5")].identity is Identity.GOD
    egyptian_view = THREE.view(after, "egyptian")
    assert egyptian_view.occupant[sq("5,5")].identity is Identity.HIDDEN
    assert egyptian_view.occupant[sq("5,5")].seen_by == frozenset()
    assert egyptian_view == THREE.view(state, "egyptian")  # nothing new for the bystander
    # nor in what the referee says to the whole table
    spoken = THREE.apply(state, mv("1,3", "5,5")).events
    assert all("5,5" not in e.text for e in spoken) and "cannot take it" in spoken[0].text
    public = WhenGodsCollide.from_options(
        {"armies": ["egyptian", "greek", "norse"], "god_reveal": "all"}
    )
    step = public.apply(state, mv("1,3", "5,5"))
    assert public.view(step.state, "egyptian").occupant[sq("5,5")].identity is Identity.GOD
    assert "the checker on 5,5" in step.events[0].text  # everyone learns it: the square is said


def test_a_god_the_princess_passes_is_not_named_aloud_unless_everyone_learns_it() -> None:
    diagram = ring({"0,0": "g", "1,0": "n", "3,0": "N", "1,3": "G", "5,5": "n"})
    for reveal, named in (("mover", False), ("all", True)):
        game = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "god_reveal": reveal})
        step = game.apply(hero_state(diagram, HeroFace.PRINCESS, 4, chess="rook"), mv("0,0", "4,0"))
        passed = [e for e in step.events if e.kind == "power"]
        assert len(passed) == 1 and "moves on past it" in passed[0].text
        assert ("3,0" in passed[0].text) is named


# -- God of Wind ----------------------------------------------------------------------------------

WIND = ring({"1,3": "G", "3,0": "g", "0,0": "n", "4,3": "n", "5,5": "N"})
UP_TO = GAME
EXACT = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "wind_distance": "exact"})
CAPTURE = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "wind_landing": "capture"})


def push(frm: str, to: str) -> Push:
    return Push(sq(frm), sq(to))


@pytest.mark.parametrize(
    "game,frm,to,code",
    [
        (UP_TO, "0,0", "1,0", "ok"),  # any distance up to the numbered die
        (UP_TO, "0,0", "2,0", "ok"),
        (UP_TO, "0,0", "3,0", "push-onto-occupied"),  # the Greek checker stops it
        (UP_TO, "0,0", "4,0", "too-far"),
        (UP_TO, "0,0", "0,3", "ok"),  # south: 0,1 0,2 0,3 then a gap
        (UP_TO, "0,0", "2,2", "not-a-square"),
        (UP_TO, "0,0", "1,2", "not-a-straight-line"),
        (UP_TO, "4,3", "4,0", "ok"),
        (UP_TO, "4,3", "4,2", "ok"),
        (UP_TO, "4,3", "3,3", "not-a-square"),
        (UP_TO, "4,3", "4,5", "ok"),
        (UP_TO, "5,5", "5,2", "ok"),  # the god may be pushed
        (UP_TO, "1,3", "1,2", "not-an-enemy"),
        (UP_TO, "2,0", "2,1", "no-checker"),
        (EXACT, "0,0", "2,0", "ok"),  # exactly 3 unless stopped: stopped after 2
        (EXACT, "0,0", "1,0", "wrong-distance"),
        (EXACT, "4,3", "4,0", "ok"),
        (EXACT, "4,3", "4,2", "wrong-distance"),
        (CAPTURE, "0,0", "3,0", "ok"),  # lands on the Greek checker and captures it
        (CAPTURE, "0,0", "4,0", "too-far"),
        (CAPTURE, "4,3", "4,0", "ok"),
        (CAPTURE, "5,5", "4,4", "ok"),
    ],
)
def test_god_of_wind_pushes(game: WhenGodsCollide, frm: str, to: str, code: str) -> None:
    state = hero_state(WIND, HeroFace.GOD_OF_WIND, 3)
    verdict = game.verdict(state, push(frm, to))
    assert verdict.code == code, verdict.message
    assert (push(frm, to) in game.legal_actions(state)) == verdict.legal


def test_push_moves_the_enemy_not_the_mover() -> None:
    state = hero_state(WIND, HeroFace.GOD_OF_WIND, 3)
    assert GAME.verdict(state, mv("1,3", "1,2")).code == "wrong-power"
    step = GAME.apply(state, push("5,5", "5,2"))
    assert step.state.occupant[sq("5,2")].identity is Identity.GOD
    assert step.events[0].kind == "move" and "pushes the Norse checker" in step.events[0].text
    assert step.state.current is Army.NORSE


def test_push_capture_option_captures_but_never_a_god() -> None:
    state = hero_state(WIND, HeroFace.GOD_OF_WIND, 3)
    step = CAPTURE.apply(state, push("0,0", "3,0"))
    assert [e.kind for e in step.events] == ["move", "capture", "turn"]
    assert step.state.occupant[sq("3,0")].side is Army.NORSE
    assert step.state.captured == ((Army.GREEK, 1),)
    # pushing a Norse checker onto Greek's own god: Greek knows it, so it is refused
    own_god = hero_state(ring({"1,3": "G", "1,0": "n", "5,5": "N"}), HeroFace.GOD_OF_WIND, 3)
    assert CAPTURE.verdict(own_god, push("1,0", "1,3")).code == "god-protected"
    assert CAPTURE.verdict(own_god, push("5,5", "1,3")).code == "not-a-straight-line"


def test_wind_cannot_push_onto_its_own_side_or_past_a_capture() -> None:
    diagram = ring({"1,3": "G", "0,0": "n", "1,0": "n", "0,1": "g", "5,5": "N"})
    state = hero_state(diagram, HeroFace.GOD_OF_WIND, 3)
    assert CAPTURE.verdict(state, push("0,0", "1,0")).code == "push-onto-own"
    assert CAPTURE.verdict(state, push("0,0", "0,1")).code == "ok"
    assert CAPTURE.verdict(state, push("0,0", "0,2")).code == "blocked-by-capture"
    assert GAME.verdict(state, push("0,0", "0,1")).code == "push-onto-occupied"


# -- Princess ------------------------------------------------------------------------------------

ROW = ring({"0,0": "g", "1,0": "n", "3,0": "n", "5,5": "N", "1,3": "G"})


@pytest.mark.parametrize(
    "action,code",
    [
        (mv("0,0", "4,0"), "ok"),  # straight through both Norse checkers: exactly 4
        (mv("0,0", "1,0"), "ok"),  # she may stop on a checker she captures, as the plain rook would
        (mv("0,0", "3,0"), "ok"),  # ... or on the next one
        (mv("0,0", "2,0"), "wrong-distance"),  # but not on an empty square short of the count
        (mv("0,0", "5,0"), "too-far"),
        (mv("0,0", "0,3"), "ok"),  # south: 3 squares then a gap
        (mv("0,0", "4,0", "1,0"), "via-not-allowed"),
    ],
)
def test_princess_slides_through_captures(action: Move, code: str) -> None:
    state = hero_state(ROW, HeroFace.PRINCESS, 4, chess="rook")
    assert GAME.verdict(state, action).code == code
    assert (action in GAME.legal_actions(state)) is (code == "ok")


def test_a_princess_stopping_on_her_first_capture_takes_only_it() -> None:
    state = hero_state(ROW, HeroFace.PRINCESS, 4, chess="rook")
    after = GAME.apply(state, mv("0,0", "1,0")).state
    assert after.occupant[sq("1,0")].army is Army.GREEK and sq("3,0") in after.occupant


def test_princess_captures_every_enemy_on_her_line() -> None:
    state = hero_state(ROW, HeroFace.PRINCESS, 4, chess="rook")
    step = GAME.apply(state, mv("0,0", "4,0"))
    assert [e.kind for e in step.events] == ["move", "capture", "capture", "turn"]
    assert [e.detail("at") for e in step.events[1:3]] == ["1,0", "3,0"]
    assert step.state.captured == ((Army.NORSE, 2),)


def test_princess_passes_through_the_god() -> None:
    diagram = ring({"0,0": "g", "1,0": "n", "3,0": "N", "1,3": "G", "5,5": "n"})
    state = hero_state(diagram, HeroFace.PRINCESS, 4, chess="rook")
    step = GAME.apply(state, mv("0,0", "4,0"))
    assert [e.kind for e in step.events] == ["move", "capture", "power", "turn"]
    after = step.state
    assert after.occupant[sq("3,0")].identity is Identity.GOD  # still there
    assert GAME.view(after, "greek").occupant[sq("3,0")].identity is Identity.GOD
    assert Army.NORSE in after.alive


def test_princess_cannot_end_on_the_god() -> None:
    diagram = ring({"0,0": "g", "1,0": "n", "3,0": "N", "1,3": "G", "5,5": "n"})
    state = hero_state(diagram, HeroFace.PRINCESS, 3, chess="rook")
    step = GAME.apply(state, mv("0,0", "3,0"))
    assert [e.kind for e in step.events] == ["power"]
    after = step.state
    assert after.phase is Phase.MOVE and after.occupant[sq("1,0")].side is Army.NORSE
    assert GAME.verdict(after, mv("0,0", "3,0")).code == "god-protected"


CHAIN = ring({"0,0": "g", "1,0": "n", "2,1": "n", "3,0": "n", "5,5": "N", "1,3": "G"})


@pytest.mark.parametrize(
    "action,number,code",
    [
        (mv("0,0", "3,1", "1,0", "2,1"), 3, "ok"),  # two captures, then an empty square
        (mv("0,0", "3,0", "1,0", "2,1"), 3, "ok"),  # three captures
        (mv("0,0", "2,1", "1,0"), 3, "ok"),  # she may stop after a capture
        (mv("0,0", "3,0", "1,0", "2,1"), 2, "chain-too-long"),
        (mv("0,0", "1,1", "0,1"), 3, "chain-needs-capture"),  # 0,1 was empty
        (mv("0,0", "0,0", "1,0"), 3, "no-movement"),
        (mv("0,0", "1,1", "1,0", "2,1"), 3, "ok"),  # back to an emptied square ends it
        (mv("0,0", "1,0", "1,0", "2,1"), 3, "chain-revisits"),
        (mv("0,0", "3,0", "1,0", "2,2"), 3, "not-a-square"),
        (mv("0,0", "1,2", "1,0"), 3, "king-one-square"),
    ],
)
def test_princess_king_chains(action: Move, number: int, code: str) -> None:
    state = hero_state(CHAIN, HeroFace.PRINCESS, number, chess="king")
    verdict = GAME.verdict(state, action)
    assert verdict.code == code, verdict.message
    assert (action in GAME.legal_actions(state)) == verdict.legal


def test_princess_chain_count() -> None:
    # King chains of at most 2 steps. From 0,0 the first step goes to 0,1 or 1,1 (empty:
    # the chain ends) or captures on 1,0: 3 chains. From 1,0 a second step reaches 2,0, 0,1,
    # 1,1 or captures on 2,1: 4 more (no third step). The Greek god on 1,3 has four single
    # steps to empty squares: 0,2 1,2 0,3 2,4. Total 3 + 4 + 4 = 11.
    state = hero_state(CHAIN, HeroFace.PRINCESS, 2, chess="king")
    assert len(GAME.legal_actions(state)) == 11


def test_princess_chain_through_the_god() -> None:
    diagram = ring({"0,0": "g", "1,0": "N", "2,1": "n", "5,5": "n", "1,3": "G"})
    state = hero_state(diagram, HeroFace.PRINCESS, 3, chess="king")
    step = GAME.apply(state, mv("0,0", "2,1", "1,0"))
    assert [e.kind for e in step.events] == ["move", "power", "capture", "turn"]
    assert step.state.occupant[sq("1,0")].identity is Identity.GOD
    blocked = GAME.apply(state, mv("0,0", "1,0"))  # ending on the god: voided
    assert [e.kind for e in blocked.events] == ["power"]


def test_princess_pawn_and_knight_chains() -> None:
    diagram = ring({"0,0": "G", "1,1": "n", "1,2": "n", "5,5": "N"})
    pawn = hero_state(diagram, HeroFace.PRINCESS, 3, chess="pawn")
    assert GAME.verdict(pawn, mv("0,0", "1,2", "1,1")).code == "pawn-captures-diagonally"
    assert GAME.verdict(pawn, mv("0,0", "0,2", "1,1")).code == "pawn-diagonal-needs-capture"
    assert GAME.verdict(pawn, mv("0,0", "2,1", "1,1")).code == "ok"  # then a plain step
    assert GAME.verdict(pawn, mv("0,0", "1,0")).code == "ok"
    diagram = ring({"0,0": "G", "2,1": "n", "4,2": "n", "5,5": "N"})
    knight = hero_state(diagram, HeroFace.PRINCESS, 2, chess="knight")
    step = GAME.apply(knight, mv("0,0", "4,2", "2,1"))
    assert [e.kind for e in step.events] == ["move", "capture", "capture", "turn"]


# -- Seth ------------------------------------------------------------------------------------------

SETH = ring({"1,3": "G", "0,0": "n", "4,0": "n", "5,5": "N"})
NO_TOKENS = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "seth_tokens": 0})


def convert(at: str, method: str = "token") -> Convert:
    return Convert(sq(at), ConvertMethod(method))


def test_seth_token_converts_a_mortal() -> None:
    state = hero_state(SETH, HeroFace.SETH, 2)
    step = GAME.apply(state, convert("0,0"))
    turned = step.state.occupant[sq("0,0")]
    assert (turned.army, turned.side, turned.identity, turned.public) == (
        Army.NORSE, Army.GREEK, Identity.MORTAL, True,
    )
    assert [e.kind for e in step.events] == ["power", "turn"]
    assert step.events[0].detail("method") == "token"


def test_seth_replacement_brings_back_a_captured_checker() -> None:
    state = hero_state(SETH, HeroFace.SETH, 2, captured={Army.GREEK: 2})
    assert convert("0,0", "replace") in GAME.legal_actions(state)
    after = GAME.apply(state, convert("0,0", "replace")).state
    back = after.occupant[sq("0,0")]
    assert (back.army, back.side, back.identity) == (Army.GREEK, Army.GREEK, Identity.MORTAL)
    assert after.captured == ((Army.GREEK, 1), (Army.NORSE, 1))


@pytest.mark.parametrize(
    "game,action,captured,code",
    [
        (GAME, convert("0,0"), {}, "ok"),
        (GAME, convert("0,0", "replace"), {}, "no-captured-checkers"),
        (GAME, convert("1,3"), {}, "not-an-enemy"),
        (GAME, convert("2,0"), {}, "no-checker"),
        (GAME, mv("1,3", "1,2"), {}, "wrong-power"),
        (GAME, push("0,0", "1,0"), {}, "wrong-power"),
        (NO_TOKENS, convert("0,0"), {}, "no-seth-tokens"),
    ],
)
def test_seth_rules(
    game: WhenGodsCollide, action: Any, captured: dict[Army, int], code: str
) -> None:
    state = hero_state(SETH, HeroFace.SETH, 2, captured=captured)
    assert game.verdict(state, action).code == code


def test_seth_token_supply_counts_tokens_on_the_board() -> None:
    game = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "seth_tokens": 1})
    state = hero_state(SETH, HeroFace.SETH, 2)
    assert game.verdict(state, convert("0,0")).code == "ok"
    after = game.apply(state, convert("0,0")).state
    # Greek's next Seth: its only token lies on 0,0
    again = replace(after, current=Army.GREEK, phase=Phase.MOVE, roll=state.roll)
    assert game.verdict(again, convert("4,0")).code == "no-seth-tokens"
    assert convert("4,0") not in game.legal_actions(again)
    assert game.verdict(again, convert("4,0", "replace")).code == "no-captured-checkers"


def test_seth_flips_the_god_and_must_pick_another() -> None:
    state = hero_state(SETH, HeroFace.SETH, 2)
    step = GAME.apply(state, convert("5,5"))
    assert [e.kind for e in step.events] == ["power"]
    assert "pick another" in step.events[0].text
    after = step.state
    assert after.phase is Phase.MOVE and after.roll == state.roll
    assert GAME.verdict(after, convert("5,5")).code == "god-protected"
    assert GAME.view(after, "greek").occupant[sq("5,5")].identity is Identity.GOD
    assert convert("0,0") in GAME.legal_actions(after)


def test_seth_flips_face_up_for_everybody_unless_told_otherwise() -> None:
    diagram = ring({"1,3": "G", "0,0": "e", "1,0": "E", "5,0": "n", "5,5": "N"})
    armies = (Army.EGYPTIAN, Army.GREEK, Army.NORSE)
    state = hero_state(diagram, HeroFace.SETH, 2, armies=armies, current=Army.GREEK)
    step = THREE.apply(state, convert("5,5"))
    assert THREE.view(step.state, "egyptian").occupant[sq("5,5")].identity is Identity.GOD
    assert "the checker on 5,5" in step.events[0].text
    private = WhenGodsCollide.from_options(
        {"armies": ["egyptian", "greek", "norse"], "seth_reveal": "mover"}
    )
    step = private.apply(state, convert("5,5"))
    after = step.state
    assert "Seth cannot convert it" in step.events[0].text and "5,5" not in step.events[0].text
    assert private.view(after, "egyptian").occupant[sq("5,5")].identity is Identity.HIDDEN
    assert private.view(after, "greek").occupant[sq("5,5")].identity is Identity.GOD


def test_seth_with_only_the_god_left_loses_the_turn() -> None:
    state = parse_diagram(ring({"1,3": "G", "5,5": "N"}))
    state = GAME.apply(state, Roll(ChessFace.ROOK, 6)).state
    state = GAME.apply(state, CallHero()).state
    step = GAME.apply(state, HeroRoll(HeroFace.SETH, 3))
    assert [e.kind for e in step.events] == ["roll", "turn", "turn"]
    assert "loses the turn" in step.events[1].text
    assert step.state.current is Army.NORSE and step.state.skip == frozenset()
    harsh = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "seth_lost_turn": "next"})
    step = harsh.apply(state, HeroRoll(HeroFace.SETH, 3))
    assert step.state.skip == {Army.GREEK}
    # Norse plays; Greek's next turn is skipped, so Norse rolls again
    state = harsh.apply(step.state, Roll(ChessFace.KING, 1)).state
    norse_move = next(a for a in harsh.legal_actions(state) if isinstance(a, Move))
    step = harsh.apply(state, norse_move)
    assert [e.text for e in step.events[-2:]] == ["Greek loses this turn.", "Norse to roll."]
    assert step.state.current is Army.NORSE and step.state.skip == frozenset()


def test_seth_takes_back_an_own_checker_without_a_token() -> None:
    state = hero_state(ring({"1,3": "g", "3,5": "G", "0,0": "n", "5,5": "N"}), HeroFace.SETH, 2)
    # the Greek checker on 1,3 fights for Norse under a Norse Seth token
    state = replace(state, checkers=tuple(
        replace(c, side=Army.NORSE, public=True) if c.at == sq("1,3") else c for c in state.checkers
    ))
    assert NO_TOKENS.verdict(state, convert("1,3")).code == "ok"  # no token needed
    back = NO_TOKENS.apply(state, convert("1,3")).state.occupant[sq("1,3")]
    assert back.side is Army.GREEK and not back.converted


# -- capturing a god -----------------------------------------------------------------------------


def test_a_captured_god_removes_every_checker_fighting_for_its_army() -> None:
    diagram = ring(
        {"0,0": "e", "1,0": "E", "4,0": "g", "5,0": "G", "5,5": "N", "4,5": "g", "1,3": "e"}
    )
    state = hero_state(diagram, HeroFace.IMP, 1, armies=EGN, current=Army.NORSE)
    # The Egyptian checker on 1,3 fights for Greece (a Seth token); the Greek one on 4,5 for Norse.
    turned = {sq("1,3"): Army.GREEK, sq("4,5"): Army.NORSE}
    state = replace(state, roll=TurnRoll(ChessFace.ROOK, 5), checkers=tuple(
        replace(c, side=turned[c.at], public=True) if c.at in turned else c for c in state.checkers
    ))
    step = THREE.apply(state, mv("5,5", "5,0"))
    kinds = [e.kind for e in step.events]
    assert kinds == ["move", "capture", "elimination", "turn"]
    after = step.state
    assert after.alive == (Army.EGYPTIAN, Army.NORSE)
    assert sq("4,0") not in after.occupant and sq("1,3") not in after.occupant
    assert after.occupant[sq("4,5")].army is Army.GREEK  # it fights for Norse: it stays
    assert after.current is Army.EGYPTIAN  # Greek is gone; the turn goes round
    assert step.events[2].detail("removed") == 2


def test_illegal_apply_leaves_no_trace() -> None:
    state = hero_state(LONE, HeroFace.IMP, 2)
    with pytest.raises(IllegalActionError) as err:
        GAME.apply(state, mv("1,3", "1,0"))
    assert err.value.verdict.code == "no-chess-movement"

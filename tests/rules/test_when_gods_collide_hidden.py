"""When Gods Collide: hidden god checkers - what the referee knows, what each player sees,
and the referee that was never told (gods found when checkers are turned over)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.errors import FormatError
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
    Place,
    TurnRoll,
    WgcState,
    WhenGodsCollide,
    parse_diagram,
)

GAME = WhenGodsCollide.from_options({"armies": ["greek", "norse"]})
BLIND = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "referee_sees_gods": False})
THREE = WhenGodsCollide.from_options({"armies": ["egyptian", "greek", "norse"]})


def sq(label: str) -> Square:
    x, y = label.split(",")
    return Square(int(x), int(y))


def gods(*labels: str) -> frozenset[Square]:
    return frozenset(sq(s) for s in labels)


def state_of(
    diagram: str, chess: str = "king", number: int = 1, hero: HeroFace | None = None, **kw: Any
) -> WgcState:
    roll = TurnRoll(ChessFace(chess), number, hero)
    return parse_diagram(diagram, phase=Phase.MOVE, roll=roll, **kw)


def greek_again(state: WgcState) -> WgcState:
    """Back to Greek with a king roll (to try a second action on a position)."""
    return replace(state, current=Army.GREEK, phase=Phase.MOVE, roll=TurnRoll(ChessFace.KING, 1))


# Two tiles side by side. Greek (god known) on the left; Norse on the right, god unknown to
# the referee in the BLIND tests.
FIELD = """
    G g n n
    g . n n
"""


# -- the referee who was not told -----------------------------------------------------------------


def test_blind_deployment_records_unknown_faces() -> None:
    game = WhenGodsCollide.from_options(
        {"armies": ["greek", "norse"], "referee_sees_gods": False, "first_army": "greek",
         "tiles_per_army": 1, "checkers_per_army": 2}
    )
    state = game.initial_state()
    for at in ("0,0", "2,0"):
        state = game.apply(state, game.legal_actions(state)[0] if at == "0,0" else
                           next(a for a in game.legal_actions(state) if str(a.at) == at)).state
    assert state.phase is Phase.DEPLOY
    assert game.verdict(state, Place(Army.GREEK, sq("0,0"), god=True)).code == "referee-not-told"
    for army, squares in ((Army.GREEK, ("0,0", "1,1")), (Army.NORSE, ("2,0", "3,1"))):
        for at in squares:
            state = game.apply(state, Place(army, sq(at))).state
    assert state.phase is Phase.ROLL
    assert {c.identity for c in state.checkers} == {Identity.UNKNOWN}


def test_a_capture_must_say_what_was_under_the_checker() -> None:
    state = state_of(FIELD, unknown=[Army.NORSE])
    plain = Move(sq("1,0"), sq("2,0"))
    verdict = BLIND.verdict(state, plain)
    assert verdict.code == "reveal-needed"
    assert "gods_found" in verdict.message
    listed = [a for a in BLIND.legal_actions(state) if a.frm == sq("1,0") and a.to == sq("2,0")]
    assert {a.gods_found for a in listed} == {gods(), gods("2,0")}


def test_blind_capture_of_a_mortal_then_of_the_god() -> None:
    state = state_of(FIELD, unknown=[Army.NORSE])
    step = BLIND.apply(state, Move(sq("1,0"), sq("2,0"), gods_found=gods()))
    assert [e.kind for e in step.events] == ["move", "capture", "turn"]
    assert step.events[1].detail("god") is False
    step = BLIND.apply(greek_again(step.state), Move(sq("2,0"), sq("3,0"), gods_found=gods("3,0")))
    assert [e.kind for e in step.events] == ["move", "capture", "elimination", "victory"]
    outcome = BLIND.outcome(step.state)
    assert outcome is not None and outcome.winner == "greek"


@pytest.mark.parametrize(
    "found,code",
    [
        (None, "reveal-needed"),
        (gods(), "ok"),
        (gods("2,0"), "ok"),
        (gods("3,0"), "reveal-not-flipped"),  # 3,0 is not turned over by this move
        (gods("2,0", "3,0"), "reveal-not-flipped"),
    ],
)
def test_gods_found_must_fit_the_action(found: frozenset[Square] | None, code: str) -> None:
    state = state_of(FIELD, unknown=[Army.NORSE])
    assert BLIND.verdict(state, Move(sq("1,0"), sq("2,0"), gods_found=found)).code == code


@pytest.mark.parametrize(
    "found,code",
    [
        (None, "ok"),  # the referee knows: nothing needs saying
        (gods(), "ok"),  # and saying it is fine when it is true
        (gods("2,0"), "reveal-mismatch"),
    ],
)
def test_a_referee_who_knows_checks_what_was_found(
    found: frozenset[Square] | None, code: str
) -> None:
    state = state_of(FIELD.replace("n n\n    g . n n", "n n\n    g . n N"))
    assert GAME.verdict(state, Move(sq("1,0"), sq("2,0"), gods_found=found)).code == code


def test_the_last_unknown_checker_is_deduced_to_be_the_god() -> None:
    state = state_of("G g n n\n. . . .", unknown=[Army.NORSE])
    step = BLIND.apply(state, Move(sq("1,0"), sq("2,0"), gods_found=gods()))
    last = step.state.occupant[sq("3,0")]
    assert last.identity is Identity.GOD and last.public
    # so nobody may now claim it was not the god
    state = greek_again(step.state)
    claim = Move(sq("2,0"), sq("3,0"), gods_found=gods())
    assert BLIND.verdict(state, claim).code == "reveal-mismatch"
    assert BLIND.verdict(state, Move(sq("2,0"), sq("3,0"))).code == "ok"


def test_a_blind_attempt_teaches_the_referee_and_the_mover() -> None:
    state = state_of(FIELD, "king", 3, HeroFace.WINGED_SANDALS, unknown=[Army.NORSE])
    step = BLIND.apply(state, Move(sq("1,0"), sq("3,1"), gods_found=gods("3,1")))
    after = step.state
    assert [e.kind for e in step.events] == ["power"]
    assert after.occupant[sq("3,1")].identity is Identity.GOD
    # the referee now knows the other Norse checkers are mortal
    assert {after.occupant[sq(s)].identity for s in ("2,0", "3,0", "2,1")} == {Identity.MORTAL}
    assert BLIND.view(after, "greek").occupant[sq("3,1")].identity is Identity.GOD
    assert BLIND.view(after, "greek").occupant[sq("2,0")].identity is Identity.MORTAL
    # and a capture elsewhere no longer needs to be told anything
    assert BLIND.verdict(after, Move(sq("1,0"), sq("2,0"))).code == "ok"


def test_princess_lists_every_way_her_captures_could_turn_out() -> None:
    state = state_of("G g n n\n. . . .", "rook", 2, HeroFace.PRINCESS, unknown=[Army.NORSE])
    through = [a for a in BLIND.legal_actions(state) if a.to == sq("3,0")]
    # 1,0 east 2 squares: over 2,0 to 3,0, turning both Norse checkers over. One of them is
    # the god (there is no other Norse checker): god at 2,0 (passed) or god at 3,0 (the end,
    # so a voided attempt). "Neither" cannot be true.
    assert {a.gods_found for a in through} == {gods("2,0"), gods("3,0")}
    step = BLIND.apply(state, Move(sq("1,0"), sq("3,0"), gods_found=gods("2,0")))
    assert [e.kind for e in step.events] == ["move", "power", "capture", "turn"]


# -- views ---------------------------------------------------------------------------------------


def test_each_player_sees_only_their_own_gods() -> None:
    armies = (Army.EGYPTIAN, Army.GREEK, Army.NORSE)
    state = state_of("G g n N\n. . e E", armies=armies, current=Army.GREEK)
    for player, own in (("greek", "0,0"), ("norse", "3,0"), ("egyptian", "3,1")):
        seen = THREE.view(state, player)
        visible = {str(c.at) for c in seen.checkers if c.identity is not Identity.HIDDEN}
        assert str(sq(own)) in visible
        assert all(seen.occupant[sq(s)].army.value == player for s in visible)
    assert THREE.view(state, None) == state


def test_views_do_not_depend_on_where_an_unseen_god_is() -> None:
    a = state_of("G g n N\n. . n .")
    b = state_of("G g N n\n. . n .")
    assert GAME.view(a, "greek") == GAME.view(b, "greek")
    assert GAME.view(a, "norse") != GAME.view(b, "norse")
    assert GAME.state_to_json(GAME.view(a, "greek"))["checkers"][2]["identity"] == "hidden"


def test_view_of_an_unknown_player_is_refused() -> None:
    with pytest.raises(FormatError) as err:
        GAME.view(state_of(FIELD.replace("g . n n", "g . n N")), "egyptian")
    assert err.value.field == "player"


def test_an_army_down_to_one_checker_shows_its_god_to_everybody() -> None:
    state = state_of("G g . N\n. . . .", "king", 2, HeroFace.WINGED_SANDALS)
    assert state.occupant[sq("3,0")].public
    assert GAME.view(state, "greek").occupant[sq("3,0")].identity is Identity.GOD
    assert GAME.verdict(state, Move(sq("1,0"), sq("3,0"))).code == "god-protected"


def test_seth_conversions_are_public() -> None:
    state = state_of("G g n n\n. . n N", "king", 2, HeroFace.SETH)
    after = GAME.apply(state, Convert(sq("2,0"), ConvertMethod.TOKEN)).state
    assert GAME.view(after, "norse").occupant[sq("2,0")].identity is Identity.MORTAL
    assert GAME.view(after, "greek").occupant[sq("2,0")].side is Army.GREEK


def test_placing_the_god_is_announced_like_any_checker() -> None:
    game = WhenGodsCollide.from_options(
        {
            "armies": ["greek", "norse"],
            "first_army": "greek",
            "tiles_per_army": 1,
            "checkers_per_army": 2,
        }
    )
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0]).state
    state = game.apply(state, game.legal_actions(state)[0]).state
    god = game.apply(state, Place(Army.GREEK, sq("0,0"), god=True)).events
    mortal = game.apply(state, Place(Army.GREEK, sq("0,0"))).events
    assert [e.text.replace("0,0", "") for e in god] == [e.text.replace("0,0", "") for e in mortal]
    assert god[0].details == mortal[0].details

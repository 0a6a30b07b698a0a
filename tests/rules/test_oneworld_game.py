"""OneWorld set-up (section 3), the three-phase turn (4), reinforcement by the Towers of
Balance (9, chart 13.3) and a golden game played from set-up to victory."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from oneworld_support import BORG, CHEZ, B, F, H, S, game, position

from rules.oneworld import (
    Aspect,
    Child,
    ChooseTower,
    End,
    EndMovement,
    Move,
    OneWorld,
    Phase,
    Position,
    SetUp,
    Transform,
)
from rules.oneworld.setup import example_setup, setup_step

# -- set-up on the default map ------------------------------------------------------------------

GAME = OneWorld()
START = GAME.initial_state()
BORG_SETUP = example_setup(GAME.board, GAME.options, START, BORG)


def with_children(setup: SetUp, *changes: tuple[int, str]) -> SetUp:
    """The set-up with child number i moved to the given hex."""
    kids = list(setup.children)
    for i, label in changes:
        kids[i] = (H(label), kids[i][1])
    return replace(setup, children=tuple(kids))


def test_the_example_set_up_is_legal_and_keeps_to_its_end() -> None:
    assert BORG_SETUP.end is End.NORTH and BORG_SETUP.god.label() == "0702"
    assert len(BORG_SETUP.children) == 13
    assert GAME.verdict(START, BORG_SETUP).legal
    assert GAME.legal_actions(START) == []  # set-ups are checked, not listed
    assert GAME.unlisted(START) is not None and "set-up" in GAME.unlisted(START)  # and say so
    assert GAME.to_move(START) == ("borg",)


SETUP_CASES = [
    ("ok", BORG_SETUP, "ok"),
    ("no-end", replace(BORG_SETUP, end=None), "end-needed"),
    ("wrong-side", replace(BORG_SETUP, side=CHEZ), "not-your-turn"),
    ("god-in-chaos", replace(BORG_SETUP, god=H("0101")), "off-map"),  # 0101 is Chaos
    ("god-in-tower", replace(BORG_SETUP, god=H("0112")), "tower"),
    ("god-row-4", replace(BORG_SETUP, god=H("0704")), "god-too-far"),
    ("god-row-3", replace(BORG_SETUP, god=H("0403")), "ok"),
    ("god-south-end", replace(BORG_SETUP, god=H("0721"), end=End.SOUTH), "child-too-far"),
    ("twelve", replace(BORG_SETUP, children=BORG_SETUP.children[:12]), "child-count"),
    ("fourteen", replace(BORG_SETUP, children=BORG_SETUP.children + ((H("0708"), S),)), "child-count"),
    ("child-in-chaos", with_children(BORG_SETUP, (0, "1401")), "off-map"),
    ("child-on-god", with_children(BORG_SETUP, (0, "0702")), "own-god"),
    ("child-7-away", with_children(BORG_SETUP, (0, "0709")), "ok"),
    ("child-8-away", with_children(BORG_SETUP, (0, "0710")), "child-too-far"),
    ("five-in-a-hex", with_children(BORG_SETUP, *((i, "0708") for i in range(5))), "stacking"),
    ("four-in-a-hex", with_children(BORG_SETUP, *((i, "0708") for i in range(4))), "ok"),
]


@pytest.mark.parametrize(("setup", "code"), [pytest.param(s, c, id=i) for i, s, c in SETUP_CASES])
def test_first_set_up_clause_table(setup: SetUp, code: str) -> None:
    verdict = GAME.verdict(START, setup)
    assert verdict.code == code, verdict.message


def test_a_child_in_a_tower_hex_is_refused() -> None:
    g = OneWorld.from_options({"setup_child_range": 20})
    assert g.verdict(g.initial_state(), with_children(BORG_SETUP, (0, "0112"))).code == "tower"


def test_the_set_up_sequence() -> None:
    # 3.3: the first player chooses an end and sets up; 3.4: the second chooses a Tower, the
    # first gets the other, then the second sets up at the other end; 3.5: the player who set
    # up last moves first.
    pos = GAME.apply(START, BORG_SETUP).state
    assert setup_step(GAME.options, pos) == ("tower", CHEZ)
    assert GAME.to_move(pos) == ("chez",)
    assert GAME.verdict(pos, ChooseTower(BORG, H("0112"))).code == "not-your-turn"
    assert GAME.verdict(pos, ChooseTower(CHEZ, H("0712"))).code == "not-a-tower"
    chez = example_setup(GAME.board, GAME.options, pos, CHEZ)
    assert GAME.verdict(pos, chez).code == "not-setup"
    step = GAME.apply(pos, ChooseTower(CHEZ, H("1412")))
    pos = step.state
    assert (pos.tower_of(CHEZ), pos.tower_of(BORG)) == (H("1412"), H("0112"))
    assert [e.kind for e in step.events] == ["setup"]
    assert GAME.verdict(pos, replace(chez, end=End.NORTH)).code == "end-taken"
    assert GAME.verdict(pos, replace(chez, end=End.SOUTH)).legal
    assert GAME.verdict(pos, replace(chez, god=H("0703"))).code == "god-too-far"  # north is BORG's
    step = GAME.apply(pos, chez)
    pos = step.state
    assert [e.kind for e in step.events] == ["setup", "turn"]
    assert (pos.phase, pos.active, pos.turn) == (Phase.MOVEMENT, CHEZ, 1)
    assert pos.end_of(CHEZ) is End.SOUTH and pos.god(CHEZ).hex == H("0722")
    assert [c.id for c in pos.children_of(CHEZ)] == [f"C{i}" for i in range(1, 14)]
    assert GAME.verdict(pos, BORG_SETUP).code == "not-setup"
    assert GAME.verdict(pos, ChooseTower(CHEZ, H("0112"))).code == "not-setup"


def test_either_player_may_set_up_first() -> None:
    start = GAME.initial_state(first_setup=CHEZ)
    assert GAME.to_move(start) == ("chez",)
    setup = example_setup(GAME.board, GAME.options, start, CHEZ)
    pos = GAME.apply(start, setup).state
    pos = GAME.apply(pos, ChooseTower(BORG, H("0112"))).state
    pos = GAME.apply(pos, example_setup(GAME.board, GAME.options, pos, BORG)).state
    assert (pos.active, pos.end_of(CHEZ), pos.end_of(BORG)) == (BORG, End.NORTH, End.SOUTH)


# Overlapping home rows on a small map, for the set-up rules about the enemy's pieces.
SMALL = """\
size 5 5
row 01 . . . . .
row 02  . . . . .
row 03 T . . . T
row 04  . . . . .
row 05 . . . . .
"""


def small_after_borg() -> tuple[OneWorld, Position]:
    g = game(SMALL, children_per_side=2)
    pos = g.apply(g.initial_state(), SetUp(BORG, H("0301"), ((H("0303"), S), (H("0204"), F)), End.NORTH)).state
    pos = g.apply(pos, ChooseTower(CHEZ, H("0103"))).state
    return g, pos


@pytest.mark.parametrize(
    ("god", "kids", "code"),
    [
        ("0305", ("0405", "0404"), "ok"),
        ("0303", ("0405", "0404"), "occupied"),  # the god among enemy children
        ("0204", ("0405", "0404"), "occupied"),
        ("0305", ("0303", "0404"), "occupied"),  # a child on enemy children
        ("0302", ("0405", "0404"), "god-too-far"),  # row 2 is 4 rows from the south end
        ("0305", ("0301", "0404"), "occupied"),  # a child on the enemy god (4 away, in range)
    ],
)
def test_second_set_up_and_the_enemy_pieces(god: str, kids: tuple[str, str], code: str) -> None:
    g, pos = small_after_borg()
    setup = SetUp(CHEZ, H(god), tuple((H(k), F) for k in kids))
    assert g.verdict(pos, setup).code == code


# -- the three-phase turn (4.2) --------------------------------------------------------------------


def test_any_all_or_none_of_the_children_may_move() -> None:
    g = game()
    pos = position("B1:S@0303 B2:F@0606 C1:S@0707")
    step = g.apply(pos, EndMovement(BORG))  # none
    assert [e.kind for e in step.events] == ["turn"]
    assert (step.state.active, step.state.turn) == (CHEZ, 2)
    pos2 = g.apply(pos, Move("B1", H("0403"))).state
    assert g.verdict(pos2, Move("B1", H("0503"))).code == "already-moved"
    assert g.verdict(pos2, Move("B2", H("0604"))).legal
    assert {a.piece for a in g.legal_actions(pos2) if isinstance(a, Move)} == {"B2"}
    assert g.unlisted(pos2) is None  # past the set-up, every legal action is listed
    after = g.apply(pos2, EndMovement(BORG)).state
    assert after.moved == frozenset() and after.active is CHEZ
    # CHEZ may move all of its children; BORG's are not CHEZ's to move.
    assert g.verdict(after, Move("B2", H("0605"))).code == "not-your-turn"
    assert g.verdict(after, Move("C1", H("0708"))).legal


def test_reinforcement_comes_between_movement_and_combat() -> None:
    g = game()
    pos = position("B1:S@0404 C1:F@0505", under_tower=((BORG, "B2"),))
    pos = g.apply(pos, Move("B1", H("0505"))).state
    step = g.apply(pos, EndMovement(BORG), rolls=[4])
    assert [e.kind for e in step.events] == ["reinforcement", "phase"]
    assert step.state.child("B2") == Child("B2", BORG, B, H("0105"))  # 3-4: Blade
    assert step.state.phase is Phase.COMBAT
    assert step.state.reserve(BORG) == ()


@pytest.mark.parametrize(("roll", "aspect"), [(1, S), (2, S), (3, B), (4, B), (5, F), (6, F)])
def test_the_towers_of_balance_chart(roll: int, aspect: Aspect) -> None:
    g = game()
    pos = position("B1:S@0303", under_tower=((BORG, "B7"), (BORG, "B2"), (CHEZ, "C4")))
    step = g.apply(pos, EndMovement(BORG), rolls=[roll])
    assert step.rolls_used == (roll,)
    # Only one child a turn, the first counter under the Tower, on top of the Tower.
    assert step.state.child("B7") == Child("B7", BORG, aspect, H("0105"))
    assert step.state.reserve(BORG) == ("B2",) and step.state.reserve(CHEZ) == ("C4",)
    event = step.events[0]
    assert (event.kind, event.detail("roll"), event.detail("aspect"), event.detail("piece")) == (
        "reinforcement",
        roll,
        aspect.value,
        "B7",
    )


def test_no_reinforcement_without_counters_under_the_tower() -> None:
    g = game()
    step = g.apply(position("B1:S@0303"), EndMovement(BORG))
    assert step.rolls_used == () and [e.kind for e in step.events] == ["turn"]


def test_never_more_than_thirteen_children_on_the_map() -> None:
    g = game()
    kids = " ".join(f"B{i}:S@0{3 + i // 4}0{2 + i % 4}" for i in range(1, 14))
    pos = position(kids, under_tower=((BORG, "B14"),))
    assert len(pos.children_of(BORG)) == 13
    step = g.apply(pos, EndMovement(BORG))  # no roll is asked for
    assert step.rolls_used == () and step.state.reserve(BORG) == ("B14",)
    # With one fewer on the map the Tower produces again.
    fewer = pos.without_children({"B13"})
    assert g.apply(fewer, EndMovement(BORG), rolls=[1]).state.child("B14") is not None


def test_the_cap_follows_the_children_per_side_option() -> None:
    g = game(children_per_side=2)
    pos = position("B1:S@0303 B2:S@0404", under_tower=((BORG, "B3"),))
    assert g.apply(pos, EndMovement(BORG)).rolls_used == ()


def test_a_full_tower_hex_skips_the_reinforcement() -> None:
    g = game()
    pos = position(" ".join(f"B{i}:S@0105" for i in range(1, 5)), under_tower=((BORG, "B5"),))
    step = g.apply(pos, EndMovement(BORG))
    assert step.rolls_used == ()
    assert step.events[0].kind == "reinforcement" and "full" in step.events[0].text
    assert step.state.reserve(BORG) == ("B5",)


def test_a_reinforcement_may_move_on_the_next_turn() -> None:
    g = game()
    pos = g.apply(position("C1:S@0707", under_tower=((BORG, "B1"),)), EndMovement(BORG), rolls=[5]).state
    pos = g.apply(pos, EndMovement(CHEZ)).state
    assert pos.child("B1").hex == H("0105")
    assert g.verdict(pos, Move("B1", H("0305"))).legal  # a Fog leaves the Tower freely


# -- a golden game: set-up to victory ---------------------------------------------------------------

# 7 x 7, Towers on the west and east edges of row 4, one fault on the side 0302/0401.
DUEL = """\
name duel
size 7 7
row 01 . . . . . . .
row 02  . . . . . . .
row 03 . . . . . . .
row 04  T . . . . . T
row 05 . . . . . . .
row 06  . . . . . . .
row 07 . . . . . . .
fault 0302 NE
"""


def test_golden_game_from_set_up_to_victory() -> None:
    g = game(DUEL)
    script: list[tuple[Any, list[int], list[str]]] = [
        # BORG sets up first at the north end: god 0401.
        (
            SetUp(
                BORG,
                H("0401"),
                tuple([(H("0402"), S)] * 4 + [(H("0502"), B)] * 4 + [(H("0501"), F)] * 4 + [(H("0301"), S)]),
                End.NORTH,
            ),
            [],
            ["setup"],
        ),
        # CHEZ takes the west Tower; BORG gets the east one.
        (ChooseTower(CHEZ, H("0104")), [], ["setup"]),
        # CHEZ sets up at the south end with four Fogs on 0302, next to BORG's god.
        (
            SetUp(
                CHEZ,
                H("0407"),
                tuple([(H("0302"), F)] * 4 + [(H("0406"), B)] * 4 + [(H("0506"), S)] * 4 + [(H("0306"), F)]),
            ),
            [],
            ["setup", "turn"],
        ),
        # Turn 1, CHEZ: C1 attacks the god over the fault (rolls 6: no effect).
        (Move("C1", H("0401")), [6], ["move", "roll"]),
        (EndMovement(CHEZ), [], ["phase"]),
        (Transform(CHEZ, H("0401"), (F,)), [], ["combat"]),
        (Transform(BORG, H("0401"), (S,)), [], ["attack", "life-lost", "elimination", "turn"]),
        # Turn 2, BORG: a Stone walks into the three Fogs on 0302 and is destroyed.
        (Move("B1", H("0302")), [], ["move"]),
        (EndMovement(BORG), [], ["phase"]),
        (Transform(BORG, H("0302"), (S,)), [], ["combat"]),
        (Transform(CHEZ, H("0302"), (F, F, F)), [], ["combat-round", "elimination", "combat", "turn"]),
        # Turn 3, CHEZ: C2 attacks; C1 returns from under the Tower (5: Fog).
        (Move("C2", H("0401")), [6], ["move", "roll"]),
        (EndMovement(CHEZ), [5], ["reinforcement", "phase"]),
        (Transform(CHEZ, H("0401"), (F,)), [], ["combat"]),
        (Transform(BORG, H("0401"), (S,)), [], ["attack", "life-lost", "elimination", "turn"]),
        # Turn 4, BORG: nothing moves; B1 returns (2: Stone) on BORG's Tower 0704.
        (EndMovement(BORG), [2], ["reinforcement", "turn"]),
        # Turn 5, CHEZ: C3 attacks and takes the last life; C2 returns as a Blade (3).
        (Move("C3", H("0401")), [6], ["move", "roll"]),
        (EndMovement(CHEZ), [3], ["reinforcement", "phase"]),
        (Transform(CHEZ, H("0401"), (F,)), [], ["combat"]),
        (Transform(BORG, H("0401"), (S,)), [], ["attack", "life-lost", "elimination", "victory"]),
    ]
    pos = g.initial_state()
    lives = []
    for action, rolls, kinds in script:
        assert g.verdict(pos, action).legal, (action, g.verdict(pos, action).message)
        step = g.apply(pos, action, rolls=rolls)
        assert [e.kind for e in step.events] == kinds, action
        assert list(step.rolls_used) == rolls
        assert all(e.text for e in step.events)
        pos = step.state
        lives.append(pos.god(BORG).lives)
    assert lives[-1] == 0 and sorted(set(lives), reverse=True) == [3, 2, 1, 0]
    assert pos.phase is Phase.OVER and pos.turn == 5
    outcome = g.outcome(pos)
    assert outcome is not None and outcome.winner == "chez" and "BORG" in outcome.reason
    assert {(c.id, c.aspect, c.hex.label()) for c in pos.children if c.hex in (H("0104"), H("0704"))} == {
        ("C1", F, "0104"),
        ("C2", B, "0104"),
        ("B1", S, "0704"),
    }
    assert pos.reserve(CHEZ) == ("C3",) and pos.reserve(BORG) == ()
    assert pos.god(CHEZ).lives == 3

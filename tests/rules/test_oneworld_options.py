"""The optional rules of section 12: every one is a named option, off by default, and every
one changes what the engine does when it is on."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from oneworld_support import ARENA, BORG, CHEZ, B, F, H, S, aspects, destinations, game, position

from rules.errors import FormatError
from rules.oneworld import (
    Child,
    ChooseTower,
    EndMovement,
    God,
    GodMove,
    GodTransform,
    Move,
    OneWorld,
    OneWorldOptions,
    Phase,
    TowerDirection,
    Transform,
)
from rules.oneworld.setup import example_setup, setup_step


def test_every_option_is_off_by_default() -> None:
    o = OneWorldOptions()
    assert not any(
        (o.singing_grasses, o.friendly_obstacle, o.pylon_movement, o.flee_while_you_can, o.tower_elimination,
         o.frustration_clause, o.new_geography, o.more_balance, o.chaos_gambit_1, o.chaos_gambit_2,
         o.non_aligned_towers)
    )
    assert o.moving_towers is None and o.borg_god_powers == o.chez_god_powers == 0
    assert (o.borg_lives, o.chez_lives, o.stacking_limit, o.children_per_side) == (3, 3, 4, 13)
    assert OneWorldOptions.from_json({}) == o


def test_singing_grasses_is_only_music() -> None:
    pos = position("B1:F@0404 B2:B@0606 B3:S@0303")
    plain, musical = game(), game(singing_grasses=True)
    assert musical.options.singing_grasses
    assert musical.legal_actions(pos) == plain.legal_actions(pos)


# -- Friendly Obstacle --------------------------------------------------------------------------


def test_friendly_obstacle_one_stone_for_every_blade() -> None:
    pos = position("B1:B@0103 B2:B@0103 B3:S@0303")  # row 3 eastwards: 0203, 0303 (Stone), ...
    plain, obstacle = game(), game(friendly_obstacle=True)
    assert plain.verdict(pos, Move("B1", H("0303"))).code == "blade-must-move-five"
    assert obstacle.verdict(pos, Move("B1", H("0303"))).legal
    pos = obstacle.apply(pos, Move("B1", H("0303"))).state
    assert pos.obstacles_used == ((H("0303"), 1),)
    # One Stone, one Blade: the second Blade must run its full five hexes.
    assert obstacle.verdict(pos, Move("B2", H("0303"))).code == "blade-must-move-five"
    assert obstacle.verdict(pos, Move("B2", H("0603"))).legal
    # The Stone is free again next turn.
    pos = obstacle.apply(obstacle.apply(pos, EndMovement(BORG)).state, EndMovement(CHEZ)).state
    assert pos.obstacles_used == () and obstacle.verdict(pos, Move("B2", H("0303"))).legal


def test_friendly_obstacle_stop_before_a_god_the_turn_may_no_longer_attack() -> None:
    """Arena: the CHEZ god on 0509. A BORG Blade on 0209 running east passes its Stone on
    0309 and would reach the god; once the turn's god attack is made that full run is
    illegal, but stopping on the Stone never comes near the god."""
    obstacle = game(friendly_obstacle=True)
    for used in (False, True):
        pos = position("B1:B@0209 B3:S@0309", god_attacked=used)
        assert obstacle.verdict(pos, Move("B1", H("0309"))).legal, used
        assert "0309" in destinations(obstacle, pos, "B1")
        assert ("0509" in destinations(obstacle, pos, "B1")) is not used
    pos = position("B1:B@0209 B3:S@0309", god_attacked=True)
    assert obstacle.verdict(pos, Move("B1", H("0509"))).code == "god-attack-used"
    assert game().verdict(pos, Move("B1", H("0309"))).code != "ok"  # without the option: no stop


# -- Pylon Movement -----------------------------------------------------------------------------

# A 6 x 3 map whose middle row is pylons 0102 .. 0402, then flatland 0502, 0602.
PYLONS = """\
size 6 3
row 01 . . . . . .
row 02  P P P P . .
row 03 . . . . . .
"""


def test_pylon_movement_fog_and_blade_go_one_hex_from_pylon_to_pylon() -> None:
    pos = position("B1:F@0102 B2:B@0102", borg_god=None, chez_god=None, towers=())
    plain = game(PYLONS, towers=False)
    rule = game(PYLONS, towers=False, pylon_movement=True)
    assert plain.verdict(pos, Move("B1", H("0302"))).legal
    assert rule.verdict(pos, Move("B1", H("0302"))).code == "pylon-movement"
    assert rule.verdict(pos, Move("B1", H("0202"))).legal
    # The Blade: without the rule it runs 0202 .. 0602 (five hexes); with it, one hex.
    assert destinations(plain, pos, "B2") & {"0202", "0602"} == {"0602"}
    assert "0202" in destinations(rule, pos, "B2") and "0602" not in destinations(rule, pos, "B2")


def test_pylon_movement_may_not_be_combined_with_other_movement() -> None:
    pos = position("B1:S@0302", borg_god=None, chez_god=None, towers=())
    rule = game(PYLONS, towers=False, pylon_movement=True)
    # Three pylon hexes for Stone: 0402 is a pylon, 0502 flatland beyond it.
    assert rule.verdict(pos, Move("B1", H("0102"), (H("0202"), H("0102")))).legal
    assert rule.verdict(pos, Move("B1", H("0502"), (H("0402"), H("0502")))).code == "pylon-movement"
    assert rule.verdict(pos, Move("B1", H("0502"))).code == "pylon-movement"  # whatever the path


# -- Flee-While-You-Can ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "lives", "action", "code"),
    [
        ({}, (2, 3), GodMove(BORG, H("0401")), "option-off"),
        ({"flee_while_you_can": True}, (3, 3), GodMove(BORG, H("0401")), "not-wounded"),
        ({"flee_while_you_can": True}, (2, 3), GodMove(BORG, H("0401")), "ok"),
        ({"flee_while_you_can": True}, (2, 3), GodMove(BORG, H("0502")), "ok"),  # SE of 0501
        ({"flee_while_you_can": True}, (2, 3), GodMove(BORG, H("0601")), "occupied"),  # a child
        ({"flee_while_you_can": True}, (2, 3), GodMove(BORG, H("0503")), "too-far"),
        ({"flee_while_you_can": True}, (2, 3), GodMove(BORG, H("0500")), "chaos"),
        ({"flee_while_you_can": True}, (2, 3), GodMove(CHEZ, H("0508")), "not-your-turn"),
    ],
)
def test_flee_while_you_can_verdicts(options: dict[str, Any], lives: tuple[int, int], action: GodMove, code: str) -> None:
    g = game(**options)
    pos = position("B1:S@0601", lives=lives)
    assert g.verdict(pos, action).code == code


def test_a_fleeing_god_crosses_anything_but_enters_no_tower_nor_crowd() -> None:
    text = ARENA + "runeline 0501 W\nfault 0501 SW\n"
    g = game(text, flee_while_you_can=True)
    pos = replace(position("C1:S@0402", lives=(2, 3)), gods=(God(BORG, H("0501"), 2), God(CHEZ, H("0509"), 3)))
    assert g.verdict(pos, GodMove(BORG, H("0401"))).legal  # over a runeline
    assert g.verdict(pos, GodMove(BORG, H("0402"))).code == "occupied"  # enemy children
    step = g.apply(pos, GodMove(BORG, H("0401")))
    assert step.state.god(BORG).hex == H("0401") and step.state.god_moved
    assert [e.kind for e in step.events] == ["move"]
    assert g.verdict(step.state, GodMove(BORG, H("0301"))).code == "already-moved"
    by_tower = replace(pos, gods=(God(BORG, H("0104"), 2), God(CHEZ, H("0509"), 3)))
    assert g.verdict(by_tower, GodMove(BORG, H("0105"))).code == "tower"
    # Listed: the free neighbours of 0501 (W 0401, E 0601, SW 0402 is taken, SE 0502).
    moves = {a.to.label() for a in g.legal_actions(pos) if isinstance(a, GodMove)}
    assert moves == {"0401", "0601", "0502"}
    # Children still never enter their god's (new) hex.
    kid = replace(step.state, children=(Child("B1", BORG, S, H("0301")),))
    assert g.verdict(kid, Move("B1", H("0401"))).code == "own-god"


# -- God Lives Alterations -------------------------------------------------------------------------


def test_god_lives_alterations() -> None:
    assert OneWorldOptions.from_json({"god_lives": 1}).lives(BORG) == 1
    o = OneWorldOptions.from_json({"borg_lives": 2, "chez_lives": 3})
    assert (o.lives(BORG), o.lives(CHEZ)) == (2, 3)
    g = OneWorld(o)
    assert [gd.lives for gd in g.initial_state().gods] == [2, 3]
    # One life: a single successful attack ends the game.
    g1 = game(god_lives=1)
    pos = position("B1:F@0508", lives=(1, 1))
    pos = g1.apply(pos, Move("B1", H("0509"))).state
    pos = g1.apply(pos, EndMovement(BORG)).state
    pos = g1.apply(pos, Transform(BORG, H("0509"), (F,))).state
    end = g1.apply(pos, Transform(CHEZ, H("0509"), (S,))).state
    assert g1.outcome(end).winner == "borg"


# -- Tower Elimination -------------------------------------------------------------------------------


def test_tower_elimination_single_life_no_towers_no_reinforcements() -> None:
    g = game(tower_elimination=True)
    assert (g.options.borg_lives, g.options.chez_lives) == (1, 1)
    assert OneWorldOptions.from_json({"tower_elimination": True, "god_lives": 2}).borg_lives == 2
    # Set-up: no Tower is chosen.
    pos = g.apply(g.initial_state(), example_setup(g.board, g.options, g.initial_state(), BORG)).state
    assert setup_step(g.options, pos) == ("setup", CHEZ)
    # The dead do not go under a Tower: they are out of play.
    pos = position("B1:F@0404 C1:S@0505", towers=())
    pos = g.apply(pos, Move("B1", H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    pos = g.apply(pos, Transform(BORG, H("0505"), (B,))).state
    step = g.apply(pos, Transform(CHEZ, H("0505"), (S,)))
    assert step.state.lost == ((BORG, "B1"),) and step.state.under_tower == ()
    # Nobody reinforces: no roll is wanted on BORG's next turn.
    pos = g.apply(step.state, EndMovement(CHEZ)).state
    assert g.apply(pos, EndMovement(BORG)).rolls_used == ()


def ring_fight(g: OneWorld, towers: bool):  # type: ignore[no-untyped-def]
    """Three children a side meet and each side reveals Stone, Blade and Fog: all six die."""
    pos = position(
        "B1:S@0404 B2:S@0404 B3:S@0404 C1:S@0505 C2:S@0505 C3:S@0505",
        towers=((BORG, H("0105")), (CHEZ, H("0905"))) if towers else (),
    )
    for piece in ("B1", "B2", "B3"):
        pos = g.apply(pos, Move(piece, H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    pos = g.apply(pos, Transform(BORG, H("0505"), (S, B, F))).state
    return g.apply(pos, Transform(CHEZ, H("0505"), (S, B, F)))


def test_tower_elimination_games_may_end_in_a_tie() -> None:
    g = game(tower_elimination=True)
    step = ring_fight(g, towers=False)
    assert step.state.children == ()
    assert [e.kind for e in step.events][-1] == "draw"
    assert step.state.phase is Phase.OVER and step.state.drawn
    outcome = g.outcome(step.state)
    assert outcome is not None and outcome.draw and outcome.winner is None
    assert g.legal_actions(step.state) == []
    # With Towers the dead come back: no draw, the game goes on.
    step = ring_fight(game(), towers=True)
    assert step.state.phase is Phase.MOVEMENT and game().outcome(step.state) is None
    assert len(step.state.reserve(BORG)) == len(step.state.reserve(CHEZ)) == 3


def test_tower_elimination_cannot_be_combined_with_tower_options() -> None:
    for other in ({"moving_towers": "clockwise"}, {"more_balance": True}, {"non_aligned_towers": True}):
        with pytest.raises(FormatError) as err:
            OneWorldOptions.from_json({"tower_elimination": True, **other})
        assert err.value.field == "options.tower_elimination"


# -- Frustration Clause ---------------------------------------------------------------------------


def quiet_rounds(g: OneWorld, n: int):  # type: ignore[no-untyped-def]
    pos = position("B1:S@0404 C1:S@0505")
    pos = g.apply(pos, Move("B1", H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    step = None
    for _ in range(n):
        pos = g.apply(pos, Transform(BORG, H("0505"), (S,))).state
        step = g.apply(pos, Transform(CHEZ, H("0505"), (S,)))
        pos = step.state
    return step


def test_frustration_clause() -> None:
    step = quiet_rounds(game(frustration_clause=True), 3)
    assert [e.kind for e in step.events] == ["combat-round", "elimination", "combat", "turn"]
    assert step.events[1].detail("cause") == "frustration"
    assert step.state.children == ()
    assert step.state.reserve(BORG) == ("B1",) and step.state.reserve(CHEZ) == ("C1",)
    # Two quiet rounds are not enough; without the clause the fight goes on and on.
    assert quiet_rounds(game(frustration_clause=True), 2).state.phase is Phase.COMBAT
    assert quiet_rounds(game(), 3).state.combat.quiet_rounds == 3
    assert quiet_rounds(game(), 7).state.phase is Phase.COMBAT


def test_frustration_counts_rounds_without_damage_in_a_row() -> None:
    g = game(frustration_clause=True)
    pos = position("B1:S@0404 B2:S@0404 C1:S@0505 C2:S@0505")
    for piece in ("B1", "B2"):
        pos = g.apply(pos, Move(piece, H("0505"))).state
    pos = g.apply(pos, EndMovement(BORG)).state
    for borg, chez in (("SS", "SS"), ("SS", "SS"), ("SB", "SS"), ("S", "SS"), ("S", "SS")):
        pos = g.apply(pos, Transform(BORG, H("0505"), aspects(borg))).state
        pos = g.apply(pos, Transform(CHEZ, H("0505"), aspects(chez))).state
    # Two quiet rounds, one with a loss (the Blade), then two more quiet ones: 2, not 4.
    assert pos.phase is Phase.COMBAT and pos.combat.quiet_rounds == 2 and pos.combat.rounds == 5


# -- Moving Towers of Balance ------------------------------------------------------------------------


@pytest.mark.parametrize(("direction", "to"), [("clockwise", "0104"), ("counterclockwise", "0106")])
def test_moving_towers(direction: str, to: str) -> None:
    g = game(moving_towers=direction)
    assert g.options.moving_towers is TowerDirection(direction)
    step = g.apply(position("B1:S@0204 C1:S@0707"), EndMovement(BORG))
    # After BORG's turn BORG's Tower moves one edge hex (clockwise = northwards on the west).
    assert step.state.tower_of(BORG) == H(to) and step.state.tower_of(CHEZ) == H("0905")
    assert [e.kind for e in step.events] == ["phase", "turn"]
    assert game().apply(position("B1:S@0204"), EndMovement(BORG)).state.tower_of(BORG) == H("0105")


def test_a_moved_tower_blocks_its_new_hex_and_frees_the_old_one() -> None:
    g = game(moving_towers="clockwise")
    pos = g.apply(position("B1:S@0204 B2:F@0306 C1:S@0707"), EndMovement(BORG)).state
    pos = replace(g.apply(pos, EndMovement(CHEZ)).state, active=BORG)
    assert pos.tower_of(BORG) == H("0104")
    assert g.verdict(pos, Move("B1", H("0104"))).code == "tower"
    assert g.verdict(pos, Move("B2", H("0105"))).legal  # the map's T hex, left behind
    # Reinforcements appear where the Tower stands now.
    pos = replace(pos, under_tower=((BORG, "B3"),))
    after = g.apply(pos, EndMovement(BORG), rolls=[1]).state
    assert after.child("B3").hex == H("0104")
    # And such a position survives a JSON round trip.
    assert g.state_from_json(g.state_to_json(after)) == after
    with pytest.raises(FormatError, match="not a Tower hex"):
        game().state_from_json(g.state_to_json(after))


def test_a_tower_skips_edge_hexes_that_are_taken() -> None:
    g = game(moving_towers="clockwise")
    pos = position("B1:S@0104 C1:S@0707")
    step = g.apply(pos, EndMovement(BORG))
    assert step.state.tower_of(BORG) == H("0103")


# -- New Geography ------------------------------------------------------------------------------------


def test_new_geography_the_first_player_chooses_the_tower() -> None:
    for option, chooser in ((False, CHEZ), (True, BORG)):
        g = OneWorld(OneWorldOptions(new_geography=option))
        pos = g.apply(g.initial_state(), example_setup(g.board, g.options, g.initial_state(), BORG)).state
        assert setup_step(g.options, pos) == ("tower", chooser)
        assert g.verdict(pos, ChooseTower(chooser, H("1412"))).legal
        assert g.verdict(pos, ChooseTower(chooser.other(), H("1412"))).code == "not-your-turn"


# -- More Balance in the Towers -------------------------------------------------------------------------


def test_more_balance_only_the_side_with_fewer_children_is_reinforced() -> None:
    g, plain = game(more_balance=True), game()
    even = position("B1:S@0303 C1:S@0707", under_tower=((BORG, "B2"),))
    step = g.apply(even, EndMovement(BORG))
    assert step.rolls_used == () and step.events[0].kind == "reinforcement"
    assert "does not have fewer" in step.events[0].text
    assert plain.apply(even, EndMovement(BORG), rolls=[1]).state.child("B2") is not None
    fewer = replace(even, children=even.children + (Child("C2", CHEZ, S, H("0708")),))
    assert g.apply(fewer, EndMovement(BORG), rolls=[1]).state.child("B2") is not None


# -- Variant Stacking Limits --------------------------------------------------------------------------


def test_variant_stacking_limit() -> None:
    pos = position("B1:S@0404 B2:S@0504 B3:S@0504")
    assert game().verdict(pos, Move("B1", H("0504"))).legal
    assert game(stacking_limit=2).verdict(pos, Move("B1", H("0504"))).code == "stacking"
    assert game(stacking_limit=3).verdict(pos, Move("B1", H("0504"))).legal
    g = OneWorld(OneWorldOptions(stacking_limit=6))
    setup = example_setup(g.board, g.options, g.initial_state(), BORG)
    six = replace(setup, children=tuple((H("0708"), a) for _, a in setup.children[:6]) + setup.children[6:])
    assert g.verdict(g.initial_state(), six).legal
    assert OneWorld().verdict(OneWorld().initial_state(), six).code == "stacking"


# -- Chaos Gambit I and II -----------------------------------------------------------------------------


def test_chaos_gambit_1_children_return_beneath_their_tower() -> None:
    pos = position("B1:S@0103")
    plain = game().apply(pos, Move("B1", H("0003"))).state
    gambit = game(chaos_gambit_1=True).apply(pos, Move("B1", H("0003")))
    assert plain.lost == ((BORG, "B1"),) and plain.reserve(BORG) == ()
    assert gambit.state.lost == () and gambit.state.reserve(BORG) == ("B1",)
    assert [e.kind for e in gambit.events] == ["lost"] and "Tower" in gambit.events[0].text
    back = game(chaos_gambit_1=True).apply(gambit.state, EndMovement(BORG), rolls=[6]).state
    assert back.child("B1") == Child("B1", BORG, F, H("0105"))


def test_chaos_gambit_2_the_universe_is_curved() -> None:
    plain, curved = game(), game(chaos_gambit_2=True)
    # A Blade running east along row 3 from 0703: 0803, 0903, then it comes back in at the
    # west end of the same row, 0103, 0203, 0303.
    pos = position("B1:B@0703")
    assert plain.verdict(pos, Move("B1", H("1003"))).legal  # off the grid: lost
    assert curved.verdict(pos, Move("B1", H("1003"))).code != "ok"
    assert curved.verdict(pos, Move("B1", H("0303"))).legal
    step = curved.apply(pos, Move("B1", H("0303")))
    assert step.state.child("B1").hex == H("0303") and step.state.lost == ()
    # Nothing is ever lost to Chaos: no Move of a curved game leaves the map.
    pos = position("B1:F@0101 B2:S@0909 B3:B@0505")
    assert all(curved.board.on_map(a.to) for a in curved.legal_actions(pos) if isinstance(a, Move))
    # A Stone on the west edge steps west and reappears on the east edge.
    assert "0903" in destinations(curved, position("B1:S@0103"), "B1")


def test_chaos_gambit_2_leaving_an_end_comes_back_at_the_opposite_end() -> None:
    """Hexes point north, so a being leaves the north end heading north-east or north-west.
    It comes back in at the south end, in the column it was heading into, not at the far end
    of its own slanting line (which would be on a side, or in another column)."""
    curved = game(chaos_gambit_2=True)
    pos = position("B1:S@0401")
    # 0401's north-west and north-east neighbours would be in columns 3 and 4 of row 0
    assert {"0309", "0409"} <= destinations(curved, pos, "B1")
    assert "0809" not in destinations(curved, pos, "B1")  # the far end of the south-east line
    step = curved.apply(pos, Move("B1", H("0309")))
    assert step.state.child("B1").hex == H("0309") and step.state.lost == ()
    # and back: heading south-east from the south end's 0309 leads to column 3 of the north end
    assert "0301" in destinations(curved, position("B1:S@0309"), "B1")


def test_chaos_gambit_2_a_blade_may_come_round_to_its_own_hex() -> None:
    # A one-row world of three hexes. A Blade on 0101 with three friends there (a full stack)
    # running NE leaves the grid at once and comes back into its own hex, five times over: it
    # ends where it started, and does not count itself against the stacking limit. Running E it
    # goes 0201, 0301, 0101, 0201, 0301.
    curved = game("size 3 1\nrow 01 . . .\n", towers=False, chaos_gambit_2=True)
    pos = position("B1:B@0101 B2:S@0101 B3:S@0101 B4:S@0101", borg_god=None, chez_god=None, towers=())
    assert destinations(curved, pos, "B1") == {"0101", "0201", "0301"}
    step = curved.apply(pos, Move("B1", H("0301")))
    assert step.state.child("B1").hex == H("0301") and step.rolls_used == ()


def test_chaos_gambit_2_off_grid_hexes_are_refused_not_crashed_on() -> None:
    curved = game(chaos_gambit_2=True)
    pos = position("B1:F@0103")
    assert curved.verdict(pos, Move("B1", H("0903"))).legal  # west, back in at the east end
    for to in ("0003", "-1,3"):
        assert curved.verdict(pos, Move("B1", H(to))).code == "unreachable"
    # A path cannot be stated across the curved edge: its hexes must touch.
    assert curved.verdict(pos, Move("B1", H("0903"), (H("0003"), H("0903")))).code == "bad-path"


# -- Non-aligned Towers of Balance ---------------------------------------------------------------------


@pytest.mark.parametrize(("roll", "tower"), [(1, "0105"), (3, "0105"), (5, "0105"), (2, "0905"), (4, "0905"), (6, "0905")])
def test_non_aligned_towers(roll: int, tower: str) -> None:
    g = game(non_aligned_towers=True)
    pos = position("B1:S@0303", towers=(), under_tower=((BORG, "B2"),))
    step = g.apply(pos, EndMovement(BORG), rolls=[roll, 3])
    assert step.rolls_used == (roll, 3)
    assert step.state.child("B2") == Child("B2", BORG, B, H(tower))
    assert [e.kind for e in step.events] == ["roll", "reinforcement", "turn"]


def test_non_aligned_towers_have_no_owner_at_set_up() -> None:
    g = OneWorld(OneWorldOptions(non_aligned_towers=True))
    pos = g.apply(g.initial_state(), example_setup(g.board, g.options, g.initial_state(), BORG)).state
    assert setup_step(g.options, pos) == ("setup", CHEZ)
    assert g.verdict(pos, ChooseTower(CHEZ, H("1412"))).code == "not-setup"


# -- God Powers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "action", "changes", "code"),
    [
        ({}, GodTransform(BORG, "B1", F), {}, "option-off"),
        ({"god_powers": 1}, GodTransform(BORG, "B1", F), {}, "ok"),
        ({"god_powers": 1}, GodTransform(BORG, "B1", S), {}, "same-aspect"),
        ({"god_powers": 1}, GodTransform(BORG, "C1", F), {}, "unknown-piece"),
        ({"god_powers": 1}, GodTransform(BORG, "B2", F), {}, "in-combat"),  # B2 shares 0707 with C1
        ({"god_powers": 1}, GodTransform(CHEZ, "C1", F), {}, "not-your-turn"),
        ({"god_powers": 1}, GodTransform(BORG, "B1", F), {"god_transforms_used": 1}, "power-used"),
        ({"borg_god_powers": 2}, GodTransform(BORG, "B1", F), {"god_transforms_used": 1}, "ok"),
        ({"chez_god_powers": 1}, GodTransform(BORG, "B1", F), {}, "option-off"),
    ],
)
def test_god_powers_verdicts(options: dict[str, Any], action: GodTransform, changes: dict[str, Any], code: str) -> None:
    g = game(**options)
    pos = position("B1:S@0303 B2:S@0707 C1:B@0707", **changes)
    assert g.verdict(pos, action).code == code


def test_god_powers_change_a_childs_aspect_and_are_listed() -> None:
    g = game(god_powers=1)
    pos = position("B1:S@0303 B2:S@0707 C1:B@0707")
    listed = [a for a in g.legal_actions(pos) if isinstance(a, GodTransform)]
    assert listed == [GodTransform(BORG, "B1", B), GodTransform(BORG, "B1", F)]
    step = g.apply(pos, GodTransform(BORG, "B1", B))
    assert step.state.child("B1").aspect is B and step.state.god_transforms_used == 1
    assert [e.kind for e in step.events] == ["power"]
    assert not any(isinstance(a, GodTransform) for a in g.legal_actions(step.state))
    # A transformed child moves as its new aspect: a Blade runs five hexes.
    assert "0803" in destinations(g, step.state, "B1")


def test_the_borg_scenario_one_life_two_powers() -> None:
    o = OneWorldOptions.from_json({"borg_lives": 1, "borg_god_powers": 2})
    assert (o.lives(BORG), o.lives(CHEZ), o.god_powers(BORG), o.god_powers(CHEZ)) == (1, 3, 2, 0)

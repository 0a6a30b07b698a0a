"""Battle Grounds: set-up, movement, battles, powers, decisions and the end of the game.

Board reminders (basic board, rows counted from the north edge, default roster):
rows 1-3 are north's, red/orange/yellow/green/blue/purple from file a to f; row 4 is white;
rows 5-7 are south's, purple/blue/green/yellow/orange/red from file a to f. Default stats:
red Fighting Skills, orange Energy Projection, yellow Durability, green Speed, blue Strength,
purple Intelligence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.battle_grounds import (
    HIDDEN,
    BattleGrounds,
    BattleMode,
    ChooseStat,
    FollowUpKind,
    Hypnotize,
    Move,
    Pass,
    PickDie,
    Place,
    ReadDie,
    Skip,
    Stat,
    State,
    Swap,
    parse_label,
)
from rules.battle_grounds.setup import default_placements
from rules.errors import IllegalActionError, RollNeededError
from rules.registry import get_game

BASIC = BattleGrounds()
ADVANCED = BattleGrounds.from_options({"board": "advanced"})
RECORD = Path(__file__).parents[2] / "tabletop/data/records/battle-grounds.jsonl"


def sq(text: str):  # type: ignore[no-untyped-def]
    return parse_label(text)


def mv(piece: str, a: str, b: str) -> Move:
    return Move(piece, sq(a), sq(b))


def pos(game: BattleGrounds, board: dict[str, str], to_play: str = "south", **more: Any) -> State:
    return game.state_from_json({"phase": "play", "to_play": to_play, "board": board, **more})


def kinds(step) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.kind for e in step.events]


def code(game: BattleGrounds, state: State, action: Any) -> str:
    return game.verdict(state, action).code


# -- registry and boards -----------------------------------------------------------------
def test_registry_builds_the_engine() -> None:
    game = get_game("battle-grounds", {"board": "advanced"})
    assert isinstance(game, BattleGrounds)
    assert (game.table.board.width, game.table.board.height) == (8, 8)


@pytest.mark.parametrize(
    "game, square, colour",
    [
        (BASIC, "a1", "red"),
        (BASIC, "f3", "purple"),
        (BASIC, "c4", "white"),
        (BASIC, "a7", "purple"),
        (BASIC, "f5", "red"),
        (ADVANCED, "d2", "multicolour"),
        (ADVANCED, "e7", "multicolour"),
        (ADVANCED, "c1", "yellow"),
        (ADVANCED, "f1", "green"),
        (ADVANCED, "h8", "red"),
        (ADVANCED, "a5", "white"),
    ],
)
def test_board_colours(game: BattleGrounds, square: str, colour: str) -> None:
    assert game.table.board.colour(sq(square)).value == colour


def test_basic_board_is_the_printed_one() -> None:
    assert BASIC.table.board.diagram().splitlines() == [
        "ROYGBP", "ROYGBP", "ROYGBP", "WWWWWW", "PBGYOR", "PBGYOR", "PBGYOR",
    ]  # fmt: skip


# -- set-up --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "piece, square, expected",
    [
        ("silver-surfer", "c7", "ok"),  # starred III square
        ("silver-surfer", "d7", "ok"),
        ("silver-surfer", "a7", "cosmic-needs-star"),  # a level II square
        ("thor", "c7", "ok"),  # a starred square also takes an ordinary III
        ("iron-man", "a7", "ok"),
        ("iron-man", "c7", "wrong-level"),
        ("wolverine", "a6", "ok"),
        ("wolverine", "c6", "wrong-level"),  # S/A square
        ("falcon", "d6", "ok"),
        ("falcon", "b6", "wrong-level"),
        ("wolverine", "a5", "not-setup-square"),  # third row: not a starting square
        ("wolverine", "a2", "not-setup-square"),  # north's rows
        ("thanos", "d1", "ok"),
        ("thanos", "c7", "not-setup-square"),
        ("batman", "a6", "unknown-piece"),
        ("wolverine", "z9", "off-board"),
    ],
)
def test_setup_placement_rules(piece: str, square: str, expected: str) -> None:
    assert code(BASIC, BASIC.initial_state(), Place(piece, sq(square))) == expected


def test_setup_keeps_the_last_star_for_the_cosmic_figure() -> None:
    state = BASIC.apply(BASIC.initial_state(), Place("thor", sq("c7"))).state
    assert code(BASIC, state, Place("hulk", sq("d7"))) == "star-reserved"
    assert code(BASIC, state, Place("silver-surfer", sq("d7"))) == "ok"
    state = BASIC.apply(state, Place("silver-surfer", sq("d7"))).state
    assert code(BASIC, state, Place("thor", sq("a7"))) == "already-placed"
    assert code(BASIC, state, Place("iron-man", sq("c7"))) == "occupied"
    assert code(BASIC, state, mv("thor", "c7", "c5")) == "wrong-phase"


def test_setup_count_of_legal_placements() -> None:
    # Per side on the basic board (default roster: 6 I, 2 S/A, 4 II, 3 III + Cosmic):
    # 6 I figures x 4 I squares = 24, 2 S/A x 2 = 4, 4 II x 4 = 16, 3 III x 2 starred
    # squares = 6 (both stars free, so neither is reserved yet), Cosmic x 2 stars = 2.
    # 52 per side, both sides place at once: 104.
    state = BASIC.initial_state()
    assert BASIC.to_move(state) == ("south", "north")
    assert len(BASIC.legal_actions(state)) == 104


def test_setup_completes_into_play() -> None:
    state = BASIC.initial_state()
    places = default_placements(BASIC.table)
    assert len(places) == 24
    for place in places[:-1]:
        state = BASIC.apply(state, place).state
    assert BASIC.to_move(state) == ("north",)
    step = BASIC.apply(state, places[-1])
    assert kinds(step) == ["setup", "phase"]
    assert step.state.phase == "play" and BASIC.to_move(step.state) == ("south",)


def test_first_player_is_an_option() -> None:
    game = BattleGrounds.from_options({"first_player": "north"})
    assert game.to_move(game.lineup()) == ("north",)


def test_advanced_setup_puts_four_level_three_figures_per_side() -> None:
    state = ADVANCED.lineup()
    backs = [ADVANCED.table.spec(state.at[sq(f"{f}8")]).level.value for f in "abcdefgh"]
    fronts = [ADVANCED.table.spec(state.at[sq(f"{f}7")]).level.value for f in "abcdefgh"]
    assert backs == ["II", "II", "III", "Cosmic", "III", "III", "II", "II"]
    assert fronts == ["I", "I", "I", "S/A", "S/A", "I", "I", "I"]


# -- counts of legal actions (perft-style, counted by hand) --------------------------------
def test_count_basic_opening() -> None:
    # South's default basic line-up: front row a6 b6 (I) c6 d6 (S/A) e6 f6 (I), row 5 empty.
    # I figures: a6 -> a5 b5 (2), b6 -> a5 b5 c5 (3), e6 (3), f6 (2) = 10; S/A c6, d6 one
    # step forward each = 2. The back row is walled in by the front row and none of the
    # fielded figures has Swap Powers, Teleport or Hypnotize. Total 12.
    assert len(BASIC.legal_actions(BASIC.lineup())) == 12


def test_count_advanced_opening() -> None:
    # Front row a7 b7 c7 (I) d7 e7 (S/A) f7 g7 h7 (I): I moves 2+3+3+3+3+2 = 16, S/A 2.
    # Nightcrawler (g7, Teleport) may swap with f7, h7, f8, g8, h8 = 5; Rogue (h7, Swap
    # Powers) with any of the 15 other figures, all in the first two rows = 15. Doctor
    # Strange (Hypnotize) has nobody in the Holding Zone. 16 + 2 + 5 + 15 = 38.
    assert len(ADVANCED.legal_actions(ADVANCED.lineup())) == 38


def test_count_middle_game_position() -> None:
    # South: Silver Surfer a7 (III), Jubilee a6 (S/A), Storm b6 (II); north: Rhino c5.
    # Jubilee: a5 only (a7, b6 own; west is off the board) = 1.
    # Storm: N b5 b4 (2), NE c5 attack and stop (1), E c6 d6 (2), SE c7 (1), S b7 (1),
    # NW a5 (1); SW and W are own figures = 8.
    # Silver Surfer: step 1 only b7; step 2 c6 c7; step 3 from c6/c7: b5, c5 (attack),
    # d5, d6, d7 = 1 + 2 + 5 = 8. Total 17.
    state = pos(
        BASIC,
        {"a7": "silver-surfer", "a6": "jubilee", "b6": "storm", "d2": "thanos", "c5": "rhino"},
    )
    actions = BASIC.legal_actions(state)
    assert len(actions) == 17
    assert sum(1 for a in actions if a.piece == "silver-surfer") == 8


# -- movement ----------------------------------------------------------------------------
MOVE_POSITION = {
    "c4": "falcon", "e6": "captain-america", "b6": "iron-man", "d7": "hulk",
    "f7": "silver-surfer", "c7": "jubilee", "a7": "storm",
    "a1": "thanos", "b5": "rhino", "c3": "kraven", "e5": "sandman",
}  # fmt: skip


@pytest.mark.parametrize(
    "piece, a, b, expected",
    [
        # S/A: one square orthogonally
        ("falcon", "c4", "d4", "ok"),
        ("falcon", "c4", "c3", "ok"),  # attack on Kraven
        ("falcon", "c4", "b3", "diagonal-not-allowed"),
        ("falcon", "c4", "c2", "too-far"),
        ("falcon", "c4", "c4", "no-move"),
        # I: one square, diagonals too
        ("captain-america", "e6", "d5", "ok"),
        ("captain-america", "e6", "e5", "ok"),  # attack on Sandman
        ("captain-america", "e6", "f7", "own-figure"),
        ("captain-america", "e6", "e4", "too-far"),
        # II: up to two in one straight line, the square passed over empty
        ("iron-man", "b6", "b5", "ok"),  # attack on Rhino
        ("iron-man", "b6", "b4", "path-blocked"),  # Rhino stands in between
        ("iron-man", "b6", "d4", "ok"),  # diagonal over the empty c5
        ("iron-man", "b6", "d5", "not-straight"),
        ("iron-man", "b6", "b3", "too-far"),
        ("iron-man", "b6", "a7", "own-figure"),
        ("storm", "a7", "a5", "ok"),
        ("storm", "a7", "c5", "path-blocked"),  # own Iron Man on b6
        # III: up to three steps, turning
        ("hulk", "d7", "d4", "ok"),
        ("hulk", "d7", "e5", "ok"),  # attack round Captain America via d6
        ("hulk", "d7", "a4", "path-blocked"),  # the only 3-step way passes Rhino on b5
        ("hulk", "d7", "d3", "too-far"),
        ("hulk", "d7", "g7", "off-board"),
        ("silver-surfer", "f7", "f4", "ok"),  # the Cosmic figure moves as level III
        # who and where
        ("thanos", "a1", "a2", "not-your-turn"),
        ("falcon", "c5", "c6", "wrong-from"),
        ("batman", "a1", "a2", "unknown-piece"),
        ("thor", "c7", "c6", "unknown-piece"),
    ],
)
def test_movement_rules(piece: str, a: str, b: str, expected: str) -> None:
    state = pos(BASIC, MOVE_POSITION)
    verdict = BASIC.verdict(state, mv(piece, a, b))
    assert verdict.code == expected
    assert verdict.message  # every verdict says why
    assert (mv(piece, a, b) in BASIC.legal_actions(state)) == (expected == "ok")


def test_level_three_may_turn_but_not_pass_through_figures() -> None:
    # Hulk on a1 with his own Wolverine on b2: d4 lies three diagonal steps away and the
    # diagonal is the only three-step way, so it is blocked; c4 is reached round b2.
    state = pos(BASIC, {"a1": "hulk", "b2": "wolverine", "f7": "silver-surfer", "f1": "thanos"})
    assert code(BASIC, state, mv("hulk", "a1", "d4")) == "path-blocked"
    assert code(BASIC, state, mv("hulk", "a1", "c4")) == "ok"
    assert code(BASIC, state, mv("hulk", "a1", "d1")) == "ok"


def test_a_plain_move_passes_the_turn() -> None:
    state = BASIC.lineup()
    step = BASIC.apply(state, mv("wolverine", "b6", "b5"))
    assert kinds(step) == ["move", "turn"]
    assert step.state.at[sq("b5")] == "wolverine" and sq("b6") not in step.state.at
    assert BASIC.to_move(step.state) == ("north",) and step.state.turn == 2
    with pytest.raises(IllegalActionError) as info:
        BASIC.apply(step.state, mv("captain-america", "a6", "a5"))
    assert info.value.verdict.code == "not-your-turn"


# -- battles (golden playthroughs) ---------------------------------------------------------
def test_colour_square_battle_with_a_tie() -> None:
    # Sabretooth stands on the red f5: Fighting Skills, Wolverine 6 against Sabretooth 5.
    state = pos(
        BASIC, {"e4": "wolverine", "f5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"}
    )
    step = BASIC.apply(state, mv("wolverine", "e4", "f5"), [3, 4, 5, 2])
    assert kinds(step) == ["combat", "combat", "combat-round", "combat-round", "capture", "phase"]
    assert step.events[1].detail("stat") == "fighting-skills"
    assert [e.detail("attacker_total") for e in step.events[2:4]] == [9, 11]
    assert [e.detail("defender_total") for e in step.events[2:4]] == [9, 7]
    assert step.events[4].detail("margin") == 4
    after = step.state
    assert after.at[sq("f5")] == "wolverine" and sq("e4") not in after.at
    assert after.holding_of("south") == ("sabretooth",)
    assert BASIC.to_move(after) == ("north",)  # the loser may place a die
    step = BASIC.apply(after, PickDie("north", "Master Plan"))
    assert kinds(step) == ["power", "turn"]
    assert step.state.dice_zone_of("north") == {"Master Plan"}
    assert BASIC.to_move(step.state) == ("north",) and step.state.to_play == "north"


def test_battle_needs_its_rolls() -> None:
    state = pos(
        BASIC, {"e4": "wolverine", "f5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"}
    )
    with pytest.raises(RollNeededError):
        BASIC.apply(state, mv("wolverine", "e4", "f5"), [3, 4, 5])


@pytest.mark.parametrize(("rule", "rolls", "chooser"), [
    ("lower-chooses", [2, 5], "south"), ("lower-chooses", [5, 2], "north"),
    ("roll-off", [2, 5], "north"), ("roll-off", [5, 2], "south"),
])
def test_white_square_roll_off_chooser_follows_the_option(rule: str, rolls: list[int], chooser: str) -> None:
    """On white, the lower roll-off die chooses by default (Battle Dice's own rule, which
    the rules keep for white squares); ``white_square_rule`` ``roll-off`` gives it to the higher."""
    game = BattleGrounds.from_options({"white_square_rule": rule})
    state = pos(game, {"c6": "iron-man", "c4": "venom", "a7": "silver-surfer", "a1": "thanos"})
    step = game.apply(state, mv("iron-man", "c6", "c4"), rolls)
    battle = step.state.battle
    assert battle is not None and battle.mode is BattleMode.ROLL_OFF and battle.chooser == chooser
    assert game.to_move(step.state) == (chooser,)
    assert f"{chooser} chooses the battle stat" in step.events[-1].text
    other = "north" if chooser == "south" else "south"
    assert code(game, step.state, ChooseStat(other, Stat.SPEED)) == "not-your-turn"


def test_white_square_roll_off_lower_die_chooses_and_defender_wins() -> None:
    # Iron Man (green c6) attacks Venom on the white c4: roll-off 5 against 2, north (the
    # lower die) chooses.
    state = pos(BASIC, {"c6": "iron-man", "c4": "venom", "a7": "silver-surfer", "a1": "thanos"})
    step = BASIC.apply(state, mv("iron-man", "c6", "c4"), [5, 2])
    assert kinds(step) == ["combat", "roll"]
    battle = step.state.battle
    assert battle is not None and battle.mode is BattleMode.ROLL_OFF and battle.chooser == "north"
    assert BASIC.to_move(step.state) == ("north",)
    assert code(BASIC, step.state, ChooseStat("south", Stat.SPEED)) == "not-your-turn"
    assert code(BASIC, step.state, mv("thanos", "a1", "a2")) == "wrong-phase"
    assert len(BASIC.legal_actions(step.state)) == 6
    # Durability 5 each; 5 + 1 against 5 + 4: Venom wins by 3 and, having Super Sense,
    # lets north read a south die; Iron Man goes to north's Holding Zone.
    step = BASIC.apply(step.state, ChooseStat("north", Stat.DURABILITY), [1, 4])
    assert kinds(step) == ["combat", "combat-round", "capture", "power", "phase"]
    after = step.state
    assert after.holding_of("north") == ("iron-man",)
    assert after.at[sq("c4")] == "venom" and sq("c6") not in after.at
    assert [p.kind for p in after.pending] == [FollowUpKind.READ_DIE, FollowUpKind.LOST_DIE]
    assert BASIC.die_rule(after, "north", "south", "Assemble") == HIDDEN.value
    step = BASIC.apply(after, ReadDie("north", "Assemble"))
    assert kinds(step) == ["power", "phase"]
    assert "+1" in step.events[0].text
    assert BASIC.die_rule(step.state, "north", "south", "Assemble").startswith("Battle total +1")
    assert code(BASIC, step.state, ReadDie("south", "Assemble")) == "wrong-phase"
    step = BASIC.apply(step.state, Skip("south"))
    assert kinds(step) == ["phase", "turn"]
    assert step.state.to_play == "north" and step.state.dice_zone_of("south") == frozenset()


def test_both_on_white_each_chooses_in_secret() -> None:
    state = pos(
        BASIC, {"a4": "captain-america", "b4": "bullseye", "a7": "silver-surfer", "a1": "thanos"}
    )
    step = BASIC.apply(state, mv("captain-america", "a4", "b4"))  # no roll-off
    assert kinds(step) == ["combat", "phase"]
    assert BASIC.to_move(step.state) == ("south", "north")
    step = BASIC.apply(step.state, ChooseStat("south", Stat.FIGHTING_SKILLS))
    waiting = step.state
    assert BASIC.to_move(waiting) == ("north",)
    assert code(BASIC, waiting, ChooseStat("south", Stat.SPEED)) == "not-your-turn"
    # north must not learn south's choice; south and the referee see it
    assert BASIC.view(waiting, "north").battle.attacker_stat is HIDDEN  # type: ignore[union-attr]
    assert BASIC.view(waiting, "south").battle.attacker_stat is Stat.FIGHTING_SKILLS  # type: ignore[union-attr]
    assert BASIC.view(waiting, None) == waiting
    assert BASIC.state_to_json(BASIC.view(waiting, "north"))["battle"]["attacker_stat"] == "hidden"
    step = BASIC.apply(waiting, ChooseStat("north", Stat.INTELLIGENCE), [6, 1])
    # Captain America FS 6 + 6 = 12 against Bullseye Intelligence 2 + 1 = 3
    assert kinds(step) == ["combat", "combat-round", "capture", "phase"]
    assert step.events[0].detail("attacker_stat") == "fighting-skills"
    assert step.events[0].detail("defender_stat") == "intelligence"
    assert (
        step.events[1].detail("attacker_total") == 12
        and step.events[1].detail("defender_total") == 3
    )
    assert step.state.at[sq("b4")] == "captain-america"


def test_roll_off_tie_lets_each_choose() -> None:
    state = pos(
        BASIC, {"c5": "wolverine", "c4": "sabretooth", "a7": "silver-surfer", "a1": "thanos"}
    )
    step = BASIC.apply(state, mv("wolverine", "c5", "c4"), [4, 4])
    assert step.state.battle is not None and step.state.battle.mode is BattleMode.EACH_CHOOSES


def test_stat_die_rule_reads_the_higher_roll() -> None:
    game = BattleGrounds.from_options({"white_square_rule": "stat-die"})
    state = pos(
        game, {"c5": "wolverine", "c4": "sabretooth", "a7": "silver-surfer", "a1": "thanos"}
    )
    # roll-off 6 against 3: face 6 is the sixth stat, Fighting Skills; then 6+2 against 5+1
    step = game.apply(state, mv("wolverine", "c5", "c4"), [6, 3, 2, 1])
    assert kinds(step) == ["combat", "roll", "combat-round", "capture", "phase"]
    assert step.events[1].detail("stat") == "fighting-skills"
    assert (
        step.events[2].detail("attacker_total") == 8
        and step.events[2].detail("defender_total") == 6
    )


def test_all_colour_square_defender_chooses_and_far_end_release() -> None:
    # Advanced board: Green Goblin on the all-colour d1 (north's back row). Hulk attacks from
    # c3 (two steps); north chooses Intelligence (Hulk 1, Goblin 4); 1 + 6 against 4 + 2.
    state = pos(
        ADVANCED,
        {
            "c3": "hulk",
            "d1": "green-goblin",
            "a8": "silver-surfer",
            "h1": "thanos",
            "a7": "captain-america",
        },
        holding={"north": ["falcon"]},
    )
    step = ADVANCED.apply(state, mv("hulk", "c3", "d1"))
    assert kinds(step) == ["combat", "phase"]
    assert step.state.battle is not None and step.state.battle.chooser == "north"
    assert ADVANCED.to_move(step.state) == ("north",)
    step = ADVANCED.apply(step.state, ChooseStat("north", Stat.INTELLIGENCE), [6, 2])
    assert kinds(step) == ["combat", "combat-round", "capture", "phase"]
    after = step.state
    assert after.at[sq("d1")] == "hulk"
    # Hulk reached the far end: south frees Falcon first, then north may place a die
    assert [p.kind for p in after.pending] == [FollowUpKind.RELEASE, FollowUpKind.LOST_DIE]
    assert code(ADVANCED, after, Place("falcon", sq("a7"))) == "occupied"
    assert code(ADVANCED, after, Place("falcon", sq("a5"))) == "not-staging-square"
    assert code(ADVANCED, after, Place("captain-america", sq("b8"))) == "not-held"
    assert code(ADVANCED, after, Skip("south")) == "wrong-phase"  # a release is not optional
    step = ADVANCED.apply(after, Place("falcon", sq("b8")))
    assert kinds(step) == ["reinforcement", "phase"]
    assert step.state.at[sq("b8")] == "falcon"
    assert step.state.holding_of("north") == () and step.state.holding_of("south") == (
        "green-goblin",
    )


def test_far_end_release_after_a_plain_move_and_only_on_the_advanced_board() -> None:
    board = {"b2": "wolverine", "a8": "silver-surfer", "h1": "thanos"}
    state = pos(ADVANCED, board, holding={"north": ["jubilee"]})
    step = ADVANCED.apply(state, mv("wolverine", "b2", "b1"))
    assert kinds(step) == ["move", "phase"]
    assert ADVANCED.to_move(step.state) == ("south",)
    assert len(ADVANCED.legal_actions(step.state)) == 15  # 16 staging squares, a8 taken
    step = ADVANCED.apply(step.state, Place("jubilee", sq("h7")))
    assert kinds(step) == ["reinforcement", "turn"]
    # the basic board has no far-end release unless the option turns it on
    basic_state = pos(
        BASIC,
        {"b2": "wolverine", "a7": "silver-surfer", "f1": "thanos"},
        holding={"north": ["jubilee"]},
    )
    assert kinds(BASIC.apply(basic_state, mv("wolverine", "b2", "b1"))) == ["move", "turn"]
    with_release = BattleGrounds.from_options({"far_end_release": True})
    assert kinds(with_release.apply(basic_state, mv("wolverine", "b2", "b1"))) == ["move", "phase"]
    # nothing to free: no decision owed
    free_state = pos(ADVANCED, board)
    assert kinds(ADVANCED.apply(free_state, mv("wolverine", "b2", "b1"))) == ["move", "turn"]


def test_release_comes_before_the_return_of_a_hypnotized_figure() -> None:
    # Advanced board: north has hypnotized south's Wolverine, which stands on b1 (orange,
    # Energy Projection 1 each). Hulk beats it 1 + 5 to 1 + 1 and reaches the far end while
    # north holds south's Falcon: south frees Falcon, then puts Wolverine back, then north
    # may place a die.
    state = pos(
        ADVANCED,
        {"b3": "hulk", "b1": "wolverine", "a8": "silver-surfer", "h1": "thanos"},
        hypnotized=["wolverine"],
        holding={"north": ["falcon"]},
    )
    step = ADVANCED.apply(state, mv("hulk", "b3", "b1"), [5, 1])
    after = step.state
    assert [(p.kind, p.player) for p in after.pending] == [
        (FollowUpKind.RELEASE, "south"),
        (FollowUpKind.RETURN, "south"),
        (FollowUpKind.LOST_DIE, "north"),
    ]
    assert code(ADVANCED, after, mv("silver-surfer", "a8", "a7")) == "wrong-phase"
    assert code(ADVANCED, after, Place("wolverine", sq("b8"))) == "not-held"  # release first
    step = ADVANCED.apply(after, Place("falcon", sq("b8")))
    assert code(ADVANCED, step.state, Place("falcon", sq("c8"))) == "wrong-figure"
    step = ADVANCED.apply(step.state, Place("wolverine", sq("c8")))
    assert step.state.at[sq("c8")] == "wolverine" and step.state.hypnotized == frozenset()
    assert ADVANCED.table.controller(step.state, "wolverine") == "south"
    assert ADVANCED.to_move(step.state) == ("north",)


def test_hypnotize_and_the_return_home() -> None:
    state = pos(
        BASIC,
        {
            "d7": "doctor-strange",
            "f7": "silver-surfer",
            "a1": "thanos",
            "a5": "bullseye",
            "c2": "emma-frost",
        },
        holding={"south": ["rhino"]},
    )
    step = BASIC.apply(state, Hypnotize("doctor-strange", "rhino", sq("a6")))
    assert kinds(step) == ["power", "turn"]
    state = step.state
    assert state.hypnotized == {"rhino"} and state.at[sq("a6")] == "rhino"
    assert state.holding_of("south") == ()
    assert BASIC.table.controller(state, "rhino") == "south"
    # north's Bullseye attacks the hypnotized Rhino on the purple a6 (Intelligence 2 vs 1)
    step = BASIC.apply(state, mv("bullseye", "a5", "a6"), [4, 2])
    assert kinds(step) == ["combat", "combat", "combat-round", "capture", "power", "phase"]
    after = step.state
    assert after.hypnotized == frozenset() and "rhino" not in after.where
    assert after.holding_of("north") == ()  # a hypnotized loser goes home, not to a Holding Zone
    # return first, then Telepathy (Emma Frost on c2 and a win by 3), then south's die
    assert [p.kind for p in after.pending] == [
        FollowUpKind.RETURN,
        FollowUpKind.TELEPATHY,
        FollowUpKind.LOST_DIE,
    ]
    assert code(BASIC, after, Place("rhino", sq("a4"))) == "not-coloured-square"  # white
    assert code(BASIC, after, Place("rhino", sq("c2"))) == "occupied"
    assert code(BASIC, after, Place("rhino", sq("a7"))) == "not-coloured-square"  # south's half
    assert code(BASIC, after, Place("thanos", sq("b1"))) == "wrong-figure"
    assert code(BASIC, after, Skip("north")) == "wrong-phase"
    assert len(BASIC.legal_actions(after)) == 16  # 18 squares of north's half, a1 and c2 taken
    step = BASIC.apply(after, Place("rhino", sq("f2")))
    assert kinds(step) == ["reinforcement", "phase"]
    step = BASIC.apply(step.state, PickDie("north", "Dark Pact"))
    assert kinds(step) == ["power", "phase"]
    step = BASIC.apply(step.state, PickDie("south", "Guard"))
    assert kinds(step) == ["power", "turn"]
    assert step.state.dice_zone == (frozenset({"Guard"}), frozenset({"Dark Pact"}))
    assert step.state.to_play == "south"


def test_dice_zone_bonuses_and_power_bonuses_join_the_total() -> None:
    # Falcon (e4) attacks Sabretooth on the orange e5 (Energy Projection, 1 each). Falcon's
    # Flight adds 1 when attacking and Assemble in south's Dice Zone adds 1: 3 + die
    # against 1 + die.
    state = pos(
        BASIC,
        {"e4": "falcon", "e5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"},
        dice_zone={"south": ["Assemble"]},
    )
    step = BASIC.apply(state, mv("falcon", "e4", "e5"), [1, 3, 2, 1])
    totals = [
        (e.detail("attacker_total"), e.detail("defender_total"))
        for e in step.events
        if e.kind == "combat-round"
    ]
    assert totals == [(4, 4), (5, 2)]  # 3 + 1 ties 1 + 3; then 3 + 2 beats 1 + 1
    assert step.state.at[sq("e5")] == "falcon"


def test_lost_die_swaps_when_the_zone_is_full() -> None:
    full = ["Assemble", "Heroic Stand", "Team-Up", "Quick Strike", "Guard"]
    state = pos(
        BASIC,
        {"e4": "wolverine", "e5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"},
        dice_zone={"south": full},
        to_play="north",
    )
    # Sabretooth attacks Wolverine on the white e4 from the orange e5: roll-off 1-6, north
    # chooses Strength (4 each, plus south's +2 from two dice): 4 + 1 vs 6 + 5.
    step = BASIC.apply(state, mv("sabretooth", "e5", "e4"), [1, 6])
    step = BASIC.apply(step.state, ChooseStat("north", Stat.STRENGTH), [1, 5])
    after = step.state
    assert [p.kind for p in after.pending] == [FollowUpKind.LOST_DIE]
    assert after.pending[0].player == "north"
    assert after.holding_of("south") == ("sabretooth",)
    # north's zone is empty, so no swap is needed or allowed
    assert code(BASIC, after, PickDie("north", "Scheme", "Ambush")) == "swap-not-allowed"
    assert code(BASIC, after, PickDie("north", "Assemble")) == "unknown-die"
    assert code(BASIC, after, PickDie("south", "Rally")) == "not-your-turn"
    # a full zone: the south loser would have to swap
    south_loses = pos(
        BASIC,
        {"e4": "wolverine", "e5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"},
        dice_zone={"south": full},
        pending=[{"kind": "lost-die", "player": "south"}],
    )
    assert code(BASIC, south_loses, PickDie("south", "Rally")) == "dice-zone-full"
    assert code(BASIC, south_loses, PickDie("south", "Rally", "Rally")) == "not-in-dice-zone"
    assert code(BASIC, south_loses, PickDie("south", "Guard", "Assemble")) == "die-in-zone"
    assert code(BASIC, south_loses, PickDie("south", "Rally", "Guard")) == "ok"
    # one free die x five to swap out, or skip: 6
    assert len(BASIC.legal_actions(south_loses)) == 6
    step = BASIC.apply(south_loses, PickDie("south", "Rally", "Guard"))
    assert step.state.dice_zone_of("south") == {
        "Assemble",
        "Heroic Stand",
        "Team-Up",
        "Quick Strike",
        "Rally",
    }


def test_dice_zone_can_be_switched_off() -> None:
    game = BattleGrounds.from_options({"dice_zone": False})
    state = pos(
        game, {"e4": "wolverine", "f5": "sabretooth", "a7": "silver-surfer", "a1": "thanos"}
    )
    step = game.apply(state, mv("wolverine", "e4", "f5"), [5, 2])
    assert kinds(step)[-1] == "turn" and step.state.pending == ()


@pytest.mark.parametrize("won_by, telepathy", [(2, False), (3, True)])
def test_telepathy_needs_a_win_by_more_than_two(won_by: int, telepathy: bool) -> None:
    # Professor X waits in south's Staging Zone (a7); Wolverine attacks Bullseye on the red
    # a2: Fighting Skills 6 each, so the dice alone set the margin.
    state = pos(
        BASIC,
        {
            "a7": "professor-x",
            "a3": "wolverine",
            "a2": "bullseye",
            "f7": "silver-surfer",
            "f1": "thanos",
        },
    )
    step = BASIC.apply(state, mv("wolverine", "a3", "a2"), [1 + won_by, 1])
    assert (FollowUpKind.TELEPATHY in [p.kind for p in step.state.pending]) == telepathy


def test_telepathy_only_from_the_staging_zone() -> None:
    state = pos(
        BASIC,
        {
            "a4": "professor-x",
            "a3": "wolverine",
            "a2": "bullseye",
            "f7": "silver-surfer",
            "f1": "thanos",
        },
    )
    step = BASIC.apply(state, mv("wolverine", "a3", "a2"), [6, 1])
    assert FollowUpKind.TELEPATHY not in [p.kind for p in step.state.pending]


# -- powers used as the turn's action -----------------------------------------------------
POWER_POSITION = {
    "c4": "rogue", "e5": "nightcrawler", "d7": "doctor-strange", "e6": "wolverine",
    "a7": "black-widow", "f7": "silver-surfer", "c2": "hulk",
    "a1": "thanos", "b1": "mandarin", "e4": "rhino",
}  # fmt: skip


@pytest.mark.parametrize(
    "action, expected",
    [
        (Swap("rogue", "black-widow", "Swap Powers"), "ok"),
        (Swap("rogue", "silver-surfer", "Swap Powers"), "ok"),
        (Swap("rogue", "wolverine", "Swap Powers"), "ok"),  # e6 is in the first two rows
        (Swap("rogue", "hulk", "Swap Powers"), "not-in-staging-zone"),
        (Swap("rogue", "rhino", "Swap Powers"), "not-friendly"),
        (Swap("rogue", "rogue", "Swap Powers"), "swap-with-self"),
        (Swap("rogue", "black-widow", "Teleport"), "lacks-power"),
        (Swap("rogue", "thor", "Swap Powers"), "unknown-piece"),
        (Swap("nightcrawler", "wolverine", "Teleport"), "ok"),
        (Swap("nightcrawler", "black-widow", "Teleport"), "not-adjacent"),
        (Swap("nightcrawler", "wolverine", "Flight"), "unknown-power"),
        (Swap("mandarin", "thanos", "Teleport"), "not-your-turn"),
        (Hypnotize("doctor-strange", "sabretooth", sq("b6")), "ok"),
        (Hypnotize("doctor-strange", "sabretooth", sq("d7")), "occupied"),
        (Hypnotize("doctor-strange", "sabretooth", sq("b4")), "not-staging-square"),
        (Hypnotize("doctor-strange", "rhino", sq("b6")), "not-held"),
        (Hypnotize("rogue", "sabretooth", sq("b6")), "lacks-power"),
        (Pass("south"), "pass-not-allowed"),
        (Pass("north"), "not-your-turn"),
    ],
)
def test_power_rules(action: Any, expected: str) -> None:
    state = pos(BASIC, POWER_POSITION, holding={"south": ["sabretooth"]})
    assert code(BASIC, state, action) == expected
    assert (action in BASIC.legal_actions(state)) == (expected == "ok")


def test_swap_exchanges_squares_and_ends_the_turn() -> None:
    state = pos(BASIC, POWER_POSITION)
    step = BASIC.apply(state, Swap("nightcrawler", "wolverine", "Teleport"))
    assert kinds(step) == ["power", "turn"]
    assert step.events[0].detail("power") == "Teleport"
    assert step.state.at[sq("e5")] == "wolverine" and step.state.at[sq("e6")] == "nightcrawler"


# -- the end of the game -----------------------------------------------------------------
def test_capturing_the_cosmic_figure_wins() -> None:
    state = pos(BASIC, {"c3": "thor", "c2": "thanos", "a7": "silver-surfer"})
    # c2 is yellow: Durability, Thor 6 + 3 against Thanos 6 + 1
    step = BASIC.apply(state, mv("thor", "c3", "c2"), [3, 1])
    assert kinds(step) == ["combat", "combat", "combat-round", "capture", "victory"]
    end = step.state
    outcome = BASIC.outcome(end)
    assert outcome is not None and outcome.winner == "south" and "Thanos" in outcome.reason
    assert BASIC.to_move(end) == () and BASIC.legal_actions(end) == []
    assert code(BASIC, end, mv("thor", "c2", "c3")) == "game-over"


def test_a_cosmic_attacker_that_loses_loses_the_game() -> None:
    state = pos(BASIC, {"c3": "silver-surfer", "c2": "thanos"})
    step = BASIC.apply(state, mv("silver-surfer", "c3", "c2"), [1, 6])
    assert BASIC.outcome(step.state).winner == "north"  # type: ignore[union-attr]
    assert step.state.holding_of("north") == ("silver-surfer",)


def test_turn_limit_draws() -> None:
    game = BattleGrounds.from_options({"turn_limit": 2})
    state = game.lineup()
    state = game.apply(state, mv("wolverine", "b6", "b5")).state
    step = game.apply(state, mv("bullseye", "b2", "b3"))
    assert kinds(step) == ["move", "draw"]
    outcome = game.outcome(step.state)
    assert outcome is not None and outcome.draw


def _crowded_game() -> BattleGrounds:
    """A roster whose south side fills all 42 squares of the basic board, so no south
    figure can move; north fields its figures but none is on the board."""
    stats = {s.value: 3 for s in Stat}
    levels = ["Cosmic", "III"] + ["II"] * 4 + ["I"] * 4 + ["S/A"] * 32
    south = [{"id": f"s{i}", "level": lv, "stats": stats} for i, lv in enumerate(levels)]
    north = [{"id": f"n{i}", "level": lv, "stats": stats} for i, lv in enumerate(levels[:12])]
    roster = {"sides": {"south": {"figures": south}, "north": {"figures": north}}}
    return BattleGrounds.from_options({"roster": roster})


def test_pass_only_when_stuck_and_two_passes_draw() -> None:
    game = _crowded_game()
    board = {
        f"{f}{r}": f"s{i}" for i, (f, r) in enumerate((f, r) for r in range(1, 8) for f in "abcdef")
    }
    state = pos(game, board)
    assert game.legal_actions(state) == [Pass("south")]
    step = game.apply(state, Pass("south"))
    assert kinds(step) == ["turn", "turn"]
    assert game.legal_actions(step.state) == [Pass("north")]
    step = game.apply(step.state, Pass("north"))
    assert kinds(step) == ["turn", "draw"]
    outcome = game.outcome(step.state)
    assert outcome is not None and outcome.draw and "neither" in outcome.reason


# -- notation and the bundled record ------------------------------------------------------
def test_notation_names_figures() -> None:
    assert BASIC.notation(mv("hulk", "d7", "d4")) == "Hulk d7-d4"
    assert str(mv("hulk", "d7", "d4")) == "hulk d7-d4"
    assert BASIC.notation(Swap("rogue", "hulk", "Swap Powers")) == "Rogue Swap Powers <-> Hulk"
    assert str(ChooseStat("south", Stat.SPEED)) == "south chooses speed"
    assert BASIC.piece_of(Hypnotize("doctor-strange", "rhino", sq("a6"))) == "doctor-strange"
    assert BASIC.piece_of(Skip("south")) is None


def test_bundled_record_replays_to_a_win() -> None:
    lines = [
        json.loads(line) for line in RECORD.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    header, moves = lines[0], lines[1:]
    assert header["game"] == "battle-grounds"
    game = get_game(header["game"], header.get("options", {}))
    state = (
        game.state_from_json(header["position"]) if "position" in header else game.initial_state()
    )
    seen: set[str] = set()
    for i, line in enumerate(moves):
        assert game.outcome(state) is None, f"the game ended before line {i + 2}"
        step = game.apply(state, game.action_from_json(line["action"]), line.get("rolls", []))
        seen.update(e.kind for e in step.events)
        state = step.state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner in ("south", "north")
    assert {"setup", "combat", "combat-round", "capture", "victory", "power"} <= seen


def test_pieces_are_the_figures_an_action_may_name() -> None:
    assert len(BASIC.pieces(BASIC.initial_state())) == 32  # set-up: the whole roster
    state = pos(
        BASIC,
        {"a6": "bullseye", "a7": "silver-surfer", "a1": "thanos"},
        holding={"south": ["kraven"]},
        pending=[{"kind": "return", "player": "north", "figure": "rhino"}],
        to_play="north",
    )
    assert sorted(BASIC.pieces(state)) == ["bullseye", "kraven", "rhino", "silver-surfer", "thanos"]
    assert BASIC.actions_of(state, "rhino") == [
        a for a in BASIC.legal_actions(state) if isinstance(a, Place)
    ]

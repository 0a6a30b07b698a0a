"""Battle Grounds checked rule by rule against the rule text and GAMES.md.

Each test names the rule it checks in its docstring. Board reminders (rows counted from the
north edge, default roster, default colour table): basic rows 1-3 are north's, red, orange,
yellow, green, blue, purple from file a to f; row 4 is white; rows 5-7 are south's, purple,
blue, green, yellow, orange, red from a to f. On the advanced board files d and e of each
side's three coloured rows carry all six colours and rows 4-5 are white. Red is Fighting
Skills. Stats are listed intelligence, strength, speed, durability, energy projection,
fighting skills.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.battle_grounds import (
    BattleGrounds,
    BattleMode,
    FollowUpKind,
    Hypnotize,
    Level,
    Move,
    Place,
    State,
    parse_label,
)
from rules.geometry import Square

BASIC = BattleGrounds()
ADVANCED = BattleGrounds.from_options({"board": "advanced"})


def sq(text: str) -> Square:
    return parse_label(text)


def mv(piece: str, a: str, b: str) -> Move:
    return Move(piece, sq(a), sq(b))


def pos(game: BattleGrounds, board: dict[str, str], to_play: str = "south", **more: Any) -> State:
    return game.state_from_json({"phase": "play", "to_play": to_play, "board": board, **more})


def pending_kinds(state: State) -> list[FollowUpKind]:
    return [item.kind for item in state.pending]


# -- far-end release (advanced board) ------------------------------------------------------
@pytest.mark.parametrize("start", ["b1", "a1"])
def test_moving_along_the_far_end_releases_no_figure(start: str) -> None:
    """Advanced game: a figure that reaches the far end frees one figure from the Holding
    Zone. A figure already standing on the far end row has reached it; sliding along that
    row does not reach it again, so it frees nobody."""
    state = pos(
        ADVANCED,
        {start: "wolverine", "a8": "silver-surfer", "h1": "thanos"},
        holding={"north": ["jubilee"]},
    )
    step = ADVANCED.apply(state, mv("wolverine", start, "c1" if start == "b1" else "b1"))
    assert step.state.pending == ()
    assert step.state.to_play == "north"


def test_attacking_along_the_far_end_releases_no_figure() -> None:
    """Advanced game: only reaching the far end frees a figure. Wolverine already stands on
    north's back row (b1) and beats Rhino on the yellow c1 next to it (Durability 4 + 6
    against 5 + 1): he moves in, but he was at the far end before the battle, so south
    frees nobody; only north's die pick is owed."""
    state = pos(
        ADVANCED,
        {"b1": "wolverine", "c1": "rhino", "a8": "silver-surfer", "h1": "thanos"},
        holding={"north": ["jubilee"]},
    )
    step = ADVANCED.apply(state, mv("wolverine", "b1", "c1"), [6, 1])
    assert step.state.at[sq("c1")] == "wolverine"
    assert pending_kinds(step.state) == [FollowUpKind.LOST_DIE]


def test_coming_back_to_the_far_end_releases_again() -> None:
    """Advanced game: a figure that left the far end row and comes back to it reaches the
    far end anew and frees a figure (the player must place it on an empty square of their
    first two rows)."""
    state = pos(
        ADVANCED,
        {"b2": "wolverine", "a8": "silver-surfer", "h1": "thanos"},
        holding={"north": ["jubilee", "falcon"]},
    )
    step = ADVANCED.apply(state, mv("wolverine", "b2", "c1"))
    assert pending_kinds(step.state) == [FollowUpKind.RELEASE]
    assert ADVANCED.verdict(step.state, Place("jubilee", sq("b6"))).code == "not-staging-square"
    state = ADVANCED.apply(step.state, Place("jubilee", sq("b8"))).state
    state = ADVANCED.apply(state, mv("thanos", "h1", "h2")).state
    state = ADVANCED.apply(state, mv("wolverine", "c1", "c2")).state
    state = ADVANCED.apply(state, mv("thanos", "h2", "h3")).state
    step = ADVANCED.apply(state, mv("wolverine", "c2", "d1"))
    assert pending_kinds(step.state) == [FollowUpKind.RELEASE]


# -- the battle stat -----------------------------------------------------------------------
@pytest.mark.parametrize("origin", ["e6", "f4"])
def test_the_defenders_square_names_the_battle_stat(origin: str) -> None:
    """Battle stat: when the defender stands on a coloured square, that colour's stat is
    used by both figures, wherever the attacker stands (here the orange e6 or the white
    f4); nobody rolls for the stat. Rhino on the red f5: Fighting Skills, Wolverine 6 + 1
    against Rhino 3 + 1."""
    state = pos(BASIC, {origin: "wolverine", "f5": "rhino", "a7": "silver-surfer", "a1": "thanos"})
    step = BASIC.apply(state, mv("wolverine", origin, "f5"), [1, 1])  # the battle dice only
    assert step.events[1].detail("stat") == "fighting-skills"
    rounds = [e for e in step.events if e.kind == "combat-round"]
    assert [(e.detail("attacker_total"), e.detail("defender_total")) for e in rounds] == [(7, 4)]
    assert step.state.at[sq("f5")] == "wolverine" and sq(origin) not in step.state.at


def test_all_colour_square_defender_chooses_even_against_an_attacker_on_white() -> None:
    """Advanced board: a defender on one of the all-colour squares picks the battle stat for
    the match-up; there is no roll-off even when the attacker stands on white."""
    state = pos(ADVANCED, {"d4": "hulk", "d3": "rhino", "a8": "silver-surfer", "h1": "thanos"})
    step = ADVANCED.apply(state, mv("hulk", "d4", "d3"))  # no dice at all
    battle = step.state.battle
    assert battle is not None
    assert battle.mode is BattleMode.DEFENDER_CHOOSES and battle.chooser == "north"
    assert ADVANCED.to_move(step.state) == ("north",)


# -- movement ------------------------------------------------------------------------------
def test_starter_figures_never_attack_diagonally() -> None:
    """Movement: a Starter/Accessory figure may neither move nor attack diagonally, while a
    level I figure may attack a diagonal neighbour."""
    state = pos(
        BASIC,
        {"c5": "falcon", "b4": "rhino", "d6": "wolverine", "a7": "silver-surfer", "a1": "thanos"},
    )
    assert BASIC.verdict(state, mv("falcon", "c5", "b4")).code == "diagonal-not-allowed"
    assert mv("falcon", "c5", "b4") not in BASIC.legal_actions(state)
    state = pos(BASIC, {"c5": "wolverine", "b4": "rhino", "a7": "silver-surfer", "a1": "thanos"})
    assert BASIC.verdict(state, mv("wolverine", "c5", "b4")).code == "ok"


# -- set-up and equipment -------------------------------------------------------------------
@pytest.mark.parametrize(
    "game, counts",
    [
        (BASIC, {Level.SA: 2, Level.I: 4, Level.II: 4, Level.III: 1, Level.COSMIC: 1}),
        (ADVANCED, {Level.SA: 2, Level.I: 6, Level.II: 4, Level.III: 3, Level.COSMIC: 1}),
    ],
)
def test_each_side_fields_the_rulebook_figures(
    game: BattleGrounds, counts: dict[Level, int]
) -> None:
    """Set-up: the basic game fields 4 level I, 2 Starter/Accessory, 4 level II and 2 level
    III figures per side, one of the level III being the Cosmic figure; the advanced game
    6 level I, 2 S/A, 4 level II and 4 level III (one Cosmic). With six Battle Dice at most
    five may lie in the Dice Zone, one being kept to roll."""
    assert game.table.board.required_levels() == counts
    state = game.lineup()
    for player in ("south", "north"):
        fielded = [game.table.spec(f).level for _, f in game.table.figures_of(state, player)]
        assert {lv: fielded.count(lv) for lv in counts} == counts
        assert game.table.dice_limit[player] == 5


# -- powers ----------------------------------------------------------------------------------
SOUTH_STAGING_FULL = {
    "a6": "captain-america", "b6": "wolverine", "c6": "daredevil", "d6": "black-widow",
    "e6": "nightcrawler", "f6": "rogue", "a7": "iron-man", "b7": "spider-man",
    "c7": "silver-surfer", "d7": "doctor-strange", "e7": "storm", "f7": "professor-x",
    "a1": "thanos",
}  # fmt: skip


def test_hypnotize_needs_an_empty_square_in_the_first_two_rows() -> None:
    """Hypnotize: the captive goes onto an empty square of the user's first two rows, so
    the power cannot be used while those rows are full; once a square is free it can."""
    state = pos(BASIC, SOUTH_STAGING_FULL, holding={"south": ["rhino"]})
    assert not any(isinstance(a, Hypnotize) for a in BASIC.legal_actions(state))
    assert BASIC.verdict(state, Hypnotize("doctor-strange", "rhino", sq("b6"))).code == "occupied"
    board = dict(SOUTH_STAGING_FULL)
    board["b5"] = board.pop("b6")
    state = pos(BASIC, board, holding={"south": ["rhino"]})
    hypnotize = Hypnotize("doctor-strange", "rhino", sq("b6"))
    assert [a for a in BASIC.legal_actions(state) if isinstance(a, Hypnotize)] == [hypnotize]


def test_telepathy_adds_no_die_to_a_full_dice_zone() -> None:
    """Telepathy / dice rules: a win by more than 2 lets the winner move a die into the Dice
    Zone, but that zone never holds more than five of the six dice, so with five already
    there Telepathy gives nothing (the loser's own die pick is still owed)."""
    full = ["Assemble", "Heroic Stand", "Team-Up", "Quick Strike", "Guard"]
    state = pos(
        BASIC,
        {
            "a7": "professor-x",
            "a3": "wolverine",
            "a2": "bullseye",
            "f7": "silver-surfer",
            "f1": "thanos",
        },
        dice_zone={"south": full},
    )
    step = BASIC.apply(state, mv("wolverine", "a3", "a2"), [6, 1])
    assert pending_kinds(step.state) == [FollowUpKind.LOST_DIE]
    assert step.state.pending[0].player == "north"

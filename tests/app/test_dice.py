"""The seeded die roller at the application edge."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.oneworld import OneWorld
from tabletop.dice import RollRecord, SeededDice


def test_same_seed_same_rolls_and_different_seeds_differ():
    a, b, c = SeededDice(42), SeededDice(42), SeededDice(43)
    rolls_a = [a.roll(6, "x") for _ in range(50)]
    assert rolls_a == [b.roll(6, "x") for _ in range(50)]
    assert rolls_a != [c.roll(6, "x") for _ in range(50)]


@pytest.mark.parametrize("sides", [1, 2, 6, 20])
def test_rolls_cover_every_face_and_nothing_else(sides):
    dice = SeededDice(0)
    counts = Counter(dice.roll(sides, "test") for _ in range(200 * sides))
    assert set(counts) == set(range(1, sides + 1))


def test_history_keeps_every_roll():
    dice = SeededDice(3)
    first = dice.roll(6, "fault")
    second = dice.roll(4, "reinforcement")
    assert dice.history == [RollRecord(6, "fault", first), RollRecord(4, "reinforcement", second)]
    assert repr(dice) == "SeededDice(seed=3, rolled=2)"


@pytest.mark.parametrize("sides", [0, -6, 2.5, True])
def test_a_die_needs_sides(sides):
    with pytest.raises(ValueError, match="at least one side"):
        SeededDice(1).roll(sides, "nothing")


def test_engines_accept_it_as_their_dice(record):
    """Played with SeededDice, an engine reports the very rolls the dice made."""
    game = OneWorld.from_options(record.header.options)
    state = game.initial_state()
    for entry in record.entries:
        action = game.action_from_json(entry.action)
        if entry.rolls:
            dice = SeededDice(9)
            step = game.apply(state, action, dice)
            assert len(step.rolls_used) == len(entry.rolls)
            assert list(step.rolls_used) == [r.value for r in dice.history]
            assert all(r.sides == 6 and r.what for r in dice.history)
            return
        state = game.apply(state, action).state
    pytest.fail("the bundled record has no rolls")

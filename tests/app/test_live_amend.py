"""The table put right after the referee's own roll (``--roll-dice``,
``tabletop.live.amend``): a Battle Grounds battle played out on the table is read by its
result whichever way it went, the referee's dice fight it, and where they decide otherwise
than the table shows, the referee says what to change and expects the table so. The board is
read by a perfect detector (the harness of ``test_live_outcomes``)."""

from __future__ import annotations

from typing import Any

from tabletop.live.amend import amend
from tabletop.live.outcomes import Fixed
from tabletop.live.pipeline import Rolls

from .test_live_outcomes import Harness, _board, _replay, feed, hand

#: North's Hydra Agent (c2) attacks South's Iron Man on the orange square b2 (the bundled
#: record's position 31): 1 and 4 lose the battle, 6 and 1 win it.
ATTACK = {"type": "move", "piece": "hydra-agent", "from": "c2", "to": "b2"}


def _setup() -> tuple[Any, Any, Any, Any]:
    game, states, _ = _replay("battle-grounds")
    s = states[31]
    action = game.action_from_json(ATTACK)
    return game, s, game.apply(s, action, Fixed([1, 4])).state, game.apply(s, action, Fixed([6, 1])).state


def _seeded(game: Any, s: Any, seed: int) -> Harness:
    return Harness(game, s, None, None, None, rolls=Rolls([], seed=seed), window_s=0.3)


def _referee_result(game: Any, s: Any, seed: int) -> str:
    """How the referee's own dice (``seed``) fight the attack: ``"won"`` or ``"lost"``."""
    from tabletop.dice import SeededDice

    step = game.apply(s, game.action_from_json(ATTACK), SeededDice(seed))
    return "won" if any(p == "hydra-agent" for p in (game.state_to_json(step.state)["board"] or {}).values()) \
        else "lost"


def test_an_attack_lost_on_the_table_is_read_and_fought_with_the_referee_s_dice() -> None:
    """The attacker gone, the defender still on b2, with ``--roll-dice``: the attack is read by
    what it leaves (before, it was flagged as a move onto a square of its own side) and the
    referee rolls its battle; where its roll loses too, nothing is asked of the table."""
    game, s, lost, _ = _setup()
    seeds = [k for k in range(20) if _referee_result(game, s, k) == "lost"]
    assert seeds
    pipe = _seeded(game, s, seeds[0])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, lost)] * 4, t)
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    assert any(kind == "legal" and text.startswith("Hydra Agent attacks Iron Man") for kind, text in pipe.announced), \
        pipe.announced
    assert not any("otherwise than the table" in text for _, text in pipe.announced), pipe.announced
    assert "hydra-agent" not in game.state_to_json(pipe.state)["board"].values()


def test_an_attack_won_on_the_table_that_the_referee_s_roll_loses_is_put_right() -> None:
    """The attacker left on b2, the defender taken off; the referee's dice lose the battle:
    the roll stands, the referee says to take Hydra Agent off b2 and put Iron Man back on it,
    and the table so put right reads as nothing new."""
    game, s, lost, won = _setup()
    seeds = [k for k in range(20) if _referee_result(game, s, k) == "lost"]
    pipe = _seeded(game, s, seeds[0])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, won)] * 4, t)
    said = [text for _, text in pipe.announced]
    assert any("Take Hydra Agent off b2; put Iron Man on b2." in text for text in said), said
    assert "hydra-agent" not in game.state_to_json(pipe.state)["board"].values()
    state, count = pipe.state, len(pipe.announced)
    feed(pipe, [hand(_board(game, won))] + [_board(game, lost)] * 4, t)
    assert pipe.state is state and len(pipe.announced) == count, pipe.announced[count:]
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced


def test_the_table_agreeing_with_the_engine_asks_for_nothing() -> None:
    game, s, lost, won = _setup()
    assert amend(game, s, lost, _board(game, s), _board(game, lost), ATTACK) is None
    assert amend(game, s, won, _board(game, s), _board(game, s), ATTACK) is None  # not played out yet


def test_what_to_change_names_the_pieces_and_gives_the_table_expected() -> None:
    """The table shows the attack lost while the engine has it won: Iron Man off b2, Hydra
    Agent on it; the table expected is the engine's, and only the cells the action changed
    are looked at (a misread elsewhere asks for nothing)."""
    game, s, lost, won = _setup()
    seen = _board(game, lost)
    elsewhere = next(p for p in seen.pieces if p.cell not in ("b2", "c2"))
    misread = type(seen)(seen.game, tuple(p for p in seen.pieces if p is not elsewhere))
    fix = amend(game, s, won, _board(game, s), misread, ATTACK)
    assert fix is not None
    assert fix.words() == "Take Iron Man off b2; put Hydra Agent on b2."
    expected = {k for k in _board(game, won).cells() if k[0] != elsewhere.cell}
    assert set(fix.board.cells()) == expected

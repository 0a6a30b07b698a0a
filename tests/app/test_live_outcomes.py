"""Actions read by what they leave on the board (``tabletop.live.outcomes``) and actions the
camera cannot see, read from the move after them, on positions of the bundled records with
a perfect reading of the board: the referee's acceptance step alone, as a settled window
hands it a position."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.registry import get_game
from tabletop.dice import SeededDice
from tabletop.live.board import SeenBoard, SeenPiece
from tabletop.live.outcomes import change, engine_cells, seen_cells
from tabletop.live.pipeline import FrameResult, FrameView, LivePipeline, Rolls

RECORDS = Path(__file__).resolve().parents[2] / "tabletop" / "data" / "records"


def _replay(name: str) -> tuple[Any, list[Any], list[dict[str, Any]]]:
    lines = [json.loads(x) for x in (RECORDS / f"{name}.jsonl").read_text().splitlines() if x.strip()]
    game = get_game(name, lines[0].get("options") or {})
    state = game.state_from_json(lines[0]["position"]) if lines[0].get("position") else game.initial_state()
    states, entries = [state], lines[1:]
    for e in entries:
        state = game.apply(state, game.action_from_json(e["action"]), e.get("rolls", [])).state
        states.append(state)
    return game, states, entries


def _board(game: Any, state: Any) -> SeenBoard:
    """What a perfect detector shows of the engine's position: a box per (cell, class)."""
    pieces = tuple(SeenPiece(cls, cell, (0.0, 0.0), (0.0, 0.0, 10.0, 10.0), 0.9)
                   for cell, cls in sorted(engine_cells(game, state)))
    return SeenBoard(game.name, pieces)


def _accept(game: Any, before: Any, after: Any, rolls: list[int], touched: bool = True) -> LivePipeline:
    pipe = LivePipeline(game, before, None, None, None, rolls=Rolls(rolls))
    pipe.base = _board(game, before)
    pipe._accept(_board(game, after), FrameResult(1, 0.0, "accepted"), touched)
    return pipe


def _same(game: Any, a: Any, b: Any) -> bool:
    return json.dumps(game.state_to_json(a), sort_keys=True) == json.dumps(game.state_to_json(b), sort_keys=True)


@pytest.mark.parametrize(("name", "index", "action", "rolls", "why"), [
    ("battle-grounds", 31, {"type": "move", "piece": "hydra-agent", "from": "c2", "to": "b2"}, [1, 4],
     "the attacker loses its battle and leaves the board"),
    ("battle-grounds", 28, {"type": "move", "piece": "iron-man", "from": "d4", "to": "d2"}, [1, 6],
     "the attacker loses; stacks of its kind elsewhere"),
    ("battle-grounds", 24, {"type": "swap", "piece": "rogue", "with": "iron-man", "power": "Swap Powers"}, [],
     "a swap: two figures change places"),
    ("battle-grounds", 36, {"type": "hypnotize", "piece": "loki", "captive": "iron-man", "square": "a2"}, [],
     "Hypnotize: a figure turned, nothing moves"),
    ("when-gods-collide", 39, {"type": "move", "from": "1,0", "to": "2,1"}, [],
     "a god taken: its whole army leaves the board"),
    ("when-gods-collide", 63, {"type": "convert", "at": "0,0", "method": "replace"}, [],
     "Seth: a checker replaced by a captured one"),
    ("oneworld", 27, {"type": "move", "piece": "B5", "to": "1201"}, [], "a Blade steps into Chaos and is lost"),
])
def test_an_action_is_read_by_what_it_leaves_on_the_board(name: str, index: int, action: dict[str, Any],
                                                          rolls: list[int], why: str) -> None:
    game, states, _ = _replay(name)
    state = states[index]
    after = game.apply(state, game.action_from_json(action), list(rolls)).state
    pipe = _accept(game, state, after, list(rolls))
    assert pipe.readings[-1].kind == "legal", (why, pipe.readings[-1])
    assert pipe.readings[-1].action_json == action
    assert _same(game, pipe.state, after), why


def test_a_piece_only_gone_with_no_hand_seen_is_no_move() -> None:
    """A Blade gone (into Chaos by the rules' lights) while no hand was seen over the board:
    a detector that stopped finding it looks the same, so nothing is played."""
    game, states, _ = _replay("oneworld")
    after = game.apply(states[27], game.action_from_json({"type": "move", "piece": "B5", "to": "1201"}), []).state
    pipe = _accept(game, states[27], after, [], touched=False)
    assert pipe.readings[-1].kind != "legal" and _same(game, pipe.state, states[27])
    assert _accept(game, states[27], after, [], touched=True).readings[-1].kind == "legal"


def test_a_princess_is_read_with_the_captures_the_board_shows() -> None:
    """Two legal Princess moves between the same squares differ by what she takes on the
    way: the one whose captures are those seen is played."""
    game, states, _ = _replay("when-gods-collide")
    state = states[41]
    moves = [a for a in game.legal_actions(state)
             if game.action_to_json(a).get("from") == "1,0" and game.action_to_json(a).get("to") == "2,-1"]
    captures = {len(change(engine_cells(game, state), engine_cells(game, game.apply(state, a, []).state))[1])
                for a in moves}
    assert len(captures) > 1  # the position offers paths with different captures
    for move in moves:
        after = game.apply(state, move, []).state
        pipe = _accept(game, state, after, [])
        seen = change(seen_cells(_board(game, state)), seen_cells(_board(game, after)))
        assert change(engine_cells(game, state), engine_cells(game, pipe.state)) == seen, game.action_to_json(move)


@pytest.mark.parametrize("index", [24, 46, 62])
def test_a_pass_that_needs_dice_asks_for_them_and_is_played_once_given(index: int) -> None:
    """OneWorld's end of movement rolls for a reinforcement: with the other side's move seen
    and no die given, the roll is asked for and nothing is flagged; once the die is given the
    end of movement and the move are played, as the record has them."""
    game, states, entries = _replay("oneworld")
    pipe = LivePipeline(game, states[index], None, None, None, rolls=Rolls([]))
    pipe.base = _board(game, states[index])
    seen = _board(game, states[index + 2])
    result = FrameResult(1, 0.0, "accepted")
    pipe._accept(seen, result, True)
    assert pipe.readings[-1].kind == "wait" and _same(game, pipe.state, states[index])
    assert [k for k, _ in result.announcements] == ["info"]
    assert result.announcements[0][1].startswith("A roll is needed")
    pipe.rolls.given[:] = list(entries[index]["rolls"]) + list(entries[index + 1].get("rolls", []))
    result = FrameResult(2, 0.1, "accepted")
    pipe._accept(seen, result, True)
    assert [k for k, _ in result.announcements] == ["legal", "legal"]
    assert _same(game, pipe.state, states[index + 2])


# -- through the frame loop: a perfect detector's board handed in place of each frame ---------

class Harness(LivePipeline):
    def _read(self, frame, t, result):  # the frame *is* the seen board
        self._kept = None
        return FrameView(None, None, "x"), frame


def make(game, state, rolls=(), seed=None, typed=False):
    r = Rolls(list(rolls), seed=seed)
    r.typed = typed
    return Harness(game, state, None, None, None, rolls=r, window_s=0.3)


def feed(p, boards, t=0.0, n=5):
    for b in boards:
        for _ in range(n):
            p.process(b, t)
            t += 0.1
    return t


def hand(b):
    return replace(b, hand_over_board=True)


def test_a_pass_waiting_for_its_roll_is_asked_for_once() -> None:
    """A still table while the die is not typed: said once, not at every window."""
    game, states, _ = _replay("oneworld")
    s = states[24]
    p = make(game, s, typed=True)
    t = feed(p, [_board(game, s), hand(_board(game, s))])
    feed(p, [_board(game, states[26])] * 6, t)  # 3 s of a still table, no die typed yet
    asked = [text for _, text in p.announced if text.startswith("A roll is needed")]
    assert len(asked) == 1, asked


def test_a_class_read_otherwise_with_no_hand_plays_no_action() -> None:
    """Hypnotize and Seth's conversion change only what a cell shows: with no hand, a lasting
    misread of the detector, never an action."""
    for name, idx, act in [("battle-grounds", 36, {"type": "hypnotize", "piece": "loki", "captive": "iron-man", "square": "a2"}),
                           ("when-gods-collide", 63, {"type": "convert", "at": "0,0", "method": "replace"})]:
        game, states, _ = _replay(name)
        s = states[idx]
        after = game.apply(s, game.action_from_json(act), []).state
        p = make(game, s)
        feed(p, [_board(game, s), _board(game, after)])  # no hand, no motion ever
        assert not any(k == "legal" for k, _ in p.announced), (name, p.announced)


def test_a_dice_zone_choice_is_not_guessed_as_declined() -> None:
    """A skip declines a Dice Zone pick: a choice the board does not show, never guessed."""
    game, states, _ = _replay("battle-grounds")
    s = states[30]  # North lost a battle and may move a die to the Dice Zone (pick-die ... or skip)
    skip = next(a for a in game.legal_actions(s) if game.action_to_json(a)["type"] == "skip")
    s2 = game.apply(s, skip, []).state
    move = game.action_from_json({"type": "move", "piece": "green-goblin", "from": "a1", "to": "b2"})
    after = game.apply(s2, move, [6, 1]).state
    p = make(game, s, [6, 1])
    feed(p, [_board(game, s), hand(_board(game, s)), _board(game, after)])
    played = [game.action_to_json(r.action)["type"] for r, _ in p._corrections.stack]
    assert "skip" not in played, (played, p.announced)


def test_a_pass_not_taken_draws_no_seeded_die() -> None:
    """Passes and outcomes are tried with the dice given only: a seeded game stays reproducible."""
    game, states, _ = _replay("oneworld")
    s = states[24]  # CHEZ to move; its end of movement rolls for a reinforcement
    base = _board(game, s)
    src = next(q for q in base.pieces if q.cls.startswith("chez-") and q.cls not in ("chez-tower", "chez-god"))
    moved = SeenBoard(game.name, tuple(q for q in base.pieces if q is not src)
                      + (SeenPiece(src.cls, "0808", (0.0, 0.0), (0, 0, 10, 10), 0.9),))
    p = make(game, s, seed=5)
    feed(p, [base, hand(base), moved])
    assert [k for k, _ in p.announced] == ["illegal"]  # nothing played
    fresh = SeededDice(5)
    assert [p.rolls._dice.roll(6, "x") for _ in range(3)] == [fresh.roll(6, "x") for _ in range(3)]


def test_a_lost_battle_without_its_dice_asks_for_them_rather_than_flagging() -> None:
    """The attacker gone and its dice not typed: the roll is asked for, and once typed the
    attack is played as the board shows it."""
    game, states, _ = _replay("battle-grounds")
    s = states[31]
    after = game.apply(s, game.action_from_json({"type": "move", "piece": "hydra-agent", "from": "c2", "to": "b2"}),
                       [1, 4]).state
    p = make(game, s, typed=True)
    t = feed(p, [_board(game, s), hand(_board(game, s)), _board(game, after)])
    assert not any(k == "illegal" for k, _ in p.announced), p.announced
    p.rolls.type(1)
    p.rolls.type(4)
    feed(p, [_board(game, after)] * 3, t)
    assert [k for k, _ in p.announced if k != "info"][-1] == "legal", p.announced  # then the Dice Zone pick is asked


@pytest.mark.parametrize("index", [24, 46, 62])
def test_with_the_referee_rolling_a_pass_and_the_move_after_it_are_both_played(index: int) -> None:
    """--roll-dice: the end of movement's die is drawn by the referee, then the other side's
    move, seen at once, is read too (it waited, unread, on a still board)."""
    game, states, _ = _replay("oneworld")
    s = states[index]
    p = make(game, s, seed=3)
    t = feed(p, [_board(game, s), hand(_board(game, s)), _board(game, states[index + 2])])
    feed(p, [_board(game, states[index + 2])] * 4, t)
    assert [k for k, _ in p.announced if k != "info"][-2:] == ["legal", "legal"], p.announced
    assert p.game.state_to_json(p.state)["active"] == game.state_to_json(states[index + 2])["active"]


def _lost_battle() -> tuple[Any, Any, Any]:
    game, states, _ = _replay("battle-grounds")
    s = states[31]
    after = game.apply(s, game.action_from_json({"type": "move", "piece": "hydra-agent", "from": "c2", "to": "b2"}),
                       [1, 4]).state
    return game, s, after


def test_dice_typed_that_disagree_with_the_board_are_said_so_and_can_be_typed_again() -> None:
    game, s, after = _lost_battle()
    p = make(game, s, typed=True)
    t = feed(p, [_board(game, s), hand(_board(game, s)), _board(game, after)])
    for die in (6, 1):  # the attacker would win with these: not what the board shows
        p.rolls.type(die)
    p.stability.reset()  # as a die key does
    t = feed(p, [_board(game, after)] * 3, t)
    assert not any(k == "illegal" for k, _ in p.announced), p.announced
    assert any("the dice typed (6, 1) do not give what the board shows" in text for _, text in p.announced)
    p.rolls.take_back(), p.rolls.take_back()
    p.rolls.type(1), p.rolls.type(4)
    p.stability.reset()
    feed(p, [_board(game, after)] * 4, t)
    assert _same(game, p.state, after) and p.rolls.given == []


def test_a_detector_flicker_while_a_battle_waits_for_its_dice_does_not_lose_it() -> None:
    game, s, after = _lost_battle()
    seen = _board(game, after)
    missed = SeenBoard(game.name, seen.pieces[1:])  # one figure missed for a second, no hand
    p = make(game, s, typed=True)
    t = feed(p, [_board(game, s), hand(_board(game, s)), seen, seen, missed, missed, seen, seen])
    p.rolls.type(1), p.rolls.type(4)
    p.stability.reset()
    feed(p, [seen] * 6, t)
    assert _same(game, p.state, after) and p.rolls.given == []


@pytest.mark.parametrize("given", [False, True])
def test_a_pass_that_needs_dice_does_not_buy_a_misread_either(monkeypatch: pytest.MonkeyPatch, given: bool) -> None:
    """OneWorld's end of movement rolling for a reinforcement: a move read after it that needs
    the board read further from how it looks than the refused move does is no reason to play
    the pass (nor to ask for its roll), whether its die is given or not: the refusal stands."""
    from tabletop.live import pipeline as live_pipeline
    from tabletop.live.infer import Reading

    game, states, entries = _replay("oneworld")
    s = states[24]  # CHEZ to move; its end of movement rolls for a reinforcement
    moved = entries[25]["action"]
    action = game.action_from_json(moved)
    pipe = LivePipeline(game, s, None, None, None, rolls=Rolls(list(entries[24]["rolls"]) if given else []))
    pipe.base = _board(game, s)

    def read_after(game: Any, state: Any, before: Any, after: Any, *a: Any, **kw: Any) -> Reading:
        return Reading("legal", action, moved, game.verdict(state, action), cost=1.0)

    monkeypatch.setattr(live_pipeline, "infer", read_after)
    result = FrameResult(1, 0.0, "accepted")
    refused = Reading("illegal", action, moved, game.verdict(s, action), cost=0.0)
    assert pipe._pass_before(_board(game, states[26]), result, True, refused) is None
    assert result.announcements == [] and pipe.state is s

"""The Game followed by the live referee from perfect readings of the field: the bundled
record's positions, one seen piece per standing piece at its engine point and facing, and the
actions the field does not show as a move (a piece left unmoved, a side passing, a piece
that acts, a piece that walks off) read right."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.registry import get_game
from tabletop.live.board import SeenBoard, SeenPiece
from tabletop.live.explain import piece_classes
from tabletop.live.pipeline import FrameResult, LivePipeline, Rolls

RECORD = Path(__file__).resolve().parents[2] / "tabletop" / "data" / "records" / "the-game.jsonl"


@pytest.fixture(scope="module")
def record() -> tuple[Any, list[dict[str, Any]], list[Any]]:
    """The engine, the record's action lines and the state before each (and after the last)."""
    lines = [json.loads(x) for x in RECORD.read_text().splitlines() if x.strip()]
    game = get_game("the-game", lines[0].get("options") or {})
    states = [game.initial_state()]
    for e in lines[1:]:
        states.append(game.apply(states[-1], game.action_from_json(e["action"]), e.get("rolls", [])).state)
    return game, lines[1:], states


def field(game: Any, state: Any) -> SeenBoard:
    sj = game.state_to_json(state)
    classes = piece_classes(game, sj)
    return SeenBoard("the-game", tuple(
        SeenPiece(classes[p["id"]], None, (p["at"]["x"], p["at"]["y"]), (0.0, 0.0, 1.0, 1.0), 0.9, p["facing"])
        for p in sj["pieces"] if p["presence"] == "in-play"))


def referee(game: Any, state: Any, rolls: list[int] | None = None) -> LivePipeline:
    pipe = LivePipeline(game, state, None, None, None, rolls=Rolls(rolls or []))
    pipe.base = field(game, state)
    return pipe


def show(pipe: LivePipeline, board: SeenBoard) -> list[str]:
    """The field accepted after a hand over it: what was said."""
    result = FrameResult(1, 0.0, "accepted")
    pipe._accept(board, result, True)
    return [text for _, text in result.announcements]


def same(a: Any, b: Any, tol: float = 0.02) -> bool:
    """Two state JSONs alike, places and facings to ``tol`` (a move is read to the hundredth)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=tol)
    return a == b


def where(lines: list[dict[str, Any]], test: Any) -> int:
    return next(i for i, e in enumerate(lines) if test(i, e["action"]))


def test_a_piece_left_unmoved_is_read_from_the_other_sides_move_after_it(record: Any) -> None:
    """Sequence 2, turn 1: Red leaves R1 unmoved and Blue moves B4. The field shows B4 moved
    while Red was to move: R1's stay is played first, then B4's move (before, the move was
    flagged as out of turn)."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "stay" and lines[i + 1]["action"]["type"] == "move"
              and game.state_to_json(states[i])["phase"] == "movement")
    stay, move = lines[i]["action"], lines[i + 1]["action"]
    assert stay["piece"][0] != move["piece"][0]  # the other side's move
    pipe = referee(game, states[i])
    said = show(pipe, field(game, states[i + 2]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 2])), said
    assert said[0] == f"{stay['piece']} stays where it is." and not any(s.startswith("Illegal") for s in said)


def test_a_pass_is_read_as_the_stays_the_other_sides_moves_imply(record: Any) -> None:
    """A side that leaves all its remaining pieces alone while the other moves two: each move
    of the other side is read with one stay before it (a stay leaves the side's other pieces
    free to move; a pass none), and once both are read the engine stands where the pass left
    it."""
    game, _, states = record
    from rules.the_game.model import Pass

    for k, state in enumerate(states):
        sj = game.state_to_json(state)
        player = game.to_move(state)[0] if game.to_move(state) else None
        due = [p for p in sj["pieces"] if p["controller"] == player and p["presence"] == "in-play" and not p["done"]]
        other = [p for p in sj["pieces"] if p["controller"] != player and p["presence"] == "in-play" and not p["done"]]
        if sj["phase"] == "movement" and len(due) == 2 and len(other) >= 2 and game.verdict(state, Pass(player)).legal:
            break
    else:
        pytest.fail("no position of the record where a side may pass with two pieces left")
    passed = game.apply(state, Pass(player), []).state
    states_after = [passed]
    for _ in range(2):  # the other side's first move each time (a step ahead)
        moves = [a for a in game.legal_actions(states_after[-1]) if game.action_to_json(a)["type"] == "move"]
        states_after.append(game.apply(states_after[-1], moves[0], []).state)
    pipe = referee(game, state)
    first = show(pipe, field(game, states_after[1]))
    second = show(pipe, field(game, states_after[2]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states_after[2])), (first, second)
    assert all("stays where it is" in said[0] for said in (first, second))


def _left_alone(game: Any, states: list[Any]) -> tuple[Any, Any, Any]:
    """The first movement position of the record where the side to move has two pieces or
    more still to move and the other side one: (state, the stay the referee
    reads, the stay of another of its pieces)."""
    from rules.the_game.model import Stay

    for state in states:
        sj = game.state_to_json(state)
        player = game.to_move(state)[0] if game.to_move(state) else None
        due = [p for p in sj["pieces"] if p["controller"] == player and p["presence"] == "in-play" and not p["done"]]
        other = [p for p in sj["pieces"] if p["controller"] != player and p["presence"] == "in-play" and not p["done"]]
        stays = [a for a in game.legal_actions(state) if isinstance(a, Stay)]
        if sj["phase"] == "movement" and len(due) >= 2 and other and len(stays) >= 2:
            return state, stays[0], stays[1]
    pytest.fail("no position of the record where a side may leave one of two pieces alone")


def _first_move(game: Any, state: Any, piece: str | None = None) -> Any:
    return next(a for a in game.legal_actions(state) if game.action_to_json(a)["type"] == "move"
                and piece in (None, a.piece))


def test_a_stay_read_of_a_piece_that_then_moves_is_read_again(record: Any, tmp_path: Path, cli: Any) -> None:
    """The side to move leaves its second piece alone and the other side moves: the referee
    reads the first piece's stay (the engine's order). That piece then moves: the stays are
    read again, the other piece's stay played in its place and the other side's move after it
    (undo lines and the actions again in the record, which replays), then the move; before,
    it was refused as a piece that had already been left alone."""
    from tabletop.live.infer import PASS_NOTE
    from tabletop.live.record import LiveRecord

    game, _, states = record
    state, guessed, right = _left_alone(game, states)
    stayed = game.apply(state, right, []).state
    moved = game.apply(stayed, _first_move(game, stayed), []).state
    last = game.apply(moved, _first_move(game, moved, guessed.piece), []).state
    rec = LiveRecord.create(tmp_path / "g.jsonl", game.name, game.options_to_json(), game.state_to_json(state),
                            sync=False)
    pipe = referee(game, state)
    pipe.record = rec
    first = show(pipe, field(game, moved))
    assert first[0] == f"{guessed.piece} stays where it is.", first
    said = show(pipe, field(game, last))
    rec.close()
    assert not any(s.startswith("Illegal") for s in said), said
    assert same(game.state_to_json(pipe.state), game.state_to_json(last)), said
    assert f"{right.piece} stays where it is." in said
    lines = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [li["undo"]["type"] for li in lines if "undo" in li] == ["move", "stay"]
    assert [r.action for r, _ in pipe._corrections.stack][-3:] == [right, *(
        game.action_from_json(li["action"]) for li in lines[-2:])]
    assert pipe._corrections.stack[-3][0].note == PASS_NOTE
    assert cli("rules", "replay", str(tmp_path / "g.jsonl")).code == 0
    again, replayed, n = LiveRecord.resume(tmp_path / "g.jsonl", sync=False)
    again.close()
    assert n == 3 and same(game.state_to_json(replayed.state), game.state_to_json(last))
    nxt = game.apply(last, _first_move(game, last), []).state  # and the game is read on after the re-read
    pipe.record = None
    show(pipe, field(game, nxt))
    assert same(game.state_to_json(pipe.state), game.state_to_json(nxt))


def test_a_move_refused_otherwise_after_a_stay_read_is_still_refused(record: Any) -> None:
    """The piece read as left alone then moves too far: no other reading of the stays makes
    it legal (with the right stay, it is refused for its length), so it is refused as before
    and the stay read stands."""
    game, _, states = record
    state, guessed, right = _left_alone(game, states)
    stayed = game.apply(state, right, []).state
    moved = game.apply(stayed, _first_move(game, stayed), []).state
    pipe = referee(game, state)
    show(pipe, field(game, moved))
    read = pipe.state
    board = field(game, moved)
    sj = game.state_to_json(moved)
    at = next(p for p in sj["pieces"] if p["id"] == guessed.piece)["at"]
    far = [replace(p, point=(p.point[0] + 30.0, p.point[1])) if math.isclose(p.point[0], at["x"])
           and math.isclose(p.point[1], at["y"]) else p for p in board.pieces]
    kept = list(pipe.history)
    said = show(pipe, replace(board, pieces=tuple(far)))
    assert said == [f"Illegal: {guessed.piece} has already moved or been left alone this phase."]
    assert pipe.state is read and pipe.history == kept
    assert game.verdict(moved, game.action_from_json(pipe.last_move.action_json)).code == "too-far"


def _act(game: Any, lines: list[dict[str, Any]], states: list[Any], down: bool) -> int:
    """The first act of the record that knocks its target down (``down``) or fails, its actor
    seen to close in by at least half an inch."""
    def fits(i: int, a: dict[str, Any]) -> bool:
        if a["type"] != "act":
            return False
        step = game.apply(states[i], game.action_from_json(a), lines[i].get("rolls", []))
        knocked = any(e.kind == "elimination" for e in step.events)
        before = {p["id"]: p["at"] for p in game.state_to_json(states[i])["pieces"]}
        after = {p["id"]: p["at"] for p in game.state_to_json(step.state)["pieces"]}
        closed = math.dist(*((w[a["piece"]]["x"], w[a["piece"]]["y"]) for w in (before, after)))
        return knocked == down and closed >= 0.5

    return where(lines, fits)


@pytest.mark.parametrize("down", [True, False], ids=["knocks-down", "fails"])
def test_an_act_is_read_by_the_field_it_leaves(record: Any, down: bool) -> None:
    """The actor closed in and its target gone (turned on its side) is a success; the target
    still standing, a failure, the target then to answer: each with the roll given, as
    typed. Before, the closing in was read as a short move refused in the action phase, or as
    nothing."""
    game, lines, states = record
    i = _act(game, lines, states, down)
    pipe = referee(game, states[i], lines[i]["rolls"])
    said = show(pipe, field(game, states[i + 1]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 1])), said
    assert any(("turned on its side" in s) == down for s in said)
    assert down or pipe.game.state_to_json(pipe.state)["response"] is not None


def test_an_act_whose_roll_is_not_given_asks_for_it_and_is_played_once_typed(record: Any) -> None:
    """The field shows the target down, but no die was typed: the roll is asked for and
    nothing played; typed, the position read again plays the act."""
    game, lines, states = record
    i = _act(game, lines, states, True)
    pipe = referee(game, states[i])
    pipe.rolls.typed = True
    said = show(pipe, field(game, states[i + 1]))
    assert pipe.state is states[i] and any(s.startswith("A roll is needed") for s in said), said
    pipe.rolls.type(lines[i]["rolls"][0])
    show(pipe, field(game, states[i + 1]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 1]))


def test_a_piece_that_walks_off_is_read_from_its_absence(record: Any) -> None:
    """A piece gone from the field, nothing arrived, in the movement phase: it walked off the
    edge (before, read as a piece not seen: no move)."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "exit")
    pipe = referee(game, states[i])
    said = show(pipe, field(game, states[i + 1]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 1])), said
    assert any("leaves play" in s for s in said)



def test_splitting_the_survivors_and_taking_a_group_are_choices_given_in_words_or_keys(record: Any) -> None:
    """Blue, alone on the field, splits its survivors and Red takes a group: nothing on the
    field shows either (every front dot stays its side's colour), so they are asked for and
    given with ``--choices``, by the group's pieces or by key, and played as the record has them."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "split" and lines[i + 1]["action"]["type"] == "take"
              and len(lines[i + 1]["action"]["group"]) == 2)
    split, take = lines[i]["action"], lines[i + 1]["action"]
    pipe = LivePipeline(game, states[i], None, None, None, rolls=Rolls([]),
                        choices=[" and ".join(split["group"]), "c9"])
    pipe.base = field(game, states[i])
    said = show(pipe, field(game, states[i]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 1])), said
    assert said[-1].startswith("Choice 'c9' refused: it is none of the choices now. Red takes one of the two "
                               "groups: c1 "), said
    keys = {g: f"c{k + 1}" for k, g in enumerate(
        [" and ".join(a.group) for a in game.legal_actions(pipe.state)])}
    pipe.choices = [keys[" and ".join(take["group"])]]
    show(pipe, field(game, states[i]))
    assert same(game.state_to_json(pipe.state), game.state_to_json(states[i + 2]))


def _mover(record: Any) -> tuple[Any, str, SeenBoard, int]:
    """The record's first movement-phase move after its set-up: the state before it, the
    piece to move, its field, and the piece's index there."""
    game, lines, states = record
    k = where(lines, lambda i, a: a["type"] == "move" and i > 0 and states[i].phase.value == "movement")
    piece = lines[k]["action"]["piece"]
    j = next(n for n, p in enumerate(game.state_to_json(states[k])["pieces"]) if p["id"] == piece)
    return states[k], piece, field(game, states[k]), j


def _turn(board: SeenBoard, cls_index: int, by: float) -> SeenBoard:
    pieces = list(board.pieces)
    p = pieces[cls_index]
    pieces[cls_index] = replace(p, facing=(p.facing + by) % 360.0)
    return replace(board, pieces=tuple(pieces))


def test_a_turn_on_the_spot_is_read_after_a_hand(record) -> None:
    """A piece of the side to move, left where it stands but turned a quarter turn, is its
    move: a turn on the spot, judged by the engine. The same with no hand, a turn under 45
    degrees, or two pieces turned at once, is no move."""
    game = record[0]
    s, piece, board, j = _mover(record)
    turned = _turn(board, j, 90.0)
    pipe = referee(game, s)
    said = show(pipe, turned)
    assert said and said[0].startswith(f"{piece} turns on the spot"), said
    facing = next(p["facing"] for p in game.state_to_json(pipe.state)["pieces"] if p["id"] == piece)
    assert math.isclose(facing, turned.pieces[j].facing, abs_tol=0.1)
    quiet = referee(game, s)
    quiet._accept(turned, FrameResult(1, 0.0, "accepted"), False)  # no hand: the reader's doubt
    assert quiet.state is s
    small = referee(game, s)
    show(small, _turn(board, j, 30.0))
    assert small.state is s
    other = next(n for n in range(len(board.pieces)) if n != j)
    both = referee(game, s)
    show(both, _turn(turned, other, 90.0))
    assert both.state is s


def test_a_turn_on_the_spot_makes_a_still_window_a_new_position() -> None:
    """Every piece where it stood, one facing a quarter turn away: the window is accepted."""
    from tabletop.live.stability import Stability

    a = SeenBoard("the-game", (SeenPiece("red-piece", None, (5.0, 5.0), (0, 0, 1, 1), 0.9, 90.0),
                               SeenPiece("blue-piece", None, (15.0, 15.0), (0, 0, 1, 1), 0.9, 270.0)))
    b = replace(a, pieces=(replace(a.pieces[0], facing=180.0), a.pieces[1]))
    s = Stability(0.3)
    assert [s.update_board(t / 10, a) is not None for t in range(5)].count(True) == 1
    s.update_board(0.5, replace(b, hand_over_board=True))
    assert [s.update_board(0.6 + t / 10, b) is not None for t in range(5)].count(True) == 1
    c = replace(a, pieces=(replace(a.pieces[0], facing=160.0), a.pieces[1]))  # 20 degrees from b: the same
    s.update_board(1.2, replace(c, hand_over_board=True))
    assert [s.update_board(1.3 + t / 10, c) is not None for t in range(5)].count(True) == 0


def test_with_the_referee_rolling_an_act_is_read_by_its_closing_in(record: Any) -> None:
    """``--roll-dice``: the actor closes in, its target still standing, and the referee rolls
    the act's die. A roll that succeeds asks for the target to be laid on its side, and the
    field with it laid down then reads as nothing new; one that fails leaves the target to
    answer. Before, such an act was not read at all."""
    from tabletop.dice import SeededDice

    game, lines, states = record
    i = _act(game, lines, states, True)
    act = game.action_from_json(lines[i]["action"])
    closed = game.apply(states[i], act, [1])  # the closing in, the target still standing
    assert not any(e.kind == "elimination" for e in closed.events)
    target = lines[i]["action"]["target"]
    outcomes = {}
    for seed in range(40):
        step = game.apply(states[i], act, SeededDice(seed))
        outcomes.setdefault(any(e.kind == "elimination" for e in step.events), (seed, step.state))
    assert set(outcomes) == {True, False}
    for down, (seed, end) in outcomes.items():
        pipe = LivePipeline(game, states[i], None, None, None, rolls=Rolls([], seed=seed))
        pipe.base = field(game, states[i])
        said = show(pipe, field(game, closed.state))
        assert same(game.state_to_json(pipe.state), game.state_to_json(end)), said
        assert (f"Lay {target} on its side." in said) == down, said
        if down:  # laid down: the field the engine has, nothing more to read
            state = pipe.state
            assert show(pipe, field(game, end)) == [] and pipe.state is state


def test_a_turn_on_the_spot_by_the_other_side_is_read_with_the_stay_before_it(record: Any) -> None:
    """Red to move leaves R1 alone and Blue turns a piece on the spot: as with a move of
    Blue's, R1's stay is read first, then the turn. Before, the field's places showing
    nothing kept the stays from being tried, and the turn was flagged as out of turn."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "stay" and lines[i + 1]["action"]["type"] == "move"
              and game.state_to_json(states[i])["phase"] == "movement")
    stay, piece = lines[i]["action"], lines[i + 1]["action"]["piece"]
    assert stay["piece"][0] != piece[0]  # the other side's piece turns
    board = field(game, states[i])
    j = next(n for n, p in enumerate(game.state_to_json(states[i])["pieces"]) if p["id"] == piece)
    turned = _turn(board, j, 90.0)
    pipe = referee(game, states[i])
    said = show(pipe, turned)
    assert said[:1] == [f"{stay['piece']} stays where it is."], said
    assert any(s.startswith(f"{piece} turns on the spot") for s in said), said
    assert not any(s.startswith("Illegal") for s in said), said
    facing = next(p["facing"] for p in game.state_to_json(pipe.state)["pieces"] if p["id"] == piece)
    assert math.isclose(facing, turned.pieces[j].facing, abs_tol=0.1)


def test_with_the_referee_rolling_an_act_that_cannot_fail_is_read_by_its_closing_in(record: Any) -> None:
    """``--roll-dice``: an act whose number is below 1 knocks its target down whatever the
    die. Closed in with the target left standing, as the referee asks, it is the act (before,
    only rolls leaving the target standing were tried, and there was none)."""
    from tabletop.live.field import field_awaiting

    game, _, states = record
    found = None
    for s in states:
        for a in game.legal_actions(s):
            aj = game.action_to_json(a)
            if aj["type"] != "act" or dict(game.verdict(s, a).details or ()).get("number", 1) >= 1:
                continue
            step = game.apply(s, a, [6])
            was, now = ({p["id"]: p["at"] for p in game.state_to_json(x)["pieces"]} for x in (s, step.state))
            if math.dist(*((w[aj["piece"]]["x"], w[aj["piece"]]["y"]) for w in (was, now))) >= 0.3:
                found = (s, a, step, aj["target"])
                break
        if found:
            break
    assert found, "no act that cannot fail, visibly closing in, in the record"
    s, act, step, target = found
    before, knocked = field(game, s), field(game, step.state)
    at = next((p["at"]["x"], p["at"]["y"]) for p in game.state_to_json(s)["pieces"] if p["id"] == target)
    closed = replace(knocked, pieces=(*knocked.pieces, *(q for q in before.pieces if math.dist(q.point, at) < 1e-6)))
    assert len(closed.pieces) == len(before.pieces)
    assert field_awaiting(game, s, before, closed, [act], standing=True) == [act]


def test_with_the_referee_rolling_a_short_closing_in_is_not_read_nor_flagged(record: Any) -> None:
    """``--roll-dice``: R2 closes in on B2 by about 0.4" (the record's own act) and leaves it
    standing, as the referee asks: the field is within half an inch of the engine's, so no act
    is tried (docs/live.md says so, and to type the die instead); nothing is played, drawn or
    called illegal meanwhile."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "act" and a["piece"] == "R2" and a["target"] == "B2")
    closed = game.apply(states[i], game.action_from_json(lines[i]["action"]), [1]).state
    pipe = LivePipeline(game, states[i], None, None, None, rolls=Rolls([], seed=3))
    pipe.base = field(game, states[i])
    said = show(pipe, field(game, closed))
    assert pipe.state is states[i] and not any(s.startswith("Illegal") for s in said), said


def test_with_the_referee_rolling_a_free_response_is_not_read_nor_flagged(record: Any) -> None:
    """``--roll-dice``: after a failed act its target may answer, but it stands against the
    actor already: its closing in is nil, and nothing on the field tells the response from
    the answer declined (docs/live.md: type the die instead); nothing is played or called
    illegal meanwhile."""
    game, lines, states = record
    i = where(lines, lambda i, a: a["type"] == "act" and game.state_to_json(states[i + 1])["response"] is not None)
    s = states[i + 1]
    response = next(a for a in game.legal_actions(s) if game.action_to_json(a)["type"] == "act")
    closed = game.apply(s, response, [1]).state
    pipe = LivePipeline(game, s, None, None, None, rolls=Rolls([], seed=3))
    pipe.base = field(game, s)
    said = show(pipe, field(game, closed))
    assert pipe.state is s and not any(t.startswith("Illegal") for t in said), said


def test_after_a_turn_on_the_spot_is_undone_another_turn_is_read(record: Any) -> None:
    """A turn read and taken back (u): the table changing only by another piece turning, with
    every piece where it stood, is a change of the table: that turn is read (before, the
    undo waited for the places alone to change, so no turn was read until a piece moved)."""
    game = record[0]
    s, piece, board, j = _mover(record)
    pipe = referee(game, s)
    turned = _turn(board, j, 90.0)
    assert show(pipe, turned)[0].startswith(f"{piece} turns on the spot")
    assert pipe.undo() and pipe.state is s
    again = _turn(board, j, 180.0)  # the piece turned the other way instead
    said = show(pipe, again)
    assert said and said[0].startswith(f"{piece} turns on the spot"), said
    facing = next(p["facing"] for p in game.state_to_json(pipe.state)["pieces"] if p["id"] == piece)
    assert math.isclose(facing, again.pieces[j].facing, abs_tol=0.1)

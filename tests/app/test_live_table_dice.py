"""Dice thrown on the table read as the roll an action waits for (``LivePipeline._table_dice``,
``tabletop.live.rolls.thrown_d6`` and ``table_steps``): the d6 dice the table shows and the
last still position did not, taken in each order they could be (the table does not say
which die is whose), kept where the board then is the one seen. The boards are perfect
readings with the dice a detector would report."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from rules.registry import get_game
from tabletop.live.board import SeenBoard
from tabletop.live.outcomes import Fixed
from tabletop.live.pipeline import FrameResult, LivePipeline, Rolls
from tabletop.live.rolls import table_steps, thrown_d6

from . import test_live_the_game as tg
from .test_live_outcomes import Harness, _board, _replay, _same, feed, hand

#: North's Hydra Agent (c2) attacks South's Iron Man on the orange square b2 (the bundled
#: record's position 31): the attacker's die first, then the defender's.
ATTACK = {"type": "move", "piece": "hydra-agent", "from": "c2", "to": "b2"}


def _dice(board: SeenBoard, *faces: int) -> SeenBoard:
    return replace(board, dice=tuple(sorted(f"d6-{f}" for f in faces)))


def _attack(dice: list[int]) -> tuple[Any, Any, Any]:
    game, states, _ = _replay("battle-grounds")
    s = states[31]
    return game, s, game.apply(s, game.action_from_json(ATTACK), Fixed(dice)).state


def _referee(game: Any, s: Any, end_board: SeenBoard, before: SeenBoard | None = None, **kw: Any) -> Harness:
    pipe = Harness(game, s, None, None, None, rolls=Rolls([], **kw), window_s=0.3)
    first = before if before is not None else _board(game, s)
    t = feed(pipe, [first, hand(first)])
    feed(pipe, [end_board] * 4, t)
    return pipe


def test_thrown_dice_are_those_new_on_the_table() -> None:
    before = SeenBoard("battle-grounds", dice=("d6-3", "d6-3"))
    assert thrown_d6(before, SeenBoard("battle-grounds", dice=("d6-3", "d6-3"))) == []
    assert thrown_d6(before, SeenBoard("battle-grounds", dice=("d6-3", "d6-6", "d6-1"))) == [1, 6]
    assert thrown_d6(SeenBoard("battle-grounds"), SeenBoard("battle-grounds", dice=("chess-rook",))) == []


def test_a_battle_lost_is_played_with_the_dice_thrown() -> None:
    """The attacker gone and a 1 and a 4 on the table: 1 for the attacker loses; 4 for it is
    a tie, fought again with dice not thrown: the battle is read with 1 and 4."""
    game, s, end = _attack([1, 4])
    pipe = _referee(game, s, _dice(_board(game, end), 1, 4))
    assert _same(game, pipe.state, end), pipe.announced
    assert not any(text.startswith("A roll is needed") for _, text in pipe.announced), pipe.announced
    assert any("Hydra Agent 4 (3 + 1), Iron Man 10 (6 + 4)." in text for _, text in pipe.announced)


def test_the_table_s_result_says_which_die_is_whose() -> None:
    """A 6 and a 1: the attacker's 6 wins, its 1 loses. The table shows the attacker on b2: won."""
    game, s, end = _attack([6, 1])
    pipe = _referee(game, s, _dice(_board(game, end), 1, 6))
    assert _same(game, pipe.state, end), pipe.announced
    assert any("Hydra Agent wins by 2" in text for _, text in pipe.announced)


def test_dice_that_give_another_result_than_the_table_are_said_and_the_roll_asked_for() -> None:
    """The table shows the attack won with a 1 and a 4 beside it: no order wins it. Nothing
    is played; the dice are said not to fit and the roll is asked for, once."""
    game, s, won = _attack([6, 1])
    pipe = _referee(game, s, _dice(_board(game, won), 1, 4))
    assert pipe.state is s
    said = [text for _, text in pipe.announced]
    assert said.count("The dice on the table (1, 4) do not give what the board shows.") == 1, said
    assert sum(text.startswith("A roll is needed") for text in said) == 1, said


def test_dice_left_from_an_earlier_throw_are_not_read_again() -> None:
    game, s, end = _attack([1, 4])
    before = _dice(_board(game, s), 1, 4)
    pipe = _referee(game, s, _dice(_board(game, end), 1, 4), before)
    assert pipe.state is s and any(text.startswith("A roll is needed") for _, text in pipe.announced)


def _lying(board: SeenBoard, *dice: tuple[int, float, float]) -> SeenBoard:
    """``board`` with d6 dice (face, x, y): each a 12-pixel box at (x, y) of the frame."""
    dice = tuple(sorted(dice))
    return replace(board, dice=tuple(f"d6-{f}" for f, _, _ in dice),
                   dice_boxes=tuple((x, y, x + 12.0, y + 12.0) for _, x, y in dice))


def test_dice_thrown_again_to_the_faces_they_showed_are_read_where_they_now_lie() -> None:
    """A 1 and a 4 lay beside the board; they are thrown again and show a 1 and a 4 elsewhere:
    a throw, read as the battle's dice. Lying where they lay (a pixel or two off, as a detector
    boxes a still die), they are the old dice and the roll is asked for."""
    game, s, end = _attack([1, 4])
    before = _lying(_board(game, s), (1, 500, 40), (4, 530, 44))
    pipe = _referee(game, s, _lying(_board(game, end), (1, 420, 300), (4, 380, 310)), before)
    assert _same(game, pipe.state, end), pipe.announced
    assert any("Hydra Agent 4 (3 + 1), Iron Man 10 (6 + 4)." in text for _, text in pipe.announced)
    still = _referee(game, s, _lying(_board(game, end), (1, 501, 41), (4, 529, 45)), before)
    assert still.state is s and any(text.startswith("A roll is needed") for _, text in still.announced)
    one = _referee(game, s, _lying(_board(game, end), (1, 501, 41), (4, 300, 200)), before)
    assert one.state is s, one.announced  # the 4 alone thrown: no battle is fought with one die
    assert thrown_d6(before, _lying(_board(game, end), (1, 501, 41), (4, 300, 200))) == [4]


def test_dice_given_come_before_the_table_s() -> None:
    """Dice typed (6, 1) are the roll; a 1 and a 4 lying on the table are not looked at."""
    game, s, won = _attack([6, 1])
    pipe = Harness(game, s, None, None, None, rolls=Rolls([6, 1]), window_s=0.3)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_dice(_board(game, won), 1, 4)] * 4, t)
    assert _same(game, pipe.state, won), pipe.announced


def test_orders_that_end_alike_are_one_and_unused_dice_fit_no_order() -> None:
    game, s, _ = _attack([2, 2])
    action = game.action_from_json(ATTACK)
    assert len(table_steps(game, s, action, [2, 2])) == 1
    assert table_steps(game, s, action, [2, 2, 5]) == []  # a die more than the battle throws
    both = table_steps(game, s, action, [6, 1])
    assert len(both) == 2 and len(table_steps(game, s, action, [6, 1], lambda step: "wins by 2" in
                                              " ".join(e.text for e in step.events))) == 1


def _the_game() -> tuple[Any, list[dict[str, Any]], list[Any]]:
    lines = [json.loads(x) for x in tg.RECORD.read_text().splitlines() if x.strip()]
    game = get_game("the-game", lines[0].get("options") or {})
    states = [game.initial_state()]
    for e in lines[1:]:
        states.append(game.apply(states[-1], game.action_from_json(e["action"]), e.get("rolls", [])).state)
    return game, lines[1:], states


def test_the_game_s_act_is_played_with_the_die_thrown_on_the_field() -> None:
    """The Game: the actor closed in, its target down and the die beside them: the act is
    played with it. A die that fails the act, with the target down, is said not to fit, and
    the roll asked for."""
    game, lines, states = _the_game()
    i = tg._act(game, lines, states, True)
    face = lines[i]["rolls"][0]
    pipe = tg.referee(game, states[i])
    said = tg.show(pipe, _dice(tg.field(game, states[i + 1]), face))
    assert tg.same(game.state_to_json(pipe.state), game.state_to_json(states[i + 1])), said
    failing = [f for f in range(1, 7)
               if not any(e.kind == "elimination" for e in
                          game.apply(states[i], game.action_from_json(lines[i]["action"]), [f]).events)]
    assert failing
    pipe = tg.referee(game, states[i])
    said = tg.show(pipe, _dice(tg.field(game, states[i + 1]), failing[0]))
    assert pipe.state is states[i], said
    assert f"The dice on the table ({failing[0]}) do not give what the board shows." in said, said
    assert any(s.startswith("A roll is needed") for s in said), said


@pytest.mark.parametrize("index", [24, 46, 62])
def test_the_die_of_an_end_of_movement_read_from_the_move_after_it_is_read_off_the_table(index: int) -> None:
    """OneWorld: the other side's move seen with the reinforcement's die beside the board:
    the end of movement is played with it and the move after it, with no roll asked for."""
    game, states, entries = _replay("oneworld")
    rolls = list(entries[index]["rolls"])
    assert len(rolls) == 1 and not entries[index + 1].get("rolls")
    pipe = LivePipeline(game, states[index], None, None, None, rolls=Rolls([]))
    pipe.base = _board(game, states[index])
    result = FrameResult(1, 0.0, "accepted")
    pipe._accept(_dice(_board(game, states[index + 2]), rolls[0]), result, True)
    assert [k for k, _ in result.announcements] == ["legal", "legal"], result.announcements
    assert _same(game, pipe.state, states[index + 2])


def test_a_battle_on_white_is_fought_with_the_dice_thrown_once_its_stat_is_chosen() -> None:
    """An attack on a white square: its roll-off is not read from the dice on the table (they
    are the battle's, thrown last): it is asked for; once given and the stat chosen, the
    battle is fought with the table's dice in the order that gives the result shown."""
    from . import test_live_battle_stat as bs

    game = bs._game()
    s, end = bs._battle(game, "strength", [2, 5], [6, 1])
    pipe = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3, choices=["Strength"])
    pipe.rolls.typed = True
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_dice(_board(game, end), 1, 6)] * 4, t)
    assert pipe.state is s and any(text.startswith("A roll is needed") for _, text in pipe.announced)
    for die in (2, 5):
        pipe.rolls.type(die)
    feed(pipe, [_dice(_board(game, end), 1, 6)] * 4, t)
    assert _same(game, pipe.state, end), pipe.announced
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced


def test_battle_dice_thrown_only_once_the_stat_is_asked_for_are_read() -> None:
    """The attack on white played out with no dice beside it; the roll-off typed and the stat
    chosen, the battle dice are asked for; thrown then (a 1 and a 6), the next still position
    shows them and the battle is fought with them, in the order that gives the result shown.
    Read once: they are not taken again as a later throw."""
    from tabletop.live.rolls import thrown_d6

    from . import test_live_battle_stat as bs

    game = bs._game()
    s, end = bs._battle(game, "strength", [2, 5], [6, 1])
    pipe = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3, choices=["Strength"])
    pipe.rolls.typed = True
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, end)] * 4, t)
    for die in (2, 5):
        pipe.rolls.type(die)
    t = feed(pipe, [_board(game, end)] * 4, t)
    asked = [text for _, text in pipe.announced if text.startswith("A roll is needed")]
    assert pipe.state is not s and not _same(game, pipe.state, end) and asked, pipe.announced
    feed(pipe, [_dice(_board(game, end), 1, 6)] * 4, t)
    assert _same(game, pipe.state, end), pipe.announced
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    assert pipe.base is not None and thrown_d6(pipe.base, _dice(_board(game, end), 1, 6)) == []


def test_an_undo_gives_back_no_dice_read_off_the_table() -> None:
    """The battle read with the 1 and the 4 on the table, then taken back (u): those dice lie
    on the table, not typed, so none is given back; thrown again (a 6 and a 1) with the
    attacker on b2, the battle is read with the new dice, as the table shows it won."""
    game, s, lost = _attack([1, 4])
    _, _, won = _attack([6, 1])
    pipe = _referee(game, s, _dice(_board(game, lost), 1, 4))
    assert _same(game, pipe.state, lost), pipe.announced
    assert pipe.undo() and pipe.state is s and pipe.rolls.given == []
    t = feed(pipe, [hand(_board(game, s))], 10.0)
    feed(pipe, [_dice(_board(game, won), 1, 6)] * 4, t)
    assert _same(game, pipe.state, won), pipe.announced


def test_more_dice_than_any_throw_are_not_tried() -> None:
    """Five new dice (stray boxes among them, say): no order is tried, the roll is asked for."""
    game, s, _ = _attack([1, 4])
    assert table_steps(game, s, game.action_from_json(ATTACK), [1, 4, 2, 3, 5]) == []


def test_a_roll_thrown_again_to_the_faces_the_dice_showed_is_read_where_they_now_lie() -> None:
    """When Gods Collide awaits a roll (the bundled record's position 42: the rook and a 4
    are thrown). The chess die and the d6 beside the board already show a rook and a 4 from
    an earlier throw. Thrown again to the same faces and lying elsewhere, nothing else
    changed on the table: a new still position, and the roll is read. Lying where they lay
    (a detector's box or two off), they are the old dice: nothing is read."""
    game, states, entries = _replay("when-gods-collide")
    s = states[42]
    assert entries[42]["action"] == {"type": "roll", "chess": "rook", "number": 4}

    def lying(*at: tuple[float, float]) -> SeenBoard:
        boxes = tuple((x, y, x + 0.8, y + 0.8) for x, y in at)
        return replace(_board(game, s), dice=("chess-rook", "d6-4"), dice_boxes=boxes)

    before = lying((9.0, 1.0), (9.0, 2.5))
    pipe = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3)
    t = feed(pipe, [before])
    feed(pipe, [lying((9.1, 1.0), (9.0, 2.6))] * 4, t)  # a box wavering: the dice lie still
    assert pipe.state is s, pipe.announced
    thrown = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3)
    t = feed(thrown, [before])
    feed(thrown, [lying((10.5, 4.0), (11.2, 3.1))] * 4, t)
    assert _same(game, thrown.state, states[43]), thrown.announced


def test_one_frame_whose_die_box_jumps_is_no_throw() -> None:
    """When Gods Collide awaits a roll; the rook and the 4 of an earlier throw lie still
    beside the board. In one frame the detector puts the 4's box elsewhere (a glitch, no
    hand, no motion): the window's vote is where the die lay in most of its frames, so no
    roll is read from dice nobody threw."""
    game, states, _ = _replay("when-gods-collide")
    s = states[42]

    def lying(*at: tuple[float, float]) -> SeenBoard:
        boxes = tuple((x, y, x + 0.8, y + 0.8) for x, y in at)
        return replace(_board(game, s), dice=("chess-rook", "d6-4"), dice_boxes=boxes)

    still, glitch = lying((9.0, 1.0), (9.0, 2.5)), lying((9.0, 1.0), (11.0, 4.0))
    pipe = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3)
    t = feed(pipe, [still])
    t = feed(pipe, [glitch], t, n=1)
    feed(pipe, [still], t)
    assert pipe.state is s, pipe.announced


def test_two_dice_of_one_face_lying_side_by_side_are_matched_each_to_its_own_place() -> None:
    """Two 3s lie side by side (their boxes 1.4 wide, their centres 1.0 apart). In the next
    window the right one's box wavers 0.4 towards the left one (within SAME_PLACE of both)
    and is listed first: each die still lies where one lay, so none was thrown. Matched
    greedily, the wavering box took the left die's place and the left die counted as thrown."""
    from tabletop.live.rolls import thrown

    def at(*xs: float) -> SeenBoard:
        return SeenBoard("oneworld", dice=("d6-3",) * len(xs), dice_boxes=tuple((x, 0.0, x + 1.4, 1.4) for x in xs))

    assert thrown(at(0.0, 1.0), at(0.6, 0.0)) == []
    assert thrown_d6(at(0.0, 1.0), at(0.6, 0.0)) == []
    assert thrown(at(0.0, 1.0), at(0.6, 3.0)) == ["d6-3"]  # one lies still, the other was thrown again


def test_a_roll_taken_back_and_thrown_again_to_the_same_faces_is_read() -> None:
    """When Gods Collide: the rook and the 4 thrown are read as the roll, and the roll taken
    back (``u``): nothing is read while the table stays as the undo left it. The dice thrown
    again, showing the same faces but lying elsewhere, are a change of the table: the roll is
    read again."""
    game, states, _ = _replay("when-gods-collide")
    s = states[42]

    def lying(*at: tuple[float, float]) -> SeenBoard:
        boxes = tuple((x, y, x + 0.8, y + 0.8) for x, y in at)
        return replace(_board(game, s), dice=("chess-rook", "d6-4"), dice_boxes=boxes)

    pipe = Harness(game, s, None, None, None, rolls=Rolls([]), window_s=0.3)
    t = feed(pipe, [replace(_board(game, s), dice=("chess-rook", "d6-2"),
                            dice_boxes=((9.0, 1.0, 9.8, 1.8), (9.0, 2.5, 9.8, 3.3)))])
    first = lying((10.5, 4.0), (11.2, 3.1))
    t = feed(pipe, [hand(first), first], t)
    assert _same(game, pipe.state, states[43]), pipe.announced
    assert pipe.undo() and pipe.state is s
    t = feed(pipe, [first], t)
    assert pipe.state is s, pipe.announced  # the table as the undo left it: nothing read
    again = lying((8.0, 6.0), (7.0, 5.0))
    feed(pipe, [hand(again), again], t)
    assert _same(game, pipe.state, states[43]), pipe.announced


def _through_the_mapper(game: Any, s: Any, boards: list[SeenBoard]) -> LivePipeline:
    """A live pipeline that reads each frame (a seen board, as a mapper would make it) the
    way it reads a camera's, through ``_read``: detection and mapping doubles hand the board on."""
    from tabletop.live.pipeline import FrameView

    class Mapper:
        def map(self, det: Any, *args: Any) -> SeenBoard:
            return det

    pipe = LivePipeline(game, s, lambda frame: frame, lambda frame: FrameView(None, None, "x"), Mapper(),
                        rolls=Rolls([]), window_s=0.3)
    pipe.announced = []
    pipe._announce = lambda result, text, kind="info": pipe.announced.append((kind, text))
    feed(pipe, boards)
    return pipe


def _with_unsure(board: SeenBoard, at: tuple[float, float, float, float]) -> SeenBoard:
    """``board`` as the mapper makes it with a die it cannot read the face of lying ``at``."""
    return replace(board, dice=(), dice_boxes=(), unsure_dice=1, unsure_boxes=(at,), sure_dice=board.dice,
                   sure_boxes=board.dice_boxes)


def test_something_unsure_lying_still_keeps_no_throw_from_being_read() -> None:
    """Something the d6 finder boxes as a die and cannot read the face of (a leaf, a hex of
    the map) lies beside the board from the start: the battle's two dice thrown beside it are
    read as its roll. Where it was not lying before (it may be a die of the throw), the throw
    is held back and the roll asked for."""
    game, s, end = _attack([1, 4])
    leaf = (30.0, 30.0, 31.0, 31.0)
    start = _with_unsure(_board(game, s), leaf)
    thrown = replace(_board(game, end), dice=("d6-1", "d6-4"), dice_boxes=((5.0, 5.0, 6.0, 6.0), (8.0, 5.0, 9.0, 6.0)))
    pipe = _through_the_mapper(game, s, [start, hand(start), _with_unsure(thrown, leaf)])
    assert _same(game, pipe.state, end), pipe.announced
    assert any("Hydra Agent 4 (3 + 1), Iron Man 10 (6 + 4)." in text for _, text in pipe.announced)
    elsewhere = _through_the_mapper(game, s, [start, hand(start), _with_unsure(thrown, (12.0, 3.0, 13.0, 4.0))])
    assert elsewhere.state is s
    assert any(text.startswith("A roll is needed") for _, text in elsewhere.announced), elsewhere.announced


def test_a_die_of_the_throw_unsure_of_its_face_is_not_set_aside_once_the_throw_is_held_back() -> None:
    """The battle's 1 read surely and its 4 not: the throw is held back and the roll asked
    for. The table then lies still: the 4 lies where a die unsure of its face lay at the last
    still position (the throw's own), but it was thrown since the position the throw is read
    from, and is not set aside: the 1 alone is never taken for the table's dice."""
    game, s, end = _attack([1, 4])
    start = _board(game, s)
    thrown = replace(_board(game, end), dice=("d6-1", "d6-4"), dice_boxes=((5.0, 5.0, 6.0, 6.0), (8.0, 5.0, 9.0, 6.0)))
    four_unsure = replace(thrown, dice=(), dice_boxes=(), unsure_dice=1, unsure_boxes=((8.0, 5.0, 9.0, 6.0),),
                          sure_dice=("d6-1",), sure_boxes=((5.0, 5.0, 6.0, 6.0),))
    pipe = _through_the_mapper(game, s, [start, hand(start)] + [four_unsure] * 6)
    assert pipe.state is s
    said = [text for _, text in pipe.announced]
    assert sum(text.startswith("A roll is needed") for text in said) == 1, said
    assert not any(text.startswith("The dice on the table (1)") for text in said), said
    assert pipe._still.dice == () and pipe._still.unsure_dice == 1

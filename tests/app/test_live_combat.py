"""OneWorld's combat in the live referee (``tabletop.live.combat``): a round among children
read off the table, revealed or with its eliminated taken off, after the end of movement it
shows; a child's fight with a god, whose aspects are asked for. The board is read by a
perfect detector that counts like counters (one box per counter)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tabletop.live.board import SeenBoard, SeenPiece
from tabletop.live.combat import read_round, round_words, taken_off
from tabletop.live.outcomes import engine_pieces
from tabletop.live.pipeline import Rolls
from tabletop.live.record import LiveRecord

from .test_live_outcomes import Harness, _replay, _same, feed, hand


def _pieces(pieces: Counter[tuple[str, str]], game: str = "oneworld") -> SeenBoard:
    """A box per counter of ``pieces`` ((cell, class) counts)."""
    return SeenBoard(game, tuple(SeenPiece(cls, cell, (0.0, 0.0), (0.0, 0.0, 10.0, 10.0), 0.9)
                                 for cell, cls in sorted(pieces.elements())))


def _board(game: Any, state: Any) -> SeenBoard:
    return _pieces(engine_pieces(game, state))


def _revealed(game: Any, state: Any, cell: str, shown: dict[str, list[str]]) -> SeenBoard:
    """The board of ``state`` with the children in ``cell`` showing the aspects ``shown``."""
    pieces = Counter({k: n for k, n in engine_pieces(game, state).items()
                      if not (k[0] == cell and k[1].split("-")[1] in ("stone", "blade", "fog"))})
    for side, aspects in shown.items():
        pieces.update((cell, f"{side}-{a}") for a in aspects)
    return _pieces(pieces)


def _pipe(game: Any, state: Any, record: Any = None, choices: list[str] | None = None) -> Harness:
    return Harness(game, state, None, None, None, rolls=Rolls([]), window_s=0.3, record=record,
                   **({"choices": choices} if choices is not None else {}))


def test_a_round_with_its_eliminated_taken_off_is_read_after_the_end_of_movement(tmp_path: Path, cli) -> None:
    """The bundled record's first combat (lines 20 to 22): BORG ends its movement with B2 and
    B8 in C's hex 0411; BORG reveals Stone+Fog, CHEZ Stone, and CHEZ's Stone falls. The table,
    once the players took it off, is read as the end of movement and both choices; the record
    replays."""
    game, states, _ = _replay("oneworld")
    rec = LiveRecord.create(tmp_path / "g.jsonl", game.name, game.options_to_json(), game.state_to_json(states[18]),
                            sync=False)
    pipe = _pipe(game, states[18], rec)
    t = feed(pipe, [_board(game, states[18]), hand(_board(game, states[18]))])
    feed(pipe, [_board(game, states[21])] * 4, t)
    rec.close()
    assert _same(game, pipe.state, states[21])
    said = [text for kind, text in pipe.announced if kind == "legal"]
    assert any(text.startswith("Round 1 at 0411: BORG Stone+Fog; CHEZ Stone. Eliminated: CHEZ Stone") for text in said), said
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    lines = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [li["action"]["type"] for li in lines if "action" in li] == ["end-movement", "transform", "transform"]
    assert cli("rules", "replay", str(tmp_path / "g.jsonl")).code == 0


def test_a_round_revealed_is_read_and_its_eliminated_are_to_come_off() -> None:
    """The same round seen revealed, CHEZ's Stone still in the hex: read, the players told to
    take the eliminated off; once they do, nothing more is read, and CHEZ's next move is."""
    game, states, entries = _replay("oneworld")
    s = states[19]  # the combat phase: the end of movement read already
    shown = _revealed(game, s, "0411", {"borg": ["stone", "fog"], "chez": ["stone"]})
    pipe = _pipe(game, s)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [shown] * 4, t)
    assert _same(game, pipe.state, states[21])
    assert ("info", "Take the eliminated counters off the table.") in pipe.announced
    n = len(pipe.announced)
    t = feed(pipe, [hand(shown)] + [_board(game, states[21])] * 4, t)
    assert pipe.announced[n:] == [] and _same(game, pipe.state, states[21])
    nxt = game.apply(states[21], game.action_from_json(entries[21]["action"]), []).state  # C9 to 0717
    feed(pipe, [hand(_board(game, states[21]))] + [_board(game, nxt)] * 4, t)
    assert _same(game, pipe.state, nxt), pipe.announced


def test_a_round_needs_a_hand_over_the_board() -> None:
    """Counters read otherwise with no hand seen are a detector's doubt, never a round."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    pipe = _pipe(game, s)
    feed(pipe, [_board(game, s)] + [_board(game, states[21])] * 4)
    assert _same(game, pipe.state, s)


def test_the_round_read_is_the_one_whose_counts_the_table_shows() -> None:
    """Of the pairs of choices that leave the same classes in the hex, the one with the
    counts seen: BORG Stone+Stone against CHEZ Blade leaves two Stones, Stone+Fog one."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    for borg, left in ((["stone", "stone"], 2), (["stone", "fog"], 1)):
        end = s
        for side, aspects in (("borg", borg), ("chez", ["blade"])):
            end = game.apply(end, game.action_from_json({"type": "transform", "side": side, "hex": "0411",
                                                          "aspects": aspects}), []).state
        assert engine_pieces(game, end)[("0411", "borg-stone")] == left
        found, one = read_round(game, s, _board(game, s), _board(game, end), Rolls([]))
        assert one and found and _same(game, found[0].run[-1].step.state, end)
        assert [json.loads(json.dumps(game.action_to_json(o.action)))["aspects"] for o in found[0].run] == [borg, ["blade"]]


def test_one_of_two_like_counters_eliminated_is_read_by_the_counts() -> None:
    """BORG's two Blades (B2, B8) against CHEZ's Blade: BORG reveals Blade+Fog, CHEZ Blade, and
    BORG's Fog falls. With it taken off, the hex shows the same classes as before, one Blade
    fewer. In a combat under way that is the round; the same table before the end of
    movement is no reading of it."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    assert {k: n for k, n in engine_pieces(game, s).items() if k[0] == "0411"} == \
        {("0411", "borg-blade"): 2, ("0411", "chez-blade"): 1}
    end = s
    for side, aspects in (("borg", ["blade", "fog"]), ("chez", ["blade"])):
        end = game.apply(end, game.action_from_json({"type": "transform", "side": side, "hex": "0411",
                                                      "aspects": aspects}), []).state
    assert {k: n for k, n in engine_pieces(game, end).items() if k[0] == "0411"} == \
        {("0411", "borg-blade"): 1, ("0411", "chez-blade"): 1}
    pipe = _pipe(game, s)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, end)] * 4, t)
    assert _same(game, pipe.state, end), pipe.announced
    assert read_round(game, states[18], _board(game, states[18]), _board(game, end), Rolls([])) == ([], False)


def test_taken_off_leaves_the_least_sure_box_of_each_eliminated() -> None:
    board = SeenBoard("oneworld", (SeenPiece("chez-stone", "0411", (0, 0), (0, 0, 1, 1), 0.9),
                                   SeenPiece("chez-stone", "0411", (0, 0), (0, 0, 1, 1), 0.4),
                                   SeenPiece("borg-fog", "0411", (0, 0), (0, 0, 1, 1), 0.8)))
    left = taken_off(board, [("0411", "chez-stone")])
    assert sorted((p.cls, p.confidence) for p in left.pieces) == [("borg-fog", 0.8), ("chez-stone", 0.9)]


def test_a_fight_with_a_god_asks_for_both_aspects_and_the_round_after_it_is_read() -> None:
    """The record's lines 173 to 177: CHEZ ends its movement with C12 in BORG's god's hex and
    C7 in BORG's hex 0603. The child gone from the god's hex is the end of movement; the
    child's aspect and the god's are asked for (``--choices``), and the round at 0603 is then
    read off the table."""
    game, states, _ = _replay("oneworld")
    s = states[172]
    pipe = _pipe(game, s, choices=["c1", "Blade"])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, states[175])] * 4, t)
    assert _same(game, pipe.state, states[175]), pipe.announced
    assert any("BORG loses a life!" in text for _, text in pipe.announced)
    feed(pipe, [hand(_board(game, states[175]))] + [_board(game, states[177])] * 4, t)
    assert _same(game, pipe.state, states[177]), pipe.announced


def test_a_fight_with_a_god_waits_for_its_aspects_without_them() -> None:
    """With no choices given, the child's aspect is asked for once, and the board is not read
    as anything else meanwhile; at the keys, the god's is asked for next."""
    game, states, _ = _replay("oneworld")
    s = states[172]
    pipe = _pipe(game, s)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, states[175])] * 8, t)
    assert _same(game, pipe.state, states[173])
    prompts = [text for _, text in pipe.announced if ": c1" in text]
    assert prompts == [("Chez gives the aspect the attacking child shows: c1 Stone, c2 Blade, c3 Fog. "
                        "Give it with --choices (the game waits for it).")]
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    assert pipe.next_choice().startswith("choice c1: Stone")
    pipe.choose_current()
    assert [text for _, text in pipe.announced if ": c1" in text][-1].startswith(
        "Borg gives the aspect its god announces: c1 Stone, c2 Blade, c3 Fog.")


def test_a_counter_added_to_a_like_counter_is_read_by_the_counts() -> None:
    """An end of movement whose reinforcement (a die of 3: a Blade) lands on the Tower hex,
    where a CHEZ Blade already stands: no class is new there, one more is; read as the end of
    movement with its roll (the reading by classes alone saw no change)."""
    game, states, _ = _replay("oneworld")
    s = states[141]
    action = game.action_from_json({"type": "end-movement", "side": "chez"})
    after = game.apply(s, action, [3]).state
    ((cell, cls),) = (engine_pieces(game, after) - engine_pieces(game, s)).elements()  # one counter more
    assert cls == "chez-blade" and engine_pieces(game, s)[(cell, cls)] >= 1  # on a like counter
    pipe = Harness(game, s, None, None, None, rolls=Rolls([3]), window_s=0.3)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, after)] * 4, t)
    assert _same(game, pipe.state, after), pipe.announced


def test_covers_lets_a_counter_put_on_top_hide_what_lies_under_it() -> None:
    """A reinforcement put on its Tower hides the Tower; the dead laid beneath their Tower may
    show there; nothing else may differ."""
    from tabletop.live.outcomes import covers

    reinforced = (frozenset({("1412", "borg-blade")}), frozenset())
    assert covers((frozenset({("1412", "borg-blade")}), frozenset({("1412", "borg-tower")})), reinforced)
    assert not covers((frozenset({("1412", "borg-blade")}), frozenset({("0101", "borg-tower")})), reinforced)
    assert not covers((frozenset(), frozenset()), reinforced)
    laid = {("0112", "chez-stone")}
    assert covers((frozenset({("0112", "chez-stone")}), frozenset({("0112", "chez-tower")})),
                  (frozenset(), frozenset()), laid)
    assert not covers((frozenset({("0112", "chez-fog")}), frozenset()), (frozenset(), frozenset()), laid)


def test_a_counter_hidden_before_the_round_is_not_read_as_fallen() -> None:
    """CHEZ's Blade in 0411 is hidden under BORG's two Blades before and after: a round that
    eliminates it fits no better than one that leaves it hidden there, so when both fit, the
    table cannot tell which."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    hide = Counter({("0411", "chez-blade"): 1})
    base = _pieces(engine_pieces(game, s) - hide)
    found, one = read_round(game, s, base, _pieces(engine_pieces(game, s) - hide - Counter({("0411", "borg-blade"): 1})
                                                   + Counter({("0411", "borg-stone"): 1})), Rolls([]))
    ends = {json.dumps(game.state_to_json(f.run[-1].step.state), sort_keys=True) for f in found}
    assert len(found) >= 2 and not one and len(ends) >= 2
    assert any(game.state_to_json(f.run[-1].step.state)["children"] and
               any(c["id"] == "C11" for c in game.state_to_json(f.run[-1].step.state)["children"]) for f in found)


def test_a_reinforcement_die_used_by_the_end_of_movement_before_a_round_is_used_once() -> None:
    """The record's lines 77 to 79: BORG ends its movement rolling 3 for a reinforcement, and
    the round at 0605 follows, read off the table. The die went to the reinforcement: none is
    left over for the next roll the rules ask for."""
    game, states, _ = _replay("oneworld")
    s = states[76]
    pipe = Harness(game, s, None, None, None, rolls=Rolls([3]), window_s=0.3)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, states[79])] * 4, t)
    assert _same(game, pipe.state, states[79]), pipe.announced
    assert pipe.rolls.given == []


def test_a_fight_with_a_god_after_an_end_of_movement_with_a_reinforcement_is_read() -> None:
    """The record's line 181: BORG ends its movement rolling 4 (a Blade on its Tower) with B8
    in CHEZ's god's hex. The table shows the reinforcement and the child gone: the end of
    movement, its aspects then asked for; not a move of B8 flagged as illegal."""
    game, states, _ = _replay("oneworld")
    s, after = states[180], states[181]
    cell = after.combat.hex.label()
    table = Counter({k: n for k, n in engine_pieces(game, after).items()
                     if not (k[0] == cell and not k[1].endswith(("-god", "-tower")))})
    pipe = Harness(game, s, None, None, None, rolls=Rolls([4]), window_s=0.3)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_pieces(table)] * 4, t)
    assert _same(game, pipe.state, after), pipe.announced
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    assert any(text.startswith("Borg gives the aspect the attacking child shows") for _, text in pipe.announced)


def test_a_round_revealed_that_ends_the_turn_with_a_tower_moving_expects_the_tower_moved() -> None:
    """With moving Towers, the round revealed at 0411 ends the turn and BORG's Tower moves
    (1412 to 1413). Only the eliminated counter is to come off; the table the referee then
    expects has the Tower where the engine moved it, so the table once the players took C11
    off and moved the Tower is the position read."""
    from rules.registry import get_game

    game0, states, _ = _replay("oneworld")
    game = get_game("oneworld", {**game0.options_to_json(), "moving_towers": "clockwise"})
    s = game.state_from_json(game0.state_to_json(states[19]))
    end = s
    for side, aspects in (("borg", ["stone", "fog"]), ("chez", ["stone"])):
        end = game.apply(end, game.action_from_json({"type": "transform", "side": side, "hex": "0411",
                                                      "aspects": aspects}), []).state
    shown = _revealed(game, s, "0411", {"borg": ["stone", "fog"], "chez": ["stone"]})
    (rr,), one = read_round(game, s, _board(game, s), shown, Rolls([]))
    assert one and rr.revealed and rr.dead == (("0411", "chez-stone"),)
    pipe = _pipe(game, s)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [shown] * 4, t)
    assert _same(game, pipe.state, end)
    assert pipe.base.cells() == _board(game, end).cells()


def test_a_side_partly_hidden_before_is_not_read_as_having_lost_a_counter() -> None:
    """Before the round the camera saw none of BORG's two Blades in 0411 (under CHEZ's Blade);
    after it, one BORG Fog. BORG Blade+Fog against CHEZ Stone leaves exactly that, but so may
    BORG Stone+Fog, the Stone hidden: the round is not read as BORG losing its Blade."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    base = _pieces(engine_pieces(game, s) - Counter({("0411", "borg-blade"): 2}))
    after = _pieces(engine_pieces(game, s) - Counter({("0411", "borg-blade"): 2, ("0411", "chez-blade"): 1})
                    + Counter({("0411", "borg-fog"): 1}))
    found, one = read_round(game, s, base, after, Rolls([]))
    assert found and not one
    words = {round_words(game, f.run) for f in found}
    assert "BORG Blade+Fog against CHEZ Stone" in words and "BORG Stone+Fog against CHEZ Stone" in words


def test_a_round_the_table_cannot_tell_is_chosen_at_the_keys() -> None:
    """CHEZ's Blade hidden before and after: the referee names the rounds that fit and, in the
    window, c goes through them and Enter plays the one fought (recorded as any round)."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    hide = Counter({("0411", "chez-blade"): 1})
    before = _pieces(engine_pieces(game, s) - hide)
    after = _pieces(engine_pieces(game, s) - hide - Counter({("0411", "borg-blade"): 1})
                    + Counter({("0411", "borg-stone"): 1}))
    pipe = _pipe(game, s)
    pipe.rolls.typed = True
    t = feed(pipe, [before, hand(before)])
    feed(pipe, [after] * 4, t)
    assert pipe.state is s
    said = [text for _, text in pipe.announced if text.startswith("Cannot read the move: the combat round could be")]
    assert len(said) == 1 and said[0].endswith("c goes through them and Enter plays the one fought."), said
    assert pipe.choice_status() == "the table cannot tell the combat round: c to go through them"
    first = pipe.next_choice()
    second = pipe.next_choice()
    assert first.startswith("round c1: BORG") and second.startswith("round c2: BORG"), (first, second)
    words = second.split(": ", 1)[1].split(" (Enter")[0]
    pipe.choose_current()
    chosen = {round_words(game, f.run): f for f in read_round(game, s, before, after, Rolls([]))[0]}
    assert _same(game, pipe.state, chosen[words.replace(" (revealed)", "")].run[-1].step.state)
    assert pipe.next_choice() == "no choice awaited"


def _hidden_round(game: Any, s: Any) -> tuple[SeenBoard, SeenBoard]:
    """The table of ``s`` (position 19) with CHEZ's Blade in 0411 hidden, and after a round
    that turns one BORG Blade to a Stone: rounds the table cannot tell apart."""
    hide = Counter({("0411", "chez-blade"): 1})
    before = _pieces(engine_pieces(game, s) - hide)
    after = _pieces(engine_pieces(game, s) - hide - Counter({("0411", "borg-blade"): 1})
                    + Counter({("0411", "borg-stone"): 1}))
    return before, after


def test_a_round_the_table_cannot_tell_is_given_with_choices() -> None:
    """Without a window, the rounds that fit are named with their keys, and the next
    ``--choices`` value, by key or by its words (any case), plays the one fought."""
    game, states, _ = _replay("oneworld")
    s = states[19]
    before, after = _hidden_round(game, s)
    chosen = {round_words(game, f.run): f for f in read_round(game, s, before, after, Rolls([]))[0]}
    assert len(chosen) > 1
    pipe = _pipe(game, s)
    t = feed(pipe, [before, hand(before)])
    feed(pipe, [after] * 4, t)
    said = [text for _, text in pipe.announced if text.startswith("Cannot read the move: the combat round could be c1 ")]
    assert len(said) == 1 and said[0].endswith("give the one fought with --choices."), pipe.announced
    listed = said[0].split("could be ", 1)[1].split(": the table", 1)[0]
    keyed = dict(item.split(" ", 1) for item in listed.split(", c"))
    second = keyed["2"].removesuffix(" (revealed)")
    for value, words in (("c2", second), (second.upper(), second)):
        pipe = _pipe(game, s, choices=[value])
        t = feed(pipe, [before, hand(before)])
        feed(pipe, [after] * 4, t)
        assert pipe.choices == [], (value, pipe.announced)
        assert not any(text.startswith("Cannot read") for _, text in pipe.announced), pipe.announced
        assert _same(game, pipe.state, chosen[words].run[-1].step.state), (value, pipe.announced)


def test_a_choices_value_naming_no_round_is_refused_and_the_rounds_named() -> None:
    game, states, _ = _replay("oneworld")
    s = states[19]
    before, after = _hidden_round(game, s)
    pipe = _pipe(game, s, choices=["Strength"])
    t = feed(pipe, [before, hand(before)])
    feed(pipe, [after] * 4, t)
    assert pipe.state is s and pipe.choices == []
    assert any(kind == "illegal" and "'Strength' refused" in text for kind, text in pipe.announced), pipe.announced
    assert any(text.startswith("Cannot read the move: the combat round could be c1 ") for _, text in pipe.announced)

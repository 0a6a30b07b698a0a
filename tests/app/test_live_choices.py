"""Choices the board cannot show (``tabletop.live.choices``): Battle Grounds' Dice Zone picks
after a battle, entered at the window's keys or with ``--choices``, played through the engine,
recorded, replayed and undone; a choice that is none of those awaited is refused. The board is
read by a perfect detector (the harness of ``test_live_outcomes``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.core import CHANCE
from tabletop.live.choices import CHOICES, awaited
from tabletop.live.infer import PASSES
from tabletop.live.outcomes import DECIDING, engine_cells
from tabletop.live.pipeline import LivePipeline, Rolls
from tabletop.live.record import LiveRecord
from tabletop.live.window import Controls, handle_key

from .test_live_outcomes import Harness, _board, _replay, _same, feed, hand

PROMPT = "South may move a die into the Dice Zone:"


def _battle(choices: list[str] | None = None, record: Any = None, typed: bool = False) -> tuple[Any, Any, Any]:
    """Iron Man's battle of the bundled record (line 29), played from the board: South won by
    more than 2 (Telepathy: a pick), North lost (a pick). Returns (pipeline, states, the time)."""
    game, states, entries = _replay("battle-grounds")
    s = states[28]
    after = game.apply(s, game.action_from_json(entries[28]["action"]), [3, 3]).state
    rolls = Rolls([3, 3])
    rolls.typed = typed
    pipe = Harness(game, s, None, None, None, rolls=rolls, window_s=0.3, record=record,
                   **({"choices": choices} if choices is not None else {}))
    t = feed(pipe, [_board(game, s), hand(_board(game, s)), _board(game, after)])
    return pipe, states, feed(pipe, [_board(game, after)] * 4, t)


def _next_move(states: list[Any]) -> Any:
    """The board after Hydra Agent's attack (the record's line 32), made once both picks are in."""
    game, _, entries = _replay("battle-grounds")
    return game.apply(states[31], game.action_from_json(entries[31]["action"]), [3, 3]).state


def _prompts(pipe: LivePipeline) -> list[str]:
    return [text for _, text in pipe.announced if "into the Dice Zone:" in text]


def test_the_choice_is_said_once_with_its_keys_and_a_move_meanwhile_waits() -> None:
    """With no choice given, the choices are said once, numbered (c0 declines); the next move,
    seen while the pick is awaited, is neither flagged nor played."""
    pipe, states, t = _battle()
    game = pipe.game
    assert _prompts(pipe) == [(f"{PROMPT} c1 Assemble, c2 Heroic Stand, c3 Team-Up, c4 Quick Strike, c5 Guard, "
                               "c6 Rally, c0 no pick. Give it with --choices (the game waits for it).")]
    feed(pipe, [hand(_board(game, states[29])), _board(game, _next_move(states))] + [_board(game, _next_move(states))] * 6, t)
    assert len(_prompts(pipe)) == 1, pipe.announced
    assert not any(k == "illegal" for k, _ in pipe.announced), pipe.announced
    assert _same(game, pipe.state, states[29])


def test_picks_given_with_choices_are_played_in_order_and_recorded(tmp_path: Path, cli) -> None:
    """``--choices 'Heroic Stand,c1'``: South's pick by name, North's by key, as the record has
    them; the record replays with ``tabletop rules replay`` and ``--resume``."""
    game, states, _ = _replay("battle-grounds")
    rec = LiveRecord.create(tmp_path / "g.jsonl", game.name, game.options_to_json(), game.state_to_json(states[28]),
                            sync=False)
    pipe, states, _ = _battle(["Heroic Stand", "c1"], rec)
    rec.close()
    assert _same(game, pipe.state, states[31]) and pipe.choices == []
    said = [text for k, text in pipe.announced if k == "legal"]
    assert said[1:] == [("South moves Heroic Stand into the Dice Zone. North lost the battle and may move a die to "
                         "the Dice Zone."), "North moves Master Plan into the Dice Zone. North to move."]
    lines = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [li["action"] for li in lines[2:]] == [{"type": "pick-die", "player": "south", "die": "Heroic Stand"},
                                                   {"type": "pick-die", "player": "north", "die": "Master Plan"}]
    assert cli("rules", "replay", str(tmp_path / "g.jsonl")).code == 0
    again, referee, n = LiveRecord.resume(tmp_path / "g.jsonl", sync=False)
    again.close()
    assert n == 3 and _same(game, referee.state, states[31])


def test_a_choice_that_is_none_of_those_awaited_is_refused_and_the_game_waits() -> None:
    pipe, states, _ = _battle(["Doom Ray"])
    refused = [text for k, text in pipe.announced if k == "illegal"]
    assert refused == [(f"Choice 'Doom Ray' refused: it is none of the choices now. {PROMPT} c1 Assemble, "
                        "c2 Heroic Stand, c3 Team-Up, c4 Quick Strike, c5 Guard, c6 Rally, c0 no pick. "
                        "Give it with --choices (the game waits for it).")]
    assert _same(pipe.game, pipe.state, states[29]) and pipe.choices == []


def _keys(pipe: LivePipeline, *keys: int) -> list[str]:
    said: list[str] = []
    for key in keys:
        handle_key(key, Controls(pipe, say=said.append))
    return said


def test_picks_entered_at_the_keys_are_played_and_the_waiting_move_read_then(tmp_path: Path) -> None:
    """c goes through the choices, Enter plays the one it is on (South: c2 Heroic Stand; North:
    c0 no pick); the move seen while they were awaited is read once they are in; the dice keys
    still type dice."""
    game, states, _ = _replay("battle-grounds")
    rec = LiveRecord.create(tmp_path / "g.jsonl", game.name, game.options_to_json(), game.state_to_json(states[28]),
                            sync=False)
    pipe, states, t = _battle(record=rec, typed=True)
    assert _prompts(pipe)[0].endswith("c0 no pick. Press c to go through them and Enter to choose.")
    assert _keys(pipe, 13) == ["press c to go to a choice first"]
    assert _keys(pipe, ord("c"), ord("c")) == ["choice c1: Assemble (Enter to choose, c for the next)",
                                                "choice c2: Heroic Stand (Enter to choose, c for the next)"]
    assert pipe.choice_status() == "choice c2 Heroic Stand: Enter to choose"
    assert _keys(pipe, ord("3"), 8) == ["die 3 typed (waiting: 3)", "die 3 taken back (none waiting)"]
    said = _keys(pipe, 13)
    assert said[0].startswith("South moves Heroic Stand into the Dice Zone.") and "North may move" in said[0]
    moved = _next_move(states)
    t = feed(pipe, [hand(_board(game, states[30])), _board(game, moved), _board(game, moved)], t)
    assert not any(k == "illegal" for k, _ in pipe.announced), pipe.announced
    pipe.rolls.given[:] = [3, 3]
    # North declines: c goes round past the last die to c0
    _keys(pipe, *[ord("c")] * 7)
    assert pipe.choice_status() == "choice c0 no pick: Enter to choose"
    assert _keys(pipe, 10)[0].startswith("North declines.")
    feed(pipe, [_board(game, moved)] * 4, t)
    rec.close()
    kinds = [json.loads(x)["action"]["type"] for x in (tmp_path / "g.jsonl").read_text().splitlines()[1:]]
    assert kinds == ["move", "pick-die", "skip", "move"], pipe.announced
    assert pipe.announced[-2][1].startswith("Hydra Agent attacks Iron Man") and pipe.announced[-1][1].startswith(PROMPT)


def test_undo_takes_a_choice_back_and_asks_for_it_again(tmp_path: Path) -> None:
    game, states, _ = _replay("battle-grounds")
    rec = LiveRecord.create(tmp_path / "g.jsonl", game.name, game.options_to_json(), game.state_to_json(states[28]),
                            sync=False)
    pipe, states, t = _battle(["Heroic Stand"], rec, typed=True)
    assert _same(game, pipe.state, states[30])
    assert _keys(pipe, ord("a")) == ["the last action is a choice, not a reading of the board: u takes it back"]
    assert _keys(pipe, ord("u")) == ["undone: south puts Heroic Stand in the Dice Zone"]
    assert _same(game, pipe.state, states[29])
    feed(pipe, [_board(game, states[29])] * 4, t)  # the same table: the choice is asked again
    assert len(_prompts(pipe)) == 2, pipe.announced
    _keys(pipe, ord("c"), 13)  # c1 Assemble this time
    rec.close()
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert json.loads(lines[3])["undo"] == {"type": "pick-die", "player": "south", "die": "Heroic Stand"}
    again, referee, n = LiveRecord.resume(tmp_path / "g.jsonl", sync=False)
    again.close()
    assert n == 2 and _same(game, referee.state, pipe.state)
    assert game.state_to_json(referee.state)["dice_zone"]["south"] == ["Assemble"]


def _changes_nothing(game: Any, state: Any, action: Any) -> bool:
    class Alternate:  # 6 and 1 in turn: a battle never ties
        k = 0

        def roll(self, sides: int, what: str) -> int:
            self.k += 1
            return 6 if self.k % 2 else 1

    try:
        return engine_cells(game, game.apply(state, action, Alternate()).state) == engine_cells(game, state)
    except Exception:  # noqa: BLE001 - an action the dice cannot decide: not one of these
        return False


#: Waits in the bundled records where no legal action changes the board, and which are no
#: choice of :data:`CHOICES`: OneWorld's combat transformations among children (their end,
#: the combat round, changes the board: tabletop.live.combat) and When Gods Collide's tiles
#: (the board being laid out).
NOT_CHOICES = {"oneworld": {"transform"}, "when-gods-collide": {"tile"}}


@pytest.mark.parametrize("name", ["battle-grounds", "wormholes", "oneworld", "when-gods-collide"])
def test_every_wait_the_board_cannot_show_is_a_choice_and_nothing_else_is(name: str) -> None:
    """On every position of the bundled records: the rules wait for a choice (``awaited``)
    exactly where every legal action leaves the board as it is and is no pass (read from the
    move after it) nor a wait named in :data:`NOT_CHOICES`; and at OneWorld's fights with a
    god (the child is eliminated whatever the aspects: the table shows neither) and Battle
    Grounds' battle stats (the table shows the battle, not the stat:
    :data:`tabletop.live.outcomes.DECIDING`)."""
    game, states, _ = _replay(name)
    for i, s in enumerate(states):
        if CHANCE in game.to_move(s) or game.outcome(s) is not None:
            assert awaited(game, s) == [], i
            continue
        acts = list(game.legal_actions(s))
        kinds = {game.action_to_json(a)["type"] for a in acts}
        unseen = bool(acts) and not kinds & (set(PASSES.get(name, ())) | NOT_CHOICES.get(name, set())) \
            and all(_changes_nothing(game, s, a) for a in acts)
        god = name == "oneworld" and s.combat is not None and s.combat.against_god
        deciding = bool(acts) and kinds <= set(DECIDING.get(name, ()))  # a battle stat: the board shows the battle
        assert awaited(game, s) == (acts if unseen or god or deciding else []), (i, kinds)
        assert not (unseen or god or deciding) or kinds <= set(CHOICES[name])


def test_a_game_without_such_choices_is_read_as_before() -> None:
    """OneWorld's end of movement and the move after it, with a choice given: the same
    announcements as without, and the choice never used."""
    game, states, entries = _replay("oneworld")

    def run(**kw: Any) -> LivePipeline:
        rolls = Rolls(list(entries[24]["rolls"]) + list(entries[25].get("rolls", [])))
        p = Harness(game, states[24], None, None, None, rolls=rolls, window_s=0.3, **kw)
        t = feed(p, [_board(game, states[24]), hand(_board(game, states[24])), _board(game, states[26])])
        feed(p, [_board(game, states[26])] * 4, t)
        return p

    with_choice = run(choices=["c1"])
    assert with_choice.announced == run().announced and with_choice.choices == ["c1"]
    assert _same(game, with_choice.state, states[26])


def test_play_takes_choices_and_lists_the_keys(cli) -> None:
    from tabletop.live.play import _choices

    assert _choices("Heroic Stand, c0 ,2") == ["Heroic Stand", "c0", "2"]
    for bad in ("", "c1,,c2"):
        with pytest.raises(Exception, match="expected choices separated by commas"):
            _choices(bad)
    text = cli("play", "--help").out
    assert "--choices C,C,..." in text and "c the next of the choices" in " ".join(text.split())
    assert "Enter plays the choice c is on" in " ".join(text.split())

"""The referee and record replay (the library behind ``replay`` and ``demo``)."""

from __future__ import annotations

import pytest

from rules.errors import IllegalActionError
from tabletop.errors import IllegalRecordActionError, RecordError
from tabletop.records import GameRecord, RecordEntry, RecordHeader, parse_record
from tabletop.referee import Referee, replay


def test_bundled_record_plays_to_a_god_losing_all_its_lives(record):
    referee = Referee.for_record(record)
    steps = list(replay(record, referee))
    assert [s.line for s in steps] == [e.line for e in record.entries]
    kinds = [e.kind for s in steps for e in s.transition.events]
    assert kinds.count("life-lost") >= 3
    assert kinds[-1] == "victory"
    outcome = referee.outcome()
    assert outcome is not None and outcome.winner == "borg"
    assert referee.state.gods[1].lives == 0
    assert referee.to_move() == ()


def test_the_record_holds_combat_reinforcements_and_rolls(record):
    kinds = {e.kind for s in replay(record) for e in s.transition.events}
    assert {
        "setup",
        "move",
        "combat-round",
        "elimination",
        "reinforcement",
        "attack",
        "roll",
    } <= kinds


def test_replay_stops_at_the_first_illegal_action(record):
    entries = list(record.entries[:3]) + [RecordEntry(99, {"type": "end-movement", "side": "borg"})]
    short = GameRecord(record.header, tuple(entries), "short.jsonl")
    played = []
    with pytest.raises(IllegalRecordActionError) as caught:
        for step in replay(short):
            played.append(step.line)
    assert played == [e.line for e in record.entries[:3]]
    err = caught.value
    assert (err.line, err.notation, err.verdict.code) == (99, "BORG ends movement", "not-your-turn")
    assert str(err) == "short.jsonl: line 99: illegal action BORG ends movement: it is CHEZ's turn"


def test_a_header_position_is_the_starting_point(record):
    """A record may start mid-game: split the bundled one in two and play both halves."""
    first = GameRecord(record.header, record.entries[:10])
    referee = Referee.for_record(first)
    for _ in replay(first, referee):
        pass
    position = referee.game.state_to_json(referee.state)
    assert position != referee.game.state_to_json(referee.game.initial_state())
    second = GameRecord(
        RecordHeader("oneworld", record.header.options, position), record.entries[10:]
    )
    resumed = Referee.for_record(second)
    assert resumed.game.state_to_json(resumed.state) == position
    for _ in replay(second, resumed):
        pass
    assert resumed.outcome() is not None and resumed.outcome().winner == "borg"


def test_referee_play_refuses_illegal_actions(record):
    referee = Referee.for_record(record)
    action = referee.game.action_from_json({"type": "end-movement", "side": "borg"})
    assert not referee.check(action)
    before = referee.state
    with pytest.raises(IllegalActionError):
        referee.play(action)
    assert referee.state is before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"game": "nope"}', "t: line 1: game: unknown game 'nope'"),
        ('\n\n{"game": "nope"}', "t: line 3: game: unknown game 'nope'"),
        (
            '{"game": "oneworld", "options": {"map": "moon"}}',
            "t: line 1: options.map: no bundled map called 'moon'",
        ),
        (
            '{"game": "oneworld", "position": []}',
            "t: line 1: position: expected an object, got a list",
        ),
    ],
)
def test_bad_headers(text, message):
    with pytest.raises(RecordError) as caught:
        Referee.for_record(parse_record(text, "t"))
    assert str(caught.value).startswith(message)

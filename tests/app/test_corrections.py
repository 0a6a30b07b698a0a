"""Correcting a wrong call: undo (kept in the record as an undo line, replayed by --resume) and
accepting the other reading of the last move; with the ground-truth detector double."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import feed, pipeline, truth_frames

from tabletop.live.correct import other_readings
from tabletop.live.pipeline import Rolls
from tabletop.live.record import LiveRecord, plain_text
from tabletop.records import read_record


def _record(tmp_path: Path, pipe) -> LiveRecord:
    g = pipe.game
    return LiveRecord.create(tmp_path / "game.jsonl", g.name, g.options_to_json(), g.state_to_json(pipe.state),
                             sync=False)


def _lines(path: Path) -> list[dict]:
    return [json.loads(li) for li in path.read_text().splitlines() if li.strip()]


def test_undo_takes_the_move_back_keeps_an_undo_line_and_waits_for_the_table(tmp_path: Path) -> None:
    pipe, m = pipeline("oneworld")
    pipe.record = rec = _record(tmp_path, pipe)
    start = pipe.game.state_to_json(pipe.state)
    frames = truth_frames("oneworld")
    t = feed(pipe, frames[:6])
    assert [k for k, _ in pipe.announced] == ["legal"]
    assert pipe.rolls.given == []  # the fault roll was used
    assert pipe.undo() == "B11-1118"
    assert pipe.game.state_to_json(pipe.state) == start
    assert pipe.rolls.given == [4]  # the die already rolled stays rolled
    assert pipe.undo() == ""  # nothing more to take back
    # the table still shows the move: it is not read again until the table changes
    t = feed(pipe, [frames[5]], t + 1)
    assert len(pipe.announced) == 1
    # the piece put back, then moved again: read and announced again
    t = feed(pipe, [frames[0]], t + 1)
    t = feed(pipe, [frames[5]], t + 1)
    assert [k for k, _ in pipe.announced] == ["legal", "legal"]
    assert pipe.announced[1] == pipe.announced[0]
    rec.close()
    lines = _lines(rec.path)
    assert [next(iter(k for k in li if k != "comment")) for li in lines[1:]] == ["action", "undo", "action"]
    assert lines[2]["undo"] == m["moves"][0]["action"] and "undone: B11-1118" in lines[2]["comment"]
    # --resume replays the undo: the same state as the pipeline's
    again, referee, n = LiveRecord.resume(rec.path, sync=False)
    again.close()
    assert n == 1
    assert referee.game.state_to_json(referee.state) == pipe.game.state_to_json(pipe.state)
    events = [json.loads(li)["kind"] for li in rec.events_path.read_text().splitlines()]
    assert events.count("undo") == 1 and events.count("action") == 2


def test_resume_after_an_undo_starts_where_the_undo_left_the_game(tmp_path: Path) -> None:
    pipe, _ = pipeline("oneworld")
    pipe.record = rec = _record(tmp_path, pipe)
    start = pipe.game.state_to_json(pipe.state)
    feed(pipe, truth_frames("oneworld")[:6])
    pipe.undo()
    rec.close()
    again, referee, n = LiveRecord.resume(rec.path, sync=False)
    again.close()
    assert n == 0 and referee.game.state_to_json(referee.state) == start
    # the plain record (undo lines and what they took back blanked) keeps its line numbers
    plain = plain_text(rec.path.read_text())
    assert plain.splitlines()[1:] == ["", ""]


def test_plain_text_undoes_the_last_action_standing_each_time() -> None:
    text = '{"game": "g"}\n{"action": 1}\n{"action": 2}\n{"undo": 2}\n{"undo": 1}\n{"action": 3}\n'
    assert [li for li in plain_text(text).splitlines() if li] == ['{"game": "g"}', '{"action": 3}']


def test_accept_the_other_reading_of_a_legal_move(tmp_path: Path) -> None:
    pipe, _ = pipeline("oneworld")
    pipe.record = rec = _record(tmp_path, pipe)
    engine, start = pipe.game, pipe.state
    frames = truth_frames("oneworld")
    feed(pipe, frames[:6])
    first = pipe.last_move
    others = other_readings(engine, start, pipe._corrections.context[1], pipe._corrections.context[2], first)
    assert others and all(o.action_json != first.action_json for o in others)
    kinds = [o.kind for o in others]
    assert kinds[0] == "legal" and kinds == sorted(kinds, key=lambda k: k != "legal")  # legal ones first
    said = pipe.accept_other()
    assert said.startswith("other reading: ")
    want = engine.apply(start, others[0].action, Rolls([4])).state  # the fault roll, if it crosses one
    assert engine.state_to_json(pipe.state) == engine.state_to_json(want)
    assert pipe.last_move.action_json == others[0].action_json
    rec.close()
    kinds = [next(iter(k for k in li if k != "comment")) for li in _lines(rec.path)[1:]]
    assert kinds == ["action", "undo", "action"]
    again, referee, n = LiveRecord.resume(rec.path, sync=False)
    again.close()
    assert n == 1 and engine.state_to_json(referee.state) == engine.state_to_json(pipe.state)
    # nothing is announced again while the table stays as it is
    count = len(pipe.announced)
    feed(pipe, [frames[5]], 500.0)
    assert len(pipe.announced) == count


def test_accept_a_legal_reading_of_a_move_read_as_illegal() -> None:
    pipe, _ = pipeline("oneworld")
    frames = truth_frames("oneworld")
    feed(pipe, frames)
    assert pipe.announced[-1][0] == "illegal"  # Stone B2 moved three hexes
    before = pipe.state
    said = pipe.accept_other()
    assert said.startswith("other reading: ")
    assert pipe.state is not before
    assert pipe.last_move.kind == "legal" and pipe.last_move.action_json["piece"] == "B2"
    assert pipe.announced[-1][0] == "legal"


def test_accept_an_illegal_reading_of_a_move_read_as_legal() -> None:
    """Pressed until the illegal reading comes: the legal move is taken back, the illegal one
    is flagged with the rules' reason, and the position is the one before the move."""
    pipe, _ = pipeline("oneworld")
    engine, start = pipe.game, pipe.state
    frames = truth_frames("oneworld")
    # a BORG Stone that never moves is missed from the second frame on: it could have gone
    # where the Blade landed, and that move would be illegal
    stone = next(p for p in frames[0]["pieces"] if p["class"] == "borg-stone" and p["in_labels"]
                 and not any(q["cell"] == p["cell"] and q is not p for q in frames[0]["pieces"]))
    missed = [dict(f, pieces=[p for p in f["pieces"] if p["cell"] != stone["cell"]]) for f in frames[1:6]]
    feed(pipe, frames[:1] + missed)
    first = pipe.last_move
    assert first.kind == "legal" and first.action_json["piece"] == "B11"
    others = other_readings(engine, start, pipe._corrections.context[1], pipe._corrections.context[2], first)
    illegal = [o for o in others if o.kind == "illegal"]
    assert illegal and all(not engine.verdict(start, o.action).legal for o in illegal)
    for _ in range(others.index(illegal[0]) + 1):
        said = pipe.accept_other()
    assert said.startswith("the other reading was not played: Illegal: ")
    assert pipe.announced[-1] == ("illegal", f"Illegal: {illegal[0].verdict.message}")
    assert engine.state_to_json(pipe.state) == engine.state_to_json(start)
    assert pipe.last_move.kind == "illegal"


def test_accept_with_nothing_to_correct() -> None:
    pipe, _ = pipeline("oneworld")
    assert pipe.accept_other() == "no move to read otherwise yet"
    assert pipe.undo() == ""


def test_a_live_record_without_undo_still_replays_as_a_plain_record(tmp_path: Path) -> None:
    pipe, _ = pipeline("oneworld")
    pipe.record = rec = _record(tmp_path, pipe)
    feed(pipe, truth_frames("oneworld")[:6])
    rec.close()
    assert len(read_record(rec.path).entries) == 1

"""The live referee benchmark's turn generator and counting (benchmarks/turns.py,
benchmarks/live_referee.py), on two Battle Grounds turns with the ground-truth detector double."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import live_referee  # noqa: E402 (from benchmarks/, put on the path above)
import turns  # noqa: E402


@pytest.fixture(scope="module")
def two_turns() -> list[turns.Turn]:
    renderer = turns.TurnRenderer("battle-grounds")
    return [turns.make_turn("battle-grounds", 7001, 0, True, renderer),
            turns.make_turn("battle-grounds", 7001, 1, False, renderer)]


def test_turns_are_checked_by_the_engine_and_laid_out_on_a_stream(two_turns: list[turns.Turn]) -> None:
    legal, illegal = two_turns
    assert legal.verdict.legal and not illegal.verdict.legal
    assert illegal.game.verdict(illegal.state, illegal.game.action_from_json(illegal.action)).code == illegal.verdict.code
    for turn in two_turns:
        assert turn.images[0].shape == (480, 640, 3)
        hands = [f.hand_over_board for f in turn.stream]
        assert not any(hands[:turns.STILL_BEFORE]) and not any(hands[-turns.STILL_AFTER:])
        assert any(hands)
        steps = {round(b.t - a.t, 6) for a, b in zip(turn.stream, turn.stream[1:])}
        assert steps == {round(1 / turns.FPS, 6)}
        assert turn.first_free == pytest.approx(turn.stream[-turns.STILL_AFTER].t)


def test_counts_come_from_the_announcements(two_turns: list[turns.Turn]) -> None:
    legal, illegal = two_turns
    results = [live_referee.run_turn(t, "truth") for t in two_turns]
    ok, bad = results
    assert bad.flagged and bad.read_right and bad.said[0][0] == "illegal"
    assert ok.read_right and ok.legal_announced and not ok.false_alarm
    summary = live_referee.summarize(results)
    assert (summary["illegal_flagged"], summary["illegal_turns"], summary["false_alarms"]) == (1, 1, 0)
    assert summary["legal_read_right"] == 1 and summary["announced_under_hand"] == 0
    assert summary["frames"] == len(legal.stream) + len(illegal.stream)
    # the window (0.3 s) ends on the fifth frame at 15 fps, after the first frame without a hand
    assert 0.3 <= summary["latency_max_s"] < 0.5


def test_a_referee_that_sees_nothing_flags_nothing(two_turns: list[turns.Turn], monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.detections import Detections

    monkeypatch.setattr(live_referee, "truth_detections", lambda truth: Detections.empty())
    summary = live_referee.summarize([live_referee.run_turn(t, "truth") for t in two_turns])
    assert summary["illegal_flagged"] == 0 and summary["legal_read_right"] == 0
    assert summary["answered"] == 0 and summary["latency_median_s"] is None


def test_queued_latency_counts_the_frames_still_waiting(two_turns: list[turns.Turn],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """On a real-time clock a frame waits for the frames before it: a referee slower than the
    stream (0.1 s a frame at 15 fps) announces later than the stream time says."""
    import time as clock

    truth = live_referee.truth_detections
    quick = live_referee.run_turn(two_turns[1], "truth")
    assert quick.latency_queued_s >= quick.latency_s

    def slow(frame: dict) -> object:
        clock.sleep(0.1)
        return truth(frame)

    monkeypatch.setattr(live_referee, "truth_detections", slow)
    late = live_referee.run_turn(two_turns[1], "truth")
    assert late.flagged
    # 16 frames of 0.1 s before the hand left, shown 1/15 s apart: at least 0.5 s behind by then
    assert late.latency_queued_s >= late.latency_s + 0.5


def test_dropping_stale_frames_keeps_a_slow_referee_on_time(two_turns: list[turns.Turn],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Read as ``tabletop play`` reads a camera, a referee slower than the stream skips the
    frames that came while it read one: it still flags the move, and its verdict does not wait
    behind the stale frames."""
    import time as clock

    truth = live_referee.truth_detections

    def slow(frame: dict) -> object:
        clock.sleep(0.1)
        return truth(frame)

    monkeypatch.setattr(live_referee, "truth_detections", slow)
    queued = live_referee.run_turn(two_turns[1], "truth")
    newest = live_referee.run_turn(two_turns[1], "truth", drop_stale=True)
    assert queued.dropped == 0 and newest.dropped > 0
    assert newest.frames + newest.dropped == len(two_turns[1].stream) == queued.frames
    assert newest.flagged and newest.read_right and not newest.under_hand
    assert newest.latency_queued_s < queued.latency_queued_s - 0.3
    # the window's 0.3 s, plus at most about two frames' reading
    assert newest.latency_queued_s < 0.3 + 3 * 0.1 + 2 / turns.FPS


def test_the_game_illegal_turns_are_too_long_by_more_than_the_camera_measures() -> None:
    """A The Game move refused as too long by at most the tolerance and the camera's measure is
    read as the longest legal move by design (``MEASURE_IN``): the generator does not take one
    as an illegal turn. The engine lists a sample of legal moves, so a point beyond the longest
    listed can be within that measure of the limit (seed 7002's turn 10 was 6.50" for 6")."""
    from rules.core import Verdict
    from tabletop.live.infer import MEASURE_IN

    def too_far(excess: float) -> Verdict:
        return Verdict.illegal("too-far", "too far", excess=excess, tolerance=0.25)

    assert not turns._measurable(too_far(0.25 + MEASURE_IN))
    assert turns._measurable(too_far(0.25 + MEASURE_IN + 0.01))
    assert turns._measurable(Verdict.illegal("not-your-turn", "out of turn"))
    game, state = turns.sample_position("the-game", 7002, 10)
    legal = turns._move_actions(game, state)
    found = turns._illegal_move("the-game", game, state, legal, np.random.default_rng([7002, 10, 0, 23]))
    assert found is not None
    aj, verdict = found
    assert not verdict.legal and game.verdict(state, game.action_from_json(aj)) == verdict
    info = dict(verdict.details)
    assert verdict.code == "too-far" and info["excess"] > info["tolerance"] + MEASURE_IN


def test_a_position_the_kits_mat_cannot_hold_gives_way_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 7002's When Gods Collide turn 53 started from tiles spread 18 squares wide, more
    than the printed mat's 16; playouts now keep their tiles on the mat, and the turn is drawn
    from its own position. Should a position off the mat come all the same, no camera shows
    it: the turn is drawn from another position instead of stopping the benchmark."""
    from vision.artwork import ArtworkError

    game, state = turns.sample_position("when-gods-collide", 7002, 53)
    tiles = game.state_to_json(state)["tiles"]
    squares = [tuple(int(v) for v in t["at"].split(",")) for t in tiles]
    assert max(x for x, _ in squares) + 2 - min(x for x, _ in squares) <= 16
    turn = turns.make_turn("when-gods-collide", 7002, 53, False, size=(320, 240))
    assert turn.game.state_to_json(turn.state) == game.state_to_json(state)

    doc = game.state_to_json(state)  # the same position with a row of tiles running off the mat
    x, y = max(squares)
    while x + 2 - min(s[0] for s in squares) <= 16:
        x += 2
        doc["tiles"].append({"at": f"{x},{y}", "owner": doc["tiles"][-1]["owner"]})
    wide = game.state_from_json(doc)
    legal = turns._move_actions(game, wide)
    with pytest.raises(ArtworkError, match="the mat holds 16 x 16"):
        turns._illegal_move("when-gods-collide", game, wide, legal, np.random.default_rng([7002, 53, 0, 23]))
    sample = turns.sample_position
    monkeypatch.setattr(turns, "sample_position",
                        lambda name, seed, index: (game, wide) if index == 53 else sample(name, seed, index))
    turn = turns.make_turn("when-gods-collide", 7002, 53, False, size=(320, 240))
    assert not turn.verdict.legal and turn.images[0].shape == (240, 320, 3)
    assert turn.game.state_to_json(turn.state) not in (doc, game.state_to_json(state))


def test_the_game_turns_put_the_piece_down_clear_of_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand cannot put a piece into another's place: seed 7001's illegal turn 58 put R2 on
    top of B5 (the picture showed R2 half under B5), a move no table shows. The Game's moves,
    legal or not, now leave the moved piece clear of the others, as a grid game's go to an
    empty cell."""
    game, state = turns.sample_position("the-game", 7001, 58)
    pos = game.state_to_json(state)
    b5 = next(p for p in pos["pieces"] if p["id"] == "B5")
    assert not turns._room_for(pos, "R2", b5["at"]["x"], b5["at"]["y"])
    r2 = next(p for p in pos["pieces"] if p["id"] == "R2")
    assert turns._room_for(pos, "R2", r2["at"]["x"], r2["at"]["y"])  # where it stands: clear
    legal = turns._move_actions(game, state)
    aj, verdict = turns._illegal_move("the-game", game, state, legal, np.random.default_rng([7001, 58, 0, 23]))
    assert not verdict.legal and turns._room_for(pos, "R2", aj["to"]["x"], aj["to"]["y"])

    # every legal move of this position ending on B5: none is taken as a legal turn
    on_b5 = [dict(aj, to=dict(b5["at"])) for aj in legal]
    monkeypatch.setattr(turns, "_move_actions", lambda g, s: on_b5)
    monkeypatch.setattr(turns, "sample_position", lambda name, seed, index: (game, state))
    with pytest.raises(RuntimeError, match="no drawable legal turn 58"):
        turns.make_turn("the-game", 7001, 58, True, size=(320, 240))


def test_an_unseen_pass_does_not_buy_a_misread_of_an_illegal_move() -> None:
    """OneWorld, seed 7001, turn 188: BORG's Stone B3 put 16 hexes away, on 0321 (its own hex
    out of view). Read after an unseen end of BORG's movement, the Stone arriving could be
    CHEZ's Stone C8 (hidden under a Fog on 0220 next to it) read as BORG's: a legal move, but
    only with a misread the refused move does not need. The move is flagged as it is."""
    turn = turns.make_turn("oneworld", 7001, 188, False)
    assert turn.action == {"type": "move", "piece": "B3", "to": "0321"}
    result = live_referee.run_turn(turn, "truth")
    assert result.flagged and result.read_right, result.said
    assert not result.legal_announced, result.said

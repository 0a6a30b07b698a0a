"""The live referee on hand-made detections (the sample sequences' ground truth as a detector
double): stability, hands, verdicts, impossible positions, the record, audio, inputs."""

from __future__ import annotations

import json
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_live_doubles import GAMES, feed, manifest, pipeline, truth_frames

from tabletop.live.audio import Audio
from tabletop.live.inputs import Capture, ImageFolder, Reopening
from tabletop.live.record import LiveRecord
from tabletop.live.stability import Stability


@pytest.mark.parametrize("game", GAMES)
def test_sample_sequence_gives_the_manifests_verdicts(game: str) -> None:
    pipe, m = pipeline(game)
    feed(pipe, truth_frames(game))
    got = [(k, t) for k, t in pipe.announced if k in ("legal", "illegal")]
    moves = m["moves"]
    codes = [r.verdict.code for r in pipe.readings if r.kind in ("legal", "illegal")]
    assert codes == [mv["verdict"]["code"] for mv in moves]
    rolls = [r.action_json for r in pipe.readings if r.kind == "roll"]
    assert rolls == [b["action"] for mv in moves for b in mv["before"]]
    legal = [t for k, t in got if k == "legal"]
    illegal = [t for k, t in got if k == "illegal"]
    want_legal = [mv for mv in moves if mv["expect"] == "legal"]
    want_illegal = [mv for mv in moves if mv["expect"] == "illegal"]
    assert len(illegal) == len(want_illegal)
    # every chance action read off the table is announced too (When Gods Collide's roll)
    assert len(legal) == len(want_legal) + sum(len(mv["before"]) for mv in moves)
    for mv, text in zip(want_illegal, illegal):
        assert text == "Illegal: " + mv["verdict"]["message"] or game == "the-game"
        assert pipe.last_move is not None
    assert pipe.last_move.verdict.code == want_illegal[-1]["verdict"]["code"]
    if game != "the-game":  # The Game's distances are measured from boxes, not the truth points
        assert legal[0] == want_legal[0]["announcement"]
        assert illegal[-1] == "Illegal: " + want_illegal[-1]["announcement"]


def test_nothing_is_announced_while_a_hand_is_over_the_board() -> None:
    pipe, m = pipeline("battle-grounds")
    frames = truth_frames("battle-grounds")
    hand_frames = [i for i, f in enumerate(m["frames"]) if f["hand"]]
    t = feed(pipe, frames[:1])
    for i in hand_frames[:4]:  # reach, lift, carry, put-down: held for a long time
        before = len(pipe.announced)
        t = feed(pipe, [frames[i]], t, repeat=20)
        assert len(pipe.announced) == before
    t = feed(pipe, [frames[5]], t, repeat=2)  # 0.1 s without a hand: not yet
    assert pipe.announced == []
    feed(pipe, [frames[5]], t, repeat=3)
    assert [k for k, _ in pipe.announced] == ["legal"]


def test_a_legal_move_is_announced_once_with_the_engines_sentence() -> None:
    pipe, m = pipeline("wormholes")
    frames = truth_frames("wormholes")
    feed(pipe, frames[:6], repeat=10)
    assert pipe.announced == [("legal", m["moves"][0]["announcement"])]


def test_an_illegal_move_is_flagged_with_the_engines_reason_and_the_state_kept() -> None:
    pipe, _ = pipeline("oneworld")
    frames = truth_frames("oneworld")
    feed(pipe, frames)
    state_after_legal = pipe.state
    kind, text = pipe.announced[-1]
    assert kind == "illegal" and "at most one hex" in text
    assert pipe.last_move.verdict.code == "too-far"
    # the piece put back: the referee says the position is back, the engine state unchanged
    feed(pipe, [frames[5]], 100.0)
    assert pipe.announced[-1] == ("info", "Back to the last legal position.")
    assert pipe.state is state_after_legal


def test_an_impossible_seen_position_is_reported_with_what_looks_wrong() -> None:
    pipe, _ = pipeline("battle-grounds")
    frames = truth_frames("battle-grounds")
    t = feed(pipe, frames[:1])
    bad = json.loads(json.dumps(frames[0]))
    # Spider-Man and Kraven seen where they will go while still seen where they stand: two
    # figures more than the board holds, not one doubled box
    bad["pieces"] += [p for p in frames[10]["pieces"] if p["cell"] in ("d4", "f4")]
    state = pipe.state
    feed(pipe, [bad], t)
    kind, text = pipe.announced[-1]
    assert kind == "illegal" and text.startswith("Impossible position: 24 pieces where there were 22")
    assert "2 north-i where there were 1" not in text and "south-ii" in text
    assert pipe.state is state


def test_a_corrupt_frame_and_a_frame_with_no_board_are_skipped() -> None:
    pipe, _ = pipeline("wormholes")
    frames = truth_frames("wormholes")
    no_board = dict(frames[0], board=None)
    results = [pipe.process(None, 0.0), pipe.process(np.zeros((0, 0, 3), np.uint8), 0.05),
               pipe.process(no_board, 0.1)]
    assert [r.status for r in results] == ["skipped"] * 3
    assert "unreadable" in results[0].message and "no board" in results[2].message
    feed(pipe, frames[:6], 1.0)
    assert [k for k, _ in pipe.announced] == ["legal"]


def test_a_run_of_skipped_frames_is_said_once() -> None:
    """A bad photo held for five frames, then the board out of view for a while: each frame's
    result says why it was skipped, the player hears it once a run; a run after good frames
    is said again."""
    pipe, _ = pipeline("wormholes")
    said: list[str] = []
    pipe.log = said.append
    frames = truth_frames("wormholes")
    no_board = dict(frames[0], board=None)
    results = [pipe.process(None, 0.1 * i) for i in range(5)]
    results += [pipe.process(no_board, 0.5 + 0.1 * i) for i in range(20)]
    assert all("unreadable" in r.message for r in results[:5]) and all("no board" in r.message for r in results[5:])
    assert said == ["frame 1: unreadable frame, skipped", "frame 6: no board in view, skipped"]
    feed(pipe, frames[:1], 3.0)
    pipe.process(None, 4.0)
    assert said[-1] == "frame 31: unreadable frame, skipped" and len(said) == 3


def test_stability_window() -> None:
    s = Stability(0.3)
    assert [s.update(t * 0.1, "A", False) for t in range(3)] == [None, None, None]
    assert s.update(0.3, "A", False) == "A"
    assert s.update(0.4, "B", False) is None and s.update(0.5, "C", False) is None  # motion
    assert s.update(0.8, "C", False) == "C"


def test_the_record_survives_a_crash_and_resumes_to_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    m = manifest("when-gods-collide")
    rec = LiveRecord.create(path, m["game"], m["options"], m["start"])
    pipe, _ = pipeline("when-gods-collide", record=rec)
    frames = truth_frames("when-gods-collide")
    feed(pipe, frames[:7])  # the legal move and the roll
    live_state = pipe.game.state_to_json(pipe.state)
    # the writer is killed mid-line: no close, half a line at the end
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"action": {"type": "mo')
    rec2, referee, n = LiveRecord.resume(path)
    assert n == 2
    assert referee.game.state_to_json(referee.state) == live_state
    pipe2, _ = pipeline("when-gods-collide", record=rec2, state=referee.state)
    feed(pipe2, [frames[6]] + frames[7:])
    assert pipe2.announced[-1][0] == "illegal"
    rec2.close()
    events = [json.loads(line) for line in path.with_name("game.jsonl.events.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in events if e["kind"] in ("action", "illegal")] == ["action", "action", "illegal"]
    assert all("time" in e for e in events)


def test_the_other_side_moving_ends_the_turn_that_no_camera_can_see_end(tmp_path: Path) -> None:
    """OneWorld's end of movement moves nothing: with CHEZ still to move, BORG's legal move
    is read after it (CHEZ's movement ends, then the move), both announced and recorded; an
    illegal move of the side now to move is still flagged as such."""
    m = manifest("oneworld")
    start = dict(m["start"], active="chez")
    path = tmp_path / "game.jsonl"
    rec = LiveRecord.create(path, m["game"], m["options"], start)
    pipe, _ = pipeline("oneworld", record=rec, rolls=[3], state=None)
    pipe.state = pipe.game.state_from_json(start)
    feed(pipe, truth_frames("oneworld"))
    rec.close()
    assert [k for k, _ in pipe.announced] == ["legal", "legal", "illegal"]
    assert pipe.announced[0][1].startswith("Turn 9: BORG to move.")
    assert pipe.announced[1][1].startswith("BORG Blade B11 moves from 0618 to 1118.")
    assert pipe.announced[2][1] == "Illegal: " + m["moves"][1]["verdict"]["message"]
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert [x["action"] for x in lines] == [{"type": "end-movement", "side": "chez"}, m["moves"][0]["action"]]


def test_a_move_refused_after_the_pass_too_is_flagged_and_nothing_is_played() -> None:
    """With CHEZ to move, BORG's Stone moved three hexes: CHEZ's end of movement would make
    it BORG's move, but the move is refused then too, so the end of movement is not played
    and the move is flagged as the rules refuse it now."""
    m = manifest("oneworld")
    frames = truth_frames("oneworld")
    only_b2 = dict(frames[-1])  # B2 moved too far; B11 back where it started
    only_b2["pieces"] = [p for p in frames[-1]["pieces"] if p["cell"] != "1118"] + \
        [p for p in frames[0]["pieces"] if p["cell"] == "0618"]
    pipe, _ = pipeline("oneworld", rolls=[3])
    pipe.state = pipe.game.state_from_json(dict(m["start"], active="chez"))
    feed(pipe, [frames[0], only_b2])
    assert pipe.announced == [("illegal", "Illegal: B2 belongs to BORG; it is CHEZ's turn")]
    assert pipe.game.state_to_json(pipe.state)["active"] == "chez" and pipe.rolls.given == [3]


def test_a_pass_is_read_before_a_move_only_where_it_needs_no_further_misread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move refused now, read after an unseen end of movement as a legal move: played so
    where that reading explains the board as well as the refused one (the other side's move,
    seen as it is); not where it needs the board read further from how it looks (a piece
    arrived read as the other side's), and not where the refused reading was not weighed."""
    from tabletop.live import pipeline as live_pipeline
    from tabletop.live.infer import Reading

    m = manifest("oneworld")
    frames = truth_frames("oneworld")
    moved = m["moves"][0]["action"]

    def run(after_cost: float | None, refused_cost: float | None) -> list[tuple[str, str]]:
        pipe, _ = pipeline("oneworld", rolls=[3])
        pipe.state = pipe.game.state_from_json(dict(m["start"], active="chez"))
        action = pipe.game.action_from_json(moved)

        def read_after(game, state, before, after, **kw):  # type: ignore[no-untyped-def]
            return Reading("legal", action, moved, game.verdict(state, action), cost=after_cost)

        feed(pipe, [frames[0]])
        monkeypatch.setattr(live_pipeline, "infer", read_after)
        result = live_pipeline.FrameResult(1, 0.0, "accepted")
        refused = Reading("illegal", moved, moved, None, cost=refused_cost)
        passed = pipe._pass_before(pipe.base, result, True, refused)
        monkeypatch.undo()
        return [] if passed is None else [(k, t) for k, t in result.announcements]

    assert run(0.0, 0.0) and run(0.3, 0.3)  # as well explained: the pass is played
    assert run(1.0, 0.0) == []  # a misread more than the refused move: the refusal stands
    assert run(1.0, None) and run(None, 0.0)  # not weighed: as before


def test_a_move_waiting_for_its_roll_is_played_once_the_die_is_typed(tmp_path: Path) -> None:
    """OneWorld's sample move crosses a fault: the rules need a die. With none given, the
    player is told once (not every time the still position is read again), and the move is
    played with the die typed in the window, as if given with --rolls."""
    from rules.registry import get_game
    from tabletop.live.window import Controls, handle_key

    m = manifest("oneworld")
    record = LiveRecord.create(tmp_path / "game.jsonl", m["game"], m["options"], m["start"])
    pipe, m = pipeline("oneworld", rolls=[], record=record)
    pipe.rolls.typed = True
    frames, t, k = truth_frames("oneworld"), 0.0, 0
    while not pipe.announced:  # up to the frame of the moved piece's position
        t = feed(pipe, [frames[k]], t0=t, repeat=5)
        k += 1
    t = feed(pipe, [frames[k - 1]] * 3, t0=t, repeat=5)  # the position stays: read again and again
    asked = [text for kind, text in pipe.announced if "roll is needed" in text]
    assert len(asked) == 1 and "type it in the window" in asked[0]
    assert not any(kind == "legal" for kind, _ in pipe.announced)
    said: list[str] = []
    assert handle_key(ord("4"), Controls(pipe, say=said.append)) == "die"
    feed(pipe, [frames[k - 1]], t0=t, repeat=5)
    legal = [text for kind, text in pipe.announced if kind == "legal"]
    assert len(legal) == 1 and pipe.rolls.given == []
    engine = get_game("oneworld", m["options"])
    want = engine.apply(engine.state_from_json(m["start"]), engine.action_from_json(m["moves"][0]["action"]),
                        pipeline("oneworld", rolls=[4])[0].rolls).state
    assert engine.state_to_json(pipe.state) == engine.state_to_json(want)
    record.close()
    lines = [json.loads(line) for line in (tmp_path / "game.jsonl").read_text().splitlines()]
    assert [line.get("rolls") for line in lines if "action" in line] == [[4]]


def test_a_die_typed_waits_for_the_others_a_move_needs() -> None:
    """A move needing two dice (a battle) with only one typed: the one typed is not used up
    by the failed try, and the move is played once the second is typed."""
    from tabletop.live.pipeline import Rolls

    pipe, _ = pipeline("oneworld", rolls=[])
    real = pipe.game.apply
    used: list[tuple[int, int]] = []

    def two_dice(state: object, action: object, dice: Rolls) -> object:
        first, second = dice.roll(6, "the attacker's die"), dice.roll(6, "the defender's die")
        used.append((first, second))
        return real(state, action, Rolls([first]))

    pipe.game.apply = two_dice  # type: ignore[method-assign]
    frames, t, k = truth_frames("oneworld"), 0.0, 0
    pipe.rolls.type(4)
    while not pipe.announced:
        t = feed(pipe, [frames[k]], t0=t, repeat=5)
        k += 1
    assert "defender" in pipe.announced[-1][1] and pipe.rolls.given == [4]
    pipe.rolls.type(6)
    feed(pipe, [frames[k - 1]], t0=t, repeat=5)
    assert pipe.announced[-1][0] == "legal" and used == [(4, 6)] and pipe.rolls.given == []


def test_stream_is_reopened_with_back_off_when_lost() -> None:
    opens = []

    class FakeCap:
        def __init__(self, n: int) -> None:
            self.n = n

        def isOpened(self) -> bool:
            return True

        def read(self) -> tuple[bool, object]:
            if self.n == 0:
                return False, None
            self.n -= 1
            return True, np.zeros((4, 4, 3), np.uint8)

        def release(self) -> None:
            pass

    plan = [FakeCap(3), None, None, FakeCap(2)]  # works, dies, fails twice, comes back

    def opener(target: object) -> object:
        opens.append(target)
        if not plan:
            return None
        cap = plan.pop(0)
        if cap is None:
            raise OSError("camera busy")
        return cap

    said: list[str] = []
    slept: list[float] = []
    source = Reopening(Capture(0, opener), said.append, delays=(0.5, 1.0, 2.0), attempts=4, sleep=slept.append)
    frames = list(source)
    assert len(frames) == 5
    assert slept[:3] == [0.5, 1.0, 2.0]
    assert any("lost" in s for s in said) and any("reopened after 3 tries" in s for s in said)
    assert "gone" in said[-1]


class _PacedCap:
    """A capture of ``n`` numbered frames; frame 1 waits until ``taken`` is set (the referee
    has taken frame 0); the end sets ``done``; ``release`` notes whether a read was running."""

    def __init__(self, n: int) -> None:
        import threading

        self.n, self.i = n, 0
        self.taken, self.done = threading.Event(), threading.Event()
        self.reading = False
        self.released_while_reading: bool | None = None

    def read(self) -> tuple[bool, object]:
        self.reading = True
        try:
            if self.i == 1:
                assert self.taken.wait(5)
            if self.i >= self.n:
                self.done.set()
                return False, None
            self.i += 1
            return True, self.i - 1
        finally:
            self.reading = False

    def isOpened(self) -> bool:
        return True

    def release(self) -> None:
        self.released_while_reading = self.reading


def test_live_capture_skips_the_frames_that_came_while_the_referee_was_busy() -> None:
    cap = _PacedCap(30)
    capture = Capture(0, lambda target: cap, newest=True)
    got = []
    for frame, t in capture.frames(cap):
        got.append((frame, t))
        if frame == 0:
            cap.taken.set()
            assert cap.done.wait(5)  # the referee is busy while the other 29 frames come
    assert [f for f, _ in got] == [0, 29]  # the newest, never a stale one; the last is not lost
    assert got[0][1] <= got[1][1]  # each with the time it came
    assert capture.dropped == 28


def test_live_capture_in_order_reads_every_frame() -> None:
    cap = _PacedCap(5)
    cap.taken.set()
    assert [f for f, _ in Capture(0, lambda target: cap).frames(cap)] == [0, 1, 2, 3, 4]


def test_live_capture_stops_its_reader_before_the_stream_is_released() -> None:
    """The reading thread has ended before a lost stream is released and reopened, and when
    the referee stops early (quit)."""
    import threading
    import time

    class SlowCap(_PacedCap):
        def read(self) -> tuple[bool, object]:
            time.sleep(0.01)
            return super().read()

    caps = [SlowCap(6), SlowCap(4)]
    for c in caps:
        c.taken.set()
    plan = list(caps)
    said: list[str] = []
    source = Reopening(Capture(0, lambda target: plan.pop(0) if plan else None, newest=True), said.append,
                       delays=(0.0,), attempts=2, sleep=lambda s: None)
    frames = [f for f, _ in source]
    cut = next(i for i in range(1, len(frames)) if frames[i] < frames[i - 1])  # the second stream begins
    for part, last in ((frames[:cut], 5), (frames[cut:], 3)):  # each in order, ending on its last frame
        assert sorted(set(part)) == part and part[-1] == last
    assert caps[0].released_while_reading is False and "reopened" in said[1]
    assert source.capture.dropped + len(frames) == 10

    cap = SlowCap(1000)
    cap.taken.set()
    gen = Capture(0, newest=True).frames(cap)
    next(gen)
    gen.close()  # the referee quits
    reads = cap.i
    time.sleep(0.1)
    assert cap.i == reads and not any(t.name == "tabletop-frames" for t in threading.enumerate())


def test_open_source_reads_a_camera_newest_frame_first_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.live.inputs import open_source

    assert open_source(camera=0).capture.newest
    assert open_source(url="rtsp://phone/live").capture.newest
    assert not open_source(camera=0, newest=False).capture.newest


def test_image_folder_skips_nothing_and_yields_none_for_a_corrupt_file(tmp_path: Path) -> None:
    import cv2

    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "b.jpg").write_bytes(b"not a jpeg")
    frames = list(ImageFolder(tmp_path, fps=10, hold_s=0.2))
    assert len(frames) == 4 and frames[0][0] is not None and frames[2][0] is None


class _DamagedVideo:
    """A video file of 8 frames, 10 fps, whose frames 3 and 4 and its last cannot be decoded (``False``
    from ``read`` as OpenCV gives for a damaged frame, the frames after it read on)."""

    def __init__(self, target: str) -> None:
        self.reads = 0

    def isOpened(self) -> bool:
        return True

    def get(self, prop: int) -> float:
        return {5: 10.0, 7: 8.0}.get(prop, 0.0)

    def read(self) -> tuple[bool, np.ndarray | None]:
        self.reads += 1
        if self.reads in (3, 4, 8) or self.reads > 8:
            return False, None
        return True, np.full((4, 4, 3), self.reads, np.uint8)

    def release(self) -> None:
        pass


def test_a_video_reads_on_past_frames_that_cannot_be_decoded(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    import cv2

    from tabletop.live.inputs import open_source

    video = tmp_path / "table.mp4"
    video.write_bytes(b"\0")
    monkeypatch.setattr(cv2, "VideoCapture", _DamagedVideo)
    said: list[str] = []
    frames = list(open_source(video=str(video), say=said.append))
    assert [int(f[0, 0, 0]) for f, _ in frames] == [1, 2, 5, 6, 7]
    assert [t for _, t in frames] == pytest.approx([0.0, 0.1, 0.4, 0.5, 0.6])
    assert said == [f"{video}: frames 3-4 could not be decoded, skipped",
                    f"{video}: frame 8 could not be decoded, skipped (the end of the file is damaged)"]


def test_audio_wav_grows_with_each_announcement(tmp_path: Path) -> None:
    path = tmp_path / "said.wav"
    printed: list[str] = []
    audio = Audio(f"wav:{path}", out=printed.append, speak=False)

    def seconds() -> float:
        with wave.open(str(path)) as w:
            return w.getnframes() / w.getframerate()

    audio.wait()
    durations = [seconds()]
    for kind in ("legal", "illegal"):
        audio.announce(f"a {kind} move", kind)
        audio.wait()
        durations.append(seconds())
    audio.close()
    assert durations[0] == 0 and durations[0] < durations[1] < durations[2]
    assert durations[2] - durations[1] > durations[1] - durations[0]  # the illegal tone is longer
    assert printed == ["a legal move", "ILLEGAL: a illegal move"]


def test_audio_without_a_sound_device_falls_back_with_one_warning(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # import fails
    printed: list[str] = []
    audio = Audio("auto", out=printed.append, speak=False)
    audio.announce("one", "legal")
    audio.announce("two", "illegal")
    audio.close()
    assert printed == ["one", "ILLEGAL: two"]
    assert capsys.readouterr().err.count("warning") == 1
    none = Audio("none", out=printed.append)
    none.announce("three")
    none.close()
    assert printed[-1] == "three"


def test_kill_9_during_play_loses_nothing_recorded(tmp_path: Path) -> None:
    """A real process playing the When Gods Collide turn is killed with SIGKILL after its
    record holds the legal move and the roll; the record resumes to the same state."""
    import os
    import signal
    import subprocess
    import time

    path = tmp_path / "game.jsonl"
    script = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_live_doubles import feed, manifest, pipeline, truth_frames
from tabletop.live.record import LiveRecord
m = manifest("when-gods-collide")
rec = LiveRecord.create({str(path)!r}, m["game"], m["options"], m["start"])
pipe, _ = pipeline("when-gods-collide", record=rec)
frames = truth_frames("when-gods-collide")
feed(pipe, frames[:7])
print("played", flush=True)
while True:
    pipe.process(frames[6], time.monotonic())
"""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=str(Path(__file__).parents[2]))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "played"
        time.sleep(0.2)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    rec, referee, n = LiveRecord.resume(path)
    rec.close()
    assert n == 2
    want, _ = pipeline("when-gods-collide")
    feed(want, truth_frames("when-gods-collide")[:7])
    assert referee.game.state_to_json(referee.state) == want.game.state_to_json(want.state)


def test_a_detector_doubt_on_the_class_is_read_through_the_legal_moves() -> None:
    pipe, m = pipeline("battle-grounds")
    frames = truth_frames("battle-grounds")
    after = json.loads(json.dumps(frames[5]))
    for p in after["pieces"]:
        if p["cell"] == "d4":
            p["class"] = "south-iii"  # Spider-Man (level II) read as level III
    t = feed(pipe, frames[:5])
    feed(pipe, [after], t)
    kind, text = pipe.announced[-1]
    assert (kind, text) == ("legal", m["moves"][0]["announcement"])
    assert pipe.last_move.note == "read as south-ii though it looks like south-iii"


def test_a_piece_out_of_nowhere_is_an_impossible_position() -> None:
    pipe, _ = pipeline("wormholes")
    frames = truth_frames("wormholes")
    t = feed(pipe, frames[:1])
    extra = json.loads(json.dumps(frames[0]))
    pawn = next(p for p in extra["pieces"] if p["class"] == "pawn-suns")
    twin = dict(pawn, box=[pawn["box"][0] + 60, pawn["box"][1], pawn["box"][2] + 60, pawn["box"][3]])
    other = next(p for p in extra["pieces"] if p["class"] == "pawn-moons")  # and a second Moons ship
    extra["pieces"] += [twin, dict(other, box=[other["box"][0] - 30, other["box"][1], other["box"][2] - 30,
                                             other["box"][3]])]
    feed(pipe, [extra], t)
    kind, text = pipe.announced[-1]
    assert kind == "illegal" and text.startswith("Impossible position")
    assert "2 pawn-suns where there were 1" in text and "2 pawn-moons where there were 1" in text


def test_five_counters_of_a_side_in_a_hex_is_an_impossible_position() -> None:
    pipe, _ = pipeline("oneworld")
    frames = truth_frames("oneworld")
    t = feed(pipe, frames[:1])
    bad = json.loads(json.dumps(frames[0]))
    stone = next(p for p in bad["pieces"] if p["class"] == "borg-stone" and p["in_labels"])
    x0, y0, x1, y1 = stone["box"]
    d = 0.2 * (x1 - x0)  # four more BORG counters stacked on the same hex, each a little aside
    for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d)):
        bad["pieces"].append(dict(stone, box=[x0 + dx, y0 + dy, x1 + dx, y1 + dy]))
    feed(pipe, [bad], t)
    kind, text = pipe.announced[-1]
    assert kind == "illegal" and f"5 BORG counters in {stone['cell']} (at most 4)" in text


def test_a_lifted_piece_shows_where_it_may_legally_go() -> None:
    pipe, m = pipeline("battle-grounds")
    frames = truth_frames("battle-grounds")
    t = feed(pipe, frames[:1])
    feed(pipe, [frames[3]], t)  # carried: Spider-Man has left f6, the hand is over the board
    assert pipe.stability.hand and "f6" in pipe.hints
    assert m["moves"][0]["to"] in pipe.hints["f6"]
    assert pipe.announced == []


def test_play_prepares_a_scaled_detector_before_a_live_stream_and_says_so() -> None:
    from tabletop.live.play import _prepare

    class Scaled:
        piece_scale = object()
        calls = 0

        def prepare(self) -> tuple[int, ...]:
            self.calls += 1
            return (384, 448)

    said: list[str] = []
    scaled = Scaled()
    _prepare(scaled, said.append)
    assert scaled.calls == 1 and said[0].startswith("preparing the detector") and "ready at 3 sizes" in said[1]
    fixed = Scaled()
    fixed.piece_scale = None  # type: ignore[assignment]
    said.clear()
    _prepare(fixed, said.append)
    assert fixed.calls == 0 and said == []


class _SizedCap:
    """A camera that has some frame sizes and takes the nearest one asked (OpenCV's
    ``set``/``get`` of properties 3 and 4)."""

    def __init__(self, sizes: list[tuple[int, int]]) -> None:
        self.sizes = sizes
        self.w, self.h = sizes[0]
        self.asked: dict[int, float] = {}

    def set(self, prop: int, value: float) -> bool:
        self.asked[prop] = value
        if 3 in self.asked and 4 in self.asked:
            self.w, self.h = min(self.sizes, key=lambda s: abs(s[0] - self.asked[3]) + abs(s[1] - self.asked[4]))
        return True

    def get(self, prop: int) -> float:
        return {3: float(self.w), 4: float(self.h)}.get(prop, 0.0)

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, object]:
        return False, None

    def release(self) -> None:
        pass


@pytest.mark.parametrize(("asked", "said"), [
    ((1280, 720), "camera 0: 1280x720 frames"),
    ((1920, 1080), "camera 0 gives 1280x720 frames (asked for 1920x1080: its nearest size)"),
    (None, None),
])
def test_a_camera_is_asked_for_a_frame_size_and_what_it_gives_is_said(asked, said) -> None:
    cap = _SizedCap([(640, 480), (1280, 720)])
    plan = [cap]  # opens once; once lost, it is gone
    capture = Capture(0, lambda target: plan.pop() if plan else None, size=asked)
    heard: list[str] = []
    list(Reopening(capture, heard.append, attempts=1, sleep=lambda s: None))
    if asked is None:
        assert cap.asked == {} and capture.given == (640, 480)
        assert not any("frames" in h for h in heard)
    else:
        assert cap.asked == {3: float(asked[0]), 4: float(asked[1])}
        assert capture.given == (1280, 720)
        assert heard[0] == said


def test_play_and_outdoor_take_a_camera_size_and_refuse_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.cli import main

    for command in (["play", "oneworld"], ["outdoor"]):
        assert main([*command, "--camera", "0", "--camera-size", "1280 by 720"]) == 2
        assert "expected WIDTHxHEIGHT such as 1280x720" in capsys.readouterr().err
        assert main([*command, "--camera", "0", "--camera-size", "20x20"]) == 2
        assert "each side must be 64 to 4096 pixels" in capsys.readouterr().err


def test_a_record_whose_header_cannot_be_written_leaves_neither_file(tmp_path, monkeypatch):
    """The header fails to be written (a full disk): neither the record nor the new side log
    beside it is left, so the next try with the same --record is not refused for a side log
    of no earlier game."""
    path = tmp_path / "game.jsonl"
    m = manifest("oneworld")

    def full(self, f, obj):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(LiveRecord, "_write", full)
    with pytest.raises(OSError, match="No space left"):
        LiveRecord.create(path, m["game"], m["options"], m["start"])
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.undo()
    LiveRecord.create(path, m["game"], m["options"], m["start"]).close()
    assert path.exists()

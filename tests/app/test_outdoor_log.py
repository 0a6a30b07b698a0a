"""The outdoor session's log (``tabletop outdoor --log / --resume``): written as the session
goes, read back to continue it, and refused with the line's number when it cannot be read."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rules.the_game.options import TheGameOptions
from tabletop.errors import RecordError
from tabletop.outdoor.assistant import assess
from tabletop.outdoor.live import OutdoorSession
from tabletop.outdoor.log import FORMAT, FieldLog, read_log, read_still, still_paths
from tabletop.outdoor.memory import KEPT

from .test_outdoor import _frame, _Stub, reading, rendered_shot


def _session(frames, said, log=None):
    return OutdoorSession(_Stub(frames), lambda text, kind: said.append((kind, text)), window_s=0.2,
                          on_settle=None if log is None else log.position)


def _play(session, frames, start=0.0):
    for i in range(frames):
        session.process(None, start + 0.1 * i)


def test_a_log_keeps_what_was_said_and_each_settled_position(tmp_path: Path) -> None:
    log_path = tmp_path / "game.jsonl"
    start = [reading("R1", 12, 6, 90), reading("B1", 12, 9, 270)]
    moved = [reading("R1", 12, 10.5, 90), reading("B1", 12, 9, 270)]
    frames = [_frame(start)] * 3 + [_frame(moved, hands=[(0, 0, 10, 10)])] + [_frame(moved)] * 3
    said: list[tuple[str, str]] = []
    with FieldLog.create(log_path, TheGameOptions()) as log:
        session = OutdoorSession(_Stub(frames), lambda text, kind: (log.said(text, kind), said.append((kind, text))),
                                 window_s=0.2, on_settle=log.position)
        _play(session, 7)
    lines = [json.loads(line) for line in log_path.read_text().splitlines()]
    assert lines[0]["format"] == FORMAT and lines[0]["options"]["field_width"] == 24.0
    assert [(x["kind"], x["said"]) for x in lines if "said" in x] == said
    positions = [x["position"] for x in lines if "position" in x]
    assert len(positions) == 2  # the set-up read, then the move
    assert [p["at"] for p in positions[1]["pieces"] if p["id"] == "R1"] == [{"x": 12.0, "y": 10.5}]
    assert positions[1]["placing"] is False and positions[1]["sequence"] == 1
    held = read_log(log_path)
    assert held.positions == 2 and held.said == len(said) and held.sequence == 1 and not held.placing
    assert {(r.id, r.side, r.centre.x, r.centre.y, r.facing) for r in held.readings} == \
        {(r.id, r.side, r.centre.x, r.centre.y, r.facing) for r in moved}
    # a position is logged once what it made the session say is logged
    move = next(i for i, x in enumerate(lines) if "said" in x and "moved" in x["said"])
    assert next(i for i, x in enumerate(lines) if "position" in x and not x["position"]["placing"]) > move


def test_a_resumed_session_judges_the_next_move_against_the_logged_position(tmp_path: Path) -> None:
    log_path = tmp_path / "game.jsonl"
    start = [reading("R1", 12, 6, 90), reading("B1", 12, 9, 270)]
    with FieldLog.create(log_path, TheGameOptions()) as log:
        _play(_session([_frame(start)] * 3 + [_frame(start)] * 3, [], log), 3)
        log.position(assess(start), 1, False)  # the play has begun: no more pieces are being put down
    log, held = FieldLog.resume(log_path)
    moved = [reading("R1", 12, 13.5, 90), reading("B1", 12, 9, 270)]
    said: list[tuple[str, str]] = []
    with log:
        session = _session([_frame(moved, hands=[(0, 0, 10, 10)])] + [_frame(moved)] * 3, said, log)
        session.resume(held.readings, held.sequence, held.placing)
        _play(session, 4)
    assert said[0] == ("info", "Resumed sequence 1: 1 red, 1 blue pieces.")
    assert said[1][0] == "illegal" and '1.50" too far' in said[1][1]  # not "Field read": the move is judged
    assert read_log(log_path).positions == 3
    # a fresh session (no log) reads the same frames as a new field
    fresh: list[tuple[str, str]] = []
    _play(_session([_frame(moved)] * 3, fresh), 3)
    assert fresh[0] == ("info", "Field read: 1 red, 1 blue pieces.")


def test_a_kept_piece_and_the_setting_up_come_back_from_a_log(tmp_path: Path) -> None:
    log_path = tmp_path / "game.jsonl"
    hidden = replace(reading("B2", 12, 11, 270), method=KEPT, box=(400.0, 300.25, 440.0, 330.0))
    unknown = replace(reading("R2", 3, 3, 0), method=KEPT, box=(0.0, 0.0, 0.0, 0.0))  # kept from a log without it
    report = assess([reading("R1", 12, 6, 90), reading("B1", 12, 9, 270), hidden, unknown])
    with FieldLog.create(log_path, TheGameOptions(field_of_vision=120.0)) as log:
        log.position(report, 3, True)
    line = json.loads(log_path.read_text().splitlines()[1])
    boxes = {p["id"]: p["box"] for p in line["position"]["pieces"]}
    assert boxes["B2"] == [400.0, 300.2, 440.0, 330.0] and boxes["R2"] is None  # where it was last seen
    held = read_log(log_path)
    assert held.options.field_of_vision == 120.0
    assert held.sequence == 3 and held.placing
    assert {r.id: r.method for r in held.readings} == {"R1": "fit", "R2": KEPT, "B1": "fit", "B2": KEPT}
    assert {r.id: r.box for r in held.readings if r.method == KEPT} == \
        {"B2": (400.0, 300.2, 440.0, 330.0), "R2": (0.0, 0.0, 0.0, 0.0)}
    said: list[tuple[str, str]] = []
    session = _session([], said)
    session.resume(held.readings, held.sequence, held.placing)
    assert said == [("info", "Resumed sequence 3 (setting up): 2 red, 2 blue pieces.")]
    assert session.placing and session.sequence == 3
    assert {r.id for r in session.settled.readings} == {"R1", "R2", "B1", "B2"}
    said.clear()  # a log of a game that ended: its last sequence was played out
    _session([], said).resume((), 8, True)
    assert said == [("info", "Resumed after the end of the game (sequence 7 was the last): 0 red, 0 blue pieces.")]


def test_a_line_cut_short_by_a_crash_is_dropped_and_a_bad_line_refused(tmp_path: Path) -> None:
    log_path = tmp_path / "game.jsonl"
    with FieldLog.create(log_path, TheGameOptions(), sync=False) as log:
        log.said("Field read: 1 red, 0 blue pieces.", "info")
        log.position(assess([reading("R1", 12, 6, 90)]), 1, True)
    whole = log_path.read_bytes()
    log_path.write_bytes(whole + b'{"time": "2026-11-24T12:00:00", "said": "Red R1 mo')
    held = read_log(log_path)
    assert held.kept == len(whole) and held.said == 1 and held.positions == 1
    log, _ = FieldLog.resume(log_path, sync=False)
    with log:
        log.said("Red to move.", "info")
    text = log_path.read_text()
    assert text.startswith(whole.decode()) and "Red R1 mo" not in text
    assert [json.loads(x).get("said") for x in text.splitlines()[3:]] == ["Red to move."]

    def refused(lines: list[str]) -> str:
        bad = tmp_path / "bad.jsonl"
        text = "\n".join(lines) + "\n"
        bad.write_text(text)
        with pytest.raises(RecordError) as err:
            FieldLog.resume(bad)
        assert bad.read_text() == text  # left as it was
        return str(err.value)

    header, *rest = whole.decode().splitlines()
    assert "line 2: invalid JSON" in refused([header, "{not json", *rest])
    assert "line 1: format" in refused(['{"game": "oneworld"}', *rest])
    piece = json.loads(rest[1])
    piece["position"]["pieces"][0]["at"] = {"x": "left"}
    assert "line 3: position.pieces[0].at.x: expected a number" in refused([header, rest[0], json.dumps(piece)])
    piece["position"]["pieces"][0].update(at={"x": 1, "y": 2}, side="green")
    assert "position.pieces[0].side" in refused([header, rest[0], json.dumps(piece)])
    assert "line 2: kind" in refused([header, '{"time": "t", "said": "hello", "kind": "shout"}'])
    assert "empty" in refused([""])
    with pytest.raises(RecordError, match="folder"):
        read_log(tmp_path)


@pytest.mark.parametrize("window", [None, "1.5"])
def test_one_photo_is_held_long_enough_to_be_read_at_any_window(cli, tmp_path: Path, window: str | None) -> None:
    """Each photo of a folder stands for a still field: held for the window and a little more
    (it was held 0.5 s while the default window is 0.6 s, so a lone photo read nothing)."""
    shots = tmp_path / "shots"
    rendered_shot(shots)
    result = cli("outdoor", "--images", str(shots), "--labels", "--no-window", "--out", str(tmp_path / "out"),
                 "--audio", "none", *(["--window", window] if window else []))
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].startswith("Field read: ")
    assert any(" is observed" in line or " is unobserved" in line for line in result.out.splitlines())


def test_the_field_s_size_follows_the_options_and_the_two_may_not_disagree(cli, tmp_path: Path) -> None:
    """As 'tabletop play the-game' takes the field's size from --options (field_width,
    field_depth), so does 'tabletop outdoor' when --field-size is not given; given both, they
    must agree. A resumed log keeps its own field."""
    shots = tmp_path / "shots"
    rendered_shot(shots)
    run = ("outdoor", "--images", str(shots), "--labels", "--no-window", "--out", str(tmp_path / "out"),
           "--audio", "none", "--window", "0.2")
    wide = tmp_path / "wide.jsonl"
    result = cli(*run, "--options", '{"field_width": 36}', "--log", str(wide))
    assert result.code == 0, result.err
    assert (read_log(wide).options.field_width, read_log(wide).options.field_depth) == (36.0, 24.0)
    refused = tmp_path / "refused.jsonl"
    result = cli(*run, "--options", '{"field_width": 3}', "--field-size", "24x24", "--log", str(refused))
    assert result.code == 2
    assert result.error_line() == ("tabletop: error: --options: field_width 3 and field_depth 24 make a 3x24 field, "
                                   "and --field-size says 24x24: give the field's size once (--field-size)")
    assert not refused.exists()
    result = cli(*run, "--options", '{"field_depth": 24}', "--field-size", "24", "--log", str(tmp_path / "same.jsonl"))
    assert result.code == 0, result.err
    result = cli(*run, "--resume", str(wide))
    assert result.code == 0, result.err


def test_outdoor_command_writes_a_log_and_resumes_it(cli, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    rendered_shot(shots)
    log_path = tmp_path / "game.jsonl"
    run = ("outdoor", "--images", str(shots), "--labels", "--no-window", "--out", str(tmp_path / "out"),
           "--audio", "none", "--window", "0.2")
    result = cli(*run, "--log", str(log_path))
    assert result.code == 0, result.err
    said = [line for line in result.out.splitlines() if " is observed" in line or " is unobserved" in line]
    held = read_log(log_path)
    assert held.positions == 1 and held.said >= len(said) > 0
    assert len(held.readings) == len(said)
    image, view = read_still(log_path, held.positions)  # the frame the position was read from, and its view
    assert image.shape == (720, 1280, 3) and view.size == (1280, 720)
    result = cli(*run, "--log", str(log_path))
    assert result.code == 2 and "exists (use --resume" in result.error_line()
    result = cli(*run, "--resume", str(log_path), "--options", '{"field_of_vision": 90}')
    assert result.code == 2 and "--options" in result.error_line()
    result = cli(*run, "--resume", str(tmp_path / "none.jsonl"))
    assert result.code == 2 and "no such log" in result.error_line()
    result = cli(*run, "--resume", str(log_path))
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].startswith("Resumed sequence 1 (setting up): ")
    assert not any(line in said for line in result.out.splitlines())  # the same position: nothing said again
    assert read_log(log_path).positions == 1
    still_paths(log_path)[1].write_text("{cut")
    result = cli(*run, "--resume", str(log_path))  # a picture that cannot be read is left out, and said
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].startswith("note: the last position's picture is not used: ")
    assert result.out.splitlines()[1].startswith("Resumed sequence 1 (setting up): ")
    result = cli(*run, "--resume", str(log_path), "--field-size", "36x24")
    assert result.code == 2 and "the log's field is 24x24 inches" in result.error_line()
    bare = tmp_path / "bare.jsonl"
    FieldLog.create(bare, TheGameOptions()).close()  # a session stopped before any position stood still
    result = cli(*run, "--resume", str(bare))
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == "Resumed: no still position was read before; reading the field afresh."
    assert result.out.splitlines()[1].startswith("Field read: ")
    assert read_log(bare).positions == 1


def test_a_piece_missing_after_a_resume_is_not_kept_as_untouched(tmp_path: Path) -> None:
    """Between two sessions nobody watched the field: a piece gone from open ground then may
    have been lifted by a hand no frame saw, so it is not kept as "no hand came near it"."""
    start = [reading("R1", 12, 6, 90), reading("B1", 12, 9, 270), reading("B2", 4, 20, 180)]
    without_b2 = start[:2]

    def first_lines(resumed: bool) -> list[str]:
        said: list[tuple[str, str]] = []
        if resumed:
            session = _session([_frame(without_b2)] * 4, said)
            session.resume(assess(start).readings, 1, False)
            _play(session, 4)
        else:
            session = _session([_frame(start)] * 3 + [_frame(without_b2)] * 4, said)
            _play(session, 7)
        return [text for _, text in said]

    watched = first_lines(resumed=False)
    assert "Blue B2 is not seen, but no hand came near it: kept where it was last seen." in watched
    resumed = first_lines(resumed=True)
    assert not any("kept where it was last seen" in line for line in resumed)
    assert "Blue B2 left the field at the far edge." in resumed  # unobserved, 4" from it: it walked off


def test_the_last_position_s_picture_is_kept_beside_the_log(tmp_path: Path) -> None:
    from .test_outdoor import _ground

    log_path = tmp_path / "game.jsonl"
    jpg, meta = still_paths(log_path)
    first = _frame([reading("R1", 12, 6, 90)])
    ground = _ground(7)
    with FieldLog.create(log_path, TheGameOptions(), sync=False) as log:
        assert read_still(log_path, 0) is None  # nothing kept yet
        log.position(first.report, 1, True, picture=(ground, first.view))
        image, view = read_still(log_path, 1)
        assert image.shape == ground.shape and np.abs(image.astype(int) - ground).mean() < 4  # a JPEG of it
        for height in (0.0, 0.4):
            assert np.allclose(view.to_image([[3, 4], [20, 21]], height),
                               first.view.to_image([[3, 4], [20, 21]], height), atol=1e-6)
        assert read_still(log_path, 2) is None  # the picture of a position before the last
        log.position(first.report, 1, True)  # settled without a picture: the one before is not that position's
        assert not meta.exists() and read_still(log_path, 2) is None
        log.position(first.report, 1, True, picture=(ground, first.view))
    assert json.loads(meta.read_text())["position"] == 3 == read_log(log_path).positions
    log, _ = FieldLog.resume(log_path, sync=False)  # a resumed log goes on counting its positions
    with log:
        log.position(first.report, 1, False, picture=(ground, first.view))
    assert read_still(log_path, 4) is not None and read_log(log_path).positions == 4

    good = json.loads(meta.read_text())
    for broken, words in (({**good, "K": [[1, 0], [0, 1]]}, "K: expected 3x3 finite numbers"),
                          ({**good, "format": "x"}, "format"),
                          ({**good, "size": [640, 480]}, "the picture is 1280x720, the description says 640x480"),
                          ({**good, "t": [0, 0, "far"]}, "t: expected 3 finite numbers")):
        meta.write_text(json.dumps(broken))
        with pytest.raises(RecordError, match=words):
            read_still(log_path, 4)
    meta.write_text("{cut")
    with pytest.raises(RecordError, match="cannot be read"):
        read_still(log_path, 4)
    meta.write_text(json.dumps(good))
    jpg.write_bytes(b"not a picture")
    with pytest.raises(RecordError, match="not a picture"):
        read_still(log_path, 4)
    jpg.unlink()
    assert read_still(log_path, 4) is None
    # a new log of that name does not take a picture left by an older one
    jpg.write_bytes(b"old")
    log_path.unlink()
    with FieldLog.create(log_path, TheGameOptions(), sync=False) as log:
        assert not jpg.exists() and not meta.exists()
        log.position(first.report, 1, True, picture=(ground, first.view))
        # a frame that cannot be written is left out; the position is logged all the same
        jpg.with_name(jpg.name + ".part").mkdir()
        log.position(first.report, 1, True, picture=(ground, first.view))
    assert read_log(log_path).positions == 2 and not meta.exists() and read_still(log_path, 2) is None


def test_a_resumed_session_keeps_a_missed_piece_whose_place_looks_as_it_did_in_the_kept_picture(
        tmp_path: Path) -> None:
    """With the last position's picture kept beside the log, a piece the detector misses
    right after a restart is kept where its place looks as it did, and said gone where the
    ground shows through; without the picture it cannot be told and is not kept."""
    import cv2

    from .test_outdoor import _camera, _ground, _moved_off, _seen

    view = _frame([]).view
    ground = _ground(4)
    r1, b1 = _seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)
    log_path = tmp_path / "game.jsonl"
    with FieldLog.create(log_path, TheGameOptions(), sync=False) as log:
        session = OutdoorSession(_Stub([replace(_frame([r1, b1]), image=ground)] * 3), lambda text, kind: None,
                                 window_s=0.2, on_settle=lambda *a: log.position(*a, picture=session.settled_picture))
        _play(session, 3)
        log.position(session.settled, 1, False, picture=session.settled_picture)  # the play has begun
    held = read_log(log_path)
    noisy = np.clip(ground.astype(int) + np.random.default_rng(5).normal(0, 3, ground.shape), 0, 255).astype(np.uint8)

    def resumed(picture, now: np.ndarray, scale: float = 1.0) -> list[str]:
        said: list[tuple[str, str]] = []
        if scale != 1.0:  # a camera giving frames of another size
            now = cv2.resize(now, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        session = _session([replace(_frame([b1]), image=now, view=_camera(scale))] * 4, said)
        session.resume(held.readings, held.sequence, held.placing, picture)
        _play(session, 4)
        return [text for _, text in said]

    kept = read_still(log_path, held.positions)
    assert kept is not None
    assert "Red R1 is not found, but its place looks as it did: kept where it was last seen." in resumed(kept, noisy)
    for scale in (0.5, 1.5):  # resumed with a camera that gives frames of another size
        assert "Red R1 is not found, but its place looks as it did: kept where it was last seen." in resumed(
            kept, noisy, scale)
    for picture, now, scale in ((kept, _moved_off(noisy, r1, view, 9), 1.0), (None, noisy, 1.0),
                                (kept, _moved_off(noisy, r1, view, 9), 0.5), (kept, _moved_off(noisy, r1, view, 9), 1.5)):
        lines = resumed(picture, now, scale)
        assert not any("kept where it was last seen" in line for line in lines)
        assert any(line.startswith("Blue B1 is the last piece standing") for line in lines)  # red gone

    # a piece already kept when the session stopped (missed, its place as it was) is told by
    # the box it was last seen in, which the log keeps; here blue moves after the restart
    with FieldLog.create(tmp_path / "kept.jsonl", TheGameOptions(), sync=False) as log:
        log.position(assess([replace(r1, method=KEPT), b1]), 1, False, picture=(ground, view))
    held = read_log(tmp_path / "kept.jsonl")
    said: list[tuple[str, str]] = []
    moved = _seen("B1", 7, 20, 270, view)
    session = _session([replace(_frame([moved]), image=_moved_off(noisy, b1, view, 11))] * 4, said)
    session.resume(held.readings, held.sequence, held.placing, read_still(tmp_path / "kept.jsonl", 1))
    _play(session, 4)
    assert [text for _, text in said if " moved " in text] == ["Blue B1 moved 3 inches (observed: 6 inches allowed)."]
    assert [(r.id, r.method) for r in session.settled.readings if r.side == "red"] == [("R1", KEPT)]
    assert not any("gone" in text or "no piece left" in text for _, text in said)


@pytest.mark.parametrize(("blue", "expected"), [
    ([("B1", 12, 9, 270), ("B2", 4, 20, 180)], "Red has no piece left standing: split the survivors."),
    ([("B1", 12, 9, 270)], ("Blue B1 is the last piece standing: unaware of anyone, it walks towards the nearest "
                           "edge until it leaves the field.")),
])
def test_a_side_with_no_piece_left_splits_the_survivors_unless_one_is_left(blue, expected) -> None:
    """The engine splits two or more survivors; a single one is the last piece, which walks off."""
    start = [reading("R1", 12, 6, 90), *(reading(*b) for b in blue)]
    moved = [reading("R1", 12, 7.5, 90), *(reading(*b) for b in blue)]
    gone = [reading(*b) for b in blue]
    hand = [(0, 0, 1280, 720)]  # over the whole field: R1 was lifted, not missed
    frames = [_frame(start)] * 3 + [_frame(moved, hands=hand)] + [_frame(moved)] * 4 + \
        [_frame(gone, hands=hand)] + [_frame(gone)] * 4
    said: list[tuple[str, str]] = []
    _play(_session(frames, said), len(frames))
    lines = [text for _, text in said]
    assert expected in lines
    assert not any("split the survivors" in line for line in lines) or len(blue) > 1


def test_a_knockdown_and_whose_go_it_is_come_back_from_a_log(tmp_path: Path) -> None:
    """R1 knocks B1 down (the play has begun), the session stops; resumed from its log, B1 seen
    standing where it was said to be knocked down is said so, and whose go it is carries on
    from the log (B2's move ends the turn: Red went first), not afresh."""
    log_path = tmp_path / "game.jsonl"
    start = [reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("B2", 3, 20, 270)]
    acted = [reading("R1", 12, 10.5, 90), reading("B2", 3, 20, 270)]
    with FieldLog.create(log_path, TheGameOptions()) as log:
        session = _session([_frame(start)] * 3 + [_frame(acted, hands=[(0, 0, 1280, 720)])] + [_frame(acted)] * 3,
                           [], log)
        session.placing = False
        log_position = log.position
        session.on_settle = lambda report, sequence, placing: log_position(report, sequence, placing,
                                                                           memo=session.memo())
        _play(session, 7)
    position = [json.loads(x) for x in log_path.read_text().splitlines() if "position" in x][-1]["position"]
    assert position["down"] == [{"side": "blue", "at": {"x": 12.0, "y": 11.5}}]
    assert position["order"]["first"] == "red" and position["order"]["phase"] == "movement"
    log, held = FieldLog.resume(log_path)
    assert [(side, at.x, at.y) for side, at in held.memo["down"]] == [("blue", 12.0, 11.5)]
    moved = [reading("R1", 12, 10.5, 90), reading("B2", 3, 16, 270)]
    back = [reading("R1", 12, 10.5, 90), reading("B1", 12, 11.5, 270), reading("B2", 3, 16, 270)]
    said: list[tuple[str, str]] = []
    hand = [(0, 0, 1280, 720)]
    with log:
        again = _session([_frame(moved, hands=hand)] + [_frame(moved)] * 3 + [_frame(back, hands=hand)]
                         + [_frame(back)] * 3, said, log)
        again.resume(held.readings, held.sequence, held.placing, memo=held.memo)
        _play(again, 8)
    texts = [text for _, text in said]
    assert texts[1:3] == ["Blue B1 moved 4 inches (observed: 6 inches allowed).", "Turn 2: Red to move."], texts
    assert "Blue B1 stands where a piece was said to be knocked down: it was not, and is in play." in texts, texts


def test_a_log_whose_memo_names_an_unknown_side_is_refused(tmp_path: Path) -> None:
    log_path = tmp_path / "game.jsonl"
    with FieldLog.create(log_path, TheGameOptions()) as log:
        log.position(assess([reading("R1", 12, 6, 90)]), 1, False,
                     memo={"down": [{"side": "green", "at": {"x": 1, "y": 2}}], "left": [], "order": None})
    with pytest.raises(RecordError, match="line 2: position: side 'green' is not one of the game's sides"):
        read_log(log_path)

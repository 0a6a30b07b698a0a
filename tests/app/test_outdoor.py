"""The outdoor assistant: advice and sentences from the rules, moves judged, ``tabletop
measure`` and measuring with two clicks."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from rules.geometry import FieldPoint
from rules.the_game.model import Piece
from rules.the_game.options import TheGameOptions
from rules.the_game.shapes import Footprint, gap
from tabletop.announcer import Announcer
from tabletop.errors import InputError
from tabletop.outdoor.assistant import assess, compare, inches, progress, whose_move
from tabletop.outdoor.measure import ClickMeasure, measure, parse_target
from tabletop.outdoor.readings import PieceReading
from tabletop.outdoor.view import FieldView

from .conftest import ROOT

DISC = Footprint.ellipse(1.0, 1.0)


def reading(pid: str, x: float, y: float, facing: float, side: str | None = None) -> PieceReading:
    side = side or ("red" if pid.startswith("R") else "blue")
    return PieceReading(pid, side, FieldPoint(x, y), facing, DISC, (0, 0, 1, 1), 1.0)


def test_facing_pieces_are_observed_and_may_act_on_each_other():
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("B2", 3, 20, 180)])
    r1, b1, b2 = (report.advice[k] for k in ("R1", "B1", "B2"))
    assert r1.observed and b1.observed and not b2.observed
    assert r1.move == 6.0 and b2.move == 12.0
    assert r1.targets == (("B1", pytest.approx(0.5), 3),)
    assert b2.sighting.reason == "horizon" and b2.edge == "left" and b2.leaves
    assert b2.walk_to == FieldPoint(0.0, 20.0)
    assert b2.sentence() == "Blue B2 is unobserved (it faces the horizon): it walks 3 inches straight off the left edge."
    assert report.distance("R1", "B1") == pytest.approx(0.5)


def test_the_number_to_beat_counts_friends_beside_the_target():
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("B2", 13.3, 11.5, 180)])
    numbers = {t[0]: t[2] for t in report.advice["R1"].targets}
    # B2 stands 0.3" from B1 (a friend beside the target): one more to beat
    assert numbers["B1"] == 4
    assert "needs above 4" in report.advice["R1"].sentence()


def test_the_number_to_beat_is_the_engine_s_once_the_actor_has_closed_in():
    """R1 acts on B1 from an inch away with R2 just behind it: closing in takes R1 away from
    R2, so R2 no longer stands beside it and the engine's number is 3, not 2."""
    readings = [reading("R1", 12, 10, 90), reading("R2", 12, 7.8, 90), reading("B1", 12, 12, 270)]
    report = assess(readings)
    numbers = {t[0]: t[2] for t in report.advice["R1"].targets}
    assert numbers == {"B1": 3}, numbers  # before closing in, R2 beside R1 made it 2
    assert "It may act on B1 (1 inch away): needs above 3." in report.advice["R1"].sentence()


def test_a_move_too_long_is_told_by_how_much():
    before = assess([reading("R1", 12, 6, 90), reading("B1", 12, 9, 270)])
    after = assess([reading("R1", 12, 13.5, 90), reading("B1", 12, 9, 270)])
    said = compare(before, after)
    assert len(said) == 1
    assert said[0].startswith("Red R1: R1 is observed and may move up to 6.00\"; it moved 7.50\", 1.50\" too far")


def test_a_legal_move_and_a_piece_leaving_the_field():
    before = assess([reading("R1", 12, 6, 90), reading("B1", 12, 9, 270), reading("B2", 1.0, 20, 180)])
    after = assess([reading("R1", 12, 8, 90), reading("B1", 12, 9, 270)])
    said = compare(before, after)
    assert "Red R1 moved 2 inches (observed: 6 inches allowed)." in said
    assert "Blue B2 left the field at the left edge." in said


def test_sentences_go_through_the_announcer():
    out = io.StringIO()
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270)])
    announcer = Announcer(out)
    for text in report.sentences():
        announcer.say(text)
    assert out.getvalue().splitlines() == [
        "Red R1 is observed: up to 6 inches. It may act on B1 (0.5 inches away): needs above 3.",
        "Blue B1 is observed: up to 6 inches. It may act on R1 (0.5 inches away): needs above 3.",
    ]


def test_whose_move_and_the_end_of_a_sequence():
    from rules.the_game import TheGame

    game = TheGame()
    state = game.apply(game.initial_state(), game.default_setup()).state
    assert whose_move(game, state) == "Red to move (movement phase, sequence 1, turn 1)."
    from dataclasses import replace

    later = replace(state, sequence=2)
    assert progress(game, state, later) == ["Sequence 1 is over.", "Set up the pieces of sequence 2."]


@pytest.mark.parametrize("x,text", [(0.0, "0 inches"), (1.0, "1 inch"), (6.04, "6 inches"), (2.35, "2.4 inches")])
def test_inches(x, text):
    assert inches(x) == text


def test_targets_parse():
    assert parse_target("r2") == ("R2", None)
    assert parse_target("640, 360.5") == ("640, 360.5", (640.0, 360.5))
    with pytest.raises(InputError, match="neither a piece id"):
        parse_target("12 by 4")


def test_measuring_points_and_pieces():
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 14, 270)])
    m = measure(report, ("R1", None), ("B1", None))
    assert m.distance == pytest.approx(3.0) and "edge to edge" in m.text
    m = measure(report, ("p", FieldPoint(12, 12)), ("R1", None))
    assert m.distance == pytest.approx(1.5, abs=0.01)
    m = measure(report, ("p", FieldPoint(0, 0)), ("q", FieldPoint(3, 4)))
    assert m.distance == pytest.approx(5.0)
    with pytest.raises(InputError, match="no piece R7"):
        measure(report, ("R7", None), ("B1", None))


def _looking_across() -> FieldView:
    """A 1280x720 camera 10" up, 40" before the 24" field's near edge, aimed at its centre."""
    k = np.array([[800.0, 0, 639.5], [0, 800.0, 359.5], [0, 0, 1]])
    at, target = np.array([12.0, -40.0, 10.0]), np.array([12.0, 12.0, 0.0])
    forward = (target - at) / np.linalg.norm(target - at)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    rot = np.array([right, np.cross(forward, right), forward])
    return FieldView.from_camera(k, rot, -rot @ at, (24, 24), (1280, 720))


def test_pixels_above_the_ground_s_horizon_see_no_ground():
    """A camera 10" up, looking across the field from 40" before it: its horizon crosses the
    picture about 155 px above the middle; pixels above it map to points behind the camera."""
    view = _looking_across()
    assert view.on_ground([[639.5, 600], [0, 719], [639.5, 220], [639.5, 190], [639.5, 0]]).tolist() == [
        True, True, True, False, False]
    assert view.on_ground(view.to_image([[0, 0], [24, 24]])).all()


def test_a_click_above_the_horizon_picks_nothing_and_says_so():
    """In the window, a click on the sky of a camera looking across the field sees no ground:
    it is not taken as a point (it would measure to a place behind the camera); the player
    is told, and the clicks on pieces before and after it still measure."""
    view = _looking_across()
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 14, 270)])
    got, notes = [], []
    cm = ClickMeasure(on_result=got.append, on_note=notes.append)
    cm.update(view, report)
    (x1, y1), (x2, y2) = view.to_image([[12, 10.2], [12.1, 14]])
    assert cm.click(x1, y1) is None
    assert cm.click(639.5, 40) is None and len(cm.picks) == 1
    assert notes == ["640,40 is above the ground's horizon: click a piece or a point on the ground"]
    m = cm.click(x2, y2)
    assert m is not None and (m.a, m.b) == ("R1", "B1") and got == [m]


def test_two_clicks_measure_between_pieces():
    k = np.array([[800.0, 0, 639.5], [0, 800.0, 359.5], [0, 0, 1]])
    view = FieldView.from_camera(k, np.eye(3), np.array([-12.0, -12.0, 30.0]), (24, 24), (1280, 720))
    report = assess([reading("R1", 12, 10, 90), reading("B1", 12, 14, 270)])
    got = []
    cm = ClickMeasure(on_result=got.append)
    cm.update(view, report)
    (x1, y1), (x2, y2) = view.to_image([[12, 10.2], [12.1, 14]])
    assert cm.click(x1, y1) is None
    m = cm.click(x2, y2)
    assert m is not None and (m.a, m.b) == ("R1", "B1") and m.distance == pytest.approx(3.0)
    assert got == [m] and cm.overlay() is not None
    # a third click starts again, on bare ground this time
    gx, gy = view.to_image([[20, 20]])[0]
    cm.click(gx, gy)
    assert len(cm.picks) == 1 and cm.picks[0][1] is not None


def test_measure_command_on_a_labelled_sample(cli, tmp_path):
    image = ROOT / "sample_images" / "the-game-still-1.jpg"
    labels = ROOT / "sample_images" / "the-game-still-1.json"
    out = tmp_path / "measured.png"
    result = cli("measure", str(image), "R1", "B1", "--labels", str(labels), "--out", str(out), "--json")
    assert result.code == 0, result.err
    got = result.json()
    truth = json.loads(labels.read_text())
    from tabletop.outdoor.truth import truth_pieces

    pieces = {p.id: p for p in truth_pieces(truth)}
    true_gap = gap(pieces["R2"].outline, pieces["B2"].outline)[0]  # the two labelled pieces
    # the 95th-percentile target for a distance between pieces: half an inch
    assert abs(got["measurement"]["inches"] - true_gap) < 0.5
    assert out.is_file() and out.stat().st_size > 1000


@pytest.mark.parametrize("argv,needle", [
    (["nowhere.jpg", "R1", "B1"], "no such file"),
    (["IMG", "R1", "x y"], "neither a piece id"),
    (["IMG", "R1", "R9", "--labels", "LABELS"], "no piece R9"),
    (["IMG", "R1", "B1", "--field-size", "huge"], "not a field size"),
    (["IMG", "R1", "B1", "--labels", "IMG"], "--labels: not JSON"),
    (["IMG", "R1", "B1", "--labels", "LABELS", "--out", "measured.txt"], "--out: could not write measured.txt"),
])
def test_measure_bad_input_is_one_line(cli, argv, needle):
    image = str(ROOT / "sample_images" / "the-game-still-1.jpg")
    labels = str(ROOT / "sample_images" / "the-game-still-1.json")
    argv = [image if a == "IMG" else labels if a == "LABELS" else a for a in argv]
    result = cli("measure", *argv)
    assert result.code == 2
    assert needle in result.error_line()


def test_pieces_of_engine_type_match_readings():
    report = assess([reading("R1", 5, 5, 0)])
    assert isinstance(report.pieces[0], Piece)
    assert report.options == TheGameOptions()


class _Stub:
    """An assistant that returns prepared frames, one per call."""

    def __init__(self, frames):
        self.frames = list(frames)

    def process(self, frame):
        return self.frames.pop(0)


def _frame(readings, hands=()):
    from tabletop.outdoor.frame import OutdoorFrame

    k = np.array([[800.0, 0, 639.5], [0, 800.0, 359.5], [0, 0, 1]])
    view = FieldView.from_camera(k, np.eye(3), np.array([-12.0, -12.0, 30.0]), (24, 24), (1280, 720))
    return OutdoorFrame(np.zeros((720, 1280, 3), np.uint8), view, list(readings), assess(readings), hands=list(hands))


def test_a_session_announces_settled_positions_and_judges_moves():
    from tabletop.outdoor.live import OutdoorSession

    start = [reading("R1", 12, 6, 90), reading("B1", 12, 9, 270)]
    moved = [reading("R1", 12, 13.5, 90), reading("B1", 12, 9, 270)]
    frames = [_frame(start)] * 3 + [_frame(moved, hands=[(0, 0, 10, 10)])] + [_frame(moved)] * 3
    said = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append((kind, text)), window_s=0.2)
    for i in range(3):
        session.process(None, 0.1 * i)
    assert [k for k, _ in said] == ["info", "info", "info"]
    assert said[0][1] == "Field read: 1 red, 1 blue pieces."
    assert said[1][1].startswith("Red R1 is observed: up to 6 inches.")
    said.clear()
    session.process(None, 0.3)  # a hand over the field: nothing is read
    assert said == []
    for i in range(3):
        session.process(None, 0.4 + 0.1 * i)
    assert said[0][0] == "illegal" and "1.50\" too far" in said[0][1]
    assert said[1][1] == "Blue to move."


def test_an_action_is_read_as_closing_in_and_a_knockdown_not_as_a_move():
    """R1 closes in on B1 (half an inch) and B1, knocked down, lies on its side (no longer read
    as a piece): the closing in is not judged as a move, and B1 is out of play by R1's doing.
    R2, facing away (unobserved), closes in on B2: not told it must walk 12 inches to an edge."""
    before = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270),
                     reading("R2", 5, 4, 270), reading("B2", 5, 5.5, 270)])
    assert not before.advice["R2"].observed
    after = assess([reading("R1", 12, 10.5, 90), reading("R2", 5, 4.5, 270), reading("B2", 5, 5.5, 270)])
    assert compare(before, after) == ["Red R1 closed in on B1 to act.", "Red R2 closed in on B2 to act.",
                                      "Blue B1 is out of play: knocked down by Red R1."]
    # a piece that stopped further short of touching than the camera may misread did not
    # close in: its move is judged; one that stopped half an inch short is read as closing in
    apart = assess([reading("R1", 12, 10, 90), reading("B1", 12, 12.25, 270)])
    short = assess([reading("R1", 12, 10.3, 90), reading("B1", 12, 12.25, 270)])
    assert compare(apart, short) == ["Red R1 moved 0.3 inches (observed: 6 inches allowed)."]
    near = assess([reading("R1", 12, 10.75, 90), reading("B1", 12, 12.25, 270)])
    assert compare(apart, near) == ["Red R1 closed in on B1 to act."]


def test_a_piece_gone_beside_a_piece_of_the_other_side_was_knocked_down_or_left():
    """Nobody closed in: a piece gone within an inch of the other side's pieces was knocked
    down by one of them; one that could also have walked off the field may have done either."""
    before = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("R2", 13.5, 11.5, 180),
                     reading("B2", 0.8, 20, 180), reading("R3", 2.3, 20, 0)])
    after = assess([reading("R1", 12, 10, 90), reading("R2", 13.5, 11.5, 180), reading("R3", 2.3, 20, 0)])
    assert compare(before, after) == [
        "Blue B1 is out of play: knocked down by Red R1 or R2.",
        "Blue B2 is out of play: it left the field at the left edge, or Red R3 knocked it down."]
    lone = assess([reading("R1", 12, 10, 90), reading("B1", 12, 20, 270)])
    assert compare(lone, assess([reading("B1", 12, 20, 270)])) == [
        ("Red R1 is gone, but the nearest edge was 10 inches away: put it back or lay it on its side if it "
         "was knocked down.")]


def test_a_knockdown_is_the_actor_s_side_s_doing_in_a_session():
    """After R1 knocks B1 down, blue is to move; B1 is out of play."""
    from tabletop.outdoor.live import OutdoorSession

    start = [reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("B2", 3, 20, 270)]
    acted = [reading("R1", 12, 10.5, 90), reading("B2", 3, 20, 270)]
    frames = [_frame(start)] * 3 + [_frame(acted, hands=[(0, 0, 1280, 720)])] + [_frame(acted)] * 3
    said = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(7):
        session.process(None, 0.1 * i)
    at = said.index("Red R1 closed in on B1 to act.")
    assert said[at:at + 3] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1.",
                               "Blue to move."], said
    assert [r.centre for r in session.settled.readings] == [FieldPoint(12, 10.5), FieldPoint(3, 20)]


def test_a_piece_off_the_field_neither_sees_nor_is_seen():
    """R1 and B1 face each other, but B1 lies past the far edge: out of play, it gets no advice
    and does not make R1 observed; nor may R1 act on it."""
    report = assess([reading("R1", 12, 23.2, 90), reading("B1", 12, 24.6, 270)])
    assert "B1" not in report.advice and [p.id for p in report.pieces] == ["R1", "B1"]
    assert not report.advice["R1"].observed and report.advice["R1"].targets == ()
    inside = assess([reading("R1", 12, 22.2, 90), reading("B1", 12, 23.6, 270)])
    assert inside.advice["R1"].observed and [t[0] for t in inside.advice["R1"].targets] == ["B1"]


def test_a_piece_said_to_have_left_stays_out_while_it_lies_inside_the_edge():
    """An unobserved piece walks to 0.1" short of the far edge (within the tolerance: it left
    the field) and lies there: it is not read back into play by the windows after."""
    from tabletop.outdoor.live import OutdoorSession

    start = [reading("R1", 12, 13, 90), reading("B1", 3, 3, 0), reading("R2", 20, 3, 0)]
    moved = [reading("R1", 12, 23.9, 90), reading("B1", 3, 3, 0), reading("R2", 20, 3, 0)]
    frames = [_frame(start)] * 3 + [_frame(moved, hands=[(0, 0, 10, 10)])] + [_frame(moved)] * 9
    said: list[str] = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(13):
        session.process(None, 0.1 * i)
    assert "Red R2 moved 10.9 inches and left the field at the far edge." in said
    assert said[-1] == "Blue to move.", said  # nothing said after: the piece lying there is no new position
    assert [r.centre.y for r in session.settled.readings] == [3.0, 3.0]


def test_a_resumed_log_with_a_piece_past_the_edge_leaves_it_out():
    from tabletop.outdoor.live import OutdoorSession

    said: list[str] = []
    session = OutdoorSession(_Stub([]), lambda text, kind: said.append(text))
    report = session.resume([reading("R1", 12, 10, 90), reading("B1", 12, 24.5, 270)], 1, False)
    assert [r.id for r in report.readings] == ["R1"] and said == ["Resumed sequence 1: 1 red, 0 blue pieces."]


def test_a_piece_lying_past_the_edge_is_out_of_play():
    """A piece moves 3.3 inches, over the far edge, and lies there in sight: it left the field, and
    is neither advised nor read again as a new position; a piece put down outside the field
    while setting up is counted apart."""
    from tabletop.outdoor.live import OutdoorSession

    start = [reading("R1", 12, 21, 270), reading("B1", 12, 19, 90), reading("R2", 3, 3, 0), reading("B2", 6, 24.6, 0)]
    moved = [reading("R1", 12, 24.3, 270), reading("B1", 12, 19, 90), reading("R2", 3, 3, 0), reading("B2", 6, 24.6, 0)]
    frames = [_frame(start)] * 3 + [_frame(moved, hands=[(0, 0, 10, 10)])] + [_frame(moved)] * 9
    said = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(13):
        session.process(None, 0.1 * i)
    assert said[0] == "Field read: 2 red, 1 blue pieces (1 more outside the field, not in play)."
    # named from the near edge: the piece at (12, 21) is R2; it moved 3 inches to the edge
    assert said[-4:-2] == ["Red R2 moved 3 inches and left the field at the far edge.", "Blue to move."], said
    assert [r.centre for r in session.settled.readings] == [FieldPoint(3, 3), FieldPoint(12, 19)]
    assert sum(t.startswith("Red R2") for t in said) == 2  # its advice once, its move once: not settled again
    assert not any(t.startswith("Blue B2") for t in said)
    assert compare(assess(start), assess(moved)) == ["Red R1 moved 3 inches and left the field at the far edge.",
                                                     "Blue B2 stands outside the field: it is out of play."]


def rendered_shot(folder):
    """A rendered field (seed 404, 1280x720, no hand) as ``folder/a.png`` with its ground truth
    beside it, as ``tabletop render`` writes (for ``tabletop outdoor --images DIR --labels``);
    returns the truth."""
    import cv2

    from vision.render import CameraRanges, Renderer, RenderOptions

    r = Renderer("the-game", seed=404, options=RenderOptions(size=(1280, 720), hands=0.0,
                                                            camera=CameraRanges(elevation=(60.0, 80.0))))
    sampled = r.sampler.sample(0)
    rng = np.random.default_rng([404, 0])
    frame = r.render_state(sampled.game, sampled.state, r.new_view(rng, r.adapter[0](sampled.game, sampled.state)),
                           rng=rng, source=sampled)
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), frame.image)
    (folder / "a.json").write_text(json.dumps(frame.truth))
    return frame.truth


def test_outdoor_goes_on_past_a_frame_its_detector_fails_on(cli, tmp_path, monkeypatch):
    """A detector that raises on one frame (a driver hiccup) costs that frame, said in one
    line; the session and its log go on."""
    import vision.detect
    from tabletop.outdoor.log import read_log
    from vision.detections import Detections

    class Hiccup:
        names = ("hand",)
        calls = 0

        def detect(self, image):
            Hiccup.calls += 1
            if Hiccup.calls == 2:
                raise RuntimeError("CUDA error: an illegal memory access")
            return Detections.empty()

    monkeypatch.setattr(vision.detect.Detector, "load", classmethod(lambda cls, *a, **k: Hiccup()))
    shots = tmp_path / "shots"
    rendered_shot(shots)
    log = tmp_path / "game.jsonl"
    result = cli("outdoor", "--images", str(shots), "--no-window", "--out", str(tmp_path / "out"),
                 "--audio", "none", "--window", "0.2", "--log", str(log))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "frame 2: detection failed (RuntimeError: CUDA error: an illegal memory access), skipped" in lines
    assert any(line.startswith("Field read: ") for line in lines)
    assert read_log(log).positions == 1


def test_outdoor_says_once_that_a_photo_of_its_folder_cannot_be_read(cli, tmp_path):
    """A corrupt or empty file among the photos is skipped in one line, not silently; the photos
    after it are read."""
    import shutil

    shots = tmp_path / "shots"
    rendered_shot(shots)
    (shots / "b.png").write_bytes(b"")
    shutil.copy(shots / "a.png", shots / "c.png")
    shutil.copy(shots / "a.json", shots / "c.json")
    result = cli("outdoor", "--images", str(shots), "--labels", "--no-window", "--out", str(tmp_path / "out"),
                 "--audio", "none", "--window", "0.2")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert [line for line in lines if "unreadable" in line] == [
        "frame 6: unreadable frame (a corrupt or empty file?), skipped"]
    assert lines[-1] == "15 frames"


def test_outdoor_command_on_a_rendered_photo(cli, tmp_path):
    shots = tmp_path / "shots"
    truth = rendered_shot(shots)
    result = cli("outdoor", "--images", str(shots), "--labels", "--no-window", "--out", str(tmp_path / "out"),
                 "--audio", "none", "--window", "0.2")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    pieces = [p for p in truth["pieces"] if p.get("in_labels") and not p.get("held")]
    assert not any("No field" in line for line in lines)
    assert sum(1 for line in lines if " is observed" in line or " is unobserved" in line) == len(pieces)
    assert len(list((tmp_path / "out").glob("frame-*.jpg"))) == 5


def test_outdoor_command_bad_input(cli, tmp_path):
    result = cli("outdoor", "--camera", "0", "--labels", "--no-window", "--out", str(tmp_path))
    assert result.code == 2 and "--labels" in result.error_line()
    result = cli("outdoor", "--images", str(tmp_path), "--no-window")
    assert result.code == 2 and "--out" in result.error_line()


def test_a_still_window_is_averaged():
    from tabletop.outdoor.live import averaged

    frames = [assess([reading("R1", 12 + dx, 10, 90 + da), reading("B1", 3, 3, 0)])
              for dx, da in ((-0.1, -4), (0.1, 4), (0.0, 0))]
    one = averaged(frames)
    r1 = one.reading("R1")
    assert r1.centre.x == pytest.approx(12.0) and r1.facing == pytest.approx(90.0)
    assert one.reading("B1").centre == FieldPoint(3, 3)


def test_a_play_frame_becomes_an_outdoor_frame():
    from types import SimpleNamespace

    from calibration.pose import BoardPose
    from tabletop.live.board import PoseGeometry, SeenBoard, SeenPiece
    from tabletop.outdoor.live import play_frame

    pose = BoardPose.from_homography(np.diag([0.05, -0.05, 1.0]) @ np.array([[1, 0, 0], [0, 1, -480], [0, 0, 1.0]]),
                                     "inch", (24, 24))
    seen = SeenBoard("the-game", (SeenPiece("red-piece", None, (12.0, 10.0), (0, 0, 5, 5), 0.9, 90.0),
                                  SeenPiece("blue-piece", None, (12.0, 11.5), (0, 0, 5, 5), 0.8, 270.0)))
    result = SimpleNamespace(view=SimpleNamespace(geometry=PoseGeometry(pose)), seen=seen)
    frame = play_frame(result, (640, 480))
    assert [r.id for r in frame.readings] == ["R1", "B1"]
    assert frame.report.advice["R1"].observed and frame.report.distance("R1", "B1") == pytest.approx(0.5)
    assert play_frame(SimpleNamespace(view=None, seen=seen), (640, 480)) is None


def test_a_session_tells_the_end_of_a_sequence_and_of_the_game():
    from tabletop.outdoor.live import OutdoorSession

    one = [reading("R1", 12, 6, 90), reading("B1", 12, 9, 270)]
    said = []
    stub = _Stub([])
    stub.options = TheGameOptions(sequences=2)
    session = OutdoorSession(stub, lambda text, kind: said.append(text), window_s=0.0)
    for k in range(2):  # set up, then taken off by hand
        stub.frames += [_frame(one), _frame(one), _frame([], hands=[(0, 0, 1280, 720)]), _frame([]), _frame([])]
        for i in range(5):
            session.process(None, 10.0 * k + i)
    ends = [t for t in said if "No piece is left" in t]
    assert ends == ["No piece is left on the field: sequence 1 is over. Set up sequence 2.",
                    "No piece is left on the field: sequence 2 is over, and with it the game."]


def _render(seed: int = 404, index: int = 0):
    from vision.render import CameraRanges, Renderer, RenderOptions

    r = Renderer("the-game", seed=seed, options=RenderOptions(size=(1280, 720), hands=0.0,
                                                             camera=CameraRanges(elevation=(60.0, 80.0))))
    sampled = r.sampler.sample(index)
    rng = np.random.default_rng([seed, index])
    view = r.new_view(rng, r.adapter[0](sampled.game, sampled.state))
    return r.render_state(sampled.game, sampled.state, view, rng=rng, source=sampled)


def test_measure_with_a_calibration_and_a_fixed_pose(cli, tmp_path):
    import cv2

    from calibration.pose import BoardPose
    from tabletop.outdoor.truth import truth_calibration, truth_pieces, visible_ids

    frame = _render()
    image, labels = tmp_path / "field.png", tmp_path / "field.json"
    cv2.imwrite(str(image), frame.image)
    labels.write_text(json.dumps(frame.truth))
    calibration = tmp_path / "camera.json"
    truth_calibration(frame.truth).save(calibration)
    # the pose of the undistorted picture, as 'tabletop calibrate field --camera' writes it
    h = np.array(frame.truth["board"]["board_to_image"], float)
    pose = tmp_path / "pose.json"
    pose.write_text(json.dumps(BoardPose.from_homography(np.linalg.inv(h), "inch", (24, 24)).to_json()))
    with_markers = cli("measure", str(image), "R1", "B1", "--labels", str(labels), "--calibration", str(calibration),
                       "--json")
    fixed = cli("measure", str(image), "R1", "B1", "--labels", str(labels), "--calibration", str(calibration),
                "--pose", str(pose), "--json")
    assert with_markers.code == 0 and fixed.code == 0, with_markers.err + fixed.err
    a, b = with_markers.json()["measurement"]["inches"], fixed.json()["measurement"]["inches"]
    assert abs(a - b) < 0.05  # the markers' pose and the true one agree
    pieces = {p.id: p for p in truth_pieces(frame.truth) if p.id in visible_ids(frame.truth)}
    red = min((p for p in pieces.values() if p.side == "red"), key=lambda p: p.at.y)
    blue = min((p for p in pieces.values() if p.side == "blue"), key=lambda p: p.at.y)
    assert abs(b - gap(red.outline, blue.outline)[0]) < 0.5  # the 95th-percentile target


def test_a_gaze_that_holds_by_a_hair_is_flagged():
    # side by side, both facing the far edge; B1 0.4" behind R1: R1 sees only 0.1" of it
    close = assess([reading("R1", 10, 10, 90), reading("B1", 13, 9.6, 90)])
    assert close.advice["R1"].observed and close.advice["R1"].close
    assert close.advice["R1"].sentence() == "Red R1 is observed: up to 6 inches, only just: check by eye."
    clear = assess([reading("R1", 10, 10, 90), reading("B1", 13, 10, 90)])
    assert clear.advice["R1"].observed and not clear.advice["R1"].close
    missed = assess([reading("R1", 10, 10, 90), reading("B1", 13, 9.4, 90)])  # 0.1" short
    assert not missed.advice["R1"].observed and missed.advice["R1"].close
    far = assess([reading("R1", 10, 10, 90), reading("B1", 13, 5, 90)])
    assert not far.advice["R1"].close


# -- pieces hidden behind others, flickering pieces and still windows --------------------------

def _seen(pid: str, x: float, y: float, facing: float, view: FieldView, cover: tuple[float, float] | None = None
          ) -> PieceReading:
    """A reading with the box its piece casts in ``view`` (0.4" tall), stretched to cover the
    field point ``cover`` too (a piece standing in front of whatever is there)."""
    from dataclasses import replace

    r = reading(pid, x, y, facing)
    outline = np.asarray(DISC.outline(x, y, facing), float)
    pts = np.vstack([view.to_image(outline, 0.0), view.to_image(outline, 0.4)])
    if cover is not None:
        pts = np.vstack([pts, view.to_image(np.asarray(DISC.outline(*cover, 0.0), float), 0.0),
                         view.to_image(np.asarray(DISC.outline(*cover, 0.0), float), 0.4)])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    return replace(r, box=(float(x0), float(y0), float(x1), float(y1)), outline=DISC.outline(x, y, facing))


def test_a_piece_hidden_behind_another_is_kept_and_one_gone_from_open_ground_is_not():
    from tabletop.outdoor.memory import KEPT, out_of_sight

    view = _frame([]).view
    before = assess([_seen("R1", 12, 10, 90, view), _seen("B1", 12, 12, 270, view)])
    hidden = assess([_seen("B1", 12, 12, 270, view, cover=(12, 10))])
    kept = out_of_sight(before, hidden, view)
    assert [(r.side, r.centre, r.method, why) for r, why in kept] == [("red", FieldPoint(12, 10), KEPT, "hidden")]
    in_the_open = assess([_seen("B1", 12, 12, 270, view)])
    assert out_of_sight(before, in_the_open, view) == []
    # missing from open ground: kept when no hand came near it since, not when one did
    hand_far = view.to_image([[20, 20]])[0]
    far = [(hand_far[0] - 20, hand_far[1] - 20, hand_far[0] + 20, hand_far[1] + 20)]
    assert [why for _, why in out_of_sight(before, in_the_open, view, hands=far)] == ["untouched"]
    assert [why for _, why in out_of_sight(before, in_the_open, view, hands=[])] == ["untouched"]
    over = [_seen("R1", 12, 10, 90, view).box]
    assert out_of_sight(before, in_the_open, view, hands=over) == []
    # a red piece read 1.5" away may be the missing one, moved: nothing is kept
    moved = assess([_seen("R1", 12, 11.5, 90, view, cover=(12, 10)), _seen("B1", 12, 13.5, 270, view)])
    assert out_of_sight(before, moved, view) == []


def test_a_piece_read_twice_and_then_once_leaves_no_hidden_ghost():
    from tabletop.outdoor.assistant import TWICE
    from tabletop.outdoor.memory import covered_share, out_of_sight

    view = _frame([]).view
    whole = _seen("R1", 12, 10, 90, view, cover=(12, 10.3))
    twice = assess([whole, _seen("R2", 12, 10.3, 90, view), _seen("B1", 4, 20, 270, view)])
    once = assess([whole, _seen("B1", 4, 20, 270, view)])
    assert covered_share(twice.readings[1], [whole.box], view, 0.4) >= 0.5  # R2's place is under R1's box
    for placing in (False, True):
        assert out_of_sight(twice, once, view, placing=placing) == []  # R2 was R1 read a second time
    # a red piece really hidden behind R1, more than TWICE from it: kept
    behind = assess([_seen("R1", 12, 10, 90, view, cover=(12, 10 + 2 * TWICE)), _seen("R2", 12, 10 + 2 * TWICE, 90, view),
                     _seen("B1", 4, 20, 270, view)])
    shown = assess([_seen("R1", 12, 10, 90, view, cover=(12, 10 + 2 * TWICE)), _seen("B1", 4, 20, 270, view)])
    assert [(r.centre, why) for r, why in out_of_sight(behind, shown, view)] == [(FieldPoint(12, 11.0), "hidden")]


def test_a_piece_whose_front_dot_is_gone_is_not_kept_as_unchanged():
    """A knocked-down piece lies on its side where it stood: its place may look much as it did,
    but its front dot no longer stands out there, so it is not kept as missed by the detector."""
    from dataclasses import replace

    import cv2

    from tabletop.outdoor.memory import dot_gone

    view = _frame([]).view
    r = replace(_seen("R1", 12, 10, 90, view), dot=FieldPoint(12, 10.4))
    u, v = (int(round(c)) for c in view.to_image(np.array([[12, 10.4]]), 0.4)[0])
    ground = np.full((720, 1280, 3), 110, np.uint8)
    dotted = cv2.circle(ground.copy(), (u, v), 3, (40, 40, 230), -1)
    assert dot_gone(r, dotted, view, ground, view)  # turned on its side: the dot is out of sight
    assert not dot_gone(r, dotted, view, dotted, view)  # missed by the detector, dot still there
    assert not dot_gone(r, ground, view, ground, view)  # no dot seen before: nothing to tell by
    assert not dot_gone(replace(r, dot=None), dotted, view, ground, view)
    assert not dot_gone(replace(r, side="green"), dotted, view, ground, view)  # no dot colour for the side


def test_a_piece_an_actor_closed_in_on_and_now_hides_is_not_kept_as_hidden():
    """R1 closes in on B1 and stands in front of its place: B1 unseen is as likely knocked down
    as hidden, and is said to be knocked down, not kept; seen there again later (the action
    failed), it is said to be in play."""
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    far = _seen("B2", 4, 20, 270, view)
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 12, 11.5, 270, view), far]
    acted = [_seen("R1", 12, 10.5, 90, view, cover=(12, 11.5)), far]
    again = [_seen("R1", 12, 10.5, 90, view), _seen("B1", 12, 11.5, 270, view), far]
    frames = [_frame(start)] * 3 + [_frame(acted, hands=[(0, 0, 1280, 720)])] + [_frame(acted)] * 3 \
        + [_frame(again, hands=[(0, 0, 1280, 720)])] + [_frame(again)] * 4
    said: list[str] = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(12):
        session.process(None, 0.1 * i)
    assert "Blue B1 is out of play: knocked down by Red R1." in said, said
    assert not any("kept where it was last seen" in t for t in said)
    assert said.count("Blue B1 stands where a piece was said to be knocked down: it was not, and is in play.") == 1
    # B1 lifted off, and another blue piece moved where it lay: a move, not B1 standing again
    lifted = [_seen("R1", 12, 10.5, 90, view), _seen("B2", 12.2, 11.6, 270, view)]
    frames = [_frame(start)] * 3 + [_frame(acted, hands=[(0, 0, 1280, 720)])] + [_frame(acted)] * 3 \
        + [_frame(lifted, hands=[(0, 0, 1280, 720)])] + [_frame(lifted)] * 4
    said.clear()
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(12):
        session.process(None, 0.1 * i)
    assert any(t.startswith("Blue B1: B1 is observed and may move up to 6.00\"; it moved 11.74\"") for t in said)
    assert not any("stands where" in t for t in said), said
    # without the closing in (R1 stepped in front from further away) B1 is kept as hidden, as before
    from tabletop.outdoor.memory import out_of_sight

    assert [why for _, why in out_of_sight(assess(start), assess(acted), view)] == ["hidden"]
    assert out_of_sight(assess(start), assess(acted), view, acted_on={"B1"}) == []


def test_a_short_closing_in_whose_target_lies_down_but_is_still_boxed_is_read():
    """R1 closes in on B1 by less than the half inch a still position needs to count as new,
    and B1, knocked down, lies where it stood: the detector still boxes it there, unsurely,
    now and then as a red piece. Its front dot, seen before, is gone: it is no piece, and the
    position is new: the closing in and the knockdown are said. The same position with B1's
    dot still there (it stands: the box only jittered) says nothing; nor does one where R1
    stands over where B1's dot was (it may hide the dot). R1, moved less than an inch, is read
    near where it stood with its dot gone from there too: it took its dot along, and stands."""
    from dataclasses import replace

    from tabletop.outdoor.frame import OutdoorFrame
    from tabletop.outdoor.live import OutdoorSession
    from tabletop.outdoor.memory import dot_gone

    view = _frame([]).view
    ground = np.full((720, 1280, 3), 110, np.uint8)

    dotted = _dotted

    def red_r1(at: tuple[float, float]):  # facing +x, its red dot 0.4" ahead of its centre
        return replace(_seen("R1", *at, 0, view), dot=FieldPoint(at[0] + 0.4, at[1]))

    def shot(readings, image, hands=()):
        return OutdoorFrame(image, view, list(readings), assess(readings), hands=list(hands))

    def said_for(b1_after, image_after, r1_to=(10.4, 12.0), r1_from=(10.0, 12.0), b1=None, dot=(12.0, 12.0)):
        b1 = b1 or replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(*dot))
        far = _seen("R2", 4, 20, 90, view)
        seen_before = dotted(dotted(ground, dot), (r1_from[0] + 0.4, r1_from[1]), _RED)
        seen_after = dotted(image_after, (r1_to[0] + 0.4, r1_to[1]), _RED)  # R1's dot went along with it
        return _knockdown([red_r1(r1_from), b1, far], [red_r1(r1_to), b1_after, far], seen_before, seen_after)[0]

    lying = replace(_seen("B1", 11.6, 12, 0, view), side="red", confidence=0.35)  # boxed as the other side
    said = said_for(lying, ground)
    assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said
    said = said_for(replace(_seen("B1", 11.6, 12, 0, view), confidence=0.35), ground)  # boxed as its own side
    assert "Blue B1 is out of play: knocked down by Red R1." in said, said
    standing = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12.0))
    assert not any("closed in" in t or "knocked down" in t for t in said_for(standing, dotted(ground, (12.0, 12.0))))
    # R1 closed in on the dot's side, its box over where the dot was: the dot may be hidden, B1 stands
    toward = replace(_seen("B1", 12, 12, 225, view), dot=FieldPoint(11.72, 11.72))  # its dot towards the camera
    x0, y0, x1, y1 = _seen("R1", 11.25, 11.25, 0, view).box
    u, v = view.to_image(np.array([[11.72, 11.72]]), 0.4)[0]
    assert x0 <= u <= x1 and y0 <= v <= y1
    boxed = replace(_seen("B1", 12, 12, 225, view), side="red", confidence=0.35)
    start = [_seen("R1", 10.85, 10.85, 0, view), toward, _seen("R2", 4, 20, 90, view)]
    session = OutdoorSession(_Stub([shot(start, dotted(ground, (11.72, 11.72)))] * 3), lambda text, kind: None,
                             window_s=0.2)
    for i in range(3):
        session.process(None, 0.1 * i)
    assert session.settled is not None and dot_gone(toward, dotted(ground, (11.72, 11.72)), view, ground, view)
    beside = [start[0], boxed, start[2]]  # R1 where it stood, beside B1's place: B1 lies
    session.last = shot(beside, ground)
    assert [(r.side, r.centre.x, r.centre.y) for r in session._lying(assess(beside))] == [("red", 12, 12)]
    over = [_seen("R1", 11.25, 11.25, 0, view), boxed, start[2]]  # R1 over where B1's dot was: it may hide it
    session.last = shot(over, ground)
    assert session._lying(assess(over)) == []


def test_a_piece_kept_out_of_sight_leaves_a_lying_piece_read_as_its_side_taken_for_lying():
    """R3, hidden at the last still position, was kept where it was last seen and is out of
    sight still. R1 closes in on B1 by less than half an inch; B1, knocked down, is boxed as a
    red piece, its dot gone. Red has one reading more than the red pieces in sight (R3 not
    among them), so that one can be B1 lying: the closing in and the knockdown are said.
    Counted among the red pieces, R3 left no red reading over, and nothing was said."""
    from dataclasses import replace

    from tabletop.outdoor.memory import KEPT

    view = _frame([]).view
    ground = np.full((720, 1280, 3), 110, np.uint8)
    r1 = replace(_seen("R1", 10.0, 12, 0, view), dot=FieldPoint(10.4, 12))
    b1 = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12))
    far = _seen("R2", 4, 20, 90, view, cover=(4, 22))
    kept = replace(_seen("R3", 4, 22, 90, view), method=KEPT)  # behind R2, then and now
    closed = replace(_seen("R1", 10.4, 12, 0, view), dot=FieldPoint(10.8, 12))
    lying = replace(_seen("B1", 11.6, 12, 0, view), side="red", confidence=0.35)
    before = _dotted(_dotted(ground, (12.0, 12)), (10.4, 12), _RED)
    after = _dotted(ground, (10.8, 12), _RED)
    said, session = _knockdown([r1, b1, far, kept], [closed, lying, far], before, after)
    assert [(r.side, r.centre) for r in session.settled.readings if r.method == KEPT] == [("red", FieldPoint(4, 22))]
    assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said


def _knockdown(start, after, before_image, after_image, windows: int = 1) -> tuple[list[str], object]:
    """What a session says after ``start`` (seen in ``before_image``) is followed by a hand
    and then ``after`` (seen in ``after_image``) for ``windows`` still windows, and the session."""
    from tabletop.outdoor.frame import OutdoorFrame
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view

    def shot(readings, image, hands=()):
        return OutdoorFrame(image, view, list(readings), assess(readings), hands=list(hands))

    frames = [shot(start, before_image)] * 3 + [shot(after, after_image, [(0, 0, 1280, 720)])] \
        + [shot(after, after_image)] * (3 * windows + 1)
    said: list[str] = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(len(frames)):
        session.process(None, 0.1 * i)
        if i == 2:
            assert said and said[0].startswith("Field read:"), said
            start_said = len(said)
    return said[start_said:], session


def _dotted(image: np.ndarray, at: tuple[float, float], colour=(230, 40, 40)) -> np.ndarray:
    """``image`` with a front dot (blue unless ``colour`` says otherwise) at field point ``at``, 0.4" up."""
    import cv2

    u, v = (int(round(c)) for c in _frame([]).view.to_image(np.array([at]), 0.4)[0])
    return cv2.circle(image.copy(), (u, v), 3, colour, -1)


_RED = (40, 40, 230)


def test_the_actor_that_closed_in_is_not_taken_for_its_target_lying_down():
    """R1 closes in on B1 until their feet touch (1" pieces, centres 0.98" apart: within an
    inch of where B1 stood); B1, knocked down, is not boxed at all, its dot gone. R1, of the
    other side, is no reading of B1 lying there: no red reading is left over for it to be
    (as many red readings as red pieces before), even with R3, another red piece, standing
    in range of B1. The closing in and the knockdown are said; R1 stays in play."""
    from dataclasses import replace

    view = _frame([]).view
    ground = np.full((720, 1280, 3), 110, np.uint8)
    r1 = replace(_seen("R1", 9.6, 12, 0, view), dot=FieldPoint(10.0, 12))
    b1 = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12))
    r3 = replace(_seen("R3", 11.6, 14.0, 270, view), dot=FieldPoint(11.6, 13.6))
    closed = replace(_seen("R1", 10.62, 12, 0, view), dot=FieldPoint(11.02, 12))
    before = _dotted(_dotted(_dotted(ground, (12.0, 12)), (10.0, 12), _RED), (11.6, 13.6), _RED)
    after = _dotted(_dotted(ground, (11.02, 12), _RED), (11.6, 13.6), _RED)
    said, session = _knockdown([r1, b1, r3], [closed, r3], before, after)
    assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said
    assert sorted((r.side, r.centre.x) for r in session.settled.readings) == [("red", 10.62), ("red", 11.6)]


def test_an_actor_turned_to_its_target_with_its_dot_out_of_sight_is_not_taken_for_lying():
    """R1 closes in on B1 by 0.6" and turns to face it, its front dot now on its far side from
    the camera (not read, out of sight); B1, knocked down, is not boxed. R1's dot is gone from
    where it was, but no piece of the other side stands now within range of R1 to have
    knocked it down: R1 stands. The closing in and the knockdown are said."""
    from dataclasses import replace

    view = _frame([]).view
    ground = np.full((720, 1280, 3), 110, np.uint8)
    r1 = replace(_seen("R1", 10.0, 12, 90, view), dot=FieldPoint(10.0, 12.4))
    b1 = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12))
    far = _seen("R2", 4, 20, 90, view)
    turned = _seen("R1", 10.6, 12, 0, view)  # no dot read
    before = _dotted(_dotted(ground, (12.0, 12)), (10.0, 12.4), _RED)
    said, session = _knockdown([r1, b1, far], [turned, far], before, ground)
    assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said
    assert sorted((r.side, r.centre.x) for r in session.settled.readings) == [("red", 4.0), ("red", 10.6)]


def test_a_piece_knocked_down_and_still_boxed_stays_down_in_the_still_positions_after():
    """B1, knocked down by R1's short closing in, lies where it stood and is still boxed
    there (as a red piece, or as a blue one): the knockdown is said, and in the still
    positions that follow, nothing moving, the box is still no piece (its place looks as it
    did when B1 was said to be knocked down): B1 is not said to stand again, nor is a new
    piece read. Stood up again (its place no longer looks as it did), it is said to stand."""
    from dataclasses import replace

    view = _frame([]).view
    grain = np.random.default_rng(7).integers(70, 150, (720, 1280), dtype=np.uint8)
    ground = np.repeat(grain[:, :, None], 3, axis=2)  # grey grass: a place can be told by its look
    r1 = replace(_seen("R1", 10.0, 12, 0, view), dot=FieldPoint(10.4, 12))
    b1 = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12))
    far = _seen("R2", 4, 20, 90, view)
    closed = replace(_seen("R1", 10.4, 12, 0, view), dot=FieldPoint(10.8, 12))
    before = _dotted(_dotted(ground, (12.0, 12)), (10.4, 12), _RED)
    after = _dotted(ground, (10.8, 12), _RED)
    for side in ("red", "blue"):
        lying = replace(_seen("B1", 11.6, 12, 0, view), side=side, confidence=0.35)
        said, session = _knockdown([r1, b1, far], [closed, lying, far], before, after, windows=3)
        assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said
        assert not any("stands where" in t for t in said), said
        assert sorted((r.side, r.centre.x) for r in session.settled.readings) == [("red", 4.0), ("red", 10.4)], said
    # stood up again: its place looks otherwise (the picture of a piece standing, not lying)
    up = np.roll(after, 5, axis=1)
    session.last = replace(session.last, image=up)
    standing = assess([closed, replace(_seen("B1", 11.6, 12, 0, view)), far])
    assert session._lying(standing) == []


def test_a_piece_read_twice_and_then_once_is_not_said_to_be_gone():
    from tabletop.outdoor.assistant import compare

    twice = assess([reading("R1", 12, 10, 90), reading("R2", 12.3, 10.1, 90), reading("B1", 4, 20, 270)])
    once = assess([reading("R1", 12, 10, 90), reading("B1", 4, 20, 270)])
    assert compare(twice, once) == []
    apart = assess([reading("R1", 12, 10, 90), reading("R2", 12, 11, 90), reading("B1", 4, 20, 270)])
    assert [t.split(",")[0] for t in compare(apart, once)] == ["Red R2 is gone"]  # a piece an inch away: gone


def test_a_kept_piece_stays_kept_until_its_place_is_mostly_in_sight():
    from dataclasses import replace

    from tabletop.outdoor.memory import COVERED, KEPT, STAYS, covered_share, out_of_sight

    view = _frame([]).view
    r1, b1 = _seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)
    x0, y0, x1, y1 = r1.box

    def blue_over(part: float):  # B1's box reaching over the left ``part`` of R1's
        return assess([replace(b1, box=(min(b1.box[0], x0), min(b1.box[1], y0), x0 + part * (x1 - x0),
                                        max(b1.box[3], y1)))])

    share = covered_share(r1, [blue_over(0.4).readings[0].box], view, 0.4)
    assert COVERED * STAYS <= share < COVERED
    seen_last = assess([r1, b1])
    kept_last = assess([replace(r1, method=KEPT), b1])
    assert out_of_sight(seen_last, blue_over(0.4), view) == []  # seen last time: not hidden enough
    assert [why for _, why in out_of_sight(kept_last, blue_over(0.4), view)] == ["hidden"]
    assert covered_share(r1, [blue_over(0.1).readings[0].box], view, 0.4) < COVERED * STAYS
    assert out_of_sight(kept_last, blue_over(0.1), view) == []  # its place mostly in sight: dropped


def test_a_session_keeps_a_hidden_piece_and_says_so_once():
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 12, 12, 270, view)]
    hidden = [_seen("B1", 12, 12, 270, view, cover=(12, 10))]
    for remember, gone, kept in ((True, 0, 1), (False, 1, 0)):
        said: list[str] = []
        frames = [_frame(start)] * 3 + [_frame(hidden)] * 9  # the second still window changes nothing
        session = OutdoorSession(_Stub(frames), lambda text, kind, heard=said: heard.append(text),
                                 window_s=0.2, remember=remember)
        for i in range(12):
            session.process(None, 0.1 * i + (0.55 if i >= 3 else 0.0))
        # B1 stands within an inch of R1: R1 no longer read is told as knocked down by it
        assert sum(t.startswith("Red R1 is out of play: knocked down by Blue B1") for t in said) == gone
        assert sum("kept where it was last seen" in t for t in said) == kept
        assert len(session.settled.readings) == 1 + remember
        if remember:  # the red piece still faces the blue one: both observed
            assert all(a.observed for a in session.settled.advice.values())


def test_while_pieces_are_put_down_one_hidden_behind_its_own_side_is_kept_not_moved():
    from tabletop.outdoor.memory import out_of_sight

    view = _frame([]).view
    before = assess([_seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)])
    # a red piece put down in front of R1, hiding it: while playing it may be R1, moved 2"
    now = assess([_seen("R2", 12, 12, 270, view, cover=(12, 10)), _seen("B1", 4, 20, 270, view)])
    assert out_of_sight(before, now, view) == []
    kept = out_of_sight(before, now, view, placing=True)
    assert [(r.id, r.centre, why) for r, why in kept] == [("R1", FieldPoint(12, 10), "hidden")]
    # in open ground the new piece may still be R1, moved: not kept while placing either
    assert out_of_sight(before, assess([_seen("R2", 12, 12, 270, view), _seen("B1", 4, 20, 270, view)]), view,
                        placing=True) == []


def test_while_pieces_are_put_down_a_piece_gone_from_behind_one_already_there_moved():
    from dataclasses import replace

    from tabletop.outdoor.live import OutdoorSession
    from tabletop.outdoor.memory import KEPT, out_of_sight

    view = _frame([]).view
    # B1 stood in front of R1's place already, and R1 was seen beside it
    front = _seen("B1", 12, 12, 270, view, cover=(12, 10))
    before = assess([_seen("R1", 12, 10, 90, view), front])
    moved_off = assess([front, _seen("R2", 17, 6, 0, view)])  # R1 gone, a red piece in open ground
    assert out_of_sight(before, moved_off, view, placing=True) == []  # R1, moved: the first move
    # kept last time (hidden behind a piece put down then): still kept while a piece goes down elsewhere
    was_kept = assess([replace(before.readings[0], method=KEPT), front])
    assert [(r.id, why) for r, why in out_of_sight(was_kept, moved_off, view, placing=True)] == [("R1", "hidden")]
    # the red piece put down in front of R1's place: R1 hidden behind it, kept
    in_front = assess([front, _seen("R2", 12, 8, 270, view, cover=(12, 10))])
    assert [(r.id, why) for r, why in out_of_sight(before, in_front, view, placing=True)] == [("R1", "hidden")]

    said: list[str] = []
    frames = [[_seen("R1", 12, 10, 90, view), front]] * 3 + [[front, _seen("R1", 16, 7, 0, view)]] * 3
    session = OutdoorSession(_Stub([_frame(f) for f in frames]), lambda text, kind, heard=said: heard.append(text),
                             window_s=0.2)
    for i in range(len(frames)):
        session.process(None, 0.125 * i)
    assert [t for t in said if " moved " in t] == ["Red R1 moved 5 inches (observed: 6 inches allowed)."]
    assert not session.placing and len(session.settled.readings) == 2


def _ground(seed: int) -> np.ndarray:
    """A textured 1280x720 picture (blurred noise: ground with grain a few pixels wide)."""
    import cv2

    noise = cv2.GaussianBlur(np.random.default_rng(seed).random((720, 1280, 3)), (0, 0), 2.0)
    return cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)


def _reach(view: FieldView, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float, float, float]:
    """The box in ``view``'s pixels of a hand over the field from point ``a`` to ``b``."""
    pts = view.to_image([a, b])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _moved_off(image: np.ndarray, r: PieceReading, view: FieldView, seed: int) -> np.ndarray:
    """``image`` with the place of ``r`` (its hull, 0.4" tall) showing other ground."""
    import cv2

    outline = np.asarray(r.outline, float)
    pts = np.vstack([view.to_image(outline, 0.0), view.to_image(outline, 0.4)])
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(pts.astype(np.float32)).astype(np.int32), 1)
    out = image.copy()
    out[mask.astype(bool)] = _ground(seed)[mask.astype(bool)]
    return out


def test_how_alike_a_piece_s_place_looks_in_two_frames():
    from tabletop.outdoor.memory import LIKE, place_likeness

    view = _frame([]).view
    r1 = _seen("R1", 12, 10, 90, view)
    before = _ground(1)
    noisy = np.clip(before.astype(int) + np.random.default_rng(2).normal(0, 4, before.shape), 0, 255).astype(np.uint8)
    assert place_likeness(r1, before, view, noisy, view) > LIKE  # the same place, fresh sensor noise
    darker = (before * 0.6).astype(np.uint8)  # a cloud over the sun
    assert place_likeness(r1, before, view, darker, view) > LIKE
    assert place_likeness(r1, before, view, _moved_off(before, r1, view, 3), view) < 0.5
    # the camera moved half an inch: the frame is warped back through the two views
    k = np.array([[800.0, 0, 639.5], [0, 800.0, 359.5], [0, 0, 1]])
    moved = FieldView.from_camera(k, np.eye(3), np.array([-11.5, -12.0, 30.0]), (24, 24), (1280, 720))
    import cv2

    seen_from_moved = cv2.warpPerspective(before, moved.plane(0.2) @ np.linalg.inv(view.plane(0.2)), (1280, 720))
    assert place_likeness(r1, before, view, seen_from_moved, moved) > 0.95
    assert place_likeness(r1, before, view, before[:, ::-1].copy(), moved) < 0.5
    # only where the piece was seen (its box) counts: a change beside it in its hull does not
    from dataclasses import replace

    x0, y0, x1, y1 = r1.box
    left = replace(r1, box=(x0, y0, (x0 + x1) / 2, y1))
    right_changed = before.copy()
    right_changed[:, int((x0 + x1) / 2) + 2:] = _ground(6)[:, int((x0 + x1) / 2) + 2:]
    assert place_likeness(left, before, view, right_changed, view) > LIKE
    assert place_likeness(r1, before, view, right_changed, view) < LIKE
    plain = np.full_like(before, 90)
    assert place_likeness(r1, plain, view, plain, view) is None  # nothing to tell by
    off = _seen("R2", 40, 10, 90, view)  # off the picture
    assert place_likeness(off, before, view, before, view) is None


def _camera(scale: float) -> FieldView:
    """The view of :func:`_frame` from a camera giving frames ``scale`` times the size."""
    k = np.array([[800.0 * scale, 0, (1280 * scale - 1) / 2], [0, 800.0 * scale, (720 * scale - 1) / 2], [0, 0, 1]])
    size = (round(1280 * scale), round(720 * scale))
    return FieldView.from_camera(k, np.eye(3), np.array([-12.0, -12.0, 30.0]), (24, 24), size)


def _ground_seen(view: FieldView, grain: float, seed: int = 1) -> np.ndarray:
    """A textured ground (grain ``grain`` inches) as ``view``'s camera sees it: drawn three
    times finer and each pixel averaged over what it covers, as a sensor does."""
    import cv2

    ppi = 80  # the ground's own pixels per inch
    noise = cv2.GaussianBlur(np.random.default_rng(seed).random((24 * ppi, 24 * ppi, 3)), (0, 0), grain * ppi)
    ground = cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    k = np.diag([3.0, 3.0, 1.0]) @ view.K
    k[:2, 2] += 1.0  # pixel centres: (c + 0.5) * 3 - 0.5
    fine = FieldView.from_camera(k, view.R, view.t, (24, 24), (3 * view.size[0], 3 * view.size[1]))
    seen = cv2.warpPerspective(ground, fine.plane(0.0) @ np.diag([1 / ppi, 1 / ppi, 1.0]), fine.size)
    return cv2.resize(seen, view.size, interpolation=cv2.INTER_AREA)


def test_a_place_is_told_in_frames_of_another_size():
    """A session resumed from its log may get frames of another size than its kept picture:
    the place is compared all the same, the finer picture blurred to the coarser scale."""
    from tabletop.outdoor.memory import LIKE, place_likeness

    view = _camera(1.0)
    r1 = _seen("R1", 12, 10, 90, view)
    for grain in (0.0125, 0.025):  # a third and two thirds of a pixel of the kept picture
        before = _ground_seen(view, grain)
        for scale in (0.5, 0.75, 1.5, 2.0):
            other = _camera(scale)
            assert place_likeness(r1, before, view, _ground_seen(other, grain), other) > LIKE, (grain, scale)
            assert place_likeness(r1, before, view, _ground_seen(other, grain, seed=2), other) < 0.5
    # the place seen further right in the frame, up to half out of it and wholly out
    before = _ground_seen(view, 0.025)
    for right, inside in ((300.0, True), (640.0, False), (800.0, False)):
        k = view.K.copy()
        k[0, 2] += right
        shifted = FieldView.from_camera(k, view.R, view.t, (24, 24), (1280, 720))
        likeness = place_likeness(r1, before, view, _ground_seen(shifted, 0.025), shifted)
        assert (likeness > LIKE) if inside else (likeness is None), (right, likeness)


def test_a_piece_missed_where_its_place_looks_as_it_did_is_kept():
    from tabletop.outdoor.memory import out_of_sight

    view = _frame([]).view
    before = assess([_seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)])
    now = assess([_seen("R2", 15, 10, 270, view), _seen("B1", 4, 20, 270, view)])  # R1 missed, a red beside
    reached = [_reach(view, (11, 9), (16, 11))]
    for placing in (False, True):
        assert out_of_sight(before, now, view, hands=reached, placing=placing) == []  # R1 may be R2, moved
        kept = out_of_sight(before, now, view, hands=reached, placing=placing, likeness=lambda r: 0.99)
        assert [(r.id, why) for r, why in kept] == [("R1", "unchanged")]
        assert out_of_sight(before, now, view, hands=reached, placing=placing, likeness=lambda r: 0.6) == []
        assert out_of_sight(before, now, view, hands=reached, placing=placing, likeness=lambda r: None) == []
    # a red piece put down over R1's place (R1 moved a little, a stick lying across it): not for the likeness
    over = assess([_seen("R2", 13.2, 10, 270, view, cover=(12, 10)), _seen("B1", 4, 20, 270, view)])
    assert out_of_sight(before, over, view, hands=reached, likeness=lambda r: 0.99) == []
    # a place that a piece standing in front covers shows mostly that piece: not for the likeness
    front = _seen("B1", 12, 12, 270, view, cover=(12, 10))
    behind = assess([_seen("R1", 12, 10, 90, view), front])
    assert out_of_sight(behind, assess([front, _seen("R2", 17, 6, 0, view)]), view, hands=reached,
                        likeness=lambda r: 0.99) == []
    # with no red reading left and no hand near, kept once, for its likeness
    only_blue = assess([_seen("B1", 4, 20, 270, view)])
    assert [why for _, why in out_of_sight(before, only_blue, view, hands=[])] == ["untouched"]
    assert [why for _, why in out_of_sight(before, only_blue, view, hands=[], likeness=lambda r: 0.99)] == ["unchanged"]
    # a reading of the other side where R1 stood is R1 read otherwise, not a piece beside it
    flipped = assess([_seen("B2", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)])
    alone = out_of_sight(before, flipped, view, hands=reached)
    assert out_of_sight(before, flipped, view, hands=reached, likeness=lambda r: 0.99) == alone
    assert "unchanged" not in [why for _, why in alone]


def test_a_session_keeps_a_missed_piece_whose_place_looks_as_it_did_and_reads_one_moved_off_it():
    from dataclasses import replace

    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    ground = _ground(4)
    r1, b1 = _seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)
    r2 = _seen("R2", 15, 10, 270, view)
    hand = _reach(view, (11, 9), (16, 11))
    moved_off = _moved_off(ground, r1, view, 5)
    # the third: a camera that fills one buffer, frame after frame (the session keeps its own copy)
    for picture, kept, one_buffer in ((ground, True, False), (moved_off, False, False), (moved_off, False, True)):
        first = ground.copy() if one_buffer else ground
        frames = [replace(_frame([r1, b1]), image=first)] * 3 \
            + [replace(_frame([], hands=[hand]), image=first if one_buffer else picture)] \
            + [replace(_frame([r2, b1]), image=first if one_buffer else picture)] * 3
        said: list[str] = []
        session = OutdoorSession(_Stub(frames), lambda text, kind, heard=said: heard.append(text), window_s=0.2)
        for i in range(len(frames)):
            if one_buffer and i == 3:
                first[...] = picture
            session.process(None, 0.125 * i)
        if kept:  # the set-up goes on: R1 missed while R2 was put down beside it
            assert "Red R1 is not found, but its place looks as it did: kept where it was last seen." in said
            assert "Setting up: 2 red, 1 blue pieces." in said
            assert session.placing and len(session.settled.readings) == 3
            assert not [t for t in said if " moved " in t]
        else:  # R1's place shows the ground: it was moved, the first move
            assert [t for t in said if " moved " in t] == ["Red R1 moved 3 inches (observed: 6 inches allowed)."]
            assert not session.placing and len(session.settled.readings) == 2


def test_a_session_keeps_a_piece_hidden_while_pieces_are_put_down_and_reads_a_move_once_play_begins():
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)]
    in_front = [_seen("R2", 12, 12, 270, view, cover=(12, 10)), _seen("B1", 4, 20, 270, view)]
    blue_moved = [_seen("R1", 12, 10, 90, view), _seen("B1", 6, 20, 270, view)]
    in_front_later = [_seen("R2", 12, 12, 270, view, cover=(12, 10)), _seen("B1", 6, 20, 270, view)]
    for frames, moves, pieces in (([start] * 3 + [in_front] * 3, 0, 3),  # the set-up: R2 put down
                                  ([start] * 3 + [blue_moved] * 3 + [in_front_later] * 3, 2, 2)):  # play
        said: list[str] = []
        session = OutdoorSession(_Stub([_frame(f) for f in frames]), lambda text, kind, heard=said: heard.append(text),
                                 window_s=0.2)
        for i in range(len(frames)):
            session.process(None, 0.125 * i)
        assert sum(" moved " in t for t in said) == moves
        assert any("R1 is hidden behind another piece" in t for t in said) == (moves == 0)
        assert len(session.settled.readings) == pieces
        assert session.placing == (moves == 0)


def test_nothing_is_judged_while_pieces_are_put_down_and_the_first_move_is():
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)]
    # B1 set down again 3" away while B2 is put down: a set-up, not a move
    more = [_seen("R1", 12, 10, 90, view), _seen("B1", 7, 20, 270, view), _seen("B2", 20, 20, 270, view)]
    first_move = [_seen("R1", 12, 10, 90, view), _seen("B1", 9, 20, 270, view), _seen("B2", 20, 20, 270, view)]
    for remember in (True, False):
        said: list[str] = []
        frames = [start] * 3 + [more] * 3
        session = OutdoorSession(_Stub([_frame(f) for f in frames + [first_move] * 3]),
                                 lambda text, kind, heard=said: heard.append(text), window_s=0.2, remember=remember)
        for i in range(len(frames)):
            session.process(None, 0.125 * i)
        assert said[0] == "Field read: 1 red, 1 blue pieces."
        assert "Setting up: 1 red, 2 blue pieces." in said
        assert not [t for t in said if " moved " in t or "gone" in t or "left the field" in t]
        assert session.placing and len(session.settled.readings) == 3
        for i in range(len(frames), len(frames) + 3):
            session.process(None, 0.125 * i)
        assert [t for t in said if " moved " in t] == ["Blue B1 moved 2 inches (observed: 6 inches allowed)."]
        assert not session.placing


def test_a_piece_put_down_against_one_of_its_own_side_and_read_as_one_does_not_end_the_set_up():
    """A red piece put down against a red one, the two read as one piece 0.7" off: the count
    stays and no piece moved an inch, so that is set-up, not the first move; a move of 3"
    then is judged, and a first move of an inch or more ends the set-up as before."""
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 4, 20, 270, view)]
    merged = [_seen("R1", 12.7, 10, 90, view), _seen("B1", 4, 20, 270, view)]
    moved = [_seen("R1", 12.7, 13, 90, view), _seen("B1", 4, 20, 270, view)]
    near_move = [_seen("R1", 13.1, 10, 90, view), _seen("B1", 4, 20, 270, view)]
    for remember in (True, False):
        said: list[str] = []
        frames = [start] * 3 + [merged] * 3 + [moved] * 3
        session = OutdoorSession(_Stub([_frame(f) for f in frames]), lambda text, kind, heard=said: heard.append(text),
                                 window_s=0.2, remember=remember)
        for i in range(6):
            session.process(None, 0.125 * i)
        assert said[0] == "Field read: 1 red, 1 blue pieces."
        assert "Setting up: 1 red, 1 blue pieces." in said and not [t for t in said if " moved " in t]
        assert session.placing
        for i in range(6, 9):
            session.process(None, 0.125 * i)
        assert [t for t in said if " moved " in t] == ["Red R1 moved 3 inches (observed: 6 inches allowed)."]
        assert not session.placing
        said.clear()
        session = OutdoorSession(_Stub([_frame(f) for f in [start] * 3 + [near_move] * 3]),
                                 lambda text, kind, heard=said: heard.append(text), window_s=0.2, remember=remember)
        for i in range(6):
            session.process(None, 0.125 * i)
        assert [t for t in said if " moved " in t] == ["Red R1 moved 1.1 inches (observed: 6 inches allowed)."]
        assert not session.placing


def test_a_piece_found_now_and_then_beside_another_does_not_restart_the_window():
    from tabletop.outdoor.live import _same, position_key

    pair = assess([reading("R1", 12, 10, 90), reading("B1", 12, 12, 270)])
    one = assess([reading("B1", 12, 12, 270)])
    far = assess([reading("R1", 3, 3, 90), reading("B1", 12, 12, 270)])
    lone = assess([reading("R1", 3, 3, 90)])
    assert _same(position_key(pair), position_key(one))  # R1 beside B1, found in one frame only
    assert not _same(position_key(pair), position_key(one), vanish=False)
    assert not _same(position_key(far), position_key(lone))  # a lone piece gone: the position changed
    assert not _same(position_key(pair), position_key(assess([])))


def test_one_piece_read_twice_now_and_then_does_not_restart_the_window():
    from tabletop.outdoor.live import _same, position_key

    once = assess([reading("R1", 12, 10, 90), reading("B1", 5, 20, 270)])
    twice = assess([reading("R1", 12, 10, 90), reading("R2", 12.3, 10.1, 95), reading("B1", 5, 20, 270)])
    assert _same(position_key(twice), position_key(once))  # R2 pairs with nothing: one unsure reading
    assert _same(position_key(once), position_key(twice))
    assert not _same(position_key(twice), position_key(once), vanish=False)  # the settled position did change
    thrice = assess([reading("R1", 12, 10, 90), reading("R2", 12.3, 10.1, 95), reading("R3", 11.8, 10.2, 85),
                     reading("B1", 5, 20, 270)])
    assert not _same(position_key(thrice), position_key(once))  # two readings more: not one unsure piece


def test_one_piece_whose_facing_is_read_otherwise_in_place_does_not_restart_the_window():
    from tabletop.outdoor.live import _same, position_key

    ahead = assess([reading("R1", 12, 10, 90), reading("B1", 5, 20, 270)])
    behind = assess([reading("R1", 12, 10.1, 270), reading("B1", 5, 20, 270)])  # its dot read at the other end
    assert _same(position_key(ahead), position_key(behind))
    assert not _same(position_key(ahead), position_key(behind), vanish=False)  # turned in place: a move
    both = assess([reading("R1", 12, 10.1, 270), reading("B1", 5, 20, 90)])
    assert not _same(position_key(ahead), position_key(both))  # two pieces turned: the position changed
    aside = assess([reading("R1", 12, 11, 270), reading("B1", 5, 20, 270)])
    assert not _same(position_key(ahead), position_key(aside))  # turned and moved an inch


def test_a_session_speaks_while_one_piece_is_read_twice_now_and_then():
    from tabletop.outdoor.live import OutdoorSession

    once = [reading("R1", 12, 10, 90), reading("B1", 5, 20, 270)]
    twice = [*once, reading("R2", 12.3, 10.1, 95)]
    said: list[str] = []
    frames = [once, twice] * 4
    session = OutdoorSession(_Stub([_frame(f) for f in frames]), lambda text, kind: said.append(text), window_s=0.2)
    for i in range(len(frames)):
        session.process(None, 0.125 * i)
    assert said and said[0] == "Field read: 1 red, 1 blue pieces."


def test_a_still_window_takes_the_facing_most_of_its_frames_agree_on():
    from tabletop.outdoor.live import averaged

    def window(*facings):
        return averaged([assess([reading("R1", 12, 10, f), reading("B1", 5, 20, 270)]) for f in facings])

    r1 = {r.id: r for r in window(90, 200, 95).readings}["R1"]
    assert r1.facing == pytest.approx(92.5)  # the mean of all three would point at 122 degrees
    r1 = {r.id: r for r in window(88, 90, 92).readings}["R1"]
    assert r1.facing == pytest.approx(90.0)
    r1 = {r.id: r for r in window(90, 270, 90, 270).readings}["R1"]
    assert r1.facing == pytest.approx(270.0)  # a tie: the latest frame's


def test_a_still_window_keeps_the_pieces_most_of_its_frames_show():
    from tabletop.outdoor.live import averaged

    both = [reading("R1", 12, 10, 90), reading("B1", 12, 12, 270)]
    only_blue = [reading("B1", 12, 12, 270)]
    two_of_three = averaged([assess(both), assess(both), assess(only_blue)])
    assert sorted(r.id for r in two_of_three.readings) == ["B1", "R1"]
    one_of_three = averaged([assess(only_blue), assess(both), assess(only_blue)])
    assert [r.id for r in one_of_three.readings] == ["B1"]


def test_the_overlay_outlines_a_hidden_piece_in_grey():
    from tabletop.outdoor.overlay import HIDDEN, draw_field

    frame = _frame([reading("B1", 12, 12, 270)])
    plain = draw_field(frame.image, frame.view, frame.report)
    drawn = draw_field(frame.image, frame.view, frame.report, hidden=[reading("R1", 5, 5, 90)])
    changed = np.argwhere((drawn != plain).any(axis=2))
    centre = frame.view.to_image([[5, 5]])[0]
    assert len(changed) and np.abs(changed[:, ::-1] - centre).max(axis=1).min() < 40
    assert (drawn == np.array(HIDDEN, np.uint8)).all(axis=2).any()


def test_readings_are_matched_to_true_pieces_by_side_and_nearest_centre():
    from tabletop.outdoor.truth import match_readings

    pieces = {p.id: p for p in assess([reading("R1", 10, 10, 0), reading("R2", 11, 10, 0),
                                       reading("B1", 20, 20, 0)]).pieces}
    readings = [reading("x", 10.9, 10, 0, "red"), reading("y", 10.2, 10, 0, "red"), reading("z", 20, 21.6, 0, "blue"),
                reading("w", 20, 20.2, 0, "red")]
    assert match_readings(pieces, readings) == {"R1": 1, "R2": 0}  # B1: a blue reading 1.6" away is too far
    assert match_readings(pieces, readings, within=2.0) == {"R1": 1, "R2": 0, "B1": 2}


def test_a_piece_read_as_either_side_in_one_place_is_one_piece():
    from tabletop.outdoor.live import _same, averaged, position_key

    red = [reading("R1", 12, 10, 90), reading("B1", 5, 20, 270)]
    blue = [reading("B2", 12, 10.2, 270, "blue"), reading("B1", 5, 20, 270)]
    assert _same(position_key(assess(red)), position_key(assess(blue)))  # its front dot seen at either end
    assert _same(position_key(assess(red)), position_key(assess(blue)), vanish=False)
    moved = [reading("B2", 12, 11, 270, "blue"), reading("B1", 5, 20, 270)]
    assert not _same(position_key(assess(red)), position_key(assess(moved)))
    window = averaged([assess(red), assess(blue), assess(red), assess(blue)])  # a tie: the latest frame's side
    assert sorted(r.side for r in window.readings) == ["blue", "blue"]
    window = averaged([assess(blue), assess(red), assess(red)])
    assert sorted(r.side for r in window.readings) == ["blue", "red"]


def test_a_session_keeps_a_piece_missed_where_no_hand_came_but_not_one_a_hand_reached():
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 12, 14, 270, view)]
    missed = [_seen("B1", 12, 14, 270, view)]
    far, near = view.to_image([[3, 20]])[0], view.to_image([[12, 10]])[0]
    for at, kept in ((far, True), (near, False)):
        hand = (at[0] - 15, at[1] - 15, at[0] + 15, at[1] + 15)
        said: list[str] = []
        frames = [_frame(start)] * 3 + [_frame(start, hands=[hand])] + [_frame(missed)] * 3
        session = OutdoorSession(_Stub(frames), lambda text, kind, heard=said: heard.append(text), window_s=0.2)
        for i in range(7):
            session.process(None, 0.1 * i)
        assert any("not seen, but no hand came near it" in t for t in said) == kept
        assert any("is gone" in t for t in said) != kept
        assert len(session.settled.readings) == 1 + kept


def test_hands_that_moved_nothing_are_forgotten_once_the_field_is_read_again():
    from tabletop.outdoor.live import OutdoorSession

    view = _frame([]).view
    start = [_seen("R1", 12, 10, 90, view), _seen("B1", 12, 14, 270, view)]
    missed = [_seen("B1", 12, 14, 270, view)]
    at = view.to_image([[12, 10]])[0]
    hand = (at[0] - 15, at[1] - 15, at[0] + 15, at[1] + 15)
    said: list[str] = []
    # a hand over R1 that moves nothing, the same field read again, then R1 missed with no hand near
    frames = [_frame(start)] * 3 + [_frame(start, hands=[hand])] + [_frame(start)] * 3 + [_frame(missed)] * 3
    session = OutdoorSession(_Stub(frames), lambda text, kind, heard=said: heard.append(text), window_s=0.2)
    for i in range(10):
        session.process(None, 0.125 * i)
    assert any("not seen, but no hand came near it" in t for t in said)
    assert len(session.settled.readings) == 2


def test_a_piece_read_twice_that_moves_leaves_no_gone_piece_behind():
    """A stick read three times along its length (readings 0.5" apart) that then moves: one
    move, and its other readings are not said to be gone; two sticks side by side (their feet
    apart), one moved away and the other taken, still tell of the one taken."""
    from dataclasses import replace

    stick = Footprint.rectangle(3.5, 0.5)

    def laid(pid, x, y, facing=0.0):
        r = reading(pid, x, y, facing, "blue")
        return replace(r, footprint=stick, outline=stick.outline(x, y, facing))

    red = reading("R1", 4, 20, 270)
    before = assess([laid("B1", 14.4, 11.7), laid("B2", 14.5, 11.7), laid("B3", 14.9, 11.7), red])
    after = assess([laid("B1", 16.2, 15.3, 90), red])
    said = compare(before, after)
    assert len(said) == 1 and said[0].startswith("Blue B") and " moved " in said[0]
    apart = assess([laid("B1", 14.5, 11.0), laid("B2", 14.5, 12.0), red])  # side by side, 1" apart
    said = compare(apart, after)
    assert len(said) == 2 and any(" is gone" in s for s in said)


def test_a_piece_kept_out_of_sight_right_behind_another_is_not_counted_as_read_again():
    """As above, but R3 is kept right behind R2, their feet touching (centres 0.98" apart:
    within an inch). R2's reading stands within an inch of R3's place, yet it is R2's own:
    R3 is not read again, so it does not count among the red pieces, and the red reading left
    over is B1 lying: the closing in and the knockdown are said."""
    from dataclasses import replace

    from tabletop.outdoor.memory import KEPT

    view = _frame([]).view
    ground = np.full((720, 1280, 3), 110, np.uint8)
    r1 = replace(_seen("R1", 10.0, 12, 0, view), dot=FieldPoint(10.4, 12))
    b1 = replace(_seen("B1", 11.6, 12, 0, view), dot=FieldPoint(12.0, 12))
    far = _seen("R2", 4, 20, 90, view, cover=(4, 20.98))
    kept = replace(_seen("R3", 4, 20.98, 90, view), method=KEPT)  # touching R2, behind it, then and now
    closed = replace(_seen("R1", 10.4, 12, 0, view), dot=FieldPoint(10.8, 12))
    lying = replace(_seen("B1", 11.6, 12, 0, view), side="red", confidence=0.35)
    before = _dotted(_dotted(ground, (12.0, 12)), (10.4, 12), _RED)
    after = _dotted(ground, (10.8, 12), _RED)
    said, session = _knockdown([r1, b1, far, kept], [closed, lying, far], before, after)
    assert [(r.side, r.centre) for r in session.settled.readings if r.method == KEPT] == \
        [("red", FieldPoint(4, 20.98))]
    assert said[:2] == ["Red R1 closed in on B1 to act.", "Blue B1 is out of play: knocked down by Red R1."], said

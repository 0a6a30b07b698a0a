"""The outdoor assistant's geometry and readings: the camera above the field, lifting points
off the ground, the prism fit, and pieces read from rendered frames with their labelled boxes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.errors import CalibrationError
from rules.geometry import FieldPoint
from rules.the_game.shapes import gap
from tabletop.outdoor.boxfit import fit_box, prism_box
from tabletop.outdoor.readings import PieceReading, ReadingConfig, name_pieces, read_pieces
from tabletop.outdoor.truth import (
    detections_from_truth,
    truth_calibration,
    truth_pieces,
    visible_ids,
)
from tabletop.outdoor.view import FieldSetup, FieldView, estimate_focal
from vision.detections import Detections


def _camera(elevation: float, f: float = 900.0, distance: float = 40.0) -> FieldView:
    """A camera ``distance`` inches from the field's centre, ``elevation`` degrees up, beyond
    the near edge, looking at the centre."""
    e = math.radians(elevation)
    centre = np.array([12.0, 12.0 - distance * math.cos(e), distance * math.sin(e)])
    fwd = np.array([12.0, 12.0, 0.0]) - centre
    fwd /= np.linalg.norm(fwd)
    right = np.array([1.0, 0.0, 0.0])
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])
    t = -R @ centre
    k = np.array([[f, 0, 639.5], [0, f, 359.5], [0, 0, 1.0]])
    return FieldView.from_camera(k, R, t, (24.0, 24.0), (1280, 720))


@pytest.mark.parametrize("elevation", [35.0, 60.0, 89.0])
def test_the_camera_comes_back_from_its_pose(elevation):
    view = _camera(elevation)
    e = math.radians(elevation)
    assert view.camera_height == pytest.approx(40.0 * math.sin(e), abs=1e-6)
    assert view.camera_position[1] == pytest.approx(12.0 - 40.0 * math.cos(e), abs=1e-6)
    # a point lifted off the ground maps back to itself at its height, not on the ground
    p = np.array([[9.0, 15.0]])
    for h in (0.0, 0.5, 2.0):
        assert np.allclose(view.to_field(view.to_image(p, h), h), p, atol=1e-9)
    shifted = view.to_field(view.to_image(p, 1.0), 0.0)[0]
    assert shifted[1] > p[0, 1]  # seen from the near side, a raised point falls beyond its foot


@pytest.mark.parametrize("elevation", [35.0, 50.0, 70.0])
def test_focal_length_from_the_pose_alone(elevation):
    view = _camera(elevation, f=1000.0)
    f = estimate_focal(view.pose.board_to_image, (1280, 720))
    assert f == pytest.approx(1000.0, rel=1e-6)
    same = FieldView.from_pose(view.pose, (1280, 720))
    assert same.focal_estimated
    assert same.camera_height == pytest.approx(view.camera_height, rel=1e-6)


def test_straight_down_gives_no_focal_estimate():
    assert estimate_focal(_camera(90.0).pose.board_to_image, (1280, 720)) is None


@pytest.mark.parametrize("elevation,facing", [(35.0, 20.0), (45.0, 45.0), (55.0, 130.0), (80.0, 250.0)])
def test_the_prism_fit_recovers_a_known_piece(elevation, facing):
    view = _camera(elevation)
    truth = np.array([10.0, 14.0, 2.0, 0.8, math.radians(facing)])
    box = prism_box(view, truth, 0.4)
    a = truth[4]
    dot = truth[:2] + 0.6 * np.array([math.cos(a), math.sin(a)])
    # the start the readings use: the box centre lifted to half the height, a 1" round foot
    c = view.to_field([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]], 0.2)[0]
    start = np.array([c[0], c[1], 1.0, 1.0, math.atan2(dot[1] - c[1], dot[0] - c[0])])
    fit, misfit = fit_box(view, box, dot, 0.4, start)
    assert misfit < 0.5
    assert np.hypot(*(fit[:2] - truth[:2])) < 0.05
    assert abs((math.degrees(fit[4]) - facing + 180) % 360 - 180) < 3.0


@pytest.mark.parametrize("elevation,facing", [(40.0, 20.0), (60.0, 110.0), (85.0, 160.0), (50.0, 75.0)])
def test_a_stick_is_read_as_a_rectangle_and_a_stone_as_an_ellipse(elevation, facing):
    """A 3.5" x 0.5" stick (its dot near its front end), through the box its rectangular prism
    casts, is fitted by a rectangle of its size, so its corners are where they are (an
    ellipse casting that box is half an inch or more off them); a round stone stays an
    ellipse. (A stick lying diagonally in the picture casts a square box that a fat ellipse
    fits as well: it is read as one, and its corners are off.)"""
    from tabletop.outdoor.readings import _fitted

    view = _camera(elevation)
    a = math.radians(facing)
    for shape, size in (("rectangle", (3.5, 0.5)), ("ellipse", (1.0, 1.0))):
        truth = np.array([11.0, 13.0, size[0], size[1], a])
        box = prism_box(view, truth, 0.4, shape=shape)
        dot = FieldPoint(*(truth[:2] + 0.4 * size[0] * np.array([math.cos(a), math.sin(a)])))
        rough = view.to_field([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]], 0.2)[0]
        fit = _fitted(view, box, rough, dot, ReadingConfig())
        assert fit is not None
        x, y, length, width, got_facing, got_shape = fit
        assert got_shape == shape
        assert math.hypot(x - truth[0], y - truth[1]) < 0.05
        assert abs((got_facing - facing + 180) % 360 - 180) < 3.0
        assert abs(length - size[0]) < 0.1 and abs(width - size[1]) < 0.1, (length, width)


def test_names_count_from_the_near_edge_per_side():
    def r(side: str, x: float, y: float) -> PieceReading:
        from rules.the_game.shapes import Footprint

        return PieceReading("", side, FieldPoint(x, y), 0.0, Footprint.ellipse(1, 1), (0, 0, 1, 1), 1.0)

    named = name_pieces([r("blue", 3, 20), r("red", 5, 9), r("red", 2, 3), r("blue", 9, 4)])
    assert [(p.id, p.centre.y) for p in named] == [("R1", 3), ("R2", 9), ("B1", 4), ("B2", 20)]


def test_detections_of_other_classes_and_weak_ones_are_left_out():
    view = _camera(60.0)
    det = Detections(np.array([[600, 300, 640, 330], [700, 300, 740, 330]], float), np.array([0.9, 0.1]),
                     np.array([2, 0]), None, np.array([[[620, 305, 1.0]], [[720, 305, 1.0]]]),
                     np.array(["hand", "red-piece"], dtype=object))
    image = np.full((720, 1280, 3), 90, np.uint8)
    assert read_pieces(image, det, view, ReadingConfig()) == []


@pytest.fixture(scope="module")
def rendered():
    """Six seeded 1280x720 renders of The Game with the whole field in view."""
    from vision.render import CameraRanges, Renderer, RenderOptions

    r = Renderer("the-game", seed=404, options=RenderOptions(size=(1280, 720), hands=0.0,
                                                            camera=CameraRanges(elevation=(40.0, 85.0))))
    out = []
    for i in range(12):
        sampled = r.sampler.sample(i)
        rng = np.random.default_rng([404, i])
        view = r.new_view(rng, r.adapter[0](sampled.game, sampled.state))
        frame = r.render_state(sampled.game, sampled.state, view, rng=rng, source=sampled)
        setup = FieldSetup(calibration=truth_calibration(frame.truth))
        try:
            image, fv = setup.locate(frame.image)
        except CalibrationError:  # markers out of the frame: the next render
            fv = None
        if fv is not None:
            out.append((frame.truth, image, fv))
        if len(out) == 6:
            break
    assert len(out) >= 4
    return out


def test_pieces_read_from_labelled_boxes_stand_where_the_truth_says(rendered):
    errors, facing_errors, gap_errors = [], [], []
    for truth, image, view in rendered:
        readings = read_pieces(image, detections_from_truth(truth, calibration=truth_calibration(truth)), view)
        pieces = {p.id: p for p in truth_pieces(truth)}
        seen = visible_ids(truth)
        assert len(readings) == len(seen)
        matched = []
        for q in readings:
            p = min((p for p in pieces.values() if p.side == q.side and p.id in seen),
                    key=lambda p: p.at.distance(q.centre))
            errors.append(p.at.distance(q.centre))
            facing_errors.append(abs((q.facing - p.facing + 180) % 360 - 180))
            matched.append((p, q))
        for i in range(len(matched)):
            for j in range(i + 1, len(matched)):
                (pa, qa), (pb, qb) = matched[i], matched[j]
                gap_errors.append(abs(gap(pa.outline, pb.outline)[0] - gap(qa.outline, qb.outline)[0]))
    # the issue's targets, on perfect boxes: distances median 0.25", facing median 10 degrees
    assert np.median(errors) < 0.25
    assert np.median(gap_errors) < 0.25
    assert np.median(facing_errors) < 10.0


def test_the_overlay_draws_on_a_copy(rendered):
    from tabletop.outdoor.assistant import assess
    from tabletop.outdoor.overlay import draw_field

    truth, image, view = rendered[0]
    report = assess(read_pieces(image, detections_from_truth(truth), view))
    before = image.copy()
    drawn = draw_field(image, view, report, status="test")
    assert np.array_equal(image, before)
    assert drawn.shape == image.shape and not np.array_equal(drawn, image)


def test_a_tracked_field_is_kept_while_the_markers_are_hidden(rendered):
    _, image, _ = rendered[0]
    setup = FieldSetup(track=True)
    _, first = setup.locate(image)
    assert setup.events and "calibrated" in setup.events[0]
    _, kept = setup.locate(np.full_like(image, 128))  # every marker hidden
    assert np.allclose(kept.pose.board_to_image, first.pose.board_to_image)
    with pytest.raises(CalibrationError):
        FieldSetup().locate(np.full_like(image, 128))


@pytest.mark.parametrize("markers", ["auto", "scale"])
def test_the_field_from_one_scale_marker(markers):
    from calibration.markers import kit
    from calibration.synthetic import render_frame

    frame = render_frame(kit("the-game-scale"), seed=2, tilt=70)
    _, view = FieldSetup(markers=markers).locate(frame.image)
    assert view.pose.quality.method == "scale marker"
    truth = frame.true_pose().to_image([[12.0, 12.0]])
    assert np.abs(view.to_field(truth) - 12.0).max() < 0.5


def test_asking_for_corner_markers_where_there_is_only_the_scale_marker():
    from calibration.markers import kit
    from calibration.synthetic import render_frame

    frame = render_frame(kit("the-game-scale"), seed=2, tilt=70)
    with pytest.raises(CalibrationError, match="marker"):
        FieldSetup(markers="corners").locate(frame.image)
    with pytest.raises(CalibrationError, match="unknown marker set-up"):
        FieldSetup(markers="three")


def test_one_piece_boxed_twice_is_read_once(rendered):
    truth, image, view = rendered[0]
    det = detections_from_truth(truth)
    k = int(np.flatnonzero(det.class_name != "hand")[0])
    other = "blue-piece" if det.class_name[k] == "red-piece" else "red-piece"
    twice = Detections(np.vstack([det.xyxy, det.xyxy[k:k + 1] + 1.0]), np.r_[det.confidence, 0.4],
                       np.r_[det.class_id, 1], None, np.vstack([det.keypoints, det.keypoints[k:k + 1]]),
                       np.r_[det.class_name, np.array([other], dtype=object)])
    assert len(read_pieces(image, twice, view)) == len(read_pieces(image, det, view))


def test_two_sticks_side_by_side_boxed_alike_are_two_pieces_when_two_dots_show():
    """A red stick laid along a blue one: their boxes overlap more than one piece boxed twice
    usually does (IoU 0.63 here), but each shows its own front dot, far apart. One piece boxed
    twice puts both keypoints on its one dot; a second box with no dot of its colour at its
    keypoint is not a second piece."""
    from tabletop.outdoor.readings import ONE_PIECE_IOU, one_box_per_piece
    from vision.detect_eval import box_iou

    img = np.full((80, 120, 3), 110, np.uint8)
    img[41:46, 29:34] = (220, 40, 30)     # the blue stick's dot at (31, 43)
    img[54:59, 68:73] = (30, 30, 220)     # the red stick's dot at (70, 56)
    boxes = np.array([[11, 36, 80, 65], [10, 43, 85, 68], [9, 37, 83, 65]], float)
    assert box_iou(boxes[0], boxes[1])[0, 0] > ONE_PIECE_IOU
    conf = np.array([0.74, 0.68, 0.3])
    names = ["blue-piece", "red-piece", "red-piece"]
    dots = np.array([[31, 43], [70, 56], [45, 45]], float)  # the third: no dot of its colour there
    assert one_box_per_piece(boxes, conf, [0, 1, 2], dots=dots, image=img, names=names) == [0, 1]
    assert one_box_per_piece(boxes, conf, [0, 2], dots=dots) == [0, 2]  # no image: dots apart suffice
    assert one_box_per_piece(boxes, conf, [0, 1, 2], dots=dots) == [0, 1]  # but box 2 spans boxes 0 and 1
    assert one_box_per_piece(boxes, conf, [0, 1, 2]) == [0]  # no dots: overlap alone
    same = np.array([[31, 43], [32, 44], [31, 43]], float)  # one piece boxed thrice: one dot
    assert one_box_per_piece(boxes, conf, [0, 1, 2], dots=same, image=img, names=names) == [0]
    unseen = np.array([[31, 43], [np.nan, np.nan], [45, 45]], float)
    assert one_box_per_piece(boxes, conf, [0, 1], dots=unseen, image=img, names=names) == [0]


def test_a_less_sure_box_over_two_pieces_side_by_side_is_no_third_piece():
    """Two blue pieces side by side, far off (seed 7001's live turn 182): besides a box on each
    (0.72, 0.33) the detector put one over both (0.27), which the live referee read as a third
    piece between them and took for the moved piece's arrival. A box holding most of two
    boxes kept before it is dropped; one holding most of only one is judged as before."""
    from tabletop.outdoor.readings import SPANS_TWO, _inside, one_box_per_piece

    boxes = np.array([[301, 145, 356, 157], [277, 136, 322, 160], [273, 139, 352, 164], [330, 140, 400, 165]], float)
    conf = np.array([0.72, 0.33, 0.27, 0.26])
    assert _inside(boxes[0], boxes[2]) >= SPANS_TWO and _inside(boxes[1], boxes[2]) >= SPANS_TWO
    assert one_box_per_piece(boxes, conf, [0, 1, 2]) == [0, 1]
    assert one_box_per_piece(boxes, conf, [0, 2]) == [0, 2]  # over one piece only, and little overlap: kept
    assert _inside(boxes[0], boxes[3]) < SPANS_TWO and one_box_per_piece(boxes, conf, [0, 1, 3]) == [0, 1, 3]


def test_a_piece_read_as_the_wrong_side_is_put_right_by_its_dots_colour():
    """The detector now and then reads a red stone as blue; where its dot's colour says red
    and nothing blue stands out there, the side is the dot's. A dot of the detector's colour,
    or no clear dot, leaves the detector's side."""
    import numpy as np

    from tabletop.outdoor.dots import sides_by_dot

    img = np.full((60, 120, 3), 110, np.uint8)
    img[18:23, 18:23] = (30, 30, 220)     # a red dot at (20, 20)
    img[18:23, 58:63] = (220, 40, 30)     # a blue dot at (60, 20)
    img[18:23, 98:103] = (120, 110, 125)  # a faint smudge at (100, 20): no side stands out
    boxes = np.array([[10, 10, 30, 30], [50, 10, 70, 30], [90, 10, 110, 30], [10, 35, 30, 55]], float)
    kps = np.array([[20, 20], [60, 20], [100, 20], [np.nan, np.nan]], float)
    names = ["blue-piece", "blue-piece", "red-piece", "blue-piece"]
    assert sides_by_dot(img, boxes, kps, names) == ["red-piece", "blue-piece", "red-piece", "blue-piece"]
    assert sides_by_dot(img, boxes[:1], kps[:1], ["hand"]) == ["hand"]


def test_finding_a_dot_once_agrees_with_checking_its_side_then_refining_it():
    """``find_dot`` scores each colour's window once; it must answer what ``dot_side`` followed
    by ``refine_dot`` answer, for the same search radius and for a wider one (a keypoint the
    detector doubts), on dots of either side, off-centre keypoints and plain ground."""
    import numpy as np

    from tabletop.outdoor.dots import dot_side, find_dot, refine_dot

    rng = np.random.default_rng(5)
    checked = changed = 0
    for _ in range(60):
        img = (rng.integers(90, 130) + rng.integers(-4, 5, (48, 48, 3))).astype(np.uint8)  # grass, a little noisy
        x, y = (int(v) for v in rng.integers(8, 40, 2))
        colour = [(30, 30, 220), (220, 40, 30), (118, 112, 121)][int(rng.integers(3))]
        img[y - 2:y + 3, x - 2:x + 3] = colour
        kp = (x + float(rng.normal(0, 3)), y + float(rng.normal(0, 3)))
        claimed = str(rng.choice(["red", "blue"]))
        for radius, search in ((5, None), (4, 11)):
            side = dot_side(img, kp, claimed, radius)
            expected = (side, refine_dot(img, kp, side, radius if search is None else search))
            assert find_dot(img, kp, claimed, radius, search=search) == expected
            checked += 1
            changed += side != claimed
    assert checked == 120 and changed > 0  # some claimed sides were put right by the dot's colour


def test_a_stream_finds_and_keeps_the_field_from_the_scale_marker_alone():
    """``--markers auto`` (the default) on a stream: the scale marker alone sets the field up,
    as it does for a single photo, and a hand over it keeps the pose it gave."""
    from calibration.markers import kit
    from calibration.synthetic import pose_errors, render_frame

    frame = render_frame(kit("the-game-scale"), seed=35, tilt=65)
    photo = FieldSetup().locate(frame.image)[1]
    setup = FieldSetup(track=True)
    _, found = setup.locate(frame.image)
    assert np.allclose(found.pose.board_to_image, photo.pose.board_to_image, atol=1e-6)
    assert max(pose_errors(found.pose, frame)) < 2.0
    _, kept = setup.locate(np.full_like(frame.image, 128))  # the marker hidden
    assert np.allclose(kept.pose.board_to_image, found.pose.board_to_image)


def test_a_foreign_marker_is_named_whole():
    from calibration.field import detect_field_markers
    from calibration.markers import field_spec, fit_markers, kit
    from calibration.synthetic import render_frame

    frame = render_frame(kit("the-game-scale"), seed=35, tilt=65)
    with pytest.raises(CalibrationError, match=r"marker 44 belongs to The Game's scale marker"):
        fit_markers(detect_field_markers(frame.image), field_spec(24, 24))


def _through_a_lens(image: np.ndarray, calibration) -> np.ndarray:
    """``image`` (an ideal pinhole picture) as a camera with ``calibration``'s distortion
    takes it: each raw pixel shows what the ideal picture has where undistortion puts it."""
    import cv2

    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ideal = calibration.undistort_points(np.c_[xs.ravel(), ys.ravel()]).astype(np.float32)
    return cv2.remap(image, ideal[:, 0].reshape(h, w), ideal[:, 1].reshape(h, w), cv2.INTER_LINEAR)


@pytest.mark.parametrize("track", [False, True])
def test_the_field_is_found_from_markers_in_the_frame_as_the_camera_took_it(monkeypatch, track: bool):
    """With a lens calibration, markers the undistorted picture lacks (undistorting pushes its
    edges, and markers near them, out of it) are found in the frame as the camera took it and
    their corners undistorted as points: the pose is that of the ideal picture."""
    import tabletop.outdoor.view
    from calibration.camera import CameraCalibration
    from calibration.field import detect_field_markers
    from calibration.markers import kit
    from calibration.synthetic import pose_errors, render_frame

    frame = render_frame(kit("the-game-field"), seed=34, tilt=60)
    h, w = frame.image.shape[:2]
    lens = CameraCalibration(frame.camera_matrix, np.array([-0.3, 0.09, 0, 0, 0]), (w, h), 0.1)
    raw = _through_a_lens(frame.image, lens)

    def found(image):  # the undistorted picture has lost two markers near its edge
        sighting = detect_field_markers(image)
        return sighting if image is raw else sighting.only([40, 41])

    monkeypatch.setattr("calibration.field.detect_field_markers", found)
    image, view = tabletop.outdoor.view.FieldSetup(calibration=lens, track=track).locate(raw)
    assert image.shape == raw.shape and pose_errors(view.pose, frame).max() < 0.03
    monkeypatch.setattr("calibration.field.detect_field_markers", lambda image: detect_field_markers(image).only([40, 41]))
    with pytest.raises(CalibrationError):  # without the frame as taken, two neighbours are not enough
        tabletop.outdoor.view.FieldSetup(calibration=lens, track=track).locate(raw)


def test_a_stream_follows_whichever_marker_set_is_in_view():
    """``--markers auto`` on a stream: the corner markers give the pose while in view; when
    only the scale marker is, its own tracker starts (it was never started while the corner
    tracker held a pose), and the reverse."""
    from calibration.markers import kit
    from calibration.synthetic import pose_errors, render_frame

    corners = render_frame(kit("the-game-field"), seed=34, tilt=55)
    scale = render_frame(kit("the-game-scale"), seed=35, tilt=65)
    setup = FieldSetup(track=True)
    for frame, within_in in ((corners, 0.1), (scale, 1.0), (corners, 0.1)):  # one marker: less sure far off
        _, view = setup.locate(frame.image)
        assert pose_errors(view.pose, frame).max() < within_in
    assert pose_errors(FieldSetup().locate(corners.image)[1].pose, scale).max() > 5  # the scenes differ


def test_labels_are_read_undistorted_when_the_frames_are():
    """A render's labels are pixels of the frame as the lens took it; frames read with a lens
    calibration are undistorted, and so are the labels: the box round the corners undistorted,
    the dot undistorted."""
    from calibration.camera import CameraCalibration

    k = np.array([[900.0, 0, 639.5], [0, 900.0, 359.5], [0, 0, 1]])
    lens = CameraCalibration(k, np.array([-0.3, 0.09, 0, 0, 0]), (1280, 720), 0.1)
    truth = {"image_size": [1280, 720], "classes": ["red-piece", "blue-piece", "hand"], "hands": [],
             "pieces": [{"in_labels": True, "class": "red-piece", "class_id": 0, "box": [100.0, 80.0, 140.0, 110.0],
                         "keypoint": [130.0, 90.0]}]}
    raw = detections_from_truth(truth)
    assert raw.xyxy.tolist() == [[100.0, 80.0, 140.0, 110.0]]
    seen = detections_from_truth(truth, calibration=lens)
    corners = lens.undistort_points(np.array([[100.0, 80], [140, 80], [140, 110], [100, 110]]), (1280, 720))
    assert np.allclose(seen.xyxy[0], [*corners.min(axis=0), *corners.max(axis=0)])
    assert np.allclose(seen.keypoints[0, 0, :2], lens.undistort_points(np.array([[130.0, 90.0]]), (1280, 720))[0])
    assert np.abs(seen.xyxy[0] - raw.xyxy[0]).max() > 5  # near the corner the lens moves it several pixels

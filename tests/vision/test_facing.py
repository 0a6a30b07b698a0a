"""The Game's facing reader: which way a piece faces, read from a crop around its box, in the
image and then on the field."""

from __future__ import annotations

import importlib.util
import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import Detector, DetectorError, ModelInfo
from vision.detect_train import Recipe
from vision.detections import Detections
from vision.dice_faces import _jittered, _network
from vision.facing import (
    BINS,
    FacingReader,
    FacingReaderError,
    FacingTraining,
    facing_patches,
    facing_path,
    field_direction,
    image_direction,
    train_facing_reader,
)

#: What runs a reader loaded with the dependencies installed: OpenVINO, else ONNX Runtime.
EXPORTED = "openvino" if importlib.util.find_spec("openvino") else "onnx"


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = np.c_[pts, np.ones(len(pts))] @ m.T
    return q[:, :2] / q[:, 2:3]


def _camera(tilt_deg: float, turn_deg: float) -> np.ndarray:
    """A 3 x 4 projection of a camera ``tilt_deg`` off straight down, turned ``turn_deg``
    about the vertical, 30 units above the field's middle (x, y on the field, z up)."""
    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    t, a = math.radians(tilt_deg), math.radians(turn_deg)
    down = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], float)  # looking straight down
    tilt = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    turn = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    r = tilt @ down @ turn
    centre = np.array([12.0, 12.0, 0.0]) - 30.0 * (r.T @ np.array([0, 0, 1.0]))
    return k @ np.c_[r, -r @ centre]


@pytest.mark.parametrize("tilt, turn", [(0, 0), (35, 20), (50, 140), (60, 250)])
def test_a_direction_in_the_image_is_the_same_field_direction_at_any_height(tilt, turn):
    """What the reader's reading rests on: at an image point, a field direction runs the same
    way in the image on the ground and on a plane above it (a piece's top), so the ground's
    homography alone turns the reading into the field's frame, and back."""
    p = _camera(tilt, turn)
    ground = p[:, [0, 1, 3]]
    rng = np.random.default_rng(tilt + turn)
    for _ in range(20):
        at = _apply(ground, rng.uniform(8, 16, (1, 2)))[0]
        facing = float(rng.uniform(0, 360))
        seen = image_direction(ground, at, facing)
        height = float(rng.uniform(0.2, 1.5))
        top = np.c_[p[:, [0, 1]], p[:, 2] * height + p[:, 3]]  # the plane z = height
        g = _apply(np.linalg.inv(top), at[None])[0]
        a = math.radians(facing)
        q0, q1 = _apply(top, np.array([g, g + 0.01 * np.array([math.cos(a), math.sin(a)])]))
        on_top = math.degrees(math.atan2(-(q1[1] - q0[1]), q1[0] - q0[0])) % 360.0
        assert abs((seen - on_top + 180) % 360 - 180) < 0.05
        back = field_direction(lambda pts: _apply(np.linalg.inv(ground), pts), at, seen)
        assert abs((back - facing + 180) % 360 - 180) < 0.05


def test_a_turned_crop_turns_its_label_with_it():
    """Training turns each crop by whole steps and its label with it: the dot of a patch
    whose label is step k sits at step k + turn in the turned crop."""
    rng = np.random.default_rng(0)
    patches, labels = [], []
    for k in range(12):
        step = int(rng.integers(BINS))
        img = np.full((64, 64, 3), 60, np.uint8)
        a = math.radians(step * 360 / BINS)
        cv2.circle(img, (round(32 + 14 * math.cos(a)), round(32 - 14 * math.sin(a))), 2, (255, 255, 255), -1)
        patches.append(img)
        labels.append(step)
    turns = rng.integers(0, BINS, len(patches))
    crops = _jittered(np.stack(patches), np.full(len(patches), 30.0), np.random.default_rng(1), True, 48, 1.5,
                      turns * 360.0 / BINS)
    for crop, label, turn in zip(crops, labels, turns):
        y, x = np.unravel_index(crop.astype(int).sum(axis=2).argmax(), crop.shape[:2])
        seen = math.degrees(math.atan2(-(y - 24), x - 24)) % 360
        want = (label + turn) * 360 / BINS % 360
        assert abs((seen - want + 180) % 360 - 180) < 20  # the crop is also jittered in place and size


def _piece(img: np.ndarray, at: tuple[float, float], facing_image: float, radius: int) -> None:
    """A grey stone with a red front dot at ``facing_image`` degrees (image frame)."""
    cx, cy = at
    cv2.circle(img, (round(cx), round(cy)), radius, (150, 160, 170), -1, cv2.LINE_AA)
    a = math.radians(facing_image)
    dot = (round(cx + 0.6 * radius * math.cos(a)), round(cy - 0.6 * radius * math.sin(a)))
    cv2.circle(img, dot, max(2, radius // 4), (30, 30, 220), -1, cv2.LINE_AA)


def _rendered(root: Path, frames: dict[str, int], seed: int) -> np.ndarray:
    """A folder like the renderer's: images and truth/ with a field seen from straight above
    (10 px an inch, field +y up the image), each piece's box, front dot and field facing."""
    rng = np.random.default_rng(seed)
    h = np.array([[10.0, 0, 20], [0, -10.0, 260], [0, 0, 1]])  # field inches -> pixels
    for split, count in frames.items():
        (root / "images" / split).mkdir(parents=True)
        (root / "truth" / split).mkdir(parents=True)
        for n in range(count):
            img = np.full((280, 280, 3), 0, np.uint8)
            img[:] = rng.integers(40, 90, 3)
            pieces = []
            for k in range(9):
                x, y = 3 + 8 * (k % 3) + rng.uniform(-1, 1), 3 + 8 * (k // 3) + rng.uniform(-1, 1)
                facing = float(rng.uniform(0, 360))
                radius = int(rng.integers(8, 13))
                cx, cy = _apply(h, np.array([[x, y]]))[0]
                _piece(img, (cx, cy), facing, radius)  # seen from above: image and field angles agree
                a = math.radians(facing)
                pieces.append({"box": [cx - radius, cy - radius, cx + radius, cy + radius], "in_labels": True,
                               "keypoint": [cx + 0.6 * radius * math.cos(a), cy - 0.6 * radius * math.sin(a), 2],
                               "extra": {"facing": facing}})
            pieces.append({"box": [0, 0, 9, 9], "in_labels": True, "keypoint": [0, 0, 0],
                           "extra": {"facing": 10.0}})  # no dot in view: not learnt from
            name = f"{n:04d}"
            cv2.imwrite(str(root / "images" / split / f"{name}.png"), img)
            doc = {"image": f"images/{split}/{name}.png", "board": {"board_to_image": h.tolist()}, "pieces": pieces}
            (root / "truth" / split / f"{name}.json").write_text(json.dumps(doc))
    return h


def test_patches_carry_the_image_facing_of_each_piece_with_a_dot(tmp_path):
    _rendered(tmp_path, {"train": 2}, seed=3)
    patches, labels, sides, angles = facing_patches(tmp_path, "train")
    assert len(patches) == 18 and patches.shape[1:] == (128, 128, 3)  # the dotless piece is left out
    truth = [p["extra"]["facing"] for f in sorted((tmp_path / "truth" / "train").glob("*.json"))
             for p in json.loads(f.read_text())["pieces"][:9]]
    assert np.allclose(angles, truth, atol=1e-6)
    assert labels.tolist() == [round(a * BINS / 360) % BINS for a in truth]
    assert ((sides >= 16) & (sides <= 24)).all()


def test_a_reader_learns_which_way_pieces_face(tmp_path):
    """Trained on frames of dotted stones, it reads the held-back stones' facings within a
    few degrees, and reads a stone it never saw turned any way."""
    _rendered(tmp_path, {"train": 90, "val": 10}, seed=4)
    seen: list[int] = []
    reader = train_facing_reader([tmp_path], FacingTraining(epochs=8, size=32),
                                 progress=lambda e, n, loss, share: seen.append(e))
    assert seen == list(range(1, 9))
    m = reader.metrics
    assert m["train_pieces"] == 810 and m["val_pieces"] == 90
    assert m["val_median_deg"] <= 8.0, m
    frame = np.full((40, 40 * 12, 3), 70, np.uint8)
    truth = np.random.default_rng(11).uniform(0, 360, 12)
    for k, a in enumerate(truth):
        _piece(frame, (20 + 40 * k, 20), float(a), 10)
    read, sure = reader.read(frame, np.array([[10 + 40 * k, 10, 30 + 40 * k, 30] for k in range(12)], float))
    assert np.median(np.abs((read - truth + 180) % 360 - 180)) < 10
    assert ((sure > 0) & (sure <= 1)).all()


def test_too_few_pieces_to_learn_from_is_an_error(tmp_path):
    _rendered(tmp_path, {"train": 3, "val": 1}, seed=5)
    with pytest.raises(FacingReaderError, match="only 27 pieces"):
        train_facing_reader([tmp_path], FacingTraining(epochs=1))


def test_a_reader_survives_save_and_load(tmp_path):
    reader = FacingReader(_network(BINS), 32, 1.5)
    reader.metrics["val_median_deg"] = 4.2
    path = reader.save(tmp_path / "tg.facing.pt")
    again = FacingReader.load(path)
    assert (again.size, again.pad, again.bins, again.source) == (32, 1.5, BINS, path)
    assert again.metrics["val_median_deg"] == 4.2 and again.backend == EXPORTED
    frame = np.random.default_rng(1).integers(0, 255, (50, 50, 3), dtype=np.uint8)
    box = np.array([[8, 8, 34, 30]], float)
    a, c = reader.read(frame, box)
    b, d = again.read(frame, box)
    assert b == pytest.approx(a, abs=1e-3) and d == pytest.approx(c, abs=1e-5)
    assert reader.read(frame, np.zeros((0, 4)))[0].shape == (0,)
    bad = tmp_path / "x.facing.pt"
    bad.write_bytes(b"no torch here")
    with pytest.raises(FacingReaderError, match="not a facing reader"):
        FacingReader.load(bad)
    assert facing_path("a/the-game.pt") == Path("a/the-game.facing.pt")



def test_a_crop_turned_a_quarter_reads_a_quarter_turned():
    """The reader reads each crop at its four quarter turns and turns each reading back
    before averaging them, so a piece turned by a quarter reads exactly a quarter turned,
    whatever the network (here an untrained one, which reads any turn its own way; its last
    layer made steep so that one step stands out)."""
    import torch

    torch.manual_seed(0)
    net = _network(BINS)
    with torch.no_grad():
        net[-1].weight.mul_(300.0)
    reader = FacingReader(net, 32, 1.5)
    coarse = np.random.default_rng(3).integers(0, 255, (5, 5, 3), dtype=np.uint8)
    frame = np.kron(coarse, np.ones((8, 8, 1), np.uint8))  # blocks: each turn looks unlike the last
    box = np.array([[10, 10, 30, 30]], float)
    a, sure = reader.read(frame, box)
    for k in (1, 2, 3):
        b, again = reader.read(np.ascontiguousarray(np.rot90(frame, k)), box)
        assert (b[0] - a[0] - 90 * k + 180) % 360 - 180 == pytest.approx(0, abs=0.05)
        assert again == pytest.approx(sure, abs=1e-3)


class _Fixed:
    """A facing reader that reads every piece as facing 45 degrees."""

    source = None

    def __init__(self) -> None:
        self.boxes: list[np.ndarray] = []

    def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.boxes.append(np.asarray(xyxy))
        return np.full(len(xyxy), 45.0), np.full(len(xyxy), 0.8)


def test_the_detector_reads_the_facing_of_each_piece_with_a_dot(fixed_backend):
    names = ("red-piece", "blue-piece", "hand")
    kp = np.array([[[5, 1, 0.9]], [[30, 22, 0.8]], [[0, 0, 0.9]]], float)
    boxes = np.array([[0, 0, 10, 10], [20, 20, 35, 35], [5, 30, 40, 60]], float)
    found = Detections(boxes, np.array([0.9, 0.8, 0.7]), np.array([0, 1, 2]), np.array([90.0, 10.0, 0.0]), kp)
    info = ModelInfo(Path("tg.pt"), names, "pose", 640, (1, 3))
    reader = _Fixed()
    out = Detector(fixed_backend(found), info, "stub", facing=reader).detect(np.full((64, 64, 3), 100, np.uint8))
    assert reader.boxes[0].tolist() == boxes[:2].tolist()  # a hand is not read
    assert out.facing[:2].tolist() == [45.0, 45.0] and out.facing[2] == 0.0
    assert out.facing_confidence[:2].tolist() == [0.8, 0.8] and np.isnan(out.facing_confidence[2])
    assert out[1].facing_confidence.tolist() == [0.8]  # kept by indexing
    plain = Detector(fixed_backend(found), info, "stub").detect(np.full((64, 64, 3), 100, np.uint8))
    assert plain.facing_confidence is None and plain.facing.tolist() == [90.0, 10.0, 0.0]
    with pytest.raises(DetectorError, match="front-dot keypoint"):
        Detector(fixed_backend(found), replace(info, task="detect", kpt_shape=None), "stub", facing=reader)


def test_labelled_boxes_are_read_as_a_detector_s_are():
    """``read_dotted`` (the detector's step, and the outdoor benchmark's for labelled boxes):
    only boxes with a seen dot that are not hands are read; the others keep their facing."""
    from vision.facing import read_dotted

    boxes = np.array([[0, 0, 10, 10], [20, 20, 35, 35], [5, 30, 40, 60], [40, 0, 50, 10]], float)
    kp = np.array([[[5, 1, 0.9]], [[30, 22, 0.0]], [[0, 0, 0.9]], [[45, 1, 2.0]]], float)
    names = np.array(["red-piece", "blue-piece", "hand", "blue-piece"], dtype=object)
    frame = np.full((64, 64, 3), 100, np.uint8)
    reader = _Fixed()
    facing, sure = read_dotted(reader, frame, boxes, kp, names, np.array([90.0, 10.0, 0.0, 180.0]))
    assert reader.boxes[0].tolist() == boxes[[0, 3]].tolist()
    assert facing.tolist() == [45.0, 10.0, 0.0, 45.0]
    assert sure[[0, 3]].tolist() == [0.8, 0.8] and np.isnan(sure[[1, 2]]).all()
    facing, sure = read_dotted(reader, frame, boxes, kp, names, None)  # no keypoint facings: NaN for the rest
    assert facing[[0, 3]].tolist() == [45.0, 45.0] and np.isnan(facing[[1, 2]]).all()
    assert read_dotted(reader, frame, boxes, None, names, None) == (None, None)
    unseen = kp.copy()
    unseen[:, 0, 2] = 0.0
    same = np.array([1.0, 2.0, 3.0, 4.0])
    assert read_dotted(reader, frame, boxes, unseen, names, same) == (same, None)
    assert len(reader.boxes) == 2


def test_the_referee_takes_the_readers_facing_for_a_piece_with_a_dot():
    """On the field, a piece's facing is the reader's where it has one (how ReadingConfig
    says), the box and dot's otherwise; a stick keeps its long axis with ``axis``."""
    from calibration.pose import BoardPose
    from tabletop.outdoor.readings import ReadingConfig, lift_boxes
    from tabletop.outdoor.view import FieldView

    p = _camera(0, 0)
    ground = p[:, [0, 1, 3]]
    pose = BoardPose.from_homography(np.linalg.inv(ground), "inch", (24.0, 24.0))
    view = FieldView.from_pose(pose, (640, 480), np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]]))
    centre = _apply(ground, np.array([[12.0, 12.0]]))[0]
    box = np.array([[centre[0] - 8, centre[1] - 8, centre[0] + 8, centre[1] + 8]])
    dot = np.array([[centre[0] + 4, centre[1]]])  # the dot says +x: facing 0
    read = np.array([image_direction(ground, centre, 80.0)])
    _, by_dot = lift_boxes(box, dot, view, ReadingConfig(read_facings="fit"), read=read)
    _, by_reader = lift_boxes(box, dot, view, ReadingConfig(read_facings="reader"), read=read)
    _, unread = lift_boxes(box, dot, view, ReadingConfig(read_facings="reader"), read=np.array([np.nan]))
    _, no_dot = lift_boxes(box, np.full((1, 2), np.nan), view, ReadingConfig(read_facings="reader"), read=read)
    assert abs((by_dot[0] + 180) % 360 - 180) < 25
    assert by_reader[0] == pytest.approx(80.0, abs=0.5)
    assert unread[0] == pytest.approx(by_dot[0])
    assert np.isnan(no_dot[0])  # without a dot no facing is claimed
    stick = np.array([[centre[0] - 30, centre[1] - 4, centre[0] + 30, centre[1] + 4]])
    tip = np.array([[centre[0] + 25, centre[1]]])
    toward = np.array([image_direction(ground, centre, 170.0)])  # the reader: the other end, a little off
    _, axis = lift_boxes(stick, tip, view, ReadingConfig(read_facings="axis"), read=toward)
    assert abs((axis[0] - 180 + 180) % 360 - 180) < 3  # the fitted axis, turned to the reader's end


def test_a_recipe_can_ask_for_a_facing_reader():
    doc = {"game": "the-game", "architecture": "yolo11n-pose.yaml", "data": {"count": 10, "seed": 1},
           "facing_reader": {"epochs": 5, "size": 40, "renders": [{"count": 30, "seed": 9}]}}
    recipe = Recipe.from_json(doc)
    settings = FacingTraining.from_json(dict(recipe.facing_reader))
    assert settings == FacingTraining(epochs=5, size=40, renders=((30, 9),))
    with pytest.raises(FacingReaderError, match="malformed"):
        FacingTraining.from_json({"renders": [{"count": "many", "seed": 1}]})


def test_a_reading_through_a_lens_is_turned_as_the_lens_turns_it():
    """Behind a lens the boxes are undistorted before they are lifted: the reader's
    direction at a box's centre is carried into the undistorted frame with it."""
    from tabletop.live.board import _undistorted_directions

    boxes = np.array([[10, 10, 30, 30], [50, 50, 70, 60], [0, 0, 4, 4]], float)
    read = np.array([45.0, 90.0, np.nan])
    same = _undistorted_directions(lambda p: np.asarray(p, float), boxes, read)
    assert same[:2] == pytest.approx([45.0, 90.0]) and np.isnan(same[2])
    wide = _undistorted_directions(lambda p: np.asarray(p, float) * [2.0, 1.0], boxes, read)  # stretched across
    assert wide[0] == pytest.approx(math.degrees(math.atan2(1, 2))) and wide[1] == pytest.approx(90.0)

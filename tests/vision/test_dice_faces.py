"""Dice in two stages: kinds of dice for the detector, faces for a small reader, and a
detector that reports the game's own class names from the pair."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from vision.detect import Detector, DetectorError, ModelInfo
from vision.detect_train import Recipe
from vision.detections import Detections
from vision.dice_faces import (
    FaceReader,
    FaceReaderError,
    FaceTraining,
    _network,
    die_kind,
    faces_path,
    is_die_kind,
    merge_dataset,
    merged_names,
    reader_figures,
    train_face_reader,
)

WGC = ["greek", "norse", "chess-king", "chess-rook", "hero-imp", "hero-seth", "d6-1", "d6-6", "hand"]


def test_kinds_of_dice_by_name():
    assert [die_kind(n) for n in WGC] == [None, None, "chess-die", "chess-die", "hero-die", "hero-die", "d6", "d6",
                                           None]
    assert die_kind("die-moons-null") == "die-moons"
    assert die_kind("die-") is None and die_kind("chess-") is None and die_kind("pawn-suns") is None
    assert is_die_kind("chess-die") and is_die_kind("die-arms") and not is_die_kind("die-arms-5")
    assert not is_die_kind("greek")


def test_merged_names_keep_the_game_order():
    names, ids = merged_names(WGC)
    assert names == ("greek", "norse", "chess-die", "hero-die", "d6", "hand")
    assert [names[i] for i in ids] == ["greek", "norse", "chess-die", "chess-die", "hero-die", "hero-die", "d6", "d6",
                                       "hand"]
    assert merged_names(names)[0] == names  # already merged: unchanged


def test_faces_path_sits_beside_the_weights():
    assert faces_path("runs/x/when-gods-collide.pt") == Path("runs/x/when-gods-collide.faces.pt")
    assert faces_path("a/model.onnx") == Path("a/model.faces.pt")


def _write_dataset(root: Path, names: list[str], rows: dict[str, list[str]]) -> None:
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
    for stem, lines in rows.items():
        cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), np.zeros((8, 8, 3), np.uint8))
        (root / "labels" / "train" / f"{stem}.txt").write_text("".join(ln + "\n" for ln in lines))
    (root / "data.yaml").write_text(yaml.safe_dump({"path": str(root), "train": "images/train", "val": "images/val",
                                                    "names": dict(enumerate(names))}))


def test_merge_dataset_relabels_faces_as_kinds(tmp_path):
    _write_dataset(tmp_path / "src", WGC, {"a": ["0 0.5 0.5 0.1 0.1", "3 0.2 0.2 0.1 0.1", "7 0.7 0.7 0.1 0.1"],
                                           "b": []})
    out = merge_dataset(tmp_path / "src", tmp_path / "dst")
    doc = yaml.safe_load(out.read_text())
    assert list(doc["names"].values()) == ["greek", "norse", "chess-die", "hero-die", "d6", "hand"]
    assert Path(doc["path"]) == (tmp_path / "dst").resolve()
    rows = (tmp_path / "dst" / "labels" / "train" / "a.txt").read_text().splitlines()
    assert [r.split()[0] for r in rows] == ["0", "2", "4"]
    assert rows[1].split()[1:] == ["0.2", "0.2", "0.1", "0.1"]
    assert (tmp_path / "dst" / "labels" / "train" / "b.txt").read_text() == ""
    assert (tmp_path / "dst" / "images" / "train" / "a.jpg").is_file()
    # the source is untouched
    assert (tmp_path / "src" / "labels" / "train" / "a.txt").read_text().split()[4 + 1] == "3"


def _reader(names: list[str] = WGC) -> FaceReader:
    faces = [n for n in names if die_kind(n)]
    return FaceReader(_network(len(faces)), names, faces)


def test_a_reader_reads_one_of_its_faces_with_a_confidence(tmp_path):
    reader = _reader()
    frame = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    boxes = np.array([[10, 10, 25, 25], [40, 20, 55, 35], [5, 40, 20, 55]], float)
    faces, conf = reader.read(frame, boxes)
    assert len(faces) == 3 and set(faces) <= set(reader.faces)
    assert ((conf >= 1 / len(reader.faces)) & (conf <= 1.0)).all()  # the best of the faces
    assert reader.read(frame, np.zeros((0, 4))) == ([], pytest.approx(np.zeros(0)))
    assert reader.kinds == {"chess-die": (0, 1), "hero-die": (2, 3), "d6": (4, 5)}


def test_a_reader_survives_save_and_load(tmp_path):
    reader = _reader()
    reader.metrics["val_accuracy"] = 0.5
    path = reader.save(tmp_path / "m.faces.pt")
    again = FaceReader.load(path)
    assert again.names == reader.names and again.faces == reader.faces and again.metrics["val_accuracy"] == 0.5
    frame = np.random.default_rng(1).integers(0, 255, (40, 40, 3), dtype=np.uint8)
    box = np.array([[5, 5, 30, 30]], float)
    faces, conf = reader.read(frame, box)
    assert again.read(frame, box) == (faces, pytest.approx(conf, abs=1e-5))


def test_a_file_that_is_no_reader_is_said_so(tmp_path):
    bad = tmp_path / "x.faces.pt"
    bad.write_bytes(b"not a torch file")
    with pytest.raises(FaceReaderError, match="not a dice face reader"):
        FaceReader.load(bad)
    with pytest.raises(FaceReaderError, match="not a die face"):
        FaceReader(_network(1), ["greek"], ["greek"])


def _pips(n: int, side: int, rng: np.random.Generator) -> np.ndarray:
    die = np.full((side, side, 3), 235, np.uint8)
    spots = {1: [(0.5, 0.5)], 6: [(0.28, 0.25), (0.28, 0.5), (0.28, 0.75), (0.72, 0.25), (0.72, 0.5), (0.72, 0.75)]}
    for x, y in spots[n]:
        cv2.circle(die, (int(x * side), int(y * side)), max(1, side // 10), (20, 20, 20), -1)
    return die


PIP_NAMES = ["token", "d6-1", "d6-6", "hand"]


def _pip_dataset(folder: Path, counts: dict[str, int], seed: int, names: list[str] = PIP_NAMES) -> Path:
    """Frames with three dice each, a one or a six, in ``counts`` frames a split."""
    rng = np.random.default_rng(seed)
    for split, count in counts.items():
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
        for k in range(count):
            frame = np.full((120, 160, 3), rng.integers(60, 140), np.uint8)
            lines = []
            for j in range(3):
                face = int(rng.integers(2))
                side = int(rng.integers(16, 22))
                x, y = 10 + 50 * j + int(rng.integers(0, 10)), int(rng.integers(10, 90))
                frame[y:y + side, x:x + side] = _pips((1, 6)[face], side, rng)
                lines.append(f"{1 + face} {(x + side / 2) / 160} {(y + side / 2) / 120} {side / 160} {side / 120}")
            cv2.imwrite(str(folder / "images" / split / f"{k}.png"), frame)
            (folder / "labels" / split / f"{k}.txt").write_text("\n".join(lines) + "\n")
    (folder / "data.yaml").write_text(yaml.safe_dump({"path": str(folder), "train": "images/train",
                                                      "val": "images/val", "names": dict(enumerate(names))}))
    return folder


def test_a_reader_learns_to_tell_faces_apart(tmp_path):
    """Trained on frames with a one and a six lying about, it reads the held-back ones."""
    names = PIP_NAMES
    _pip_dataset(tmp_path, {"train": 40, "val": 10}, seed=3)
    seen: list[tuple[int, float]] = []
    reader = train_face_reader(tmp_path, names, FaceTraining(epochs=25, seed=0),
                               progress=lambda e, n, loss, acc: seen.append((e, acc)))
    assert [e for e, _ in seen] == list(range(1, 26))
    assert reader.metrics["val_dice"] == 30 and reader.metrics["train_dice"] == 120
    assert reader.metrics["val_accuracy"] >= 0.9, reader.metrics
    figures = reader_figures(reader, tmp_path, names)  # every split, each die from its labelled box
    assert figures["dice"] == 150 and figures["by_kind"]["d6"]["dice"] == 150
    assert figures["right"] >= 0.9 and figures["kind_right"] == 1.0
    assert sum(f["dice"] for f in figures["by_side_px"].values()) == 150
    with pytest.raises(FaceReaderError, match="not the reader's"):
        reader_figures(reader, tmp_path, ["token", "d6-1", "d6-2", "d6-6", "hand"])


def test_more_renders_are_training_dice_every_split_of_them(tmp_path):
    """A recipe's ``renders`` give the reader more dice: every split of those datasets is
    trained on, and the first dataset's validation dice stay the validation."""
    first = _pip_dataset(tmp_path / "a", {"train": 4, "val": 2}, seed=1)
    more = _pip_dataset(tmp_path / "b", {"train": 5, "val": 1}, seed=2)
    reader = train_face_reader(first, PIP_NAMES, FaceTraining(epochs=1), more=[more])
    assert reader.metrics["train_dice"] == 3 * (4 + 5 + 1) and reader.metrics["val_dice"] == 3 * 2
    other = _pip_dataset(tmp_path / "c", {"train": 1}, seed=3, names=["coin", "d6-1", "d6-6", "hand"])
    with pytest.raises(FaceReaderError, match="its classes are not those of"):
        train_face_reader(first, PIP_NAMES, FaceTraining(epochs=1), more=[other])


@pytest.mark.parametrize("section", [{"renders": [{"count": 0, "seed": 3}]}, {"renders": [{"seed": 3}]},
                                     {"renders": 5}, {"epochs": "many"},
                                     {"renders": [{"count": 5, "seed": 3, "size": [1280]}]},
                                     {"renders": [{"count": 5, "seed": 3, "size": "1280 by 960"}]},
                                     {"renders": [{"count": 5, "seed": 3, "size": [20, 960]}]},
                                     {"renders": [{"count": 5, "seed": 3, "size": {"w": 1280}}]},
                                     {"camera_noise": "yes"}, {"camera_noise": 1}])
def test_a_malformed_face_reader_section_is_refused(section):
    with pytest.raises(FaceReaderError, match="malformed dice_faces section"):
        FaceTraining.from_json(section)


def test_more_renders_take_a_size_as_a_list_or_wxh():
    renders = FaceTraining.from_json({"renders": [{"count": 5, "seed": 3, "size": [1280, 960]},
                                                  {"count": 6, "seed": 4, "size": "1920X1080"},
                                                  {"count": 7, "seed": 5}]}).renders
    assert [r.size for r in renders] == [(1280, 960), (1920, 1080), None]
    assert [(r.count, r.seed) for r in renders] == [(5, 3), (6, 4), (7, 5)]


def test_training_needs_dice(tmp_path):
    _write_dataset(tmp_path, ["greek", "hand"], {"a": ["0 0.5 0.5 0.1 0.1"]})
    with pytest.raises(FaceReaderError, match="no dice faces"):
        train_face_reader(tmp_path, ["greek", "hand"], FaceTraining(epochs=1))
    with pytest.raises(FaceReaderError, match="only 0 dice"):
        train_face_reader(tmp_path, ["greek", "d6-1", "hand"], FaceTraining(epochs=1))



def test_the_pair_reports_the_game_names(fixed_backend):
    kinds, _ = merged_names(WGC)
    found = Detections(np.array([[0, 0, 10, 10], [20, 20, 35, 35], [40, 5, 55, 20], [5, 30, 20, 45]], float),
                       np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 4, 2, 5]))  # norse, d6, chess-die, hand
    info = ModelInfo(Path("wgc.pt"), kinds, "detect", 640)
    detector = Detector(fixed_backend(found), info, "stub", faces=_reader())
    assert detector.names == tuple(WGC)
    out = detector.detect(np.full((60, 60, 3), 128, np.uint8))
    names = list(out.class_name)
    assert names[0] == "norse" and names[3] == "hand"
    assert {names[1], names[2]} <= {"chess-king", "chess-rook", "hero-imp", "hero-seth", "d6-1", "d6-6"}
    assert [WGC[i] for i in out.class_id] == names  # ids index the reported names
    assert out.confidence.tolist() == [0.9, 0.8, 0.7, 0.6]
    # the reader's confidence in each face it read, beside the detector's; none for the rest
    _, sure = detector.faces.read(np.full((60, 60, 3), 128, np.uint8), found.xyxy[1:3])
    assert out.face_confidence is not None and np.isnan(out.face_confidence[[0, 3]]).all()
    assert out.face_confidence[1:3] == pytest.approx(sure)
    assert out[np.array([1])].face_confidence == pytest.approx(sure[:1])  # kept when sliced


def test_faces_left_unread_are_read_later_for_the_boxes_kept(fixed_backend):
    """``detect(read_faces=False)`` leaves each die its kind; ``read_faces`` reads the faces
    of the boxes a caller keeps, as ``detect`` would have read them, and no others."""
    kinds, _ = merged_names(WGC)
    found = Detections(np.array([[0, 0, 10, 10], [20, 20, 35, 35], [40, 5, 55, 20], [5, 30, 20, 45]], float),
                       np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 4, 2, 5]))  # norse, d6, chess-die, hand
    detector = Detector(fixed_backend(found), ModelInfo(Path("wgc.pt"), kinds, "detect", 640), "stub",
                        faces=_reader())
    frame = np.full((60, 60, 3), 128, np.uint8)
    read = detector.detect(frame)
    unread = detector.detect(frame, read_faces=False)
    assert list(unread.class_name) == ["norse", "d6", "chess-die", "hand"] and unread.face_confidence is None
    assert unread.class_id.tolist()[1:3] == [-1, -1]
    boxes: list[np.ndarray] = []
    reader_read = detector.faces.read
    detector.faces.read = lambda image, xyxy: (boxes.append(np.asarray(xyxy)), reader_read(image, xyxy))[1]
    kept = detector.read_faces(frame, unread[np.array([0, 2, 3])])  # the d6 dropped first
    assert len(boxes) == 1 and boxes[0].tolist() == [[40, 5, 55, 20]]  # the chess die's face alone read
    assert list(kept.class_name) == [read.class_name[i] for i in (0, 2, 3)]
    assert kept.class_id.tolist() == [read.class_id[i] for i in (0, 2, 3)]
    assert np.isnan(kept.face_confidence[[0, 2]]).all() and kept.face_confidence[1] == pytest.approx(read.face_confidence[2])
    assert detector.read_faces(frame, unread[np.array([0, 3])]).face_confidence is None  # no die: nothing read


def test_a_reader_of_another_game_is_refused(fixed_backend):
    info = ModelInfo(Path("x.pt"), ("pawn-suns", "die-suns", "hand"), "detect", 640)
    with pytest.raises(DetectorError, match="does not know pawn-suns"):
        Detector(fixed_backend(Detections.empty()), info, "stub", faces=_reader())


def test_a_recipe_can_ask_for_a_face_reader():
    doc = {"game": "when-gods-collide", "architecture": "yolo11n.yaml", "data": {"count": 10, "seed": 1},
           "dice_faces": {"epochs": 5, "variants": 2}}
    recipe = Recipe.from_json(doc)
    assert recipe.dice_faces == {"epochs": 5, "variants": 2}
    settings = FaceTraining.from_json(dict(recipe.dice_faces))
    assert (settings.epochs, settings.variants, settings.seed) == (5, 2, 0)
    assert Recipe.from_json(dict(doc, dice_faces=None)).dice_faces is None
    assert FaceTraining.from_json(None) is None


class _QuadrantNet:
    """A crop classifier double: class 0's logit is the top-left quadrant's brightness, class
    1's the bottom-right's; it keeps every batch it was given."""

    def __init__(self) -> None:
        self.recent = None
        self.batches: list[np.ndarray] = []

    def logits(self, crops: np.ndarray) -> np.ndarray:
        self.batches.append(crops.copy())
        h = crops.shape[1] // 2
        return np.stack([crops[:, :h, :h].mean(axis=(1, 2, 3)), crops[:, h:, h:].mean(axis=(1, 2, 3))], axis=1) / 20


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_a_die_is_read_at_four_quarter_turns_and_a_still_one_once():
    """Each crop is read at 0, 90, 180 and 270 degrees and the four probabilities averaged;
    the same crop in the next frame keeps its reading, a changed one is read again."""
    from vision import dice_faces

    frame = np.full((80, 80, 3), 100, np.uint8)
    frame[20:30, 20:30] = 250  # a bright corner at the top left of the first box
    boxes = np.array([[18, 18, 38, 38], [50, 50, 70, 70]], float)
    net = _QuadrantNet()
    p = dice_faces._probabilities(net, frame, boxes, 16, 1.0, turns=4)
    (batch,) = net.batches
    crops = np.stack([dice_faces._crop(frame, 28, 28, 20, 0.0, 16), dice_faces._crop(frame, 60, 60, 20, 0.0, 16)])
    assert batch.shape == (8, 16, 16, 3)
    for k in range(4):
        assert np.array_equal(batch[2 * k:2 * k + 2], np.rot90(crops, k, axes=(1, 2)))
    expected = np.mean([_softmax(net.logits(np.rot90(crops, k, axes=(1, 2)).copy())) for k in range(4)], axis=0)
    assert np.allclose(p, expected)
    one_turn = dice_faces._probabilities(_QuadrantNet(), frame, boxes, 16, 1.0)
    assert one_turn[0, 0] > 0.5 and p[0, 0] == pytest.approx(0.5)  # at four turns the corner is everywhere
    net.batches.clear()
    again = dice_faces._probabilities(net, frame, boxes, 16, 1.0, turns=4)
    assert net.batches == [] and np.allclose(again, p)
    frame[55:65, 55:65] = 250  # the second die shows another face
    dice_faces._probabilities(net, frame, boxes, 16, 1.0, turns=4)
    assert [b.shape[0] for b in net.batches] == [4]


def test_camera_noise_gives_training_crops_as_a_camera_may_give_them(tmp_path):
    """``camera_noise`` in a recipe's section: each training crop gets a colour cast, more
    sensor noise and now and then JPEG compression; the validation crops stay the true boxes,
    and a reader trained so still learns the faces."""
    import numpy as np

    from vision.dice_faces import _jittered

    assert FaceTraining.from_json({"camera_noise": True}).camera
    assert not FaceTraining.from_json({}).camera
    flat = np.full((200, 96, 96, 3), 128, np.uint8)
    sides = np.full(200, 20.0)
    plain = _jittered(flat, sides, np.random.default_rng(0), True).astype(float)
    camera = _jittered(flat, sides, np.random.default_rng(0), True, camera=True).astype(float)
    within = lambda crops: (crops - crops.mean(axis=(1, 2), keepdims=True)).std()
    assert within(camera) > 1.25 * within(plain)  # noise of 2 to 8 levels (some smoothed by JPEG) against 3
    casts = lambda crops: np.ptp(crops.mean(axis=(1, 2)), axis=1)
    assert np.median(casts(camera)) > 4 * np.median(casts(plain))
    val = _jittered(flat, sides, np.random.default_rng(0), False, camera=True)
    assert np.array_equal(val, _jittered(flat, sides, np.random.default_rng(1), False))

    _pip_dataset(tmp_path, {"train": 40, "val": 10}, seed=3)
    reader = train_face_reader(tmp_path, PIP_NAMES, FaceTraining(epochs=25, seed=0, camera=True))
    assert reader.metrics["val_accuracy"] >= 0.9, reader.metrics

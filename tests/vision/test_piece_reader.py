"""Pieces in two stages: the detector boxes a piece, a small reader re-reads its class from a
crop; the pair reports the game's own names, and hands and dice are never re-read."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import Detector, DetectorError, ModelInfo
from vision.detect_train import Recipe
from vision.detections import Detections
from vision.dice_faces import _network
from vision.piece_reader import (
    PieceReader,
    PieceReaderError,
    PieceTraining,
    combined,
    pieces_path,
    reader_classes,
    train_piece_reader,
)

BG = ["north-sa", "north-i", "south-sa", "south-i", "hand"]
#: What runs a reader loaded with the dependencies installed: OpenVINO, else ONNX Runtime.
EXPORTED = "openvino" if importlib.util.find_spec("openvino") else "onnx"


def _reader(names: list[str] = BG, classes: tuple[str, ...] = ("north-sa", "north-i", "south-sa", "south-i"),
            size: int = 24) -> PieceReader:
    return PieceReader(_network(len(classes)), names, classes, size, 1.3)


def test_the_classes_a_reader_reads_by_default():
    assert reader_classes(BG) == ("north-sa", "north-i", "south-sa", "south-i")
    assert reader_classes(["greek", "chess-die", "chess-rook", "d6-2", "hand"]) == ("greek",)
    assert reader_classes(["pawn-suns", "die-suns", "die-suns-ace", "coin-arms"]) == ("pawn-suns", "coin-arms")
    assert pieces_path("a/b/oneworld.pt") == Path("a/b/oneworld.pieces.pt")
    assert pieces_path("m.onnx") == Path("m.pieces.pt")


def test_a_reader_answers_one_of_its_classes(tmp_path):
    reader = _reader()
    frame = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    classes, conf = reader.read(frame, np.array([[10, 10, 30, 30], [50, 30, 75, 58]], float))
    assert len(classes) == 2 and set(classes) <= set(reader.classes)
    assert ((conf >= 1 / 4) & (conf <= 1)).all()
    assert reader.read(frame, np.zeros((0, 4))) == ([], pytest.approx(np.zeros(0)))


def test_onnx_runtime_and_torch_read_the_same(monkeypatch):
    """Where OpenVINO is not installed the reader runs on ONNX Runtime (faster on a board of
    crops than torch, which reads where neither is), with the same probabilities."""
    pytest.importorskip("onnxruntime")
    from vision import dice_faces

    rng = np.random.default_rng(3)
    frame = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
    boxes = np.array([[10 + 9 * i, 10 + 5 * i, 30 + 9 * i, 34 + 5 * i] for i in range(10)], float)
    fast = _reader()
    net = fast.net
    torch_only = PieceReader(net, BG, fast.classes, fast.size, fast.pad)
    monkeypatch.setattr("vision.dice_faces._exported_session", lambda net, size: None)
    slow_classes, slow_conf = torch_only.read(frame, boxes)
    assert torch_only.backend == "torch"
    monkeypatch.undo()
    monkeypatch.setattr(dice_faces, "_OpenVinoCrops", _refuse)  # as where openvino is not installed
    exported = PieceReader(net, BG, fast.classes, fast.size, fast.pad)
    classes, conf = exported.read(frame, boxes)
    assert exported.backend == "onnx"
    assert classes == slow_classes
    np.testing.assert_allclose(conf, slow_conf, atol=1e-5)
    one, _ = exported.read(frame, boxes[:1])  # any number of crops, one included
    assert one == classes[:1]


def test_openvino_reads_a_sample_boards_pieces_as_onnx_runtime_does(monkeypatch):
    """OpenVINO runs the reader where it is installed: on the shipped Wormholes reader and a
    sample picture's labelled boxes, the same class for every coin and ship as ONNX Runtime,
    the probabilities (bfloat16 on CPUs that have it) a few hundredths apart at most."""
    pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    import json

    from vision import dice_faces

    root = Path(__file__).resolve().parents[2]
    frame = cv2.imread(str(root / "sample_images" / "wormholes-still-1.jpg"))
    labels = json.loads((root / "sample_images" / "wormholes-still-1.json").read_text())
    boxes = np.array([p["box"] for p in labels["pieces"] if p.get("in_labels")], float)
    assert len(boxes) >= 10
    fast = PieceReader.load(root / "models" / "wormholes.pieces.pt")
    assert fast.backend == "openvino"
    monkeypatch.setattr(dice_faces, "_OpenVinoCrops", _refuse)
    onnx = PieceReader.load(root / "models" / "wormholes.pieces.pt")
    assert onnx.backend == "onnx"
    p_fast = dice_faces._probabilities(fast._run, frame, boxes, fast.size, fast.pad)
    p_onnx = dice_faces._probabilities(onnx._run, frame, boxes, onnx.size, onnx.pad)
    assert (p_fast.argmax(axis=1) == p_onnx.argmax(axis=1)).all()
    np.testing.assert_allclose(p_fast, p_onnx, atol=0.03)


def _refuse(onnx: bytes) -> None:
    raise ImportError("no openvino")


def test_a_reader_survives_save_and_load(tmp_path):
    reader = _reader(size=28)
    reader.metrics["val_accuracy"] = 0.75
    path = reader.save(tmp_path / "bg.pieces.pt")
    assert not list(tmp_path.glob("*.part"))
    again = PieceReader.load(path)
    assert (again.names, again.classes, again.size, again.pad) == (reader.names, reader.classes, 28, 1.3)
    assert again.metrics["val_accuracy"] == 0.75 and again.source == path
    assert again.backend == EXPORTED  # ready for frames once loaded: no export on the first one
    frame = np.random.default_rng(1).integers(0, 255, (50, 50, 3), dtype=np.uint8)
    box = np.array([[8, 8, 34, 30]], float)
    classes, conf = reader.read(frame, box)
    assert again.read(frame, box) == (classes, pytest.approx(conf, abs=1e-5))
    bad = tmp_path / "x.pieces.pt"
    bad.write_bytes(b"no torch here")
    with pytest.raises(PieceReaderError, match="not a piece reader"):
        PieceReader.load(bad)


def _base(level: int, side: int) -> np.ndarray:
    """A grey disc with ``level`` (1 or 3) notches on its rim: what tells two figures apart."""
    img = np.full((side, side, 3), 90, np.uint8)
    c = side // 2
    cv2.circle(img, (c, c), c - 1, (200, 200, 200), -1)
    for k in range(level):
        a = np.pi / 2 + k * 2 * np.pi / 3
        cv2.circle(img, (int(c + 0.62 * c * np.cos(a)), int(c + 0.62 * c * np.sin(a))), max(1, side // 9),
                   (30, 30, 30), -1)
    return img


def _dataset(root: Path, rng: np.random.Generator) -> list[str]:
    names = ["level-1", "level-3", "hand"]
    for split, count in (("train", 40), ("val", 10)):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for k in range(count):
            frame = np.full((120, 160, 3), rng.integers(40, 120), np.uint8)
            lines = []
            for j in range(3):
                cls = int(rng.integers(2))
                side = int(rng.integers(18, 26))
                x, y = 8 + 50 * j + int(rng.integers(0, 12)), int(rng.integers(8, 90))
                frame[y:y + side, x:x + side] = _base((1, 3)[cls], side)
                lines.append(f"{cls} {(x + side / 2) / 160} {(y + side / 2) / 120} {side / 160} {side / 120}")
            cv2.imwrite(str(root / "images" / split / f"{k}.png"), frame)
            (root / "labels" / split / f"{k}.txt").write_text("\n".join(lines) + "\n")
    return names


def test_a_reader_learns_to_tell_pieces_apart(tmp_path):
    """Trained on frames of one- and three-notch bases, it reads the held-back ones."""
    names = _dataset(tmp_path, np.random.default_rng(5))
    seen: list[int] = []
    reader = train_piece_reader(tmp_path, names, PieceTraining(epochs=20, size=24),
                                progress=lambda e, n, loss, acc: seen.append(e))
    assert seen == list(range(1, 21))
    assert reader.classes == ("level-1", "level-3")  # the hand is not read
    assert reader.metrics["val_pieces"] == 30 and reader.metrics["train_pieces"] == 120
    assert reader.metrics["val_accuracy"] >= 0.9, reader.metrics
    frame = np.full((60, 60, 3), 70, np.uint8)
    frame[10:32, 10:32] = _base(3, 22)
    frame[30:52, 34:56] = _base(1, 22)
    assert reader.read(frame, np.array([[10, 10, 32, 32], [34, 30, 56, 52]], float))[0] == ["level-3", "level-1"]


def test_training_needs_every_class_it_reads(tmp_path):
    names = _dataset(tmp_path, np.random.default_rng(6))
    with pytest.raises(PieceReaderError, match="not classes of"):
        train_piece_reader(tmp_path, names, PieceTraining(epochs=1, classes=("level-1", "level-9")))
    with pytest.raises(PieceReaderError, match="two or more"):
        train_piece_reader(tmp_path, names, PieceTraining(epochs=1, classes=("level-1",)))
    three = ["level-1", "level-3", "level-2"]
    with pytest.raises(PieceReaderError, match="no labelled level-2"):
        train_piece_reader(tmp_path, three, PieceTraining(epochs=1, classes=tuple(three)))
    # chosen by default, a class never labelled is left to the detector
    reader = train_piece_reader(tmp_path, three, PieceTraining(epochs=1))
    assert reader.classes == ("level-1", "level-3") and reader.metrics["left_to_detector"] == ["level-2"]



class _Fixed:
    """A reader that reads every piece as one class: shows which boxes were re-read."""

    def __init__(self, names: list[str], classes: tuple[str, ...], answer: str) -> None:
        self.names, self.classes, self.answer, self.source = tuple(names), classes, answer, None
        self.boxes: list[np.ndarray] = []
        self.detected: list[list[str] | None] = []
        self.confidence: list[list[float] | None] = []

    def read(self, frame: np.ndarray, xyxy: np.ndarray, detected: list[str] | None = None,
             confidence: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
        self.boxes.append(np.asarray(xyxy))
        self.detected.append(None if detected is None else list(detected))
        self.confidence.append(None if confidence is None else np.asarray(confidence).tolist())
        return [self.answer] * len(xyxy), np.full(len(xyxy), 0.9)


def test_the_pair_re_reads_pieces_and_leaves_hands(fixed_backend):
    found = Detections(np.array([[0, 0, 10, 10], [20, 20, 35, 35], [5, 30, 40, 60]], float),
                       np.array([0.9, 0.8, 0.7]), np.array([1, 2, 4]))  # north-i, south-sa, hand
    info = ModelInfo(Path("bg.pt"), tuple(BG), "detect", 640)
    reader = _Fixed(BG, ("north-sa", "north-i", "south-sa", "south-i"), "south-i")
    out = Detector(fixed_backend(found), info, "stub", pieces=reader).detect(np.full((64, 64, 3), 100, np.uint8))
    assert list(out.class_name) == ["south-i", "south-i", "hand"]
    assert out.class_id.tolist() == [3, 3, 4]
    assert out.confidence.tolist() == [0.9, 0.8, 0.7]  # the detector's: how sure a piece is there
    assert reader.boxes[0].tolist() == [[0, 0, 10, 10], [20, 20, 35, 35]]
    assert reader.detected[0] == ["north-i", "south-sa"]  # the detector's classes go with the boxes
    assert reader.confidence[0] == pytest.approx([0.9, 0.8])  # and how sure it is of each
    # a reader of some classes only leaves the others as the detector read them
    only_north = _Fixed(BG, ("north-sa", "north-i"), "north-sa")
    out = Detector(fixed_backend(found), info, "stub", pieces=only_north).detect(np.full((64, 64, 3), 100, np.uint8))
    assert list(out.class_name) == ["north-sa", "south-sa", "hand"]


def test_a_piece_reader_of_another_model_is_refused(fixed_backend):
    info = ModelInfo(Path("x.pt"), ("borg-stone", "chez-stone", "hand"), "detect", 640)
    with pytest.raises(DetectorError, match="does not belong"):
        Detector(fixed_backend(Detections.empty()), info, "stub", pieces=_reader())


def test_a_recipe_can_ask_for_a_piece_reader():
    doc = {"game": "battle-grounds", "architecture": "yolo11n.yaml", "data": {"count": 10, "seed": 1},
           "piece_reader": {"epochs": 9, "size": 48, "pad": 1.2}}
    recipe = Recipe.from_json(doc)
    settings = PieceTraining.from_json(dict(recipe.piece_reader))
    assert (settings.epochs, settings.size, settings.pad, settings.classes, settings.seed) == (9, 48, 1.2, (), 0)
    assert Recipe.from_json(dict(doc, piece_reader=None)).piece_reader is None
    assert PieceTraining.from_json(None) is None
    with pytest.raises(PieceReaderError, match="malformed"):
        PieceTraining.from_json({"size": "big"})


def test_the_detector_decides_where_the_reader_is_unsure():
    """Two readings of a box multiplied as independent evidence: a reader torn between two
    classes takes the detector's; a reader sure of its class keeps it against an unsure
    detector; a detector's class the reader does not read leaves the reader's answer."""
    torn = np.array([[0.45, 0.40, 0.15]])
    assert combined(torn, [1], np.array([0.7])).argmax() == 1
    sure = np.array([[0.96, 0.03, 0.01]])
    assert combined(sure, [1], np.array([0.6])).argmax() == 0
    out = combined(np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]), [-1, 2], np.array([0.9, 0.3]))
    assert out[0] == pytest.approx([0.2, 0.5, 0.3])
    assert out.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert out[1].argmax() == 0


def test_a_reading_with_the_detectors_confidence_is_combined(monkeypatch):
    """``PieceReader.read`` with the detector's classes and confidences answers the combined
    reading, and without them the reader's own."""
    from vision import piece_reader

    reader = _reader()
    monkeypatch.setattr(piece_reader, "_probabilities", lambda *a: np.array([[0.40, 0.44, 0.08, 0.08]]))
    frame = np.full((40, 40, 3), 90, np.uint8)
    box = np.array([[5, 5, 30, 30]], float)
    alone, _ = reader.read(frame, box)
    first = reader.classes[0]
    both, conf = reader.read(frame, box, [first], confidence=np.array([0.9]))
    assert alone == [reader.classes[1]] and both == [first]
    other = 0.1 / 3  # the detector's 1 - 0.9, shared by the reader's three other classes
    assert conf[0] == pytest.approx(0.40 * 0.9 / (0.40 * 0.9 + (0.44 + 0.08 + 0.08) * other))

"""The d6 finder (``vision.dice_finder``): its dice joined to a game detector's, one box per
die, faces read again by its face reader; and the shipped finder on renders it never saw."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import models
from vision.detections import Detections, box_iou
from vision.dice_finder import DICE_CONF, DiceFinder, added, one_box_per_die, with_dice
from vision.render.dice_scene import CLASSES, render_dice


def _shipped() -> bool:
    try:
        models.weights_path(models.DICE_FINDER)
    except models.ModelNotFoundError:
        return False
    return True


SHIPPED = _shipped()


def _pieces() -> Detections:
    """A game detector's reading: a pose model's two pieces with keypoints and facings."""
    return Detections(np.array([[0., 0, 20, 20], [100, 100, 120, 130]]), np.array([0.9, 0.8]), np.array([0, 1]),
                      facing=np.array([10.0, 20.0]), keypoints=np.ones((2, 1, 3)),
                      class_name=np.array(["red-piece", "blue-piece"], object))


def _dice() -> Detections:
    return Detections(np.array([[5., 5, 15, 15], [200, 200, 215, 215], [300, 300, 312, 312]]),
                      np.array([0.9, 0.7, DICE_CONF - 0.01]), np.array([3, 1, 2]),
                      class_name=np.array(["d6-4", "d6-2", "d6-3"], object), face_confidence=np.array([0.99, 0.95, 0.9]))


def test_dice_clear_of_the_pieces_and_sure_enough_are_added_with_empty_columns() -> None:
    both = added(_pieces(), _dice())
    assert both.class_name.tolist() == ["red-piece", "blue-piece", "d6-2"]
    assert both.keypoints.shape == (3, 1, 3) and not both.keypoints[2].any()  # no front dot for a die
    assert np.isnan(both.facing[2]) and both.facing[:2].tolist() == [10.0, 20.0]
    assert both.class_id.tolist()[2] == -1
    assert added(_pieces(), Detections.empty()) is not None and len(added(_pieces(), Detections.empty())) == 2
    assert added(Detections.empty(), _dice()).class_name.tolist() == ["d6-4", "d6-2"]


def test_with_dice_runs_both_on_the_frame() -> None:
    class Finder:
        def detect(self, frame: np.ndarray, pieces: Detections, conf: float) -> Detections:
            assert frame.shape == (4, 4, 3) and len(pieces) == 2 and conf == DICE_CONF  # the game's pieces
            return _dice()

    detect = with_dice(lambda frame: _pieces(), Finder())
    assert len(detect(np.zeros((4, 4, 3), np.uint8))) == 3


def test_overlapping_boxes_of_other_faces_are_one_die() -> None:
    d = Detections(np.array([[0., 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [50, 50, 60, 60]]),
                   np.array([0.3, 0.8, 0.5, 0.4]), np.array([0, 1, 2, 3]))
    kept = one_box_per_die(d)
    assert kept.class_id.tolist() == [1, 3]


def test_the_face_reader_names_each_die_and_says_how_sure() -> None:
    class Detector:
        names = CLASSES

        def detect(self, frame: np.ndarray) -> Detections:
            return Detections(np.array([[0., 0, 10, 10], [20, 20, 30, 30]]), np.array([0.9, 0.8]), np.array([0, 0]),
                              class_name=np.array(["d6-1", "d6-1"], object))

    class Reader:
        def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
            return ["d6-5", "d6-2"], np.array([0.97, 0.4])

    d = DiceFinder(Detector(), Reader()).detect(np.zeros((40, 40, 3), np.uint8))
    assert d.class_name.tolist() == ["d6-5", "d6-2"] and d.class_id.tolist() == [4, 1]
    assert d.face_confidence.tolist() == [0.97, 0.4]


def test_a_detector_that_finds_a_die_whatever_its_face_reads_the_faces_once() -> None:
    """A detector of one class (``d6``) reads each face with the face reader beside its
    weights itself (:class:`vision.detect.Detector`): the finder does not read it again."""
    class Reader:
        def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
            raise AssertionError("a face read twice")

    class Detector:
        names = CLASSES
        faces = object()  # its own reader
        def __init__(self) -> None:
            self.read: list[list[float]] = []

        def detect(self, frame: np.ndarray, read_faces: bool = True) -> Detections:
            assert not read_faces  # read once the boxes kept are known
            return Detections(np.array([[0., 0, 10, 10], [50, 50, 60, 60], [100, 100, 110, 110]]),
                              np.array([0.9, 0.8, 0.2]), np.array([-1, -1, -1]),
                              class_name=np.array(["d6", "d6", "d6"], object))

        def read_faces(self, frame: np.ndarray, det: Detections) -> Detections:
            self.read.extend(det.xyxy.tolist())
            return Detections(det.xyxy, det.confidence, np.full(len(det), 4),
                              class_name=np.array(["d6-5"] * len(det), object), face_confidence=np.full(len(det), 0.98))

    detector = Detector()
    finder = DiceFinder(detector, Reader())
    d = finder.detect(np.zeros((40, 40, 3), np.uint8))
    assert d.class_name.tolist() == ["d6-5"] * 3 and d.face_confidence.tolist() == [0.98] * 3
    assert finder.faces is None and finder.face_reader is Detector.faces
    # beside a game's pieces: the box on a piece and the unsure one are dropped unread
    detector.read.clear()
    d = finder.detect(np.zeros((40, 40, 3), np.uint8), _pieces(), DICE_CONF)
    assert detector.read == [[50, 50, 60, 60]] and d.class_name.tolist() == ["d6-5"]


def test_a_finder_reading_faces_itself_reads_only_the_dice_kept() -> None:
    read: list[list[float]] = []

    class Detector:
        names = CLASSES

        def detect(self, frame: np.ndarray) -> Detections:
            return _dice()

    class Reader:
        def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
            read.extend(np.asarray(xyxy).tolist())
            return ["d6-6"] * len(xyxy), np.full(len(xyxy), 0.99)

    both = with_dice(lambda frame: _pieces(), DiceFinder(Detector(), Reader()))(np.zeros((40, 40, 3), np.uint8))
    assert read == [[200, 200, 215, 215]] and both.class_name.tolist() == ["red-piece", "blue-piece", "d6-6"]


@pytest.mark.skipif(not SHIPPED, reason="models/d6.pt is not shipped")
def test_the_shipped_finder_reads_dice_it_never_saw() -> None:
    """Renders of a seed the finder never trained on (its recipe's evaluation seed): of the
    dice at least 25 px across (a real photo's or a near camera's), most are found and read
    right; the finder is no game's detector and ships with its recipe, card and face reader."""
    from importlib import resources

    from vision.detect_train import load_recipe

    finder = DiceFinder.load()
    assert finder.face_reader is not None and tuple(finder.detector.names) == CLASSES
    assert models.DICE_FINDER not in models.available()
    recipe = load_recipe(models.DICE_FINDER)
    assert recipe.architecture.endswith(".yaml") and recipe.data_seed != recipe.eval_seed
    card = resources.files("models").joinpath("d6.md").read_text(encoding="utf-8").lower()
    assert all(w in card for w in ("data recipe", "seed", "epochs", "image size", "training time", "map50-95"))
    dice = found = right = 0
    for i in range(12):
        image, labels = render_dice(np.random.default_rng([recipe.eval_seed, i]), (640, 640))
        det = finder.detect(image)
        truth = np.array([[(x - w / 2) * 640, (y - h / 2) * 640, (x + w / 2) * 640, (y + h / 2) * 640]
                          for _, x, y, w, h in labels]).reshape(-1, 4)
        big = np.minimum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1]) >= 25
        dice += int(big.sum())
        if not len(det):
            continue
        iou = box_iou(truth, det.xyxy)
        for j in np.flatnonzero(big):
            k = int(iou[j].argmax())
            if iou[j, k] >= 0.5:
                found += 1
                right += str(det.class_name[k]) == CLASSES[labels[j][0]]
    assert dice >= 20
    assert found >= 0.7 * dice and right >= 0.6 * dice, (dice, found, right)


def test_the_shipped_finder_boxes_real_dice_and_reads_their_pips() -> None:
    """Three real photos of ordinary dice on a tray (tests/data/real/dice: 38 dice, labelled by
    their own project, loosely: each label's side about 1.3 times the die's): the finder,
    which never saw a photo, boxes every die (matched by centre, as the labels are loose),
    reads nearly all of their pips, and boxes little that is no die."""
    from pathlib import Path

    from vision.detect_eval import load_samples, transfer_figures

    finder = DiceFinder.load()
    photos = load_samples(Path(__file__).resolve().parents[1] / "data" / "real" / "dice")
    assert len(photos) == 3 and sum(len(p.classes) for p in photos) == 38
    figures = transfer_figures(photos, finder.detect, tuple(finder.detector.names), CLASSES,
                               {k: f"d6-{k + 1}" for k in range(6)}, 0.25)
    assert figures["found_by_centre"] == 1.0, figures
    assert figures["right_by_centre"] >= 0.9, figures
    assert figures["false_by_centre"] <= 2, figures
    assert 1.1 < figures["label_to_box"] < 1.6, figures  # the labels are looser than the boxes


def test_the_live_referee_adds_the_finder_to_detectors_without_dice() -> None:
    from tabletop.live.play import dice_finder_for

    class Names:
        def __init__(self, *names: str) -> None:
            self.names = names

    assert dice_finder_for(Names("greek", "d6-1", "chess-rook", "hand")) is None  # When Gods Collide's own dice
    assert dice_finder_for(Names("pawn-suns", "die-suns-ace", "hand")) is None  # Wormholes' piecepack dice
    finder = dice_finder_for(Names("borg-stone", "chez-fog", "hand"))
    assert (finder is not None) == SHIPPED


def test_the_dice_keep_how_sure_their_faces_were_read() -> None:
    """The finder's face confidences go with its dice (NaN for the game's pieces), so that a
    frame with a die read unsurely has no dice (:data:`tabletop.live.board.SURE_FACE`)."""
    from tabletop.live.board import BoardMapper

    dice = _dice()
    both = added(_pieces(), replace(dice, face_confidence=np.array([0.99, 0.4, 0.9])))
    assert np.isnan(both.face_confidence[:2]).all() and both.face_confidence[2] == 0.4

    class Flat:
        def image_to_board(self, points: np.ndarray) -> np.ndarray:
            return np.asarray(points, float) / 100

    seen = BoardMapper("the-game", None, (10.0, 10.0)).map(both, Flat())
    assert seen.dice == () and seen.unsure_dice == 1


def test_the_benchmark_counts_each_throw_sureness_once(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/dice_finder.py --throw-conf``: a sureness given twice (or the referee's
    own given again) is counted once, not its dice and false boxes twice."""
    import importlib.util
    import json
    from pathlib import Path

    import vision.dice_finder

    spec = importlib.util.spec_from_file_location(
        "dice_finder_bench", Path(__file__).resolve().parents[2] / "benchmarks" / "dice_finder.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    class Finder:  # a die box where none lies in every frame
        def detect(self, frame: np.ndarray) -> Detections:
            return Detections(np.array([[0., 0, 4, 4]]), np.array([0.9]), np.array([0]),
                              class_name=np.array(["d6-1"], object), face_confidence=np.array([1.0]))

    monkeypatch.setattr(vision.dice_finder.DiceFinder, "load", classmethod(lambda cls, *a, **k: Finder()))
    assert bench.main(["--frames", "2", "--throw-conf", str(DICE_CONF), "0.5", "0.5", str(DICE_CONF), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sure"]["dice"] == doc["sure@0.5"]["dice"] == doc["all"]["dice"]
    assert doc["sure"]["false"] == doc["sure@0.5"]["false"] == 2


def test_the_table_dice_benchmark_counts_dice_on_the_markers_as_the_referee_takes_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks/table_dice.py`` with a finder double that boxes each of the kit's markers
    as a die it is unsure of, and one spot off them, and a detector double that finds no
    piece: with the markers left out, the spot's die, lying still, still holds every throw
    back; set aside as lying still (now), no die is seen and the throw is not read (wrong);
    with the markers kept, every throw is held back. The dice land clear of every piece and
    marker, in the frame."""
    import importlib.util
    from pathlib import Path

    import vision.detect

    spec = importlib.util.spec_from_file_location(
        "table_dice_bench", Path(__file__).resolve().parents[2] / "benchmarks" / "table_dice.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from tabletop.live.play import _marker_spec
    from vision.detect_cells import FrameGeometry
    from vision.render.dice_scene import places_among
    from vision.render.renderer import Renderer, RenderOptions

    renderer = Renderer("battle-grounds", seed=5, options=RenderOptions(size=(640, 480), hands=0.0))
    truths = [renderer.render(i).truth for i in range(2)]
    markers = []
    for k, truth in enumerate(truths):
        marker_spec = _marker_spec("battle-grounds", truth["position_source"]["options"])
        geometry = FrameGeometry.from_truth(truth)
        markers.append(marker_spec.in_image(geometry.board_to_image))
        places = places_among(np.random.default_rng(k), truth, marker_spec, geometry.board_to_image, markers[-1], 2)
        assert len(places) == 2
        for x, y, edge in places:
            assert 0 < x < 640 and 0 < y < 480 and edge > 3
            box = (x - edge, y - 1.5 * edge, x + edge, y + edge)
            for p in truth["pieces"]:
                b = p["box"]
                assert box[2] < b[0] or b[2] < box[0] or box[3] < b[1] or b[3] < box[1]
    frames = iter(range(100))

    class NoPieces:
        names = ("north-i", "hand")

        def detect(self, frame: np.ndarray) -> Detections:
            return Detections.empty()

    def spot(quads: list[np.ndarray]) -> list[float]:  # a place far from every marker
        x, y = max(((x, y) for x in range(40, 600, 40) for y in range(40, 440, 40)),
                   key=lambda p: min(np.hypot(*(q.mean(axis=0) - p)) for q in quads))
        return [x - 6.0, y - 6.0, x + 6.0, y + 6.0]

    class OnMarkers:
        def detect(self, frame: np.ndarray, pieces: Detections | None = None, conf: float = 0.0) -> Detections:
            quads = markers[next(frames) // 2]  # each frame read twice: before the throw and after it
            boxes = np.array([[*q.min(axis=0), *q.max(axis=0)] for q in quads] + [spot(quads)])
            return Detections(boxes, np.full(len(boxes), 0.8), np.zeros(len(boxes), int),
                              class_name=np.array(["d6-1"] * len(boxes), object),
                              face_confidence=np.full(len(boxes), 0.5))

    monkeypatch.setattr(vision.detect.Detector, "load", classmethod(lambda cls, *a, **k: NoPieces()))
    tally = bench.run_game("battle-grounds", OnMarkers(), 2, 5, quiet=True)
    assert tally["now"] == {"throws": 2, "read": 0, "held_back": 0, "wrong": 2, "fewer": 2, "more": 0,
                            "other_faces": 0, "false_frames": 0}
    assert tally["markers"] == tally["before"] == {"throws": 2, "read": 0, "held_back": 2, "wrong": 0, "fewer": 0,
                                                   "more": 0, "other_faces": 0, "false_frames": 2}


def test_a_die_the_game_s_detector_took_for_a_piece_unsurely_is_the_die() -> None:
    """A die box on a piece box: left out when the piece is sure (a square counter with a
    mark is no die), or when the finder or its face reader is unsure; kept, and the piece box
    under it dropped, when the finder is sure of a die and of its face and the game's
    detector unsure of its piece. Its face is read only when it may win so."""
    from vision.dice_finder import OVER_PIECE_CONF, OVER_PIECE_FACE, UNSURE_PIECE

    def pieces(conf: float) -> Detections:
        return Detections(np.array([[0., 0, 20, 20], [100, 100, 120, 130]]), np.array([conf, 0.9]), np.array([0, 1]),
                          class_name=np.array(["red-piece", "blue-piece"], object))

    def die(conf: float, face: float) -> Detections:
        return Detections(np.array([[2., 2, 19, 19]]), np.array([conf]), np.array([3]),
                          class_name=np.array(["d6-4"], object), face_confidence=np.array([face]))

    won = added(pieces(UNSURE_PIECE - 0.1), die(OVER_PIECE_CONF, OVER_PIECE_FACE))
    assert won.class_name.tolist() == ["blue-piece", "d6-4"]
    for piece, finder, face in ((UNSURE_PIECE, 0.9, 0.99), (0.3, OVER_PIECE_CONF - 0.01, 0.99),
                                (0.3, 0.9, OVER_PIECE_FACE - 0.01)):
        assert added(pieces(piece), die(finder, face)).class_name.tolist() == ["red-piece", "blue-piece"]
    hand = pieces(0.3)
    hand = Detections(hand.xyxy, hand.confidence, hand.class_id, class_name=np.array(["hand", "blue-piece"], object))
    assert added(hand, die(0.9, 0.99)).class_name.tolist() == ["hand", "blue-piece"]  # a hand never gives way

    read: list[int] = []

    class Reader:
        def read(self, frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
            read.append(len(xyxy))
            return ["d6-4"] * len(xyxy), np.full(len(xyxy), 0.95)

    class Finder:
        names = CLASSES

        def detect(self, frame: np.ndarray) -> Detections:
            return die(0.8, np.nan)

    frame = np.zeros((140, 140, 3), np.uint8)
    assert with_dice(lambda f: pieces(0.3), DiceFinder(Finder(), Reader()))(frame).class_name.tolist() == [
        "blue-piece", "d6-4"]
    assert read == [1]
    assert with_dice(lambda f: pieces(0.8), DiceFinder(Finder(), Reader()))(frame).class_name.tolist() == [
        "red-piece", "blue-piece"]
    assert read == [1]  # on a sure piece: its face not read


def test_a_piece_under_a_die_not_sure_enough_to_be_added_stays() -> None:
    """``added`` at a sureness above :data:`OVER_PIECE_CONF`: a die over an unsure piece that
    is not sure enough to be added leaves that piece where it is (neither is lost), also
    when another die elsewhere is added."""
    from vision.dice_finder import OVER_PIECE_CONF

    found = Detections(np.array([[0., 0, 20, 20], [100, 100, 120, 130]]), np.array([0.3, 0.9]), np.array([0, 1]),
                       class_name=np.array(["red-piece", "blue-piece"], object))
    conf = OVER_PIECE_CONF + 0.1
    over = Detections(np.array([[2., 2, 19, 19], [200, 200, 215, 215]]), np.array([OVER_PIECE_CONF + 0.05, 0.95]),
                      np.array([3, 5]), class_name=np.array(["d6-4", "d6-6"], object),
                      face_confidence=np.array([0.99, 0.99]))
    assert added(found, over, conf).class_name.tolist() == ["red-piece", "blue-piece", "d6-6"]
    assert added(found, over[np.array([0])], conf).class_name.tolist() == ["red-piece", "blue-piece"]

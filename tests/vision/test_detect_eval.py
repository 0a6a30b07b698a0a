"""Scoring detectors: figures computed from the files (a perfect detector scores perfectly,
a broken label file shows the drop), cells and geometry that round-trip."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.detect_cells import FrameGeometry, board_cells
from vision.detect_eval import (
    Sample,
    average_precision,
    box_iou,
    evaluate,
    labels_as_detections,
    load_samples,
)
from vision.detections import Detections

SEED = 20261120


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Four rendered 640x480 frames of each game checked here (fixed seed)."""
    from vision.render import RenderOptions
    from vision.render.dataset import write_dataset

    out = {}
    for game in ("wormholes", "battle-grounds", "the-game"):
        folder = tmp_path_factory.mktemp(game)
        write_dataset(game, folder, 4, seed=SEED, options=RenderOptions(size=(640, 480)), val_every=0)
        out[game] = folder
    return out


def names_of(folder: Path) -> list[str]:
    return json.loads((folder / "dataset.json").read_text())["classes"]


def replay(samples: list[Sample]):  # type: ignore[no-untyped-def]
    """A 'detector' that returns each sample's own labels, in the order evaluate reads them."""
    queue = list(samples)

    def detect(frame: np.ndarray) -> Detections:
        return labels_as_detections(queue.pop(0))

    return detect


def test_perfect_detections_score_perfectly(rendered: dict[str, Path]) -> None:
    for game in ("wormholes", "battle-grounds"):
        samples = load_samples(rendered[game])
        report = evaluate(game, samples, replay(samples), names_of(rendered[game]))
        assert report.map50_95 == pytest.approx(1.0)
        assert report.cells > 100 and report.cell_accuracy is not None and report.cell_accuracy >= 0.99
        if game == "wormholes":
            assert report.dice > 0 and report.dice_accuracy == 1.0
        m = report.confusion
        assert m is not None and m[:-1, :-1].trace() == sum(len(s.classes) for s in samples)
        assert m[:-1, -1].sum() == 0 and m[-1].sum() == 0  # nothing missed, nothing invented
        # the few cells read wrong (a piece's anchor over a cell line) are all told apart
        assert sum(report.cell_errors.values()) == report.cells - report.cells_right


def test_a_broken_label_file_shows_the_drop(rendered: dict[str, Path], tmp_path: Path) -> None:
    game = "wormholes"
    names = names_of(rendered[game])
    good = load_samples(rendered[game])
    broken_dir = tmp_path / "broken"
    shutil.copytree(rendered[game], broken_dir)
    # every piece of one image relabelled as the next class, as a careless labeller might
    label = min((broken_dir / "labels" / "train").iterdir())
    lines = [ln.split() for ln in label.read_text().splitlines() if ln.strip()]
    hand = names.index("hand")
    label.write_text("".join(" ".join([str((int(p[0]) + 1) % hand if int(p[0]) != hand else hand)] + p[1:]) + "\n"
                             for p in lines))
    broken = load_samples(broken_dir)
    # the truth is the broken file, the detections the right labels: mAP falls
    report = evaluate(game, broken, replay(good), names)
    assert report.map50_95 < 0.95
    # the detections read from the broken file, the truth JSON right: cells and dice fall
    report = evaluate(game, good, replay(broken), names)
    base = evaluate(game, good, replay(good), names)
    assert report.cell_accuracy is not None and base.cell_accuracy is not None
    assert report.cell_accuracy < base.cell_accuracy
    assert report.boards_right < base.boards_right
    # as many pieces read on each cell as are there, not the same ones
    assert report.cell_errors["piece"] > 0 and report.cell_errors["piece"] > base.cell_errors["piece"]
    assert sum(report.cell_errors.values()) == report.cells - report.cells_right
    assert f"{report.cells - report.cells_right}: " in report.text() and "wrong piece" in report.text()
    assert report.confusion is not None and report.confusion[:-1, :-1].trace() < base.confusion[:-1, :-1].trace()


def test_missing_and_extra_detections_cost_cells_and_precision(rendered: dict[str, Path]) -> None:
    game = "battle-grounds"
    samples = load_samples(rendered[game])
    names = names_of(rendered[game])

    queue = list(samples)

    def halve(frame: np.ndarray) -> Detections:
        d = labels_as_detections(queue.pop(0))
        return d[np.arange(len(d)) % 2 == 0]

    report = evaluate(game, samples, halve, names)
    assert report.map50_95 < 0.7
    assert report.cell_accuracy is not None and report.cell_accuracy < 0.95
    assert report.confusion is not None and report.confusion[:-1, -1].sum() > 0  # the missed column
    assert report.cell_errors["missed"] > 0 and report.figures()["cells_wrong"]["missed"] == report.cell_errors["missed"]
    assert report.cell_errors["phantom"] == 0  # nothing was invented

    queue = list(samples)
    hand = names.index("hand")

    def shifted(frame: np.ndarray) -> Detections:  # every figure also seen where it is not
        d = labels_as_detections(queue.pop(0))
        figs = d[d.class_id != hand]
        return Detections(np.vstack([d.xyxy, figs.xyxy + [140, 0, 140, 0]]), np.ones(len(d) + len(figs)),
                          np.concatenate([d.class_id, figs.class_id]))

    report = evaluate(game, samples, shifted, names)
    assert report.cell_errors["phantom"] > 0 and report.cell_errors["missed"] == 0
    assert report.cell_errors["phantom"] + report.cell_errors["count"] + report.cell_errors["piece"] == \
        report.cells - report.cells_right


def test_a_figure_boxed_twice_is_read_once_as_tabletop_reads_a_cell(rendered: dict[str, Path]) -> None:
    """Each figure also boxed as another level a little less surely: the cells read as the
    referee reads them stay right (the surer box), the figure with every box counted falls;
    boxed twice as surely and well apart, two figures would be read."""
    game = "battle-grounds"
    samples = load_samples(rendered[game])
    names = names_of(rendered[game])
    hand = names.index("hand")

    def twice(shift: float, conf: float):  # type: ignore[no-untyped-def]
        queue = list(samples)

        def detect(frame: np.ndarray) -> Detections:
            d = labels_as_detections(queue.pop(0))
            figs = d[d.class_id != hand]
            other = (figs.class_id + 1) % hand
            echo = Detections(figs.xyxy + [shift, 0, shift, 0], np.full(len(figs), conf), other)
            return Detections(np.vstack([d.xyxy, echo.xyxy]), np.concatenate([d.confidence, echo.confidence]),
                              np.concatenate([d.class_id, echo.class_id]))

        return detect

    base = evaluate(game, samples, replay(samples), names)
    read = evaluate(game, samples, twice(1.0, 0.4), names)
    assert base.cell_accuracy is not None and base.cell_accuracy >= 0.99
    assert read.cell_accuracy == base.cell_accuracy and read.boards_right == base.boards_right
    assert read.figures()["cell_accuracy_every_box"] < 0.8 and read.boards_right_every_box == 0
    assert base.figures()["cell_accuracy_every_box"] == base.figures()["cell_accuracy"]
    assert "every box counted" in read.text()


def test_a_box_over_two_neighbours_is_the_two_read_as_one() -> None:
    """Two checkers side by side boxed once more, less surely, by a larger box over both
    (When Gods Collide at 768 px, live turn 164: its anchor fell in the first's square, read
    as two pieces there): still two checkers. A coin's box as large as those of the two
    that overlap it is a coin of its own; a ship over two coins is another kind of object;
    Battle Grounds' figures stand in front of one another and are left alone."""
    from vision.detect_cells import one_read

    pair = np.array([[401, 237, 416, 251], [390, 247, 405, 261], [386, 228, 402, 242], [392, 242, 413, 259]], float)
    sure = np.array([0.93, 0.88, 0.86, 0.72])
    keep = one_read("when-gods-collide", ["2,5", "1,5", "2,4", "2,5"], ["babylonian"] * 4, sure, pair)
    assert keep.tolist() == [True, True, True, False]
    three = np.array([[0, 10, 20, 40], [20, 10, 40, 40], [10, 0, 30, 30]], float)  # each a third under two
    keep = one_read("wormholes", ["2,2", "2,3", "1,2"], ["coin-suns", "coin-arms", "coin-moons"],
                    np.array([0.9, 0.9, 0.6]), three)
    assert keep.all()
    big = three + [[0, 0, 0, 0], [0, 0, 0, 0], [-3, -3, 3, 3]]  # the third box now 1.8 times theirs
    keep = one_read("wormholes", ["2,2", "2,3", "1,2"], ["coin-suns", "coin-arms", "coin-moons"],
                    np.array([0.9, 0.9, 0.6]), big)
    assert keep.tolist() == [True, True, False]
    keep = one_read("battle-grounds", ["2,2", "2,3", "1,2"], ["north-i", "north-ii", "north-cosmic"],
                    np.array([0.9, 0.9, 0.6]), big)
    assert keep.all()
    keep = one_read("wormholes", ["1,1", "1,2", "1,1"], ["coin-suns", "coin-arms", "pawn-suns"], sure[[0, 1, 3]],
                    pair[[0, 1, 3]])
    assert keep.all()
    keep = one_read("wormholes", ["1,1", "1,2", "1,1"], ["coin-suns", "coin-arms", "coin-moons"], sure[[0, 1, 3]],
                    pair[[0, 1, 3]])
    assert keep.tolist() == [True, True, False]


def test_facing_of_the_game_is_measured_against_the_engine(rendered: dict[str, Path]) -> None:
    game = "the-game"
    samples = load_samples(rendered[game])
    report = evaluate(game, samples, replay(samples), names_of(rendered[game]))
    assert report.cells == 0  # no grid
    assert len(report.facing_errors) > 0 and report.facing_missed == 0
    # keypoints turned half round: the error grows to around 180 degrees
    queue = list(samples)

    def turned(frame: np.ndarray) -> Detections:
        d = labels_as_detections(queue.pop(0))
        assert d.keypoints is not None
        kp = d.keypoints.copy()
        centre = d.anchors("center")
        kp[:, 0, :2] = 2 * centre - kp[:, 0, :2]
        return Detections(d.xyxy, d.confidence, d.class_id, None, kp)

    worse = evaluate(game, samples, turned, names_of(rendered[game]))
    assert worse.facing_median is not None and report.facing_median is not None
    assert worse.facing_median > report.facing_median + 90


def test_the_facing_reader_given_is_the_one_measured(rendered: dict[str, Path]) -> None:
    """``tabletop eval the-game`` measures the facing as the referee reads it: a reader that
    answers the truth scores 0 degrees, one that answers nothing counts every piece missed."""
    game = "the-game"
    samples = load_samples(rendered[game])
    names = names_of(rendered[game])

    def oracle(det: Detections, i: int, truth: dict, frame: np.ndarray) -> float:
        pieces = [p for p in truth["pieces"] if (p.get("extra") or {}).get("facing") is not None]
        best = max(pieces, key=lambda p: box_iou(np.array([p["box"]]), det.xyxy[i:i + 1])[0, 0])
        return float(best["extra"]["facing"])

    exact = evaluate(game, samples, replay(samples), names, facing=oracle)
    assert exact.facing_errors and max(exact.facing_errors) < 1e-6
    blind = evaluate(game, samples, replay(samples), names, facing=lambda *a: None)
    assert not blind.facing_errors and blind.facing_missed == len(exact.facing_errors)


def test_cell_centres_round_trip_through_the_frame(rendered: dict[str, Path]) -> None:
    for game in ("wormholes", "battle-grounds"):
        sample = load_samples(rendered[game])[0]
        assert sample.truth is not None
        geo = FrameGeometry.from_truth(sample.truth)
        cells = board_cells(game, sample.truth)
        pixels = geo.board_to_image(cells.centres)
        back = geo.image_to_board(pixels)
        assert np.abs(back - cells.centres).max() < 1e-3
        assert [cells.cell_at(tuple(c)) for c in back] == list(cells.labels)


def test_every_labelled_piece_on_the_board_sits_in_its_own_cell(rendered: dict[str, Path]) -> None:
    for game in ("wormholes", "battle-grounds"):
        for sample in load_samples(rendered[game]):
            assert sample.truth is not None
            cells = board_cells(game, sample.truth)
            for p in sample.truth["pieces"]:
                if isinstance(p["cell"], str) and p["board"] is not None:
                    assert cells.cell_at(tuple(p["board"])) == p["cell"], p


@pytest.mark.parametrize(
    ("recall", "precision", "expected"),
    [([1.0], [1.0], 1.0), ([0.5], [1.0], 0.5049), ([0.5, 1.0], [1.0, 0.5], 0.7525), ([0.0], [0.0], 0.0099)],
)
def test_average_precision_is_cocos_101_point_interpolation(recall: list[float], precision: list[float],
                                                            expected: float) -> None:
    assert average_precision(np.array(recall), np.array(precision)) == pytest.approx(expected, abs=1e-3)


def test_box_iou_table() -> None:
    a = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], float)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [100, 100, 101, 101]], float)
    assert box_iou(a, b).round(4).tolist() == [[1.0, 0.3333, 0.0], [0.0, 0.0, 0.0]]


def test_transfer_figures_on_photos_labelled_another_way(tmp_path: Path) -> None:
    import cv2

    from vision.detect_eval import transfer_figures

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
    # two real dice showing 3 and 6 pips (class k: k + 1 pips)
    (tmp_path / "labels" / "a.txt").write_text("2 0.25 0.5 0.1 0.2\n5 0.75 0.5 0.1 0.2\n")
    samples = load_samples(tmp_path)
    assert len(samples) == 1 and samples[0].size == (200, 100)
    names = ("d6-1", "d6-2", "d6-3", "d6-4", "d6-5", "d6-6", "hand")
    boxes = samples[0].boxes

    def detect(frame: np.ndarray) -> Detections:  # reads the 3, misreads the 6 as a 5, adds a hand
        return Detections(np.vstack([boxes, [[0, 0, 10, 10]]]), np.array([0.9, 0.8, 0.9]), np.array([2, 4, 6]))

    figures = transfer_figures(samples, detect, names, names[:6], {k: f"d6-{k + 1}" for k in range(6)})
    assert figures == {"objects": 2, "found": 1.0, "right": 0.5, "false_detections": 0, "false_on_an_object": 0,
                       "images": 1, "found_by_centre": 1.0, "right_by_centre": 0.5, "false_by_centre": 0,
                       "label_to_box": 1.0}

    def loose(frame: np.ndarray) -> Detections:  # the 3 boxed twice, once far too wide; a die where none lies
        wide = boxes[0] + np.array([-20.0, -15, 20, 15])
        return Detections(np.vstack([boxes, [wide], [[150, 80, 160, 95]]]), np.array([0.9, 0.8, 0.7, 0.6]),
                          np.array([2, 5, 2, 0]))

    figures = transfer_figures(samples, loose, names, names[:6], {k: f"d6-{k + 1}" for k in range(6)})
    assert (figures["found"], figures["false_detections"], figures["false_on_an_object"]) == (1.0, 2, 1)


def test_transfer_figures_match_loosely_labelled_objects_by_centre_too(tmp_path: Path) -> None:
    import cv2

    from vision.detect_eval import transfer_figures

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.zeros((200, 400, 3), np.uint8))
    # three dice labelled 40 px wide (a 4 at x 60, a 2 at x 200, a 5 at x 340), each die 24 px
    (tmp_path / "labels" / "a.txt").write_text("3 0.15 0.5 0.1 0.2\n1 0.5 0.5 0.1 0.2\n4 0.85 0.5 0.1 0.2\n")
    samples = load_samples(tmp_path)
    names = ("d6-1", "d6-2", "d6-3", "d6-4", "d6-5", "d6-6")

    def detect(frame: np.ndarray) -> Detections:
        tight = [[48, 88, 72, 112], [188, 88, 212, 112]]  # the 4 read right, the 2 read as a 3
        spanning = [[190, 60, 350, 140]]  # one box over the 2 and the 5: its centre (270) on neither
        beside = [[345, 70, 375, 95]]  # next to the 5: its centre in the 5's label, the 5's not in it
        return Detections(np.array(tight + spanning + beside, float), np.array([0.9, 0.8, 0.7, 0.6]),
                          np.array([3, 2, 4, 4]))

    figures = transfer_figures(samples, detect, names, names, {k: f"d6-{k + 1}" for k in range(6)})
    assert (figures["found"], figures["right"]) == (0.0, 0.0)  # IoU 0.36 with their labels
    assert (figures["found_by_centre"], figures["right_by_centre"]) == (round(2 / 3, 4), round(1 / 3, 4))
    assert figures["false_by_centre"] == 2
    assert figures["label_to_box"] == round(40 / 24, 4)


def test_eval_matches_loosely_labelled_pieces_by_centre_too(tmp_path: Path) -> None:
    """``tabletop eval`` on photos labelled loosely (each label 1.5 times the piece): boxes
    that fit the pieces miss IoU 0.5 with their labels, and are found by centre, one box to
    one piece; a hand's box finds no piece; the label-to-box ratio is reported."""
    import cv2

    from vision.detect_eval import evaluate

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.zeros((200, 400, 3), np.uint8))
    # two dice labelled 60 px wide at x 100 and x 300 (a 4 and a 2), and a hand at x 200
    (tmp_path / "labels" / "a.txt").write_text("3 0.25 0.5 0.15 0.3\n1 0.75 0.5 0.15 0.3\n6 0.5 0.2 0.1 0.1\n")
    samples = load_samples(tmp_path)
    names = ("d6-1", "d6-2", "d6-3", "d6-4", "d6-5", "d6-6", "hand")

    def detect(frame: np.ndarray) -> Detections:  # the dice boxed 40 px wide, the 2 read as a 3, the hand too
        return Detections(np.array([[80, 80, 120, 120], [280, 80, 320, 120], [180, 20, 220, 60]], float),
                          np.array([0.9, 0.9, 0.9]), np.array([3, 2, 6]))

    report = evaluate("d6", samples, detect, names)
    f = report.figures()
    assert (f["pieces_found"], f["pieces_found_right_class"]) == (0.0, 0.0)  # IoU 0.44 with their labels
    assert (f["pieces_found_by_centre"], f["pieces_found_by_centre_right_class"]) == (1.0, 0.5)
    assert f["label_to_box"] == 1.5
    assert "by centre" in report.text() and "labels 1.50 times the boxes' side" in report.text()

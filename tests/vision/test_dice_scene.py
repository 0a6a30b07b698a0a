"""The d6 finder's renders (``vision.render.dice_scene``): dice of many kinds, each labelled
with the pips of its top face and a box round every face seen."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision.render.dice_scene import CLASSES, _draw_die, _Style, render_dice, write_dice_dataset


def test_a_render_is_labelled_in_the_frame_and_the_same_for_the_same_seed() -> None:
    a, boxes = render_dice(np.random.default_rng([4, 2]), (320, 256))
    b, again = render_dice(np.random.default_rng([4, 2]), (320, 256))
    assert a.shape == (256, 320, 3) and np.array_equal(a, b) and boxes == again
    assert boxes
    for cls, x, y, w, h in boxes:
        assert 0 <= cls < len(CLASSES)
        assert 0 < w < 1 and 0 < h < 1
        assert 0 <= x - w / 2 and x + w / 2 <= 1 and 0 <= y - h / 2 and y + h / 2 <= 1


def _die(value: int, elevation: float) -> tuple[np.ndarray, np.ndarray]:
    img = np.full((120, 120, 3), 128, np.uint8)
    style = _Style((240.0, 240.0, 240.0), None, (0.0, 0.0, 0.0), 0.2, 0.55, 8.0, False)
    light = np.array([0.0, 0.0, 1.0])
    pts = _draw_die(img, (60.0, 70.0), 40.0, 0.0, np.radians(elevation), value, style, light, np.random.default_rng(0))
    return img, pts


def test_the_top_face_shows_its_pips_and_the_box_holds_the_die() -> None:
    """Seen from straight above, a die's top face is all that shows: as many dark pips as
    its value, inside the outline returned; at an angle, the side turned to the camera shows
    too and the outline reaches below the top face."""
    for value in range(1, 7):
        img, pts = _die(value, 90.0)
        dark = (img[..., 0] < 60).astype(np.uint8)
        count, _ = cv2.connectedComponents(dark)
        assert count - 1 == value, value
        ys, xs = np.nonzero(dark)
        assert pts[:, 0].min() <= xs.min() and xs.max() <= pts[:, 0].max()
        assert pts[:, 1].min() <= ys.min() and ys.max() <= pts[:, 1].max()
    _, above = _die(3, 90.0)
    _, angled = _die(3, 50.0)
    assert np.ptp(angled[:, 1]) > np.ptp(above[:, 1]) * 1.2


def test_a_dataset_is_written_for_ultralytics(tmp_path) -> None:  # type: ignore[no-untyped-def]
    summary = write_dice_dataset(tmp_path / "d6", 10, seed=5, size=(256, 256), val_every=5)
    root = tmp_path / "d6"
    assert sorted(p.name for p in (root / "images" / "val").iterdir()) == ["000000.jpg", "000005.jpg"]
    assert len(list((root / "labels" / "train").iterdir())) == 8
    doc = json.loads((root / "dataset.json").read_text())
    assert doc["game"] == "d6" and doc["count"] == 10 and doc["seed"] == 5 and doc["classes"] == list(CLASSES)
    assert summary["dice"] == sum(len(p.read_text().splitlines()) for p in (root / "labels").rglob("*.txt"))
    assert '5: "d6-6"' in (root / "data.yaml").read_text()


def test_dice_thrown_onto_a_frame_lie_where_asked_with_their_faces_and_boxes() -> None:
    """``throw_onto``: each die drawn at its point and size onto a copy of the frame, its box
    round its point, its face 1 to 6; the frame elsewhere untouched (up to the resampling)."""
    from vision.render.dice_scene import throw_onto

    frame = np.full((240, 320, 3), 90, np.uint8)
    places = [(80.0, 100.0, 16.0), (240.0, 150.0, 10.0)]
    out, thrown = throw_onto(frame, np.random.default_rng(3), places, 70.0)
    assert out.shape == frame.shape and np.array_equal(frame, np.full((240, 320, 3), 90, np.uint8))
    assert len(thrown) == 2
    for (x, y, edge), (_, (x0, y0, x1, y1)) in zip(places, thrown):
        assert x0 < x < x1 and y0 - edge < y < y1 + edge  # the top face's centre lies above the die's point
        assert 0.8 * edge <= x1 - x0 <= 2.0 * edge
        assert np.abs(out[int(y0):int(y1), int(x0):int(x1)].astype(int) - 90).max() > 40  # the die is there
    assert np.array_equal(out[5:40, 5:40], frame[5:40, 5:40])  # far from the dice: the frame's own pixels
    again, same = throw_onto(frame, np.random.default_rng(3), places, 70.0)
    assert np.array_equal(out, again) and same == thrown
    many = [(20.0 + 28 * (k % 10), 30.0 + 60 * (k // 10), 8.0) for k in range(30)]
    faces = [value for value, _ in throw_onto(frame, np.random.default_rng(4), many, 90.0)[1]]
    assert sorted(set(faces)) == [1, 2, 3, 4, 5, 6]  # every face comes up, and no other value


def test_dice_among_a_game_s_pieces_are_labelled_by_face_clear_of_the_pieces(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``write_dice_among`` with a class a face: each die labelled with its face, its box in
    the frame and clear of every piece's box in the render; the same seed gives the same files."""
    import yaml

    from vision.render.dice_scene import write_dice_among
    from vision.render.renderer import Renderer, RenderOptions

    path = write_dice_among("battle-grounds", tmp_path / "a", 4, 21, one_class=False, most=3)
    assert yaml.safe_load(path.read_text())["names"] == dict(enumerate(CLASSES))
    renderer = Renderer("battle-grounds", seed=21, options=RenderOptions(size=(640, 480)))
    dice = 0
    for i in range(4):
        pieces = [p["box"] for p in renderer.render(i).truth["pieces"]]
        for line in (tmp_path / "a" / "labels" / "train" / f"{i:06d}.txt").read_text().splitlines():
            c, x, y, w, h = (float(v) for v in line.split())
            assert 0 <= c < len(CLASSES) and 0 < x - w / 2 and x + w / 2 < 1 and 0 < y - h / 2 and y + h / 2 < 1
            box = (640 * (x - w / 2), 480 * (y - h / 2), 640 * (x + w / 2), 480 * (y + h / 2))
            assert all(box[2] < b[0] or b[2] < box[0] or box[3] < b[1] or b[3] < box[1] for b in pieces)
            dice += 1
    assert dice
    write_dice_among("battle-grounds", tmp_path / "b", 4, 21, one_class=False, most=3)
    for name in ("images/train/000002.jpg", "labels/train/000003.txt"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()

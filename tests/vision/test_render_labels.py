"""The renderer's labels match what it draws: boxes on the pixels of the piece, keypoints on
the dot, the board homography on the printed markers, hands on skin, stacks hiding what
lies beneath."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.markers import detect_markers
from vision.render import (
    Camera,
    Hand,
    Look,
    PieceLabel,
    Placement,
    Renderer,
    RenderOptions,
    ScenePlan,
    View,
)
from vision.render.camera import undistort_pixels
from vision.render.fakekit import PLAIN_SPEC, PlainKit
from vision.render.natural import ellipse_outline, make_natural
from vision.render.renderer import _environment

CLEAN = Look(noise=0.0, chroma_noise=0.0, vignette=0.0, shadow_strength=0.0, ambient=0.7, jpeg_quality=95,
             light_azimuth=45.0, light_elevation=60.0)


def _renderer(hands: float = 0.0) -> Renderer:
    return Renderer("plain", kit=PlainKit(), adapter=None, options=RenderOptions(hands=hands, clutter=False))


def _view(r: Renderer, elevation: float = 90.0, azimuth: float = 90.0, roll: float = 0.0,
          dist: tuple[float, ...] = (0, 0, 0, 0, 0), look: Look = CLEAN, size: tuple[int, int] = (640, 480)) -> View:
    _, extent = r.composer.faces.board_geometry(None)
    centre = (extent[0] / 2, extent[1] / 2)
    cam = Camera.looking_at(centre, elevation, azimuth, roll, 700.0, 60.0, size, dist)
    env = _environment(np.random.default_rng(4), extent, outdoor=False)
    return View(cam, look, env, 0.0, 1)


def _at(r: Renderer, u: float, v: float) -> tuple[float, float]:
    board_to_mm, _ = r.composer.faces.board_geometry(None)
    q = board_to_mm @ np.array([u, v, 1.0])
    return float(q[0] / q[2]), float(q[1] / q[2])


def _piece(r: Renderer, kind: str, u: float, v: float, key: str = "p", rotation: float = 0.0,
           z: float = 0.0, group: str = "") -> Placement:
    x, y = _at(r, u, v)
    return Placement(kind, x, y, key, PieceLabel(kind, key, None, f"{u},{v}", (u, v)), rotation=rotation, z=z,
                     group=group)


def _red_mask(image: np.ndarray) -> np.ndarray:
    b, g, rr = (image[..., i].astype(int) for i in range(3))
    return (rr > 120) & (rr > g + 60) & (rr > b + 60)


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union


def _pixel_box(mask: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(mask)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.mark.parametrize(
    "elevation, azimuth, roll, dist",
    [
        (90.0, 90.0, 0.0, (0, 0, 0, 0, 0)),
        (50.0, 130.0, 8.0, (0, 0, 0, 0, 0)),
        (40.0, 300.0, -5.0, (-0.15, 0.02, 0.0005, -0.0004, 0)),
        (70.0, 20.0, 12.0, (0.05, 0, 0, 0, 0)),
    ],
)
def test_the_box_of_a_red_disc_bounds_its_red_pixels(elevation: float, azimuth: float, roll: float,
                                                     dist: tuple[float, ...]) -> None:
    r = _renderer()
    view = _view(r, elevation, azimuth, roll, dist)
    plan = ScenePlan(None, [_piece(r, "red-disc", 5.5, 2.5, rotation=20.0)])
    out = r.render_plan(plan, view, hands=[])
    assert len(out.labels) == 1
    label = out.labels[0]
    assert out.class_names[label.class_id] == "red-disc"
    red = _red_mask(out.image)
    assert red.sum() > 200
    pixels = _pixel_box(red)
    # the label is the box of the whole solid (top and flanks); the flanks are a darker
    # red that the mask partly misses, so the box may be a little larger, never smaller
    assert _iou(label.box, pixels) > 0.8
    assert label.box[0] <= pixels[0] + 1.5 and label.box[1] <= pixels[1] + 1.5
    assert label.box[2] >= pixels[2] - 1.5 and label.box[3] >= pixels[3] - 1.5
    # and nothing red lies outside it
    x1, y1, x2, y2 = (int(round(v)) for v in label.box)
    outside = red.copy()
    outside[max(0, y1 - 1):y2 + 1, max(0, x1 - 1):x2 + 1] = False
    assert outside.sum() == 0


def test_a_piece_half_out_of_the_frame_is_clipped_or_dropped() -> None:
    r = _renderer()
    view = _view(r)
    w, _ = view.camera.size
    # find board x where the image's right edge lies, and put a disc across it
    h = view.camera.plane_homography(view.environment.board_height)
    board_to_mm, _ = r.composer.faces.board_geometry(None)
    inv = np.linalg.inv(h @ board_to_mm)
    edge = inv @ np.array([w - 1, 240.0, 1.0])
    u, v = edge[0] / edge[2], edge[1] / edge[2]
    out = r.render_plan(ScenePlan(None, [_piece(r, "red-disc", u, v)]), view, hands=[])
    for label in out.labels:
        assert 0 <= label.box[0] < label.box[2] <= w
    truth = out.truth["pieces"][0]
    assert truth["box"][2] <= w


def test_board_homography_maps_the_printed_markers_onto_the_detected_ones() -> None:
    r = _renderer()
    for dist in ((0, 0, 0, 0, 0), (-0.12, 0.01, 0, 0, 0)):
        view = _view(r, 65.0, 110.0, 6.0, dist)
        out = r.render_plan(ScenePlan(None, []), view, hands=[])
        h = np.asarray(out.truth["board"]["board_to_image"])
        seen = detect_markers(out.image)
        assert set(seen.ids.tolist()) >= set(PLAIN_SPEC.ids)
        cam = view.camera
        for marker_id in PLAIN_SPEC.ids:
            board = PLAIN_SPEC.marker_corners(marker_id)
            q = (h @ np.c_[board, np.ones(4)].T).T
            predicted = q[:, :2] / q[:, 2:3]
            found = seen.corners_of(marker_id)
            if cam.has_distortion():
                found = undistort_pixels(found, cam.K, cam.dist)  # the homography maps undistorted pixels
            assert np.abs(predicted - found).max() < 1.5, (marker_id, predicted, found)


def test_board_corners_in_the_truth_are_where_the_camera_puts_them() -> None:
    r = _renderer()
    view = _view(r, 55.0, 70.0, 0.0, (-0.1, 0, 0, 0, 0))
    out = r.render_plan(ScenePlan(None, []), view, hands=[])
    corners = np.asarray(out.truth["board"]["corners_in_image"])
    h = np.asarray(out.truth["board"]["board_to_image"])
    q = (h @ np.array([[0, 0, 1], [8, 0, 1], [8, 8, 1], [0, 8, 1]], float).T).T
    ideal = q[:, :2] / q[:, 2:3]
    undistorted = undistort_pixels(corners, view.camera.K, view.camera.dist)
    assert np.abs(undistorted - ideal).max() < 0.05


def test_a_stack_hides_the_counters_beneath_but_labels_the_visible_ones() -> None:
    r = _renderer()
    view = _view(r, 75.0, 90.0)
    stack = [_piece(r, "blue-square", 3.5, 3.5, key=f"s{k}", z=2.0 * k, group="stack") for k in range(3)]
    # each counter a little off the one below, as players stack them
    stack = [Placement(p.kind, p.x + 2.5 * k, p.y - 2.0 * k, p.key, p.label, p.rotation, p.z, p.face, p.group)
             for k, p in enumerate(stack)]
    out = r.render_plan(ScenePlan(None, stack), view, hands=[])
    visible = [p["visible"] for p in out.truth["pieces"]]
    assert visible[2] > 0.95  # the top counter is whole
    assert visible[0] < 0.6 and visible[1] < 0.6  # the lower ones show only a rim
    assert all(v > 0.0 for v in visible)


def test_a_piece_under_a_hand_is_marked_and_the_hand_is_labelled() -> None:
    r = _renderer()
    view = _view(r, 80.0, 90.0)
    piece = _piece(r, "red-disc", 4.0, 4.0)
    hand = Hand(tip=(piece.x, piece.y + 10.0), height=40.0, from_angle=90.0, skin=(60, 140, 230),
                sleeve=(30, 30, 30))
    out = r.render_plan(ScenePlan(None, [piece]), view, hands=[hand])
    assert out.truth["pieces"][0]["under_hand"] is True
    hand_labels = [lab for lab in out.labels if out.class_names[lab.class_id] == "hand"]
    assert len(hand_labels) == 1
    x1, y1, x2, y2 = (int(v) for v in hand_labels[0].box)
    b, g, rr = (out.image[y1:y2, x1:x2, i].astype(int) for i in range(3))
    skin = (rr > g + 25) & (g > b + 15)
    assert skin.mean() > 0.25  # the box is on the hand


def test_the_front_dot_keypoint_lies_on_the_dot() -> None:
    r = _renderer()
    view = _view(r, 60.0, 120.0, 0.0, (-0.08, 0, 0, 0, 0))
    outline = ellipse_outline(40.0, 28.0)
    drawn = make_natural("stone", outline, seed=2, dot=(255, 40, 40))  # a blue dot (BGR)
    x, y = _at(r, 4.0, 4.0)
    stone = Placement("red-disc", x, y, "stone", PieceLabel("red-disc", "R1"), rotation=35.0, drawn=drawn)
    r.keypoints = True
    out = r.render_plan(ScenePlan(None, [stone]), view, hands=[])
    assert len(out.labels) == 1 and out.labels[0].keypoint is not None
    kx, ky, vis = out.labels[0].keypoint
    assert vis == 2
    patch = out.image[int(ky) - 1:int(ky) + 2, int(kx) - 1:int(kx) + 2].reshape(-1, 3).astype(int)
    assert np.all(patch[:, 0] > patch[:, 2] + 60)  # blue
    # the dot is at the front: ahead of the box centre along the stone's facing
    assert "keypoint" in out.truth["pieces"][0]


def test_yolo_lines_are_normalised_boxes_and_pose_keypoints() -> None:
    r = _renderer()
    view = _view(r, 70.0, 90.0)
    out = r.render_plan(ScenePlan(None, [_piece(r, "red-disc", 2.5, 2.5), _piece(r, "blue-square", 5.5, 5.5, "b")]),
                        view, hands=[])
    lines = out.yolo_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        fields = line.split()
        assert len(fields) == 5
        assert all(0.0 <= float(v) <= 1.0 for v in fields[1:])
    r.keypoints = True
    out = r.render_plan(ScenePlan(None, [_piece(r, "red-disc", 2.5, 2.5)]), view, hands=[])
    assert len(out.yolo_text().split()) == 8  # class, box, keypoint (0 0 0: this piece has no dot)


def test_standing_piece_box_covers_its_figure() -> None:
    r = _renderer()
    view = _view(r, 35.0, 90.0)
    pawn = Placement("green-pawn", *_at(r, 4.0, 4.0), "pawn", PieceLabel("green-pawn"), face="front")
    out = r.render_plan(ScenePlan(None, [pawn]), view, hands=[])
    assert len(out.labels) == 1
    b, g, rr = (out.image[..., i].astype(int) for i in range(3))
    green = (g > 110) & (g > rr + 50) & (g > b + 40)
    pixels = _pixel_box(green)
    assert _iou(out.labels[0].box, pixels) > 0.75
    # it stands: taller than wide on the image from a low camera
    x1, y1, x2, y2 = out.labels[0].box
    assert (y2 - y1) > (x2 - x1)


def test_camera_projection_agrees_with_the_plane_homography() -> None:
    cam = Camera.looking_at((100.0, 50.0), 48.0, 200.0, 7.0, 700.0, 65.0, (800, 600))
    pts = np.array([[0, 0], [200, 10], [150, 120], [30, 90]], float)
    h = cam.plane_homography(0.0)
    q = (h @ np.c_[pts, np.ones(4)].T).T
    assert np.allclose(q[:, :2] / q[:, 2:3], cam.project(np.c_[pts, np.zeros(4)]), atol=1e-6)
    raised = cam.plane_homography(5.0)
    q = (raised @ np.c_[pts, np.ones(4)].T).T
    assert np.allclose(q[:, :2] / q[:, 2:3], cam.project(np.c_[pts, np.full(4, -5.0)]), atol=1e-6)
    assert cam.depth([[100.0, 50.0, 0.0]])[0] == pytest.approx(700.0)
    assert math.isclose(float(cam.centre[2]), -700.0 * math.sin(math.radians(48.0)), rel_tol=1e-9)


def test_distortion_maps_follow_the_lens() -> None:
    cam = Camera.looking_at((0.0, 0.0), 60.0, 90.0, 0.0, 600.0, 70.0, (640, 480), (-0.2, 0.03, 0.0, 0.0, 0.0))
    K, size, offset = cam.canvas()
    mx, my = cam.distortion_maps(offset)
    world = np.array([[40.0, -30.0, 0.0], [-80.0, 60.0, 0.0], [120.0, 90.0, 0.0]])
    final = cam.project(world)
    ideal = cam.project_ideal(world, K)
    for (u, v), (iu, iv) in zip(final, ideal):
        if 0 <= u < 639 and 0 <= v < 479:
            assert abs(mx[int(round(v)), int(round(u))] - iu) < 0.3
            assert abs(my[int(round(v)), int(round(u))] - iv) < 0.3
    assert size[0] > 640 and size[1] > 480  # barrel distortion needs a wider canvas


def test_the_random_camera_keeps_the_horizon_out_of_view() -> None:
    from vision.render.camera import sample_camera

    rng = np.random.default_rng(11)
    for _ in range(40):
        cam = sample_camera(rng, (400.0, 500.0), (640, 480))
        assert 30.0 <= cam.meta["elevation"] <= 90.0
        assert cam.sees_only_table(20000.0)


def test_the_clean_look_changes_nothing_but_the_jpeg() -> None:
    from vision.render.effects import develop

    image = np.random.default_rng(0).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    assert np.array_equal(develop(image, CLEAN), image)
    noisy = develop(image, Look(noise=4.0, jpeg_quality=80))
    assert not np.array_equal(noisy, image)
    assert np.abs(noisy.astype(int) - image.astype(int)).mean() < 20


def test_pieces_alike_in_depth_are_drawn_in_the_plan_s_order() -> None:
    """Two counters of one group at one height (laid out flat, as a combat round is shown)
    are drawn in the order the plan lists them, whatever their objects' addresses: the same
    plan renders the same picture in every run."""
    from types import SimpleNamespace

    from vision.render.compose import Composer
    from vision.render.scene import Placement

    ctx = SimpleNamespace(cam=SimpleNamespace(depth=lambda pts: np.zeros(len(pts))))
    for _ in range(20):
        a, b = (Placement("counter", float(x), 0.0, f"k{x}", None, group="hex-0101") for x in (0, 30))
        assert Composer._order(None, ctx, [a, b]) == [a, b]  # type: ignore[arg-type]
        assert Composer._order(None, ctx, [b, a]) == [b, a]  # type: ignore[arg-type]


def test_pieces_of_one_group_alike_in_height_are_drawn_far_to_near() -> None:
    """Two pieces of one group at one height but apart (two Wormholes ships sharing a cell
    stand side by side in it): the one farther from the camera is drawn first, so the
    nearer covers it, whichever the plan lists first; the plan's order only for a tie."""
    from types import SimpleNamespace

    from vision.render.compose import Composer
    from vision.render.scene import Placement

    ctx = SimpleNamespace(cam=SimpleNamespace(depth=lambda pts: np.asarray(pts, float).reshape(-1, 3)[:, 0]))
    near, far = (Placement("pawn", float(x), 0.0, f"s{x}", None, group="cell-a1", face="front") for x in (0, 6))
    assert Composer._order(None, ctx, [near, far]) == [far, near]  # type: ignore[arg-type]
    assert Composer._order(None, ctx, [far, near]) == [far, near]  # type: ignore[arg-type]

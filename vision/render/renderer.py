"""Camera views of legal positions, with exact labels: the renderer's front door.

:class:`Renderer` ties the parts together for one game: a position from the engine
(:mod:`~vision.render.positions`), pieces placed by the game's scene adapter
(:mod:`~vision.render.scenes`), a room, a camera and a light (:class:`View`), hands, the
compositor (:mod:`~vision.render.compose`) and the sensor (:mod:`~vision.render.effects`).
It returns a :class:`Rendered`: the image, its YOLO labels and the ground truth.

Everything random is drawn from ``numpy`` generators seeded by ``(seed, index)``, so image
``index`` of a dataset is the same whatever else is rendered before it.

For frame sequences (the same table seen while a hand moves a piece), make one
:class:`View` with :meth:`Renderer.new_view` and call :meth:`Renderer.render_state` for
each frame with the same view: pieces that do not move keep their exact place.

>>> from vision.render.fakekit import PlainKit
>>> r = Renderer("plain", kit=PlainKit(), adapter=None)
>>> r.class_names[:2]
['red-disc', 'blue-square']
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.render import clutter
from vision.render.camera import Camera, CameraRanges, sample_camera
from vision.render.compose import Composer, Composite
from vision.render.effects import Look, develop, sample_look
from vision.render.positions import PositionSampler, Sampled
from vision.render.scene import Environment, Hand, PieceLabel, Placement, ScenePlan
from vision.render.scenes import Placer, adapter_for
from vision.render.textures import FLOORS, INDOOR, MM_PER_PIXEL, OUTDOOR

__all__ = ["RenderOptions", "View", "Label", "Rendered", "Renderer", "SIZES", "HAND_CLASS"]

#: Image sizes drawn when the size is left to chance (``RenderOptions(size=None)``).
SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 720), (1280, 960), (1600, 900), (1920, 1080))
HAND_CLASS = "hand"
_SKIN = [(95, 130, 185), (120, 155, 205), (150, 180, 225), (70, 100, 150), (45, 70, 110), (60, 90, 135),
         (130, 165, 215), (35, 50, 80)]
_SLEEVE = [(40, 40, 40), (120, 70, 30), (50, 50, 140), (200, 200, 200), (40, 100, 40), (30, 30, 90), (150, 150, 150)]


@dataclass(frozen=True)
class RenderOptions:
    """What a dataset varies and how much.

    ``size``: (width, height), or ``None`` for a size drawn from :data:`SIZES` per image;
    ``hands``: the share of images with a hand (or two) over the table; ``min_visible``:
    the share of a piece that must be seen for a YOLO label (pieces hidden more than
    that stay in the ground truth, marked); ``outdoor``: ``None`` lets the game decide
    (The Game outdoors, the others indoors); ``clutter``: things lying about that are not
    pieces (mugs, paper, stray stones); ``laid_out``: the share of stacks laid out side by side
    instead, where the game's scene does so (OneWorld's children, as a combat round shows them).
    """

    size: tuple[int, int] | None = (640, 480)
    hands: float = 0.3
    min_visible: float = 0.2
    outdoor: bool | None = None
    clutter: bool = True
    camera: CameraRanges = field(default_factory=CameraRanges)
    laid_out: float = 0.0


@dataclass(frozen=True)
class View:
    """One photograph's circumstances, apart from the position: camera, light, room, and
    the players' habits (``sloppiness``, ``scene_seed`` fix where every piece lies within
    its cell)."""

    camera: Camera
    look: Look
    environment: Environment
    sloppiness: float
    scene_seed: int
    layout: Any = None


@dataclass(frozen=True)
class Label:
    """One YOLO label: class, box (x1, y1, x2, y2 pixels), optional keypoint (x, y, v)."""

    class_id: int
    box: tuple[float, float, float, float]
    keypoint: tuple[float, float, int] | None = None

    def yolo(self, size: tuple[int, int], keypoints: bool) -> str:
        w, h = size
        x1, y1, x2, y2 = self.box
        cx, cy, bw, bh = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h
        text = f"{self.class_id} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}"
        if keypoints:
            kx, ky, v = self.keypoint if self.keypoint is not None else (0.0, 0.0, 0)
            text += f" {kx / w:.6f} {ky / h:.6f} {v}" if v else " 0.000000 0.000000 0"
        return text


@dataclass
class Rendered:
    """An image with its labels and ground truth (``truth`` is JSON-ready)."""

    image: np.ndarray
    jpeg_quality: int
    labels: list[Label]
    truth: dict[str, Any]
    class_names: list[str]
    keypoints: bool

    def yolo_text(self) -> str:
        size = (self.image.shape[1], self.image.shape[0])
        return "".join(label.yolo(size, self.keypoints) + "\n" for label in self.labels)


class Renderer:
    """Renders camera views of ``game``.

    ``kit``: the game's printable kit (default: :func:`vision.artwork.get_kit`);
    ``record``: a game record's text to draw positions from besides random playouts;
    ``adapter``: the scene adapter's ``(layout, plan)`` pair (default: the game's own
    module in :mod:`vision.render.scenes`; ``None`` for a kit without a game, whose
    scenes are passed in to :meth:`render_plan`).
    """

    def __init__(self, game: str, kit: Any = None, seed: int = 0, options: RenderOptions | None = None,
                 record: str | None = None, adapter: Any = "default") -> None:
        self.game_name = game
        if kit is None:
            from vision.artwork import get_kit

            kit = get_kit(game)
        self.kit = kit
        self.seed = int(seed)
        self.options = options or RenderOptions()
        # boards are drawn once, fine enough for a close-up at the largest image size
        longest = max(self.options.size) if self.options.size else max(max(s) for s in SIZES)
        self.composer = Composer(kit, board_ppm=float(np.clip(2.5 * longest / 640, 2.5, 5.0)))
        if adapter == "default":
            import importlib

            from vision.render.scenes import ADAPTERS

            adapter_for(game)  # an unknown game fails here
            module = importlib.import_module(ADAPTERS[game])
            adapter = (module.layout, module.plan)
        self.adapter: tuple[Callable[..., Any], Callable[..., ScenePlan]] | None = adapter
        self.sampler = PositionSampler(game, seed, record) if adapter is not None else None
        natural = [n for n, k in kit.pieces.items() if k.shape == "natural"]
        self.keypoints = bool(natural)
        self.class_names = list(kit.pieces) + [HAND_CLASS]
        self._class_id = {n: i for i, n in enumerate(self.class_names)}
        self.outdoor = self.keypoints if self.options.outdoor is None else self.options.outdoor

    def warm_up(self) -> None:
        """Make now what the first images would otherwise make on the way: the texture bank
        of the surfaces this game is shown on, and the sensor's noise bank."""
        from vision.render.effects import _noise_bank

        for kind in (OUTDOOR if self.outdoor else INDOOR + FLOORS):
            for variant in range(self.composer.textures.variants):
                self.composer.textures.get(kind, variant)
        _noise_bank()

    # -- a dataset's image ------------------------------------------------------------------
    def render(self, index: int) -> Rendered:
        """Image ``index`` of this renderer's dataset: a sampled position, view and hands."""
        if self.sampler is None:
            raise ValueError("this renderer has no game adapter: use render_plan")
        sampled = self.sampler.sample(index)
        rng = np.random.default_rng([self.seed, zlib.crc32(self.game_name.encode()), index, 1])
        layout = self.adapter[0](sampled.game, sampled.state)  # type: ignore[index]
        focus = None
        if self.keypoints and rng.random() < 0.8:
            # natural pieces are small on a large field: often frame the pieces, not the field
            probe = self.new_view(rng, layout)
            plan = self.adapter[1](sampled.game, sampled.state, self._placer(probe))  # type: ignore[index]
            pts = np.array([[p.x, p.y] for p in plan.pieces if p.label is not None])
            if len(pts):
                pad = float(rng.uniform(40, 160))
                lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
                focus = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
            view = self.new_view(rng, layout, focus=focus, base=probe)
        else:
            view = self.new_view(rng, layout)
        return self.render_state(sampled.game, sampled.state, view, rng=rng, source=sampled)

    def new_view(self, rng: np.random.Generator, layout: Any = None, size: tuple[int, int] | None = None,
                 focus: tuple[float, float, float, float] | None = None, base: View | None = None) -> View:
        """A random camera, light and room for a board of ``layout``. ``focus``: the part of
        the table (x0, y0, x1, y1 mm) to frame instead of the whole board; ``base``: keep
        this view's room and players' habits, draw only a new camera and light."""
        size = size or (base.camera.size if base else None) or self.options.size or SIZES[int(rng.integers(len(SIZES)))]
        _, extent = self.composer.faces.board_geometry(layout)
        outdoor = self.outdoor
        env = base.environment if base else _environment(rng, extent, outdoor)
        scene_seed = base.scene_seed if base else int(rng.integers(0, 2**31 - 1))
        sloppiness = base.sloppiness if base else float(rng.uniform(0.15, 1.0))
        # frame the board, and sometimes only a part of it (a close-up)
        w, h = extent
        if focus is not None:
            fx0, fy0, fx1, fy1 = focus
            cam = sample_camera(rng, (w, h), size, self.options.camera, ((fx0 + fx1) / 2, (fy0 + fy1) / 2),
                                (fx1 - fx0, fy1 - fy0))
        elif rng.random() < 0.15:
            frac = rng.uniform(0.45, 0.7)
            cx, cy = rng.uniform(w * frac / 2, w - w * frac / 2), rng.uniform(h * frac / 2, h - h * frac / 2)
            cam = sample_camera(rng, (w, h), size, self.options.camera, (cx, cy), (w * frac, h * frac))
        else:
            cam = sample_camera(rng, (w, h), size, self.options.camera, (w / 2, h / 2), (w * 1.12, h * 1.12))
        look = sample_look(rng, outdoor)
        return View(cam, look, env, sloppiness, scene_seed, layout)

    # -- any position -------------------------------------------------------------------------
    def render_state(self, game: Any, state: Any, view: View, hands: list[Hand] | None = None,
                     held: str | None = None, rng: np.random.Generator | None = None,
                     source: Sampled | None = None) -> Rendered:
        """Render ``state`` of the engine ``game`` as seen in ``view``.

        ``hands``: the hands over the table (``None``: drawn at random for a share
        ``options.hands`` of images); ``held``: the key of a piece a hand is lifting (its
        piece id, e.g. ``"B3"``), drawn in the first hand's fingers.
        """
        assert self.adapter is not None, "this renderer has no game adapter"
        rng = rng or np.random.default_rng([self.seed, view.scene_seed, 2])
        placer = self._placer(view)
        plan = self.adapter[1](game, state, placer)
        if plan.dice_area is None:
            plan.dice_area = placer.dice_area(np.random.default_rng([view.scene_seed, 3]))
        truth_extra = {"position": game.state_to_json(state), "game": self.game_name}
        if source is not None:
            truth_extra["position_source"] = source.to_json()
        return self.render_plan(plan, view, hands=hands, held=held, rng=rng, truth=truth_extra)

    def view_for(self, game: Any, state: Any, rng: np.random.Generator) -> View:
        """A random view of the board ``state`` is played on (its layout: When Gods Collide's
        tiles, the Battle Grounds board, The Game's field)."""
        assert self.adapter is not None, "this renderer has no game adapter"
        return self.new_view(rng, self.adapter[0](game, state))

    def table_point(self, view: View, u: float, v: float) -> tuple[float, float]:
        """Board point ``(u, v)`` (board units) on the table, in mm: where to put a
        :class:`Hand`'s fingertips over a cell."""
        board_to_mm, _ = self.composer.faces.board_geometry(view.layout)
        q = board_to_mm @ np.array([u, v, 1.0])
        return float(q[0] / q[2]), float(q[1] / q[2])

    def _placer(self, view: View) -> Placer:
        return Placer(self.kit, view.layout, view.scene_seed, view.sloppiness,
                      self.composer.faces.board_geometry(view.layout), laid_out=self.options.laid_out)

    def render_plan(self, plan: ScenePlan, view: View, hands: list[Hand] | None = None, held: str | None = None,
                    rng: np.random.Generator | None = None, truth: dict[str, Any] | None = None) -> Rendered:
        """Render pieces already placed (``plan``) as seen in ``view``."""
        rng = rng or np.random.default_rng([self.seed, view.scene_seed, 2])
        pieces = list(plan.pieces)
        env = view.environment
        cam = view.camera
        if hands is None:
            hands = self._random_hands(rng, pieces, view) if rng.random() < self.options.hands else []
            if hands and held is None and rng.random() < 0.3:
                movable = [p for p in pieces if p.label is not None and p.label.piece and not _is_die(self.kit, p)]
                if movable:
                    held = movable[int(rng.integers(len(movable)))].key
        if held is not None and hands:
            pieces = self._lift(pieces, held, hands[0])
        keep = _bounds(pieces, plan.dice_area, self.composer.faces.board_geometry(view.layout)[1])
        area = None
        if env.table is not None:  # on the table, a hand's breadth from its edge
            area = (env.table[0] + 60, env.table[1] + 60, env.table[2] - 60, env.table[3] - 60)
        items = clutter.scatter(np.random.default_rng([view.scene_seed, 5]), keep, env.outdoor, area=area) \
            if self.options.clutter else []
        env = replace(env, clutter=tuple(items))
        composite = self.composer.draw(cam, view.look, env, view.layout, pieces, plan.decals, hands)
        # the sensor's noise differs from frame to frame, even when the view stays
        frame_noise = np.random.default_rng([view.look.noise_seed, int(rng.integers(0, 2**31 - 1))])
        image = develop(composite.image, view.look, frame_noise)
        labels, pieces_json, hands_json = self._labels(composite, cam)
        h_board = self._board_homography(view)
        out_truth: dict[str, Any] = dict(truth or {})
        out_truth.update({
            "image_size": [cam.size[0], cam.size[1]],
            "camera": cam.to_json(),
            "board": {
                "units": self.kit.units,
                "size": list(self.kit.board_size(view.layout)),
                "board_to_image": [[round(float(v), 9) for v in row] for row in h_board],
                "homography_note": "board units -> pixels of the undistorted image (undistort with the camera's "
                                   "intrinsics and distortion before applying it)",
                "corners_in_image": [[round(float(v), 3) for v in p] for p in self._board_corners(view)],
            },
            "pieces": pieces_json,
            "hands": hands_json,
            "look": view.look.to_json(),
            "environment": {"outdoor": env.outdoor, "surface": env.surface, "clutter": len(env.clutter),
                            "sloppiness": round(view.sloppiness, 4)},
        })
        return Rendered(image, view.look.jpeg_quality, labels, out_truth, self.class_names, self.keypoints)

    # -- helpers ------------------------------------------------------------------------------
    def _board_homography(self, view: View) -> np.ndarray:
        board_to_mm, _ = self.composer.faces.board_geometry(view.layout)
        height = view.environment.board_height if view.environment.show_board else 0.0
        h = view.camera.plane_homography(height) @ board_to_mm
        return h / h[2, 2]

    def _board_corners(self, view: View) -> np.ndarray:
        """The board's corners (board units (0, 0) to its size) in the final image."""
        board_to_mm, _ = self.composer.faces.board_geometry(view.layout)
        w, h = self.kit.board_size(view.layout)
        pts = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float)
        mm = (board_to_mm @ pts.T).T
        mm = mm[:, :2] / mm[:, 2:3]
        height = view.environment.board_height if view.environment.show_board else 0.0
        return view.camera.project(np.column_stack([mm, np.full(4, -height)]))

    def _labels(self, comp: Composite, cam: Camera) -> tuple[list[Label], list[dict[str, Any]], list[dict[str, Any]]]:
        w, h = cam.size
        labels: list[Label] = []
        out: list[dict[str, Any]] = []
        for rec in comp.pieces:
            p = rec.placement
            lab = p.label
            assert lab is not None
            pts = cam.project(rec.hull)
            full = (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))
            box = (max(0.0, full[0]), max(0.0, full[1]), min(float(w), full[2]), min(float(h), full[3]))
            inside = max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])
            area = max(1e-6, (full[2] - full[0]) * (full[3] - full[1]))
            visible = rec.visible_px / rec.drawn_px if rec.drawn_px else 0.0
            under_hand = p.held or (rec.hand_px > 0.1 * max(1, rec.drawn_px))
            keypoint = None
            if rec.keypoint is not None:
                kx, ky = cam.project(rec.keypoint[None, :])[0]
                v = 0
                if 0 <= kx < w and 0 <= ky < h:
                    v = 2 if self._dot_seen(comp, cam, rec) else 1
                keypoint = (float(kx), float(ky), v)
            in_yolo = (visible >= self.options.min_visible and inside >= 0.3 * area
                       and box[2] - box[0] >= 3 and box[3] - box[1] >= 3)
            cls = lab.cls
            if in_yolo:
                labels.append(Label(self._class_id[cls], box, keypoint))
            item: dict[str, Any] = {
                "class": cls,
                "class_id": self._class_id[cls],
                "piece": lab.piece,
                "side": lab.side,
                "cell": lab.cell,
                "board": [round(lab.board[0], 4), round(lab.board[1], 4)] if lab.board else None,
                "box": [round(v, 2) for v in box],
                "visible": round(visible, 4),
                "in_labels": in_yolo,
                "under_hand": bool(under_hand),
                "held": bool(p.held),
            }
            if keypoint is not None:
                item["keypoint"] = [round(keypoint[0], 2), round(keypoint[1], 2), keypoint[2]]
            if lab.extra:
                item["extra"] = lab.extra
            out.append(item)
        hands_json = []
        for outline in comp.hands:
            pts = cam.project(outline)
            x1, y1 = max(0.0, float(pts[:, 0].min())), max(0.0, float(pts[:, 1].min()))
            x2, y2 = min(float(w), float(pts[:, 0].max())), min(float(h), float(pts[:, 1].max()))
            if x2 - x1 < 4 or y2 - y1 < 4:
                continue
            box = (x1, y1, x2, y2)
            labels.append(Label(self._class_id[HAND_CLASS], box, None))
            hands_json.append({"class": HAND_CLASS, "box": [round(v, 2) for v in box]})
        return labels, out, hands_json

    def _dot_seen(self, comp: Composite, cam: Camera, rec: Any) -> bool:
        """Whether the front dot's pixel still belongs to its piece (not hidden)."""
        K = comp.canvas_K
        c = rec.keypoint @ cam.R.T + cam.t
        if c[2] <= 0:
            return False
        u, v = (K @ c)[:2] / (K @ c)[2]
        iu, iv = int(round(u)), int(round(v))
        ids = comp.id_buffer
        if not (0 <= iv < ids.shape[0] and 0 <= iu < ids.shape[1]):
            return False
        return bool(ids[iv, iu] == rec.index)

    def _random_hands(self, rng: np.random.Generator, pieces: list[Placement], view: View) -> list[Hand]:
        _, (w, h) = self.composer.faces.board_geometry(view.layout)
        targets = [p for p in pieces if p.label is not None]
        hands = []
        for k in range(1 if rng.random() < 0.85 else 2):
            if targets and rng.random() < 0.75:
                t = targets[int(rng.integers(len(targets)))]
                tip = (t.x + rng.normal(0, 8), t.y + rng.normal(0, 8))
            else:
                tip = (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h)
            # the arm comes from the photographer's side most often, else from another seat
            base = view.camera.meta.get("azimuth", 90.0)
            if k == 1 or rng.random() < 0.35:
                base += float(rng.choice([90.0, 180.0, 270.0]))
            hands.append(Hand(
                tip=(float(tip[0]), float(tip[1])),
                height=float(rng.uniform(12, 90)),
                from_angle=float(base + rng.normal(0, 25)),
                spread=float(rng.uniform(0, 1)),
                skin=_SKIN[int(rng.integers(len(_SKIN)))],
                sleeve=_SLEEVE[int(rng.integers(len(_SLEEVE)))],
                scale=float(rng.uniform(0.8, 1.1)),
                pinch=bool(rng.random() < 0.5),
                left=bool(rng.random() < 0.3),
                cuff=float(rng.choice([0.0, rng.uniform(40, 120), rng.uniform(150, 300)])),
            ))
        return hands

    def _lift(self, pieces: list[Placement], key: str, hand: Hand) -> list[Placement]:
        out = []
        for p in pieces:
            if p.key == key and p.label is not None:
                a = math.radians(hand.from_angle)
                x = hand.tip[0] + math.cos(a) * 12
                y = hand.tip[1] + math.sin(a) * 12
                lab = PieceLabel(p.label.cls, p.label.piece, p.label.side, p.label.cell, None,
                                 dict(p.label.extra, held=True))
                p = Placement(p.kind, x, y, p.key, lab, p.rotation + 10, max(2.0, hand.height - 8), p.face, "",
                              p.drawn, held=True)
            out.append(p)
        return out


def _is_die(kit: Any, p: Placement) -> bool:
    if p.drawn is not None or p.kind not in kit.pieces:
        return False
    return bool(kit.kind(p.kind).shape == "die")


def _bounds(pieces: list[Placement], dice_area: Any, extent: tuple[float, float]) -> tuple[float, float, float, float]:
    """The rectangle clutter keeps out of: the board, its pieces and the dice area."""
    xs = [0.0, extent[0]] + [p.x for p in pieces]
    ys = [0.0, extent[1]] + [p.y for p in pieces]
    if dice_area is not None:
        xs += [dice_area[0], dice_area[2]]
        ys += [dice_area[1], dice_area[3]]
    return min(xs) - 30, min(ys) - 30, max(xs) + 30, max(ys) + 30


def _environment(rng: np.random.Generator, extent: tuple[float, float], outdoor: bool) -> Environment:
    kinds = OUTDOOR if outdoor else INDOOR
    surface = kinds[int(rng.integers(len(kinds)))]
    lo, hi = MM_PER_PIXEL[surface]
    tint = tuple(float(v) for v in np.clip(rng.normal(1.0, 0.08, 3), 0.75, 1.25))
    w, h = extent
    table = None
    if not outdoor:
        m = rng.uniform(40, 600, 4)
        table = (float(-m[0]), float(-m[1]), float(w + m[2]), float(h + m[3]))
    edge = [(60, 60, 60), (30, 30, 30), (200, 200, 200), (90, 70, 50)][int(rng.integers(4))]
    return Environment(
        outdoor=outdoor,
        surface=surface,
        surface_variant=int(rng.integers(0, 3)),
        surface_mm_per_px=float(rng.uniform(lo, hi)),
        surface_angle=float(rng.uniform(0, 360)),
        surface_tint=tint,  # type: ignore[arg-type]
        surface_offset=(float(rng.uniform(0, 500)), float(rng.uniform(0, 500))),
        table=table,
        floor=FLOORS[int(rng.integers(len(FLOORS)))],
        board_height=float(rng.choice([0.2, 1.0, 1.5, 2.0])) if not outdoor else 0.0,
        board_edge=edge,
        show_board=not outdoor,
    )

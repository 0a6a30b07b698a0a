"""The compositor: draws a planned scene through a camera, and knows what it drew.

Drawing is a painter's algorithm on an ideal (distortion-free) canvas:

1. the floor, the table top or the ground (tileable textures, warped onto their planes);
2. the board, a thin slab whose top is the kit's board image;
3. decals lying flat (marker cards on the ground);
4. every shadow at once: the pieces' and hands' outlines pushed away from the light onto
   the table, blurred by the light's softness, darkening what lies beneath;
5. the pieces, far to near (a stack bottom-up): flat pieces as prisms (shaded flanks, the
   kit's face on top), dice as cubes, standing pieces as an upright picture on a base;
6. held pieces and hands on top.

While drawing, an id buffer records which piece owns each pixel; what is left of a piece
at the end is how visible it is. The canvas is then bent through the lens into the final
image, and labels are projected through the same lens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.render.camera import Camera
from vision.render.effects import Look
from vision.render.faces import BOARD_PPM, FaceCache, outline_of
from vision.render.hands import draw_hand, hand_outlines, hand_shadow
from vision.render.scene import Environment, Hand, Placement
from vision.render.textures import TextureBank

__all__ = ["Composer", "Composite", "DrawnPiece"]

SHIFT = 4  # sub-pixel bits for OpenCV polygon drawing
ONE = 1 << SHIFT
FLOOR_DROP_MM = 740.0  # a table's height: the floor lies this far below its top


@dataclass
class DrawnPiece:
    """What the compositor knows of a labelled piece once drawn."""

    index: int
    placement: Placement
    hull: np.ndarray  # world points (N x 3, z into the table) of its solid, for its box
    keypoint: np.ndarray | None  # world point of the front dot
    drawn_px: int = 0
    visible_px: int = 0
    hand_px: int = 0


@dataclass
class Composite:
    """The result of :meth:`Composer.draw`: the final (undeveloped) image, the pieces drawn
    with what is visible of each, the hand boxes, and the canvas the lens bent."""

    image: np.ndarray
    pieces: list[DrawnPiece]
    hands: list[np.ndarray]  # world points of each hand's outline (for its box)
    canvas_K: np.ndarray
    canvas_offset: tuple[int, int]
    id_buffer: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 0), np.int16))


class Composer:
    """Draws scenes of one kit. Keeps the kit's drawings and the texture bank between images."""

    def __init__(self, kit: Any, textures: TextureBank | None = None, board_ppm: float = BOARD_PPM) -> None:
        self.kit = kit
        self.faces = FaceCache(kit, board_ppm)
        self.textures = textures or TextureBank()
        self._geo_cache: dict[int, tuple[Placement, dict[str, Any] | None]] = {}

    # -- the whole picture ------------------------------------------------------------------
    def draw(
        self,
        cam: Camera,
        look: Look,
        env: Environment,
        layout: Any,
        pieces: list[Placement],
        decals: list[Placement] = (),  # type: ignore[assignment]
        hands: list[Hand] = (),  # type: ignore[assignment]
    ) -> Composite:
        K, (cw, ch), offset = cam.canvas()
        ctx = _Context(cam, K, (cw, ch), look)
        self._geo_cache = {}
        canvas = self._background(ctx, env)
        ctx.canvas = canvas
        ctx.ids = np.full((ch, cw), -1, np.int16)
        ctx.ppm = self._scale_at_centre(ctx)

        if env.show_board:
            self._board(ctx, layout, env)
        for d in decals:
            geo = self._geometry(d)
            if geo is not None and ctx.in_front(_solid(geo["outline"], d.z, geo["height"])):
                self._draw_piece(ctx, d, -1)

        solids = list(env.clutter) + list(pieces)
        near_shadow = np.zeros((ch, cw), np.float32)
        far_shadow = np.zeros((ch, cw), np.float32)
        for p in solids:
            self._shadow(ctx, p, far_shadow if (p.held or p.z > 8) else near_shadow)
        hand_shapes = [hand_outlines(h) for h in hands]
        for h, shape in zip(hands, hand_shapes):
            hand_shadow(ctx, shape, far_shadow)
        self._apply_shadows(ctx, near_shadow, far_shadow)

        drawn: list[DrawnPiece] = []
        order = self._order(ctx, solids)
        labelled = {id(p): i for i, p in enumerate(p for p in solids if p.label is not None)}
        records: dict[int, DrawnPiece] = {}
        for p in order:
            idx = labelled.get(id(p), -1)
            geo = self._geometry(p)
            if geo is None or not ctx.in_front(_solid(geo["outline"], p.z, geo["height"])):
                continue  # at or behind the lens: not in the picture
            hull, kp, count = self._draw_piece(ctx, p, idx)
            if idx >= 0:
                records[idx] = DrawnPiece(idx, p, hull, kp, drawn_px=count)
        hand_boxes = []
        for k, (h, shape) in enumerate(zip(hands, hand_shapes)):
            hand_boxes.append(draw_hand(ctx, h, shape, 30000 + k))

        ids = ctx.ids
        valid = ids[ids >= 0]
        counts = np.bincount(valid.ravel(), minlength=len(labelled) + 1) if valid.size else np.zeros(len(labelled) + 1, int)
        for idx, rec in records.items():
            if idx < 30000:
                rec.visible_px = int(counts[idx]) if idx < len(counts) else 0
        for idx in sorted(records):
            drawn.append(records[idx])
        if hands:
            for rec in drawn:
                rec.hand_px = ctx.covered_by_hand.get(rec.index, 0)

        image = canvas
        if cam.has_distortion():
            mx, my = cam.distortion_maps(offset)
            image = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        elif offset != (0, 0) or (cw, ch) != cam.size:
            image = canvas[offset[1]:offset[1] + cam.size[1], offset[0]:offset[0] + cam.size[0]]
        return Composite(np.ascontiguousarray(image), drawn, hand_boxes, K, offset, ids)

    # -- background -------------------------------------------------------------------------
    def _scale_at_centre(self, ctx: _Context) -> float:
        """Pixels per mm on the table at the middle of the canvas (for blur sizes)."""
        hinv = np.linalg.inv(ctx.plane(0.0))
        c = np.array([ctx.size[0] / 2, ctx.size[1] / 2, 1.0])
        p = hinv @ c
        p = p[:2] / p[2]
        q = ctx.to_canvas(np.array([[p[0], p[1], 0], [p[0] + 10, p[1], 0], [p[0], p[1] + 10, 0]]))
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])) / 10)

    def _texture_warp(self, ctx: _Context, kind: str, variant: int, mm_per_px: float, angle: float,
                      offset: tuple[float, float], height: float, half: bool = False) -> np.ndarray:
        """A texture laid on the plane ``height`` mm above the table, as the canvas sees it
        (``half``: made at half the resolution and scaled up, for what lies far and dim)."""
        tex = self.textures.get(kind, variant)
        a = math.radians(angle)
        c, s = math.cos(a) * mm_per_px, math.sin(a) * mm_per_px
        t_tex = np.array([[c, -s, offset[0]], [s, c, offset[1]], [0, 0, 1]])
        size = ctx.size
        h = ctx.plane(height) @ t_tex
        if half:
            size = ((ctx.size[0] + 1) // 2, (ctx.size[1] + 1) // 2)
            h = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]]) @ h
        # pick a smaller copy of the texture when it is shrunk a lot (less shimmer)
        scale = _local_scale(h, size)
        level = 0
        while scale < 0.55 and level < 3:
            tex = _pyr(self.textures, kind, variant, level + 1)
            h = h @ np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])
            scale *= 2
            level += 1
        out = cv2.warpPerspective(tex, h, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
        if half:
            out = cv2.resize(out, ctx.size, interpolation=cv2.INTER_LINEAR)
        return out

    def _macro(self, ctx: _Context, env: Environment, height: float) -> np.ndarray:
        """Slow brightness changes over the surface (H x W float32 around 1), so that the
        repeats of a tiled texture do not show across a large field."""
        noise = _MACRO.get(env.surface_variant % 3)
        if noise is None:
            from vision.render.textures import periodic_noise

            noise = periodic_noise(np.random.default_rng([77, env.surface_variant % 3]), 64, 2.0)
            _MACRO[env.surface_variant % 3] = noise
        a = math.radians(env.surface_angle * 1.7 + 33)
        s = 37.0  # mm per noise pixel: features of half a metre
        c, si = math.cos(a) * s, math.sin(a) * s
        t = np.array([[c, -si, env.surface_offset[1]], [si, c, env.surface_offset[0]], [0, 0, 1]])
        small = (max(8, ctx.size[0] // 8), max(8, ctx.size[1] // 8))
        down = np.diag([small[0] / ctx.size[0], small[1] / ctx.size[1], 1.0])
        h = down @ ctx.plane(height) @ t
        m = cv2.warpPerspective(noise, h, small, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
        return cv2.resize(1.0 + 0.22 * m, ctx.size, interpolation=cv2.INTER_LINEAR)

    def _background(self, ctx: _Context, env: Environment) -> np.ndarray:
        surface = self._texture_warp(ctx, env.surface, env.surface_variant, env.surface_mm_per_px,
                                     env.surface_angle, env.surface_offset, 0.0)
        tint = tuple(float(v) for v in env.surface_tint)
        if any(abs(v - 1) > 1e-3 for v in tint):
            surface = cv2.multiply(surface, (*tint, 0.0))
        if env.outdoor:
            gain = self._macro(ctx, env, 0.0)
            return cv2.multiply(surface, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
        if env.table is None:
            return surface
        x0, y0, x1, y1 = env.table
        table = ctx.clip_near(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float))
        if len(table) < 3:
            return surface
        corners = ctx.to_canvas(table).astype(np.float32).reshape(-1, 1, 2)
        cw, ch = ctx.size
        if all(cv2.pointPolygonTest(corners, (float(x), float(y)), False) > 0
               for x, y in ((0, 0), (cw - 1, 0), (cw - 1, ch - 1), (0, ch - 1))):
            return surface  # the table fills the picture
        floor = self._texture_warp(ctx, env.floor, env.surface_variant + 1, 2.5, env.surface_angle * 0.7 + 20,
                                   (0.0, 0.0), -FLOOR_DROP_MM, half=True)
        floor = cv2.convertScaleAbs(floor, alpha=0.55)  # in the table's shade
        mask = np.zeros((ch, cw), np.float32)
        cv2.fillPoly(mask, [np.round(corners.reshape(-1, 2) * ONE).astype(np.int32)], 1.0, cv2.LINE_AA, SHIFT)
        return cv2.blendLinear(surface, floor, mask, 1.0 - mask)

    # -- board ------------------------------------------------------------------------------
    def _board(self, ctx: _Context, layout: Any, env: Environment) -> None:
        need = ctx.ppm * 1.5
        img, px_to_mm = self.faces.board(layout, need)
        h, w = img.shape[:2]
        corners_px = np.array([[-0.5, -0.5, 1], [w - 0.5, -0.5, 1], [w - 0.5, h - 0.5, 1], [-0.5, h - 0.5, 1]])
        mm = (px_to_mm @ corners_px.T).T[:, :2]
        thick = env.board_height
        self._slab(ctx, mm, 0.0, thick, env.board_edge, -1)
        self._paste(ctx, img, ctx.plane(thick) @ px_to_mm, mm, thick, -1, shade=1.0)

    # -- shadows ----------------------------------------------------------------------------
    def _shadow(self, ctx: _Context, p: Placement, mask: np.ndarray) -> None:
        geo = self._geometry(p)
        if geo is None or not ctx.in_front(_solid(geo["outline"], p.z, geo["height"])):
            return
        base, height, z = geo["outline"], geo["height"], p.z
        shift = ctx.shadow_shift
        pts = [base + shift * z, base + shift * (z + height)]
        if geo.get("sprite") is not None:
            sw, sh_mm, u = geo["sprite"]
            c = np.array([p.x, p.y])
            if p.turn_to_camera:  # the picture faces the camera (see _standing)
                to_cam = ctx.cam_centre[:2] - c
                u = np.array([to_cam[1], -to_cam[0]]) / max(1e-6, float(np.linalg.norm(to_cam)))
            top = np.array([c - u * sw / 2, c + u * sw / 2]) + shift * (z + sh_mm)
            pts.append(top)
            pts.append(np.array([c - u * sw / 2, c + u * sw / 2]))
        hull = cv2.convexHull(np.vstack(pts).astype(np.float32)).reshape(-1, 2)
        poly = ctx.clip_near(np.column_stack([hull, np.zeros(len(hull))]))
        if len(poly) < 3:
            return
        q = ctx.to_canvas(poly)
        cv2.fillConvexPoly(mask, np.round(q * ONE).astype(np.int32), 1.0, cv2.LINE_AA, SHIFT)

    def _apply_shadows(self, ctx: _Context, near: np.ndarray, far: np.ndarray) -> None:
        look = ctx.look
        s_near = max(0.6, look.shadow_softness * ctx.ppm)
        s_far = max(2.0, (look.shadow_softness + 6.0) * ctx.ppm)
        shade = _soft(near, s_near)
        shade *= look.shadow_strength
        if far.any():
            shade = np.maximum(shade, _soft(far, s_far) * (look.shadow_strength * 0.8))
        ctx.canvas[:] = cv2.blendLinear(ctx.canvas, np.zeros_like(ctx.canvas), 1.0 - shade, shade)

    # -- ordering ---------------------------------------------------------------------------
    def _order(self, ctx: _Context, solids: list[Placement]) -> list[Placement]:
        """Back to front: groups by the depth of their first piece, a group bottom-up, its
        pieces alike in height far to near (ships side by side in a cell), then in the
        plan's order."""
        depth = [float(d) for d in ctx.cam.depth([[p.x, p.y, 0.0] for p in solids])]
        groups: dict[str, float] = {}
        keys = []
        for k, p in enumerate(solids):
            g = p.group or f"#{k}"
            if g not in groups:
                groups[g] = depth[k]
            held = 1 if p.held else 0
            keys.append((held, -groups[g] if not p.held else -p.z, p.z, -depth[k], k))
        return [p for _, p in sorted(zip(keys, solids), key=lambda kv: kv[0])]

    # -- pieces -----------------------------------------------------------------------------
    def _geometry(self, p: Placement) -> dict[str, Any] | None:
        """The footprint (world mm, N x 2), height and, for standing pieces, the picture's
        width, height and horizontal axis (kept for the image being drawn)."""
        geo = self._geo_cache.get(id(p))
        if geo is None or geo[0] is not p:
            geo = (p, self._compute_geometry(p))
            self._geo_cache[id(p)] = geo
        return geo[1]

    def _compute_geometry(self, p: Placement) -> dict[str, Any] | None:
        a = math.radians(p.rotation)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        centre = np.array([p.x, p.y])
        if p.drawn is not None:
            return {"outline": p.drawn.outline @ rot.T + centre, "height": p.drawn.height, "rot": rot}
        kind = self.kit.kind(p.kind)
        w, d = kind.footprint_mm
        if kind.standing:
            base_h = min(3.0, kind.height_mm * 0.08)
            outline = outline_of("disc" if kind.shape == "disc" else "rect", w, d)
            return {"outline": outline @ rot.T + centre, "height": base_h, "rot": rot,
                    "sprite": (w, kind.height_mm, rot[:, 0])}
        shape = "disc" if kind.shape == "disc" else "rect"
        corner = 0.0 if kind.shape == "die" else 0.8
        out = outline_of(shape, w, d, corner)
        return {"outline": out @ rot.T + centre, "height": kind.height_mm, "rot": rot}

    def _draw_piece(self, ctx: _Context, p: Placement, idx: int) -> tuple[np.ndarray, np.ndarray | None, int]:
        geo = self._geometry(p)
        assert geo is not None
        outline, height, rot = geo["outline"], geo["height"], geo["rot"]
        z = p.z
        keypoint = None
        if p.drawn is not None:
            d = p.drawn
            self._slab(ctx, outline, z, height, d.edge, idx)
            th, tw = d.top.shape[:2]
            m = _face_matrix(p.x, p.y, rot, tw / d.px_per_mm, th / d.px_per_mm, d.px_per_mm, d.px_per_mm)
            self._paste(ctx, d.top, ctx.plane(z + height) @ m, outline, z + height, idx, 1.0)
            hull = _solid(outline, z, height)
            if d.dot is not None:
                dot = rot @ np.asarray(d.dot) + np.array([p.x, p.y])
                keypoint = np.array([dot[0], dot[1], -(z + height)])
            return hull, keypoint, ctx.count(idx, hull)
        kind = self.kit.kind(p.kind)
        edge = self.kit.edge_colour(p.kind)
        if kind.standing:
            hull = self._standing(ctx, p, kind, geo, edge, idx)
            return hull, None, ctx.count(idx, hull)
        if kind.shape == "die":
            self._die(ctx, p, kind, outline, rot, idx)
            hull = _solid(outline, z, height)
            return hull, None, ctx.count(idx, hull)
        self._slab(ctx, outline, z, height, edge, idx)
        w, d_ = kind.footprint_mm
        need = ctx.local_ppm(p.x, p.y, z + height)
        face, _ = self.faces.face(p.kind, p.face, need)
        fh, fw = face.shape[:2]
        m = _face_matrix(p.x, p.y, rot, w, d_, fw / w, fh / d_)
        self._paste(ctx, face, ctx.plane(z + height) @ m, outline, z + height, idx, 1.0)
        hull = _solid(outline, z, height)
        return hull, None, ctx.count(idx, hull)

    def _slab(self, ctx: _Context, outline: np.ndarray, z: float, height: float, colour: Any, idx: int) -> None:
        """The flanks of a prism standing on ``outline`` from ``z`` to ``z + height``,
        shaded by how each side faces the light."""
        if height <= 0.05:
            return
        n = len(outline)
        both = ctx.to_canvas(_solid(outline, z, height))
        bottom, top = both[:n], both[n:]
        nxt = np.roll(np.arange(n), -1)
        edge = outline[nxt] - outline
        area = 0.5 * np.sum(outline[:, 0] * outline[nxt, 1] - outline[nxt, 0] * outline[:, 1])
        normal = np.stack([edge[:, 1], -edge[:, 0]], 1) * (1 if area > 0 else -1)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-12
        mid = (outline + outline[nxt]) / 2
        cam_xy = ctx.cam_centre[:2]
        visible = np.sum(normal * (cam_xy - mid), axis=1) > 0
        if not visible.any():
            return
        light = ctx.side_light(normal)
        base = np.asarray(colour, np.float32)
        bins = np.clip((light * 6).astype(int), 0, 11)
        all_quads = np.round(np.stack([bottom, bottom[nxt], top[nxt], top], axis=1) * ONE).astype(np.int32)
        for b in np.unique(bins[visible]):
            sel = np.flatnonzero(visible & (bins == b))
            quads = list(all_quads[sel])
            shade = float(np.mean(light[sel]))
            col = np.clip(base * shade, 0, 255).tolist()
            cv2.fillPoly(ctx.canvas, quads, col, cv2.LINE_AA, SHIFT)
            if idx >= 0:
                cv2.fillPoly(ctx.ids, quads, idx, cv2.LINE_8, SHIFT)

    def _paste(self, ctx: _Context, img: np.ndarray, h: np.ndarray, outline: np.ndarray, height: float,
               idx: int, shade: float) -> None:
        """Warp a BGRA picture with the homography ``h`` (its pixels -> canvas) and blend it in."""
        q = ctx.to_canvas(np.column_stack([outline, np.full(len(outline), -height)]))
        x0, y0 = np.floor(q.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 2
        cw, ch = ctx.size
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cw), min(y1, ch)
        if x1 <= x0 or y1 <= y0:
            return
        t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        warped = cv2.warpPerspective(img, t @ h, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3]
        roi = ctx.canvas[y0:y1, x0:x1]
        a = alpha.astype(np.float32) * (1 / 255.0)
        colour = np.ascontiguousarray(warped[..., :3])
        if shade != 1.0:
            colour = cv2.convertScaleAbs(colour, alpha=shade)
        roi[:] = cv2.blendLinear(colour, np.ascontiguousarray(roi), a, 1.0 - a)
        if idx >= 0:
            ctx.ids[y0:y1, x0:x1][alpha > 127] = idx

    def _die(self, ctx: _Context, p: Placement, kind: Any, outline: np.ndarray, rot: np.ndarray, idx: int) -> None:
        """A cube: its flanks from the kit's side faces, its top from the top face."""
        w, d = kind.footprint_mm
        s = kind.height_mm
        z = p.z
        c = np.array([p.x, p.y])
        cam_xy = ctx.cam_centre[:2]
        # the four sides, in the kit's order: near (+y of the die), then clockwise seen from above
        sides = [(np.array([0.0, 1.0]), "side-1"), (np.array([-1.0, 0.0]), "side-2"),
                 (np.array([0.0, -1.0]), "side-3"), (np.array([1.0, 0.0]), "side-4")]
        for n_local, face_name in sides:
            n = rot @ n_local
            half = (d / 2) if abs(n_local[1]) > 0 else (w / 2)
            centre = c + n * half
            if np.dot(n, cam_xy - centre) <= 0:
                continue
            along = rot @ np.array([n_local[1], -n_local[0]])  # to the right of one facing the side
            width = w if abs(n_local[1]) > 0 else d
            need = ctx.local_ppm(centre[0], centre[1], z + s / 2)
            face, _ = self.faces.face(p.kind, face_name, need)
            fh, fw = face.shape[:2]
            # face pixels -> world: x along the side, y downwards from the top edge
            top_left = np.array([*(centre - along * width / 2), -(z + s)])
            ex = np.array([*(along * width / fw), 0.0])
            ey = np.array([0.0, 0.0, s / fh])
            pix_to_world = np.column_stack([ex, ey, top_left + 0.5 * ex + 0.5 * ey])
            hm = ctx.K @ (ctx.cam.R @ pix_to_world + np.column_stack([np.zeros((3, 2)), ctx.cam.t]))
            light = float(ctx.side_light(n[None, :])[0])
            corners = np.array([top_left, top_left + ex * fw, top_left + ex * fw + ey * fh, top_left + ey * fh])
            self._paste_world(ctx, face, hm, corners, idx, light)
        need = ctx.local_ppm(p.x, p.y, z + s)
        top, _ = self.faces.face(p.kind, "top", need)
        fh, fw = top.shape[:2]
        m = _face_matrix(p.x, p.y, rot, w, d, fw / w, fh / d)
        self._paste(ctx, top, ctx.plane(z + s) @ m, outline, z + s, idx, 1.0)

    def _paste_world(self, ctx: _Context, img: np.ndarray, hm: np.ndarray, corners: np.ndarray, idx: int,
                     shade: float) -> None:
        q = ctx.to_canvas(corners)
        x0, y0 = np.floor(q.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 2
        cw, ch = ctx.size
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cw), min(y1, ch)
        if x1 <= x0 or y1 <= y0:
            return
        t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        warped = cv2.warpPerspective(img, t @ hm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3]
        a = alpha.astype(np.float32) * (1 / 255.0)
        roi = ctx.canvas[y0:y1, x0:x1]
        colour = cv2.convertScaleAbs(np.ascontiguousarray(warped[..., :3]), alpha=shade)
        roi[:] = cv2.blendLinear(colour, np.ascontiguousarray(roi), a, 1.0 - a)
        if idx >= 0:
            ctx.ids[y0:y1, x0:x1][alpha > 127] = idx

    def _standing(self, ctx: _Context, p: Placement, kind: Any, geo: dict[str, Any], edge: Any, idx: int) -> np.ndarray:
        """A base, then the piece's picture upright on it, facing the way it was placed (or
        its back, the same picture mirrored, when the camera is behind it)."""
        outline, base_h = geo["outline"], geo["height"]
        self._slab(ctx, outline, p.z, base_h, edge, idx)
        w, d = kind.footprint_mm
        rot = geo["rot"]
        need_top = ctx.local_ppm(p.x, p.y, p.z + base_h)
        top, _ = self.faces.face(p.kind, "top", need_top)
        th, tw = top.shape[:2]
        m = _face_matrix(p.x, p.y, rot, w, d, tw / w, th / d)
        self._paste(ctx, top, ctx.plane(p.z + base_h) @ m, outline, p.z + base_h, idx, 1.0)
        u = rot[:, 0]
        normal = rot[:, 1]
        c = np.array([p.x, p.y])
        if p.turn_to_camera:
            to_cam = ctx.cam_centre[:2] - c
            yaw = math.atan2(to_cam[1], to_cam[0]) - math.pi / 2 + math.radians(((p.rotation + 180) % 360 - 180) * 0.2)
            normal = np.array([-math.sin(yaw), math.cos(yaw)])
            u = np.array([math.cos(yaw), math.sin(yaw)])
        height = kind.height_mm
        need = ctx.local_ppm(p.x, p.y, p.z + base_h + height / 2)
        face, level = self.faces.face(p.kind, "front", need)
        fh, fw = face.shape[:2]
        flat, (c0, c1, r0, r1) = self.faces.silhouette(p.kind, level, face, edge)
        behind = np.dot(normal, ctx.cam_centre[:2] - c) < 0
        if behind:
            face, flat = face[:, ::-1], flat[:, ::-1]
            c0, c1 = fw - 1 - c1, fw - 1 - c0
        cols, rows = np.array([c0, c1]), np.array([r0, r1])
        thick = max(0.8, min(2.0, d * 0.1))
        z0 = p.z + base_h
        # a moulded figure turned to the camera hides its thickness: only a standee shows it
        layers = (("face", 0.0),) if p.turn_to_camera else (("edge", -thick / 2), ("face", thick / 2))
        for layer, offset in layers:
            off = normal * (offset if not behind else -offset)
            left = c - u * w / 2 + off
            top_left = np.array([left[0], left[1], -(z0 + height)])
            ex = np.array([*(u * w / fw), 0.0])
            ey = np.array([0.0, 0.0, height / fh])
            pix_to_world = np.column_stack([ex, ey, top_left + 0.5 * ex + 0.5 * ey])
            hm = ctx.K @ (ctx.cam.R @ pix_to_world + np.column_stack([np.zeros((3, 2)), ctx.cam.t]))
            corners = np.array([top_left, top_left + ex * fw, top_left + ex * fw + ey * fh, top_left + ey * fh])
            if layer == "edge":
                self._paste_world(ctx, flat, hm, corners, idx, 0.8)
            else:
                shade = 0.75 + 0.25 * float(ctx.side_light((normal if not behind else -normal)[None, :])[0])
                self._paste_world(ctx, face, hm, corners, idx, min(1.1, shade))
        # the picture's opaque part, for the label's box
        left = c - u * w / 2
        a0, a1 = left + u * w * cols[0] / fw, left + u * w * (cols[-1] + 1) / fw
        zt = -(z0 + height * (1 - rows[0] / fh))
        zb = -(z0 + height * (1 - (rows[-1] + 1) / fh))
        pts = [[*a0, zb], [*a1, zb], [*a0, zt], [*a1, zt]]
        return np.vstack([_solid(outline, p.z, base_h), np.array(pts)])

    # -- hands ------------------------------------------------------------------------------
class _Context:
    """Per-image drawing state: camera, canvas, id buffer, light."""

    def __init__(self, cam: Camera, K: np.ndarray, size: tuple[int, int], look: Look) -> None:
        self.cam = cam
        self.K = K
        self.size = size
        self.look = look
        self.cam_centre = cam.centre
        self._P = K @ np.column_stack([cam.R, cam.t])
        az, el = math.radians(look.light_azimuth), math.radians(look.light_elevation)
        self.light_dir = np.array([math.cos(az), math.sin(az)])  # towards the light
        self.light_el = el
        self.shadow_shift = -self.light_dir / math.tan(el)  # per mm of height
        self.canvas = np.zeros((size[1], size[0], 3), np.uint8)
        self.ids = np.zeros((size[1], size[0]), np.int16)
        self.ppm = 1.0
        self.covered_by_hand: dict[int, int] = {}
        self._planes: dict[float, np.ndarray] = {}
        amb = look.ambient
        self._top_light = amb + (1 - amb) * math.sin(el)

    def plane(self, height: float) -> np.ndarray:
        h = self._planes.get(height)
        if h is None:
            h = self.cam.plane_homography(height, self.K)
            self._planes[height] = h
        return h

    def clip_near(self, poly: np.ndarray) -> np.ndarray:
        """A world polygon (N x 3) cut at the near plane (10 cm before the camera), so that
        nothing behind or beside the lens is projected."""
        near = 100.0
        d = poly @ self.cam.R[2] + self.cam.t[2]
        if d.min() >= near:
            return poly
        out = []
        n = len(poly)
        for i in range(n):
            a, b = poly[i], poly[(i + 1) % n]
            da, db = d[i], d[(i + 1) % n]
            if da >= near:
                out.append(a)
            if (da >= near) != (db >= near):
                t = (near - da) / (db - da)
                out.append(a + (b - a) * t)
        return np.array(out) if len(out) >= 3 else np.zeros((0, 3))

    def in_front(self, points: np.ndarray) -> bool:
        return bool((points @ self.cam.R[2] + self.cam.t[2]).min() > 100.0)

    def to_canvas(self, world: np.ndarray) -> np.ndarray:
        w = np.asarray(world, float)
        q = w @ self._P[:, :3].T + self._P[:, 3]
        return q[:, :2] / q[:, 2:3]

    def local_ppm(self, x: float, y: float, height: float) -> float:
        q = self.to_canvas(np.array([[x, y, -height], [x + 5, y, -height], [x, y + 5, -height]]))
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])) / 5)

    def side_light(self, normals: np.ndarray) -> np.ndarray:
        """Brightness of vertical faces with horizontal ``normals``, relative to the table."""
        amb = self.look.ambient
        lam = np.clip(normals @ self.light_dir, 0, 1) * math.cos(self.light_el)
        return (amb * 0.8 + (1 - amb) * lam) / self._top_light

    def count(self, idx: int, hull: np.ndarray) -> int:
        """Pixels of the id buffer owned by ``idx`` inside the projection of ``hull``."""
        if idx < 0:
            return 0
        q = self.to_canvas(hull)
        x0, y0 = np.maximum(np.floor(q.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(q.max(axis=0)).astype(int) + 3, self.size)
        if x1 <= x0 or y1 <= y0:
            return 0
        return int(np.count_nonzero(self.ids[y0:y1, x0:x1] == idx))


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur of a (shadow) mask; wide blurs are made at a quarter or half of the
    resolution and scaled back up, which looks the same and costs far less."""
    if sigma < 3.0:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    f = 4 if sigma >= 8.0 else 2
    h, w = mask.shape
    small = cv2.resize(mask, ((w + f - 1) // f, (h + f - 1) // f), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _face_matrix(x: float, y: float, rot: np.ndarray, w: float, d: float, sx: float, sy: float) -> np.ndarray:
    """Face-image pixels -> table mm for a face ``w`` x ``d`` mm drawn at ``sx``, ``sy`` px/mm,
    centred at ``(x, y)`` and turned by ``rot``."""
    c = np.array([x, y]) + rot @ np.array([0.5 / sx - w / 2, 0.5 / sy - d / 2])
    return np.array([[rot[0, 0] / sx, rot[0, 1] / sy, c[0]], [rot[1, 0] / sx, rot[1, 1] / sy, c[1]], [0, 0, 1]])


def _solid(outline: np.ndarray, z: float, height: float) -> np.ndarray:
    n = len(outline)
    return np.vstack([np.column_stack([outline, np.full(n, -z)]), np.column_stack([outline, np.full(n, -(z + height))])])


def _local_scale(h: np.ndarray, size: tuple[int, int]) -> float:
    """Canvas pixels per source pixel at the canvas centre for the homography ``h``."""
    hinv = np.linalg.inv(h)
    cx, cy = size[0] / 2, size[1] / 2
    pts = np.array([[cx, cy, 1], [cx + 1, cy, 1], [cx, cy + 1, 1]], float)
    s = (hinv @ pts.T).T
    s = s[:, :2] / s[:, 2:3]
    return 1.0 / max(1e-6, float(max(np.linalg.norm(s[1] - s[0]), np.linalg.norm(s[2] - s[0]))))


_PYR: dict[tuple[str, int, int], np.ndarray] = {}
_MACRO: dict[int, np.ndarray] = {}


def _pyr(bank: TextureBank, kind: str, variant: int, level: int) -> np.ndarray:
    key = (kind, variant % bank.variants, level)
    img = _PYR.get(key)
    if img is None:
        src = bank.get(kind, variant) if level == 1 else _pyr(bank, kind, variant, level - 1)
        img = cv2.pyrDown(src, borderType=cv2.BORDER_REFLECT)
        _PYR[key] = img
    return img

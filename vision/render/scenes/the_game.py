"""The Game outdoors: natural pieces with their front dots on the ground, marker cards at
the field's corners.

Each standing piece becomes a procedural object matching its engine footprint (stones
for ellipses, sticks for thin rectangles, wooden blocks for other rectangles, leaves or
flat stones for polygons; :mod:`vision.render.natural`), turned to its facing, with the
kit's dot sticker of its side at its front. Its class is the kit's ``<side>-piece`` and its
keypoint the dot. Knocked-down pieces lie on their side: they are drawn without a visible
dot and not labelled; pieces that left the field are gone. The four corner markers lie on
the ground as printed cards, cut from the kit's field drawing, and a few stones, sticks
and leaves without dots lie about as distractors.

>>> from rules.registry import get_game
>>> game = get_game("the-game")
>>> layout(game, None) is None
True
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from vision.render.natural import PX_PER_MM, ellipse_outline, make_natural, material_for
from vision.render.scene import Drawn, PieceLabel, Placement, ScenePlan
from vision.render.scenes import Placer, stable_rng

__all__ = ["layout", "plan"]

INCH = 25.4
_FALLBACK_DOTS = [(36, 27, 224), (216, 88, 28), (30, 200, 240), (200, 60, 200)]


def layout(game: Any, state: Any) -> Any:
    o = game.options
    w, d = float(o.field_width), float(o.field_depth)
    return None if (w, d) == (24.0, 24.0) else (w, d)


def _footprint(fp: dict[str, Any]) -> tuple[str, np.ndarray, float, float]:
    """The engine footprint as an outline in inches (piece frame: x forward, y left)."""
    shape = fp.get("shape", "ellipse")
    if shape == "polygon":
        pts = np.array([[p["x"], p["y"]] for p in fp["points"]], float)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return shape, pts, float(hi[0] - lo[0]), float(hi[1] - lo[1])
    length, width = float(fp.get("length", 1.0)), float(fp.get("width", 1.0))
    if shape == "rectangle":
        pts = np.array([[-length / 2, -width / 2], [length / 2, -width / 2], [length / 2, width / 2],
                        [-length / 2, width / 2]])
    else:
        pts = ellipse_outline(length, width)
    return shape, pts, length, width


def _sticker(kit: Any, side: str) -> np.ndarray | None:
    maker = getattr(kit, "dot_sticker", None)
    if maker is None:
        return None
    try:
        return maker(side, PX_PER_MM)  # type: ignore[no-any-return]
    except ValueError:  # a side the kit has no sticker for (ArtworkError): a plain dot instead
        return None


def plan(game: Any, state: Any, placer: Placer) -> ScenePlan:
    pos = game.state_to_json(state) if state is not None else {"pieces": []}
    default_fp = game.options_to_json().get("footprint") or {"shape": "ellipse", "length": 1.0, "width": 1.0}
    sides = list(getattr(game.options, "sides", ("red", "blue")))
    pieces: list[Placement] = []
    for p in pos.get("pieces", []):
        presence = p.get("presence", "in-play")
        if presence not in ("in-play", "down"):
            continue
        side = p["side"]
        shape, pts_in, length, width = _footprint(p.get("footprint") or default_fp)
        c = (float(p["at"]["x"]), float(p["at"]["y"]))
        f = math.radians(float(p.get("facing", 0.0)))
        fwd, left = np.array([math.cos(f), math.sin(f)]), np.array([-math.sin(f), math.cos(f)])
        field = c + pts_in[:, :1] * fwd + pts_in[:, 1:] * left  # footprint on the field, inches
        cx, cy = placer.to_mm(*c)
        ahead = placer.to_mm(c[0] + fwd[0], c[1] + fwd[1])
        rot = math.atan2(ahead[1] - cy, ahead[0] - cx)
        mm = np.array([placer.to_mm(x, y) for x, y in field]) - (cx, cy)
        local = mm @ np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
        # the same stone for the same piece all through a sequence, whatever the camera
        fp_key = json.dumps(p.get("footprint") or default_fp, sort_keys=True)
        rng = stable_rng(0, f"natural-{pos.get('sequence', 1)}-{p['id']}-{fp_key}")
        material = material_for(shape, length, width, rng)
        kind = f"{side}-piece"
        colour = placer.kit.edge_colour(kind) if kind in placer.kit.pieces else \
            _FALLBACK_DOTS[sides.index(side) % len(_FALLBACK_DOTS)] if side in sides else _FALLBACK_DOTS[0]
        down = presence == "down"
        seed = int(rng.integers(1 << 30))
        drawn = make_natural(material, local, seed, None if down else tuple(int(v) for v in colour),
                             sticker=None if down else _sticker(placer.kit, side))
        label = None
        if not down and kind in placer.kit.pieces:
            label = PieceLabel(kind, p["id"], side, p["at"], (c[0], c[1]),
                               {"facing": p.get("facing"), "controller": p.get("controller", side),
                                "material": material})
        pieces.append(Placement(kind, cx, cy, p["id"], label, rotation=math.degrees(rot), drawn=drawn,
                                group=f"piece-{p['id']}"))
    pieces += _distractors(placer)
    return ScenePlan(layout=placer.layout, pieces=pieces, decals=_marker_cards(placer))


def _distractors(placer: Placer) -> list[Placement]:
    """A few dot-less stones, sticks and leaves lying on the field."""
    rng = stable_rng(placer.seed, "field-distractors")
    w, d = placer.kit.board_size(placer.layout)
    out = []
    for k in range(int(rng.integers(0, 5))):
        material = ("stone", "stick", "leaf")[int(rng.integers(3))]
        size = rng.uniform(15, 55)
        if material == "stick":
            outline = np.array([[-size, -3.5], [size, -3.5], [size, 3.5], [-size, 3.5]], float)
        elif material == "leaf":
            outline = ellipse_outline(size, size * 0.5, 14)
        else:
            outline = ellipse_outline(size, size * rng.uniform(0.6, 1.0), 18)
        x, y = placer.to_mm(rng.uniform(0, w), rng.uniform(0, d))
        drawn = make_natural(material, outline, int(rng.integers(1 << 30)), None)
        out.append(Placement("distractor", x, y, f"distractor-{k}", None, rotation=float(rng.uniform(0, 360)),
                             drawn=drawn))
    return out


_CARDS: dict[Any, list[Placement]] = {}


def _marker_cards(placer: Placer) -> list[Placement]:
    """The corner markers as cards lying on the ground, cut from the kit's field drawing."""
    key = (id(placer.kit), placer.layout)
    cards = _CARDS.get(key)
    if cards is None:
        cards = _CARDS[key] = _cut_cards(placer)
    return cards


def _cut_cards(placer: Placer) -> list[Placement]:
    spec = placer.kit.marker_spec(placer.layout)
    ppm = 4.0
    image, board_to_px = placer.kit.board_image(ppm, placer.layout)
    out = []
    quiet = 6.0  # mm of white paper round a marker
    for marker_id in spec.ids:
        corners = spec.marker_corners(marker_id)
        q = (board_to_px @ np.c_[corners, np.ones(4)].T).T
        q = q[:, :2] / q[:, 2:3]
        x0, y0 = np.floor(q.min(axis=0) - quiet * ppm).astype(int)
        x1, y1 = np.ceil(q.max(axis=0) + quiet * ppm).astype(int)
        x0, y0 = max(x0, 0), max(y0, 0)
        crop = image[y0:y1 + 1, x0:x1 + 1]
        card = np.dstack([crop, np.full(crop.shape[:2], 255, np.uint8)])
        w_mm, h_mm = card.shape[1] / ppm, card.shape[0] / ppm
        outline = np.array([[-w_mm / 2, -h_mm / 2], [w_mm / 2, -h_mm / 2], [w_mm / 2, h_mm / 2], [-w_mm / 2, h_mm / 2]])
        # pixel p of a board drawing at ppm px/mm covers p / ppm .. (p + 1) / ppm mm of the table
        cx = (x0 + card.shape[1] / 2) / ppm
        cy = (y0 + card.shape[0] / 2) / ppm
        drawn = Drawn("card", outline, 0.3, np.ascontiguousarray(card), ppm, (235, 235, 235))
        out.append(Placement("marker-card", float(cx), float(cy), f"marker-{marker_id}", None, drawn=drawn))
    return out

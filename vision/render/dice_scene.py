"""Ordinary six-sided dice, rendered for the d6 finder (``models/d6.pt``).

Every game but Wormholes throws ordinary d6 dice, and players bring their own: white, black,
red, marbled or translucent, with black, white, red or gold pips, seen from straight above
or at an angle, on a board, a mat, a tray or the floor. The game scenes draw each kit's own
dice, small; this scene draws many kinds of die, of many sizes, on many grounds, so that a
detector learns what a d6 is rather than what one kit's d6 looks like.

Each die is a cube with rounded corners (a superellipse outline on each face) seen by an
orthographic camera ``elevation`` degrees above the table: its top face and the side faces
turned to the camera, each shaded by its angle to the light, and its pips drawn on each face
through that face's own mapping. The top face's pips are the label (``d6-1`` .. ``d6-6``),
the box the outline of every face seen. Other things lie about: discs, plain cubes and
squares, cards, marks with dots that are no die. The frame then goes through
:func:`vision.render.effects.develop` (light, blur, noise) and JPEG.

>>> img, boxes = render_dice(np.random.default_rng(0), (320, 240))
>>> img.shape, all(0 <= b[0] <= 5 for b in boxes)
((240, 320, 3), True)
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import DICE_FINDER
from vision.render.effects import develop, jpeg, sample_look
from vision.render.textures import KINDS, TextureBank

__all__ = ["CLASSES", "EDGE_MM", "places_among", "render_dice", "throw_onto", "write_dice_among", "write_dice_dataset"]

CLASSES = tuple(f"d6-{k}" for k in range(1, 7))

#: Pip places on a face, in half-edges from its centre (x to the right, y down).
_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}

_BANK = TextureBank(variants=4)
_SS = 2  # drawn at twice the size, then made smaller: smooth edges


@dataclass
class _Style:
    body: tuple[float, float, float]  # BGR
    second: tuple[float, float, float] | None  # a marbled die's other colour
    pip: tuple[float, float, float]
    pip_size: float  # pip radius, in half-edges
    pip_spread: float  # pip offset from the centre, in half-edges
    roundness: float  # superellipse exponent (high: square corners)
    big_one: bool  # the 1 drawn large (many dice have a large or coloured 1)


def _colour(rng: np.random.Generator, light: bool | None = None) -> tuple[float, float, float]:
    h = rng.uniform(0, 180)
    s = rng.choice([rng.uniform(0, 40), rng.uniform(80, 255)])
    v = rng.uniform(170, 255) if light else rng.uniform(20, 120) if light is False else rng.uniform(20, 255)
    bgr = cv2.cvtColor(np.uint8([[[h, s, v]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return tuple(float(c) for c in bgr)  # type: ignore[return-value]


def _style(rng: np.random.Generator) -> _Style:
    kind = rng.random()
    if kind < 0.3:
        body = tuple(float(x) for x in rng.uniform(215, 250, 3))  # white, ivory
    elif kind < 0.45:
        body = tuple(float(x) for x in rng.uniform(10, 45, 3))  # black
    else:
        body = _colour(rng)
    light = float(np.mean(body)) > 120
    if rng.random() < 0.15:
        pip = (40.0, 40.0, 200.0) if rng.random() < 0.5 else (60.0, 170.0, 215.0)  # red, gold
    else:
        pip = tuple(float(x) for x in (rng.uniform(0, 50, 3) if light else rng.uniform(210, 255, 3)))
    second = _colour(rng) if rng.random() < 0.25 else None
    return _Style(body, second, pip, float(rng.uniform(0.17, 0.26)), float(rng.uniform(0.48, 0.62)),
                  float(rng.uniform(3.0, 9.0)), bool(rng.random() < 0.25))  # type: ignore[arg-type]


def _outline(roundness: float, n: int = 36) -> np.ndarray:
    """A rounded square (superellipse) in half-edges, ``n`` points."""
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    c, s = np.cos(t), np.sin(t)
    e = 2.0 / roundness
    return np.stack([np.sign(c) * np.abs(c) ** e, np.sign(s) * np.abs(s) ** e], 1)


def _faces(value: int, rng: np.random.Generator) -> dict[str, int]:
    """The values on the top and on the four sides (opposite faces add to 7)."""
    sides = [v for v in range(1, 7) if v not in (value, 7 - value)]
    a, b = (int(x) for x in rng.permutation(sides)[:2])
    return {"top": value, "+x": a, "-x": 7 - a, "+y": b, "-y": 7 - b}


def _draw_die(img: np.ndarray, centre: tuple[float, float], edge: float, yaw: float, elevation: float,
              value: int, style: _Style, light: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one die on ``img`` (``centre`` and ``edge`` in its pixels); returns the outline
    points seen."""
    h = edge / 2
    ca, sa = math.cos(yaw), math.sin(yaw)
    se, ce = math.sin(elevation), math.cos(elevation)

    def project(p: np.ndarray) -> np.ndarray:  # die coordinates (x, y, z up) -> image
        x = p[..., 0] * ca - p[..., 1] * sa
        y = p[..., 0] * sa + p[..., 1] * ca
        return np.stack([centre[0] + x, centre[1] + y * se - p[..., 2] * ce], -1)

    values = _faces(value, rng)
    # face: centre, the two half-edge axes (die coordinates), normal
    faces = {
        "top": (np.array([0, 0, edge]), np.array([h, 0, 0]), np.array([0, h, 0]), np.array([0, 0, 1.0])),
        "+x": (np.array([h, 0, h]), np.array([0, h, 0]), np.array([0, 0, -h]), np.array([1.0, 0, 0])),
        "-x": (np.array([-h, 0, h]), np.array([0, -h, 0]), np.array([0, 0, -h]), np.array([-1.0, 0, 0])),
        "+y": (np.array([0, h, h]), np.array([-h, 0, 0]), np.array([0, 0, -h]), np.array([0, 1.0, 0])),
        "-y": (np.array([0, -h, h]), np.array([h, 0, 0]), np.array([0, 0, -h]), np.array([0, -1.0, 0])),
    }
    view = np.array([0.0, ce, se])  # towards the camera, in table coordinates
    outline = _outline(style.roundness)
    seen: list[np.ndarray] = []
    order = sorted(faces, key=lambda k: k == "top")  # sides first, the top over them
    for name in order:
        c, u, v, n = faces[name]
        nt = np.array([n[0] * ca - n[1] * sa, n[0] * sa + n[1] * ca, n[2]])
        facing = float(nt @ view)
        if facing <= 0.02:
            continue
        pts3 = c + outline[:, :1] * u + outline[:, 1:] * v
        pts = project(pts3)
        seen.append(pts)
        shade = 0.55 + 0.45 * max(0.0, float(nt @ light))
        body = np.array(style.body) * shade
        poly = np.round(pts * 16).astype(np.int32)
        cv2.fillPoly(img, [poly], tuple(float(x) for x in body), cv2.LINE_AA, 4)
        if style.second is not None:  # marbled: a second colour in faint streaks over the face
            streaks = img.copy()
            for _ in range(2):
                a, b = rng.uniform(-0.7, 0.7, 2)
                streak = c + a * u + b * v
                q = project(np.array([streak, streak + rng.uniform(-0.5, 0.5) * u + rng.uniform(-0.5, 0.5) * v]))
                cv2.line(streaks, tuple(int(x) for x in q[0]), tuple(int(x) for x in q[1]),
                         tuple(float(x) * shade for x in style.second), max(1, int(edge * 0.08)), cv2.LINE_AA)
            x0, y0 = np.maximum(pts.min(0).astype(int) - 2, 0)
            x1, y1 = pts.max(0).astype(int) + 3
            img[y0:y1, x0:x1] = cv2.addWeighted(streaks[y0:y1, x0:x1], 0.5, img[y0:y1, x0:x1], 0.5, 0)
        k = values[name]
        radius = style.pip_size * (1.9 if k == 1 and style.big_one else 1.0)
        pip = np.array((40.0, 40.0, 200.0) if k == 1 and style.big_one and rng.random() < 0.5 else style.pip)
        circle = np.stack([np.cos(np.linspace(0, 2 * math.pi, 12, endpoint=False)),
                           np.sin(np.linspace(0, 2 * math.pi, 12, endpoint=False))], 1)
        for px, py in _PIPS[k]:
            centre_p = c + style.pip_spread * (px * u + py * v)
            ring = centre_p + radius * (circle[:, :1] * u + circle[:, 1:] * v)
            cv2.fillPoly(img, [np.round(project(ring) * 16).astype(np.int32)],
                         tuple(float(x) for x in pip * (0.6 + 0.4 * shade)), cv2.LINE_AA, 4)
    return np.concatenate(seen)


def _ground(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table, mat, tray or floor ``w`` x ``h`` (BGR)."""
    pick = rng.random()
    if pick < 0.25:
        img = np.empty((h, w, 3), np.float32)
        img[:] = _colour(rng)
        img += rng.normal(0, rng.uniform(1, 8), (h, w, 1)).astype(np.float32)
    else:
        tex = _BANK.get(str(rng.choice(KINDS)), int(rng.integers(0, 4)))
        reps = (h // tex.shape[0] + 2, w // tex.shape[1] + 2, 1)
        big = np.tile(tex, reps)
        y0, x0 = int(rng.integers(0, tex.shape[0])), int(rng.integers(0, tex.shape[1]))
        img = big[y0:y0 + h, x0:x0 + w].astype(np.float32)
    if rng.random() < 0.4:  # a tray, a box lid or a board's edge: a band of another colour
        x0, y0 = (int(v) for v in rng.integers(0, [w // 3, h // 3]))
        x1, y1 = (int(v) for v in rng.integers([2 * w // 3, 2 * h // 3], [w + 1, h + 1]))
        band = max(2, int(rng.uniform(0.01, 0.06) * w))
        rim = _colour(rng)
        cv2.rectangle(img, (x0, y0), (x1, y1), rim, band)
    return np.clip(img, 0, 255).astype(np.uint8)


def _clutter(img: np.ndarray, rng: np.random.Generator, size: float, count: int) -> None:
    """Things that are not dice: discs, plain squares and cubes, cards, dotted marks."""
    h, w = img.shape[:2]
    for _ in range(count):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        s = size * rng.uniform(0.5, 2.5)
        colour = _colour(rng)
        kind = rng.integers(0, 4)
        if kind == 0:
            cv2.circle(img, (int(x * 16), int(y * 16)), int(s * 8), colour, -1, cv2.LINE_AA, 4)
        elif kind == 1:
            box = cv2.boxPoints(((x, y), (s, s * rng.uniform(0.8, 1.6)), rng.uniform(0, 90)))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
        elif kind == 2:  # a card, perhaps with printing
            box = cv2.boxPoints(((x, y), (s * 2.5, s * 3.5), rng.uniform(0, 90)))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], _colour(rng, light=True), cv2.LINE_AA, 4)
            for _ in range(int(rng.integers(0, 5))):
                cv2.circle(img, (int((x + rng.uniform(-s, s)) * 16), int((y + rng.uniform(-s, s)) * 16)),
                           int(s * rng.uniform(0.05, 0.3) * 16), _colour(rng), -1, cv2.LINE_AA, 4)
        else:  # a counter with a single mark
            box = cv2.boxPoints(((x, y), (s, s), rng.uniform(0, 90)))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
            cv2.putText(img, str(rng.choice(list("ABXK7"))), (int(x - s / 3), int(y + s / 3)),
                        cv2.FONT_HERSHEY_SIMPLEX, s / 40, _colour(rng), max(1, int(s / 15)), cv2.LINE_AA)


def _lay_die(img: np.ndarray, rng: np.random.Generator, x: float, y: float, edge: float, elevation: float,
             light: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """One die of a random kind lying at ``(x, y)`` (pixels of the frame ``img`` is
    :data:`_SS` times the size of), ``edge`` pixels, with its shadow, seen from ``elevation``
    (radians above the table) and lit from ``light``: the image, the face on top and the
    outline points seen (frame pixels)."""
    style = _style(rng)
    shadow = (int((x + edge * 0.25) * 16 * _SS), int((y + edge * 0.3) * 16 * _SS))
    overlay = img.copy()
    cv2.ellipse(overlay, shadow, (int(edge * 0.7 * 16 * _SS), int(edge * 0.6 * 16 * _SS)), 0, 0, 360,
                (0, 0, 0), -1, cv2.LINE_AA, 4)
    dark = float(rng.uniform(0.1, 0.35))
    img = cv2.addWeighted(overlay, dark, img, 1 - dark, 0)
    value = int(rng.integers(1, 7))
    pts = _draw_die(img, (x * _SS, y * _SS), edge * _SS, float(rng.uniform(0, 2 * math.pi)), elevation, value,
                    style, light, rng) / _SS
    return img, value, pts


def throw_onto(frame: np.ndarray, rng: np.random.Generator, dice: list[tuple[float, float, float]],
               elevation_deg: float) -> tuple[np.ndarray, list[tuple[int, tuple[float, float, float, float]]]]:
    """``frame`` (BGR) with d6 dice of random kinds thrown onto it: one at each ``(x, y,
    edge)`` of ``dice`` (pixels), seen from ``elevation_deg`` above the table, lit from a
    random side; the new frame and, for each die, its face on top and its box (x1, y1, x2,
    y2 pixels). The frame's own look (noise, blur, compression) is left as it is, and its
    pixels away from the dice and their shadows are the frame's own."""
    h, w = frame.shape[:2]
    img = cv2.resize(frame, (w * _SS, h * _SS), interpolation=cv2.INTER_LINEAR)
    az = rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(az) * 0.6, math.sin(az) * 0.6, 0.8])
    light /= np.linalg.norm(light)
    thrown: list[tuple[int, tuple[float, float, float, float]]] = []
    for x, y, edge in dice:
        img, value, pts = _lay_die(img, rng, x, y, edge, math.radians(elevation_deg), light)
        x0, y0 = np.clip(pts.min(0), 0, [w, h])
        x1, y1 = np.clip(pts.max(0), 0, [w, h])
        thrown.append((value, (float(x0), float(y0), float(x1), float(y1))))
    drawn = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    out = frame.copy()
    for (x, y, edge), (_, (x0, y0, x1, y1)) in zip(dice, thrown):  # each die and its shadow, pasted
        a0, b0 = max(0, int(min(x0, x - edge)) - 2), max(0, int(min(y0, y - edge)) - 2)
        a1, b1 = min(w, int(max(x1, x + 1.5 * edge)) + 3), min(h, int(max(y1, y + 1.5 * edge)) + 3)
        out[b0:b1, a0:a1] = drawn[b0:b1, a0:a1]
    return out, thrown


#: An ordinary die's edge, mm.
EDGE_MM = (12.0, 19.0)


def places_among(rng: np.random.Generator, truth: dict[str, Any], kit: Any, to_image: Callable[[np.ndarray], Any],
                 markers: Sequence[np.ndarray], count: int, edge_mm: tuple[float, float] = EDGE_MM
                 ) -> list[tuple[float, float, float]]:
    """Where ``count`` dice thrown among a rendered game's pieces land (image x, y and edge,
    pixels): on the board, or up to a fifth of it beside it, in the frame, clear of every
    piece's box (``truth``, :class:`vision.render.renderer.Rendered`'s), of the ``markers``
    (image corners) and of each other; ``kit``: the game's marker layout (its extent and
    millimetres a board unit), ``to_image``: board points to image points. A die that finds
    no place in 200 tries is left out."""
    w, h = truth.get("image_size", (640, 480))
    x0, y0, x1, y1 = kit.extent()
    mx, my = 0.2 * (x1 - x0), 0.2 * (y1 - y0)
    taken = [np.asarray(p["box"], float) for p in [*truth.get("pieces", []), *truth.get("hands", [])]]
    taken += [np.r_[np.min(q, axis=0), np.max(q, axis=0)] for q in markers]
    out: list[tuple[float, float, float]] = []
    for _ in range(count):
        for _try in range(200):
            b = np.array([rng.uniform(x0 - mx, x1 + mx), rng.uniform(y0 - my, y1 + my)])
            edge_units = rng.uniform(*edge_mm) / kit.unit_mm
            (x, y), ex, ey = np.asarray(to_image(np.array([b, b + [edge_units, 0], b + [0, edge_units]])), float)
            edge = float(max(np.hypot(*(ex - (x, y))), np.hypot(*(ey - (x, y)))))
            if not math.isfinite(edge) or not (2 * edge <= x <= w - 2 * edge and 2 * edge <= y <= h - edge):
                continue
            box = np.array([x - edge, y - 1.5 * edge, x + edge, y + edge])
            if all(box[2] < t[0] or t[2] < box[0] or box[3] < t[1] or t[3] < box[1] for t in taken):
                taken.append(box)
                out.append((float(x), float(y), edge))
                break
    return out


def write_dice_among(game: str, folder: str | os.PathLike[str], count: int, seed: int, one_class: bool,
                     most: int = 4, progress: Callable[[int, int], None] | None = None) -> Path:
    """Render ``count`` 640x480 frames of ``game`` (seed ``seed``, hands as its renders have
    them) with 0 to ``most`` d6 dice thrown among its pieces (:func:`places_among`,
    :func:`throw_onto`) into ``folder`` as an ultralytics dataset of dice alone (``images/train``,
    ``labels/train``, ``data.yaml``): each die labelled ``d6`` (``one_class``) or with its face
    (:data:`CLASSES`); the game's own pieces and markers unlabelled, as no dice. Frame ``i``
    from the generator seeded ``[seed, i]`` after the render. Returns the YAML."""
    from calibration.marker_spec import kit_for
    from vision.detect_cells import FrameGeometry
    from vision.render.dataset import write_yaml
    from vision.render.renderer import Renderer, RenderOptions

    root = Path(folder)
    for kind in ("images", "labels"):
        (root / kind / "train").mkdir(parents=True, exist_ok=True)
    renderer = Renderer(game, seed=seed, options=RenderOptions(size=(640, 480)))
    for i in range(count):
        rendered = renderer.render(i)
        truth = rendered.truth
        rng = np.random.default_rng([seed, i])
        image, boxes = rendered.image, []
        if truth.get("board") is not None:
            geometry = FrameGeometry.from_truth(truth)
            kit = kit_for(game, truth.get("position_source", {}).get("options", {}))
            places = places_among(rng, truth, kit, geometry.board_to_image, kit.in_image(geometry.board_to_image),
                                  int(rng.integers(0, most + 1)))
            image, thrown = throw_onto(image, rng, places, float(truth["camera"]["elevation"]))
            boxes = [(0 if one_class else value - 1, box) for value, box in thrown]
        h, w = image.shape[:2]
        stem = f"{i:06d}"
        cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (root / "labels" / "train" / f"{stem}.txt").write_text("".join(
            f"{c} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}\n"
            for c, (x0, y0, x1, y1) in boxes if x1 - x0 > 2 and y1 - y0 > 2), encoding="utf-8")
        if progress is not None:
            progress(i + 1, count)
    path = write_yaml(root, ["d6"] if one_class else list(CLASSES), False)
    doc = (root / "data.yaml").read_text(encoding="utf-8")
    (root / "data.yaml").write_text(doc.replace("val: images/val", "val: images/train"), encoding="utf-8")
    return path


def render_dice(rng: np.random.Generator, size: tuple[int, int] = (640, 640)
                ) -> tuple[np.ndarray, list[tuple[int, float, float, float, float]]]:
    """One frame ``size`` (w, h) of d6 dice: the BGR image and its YOLO labels (class
    0..5 for 1..6 pips, then the box's centre and size as shares of the frame)."""
    w, h = size
    img = cv2.resize(_ground(rng, w, h), (w * _SS, h * _SS), interpolation=cv2.INTER_LINEAR)
    elevation = math.radians(float(rng.choice([90.0, rng.uniform(35, 90), rng.uniform(60, 90)])))
    edge = float(math.exp(rng.uniform(math.log(0.014), math.log(0.09))) * min(w, h))  # a die's edge, px
    _clutter(img, rng, edge * _SS, int(rng.integers(0, 6)))
    az = rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(az) * 0.6, math.sin(az) * 0.6, 0.8])
    light /= np.linalg.norm(light)
    boxes: list[tuple[int, float, float, float, float]] = []
    taken: list[tuple[float, float, float]] = []
    cluster = rng.random() < 0.5  # dice thrown together lie close
    cx0, cy0 = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    for _ in range(int(rng.integers(1, 15))):
        e = edge * rng.uniform(0.85, 1.15)
        for _try in range(20):
            if cluster:
                x, y = cx0 + rng.normal(0, 3 * edge), cy0 + rng.normal(0, 3 * edge)
            else:
                x, y = rng.uniform(e, w - e), rng.uniform(e * 1.5, h - e)
            if e <= x <= w - e and 1.5 * e <= y <= h - e and \
                    all(math.hypot(x - a, y - b) > (e + r) * 0.8 for a, b, r in taken):
                break
        else:
            continue
        taken.append((x, y, e))
        img, value, pts = _lay_die(img, rng, x, y, e, elevation, light)
        x0, y0 = np.clip(pts.min(0), 0, [w, h])
        x1, y1 = np.clip(pts.max(0), 0, [w, h])
        if x1 - x0 > 2 and y1 - y0 > 2:
            boxes.append((value - 1, float((x0 + x1) / 2 / w), float((y0 + y1) / 2 / h),
                          float((x1 - x0) / w), float((y1 - y0) / h)))
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    look = sample_look(rng)
    img = develop(img, look, rng)
    img = cv2.imdecode(np.frombuffer(jpeg(img, look.jpeg_quality), np.uint8), cv2.IMREAD_COLOR)
    return img, boxes


def _write_one(args: tuple[str, int, int, tuple[int, int], int]) -> int:
    folder, seed, index, size, val_every = args
    root = Path(folder)
    split = "val" if val_every > 0 and index % val_every == 0 else "train"
    img, boxes = render_dice(np.random.default_rng([seed, index]), size)
    stem = f"{index:06d}"
    cv2.imwrite(str(root / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (root / "labels" / split / f"{stem}.txt").write_text(
        "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in boxes), encoding="utf-8")
    return len(boxes)


def write_dice_dataset(folder: str | os.PathLike[str], count: int, seed: int = 0, size: tuple[int, int] = (640, 640),
                       val_every: int = 10, workers: int = 1,
                       progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Render ``count`` frames of d6 dice with ``seed`` into ``folder`` as an ultralytics
    dataset (``data.yaml``, ``images/``, ``labels/``, ``dataset.json``): frame 0 and every
    ``val_every``-th after it for validation; ``workers`` processes. The same seed gives
    the same files (frame ``i`` from the generator seeded ``[seed, i]``)."""
    from vision.render.dataset import write_yaml

    root = Path(folder)
    for kind in ("images", "labels"):
        for split in ("train", "val"):
            (root / kind / split).mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    jobs = [(str(root), seed, i, tuple(size), val_every) for i in range(count)]
    dice = 0
    if workers <= 1:
        for n, job in enumerate(jobs):
            dice += _write_one(job)  # type: ignore[arg-type]
            if progress:
                progress(n + 1, count)
    else:
        with ProcessPoolExecutor(workers) as pool:
            for n, found in enumerate(pool.map(_write_one, jobs, chunksize=16)):
                dice += found
                if progress:
                    progress(n + 1, count)
    yaml_path = write_yaml(root, list(CLASSES), keypoints=False)
    manifest = {"game": DICE_FINDER, "seed": seed, "count": count, "size": list(size), "val_every": val_every,
                "classes": list(CLASSES), "label_format": "yolo-detect", "dice": dice}
    (root / "dataset.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return {"folder": str(root), "yaml": str(yaml_path), "count": count, "dice": dice,
            "seconds": round(time.perf_counter() - began, 3)}

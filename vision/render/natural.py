"""Procedural outdoor pieces for The Game: stones, leaves, sticks and wooden blocks, each with
a coloured sticker (the front dot) at its front, and the same objects without a dot as
distractors lying about.

A piece is made from its footprint (the engine's shape, in millimetres in the piece's own
frame: ``x`` forward) and a seed, so the same piece looks the same in every frame. The top
is drawn from a height field (a dome for stones, a cylinder across a stick, flat for a
leaf) with light-independent shading: slopes darker than the crown, as under an open sky.

>>> import numpy as np
>>> outline = ellipse_outline(40.0, 30.0)
>>> piece = make_natural("stone", outline, seed=3, dot=(40, 40, 210))
>>> piece.top.shape[2], piece.dot is not None
(4, True)
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import cv2
import numpy as np

from vision.render.scene import Drawn

__all__ = ["make_natural", "ellipse_outline", "material_for", "MATERIALS", "PX_PER_MM"]

PX_PER_MM = 4.0
MATERIALS = ("stone", "leaf", "stick", "block")

_STONE = [(120, 125, 128), (95, 105, 115), (150, 160, 170), (70, 80, 95), (160, 175, 190), (60, 62, 66),
          (110, 135, 160), (130, 130, 120)]
_LEAF = [(40, 120, 60), (30, 90, 50), (30, 150, 190), (20, 90, 170), (30, 60, 130), (40, 70, 90), (50, 140, 110)]
_BARK = [(45, 70, 100), (35, 55, 75), (70, 95, 120), (60, 70, 80), (90, 120, 150)]
_BLOCK = [(60, 140, 200), (40, 60, 180), (160, 100, 40), (50, 150, 80), (70, 200, 230)]

_CACHE: OrderedDict[Any, Drawn] = OrderedDict()


def ellipse_outline(length: float, width: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([length / 2 * np.cos(t), width / 2 * np.sin(t)], 1)


def material_for(shape: str, length: float, width: float, rng: np.random.Generator) -> str:
    """A plausible object for an engine footprint: thin rectangles are sticks, other
    rectangles wooden blocks, polygons leaves or flat stones, ellipses stones."""
    if shape == "rectangle":
        return "stick" if length >= 3 * width else "block"
    if shape == "polygon":
        return "leaf" if rng.random() < 0.6 else "stone"
    return "stone"


def make_natural(material: str, outline: np.ndarray, seed: int, dot: tuple[int, int, int] | None,
                 dot_mm: float | None = None, sticker: np.ndarray | None = None) -> Drawn:
    """The drawing of a natural piece whose footprint is ``outline`` (N x 2 mm, ``x``
    forward). ``dot``: the sticker's BGR colour, ``None`` for a distractor; ``sticker``:
    the kit's printed sticker (BGRA at :data:`PX_PER_MM`) to use instead of a plain dot."""
    key = (material, np.round(outline, 2).tobytes(), seed, dot, dot_mm, None if sticker is None else sticker.shape)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    rng = np.random.default_rng([seed, 4242])
    outline = np.asarray(outline, float)
    if material == "leaf":
        drawn = _leaf(outline, rng)
    elif material == "stick":
        drawn = _stick(outline, rng)
    elif material == "block":
        drawn = _block(outline, rng)
    else:
        drawn = _stone(outline, rng)
    if dot is not None:
        drawn = _with_dot(drawn, outline, dot, dot_mm if sticker is None else sticker.shape[1] / PX_PER_MM, sticker)
    _CACHE[key] = drawn
    while len(_CACHE) > 400:
        _CACHE.popitem(last=False)
    return drawn


# -- drawing --------------------------------------------------------------------------------

def _canvas(outline: np.ndarray, pad_mm: float = 1.0) -> tuple[np.ndarray, np.ndarray, float, float]:
    """An empty BGRA picture covering the outline (centred on the piece's origin) and the
    outline in its pixels."""
    half = np.abs(outline).max(axis=0) + pad_mm
    w = int(math.ceil(2 * half[0] * PX_PER_MM))
    h = int(math.ceil(2 * half[1] * PX_PER_MM))
    img = np.zeros((h, w, 4), np.uint8)
    px = outline * PX_PER_MM + [w / 2, h / 2]
    return img, px, w / PX_PER_MM, h / PX_PER_MM


def _mask(shape: tuple[int, int], px: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    return mask


def _noise(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> np.ndarray:
    n = rng.standard_normal(shape).astype(np.float32)
    n = cv2.GaussianBlur(n, (0, 0), sigma)
    return n / (n.std() + 1e-6)


def _stone(outline: np.ndarray, rng: np.random.Generator) -> Drawn:
    # roughen the outline a little: real stones are not ellipses
    t = np.arctan2(outline[:, 1], outline[:, 0])
    bumps = 1 + 0.05 * np.sin(3 * t + rng.uniform(0, 6)) + 0.03 * np.sin(5 * t + rng.uniform(0, 6))
    rough = outline * bumps[:, None]
    img, px, _, _ = _canvas(rough)
    h, w = img.shape[:2]
    mask = _mask((h, w), px)
    dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
    top = max(float(dist.max()), 1.0)
    height = np.sqrt(np.clip(dist / top, 0, 1))  # a dome
    gy, gx = np.gradient(height * top * 0.9)
    nz = 1 / np.sqrt(1 + gx**2 + gy**2)
    shade = 0.55 + 0.5 * nz - 0.12 * gx - 0.12 * gy  # a little brighter towards the upper left
    base = np.asarray(_STONE[int(rng.integers(len(_STONE)))], np.float32) * rng.uniform(0.85, 1.15)
    grain = 1 + 0.10 * _noise(rng, (h, w), 1.0) + 0.08 * _noise(rng, (h, w), 6.0)
    colour = base[None, None, :] * (shade * grain)[..., None]
    # speckles and a vein now and then
    speck = _noise(rng, (h, w), 0.6) > 2.2
    colour[speck] *= 0.6
    if rng.random() < 0.35:
        a = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:h, 0:w]
        d = np.abs((xx - w / 2) * math.sin(a) - (yy - h / 2) * math.cos(a) - rng.uniform(-h / 4, h / 4))
        colour *= (1 + 0.45 * np.exp(-(d / 2.5) ** 2))[..., None]
    img[..., :3] = np.clip(colour, 0, 255).astype(np.uint8)
    img[..., 3] = mask
    edge = tuple(int(c) for c in np.clip(base * 0.55, 0, 255))
    extent = np.abs(rough).max(axis=0)
    thickness = float(min(extent) * rng.uniform(0.7, 1.1))
    return Drawn("stone", rough, thickness, img, PX_PER_MM, edge)  # type: ignore[arg-type]


def _leaf(outline: np.ndarray, rng: np.random.Generator) -> Drawn:
    """A leaf filling the footprint's length: a pointed blade, stalk at the back."""
    lo, hi = outline.min(axis=0), outline.max(axis=0)
    length, width = hi[0] - lo[0], hi[1] - lo[1]
    cx = (lo[0] + hi[0]) / 2
    t = np.linspace(0, np.pi, 20)
    x = cx - length / 2 * np.cos(t)  # back to front
    half = width / 2 * np.sin(t) ** 0.8 * (1 - 0.25 * np.cos(t))
    shape = np.vstack([np.stack([x, half], 1), np.stack([x[::-1], -half[::-1]], 1)])
    img, px, _, _ = _canvas(shape)
    h, w = img.shape[:2]
    mask = _mask((h, w), px)
    base = np.asarray(_LEAF[int(rng.integers(len(_LEAF)))], np.float32) * rng.uniform(0.8, 1.15)
    shade = 1 + 0.10 * _noise(rng, (h, w), 3.0) + 0.05 * _noise(rng, (h, w), 0.8)
    colour = base[None, None, :] * shade[..., None]
    img[..., :3] = np.clip(colour, 0, 255).astype(np.uint8)
    img[..., 3] = mask
    vein = tuple(int(c) for c in np.clip(base * 1.25 + 20, 0, 255))
    c0 = (cx - length / 2 + 1) * PX_PER_MM + w / 2, h / 2
    c1 = (cx + length / 2) * PX_PER_MM + w / 2, h / 2
    cv2.line(img, (int(c0[0] * 16), int(c0[1] * 16)), (int(c1[0] * 16), int(c1[1] * 16)), (*vein, 255), 2,
             cv2.LINE_AA, 4)
    for k in range(1, 6):
        sx = c0[0] + (c1[0] - c0[0]) * (0.15 + 0.14 * k)
        for sgn in (-1, 1):
            ex = sx + width * 0.3 * PX_PER_MM
            ey = h / 2 + sgn * width * 0.38 * PX_PER_MM * math.sin(math.pi * (0.15 + 0.14 * k))
            cv2.line(img, (int(sx * 16), int(h / 2 * 16)), (int(ex * 16), int(ey * 16)), (*vein, 200), 1,
                     cv2.LINE_AA, 4)
    img[..., 3] = mask
    edge = tuple(int(c) for c in np.clip(base * 0.7, 0, 255))
    return Drawn("leaf", shape, 0.6, img, PX_PER_MM, edge)  # type: ignore[arg-type]


def _stick(outline: np.ndarray, rng: np.random.Generator) -> Drawn:
    lo, hi = outline.min(axis=0), outline.max(axis=0)
    width = hi[1] - lo[1]
    # a slightly irregular band with rounded ends
    n = 16
    xs = np.linspace(lo[0], hi[0], n)
    wob = rng.normal(0, 0.06 * width, n)
    wob = np.convolve(wob, np.ones(3) / 3, mode="same")
    halfw = width / 2 * (1 + rng.normal(0, 0.05, n))
    shape = np.vstack([np.stack([xs, wob + halfw], 1), np.stack([xs[::-1], (wob - halfw)[::-1]], 1)])
    img, px, _, _ = _canvas(shape)
    h, w = img.shape[:2]
    mask = _mask((h, w), px)
    yy = (np.arange(h, dtype=np.float32)[:, None] - h / 2) / (width / 2 * PX_PER_MM)
    across = np.clip(1 - yy**2, 0, 1) ** 0.5 * np.ones((1, w), np.float32)  # a cylinder
    base = np.asarray(_BARK[int(rng.integers(len(_BARK)))], np.float32) * rng.uniform(0.85, 1.15)
    bark = 1 + 0.18 * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), sigmaX=6, sigmaY=0.8)
    shade = (0.5 + 0.55 * across) * bark
    colour = base[None, None, :] * shade[..., None]
    img[..., :3] = np.clip(colour, 0, 255).astype(np.uint8)
    img[..., 3] = mask
    # a cut end shows pale wood
    end = (hi[0] * PX_PER_MM + w / 2, h / 2)
    cv2.ellipse(img, (int(end[0] * 16 - 24), int(end[1] * 16)), (int(width * 0.25 * PX_PER_MM * 16),
                int(width * 0.45 * PX_PER_MM * 16)), 0, 0, 360, (120, 170, 200, 255), -1, cv2.LINE_AA, 4)
    edge = tuple(int(c) for c in np.clip(base * 0.6, 0, 255))
    return Drawn("stick", shape, float(width * 0.9), img, PX_PER_MM, edge)  # type: ignore[arg-type]


def _block(outline: np.ndarray, rng: np.random.Generator) -> Drawn:
    img, px, _, _ = _canvas(outline)
    h, w = img.shape[:2]
    mask = _mask((h, w), px)
    base = np.asarray(_BLOCK[int(rng.integers(len(_BLOCK)))], np.float32)
    grain = 1 + 0.06 * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), sigmaX=8, sigmaY=0.7)
    img[..., :3] = np.clip(base[None, None, :] * grain[..., None], 0, 255).astype(np.uint8)
    img[..., 3] = mask
    lo, hi = outline.min(axis=0), outline.max(axis=0)
    edge = tuple(int(c) for c in np.clip(base * 0.65, 0, 255))
    return Drawn("block", outline, float(min(hi - lo) * 0.8), img, PX_PER_MM, edge)  # type: ignore[arg-type]


def _with_dot(drawn: Drawn, outline: np.ndarray, colour: tuple[int, int, int], dot_mm: float | None,
              sticker: np.ndarray | None = None) -> Drawn:
    """Stick the front dot on: a round sticker near the front end (the kit's printed sticker
    when given, else a plain coloured disc with a white rim), with a faint gloss."""
    lo, hi = outline.min(axis=0), outline.max(axis=0)
    width = hi[1] - lo[1]
    d = dot_mm if dot_mm is not None else float(np.clip(width * 0.45, 6.0, 12.0))
    x = hi[0] - max(d * 0.75, (hi[0] - lo[0]) * 0.18)
    x = max(x, (lo[0] + hi[0]) / 2)
    img = drawn.top.copy()
    h, w = img.shape[:2]
    c = (x * PX_PER_MM + w / 2, h / 2)
    r = d / 2 * PX_PER_MM
    if sticker is not None:
        sh, sw = sticker.shape[:2]
        m = np.array([[1.0, 0, c[0] - (sw - 1) / 2], [0, 1.0, c[1] - (sh - 1) / 2]])
        warped = cv2.warpAffine(sticker, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=(0, 0, 0, 0))
        a = warped[..., 3:].astype(np.float32) / 255.0
        img[..., :3] = (img[..., :3] * (1 - a) + warped[..., :3] * a).astype(np.uint8)
        img[..., 3] = np.maximum(img[..., 3], warped[..., 3])
    else:
        cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), int((r + 0.6) * 16), (235, 235, 235, 255), -1,
                   cv2.LINE_AA, 4)
        cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), int(r * 16), (*colour, 255), -1, cv2.LINE_AA, 4)
    gloss = tuple(int(min(255, v * 0.6 + 110)) for v in colour)
    cv2.circle(img, (int((c[0] - r * 0.35) * 16), int((c[1] - r * 0.35) * 16)), int(r * 0.3 * 16), (*gloss, 255),
               -1, cv2.LINE_AA, 4)
    return Drawn(drawn.material, drawn.outline, drawn.height, img, drawn.px_per_mm, drawn.edge, (float(x), 0.0))

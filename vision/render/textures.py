"""Procedural surfaces: table tops, cloth, the floor, and outdoor ground, made with numpy/OpenCV.

Every texture is a tileable BGR image (``TILE`` pixels square) built from a seed, so the
same seed gives the same pixels on any machine. Textures are costly to make (tens of
milliseconds) and cheap to use, so a :class:`TextureBank` keeps a few variants of each kind
and the renderer varies them per image with a tint, a scale and a rotation.

Kinds: indoors ``wood``, ``painted-wood``, ``felt``, ``linen``, ``gingham``, ``laminate``,
``granite``; the floor ``carpet``; outdoors ``grass``, ``soil``, ``sand``, ``gravel``,
``leaves``.

>>> tex = make_texture("felt", seed=1)
>>> tex.shape, tex.dtype.name
((512, 512, 3), 'uint8')
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

__all__ = [
    "TILE",
    "INDOOR",
    "OUTDOOR",
    "FLOORS",
    "KINDS",
    "MM_PER_PIXEL",
    "make_texture",
    "periodic_noise",
    "TextureBank",
]

TILE = 512

INDOOR = ("wood", "painted-wood", "felt", "linen", "gingham", "laminate", "granite")
OUTDOOR = ("grass", "soil", "sand", "gravel", "leaves")
FLOORS = ("carpet", "wood")

#: Millimetres one texture pixel covers (a range: the renderer picks a scale per image).
MM_PER_PIXEL: dict[str, tuple[float, float]] = {
    "wood": (0.9, 1.6),
    "painted-wood": (0.9, 1.6),
    "felt": (0.4, 0.9),
    "linen": (0.35, 0.6),
    "gingham": (0.5, 1.0),
    "laminate": (0.6, 1.2),
    "granite": (0.5, 1.0),
    "carpet": (1.5, 3.0),
    "grass": (0.5, 1.0),
    "soil": (0.6, 1.2),
    "sand": (0.5, 1.0),
    "gravel": (0.5, 1.1),
    "leaves": (0.8, 1.5),
}


def periodic_noise(rng: np.random.Generator, n: int = TILE, beta: float = 1.0,
                   stretch: tuple[float, float] = (1.0, 1.0), cutoff: float = 0.0) -> np.ndarray:
    """Tileable noise with a 1/f^beta spectrum, zero mean and unit spread (float32).

    ``stretch`` > 1 along an axis makes features longer along it (wood grain);
    ``cutoff`` removes frequencies below it (in cycles per tile) for fine-only noise.
    """
    white = rng.standard_normal((n, n))
    f = np.fft.fftfreq(n) * n
    fx, fy = np.meshgrid(f * stretch[0], f * stretch[1])
    r = np.sqrt(fx**2 + fy**2)
    r[0, 0] = 1.0
    spec = np.fft.fft2(white) / r**beta
    spec[0, 0] = 0.0
    if cutoff > 0:
        spec[np.hypot(*np.meshgrid(f, f)) < cutoff] = 0.0
    out = np.real(np.fft.ifft2(spec))
    out -= out.mean()
    out /= out.std() + 1e-9
    return out.astype(np.float32)


def _colourise(shade: np.ndarray, colour: tuple[float, float, float], spread: float = 1.0) -> np.ndarray:
    """BGR image: ``colour`` scaled by ``1 + spread * shade`` (shade roughly in -1..1)."""
    c = np.asarray(colour, np.float32)[None, None, :]
    return np.clip(c * (1.0 + spread * shade[..., None]), 0, 255).astype(np.uint8)


def wrap_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur that wraps round the tile's edges (keeps a texture tileable)."""
    pad = int(math.ceil(3 * sigma)) + 1
    axes = ((pad, pad), (pad, pad)) + (((0, 0),) if img.ndim == 3 else ())
    big = np.pad(img, axes, mode="wrap")
    return cv2.GaussianBlur(big, (0, 0), sigma)[pad:-pad, pad:-pad]


def _wrap_offsets(x: float, y: float, reach: float, n: int = TILE) -> list[tuple[int, int]]:
    """Copies needed so a shape near an edge wraps round the tile."""
    xs = [0] + ([n] if x < reach else []) + ([-n] if x > n - reach else [])
    ys = [0] + ([n] if y < reach else []) + ([-n] if y > n - reach else [])
    return [(dx, dy) for dx in xs for dy in ys]


# -- indoor ---------------------------------------------------------------------------------

_WOODS = [(60, 105, 160), (40, 75, 125), (30, 52, 85), (95, 150, 200), (70, 120, 175), (35, 45, 60)]
_PAINTS = [(235, 235, 232), (200, 205, 210), (60, 60, 62), (150, 165, 120), (120, 90, 60)]
_CLOTHS = [(60, 110, 40), (110, 60, 30), (50, 50, 140), (80, 80, 80), (130, 130, 130), (40, 30, 100),
           (150, 120, 90), (70, 40, 60)]
_GINGHAM = [(40, 40, 190), (150, 80, 30), (50, 130, 60), (60, 60, 60), (140, 60, 120)]


def _wood(rng: np.random.Generator, painted: bool = False) -> np.ndarray:
    n = TILE
    plank = n // int(rng.choice([2, 4, 4, 8]))
    y = np.arange(n, dtype=np.float32)[:, None]
    period = float(rng.uniform(9, 22))
    warp = periodic_noise(rng, n, 2.6, (1.0, 0.6)) * period * rng.uniform(1.5, 4.0)
    warp += periodic_noise(rng, n, 1.6, (1.0, 0.3)) * period * 0.25
    fibre = periodic_noise(rng, n, 0.8, (1.0, 0.06))
    rings = np.sin(2 * np.pi * (y + warp) / period)
    rings = np.sign(rings) * np.abs(rings) ** 3  # thin dark late-wood lines
    figure = periodic_noise(rng, n, 1.8, (1.0, 0.3))
    shade = 0.07 * rings + 0.05 * fibre + 0.06 * figure
    row = (np.arange(n) // plank)[:, None]
    plank_shift = rng.normal(0, 0.08, n // plank + 1).astype(np.float32)
    shade = shade + plank_shift[row]
    edge = (np.arange(n) % plank)[:, None]
    gap = ((edge < 1) | (edge > plank - 2)).astype(np.float32)
    # plank ends, staggered
    ends = np.zeros((n, n), np.float32)
    for k in range(n // plank):
        x0 = int(rng.integers(0, n))
        ends[k * plank:(k + 1) * plank, x0:x0 + 2] = 1.0
    shade = shade - 0.35 * np.maximum(gap, ends)
    if painted:
        colour = _PAINTS[int(rng.integers(len(_PAINTS)))]
        shade = 0.25 * shade + 0.02 * periodic_noise(rng, n, 1.2)
    else:
        colour = _WOODS[int(rng.integers(len(_WOODS)))]
    return _colourise(shade, colour)


def _felt(rng: np.random.Generator) -> np.ndarray:
    colour = _CLOTHS[int(rng.integers(len(_CLOTHS)))]
    shade = 0.07 * periodic_noise(rng, TILE, 0.4) + 0.05 * periodic_noise(rng, TILE, 1.6)
    return _colourise(shade, colour)


def _linen(rng: np.random.Generator) -> np.ndarray:
    n = TILE
    colour = [(205, 215, 220), (180, 190, 200), (120, 150, 170), (90, 60, 50), (60, 70, 110)][int(rng.integers(5))]
    x = np.arange(n, dtype=np.float32)
    weave = (np.sin(2 * np.pi * x / 4)[None, :] * np.sin(2 * np.pi * x / 4)[:, None])
    slub = periodic_noise(rng, n, 1.0, (0.05, 1.0)) + periodic_noise(rng, n, 1.0, (1.0, 0.05))
    shade = 0.05 * weave + 0.05 * slub + 0.04 * periodic_noise(rng, n, 1.8)
    return _colourise(shade, colour)


def _gingham(rng: np.random.Generator) -> np.ndarray:
    n = TILE
    period = int(rng.choice([32, 64]))
    x = np.arange(n)
    bx = ((x // (period // 2)) % 2 == 0).astype(np.float32)
    t = 0.5 * (bx[None, :] + bx[:, None])  # 0 white, 0.5 tint, 1 full colour
    colour = np.asarray(_GINGHAM[int(rng.integers(len(_GINGHAM)))], np.float32)
    white = np.array([235, 238, 240], np.float32)
    img = white[None, None, :] * (1 - t[..., None]) + colour[None, None, :] * t[..., None]
    weave = np.sin(2 * np.pi * x / 3)[None, :] * np.sin(2 * np.pi * x / 3)[:, None]
    img *= (1 + 0.04 * weave + 0.04 * periodic_noise(rng, n, 1.5))[..., None]
    img = wrap_blur(img, 0.8)
    return np.clip(img, 0, 255).astype(np.uint8)


def _laminate(rng: np.random.Generator) -> np.ndarray:
    colour = [(225, 225, 222), (200, 200, 195), (170, 185, 195), (40, 40, 42), (210, 220, 230)][int(rng.integers(5))]
    shade = 0.03 * periodic_noise(rng, TILE, 1.4) + 0.015 * periodic_noise(rng, TILE, 0.0)
    return _colourise(shade, colour)


def _granite(rng: np.random.Generator) -> np.ndarray:
    n = TILE
    base = [(60, 60, 60), (170, 170, 165), (40, 35, 30), (190, 185, 180)][int(rng.integers(4))]
    img = np.empty((n, n, 3), np.float32)
    img[:] = base
    img *= (1 + 0.08 * periodic_noise(rng, n, 1.5))[..., None]
    for _ in range(3):
        speck = periodic_noise(rng, n, 0.0)
        mask = (speck > rng.uniform(1.3, 2.0)).astype(np.float32)
        mask = wrap_blur(mask, 0.7)
        tone = rng.uniform(-0.6, 0.8)
        img *= (1 + tone * mask)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _carpet(rng: np.random.Generator) -> np.ndarray:
    colour = [(60, 60, 70), (80, 95, 110), (50, 60, 90), (110, 120, 125), (40, 45, 50)][int(rng.integers(5))]
    shade = 0.12 * periodic_noise(rng, TILE, 0.3) + 0.1 * periodic_noise(rng, TILE, 1.8)
    return _colourise(shade, colour)


# -- outdoor --------------------------------------------------------------------------------

def _soil_base(rng: np.random.Generator, colour: tuple[int, int, int] | None = None) -> np.ndarray:
    colour = colour or [(45, 70, 95), (35, 55, 80), (60, 85, 110), (40, 50, 60)][int(rng.integers(4))]
    shade = 0.18 * periodic_noise(rng, TILE, 1.6) + 0.12 * periodic_noise(rng, TILE, 0.6)
    img = _colourise(shade, colour).astype(np.float32)
    clods = periodic_noise(rng, TILE, 0.9)
    img *= (1 + 0.25 * np.tanh(clods))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _soil(rng: np.random.Generator) -> np.ndarray:
    img = _soil_base(rng)
    _pebbles(rng, img, count=int(rng.integers(60, 300)), size=(1.0, 4.0))
    return img


def _grass(rng: np.random.Generator) -> np.ndarray:
    img = _soil_base(rng, (40, 70, 60))
    dry = rng.uniform(0, 0.6)
    patch = periodic_noise(rng, TILE, 2.0)
    blades = int(rng.integers(16000, 26000))
    xs = rng.uniform(0, TILE, blades)
    ys = rng.uniform(0, TILE, blades)
    ang = rng.uniform(0, 2 * np.pi, blades)
    length = rng.uniform(5, 16, blades)
    for i in range(blades):
        p = patch[int(ys[i]), int(xs[i])]
        g = rng.uniform(0.55, 1.15) * (1 + 0.15 * p)
        yellow = dry * (0.5 + 0.5 * math.tanh(p))
        colour = (float(40 * g), float((120 + 40 * yellow) * g), float((60 + 90 * yellow) * g))
        dx, dy = math.cos(ang[i]) * length[i], math.sin(ang[i]) * length[i]
        for ox, oy in _wrap_offsets(xs[i], ys[i], 17):
            cv2.line(img, (int(xs[i] + ox), int(ys[i] + oy)), (int(xs[i] + ox + dx), int(ys[i] + oy + dy)),
                     colour, 1, cv2.LINE_AA)
    return img


def _sand(rng: np.random.Generator) -> np.ndarray:
    n = TILE
    colour = [(150, 190, 215), (140, 175, 200), (170, 200, 220), (120, 150, 175)][int(rng.integers(4))]
    y = np.arange(n, dtype=np.float32)[:, None]
    ripples = np.sin(2 * np.pi * (y + periodic_noise(rng, n, 2.0, (0.4, 1.0)) * 12) / (n / 16))
    shade = 0.05 * ripples + 0.05 * periodic_noise(rng, n, 1.5) + 0.08 * periodic_noise(rng, n, 0.0)
    img = _colourise(shade, colour)
    _pebbles(rng, img, count=int(rng.integers(20, 120)), size=(0.8, 2.5))
    return img


def _gravel(rng: np.random.Generator) -> np.ndarray:
    img = _soil_base(rng, (70, 80, 90))
    _pebbles(rng, img, count=int(rng.integers(2500, 4000)), size=(3.0, 9.0))
    return img


def _leaves(rng: np.random.Generator) -> np.ndarray:
    img = _grass(rng) if rng.random() < 0.4 else _soil_base(rng)
    palette = [(20, 90, 160), (20, 60, 120), (30, 140, 200), (25, 40, 90), (30, 110, 110), (40, 80, 70)]
    for _ in range(int(rng.integers(150, 400))):
        x, y = rng.uniform(0, TILE, 2)
        size = rng.uniform(10, 30)
        ang = rng.uniform(0, 2 * np.pi)
        colour = np.asarray(palette[int(rng.integers(len(palette)))], float) * rng.uniform(0.6, 1.2)
        t = np.linspace(0, 2 * np.pi, 18, endpoint=False)
        lx = size * np.cos(t)
        ly = size * 0.45 * np.sin(t) * np.abs(np.sin(t / 2)) ** 0.3
        pts = np.stack([x + lx * math.cos(ang) - ly * math.sin(ang), y + lx * math.sin(ang) + ly * math.cos(ang)], 1)
        for ox, oy in _wrap_offsets(x, y, size + 1):
            q = np.round((pts + (ox, oy)) * 16).astype(np.int32)
            cv2.fillPoly(img, [q], colour.tolist(), cv2.LINE_AA, shift=4)
            a = (int((x + ox - size * math.cos(ang)) * 16), int((y + oy - size * math.sin(ang)) * 16))
            b = (int((x + ox + size * math.cos(ang)) * 16), int((y + oy + size * math.sin(ang)) * 16))
            cv2.line(img, a, b, (colour * 0.7).tolist(), 1, cv2.LINE_AA, shift=4)
    return img


def _pebbles(rng: np.random.Generator, img: np.ndarray, count: int, size: tuple[float, float]) -> None:
    """Small stones with a lit side and a dark rim, drawn in place (wrapping round the tile)."""
    tones = [(120, 125, 130), (90, 100, 110), (150, 150, 145), (80, 95, 120), (60, 62, 65), (170, 175, 180)]
    for _ in range(count):
        x, y = rng.uniform(0, TILE, 2)
        a = rng.uniform(*size)
        b = a * rng.uniform(0.55, 1.0)
        ang = float(rng.uniform(0, 180))
        tone = np.asarray(tones[int(rng.integers(len(tones)))], float) * rng.uniform(0.75, 1.2)
        for ox, oy in _wrap_offsets(x, y, a + 2):
            c = (int((x + ox) * 16), int((y + oy) * 16))
            axes = (max(1, int(a * 16)), max(1, int(b * 16)))
            cv2.ellipse(img, (c[0] + 8, c[1] + 12), axes, ang, 0, 360, (tone * 0.45).tolist(), -1, cv2.LINE_AA, 4)
            cv2.ellipse(img, c, axes, ang, 0, 360, tone.tolist(), -1, cv2.LINE_AA, 4)
            hi = (max(1, axes[0] // 2), max(1, axes[1] // 2))
            cv2.ellipse(img, (c[0] - axes[0] // 4, c[1] - axes[1] // 4), hi, ang, 0, 360,
                        np.minimum(tone * 1.25, 255).tolist(), -1, cv2.LINE_AA, 4)


_MAKERS: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "wood": _wood,
    "painted-wood": lambda rng: _wood(rng, painted=True),
    "felt": _felt,
    "linen": _linen,
    "gingham": _gingham,
    "laminate": _laminate,
    "granite": _granite,
    "carpet": _carpet,
    "grass": _grass,
    "soil": _soil,
    "sand": _sand,
    "gravel": _gravel,
    "leaves": _leaves,
}

KINDS = tuple(_MAKERS)


def make_texture(kind: str, seed: int) -> np.ndarray:
    """A tileable ``TILE`` x ``TILE`` BGR texture of ``kind``, the same for the same seed."""
    try:
        maker = _MAKERS[kind]
    except KeyError:
        raise ValueError(f"unknown texture {kind!r} (known: {', '.join(KINDS)})") from None
    rng = np.random.default_rng([sum(map(ord, kind)), seed])
    img = maker(rng)
    # soften the tile a little: real surfaces are photographed through a lens
    return wrap_blur(img, 0.6)


class TextureBank:
    """A few variants of each texture kind, made on first use and kept.

    >>> bank = TextureBank(variants=2)
    >>> bank.get("felt", 3) is bank.get("felt", 1)   # 3 % 2 == 1
    True
    """

    def __init__(self, variants: int = 3) -> None:
        self.variants = variants
        self._cache: dict[tuple[str, int], np.ndarray] = {}

    def get(self, kind: str, index: int) -> np.ndarray:
        key = (kind, index % self.variants)
        tex = self._cache.get(key)
        if tex is None:
            tex = make_texture(kind, key[1])
            self._cache[key] = tex
        return tex

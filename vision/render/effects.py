"""Light and sensor: what turns a clean composite into something a phone might have taken.

:class:`Look` holds every choice (drawn once per image by :func:`sample_look`), and
:func:`develop` applies them to the composed canvas in one pass of float arithmetic:

* colour temperature (a white balance that is off), exposure and contrast;
* light gradients: a soft linear fall-off across the frame, a vignette and a warm or cold
  pool of light;
* glare: the reflection of a lamp or window on glossy paper, a bright washed-out blob;
* focus blur (a tilt of the plane of focus: sharp in one band, softer away from it) and
  motion blur (a short streak in one direction);
* sensor noise (luminance and colour) from a bank of noise tiles;
* JPEG compression happens when the image is written (its quality is part of the look).

Hard and soft shadows of the pieces and hands are drawn by the compositor, which knows the
light's direction (:attr:`Look.light_azimuth`, :attr:`Look.light_elevation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

__all__ = ["Look", "sample_look", "develop", "NoiseBank", "jpeg"]


@dataclass(frozen=True)
class Look:
    """Every lighting and sensor choice of one image (see the module docstring)."""

    light_azimuth: float = 45.0  # degrees, direction the light comes from, in the table plane
    light_elevation: float = 55.0  # degrees above the table
    shadow_strength: float = 0.45  # 0: no shadows, 1: black shadows
    shadow_softness: float = 1.5  # blur of shadow edges, in millimetres
    ambient: float = 0.55  # share of light that is not directional (fills the dark sides)
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    exposure: float = 1.0
    contrast: float = 1.0
    gradient: tuple[float, float, float] = (0.0, 0.0, 0.0)  # strength, angle (deg), offset
    vignette: float = 0.15
    pool: tuple[float, float, float, float] = (0.0, 0.5, 0.5, 0.5)  # strength, x, y, radius (frame shares)
    glare: tuple[float, float, float, float] = (0.0, 0.5, 0.5, 0.1)  # strength, x, y, radius
    cast_shadow: tuple[float, ...] = ()  # a large hard shadow: strength, then polygon x,y shares
    focus_blur: float = 0.0  # sigma in pixels at the edge of the sharp band
    focus_band: tuple[float, float] = (0.5, 0.0)  # centre (share of height), tilt (radians)
    motion_blur: tuple[float, float] = (0.0, 0.0)  # length in pixels, angle in degrees
    noise: float = 2.0  # luminance noise sigma (grey levels)
    chroma_noise: float = 1.0
    jpeg_quality: int = 90
    noise_seed: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            out[name] = [round(float(x), 5) for x in v] if isinstance(v, tuple) else (
                round(float(v), 5) if isinstance(v, float) else v)
        return out


def sample_look(rng: np.random.Generator, outdoor: bool = False) -> Look:
    """A random but plausible look: mostly ordinary room or daylight, sometimes harsh."""
    kelvin = float(rng.uniform(2700, 7500)) if not outdoor else float(rng.uniform(4500, 8000))
    wb = _white_balance(kelvin)
    hard = rng.random() < (0.5 if outdoor else 0.3)
    glare = (0.0, 0.5, 0.5, 0.1)
    if rng.random() < (0.04 if outdoor else 0.25):  # glossy paper indoors; outdoors only sun flare
        glare = (float(rng.uniform(0.25, 0.8)), float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)),
                 float(rng.uniform(0.04, 0.16)))
    cast: tuple[float, ...] = ()
    if rng.random() < 0.15:
        # the shadow of something out of frame (a person, a lamp, a branch) over one side: a
        # blob with a smoothly wandering edge, centred off the frame
        a = rng.uniform(0, 2 * math.pi)
        cx, cy = 0.5 + 0.8 * math.cos(a), 0.5 + 0.8 * math.sin(a)
        n = 24
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        wander = np.zeros(n)
        for k in (1, 2, 3):
            wander += rng.normal(0, 0.12 / k) * np.cos(k * t + rng.uniform(0, 2 * math.pi))
        r = rng.uniform(0.45, 0.8) * (1 + wander)
        pts = np.stack([cx + r * np.cos(t) * rng.uniform(0.8, 1.3), cy + r * np.sin(t)], 1).ravel()
        cast = (float(rng.uniform(0.2, 0.45)), *[float(p) for p in pts])
    blur = float(rng.choice([0.0, 0.0, rng.uniform(0.4, 1.0), rng.uniform(0.8, 1.8)]))
    motion = (0.0, 0.0)
    if rng.random() < 0.15:
        motion = (float(rng.uniform(2, 9)), float(rng.uniform(0, 180)))
    return Look(
        light_azimuth=float(rng.uniform(0, 360)),
        light_elevation=float(rng.uniform(35, 80)),
        shadow_strength=float(rng.uniform(0.35, 0.65) if hard else rng.uniform(0.12, 0.35)),
        shadow_softness=float(rng.uniform(0.2, 0.8) if hard else rng.uniform(1.5, 5.0)),
        ambient=float(rng.uniform(0.35, 0.55) if hard else rng.uniform(0.6, 0.85)),
        white_balance=wb,
        exposure=float(rng.uniform(0.8, 1.15)),
        contrast=float(rng.uniform(0.85, 1.15)),
        gradient=(float(rng.uniform(0.0, 0.35)), float(rng.uniform(0, 360)), float(rng.uniform(-0.3, 0.3))),
        vignette=float(rng.uniform(0.0, 0.35)),
        pool=(float(rng.uniform(0.0, 0.3)) if rng.random() < 0.4 else 0.0, float(rng.uniform(0.2, 0.8)),
              float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.3, 0.7))),
        glare=glare,
        cast_shadow=cast,
        focus_blur=blur,
        focus_band=(float(rng.uniform(0.3, 0.7)), float(rng.normal(0, 0.3))),
        motion_blur=motion,
        noise=float(rng.uniform(0.8, 6.0)),
        chroma_noise=float(rng.uniform(0.0, 2.5)),
        jpeg_quality=int(rng.integers(60, 96)),
        noise_seed=int(rng.integers(0, 2**31 - 1)),
    )


def _white_balance(kelvin: float) -> tuple[float, float, float]:
    """Channel gains (B, G, R) for light of ``kelvin`` shot with a daylight white balance,
    softened (cameras correct most of it)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.04)
    rgb = np.clip([r, g, b], 1, 255) / 255.0
    ref = np.array([1.0, 0.9473, 0.8936])  # the same formula at 6500 K
    gains = rgb / ref
    gains = 1.0 + 0.45 * (gains / gains.mean() - 1.0)
    return float(gains[2]), float(gains[1]), float(gains[0])


class NoiseBank:
    """A few large tiles of Gaussian noise, made once; each image reads a random window.

    Drawing fresh normal samples for every pixel costs more than the rest of the sensor
    model together; windows of a fixed bank, shifted and flipped per image, look the same.
    Each tile has two channels: luminance noise and colour (blue-red) noise.
    """

    def __init__(self, size: tuple[int, int] = (1088, 1920), tiles: int = 2, seed: int = 12345) -> None:
        rng = np.random.default_rng(seed)
        self.size = size
        self._tiles = [rng.standard_normal((2, size[0] + 64, size[1] + 64), dtype=np.float32) for _ in range(tiles)]

    def window(self, rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        """Luminance and colour noise windows (H x W float32 each)."""
        if h > self.size[0] or w > self.size[1]:
            fresh = rng.standard_normal((2, h, w), dtype=np.float32)
            return fresh[0], fresh[1]
        tile = self._tiles[int(rng.integers(len(self._tiles)))]
        y = int(rng.integers(0, tile.shape[1] - h + 1))
        x = int(rng.integers(0, tile.shape[2] - w + 1))
        win = tile[:, y:y + h, x:x + w]
        if rng.random() < 0.5:
            win = win[:, ::-1]
        if rng.random() < 0.5:
            win = win[:, :, ::-1]
        return win[0], win[1]


_NOISE: NoiseBank | None = None


def _noise_bank() -> NoiseBank:
    global _NOISE
    if _NOISE is None:
        _NOISE = NoiseBank()
    return _NOISE


def _fields(look: Look, h: int, w: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The multiplicative brightness field (gradients, vignette, light pool, cast shadow,
    exposure) and the additive glare field, both H x W float32, computed at a low resolution
    and scaled up (they are smooth)."""
    sh, sw = max(8, h // 8), max(8, w // 8)
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u, v = x / (sw - 1), y / (sh - 1)
    gain = np.full((sh, sw), look.exposure, np.float32)
    s, ang, off = look.gradient
    if s > 0:
        a = math.radians(ang)
        t = (u - 0.5) * math.cos(a) + (v - 0.5) * math.sin(a) + off
        gain *= 1.0 - s * np.clip(t + 0.5, 0, 1)
    if look.vignette > 0:
        r2 = (u - 0.5) ** 2 + (v - 0.5) ** 2
        gain *= 1.0 - look.vignette * np.clip(r2 / 0.5, 0, 1) ** 1.5
    ps, px, py, pr = look.pool
    if ps > 0:
        gain *= 1.0 + ps * np.exp(-((u - px) ** 2 + (v - py) ** 2) / (2 * pr * pr))
    glare = None
    gs, gx, gy, gr = look.glare
    if gs > 0:
        r = max(4.0 / max(w, h), gr)
        aspect = w / h
        blob = np.exp(-(((u - gx) * aspect) ** 2 + (v - gy) ** 2) / (2 * (r * aspect) ** 2)).astype(np.float32)
        g = gs * blob**1.5
        gain *= 1.0 - g
        glare = cv2.resize(g * (255.0 * 1.15), (w, h), interpolation=cv2.INTER_LINEAR)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    if look.cast_shadow:
        strength, pts = look.cast_shadow[0], np.asarray(look.cast_shadow[1:], np.float32).reshape(-1, 2)
        mask = np.zeros((sh, sw), np.float32)
        poly = np.round(pts * [sw, sh] * 16).astype(np.int32)
        cv2.fillPoly(mask, [poly], 1.0, cv2.LINE_AA, shift=4)
        mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), 0.6), (w, h), interpolation=cv2.INTER_LINEAR)
        gain *= 1.0 - strength * mask
    return gain, glare


def develop(image: np.ndarray, look: Look, rng: np.random.Generator | None = None) -> np.ndarray:
    """Apply light, blur and noise to a BGR uint8 image; returns a new BGR uint8 image."""
    h, w = image.shape[:2]
    rng = rng or np.random.default_rng(look.noise_seed)
    img = image
    if look.focus_blur > 0.05:
        img = _focus_blur(img, look)
    length, angle = look.motion_blur
    if length >= 1.5:
        img = cv2.filter2D(img, -1, _motion_kernel(length, angle), borderType=cv2.BORDER_REFLECT)
    gain, glare = _fields(look, h, w)
    c = look.contrast
    # out = ((img * gain * wb + glare) - 118) * c + 118 + noise, one channel at a time
    lum, chroma = _noise_bank().window(rng, h, w)
    base = lum * look.noise + 118.0 * (1.0 - c)
    if glare is not None:
        base += glare * c
    out = np.empty_like(img)
    chroma_gain = (1.0, 0.0, -1.0)
    for ch in range(3):
        plane = img[..., ch].astype(np.float32)
        plane *= gain
        plane *= look.white_balance[ch] * c
        plane += base
        if look.chroma_noise > 0 and chroma_gain[ch]:
            plane += chroma * (look.chroma_noise * chroma_gain[ch])
        np.clip(plane, 0, 255, out=plane)
        out[..., ch] = plane
    return out


def _focus_blur(img: np.ndarray, look: Look) -> np.ndarray:
    """Sharp along a band across the frame, blurred by ``focus_blur`` away from it."""
    h, w = img.shape[:2]
    blurred = cv2.GaussianBlur(img, (0, 0), look.focus_blur)
    centre, tilt = look.focus_band
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    d = np.abs((yy / h - centre) * math.cos(tilt) - (xx / w - 0.5) * math.sin(tilt))
    mix = np.clip(d / 0.35, 0, 1).astype(np.float32)
    mix = cv2.resize(mix, (w, h), interpolation=cv2.INTER_LINEAR)
    # a general softness everywhere too: a third of the blur even in the sharp band
    mix = 0.3 + 0.7 * mix
    return cv2.blendLinear(img, blurred, 1.0 - mix, mix)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = int(math.ceil(length)) | 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    a = math.radians(angle)
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    cv2.line(k, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1, cv2.LINE_AA, shift=4)
    return k / max(k.sum(), 1e-6)


def jpeg(image: np.ndarray, quality: int) -> bytes:
    """JPEG bytes of a BGR image at ``quality`` (1-100)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("the image could not be encoded as JPEG")
    return buf.tobytes()

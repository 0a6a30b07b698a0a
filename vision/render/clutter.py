"""Things lying about that are not pieces: mugs, paper, pens, a phone, coins and a game box
on a table; stones, sticks and leaves without a dot on the ground. They teach a detector
what not to find, and make a table look used.

Clutter is placed outside a keep-out rectangle (the board and the dice area) and never
labelled.

>>> import numpy as np
>>> items = scatter(np.random.default_rng(1), keep_out=(0, 0, 300, 300), outdoor=False)
>>> all(p.label is None and p.drawn is not None for p in items)
True
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.render.natural import ellipse_outline, make_natural
from vision.render.scene import Drawn, Placement

__all__ = ["scatter", "INDOOR_ITEMS"]

INDOOR_ITEMS = ("mug", "paper", "pen", "phone", "coin", "box", "notebook")


def _rect(w: float, d: float) -> np.ndarray:
    return np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]], float)


def _picture(outline: np.ndarray, fill: tuple[int, int, int], ppm: float = 2.0) -> tuple[np.ndarray, float]:
    half = np.abs(outline).max(axis=0)
    w, h = int(math.ceil(2 * half[0] * ppm)), int(math.ceil(2 * half[1] * ppm))
    img = np.zeros((h, w, 4), np.uint8)
    pts = outline * ppm + [w / 2, h / 2]
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], (*fill, 255), cv2.LINE_AA, 4)
    return img, ppm


def _item(kind: str, rng: np.random.Generator) -> Drawn:
    if kind == "mug":
        d = rng.uniform(75, 90)
        outline = ellipse_outline(d, d, 28)
        colour = tuple(int(c) for c in rng.integers(30, 240, 3))
        img, ppm = _picture(outline, colour)
        c = (img.shape[1] / 2, img.shape[0] / 2)
        inner = (d / 2 - 4) * ppm
        drink = (20, 45, 70) if rng.random() < 0.7 else (200, 210, 215)
        cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), int(inner * 16), (*drink, 255), -1, cv2.LINE_AA, 4)
        cv2.ellipse(img, (int((c[0] - inner * 0.3) * 16), int((c[1] - inner * 0.3) * 16)),
                    (int(inner * 0.25 * 16), int(inner * 0.12 * 16)), 35, 0, 360, (230, 230, 230, 255), -1,
                    cv2.LINE_AA, 4)
        edge = tuple(int(v * 0.85) for v in colour)
        return Drawn("mug", outline, float(rng.uniform(85, 105)), img, ppm, edge)  # type: ignore[arg-type]
    if kind in ("paper", "notebook"):
        w, d = (210.0, 297.0) if kind == "paper" else (148.0, 210.0)
        outline = _rect(w, d)
        img, ppm = _picture(outline, (240, 242, 244) if kind == "paper" else (60, 90, 150))
        if kind == "paper":
            for k in range(int(rng.integers(8, 30))):
                y = int((20 + k * 9) * ppm)
                if y >= img.shape[0] - 10:
                    break
                x1 = int(rng.uniform(60, 190) * ppm)
                cv2.line(img, (int(20 * ppm), y), (x1, y), (90, 90, 90, 255), 1, cv2.LINE_AA)
        return Drawn(kind, outline, 0.3 if kind == "paper" else 9.0, img, ppm, (225, 225, 225))  # type: ignore[arg-type]
    if kind == "pen":
        outline = _rect(140.0, 9.0)
        colour = [(30, 30, 30), (150, 60, 20), (30, 30, 170), (200, 200, 200)][int(rng.integers(4))]
        img, ppm = _picture(outline, colour, 4.0)
        cv2.rectangle(img, (0, 0), (int(25 * ppm), img.shape[0]), (190, 190, 190, 255), -1)
        return Drawn("pen", outline, 9.0, img, ppm, colour)  # type: ignore[arg-type]
    if kind == "phone":
        outline = _rect(72.0, 150.0)
        img, ppm = _picture(outline, (20, 20, 22))
        g = np.linspace(0, 1, img.shape[0], dtype=np.float32)[:, None]
        glass = (30 + 40 * np.clip(1 - np.abs(g - rng.uniform(0.2, 0.8)) * 4, 0, 1)).astype(np.uint8)
        img[..., :3] = np.maximum(img[..., :3], glass[..., None] * (img[..., 3:] > 0))
        return Drawn("phone", outline, 8.0, img, ppm, (60, 60, 65))  # type: ignore[arg-type]
    if kind == "coin":
        d = rng.uniform(18, 27)
        outline = ellipse_outline(d, d, 20)
        colour = [(60, 150, 190), (180, 180, 180), (50, 110, 160)][int(rng.integers(3))]
        img, ppm = _picture(outline, colour, 6.0)
        c = (img.shape[1] / 2, img.shape[0] / 2)
        cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), int((d / 2 - 1.5) * ppm * 16),
                   tuple(int(v * 0.8) for v in colour) + (255,), 1, cv2.LINE_AA, 4)
        return Drawn("coin", outline, 2.0, img, ppm, tuple(int(v * 0.8) for v in colour))  # type: ignore[arg-type]
    # a game box
    w, d = rng.uniform(200, 300), rng.uniform(150, 300)
    outline = _rect(w, d)
    colour = tuple(int(c) for c in rng.integers(20, 230, 3))
    img, ppm = _picture(outline, colour)
    for _ in range(int(rng.integers(2, 6))):
        c2 = tuple(int(c) for c in rng.integers(0, 255, 3))
        x, y = int(rng.uniform(0, img.shape[1])), int(rng.uniform(0, img.shape[0]))
        cv2.circle(img, (x, y), int(rng.uniform(10, 60) * ppm), (*c2, 255), -1, cv2.LINE_AA)
    img[..., 3] = 255
    return Drawn("box", outline, float(rng.uniform(40, 70)), img, ppm, tuple(int(v * 0.7) for v in colour))  # type: ignore[arg-type]


def scatter(rng: np.random.Generator, keep_out: tuple[float, float, float, float], outdoor: bool,
            area: tuple[float, float, float, float] | None = None, count: int | None = None) -> list[Placement]:
    """Clutter around ``keep_out`` (x0, y0, x1, y1 mm), wholly inside ``area`` (default:
    400 mm round the keep-out rectangle)."""
    x0, y0, x1, y1 = keep_out
    ax0, ay0, ax1, ay1 = area or (x0 - 400, y0 - 400, x1 + 400, y1 + 400)
    n = int(rng.integers(0, 6)) if count is None else count
    out: list[Placement] = []
    for k in range(n):
        if outdoor:
            material = ("stone", "stick", "leaf", "stone")[int(rng.integers(4))]
            size = rng.uniform(15, 70)
            if material == "stick":
                outline = _rect(size * 2.5, max(5.0, size * 0.15))
            elif material == "leaf":
                outline = ellipse_outline(size, size * 0.55, 12)
            else:
                outline = ellipse_outline(size, size * rng.uniform(0.6, 1.0), 18)
            drawn = make_natural(material, outline, int(rng.integers(1 << 30)), None)
        else:
            drawn = _item(INDOOR_ITEMS[int(rng.integers(len(INDOOR_ITEMS)))], rng)
        reach = float(np.linalg.norm(drawn.outline, axis=1).max())
        if ax1 - ax0 <= 2 * reach or ay1 - ay0 <= 2 * reach:
            continue
        for _ in range(20):
            x, y = rng.uniform(ax0 + reach, ax1 - reach), rng.uniform(ay0 + reach, ay1 - reach)
            if not (x0 - reach < x < x1 + reach and y0 - reach < y < y1 + reach):
                break
        else:
            continue
        out.append(Placement("clutter", float(x), float(y), f"clutter-{k}", None,
                             rotation=float(rng.uniform(0, 360)), drawn=drawn))
    return out


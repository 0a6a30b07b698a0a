"""Hands and arms reaching over the table: their shape, their shadow and their paint.

A hand is a palm and five rounded fingers lying ``height`` mm above the table; the arm is a
band from the wrist that rises towards a shoulder out of the picture, bare skin up to the
cuff and a sleeve beyond. Everything is built as world polygons, so the hand is seen in true
perspective, casts its shadow along the light, and hides exactly the pieces beneath it.

>>> from vision.render.scene import Hand
>>> parts = hand_outlines(Hand(tip=(0.0, 0.0), height=30.0, cuff=80.0))
>>> sorted({tag for _, tag in parts})
['arm', 'hand', 'sleeve']
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from vision.render.scene import Hand

__all__ = ["hand_outlines", "hand_shadow", "draw_hand"]

SHIFT = 4
ONE = 1 << SHIFT


def hand_outlines(hand: Hand) -> list[tuple[np.ndarray, str]]:
    """World outlines (N x 3 mm, ``z`` into the table) of the hand and arm, each tagged
    ``"sleeve"``, ``"arm"`` (bare forearm) or ``"hand"`` (palm, fingers, thumb: the part the
    label boxes). The hand lies ``hand.height`` above the table; the forearm rises from the
    wrist to the elbow and the upper arm on towards a shoulder out of the picture."""
    s = hand.scale
    a = math.radians(hand.from_angle)
    back = np.array([math.cos(a), math.sin(a)])  # from the fingertips towards the shoulder
    side = np.array([-back[1], back[0]]) * (-1 if hand.left else 1)
    tip = np.asarray(hand.tip, float)
    h = hand.height
    finger_len = 78 * s
    palm_len = 95 * s
    palm_w = 84 * s
    knuckles = tip + back * finger_len * (0.55 if hand.pinch else 0.85)
    wrist = knuckles + back * palm_len

    def flat(poly: np.ndarray) -> np.ndarray:
        return np.column_stack([poly, np.full(len(poly), -h)])

    out: list[tuple[np.ndarray, str]] = []
    # the arm: cross-sections along it (distance from the wrist, half width, height)
    cuff = hand.cuff * s
    sections = [(0.0, 29.0 * s, h), (cuff, 34.0 * s, h + cuff * 0.3), (260.0 * s, 44.0 * s, h + 80.0 * s),
                (1100.0 * s, 58.0 * s, h + 420.0 * s)]  # long enough to leave the picture
    cuts = sorted({0.0, cuff, 260.0 * s, 1100.0 * s})

    def band(d0: float, d1: float, extra: float) -> np.ndarray:
        ds = [d for d in cuts if d0 <= d <= d1]
        left, right = [], []
        for d in ds:
            w = float(np.interp(d, [c[0] for c in sections], [c[1] for c in sections])) + extra
            z = float(np.interp(d, [c[0] for c in sections], [c[2] for c in sections]))
            c = wrist + back * d
            left.append([*(c + side * w), -z])
            right.append([*(c - side * w), -z])
        return np.array(left + right[::-1])

    if cuff > 1.0:
        out.append((band(0.0, cuff, 0.0), "arm"))
    out.append((band(cuff, 1100.0 * s, 3.0 * s), "sleeve"))
    # palm: a rounded trapezoid from the wrist to the knuckles
    t = np.linspace(0, 1, 9)
    left_edge = wrist + side * 30 * s + (knuckles + side * palm_w / 2 - wrist - side * 30 * s) * t[:, None]
    right_edge = wrist - side * 30 * s + (knuckles - side * palm_w / 2 - wrist + side * 30 * s) * t[:, None]
    bulge = np.sin(np.pi * t)[:, None] * side * 6 * s
    out.append((flat(np.vstack([left_edge + bulge, (right_edge - bulge)[::-1]])), "hand"))
    # fingers: four capsules fanning out, and a thumb from the side of the palm
    spread = 0.05 + 0.25 * hand.spread if not hand.pinch else 0.02
    for k in range(4):
        off = (1.5 - k) / 1.5  # -1..1 across the hand
        base = knuckles + side * off * palm_w * 0.38
        length = finger_len * (0.82, 1.0, 0.95, 0.75)[k]
        direction = -back * math.cos(off * spread) + side * math.sin(off * spread)
        if hand.pinch:
            length *= 0.75
        out.append((flat(_capsule(base, base + direction * length, (17.5 - 1.5 * abs(off)) * s)), "hand"))
    thumb_base = wrist + side * 32 * s - back * 20 * s
    thumb_dir = -back * 0.75 + side * (0.65 if not hand.pinch else 0.2)
    thumb_dir /= np.linalg.norm(thumb_dir)
    out.append((flat(_capsule(thumb_base, thumb_base + thumb_dir * 62 * s, 21 * s)), "hand"))
    return out


def _capsule(a: np.ndarray, b: np.ndarray, width: float) -> np.ndarray:
    d = b - a
    length = float(np.linalg.norm(d))
    if length < 1e-6:
        d = np.array([1.0, 0.0])
    else:
        d = d / length
    n = np.array([-d[1], d[0]])
    r = width / 2
    t1 = np.linspace(-np.pi / 2, np.pi / 2, 7)
    cap_b = b + (np.cos(t1)[:, None] * d + np.sin(t1)[:, None] * n) * r
    cap_a = a + (np.cos(t1 + np.pi)[:, None] * d + np.sin(t1 + np.pi)[:, None] * n) * r
    return np.vstack([cap_b, cap_a])


def hand_shadow(ctx: Any, shape: list[tuple[np.ndarray, str]], mask: np.ndarray) -> None:
    """Draw the shadow the hand and arm cast on the table into ``mask``."""
    for poly, _ in shape:
        ground = poly[:, :2] + ctx.shadow_shift[None, :] * (-poly[:, 2:3])
        world = ctx.clip_near(np.column_stack([ground, np.zeros(len(poly))]))
        if len(world) < 3:
            continue
        q = ctx.to_canvas(world)
        cv2.fillPoly(mask, [np.round(q * ONE).astype(np.int32)], 1.0, cv2.LINE_AA, SHIFT)


def draw_hand(ctx: Any, hand: Hand, shape: list[tuple[np.ndarray, str]], idx: int) -> np.ndarray:
    """Paint the hand and arm on the canvas (shaded round, folds in the sleeve), mark the
    pixels it covers in the id buffer as ``idx`` and count what it hides of each piece.
    Returns the world points of the hand proper (palm, fingers, thumb) for its box."""
    cw, ch = ctx.size
    hand_pts = np.vstack([poly for poly, tag in shape if tag == "hand"])
    polys = []
    for poly, tag in shape:
        w = ctx.clip_near(poly)
        if len(w) >= 3:
            polys.append((ctx.to_canvas(w), tag))
    if not polys:
        return hand_pts
    allpts = np.vstack([q for q, _ in polys])
    x0, y0 = np.maximum(np.floor(allpts.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(allpts.max(axis=0)).astype(int) + 3, [cw, ch])
    if x1 <= x0 or y1 <= y0:
        return hand_pts
    rw, rh = x1 - x0, y1 - y0
    skin_mask = np.zeros((rh, rw), np.uint8)
    sleeve_mask = np.zeros((rh, rw), np.uint8)
    for q, tag in polys:
        pts = np.round((q - [x0, y0]) * ONE).astype(np.int32)
        cv2.fillPoly(sleeve_mask if tag == "sleeve" else skin_mask, [pts], 255, cv2.LINE_AA, SHIFT)
    both = np.maximum(skin_mask, sleeve_mask)
    dist = cv2.distanceTransform((both > 127).astype(np.uint8), cv2.DIST_L2, 3)
    reach = max(2.0, float(np.percentile(dist[dist > 0], 90)) if (dist > 0).any() else 2.0)
    roundness = np.sqrt(np.clip(dist / reach, 0, 1))
    light = 0.42 + 0.58 * roundness
    # cloth folds across the sleeve, along the arm's direction in the picture
    axis = ctx.to_canvas(np.array([[*hand.tip, -hand.height],
                                   [hand.tip[0] + math.cos(math.radians(hand.from_angle)) * 100,
                                    hand.tip[1] + math.sin(math.radians(hand.from_angle)) * 100, -hand.height]]))
    d = axis[1] - axis[0]
    d /= max(1e-6, float(np.linalg.norm(d)))
    k = np.float32(2 * math.pi / max(6.0, 0.35 * reach * 4))
    along = (np.arange(x0, x1, dtype=np.float32) * (d[0] * k))[None, :] + \
        (np.arange(y0, y1, dtype=np.float32) * (d[1] * k))[:, None]
    folds = 1.0 - 0.16 * np.clip(np.sin(along + np.float32(hand.cuff)) ** 2 - 0.3, 0, 1)
    a_skin = skin_mask.astype(np.float32) * (1 / 255.0)
    a_sleeve = sleeve_mask.astype(np.float32) * (1 / 255.0) * (1 - a_skin)
    # a little sheen on the knuckles and the top of the forearm
    sheen = np.clip(roundness - 0.85, 0, 1) * 110 * a_skin
    w_skin, w_sleeve = a_skin * light, a_sleeve * light * folds
    alpha = np.clip(a_skin + a_sleeve, 0, 1)
    roi = ctx.canvas[y0:y1, x0:x1]
    out = roi * (1 - alpha)[..., None]
    for ch in range(3):
        out[..., ch] += w_skin * float(hand.skin[ch]) + w_sleeve * float(hand.sleeve[ch]) + sheen
    roi[:] = np.clip(out, 0, 255).astype(np.uint8)
    covered = alpha > 0.5
    under = ctx.ids[y0:y1, x0:x1][covered]
    under = under[(under >= 0) & (under < 30000)]
    if under.size:
        for i, n in zip(*np.unique(under, return_counts=True)):
            ctx.covered_by_hand[int(i)] = ctx.covered_by_hand.get(int(i), 0) + int(n)
    ctx.ids[y0:y1, x0:x1][covered] = idx
    return hand_pts  # the hand's box: palm, fingers and thumb, not the arm

"""When Gods Collide on the table: tiles on the mat, checkers on the tiles, dice beside.

The tiles of the position (engine squares) are shifted onto the kit's 16 x 16 mat with the
kit's own ``mat_offset`` (the same shift for a whole game, computed from its tiles). Every
checker shows its army's emblem on top, god checkers included (they lie face down, so
the camera cannot tell them apart: the class is the army). A checker converted by Seth
carries a Seth token of the converting army on top. Captured checkers lie in a pile
beside the mat; the last roll's dice (chess die, d6 and the hero die when called) lie in
the dice area, or dice showing random faces before the first roll.

>>> from rules.registry import get_game
>>> game = get_game("when-gods-collide")
>>> layout(game, game.initial_state())
()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.render.scene import PieceLabel, ScenePlan
from vision.render.scenes import Placer, stable_rng

__all__ = ["layout", "plan"]

_CHESS = ("king", "pawn", "knight", "queen", "bishop", "rook")
_HERO = ("imp", "double-knight", "winged-sandals", "god-of-wind", "princess", "seth")


def _offset(game: Any, state: Any) -> tuple[int, int]:
    from vision.artwork.when_gods_collide import WhenGodsCollideKit

    tiles = game.state_to_json(state).get("tiles") or []
    if not tiles:
        return 8, 8
    return WhenGodsCollideKit.mat_offset(tiles)


def layout(game: Any, state: Any) -> tuple[tuple[int, int], ...]:
    """The tiles' top-left squares on the mat."""
    dx, dy = _offset(game, state)
    out = []
    for t in game.state_to_json(state).get("tiles") or []:
        x, y = (int(v) for v in t["at"].split(","))
        out.append((x + dx, y + dy))
    return tuple(out)


def plan(game: Any, state: Any, placer: Placer) -> ScenePlan:
    pos = game.state_to_json(state)
    dx, dy = _offset(game, state)
    pieces = []
    checker_h = placer.kit.kind("greek").height_mm
    for c in pos.get("checkers", []):
        x, y = (int(v) for v in c["at"].split(","))
        army = c["army"]
        key = f"checker-{army}-{c['at']}"
        extra = {"identity": c.get("identity", "unknown")}
        if c.get("side") and c["side"] != army:
            extra["fights_for"] = c["side"]
        label = PieceLabel(army, None, c.get("side", army), c["at"], None, extra)
        p = placer.place(army, x + dx + 0.5, y + dy + 0.5, key, label, reach_mm=3.0, turn_deg=40.0,
                         group=f"sq-{c['at']}")
        pieces.append(p)
        if c.get("side") and c["side"] != army and f"seth-{c['side']}" in placer.kit.pieces:
            token = f"seth-{c['side']}"
            t = placer.place(token, x + dx + 0.5, y + dy + 0.5, key + "/token",
                             PieceLabel(token, None, c["side"], c["at"], None, {"on": army}), reach_mm=2.0,
                             turn_deg=40.0, z=checker_h, group=f"sq-{c['at']}")
            pieces.append(t)
    rng = stable_rng(placer.seed, "wgc-table")
    # captured checkers in a loose pile beside the mat
    w_mm, h_mm = placer.board_extent_mm
    captured = pos.get("captured") or {}
    pile_x = w_mm + rng.uniform(40, 90)
    pile_y = rng.uniform(0.1, 0.5) * h_mm
    for army, n in sorted(captured.items()):
        for k in range(int(n)):
            r = stable_rng(placer.seed, f"captured-{army}-{k}")
            x, y = pile_x + r.normal(0, 22), pile_y + r.normal(0, 22)
            u, v = placer.to_board(x, y)
            pieces.append(placer.place(army, u, v, f"captured-{army}-{k}",
                                       PieceLabel(army, None, army, None, None, {"captured": True}),
                                       reach_mm=0.0, turn_deg=60.0))
        pile_y += 70
    dice = _dice(pos, rng, placer)
    area = placer.dice_area(rng, 120.0)
    pieces += placer.dice(dice, area, rng)
    return ScenePlan(layout=placer.layout, pieces=pieces, dice_area=area)


def _dice(pos: dict[str, Any], rng: np.random.Generator, placer: Placer) -> list[tuple[str, PieceLabel]]:
    roll = pos.get("roll") or {}
    chess = roll.get("chess") or _CHESS[int(rng.integers(6))]
    number = roll.get("number") or int(rng.integers(1, 7))
    out = [(f"chess-{chess}", PieceLabel(f"chess-{chess}", "chess-die", None, None, None, {"die": "chess", "face": chess})),
           (f"d6-{number}", PieceLabel(f"d6-{number}", "number-die", None, None, None, {"die": "d6", "face": number}))]
    hero = roll.get("hero")
    if hero is None and rng.random() < 0.5:
        hero = _HERO[int(rng.integers(6))]
    if hero is not None:
        out.append((f"hero-{hero}", PieceLabel(f"hero-{hero}", "hero-die", None, None, None, {"die": "hero", "face": hero})))
    return [(k, lab) for k, lab in out if k in placer.kit.pieces]

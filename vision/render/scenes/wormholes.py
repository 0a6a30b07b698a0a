"""Wormholes on the table: the galaxy of tiles, coins on cells, pawns standing, dice beside.

Coins lie suit side up until flipped (then value side up: ``coin-null``, ``coin-ace``,
``coin-2`` ...). A pawn (a standee) stands on its cell, on top of the coin when it sits
on a wormhole, turned roughly towards its owner's side of the table. Coins still in a
player's hand during placement lie in a row beside the galaxy. The dice rolled this turn
(or dice showing random values) lie in the dice area.

>>> from rules.registry import get_game
>>> game = get_game("wormholes")
>>> layout(game, game.initial_state())
'galaxy'
"""

from __future__ import annotations

from typing import Any

from vision.render.scene import PieceLabel, ScenePlan
from vision.render.scenes import Placer, stable_rng

__all__ = ["layout", "plan"]

VALUE_NAMES = {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5"}
OWNER = {"suns": "orthogonaliens", "moons": "orthogonaliens", "crowns": "diagonaliens", "arms": "diagonaliens"}


def layout(game: Any, state: Any) -> str:
    return "galaxy"


def _centre(cell: str) -> tuple[float, float]:
    x, y = (int(v) for v in cell.split(","))
    return x - 0.5, y - 0.5


def plan(game: Any, state: Any, placer: Placer) -> ScenePlan:
    pos = game.state_to_json(state)
    pieces = []
    coin_h = placer.kit.kind("coin-suns").height_mm
    coins_at = set()
    for c in pos.get("coins", []):
        up = c.get("up", "suit")
        if up == "value" and c.get("value") is not None:
            kind = f"coin-{VALUE_NAMES[int(c['value'])]}"
        else:
            kind = f"coin-{c['suit']}"
        u, v = _centre(c["at"])
        extra = {"suit": c["suit"], "up": up}
        if c.get("seen"):
            extra["value"] = c.get("value")
        pieces.append(placer.place(kind, u, v, f"coin-{c['suit']}-{c['at']}",
                                   PieceLabel(kind, None, OWNER.get(c["suit"]), c["at"], None, extra),
                                   reach_mm=2.5, turn_deg=60.0, group=f"cell-{c['at']}"))
        coins_at.add(c["at"])
    seen_cells: dict[str, int] = {}
    for suit, ship in sorted((pos.get("ships") or {}).items()):
        at = ship.get("at")
        if at is None:
            continue
        u, v = _centre(at)
        k = seen_cells.get(at, 0)
        seen_cells[at] = k + 1
        if k:  # two ships sharing a cell stand side by side
            u += 0.25 * k
        facing = 0.0 if OWNER.get(suit) == "orthogonaliens" else 180.0
        kind = f"pawn-{suit}"
        extra = {"skip_next": bool(ship.get("skip_next"))}
        pieces.append(placer.place(kind, u, v, f"ship-{suit}",
                                   PieceLabel(kind, suit, OWNER.get(suit), at, None, extra), reach_mm=2.0,
                                   turn_deg=30.0, base_rotation=facing, z=coin_h if at in coins_at else 0.0,
                                   group=f"cell-{at}", face="front"))
    rng = stable_rng(placer.seed, "wormholes-table")
    w_mm, h_mm = placer.board_extent_mm
    for suit, n in sorted((pos.get("hand") or {}).items()):
        side = 1 if OWNER.get(suit) == "orthogonaliens" else -1
        for j in range(int(n)):
            x = (w_mm + 35 + 24 * (j % 3)) if side > 0 else (-35 - 24 * (j % 3))
            y = h_mm * (0.2 + 0.15 * ["suns", "moons", "crowns", "arms"].index(suit)) + 24 * (j // 3)
            uu, vv = placer.to_board(x, y)
            kind = f"coin-{suit}"
            pieces.append(placer.place(kind, uu, vv, f"hand-{suit}-{j}",
                                       PieceLabel(kind, None, OWNER.get(suit), None, None, {"in_hand": True}),
                                       reach_mm=3.0, turn_deg=90.0))
    dice = []
    rolled = pos.get("dice") or {}
    player = pos.get("player")
    suits = [s for s, o in OWNER.items() if o == player] or ["suns", "moons"]
    for suit in suits:
        value = rolled.get(suit)
        if value is None:
            value = int(rng.integers(0, 6))
        kind = f"die-{suit}-{VALUE_NAMES[int(value)]}"
        dice.append((kind, PieceLabel(kind, f"die-{suit}", OWNER.get(suit), None, None, {"value": int(value)})))
    area = placer.dice_area(rng, 100.0)
    pieces += placer.dice([d for d in dice if d[0] in placer.kit.pieces], area, rng)
    return ScenePlan(layout=placer.layout, pieces=pieces, dice_area=area)

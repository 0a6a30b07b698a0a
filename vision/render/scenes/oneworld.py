"""OneWorld on the table: counters on the hex map, stacked where they share a hex.

Children are square counters showing their aspect (``borg-stone`` ...), stacked in the
order the position lists them (or, in a share of hexes a renderer asks for, laid side by
side as players lay them out to reveal a combat round). Each god is a stack of god counters, one per life left
(the kit's "three god counters per side"). Each Tower counter stands on its Tower hex with
the side's dead counters beneath it (the ones that will come back first just under the
Tower). Children lost in Chaos are out of the game and not shown.

>>> from rules.registry import get_game
>>> game = get_game("oneworld")
>>> layout(game, game.initial_state()) is None
True
"""

from __future__ import annotations

import zlib
from typing import Any

from rules.geometry import Hex
from vision.layout import HexLayout
from vision.render.scene import PieceLabel, ScenePlan
from vision.render.scenes import Placer

__all__ = ["LAID_OUT_REACH", "LAID_OUT_STEP", "LAID_OUT_WOBBLE_MM", "laid_out_step", "layout", "plan"]

_HEX = HexLayout(size=1.0)
_ASPECTS = ("stone", "blade", "fog")

#: Children of one hex laid side by side (a placer's ``laid_out`` share of hexes: players
#: reveal a combat round so) lie this far apart, in board units (a hex is 1.73 across, a
#: counter 1.33): two lie edge to edge ...
LAID_OUT_STEP = 1.35
#: ... the row's ends at most this far from the hex's centre (more than two lie closer, over
#: each other's edges): with a player's wobble (:data:`LAID_OUT_WOBBLE_MM`), each counter's
#: centre still lies in its hex (0.87 from its centre to a side).
LAID_OUT_REACH = 0.675
#: How far (mm, on each table axis) a player's hand puts a counter laid out off its place:
#: at most 2.0 x 1.41 mm = 0.19 board units (of 15 mm) in any direction, so a row's end lies
#: within 0.675 + 0.19 = 0.864 of the centre, inside the hex's 0.866 (a stack's 2.2 mm let
#: an end cross a side, by up to 0.14 mm).
LAID_OUT_WOBBLE_MM = 2.0


def laid_out_step(count: int) -> float:
    """How far apart ``count`` children laid out in one hex lie (board units).

    >>> laid_out_step(2), laid_out_step(3)
    (1.35, 0.675)
    """
    return min(LAID_OUT_STEP, 2 * LAID_OUT_REACH / max(count - 1, 1))


def layout(game: Any, state: Any) -> Any:
    """The map to draw: ``None`` for the default map, else the engine's own map."""
    options = game.options_to_json()
    if not options.get("map_text") and options.get("map", "default") == "default":
        return None
    return game.board


def plan(game: Any, state: Any, placer: Placer) -> ScenePlan:
    pos = game.state_to_json(state)
    thickness = placer.kit.kind("borg-stone").height_mm
    stacks: dict[str, list[tuple[str, str, PieceLabel]]] = {}

    def add(hex_label: str, kind: str, key: str, label: PieceLabel) -> None:
        stacks.setdefault(hex_label, []).append((kind, key, label))

    towers = pos.get("towers") or {}
    under = pos.get("under_tower") or {}
    for side, hex_label in sorted(towers.items()):
        if hex_label is None:
            continue
        # the dead lie beneath the Tower, the first to come back on top of them
        for piece in reversed(under.get(side, [])):
            aspect = _ASPECTS[zlib.crc32(piece.encode()) % 3]  # the face they died in is not kept
            add(hex_label, f"{side}-{aspect}", piece,
                PieceLabel(f"{side}-{aspect}", piece, side, hex_label, None, {"aspect": aspect, "under_tower": True}))
        add(hex_label, f"{side}-tower", f"{side}-tower",
            PieceLabel(f"{side}-tower", f"{side}-tower", side, hex_label, None, {}))
    for side, god in sorted((pos.get("gods") or {}).items()):
        if not god or god.get("hex") is None:
            continue
        for life in range(int(god.get("lives", 0))):
            key = f"{side}-god-{life + 1}"
            add(god["hex"], f"{side}-god", key, PieceLabel(f"{side}-god", f"{side}-god", side, god["hex"], None,
                                                           {"life": life + 1}))
    for child in pos.get("children", []):
        kind = f"{child['side']}-{child['aspect']}"
        add(child["hex"], kind, child["id"],
            PieceLabel(kind, child["id"], child["side"], child["hex"], None, {"aspect": child["aspect"]}))

    pieces = []
    for hex_label, items in stacks.items():
        u, v = _HEX.center(Hex.parse(hex_label))
        group = f"hex-{hex_label}"
        if len(items) > 1 and all(kind.endswith(_ASPECTS) for kind, _, _ in items) and placer.laid_out_here(group):
            pieces += placer.row(items, u, v, group, laid_out_step(len(items)),
                                 reach_mm=LAID_OUT_WOBBLE_MM)  # shown, as after a combat round
            continue
        pieces += placer.stack(items, u, v, group=group, thickness=thickness, reach_mm=2.2)
    return ScenePlan(layout=placer.layout, pieces=pieces)

"""Battle Grounds on the table: figures standing on their level-and-side bases.

A figure is drawn as the kit's standing piece ``<side>-<level>`` (``north-ii``,
``south-cosmic``): the base sticker shows its original owner and level, turned towards the
enemy's side; the figure above it is moulded, so it shows its front picture to the camera. A hypnotized figure keeps its owner's base (the class says what is
printed; ``extra.controller`` says who moves it now). Figures in a Holding Zone stand in a
row beside the board on the holder's side.

>>> from rules.registry import get_game
>>> game = get_game("battle-grounds", {"board": "advanced"})
>>> layout(game, game.initial_state())
'advanced'
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from vision.render.scene import PieceLabel, ScenePlan
from vision.render.scenes import Placer

__all__ = ["layout", "plan", "level_class"]


def level_class(level: Any) -> str:
    """``Level.SA`` ('S/A') -> ``"sa"``, ``Level.COSMIC`` -> ``"cosmic"``."""
    return str(getattr(level, "value", level)).lower().replace("/", "")


def layout(game: Any, state: Any) -> Any:
    board = game.table.board
    kind = getattr(board, "kind", "basic")
    from rules.battle_grounds.board import Board

    if kind in ("basic", "advanced") and board == Board.standard(kind):
        return kind
    return board


def _square(label: str) -> tuple[float, float]:
    return ord(label[0]) - ord("a") + 0.5, int(label[1:]) - 0.5


def plan(game: Any, state: Any, placer: Placer) -> ScenePlan:
    pos = game.state_to_json(state)
    roster = game.table.roster
    hypnotized = set(pos.get("hypnotized") or [])
    pieces = []
    for square, fig_id in sorted((pos.get("board") or {}).items()):
        spec = roster.figure(fig_id)
        kind = f"{spec.owner}-{level_class(spec.level)}"
        controller = spec.owner if fig_id not in hypnotized else ("north" if spec.owner == "south" else "south")
        facing = 0.0 if controller == "north" else 180.0
        u, v = _square(square)
        label = PieceLabel(kind, fig_id, spec.owner, square, None,
                           {"name": spec.name, "level": str(spec.level.value), "controller": controller})
        pieces.append(replace(placer.place(kind, u, v, f"fig-{fig_id}", label, reach_mm=3.0, turn_deg=15.0,
                                           base_rotation=facing, face="front"), turn_to_camera=True))
    _, h = placer.kit.board_size(placer.layout)
    for holder, figs in sorted((pos.get("holding") or {}).items()):
        for k, fig_id in enumerate(figs):
            spec = roster.figure(fig_id)
            kind = f"{spec.owner}-{level_class(spec.level)}"
            # north sits behind row 1 (board y = 0), south behind the last row
            v = -1.6 if holder == "north" else h + 1.6
            u = -1.0 + 1.1 * k
            label = PieceLabel(kind, fig_id, spec.owner, None, None,
                               {"name": spec.name, "level": str(spec.level.value), "holding": holder})
            pieces.append(replace(placer.place(kind, u, v, f"fig-{fig_id}", label, reach_mm=4.0, turn_deg=25.0,
                                               base_rotation=0.0 if holder == "north" else 180.0, face="front"),
                                  turn_to_camera=True))
    return ScenePlan(layout=placer.layout, pieces=pieces)

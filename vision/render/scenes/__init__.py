"""Scene adapters: from a game position (the engine's state) to pieces placed on a table.

One module per game, each with a ``plan(game, state, placer) -> ScenePlan`` function. The
:class:`Placer` gives them what every game needs: board units to table millimetres (from
the kit's own board drawing), the players' sloppiness (a stable wobble per piece, so a
piece that does not move stays put from frame to frame), stacks, and a dice area beside
the board.

>>> from vision.render.fakekit import PlainKit
>>> placer = Placer(PlainKit(), layout=None, seed=1, sloppiness=0.0)
>>> placer.to_board(*placer.to_mm(2.5, 3.5))
(2.5, 3.5)
"""

from __future__ import annotations

import importlib
import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.render.scene import PieceLabel, Placement, ScenePlan

__all__ = ["Placer", "ADAPTERS", "adapter_for", "stable_rng"]

#: game registry name -> module of its adapter
ADAPTERS: dict[str, str] = {
    "oneworld": "vision.render.scenes.oneworld",
    "when-gods-collide": "vision.render.scenes.when_gods_collide",
    "wormholes": "vision.render.scenes.wormholes",
    "battle-grounds": "vision.render.scenes.battle_grounds",
    "the-game": "vision.render.scenes.the_game",
}

PlanFn = Callable[[Any, Any, "Placer"], ScenePlan]


def adapter_for(game: str) -> PlanFn:
    """The ``plan`` function of ``game``'s adapter."""
    try:
        module = ADAPTERS[game]
    except KeyError:
        raise ValueError(f"no scene adapter for game {game!r} (adapters: {', '.join(ADAPTERS)})") from None
    return importlib.import_module(module).plan  # type: ignore[no-any-return]


def stable_rng(seed: int, key: str) -> np.random.Generator:
    """A generator fixed by ``seed`` and a text key (the same on every run and machine)."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(key.encode("utf-8"))])


class Placer:
    """Board geometry and players' habits for one scene.

    ``layout``: the kit's board layout; ``seed``: fixes every piece's wobble;
    ``sloppiness``: 0 puts pieces dead centre and square, 1 is a hasty player.
    """

    def __init__(self, kit: Any, layout: Any, seed: int, sloppiness: float = 0.5,
                 geometry: tuple[np.ndarray, tuple[float, float]] | None = None, laid_out: float = 0.0) -> None:
        self.kit = kit
        self.layout = layout
        self.seed = seed
        self.sloppiness = float(sloppiness)
        #: the share of stacks a scene may lay out side by side instead (:meth:`laid_out_here`)
        self.laid_out = float(laid_out)
        if geometry is None:  # board pixel p at 1 px/mm covers p - 0.5 .. p + 0.5 mm
            image, board_to_px = kit.board_image(1.0, layout)
            geometry = (np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1.0]]) @ board_to_px,
                        (float(image.shape[1]), float(image.shape[0])))
        self.board_to_mm = np.asarray(geometry[0], float)
        self.board_extent_mm = (float(geometry[1][0]), float(geometry[1][1]))
        self.mm_to_board = np.linalg.inv(self.board_to_mm)
        # the direction stacks lean (players stack counters with a habit)
        r = stable_rng(seed, "stack-lean")
        a = r.uniform(0, 2 * math.pi)
        self.lean = np.array([math.cos(a), math.sin(a)]) * r.uniform(0.6, 2.2)

    # -- coordinates ------------------------------------------------------------------------
    def to_mm(self, u: float, v: float) -> tuple[float, float]:
        q = self.board_to_mm @ np.array([u, v, 1.0])
        return float(q[0] / q[2]), float(q[1] / q[2])

    def to_board(self, x: float, y: float) -> tuple[float, float]:
        q = self.mm_to_board @ np.array([x, y, 1.0])
        return round(float(q[0] / q[2]), 6), round(float(q[1] / q[2]), 6)

    def unit_mm(self) -> float:
        """Millimetres per board unit (along x)."""
        return float(np.hypot(self.board_to_mm[0, 0], self.board_to_mm[1, 0]))

    def board_rotation(self) -> float:
        """Degrees by which board ``x`` is turned in the table frame (0 for most kits)."""
        return math.degrees(math.atan2(self.board_to_mm[1, 0], self.board_to_mm[0, 0]))

    # -- habits -----------------------------------------------------------------------------
    def wobble(self, key: str, reach_mm: float, turn_deg: float = 8.0) -> tuple[float, float, float]:
        """A stable offset (mm) and turn (degrees) for the piece ``key``."""
        r = stable_rng(self.seed, key)
        s = self.sloppiness
        dx, dy = r.normal(0, reach_mm * s * 0.5, 2).clip(-reach_mm, reach_mm)
        turn = float(np.clip(r.normal(0, turn_deg * s), -3 * turn_deg, 3 * turn_deg))
        return float(dx), float(dy), turn

    def place(self, kind: str, u: float, v: float, key: str, label: PieceLabel | None, *, reach_mm: float = 2.0,
              turn_deg: float = 8.0, base_rotation: float = 0.0, z: float = 0.0, group: str = "",
              face: str = "top") -> Placement:
        """A piece centred on board point ``(u, v)`` with the player's wobble; the label's
        ``board`` is filled with where it really lies."""
        x, y = self.to_mm(u, v)
        dx, dy, turn = self.wobble(key, reach_mm, turn_deg)
        x, y = x + dx, y + dy
        if label is not None:
            label = PieceLabel(label.cls, label.piece, label.side, label.cell, self.to_board(x, y), label.extra)
        return Placement(kind, x, y, key, label, rotation=base_rotation + turn + self.board_rotation(), z=z,
                         group=group, face=face)

    def stack(self, items: list[tuple[str, str, PieceLabel]], u: float, v: float, group: str,
              thickness: float, reach_mm: float = 2.0) -> list[Placement]:
        """Counters stacked bottom-up on one point, each a little off the one below, as
        players stack them: ``items`` are (kind, key, label) from the bottom."""
        out = []
        for level, (kind, key, label) in enumerate(items):
            p = self.place(kind, u, v, key, label, reach_mm=reach_mm * (0.6 if level else 1.0),
                           z=level * thickness, group=group)
            if level:
                lean = self.lean * level + stable_rng(self.seed, key + "/lean").normal(0, 0.5, 2)
                extra = dict(label.extra, stack_level=level, stack_size=len(items))
                lab = PieceLabel(label.cls, label.piece, label.side, label.cell,
                                 self.to_board(p.x + lean[0], p.y + lean[1]), extra)
                p = Placement(p.kind, p.x + float(lean[0]), p.y + float(lean[1]), p.key, lab, p.rotation, p.z,
                              p.face, p.group)
            elif len(items) > 1:
                lab = PieceLabel(label.cls, label.piece, label.side, label.cell,
                                 p.label.board if p.label else None, dict(label.extra, stack_level=0, stack_size=len(items)))
                p = Placement(p.kind, p.x, p.y, p.key, lab, p.rotation, p.z, p.face, p.group)
            out.append(p)
        return out

    def laid_out_here(self, group: str) -> bool:
        """Whether the stack ``group`` is laid out side by side (:meth:`row`): a stable draw,
        true for a share :attr:`laid_out` of stacks."""
        return self.laid_out > 0 and float(stable_rng(self.seed, group + "/laid-out").random()) < self.laid_out

    def row(self, items: list[tuple[str, str, PieceLabel]], u: float, v: float, group: str, step: float,
            reach_mm: float = 2.0) -> list[Placement]:
        """Counters laid side by side on the table around board point ``(u, v)``, ``step``
        board units apart along a stable random direction, as players lay a stack out to
        show every counter: ``items`` are (kind, key, label), each keeping its label's cell."""
        angle = float(stable_rng(self.seed, group + "/row").uniform(0, math.pi))
        du, dv = math.cos(angle) * step, math.sin(angle) * step
        middle = (len(items) - 1) / 2
        return [self.place(kind, u + (k - middle) * du, v + (k - middle) * dv, key, label, reach_mm=reach_mm,
                           group=f"{group}/{k}")
                for k, (kind, key, label) in enumerate(items)]

    def dice_area(self, rng: np.random.Generator, size_mm: float = 110.0) -> tuple[float, float, float, float]:
        """A patch of table beside the board (left, right, above or below it) for dice."""
        image_w, image_h = self.board_extent_mm
        side = int(rng.integers(4))
        gap = rng.uniform(25, 70)
        if side == 0:
            x0, y0 = image_w + gap, rng.uniform(0, max(1.0, image_h - size_mm))
        elif side == 1:
            x0, y0 = -gap - size_mm, rng.uniform(0, max(1.0, image_h - size_mm))
        elif side == 2:
            x0, y0 = rng.uniform(0, max(1.0, image_w - size_mm)), image_h + gap
        else:
            x0, y0 = rng.uniform(0, max(1.0, image_w - size_mm)), -gap - size_mm
        return float(x0), float(y0), float(x0 + size_mm), float(y0 + size_mm)

    def dice(self, kinds: list[tuple[str, PieceLabel]], area: tuple[float, float, float, float],
             rng: np.random.Generator) -> list[Placement]:
        """Dice lying where they stopped rolling in ``area``: random spots and turns, not
        on top of each other (sometimes touching)."""
        out: list[Placement] = []
        spots: list[tuple[float, float, float]] = []
        x0, y0, x1, y1 = area
        for k, (kind, label) in enumerate(kinds):
            size = max(self.kit.kind(kind).footprint_mm)
            for _ in range(30):
                x, y = rng.uniform(x0 + size, x1 - size), rng.uniform(y0 + size, y1 - size)
                if all(math.hypot(x - a, y - b) > (size + s) * 0.75 for a, b, s in spots):
                    break
            spots.append((x, y, size))
            lab = PieceLabel(label.cls, label.piece, label.side, label.cell, self.to_board(x, y), label.extra)
            out.append(Placement(kind, float(x), float(y), f"die-{k}", lab, rotation=float(rng.uniform(0, 360))))
        return out

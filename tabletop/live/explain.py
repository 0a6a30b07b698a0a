"""Which action best explains what the camera sees: the engine's position is the truth the
camera confirms, not the other way round.

A weak detector misses pieces, reads one piece twice and calls a figure of one level another.
So a new seen board is not turned into a move by subtracting it from the last one; instead each
candidate (every legal action, every relocation of one engine piece to a cell where something
new is seen, and "nothing changed") predicts which cells hold something, and the seen board
is scored against each prediction cell by cell. A miss costs less than a contradiction (a
piece still seen on the cell it left), occupancy weighs more than class, and a move must
explain the board clearly better than "nothing changed" to be read at all.

>>> scene = Scene({"a1": Counter({"north-i": 1}), "b2": Counter({"south-ii": 1})},
...               {"b2": Counter({"south-ii": 1}), "a2": Counter({"north-ii": 1})},
...               {"a1": ["kraven"], "b2": ["iron-man"]}, {"kraven": "north-i", "iron-man": "south-ii"})
>>> scene.none_cost(), scene.move_cost("kraven", "a1", "a2")
(2.5, 0.3)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["COSTS", "FADED", "Scene", "fixed_pieces", "piece_classes", "side_of"]

#: What each disagreement between a prediction and the seen board costs.
COSTS = {
    "miss": 1.0,           # a piece seen at the last position and not now (a missed box)
    "still_missed": 0.3,   # a piece the engine has there, missed before and now
    "unexplained": 1.5,    # a piece seen where nothing should be (a false box, or a move not read)
    "crowded": 1.5,        # a piece of a new kind seen beside those a cell held (a move onto it not read)
    "still_there": 3.0,    # the mover still seen on the cell it left
    "not_arrived": 2.0,    # nothing new seen where the mover arrives
    "under_like": 0.3,     # ... but it was put, after a hand, squarely on a like piece that it hides
    "other_kind": 0.3,     # what arrived is of the mover's side, another kind (a level misread)
    "other_side": 1.0,     # what arrived looks like another side's piece
    "stack_mate": 0.5,     # the kind that left the mover's stack and arrived is another piece of the stack
    "class_only": 0.5,     # a cell seen as full as before and a kind new to it: only the class changed
    "illegal": 1.0,        # how much a legal reading is preferred to an illegal one
    "margin": 0.5,         # how much better than "nothing changed" a move must explain the board
    "second_margin": 1.5,  # the same for a second move in one position: clearly left and arrived
    "occluded": 3,         # this many engine pieces seen before, close together, gone at once: a hand
}
#: A box on the cell a piece stood on, less than this share as sure as the piece's box was at the
#: last position, is not that piece: once a counter leaves, map art or a shadow under it may be
#: read weakly as a piece of its kind (a piece that stays is read about as surely as before).
FADED = 0.5
#: How far a hand reaches over the board, in cells (the typical distance between neighbouring
#: pieces): cells this close to one another can be hidden together.
HAND_REACH = 2.0


def _spacing(points: list[tuple[float, float]]) -> float:
    """The median distance from a piece to its nearest neighbour (about one cell)."""
    if len(points) < 2:
        return 1.0
    near = sorted(min(math.dist(p, q) for j, q in enumerate(points) if j != i) for i, p in enumerate(points))
    return max(near[len(near) // 2], 1e-6)

#: When Gods Collide's revealed gods, by army.
_GOD_ARMY = {"zeus": "greek", "odin": "norse", "marduk": "babylonian", "amun-ra": "egyptian"}


def side_of(cls: str) -> str:
    """The side (or kind of object) a class belongs to: ``north-ii`` -> ``north``."""
    return _GOD_ARMY.get(cls, cls.split("-")[0])


def piece_classes(game: Any, state_json: Mapping[str, Any]) -> dict[Any, str]:
    """The detector class of each engine piece, keyed as :func:`tabletop.live.infer.locations`
    keys them (When Gods Collide: by cell)."""
    name = game.name
    if name == "oneworld":
        return {c["id"]: f"{c['side']}-{c['aspect']}" for c in state_json.get("children", [])}
    if name == "when-gods-collide":
        return {c["at"]: c["army"] for c in state_json.get("checkers", []) if c.get("at")}
    if name == "wormholes":
        return {k: f"pawn-{k}" for k in (state_json.get("ships") or {})}
    if name == "battle-grounds":
        from vision.render.scenes.battle_grounds import level_class

        out = {}
        for fig in (state_json.get("board") or {}).values():
            try:
                spec = game.table.roster.figure(fig)
            except Exception:  # noqa: BLE001, S112 - an unknown figure has no class to compare
                continue
            out[fig] = f"{spec.owner}-{level_class(spec.level)}"
        return out
    if name == "the-game":
        return {p["id"]: f"{p.get('side', p['id'][:1].lower() == 'r' and 'red' or 'blue')}-piece"
                for p in state_json.get("pieces", [])}
    return {}


def fixed_pieces(game: str, state_json: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """(id, cell, class) of what the engine has on the board besides the pieces that move:
    OneWorld's Towers and gods, Wormholes' coins (their face up as the detector names it)."""
    if game == "oneworld":
        out = [(f"{side}-tower", at, f"{side}-tower") for side, at in (state_json.get("towers") or {}).items() if at]
        return out + [(f"{side}-god", g["hex"], f"{side}-god") for side, g in (state_json.get("gods") or {}).items()
                      if g and g.get("hex")]
    if game == "wormholes":
        faces = {0: "null", 1: "ace"}
        return [(f"coin-{k}", c["at"], f"coin-{c['suit']}" if c.get("up") == "suit" or c.get("value") is None
                 else f"coin-{faces.get(c['value'], c['value'])}")
                for k, c in enumerate(state_json.get("coins") or []) if c.get("at")]
    return []


@dataclass
class Scene:
    """The two seen boards (cell -> classes seen there) and the engine's pieces (cell -> piece
    ids, with their classes)."""

    before: dict[Any, Counter[str]]
    after: dict[Any, Counter[str]]
    engine: dict[Any, list[Any]]
    classes: dict[Any, str]
    faded: frozenset[Any] = frozenset()  # cells seen now far less surely than before (FADED)
    fixed: frozenset[Any] = frozenset()  # engine pieces that never move (Towers, gods, coins)
    #: a hand (or motion) was over the board since the last position: a piece may have been
    #: put squarely on a like piece, which it then hides (:meth:`under_like`)
    touched: bool = False

    @classmethod
    def build(cls, before: Any, after: Any, where: Mapping[Any, Any], classes: dict[Any, str],
              fixed: list[tuple[str, Any, str]] = (), touched: bool = False) -> Scene:  # type: ignore[assignment]
        def cells(seen: Any) -> dict[Any, Counter[str]]:
            out: dict[Any, Counter[str]] = {}
            for p in seen.pieces:
                if p.cell is not None:
                    out.setdefault(p.cell, Counter())[p.cls] += 1
            return out

        def surest(seen: Any) -> dict[Any, float]:
            out: dict[Any, float] = {}
            for p in seen.pieces:
                if p.cell is not None:
                    out[p.cell] = max(out.get(p.cell, 0.0), p.confidence)
            return out

        engine: dict[Any, list[Any]] = {}
        for pid, cell in where.items():
            engine.setdefault(cell, []).append(pid)
        classes = dict(classes)
        for pid, cell, kind in fixed:  # never a mover: not in ``where``
            engine.setdefault(cell, []).append(pid)
            classes[pid] = kind
        was, now = surest(before), surest(after)
        faded = frozenset(c for c, sure in now.items() if c in was and sure < FADED * was[c])
        return cls(cells(before), cells(after), engine, classes, faded, frozenset(pid for pid, _, _ in fixed), touched)

    # -- evidence -------------------------------------------------------------------------------
    def cells(self) -> set[Any]:
        return set(self.before) | set(self.after) | set(self.engine)

    def grew(self, cell: Any) -> Counter[str]:
        """Classes seen at ``cell`` now more often than before."""
        return self.after.get(cell, Counter()) - self.before.get(cell, Counter())

    def arrived(self, cell: Any) -> Counter[str]:
        """What is seen at ``cell`` beyond what was seen there and what the engine has there
        (a piece missed at the last position and seen again has not arrived)."""
        known = self.before.get(cell, Counter()) | Counter(self.classes.get(p, "") for p in self.engine.get(cell, []))
        return self.after.get(cell, Counter()) - known

    def shrank(self, cell: Any) -> Counter[str]:
        return self.before.get(cell, Counter()) - self.after.get(cell, Counter())

    def changed(self) -> set[Any]:
        """Cells whose occupancy or classes differ between the two seen boards."""
        return {c for c in set(self.before) | set(self.after) if self.before.get(c) != self.after.get(c)}

    def hidden(self, points: Mapping[Any, tuple[float, float]] | None = None) -> list[Any]:
        """Cells of engine pieces seen at the last position where nothing is seen now; with
        ``points`` (cell -> board point), only the largest group of them close together (a
        hand covers neighbouring cells; misses of a weak detector fall anywhere)."""
        gone = sorted((c for c in self.engine if self.before.get(c) and not self.after.get(c)), key=str)
        if not points or len(gone) < 2:
            return gone
        at = {c: points[c] for c in gone if c in points}
        spacing = _spacing(list(points.values()))
        groups = [[c for c in at if math.dist(at[c], at[k]) <= HAND_REACH * spacing] for k in at]
        return max(groups, key=len, default=[])

    def arrivals(self) -> list[Any]:
        """Cells where something new is seen."""
        return sorted((c for c in self.after if self.arrived(c)), key=str)

    # -- costs ------------------------------------------------------------------------------------
    def _cell(self, cell: Any, expect: bool, mover: str | None = None) -> float:
        seen_now, seen_before = bool(self.after.get(cell)), bool(self.before.get(cell))
        if expect and not seen_now:
            return COSTS["miss"] if seen_before else COSTS["still_missed"]
        if not expect and seen_now:
            return COSTS["still_there"] if seen_before else COSTS["unexplained"]
        if not expect:
            return 0.0
        # a mover's kind seen there before and not now, though the cell is still seen
        # occupied (a pawn lifted off the coin it stood on): its box missed, as on an empty cell
        cost = COSTS["miss"] * len(self.vanished(cell, mover))
        if self.arrived(cell):
            # a kind new to the cell: beside what was there (crowded), or in its place (a piece
            # put on another hides it, or a class misread: weaker evidence)
            cost += COSTS["crowded"] if self.crowded(cell) else COSTS["class_only"]
        return cost

    def vanished(self, cell: Any, mover: str | None = None) -> list[str]:
        """Kinds of the engine's moving pieces at ``cell`` (other than ``mover``'s, the piece
        said to have left) seen there at the last position and not now."""
        before, after = self.before.get(cell, Counter()), self.after.get(cell, Counter())
        kinds = {self.classes.get(p) for p in self.engine.get(cell, []) if p not in self.fixed}
        return sorted(k for k in kinds if k is not None and k != mover and before[k] and not after[k])

    def crowded(self, cell: Any) -> bool:
        """More pieces seen at ``cell`` than the last position and the engine put there, one
        of them of a kind not there before: something was put on an occupied cell."""
        now = sum(self.after.get(cell, Counter()).values())
        return now > self._held(cell) and bool(self._fresh(cell))

    def _held(self, cell: Any) -> int:
        return max(sum(self.before.get(cell, Counter()).values()), len(self.engine.get(cell, [])))

    def _fresh(self, cell: Any) -> set[str]:
        """Kinds arrived at ``cell`` that neither the last position nor the engine had there
        (one more of a kind already there may be one piece read twice)."""
        had = set(self.before.get(cell, Counter())) | {self.classes.get(p, "") for p in self.engine.get(cell, [])}
        return {k for k in self.arrived(cell) if k not in had}

    def _expect(self, cell: Any) -> bool:
        return bool(self.before.get(cell)) or bool(self.engine.get(cell))

    def none_cost(self) -> float:
        """How badly "nothing changed" explains the seen board."""
        return sum(self._cell(c, self._expect(c)) for c in self.cells())

    def move_cost(self, piece: Any, frm: Any, to: Any) -> float:
        """How badly "``piece`` went from ``frm`` to ``to``" explains the seen board."""
        if frm == to:
            return self.none_cost() + COSTS["still_there"]
        mover = self.classes.get(piece)
        rest = sum(self._cell(c, self._expect(c)) for c in self.cells() if c not in (frm, to))
        cost = rest + self._left(piece, frm, mover) + self._arrived(to, mover, frm)
        return cost + (COSTS["stack_mate"] if self._stack_mate(piece, frm, to, mover) else 0.0)

    def _stack_mate(self, piece: Any, frm: Any, to: Any, mover: str | None) -> bool:
        """Whether another piece of ``frm``'s stack, not ``piece``, is seen to have gone to
        ``to``: the mover's kind no fewer on ``frm``, and a kind the engine has among the
        others there, seen fewer on ``frm`` (or never seen there as often as the engine has
        it: under the stack), new at ``to``. Either alone is a class misread; both at once, a
        stack mate moved."""
        gone = self.shrank(frm)
        if mover is None or gone[mover]:
            return False
        mates = {self.classes.get(p) for p in self.engine.get(frm, []) if p != piece}
        return any(k != mover and k in mates and (gone[k] or self.undercounted(frm, k)) for k in self.arrived(to))

    def _left(self, piece: Any, frm: Any, mover: str | None) -> float:
        others = [p for p in self.engine.get(frm, []) if p != piece]
        seen_before = self.before.get(frm, Counter())
        # two boxes where the engine has the mover alone: something stays (a Seth token) when
        # one is of another kind; two of the mover's side are the mover read twice
        still = bool(others) or (sum(seen_before.values()) >= 2 and (
            mover is None or any(side_of(k) != side_of(mover) for k in seen_before)))
        if not still and not seen_before and not self.after.get(frm):
            # never seen there, before or now: the empty cell says nothing of a departure, and
            # costs the move what it costs "nothing changed" (a piece the detector keeps missing)
            cost = COSTS["still_missed"]
        elif not still and frm in self.faded:
            cost = 0.0  # what is seen where it stood is far less sure than it was: not the mover
        else:
            cost = self._cell(frm, still, mover)
        if still and mover is not None and seen_before[mover] and not self.shrank(frm)[mover] \
                and seen_before[mover] >= self.alike(frm, mover):
            cost += COSTS["other_kind"]  # the mover's kind is still seen, as often, on the stack it left
        return cost

    def alike(self, cell: Any, kind: str) -> int:
        """How many of the engine's pieces at ``cell`` are of class ``kind``."""
        return sum(self.classes.get(p) == kind for p in self.engine.get(cell, []))

    def undercounted(self, cell: Any, kind: str) -> bool:
        """Whether the last seen board showed fewer pieces of ``kind`` at ``cell`` than the engine
        has there (like counters stacked and read as one): one may leave unseen."""
        return self.before.get(cell, Counter())[kind] < self.alike(cell, kind)

    def under_like(self, to: Any, mover: str | None, frm: Any) -> bool:
        """Whether the mover may lie squarely on a like piece at ``to``, hiding it: after a
        hand, its kind is seen gone from ``frm`` (none of it seen there now, and the cell not
        merely seen less surely), and ``to`` showed its kind before and shows it as often now
        (two like counters, one on the other, look like one)."""
        if not self.touched or mover is None or frm is None or frm in self.faded:
            return False
        was, now = self.before.get(to, Counter()), self.after.get(to, Counter())
        return bool(self.before.get(frm, Counter())[mover]) and not self.after.get(frm, Counter())[mover] \
            and bool(was[mover]) and now[mover] >= was[mover]

    def _arrived(self, to: Any, mover: str | None, frm: Any = None) -> float:
        new = self.arrived(to)
        if not new:
            return COSTS["under_like"] if self.under_like(to, mover, frm) else COSTS["not_arrived"]
        seen_now = sum(self.after.get(to, Counter()).values())
        cost = 0.0
        if seen_now <= self._held(to):
            if not (mover is not None and new[mover] and self.shrank(frm)[mover]):
                # no more pieces there than before, and the mover's kind not seen to leave its
                # cell: only a class says so (a piece put on another may hide it)
                cost = COSTS["class_only"]
        elif not self._fresh(to):  # one more of a kind already there: a double read looks the same
            cost = COSTS["class_only"]
        if mover is None or new[mover]:
            return cost
        if any(side_of(c) == side_of(mover) for c in new):
            return cost + COSTS["other_kind"]
        return cost + COSTS["other_side"]

    def unexplained(self) -> list[tuple[Any, str]]:
        """(cell, class) seen where neither the last position nor the engine has anything."""
        return [(c, k) for c in sorted(self.after, key=str) if not self._expect(c) for k in self.after[c]]

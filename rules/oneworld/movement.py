"""Where a OneWorld child may go: Stone, Blade and Fog movement over the map's terrain.

Every move is worked out as a :class:`Plan`: the hexes entered, the faults crossed (one roll
each), and how the move ends (in a hex, in a fight, against a god, or in Chaos). Plans
are computed from one :class:`Snapshot` of the position so that listing all moves of a full
position stays fast.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rules.geometry import Hex, HexDirection
from rules.oneworld.board import OneWorldMap, Terrain
from rules.oneworld.model import Aspect, Child, Position, Side
from rules.oneworld.options import OneWorldOptions

__all__ = ["Plan", "Snapshot", "plans_for", "plan_along", "standing_towers", "why_not"]

BLADE_RANGE = 5
FOG_RANGE = 3
STONE_PYLON_RANGE = 3


@dataclass(frozen=True)
class Plan:
    """One way a child can move.

    ``path`` is every hex entered in order; the last is where the move ends. When the child
    leaves the map, the last hex is the Chaos hex it steps into and ``into_chaos`` is set.
    ``fault_steps`` are indexes into ``path`` of the steps that cross a fault.
    """

    path: tuple[Hex, ...]
    fault_steps: tuple[int, ...] = ()
    into_chaos: bool = False
    fight: bool = False
    god_attack: bool = False
    obstacle: bool = False

    @property
    def to(self) -> Hex:
        return self.path[-1]

    @property
    def faults(self) -> int:
        return len(self.fault_steps)


def standing_towers(board: OneWorldMap, pos: Position) -> frozenset[Hex]:
    """The hexes where the Towers of Balance stand now, which nobody may enter.

    Once the players hold their Towers these are the players' Towers (with Moving Towers
    they walk along the edge, and the map's ``T`` hex they left is plain ground); before
    that, and when no player owns a Tower (Non-aligned Towers, Tower Elimination), the
    map's Tower hexes.
    """
    return frozenset(h for _, h in pos.towers) or frozenset(board.tower_hexes())


class Snapshot:
    """What movement needs to know about a position, indexed once."""

    def __init__(self, board: OneWorldMap, options: OneWorldOptions, pos: Position) -> None:
        self.board = board
        self.options = options
        self.pos = pos
        self.count: dict[Hex, Counter[Side]] = pos.occupancy()
        self.stones: Counter[tuple[Hex, Side]] = Counter(
            (c.hex, c.side) for c in pos.children if c.aspect is Aspect.STONE
        )
        self.god_hex = {g.side: g.hex for g in pos.gods}
        self.towers = standing_towers(board, pos)

    def own(self, h: Hex, side: Side) -> int:
        c = self.count.get(h)
        return c[side] if c else 0

    def enemy(self, h: Hex, side: Side) -> int:
        c = self.count.get(h)
        return c[side.other()] if c else 0


@dataclass(frozen=True)
class _Step:
    to: Hex
    fault: bool = False
    chaos: bool = False
    stop: bool = False  # the move ends on entering (enemy children or god)
    god: bool = False
    blocked: str | None = None  # reason code when the step may not be taken
    pylon_to_pylon: bool = False


def _step(s: Snapshot, side: Side, aspect: Aspect, a: Hex, d: HexDirection) -> _Step:
    board = s.board
    cells = board.cells
    b, rune, fault = board.link(a, d)
    from_pylon = cells.get(a) is Terrain.PYLON
    if b not in cells:
        if not s.options.chaos_gambit_2:
            return _Step(b, chaos=True)
        b = board.reentry(a, d)
        from_pylon = False  # it comes back in from Chaos, not from a pylon
        rune = fault = False  # no hex side is crossed on the way round
    if rune and aspect is not Aspect.BLADE:
        return _Step(b, blocked="runeline")
    terrain = cells[b]
    if terrain is Terrain.PYLON and not from_pylon and aspect is not Aspect.STONE:
        return _Step(b, blocked="pylon")
    if b in s.towers:
        return _Step(b, blocked="tower")
    if s.god_hex.get(side) == b:
        return _Step(b, blocked="own-god")
    fault = fault and aspect is not Aspect.STONE
    p2p = from_pylon and terrain is Terrain.PYLON
    if s.god_hex.get(side.other()) == b:
        if s.pos.god_attacked:
            return _Step(b, blocked="god-attack-used")
        return _Step(b, fault=fault, stop=True, god=True, pylon_to_pylon=p2p)
    if s.enemy(b, side):
        return _Step(b, fault=fault, stop=True, pylon_to_pylon=p2p)
    return _Step(b, fault=fault, pylon_to_pylon=p2p)


def _fits(s: Snapshot, child: Child, plan: Plan) -> bool:
    """Stacking is checked where the move ends (Chaos holds no stack). A Blade that the
    curved universe of Chaos Gambit II brings back to its own hex does not count itself."""
    if plan.into_chaos or plan.god_attack:
        return True
    already = s.own(plan.to, child.side) - (1 if plan.to == child.hex else 0)
    return already + 1 <= s.options.stacking_limit


def plans_for(s: Snapshot, child: Child) -> list[Plan]:
    """Every legal way ``child`` can move now (one plan per distinct path)."""
    if child.aspect is Aspect.BLADE:
        plans = _blade_plans(s, child)
    else:
        plans = _walk_plans(s, child)
    return [p for p in plans if _fits(s, child, p)]


# -- Stone and Fog -------------------------------------------------------------------------


def _walk_plans(s: Snapshot, child: Child) -> list[Plan]:
    """Stone and Fog: the best path (fewest faults) to every hex they can end on.

    Searched breadth first, keeping one path per (hex, steps taken): a path with more
    faults to the same hex in as many steps is never the one a player would take.
    """
    plans: dict[Hex, Plan] = {}
    normal = 1 if child.aspect is Aspect.STONE else FOG_RANGE
    _search(s, child, normal, pylon_only=False, plans=plans)
    if s.options.pylon_movement and s.board.is_pylon(child.hex):
        _search(s, child, STONE_PYLON_RANGE if child.aspect is Aspect.STONE else 1, pylon_only=True, plans=plans)
    return list(plans.values())


def _search(s: Snapshot, child: Child, steps: int, pylon_only: bool, plans: dict[Hex, Plan]) -> None:
    pylon_rule = s.options.pylon_movement
    frontier: dict[Hex, tuple[tuple[Hex, ...], tuple[int, ...]]] = {child.hex: ((), ())}
    for depth in range(steps):
        nxt: dict[Hex, tuple[tuple[Hex, ...], tuple[int, ...]]] = {}
        for here, (path, faults) in frontier.items():
            for d in HexDirection:
                st = _step(s, child.side, child.aspect, here, d)
                if st.blocked or st.to == child.hex or st.to in path:
                    continue
                if pylon_rule and st.pylon_to_pylon != pylon_only:
                    continue
                new_path = path + (st.to,)
                new_faults = faults + ((depth,) if st.fault else ())
                if st.chaos:
                    # Allowed, if unwise: the child is lost (or, with Chaos Gambit I, under its Tower).
                    plan = Plan(new_path, new_faults, into_chaos=True)
                else:
                    plan = Plan(new_path, new_faults, fight=st.stop and not st.god, god_attack=st.god)
                best = plans.get(st.to)
                if best is None or (plan.faults, len(plan.path), plan.path) < (best.faults, len(best.path), best.path):
                    plans[st.to] = plan
                if st.chaos or st.stop:
                    continue
                seen = nxt.get(st.to)
                if seen is None or len(new_faults) < len(seen[1]):
                    nxt[st.to] = (new_path, new_faults)
        frontier = nxt


def plan_along(s: Snapshot, child: Child, path: tuple[Hex, ...]) -> tuple[Plan | None, str]:
    """The plan for a Stone or Fog following exactly ``path`` (every hex entered), or why not."""
    limit = 1 if child.aspect is Aspect.STONE else FOG_RANGE
    pylon_only = False
    if s.options.pylon_movement and s.board.is_pylon(child.hex) and path and s.board.is_pylon(path[0]):
        pylon_only = True
        limit = STONE_PYLON_RANGE if child.aspect is Aspect.STONE else 1
    if not path or len(path) > limit:
        return None, "too-far"
    if path[-1] == child.hex:
        return None, "no-move"  # out and back is no move, as without a path
    faults: list[int] = []
    here = child.hex
    for i, h in enumerate(path):
        d = here.direction_to(h)
        if d is None or here.distance(h) != 1:
            return None, "bad-path"
        st = _step(s, child.side, child.aspect, here, d)
        if st.to != h:
            return None, "bad-path"  # Chaos Gambit II: the stated hex is off the grid
        if st.blocked:
            return None, st.blocked
        if s.options.pylon_movement and st.pylon_to_pylon != pylon_only:
            return None, "pylon-movement"
        if st.fault:
            faults.append(i)
        last = i == len(path) - 1
        if st.chaos:
            return (Plan(path, tuple(faults), into_chaos=True), "") if last else (None, "chaos")
        if st.stop and not last:
            return None, "enemy-in-the-way"
        if last:
            plan = Plan(path, tuple(faults), fight=st.stop and not st.god, god_attack=st.god)
            return (plan, "") if _fits(s, child, plan) else (None, "stacking")
        here = h
    return None, "bad-path"


# -- Blade -----------------------------------------------------------------------------


def _blade_plans(s: Snapshot, child: Child) -> list[Plan]:
    plans: list[Plan] = []
    for d in HexDirection:
        plans.extend(_blade_line(s, child, d))
    return plans


def blade_walk(s: Snapshot, child: Child, d: HexDirection) -> tuple[Plan | None, str | None]:
    """The Blade's forced move in direction ``d``: the plan, or why there is none."""
    plan, reason, _ = _blade_steps(s, child, d)
    return plan, reason


def _blade_steps(s: Snapshot, child: Child, d: HexDirection) -> tuple[Plan | None, str | None, Plan | None]:
    """:func:`blade_walk`, and when there is no plan, the hexes walked before the step that
    forbids the direction (a plan of them, or ``None`` when the first step does)."""
    path: list[Hex] = []
    faults: list[int] = []
    cur = child.hex
    pylon_rule = s.options.pylon_movement
    for i in range(BLADE_RANGE):
        st = _step(s, child.side, Aspect.BLADE, cur, d)
        if st.chaos:
            path.append(st.to)
            return Plan(tuple(path), tuple(faults), into_chaos=True), None, None
        if st.blocked in ("pylon", "tower", "own-god"):
            break  # the Blade stops in the hex before
        if st.blocked:
            return None, st.blocked, (Plan(tuple(path), tuple(faults)) if path else None)
        if pylon_rule and st.pylon_to_pylon:
            if i == 0:
                # Pylon Movement: from pylon to pylon a Blade moves a single hex.
                return (Plan((st.to,), (0,) if st.fault else (), fight=st.stop and not st.god, god_attack=st.god),
                        None, None)
            break
        if st.fault:
            faults.append(i)
        path.append(st.to)
        cur = st.to
        if st.stop:
            return Plan(tuple(path), tuple(faults), fight=not st.god, god_attack=st.god), None, None
    if not path:
        return None, "blade-blocked", None
    return Plan(tuple(path), tuple(faults)), None, None


def _blade_line(s: Snapshot, child: Child, d: HexDirection) -> list[Plan]:
    """The Blade's plans in direction ``d``: its full move, and with Friendly Obstacle each
    stop on a friendly Stone before its end. A stop short of the step that forbids the full
    move (the turn's god attack already made, a runeline) is still a stop: the Blade never
    takes that step."""
    plan, _, before = _blade_steps(s, child, d)
    plans = [] if plan is None else [plan]
    walked = plan or before  # where the Blade goes, or goes before the step that forbids it
    if s.options.friendly_obstacle and walked is not None:
        for i, h in enumerate(walked.path[:-1] if plan is not None else walked.path):
            if h not in s.board.cells:
                break
            if s.stones[(h, child.side)] > s.pos.obstacles_used_at(h):
                steps = tuple(f for f in walked.fault_steps if f <= i)
                plans.append(Plan(walked.path[: i + 1], steps, obstacle=True))
    return plans


# -- explanations -----------------------------------------------------------------------

_REASONS = {
    "runeline": "{what} may not cross the runeline between {a} and {b}",
    "pylon": "{what} may not climb from the flatland onto the pylon at {b}",
    "tower": "nobody may enter the Tower of Balance at {b}",
    "own-god": "children may never enter their own god's hex ({b})",
    "god-attack-used": "only one child may attack the enemy god in a turn",
    "chaos": "{what} would leave the map into Chaos",
}


def describe(reason: str, what: str, a: Hex, b: Hex) -> str:
    text = _REASONS.get(reason, reason)
    return text.format(what=what, a=a.label(), b=b.label())


def why_not(s: Snapshot, child: Child, to: Hex) -> tuple[str, str]:
    """A reason code and sentence for why ``child`` cannot end its move at ``to``."""
    what = f"{child.aspect.title} {child.id}"
    if child.aspect is Aspect.BLADE:
        d = child.hex.direction_to(to)
        if d is None:
            return "blade-straight-line", f"{what} moves only in a straight line along one of the six hex directions"
        plan, reason = blade_walk(s, child, d)
        if plan is None:
            if reason == "blade-blocked":
                return "blade-blocked", f"{what} cannot move {d.name}: the very first hex stops it"
            b = _first_block(s, child, d)
            return reason or "blade-blocked", describe(reason or "blade-blocked", what, b, b)
        dist = child.hex.distance(to)
        if dist < len(plan.path) and to in plan.path:
            return (
                "blade-must-move-five",
                (f"{what} must move the full five hexes unless something stops it; "
                f"moving {d.name} it ends at {plan.to.label()}"),
            )
        if not _fits(s, child, plan) and plan.to == to:
            return "stacking", f"more than {s.options.stacking_limit} children of one god may not share {to.label()}"
        return (
            "blade-stopped",
            f"{what} moving {d.name} stops at {plan.to.label()} and cannot reach {to.label()}",
        )
    limit = FOG_RANGE if child.aspect is Aspect.FOG else 1
    if s.options.pylon_movement and child.aspect is Aspect.STONE and s.board.is_pylon(child.hex):
        limit = STONE_PYLON_RANGE
    if child.hex.distance(to) > limit:
        n = "one hex" if limit == 1 else f"{limit} hexes"
        return "too-far", f"{what} moves at most {n} ({to.label()} is {child.hex.distance(to)} away)"
    if to == child.hex:
        return "no-move", f"{what} would end where it started"
    # Try every path of the right length and report the reason of the one that got furthest.
    best: tuple[int, str, Hex, Hex] | None = None
    for path in _paths(child.hex, to, limit):
        prev = child.hex
        for i, h in enumerate(path):
            d = prev.direction_to(h)
            assert d is not None
            st = _step(s, child.side, child.aspect, prev, d)
            if st.to != h:
                break  # Chaos Gambit II: off the grid the child comes back in elsewhere
            reason = st.blocked or ("chaos" if st.chaos else None)
            if reason is None and st.stop and i < len(path) - 1:
                reason = "enemy-in-the-way"
            if reason:
                if best is None or i > best[0]:
                    best = (i, reason, prev, h)
                break
            prev = h
        else:
            if s.own(to, child.side) + 1 <= s.options.stacking_limit and s.options.pylon_movement:
                return "pylon-movement", f"{what} may not mix pylon-to-pylon and other movement in one turn"
            return "stacking", f"more than {s.options.stacking_limit} children of one god may not share {to.label()}"
    if best is None:
        return "unreachable", f"{what} cannot reach {to.label()}"
    _, reason, a, b = best
    if reason == "enemy-in-the-way":
        return reason, f"{what} must stop on entering the enemy at {b.label()}"
    return reason, describe(reason, what, a, b)


def _first_block(s: Snapshot, child: Child, d: HexDirection) -> Hex:
    cur = child.hex
    for _ in range(BLADE_RANGE):
        st = _step(s, child.side, Aspect.BLADE, cur, d)
        if st.blocked:
            return st.to
        cur = st.to
    return cur


def _paths(a: Hex, b: Hex, limit: int) -> list[tuple[Hex, ...]]:
    out: list[tuple[Hex, ...]] = []

    def go(cur: Hex, path: tuple[Hex, ...]) -> None:
        if cur == b and path:
            out.append(path)
            return
        if len(path) >= limit or cur.distance(b) > limit - len(path):
            return
        for n in cur.neighbors():
            if n not in path and n != a:
                go(n, path + (n,))

    go(a, ())
    return out

"""OneWorld set-up (section 3): who places what, where, in which order."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from rules.core import Event, Verdict
from rules.geometry import Hex
from rules.oneworld.board import End, OneWorldMap
from rules.oneworld.model import (
    Child,
    ChooseTower,
    God,
    Phase,
    Position,
    SetUp,
    Side,
    sort_children,
)
from rules.oneworld.options import OneWorldOptions

__all__ = ["setup_step", "check_setup", "apply_setup", "check_tower", "apply_tower", "example_setup"]


def setup_step(options: OneWorldOptions, pos: Position) -> tuple[str, Side] | None:
    """What set-up waits for: ("setup", side) or ("tower", side); None when done."""
    if pos.phase is not Phase.SETUP:
        return None
    first = pos.first_setup
    second = first.other()
    placed = {s for s, _ in pos.ends}
    towers_chosen = bool(pos.towers) or not options.towers_in_play or options.non_aligned_towers
    if first not in placed:
        return ("setup", first)
    chooser = first if options.new_geography else second
    if not towers_chosen:
        return ("tower", chooser)
    if second not in placed:
        return ("setup", second)
    return None


def check_setup(board: OneWorldMap, options: OneWorldOptions, pos: Position, action: SetUp) -> Verdict:
    step = setup_step(options, pos)
    if step is None or step[0] != "setup":
        return Verdict.illegal("not-setup", "set-up is not what the game waits for now")
    if step[1] is not action.side:
        return Verdict.illegal("not-your-turn", f"{step[1].title} sets up now, not {action.side.title}")
    taken = pos.end_of(action.side.other())
    end = action.end or (taken.other() if taken else None)
    if end is None:
        return Verdict.illegal("end-needed", "the first player to set up must choose an end (north or south)")
    if taken is end:
        return Verdict.illegal("end-taken", f"the {end.value} end is already the other player's")
    god = action.god
    if god not in board.cells:
        return Verdict.illegal("off-map", f"the god's hex {god} is not on the map")
    if god in board.tower_hexes():
        return Verdict.illegal("tower", f"the god may not sit in the Tower hex {god}")
    if board.rows_from_end(god, end) > options.setup_god_rows:
        return Verdict.illegal(
            "god-too-far",
            f"the god must be placed within {options.setup_god_rows} hexes of the {end.value} end; "
            f"{god} is {board.rows_from_end(god, end)} rows from it",
        )
    enemy_god = pos.god(action.side.other()).hex
    if enemy_god is not None and enemy_god.distance(god) == 0:
        return Verdict.illegal("occupied", f"{god} holds the enemy god")
    enemy_hexes = {c.hex for c in pos.children_of(action.side.other())}
    if god in enemy_hexes:
        return Verdict.illegal("occupied", f"the god may not sit among enemy children ({god})")
    n = options.children_per_side
    if len(action.children) != n:
        return Verdict.illegal("child-count", f"{n} children must be placed, not {len(action.children)}")
    stacks: Counter = Counter()
    for h, _aspect in action.children:
        if h not in board.cells:
            return Verdict.illegal("off-map", f"child placed at {h}, which is not on the map")
        if h == god:
            return Verdict.illegal("own-god", f"children may not share their god's hex ({h})")
        if h in board.tower_hexes():
            return Verdict.illegal("tower", f"no child may be placed in the Tower hex {h}")
        if h.distance(god) > options.setup_child_range:
            return Verdict.illegal(
                "child-too-far",
                f"children must be within {options.setup_child_range} hexes of their god; {h} is "
                f"{h.distance(god)} away",
            )
        if h in enemy_hexes or h == enemy_god:
            return Verdict.illegal("occupied", f"{h} already holds enemy pieces")
        stacks[h] += 1
        if stacks[h] > options.stacking_limit:
            return Verdict.illegal(
                "stacking", f"more than {options.stacking_limit} children of one god may not share {h}"
            )
    return Verdict.ok()


def apply_setup(options: OneWorldOptions, pos: Position, action: SetUp) -> tuple[Position, list[Event]]:
    side = action.side
    taken = pos.end_of(side.other())
    end: End = action.end or (taken.other() if taken else End.NORTH)
    children = [
        Child(f"{side.prefix}{i}", side, aspect, h) for i, (h, aspect) in enumerate(action.children, start=1)
    ]
    pos = pos.with_god(God(side, action.god, options.lives(side)))
    pos = replace(pos, ends=pos.ends + ((side, end),), children=sort_children(pos.children + tuple(children)))
    events = [
        Event.of(
            "setup",
            f"{side.title} defends the {end.value} end; the god sits at {action.god} with "
            f"{len(children)} children around it.",
            side=side.value,
            end=end.value,
            god=action.god,
        )
    ]
    return pos, events


def check_tower(board: OneWorldMap, options: OneWorldOptions, pos: Position, action: ChooseTower) -> Verdict:
    step = setup_step(options, pos)
    if step is None or step[0] != "tower":
        return Verdict.illegal("not-setup", "choosing a Tower is not what the game waits for now")
    if step[1] is not action.side:
        return Verdict.illegal("not-your-turn", f"{step[1].title} chooses the Tower, not {action.side.title}")
    if action.hex not in board.tower_hexes():
        towers = " or ".join(h.label() for h in board.tower_hexes())
        return Verdict.illegal("not-a-tower", f"{action.hex} is not a Tower hex (choose {towers})")
    return Verdict.ok()


def apply_tower(board: OneWorldMap, pos: Position, action: ChooseTower) -> tuple[Position, list[Event]]:
    other = next(h for h in board.tower_hexes() if h != action.hex)
    towers = ((action.side, action.hex), (action.side.other(), other))
    pos = replace(pos, towers=tuple(sorted(towers, key=lambda t: t[0].value)))
    return pos, [
        Event.of(
            "setup",
            f"{action.side.title} takes the Tower at {action.hex}; {action.side.other().title} gets {other}.",
            side=action.side.value,
            tower=action.hex,
        )
    ]


def example_setup(board: OneWorldMap, options: OneWorldOptions, pos: Position, side: Side) -> SetUp:
    """A legal set-up for ``side``: the god in the middle of its home rows, the children
    spread in front of it in a fixed Stone, Blade, Fog rotation. Useful for demos and tests.
    """
    from rules.oneworld.model import Aspect

    taken = pos.end_of(side.other())
    end = taken.other() if taken else End.NORTH
    towers = set(board.tower_hexes())
    enemy = {c.hex for c in pos.children_of(side.other())} | {
        g.hex for g in pos.gods if g.side is not side and g.hex is not None
    }
    home = [h for h in board.cells if board.rows_from_end(h, end) <= options.setup_god_rows and h not in towers and h not in enemy]
    cx = (board.columns + 1) / 2
    god = min(home, key=lambda h: (abs(h.offset()[0] - cx) + abs(board.rows_from_end(h, end) - 2), h))
    spots = sorted(
        (h for h in board.cells if h != god and h not in towers and h not in enemy and h.distance(god) <= min(3, options.setup_child_range)),
        key=lambda h: (h.distance(god), board.rows_from_end(h, end) * -1, h),
    )
    aspects = [Aspect.STONE, Aspect.BLADE, Aspect.FOG]
    n = options.children_per_side
    placed: list[tuple[Hex, Aspect]] = []
    i = 0
    while len(placed) < n:
        h = spots[i % len(spots)]
        if sum(1 for p, _ in placed if p == h) < options.stacking_limit:
            placed.append((h, aspects[len(placed) % 3]))
        i += 1
    return SetUp(side, god, tuple(placed), end if taken is None else None)

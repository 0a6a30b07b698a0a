"""Positions drawn as text, for tests, documentation and debugging.

One token per square, separated by spaces, one line per row (``y`` grows downwards, the
first token of the first line is square 0,0). ``.`` is an empty square, ``_`` a gap; a
letter is a checker: ``b`` Babylonian, ``e`` Egyptian, ``g`` Greek, ``n`` Norse, upper case
for the army's god checker. Every 2x2 block at even coordinates must be all squares (a
tile) or all gaps.

>>> state = parse_diagram('''
...     g G _ _
...     . . _ _
...     . n N .
...     . . . .
... ''')
>>> [a.value for a in state.alive], len(state.tiles), state.current.value
(['greek', 'norse'], 3, 'greek')
>>> print(render(state))
g G _ _
. . _ _
. n N .
. . . .
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rules.errors import FormatError
from rules.geometry import Square
from rules.when_gods_collide.knowledge import normalize
from rules.when_gods_collide.model import (
    Army,
    Checker,
    Identity,
    Phase,
    Tile,
    TurnRoll,
    WgcState,
    army_order,
    sorted_checkers,
)

__all__ = ["parse_diagram", "render"]

_LETTERS = {a.value[0]: a for a in Army}


def parse_diagram(
    text: str,
    *,
    armies: Iterable[Army] | None = None,
    phase: Phase = Phase.ROLL,
    current: Army | None = None,
    roll: TurnRoll | None = None,
    unknown: Iterable[Army] = (),
    owners: Mapping[Square, Army] | None = None,
    captured: Mapping[Army, int] | None = None,
) -> WgcState:
    """A state from a drawing (see the module docstring).

    ``armies``: who is in play, in seat order (default: the armies drawn, in their fixed
    order). ``current`` defaults to the first of them. ``unknown``: armies whose god the
    referee was not told (their lower-case checkers are ``UNKNOWN``). ``owners``: tile owner
    by top-left square (default: the first army owns every tile).
    """
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    if not rows or len(rows) % 2 or any(len(r) != len(rows[0]) for r in rows) or len(rows[0]) % 2:
        raise FormatError(
            "diagram", "rows must be equally long, with an even number of rows and columns"
        )
    unknown = set(unknown)
    real: set[Square] = set()
    checkers = []
    for y, row in enumerate(rows):
        for x, token in enumerate(row):
            if token == "_":
                continue
            sq = Square(x, y)
            real.add(sq)
            if token == ".":
                continue
            army = _LETTERS.get(token.lower())
            if army is None or len(token) != 1:
                raise FormatError("diagram", f"unknown token {token!r} at {sq}")
            if token.isupper():
                if army in unknown:
                    raise FormatError(
                        "diagram", f"{army.value}'s god is unknown, yet drawn at {sq}"
                    )
                identity = Identity.GOD
            else:
                identity = Identity.UNKNOWN if army in unknown else Identity.MORTAL
            checkers.append(Checker(sq, army, army, identity))
    drawn = sorted({c.army for c in checkers}, key=army_order)
    alive = tuple(armies) if armies is not None else tuple(drawn)
    tiles = []
    for y in range(0, len(rows), 2):
        for x in range(0, len(rows[0]), 2):
            block = {Square(x + dx, y + dy) for dx in (0, 1) for dy in (0, 1)}
            inside = block & real
            if inside and inside != block:
                raise FormatError("diagram", f"the 2x2 block at {x},{y} is part gap, part square")
            if inside:
                owner = (owners or {}).get(Square(x, y), alive[0])
                tiles.append(Tile(Square(x, y), owner))
    if phase not in (Phase.TILES, Phase.DEPLOY, Phase.FIRST_ROLL):
        for army in alive:
            if not any(c.army is army and c.identity is not Identity.MORTAL for c in checkers):
                raise FormatError(
                    "diagram", f"{army.value} is in play but has no god checker drawn"
                )
    state = WgcState(
        phase=phase,
        alive=alive,
        current=current if current is not None else alive[0],
        first=alive[0],
        tiles=tuple(tiles),
        checkers=sorted_checkers(checkers),
        roll=roll,
        captured=tuple(sorted((captured or {}).items(), key=lambda p: army_order(p[0]))),
    )
    return normalize(state)


def render(state: WgcState) -> str:
    """Draw ``state`` in the diagram notation (a checker shows the letter of its side)."""
    squares = state.board.squares()
    if not squares:
        return ""
    xs = [s.x for s in squares]
    ys = [s.y for s in squares]
    lines = []
    for y in range(min(ys), max(ys) + 1):
        tokens = []
        for x in range(min(xs), max(xs) + 1):
            sq = Square(x, y)
            c = state.occupant.get(sq)
            if c is None:
                tokens.append("." if sq in state.board else "_")
            else:
                letter = c.side.value[0]
                tokens.append(letter.upper() if c.identity is Identity.GOD else letter)
        lines.append(" ".join(tokens))
    return "\n".join(lines)

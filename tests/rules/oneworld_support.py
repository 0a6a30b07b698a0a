"""Shared helpers of the OneWorld rules tests: shorthands, the 9 x 9 arena map, and builders of
games and positions from short text specs.

The test files import this module by name (``from oneworld_support import ...``): tests/ is
not a package and pytest runs with --import-mode=importlib, so conftest.py in this folder puts
the folder on sys.path. Helpers that only one test file needs stay in that file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.geometry import Hex
from rules.oneworld import (
    Aspect,
    Child,
    God,
    Move,
    OneWorld,
    OneWorldOptions,
    Phase,
    Position,
    Side,
    parse_map,
)

H = Hex.parse
"""A hex from its printed label: ``H("0505")``."""

BORG, CHEZ = Side.BORG, Side.CHEZ
S, B, F = Aspect.STONE, Aspect.BLADE, Aspect.FOG
STONE, BLADE, FOG = S, B, F

ASPECT_LETTERS: dict[str, Aspect] = {"S": S, "B": B, "F": F}
"""The aspect letters of position specs and of ``aspects``."""

# 9 x 9 flatland; Towers on the west (0105) and east (0905) edges of the middle row.
ARENA = """\
size 9 9
row 01 . . . . . . . . .
row 02  . . . . . . . . .
row 03 . . . . . . . . .
row 04  . . . . . . . . .
row 05 T . . . . . . . T
row 06  . . . . . . . . .
row 07 . . . . . . . . .
row 08  . . . . . . . . .
row 09 . . . . . . . . .
"""

ARENA_TOWERS: tuple[tuple[Side, Hex], ...] = ((BORG, H("0105")), (CHEZ, H("0905")))
"""The owners of the arena's Towers: BORG the western one, CHEZ the eastern one."""


def game(text: str = ARENA, *, towers: bool = True, **options: Any) -> OneWorld:
    """A game on the map ``text`` (the arena unless given) with the options given as JSON
    fields; ``towers=False`` accepts a test map without its two Tower hexes."""
    return OneWorld(OneWorldOptions.from_json(options), parse_map(text, require_towers=towers))


def aspects(text: str) -> tuple[Aspect, ...]:
    """Aspects from their letters: ``aspects("SBF")`` is (Stone, Blade, Fog)."""
    return tuple(ASPECT_LETTERS[c] for c in text)


def children(spec: str) -> tuple[Child, ...]:
    """Children from a spec such as ``"B1:S@0404 C1:F@0505"``: for each, its id (B... is BORG's,
    C... CHEZ's), its aspect letter and its hex."""
    out = []
    for token in spec.split():
        cid, rest = token.split(":")
        aspect, where = rest.split("@")
        out.append(Child(cid, BORG if cid[0] == "B" else CHEZ, ASPECT_LETTERS[aspect], H(where)))
    return tuple(out)


def position(
    spec: str = "",
    active: Side = BORG,
    *,
    lives: tuple[int, int] = (3, 3),
    borg_god: str | None = "0501",
    chez_god: str | None = "0509",
    towers: tuple[tuple[Side, Hex], ...] = ARENA_TOWERS,
    **changes: Any,
) -> Position:
    """A position in the movement phase with the children of ``spec`` (see ``children``) and
    ``active`` to move.

    The defaults suit the arena: the gods at 0501 (BORG) and 0509 (CHEZ), ``lives`` as (BORG,
    CHEZ), the Towers owned as in ``ARENA_TOWERS``. A god given as None is off the map; pass
    ``towers=()`` for a position without Towers. Any other Position field is set by keyword in
    ``changes``.
    """
    pos = Position(
        Phase.MOVEMENT,
        active,
        gods=(
            God(BORG, H(borg_god) if borg_god else None, lives[0]),
            God(CHEZ, H(chez_god) if chez_god else None, lives[1]),
        ),
        children=children(spec),
        towers=towers,
    )
    return replace(pos, **changes)


def destinations(g: OneWorld, pos: Position, piece: str) -> set[str]:
    """The labels of the hexes that ``g`` lists as moves of ``piece`` in ``pos``."""
    return {a.to.label() for a in g.legal_actions(pos) if isinstance(a, Move) and a.piece == piece}

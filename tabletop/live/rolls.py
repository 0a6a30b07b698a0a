"""Chance actions read off the table: dice thrown, a Wormholes coin turned over.

While the engine awaits a chance action (``CHANCE`` to move), its outcomes are matched with
what the table shows: the dice classes that changed (When Gods Collide's ``chess-rook``,
``d6-4``, ``hero-imp``; Wormholes' ``die-suns-ace``), or the value a coin now shows on the
cell the engine awaits a reveal for.

>>> sorted(dice_tokens(("chess-rook", "d6-4", "die-suns-ace")).items())
[('4', 1), ('rook', 1), ('suns:1', 1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.live.board import SeenBoard

__all__ = ["awaits_dice", "dice_missing", "dice_tokens", "read_roll"]

#: Piecepack faces by name (Wormholes dice and coins).
_FACES = {"null": "0", "ace": "1"}

Chance = Sequence[tuple[Any, Mapping[str, Any]]]  # (action, its JSON) for each chance outcome


def dice_tokens(dice: tuple[str, ...]) -> Counter[str]:
    """What the dice on the table show, as the roll actions write it: ``chess-rook`` -> ``rook``,
    ``d6-4`` -> ``4``, ``hero-imp`` -> ``imp``, Wormholes' ``die-suns-ace`` -> ``suns:1``."""
    out: Counter[str] = Counter()
    for d in dice:
        if d.startswith("die-"):
            suit, _, face = d[len("die-"):].partition("-")
            out[f"{suit}:{_FACES.get(face, face)}"] += 1
            continue
        for prefix in ("d6-", "chess-", "hero-"):
            if d.startswith(prefix):
                out[d[len(prefix):]] += 1
    return out


def _roll_tokens(aj: Mapping[str, Any]) -> list[str]:
    out = []
    for k, v in aj.items():
        if k == "type" or v is None:
            continue
        if isinstance(v, Mapping):  # Wormholes: {"suns": 3, "moons": 0}
            out += [f"{suit}:{value}" for suit, value in v.items()]
        else:
            out.append(str(v))
    return out


def read_roll(chances: Chance, before: SeenBoard, after: SeenBoard) -> tuple[Any, Mapping[str, Any]] | None:
    """The chance outcome the table shows, as (action, JSON): a roll read from the dice (the
    one with most dice that changed), or a Wormholes coin turned over to show its value."""
    now = dice_tokens(after.dice)
    changed = now - dice_tokens(before.dice)
    best = None
    for a, aj in chances:
        if aj.get("type") == "reveal":
            if _coin_value(after, aj.get("at")) == str(aj.get("value")):
                return a, aj
            continue
        values = _roll_tokens(aj)
        if not values or any(now[v] == 0 for v in values) or not any(changed[v] for v in values):
            continue
        score = (sum(1 for v in values if changed[v]), -len(values))
        if best is None or score > best[0]:
            best = (score, a, aj)
    return None if best is None else (best[1], best[2])


def awaits_dice(chances: Chance) -> bool:
    """Whether the chance action awaited is a throw of dice (not a coin's reveal)."""
    return bool(chances) and chances[0][1].get("type") in ("roll", "roll-off", "rolloff")


def dice_missing(chances: Chance, before: SeenBoard, after: SeenBoard) -> int:
    """How many fewer dice are seen than at the last position while a throw is awaited (a die
    under a hand, or read as nothing)."""
    if not awaits_dice(chances):
        return 0
    return max(0, len(before.dice) - len(after.dice))


def _coin_value(seen: SeenBoard, cell: Any) -> str | None:
    """The value a Wormholes coin shows at ``cell`` (``coin-ace`` -> ``1``), if one does."""
    for p in seen.at(str(cell)):
        face = p.cls[len("coin-"):] if p.cls.startswith("coin-") else ""
        face = _FACES.get(face, face)
        if face.isdigit():
            return face
    return None

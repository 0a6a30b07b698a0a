"""Chance actions read off the table: dice thrown, a Wormholes coin turned over.

While the engine awaits a chance action (``CHANCE`` to move), its outcomes are matched with
what the table shows: the dice classes that changed (When Gods Collide's ``chess-rook``,
``d6-4``, ``hero-imp``; Wormholes' ``die-suns-ace``), or the value a coin now shows on the
cell the engine awaits a reveal for.

>>> sorted(dice_tokens(("chess-rook", "d6-4", "die-suns-ace")).items())
[('4', 1), ('rook', 1), ('suns:1', 1)]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tabletop.live.board import SeenBoard

__all__ = ["awaits_dice", "dice_missing", "dice_tokens", "read_roll", "table_steps", "thrown", "thrown_d6"]

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
    one with most dice :func:`thrown`), or a Wormholes coin turned over to show its value."""
    now = dice_tokens(after.dice)
    changed = dice_tokens(tuple(thrown(before, after)))  # a die thrown again to the face it showed counts
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


#: :func:`table_steps` tries the orders of at most this many dice thrown (24 orders).
MOST_THROWN = 4


#: A die showing the face a die showed before, its centre within this share of the die's size
#: from where that die lay, is that die still lying there; farther, it was thrown again.
SAME_PLACE = 0.5


def thrown(before: SeenBoard, after: SeenBoard) -> list[str]:
    """The dice ``after`` shows that ``before`` did not (a throw), sorted: dice left lying
    from an earlier throw are not counted again. Where both boards know where their dice lie
    (:attr:`SeenBoard.dice_boxes`), a die showing a face a die showed before is left lying
    only where that die lay (:data:`SAME_PLACE`): one thrown again to the same face lies
    elsewhere, and counts. Without where they lie, the faces alone are compared.

    >>> thrown(SeenBoard("when-gods-collide", dice=("chess-rook",)),
    ...        SeenBoard("when-gods-collide", dice=("chess-rook", "d6-4")))
    ['d6-4']
    >>> at = lambda *boxes: tuple((x, y, x + 1.0, y + 1.0) for x, y in boxes)
    >>> lying = SeenBoard("wormholes", dice=("die-suns-ace",), dice_boxes=at((0, 0)))
    >>> thrown(lying, SeenBoard("wormholes", dice=("die-suns-ace",), dice_boxes=at((0.2, 0.1))))
    []
    >>> thrown(lying, SeenBoard("wormholes", dice=("die-suns-ace",), dice_boxes=at((4, 3))))
    ['die-suns-ace']
    """
    def lying(board: SeenBoard) -> list[tuple[str, Any]]:
        boxes = board.dice_boxes if len(board.dice_boxes) == len(board.dice) else (None,) * len(board.dice)
        return list(zip(board.dice, boxes))

    old, new = lying(before), lying(after)
    if any(box is None for _, box in old + new):  # where the dice lie is not known: their faces alone
        return sorted((Counter(after.dice) - Counter(before.dice)).elements())
    # the most dice left lying (each new die matched to an old die of its face where that lay,
    # by augmenting paths): a die whose box wavers towards a like one beside it takes no
    # place another still die holds
    near = [[k for k, (d, b) in enumerate(old) if d == die and _same_place(b, box)] for die, box in new]
    held: dict[int, int] = {}  # old die -> the new die lying where it lay

    def match(j: int, seen: set[int]) -> bool:
        for k in near[j]:
            if k not in seen:
                seen.add(k)
                if k not in held or match(held[k], seen):
                    held[k] = j
                    return True
        return False

    for j in range(len(new)):
        match(j, set())
    lying_still = set(held.values())
    return sorted(die for j, (die, _) in enumerate(new) if j not in lying_still)


def thrown_d6(before: SeenBoard, after: SeenBoard) -> list[int]:
    """The faces of the d6 dice :func:`thrown` from ``before`` to ``after``, smallest first.

    >>> thrown_d6(SeenBoard("oneworld", dice=("d6-2",)), SeenBoard("oneworld", dice=("d6-2", "d6-5", "d6-1")))
    [1, 5]
    >>> at = lambda *boxes: tuple((x, y, x + 10.0, y + 10.0) for x, y in boxes)
    >>> lying = SeenBoard("oneworld", dice=("d6-2",), dice_boxes=at((0, 0)))
    >>> thrown_d6(lying, SeenBoard("oneworld", dice=("d6-2",), dice_boxes=at((2, 1))))
    []
    >>> thrown_d6(lying, SeenBoard("oneworld", dice=("d6-2",), dice_boxes=at((40, 30))))
    [2]
    """
    return sorted(int(d[3:]) for d in thrown(before, after) if d.startswith("d6-") and d[3:].isdigit())


def set_aside_lying(seen: SeenBoard, still: SeenBoard | None) -> SeenBoard:
    """``seen`` with its dice whose faces were not read surely set aside when every one of
    them lies where a die unsure of its face lay at ``still`` (within :data:`SAME_PLACE`): the
    position a throw is read from (the live referee's last position played from, not its last
    still one, which may be the throw itself, held back): it was not thrown since, and it keeps no throw from being read, whether
    it is a die left lying whose face the reader cannot make out, or something lying still on
    the table that the d6 finder takes for one (a patch of leaves, a hex of the map). Its
    place is kept (``unsure_boxes``) for the positions after. ``seen`` as it is when it has no
    such die, when one lies elsewhere (a die read surely there before may have been thrown
    again to the same place), or when where they lie is not known.

    >>> at = lambda *boxes: tuple((x, y, x + 1.0, y + 1.0) for x, y in boxes)
    >>> still = SeenBoard("oneworld", unsure_dice=1, unsure_boxes=at((0, 0)))
    >>> now = SeenBoard("oneworld", unsure_dice=1, unsure_boxes=at((0.2, 0)), sure_dice=("d6-4",),
    ...                 sure_boxes=at((9, 9)))
    >>> set_aside_lying(now, still).dice, set_aside_lying(now, still).unsure_dice
    (('d6-4',), 0)
    >>> set_aside_lying(now, SeenBoard("oneworld", unsure_dice=1, unsure_boxes=at((5, 5)))).unsure_dice
    1
    """
    if not seen.unsure_dice or still is None or len(seen.unsure_boxes) != seen.unsure_dice:
        return seen
    if not all(any(_same_place(box, old) for old in still.unsure_boxes) for box in seen.unsure_boxes):
        return seen
    if len(seen.sure_boxes) != len(seen.sure_dice):
        return seen
    return replace(seen, dice=seen.sure_dice, dice_boxes=seen.sure_boxes, unsure_dice=0, sure_dice=(), sure_boxes=())


def _same_place(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether boxes ``a`` and ``b`` (x1, y1, x2, y2) are one die lying still: their centres
    within :data:`SAME_PLACE` of the larger box's longer side."""
    size = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    dx = (a[0] + a[2] - b[0] - b[2]) / 2
    dy = (a[1] + a[3] - b[1] - b[3]) / 2
    return (dx * dx + dy * dy) ** 0.5 <= SAME_PLACE * size


def table_steps(game: Any, state: Any, action: Any, faces: Sequence[int],
                fits: Any = None) -> list[Any]:
    """The steps of ``action`` from ``state`` with the dice ``faces`` read off the table, in
    each order they could be taken in (which die is whose the table does not say), every
    die used; ``fits(step)``, when given, keeps those the table's other evidence allows (a
    battle's result). One step per end position, in the order first found; none for more than
    :data:`MOST_THROWN` dice (no action throws so many at once: some are no throw, and their
    orders would take long to try)."""
    from itertools import permutations

    from rules.errors import IllegalActionError, RollNeededError
    from tabletop.live.outcomes import Fixed

    ends: dict[str, Any] = {}
    if len(faces) > MOST_THROWN:
        return []
    for order in dict.fromkeys(permutations(faces)):
        dice = Fixed(order)
        try:
            step = game.apply(state, action, dice)
        except (RollNeededError, IllegalActionError):
            continue
        if dice.faces or (fits is not None and not fits(step)):  # a die not used: not this action's throw
            continue
        key = json.dumps(game.state_to_json(step.state), sort_keys=True, default=str)
        ends.setdefault(key, step)
    return list(ends.values())

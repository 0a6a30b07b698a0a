"""The table put right after the referee's own roll.

With ``--roll-dice`` the referee throws the dice nobody gives. When the players have already
played out an action whose result hangs on those dice (a Battle Grounds battle fought on the
table, the attacker left on the defender's square or taken off), the referee's roll may
decide otherwise than the table shows. The roll stands: :func:`amend` says what to change on
the table, piece by piece, and gives the table the engine now expects, so that putting it
right reads as nothing new.

Only the cells the action names or the engine's step changes are compared, and by which
classes each shows (presence, not counts: like counters stacked read as one box), so a
misread elsewhere on the board never asks for a change.

>>> from rules.registry import get_game
>>> game = get_game("battle-grounds", {})
>>> s = game.initial_state()
>>> amend(game, s, s, SeenBoard("battle-grounds"), SeenBoard("battle-grounds"), {}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.core import GameRules
from tabletop.live.board import SeenBoard
from tabletop.live.explain import piece_classes
from tabletop.live.infer import locations
from tabletop.live.outcomes import change, engine_cells, seen_cells

__all__ = ["Amendment", "amend"]


@dataclass(frozen=True)
class Amendment:
    """What to change on the table (``take``: (cell, piece) to take off; ``put``: (cell,
    piece) to put there), in words, and the table expected once it is done."""

    take: tuple[tuple[str, str], ...]
    put: tuple[tuple[str, str], ...]
    board: SeenBoard

    def words(self) -> str:
        """``Take Hydra Agent off b2; put Iron Man on b2.``"""
        parts = [f"take {name} off {cell}" for cell, name in self.take]
        parts += [f"put {name} on {cell}" for cell, name in self.put]
        text = "; ".join(parts)
        return text[:1].upper() + text[1:] + "."


def _name(piece: Any) -> str:
    """A piece's id as players say it: ``Black Widow`` for ``black-widow``, ``C11`` as it is."""
    text = str(piece)
    return text.replace("-", " ").title() if text.islower() else text


def _names(game: GameRules[Any, Any], state: Any) -> dict[tuple[str, str], list[str]]:
    """(cell, class) -> the engine's pieces there, by name."""
    sj = game.state_to_json(state)
    classes = piece_classes(game, sj)
    out: dict[tuple[str, str], list[str]] = {}
    for piece, cell in locations(game.name, sj):
        if piece in classes and str(piece) != str(cell):  # not a checker known by its cell alone
            out.setdefault((str(cell), classes[piece]), []).append(_name(piece))
    return out


def _who(key: tuple[str, str], names: dict[tuple[str, str], list[str]]) -> str:
    """The engine's piece of (cell, class) ``key`` by name, when one alone is there."""
    found = names.get(key)
    if found and len(found) == 1:
        return found[0]
    return f"the {key[1].replace('-', ' ')} piece"


def _named(value: Any) -> set[str]:
    """Every string in an action's JSON (its cells among them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return set().union(*(_named(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(_named(v) for v in value)) if value else set()
    return set()


def amend(game: GameRules[Any, Any], before: Any, after: Any, base: SeenBoard, seen: SeenBoard,
          action: Mapping[str, Any]) -> Amendment | None:
    """When the table ``seen`` (after ``base``, the table of ``before``) shows ``action`` (its
    JSON) ending otherwise than the engine's step from ``before`` to ``after`` does, on the
    cells it names or the step changes: what to take off and put on, and ``seen`` so changed.
    ``None`` when the table shows no change there (the action not played out yet) or the one
    the engine made."""
    if game.name == "the-game":  # a field, not cells: a piece knocked down is laid on its side instead
        return None
    was = engine_cells(game, before)
    now = engine_cells(game, after)
    engine_change = change(was, now)
    cells = {cell for cell, _ in (*engine_change[0], *engine_change[1])} | _named(action)
    seen_change = tuple(frozenset(k for k in part if k[0] in cells)
                        for part in change(seen_cells(base), seen_cells(seen)))
    if not any(seen_change) or seen_change == engine_change:
        return None
    shown = {k for k in seen_cells(seen) if k[0] in cells}
    wanted = {k for k in now if k[0] in cells}
    put, take = sorted(wanted - shown), sorted(shown - wanted)
    if not put and not take:
        return None
    pieces = [p for p in seen.pieces if (str(p.cell), p.cls) not in take]
    for cell, cls in put:  # the piece as it was seen: where it stood before, or any of its class
        source = [p for p in base.pieces if p.cls == cls and str(p.cell) == cell] or \
                 [p for p in (*base.pieces, *seen.pieces) if p.cls == cls]
        at = [p for p in (*seen.pieces, *base.pieces) if str(p.cell) == cell]
        if source:
            pieces.append(replace(source[0], cell=cell, point=at[0].point if at else source[0].point))
    after_names, before_names = _names(game, after), _names(game, before)
    moved_off: dict[str, list[str]] = {}  # a class taken off: the piece of it the engine moved or removed
    for (cell, cls), names in before_names.items():
        for name in names:
            if name not in after_names.get((cell, cls), []):
                moved_off.setdefault(cls, []).append(name)
    take_words = tuple((cell, moved_off[cls][0] if len(moved_off.get(cls, [])) == 1 else _who((cell, cls), before_names))
                       for cell, cls in take)
    put_words = tuple((cell, _who((cell, cls), after_names)) for cell, cls in put)
    return Amendment(take_words, put_words, replace(seen, pieces=tuple(pieces)))

"""Other readings of a move, for the ``a`` key (accept the other reading).

The move reading (:mod:`tabletop.live.infer`) keeps the first legal reading consistent with
what is seen. With a weak detector that can be the wrong one: two pieces of one cell, a class
confusion, a piece that was missed where it landed. :func:`other_readings` lists the other
legal actions that explain the change between two seen boards, best first:

1. a piece that left one place and one that arrived elsewhere, the action moving the engine's
   piece from the first to the second (the same class first, then another class);
2. only one end seen: an action from a place a piece left, or to a place a piece arrived
   at (the detector missed the other end);
3. last, the illegal readings: an engine piece from a place a piece left to a place one
   arrived at, where the rules do not allow it (the referee called legal what was not).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from rules.core import GameRules
from tabletop.live.board import SeenBoard
from tabletop.live.infer import Reading, diff, locations, move_action

__all__ = ["other_readings"]


def _point(x: Any) -> Any:
    if isinstance(x, Mapping):
        return (float(x["x"]), float(x["y"]))
    return x


def _same(game: str, a: Any, b: Any, tol: float = 0.6) -> bool:
    a, b = _point(a), _point(b)
    if game == "the-game":
        return isinstance(a, tuple) and isinstance(b, tuple) and math.dist(a, b) <= tol
    return a == b


def _ends(game: str, aj: Mapping[str, Any], where: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """(from, to) of an action's JSON; ``None`` for an action that moves nothing."""
    if aj.get("to") is None:
        return None
    piece = aj.get("piece", aj.get("ship"))
    frm = aj.get("from", where.get(piece) if piece is not None else None)
    return _point(frm), _point(aj["to"])


def other_readings(game: GameRules[Any, Any], state: Any, before: SeenBoard, after: SeenBoard,
                   chosen: Reading | None = None) -> list[Reading]:
    """The other readings of ``before`` -> ``after`` from engine ``state``, best first (the
    legal ones, then the illegal ones), without ``chosen``'s action."""
    name = game.name
    gone, came = diff(before, after)
    if not gone and not came:
        return []
    where = {k: _point(v) for k, v in locations(name, game.state_to_json(state))}
    try:
        legal = list(game.legal_actions(state))
    except Exception:  # noqa: BLE001 - no legal list: no other reading
        return []
    skip = chosen.action_json if chosen is not None else None
    ranked: list[tuple[tuple[int, int], int, Reading]] = []
    for i, action in enumerate(legal):
        aj = game.action_to_json(action)
        if aj == skip:
            continue
        ends = _ends(name, aj, where)
        if ends is None or ends[0] is None:
            continue
        frm, to = ends
        left = [cls for at, cls in gone if _same(name, at, frm)]
        arrived = [cls for at, cls in came if _same(name, at, to)]
        if left and arrived:
            rank = (0, 0 if set(left) & set(arrived) else 1)
            note = "" if rank[1] == 0 else f"read as {left[0]} though it looks like {arrived[0]}"
        elif left or arrived:
            rank = (1, 0)
            note = "only one end of the move was seen"
        else:
            continue
        reading = Reading("legal", action, aj, game.verdict(state, action), frm, to, note)
        ranked.append((rank, i, reading))
    seen_json = {_key(r.action_json) for _, _, r in ranked} | {_key(skip)}
    for k, (piece, frm) in enumerate(sorted(where.items(), key=lambda kv: str(kv[0]))):
        if not any(_same(name, at, frm) for at, _ in gone):
            continue
        for at, cls in came:
            if _same(name, at, frm):
                continue
            aj = move_action(name, str(piece), frm, at)
            if _key(aj) in seen_json:
                continue
            try:
                action = game.action_from_json(aj)
                verdict = game.verdict(state, action)
            except Exception:  # noqa: BLE001, S112 - the engine may refuse such a reading in any way
                continue
            if verdict.legal:
                continue
            seen_json.add(_key(aj))
            ranked.append(((2, 0), k, Reading("illegal", action, aj, verdict, frm, at, f"{cls} seen at {at}")))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [r for _, _, r in ranked]


def _key(aj: Any) -> str:
    return json.dumps(aj, sort_keys=True, default=str)

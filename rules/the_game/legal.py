"""Listing legal actions, where measured moves make a complete list impossible.

The camera reports where a piece ended, anywhere within a circle; no list can hold a
continuum. So :func:`legal_actions` lists

* every discrete action in full: acting on each piece in range, staying, passing, taking
  a group, and (up to :data:`SPLIT_LIST_LIMIT` of them) every way of splitting survivors,
  each division once (for an odd number, by the group handed over; for an even number, by
  the group holding the first survivor);
* one representative per kind of measured move and piece (see
  :func:`~rules.the_game.moves.representative_moves`): a step straight ahead or a half-turn
  for an observed piece, walking off when an edge is in reach, and the one move an
  unobserved piece must make;
* for a sequence's set-up, one representative set-up (three pieces a side in facing rows).

The verdict judges any other measured move or set-up on its merits.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

from rules.the_game.flow import due, split_sizes
from rules.the_game.model import (
    Act,
    Action,
    Exit,
    Move,
    Pass,
    Phase,
    Split,
    Stay,
    Take,
    TheGameState,
)
from rules.the_game.moves import representative_moves
from rules.the_game.sight import observation, within_range

if TYPE_CHECKING:
    from rules.the_game.engine import TheGame

__all__ = ["SPLIT_LIST_LIMIT", "legal_actions"]

#: At most this many ways of splitting survivors are listed (all of them for up to 11).
SPLIT_LIST_LIMIT = 512


def legal_actions(game: TheGame, state: TheGameState) -> list[Action]:
    opts = game.options
    if state.phase is Phase.OVER:
        return []
    if state.phase is Phase.SETUP:
        return [game.default_setup()]
    if state.split is not None:
        return _split_actions(game, state)
    if state.response is not None:
        r = state.response
        return [Act(r.responder, r.actor), Stay(r.responder)]
    player = state.next_player
    mine = [p for p in state.pieces if p.controller == player and due(state, p, opts)]
    out: list[Action] = []
    if state.phase is Phase.MOVEMENT:
        standing = state.in_play()
        last = len(standing) == 1
        table = observation(standing, opts) if not last else {}
        forced = False
        for p in mine:
            observed = table[p.id].observed if not last else False
            for rep in representative_moves(p, observed, last, opts):
                out.append(Exit(p.id) if rep is None else Move(p.id, rep[0], rep[1]))
            if observed or not (last or opts.unobserved_must_move):
                out.append(Stay(p.id))
            else:
                forced = True
        if mine and not forced and player is not None:
            out.append(Pass(player))
        return out
    for p in mine:
        for q in state.pieces:
            if q.in_play and q.controller != p.controller and within_range(p, q, opts):
                out.append(Act(p.id, q.id))
        out.append(Stay(p.id))
    if mine and player is not None:
        out.append(Pass(player))
    return out


def unlisted(game: TheGame, state: TheGameState) -> str | None:
    """Why :func:`legal_actions` is not every legal action of ``state``, or ``None`` when it
    is: a set-up (one representative), measured moves (a move ends anywhere within its reach,
    turned any way: one of each kind), or more ways of splitting than are listed."""
    if state.phase is Phase.OVER:
        return None
    if state.phase is Phase.SETUP:
        return "a set-up: one representative set-up is listed, any other is judged on its merits"
    if state.split is not None:
        stage = state.split
        if stage.offer is not None:
            return None
        count = sum(1 for p in state.in_play() if p.controller == stage.splitter)
        keep, give = split_sizes(count)
        ways = comb(count - 1, give - 1) if keep == give else comb(count, give)
        if ways > SPLIT_LIST_LIMIT:
            return f"the first {SPLIT_LIST_LIMIT} of {ways} ways of splitting the survivors are listed"
        return None
    if any(isinstance(a, Move) for a in legal_actions(game, state)):
        return ("measured moves: one move of each kind is listed for each piece, and a move may end anywhere "
                "within its reach, turned any way")
    return None


def _split_actions(game: TheGame, state: TheGameState) -> list[Action]:
    stage = state.split
    assert stage is not None
    mine = [p.id for p in state.in_play() if p.controller == stage.splitter]
    if stage.offer is not None:
        rest = tuple(p for p in mine if p not in stage.offer)
        taker = game.options.other(stage.splitter)
        return [Take(taker, tuple(stage.offer)), Take(taker, rest)]
    keep, give = split_sizes(len(mine))
    out: list[Action] = []
    if keep == give:
        head, tail = mine[0], mine[1:]
        groups = ((head,) + c for c in combinations(tail, give - 1))
    else:
        groups = combinations(mine, give)
    for group in groups:
        out.append(Split(stage.splitter, tuple(group)))
        if len(out) >= SPLIT_LIST_LIMIT:
            break
    return out

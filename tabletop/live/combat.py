"""OneWorld's combat rounds, read by what the table shows.

Each round of a combat between children, both players choose the aspects of their children
in the combat hex in secret and reveal them together (a counter turned to, or swapped for,
its new aspect); the chart then eliminates one for one (:func:`rules.oneworld.combat.losses`).
The engine takes one ``transform`` action from each side: the first changes nothing it
could show, the second resolves the round. The camera sees the round once it is revealed:

- with the aspects revealed and the eliminated counters still in the hex (the referee then
  says who is eliminated, and the players take them off), or
- once the players have taken the eliminated off themselves.

Either way the round is read as a whole (:func:`read_round`): every pair of choices the
rules allow is applied (after the end of movement, when the round is the first sign that
movement ended) and the cells it changes compared with the cells seen to change, as
:mod:`tabletop.live.outcomes` compares a move's. Among the pairs whose change is the one
seen, those whose counts of each class in the hex are the ones seen come first (like
counters stacked may be read as one box: presence decides when no pair's counts agree).
When they all end in one position, the round is read; when they differ, the board cannot
tell which.

A child's fight with a god is not read here: the god's aspect is announced aloud and the
child is eliminated whatever it showed, so both choices are asked for
(:mod:`tabletop.live.choices`); the end of movement before it is read from the child gone.

>>> from rules.registry import get_game
>>> game = get_game("oneworld", {})
>>> round_runs(game, game.initial_state(), [])
[]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from typing import Any

from rules.core import GameRules
from tabletop.live.board import SeenBoard
from tabletop.live.infer import legal, passes
from tabletop.live.outcomes import Outcome, change, covers, engine_pieces, seen_cells, tried

__all__ = ["RoundReading", "god_fight_after", "read_round", "round_runs", "round_words", "taken_off"]

ASPECTS = ("stone", "blade", "fog")


@dataclass(frozen=True)
class RoundReading:
    """A combat round read off the table: the actions that make it (an end of movement
    first, when the round showed that movement ended; then one choice per side), whether the
    table shows it revealed with the eliminated still there, and those (cell, class) the
    players are to take off then."""

    run: tuple[Outcome, ...]
    revealed: bool
    dead: tuple[tuple[str, str], ...]
    #: (from, to, class) of what else the round moves when it ends the turn (a moving Tower).
    moved: tuple[tuple[str, str, str], ...] = ()


def _combat(state: Any) -> Any:
    return getattr(state, "combat", None)


def _starts(game: GameRules[Any, Any], state: Any, rolls: Any) -> list[tuple[list[Outcome], Any]]:
    """(prefix, state) where a round among children is to be chosen: ``state`` itself in
    its combat phase, or after an end of movement that starts one (with the dice given)."""
    if game.name != "oneworld":
        return []
    c = _combat(state)
    if c is not None:
        return [] if c.against_god else [([], state)]
    out = []
    for action in passes(game, state):
        outcome = tried(game, state, action, rolls)
        if outcome is None:
            continue
        c = _combat(outcome.step.state)
        if c is not None and not c.against_god:
            out.append(([outcome], outcome.step.state))
    return out


def round_runs(game: GameRules[Any, Any], state: Any, rolls: Any) -> list[tuple[Any, tuple[Outcome, ...]]]:
    """Every way one combat round among children may go from ``state``: (the state the
    choices are made in, the outcomes of an end of movement when ``state`` is still in its
    movement phase and of one choice for each side still to choose, applied in turn with the
    dice given: a copy, nothing drawn)."""
    runs: list[tuple[Any, tuple[Outcome, ...]]] = []
    for prefix, start in _starts(game, state, rolls):
        sides = list(game.to_move(start))
        choices = {side: [a for a in legal(game, start) if getattr(getattr(a, "side", None), "value", None) == side]
                   for side in sides}
        for combo in product(*(choices[s] for s in sides)):
            now, run = start, list(prefix)
            for action in combo:  # each with the dice the actions before it left (a reinforcement's, say)
                left = run[-1].given_left if run else list(rolls.given)
                outcome = tried(game, now, action, type(rolls)(left))
                if outcome is None:
                    break
                run.append(outcome)
                now = outcome.step.state
            else:
                runs.append((start, tuple(run)))
    return runs


def _revealed(game: GameRules[Any, Any], start: Any, last: Outcome) -> Counter[tuple[str, str]] | None:
    """What the table shows once the round of ``last`` is revealed and before anyone is taken
    off: the board of ``start`` (the state the choices were made in) with the children in
    the combat hex showing the aspects chosen. ``None`` when the outcome is no round."""
    event = next((e for e in last.step.events if e.kind == "combat-round"), None)
    c = _combat(start)
    if event is None or c is None:
        return None
    chosen = {side: event.detail(side, ()) for side in ("borg", "chez")}
    cell = c.hex.label()
    shown = engine_pieces(game, start)
    for side in ("borg", "chez"):
        for aspect in ASPECTS:
            shown.pop((cell, f"{side}-{aspect}"), None)
        shown.update((cell, f"{side}-{aspect}") for aspect in chosen[side])
    return shown


def _moves(gone: list[tuple[str, str]], arrived: list[tuple[str, str]]) -> tuple[tuple[str, str, str], ...]:
    """(from, to, class) of each piece of ``gone`` paired with an arrival of its class: what
    the end of the turn moves (a Tower along the edge)."""
    out = []
    for frm, cls in sorted(gone):
        to = next((c for c, k in sorted(arrived) if k == cls), None)
        if to is not None:
            arrived.remove((to, cls))
            out.append((frm, to, cls))
    return tuple(out)


def _hex_counts(pieces: Counter[tuple[str, str]], cell: str) -> Counter[str]:
    return Counter({cls: n for (c, cls), n in pieces.items() if c == cell})


#: How well a round's table fits the hex seen: every counter's class and count (exact), or the
#: classes seen all among those the round leaves, some counters not seen (hidden under the
#: others, or like counters stacked read as one box).
EXACT, HIDDEN = 1, 0


def _outside(pieces: Counter[tuple[str, str]], cell: str) -> frozenset[tuple[str, str]]:
    return frozenset(k for k, n in pieces.items() if n > 0 and k[0] != cell)


def _of(counts: Counter[str], side: str) -> Counter[str]:
    """The counts of one side's classes."""
    return Counter({k: n for k, n in counts.items() if k.startswith(side)})


def _fit(shown: Counter[str], expected: Counter[str]) -> int | None:
    """How the counters ``shown`` in the hex fit those a round leaves there (:data:`EXACT` or
    :data:`HIDDEN`), or ``None``: a class seen that the round does not leave, or more of one."""
    if shown == expected:
        return EXACT
    if not shown - expected:  # every counter seen is one the round leaves
        return HIDDEN
    return None


def read_round(game: GameRules[Any, Any], state: Any, base: SeenBoard, seen: SeenBoard,
               rolls: Any) -> tuple[list[RoundReading], bool]:
    """The combat rounds (:func:`round_runs`) whose table, revealed or with the eliminated
    taken off, is the one ``seen`` (after ``base``, the table of ``state``), best fits only,
    and whether they all end in one position.

    Outside the combat hex, the classes each cell shows must change from ``base`` to ``seen``
    exactly as the round changes them (an end of movement's reinforcement), but for the
    eliminated, which their players lay beneath their Tower: a counter of their side seen at
    its Tower hex. In the hex, the classes seen are compared with those the round leaves
    (:func:`_fit`): every counter and its count (exact), or classes all among them with some
    counters unseen (hidden under the stack, or like counters read as one box); exact fits win,
    and hidden ones are read only when no round fits exactly. Of a side of which the camera saw fewer counters in the hex than the
    engine has there, a counter may lie hidden still: a round that eliminates one of its
    counters, or leaves it other counts than seen, fits no better than hidden. Before the end
    of movement (``state`` in its movement phase) the hex must show a class new or gone: one
    like counter fewer in a stack is as likely a box the detector missed."""
    if base.cells() == seen.cells():
        return [], False
    before, was, now_all = engine_pieces(game, state), base.cells(), seen.cells()
    # what each state the choices are made in says of its hex: once (the state kept beside it,
    # so that its id is not another's once it is gone)
    views: dict[int, tuple[Any, Any]] = {}
    found: list[tuple[int, RoundReading, str]] = []
    for start, run in round_runs(game, state, rolls):
        if id(start) not in views:
            views[id(start)] = (start, _hex_view(game, state, start, was, now_all))
        view = views[id(start)][1]
        if view is None:
            continue
        cell, short, towers, added, removed, now = view
        end = run[-1].step.state
        after = engine_pieces(game, end)
        shown = _revealed(game, start, run[-1])
        if shown is None:
            continue
        gone, new = shown - after, after - shown
        dead = tuple(sorted(k for k in gone.elements() if k[0] == cell))  # the eliminated, in the hex
        moved = _moves([k for k in gone.elements() if k[0] != cell], list(new.elements()))  # a Tower, say
        beneath = {(towers[cls.split("-")[0]], f"{cls.split('-')[0]}-{a}")
                   for _, cls in dead if towers.get(cls.split("-")[0]) for a in ASPECTS}
        for revealed, pieces in ((False, after), (True, shown)):
            if revealed and not dead:
                continue  # nobody eliminated: the table revealed is the table after
            lays = frozenset() if revealed else beneath
            if not covers((added, removed), change(_outside(before, cell), _outside(pieces, cell)), lays):
                continue
            left = _hex_counts(pieces, cell)
            fit = _fit(now, left)
            if fit is None:
                continue
            if any(any(cls.startswith(side) for _, cls in dead) or _of(left, side) != _of(now, side) for side in short):
                fit = HIDDEN  # a counter of a side partly hidden before may lie hidden still: not read as fallen
            key = json.dumps(game.state_to_json(end), sort_keys=True, default=str)
            found.append((fit, RoundReading(run, revealed, dead if revealed else (), moved if revealed else ()),
                          key))
    best = max((f for f, _, _ in found), default=None)
    found = [f for f in found if f[0] == best]
    return [r for _, r, _ in found], len({k for _, _, k in found}) == 1


def _hex_view(game: GameRules[Any, Any], state: Any, start: Any, was: Counter[tuple[str, str]],
              now_all: Counter[tuple[str, str]]) -> tuple[Any, ...] | None:
    """What the combat state ``start`` and the tables before (``was``) and now (``now_all``)
    say of its hex, the same for every pair of choices made there: (the hex, the sides of
    which the camera saw fewer counters there than the engine has, the Towers, the classes
    new and gone outside it, the counts seen in it now); ``None`` before the end of movement
    when the hex shows no class new or gone (one like counter fewer in a stack is as likely
    a box the detector missed)."""
    cell = _combat(start).hex.label()
    held, saw, now = _hex_counts(engine_pieces(game, start), cell), _hex_counts(was, cell), _hex_counts(now_all, cell)
    if _combat(state) is None and set(saw) == set(now):
        return None
    short = {side for side in ("borg", "chez") if sum(_of(held, side).values()) > sum(_of(saw, side).values())}
    towers = game.state_to_json(start).get("towers") or {}
    added, removed = change(_outside(was, cell), _outside(now_all, cell))
    return cell, short, towers, added, removed, now


def round_words(game: GameRules[Any, Any], run: Sequence[Outcome]) -> str:
    """A round's choices in words: ``BORG Stone+Fog against CHEZ Stone``."""
    chosen = [game.action_to_json(o.action) for o in run]
    return " against ".join(f"{c['side'].upper()} {'+'.join(a.title() for a in c['aspects'])}"
                            for c in chosen if c.get("type") == "transform")


def taken_off(board: SeenBoard, dead: Sequence[tuple[str, str]],
              moved: Sequence[tuple[str, str, str]] = ()) -> SeenBoard:
    """``board`` without the counters the players are to take off: one seen piece of each
    (cell, class) in ``dead`` (the least sure first), and with what the end of the turn moves
    (``moved``: (from, to, class), a Tower) where it goes, so that the table, once they are
    taken off, reads as the position the engine has."""
    pieces = list(board.pieces)
    for cell, cls in dead:
        mine = [p for p in pieces if p.cell == cell and p.cls == cls]
        if mine:
            pieces.remove(min(mine, key=lambda p: p.confidence))
    for frm, to, cls in moved:
        mine = [p for p in pieces if p.cell == frm and p.cls == cls]
        if mine:
            p = max(mine, key=lambda p: p.confidence)
            pieces[pieces.index(p)] = replace(p, cell=to)
    return replace(board, pieces=tuple(pieces))


def god_fight_after(game: GameRules[Any, Any], state: Any, base: SeenBoard, seen: SeenBoard,
                    rolls: Any) -> Outcome | None:
    """The end of movement (with the dice given) after which a child's fight with a god is
    fought, when the table shows the attacking child gone from the god's hex and nothing else
    changed but what the end of movement changes (its reinforcement: the child is eliminated
    whatever the fight): its outcome, for the referee to play before asking for the two
    aspects. ``None`` otherwise."""
    if game.name != "oneworld" or _combat(state) is not None:
        return None
    added, removed = change(seen_cells(base), seen_cells(seen))
    if not removed:
        return None
    before = engine_pieces(game, state)
    for action in passes(game, state):
        outcome = tried(game, state, action, rolls)
        c = _combat(outcome.step.state) if outcome is not None else None
        if c is None or not c.against_god:
            continue
        cell = c.hex.label()
        now = engine_pieces(game, outcome.step.state)
        children = {(cell, cls) for (at, cls) in now if at == cell and not cls.endswith(("-god", "-tower"))}
        gained, lost = change(before, frozenset(now))  # a reinforcement, say
        if (added, removed) == (gained, lost | children):
            return outcome
    return None

"""The move between two accepted positions, read through the rules engine.

The engine's position is the truth the camera confirms. For the grid games every candidate
(each legal action that touches a cell read differently, each relocation of an engine piece to
a cell where something arrived, and "nothing changed") is scored against the seen board
(:mod:`tabletop.live.explain`); the cheapest wins if it explains the board clearly better than
"nothing changed": a legal action is played, an illegal one is explained by the engine's
verdict. Several neighbouring pieces gone at once mean a hand the detector missed: the reading
waits. The Game matches pieces by distance to where the engine has them. While the engine
awaits a chance action, it is read off the table first (:mod:`tabletop.live.rolls`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.core import CHANCE, GameRules, Verdict
from tabletop.live.board import SeenBoard
from tabletop.live.explain import COSTS, FADED, Scene, fixed_pieces, piece_classes
from tabletop.live.rolls import awaits_dice, dice_missing, read_roll, thrown

__all__ = ["PASSES", "Reading", "diff", "infer", "legal", "locations", "move_action", "passes"]


#: Costs are sums of tenths: two sums this close are equal.
EPS = 1e-9


@dataclass(frozen=True)
class Reading:
    """``kind``: ``none`` (nothing changed, or nothing a move explains), ``legal``, ``illegal``,
    ``roll`` (a chance action read from the dice or a coin), ``wait`` (part of the board
    hidden at once: a hand the detector missed), ``no-dice`` (a move while a roll is awaited
    and no dice are seen), ``unclear`` (pieces where no piece was, and no move brings one)."""

    kind: str
    action: Any = None  # the engine action (legal) or its JSON (illegal)
    action_json: dict[str, Any] | None = None
    verdict: Verdict | None = None
    frm: Any = None
    to: Any = None
    note: str = ""
    alternatives: tuple[dict[str, Any], ...] = field(default=())
    #: how much the board seen had to be read otherwise than it looks for the move to explain
    #: it (:data:`tabletop.live.explain.COSTS`, without the illegal reading's own cost); ``None``
    #: where the reading was not weighed so
    cost: float | None = None


# -- per-game knowledge: where the engine's pieces are, and how a move is written --------------

def locations(game: str, state_json: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(piece id, cell) of every piece the engine has on the board."""
    if game == "oneworld":
        return [(c["id"], c["hex"]) for c in state_json.get("children", []) if c.get("hex")]
    if game == "when-gods-collide":
        return [(c["at"], c["at"]) for c in state_json.get("checkers", []) if c.get("at")]
    if game == "wormholes":
        return [(k, v["at"]) for k, v in (state_json.get("ships") or {}).items() if v.get("at")]
    if game == "battle-grounds":
        return [(v, k) for k, v in (state_json.get("board") or {}).items()]
    if game == "the-game":
        return [(p["id"], (p["at"]["x"], p["at"]["y"])) for p in state_json.get("pieces", [])
                if p.get("at") and p.get("presence", "in-play") == "in-play"]
    return []


def move_action(game: str, piece: str, frm: Any, to: Any, facing: float | None = None) -> dict[str, Any]:
    if game == "oneworld":
        return {"type": "move", "piece": piece, "to": to}
    if game == "when-gods-collide":
        return {"type": "move", "from": frm, "to": to}
    if game == "wormholes":
        return {"type": "move", "ship": piece, "to": to}
    if game == "battle-grounds":
        return {"type": "move", "piece": piece, "from": frm, "to": to}
    if game == "the-game":
        out: dict[str, Any] = {"type": "move", "piece": piece, "to": {"x": round(to[0], 2), "y": round(to[1], 2)}}
        if facing is not None:
            out["facing"] = round(facing % 360.0, 1)
        return out
    raise ValueError(f"no move reading for {game!r}")


def _from_to(game: str, aj: Mapping[str, Any], where: Mapping[str, Any]) -> tuple[Any, Any] | None:
    to = aj.get("to")
    if to is None:
        return None
    piece = aj.get("piece", aj.get("ship"))
    frm = aj.get("from", where.get(piece) if piece is not None else None)
    if isinstance(frm, Mapping):
        frm = (frm["x"], frm["y"])
    return frm, to


# -- differences ---------------------------------------------------------------------------------

def diff(before: SeenBoard, after: SeenBoard) -> tuple[list[tuple[Any, str]], list[tuple[Any, str]]]:
    """(gone, came): (cell or point, class) that left and that arrived."""
    if before.game == "the-game":
        return _diff_points(before, after)
    a, b = before.cells(), after.cells()
    gone = sorted((a - b).elements())
    came = sorted((b - a).elements())
    return gone, came


def _diff_points(before: SeenBoard, after: SeenBoard, tol: float = 0.3) -> tuple[list, list]:
    left = list(before.pieces)
    right = list(after.pieces)
    pairs = sorted(
        ((math.dist(p.point, q.point), i, j) for i, p in enumerate(left) for j, q in enumerate(right)
         if p.cls == q.cls),
        key=lambda x: x[0],
    )
    used_l: set[int] = set()
    used_r: set[int] = set()
    for d, i, j in pairs:
        if d > tol or i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
    gone = [(left[i].point, left[i].cls) for i in range(len(left)) if i not in used_l]
    came = [(right[j].point, right[j].cls) for j in range(len(right)) if j not in used_r]
    return gone, came


def _same_cell(game: str, a: Any, b: Any, tol: float = 0.6) -> bool:
    if game == "the-game":
        if isinstance(b, Mapping):
            b = (b["x"], b["y"])
        if isinstance(a, Mapping):
            a = (a["x"], a["y"])
        return math.dist(a, b) <= tol
    return a == b


# -- the reading ---------------------------------------------------------------------------------

def infer(game: GameRules[Any, Any], state: Any, before: SeenBoard, after: SeenBoard,
          margin: float | None = None, touched: bool = False) -> Reading:
    """The action that turned ``before`` (the seen board of the engine's position ``state``)
    into ``after``. Grid games: the candidate that best explains ``after``
    (:mod:`tabletop.live.explain`), by at least ``margin`` better than "nothing changed"
    (default ``COSTS["margin"]``); ``touched``: a hand was over the board in between (a piece
    may then have been put squarely on a like piece); The Game: points matched by distance."""
    if CHANCE in game.to_move(state):  # dice thrown, or a coin turned over
        chances = [(a, game.action_to_json(a)) for a in legal(game, state)]
        roll = read_roll(chances, before, after) if tuple(before.dice) != tuple(after.dice) or \
            before.key() != after.key() or thrown(before, after) else None
        if roll is not None:
            return Reading("roll", roll[0], roll[1], game.verdict(state, roll[0]))
        missing = dice_missing(chances, before, after)
        if missing:  # the dice are thrown but not all read: no move is read before the roll
            return Reading("wait", note=f"waiting to read the dice ({missing} fewer seen)")
        if not after.dice and game.name != "the-game" and awaits_dice(chances):
            moved = _infer_cells(game, state, before, after, COSTS["margin"] if margin is None else margin, touched)
            if moved.kind in ("legal", "illegal"):  # a move, and no dice to read the roll from
                seen = ("the dice on the table are not read surely" if after.unsure_dice or after.unsure_boxes
                        else "no dice are seen on the table")
                return Reading("no-dice", note=f"a roll is awaited and {seen}; the move is read once they are")
            return moved
    if game.name == "the-game":
        return _infer_points(game, state, before, after, touched)
    return _infer_cells(game, state, before, after, COSTS["margin"] if margin is None else margin, touched)


def _infer_cells(game: GameRules[Any, Any], state: Any, before: SeenBoard, after: SeenBoard,
                 margin: float, touched: bool = False) -> Reading:
    name = game.name
    sj = game.state_to_json(state)
    where = dict(locations(name, sj))
    scene = Scene.build(before, after, where, piece_classes(game, sj), fixed_pieces(name, sj), touched)
    changed = scene.changed()
    if not changed:
        return Reading("none")
    hidden = scene.hidden({p.cell: p.point for p in before.pieces if p.cell is not None})
    if len(hidden) >= COSTS["occluded"]:  # several pieces gone at once: a hand the detector missed
        return Reading("wait", note=f"{len(hidden)} pieces hidden at once ({', '.join(map(str, hidden))}); "
                       "waiting for a clear view")
    nothing = scene.none_cost()
    # legal readings: every legal action that moves a piece from or to a cell that changed;
    # illegal ones: an engine piece from a cell that changed to a cell where something arrived
    candidates: list[tuple[float, int, Any, Any, Any, Any]] = []  # cost, order, piece, from, to, action
    moves: set[tuple[Any, Any, Any]] = set()
    for a in legal(game, state):
        ft = _from_to(name, game.action_to_json(a), where)
        if ft is None or ft[0] is None or (ft[0] not in changed and ft[1] not in changed):
            continue
        piece = _piece(name, game.action_to_json(a))
        moves.add((piece, ft[0], ft[1]))
        candidates.append((scene.move_cost(piece, ft[0], ft[1]), 0, piece, ft[0], ft[1], a))
    arrivals = scene.arrivals()
    for piece, cell in where.items():
        # a piece may leave a stack unseen when the stack's like pieces were read as fewer
        unseen = cell not in changed and scene.undercounted(cell, scene.classes.get(piece, ""))
        for to in arrivals if cell in changed or unseen else ():
            if to != cell and (piece, cell, to) not in moves:
                candidates.append((scene.move_cost(piece, cell, to) + COSTS["illegal"], 1, piece, cell, to, None))
    best: Reading | None = None
    tried: list[dict[str, Any]] = []
    for cost, _, piece, frm, to, a in sorted(candidates, key=lambda x: (x[0], x[1])):
        if cost > nothing - margin + EPS or (best is not None and len(tried) >= 4):  # margin or better
            break
        note = _class_note(scene, piece, to)
        if a is not None:
            if best is None:
                if not scene.arrived(to) and scene.under_like(to, scene.classes.get(piece), frm):
                    picked = _picked_stack(game, state, scene, before, after, piece, frm, nothing - margin)
                    if picked is not None:  # the one like stack whose box moved: it went there
                        return picked
                hidden = _hidden_elsewhere(scene, candidates, cost, piece, frm, to)
                if hidden:  # put on a like piece it hides, and as well on another: which is unseen
                    return Reading("unclear", note=f"{piece} left {frm} for a stack of its kind that hides it: "
                                                   f"{' or '.join(map(str, [to, *hidden]))}")
                return Reading("legal", a, game.action_to_json(a), game.verdict(state, a), frm, to, note, cost=cost)
            continue
        aj = move_action(name, piece, frm, to)
        try:
            action = game.action_from_json(aj)
            verdict = game.verdict(state, action)
        except Exception:  # noqa: BLE001, S112 - the engine may refuse a reading in any way
            continue
        tried.append(aj)
        if verdict.legal and best is None:  # legal after all (the legal list writes it differently)
            return Reading("legal", action, aj, verdict, frm, to, note, cost=cost - COSTS["illegal"])
        if best is None:
            best = Reading("illegal", action, aj, verdict, frm, to, cost=cost - COSTS["illegal"])
    if best is not None:
        return replace(best, alternatives=tuple(t for t in tried if t != best.action_json))
    hidden_move = _onto_like(game, state, scene, before, after, where, nothing - margin)
    if hidden_move is not None:
        return hidden_move
    strange = scene.unexplained()
    if len(strange) >= 2:  # several pieces where nothing can be: worth saying
        return Reading("unclear", note=f"{_items(strange)} seen where no piece was, and no move brings one there")
    return Reading("none", note=f"{len(changed)} cell(s) read differently; no move explains them")


def _hidden_elsewhere(scene: Scene, candidates: list[tuple[float, int, Any, Any, Any, Any]], cost: float,
                      piece: Any, frm: Any, to: Any) -> list[Any]:
    """Other legal destinations of ``piece`` as good as ``to`` when ``to`` is read only as a
    like piece hidden under it (:meth:`Scene.under_like`): the pixels cannot tell them apart."""
    mover = scene.classes.get(piece)
    if scene.arrived(to) or not scene.under_like(to, mover, frm):
        return []
    return sorted({t for c, order, p, f, t, a in candidates
                   if a is not None and p == piece and f == frm and t != to and c <= cost + EPS}, key=str)


#: A piece gone after a hand, whose like stacks where it may not go the boxes do not tell apart,
#: is said to be on one of them only when so few are on the board: beyond, it is as likely
#: lifted off the board or missed.
ONTO_LIKE_MAX = 3
#: A like stack that a piece was put on squarely is told from the others by its box: the piece
#: on top never lies exactly where the one under it does, and stands higher. The box must have
#: moved by at least this share of its size (the four sides' shifts summed, over the mean of
#: its width and height; a piece that stays moves 0.017 at the median, 0.124 at the 99th
#: percentile, OneWorld's live turns of seed 7003) ...
STACK_MOVED = 0.15
#: ... and this many times as much as the box of every other like stack it could be on.
STACK_CLEAR = 2.0
#: The event log's note on a move read onto a like stack that hides the piece.
HIDDEN_NOTE = "put squarely on the like piece there, which it hides"


def _like_stacks(game: GameRules[Any, Any], state: Any, scene: Scene, piece: Any, frm: Any,
                 limit: float) -> list[tuple[Any, Any, dict[str, Any], Verdict]]:
    """(cell, action, action JSON, verdict) of each like stack ``piece`` could lie on, hidden
    (:meth:`Scene.under_like`), that explains the board by ``limit``, legal or not."""
    out = []
    for to in sorted(scene.after, key=str):
        if to == frm or not scene.under_like(to, scene.classes.get(piece), frm) \
                or scene.move_cost(piece, frm, to) > limit + EPS:
            continue
        aj = move_action(game.name, piece, frm, to)
        try:
            action = game.action_from_json(aj)
            verdict = game.verdict(state, action)
        except Exception:  # noqa: BLE001, S112 - the engine may refuse a reading in any way
            continue
        out.append((to, action, aj, verdict))
    return out


def _box_moved(before: SeenBoard, after: SeenBoard, cell: Any, kind: str) -> float | None:
    """How far the box of the one ``kind`` seen at ``cell`` moved between the two boards (the
    four sides' shifts summed, over the box's mean side); None unless one is seen each time."""
    was = [p.box for p in before.pieces if p.cell == cell and p.cls == kind]
    now = [p.box for p in after.pieces if p.cell == cell and p.cls == kind]
    if len(was) != 1 or len(now) != 1:
        return None
    x0, y0, x1, y1 = was[0]
    size = ((x1 - x0) + (y1 - y0)) / 2.0
    return sum(abs(q - p) for p, q in zip(was[0], now[0])) / size if size > 0 else None


def _stack_grown(before: SeenBoard, after: SeenBoard, cells: list[Any], kind: str) -> Any | None:
    """The one cell of ``cells`` (like stacks of ``kind``) whose box moved clearly, and clearly
    more than every other's (:data:`STACK_MOVED`, :data:`STACK_CLEAR`); None when none does or
    a box is not seen once at each position."""
    seen = [_box_moved(before, after, c, kind) for c in cells]
    moved = [m for m in seen if m is not None]
    if len(cells) < 2 or len(moved) < len(cells):
        return None
    top = max(range(len(cells)), key=moved.__getitem__)
    rest = max(m for k, m in enumerate(moved) if k != top)
    return cells[top] if moved[top] >= STACK_MOVED and moved[top] >= STACK_CLEAR * rest else None


def _picked_stack(game: GameRules[Any, Any], state: Any, scene: Scene, before: SeenBoard, after: SeenBoard,
                  piece: Any, frm: Any, limit: float) -> Reading | None:
    """``piece``, seen gone from ``frm`` after a hand and nowhere else, could lie hidden on
    several like stacks: the one whose box moved (:func:`_stack_grown`), legal or not; None
    when there is one such stack or the boxes do not tell."""
    stacks = _like_stacks(game, state, scene, piece, frm, limit)
    grown = _stack_grown(before, after, [to for to, *_ in stacks], scene.classes.get(piece, ""))
    return None if grown is None else _onto_stack(scene, piece, stacks, grown, frm)


def _onto_stack(scene: Scene, piece: Any, stacks: list[tuple[Any, Any, dict[str, Any], Verdict]], cell: Any,
                frm: Any) -> Reading:
    """The move of ``piece`` from ``frm`` onto the like stack at ``cell`` (one of ``stacks``),
    hidden there, with what it costs to explain the board so."""
    to, action, aj, verdict = next(m for m in stacks if m[0] == cell)
    return Reading("legal" if verdict.legal else "illegal", action, aj, verdict, frm, to, HIDDEN_NOTE,
                   cost=scene.move_cost(piece, frm, to))


def _onto_like(game: GameRules[Any, Any], state: Any, scene: Scene, before: SeenBoard, after: SeenBoard,
               where: Mapping[Any, Any], limit: float) -> Reading | None:
    """A piece gone from its cell after a hand, no legal move read (a legal move onto a like
    stack is read above), and like stacks on the board that it could be hidden on
    (:meth:`Scene.under_like`) where the rules do not let it go: one such stack, or the one
    whose box moved (:func:`_stack_grown`), is the illegal move; two or three that the boxes
    do not tell apart, an illegal move to one of them that the camera cannot single out. The
    departure must explain the board by ``limit`` as a legal move would, and be all that is
    gone (several gone is a hand lifting pieces, or a detector missing them)."""
    if not scene.touched:
        return None
    changed = scene.changed()  # a piece seen gone from its cell changed that cell
    found: dict[tuple[Any, str], tuple[Any, list[tuple[Any, Any, dict[str, Any], Verdict]]]] = {}
    for piece, frm in where.items():
        mover = scene.classes.get(piece)
        if mover is None or frm not in changed or (frm, mover) in found:  # like pieces of one stack: one reading
            continue
        stacks = _like_stacks(game, state, scene, piece, frm, limit)
        if stacks:
            found[(frm, mover)] = (piece, stacks)
    if len(found) != 1:
        return None
    (frm, mover), (piece, stacks) = next(iter(found.items()))
    if {c for c in changed if scene.shrank(c) and not scene.arrived(c)} != {frm}:
        return None  # something else gone too
    if any(v.legal for *_, v in stacks):
        return None
    grown = stacks[0][0] if len(stacks) == 1 else _stack_grown(before, after, [t for t, *_ in stacks], mover)
    if grown is not None:  # every stack here is illegal: so is the reading
        return _onto_stack(scene, piece, stacks, grown, frm)
    if len(stacks) > ONTO_LIKE_MAX:
        return None
    return Reading("unclear", note=f"{piece} left {frm} for a stack of its kind that hides it, where the rules "
                                   f"do not let it go: {' or '.join(str(t) for t, *_ in stacks)}")


def _piece(game: str, aj: Mapping[str, Any]) -> Any:
    if game == "when-gods-collide":
        return aj.get("from")
    return aj.get("piece", aj.get("ship"))


def _class_note(scene: Scene, piece: Any, to: Any) -> str:
    mover = scene.classes.get(piece)
    new = scene.arrived(to) or scene.after.get(to, Counter())
    if mover is None or not new or new[mover]:
        return ""
    looks = min(new)
    return f"read as {mover} though it looks like {looks}"


#: The Game: a seen piece within this many inches of where the engine has one is that piece
#: (the detector's box wanders a little between frames); a move is longer.
NEAR_IN = 0.5
#: The Game: a piece seen less than this many inches from where the engine has it has not
#: moved: a weak detector's centre is off by up to an inch (more on the first view of a piece),
#: which is beyond what the camera can tell from a move that short.
JITTER_IN = 1.0
#: The Game: how far the camera may misplace a piece (about the 95th percentile of the
#: detector's centre error, docs/benchmarks.md). A move measured too long by no more than
#: this beyond the rules' tolerance is read as the longest legal move along the same line:
#: the camera cannot tell it was too long.
MEASURE_IN = 0.5
#: The Game: a piece standing where it stood whose front now points at least this many degrees
#: away from where the engine has it facing, and from where the camera saw it face at the last
#: position, turned on the spot (after a hand). Over twice the facing reader's 95th percentile
#: error (12.8 degrees outdoors, 19.2 on held-out renders: models/the-game.md): a smaller turn
#: is not read.
TURN_DEG = 45.0
#: The note of a reading that is a turn on the spot (:func:`_turned`): the field's places show nothing.
TURN_NOTE = "turned on the spot"


def _infer_points(game: GameRules[Any, Any], state: Any, before: SeenBoard, after: SeenBoard,
                  touched: bool = False) -> Reading:
    """The Game: the engine's pieces are where it says until the camera shows otherwise. A piece
    of the engine no longer seen near its place has left (surely when the last position showed
    it there, or when it is the only one gone and one piece arrived); a piece seen where no
    engine piece of its class stands, and not there at the last position, has arrived (see
    :func:`_arrived`). A piece seen in its place only as a box of another side, while a piece of
    its side arrived, may have left too. Each (left, arrived) pair is put to the engine; the
    cheapest wins: the same class, a sure departure, a legal move, a piece that left unseen
    rather than one seen in its place, an arrival at least half as sure as the surest of its
    side (a faint box beside a piece that moved is not the move). With nothing gone and nothing
    arrived, after a hand (``touched``), one piece standing where it stood but facing
    otherwise (:data:`TURN_DEG`) turned on the spot: :func:`_turned`."""
    name = game.name
    sj = game.state_to_json(state)
    where = {pid: at for pid, at in locations(name, sj)}
    classes = piece_classes(game, sj)

    def near(point: Any, pieces: Any) -> bool:
        return any(math.dist(point, p.point) <= NEAR_IN for p in pieces)

    # where the camera saw each engine piece at the last position (its own offset from the
    # engine's place, up to ANCHOR_IN), else the engine's place
    anchored = _anchors(where, classes, before)
    seen_at = {pid: before.pieces[anchored[pid]].point if pid in anchored else (float(at[0]), float(at[1]))
               for pid, at in where.items()}
    standing = _standing(where, seen_at, classes, after)
    left = [pid for pid in where if pid not in standing]
    came = _arrived(where, seen_at, classes, before, after, anchored, standing)
    # an engine piece "standing" only as a box of another side, while a piece of its own side
    # arrived: the box may be a neighbour's, read twice or read otherwise, and the piece gone
    doubted = [pid for pid, j in standing.items() if classes.get(pid) not in (None, after.pieces[j].cls)
               and any(p.cls == classes.get(pid) for p in came)]
    if not (left or doubted) or not came:  # a piece lifted, hidden or missed, or one more seen: not a move
        if not left and not came:
            turned = _turned(game, state, sj, where, standing, anchored, before, after) if touched else None
            return turned or Reading("none")
        what = f"{len(came)} piece(s) seen where none stands" if came else f"{', '.join(map(str, left))} not seen"
        return Reading("none", note=f"{what}; not a move")
    surest: dict[str, float] = {}  # the surest arrival of each side
    for p in came:
        surest[p.cls] = max(surest.get(p.cls, 0.0), p.confidence)
    readings: list[tuple[float, int, Reading]] = []
    wandered: list[str] = []
    for k, (pid, p) in enumerate((pid, p) for pid in left + doubted for p in came):
        doubt = classes.get(pid) not in (None, p.cls)
        # a far surer arrival of its side is left unexplained: a faint box is not the piece that moved
        faint = COSTS["unexplained"] if p.confidence < FADED * surest[p.cls] else 0.0
        stays = COSTS["class_only"] if pid in doubted else 0.0
        aj = move_action(name, pid, where[pid], p.point, p.facing)
        try:
            action = game.action_from_json(aj)
            verdict = game.verdict(state, action)
        except Exception:  # noqa: BLE001, S112 - the engine may refuse a reading in any way
            continue
        if min(math.dist(where[pid], p.point), math.dist(seen_at[pid], p.point)) < JITTER_IN:
            wandered.append(str(pid))
            continue
        within = None if verdict.legal else _within_measure(game, state, verdict, where[pid], p.point, p.facing, pid)
        if within is not None:  # too long by less than the camera can tell: the legal move it may be
            action, aj, verdict, measured = within
            doubt_note = f"measured {measured:.2f}\" (within the camera's {MEASURE_IN:g}\" of the limit)"
            cost = COSTS["class_only"] + (COSTS["other_side"] if doubt else 0.0) + faint + stays
            readings.append((cost, k, Reading("legal", action, aj, verdict, where[pid], p.point, doubt_note)))
            continue
        # a sure departure: seen at the last position, or the one piece gone with one arrived
        sure = near(seen_at[pid], before.pieces) or (len(left) == 1 and len(came) == 1)
        cost = (COSTS["other_side"] if doubt else 0.0) + (0.0 if sure else COSTS["miss"]) \
            + (0.0 if verdict.legal else COSTS["illegal"]) + faint + stays
        note = f"read as {classes.get(pid)} though it looks like {p.cls}" if doubt else ""
        readings.append((cost, k, Reading("legal" if verdict.legal else "illegal", action, aj, verdict,
                                          where[pid], p.point, note)))
        if len(readings) >= 12:
            break
    if not readings and wandered:
        return Reading("none", note=f"{', '.join(sorted(set(wandered)))} seen less than {JITTER_IN:g} inch off; not a move")
    if not readings:
        return Reading("unclear", note=f"{', '.join(map(str, left))} left and {_items([(p.point, p.cls) for p in came])}"
                       " arrived, but the rules read no move")
    readings.sort(key=lambda r: (r[0], r[1]))
    cost, _, best = readings[0]
    if cost >= COSTS["other_side"] + COSTS["illegal"]:  # another side's piece, and illegal: a misreading
        return Reading("none", note=f"no reading explains the board well ({best.note})")
    return replace(best, alternatives=tuple(r.action_json for _, _, r in readings[1:]))


#: The Game: a piece seen at the last position this close to an engine piece (of its class
#: first) is where the camera sees that piece.
ANCHOR_IN = 1.5


def _anchors(where: Mapping[Any, Any], classes: Mapping[Any, str], before: SeenBoard) -> dict[Any, int]:
    """Each engine piece's seen piece at the last position (an index into ``before.pieces``):
    the nearest within :data:`ANCHOR_IN` (of the piece's class if any), each seen piece used
    once, nearest pairs first; none for a piece the camera did not see near its place."""
    return _one_to_one(where, classes, before, ANCHOR_IN, lambda pid, q: math.dist(where[pid], q.point))


def _angle(a: float, b: float) -> float:
    """The angle between two facings, degrees (0 to 180)."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _turned(game: GameRules[Any, Any], state: Any, sj: Mapping[str, Any], where: Mapping[Any, Any],
            standing: Mapping[Any, int], anchored: Mapping[Any, int], before: SeenBoard,
            after: SeenBoard) -> Reading | None:
    """The Game: the one piece seen standing where it stood whose facing is :data:`TURN_DEG`
    or more off both the engine's and the camera's at the last position, read as turning on
    the spot (a move to its own place, judged by the engine: legal, or illegal with the
    engine's reason); ``None`` when no piece turned, or more than one did (no turn is guessed)."""
    facing = {p["id"]: p.get("facing") for p in sj.get("pieces", [])}
    turned = []
    for pid, j in standing.items():
        seen = after.pieces[j].facing
        was = facing.get(pid)
        if seen is None or was is None or _angle(seen, was) < TURN_DEG:
            continue
        last = before.pieces[anchored[pid]].facing if pid in anchored else None
        if last is not None and _angle(seen, last) < TURN_DEG:
            continue  # the camera saw it so before too: the reader's own doubt, not a turn
        turned.append((pid, seen))
    if len(turned) != 1:
        return None
    pid, seen = turned[0]
    aj = move_action(game.name, pid, where[pid], where[pid], seen)
    try:
        action = game.action_from_json(aj)
        verdict = game.verdict(state, action)
    except Exception:  # noqa: BLE001 - the engine may refuse a reading in any way
        return None
    return Reading("legal" if verdict.legal else "illegal", action, aj, verdict, where[pid], where[pid],
                   TURN_NOTE)


def _standing(where: Mapping[Any, Any], seen_at: Mapping[Any, tuple[float, float]], classes: Mapping[Any, str],
              after: SeenBoard) -> dict[Any, int]:
    """The Game: the engine pieces still seen where they stood (an index into
    ``after.pieces``): a seen piece within :data:`NEAR_IN` of their place (the engine's, or
    where the camera saw them), each seen piece standing for one engine piece, nearest pairs
    first (of their class first): of two pieces that touched, one moved away, the one left
    behind does not hide the other's departure."""
    return _one_to_one(where, classes, after, NEAR_IN,
                       lambda pid, q: min(math.dist(where[pid], q.point), math.dist(seen_at[pid], q.point)))


def _arrived(where: Mapping[Any, Any], seen_at: Mapping[Any, tuple[float, float]], classes: Mapping[Any, str],
             before: SeenBoard, after: SeenBoard, anchored: Mapping[Any, int], standing: Mapping[Any, int]) -> list[Any]:
    """The Game: the seen pieces that arrived: standing for no engine piece, with no engine
    piece of their class within :data:`NEAR_IN` (a second box on one piece is not a second
    piece), and nothing there at the last position but pieces of another class (something
    the engine does not know, a stray leaf or a piece out of play, never arrives). A piece
    put down against another side's piece arrives beside it."""
    taken = set(standing.values())
    owner = {j: pid for pid, j in anchored.items()}

    def kin(pid: Any, cls: str) -> bool:
        return classes.get(pid) in (None, cls)

    def doubled(p: Any) -> bool:
        return any(kin(pid, p.cls) and min(math.dist(where[pid], p.point), math.dist(seen_at[pid], p.point)) <= NEAR_IN
                   for pid in where)

    def was_there(p: Any) -> bool:
        return any(math.dist(q.point, p.point) <= NEAR_IN and (j not in owner or kin(owner[j], p.cls))
                   for j, q in enumerate(before.pieces))

    return [p for j, p in enumerate(after.pieces) if j not in taken and not doubled(p) and not was_there(p)]


def _one_to_one(where: Mapping[Any, Any], classes: Mapping[Any, str], seen: SeenBoard, reach: float,
                dist: Any) -> dict[Any, int]:
    """Engine piece -> index of the seen piece standing for it: pairs within ``reach``
    (``dist(pid, seen_piece)``), nearest first, another class counting ``reach`` more; each
    engine piece and each seen piece used once."""
    pairs = sorted((d + (0.0 if classes.get(pid) == q.cls else reach), str(pid), pid, j)
                   for pid in where for j, q in enumerate(seen.pieces) if (d := dist(pid, q)) <= reach)
    out: dict[Any, int] = {}
    used: set[int] = set()
    for _, _, pid, j in pairs:
        if pid not in out and j not in used:
            out[pid] = j
            used.add(j)
    return out


def _within_measure(game: GameRules[Any, Any], state: Any, verdict: Any, frm: Any, to: Any, facing: float | None,
                    pid: Any) -> tuple[Any, dict[str, Any], Any, float] | None:
    """The Game: a move refused as too far by at most :data:`MEASURE_IN` beyond the tolerance,
    as the legal move of the allowed length along the same line: (action, its JSON, verdict,
    the measured length); ``None`` otherwise."""
    info = dict(verdict.details or ())
    if verdict.code != "too-far" or "excess" not in info or "allowance" not in info:
        return None
    if float(info["excess"]) > float(info.get("tolerance", 0.0)) + MEASURE_IN:
        return None
    (fx, fy), (tx, ty) = (frm["x"], frm["y"]) if isinstance(frm, Mapping) else frm, to
    length = math.hypot(tx - fx, ty - fy)
    if length <= 0:
        return None
    k = min(1.0, float(info["allowance"]) / length)
    aj = move_action(game.name, pid, frm, (fx + k * (tx - fx), fy + k * (ty - fy)), facing)
    try:
        action = game.action_from_json(aj)
        shorter = game.verdict(state, action)
    except Exception:  # noqa: BLE001 - the engine may refuse such a reading in any way
        return None
    return (action, aj, shorter, float(info["distance"])) if shorter.legal else None


#: The actions that move no piece and change none, by game: the camera sees nothing of them
#: (:meth:`tabletop.live.pipeline.LivePipeline._pass_before` reads them from the move after).
PASSES = {
    "oneworld": ("end-movement",),
    "when-gods-collide": ("call-hero", "pass"),
    "wormholes": ("stay", "rest"),
    "battle-grounds": ("pass",),  # a skip declines a Dice Zone pick: asked for (tabletop.live.choices)
}
#: The event log's note on such an action, read from the move after it.
PASS_NOTE = "moves nothing: read from the move after it"


def passes(game: GameRules[Any, Any], state: Any) -> list[Any]:
    """The legal actions of :data:`PASSES` now (none while a roll is awaited)."""
    kinds = PASSES.get(game.name, ())
    if not kinds or CHANCE in game.to_move(state):
        return []
    return [a for a in legal(game, state) if game.action_to_json(a).get("type") in kinds]


def legal(game: GameRules[Any, Any], state: Any) -> list[Any]:
    try:
        return list(game.legal_actions(state))
    except Exception:  # noqa: BLE001 - no legal list: read nothing as legal
        return []


def _facing(after: SeenBoard, point: Any) -> float | None:
    for p in after.pieces:
        if p.facing is not None and isinstance(point, tuple) and math.dist(p.point, point) < 0.3:
            return p.facing
    return None


def _items(items: list[tuple[Any, str]]) -> str:
    def place(x: Any) -> str:
        return f"({x[0]:.1f}, {x[1]:.1f})" if isinstance(x, tuple) else str(x)

    return ", ".join(f"{cls} at {place(at)}" for at, cls in items) or "nothing"


def hints(game: GameRules[Any, Any], state: Any, before: SeenBoard, now: SeenBoard) -> dict[Any, list[Any]]:
    """For each piece lifted off its cell (seen at ``before``'s position, missing ``now``):
    where it may legally go, as the hint lights of sensor boards show it."""
    gone, _ = diff(before, now)
    if not gone:
        return {}
    name = game.name
    where = dict(locations(name, game.state_to_json(state)))
    out: dict[Any, list[Any]] = {}
    allowed = [game.action_to_json(a) for a in legal(game, state)]
    for cell, _cls in gone:
        targets = []
        for aj in allowed:
            ft = _from_to(name, aj, where)
            if ft is not None and ft[0] is not None and _same_cell(name, ft[0], cell):
                targets.append(ft[1])
        if targets:
            out[cell] = targets
    return out

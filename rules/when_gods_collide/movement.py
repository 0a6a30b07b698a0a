"""Where a checker may go: the geometry of the chess die and of the hero powers that move.

These functions know only the board (real squares), which side holds each square and the
dice; what is under a checker (god or not) is the business of :mod:`.play`. A square that
no tile covers is a gap; the lattice has no other edge, so "off the board" and "into a gap"
are the same thing here.

Rules encoded (GAMES.md): every square a walking checker enters must be real, so gaps stop
it; a diagonal step only needs its two end squares real (corners touching is enough);
knights jump anything and need only a real landing square without an own checker.

>>> from rules.when_gods_collide.model import Tile
>>> board = Board([Tile(Square(0, 0), Army.GREEK), Tile(Square(2, 2), Army.GREEK)])
>>> sides = {Square(0, 0): Army.GREEK}
>>> face_targets(board, sides, Square(0, 0), Army.GREEK, ChessFace.BISHOP, 4)
[Square(x=3, y=3)]
>>> face_targets(board, sides, Square(0, 0), Army.GREEK, ChessFace.ROOK, 4)
[Square(x=1, y=0), Square(x=0, y=1)]
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.geometry import Square, SquareDirection
from rules.when_gods_collide.model import Army, Board, ChessFace

__all__ = [
    "KNIGHT_JUMPS",
    "Problem",
    "line_to",
    "slide",
    "face_targets",
    "face_problem",
    "princess_chains",
    "chain_problem",
    "double_knight_middle",
    "push_walk",
    "push_problem",
]

#: A reason a movement is illegal: (verdict code, sentence).
Problem = tuple[str, str] | None
Sides = Mapping[Square, Army]

KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_ALL = tuple(SquareDirection)
_ORTHOGONAL = SquareDirection.orthogonal()
_DIAGONAL = SquareDirection.diagonals()
_STEP = {(d.dx, d.dy): d for d in SquareDirection}


def line_to(frm: Square, to: Square) -> tuple[SquareDirection, int] | None:
    """The direction and distance from ``frm`` to ``to`` if they share a straight line."""
    dx, dy = to.x - frm.x, to.y - frm.y
    n = max(abs(dx), abs(dy))
    if n == 0 or (dx and dy and abs(dx) != abs(dy)):
        return None
    return _STEP[(dx // n if dx else 0, dy // n if dy else 0)], n


def is_knight_jump(frm: Square, to: Square) -> bool:
    return {abs(to.x - frm.x), abs(to.y - frm.y)} == {1, 2}


def slide(
    board: Board,
    sides: Sides,
    frm: Square,
    direction: SquareDirection,
    side: Army,
    number: int,
    through_enemies: bool = False,
) -> tuple[list[Square], str]:
    """The squares a sliding checker enters, and why it stopped.

    The reason is ``"count"`` (it went the full number), ``"enemy"`` (it reached an enemy,
    which it captures), ``"gap"`` (the next square is a gap) or ``"own"`` (the next square
    holds an own checker). With ``through_enemies`` (the Princess) enemies do not stop it.
    """
    path: list[Square] = []
    real = board.owner
    x, y = frm.x, frm.y
    for _ in range(number):
        x += direction.dx
        y += direction.dy
        nxt = Square(x, y)
        if nxt not in real:
            return path, "gap"
        holder = sides.get(nxt)
        if holder is side:
            return path, "own"
        path.append(nxt)
        if holder is not None and not through_enemies:
            return path, "enemy"
    return path, "count"


def _steps(
    board: Board, sides: Sides, frm: Square, side: Army, offsets: tuple[tuple[int, int], ...]
) -> list[Square]:
    out = []
    real = board.owner
    for dx, dy in offsets:
        to = Square(frm.x + dx, frm.y + dy)
        if to in real and sides.get(to) is not side:
            out.append(to)
    return out


_KING_OFFSETS = tuple((d.dx, d.dy) for d in _ALL)
_ORTHO_OFFSETS = tuple((d.dx, d.dy) for d in _ORTHOGONAL)
_DIAG_OFFSETS = tuple((d.dx, d.dy) for d in _DIAGONAL)


def face_targets(
    board: Board, sides: Sides, frm: Square, side: Army, face: ChessFace, number: int
) -> list[Square]:
    """Every square the checker on ``frm`` may end on with an ordinary chess-die move."""
    if face is ChessFace.KING:
        return _steps(board, sides, frm, side, _KING_OFFSETS)
    if face is ChessFace.KNIGHT:
        return _steps(board, sides, frm, side, KNIGHT_JUMPS)
    if face is ChessFace.PAWN:
        out = [t for t in _steps(board, sides, frm, side, _ORTHO_OFFSETS) if t not in sides]
        out += [t for t in _steps(board, sides, frm, side, _DIAG_OFFSETS) if t in sides]
        return out
    out = []
    for d in face.directions:
        path, _ = slide(board, sides, frm, d, side, number)
        if path:
            out.append(path[-1])
    return out


def face_problem(
    board: Board,
    sides: Sides,
    frm: Square,
    to: Square,
    side: Army,
    face: ChessFace,
    number: int,
    through_enemies: bool = False,
) -> Problem:
    """Why ``frm``-``to`` is not a ``face`` move (``None`` when it is one).

    ``to`` is assumed to be a real square, different from ``frm``, without an own checker.
    """
    dx, dy = abs(to.x - frm.x), abs(to.y - frm.y)
    if face is ChessFace.KING:
        if max(dx, dy) != 1:
            return "king-one-square", f"A king moves one square; {to} is {max(dx, dy)} away."
        return None
    if face is ChessFace.KNIGHT:
        if not is_knight_jump(frm, to):
            return "not-a-knight-move", f"{frm} to {to} is not a knight's L-shaped jump."
        return None
    if face is ChessFace.PAWN:
        if dx + dy == 1:
            if to in sides:
                return "pawn-captures-diagonally", (
                    f"A pawn captures only diagonally; it cannot take the checker on {to}."
                )
            return None
        if dx == dy == 1:
            if to not in sides:
                return "pawn-diagonal-needs-capture", (
                    f"A pawn moves diagonally only to capture, and {to} is empty."
                )
            return None
        return "pawn-one-square", f"A pawn moves one square; {to} is too far from {frm}."
    return slide_problem(board, sides, frm, to, side, face, number, through_enemies)


def slide_problem(
    board: Board,
    sides: Sides,
    frm: Square,
    to: Square,
    side: Army,
    face: ChessFace,
    number: int,
    through_enemies: bool = False,
) -> Problem:
    """Why a Queen, Bishop or Rook cannot slide from ``frm`` to ``to`` with ``number``."""
    line = line_to(frm, to)
    name = face.title.lower()
    if line is None or line[0] not in face.directions:
        lines = {
            ChessFace.QUEEN: "straight or diagonal lines",
            ChessFace.BISHOP: "diagonal lines",
            ChessFace.ROOK: "straight lines along rows and columns",
        }[face]
        return "wrong-direction", f"A {name} moves only along {lines}; {to} is not on one."
    direction, distance = line
    path, why = slide(board, sides, frm, direction, side, number, through_enemies)
    if to in path:
        if to == path[-1]:
            return None
        return "wrong-distance", (
            f"A {name} must move exactly {number} squares unless something stops it; "
            f"this way it goes {len(path)} squares, to {path[-1]}, not {distance}."
        )
    stop = Square(frm.x + direction.dx * (len(path) + 1), frm.y + direction.dy * (len(path) + 1))
    if why == "gap":
        return "blocked-by-gap", f"The way to {to} is cut by a gap at {stop}."
    if why == "own":
        return "blocked-by-own", f"An own checker on {stop} blocks the way to {to}."
    if why == "enemy":
        return "blocked-by-capture", (
            f"The {name} stops on the enemy checker at {path[-1]} (capturing it); it cannot go on."
        )
    return "too-far", f"The numbered die shows {number}; {to} is {distance} squares away."


# -- Princess chains --------------------------------------------------------------------


def _leg_targets(
    board: Board, sides: Sides, at: Square, side: Army, face: ChessFace, visited: frozenset[Square]
) -> list[Square]:
    if face is ChessFace.PAWN:
        out = [t for t in _steps(board, sides, at, side, _ORTHO_OFFSETS) if t not in sides]
        out += [t for t in _steps(board, sides, at, side, _DIAG_OFFSETS) if t in sides]
    else:
        offsets = KNIGHT_JUMPS if face is ChessFace.KNIGHT else _KING_OFFSETS
        out = _steps(board, sides, at, side, offsets)
    return [t for t in out if t not in visited]


def princess_chains(
    board: Board, sides: Sides, frm: Square, side: Army, face: ChessFace, number: int
) -> list[tuple[Square, ...]]:
    """Every Princess chain of King, Pawn or Knight steps from ``frm``: the squares landed on.

    Each step is an ordinary step of ``face``; the chain goes on only from a square that held
    an enemy checker, has at most ``number`` steps and never lands twice on one square (its
    start included).
    """
    out: list[tuple[Square, ...]] = []
    legs: dict[Square, list[Square]] = {}  # the board does not change during the search

    def extend(at: Square, chain: tuple[Square, ...], visited: frozenset[Square]) -> None:
        targets = legs.get(at)
        if targets is None:
            targets = legs[at] = _leg_targets(board, sides, at, side, face, frozenset())
        for t in targets:
            if t in visited:
                continue
            longer = chain + (t,)
            out.append(longer)
            if t in sides and len(longer) < number:
                extend(t, longer, visited | {t})

    extend(frm, (), frozenset({frm}))
    return out


def chain_problem(
    board: Board,
    sides: Sides,
    frm: Square,
    chain: tuple[Square, ...],
    side: Army,
    face: ChessFace,
    number: int,
) -> Problem:
    """Why ``chain`` (landing squares, last one the destination) is not a Princess chain."""
    if len(chain) > number:
        return "chain-too-long", (
            f"The Princess allows at most {number} steps (the numbered die); this has {len(chain)}."
        )
    visited = {frm}
    at = frm
    for i, t in enumerate(chain):
        if t in visited:
            return "chain-revisits", f"A Princess chain may not land on {t} twice."
        if t not in board:
            return "not-a-square", f"{t} is a gap, not a square of the board."
        if sides.get(t) is side:
            return "own-checker", f"{t} holds an own checker."
        problem = face_problem(board, sides, at, t, side, face, number)
        if problem is not None:
            return problem
        if i < len(chain) - 1 and t not in sides:
            return "chain-needs-capture", (
                f"The Princess keeps moving only after a capture, and {t} was empty."
            )
        visited.add(t)
        at = t
    return None


# -- Double Knight, God of Wind ------------------------------------------------------------


def double_knight_middle(
    board: Board, sides: Sides, frm: Square, to: Square, side: Army
) -> Square | None:
    """A square for the first of two knight jumps from ``frm`` to ``to``, if there is one.

    The first jump must land on an empty real square; the second is an ordinary knight jump.
    """
    for dx, dy in KNIGHT_JUMPS:
        mid = Square(frm.x + dx, frm.y + dy)
        if mid in board and mid not in sides and is_knight_jump(mid, to):
            return mid
    return None


def double_knight_targets(board: Board, sides: Sides, frm: Square, side: Army) -> set[Square]:
    out: set[Square] = set()
    for dx, dy in KNIGHT_JUMPS:
        mid = Square(frm.x + dx, frm.y + dy)
        if mid in board and mid not in sides:
            for to in _steps(board, sides, mid, side, KNIGHT_JUMPS):
                if to != frm:
                    out.add(to)
    return out


def push_walk(
    board: Board,
    sides: Sides,
    frm: Square,
    direction: SquareDirection,
    number: int,
    capture: bool,
) -> tuple[list[Square], str]:
    """Where the checker on ``frm`` may be pushed in ``direction``, nearest first, and why
    the walk ended (``"count"``, ``"gap"``, ``"checker"`` or ``"capture"``).

    The pushed checker enters only real, empty squares; with ``capture`` it may also end on
    a checker of another side (which it captures), and that ends the walk.
    """
    pushed = sides[frm]
    out: list[Square] = []
    x, y = frm.x, frm.y
    for _ in range(number):
        x += direction.dx
        y += direction.dy
        nxt = Square(x, y)
        if nxt not in board:
            return out, "gap"
        holder = sides.get(nxt)
        if holder is not None:
            if capture and holder is not pushed:
                out.append(nxt)
                return out, "capture"
            return out, "checker"
        out.append(nxt)
    return out, "count"


def push_problem(
    board: Board, sides: Sides, frm: Square, to: Square, number: int, capture: bool, exact: bool
) -> Problem:
    """Why the checker on ``frm`` cannot be pushed to ``to`` (``None``: it can)."""
    line = line_to(frm, to)
    if line is None:
        return "not-a-straight-line", (
            f"A push goes in a straight line; {to} is not on one from {frm}."
        )
    direction, distance = line
    walk, why = push_walk(board, sides, frm, direction, number, capture)
    if walk and (to == walk[-1] or (to in walk and not exact)):
        return None
    if to in walk:
        return "wrong-distance", (
            f"The push must go exactly {number} squares unless stopped; this way it ends on "
            f"{walk[-1]}."
        )
    if distance > number:
        return "too-far", f"The numbered die shows {number}; {to} is {distance} squares away."
    stop = Square(frm.x + direction.dx * (len(walk) + 1), frm.y + direction.dy * (len(walk) + 1))
    if why == "gap":
        return "blocked-by-gap", f"A gap at {stop} stops the push."
    if why == "capture":
        return "blocked-by-capture", f"The pushed checker stops on {walk[-1]}, capturing there."
    if capture:
        return "push-onto-own", f"The pushed checker cannot enter {stop}, which holds its own side."
    return "push-onto-occupied", (
        f"The checker on {stop} stops the push; pushes end on empty squares."
    )

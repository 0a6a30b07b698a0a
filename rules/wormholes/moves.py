"""Where ships may go: die moves, wormhole jumps and transports, and why a cell is refused.

A straight move of ``n`` cells is allowed when every cell it crosses is a board cell (no
shortcut over a gap; wormhole jumps may skip this when ``jumps_cross_gaps`` is on) and when
it does not end on the mover's own other ship. With ``own_ship_blocks_passage`` (the
default) the own ship's cell counts as off the board for crossing too. Other ships and
wormholes are jumped over freely.
"""

from __future__ import annotations

from rules.core import Verdict
from rules.geometry import Square, SquareDirection
from rules.wormholes.board import (
    CELLS,
    Suit,
    line,
    on_board_run,
    opposing_bases,
    owner,
    suits_of,
)
from rules.wormholes.model import WormholesState, value_name
from rules.wormholes.options import WormholesOptions

__all__ = [
    "sibling",
    "reach",
    "die_targets",
    "jump_targets",
    "send_targets",
    "check_line",
    "wins_on",
]

_ALL_DIRECTIONS = tuple(SquareDirection)


def sibling(suit: Suit) -> Suit:
    """The other ship of the same player."""
    a, b = suits_of(owner(suit))
    return b if suit is a else a


def reach(
    start: Square,
    d: SquareDirection,
    n: int,
    own: Square | None,
    cross_gaps: bool,
    own_blocks_passage: bool,
) -> Square | None:
    """The cell ``n`` steps from ``start`` towards ``d``, or ``None`` if the move is refused.

    >>> reach(Square(10, 1), SquareDirection.W, 3, None, False, True)
    Square(x=7, y=1)
    >>> reach(Square(10, 1), SquareDirection.W, 4, None, False, True) is None
    True
    >>> reach(Square(10, 1), SquareDirection.S, 1, Square(10, 2), False, True) is None
    True
    """
    cells = line(start, d)[:n]
    end = cells[-1]
    if cross_gaps:
        if end not in CELLS:
            return None
    elif on_board_run(start, d) < n:
        return None
    if own is not None and (own in cells if own_blocks_passage else own == end):
        return None
    return end


def die_targets(
    state: WormholesState,
    opts: WormholesOptions,
    suit: Suit,
    n: int,
    own_at: Square | None = None,
) -> list[Square]:
    """Cells ``suit``'s ship may reach with a die of ``n`` (``own_at``: where to assume its
    sibling stands, default where it is)."""
    if n <= 0:
        return []
    start = state.ship(suit).at
    own = state.ship(sibling(suit)).at if own_at is None else own_at
    out = []
    for d in _ALL_DIRECTIONS:
        end = reach(start, d, n, own, False, opts.own_ship_blocks_passage)
        if end is not None:
            out.append(end)
    return out


def jump_targets(
    state: WormholesState, opts: WormholesOptions, suit: Suit, coin_suit: Suit, value: int
) -> list[Square]:
    """Cells ``suit``'s ship may reach jumping ``value`` along ``coin_suit``'s axis."""
    start = state.ship(suit).at
    own = state.ship(sibling(suit)).at
    out = []
    for d in opts.axis(coin_suit).directions:
        end = reach(start, d, value, own, opts.jumps_cross_gaps, opts.own_ship_blocks_passage)
        if end is not None:
            out.append(end)
    return out


def send_targets(state: WormholesState) -> list[Square]:
    """Cells an opposing ship that was landed on may be sent to: any cell with no ship."""
    taken = state.ship_cells
    return sorted(c for c in CELLS if c not in taken)


def wins_on(state: WormholesState, opts: WormholesOptions, suit: Suit, cell: Square) -> bool:
    """Whether ``suit``'s ship landing on ``cell`` by exact count wins the game.

    One ship on an opposing base wins; with ``both_ships_win`` the sibling must already stand
    on the other opposing base.
    """
    bases = opposing_bases(owner(suit))
    if cell not in bases:
        return False
    if not opts.both_ships_win:
        return True
    other = state.ship(sibling(suit)).at
    return other in bases and other != cell


def check_line(
    state: WormholesState,
    opts: WormholesOptions,
    suit: Suit,
    to: Square,
    n: int,
    directions: tuple[SquareDirection, ...],
    cross_gaps: bool,
    what: str,
) -> Verdict:
    """Why a straight move of exactly ``n`` cells to ``to`` is or is not allowed.

    ``what`` names the move for messages ("the Suns die", "the Crowns wormhole").
    """
    ship = state.ship(suit)
    start = ship.at
    dx, dy = to.x - start.x, to.y - start.y
    steps = max(abs(dx), abs(dy))
    if steps == 0 or (dx and dy and abs(dx) != abs(dy)):
        return Verdict.illegal(
            "not-straight", f"{to} is not on a straight line from {start}: ships move in "
            "one of the eight directions."
        )
    d = SquareDirection((_sign(dx), _sign(dy)))
    if d not in directions:
        axis = " or ".join(x.name for x in directions)
        return Verdict.illegal(
            "not-on-axis", f"{what} sends the ship along {axis} only; {to} is towards {d.name}."
        )
    if steps != n:
        return Verdict.illegal(
            "wrong-distance",
            f"{what} says {value_name(n)}, so the ship goes exactly {n} cell(s); {to} is "
            f"{steps} away.",
        )
    cells = [start.step(d, k) for k in range(1, n + 1)]
    if to not in CELLS:
        return Verdict.illegal("off-board", f"{to} is off the board.")
    if not cross_gaps and any(c not in CELLS for c in cells):
        gap = next(c for c in cells if c not in CELLS)
        return Verdict.illegal(
            "crosses-gap", f"The way to {to} leaves the board at {gap}: no shortcuts across gaps."
        )
    own = state.ship(sibling(suit))
    if own.at == to:
        return Verdict.illegal(
            "own-ship", f"{to} holds your {own.suit.title} ship; a ship never lands on its twin."
        )
    if opts.own_ship_blocks_passage and own.at in cells:
        return Verdict.illegal(
            "own-ship-in-way",
            f"Your {own.suit.title} ship on {own.at} counts as off the board: the way to {to} "
            "crosses it.",
        )
    return Verdict.ok()


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)

"""Wormholes game options: the variant and every choice the rulebook leaves open.

>>> WormholesOptions.from_json({"both_ships_win": True}).both_ships_win
True
>>> WormholesOptions.from_json({"both_ship_win": True})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.FormatError: options.both_ship_win: unknown field (known fields: both_ships_win, ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.errors import FormatError
from rules.geometry import Square
from rules.jsonutil import (
    as_object,
    get_bool,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
)
from rules.wormholes.board import BASES, DEFAULT_AXES, DEFAULT_START, Axis, Suit, owner
from rules.wormholes.codec import parse_square, square_json

__all__ = ["WormholesOptions", "JUMP_CHOOSERS"]

#: Who picks the direction of a wormhole jump made by a ship that was sent onto the wormhole.
JUMP_CHOOSERS = ("owner", "sender")

_FIELDS = frozenset(
    {
        "both_ships_win",
        "own_ship_blocks_passage",
        "jumps_cross_gaps",
        "strict_both_dice",
        "transport_optional",
        "sent_jump_chooser",
        "suit_axes",
        "start",
    }
)


@dataclass(frozen=True)
class WormholesOptions:
    """How a game of Wormholes is played (see docs/games/wormholes.md for each choice).

    ``both_ships_win``: the rulebook's variant (both ships must land on the opposing bases;
    a ship standing on one may skip its roll). ``own_ship_blocks_passage``: a cell with the
    mover's own ship counts as off the board for crossing too, not only for landing.
    ``jumps_cross_gaps``: wormhole jumps may pass over gaps (only the landing cell must be on
    the board). ``strict_both_dice``: the first ship moved may not leave the second without a
    move when another first move would not. ``transport_optional``: a ship that lands on an
    opponent may leave it where it is. ``sent_jump_chooser``: who picks the direction for a ship
    sent onto a wormhole. ``suit_axes``: each suit's jump axis. ``start``: each ship's start cell.
    """

    both_ships_win: bool = False
    own_ship_blocks_passage: bool = True
    jumps_cross_gaps: bool = False
    strict_both_dice: bool = True
    transport_optional: bool = False
    sent_jump_chooser: str = "owner"
    suit_axes: tuple[tuple[Suit, Axis], ...] = field(default=tuple(DEFAULT_AXES.items()))
    start: tuple[tuple[Suit, Square], ...] = field(default=tuple(DEFAULT_START.items()))

    def axis(self, suit: Suit) -> Axis:
        return dict(self.suit_axes)[suit]

    def start_of(self, suit: Suit) -> Square:
        return dict(self.start)[suit]

    @classmethod
    def from_json(cls, data: Any, where: str = "options") -> WormholesOptions:
        obj = as_object(data, where)
        reject_unknown(obj, _FIELDS, where)
        chooser = get_str(obj, "sent_jump_chooser", where, "owner")
        if chooser not in JUMP_CHOOSERS:
            raise FormatError(
                path(where, "sent_jump_chooser"), f"expected 'owner' or 'sender', got {chooser!r}"
            )
        return cls(
            both_ships_win=get_bool(obj, "both_ships_win", where, False),
            own_ship_blocks_passage=get_bool(obj, "own_ship_blocks_passage", where, True),
            jumps_cross_gaps=get_bool(obj, "jumps_cross_gaps", where, False),
            strict_both_dice=get_bool(obj, "strict_both_dice", where, True),
            transport_optional=get_bool(obj, "transport_optional", where, False),
            sent_jump_chooser=chooser,
            suit_axes=_read_axes(get_object(obj, "suit_axes", where, {}), path(where, "suit_axes")),
            start=_read_start(get_object(obj, "start", where, {}), path(where, "start")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "both_ships_win": self.both_ships_win,
            "own_ship_blocks_passage": self.own_ship_blocks_passage,
            "jumps_cross_gaps": self.jumps_cross_gaps,
            "strict_both_dice": self.strict_both_dice,
            "transport_optional": self.transport_optional,
            "sent_jump_chooser": self.sent_jump_chooser,
            "suit_axes": {s.value: a.value for s, a in self.suit_axes},
            "start": {s.value: square_json(c) for s, c in self.start},
        }


def _read_axes(obj: Mapping[str, Any], where: str) -> tuple[tuple[Suit, Axis], ...]:
    axes = dict(DEFAULT_AXES)
    for key, value in obj.items():
        suit = parse_enum(key, Suit, path(where, key))
        axes[suit] = parse_enum(value, Axis, path(where, key))
    return tuple(axes.items())


def _read_start(obj: Mapping[str, Any], where: str) -> tuple[tuple[Suit, Square], ...]:
    start = dict(DEFAULT_START)
    for key, value in obj.items():
        suit = parse_enum(key, Suit, path(where, key))
        cell = parse_square(value, path(where, key))
        if cell not in BASES[owner(suit)]:
            bases = " or ".join(str(c) for c in BASES[owner(suit)])
            raise FormatError(
                path(where, key), f"the {suit.title} ship starts on its own base ({bases})"
            )
        start[suit] = cell
    seen: dict[Square, Suit] = {}
    for suit, cell in start.items():
        if cell in seen:
            raise FormatError(
                path(where, suit.value),
                f"the {suit.title} and {seen[cell].title} ships cannot both start on {cell}",
            )
        seen[cell] = suit
    return tuple(start.items())

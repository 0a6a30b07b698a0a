"""Battle Grounds game options: board, roster, the colour -> stat table and the choices the
rulebook leaves open. JSON names are the field names.

>>> opts = BattleGroundsOptions.from_json({"board": "advanced"})
>>> (opts.board, opts.release_on, opts.stat_for_colour(Colour.RED).value)
('advanced', True, 'fighting-skills')
>>> BattleGroundsOptions.from_json({"board": "huge"})
Traceback (most recent call last):
...
rules.errors.FormatError: options.board: unknown board 'huge' (expected basic or advanced)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.battle_grounds.board import COLOUR_LETTERS, STANDARD_COLOUR_ROWS, Board, Colour
from rules.battle_grounds.roster import (
    PLAYERS,
    Level,
    Roster,
    Stat,
    load_bundled_roster,
    roster_from_json,
    roster_to_json,
)
from rules.errors import FormatError
from rules.jsonutil import (
    as_list,
    as_object,
    get_bool,
    get_int,
    get_object,
    get_str,
    parse_enum,
    path,
    reject_unknown,
)

__all__ = ["DEFAULT_COLOUR_STATS", "WHITE_SQUARE_RULES", "BattleGroundsOptions"]

#: Red is Fighting Skills (the rulebook's own example); the other colours follow the
#: rainbow against the stat card read backwards: orange Energy Projection, yellow
#: Durability, green Speed, blue Strength, purple Intelligence.
DEFAULT_COLOUR_STATS: tuple[tuple[Colour, Stat], ...] = (
    (Colour.RED, Stat.FIGHTING_SKILLS),
    (Colour.ORANGE, Stat.ENERGY_PROJECTION),
    (Colour.YELLOW, Stat.DURABILITY),
    (Colour.GREEN, Stat.SPEED),
    (Colour.BLUE, Stat.STRENGTH),
    (Colour.PURPLE, Stat.INTELLIGENCE),
)

#: How a white-square battle picks its stat after the roll-off.
#: ``lower-chooses`` (default): the player with the lower die chooses one stat for both
#: figures, as in the Battle Dice game the rules adapt (there the low roll picks the stat and
#: the high roll adds more to it).
#: ``roll-off``: the player with the higher die chooses one stat for both figures.
#: ``stat-die``: the higher die's face names the stat in stat-card order (1 Intelligence ..
#: 6 Fighting Skills). In all three, a tied roll-off lets each player choose their own stat.
WHITE_SQUARE_RULES = ("lower-chooses", "roll-off", "stat-die")
_BOARDS = ("basic", "advanced")


@dataclass(frozen=True)
class BattleGroundsOptions:
    """Options of one game. ``roster_source`` is the bundled roster's name, or ``None``
    when the roster was given inline."""

    board: str = "basic"
    roster: Roster = field(default_factory=lambda: load_bundled_roster("default", "options.roster"))
    roster_source: str | None = "default"
    colour_stats: tuple[tuple[Colour, Stat], ...] = DEFAULT_COLOUR_STATS
    colour_rows: tuple[str, ...] | None = None  # None: the board's standard colours
    white_square_rule: str = "lower-chooses"
    far_end_release: bool | None = None  # None: on for the advanced board only
    dice_zone: bool = True
    first_player: str = PLAYERS[0]
    turn_limit: int = 0

    def stat_for_colour(self, colour: Colour) -> Stat:
        return dict(self.colour_stats)[colour]

    @property
    def release_on(self) -> bool:
        """Whether reaching the far end releases a figure (default: advanced board only)."""
        if self.far_end_release is None:
            return self.board == "advanced"
        return self.far_end_release

    def make_board(self) -> Board:
        return Board.standard(self.board, self.colour_rows)

    # -- JSON ---------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any, where: str = "options") -> BattleGroundsOptions:
        obj = as_object(data, where)
        reject_unknown(
            obj,
            {
                "board",
                "roster",
                "colour_stats",
                "colour_rows",
                "white_square_rule",
                "far_end_release",
                "dice_zone",
                "first_player",
                "turn_limit",
            },
            where,
        )
        board = get_str(obj, "board", where, "basic")
        if board not in _BOARDS:
            raise FormatError(
                path(where, "board"), f"unknown board {board!r} (expected basic or advanced)"
            )
        roster, source = _roster(obj.get("roster", "default"), path(where, "roster"))
        colour_rows = _colour_rows(obj, board, where)
        roster_where = path(where, "roster")
        _check_roster_fits(
            roster, Board.standard(board), roster_where if source else f"{roster_where}.sides"
        )
        white = get_str(obj, "white_square_rule", where, "lower-chooses")
        if white not in WHITE_SQUARE_RULES:
            raise FormatError(
                path(where, "white_square_rule"),
                f"unknown rule {white!r} (expected one of: {', '.join(WHITE_SQUARE_RULES)})",
            )
        first = get_str(obj, "first_player", where, PLAYERS[0])
        if first not in PLAYERS:
            raise FormatError(
                path(where, "first_player"), f"unknown player {first!r} (expected south or north)"
            )
        return cls(
            board=board,
            roster=roster,
            roster_source=source,
            colour_stats=_colour_stats(obj, where),
            colour_rows=colour_rows,
            white_square_rule=white,
            far_end_release=get_bool(obj, "far_end_release", where, None),
            dice_zone=get_bool(obj, "dice_zone", where, True),
            first_player=first,
            turn_limit=get_int(obj, "turn_limit", where, 0, lo=0, hi=100_000),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form; options left to their board-dependent default stay out."""
        out: dict[str, Any] = {
            "board": self.board,
            "roster": self.roster_source
            if self.roster_source is not None
            else roster_to_json(self.roster),
            "colour_stats": {c.value: s.value for c, s in self.colour_stats},
            "white_square_rule": self.white_square_rule,
            "dice_zone": self.dice_zone,
            "first_player": self.first_player,
            "turn_limit": self.turn_limit,
        }
        if self.colour_rows is not None:
            out["colour_rows"] = list(self.colour_rows)
        if self.far_end_release is not None:
            out["far_end_release"] = self.far_end_release
        return out


def _roster(value: Any, where: str) -> tuple[Roster, str | None]:
    if isinstance(value, str):
        return load_bundled_roster(value, where), value
    return roster_from_json(value, where), None


def _colour_stats(obj: Any, where: str) -> tuple[tuple[Colour, Stat], ...]:
    table = dict(DEFAULT_COLOUR_STATS)
    if "colour_stats" not in obj:
        return DEFAULT_COLOUR_STATS
    given = get_object(obj, "colour_stats", where)
    table_where = path(where, "colour_stats")
    reject_unknown(given, {c.value for c in table}, table_where)
    for name, value in given.items():
        table[Colour(name)] = parse_enum(value, Stat, path(table_where, name))
    return tuple((c, table[c]) for c, _ in DEFAULT_COLOUR_STATS)


def _colour_rows(obj: Any, board: str, where: str) -> tuple[str, ...] | None:
    standard = STANDARD_COLOUR_ROWS[board]
    if "colour_rows" not in obj:
        return None
    rows_where = path(where, "colour_rows")
    rows = as_list(obj["colour_rows"], rows_where)
    if len(rows) != len(standard):
        raise FormatError(
            rows_where, f"the {board} board has {len(standard)} rows, got {len(rows)}"
        )
    out: list[str] = []
    for i, row in enumerate(rows):
        row_where = path(rows_where, i)
        if not isinstance(row, str):
            raise FormatError(row_where, f"expected a string of colour letters, got {row!r}")
        text = row.strip().upper()
        if len(text) != len(standard[0]):
            raise FormatError(
                row_where,
                f"a row of the {board} board has {len(standard[0])} squares, got {len(text)}",
            )
        bad = [c for c in text if c not in COLOUR_LETTERS]
        if bad:
            raise FormatError(
                row_where, f"unknown colour letter {bad[0]!r} (use {''.join(COLOUR_LETTERS)})"
            )
        out.append(text)
    return tuple(out)


def _check_roster_fits(roster: Roster, board: Board, where: str) -> None:
    """Each side must own enough figures of every level to fill the board's set-up."""
    for player in PLAYERS:
        for level, needed in board.required_levels().items():
            have = roster.count(player, level)
            if have < needed:
                what = "Cosmic figure" if level is Level.COSMIC else f"level {level.value} figures"
                raise FormatError(
                    where if where.endswith("roster") else f"{where}.{player}.figures",
                    f"the {board.kind} board needs {needed} {what} per side; {player} has {have}",
                )

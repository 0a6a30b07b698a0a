"""The fixed parts of one game (options, board, roster) and the questions every rule asks
about a state: who controls a figure, which squares are free, what a player holds.

>>> from rules.battle_grounds.options import BattleGroundsOptions
>>> table = Table(BattleGroundsOptions())
>>> table.name("hulk"), table.owner("thanos")
('Hulk', 'north')
"""

from __future__ import annotations

from rules.battle_grounds.board import Board, Colour, label
from rules.battle_grounds.options import BattleGroundsOptions
from rules.battle_grounds.roster import PLAYERS, FigureSpec, Stat, opponent
from rules.battle_grounds.state import State
from rules.geometry import Square

__all__ = ["Table"]


class Table:
    """Options, board and roster of a game, with the look-ups the rules share."""

    def __init__(self, options: BattleGroundsOptions) -> None:
        self.options = options
        self.board: Board = options.make_board()
        self.roster = options.roster
        self.dice_limit = {p: len(self.roster.dice_of(p)) - 1 for p in PLAYERS}

    # -- figures ------------------------------------------------------------------------
    def spec(self, figure: str) -> FigureSpec:
        return self.roster.figure(figure)

    def name(self, figure: str) -> str:
        spec = self.roster.get(figure)
        return spec.name if spec is not None else figure

    def owner(self, figure: str) -> str:
        return self.roster.figure(figure).owner

    def controller(self, state: State, figure: str) -> str:
        """The player a figure fights for: its owner, or the opponent while hypnotized."""
        owner = self.roster.figure(figure).owner
        return opponent(owner) if figure in state.hypnotized else owner

    def figures_of(self, state: State, player: str) -> list[tuple[Square, str]]:
        """``player``'s figures on the board (hypnotized ones count for their controller)."""
        return [(sq, f) for sq, f in state.board if self.controller(state, f) == player]

    def held_own(self, state: State, player: str) -> list[str]:
        """``player``'s own figures waiting in the opponent's Holding Zone."""
        return [f for f in state.holding_of(opponent(player)) if self.owner(f) == player]

    # -- squares ------------------------------------------------------------------------
    def empty_staging(self, state: State, player: str) -> list[Square]:
        return [s for s in self.board.staging_squares(player) if s not in state.at]

    def return_squares(self, state: State, player: str) -> list[Square]:
        """Where a hypnotized figure that lost may be put back by its owner: any empty
        coloured square of the owner's half; failing that any empty square of that half;
        failing that any empty square."""
        for pool in (
            self.board.coloured_squares(player),
            [s for s in self.board.squares() if self.board.on_side(s, player)],
            self.board.squares(),
        ):
            free = [s for s in pool if s not in state.at]
            if free:
                return free
        return []

    def colour_words(self, square: Square) -> str:
        colour = self.board.colour(square)
        if colour is Colour.MULTI:
            return f"the all-colour square {label(square)}"
        return f"the {colour.value} square {label(square)}"

    def stat_of_square(self, square: Square) -> Stat | None:
        colour = self.board.colour(square)
        return self.options.stat_for_colour(colour) if colour.single else None

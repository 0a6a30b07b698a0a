"""Decisions owed after a move or a battle (the state's ``pending`` queue, first one first).

========== =========== ================================================================
kind       answered by what it does
========== =========== ================================================================
release    Place       far-end release: one of the player's figures held by the opponent
                       goes onto an empty square of the player's Staging Zone (required)
return     Place       a hypnotized figure that lost goes back to its owner, who puts it
                       on an empty coloured square of their half (required)
read-die   ReadDie     Super Sense: read the rule on one of the opponent's Battle Dice
telepathy  PickDie     Telepathy: move a die from the Rolling/Staging Zone to the Dice Zone
lost-die   PickDie     the loser may move a die into the Dice Zone, swapping one out
                       when the zone already holds its limit (one less than the dice)
========== =========== ================================================================

The last three are optional: :class:`Skip` declines them.
"""

from __future__ import annotations

from rules.battle_grounds.board import label
from rules.battle_grounds.roster import opponent
from rules.battle_grounds.state import FollowUp, FollowUpKind, PickDie, Place, ReadDie, Skip, State
from rules.battle_grounds.table import Table
from rules.core import Event, Verdict

__all__ = ["decision_verdict", "decision_actions", "apply_decision", "describe"]

DecisionAction = Place | PickDie | ReadDie | Skip

_ANSWERS: dict[FollowUpKind, tuple[type, ...]] = {
    FollowUpKind.RETURN: (Place,),
    FollowUpKind.RELEASE: (Place,),
    FollowUpKind.READ_DIE: (ReadDie, Skip),
    FollowUpKind.TELEPATHY: (PickDie, Skip),
    FollowUpKind.LOST_DIE: (PickDie, Skip),
}


def describe(table: Table, item: FollowUp) -> str:
    """What the referee asks for, as a sentence."""
    who = item.player.title()
    if item.kind is FollowUpKind.RETURN:
        figure = table.name(item.figure or "")
        return f"{who} puts {figure} back on an empty coloured square of their side."
    if item.kind is FollowUpKind.RELEASE:
        return f"{who} reached the far end and frees a figure into their first two rows."
    if item.kind is FollowUpKind.READ_DIE:
        return f"{who} may read one of {opponent(item.player)}'s Battle Dice."
    if item.kind is FollowUpKind.TELEPATHY:
        return f"{who} may move a die to the Dice Zone (Telepathy)."
    return f"{who} lost the battle and may move a die to the Dice Zone."


def decision_verdict(table: Table, state: State, action: object) -> Verdict:
    item = state.pending[0]
    if not isinstance(action, _ANSWERS[item.kind]):
        return Verdict.illegal(
            "wrong-phase", f"The game is waiting for this: {describe(table, item)}"
        )
    if isinstance(action, Place):
        return _place_verdict(table, state, item, action)
    if action.player != item.player:  # type: ignore[union-attr]
        return Verdict.illegal(
            "not-your-turn", f"The game is waiting for {item.player}: {describe(table, item)}"
        )
    if isinstance(action, Skip):
        return Verdict.ok()
    if isinstance(action, ReadDie):
        other = opponent(item.player)
        if table.roster.die(other, action.die) is None:
            return Verdict.illegal(
                "unknown-die", f"{other.title()} has no Battle Die named {action.die!r}."
            )
        if action.die in state.dice_read_by(item.player):
            return Verdict.illegal(
                "already-read", f"{item.player.title()} has already read {action.die}."
            )
        return Verdict.ok()
    assert isinstance(action, PickDie)
    return _pick_verdict(table, state, item, action)


def _place_verdict(table: Table, state: State, item: FollowUp, action: Place) -> Verdict:
    spec = table.roster.get(action.piece)
    name = table.name(action.piece)
    if item.kind is FollowUpKind.RETURN:
        if action.piece != item.figure:
            return Verdict.illegal(
                "wrong-figure",
                f"The figure going home is {table.name(item.figure or '')}, not {name}.",
            )
        if action.square in state.at:
            return Verdict.illegal(
                "occupied",
                f"{label(action.square)} already holds {table.name(state.at[action.square])}.",
            )
        if action.square not in table.return_squares(state, item.player):
            return Verdict.illegal(
                "not-coloured-square",
                f"{name} goes back onto an empty coloured square of {item.player}'s side; "
                f"{label(action.square)} is not one.",
            )
        return Verdict.ok()
    if (
        spec is None
        or spec.owner != item.player
        or action.piece not in state.holding_of(opponent(item.player))
    ):
        return Verdict.illegal(
            "not-held",
            f"Only {item.player}'s own figures in {opponent(item.player)}'s Holding Zone can be "
            f"freed; {name} is not one.",
        )
    if not table.board.in_staging_zone(action.square, item.player):
        return Verdict.illegal(
            "not-staging-square",
            f"A freed figure goes onto {item.player}'s first two rows; {label(action.square)} is "
            "not one.",
        )
    if action.square in state.at:
        return Verdict.illegal(
            "occupied",
            f"{label(action.square)} already holds {table.name(state.at[action.square])}.",
        )
    return Verdict.ok()


def _pick_verdict(table: Table, state: State, item: FollowUp, action: PickDie) -> Verdict:
    player = item.player
    zone = state.dice_zone_of(player)
    if table.roster.die(player, action.die) is None:
        return Verdict.illegal(
            "unknown-die", f"{player.title()} has no Battle Die named {action.die!r}."
        )
    if action.die in zone:
        return Verdict.illegal("die-in-zone", f"{action.die} is already in the Dice Zone.")
    full = len(zone) >= table.dice_limit[player]
    if action.swap_out is None:
        if full:
            code = "dice-zone-full"
            how = " name a die to swap out" if item.kind is FollowUpKind.LOST_DIE else " skip"
            return Verdict.illegal(
                code,
                f"The Dice Zone already holds {len(zone)} dice, one die must stay free to "
                f"roll:{how}.",
            )
        return Verdict.ok()
    if item.kind is not FollowUpKind.LOST_DIE or not full:
        return Verdict.illegal(
            "swap-not-allowed",
            "A die is swapped out only by a battle's loser whose Dice Zone is full.",
        )
    if action.swap_out not in zone:
        return Verdict.illegal("not-in-dice-zone", f"{action.swap_out} is not in the Dice Zone.")
    return Verdict.ok()


def decision_actions(table: Table, state: State) -> list[DecisionAction]:
    item = state.pending[0]
    player = item.player
    out: list[DecisionAction] = []
    if item.kind is FollowUpKind.RETURN:
        assert item.figure is not None
        return [Place(item.figure, s) for s in table.return_squares(state, player)]
    if item.kind is FollowUpKind.RELEASE:
        squares = table.empty_staging(state, player)
        return [Place(f, s) for f in table.held_own(state, player) for s in squares]
    if item.kind is FollowUpKind.READ_DIE:
        read = state.dice_read_by(player)
        out.extend(
            ReadDie(player, d.name)
            for d in table.roster.dice_of(opponent(player))
            if d.name not in read
        )
    else:
        zone = state.dice_zone_of(player)
        free = [d.name for d in table.roster.dice_of(player) if d.name not in zone]
        if len(zone) < table.dice_limit[player]:
            out.extend(PickDie(player, d) for d in free)
        elif item.kind is FollowUpKind.LOST_DIE:
            out.extend(PickDie(player, d, z) for d in free for z in sorted(zone))
    out.append(Skip(player))
    return out


def apply_decision(table: Table, state: State, action: DecisionAction) -> tuple[State, list[Event]]:
    item = state.pending[0]
    rest = state.pending[1:]
    player = item.player
    if isinstance(action, Skip):
        return state.evolve(pending=rest), [
            Event.of("phase", f"{player.title()} declines.", player=player)
        ]
    if isinstance(action, ReadDie):
        die = table.roster.die(opponent(player), action.die)
        assert die is not None
        new = state.with_dice_read(player, state.dice_read_by(player) | {action.die})
        rule = die.rule or "(no rule written)"
        text = f"Super Sense: {player} reads {opponent(player)}'s die {die.name}: {rule}"
        return new.evolve(pending=rest), [Event.of("power", text, die=die.name, player=player)]
    if isinstance(action, PickDie):
        zone = set(state.dice_zone_of(player))
        zone.add(action.die)
        if action.swap_out is not None:
            zone.discard(action.swap_out)
        swap = f", taking {action.swap_out} back out" if action.swap_out else ""
        text = f"{player.title()} moves {action.die} into the Dice Zone{swap}."
        event = Event.of("power", text, die=action.die, player=player, swap_out=action.swap_out)
        return state.with_dice_zone(player, frozenset(zone)).evolve(pending=rest), [event]
    at = dict(state.at)
    at[action.square] = action.piece
    new = state.with_board(at)
    if item.kind is FollowUpKind.RELEASE:
        held = list(state.holding_of(opponent(player)))
        held.remove(action.piece)
        new = new.with_holding(opponent(player), tuple(held))
        text = f"{player.title()} frees {table.name(action.piece)} onto {label(action.square)}."
    else:
        where = table.colour_words(action.square)
        text = f"{table.name(action.piece)} is back with {player} on {where}."
    event = Event.of("reinforcement", text, piece=action.piece, square=label(action.square))
    return new.evolve(pending=rest), [event]

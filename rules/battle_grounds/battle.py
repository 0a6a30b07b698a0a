"""Battles: choosing the battle stat, rolling, and what the winner and loser owe.

Rolls, in the order they are asked for (each a d6):

1. Only when the defender stands on a white square and the attacker does not: the
   roll-off, attacker's die first, then the defender's.
2. Once both stats are known: the battle dice, attacker's first, then the defender's;
   a tied total asks for another pair, until the totals differ.

A battle total is the figure's value in its battle stat + its battle die + the bonuses of
its powers (``when`` attacking, defending or always) + the bonuses of the Battle Dice in
its controller's Dice Zone.
"""

from __future__ import annotations

from dataclasses import replace

from rules.battle_grounds.board import Colour, label
from rules.battle_grounds.roster import STAT_ORDER, SUPER_SENSE, TELEPATHY, Stat
from rules.battle_grounds.state import (
    Battle,
    BattleMode,
    ChooseStat,
    FollowUp,
    FollowUpKind,
    State,
)
from rules.battle_grounds.table import Table
from rules.core import Dice, Event
from rules.geometry import Square

__all__ = ["battle_base", "choose_stat", "release_followup", "start_battle"]


def start_battle(
    table: Table, state: State, attacker: str, origin: Square, target: Square, dice: Dice
) -> tuple[State, list[Event]]:
    """The attacker on ``origin`` attacks the figure on ``target``."""
    defender = state.at[target]
    a_player = table.controller(state, attacker)
    d_player = table.controller(state, defender)
    events = [
        Event.of(
            "combat",
            f"{table.name(attacker)} attacks {table.name(defender)} on "
            f"{table.colour_words(target)}.",
            attacker=attacker,
            defender=defender,
            frm=label(origin),
            to=label(target),
        )
    ]
    stat = table.stat_of_square(target)
    if stat is not None:
        events.append(Event.of("combat", f"The battle stat is {stat.title}.", stat=stat.value))
        battle = Battle(attacker, defender, origin, target, BattleMode.FIXED)
        return _fight(table, state, battle, stat, stat, dice, events)
    board = table.board
    if board.colour(target) is Colour.MULTI:
        battle = Battle(attacker, defender, origin, target, BattleMode.DEFENDER_CHOOSES, d_player)
        events.append(
            Event.of(
                "phase",
                f"{d_player.title()} chooses the battle stat for both figures.",
                chooser=d_player,
            )
        )
        return state.evolve(battle=battle), events
    if board.colour(origin) is Colour.WHITE:
        events.append(
            Event.of(
                "phase",
                "Both figures stand on white: each player secretly chooses their own battle stat.",
            )
        )
        return state.evolve(
            battle=Battle(attacker, defender, origin, target, BattleMode.EACH_CHOOSES)
        ), events
    a_roll = dice.roll(6, f"roll-off for the battle stat ({a_player})")
    d_roll = dice.roll(6, f"roll-off for the battle stat ({d_player})")
    if a_roll == d_roll:
        events.append(
            Event.of(
                "roll",
                f"Roll-off {a_roll} to {d_roll}, a tie: each player secretly chooses their own "
                "battle stat.",
                rolls=[a_roll, d_roll],
            )
        )
        return state.evolve(
            battle=Battle(attacker, defender, origin, target, BattleMode.EACH_CHOOSES)
        ), events
    low = a_player if a_roll < d_roll else d_player
    high = d_player if low == a_player else a_player
    chooser = low if table.options.white_square_rule == "lower-chooses" else high
    if table.options.white_square_rule == "stat-die":
        stat = STAT_ORDER[max(a_roll, d_roll) - 1]
        events.append(
            Event.of(
                "roll",
                f"Roll-off {a_roll} to {d_roll}: the {max(a_roll, d_roll)} names {stat.title} as "
                "the battle stat.",
                rolls=[a_roll, d_roll],
                stat=stat.value,
            )
        )
        battle = Battle(attacker, defender, origin, target, BattleMode.FIXED)
        return _fight(table, state, battle, stat, stat, dice, events)
    events.append(
        Event.of(
            "roll",
            f"Roll-off {a_roll} to {d_roll}: {chooser} chooses the battle stat for both figures.",
            rolls=[a_roll, d_roll],
            chooser=chooser,
        )
    )
    return state.evolve(
        battle=Battle(attacker, defender, origin, target, BattleMode.ROLL_OFF, chooser)
    ), events


def choose_stat(
    table: Table, state: State, action: ChooseStat, dice: Dice
) -> tuple[State, list[Event]]:
    """Record a stat choice; once every needed choice is in, fight."""
    battle = state.battle
    assert battle is not None
    if battle.mode is not BattleMode.EACH_CHOOSES:
        events = [
            Event.of(
                "combat",
                f"{action.player.title()} chooses {action.stat.title} as the battle stat.",
                stat=action.stat.value,
            )
        ]
        return _fight(table, state, battle, action.stat, action.stat, dice, events)
    if action.player == table.controller(state, battle.attacker):
        battle = replace(battle, attacker_stat=action.stat)
    else:
        battle = replace(battle, defender_stat=action.stat)
    if battle.attacker_stat is None or battle.defender_stat is None:
        return state.evolve(battle=battle), [
            Event.of(
                "combat", f"{action.player.title()} has chosen a battle stat.", player=action.player
            )
        ]
    a_stat, d_stat = battle.attacker_stat, battle.defender_stat
    assert isinstance(a_stat, Stat) and isinstance(d_stat, Stat), "hidden choices cannot fight"
    events = [
        Event.of(
            "combat",
            f"Battle stats revealed: {table.name(battle.attacker)} uses {a_stat.title}, "
            f"{table.name(battle.defender)} uses {d_stat.title}.",
            attacker_stat=a_stat.value,
            defender_stat=d_stat.value,
        )
    ]
    return _fight(table, state, battle, a_stat, d_stat, dice, events)


def battle_base(table: Table, state: State, figure: str, stat: Stat, attacking: bool) -> int:
    """A figure's battle total before its die: stat value + power and Dice Zone bonuses."""
    player = table.controller(state, figure)
    base = table.spec(figure).stat(stat) + table.spec(figure).bonus(attacking)
    if table.options.dice_zone:
        base += sum(
            die.bonus
            for die in table.roster.dice_of(player)
            if die.name in state.dice_zone_of(player)
        )
    return base


def _fight(
    table: Table,
    state: State,
    battle: Battle,
    a_stat: Stat,
    d_stat: Stat,
    dice: Dice,
    events: list[Event],
) -> tuple[State, list[Event]]:
    attacker, defender = battle.attacker, battle.defender
    a_base = battle_base(table, state, attacker, a_stat, True)
    d_base = battle_base(table, state, defender, d_stat, False)
    a_name, d_name = table.name(attacker), table.name(defender)
    while True:
        a_die = dice.roll(6, f"battle die ({a_name})")
        d_die = dice.roll(6, f"battle die ({d_name})")
        a_total, d_total = a_base + a_die, d_base + d_die
        tie = a_total == d_total
        events.append(
            Event.of(
                "combat-round",
                f"{a_name} {a_total} ({a_base} + {a_die}), {d_name} {d_total} ({d_base} + {d_die})"
                + (": a tie, roll again." if tie else "."),
                attacker_total=a_total,
                defender_total=d_total,
                rolls=[a_die, d_die],
            )
        )
        if not tie:
            break
    return _resolve(table, state, battle, a_total > d_total, abs(a_total - d_total), events)


def _resolve(
    table: Table, state: State, battle: Battle, attacker_won: bool, margin: int, events: list[Event]
) -> tuple[State, list[Event]]:
    winner, loser = (
        (battle.attacker, battle.defender) if attacker_won else (battle.defender, battle.attacker)
    )
    w_player, l_player = table.controller(state, winner), table.controller(state, loser)
    w_name, l_name = table.name(winner), table.name(loser)
    # powers are judged where the figures stood during the battle
    telepathy = (
        table.options.dice_zone
        and margin > 2
        and len(state.dice_zone_of(w_player)) < table.dice_limit[w_player]
        and any(
            table.spec(f).has_power(TELEPATHY) and table.board.in_staging_zone(sq, w_player)
            for sq, f in table.figures_of(state, w_player)
        )
    )
    unread = [
        d for d in table.roster.dice_of(l_player) if d.name not in state.dice_read_by(w_player)
    ]
    super_sense = table.spec(winner).has_power(SUPER_SENSE) and bool(unread)
    at = dict(state.at)
    del at[battle.target if attacker_won else battle.origin]
    if attacker_won:
        del at[battle.origin]
        at[battle.target] = winner
    hypnotized = set(state.hypnotized)
    pending: list[FollowUp] = []
    if loser in hypnotized:
        hypnotized.discard(loser)
        pending.append(FollowUp(FollowUpKind.RETURN, w_player, loser))
        events.append(
            Event.of(
                "capture",
                f"{w_name} wins by {margin}. {l_name} was hypnotized: it goes back to {w_player}, "
                "who puts it on a coloured square of their side.",
                winner=winner,
                loser=loser,
                margin=margin,
            )
        )
        state = state.with_board(at).evolve(hypnotized=frozenset(hypnotized), battle=None)
    else:
        state = state.with_board(at).evolve(battle=None)
        state = state.with_holding(w_player, state.holding_of(w_player) + (loser,))
        events.append(
            Event.of(
                "capture",
                f"{w_name} wins by {margin}; {l_name} goes to {w_player}'s Holding Zone.",
                winner=winner,
                loser=loser,
                margin=margin,
            )
        )
    if table.spec(loser).cosmic:
        events.append(
            Event.of(
                "victory",
                f"{w_player.title()} captures the Cosmic figure {l_name} and wins the game.",
                winner=w_player,
            )
        )
        return state.evolve(pending=()), events
    if attacker_won:  # the release comes first: a returning figure can always find a square
        pending[:0] = release_followup(table, state, w_player, battle.origin, battle.target)
    if super_sense:
        pending.append(FollowUp(FollowUpKind.READ_DIE, w_player))
        events.append(
            Event.of(
                "power",
                f"Super Sense: {w_name} lets {w_player} read one of {l_player}'s Battle Dice.",
                power=SUPER_SENSE,
                figure=winner,
            )
        )
    if telepathy:
        pending.append(FollowUp(FollowUpKind.TELEPATHY, w_player))
        events.append(
            Event.of(
                "power",
                f"Telepathy: {w_player} won by more than 2 and may move a die to the Dice Zone.",
                power=TELEPATHY,
            )
        )
    if table.options.dice_zone and table.dice_limit[l_player] > 0:
        pending.append(FollowUp(FollowUpKind.LOST_DIE, l_player))
    return state.evolve(pending=state.pending + tuple(pending)), events


def release_followup(
    table: Table, state: State, player: str, origin: Square, square: Square
) -> list[FollowUp]:
    """A far-end release owed because ``player``'s figure went from ``origin`` to ``square``.

    Only reaching the far end counts: a figure already standing on the far end row that
    moves or attacks along it does not release another figure.
    """
    far = table.board.far_row(player)
    if not table.options.release_on or square.y != far or origin.y == far:
        return []
    if not table.held_own(state, player) or not table.empty_staging(state, player):
        return []
    return [FollowUp(FollowUpKind.RELEASE, player)]

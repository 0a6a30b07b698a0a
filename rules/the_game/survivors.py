"""Splitting the survivors when one player has no standing pieces left.

The player who still has pieces divides them into two groups: equal groups for an even
number, and for an odd number the splitter keeps the larger group and the smaller one goes
across at once. With an even number the other player then chooses which group to take
(``opponent_chooses_group``, the default; switched off, the splitter names the group to
hand over). Play then carries on in the phase that was interrupted.
"""

from __future__ import annotations

from dataclasses import replace

from rules.core import Event, Verdict
from rules.the_game.flow import hand_over, split_sizes
from rules.the_game.model import Action, Split, SplitStage, Take, TheGameState
from rules.the_game.options import TheGameOptions

__all__ = ["split_verdict", "apply_split", "halves"]


def halves(state: TheGameState, stage: SplitStage) -> tuple[frozenset[str], frozenset[str]]:
    """The two groups on offer once the survivors are split."""
    offer = frozenset(stage.offer or ())
    rest = frozenset(p.id for p in state.in_play() if p.id not in offer)
    return offer, rest


def split_verdict(state: TheGameState, action: Action, opts: TheGameOptions) -> Verdict:
    """Judge an action while survivors are being split (only splitting or taking is allowed)."""
    stage = state.split
    assert stage is not None
    splitter, other = stage.splitter, opts.other(stage.splitter)
    if not isinstance(action, (Split, Take)):
        return Verdict.illegal("split-pending", f"{splitter.capitalize()}'s survivors must be "
                               f"split first, and {other} given one group.")
    if isinstance(action, Take):
        if stage.offer is None:
            return Verdict.illegal("not-your-turn", f"{splitter.capitalize()} has not split its "
                                   "survivors yet.")
        if action.player != other:
            return Verdict.illegal("not-your-turn", f"{other.capitalize()} chooses the group, "
                                   f"not {action.player}.")
        two = halves(state, stage)
        if frozenset(action.group) not in two or len(set(action.group)) != len(action.group):
            groups = " or ".join(", ".join(sorted(h)) for h in two)
            return Verdict.illegal("not-a-group", f"Take one of the two groups as split: "
                                   f"{groups}.")
        return Verdict.ok(f"{other.capitalize()} takes {', '.join(action.group)}.")
    if stage.offer is not None:
        return Verdict.illegal("already-split", f"The survivors are split; {other} now chooses "
                               "a group.")
    if action.player != splitter:
        return Verdict.illegal("not-your-turn", f"{splitter.capitalize()} splits its survivors.")
    mine = {p.id for p in state.in_play() if p.controller == splitter}
    if len(set(action.group)) != len(action.group):
        return Verdict.illegal("duplicate-piece", "A piece is named twice in the group.")
    strangers = [g for g in action.group if g not in mine]
    if strangers:
        return Verdict.illegal("not-your-piece", f"{strangers[0]} is not one of {splitter}'s "
                               "standing pieces.", piece=strangers[0])
    keep, give = split_sizes(len(mine))
    if len(action.group) not in (keep, give):
        return Verdict.illegal("unequal-groups", f"{len(mine)} survivors split into groups of "
                               f"{keep} and {give}; this group has {len(action.group)}.",
                               survivors=len(mine))
    return Verdict.ok(f"{splitter.capitalize()} splits its survivors.")


def apply_split(
    state: TheGameState, action: Split, opts: TheGameOptions, events: list[Event]
) -> TheGameState:
    """Carry out a legal split: hand a group over at once, or offer the two to choose from."""
    mine = [p.id for p in state.in_play() if p.controller == action.player]
    rest = tuple(p for p in mine if p not in action.group)
    keep, give = split_sizes(len(mine))
    if keep != give:  # odd: the splitter keeps the larger group
        smaller = tuple(action.group) if len(action.group) == give else rest
        return hand_over(state, action.player, smaller, opts, events)
    if not opts.opponent_chooses_group:
        return hand_over(state, action.player, tuple(action.group), opts, events)
    offer = tuple(p for p in mine if p in action.group)
    events.append(Event.of("phase", f"{action.player.capitalize()} splits its survivors into "
                           f"{', '.join(offer)} and {', '.join(rest)}; "
                           f"{opts.other(action.player)} chooses one.",
                           groups=[list(offer), list(rest)]))
    return replace(state, split=SplitStage(action.player, offer))

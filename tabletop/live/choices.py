"""Choices the board cannot show: actions the rules wait for that the table does not show.

After a battle with the Dice Zone on, Battle Grounds waits for a player to move a die into
the Dice Zone (``pick-die``), to read one of the opponent's Battle Dice with Super Sense
(``read-die``), or to decline (``skip``); a battle on a multi-coloured or white square waits
for its battle stat (``choose-stat``: the table shows the battle fought, never the stat, and
the attack is read by its result, :data:`tabletop.live.outcomes.DECIDING`); after Wormholes'
roll-off its winner chooses to place or to move first (``choose-order``); in The Game, once a
side has no piece standing, the other splits its survivors (``split``: the group set apart)
and the first takes one group (``take``), which changes who plays which piece, while every
front dot stays its side's colour; in a OneWorld child's fight with a god (``transform``),
the aspect the attacking child shows and the one the god announces aloud, while the child is
eliminated whatever they are (a round among children is read off the table:
:mod:`tabletop.live.combat`). Nothing on the table says which, so the camera cannot read
them: while every legal action is such a choice (:func:`awaited`), the referee numbers them
(:func:`numbered`: ``c1``, ``c2``, ...; ``c0`` declines), says them once (:func:`prompt`),
and takes one from ``--choices`` or the window's keys (``c`` goes through them, Enter
confirms); :func:`match` reads a given value.

>>> from rules.registry import get_game
>>> game = get_game("wormholes", {})
>>> awaited(game, game.initial_state())
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.core import CHANCE, GameRules
from tabletop.live.infer import legal

__all__ = ["CHOICES", "CHOICE_NOTE", "awaited", "label", "match", "numbered", "prompt"]

#: The action types, by game, that change nothing on the board and that the rules may wait
#: for alone (other actions that move nothing, taken instead of a move, are read from the
#: move after them: :data:`tabletop.live.infer.PASSES`).
CHOICES = {
    "battle-grounds": ("pick-die", "read-die", "skip", "choose-stat"),
    "wormholes": ("choose-order",),
    "the-game": ("split", "take"),
    "oneworld": ("transform",),  # a fight with a god only: see awaited
}
#: The event log's note on a choice played.
CHOICE_NOTE = "a choice the board cannot show"

#: What the player is asked, by the kind of the choices (``{who}``: the player to choose).
_LEADS = {
    "pick-die": ("{who} may move a die into the Dice Zone", "no pick"),
    "read-die": ("{who} may read one of the other side's Battle Dice", "no read"),
    "choose-order": ("{who} chooses what comes first", "decline"),
    "choose-stat": ("{who} chooses the battle stat", ""),
    "split": ("{who} splits its survivors in two, setting apart", ""),
    "take": ("{who} takes one of the two groups", ""),
    "transform": ("{who} gives the aspect the attacking child shows", ""),
    "god": ("{who} gives the aspect its god announces", ""),
}


def awaited(game: GameRules[Any, Any], state: Any) -> list[Any]:
    """The legal actions now when the rules wait for a choice the board cannot show (every
    legal action is of :data:`CHOICES`); ``[]`` otherwise (a move, a roll, the game over)."""
    kinds = CHOICES.get(game.name, ())
    if not kinds or CHANCE in game.to_move(state):
        return []
    combat = getattr(state, "combat", None) if game.name == "oneworld" else None
    if game.name == "oneworld" and (combat is None or not combat.against_god):
        return []  # a round among children shows on the table
    actions = legal(game, state)
    if not actions or any(game.action_to_json(a).get("type") not in kinds for a in actions):
        return []
    return actions


def _kind(game: GameRules[Any, Any], actions: Sequence[Any]) -> str:
    kinds = [game.action_to_json(a).get("type") for a in actions]
    return next((k for k in kinds if k != "skip"), "skip")


def label(game: GameRules[Any, Any], action: Any, kind: str = "") -> str:
    """A choice in plain words: a die's name (``Rally for Team-Up``: swapped for a die of a
    full Dice Zone), ``place first``, ``no pick`` (a decline)."""
    aj = game.action_to_json(action)
    what = aj.get("type")
    if what == "skip":
        return _LEADS.get(kind, ("", "decline"))[1]
    if what in ("pick-die", "read-die"):
        swap = aj.get("swap_out")
        return f"{aj['die']} for {swap}" if swap else str(aj["die"])
    if what == "choose-order":
        return f"{aj['first']} first"
    if what in ("split", "take"):
        return " and ".join(aj["group"])
    if what == "transform":
        return "+".join(str(a).title() for a in aj["aspects"])
    if what == "choose-stat":
        return str(aj["stat"]).replace("-", " ").title()
    return game.notation(action)


def numbered(game: GameRules[Any, Any], actions: Sequence[Any]) -> list[tuple[str, str, Any]]:
    """(key, words, action) of each choice: ``c1``, ``c2``, ... in the rules' order, and
    ``c0`` for the decline, listed last."""
    kind = _kind(game, actions)
    words = [label(game, a, kind) for a in actions]
    if len(set(words)) < len(words):  # each side chooses in secret (a battle stat on white): say whose
        words = [f"{str(game.action_to_json(a).get('player', '')).title()} {w}".strip() for a, w in zip(actions, words)]
    out, last = [], []
    for a, w in zip(actions, words):
        if game.action_to_json(a).get("type") == "skip":
            last.append(("c0", w, a))
        else:
            out.append((f"c{len(out) + 1}", w, a))
    return out + last


def prompt(game: GameRules[Any, Any], state: Any, actions: Sequence[Any]) -> str:
    """What the referee says when the rules wait for a choice: who, what, and each choice
    with its key, e.g. ``South may move a die into the Dice Zone: c1 Assemble, c2 Rally,
    c0 no pick.``"""
    who = "/".join(p.title() for p in game.to_move(state)) or "The player"
    kind = _kind(game, actions)
    if kind == "transform" and game.to_move(state) != (getattr(getattr(state, "active", None), "value", None),):
        kind = "god"  # the defending side: its god's aspect, announced aloud
    lead = _LEADS.get(kind, ("{who} chooses", ""))[0].format(who=who)
    return f"{lead}: " + ", ".join(f"{key} {words}" for key, words, _ in numbered(game, actions)) + "."


def match(game: GameRules[Any, Any], actions: Sequence[Any], value: str) -> Any | None:
    """The choice ``value`` names among ``actions``: its key (``c2``, or ``2``), its words
    (``Heroic Stand``, ``no pick``; any case), those words after the player's name when it
    chooses (``South Strength``: a secret choice, said so while both sides have one to make)
    or, for a decline, ``skip``; ``None`` when it names none of them."""
    text = " ".join(value.split()).lower()
    for key, words, action in numbered(game, actions):
        owner = str(game.action_to_json(action).get("player", "")).lower()
        names = {key, key[1:], words.lower()} | ({f"{owner} {words.lower()}"} if owner else set())
        if text in names or (key == "c0" and text == "skip"):
            return action
    return None

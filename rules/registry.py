"""The game registry: every engine by its short name.

Engines are imported on first use, so importing :mod:`rules` stays cheap.

>>> "oneworld" in game_names()
True
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

from rules.core import GameRules
from rules.errors import UnknownGameError

__all__ = ["GAMES", "game_names", "get_game", "game_class"]

#: short name -> "module:class" of the engine.
GAMES: dict[str, str] = {
    "oneworld": "rules.oneworld:OneWorld",
    "when-gods-collide": "rules.when_gods_collide:WhenGodsCollide",
    "wormholes": "rules.wormholes:Wormholes",
    "battle-grounds": "rules.battle_grounds:BattleGrounds",
    "the-game": "rules.the_game:TheGame",
}


def _available() -> dict[str, str]:
    out = {}
    for name, target in GAMES.items():
        module = target.split(":")[0]
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:  # a namespace folder is not an engine
            out[name] = target
    return out


def game_names() -> list[str]:
    """Names of the games whose engines are installed."""
    return sorted(_available())


def game_class(name: str) -> type[GameRules[Any, Any]]:
    target = _available().get(name)
    if target is None:
        known = ", ".join(game_names())
        raise UnknownGameError(f"unknown game {name!r} (known games: {known})")
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def get_game(name: str, options: Mapping[str, Any] | None = None) -> GameRules[Any, Any]:
    """An engine for ``name`` with ``options`` (a JSON-style mapping, validated)."""
    cls = game_class(name)
    return cls.from_options(options or {})  # type: ignore[attr-defined]

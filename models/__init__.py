"""Shipped detection weights, dataset configurations and model cards.

Weights live beside this file as package data; nothing is downloaded, and nothing is
loaded on import.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

__all__ = ["DEFAULT_IMGSZ", "DICE_FINDER", "ModelNotFoundError", "available", "inference_settings", "reading_settings", "reads_mirrored",
           "weights_path"]

#: The size frames are read at (the network input's longer side, pixels) unless a recipe says otherwise.
DEFAULT_IMGSZ = 640


class ModelNotFoundError(FileNotFoundError):
    """No shipped weights of that name."""


#: The d6 finder's name (``d6.pt``): ordinary dice beside any game, not a game's detector.
DICE_FINDER = "d6"


def available() -> list[str]:
    """Names of the games whose detector weights are shipped (``GAME.pt``; a detector's
    readers, its dice face reader ``<name>.faces.pt``, its piece reader ``<name>.pieces.pt``,
    its stack reader ``<name>.stacks.pt`` and its facing reader ``<name>.facing.pt``, are not
    ones, nor the d6 finder, :data:`DICE_FINDER`)."""
    folder = resources.files("models")
    return sorted(p.name[:-3] for p in folder.iterdir()
                  if p.name.endswith(".pt")
                  and not p.name.endswith((".faces.pt", ".pieces.pt", ".stacks.pt", ".facing.pt"))
                  and p.name[:-3] != DICE_FINDER)


def weights_path(name: str) -> Path:
    """The path of shipped weights ``name``; a clear error when they are not shipped."""
    path = Path(str(resources.files("models") / f"{name}.pt"))
    if not path.is_file():
        shipped = ", ".join(available()) or "none yet"
        raise ModelNotFoundError(f"no shipped weights called {name!r} (shipped: {shipped})")
    return path


def _inference_section(weights: str | Path) -> tuple[str, dict[str, object]]:
    """The recipe's name and its ``inference`` section for weights named after a game
    (``GAME.pt``, shipped or written by ``tabletop train GAME``); an empty section without
    a recipe or without the section."""
    recipe = resources.files("models") / f"{Path(weights).name.split('.')[0]}.json"
    if not recipe.is_file():
        return recipe.name, {}
    try:
        section = json.loads(recipe.read_text(encoding="utf-8")).get("inference") or {}
    except json.JSONDecodeError as err:
        raise ValueError(f"models/{recipe.name}: invalid JSON at line {err.lineno}: {err.msg}") from None
    if not isinstance(section, dict):
        raise ValueError(f"models/{recipe.name}: inference must be an object, got {section!r}")  # noqa: TRY004 - a bad recipe, as its other errors
    return recipe.name, section


def reading_settings(weights: str | Path) -> tuple[int, float | None, bool]:
    """:func:`inference_settings` and :func:`reads_mirrored` together, the recipe read once:
    ``(imgsz, piece_px, mirror)``.

    >>> reading_settings("runs/mine/detector.pt")
    (640, None, False)
    """
    name, section = _inference_section(weights)
    return (*_sizes(name, section), _mirror(name, section))


def inference_settings(weights: str | Path) -> tuple[int, float | None]:
    """How frames are read by ``weights``: the size to start at (pixels, the network input's
    longer side) and, when frames are read at the size their pieces need, the pieces' median
    shorter side (network pixels) the model reads best (``None``: always at that size). For
    weights named after a game (``GAME.pt``, shipped or written by ``tabletop train GAME``),
    the game's recipe's ``inference`` section (``imgsz``, ``piece_px``); else, or without
    it, :data:`DEFAULT_IMGSZ` and ``None``.

    >>> inference_settings("runs/mine/detector.pt")
    (640, None)
    """
    return _sizes(*_inference_section(weights))


def _sizes(name: str, section: dict[str, object]) -> tuple[int, float | None]:
    size, piece = section.get("imgsz", DEFAULT_IMGSZ), section.get("piece_px")
    if not isinstance(size, int) or not 32 <= size <= 4096 or size % 32:
        raise ValueError(f"models/{name}: inference.imgsz must be a multiple of 32 from 32 to 4096, got {size!r}")
    if piece is not None and (isinstance(piece, bool) or not isinstance(piece, (int, float)) or not 2 <= piece <= 512):
        raise ValueError(f"models/{name}: inference.piece_px must be a number of pixels from 2 to 512, "
                         f"got {piece!r}")
    return size, None if piece is None else float(piece)


def reads_mirrored(weights: str | Path) -> bool:
    """Whether ``weights`` read each frame a second time mirrored left to right, the two
    readings merged (:meth:`vision.detect.Detector.detect`): the recipe's ``inference.mirror``
    for weights named after a game; ``False`` otherwise.

    >>> reads_mirrored("runs/mine/detector.pt")
    False
    """
    return _mirror(*_inference_section(weights))


def _mirror(name: str, section: dict[str, object]) -> bool:
    mirror = section.get("mirror", False)
    if not isinstance(mirror, bool):
        raise ValueError(f"models/{name}: inference.mirror must be true or false, got {mirror!r}")  # noqa: TRY004 - as above
    return mirror

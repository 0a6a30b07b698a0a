"""Bundled sample images, found as package data so they work from any install.

For each game (``oneworld``, ``when-gods-collide``, ``wormholes``, ``battle-grounds``,
``the-game``) the folder holds a few stills and one turn, all flat in this package
(docs/sample-images.md describes them; ``tools/make_sample_images.py`` writes them):

* ``<game>-still-<k>.jpg``: a still, with the renderer's ground truth beside it
  (``<game>-still-<k>.json``);
* ``<game>-turn-<nn>.jpg``: the frames of a turn seen from one camera, each with its
  ground truth (``<game>-turn-<nn>.json``);
* ``<game>-turn.json``: the turn's manifest: the game, its options, the starting position,
  the frames in order and, for each move, the action, the rolls and the engine's verdict.

>>> [p.name for p in sequences()][:1]
['battle-grounds-turn.json']
>>> [p.name for p in stills("wormholes")][:1]
['wormholes-still-1.jpg']
>>> truth(stills("wormholes")[0]).name
'wormholes-still-1.json'
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["folder", "paths", "sequence", "sequences", "stills", "truth"]

_SUFFIXES = (".jpg", ".jpeg", ".png")
_MANIFEST = "-turn.json"


def folder() -> Path:
    """The folder the sample files lie in."""
    return Path(str(resources.files("sample_images")))


def paths() -> list[Path]:
    """Every bundled sample image, sorted by name."""
    return sorted(p for p in folder().iterdir() if p.name.lower().endswith(_SUFFIXES))


def sequences() -> list[Path]:
    """The manifest (``<game>-turn.json``) of every bundled turn, sorted by name."""
    return sorted(p for p in folder().iterdir() if p.name.endswith(_MANIFEST))


def sequence(game: str) -> Path:
    """The manifest of ``game``'s turn (raises ``FileNotFoundError`` when there is none)."""
    path = folder() / f"{game}{_MANIFEST}"
    if not path.is_file():
        known = ", ".join(p.name[: -len(_MANIFEST)] for p in sequences())
        raise FileNotFoundError(f"no sample turn for {game!r} (turns: {known})")
    return path


def stills(game: str | None = None) -> list[Path]:
    """The still images of ``game`` (of every game when ``None``), sorted by name."""
    prefix = f"{game}-still-" if game else ""
    return [p for p in paths() if "-still-" in p.name and p.name.startswith(prefix)]


def truth(image: str | Path) -> Path:
    """The ground-truth JSON that lies beside a sample image."""
    return Path(image).with_suffix(".json")

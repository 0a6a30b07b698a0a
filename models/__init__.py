"""Shipped detection weights, dataset configurations and model cards.

Weights live beside this file as package data; nothing is downloaded, and nothing is
loaded on import.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["ModelNotFoundError", "available", "weights_path"]


class ModelNotFoundError(FileNotFoundError):
    """No shipped weights of that name."""


def available() -> list[str]:
    """Names of the shipped detector weight files (without ``.pt``; a detector's readers,
    its dice face reader ``<name>.faces.pt``, its piece reader ``<name>.pieces.pt`` and its
    facing reader ``<name>.facing.pt``, are not ones)."""
    folder = resources.files("models")
    return sorted(p.name[:-3] for p in folder.iterdir()
                  if p.name.endswith(".pt") and not p.name.endswith((".faces.pt", ".pieces.pt", ".facing.pt")))


def weights_path(name: str) -> Path:
    """The path of shipped weights ``name``; a clear error when they are not shipped."""
    path = Path(str(resources.files("models") / f"{name}.pt"))
    if not path.is_file():
        shipped = ", ".join(available()) or "none yet"
        raise ModelNotFoundError(f"no shipped weights called {name!r} (shipped: {shipped})")
    return path

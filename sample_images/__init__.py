"""Bundled sample images, found as package data so they work from any install."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["paths"]

_SUFFIXES = (".jpg", ".jpeg", ".png")


def paths() -> list[Path]:
    """Every bundled sample image, sorted by name."""
    folder = resources.files("sample_images")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.lower().endswith(_SUFFIXES))

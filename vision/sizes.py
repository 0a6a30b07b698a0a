"""Frame sizes given as text (``"1280x720"``) or as numbers (``[1280, 720]``): one parser
for the command line's options and the training recipes.

>>> frame_size("1280x720"), frame_size([640, 480])
((1280, 720), (640, 480))
"""

from __future__ import annotations

from typing import Any

__all__ = ["SizeFormatError", "frame_size"]

#: the smallest and largest side a frame may have, in pixels
SIDES = (64, 4096)


class SizeFormatError(ValueError):
    """A size that is not two whole numbers (``"WxH"`` or ``[W, H]``)."""


def frame_size(value: Any) -> tuple[int, int]:
    """``value`` (``"WxH"``, ``"W*H"`` or ``[W, H]``) as (width, height), each side 64 to
    4096 pixels: a :class:`SizeFormatError` for something else, a :class:`ValueError` for a
    side out of range."""
    try:
        parts = value.lower().replace("*", "x").split("x") if isinstance(value, str) else list(value)
        if len(parts) != 2:
            raise ValueError
        w, h = (int(v) for v in parts)
    except (TypeError, ValueError):
        raise SizeFormatError(f"a size is WIDTHxHEIGHT or [width, height], got {value!r}") from None
    low, high = SIDES
    if not (low <= w <= high and low <= h <= high):
        raise ValueError(f"frame size {w}x{h}: each side must be {low} to {high} pixels")
    return w, h

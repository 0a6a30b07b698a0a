"""Number parsers for the command line's options: one clear message for a bad value.

>>> whole("epochs", 1, 100)("12")
12
>>> share()("0.25"), share(zero=False)("1")
(0.25, 1.0)
>>> frame_size("1280x720")
(1280, 720)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["frame_size", "share", "whole"]


def whole(unit: str, low: int, high: int, name: str | None = None) -> Callable[[str], int]:
    """A parser of whole numbers from ``low`` to ``high``: ``unit`` names what is counted
    ("images"; empty for none), ``name`` the option in the range message (default: the unit)."""
    of = f" of {unit}" if unit else ""
    called = name or unit

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number{of}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{called} must be {low} to {high}, got {value}")
        return value

    return parse


def share(zero: bool = True) -> Callable[[str], float]:
    """A parser of a share from 0 to 1 (``zero=False``: above 0)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
        if not (0.0 <= value if zero else 0.0 < value) or value > 1.0:
            what = "between 0 and 1" if zero else "above 0 and at most 1"
            raise argparse.ArgumentTypeError(f"expected a share {what}, got {value:g}")
        return value

    return parse


def frame_size(text: str, example: str = "such as 1280x720") -> tuple[int, int]:
    """A frame size ``WIDTHxHEIGHT`` (each side 64 to 4096 pixels: :func:`vision.sizes.frame_size`);
    ``example`` follows "expected WIDTHxHEIGHT" in the message for text that is not one."""
    from vision.sizes import SizeFormatError
    from vision.sizes import frame_size as parse

    try:
        return parse(text)
    except SizeFormatError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT {example}, got {text!r}") from None
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None

"""Number parsers for the command line's options: one clear message for a bad value.

>>> whole("epochs", 1, 100)("12")
12
>>> share()("0.25"), share(zero=False)("1")
(0.25, 1.0)
>>> frame_size("1280x720")
(1280, 720)
>>> number("seconds", 0, 10, "the window")("0.5"), image_size("640")
(0.5, 640)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["CAMERA_INDEX", "frame_size", "image_size", "number", "share", "whole"]


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


def number(unit: str, low: float, high: float, name: str | None = None) -> Callable[[str], float]:
    """A parser of numbers from ``low`` to ``high``: ``unit`` names what is measured
    ("seconds"), ``name`` the option in the range message (default: the unit)."""
    called = name or unit

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        if not low <= value <= high:  # NaN too
            raise argparse.ArgumentTypeError(f"{called} must be {low:g} to {high:g} {unit}, got {text}")
        return value

    return parse


def image_size(text: str) -> int:
    """A network input size in pixels: 32 to 4096, a multiple of 32 (the model's stride)."""
    value = whole("pixels", 32, 4096, "the image size")(text)
    if value % 32:
        raise argparse.ArgumentTypeError(f"the image size must be a multiple of 32 (the model's stride), got {value}")
    return value


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


#: ``--camera N``: a camera's index, 0 or more (some negative ones crash OpenCV outright).
CAMERA_INDEX = whole("", 0, 9999, "a camera index (0: the first webcam)")

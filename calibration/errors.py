"""Errors of the calibration package."""

from __future__ import annotations


class CalibrationError(Exception):
    """Root error of calibration: the message tells the user what to do."""

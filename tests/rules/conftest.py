"""Lets the rules tests import their shared helper modules (oneworld_support, wgc_support) by name.

tests/ is not a package and pytest runs with --import-mode=importlib, which puts no test folder
on sys.path; this conftest, loaded before the test modules of this folder, adds it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)

"""tabletop: a computer-vision referee for physical tabletop games.

The application package: the command line (:mod:`tabletop.cli`), game records
(:mod:`tabletop.records`), the referee that replays them (:mod:`tabletop.referee`), the
announcer that prints and speaks what happens (:mod:`tabletop.announcer`) and the one seeded
die roller at the application edge (:mod:`tabletop.dice`). The pure game engines live in
:mod:`rules`; this package does the I/O around them.

>>> import tabletop
>>> tabletop.__version__
'0.1.0'
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]

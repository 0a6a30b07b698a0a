"""``python -m tabletop``: the same as the ``tabletop`` command."""

from __future__ import annotations

from tabletop.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

"""OneWorld combat (sections 8 and 10.4): rounds of secret transformation and hurling.

>>> from rules.oneworld.model import Aspect as A
>>> losses([A.STONE, A.STONE], [A.FOG, A.STONE, A.BLADE])   # appendix B, first round
({<Aspect.STONE: 'stone'>: 1}, {<Aspect.BLADE: 'blade'>: 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rules.oneworld.model import Aspect

__all__ = ["losses", "KILLS"]

#: Each aspect and the enemy aspect it eliminates, one for one (chart 13.1).
KILLS = {Aspect.BLADE: Aspect.FOG, Aspect.FOG: Aspect.STONE, Aspect.STONE: Aspect.BLADE}


def losses(a: Sequence[Aspect], b: Sequence[Aspect]) -> tuple[dict[Aspect, int], dict[Aspect, int]]:
    """What each side loses in one round, computed together from the revealed aspects.

    For every friendly Blade an enemy Fog dies, for every friendly Fog an enemy Stone, and
    for every friendly Stone an enemy Blade (the rulebook's 8.2(3) says "enemy Stone", a
    misprint the chart and example B correct). Returns (losses of a, losses of b).
    """
    ca, cb = Counter(a), Counter(b)

    def lost(mine: Counter[Aspect], theirs: Counter[Aspect]) -> dict[Aspect, int]:
        out = {}
        for killer, victim in KILLS.items():
            n = min(theirs[killer], mine[victim])
            if n:
                out[victim] = n
        return out

    return lost(ca, cb), lost(cb, ca)

"""Accept a position only once it has been still, with no hand over the board, for a window.

>>> s = Stability(window_s=0.3)
>>> [s.update(t / 10, "A", hand=False) for t in range(5)]
[None, None, None, 'A', None]
>>> s.update(0.5, "B", hand=True), s.update(0.6, "B", hand=False), s.update(0.9, "B", hand=False)
(None, None, 'B')
"""

from __future__ import annotations

from typing import Any

__all__ = ["Stability"]


class Stability:
    """Feed ``(time, key, hand)`` per frame; :meth:`update` returns the key once, when it has
    been the same for ``window_s`` seconds with no hand (or motion: a changed key restarts the
    window), and ``None`` otherwise. A position equal to the last accepted one is not returned
    again."""

    def __init__(self, window_s: float = 0.3) -> None:
        self.window_s = window_s
        self._key: Any = None
        self._since: float | None = None
        self._accepted: Any = object()
        self.hand = False

    def reset(self, accepted: Any = None) -> None:
        self._key, self._since = None, None
        self._accepted = object() if accepted is None else accepted

    @property
    def settling(self) -> bool:
        return self._since is not None

    def update(self, t: float, key: Any, hand: bool) -> Any:
        self.hand = hand
        if hand:
            self._key, self._since = None, None
            return None
        if self._since is None or key != self._key:
            self._key, self._since = key, t
        if t - self._since + 1e-9 >= self.window_s and key != self._accepted:
            self._accepted = key
            return key
        return None

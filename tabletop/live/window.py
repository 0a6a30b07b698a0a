"""The live window and its keys.

:func:`handle_key` does what a key says to a running game and needs no window, so it is
tested on its own; :class:`Window` is the thin OpenCV part (``imshow`` and ``waitKey``).

==== ==============================================================================
key  what it does
==== ==============================================================================
p    pause (the picture is held, nothing is read) / go on
u    undo: take back the last legal move (the record keeps an ``undo`` line)
a    accept the other reading of the last move (the first is taken back)
r    recalibrate: find the board again
m    mute / sound on
1-6  a die thrown on the table: the next roll the rules ask for (a move waiting for
     its roll is played once the position is read again); a roll the rules await as
     an action (When Gods Collide's chess and hero dice, Wormholes' piecepack dice) is
     typed one key a die, as the window's message says (:mod:`tabletop.live.chance`)
0    a piecepack die's null
Bksp Backspace: take back the die typed last
c    a choice the board cannot show, which the rules wait for (a Battle Grounds Dice
     Zone pick or its decline, a Super Sense read, a battle stat, Wormholes' order of
     play, The Game's split of the survivors and the group taken, the aspects of a
     OneWorld fight with a god; and the OneWorld combat rounds the table could not
     tell apart): go to the next of the choices the referee said (``c1``, ``c2``,
     ..., ``c0`` declines)
Ent  Enter: play the choice ``c`` is on (:mod:`tabletop.live.choices`)
q    quit (Esc too)
==== ==============================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["KEYS", "Controls", "Window", "handle_key"]

KEYS = {"p": "pause", "u": "undo", "a": "accept", "r": "recalibrate", "m": "mute", "q": "quit"}
ESC = 27
BACKSPACE = (8, 127)  # as cv2.waitKey gives it on X11 and elsewhere
ENTER = (10, 13)
CHOICE_KEY = "c"


@dataclass
class Controls:
    """What the keys act on: the pipeline, the sound (``toggle_mute``), the pose tracker
    (``reset``, or ``None`` with a fixed pose) and where to say what happened."""

    pipe: Any
    audio: Any = None
    tracker: Any = None
    say: Callable[[str], None] = print


def handle_key(key: int | None, controls: Controls) -> str | None:
    """Do what ``key`` (a ``cv2.waitKey`` code; ``None`` or negative: no key) says; return
    the command's name, or ``None`` for no key or a key with no meaning.

    >>> class Pipe:
    ...     paused = False
    >>> said = []
    >>> handle_key(ord("p"), Controls(Pipe(), say=said.append)), said
    ('pause', ['paused: p to go on'])
    >>> handle_key(ord("x"), Controls(Pipe())) is None
    True
    """
    if key is None or key < 0:
        return None
    if key == ESC:
        return "quit"
    pipe, say = controls.pipe, controls.say
    char = chr(key & 0xFF)
    rolls = getattr(pipe, "rolls", None)
    if rolls is not None and (char in "0123456" or key & 0xFF in BACKSPACE):
        stability = getattr(pipe, "stability", None)
        if stability is not None:  # the still position is read again with the dice as they are now
            stability.reset()
        if char in "0123456":
            rolls.type(int(char))
            say(f"die {char} typed ({_waiting(rolls.given)})")
            return "die"
        value = rolls.take_back()
        say(f"die {value} taken back ({_waiting(rolls.given)})" if value is not None else "no die to take back")
        return "take back die"
    if char.lower() == CHOICE_KEY and hasattr(pipe, "next_choice"):
        say(pipe.next_choice())
        return "next choice"
    if key & 0xFF in ENTER and hasattr(pipe, "choose_current"):
        say(pipe.choose_current())
        return "choose"
    command = KEYS.get(char.lower())
    if command == "pause":
        pipe.paused = not pipe.paused
        say("paused: p to go on" if pipe.paused else "going on")
    elif command == "undo":
        undone = pipe.undo()
        say(f"undone: {undone}" if undone else "nothing to undo")
    elif command == "accept":
        say(pipe.accept_other())
    elif command == "recalibrate":
        if controls.tracker is not None:
            controls.tracker.reset()
        pipe.recalibrate()
        say("recalibrating: finding the board again")
    elif command == "mute" and controls.audio is not None:
        say("muted" if controls.audio.toggle_mute() else "sound on")
    return command


def _waiting(given: list[int]) -> str:
    return f"waiting: {' '.join(map(str, given))}" if given else "none waiting"


class Window:
    """An OpenCV window titled ``title``; :meth:`show` draws a picture and returns the key
    pressed within ``wait_ms`` (``None`` when none)."""

    def __init__(self, title: str) -> None:
        import cv2

        self.title = title
        cv2.namedWindow(title, cv2.WINDOW_AUTOSIZE)
        self._shown = False

    def show(self, img: Any, wait_ms: int = 1) -> int | None:
        import cv2

        cv2.imshow(self.title, img)
        self._shown = True
        return self.wait(wait_ms)

    def wait(self, wait_ms: int) -> int | None:
        import cv2

        key = cv2.waitKey(max(1, wait_ms))
        return None if key < 0 else key & 0xFF

    def is_open(self) -> bool:
        """False once the user has closed the window."""
        import cv2

        if not self._shown:
            return True
        try:
            return cv2.getWindowProperty(self.title, cv2.WND_PROP_VISIBLE) >= 1
        except cv2.error:
            return False

    def close(self) -> None:
        import cv2

        try:
            cv2.destroyWindow(self.title)
            cv2.waitKey(1)
        except cv2.error:
            pass

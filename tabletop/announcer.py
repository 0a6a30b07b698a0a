"""The announcer: turns what happens in a game into sentences, printed and (optionally) spoken.

Printing always works. Speaking uses a text-to-speech program when one is installed
(``espeak-ng``, else ``espeak``); it is off unless asked for, and when it is asked for but
unavailable or failing, the announcer warns once and goes on printing: speech never stops a
game.

>>> import io
>>> from rules.core import Event
>>> out = io.StringIO()
>>> Announcer(out).announce([Event.of("turn", "Turn 2: CHEZ to move.")], label="12")
>>> out.getvalue()
' 12  Turn 2: CHEZ to move.\\n'
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Protocol, TextIO

from rules.core import Event

__all__ = ["Announcer", "Speaker", "EspeakSpeaker", "find_speaker", "SPEECH_PROGRAMS"]

#: Text-to-speech programs tried in order; each reads the text on standard input.
SPEECH_PROGRAMS = ("espeak-ng", "espeak")
SPEECH_TIMEOUT_S = 60.0


class Speaker(Protocol):
    """Anything that can say a sentence aloud (raises ``OSError`` or
    ``subprocess.SubprocessError`` when it cannot)."""

    def say(self, text: str) -> None: ...


class EspeakSpeaker:
    """Speaks through an espeak-compatible program found on ``PATH``."""

    def __init__(self, program: str) -> None:
        self.program = program

    def say(self, text: str) -> None:
        subprocess.run(
            [self.program, "--stdin"],
            input=text,
            text=True,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=SPEECH_TIMEOUT_S,
        )

    def __repr__(self) -> str:
        return f"EspeakSpeaker({self.program!r})"


def find_speaker(which: Callable[[str], str | None] | None = None) -> Speaker | None:
    """The first speech program installed (looked up with ``which``, default
    :func:`shutil.which`), or ``None``."""
    lookup = which or shutil.which
    for name in SPEECH_PROGRAMS:
        path = lookup(name)
        if path:
            return EspeakSpeaker(path)
    return None


class Announcer:
    """Prints each announcement on ``out`` and, when ``speak`` is on, says it aloud.

    ``speaker`` overrides the speech program (tests pass a fake one); ``warn`` is where the
    single "speech unavailable" warning goes (standard error by default).
    """

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        speak: bool = False,
        speaker: Speaker | None = None,
        warn: TextIO | None = None,
        label_width: int = 3,
    ) -> None:
        self.out = out if out is not None else sys.stdout
        self.warn = warn if warn is not None else sys.stderr
        self.label_width = label_width
        self.speaker: Speaker | None = None
        self.warned = False
        if speak:
            self.speaker = speaker if speaker is not None else find_speaker()
            if self.speaker is None:
                self._warn(
                    "no speech program found (install espeak-ng to hear the announcements); "
                    "printing them only"
                )

    @property
    def speaking(self) -> bool:
        return self.speaker is not None

    def say(self, text: str, label: str = "") -> None:
        """Print ``text`` (after ``label``, e.g. a record line number) and speak it."""
        if label:
            print(f"{label:>{self.label_width}}  {text}", file=self.out, flush=True)
        else:
            print(text, file=self.out, flush=True)
        self._speak(text)

    def announce(self, events: Iterable[Event], label: str = "") -> None:
        """Announce each event's sentence."""
        for event in events:
            self.say(event.text, label)

    def _speak(self, text: str) -> None:
        if self.speaker is None:
            return
        try:
            self.speaker.say(text)
        except (OSError, subprocess.SubprocessError) as err:
            self.speaker = None
            self._warn(f"speech stopped working ({err}); printing the announcements only")

    def _warn(self, message: str) -> None:
        if not self.warned:
            self.warned = True
            print(f"tabletop: warning: {message}", file=self.warn, flush=True)

"""The announcer: printing always, speaking when asked and possible, never failing a game."""

from __future__ import annotations

import io
import subprocess

import pytest

from rules.core import Event
from tabletop.announcer import Announcer, EspeakSpeaker, find_speaker


class FakeSpeaker:
    def __init__(self, fail_after: int | None = None) -> None:
        self.said: list[str] = []
        self.fail_after = fail_after

    def say(self, text: str) -> None:
        if self.fail_after is not None and len(self.said) >= self.fail_after:
            raise subprocess.CalledProcessError(1, ["espeak-ng"])
        self.said.append(text)


EVENTS = [Event.of("move", "B2 moves to 0508."), Event.of("turn", "Turn 3: CHEZ to move.")]


def test_prints_each_event_with_its_label():
    out = io.StringIO()
    Announcer(out).announce(EVENTS, label="17")
    assert out.getvalue() == " 17  B2 moves to 0508.\n 17  Turn 3: CHEZ to move.\n"


def test_prints_without_label():
    out = io.StringIO()
    Announcer(out).say("Game over.")
    assert out.getvalue() == "Game over.\n"


def test_silent_by_default_even_with_a_speaker():
    speaker = FakeSpeaker()
    announcer = Announcer(io.StringIO(), speaker=speaker)
    announcer.announce(EVENTS)
    assert speaker.said == [] and not announcer.speaking


def test_speaks_every_sentence_when_asked():
    speaker = FakeSpeaker()
    out, warn = io.StringIO(), io.StringIO()
    announcer = Announcer(out, speak=True, speaker=speaker, warn=warn)
    announcer.announce(EVENTS, label="3")
    assert speaker.said == ["B2 moves to 0508.", "Turn 3: CHEZ to move."]
    assert warn.getvalue() == ""


def test_a_failing_speaker_warns_once_and_printing_goes_on():
    speaker = FakeSpeaker(fail_after=1)
    out, warn = io.StringIO(), io.StringIO()
    announcer = Announcer(out, speak=True, speaker=speaker, warn=warn)
    announcer.announce(EVENTS * 3)
    assert len(out.getvalue().splitlines()) == 6
    assert speaker.said == ["B2 moves to 0508."]
    assert warn.getvalue().count("\n") == 1
    assert warn.getvalue().startswith("tabletop: warning: speech stopped working")
    assert not announcer.speaking


def test_no_speech_program_warns_once(monkeypatch):
    monkeypatch.setattr("tabletop.announcer.shutil.which", lambda name: None)
    warn = io.StringIO()
    announcer = Announcer(io.StringIO(), speak=True, warn=warn)
    announcer.announce(EVENTS)
    assert not announcer.speaking
    assert warn.getvalue().splitlines() == [
        ("tabletop: warning: no speech program found "
        "(install espeak-ng to hear the announcements); printing them only")
    ]


@pytest.mark.parametrize(
    ("installed", "expected"),
    [({"espeak-ng", "espeak"}, "/bin/espeak-ng"), ({"espeak"}, "/bin/espeak"), (set(), None)],
)
def test_find_speaker_prefers_espeak_ng(installed, expected):
    speaker = find_speaker(lambda name: f"/bin/{name}" if name in installed else None)
    assert (speaker.program if speaker else None) == expected


def test_espeak_speaker_passes_the_text_on_standard_input(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda argv, **kw: calls.append((argv, kw)))
    EspeakSpeaker("/bin/espeak-ng").say("-- BORG wins!")
    argv, kw = calls[0]
    assert argv == ["/bin/espeak-ng", "--stdin"]
    assert kw["input"] == "-- BORG wins!" and kw["check"] is True and kw["timeout"] > 0


def test_a_missing_program_is_survivable():
    announcer = Announcer(
        io.StringIO(), speak=True, speaker=EspeakSpeaker("/no/such/espeak"), warn=io.StringIO()
    )
    announcer.say("still printed")
    assert not announcer.speaking
    assert announcer.out.getvalue() == "still printed\n"

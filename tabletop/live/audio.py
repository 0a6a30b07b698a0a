"""Sound out: a tone for legal, another for illegal, and speech; queued, never overlapping.

Sinks (``--audio``): ``auto`` (sounddevice when it imports and a device plays; espeak-ng
speaks when installed; otherwise tones and printed text), ``none`` (printed text only),
``wav:FILE`` (everything said or played written to a WAV file with :mod:`wave`, rewritten
after each announcement so it is whole even if the program dies). A machine without any
sound device works: the first failure gives one warning and the sink falls back to text.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tabletop.errors import InputError

__all__ = ["RATE", "Audio", "make_audio", "speech_samples", "tone"]

RATE = 22050
TONES = {"legal": (660.0, 0.18), "illegal": (220.0, 0.45), "info": (440.0, 0.1)}


def tone(kind: str, rate: int = RATE) -> np.ndarray:
    """A short sine tone (float32 in [-1, 1]) with soft edges: high and short for legal, low and
    long for illegal."""
    freq, dur = TONES.get(kind, TONES["info"])
    t = np.arange(int(rate * dur)) / rate
    env = np.minimum(1.0, np.minimum(t, dur - t) / 0.01)
    return (0.4 * np.sin(2 * np.pi * freq * t) * env).astype(np.float32)


def speech_samples(text: str, rate: int = RATE, program: str | None = None) -> np.ndarray | None:
    """``text`` spoken by espeak-ng (or espeak) as samples at ``rate``; ``None`` without it."""
    program = program or shutil.which("espeak-ng") or shutil.which("espeak")
    if not program:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "say.wav"
        try:
            subprocess.run([program, "-w", str(out), text], check=True, capture_output=True, timeout=30)
            with wave.open(str(out)) as w:
                data = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
                src = w.getframerate()
        except (OSError, subprocess.SubprocessError, wave.Error, EOFError):
            return None
    if src != rate and len(data):
        x = np.linspace(0, len(data) - 1, int(len(data) * rate / src))
        data = np.interp(x, np.arange(len(data)), data).astype(np.float32)
    return data


class Audio:
    """Announcements go through :meth:`announce` (kind ``legal``, ``illegal`` or ``info``);
    a worker thread plays them one after another. ``mode``: ``auto``, ``none`` or
    ``wav:FILE``."""

    def __init__(self, mode: str = "auto", *, out: Callable[[str], None] | None = None,
                 speak: bool = True) -> None:
        self.mode = mode
        self.muted = False
        self.out = out or (lambda s: print(s, flush=True))
        self.speak = speak
        self.warned = False
        self._wav: Path | None = Path(mode[4:]) if mode.startswith("wav:") else None
        self._samples: list[np.ndarray] = []
        self._sd = None
        if mode == "auto":
            try:
                import sounddevice  # type: ignore[import-not-found]

                sounddevice.query_devices(kind="output")
                self._sd = sounddevice
            except Exception as err:  # no module, no PortAudio, no device  # noqa: BLE001 - any failure means: no sound
                self._warn(f"no sound device ({type(err).__name__}: {err}); announcements are printed")
        elif mode != "none" and self._wav is None:
            raise ValueError(f"unknown audio mode {mode!r} (auto, none or wav:FILE)")
        if self._wav is not None:
            try:
                self._write_wav()
            except OSError as err:
                raise InputError("--audio", f"cannot write {self._wav}: {err.strerror or err}") from None
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="tabletop-audio", daemon=True)
        self._thread.start()

    def _warn(self, message: str) -> None:
        if not self.warned:
            self.warned = True
            print(f"tabletop: warning: {message}", file=sys.stderr, flush=True)

    def toggle_mute(self) -> bool:
        self.muted = not self.muted
        return self.muted

    def announce(self, text: str, kind: str = "info") -> None:
        """Print at once; queue the sound (never two at the same time)."""
        self.out(("ILLEGAL: " if kind == "illegal" and not text.lower().startswith("illegal") else "") + text)
        if not self.muted and self.mode != "none":
            self._queue.put((text, kind))

    def wait(self, timeout: float = 60.0) -> None:
        """Until everything queued has been played (or written)."""
        done = threading.Event()
        self._queue.put(("", "__flush__"))
        self._flushed = done
        done.wait(timeout)

    def close(self) -> None:
        self.wait()
        self._queue.put(None)
        self._thread.join(timeout=5)

    @property
    def duration_s(self) -> float:
        return sum(len(s) for s in self._samples) / RATE

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            text, kind = item
            if kind == "__flush__":
                self._flushed.set()
                continue
            try:
                self._play(text, kind)
            except Exception as err:  # a device that fails mid-game: fall back to text  # noqa: BLE001 - a device failing mid-game
                self._sd = None
                self._warn(f"sound failed ({err}); announcements are printed")

    def _play(self, text: str, kind: str) -> None:
        parts = [tone(kind), np.zeros(int(0.08 * RATE), np.float32)]
        speech = speech_samples(text) if self.speak else None
        if speech is not None:
            parts.append(speech)
        parts.append(np.zeros(int(0.2 * RATE), np.float32))
        samples = np.concatenate(parts)
        if self._wav is not None:
            self._samples.append(samples)
            self._write_wav()
        elif self._sd is not None:
            self._sd.play(samples, RATE)
            self._sd.wait()

    def _write_wav(self) -> None:
        assert self._wav is not None
        data = np.concatenate(self._samples) if self._samples else np.zeros(0, np.float32)
        pcm = (np.clip(data, -1, 1) * 32767).astype("<i2").tobytes()
        tmp = self._wav.with_name(self._wav.name + ".part")
        with open(tmp, "wb") as f, wave.open(f, "wb") as w:  # opened first: a failed open leaves no half-made writer
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(pcm)
        os.replace(tmp, self._wav)


def make_audio(mode: str, **kwargs: object) -> Audio:
    return Audio(mode, **kwargs)  # type: ignore[arg-type]

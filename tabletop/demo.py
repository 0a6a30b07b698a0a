"""``tabletop demo``: every game's bundled sample turn through the live referee.

For each game the pictures of its sample turn (``sample_images/<game>-turn.json``: the start
position, the options, the rolls, the frames) go through the same pipeline as ``tabletop
play``: the board pose from the kit's markers (The Game's sample field shows one marker of four: its pose
comes from the samples' own calibration, as ``tabletop calibrate board --game the-game --corners`` gives
it), the game's shipped detector, the move reading, the verdict. The demo prints what the
referee announces next to what the turn's ground truth says it should, and writes per game
the annotated frames, an MP4 and a WAV of what was said. It needs no camera, display or
sound device. Games whose detector is not shipped are skipped with a line saying so.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

__all__ = ["DEMO_GAMES", "Expected", "GameRun", "expected_announcements", "judge", "play_samples",
           "run_game", "run_sample_demo"]

DEMO_GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
FPS = 10.0  # each picture stands for 0.5 s of a still table: 5 frames at 10 fps
HOLD = 5


@dataclass(frozen=True)
class Expected:
    """One announcement the sample turn's ground truth asks for."""

    kind: str  # legal or illegal
    text: str  # as announced ("Illegal: " before the reason of an illegal move)
    action: Mapping[str, Any]
    code: str  # the engine's verdict code


@dataclass
class Check:
    expected: Expected
    status: str  # "same words", "same move" (other measured numbers) or "missed"
    heard: str = ""

    @property
    def matched(self) -> bool:
        return self.status != "missed"


@dataclass
class GameRun:
    game: str
    title: str = ""
    skipped: str = ""
    checks: list[Check] = field(default_factory=list)
    announced: list[tuple[str, str]] = field(default_factory=list)
    frames: int = 0
    seconds: float = 0.0
    files: list[Path] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return sum(c.matched for c in self.checks)

    @property
    def extra(self) -> list[tuple[str, str]]:
        """Announcements (legal or illegal) that answer none of the expected ones."""
        heard = {c.heard for c in self.checks if c.matched}
        return [(k, t) for k, t in self.announced if k in ("legal", "illegal") and t not in heard]


def expected_announcements(manifest: Mapping[str, Any]) -> list[Expected]:
    """The announcements of a sample turn, in order: the rolls read off the table, then each
    move (legal: the engine's event sentences; illegal: "Illegal: " and the reason)."""
    out = []
    for mv in manifest["moves"]:
        for chance in mv.get("before", []):
            out.append(Expected("legal", chance["announcement"], chance["action"], chance["verdict"]["code"]))
        text = mv["announcement"] if mv["expect"] == "legal" else f"Illegal: {mv['announcement']}"
        out.append(Expected(mv["expect"], text, mv["action"], mv["verdict"]["code"]))
    return out


def _same_action(a: Mapping[str, Any] | None, b: Mapping[str, Any], tol: float = 0.25) -> bool:
    """The same action; points on The Game's field within ``tol`` inches (its tolerance),
    facings within 10 degrees, for a move measured from the picture."""
    if a is None or a.keys() != b.keys():
        return False
    for k, v in b.items():
        w = a[k]
        if isinstance(v, Mapping) and isinstance(w, Mapping) and {"x", "y"} <= v.keys():
            if math.dist((w["x"], w["y"]), (v["x"], v["y"])) > tol:
                return False
        elif k == "facing" and isinstance(v, (int, float)) and isinstance(w, (int, float)):
            if abs((w - v + 180.0) % 360.0 - 180.0) > 10.0:
                return False
        elif w != v:
            return False
    return True


def judge(expected: Sequence[Expected], announced: Sequence[tuple[str, str]],
          readings: Sequence[Any]) -> list[Check]:
    """Each expected announcement: heard in the same words (a detector doubt may follow in
    brackets), or the same move read with other measured numbers (The Game's distances from
    boxes), or missed. Announcements are matched in order, each at most once."""
    checks, pos = [], 0
    for e in expected:
        found = None
        for i in range(pos, len(announced)):
            kind, text = announced[i]
            if kind == e.kind and (text == e.text or text.startswith(e.text + " (")):
                found = i
                break
        if found is not None:
            checks.append(Check(e, "same words", announced[found][1]))
            pos = found + 1
            continue
        read = next((r for r in readings if r.kind in ("legal", "illegal", "roll")
                     and (r.kind == "illegal") == (e.kind == "illegal")
                     and r.verdict is not None and r.verdict.code == e.code
                     and _same_action(r.action_json, e.action)), None)
        heard = ""
        if read is not None:
            want = "illegal" if e.kind == "illegal" else "legal"
            heard = next((t for k, t in announced[pos:] if k == want), "")
        checks.append(Check(e, "same move" if read is not None and heard else "missed", heard))
    return checks


def field_pose(manifest: Mapping[str, Any], folder: Path) -> Any:
    """The pose of a sample turn's board from its first frame's calibration (The Game's
    sample field has no markers)."""
    import numpy as np

    from calibration.pose import BoardPose

    board = json.loads((folder / manifest["frames"][0]["truth"]).read_text(encoding="utf-8"))["board"]
    return BoardPose.from_homography(np.linalg.inv(np.array(board["board_to_image"], float)), "inch",
                                     tuple(board["size"]))


def _pictures(manifest: Mapping[str, Any], folder: Path) -> Any:
    import cv2

    t = 0.0
    for f in manifest["frames"]:
        frame = cv2.imread(str(folder / f["image"]))
        for _ in range(HOLD):
            yield frame, t
            t += 1.0 / FPS


def run_game(game: str, out_dir: Path, say: Callable[[str], None] = print) -> GameRun:
    """Play ``game``'s sample turn with its shipped detector; write ``out_dir/<game>/``
    (annotated frames), ``out_dir/<game>.mp4`` and ``out_dir/<game>.wav``."""
    import models
    import sample_images
    from calibration.tracker import PoseTracker
    from rules.registry import get_game
    from tabletop.live.audio import Audio
    from tabletop.live.pipeline import Rolls
    from tabletop.live.play import _marker_spec, build_pipeline, dice_finder_for
    from tabletop.live.session import FrameSink, run_frames
    from vision.detect import Detector

    run = GameRun(game)
    manifest = json.loads(sample_images.sequence(game).read_text(encoding="utf-8"))
    folder = sample_images.folder()
    engine = get_game(game, manifest["options"])
    run.title = engine.title
    try:
        weights = models.weights_path(game)
    except models.ModelNotFoundError:
        run.skipped = f"no detector shipped (models/{game}.pt)"
        return run
    started = time.monotonic()
    detector = Detector.load(weights)
    state = engine.state_from_json(manifest["start"])
    pose = field_pose(manifest, folder) if game == "the-game" else None
    tracker = None if pose is not None else PoseTracker(_marker_spec(game, manifest["options"]))
    wav = out_dir / f"{game}.wav"
    audio = Audio(f"wav:{wav}", out=lambda text: say(f"  heard     {text}"))
    rolls = Rolls([r for mv in manifest["moves"] for r in mv["rolls"]])
    pipe = build_pipeline(engine, state, detector, pose=pose, tracker=tracker, audio=audio, rolls=rolls,
                          say=lambda text: say(f"    ({text})"), dice=dice_finder_for(detector))  # as tabletop play
    sink = FrameSink(out_dir / game, out_dir / f"{game}.mp4", FPS)
    try:
        run.frames = run_frames(_pictures(manifest, folder), pipe, sink=sink)
    finally:
        sink.close()
        audio.close()
    run.seconds = time.monotonic() - started
    run.announced = list(pipe.announced)
    run.checks = judge(expected_announcements(manifest), pipe.announced, pipe.readings)
    run.files = [out_dir / game, out_dir / f"{game}.mp4", wav]
    return run


SUMMARY_STATUS = {"same words": "as expected", "same move": "same move, measured numbers differ",
                  "missed": "MISSED"}


def _status(c: Check) -> str:
    if c.status == "same words" and c.heard != c.expected.text:
        return "as expected, with a detector doubt noted"
    return SUMMARY_STATUS[c.status]


def run_sample_demo(games: Sequence[str], out_dir: str | Path, out: TextIO) -> int:
    """The demo over ``games``; prints to ``out``; returns the exit status (0: it ran, whatever
    the detectors read)."""
    play_samples(games, out_dir, lambda text: print(text, file=out, flush=True))
    return 0


def play_samples(games: Sequence[str], out_dir: str | Path, say: Callable[[str], None]) -> list[GameRun]:
    """Every game's sample turn, told through ``say``, with a summary at the end."""
    from tabletop.live.audio import speech_samples

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    say("Welcome to tabletop, a referee for games played on a real table.\n")
    say("For each game, the pictures of a bundled sample turn (a hand makes a legal move, then an\n"
        "illegal one) go through the live referee: the board found from its markers, the pieces\n"
        "read by the game's shipped detector (small models, often wrong), the move read through\n"
        "the rules engine and announced. Next to what is heard: what the turn should sound like.")
    if speech_samples("ok") is None:
        say("(No espeak-ng: the WAV files hold the tones, not the spoken sentences.)")
    runs: list[GameRun] = []
    for game in games:
        say("")
        runs.append(run := _announce_game(game, out_dir, say))
    say("\nSummary: what the referee said, against the sample turns' ground truth")
    width = max(len(g) for g in games)
    for run in runs:
        if run.skipped:
            say(f"  {run.game:<{width}}  skipped: {run.skipped}")
            continue
        line = f"  {run.game:<{width}}  {run.matched} of {len(run.checks)} announcements as expected"
        missed = [c.expected.text for c in run.checks if not c.matched]
        if missed:
            line += "; missed: " + " | ".join(missed)
        if run.extra:
            line += f"; {len(run.extra)} other announcement(s)"
        say(line)
    say(f"\nAnnotated frames, an MP4 and a WAV per game are in {out_dir}/.")
    say("Next: 'tabletop play GAME --camera 0' referees a real board; 'tabletop demo --record' replays "
        "a whole recorded game; 'tabletop --help' lists everything (and docs/cli.md).")
    return runs


def _announce_game(game: str, out_dir: Path, say: Callable[[str], None]) -> GameRun:
    import sample_images

    manifest = json.loads(sample_images.sequence(game).read_text(encoding="utf-8"))
    say(f"== {manifest.get('title', game)} ({game}): {len(manifest['frames'])} pictures")
    say(f"  {manifest.get('description', '')}")
    run = run_game(game, out_dir, say)
    if run.skipped:
        say(f"  skipped: {run.skipped}")
        return run
    for c in run.checks:
        say(f"  expected  {c.expected.text}  -> {_status(c)}")
    say(f"  {run.frames} frames in {run.seconds:.1f} s; wrote " + ", ".join(str(p) for p in run.files))
    return run

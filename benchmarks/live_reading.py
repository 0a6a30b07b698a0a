"""Benchmark: the live referee with the real shipped detectors on the bundled sample turns.

For every game whose detector is in ``models/`` (or the games named on the command line),
runs ``tabletop play GAME --images sample_images --glob 'GAME-turn-*.jpg'`` exactly as a user
would (real marker pose tracking; The Game, whose sample field has no markers, with a pose
file from the sample's ground truth), with the manifest's starting position, options and
rolls, and compares what the referee said with the manifest: each expected announcement
(the legal move's events, the illegal move's reason, a roll read off the table) found in
order, and every other sentence said (a wrong move, an impossible position, an unreadable
move). Results in docs/benchmarks.md.

Run from the repository root: ``nice -n 10 python3 benchmarks/live_reading.py [GAME ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np

import sample_images
from tabletop.cli import main

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
#: Lines of ``tabletop play`` that are progress, not announcements.
LOG_PREFIXES = ("board found", "board moved", "markers", "frame ", "no display", "resumed", "annotated frames")


def expected(manifest: dict) -> list[str]:
    """What the referee should say, in order: rolls read off the table, then each move."""
    out: list[str] = []
    for mv in manifest["moves"]:
        out += [b["announcement"] for b in mv["before"]]
        out.append(mv["announcement"] if mv["expect"] == "legal" else "Illegal: " + mv["verdict"]["message"])
    return out


def play(game: str, folder: Path) -> tuple[list[str], float]:
    m = json.loads(sample_images.sequence(game).read_text())
    start = folder / "start.json"
    start.write_text(json.dumps(m["start"]))
    argv = ["play", game, "--images", str(sample_images.folder()), "--glob", f"{game}-turn-*.jpg",
            "--position", str(start), "--options", json.dumps(m["options"]), "--no-window",
            "--out", str(folder / "frames"), "--audio", "none"]
    rolls = [r for mv in m["moves"] for r in mv["rolls"]]
    if rolls:
        argv += ["--rolls", ",".join(map(str, rolls))]
    if game == "the-game":  # the sample field has no markers: its pose, as `calibrate field` writes it
        from calibration.pose import BoardPose

        board = json.loads((sample_images.folder() / "the-game-turn-00.json").read_text())["board"]
        pose = BoardPose.from_homography(np.linalg.inv(np.array(board["board_to_image"])), "inch",
                                         tuple(board["size"]))
        (folder / "pose.json").write_text(json.dumps(pose.to_json()))
        argv += ["--pose", str(folder / "pose.json")]
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    took = time.perf_counter() - t0
    if code != 0:
        raise SystemExit(f"{game}: tabletop play exited {code}: {out.getvalue().strip()[-300:]}")
    said = [line for line in out.getvalue().splitlines()
            if line and not line.startswith(LOG_PREFIXES) and " frames, " not in line]
    return said, took


def compare(want: list[str], said: list[str], game: str) -> tuple[int, list[str]]:
    """(expected sentences found in order, the other sentences). The Game's distances are
    measured from boxes, so its sentences are matched up to the first number."""
    def same(a: str, b: str) -> bool:
        if game == "the-game":
            return a.split(" moves ")[0].split(" may ")[0] == b.split(" moves ")[0].split(" may ")[0]
        return a == b

    found, k, other = 0, 0, []
    for line in said:
        if k < len(want) and same(line, want[k]):
            found, k = found + 1, k + 1
        else:
            other.append(line)
    return found, other


def main_(games: list[str]) -> None:
    for game in games:
        if not (ROOT / "models" / f"{game}.pt").exists():
            print(f"{game}: no shipped detector (models/{game}.pt), skipped")
            continue
        m = json.loads(sample_images.sequence(game).read_text())
        want = expected(m)
        with tempfile.TemporaryDirectory() as tmp:
            said, took = play(game, Path(tmp))
        found, other = compare(want, said, game)
        verdict = "as the manifest" if found == len(want) and not other else "differs"
        print(f"{game}: {found}/{len(want)} expected announcements, {len(other)} other; {verdict} "
              f"({len(m['frames'])} frames x 5 in {took:.1f} s)")
        for line in want:
            print(f"   want: {line}")
        for line in said:
            print(f"   said: {line}")


def parse_games(argv: list[str], doc: str | None = __doc__) -> list[str]:
    """The games named on the command line (every game when none is named); ``doc``: the
    script's docstring, whose first paragraph its ``--help`` shows."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("games", nargs="*", metavar="GAME",
                        help=f"the games to run: {', '.join(GAMES)} (default: every game)")
    games = parser.parse_args(argv).games
    for game in games:
        if game not in GAMES:
            parser.error(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    return games or list(GAMES)


if __name__ == "__main__":
    main_(parse_games(sys.argv[1:]))

"""The live referee over rendered turns: illegal moves flagged, false alarms, latency, frames a second.

    nice -n 10 python3 benchmarks/live_referee.py [--game GAME ...] [--turns 200] [--seed 7001]
                                                  [--truth-only] [--drop-stale] [--size WxH] [--json FILE]

For each game, ``--turns`` turns (:mod:`benchmarks.turns`: a position of a seeded random
playout, about half legal moves and half illegal ones, drawn at 640x480 (``--size``: a camera
with more pixels) in a fresh camera view per turn, on a 15 fps stream clock) are fed to a fresh :class:`LivePipeline` each,
twice:

* **truth**: a detector double that returns the renderer's labels (every piece and hand the
  ground truth labels) and the true board geometry: the referee's logic alone;
* **real**: the game's shipped detector (``Detector.load(GAME)``, prepared at every read
  size as ``tabletop play`` prepares it for a camera; skipped when ``models/GAME.pt`` is missing) on the pixels, each frame with fresh sensor noise, and the
  board pose from the kit's markers (``PoseTracker``, as ``tabletop play`` does; The Game,
  whose field the renderer draws without markers, gets the true pose, as ``--pose`` would).

Counted per turn, from the announcements: an illegal move is *flagged* when an illegal
announcement ("Illegal: ..." or "Impossible position: ...") comes after the hand has left;
*read right* when the reading is the move played, as a camera can tell it (the same
destination, and the same piece or a twin: one of the same class from the same cell); a
*false alarm* is an illegal announcement in a legal turn; an
announcement made on a frame where the ground truth has a hand over the board is counted
apart (the target is none). Latency: stream time from the first frame without a hand to the
frame that announces, plus that frame's measured ``process()`` time; *queued*: the same on a
real-time clock, where a frame is read once it came and the frame before it is done, so that
slow frames delay the ones behind them. With ``--drop-stale`` the stream is read as ``tabletop
play`` reads a camera or URL (:class:`tabletop.live.inputs.Capture` with ``newest``): after each
frame, the newest frame come by then is next and the ones before it are never read; the queued
latency is then the one a player hears. Frames a second: frames read over the summed wall time
of ``process()`` (pose, detection, mapping, stability, reading).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from turns import NOISE, Turn, TurnRenderer, make_turn, same_on_table

from tabletop.argtypes import frame_size
from vision.detect import BACKENDS

GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds", "the-game")
TARGETS = {"fps": 15.0, "latency_s": 0.5, "flagged": 0.99, "false_alarms_per_200": 1.0}


@dataclass
class TurnResult:
    game: str
    mode: str
    index: int
    legal: bool
    action: dict[str, Any]
    flagged: bool = False  # an illegal announcement after the hand left
    read_right: bool = False
    legal_announced: bool = False
    false_alarm: bool = False
    under_hand: int = 0  # announcements on frames with a hand over the board (truth)
    early: int = 0  # announcements before the hand came
    latency_s: float | None = None
    latency_queued_s: float | None = None  # the same on a real-time clock: a frame waits for the ones before
    dropped: int = 0  # frames skipped as stale (drop_stale)
    frames: int = 0
    wall_s: float = 0.0
    read_frames: int = 0  # frames whose pose and pieces were read (not kept from a still frame)
    read_wall_s: float = 0.0
    skipped: int = 0  # frames with no board pose (or unreadable)
    settled_before: bool = False  # the position before the move accepted before the hand came
    accepted_after: int = 0  # positions accepted after the hand left
    said: list[tuple[str, str]] = field(default_factory=list)


# -- the two detectors -------------------------------------------------------------------------------

def truth_detections(truth: dict[str, Any]) -> Any:
    """Every labelled piece and every hand of the ground truth, as a perfect detector would
    give them."""
    from vision.detections import Detections, facing_from_keypoints

    boxes, names, facing, kps = [], [], [], []
    for p in truth["pieces"]:
        if p.get("in_labels"):
            kp = p.get("keypoint")
            boxes.append(p["box"])
            names.append(p["class"])
            kps.append([[0.0, 0.0, 0.0]] if kp is None else [kp])
            facing.append(np.nan if kp is None else facing_from_keypoints(
                np.array([p["box"]], float), np.array([[kp]], float))[0])
    for h in truth.get("hands", []):
        boxes.append(h["box"])
        names.append("hand")
        facing.append(np.nan)
        kps.append([[0.0, 0.0, 0.0]])
    if not boxes:
        return Detections.empty()
    n = len(boxes)
    return Detections(np.array(boxes, float).reshape(-1, 4), np.full(n, 0.9), np.zeros(n, int),
                      np.array(facing, float), np.array(kps, float), class_name=np.array(names, dtype=object))


def truth_view(truth: dict[str, Any]) -> Any:
    from tabletop.live.pipeline import FrameView
    from vision.detect_cells import FrameGeometry

    if truth.get("board") is None:
        return None
    return FrameView(FrameGeometry.from_truth(truth), np.array(truth["board"]["corners_in_image"], float), "truth")


def marker_locate(turn: Turn) -> Any:
    """The board pose from the kit's markers, tracked frame to frame (The Game: the truth)."""
    from calibration.tracker import PoseTracker
    from tabletop.live.board import PoseGeometry
    from tabletop.live.pipeline import FrameView
    from tabletop.live.play import _marker_spec

    spec = _marker_spec(turn.game_name, turn.game.options_to_json())
    if turn.game_name == "the-game":
        fixed = truth_view(turn.truths[0])
        fixed = replace(fixed, markers=spec.in_image(fixed.geometry.board_to_image))
        return lambda frame: fixed
    tracker = PoseTracker(spec)

    def locate(frame: Any) -> Any:
        pose = tracker.update(frame).pose
        if pose is None:
            return None
        return FrameView(PoseGeometry(pose), pose.board_corners_in_image(), "markers", spec.in_image(pose.to_image))

    return locate


# -- one turn ------------------------------------------------------------------------------------------

def run_turn(turn: Turn, mode: str, detector: Any = None, noise_seed: int = 0, noise: int = NOISE,
             every_frame: bool = False, drop_stale: bool = False, finder: Any = None) -> TurnResult:
    """Feed one turn's stream to a fresh pipeline; ``mode`` ``truth`` or ``real`` (with
    ``detector``); ``noise``: sensor noise of each real frame (+-levels, 0: a still picture
    repeats exactly); ``every_frame``: read every frame in full, still or not; ``drop_stale``:
    once a frame is read, go on with the newest frame come by then on the real-time clock,
    skipping those that came while it was read (as ``tabletop play`` reads a camera)."""
    from tabletop.live.board import BoardMapper
    from tabletop.live.motion import StillFrames
    from tabletop.live.pipeline import LivePipeline, Rolls

    game, pos = turn.game, turn.game.state_to_json(turn.state)
    size = tuple(turn.truths[0]["board"]["size"]) if turn.truths[0].get("board") else None
    if mode == "truth":
        mapper = BoardMapper.for_game(turn.game_name, pos, game.options_to_json(), size)
        detect, locate = truth_detections, truth_view
    else:
        mapper = BoardMapper.for_game(turn.game_name, pos, game.options_to_json(), size, tuple(detector.names))
        detect, locate = detector.detect, marker_locate(turn)
        if finder is not None:  # the d6 finder's dice join the detector's, as tabletop play runs it
            from vision.dice_finder import with_dice

            detect = with_dice(detect, finder)
    pipe = LivePipeline(game, turn.state, detect, locate, mapper, rolls=Rolls(seed=turn.seed * 7919 + turn.index),
                        still=StillFrames(refresh_s=0.0) if every_frame else None)
    out = TurnResult(turn.game_name, mode, turn.index, turn.legal, turn.action)
    rng = np.random.default_rng([noise_seed, turn.index, 5]) if mode == "real" and noise > 0 else None
    first_hand = min(i for i, f in enumerate(turn.stream) if f.hand_over_board)
    first_free = turn.first_free
    busy_until = 0.0  # a real-time clock: each frame is processed once it came and the one before is done
    stream, k, hand_seen = turn.stream, 0, False
    while k < len(stream):
        f = stream[k]
        frame = turn.truths[f.picture] if mode == "truth" else turn.frame(k, rng, noise)
        t0 = time.perf_counter()
        result = pipe.process(frame, f.t)
        spent = time.perf_counter() - t0
        busy_until = max(busy_until, f.t) + spent
        this, k = k, k + 1
        if drop_stale:  # as Capture(newest=True): the newest frame come by now, the others never read
            while k + 1 < len(stream) and stream[k + 1].t <= busy_until + 1e-9:
                k += 1
                out.dropped += 1
        out.frames += 1
        out.wall_s += spent
        if result.fresh and result.status != "skipped":
            out.read_frames += 1
            out.read_wall_s += spent
        out.skipped += result.status == "skipped"
        if this >= first_hand and not hand_seen:
            hand_seen = True
            out.settled_before = pipe.base is not None
        if this >= first_hand and result.status == "accepted":
            out.accepted_after += 1
        if not result.announcements:
            continue
        out.said += result.announcements
        if f.hand_over_board:
            out.under_hand += len(result.announcements)
            continue
        if this < first_hand:
            out.early += len(result.announcements)
            continue
        kinds = {kind for kind, _ in result.announcements}
        reading = result.reading
        read = None
        if reading is not None and reading.kind in ("legal", "illegal"):
            read = reading.action_json
            if read is None and reading.action is not None and not isinstance(reading.action, dict):
                read = game.action_to_json(reading.action)
        if out.latency_s is None and kinds & {"legal", "illegal"}:
            out.latency_s = f.t - first_free + spent
            out.latency_queued_s = busy_until - first_free
        if "illegal" in kinds:
            if turn.legal:
                out.false_alarm = True
            else:
                out.flagged = True
                out.read_right = out.read_right or (reading is not None and reading.kind == "illegal"
                                                    and same_on_table(turn.looks, turn.action, read))
        if "legal" in kinds:
            out.legal_announced = True
            if turn.legal:
                out.read_right = out.read_right or (reading is not None and reading.kind == "legal"
                                                    and same_on_table(turn.looks, turn.action, read))
    return out


# -- figures ---------------------------------------------------------------------------------------------

def summarize(results: list[TurnResult]) -> dict[str, Any]:
    legal = [r for r in results if r.legal]
    illegal = [r for r in results if not r.legal]
    lat = sorted(r.latency_s for r in results if r.latency_s is not None)
    queued = sorted(r.latency_queued_s for r in results if r.latency_queued_s is not None)
    frames = sum(r.frames for r in results)
    wall = sum(r.wall_s for r in results)
    read, read_wall = sum(r.read_frames for r in results), sum(r.read_wall_s for r in results)
    alarms = sum(r.false_alarm for r in legal)
    return {
        "turns": len(results),
        "legal_turns": len(legal),
        "illegal_turns": len(illegal),
        "illegal_flagged": sum(r.flagged for r in illegal),
        "illegal_flagged_share": sum(r.flagged for r in illegal) / len(illegal) if illegal else None,
        "illegal_read_right": sum(r.read_right for r in illegal),
        "legal_read_right": sum(r.read_right for r in legal),
        "legal_announced": sum(r.legal_announced for r in legal),
        "false_alarms": alarms,
        "false_alarms_per_200_legal": 200.0 * alarms / len(legal) if legal else None,
        "announced_under_hand": sum(r.under_hand for r in results),
        "announced_before_move": sum(r.early for r in results),
        "latency_median_s": statistics.median(lat) if lat else None,
        "latency_p95_s": lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None,
        "latency_max_s": lat[-1] if lat else None,
        "latency_within_target": sum(v <= TARGETS["latency_s"] for v in lat),
        "latency_queued_median_s": statistics.median(queued) if queued else None,
        "latency_queued_p95_s": queued[min(len(queued) - 1, int(0.95 * len(queued)))] if queued else None,
        "answered": len(lat),
        "frames": frames,
        "frames_dropped": sum(r.dropped for r in results),
        "frames_without_pose": sum(r.skipped for r in results),
        "turns_without_pose": sum(r.skipped == r.frames for r in results),
        "settled_before": sum(r.settled_before for r in results),
        "accepted_after": sum(r.accepted_after > 0 for r in results),
        "fps": frames / wall if wall > 0 else None,
        "ms_per_frame": 1000.0 * wall / frames if frames else None,
        "frames_read": read,
        "ms_per_read_frame": 1000.0 * read_wall / read if read else None,
    }


def _fmt(v: Any, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def line(game: str, mode: str, s: dict[str, Any]) -> str:
    share = s["illegal_flagged_share"]
    return (f"{game:17s} {mode:5s} turns {s['turns']:4d}  flagged {s['illegal_flagged']}/{s['illegal_turns']}"
            f" ({_fmt(share and 100 * share, '.1f')}%) read right {s['illegal_read_right']}  "
            f"legal read right {s['legal_read_right']}/{s['legal_turns']}  false alarms {s['false_alarms']}"
            f" ({_fmt(s['false_alarms_per_200_legal'], '.1f')}/200)  under hand {s['announced_under_hand']}"
            f"  before move {s['announced_before_move']}  latency median {_fmt(s['latency_median_s'])} s"
            f" p95 {_fmt(s['latency_p95_s'])} s max {_fmt(s['latency_max_s'])} s (queued: median "
            f"{_fmt(s['latency_queued_median_s'])} s p95 {_fmt(s['latency_queued_p95_s'])} s)"
            f"  settled before {s['settled_before']} after {s['accepted_after']}  no pose {s['turns_without_pose']}"
            f"  {_fmt(s['fps'], '.1f')} fps ({_fmt(s['ms_per_frame'], '.1f')} ms/frame; {s['frames_read']} of "
            f"{s['frames']} frames read in full, {_fmt(s['ms_per_read_frame'], '.1f')} ms each"
            + (f"; {s['frames_dropped']} stale frames skipped)" if s.get("frames_dropped") else ")"))


def markdown(games: dict[str, Any]) -> list[str]:
    """The figures as rows of the table in docs/benchmarks.md."""
    rows = [("| game | detector | illegal flagged | read right (illegal / legal) | false alarms (per 200 legal) "
            "| said under a hand | latency median / p95 / max | queued: median / p95 | no pose (turns) | frames/s (ms/frame) "
            "| frames read in full (ms each) |"),
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for game, modes in games.items():
        for mode, data in modes.items():
            s = data["summary"]
            share = s["illegal_flagged_share"]
            rows.append(
                f"| {game} | {mode} | {s['illegal_flagged']}/{s['illegal_turns']} ({_fmt(share and 100 * share, '.1f')} %)"
                f" | {s['illegal_read_right']}/{s['illegal_turns']} / {s['legal_read_right']}/{s['legal_turns']}"
                f" | {s['false_alarms']} ({_fmt(s['false_alarms_per_200_legal'], '.1f')})"
                f" | {s['announced_under_hand']} | {_fmt(s['latency_median_s'])} / {_fmt(s['latency_p95_s'])} / "
                f"{_fmt(s['latency_max_s'])} s | {_fmt(s['latency_queued_median_s'])} / "
                f"{_fmt(s['latency_queued_p95_s'])} s | {s['turns_without_pose']} | {_fmt(s['fps'], '.1f')} "
                f"({_fmt(s['ms_per_frame'], '.1f')}) | {100 * s['frames_read'] / max(1, s['frames']):.0f} % "
                f"({_fmt(s['ms_per_read_frame'], '.1f')}) |")
    return rows


def _cpu() -> tuple[int, int] | None:
    """(all, stolen) CPU time in ticks since boot, from /proc/stat (Linux; ``None`` elsewhere):
    on a virtual machine the host may take cores away, and every timing here slows with it."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(fields[:8]), fields[7] if len(fields) > 7 else 0


def steal_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of CPU time the host took between two :func:`_cpu` readings."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def run_game(game: str, turns: int, seed: int, truth_only: bool, noise: int = NOISE, say: Any = print,
             imgsz: int | None = None, every_frame: bool = False, backend: str = "auto",
             drop_stale: bool = False, size: tuple[int, int] = (640, 480), dice_finder: bool = True) -> dict[str, Any]:
    modes = ["truth"]
    detector = finder = None
    if not truth_only:
        if (ROOT / "models" / f"{game}.pt").exists():
            from vision.detect import Detector

            detector = Detector.load(game, backend, **({"imgsz": imgsz} if imgsz else {}))
            t0 = time.perf_counter()
            sizes = detector.prepare()  # as tabletop play does for a camera: no size made mid-turn
            if sizes:
                say(f"{game}: detector prepared at {len(sizes)} sizes in {time.perf_counter() - t0:.1f} s")
            modes.append("real")
            if dice_finder:
                from tabletop.live.play import dice_finder_for

                finder = dice_finder_for(detector)
                if finder is not None:
                    say(f"{game}: the d6 finder's dice join the detector's")
        else:
            say(f"{game}: no models/{game}.pt, the truth double only")
    renderer = TurnRenderer(game, size)
    results: dict[str, list[TurnResult]] = {m: [] for m in modes}
    half = [k < turns // 2 for k in range(turns)]  # as many illegal turns as legal ones (+-1)
    np.random.default_rng([seed, 31]).shuffle(half)
    started, render_s, cpu0 = time.perf_counter(), 0.0, _cpu()
    for i in range(turns):
        legal = not half[i]
        t0 = time.perf_counter()
        turn = make_turn(game, seed, i, legal, renderer)
        render_s += time.perf_counter() - t0
        for m in modes:
            results[m].append(run_turn(turn, m, detector, seed, noise, every_frame, drop_stale, finder))
        if (i + 1) % 10 == 0 or i + 1 == turns:
            done = ", ".join(f"{m}: {sum(r.flagged for r in rs)}/{sum(not r.legal for r in rs)} flagged, "
                             f"{sum(r.false_alarm for r in rs)} false alarms" for m, rs in results.items())
            say(f"{game}: {i + 1}/{turns} turns ({time.perf_counter() - started:.0f} s, rendering "
                f"{render_s:.0f} s): {done}")
    stolen = steal_share(cpu0, _cpu())
    if stolen is not None:
        say(f"{game}: the host took {100 * stolen:.1f} % of the CPU time during the run (steal)")
    return {m: {"summary": {**summarize(rs), "steal_share": stolen}, "turns": [asdict(r) for r in rs]}
            for m, rs in results.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (may be repeated)")
    parser.add_argument("--turns", type=int, default=200, help="turns per game (default 200)")
    parser.add_argument("--seed", type=int, default=7001, help="seed of the playouts and renders (default 7001)")
    parser.add_argument("--truth-only", action="store_true", help="only the ground-truth detector double")
    parser.add_argument("--noise", type=int, default=NOISE, metavar="LEVELS",
                        help=f"sensor noise of each real frame, +-LEVELS of 255 (default {NOISE}; 0: repeated "
                             "frames are identical)")
    parser.add_argument("--imgsz", type=int, metavar="N", help="the real detector reads every frame at N px "
                        "(default: as the game's recipe says)")
    parser.add_argument("--backend", default="auto", choices=BACKENDS,
                        help="the real detector's backend (default auto: as tabletop play runs it)")
    parser.add_argument("--read-every-frame", action="store_true", help="read the pose and pieces of every "
                        "frame, as before still frames kept the last frame's reading")
    parser.add_argument("--drop-stale", action="store_true", help="read frames as tabletop play reads a camera: "
                        "once a frame is read, the newest frame come by then on the real-time clock is next and "
                        "those before it are skipped (the figures then depend on this machine's speed)")
    parser.add_argument("--size", type=frame_size, default=(640, 480), metavar="WxH",
                        help="the frames' size (default 640x480, the targets'; 1280x960: a camera with more pixels)")
    parser.add_argument("--no-dice-finder", action="store_true", help="leave the d6 finder out (tabletop play "
                        "runs it beside OneWorld's, Battle Grounds' and The Game's detectors)")
    parser.add_argument("--markdown", action="store_true", help="also print the figures as a Markdown table")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every turn's figures as JSON")
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be at least 1")
    out: dict[str, Any] = {"seed": args.seed, "turns": args.turns, "noise": args.noise, "targets": TARGETS,
                           "read_every_frame": args.read_every_frame, "backend": args.backend,
                           "drop_stale": args.drop_stale, "size": list(args.size),
                           "load_average": os.getloadavg()[0], "games": {}}
    for game in args.game or GAMES:
        out["games"][game] = run_game(game, args.turns, args.seed, args.truth_only, args.noise, imgsz=args.imgsz,
                                     every_frame=args.read_every_frame, backend=args.backend,
                                     drop_stale=args.drop_stale, size=args.size, dice_finder=not args.no_dice_finder)
    print(f"\nseed {args.seed}, {args.turns} turns a game, {args.size[0]}x{args.size[1]}, noise +-{args.noise}, "
          f"load average {os.getloadavg()[0]:.1f}; "
          f"targets: >= {TARGETS['fps']:.0f} fps, <= {TARGETS['latency_s']} s, >= 99% flagged, "
          "<= 1 false alarm per 200 legal moves, 0 under a hand")
    for game, modes in out["games"].items():
        for mode, data in modes.items():
            print(line(game, mode, data["summary"]))
    if args.markdown:
        print("\n".join(["", *markdown(out["games"])]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

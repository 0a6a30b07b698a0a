"""The Game outdoors followed as a game: pieces set down one by one, then moved, each position
read by the live session from a still window, with and without keeping hidden pieces.

    python3 benchmarks/outdoor_game.py [--games 25] [--moves 6] [--actions 0] [--seed 2026]
                                       [--window 3] [--weights W] [--imgsz 640] [--truth-boxes]
                                       [--no-hands] [--restart] [--say] [--sample N]

For each game a held-out position's standing pieces (seed 2026 by default; the detector was
trained on seed 1) are put down one at a time in a random order, in one camera view of the
field at 1280x720 (35 to 90 degrees above the ground), and then ``--moves`` times a random
piece is moved 1 to 6 inches in a random direction, turned at random and put down clear of
the others and of the field's edge. Before each position comes the hand that made it: a
frame with a hand over the piece put down, or two for a move (over the piece where it was,
then where it goes; ``--no-hands`` leaves them out). Each position is then shown to
:class:`tabletop.outdoor.live.OutdoorSession` as a still window of ``--window`` frames
(fresh sensor noise, no hand), as the assistant reads a field before it speaks. Two
sessions read the same frames: one keeps a piece where it was last seen while it is hidden
behind another or missed where no hand came (``remember``, the default), one reads each
position on its own.

Scored on the game's positions (the last set-up position and each one after a move), as
``benchmarks/outdoor.py`` scores: the settled report's observed / unobserved status against
the engine's on the true position (idleness aside), pieces matched by side and nearest
centre within 1.5"; over the pieces a detector is asked to find (labelled: enough of them in
the picture) and over every piece standing on the field. Also counted: what the session
said that no position supports (nothing leaves the field in these games, so every "left
the field", "is gone" and "out of play" is false but the one telling of a piece knocked
down by an action; a move judged on a set-up position, where a piece was only put down, is
false too), the pieces it said it kept, and the moves it judged (right or wrong: a move read
is judged).

``--actions N``: after the moves, N times a piece of one side is moved 0.4" to 0.9" (edge to
edge) from a piece of the other side, facing it, clear of the others (a move, scored as the
others), and then acts: it closes in until it touches and the target is knocked down, drawn
where it stood without its front dot (turned on its side: no longer a piece to find). Before
that position come a hand over the actor and one over the target. Counted: the actions read
as closing in (*"Red R1 closed in on B1 to act."*, naming the actor) and the knockdowns told
of the right piece (*"Blue B1 is out of play: knocked down by Red R1."*).

``--say`` prints what the session that keeps pieces says at each position, and under each
action what truly happened (the pieces of the position before that stood where the actor
and the target stood, how far the actor closed in, whether the closing in and the
knockdown were told); each game's line gives its sample number, and ``--sample N`` follows
only that game again (repeatable), to look at a miss closely.

``--restart``: two sessions more, each stopped before every move and resumed from its log
(``tabletop outdoor --log`` / ``--resume``, :mod:`tabletop.outdoor.log`), one with the last
still position's frame kept beside the log, one without it: what a restart costs the move
after it, where nobody watched the hand.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.the_game.options import TheGameOptions, footprint_from_json
from rules.the_game.shapes import gap
from rules.the_game.sight import observation
from tabletop.outdoor.frame import OutdoorAssistant, OutdoorFrame
from tabletop.outdoor.live import OutdoorSession
from tabletop.outdoor.log import FieldLog, read_log, read_still
from tabletop.outdoor.readings import ReadingConfig
from tabletop.outdoor.truth import (
    detections_from_truth,
    match_readings,
    truth_calibration,
    truth_pieces,
    visible_ids,
)
from tabletop.outdoor.view import FieldSetup

#: A sentence that judges a move (:func:`tabletop.outdoor.assistant.compare`): "Red R1: ..." or "Red R1 moved ..."
MOVE_JUDGED = re.compile(r"^\w+ [A-Z]\d+(: | moved )")
EDGE = 1.0  # a moved piece's centre stays this far inside the field (nothing leaves)
SPACING_S = 0.31  # seconds between the frames of a window (the session's window is 0.6 s)
EXTRA = 7  # frames more a window may take when a reading jitters (the players wait for the assistant)
#: Sentences that say a piece left play (:func:`tabletop.outdoor.assistant.changes`).
GONE = re.compile(r"left the field|is gone|out of play")
#: "Red R1 closed in on B1 to act." and "Blue B1 is out of play: knocked down by Red R1.": the piece named first.
CLOSED = re.compile(r"^(\w+) ([A-Z]\d+) closed in on ")
DOWN = re.compile(r"^(\w+) ([A-Z]\d+) is out of play: knocked down by ")


RESTARTED = ("restarted", "restarted, frame kept")


def _logged(session: OutdoorSession, log: FieldLog) -> OutdoorSession:
    """``session`` writing each settled position (and its frame) to ``log``."""
    def settled(report: Any, sequence: int, placing: bool) -> None:
        log.position(report, sequence, placing, picture=session.settled_picture)

    session.on_settle = settled
    return session


def _restarted(session: OutdoorSession, log: FieldLog, picture: bool) -> tuple[OutdoorSession, FieldLog]:
    """A new session resumed from ``session``'s ``log``, as ``tabletop outdoor --resume``
    does (the last frame read from beside the log when ``picture``), and its log."""
    log.close()
    held = read_log(log.path)
    again = FieldLog.reopen(log.path, held.kept, sync=False, positions=held.positions)
    if held.readings is None:  # nothing settled yet: the session goes on as it was
        return _logged(session, again), again
    fresh = _logged(OutdoorSession(session.assistant, session.say), again)
    fresh.resume(held.readings, held.sequence, held.placing,
                 read_still(log.path, held.positions) if picture else None)
    return fresh, again


class _ReadOnce:
    """One assistant shared by two sessions: each frame is read once."""

    def __init__(self, assistant: OutdoorAssistant) -> None:
        self.assistant = assistant
        self.setup = assistant.setup
        self.config = assistant.config
        self.options = assistant.options
        self._last: tuple[Any, OutdoorFrame | None] = (None, None)

    def process(self, frame: Any) -> OutdoorFrame:
        if self._last[0] is not frame:
            self._last = (frame, self.assistant.process(frame))
        assert self._last[1] is not None
        return self._last[1]


def _outline(p: dict[str, Any]) -> Any:
    return footprint_from_json(p["footprint"], "footprint").outline(p["at"]["x"], p["at"]["y"], float(p["facing"]))


def game_positions(pieces: list[dict[str, Any]], rng: np.random.Generator, moves: int, size: tuple[float, float],
                   actions: int = 0) -> list[tuple[str, list[dict[str, Any]], list[tuple[float, float]], dict[str, Any]]]:
    """("setup", pieces so far, [where the piece went down], {}) for each piece put down, then
    ("move", pieces, [where it was lifted, where it went down], {}) after each move, then for
    each of ``actions`` actions a move that brings a piece within action range of a piece
    of the other side, then ("act", pieces, [the actor, the target], {"actor": (x, y),
    "target": (x, y)}: where they stood before) when it closes in and knocks the target down
    (turned on its side: ``presence`` "down")."""
    order = [dict(pieces[k]) for k in rng.permutation(len(pieces))]
    out = [("setup", order[:k], [(order[k - 1]["at"]["x"], order[k - 1]["at"]["y"])], {})
           for k in range(1, len(order) + 1)]
    now = [dict(p) for p in order]

    def clear(k: int, moved: dict[str, Any], margin: float = 0.0, but: int | None = None) -> bool:
        x, y = moved["at"]["x"], moved["at"]["y"]
        here = _outline(moved)
        return EDGE <= x <= size[0] - EDGE and EDGE <= y <= size[1] - EDGE and all(
            gap(here, _outline(q))[0] > (0.0 if j == but else margin) for j, q in enumerate(now)
            if j != k and q.get("presence", "in-play") == "in-play")

    for _ in range(moves):
        for _attempt in range(200):
            k = int(rng.integers(len(now)))
            dist, angle = rng.uniform(1.0, 6.0), rng.uniform(0.0, 2 * math.pi)
            x = now[k]["at"]["x"] + dist * math.cos(angle)
            y = now[k]["at"]["y"] + dist * math.sin(angle)
            moved = dict(now[k], at={"x": x, "y": y}, facing=round(float(rng.uniform(0.0, 360.0)), 1))
            if clear(k, moved):
                touched = [(now[k]["at"]["x"], now[k]["at"]["y"]), (x, y)]
                now = [*now[:k], moved, *now[k + 1:]]
                out.append(("move", [dict(p) for p in now], touched, {}))
                break
    for _ in range(actions):
        standing = [k for k, p in enumerate(now) if p.get("presence", "in-play") == "in-play"]
        pairs = [(a, b) for a in standing for b in standing if now[a]["side"] != now[b]["side"]]
        for _attempt in range(400 if pairs else 0):
            a, b = pairs[int(rng.integers(len(pairs)))]
            tx, ty = now[b]["at"]["x"], now[b]["at"]["y"]
            angle = rng.uniform(0.0, 2 * math.pi)
            ux, uy = math.cos(angle), math.sin(angle)
            facing = round(math.degrees(math.atan2(-uy, -ux)) % 360.0 + float(rng.normal(0.0, 10.0)), 1)

            # the approach ends 0.4 to 0.9" from the target, edge to edge; the act closes in on it
            near, touch = None, None
            want = float(rng.uniform(0.4, 0.9))
            for d in np.arange(0.5, 4.0, 0.02):
                there = dict(now[a], at={"x": tx + d * ux, "y": ty + d * uy}, facing=facing)
                g, dx, dy = gap(_outline(there), _outline(now[b]))
                if g > want:  # closing in goes the shortest way, to 0.03" short of touching
                    near = there
                    k = (g - 0.03) / g
                    touch = dict(there, at={"x": there["at"]["x"] + k * dx, "y": there["at"]["y"] + k * dy})
                    break
            if near is None or touch is None or not clear(a, near, 0.3) or not clear(a, touch, 0.3, but=b):
                continue
            if now[a]["at"] == near["at"] or math.dist((now[a]["at"]["x"], now[a]["at"]["y"]),
                                                        (near["at"]["x"], near["at"]["y"])) > 6.0:
                continue  # the approach is an observed piece's move at most
            was = (now[a]["at"]["x"], now[a]["at"]["y"])
            now[a] = near
            out.append(("move", [dict(p) for p in now], [was, (near["at"]["x"], near["at"]["y"])], {}))
            info = {"actor": (near["at"]["x"], near["at"]["y"]), "target": (tx, ty)}
            now[a], now[b] = touch, dict(now[b], presence="down")
            out.append(("act", [dict(p) for p in now], [(touch["at"]["x"], touch["at"]["y"]), (tx, ty)], info))
            break
    return out


def _names(text: str, pattern: re.Pattern[str], settled: Any, at: tuple[float, float], within: float = 1.0) -> bool:
    """Whether ``text`` matches ``pattern`` and names a piece of the session's ``settled``
    position (before the step) that stood within ``within`` inches of ``at``."""
    m = pattern.match(text)
    if m is None or settled is None:
        return False
    r = settled.reading(m.group(2))
    return r is not None and r.side == m.group(1).lower() and math.dist((r.centre.x, r.centre.y), at) <= within


def _act_truth(act: dict[str, Any], touched: list[tuple[float, float]], settled: Any, heard: list[str]) -> str:
    """What an action truly was, for ``--say``: the pieces of the position before it that
    stood where the actor and the target stood, how far the actor closed in, and whether
    the closing in and the knockdown were told."""
    def near(at: tuple[float, float]) -> str:
        if settled is None:
            return "?"
        best = min(settled.readings, key=lambda r: math.dist((r.centre.x, r.centre.y), at), default=None)
        if best is None or math.dist((best.centre.x, best.centre.y), at) > 1.0:
            return "none read there"
        return f"{best.side} {best.id} ({math.dist((best.centre.x, best.centre.y), at):.2f}\" off)"

    closed = any(_names(t, CLOSED, settled, act["actor"]) for t in heard)
    down = any(_names(t, DOWN, settled, act["target"]) for t in heard)
    return (f"(truth: the actor, read before as {near(act['actor'])}, closed in by "
            f"{math.dist(act['actor'], touched[0]):.2f}\" on the target, read before as {near(act['target'])}; "
            f"closing in told: {'yes' if closed else 'NO'}, knockdown told: {'yes' if down else 'NO'})")


def _hand(r: Any, view: Any, at: tuple[float, float], rng: np.random.Generator) -> Any:
    """A hand with its fingertips over field point ``at`` (inches), reaching in from beyond
    the field's nearer side."""
    from vision.render.scene import Hand

    tip = np.array(r.table_point(view, *at))
    middle = np.array(r.table_point(view, 12.0, 12.0))
    away = float(np.degrees(np.arctan2(*(tip - middle)[::-1]))) + float(rng.normal(0.0, 15.0))
    return Hand(tip=(float(tip[0]), float(tip[1])), height=float(rng.uniform(15.0, 40.0)), from_angle=away,
                spread=float(rng.uniform(0.2, 0.5)), pinch=True, scale=float(rng.uniform(0.85, 1.0)))


def _score(report: Any, truth: dict[str, Any], opts: TheGameOptions) -> tuple[int, int, int, int]:
    """(labelled pieces, right among them, pieces on the field, right among them)."""
    pieces = {p.id: p for p in truth_pieces(truth)}
    table = observation(tuple(pieces.values()), opts)
    readings = list(report.readings) if report is not None else []
    match = match_readings(pieces, readings)
    seen = visible_ids(truth)
    right = {pid for pid, k in match.items() if (a := report.advice.get(readings[k].id)) is not None
             and a.observed == table[pid].observed}
    return len(seen & pieces.keys()), len(right & seen), len(pieces), len(right)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=25)
    ap.add_argument("--moves", type=int, default=6, help="moves after the set-up, each game")
    ap.add_argument("--actions", type=int, default=0,
                    help="after the moves, actions: a piece moved within an inch of a piece of the other side, "
                    "then closing in on it and knocking it down (it lies on its side, with no front dot)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--window", type=int, default=3, help="frames of each still window")
    ap.add_argument("--weights", default=None, help="The Game's detector (default: models/the-game.pt)")
    ap.add_argument("--imgsz", type=int, default=640, help="the detector's input size (longest side)")
    ap.add_argument("--truth-boxes", action="store_true", help="labelled boxes and dots instead of the detector")
    ap.add_argument("--no-hands", action="store_true",
                    help="no frames of the hand that puts each piece down or moves it (positions change between frames)")
    ap.add_argument("--sample", type=int, action="append", metavar="N",
                    help="follow only the game of this sample (the number each game's line of --say gives; "
                         "repeatable, each followed whatever --games says): to look at one game again")
    ap.add_argument("--say", action="store_true", help="print what the session that keeps pieces says, step by step")
    ap.add_argument("--restart", action="store_true",
                    help="also sessions restarted from their logs before every move, with and without the last frame")
    args = ap.parse_args()
    if args.seed == 1:
        ap.error("seed 1 made the detector's training set: pick another")
    from vision.render import CameraRanges, Renderer, RenderOptions

    detector = None
    if not args.truth_boxes:
        from vision.detect import Detector

        weights = args.weights or str(Path(__file__).resolve().parents[1] / "models" / "the-game.pt")
        detector = Detector.load(weights, imgsz=args.imgsz)
    opts = TheGameOptions()
    r = Renderer("the-game", seed=args.seed, options=RenderOptions(size=(1280, 720), hands=0.0,
                                                                    camera=CameraRanges(elevation=(35.0, 90.0))))
    names = ("kept", "alone", *(RESTARTED if args.restart else ()))
    totals = {name: [0, 0, 0, 0] for name in names}
    folder = tempfile.TemporaryDirectory(prefix="outdoor-game-")  # the restarted sessions' logs
    said: dict[str, dict[str, int]] = {name: {"gone": 0, "kept": 0, "judged": 0, "setup": 0, "acts": 0, "closed": 0,
                                              "down": 0, "moves": 0} for name in totals}
    games = positions = no_field = unsettled = 0
    g = -1
    last = max(args.sample) if args.sample else 4 * args.games
    wanted = len(set(args.sample)) if args.sample else args.games  # --sample: each game given, whatever --games
    while games < wanted and g < last:
        g += 1
        if args.sample and g not in args.sample:
            continue
        sampled = r.sampler.sample(g)  # type: ignore[union-attr]
        game = sampled.game
        # a movement phase with only the standing pieces (a pending response or split names others)
        full = game.state_to_json(sampled.state)
        full = {"sequence": 1, "phase": "movement", "turn": 1, "first": full.get("first") or "red",
                "next": full.get("next") or full.get("first") or "red", "pieces": full["pieces"]}
        standing = [p for p in full["pieces"] if p.get("presence", "in-play") == "in-play"]
        if len(standing) < 2:
            continue
        rng = np.random.default_rng([args.seed, 7, g])
        view = r.new_view(rng, r.adapter[0](game, sampled.state))  # type: ignore[index]
        plan = game_positions(standing, rng, args.moves, (opts.field_width, opts.field_depth), args.actions)
        current: dict[str, Any] = {}
        assistant = None
        sessions: dict[str, OutdoorSession] = {}
        logs: dict[str, FieldLog] = {}
        lines: dict[str, list[str]] = {name: [] for name in totals}
        t = 0.0
        before_state = None
        for step, (kind, pieces, touched, act) in enumerate(plan):
            if kind == "move":
                for name in RESTARTED:
                    if name in sessions:
                        sessions[name], logs[name] = _restarted(sessions[name], logs[name], picture=name != "restarted")
            heard_before = {name: len(lines[name]) for name in totals}
            prev = {name: s.settled for name, s in sessions.items()}
            state = game.state_from_json(dict(full, pieces=pieces))
            frames = []
            hand_rng = np.random.default_rng([args.seed, 9, g, step])
            # the hand that lifts the piece (over the position before) and puts it down
            shown = [] if args.no_hands or assistant is None else [
                (before_state if kind in ("move", "act") and k == 0 else state, _hand(r, view, at, hand_rng))
                for k, at in enumerate(touched)]
            for f in range(len(shown) + args.window + EXTRA):
                hand = [shown[f][1]] if f < len(shown) else []
                out = r.render_state(game, shown[f][0] if f < len(shown) else state, view, hands=hand,
                                     rng=np.random.default_rng([args.seed, 8, g, step, f]), source=sampled)
                current["truth"] = out.truth
                if assistant is None:
                    setup = FieldSetup(calibration=truth_calibration(out.truth))
                    detect = detector.detect if detector is not None else (
                        lambda image, c=current, cal=setup.calibration: detections_from_truth(c["truth"], calibration=cal))
                    assistant = _ReadOnce(OutdoorAssistant(setup, detect, opts, ReadingConfig(), crop=detector is not None))
                    if assistant.process(out.image).report is None:
                        break
                    for name in totals:
                        sessions[name] = OutdoorSession(assistant, lambda text, cat, n=name, heard=lines: heard[n].append(text),
                                                        remember=name != "alone")
                        if name in RESTARTED:
                            logs[name] = FieldLog.create(Path(folder.name) / f"{name}-{g}.jsonl", opts, sync=False)
                            _logged(sessions[name], logs[name])
                for s in sessions.values():
                    s.process(out.image, t)
                t += SPACING_S
                frames.append(out)
                if f >= len(shown) + args.window - 1 and not any(s.settling for s in sessions.values()):
                    break
            before_state = state
            if not sessions:
                no_field += 1
                break
            if args.say:
                print(f"  {kind}: " + " | ".join(lines["kept"][heard_before["kept"]:]), file=sys.stderr)
                if kind == "act":
                    print("    " + _act_truth(act, touched, prev["kept"], lines["kept"][heard_before["kept"]:]),
                          file=sys.stderr)
            for name in sessions:
                heard = lines[name][heard_before[name]:]
                judged = sum(bool(MOVE_JUDGED.match(text)) for text in heard)
                if kind == "act":
                    said[name]["acts"] += 1
                    said[name]["closed"] += any(_names(text, CLOSED, prev[name], act["actor"]) for text in heard)
                    right = [text for text in heard if _names(text, DOWN, prev[name], act["target"])]
                    said[name]["down"] += bool(right)
                    heard = [text for text in heard if text not in right[:1]]
                else:
                    said[name]["judged" if kind == "move" else "setup"] += min(judged, 1) if kind == "move" else judged
                    said[name]["moves"] += kind == "move"
                said[name]["gone"] += sum(bool(GONE.search(text)) for text in heard)
                said[name]["kept"] += sum("kept where it was last seen" in text for text in heard)
            unsettled += any(s.settling for s in sessions.values())
            t += 1.0  # the hand that sets down or moves the next piece
            if kind in ("move", "act") or step == len(standing) - 1:
                positions += 1
                for name, s in sessions.items():
                    for k, v in enumerate(_score(s.settled, current["truth"], opts)):
                        totals[name][k] += v
        for log in logs.values():
            log.close()
        if sessions:
            games += 1
        print(f"game {games}/{wanted} (sample {g}): {len(standing)} pieces, {len(plan)} positions", file=sys.stderr,
              flush=True)
    source = "labelled boxes and dots (no detector)" if detector is None else (
        ("the shipped detector" if not args.weights else f"detector {args.weights}") + f" at {args.imgsz}")
    print(f"The Game outdoors, followed as a game: {games} games ({no_field} skipped: no field), {positions} positions "
          f"scored (each game's set-up and {args.moves} moves), 1280x720, seed {args.seed}, {source}, still windows of "
          f"{args.window} frames ({unsettled} positions not settled in {args.window + EXTRA})")
    labels = {"alone": "each position read on its own", "kept": "unseen pieces kept (the session now)",
              "restarted": "restarted before every move, no frame", "restarted, frame kept": "restarted, last frame kept"}
    for name, (lab, lab_ok, every, every_ok) in totals.items():
        label = labels[name]
        print(f"  {label:<38} status right {100 * lab_ok / max(1, lab):5.1f} % of {lab} pieces to find, "
              f"{100 * every_ok / max(1, every):5.1f} % of {every} standing; said: {said[name]['gone']} pieces gone, "
              f"left or out of play (none but the pieces knocked down), {said[name]['kept']} kept out of sight; {said[name]['judged']} of {said[name]['moves']} moves judged, "
              f"{said[name]['setup']} moves judged while pieces were being set down (none moved)"
              + (f"; {said[name]['closed']} of {said[name]['acts']} actions read as closing in, "
                 f"{said[name]['down']} knockdowns told of the right piece" if said[name]["acts"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

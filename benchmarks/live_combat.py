"""OneWorld's combat rounds, rendered and read by the live referee end to end.

    python3 benchmarks/live_combat.py [--truth-only] [--revealed] [--limit N] [--json]

Every combat round among children in OneWorld's bundled record (``tabletop/data/records``):
both sides' secret choices, read by the referee from the table (docs/live.md, "OneWorld's
combat"). Each round is drawn as ``tools/make_sample_images.py`` draws the sample turns (its
``TurnMaker``, 640x480, a fresh camera per round), on a 15 fps stream clock::

    board before x 8 | a hand over the combat hex, three moments x 2 | board after x 15

The board before is the position the round is fought from: the end of movement not yet read
when the record's round comes right after it (the round then shows that movement ended: the
reinforcement die, if it rolled one, given as typed). The board after shows the round with
its eliminated counters taken off, or, with ``--revealed``, the aspects revealed and the
eliminated still in the hex (the referee then asks for them to be taken off); with
``--spread``, the counters of the combat hex after the round lie side by side rather than
stacked, as players lay them out to reveal them (the board before is drawn stacked). Each round goes
to a fresh ``LivePipeline`` twice: with a *truth* double (the renderer's labels as
detections, the true board geometry) and with the shipped detector and the board pose
tracked from the kit's markers, as ``tabletop play`` runs them (frames with sensor noise
+-3). Counted: rounds whose engine state is the record's after the round (right), the end of
movement before it read but not the round (part), another state (wrong), and rounds not read
at all, with what the referee said.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.live_referee import marker_locate, truth_detections, truth_view
from benchmarks.turns import FPS, NOISE, TurnRenderer, _samples_tool
from vision.render.scenes.oneworld import laid_out_step

HAND_MOMENTS = 3
STILL_BEFORE, HAND_REPEAT, STILL_AFTER = 8, 2, 15


def _record() -> tuple[Any, list[Any], list[dict[str, Any]]]:
    """OneWorld's bundled record: the engine, every state it passes through, its action lines."""
    from vision.render.positions import replay_record

    text = (ROOT / "tabletop" / "data" / "records" / "oneworld.jsonl").read_text()
    game, states = replay_record(text)
    return game, states, [json.loads(x) for x in text.splitlines() if x.strip()][1:]


def rounds() -> list[dict[str, Any]]:
    """The record's rounds among children: where the referee starts (the state before the
    round, or before the end of movement that leads to it), the dice given, the state after
    the round, the combat hex, and the aspects chosen."""
    game, states, entries = _record()
    out = []
    for k, e in enumerate(entries):
        s = states[k]
        if e["action"]["type"] != "transform" or s.combat is None or s.combat.against_god or s.combat.pending:
            continue
        start, rolls = k, []
        if k > 0 and entries[k - 1]["action"]["type"] == "end-movement" and states[k - 1].combat is None:
            start, rolls = k - 1, list(entries[k - 1].get("rolls", []))
        chosen = {entries[j]["action"]["side"]: entries[j]["action"]["aspects"] for j in (k, k + 1)}
        out.append({"game": game, "start": states[start], "combat": s, "end": states[k + 2], "rolls": rolls,
                    "hex": s.combat.hex.label(), "chosen": chosen, "index": k})
    return out


def _revealed_state(game: Any, combat: Any, chosen: dict[str, list[str]]) -> Any:
    """The combat state with the children in its hex showing the aspects chosen, nobody
    taken off (the table revealed)."""
    from rules.oneworld.model import Aspect
    from tabletop.live.combat import _combat

    cell = _combat(combat).hex
    children = []
    for side in ("borg", "chez"):
        mine = sorted((c for c in combat.children if c.hex == cell and c.side.value == side),
                      key=lambda c: int(c.id[1:]))
        for c, a in zip(mine, sorted(chosen[side], key=["stone", "blade", "fog"].index)):
            children.append(replace(c, aspect=Aspect(a)))
    return combat.with_children(children)




def _spread_plan(maker: Any, after: Any, cell: str) -> Any:
    """``maker.plan``, with the counters of ``cell`` in the scene of ``after`` laid side by
    side on the table instead of stacked, as far apart as renders lay them
    (:func:`vision.render.scenes.oneworld.laid_out_step`: two edge to edge)."""
    plan_of = type(maker).plan

    def plan(game: Any, state: Any, view: Any) -> Any:
        scene = plan_of(maker, game, state, view)
        if state is not after:
            return scene
        here = [p for p in scene.pieces if p.label is not None and p.label.cell == cell
                and p.label.cls.split("-")[-1] in ("stone", "blade", "fog")]
        if len(here) < 2:
            return scene
        step = laid_out_step(len(here)) * maker.placer(view).unit_mm()
        cx, cy = float(np.mean([p.x for p in here])), float(np.mean([p.y for p in here]))
        laid = {id(p): replace(p, x=cx + (i - (len(here) - 1) / 2) * step, y=cy, z=0.0) for i, p in enumerate(here)}
        scene.pieces = [laid.get(id(p), p) for p in scene.pieces]
        return scene

    return plan


def draw(renderer: TurnRenderer, r: dict[str, Any], after: Any, seed: int, spread: bool = False
         ) -> tuple[list[np.ndarray], list[dict[str, Any]], list[bool]]:
    """The pictures (before, hands over the combat hex, after), their truths, and which show
    a hand; ``spread``: the hex's counters after the round laid side by side."""
    tool = _samples_tool()
    maker = renderer.maker
    maker.seed = seed
    maker.on_top = None
    maker.plan = _spread_plan(maker, after, r["hex"]) if spread else type(maker).plan.__get__(maker)
    game, start = r["game"], r["start"]
    probe = maker.renderer.view_for(game, start, np.random.default_rng([seed, 1]))
    here = [p for p in maker.plan(game, start, probe).pieces if p.label is not None and p.label.cell == r["hex"]]
    centre = (float(np.mean([p.x for p in here])), float(np.mean([p.y for p in here])))
    plan = tool.TurnPlan(game, None, start)
    seat = 270.0 if r["combat"].active.value == "borg" else 90.0
    view = maker.choose_view(plan, [centre], [seat])
    look = tool._player_look(maker, game.players(), r["combat"].active.value)
    rng = np.random.default_rng([seed, 11])
    frames = [tool.Frame("board", "before", start, "start")]
    for m in range(HAND_MOMENTS):
        angle = seat + float(rng.normal(0.0, 8.0))
        tip = (centre[0] + float(rng.normal(0.0, 6.0)), centre[1] + float(rng.normal(0.0, 6.0)))
        hand = tool.Hand(tip=tip, height=18.0 - 4.0 * m, from_angle=angle, spread=0.3, pinch=m == 1, **look)
        frames.append(tool.Frame("hand", "reveal", start if m < 2 else after, "start", 0, hand))
    frames.append(tool.Frame("board", "after", after, "after"))
    images, truths = [], []
    for i, fr in enumerate(frames):
        rendered = maker.render(plan, fr, view, i)
        images.append(rendered.image)
        truths.append(rendered.truth)
    return images, truths, [fr.hand is not None for fr in frames]


def run(r: dict[str, Any], images: list[np.ndarray], truths: list[dict[str, Any]], hands: list[bool], mode: str,
        detector: Any = None, noise_seed: int = 0) -> dict[str, Any]:
    """Feed the round's stream to a fresh pipeline: the engine state it ends in, and what it said."""
    from tabletop.live.board import BoardMapper
    from tabletop.live.pipeline import LivePipeline, Rolls

    game, start = r["game"], r["start"]
    pos = game.state_to_json(start)
    size = tuple(truths[0]["board"]["size"]) if truths[0].get("board") else None
    if mode == "truth":
        mapper = BoardMapper.for_game("oneworld", pos, game.options_to_json(), size)
        detect, locate = truth_detections, truth_view
    else:
        mapper = BoardMapper.for_game("oneworld", pos, game.options_to_json(), size, tuple(detector.names))
        detect = detector.detect
        locate = marker_locate(SimpleNamespace(game_name="oneworld", game=game, truths=truths))
    pipe = LivePipeline(game, start, detect, locate, mapper, rolls=Rolls(list(r["rolls"])))
    order = [0] * STILL_BEFORE + [k for k in range(1, 1 + HAND_MOMENTS) for _ in range(HAND_REPEAT)] \
        + [len(images) - 1] * STILL_AFTER
    rng = np.random.default_rng([noise_seed, r["index"], 5])
    for n, pic in enumerate(order):
        frame = truths[pic] if mode == "truth" else images[pic]
        if mode != "truth":
            grain = rng.integers(-NOISE, NOISE + 1, frame.shape, dtype=np.int16)
            frame = np.clip(frame.astype(np.int16) + grain, 0, 255).astype(np.uint8)
        pipe.process(frame, n / FPS)
    key = json.dumps(game.state_to_json(pipe.state), sort_keys=True)
    end = json.dumps(game.state_to_json(r["end"]), sort_keys=True)
    combat = json.dumps(game.state_to_json(r["combat"]), sort_keys=True)
    outcome = "right" if key == end else "none" if pipe.state is start else "part" if key == combat else "wrong"
    return {"outcome": outcome, "said": [text for _, text in pipe.announced]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--truth-only", action="store_true", help="the truth double only (no detector)")
    parser.add_argument("--revealed", action="store_true",
                        help="the table after shows the aspects revealed, the eliminated still there")
    parser.add_argument("--spread", action="store_true",
                        help="the counters of the combat hex after the round laid side by side, as players reveal")
    parser.add_argument("--limit", type=int, default=0, help="the first N rounds only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    modes = ["truth"] if args.truth_only else ["truth", "real"]
    detector = None
    if "real" in modes:
        from vision.detect import Detector

        detector = Detector.load("oneworld")
    renderer = TurnRenderer("oneworld")
    todo = rounds()[: args.limit or None]
    tallies = {m: {"right": 0, "part": 0, "wrong": 0, "none": 0} for m in modes}
    misses: list[dict[str, Any]] = []
    started = time.perf_counter()
    for n, r in enumerate(todo, 1):
        after = _revealed_state(r["game"], r["combat"], r["chosen"]) if args.revealed else r["end"]
        images, truths, hands = draw(renderer, r, after, 7103 + r["index"], args.spread)
        for mode in modes:
            got = run(r, images, truths, hands, mode, detector)
            tallies[mode][got["outcome"]] += 1
            if got["outcome"] != "right":
                misses.append({"round": r["index"], "mode": mode, **got})
        print(f"{n}/{len(todo)} rounds ({time.perf_counter() - started:.0f} s): "
              + ", ".join(f"{m} {t['right']} right" for m, t in tallies.items()), file=sys.stderr)
    if args.json:
        print(json.dumps({"tallies": tallies, "misses": misses}, indent=1))
        return 0
    table = ("revealed, the eliminated still there" if args.revealed else "the eliminated taken off") + \
        (", the hex's counters laid side by side" if args.spread else "")
    for mode, t in tallies.items():
        print(f"oneworld combat rounds ({table}), {mode}: {t['right']} of {len(todo)} read right, "
              f"{t['part']} only the end of movement before it, {t['wrong']} wrong, {t['none']} not read")
    for m in misses:
        print(f"  round at record line {m['round'] + 1} ({m['mode']}, {m['outcome']}): {' | '.join(m['said'][-3:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

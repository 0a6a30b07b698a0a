"""Dice thrown beside a game's pieces, read as the live referee reads a throw.

    python3 benchmarks/table_dice.py [--games oneworld battle-grounds the-game] [--frames 60]
                                     [--seed 1001] [--finder d6] [--json]

Each game's rendered 640x480 frames (seed ``--seed``, no hands), and the same frames with
the dice one of its actions throws lying among the pieces (OneWorld's reinforcement: one;
Battle Grounds' battle: two; The Game's act: one) drawn onto them
(:func:`vision.render.dice_scene.throw_onto`: ordinary dice of many kinds, 14 to 19 mm
across as the board's scale makes them, on the board or beside it, clear of the pieces,
the markers and each other, seen from the frame's camera elevation). Both frames are read
as ``tabletop play`` reads them: the game's shipped detector with the d6 finder beside it
(:func:`vision.dice_finder.with_dice`), mapped with the renderer's own board geometry and the
kit's markers where it puts them; the throw is what :func:`tabletop.live.rolls.thrown_d6`
takes from the frame before to the frame after. Counted per game: throws *read* (the faces
thrown, no more, no fewer), *held back* (a die seen whose face the reader is less than
``SURE_FACE`` sure of: the referee asks for the roll), *wrong* (another set of faces: fewer
dice, more, or as many with other faces; the referee then finds no order of them that gives
the board it sees, or takes a wrong roll);
frames without dice where the referee would see a die (a false die: held back or joining a
throw). Three ways: as the referee reads now (``now``: the markers left out, and a die
unsure of its face that lay still where one lay before the throw set aside,
:func:`tabletop.live.rolls.set_aside_lying`; the frame without dice stood still before the
throw); the markers left out alone (``markers``); neither (``before``: as the referee read
before it knew either).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: How many dice one of the game's actions throws.
THROWN = {"oneworld": 1, "battle-grounds": 2, "the-game": 1}
#: The ways the frames are read (module docstring).
MODES = ("now", "markers", "before")
#: A die's edge, mm (ordinary dice run from 12 to 19).
EDGE_MM = (14.0, 19.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(THROWN), choices=list(THROWN))
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1001)
    parser.add_argument("--finder", default="d6", help="the d6 finder's weights (default the shipped models/d6.pt)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from vision.dice_finder import DiceFinder

    finder = DiceFinder.load(args.finder)
    doc = {game: run_game(game, finder, args.frames, args.seed, quiet=args.json) for game in args.games}
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{args.frames} frames a game (seed {args.seed})")
    for game, modes in doc.items():
        for mode, t in modes.items():
            n = t["throws"]
            print(f"{game} ({mode}): {n} throws of {THROWN[game]}: read {t['read']} "
                  f"({100 * t['read'] / n:.1f} %), held back {t['held_back']}, wrong {t['wrong']} (fewer "
                  f"{t['fewer']}, more {t['more']}, other faces {t['other_faces']}); "
                  f"frames without dice seeing one {t['false_frames']} of {n}")
    return 0


def run_game(game: str, finder: Any, frames: int, seed: int, quiet: bool = False) -> dict[str, dict[str, int]]:
    """The figures of one game (module docstring), read each way."""
    import numpy as np

    from tabletop.live.board import BoardMapper
    from tabletop.live.play import _marker_spec
    from tabletop.live.rolls import set_aside_lying, thrown_d6
    from vision.detect import Detector
    from vision.detect_cells import FrameGeometry
    from vision.dice_finder import with_dice
    from vision.render.dice_scene import places_among, throw_onto
    from vision.render.renderer import Renderer, RenderOptions

    detector = Detector.load(game)
    detect = with_dice(detector.detect, finder)
    renderer = Renderer(game, seed=seed, options=RenderOptions(size=(640, 480), hands=0.0))
    tally = {mode: {"throws": 0, "read": 0, "held_back": 0, "wrong": 0, "fewer": 0, "more": 0, "other_faces": 0,
                    "false_frames": 0} for mode in MODES}
    for i in range(frames):
        rendered = renderer.render(i)
        truth = rendered.truth
        geometry = FrameGeometry.from_truth(truth)
        options = truth.get("position_source", {}).get("options", {})
        spec = _marker_spec(game, options)
        markers = spec.in_image(geometry.board_to_image)
        rng = np.random.default_rng([seed, i, 77])
        dice = places_among(rng, truth, spec, geometry.board_to_image, markers, THROWN[game], EDGE_MM)
        thrown_frame, thrown = throw_onto(rendered.image, rng, dice, float(truth["camera"]["elevation"]))
        faces = sorted(v for v, _ in thrown)
        mapper = BoardMapper.for_game(game, truth["position"], options, tuple(truth["board"]["size"]),
                                      tuple(detector.names))
        polygon = np.array(truth["board"]["corners_in_image"], float)
        det_before, det_after = detect(rendered.image), detect(thrown_frame)
        for mode in MODES:
            marks = markers if mode != "before" else ()
            before = mapper.map(det_before, geometry, polygon, (640, 480), rendered.image, marks)
            after = mapper.map(det_after, geometry, polygon, (640, 480), thrown_frame, marks)
            if mode == "now":  # the table stood still before the throw: its unsure dice lay there
                before, after = set_aside_lying(before, before), set_aside_lying(after, before)
            t = tally[mode]
            t["throws"] += 1
            t["false_frames"] += bool(before.dice or before.unsure_dice)
            read = thrown_d6(before, after)
            if after.unsure_dice:
                t["held_back"] += 1
            elif read == faces:
                t["read"] += 1
            else:
                t["wrong"] += 1
                t["fewer" if len(read) < len(faces) else "more" if len(read) > len(faces) else "other_faces"] += 1
        if not quiet and (i + 1) % 20 == 0:
            print(f"{game}: {i + 1}/{frames} frames", file=sys.stderr)
    return tally


if __name__ == "__main__":
    raise SystemExit(main())

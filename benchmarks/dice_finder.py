"""The d6 finder on renders it never learnt from: dice found, faces read right, false dice.

    python3 benchmarks/dice_finder.py [--frames 200] [--seed 1001] [--finder d6] [--throw-conf C ...] [--json]
    python3 benchmarks/dice_finder.py --beside oneworld battle-grounds the-game [--frames 20]

Frames of :func:`vision.render.dice_scene.render_dice` (640x640) with a seed the finder never
trained on (its recipe's ``eval.seed``, 1001, by default): each labelled die is *found* when a
box of the finder overlaps it by IoU >= 0.5 and *read right* when that box's face is the die's.
Counted at the finder's own confidence (0.25) and again as the live referee takes a throw
(the finder ``DICE_CONF`` sure, the face reader ``SURE_FACE`` sure of the face), with the
milliseconds a frame takes on this machine (``--throw-conf``: the throw counted at each of
these sureness values of the finder instead, to choose ``DICE_CONF``). By the size of the die too (its box's shorter
side in the frame): what the finder reads at a game's scale (a die 10 to 20 px across in a
640x480 frame) and at a real photo's (25 to 45 px). The real photos: benchmarks/real_photos.py.

``--beside GAME ...``: what the finder costs beside a game's detector, as ``tabletop play``
runs it (:func:`vision.dice_finder.with_dice`), on ``--frames`` rendered 640x480 frames of each
game (seed ``--seed``; no dice in them): the finder's milliseconds a frame (median), its boxes a
frame, the faces it reads a frame and the dice it adds (each one a false die): on the kit's
printed markers (where the renderer's camera puts them), which the live referee leaves out
(:func:`vision.dice_finder.on_markers`), and elsewhere, with the frames that keep one: a
false die seen keeps a throw from being read (a face unsure) or adds to it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZES = ((0, 20), (20, 35), (35, 1000))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1001)
    parser.add_argument("--finder", default="d6", help="the finder's weights (default the shipped models/d6.pt)")
    parser.add_argument("--throw-conf", type=float, nargs="+", metavar="C",
                        help="count the throws the referee takes at each of these sureness values of the finder "
                             "(default its DICE_CONF)")
    parser.add_argument("--beside", nargs="+", metavar="GAME",
                        help="time the finder beside each game's detector on its rendered frames instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.beside:
        return _beside(args.beside, args.frames, args.seed, args.finder, args.json)

    import numpy as np

    from tabletop.live.board import SURE_FACE
    from vision.detections import box_iou
    from vision.dice_finder import DICE_CONF, DiceFinder
    from vision.render.dice_scene import CLASSES, render_dice

    finder = DiceFinder.load(args.finder)
    throws = list(dict.fromkeys(args.throw_conf or [DICE_CONF]))  # each sureness counted once
    keys = ["all", *(_sure(c, DICE_CONF) for c in throws)]
    tally = {k: {"dice": 0, "found": 0, "right": 0, "false": 0} for k in keys}
    by_size = {s: {"dice": 0, "found": 0, "right": 0} for s in SIZES}
    spent = []
    for i in range(args.frames):
        image, labels = render_dice(np.random.default_rng([args.seed, i]), (640, 640))
        t0 = time.perf_counter()
        det = finder.detect(image)
        spent.append(time.perf_counter() - t0)
        truth = np.array([[(x - w / 2) * 640, (y - h / 2) * 640, (x + w / 2) * 640, (y + h / 2) * 640]
                          for _, x, y, w, h in labels]).reshape(-1, 4)
        faces = [CLASSES[c] for c, *_ in labels]
        face_sure = np.ones(len(det)) if det.face_confidence is None else np.nan_to_num(det.face_confidence, nan=1.0)
        for key, keep in (("all", det.confidence >= 0.25),
                          *((_sure(c, DICE_CONF), (det.confidence >= c) & (face_sure >= SURE_FACE)) for c in throws)):
            d = det[keep]
            t = tally[key]
            t["dice"] += len(labels)
            iou = box_iou(truth, d.xyxy) if len(d) and len(truth) else np.zeros((len(truth), len(d)))
            used = set()
            for j in np.argsort(-iou.max(axis=1, initial=0.0)) if len(truth) else []:
                k = int(iou[j].argmax()) if len(d) else -1
                if k < 0 or iou[j, k] < 0.5 or k in used:
                    continue
                used.add(k)
                t["found"] += 1
                right = str(d.class_name[k]) == faces[j]
                t["right"] += right
                if key == "all":
                    side = min(truth[j, 2] - truth[j, 0], truth[j, 3] - truth[j, 1])
                    for lo, hi in SIZES:
                        if lo <= side < hi:
                            by_size[(lo, hi)]["found"] += 1
                            by_size[(lo, hi)]["right"] += right
            t["false"] += len(d) - len(used)
        for j in range(len(truth)):
            side = min(truth[j, 2] - truth[j, 0], truth[j, 3] - truth[j, 1])
            for lo, hi in SIZES:
                if lo <= side < hi:
                    by_size[(lo, hi)]["dice"] += 1
        if (i + 1) % 50 == 0:
            print(f"{i + 1}/{args.frames} frames", file=sys.stderr)
    doc = {"frames": args.frames, "seed": args.seed, "ms_per_frame_median": round(1000 * float(np.median(spent)), 1),
           **{key: {**t, "found_share": round(t["found"] / t["dice"], 4) if t["dice"] else None,
                    "right_share": round(t["right"] / t["dice"], 4) if t["dice"] else None} for key, t in tally.items()},
           "by_size": {f"{lo}-{hi} px": v for (lo, hi), v in by_size.items()}}
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{args.frames} frames (seed {args.seed}), {doc['ms_per_frame_median']} ms a frame")
    for key, what in (("all", "every die boxed (conf >= 0.25)"),
                      *((_sure(c, DICE_CONF), f"as the referee takes a throw (finder >= {c:g})") for c in throws)):
        t = doc[key]
        print(f"{what}: {t['dice']} dice, found {100 * t['found_share']:.1f} %, read right "
              f"{100 * t['right_share']:.1f} %, {t['false']} false")
    for size, v in doc["by_size"].items():
        if v["dice"]:
            print(f"  dice {size}: {v['dice']}, found {100 * v['found'] / v['dice']:.1f} %, "
                  f"read right {100 * v['right'] / v['dice']:.1f} %")
    return 0


def _beside(games: list[str], frames: int, seed: int, weights: str, as_json: bool) -> int:
    """The finder's cost beside each game's detector (module docstring)."""
    import numpy as np

    from tabletop.live.play import _marker_spec
    from vision.detect import Detector
    from vision.detect_cells import FrameGeometry
    from vision.dice_finder import DICE_CONF, DiceFinder, added, on_markers
    from vision.render.renderer import Renderer, RenderOptions

    finder = DiceFinder.load(weights)
    reader = finder.face_reader
    reads = [0]
    if reader is not None:  # count the faces read
        read = reader.read

        def counted(frame: np.ndarray, xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
            reads[0] += len(np.asarray(xyxy).reshape(-1, 4))
            return read(frame, xyxy)

        reader.read = counted
    doc = {}
    for game in games:
        detector = Detector.load(game)
        renderer = Renderer(game, seed=seed, options=RenderOptions(size=(640, 480)))
        spent, boxes, faces, dice, marked, kept = [], 0, 0, 0, 0, 0
        for i in range(frames):
            rendered = renderer.render(i)
            image = rendered.image
            found = detector.detect(image)
            before = reads[0]
            t0 = time.perf_counter()
            both = added(found, finder.detect(image, found, DICE_CONF), DICE_CONF)
            spent.append(time.perf_counter() - t0)
            faces += reads[0] - before
            new = both[np.arange(len(found), len(both))]
            spec = _marker_spec(game, rendered.truth.get("position_source", {}).get("options", {}))
            on = on_markers(new.xyxy, spec.in_image(FrameGeometry.from_truth(rendered.truth).board_to_image))
            dice += len(new)
            marked += int(on.sum())
            kept += bool((~on).any())
            own = getattr(finder.detector, "faces", None) is not None  # its faces not read here
            boxes += len(finder.detector.detect(image, read_faces=False) if own else finder.detector.detect(image))
        doc[game] = {"frames": frames, "ms_per_frame_median": round(1000 * float(np.median(spent)), 1),
                     "boxes_per_frame": round(boxes / frames, 1), "faces_read_per_frame": round(faces / frames, 1),
                     "dice_added": dice, "on_markers": marked, "frames_with_a_die_off_the_markers": kept}
        if not as_json:
            g = doc[game]
            print(f"{game}: {frames} frames (seed {seed}), the finder {g['ms_per_frame_median']} ms a frame, "
                  f"{g['boxes_per_frame']} boxes and {g['faces_read_per_frame']} faces read a frame; "
                  f"{dice} dice added (none is in the frames), {marked} on the kit's markers; "
                  f"{kept} frames with one elsewhere")
    if as_json:
        print(json.dumps(doc, indent=1))
    return 0


def _sure(conf: float, default: float) -> str:
    """The key of the throws taken at the finder's sureness ``conf``: ``sure`` at the
    referee's own (``default``), ``sure@C`` at another."""
    return "sure" if conf == default else f"sure@{conf:g}"


if __name__ == "__main__":
    raise SystemExit(main())

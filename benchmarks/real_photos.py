"""What the detectors trained only on renders do with real pieces they never saw.

    python3 benchmarks/real_photos.py [--weights models/when-gods-collide.pt] [--finder d6] [--no-finder]
                                      [--real ../shared/real] [--json]

Two sets of real photographs, labelled by their own projects in their own class schemes:

* ``checkers-printed/``: 12 photos (640x400) of a printed 8x8 checkers board with paper discs
  (green and red, men and kings). When Gods Collide is played with checkers, so its model is
  asked: how many of the labelled discs does it find as *some* checker (any army, any god face;
  IoU >= 0.5, confidence >= 0.25)? The armies' colours are not the photos' colours, so "right"
  is not defined.
* ``dice/``: 25 top-down photos (640x640) of ordinary d6 dice. When Gods Collide's model reads
  a d6 (classes ``d6-1`` .. ``d6-6``): how many dice does it find as some d6, and how many does
  it read with the right number of pips? And the d6 finder (``models/d6.pt`` with its face
  reader, trained only on renders of many kinds of die: :mod:`vision.render.dice_scene`),
  which reads the dice of OneWorld, Battle Grounds and The Game: the same, and again with
  only the dice the live referee would take a throw from (the finder at least
  ``vision.dice_finder.DICE_CONF`` sure, the face reader ``tabletop.live.board.SURE_FACE``).

Also counted: detections of those kinds that match no labelled object (false detections).
Each figure is printed a second way too, each labelled object matched to a detection by
centre rather than by IoU 0.5: the dice photos' labels are drawn loosely (a labelled box's
side 1.1 to 1.6 times the die's), so a box that fits a die can overlap its label by less
than 0.5; the median ratio of a label's side to its box's side is printed beside them.
The figures are computed by :func:`vision.detect_eval.transfer_figures`; they are a measure,
not a target (issue 6 asks for the figure). docs/models.md records them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHECKER_KINDS = ("babylonian", "egyptian", "greek", "norse", "marduk", "amun-ra", "zeus", "odin")
D6_KINDS = tuple(f"d6-{k}" for k in range(1, 7))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", default=str(ROOT / "models" / "when-gods-collide.pt"))
    parser.add_argument("--real", default=str(ROOT.parent / "shared" / "real"),
                        help="the folder of real photographs (checkers-printed/, dice/)")
    parser.add_argument("--conf", type=float, default=0.25)
    parser.add_argument("--finder", default="d6", help="the d6 finder's weights (default the shipped models/d6.pt)")
    parser.add_argument("--no-finder", action="store_true", help="leave the d6 finder out")
    parser.add_argument("--imgsz", type=int, help="the size frames are read at (default: the weights' recipe's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from vision.detect import Detector
    from vision.detect_eval import load_samples, transfer_figures
    from vision.dice_finder import DICE_CONF

    real = Path(args.real)
    if not Path(args.weights).is_file():
        print(f"{args.weights}: no such weights file", file=sys.stderr)
        return 2
    detector = Detector.load(args.weights, **({"imgsz": args.imgsz} if args.imgsz else {}))
    names = tuple(detector.names)
    missing = [k for k in CHECKER_KINDS + D6_KINDS if k not in names]
    if missing:
        print(f"{args.weights}: the model has no class {missing[0]!r}", file=sys.stderr)
        return 2
    figures = {}
    checkers = load_samples(real / "checkers-printed")
    figures["checkers"] = transfer_figures(checkers, detector.detect, names, CHECKER_KINDS, None, args.conf)
    figures["checkers"]["sizes"] = _sizes(detector)
    dice = load_samples(real / "dice")
    figures["dice"] = transfer_figures(dice, detector.detect, names, D6_KINDS,
                                       {k: f"d6-{k + 1}" for k in range(6)}, args.conf)
    figures["dice"]["sizes"] = _sizes(detector)
    if not args.no_finder:
        from vision.dice_finder import DiceFinder

        finder = DiceFinder.load(args.finder)
        figures["d6 finder"] = transfer_figures(dice, finder.detect, tuple(finder.detector.names), D6_KINDS,
                                                {k: f"d6-{k + 1}" for k in range(6)}, args.conf)
        figures["d6 finder"]["sizes"] = _sizes(finder.detector)
        sure = transfer_figures(dice, _sure(finder.detect), tuple(finder.detector.names), D6_KINDS,
                                {k: f"d6-{k + 1}" for k in range(6)}, DICE_CONF)
        figures["d6 finder, as the referee takes a throw"] = dict(sure, sizes=_sizes(finder.detector))
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(f"model: {args.weights}")
    for what, f in figures.items():
        right = "" if f["right"] is None else f", read right {100 * f['right']:.1f} %"
        found = "n/a" if f["found"] is None else f"{100 * f['found']:.1f} %"
        sizes = ", ".join(f"{n} px {k}" for n, k in f["sizes"].items())
        print(f"{what:9s} {f['images']} photos, {f['objects']} labelled: found {found}{right}, "
              f"{f['false_detections']} false detections ({f['false_on_an_object']} on a labelled one: loose or "
              f"twice; read at {sizes})")
        if f["found_by_centre"] is not None:
            right = "" if f["right_by_centre"] is None else f", read right {100 * f['right_by_centre']:.1f} %"
            loose = "-" if f["label_to_box"] is None else f"{f['label_to_box']:.2f}"
            print(f"{'':9s} matched by centre: found {100 * f['found_by_centre']:.1f} %{right}, "
                  f"{f['false_by_centre']} matching no labelled one (labels' side / boxes' side, median: {loose})")
    return 0


def _sure(detect):  # type: ignore[no-untyped-def]
    """``detect`` keeping only the dice the live referee would take a throw from: the finder
    at least ``DICE_CONF`` sure of the die and the face reader at least ``SURE_FACE`` of its face."""
    import numpy as np

    from tabletop.live.board import SURE_FACE

    def sure(frame):  # type: ignore[no-untyped-def]
        d = detect(frame)
        if d.face_confidence is None:
            return d
        return d[np.nan_to_num(np.asarray(d.face_confidence, float), nan=1.0) >= SURE_FACE]

    return sure


def _sizes(detector) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """The sizes the detector read the photos at since it was last asked (and forget them)."""
    used = {str(n): k for n, k in sorted(detector.sizes_used.items())}
    detector.sizes_used.clear()
    return used


if __name__ == "__main__":
    raise SystemExit(main())

"""The dice face reader alone: each labelled die of a dataset read from its labelled box.

    python3 benchmarks/dice_faces.py --data H [--reader models/when-gods-collide.faces.pt] [--json]

``H`` is a rendered held-out set (``tabletop render when-gods-collide --count 200 --seed 1001
--val 0 --out H``). Prints the share of dice whose face is read right, by kind of die and by
the box's longer side in pixels, and the share whose kind is right (the reader decides the
kind of a die too). With a detector in front (``tabletop eval``), a die must also be found;
this is the reader's own ceiling. The figures are :func:`vision.dice_faces.reader_figures`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a labelled dataset folder (data.yaml, images/, labels/)")
    parser.add_argument("--reader", default=str(ROOT / "models" / "when-gods-collide.faces.pt"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    import yaml

    from vision.dice_faces import FaceReader, FaceReaderError, dataset_names, reader_figures

    folder = Path(args.data)
    try:
        figures = reader_figures(FaceReader.load(args.reader), folder, dataset_names(folder))
    except (OSError, KeyError, yaml.YAMLError, FaceReaderError) as err:
        print(f"dice_faces: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(dict(figures, reader=args.reader, data=str(folder))))
        return 0

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f} %"

    print(f"reader: {args.reader}\ndata: {folder}")
    print(f"dice {figures['dice']}: face right {pct(figures['right'])}, kind right {pct(figures['kind_right'])}")
    for kind, f in figures["by_kind"].items():
        print(f"  {kind:<12} {f['dice']:>5} dice  {pct(f['right'])}")
    for side, f in figures["by_side_px"].items():
        print(f"  side {side:>7} px {f['dice']:>5} dice  {pct(f['right'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

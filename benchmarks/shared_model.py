"""One detector per game, or one shared by several games: both trained alike, measured alike.

    python3 benchmarks/shared_model.py [--games oneworld battle-grounds] [--epochs 8]
        [--own-epochs N] [--fraction 0.25] [--out runs/shared-model] [--tiles GAME=DIR ...]
        [--held GAME=DIR ...]

For each game it trains a nano detector from scratch on the game's training tiles (the ones
``tabletop train GAME`` cuts, default ``runs/train-GAME/tiles-320``), and one shared detector
on the union of the games' tiles (each game's classes kept apart, ``hand`` one class for all),
with the games' recipe settings (optimizer, learning rate, augmentation, image size, batch,
seed), ``--epochs`` epochs and ``--fraction`` of each game's training tiles: the shared model
sees every game's images the per-game models see, no more. In as many epochs it takes as
many steps as the per-game models together; ``--own-epochs`` (default ``--epochs``) trains
the per-game models longer, e.g. as many steps each as the shared model
(``--epochs`` times the number of games). Trained models are kept in ``--out`` by name and
epochs, and reused. Then each model is validated by
ultralytics on each game's held-out renders (default ``runs/held-GAME``, made with
``tabletop render GAME --count 200 --seed 1001 --val 0 --out DIR``) at 640 pixels, the
shared model with the labels mapped to its classes, and the script prints mAP50 and
mAP50-95 per game for both, and the time per 640x480 frame of each model (ultralytics, one
process, after warm-up).

A scaled-down run (a few epochs on a share of the tiles) shows which way the choice goes at
equal training, not what fully trained models reach.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pairs(values: list[str], flag: str) -> dict[str, Path]:
    out = {}
    for v in values:
        game, sep, folder = v.partition("=")
        if not sep:
            raise SystemExit(f"{flag} takes GAME=DIR, got {v!r}")
        out[game] = Path(folder)
    return out


def _names(folder: Path) -> list[str]:
    import yaml

    doc = yaml.safe_load((folder / "data.yaml").read_text(encoding="utf-8"))
    names = doc["names"]
    return [names[i] for i in range(len(names))] if isinstance(names, dict) else list(names)


def _mapped(src: Path, dst: Path, ids: list[int], names: list[str], prefix: str, into: str | None = None) -> None:
    """``src``'s images (linked) and labels (class ``k`` written as ``ids[k]``) into ``dst``,
    file names prefixed with ``prefix``, and a data.yaml of ``names``; ``into``: every split
    of ``src`` into this one (a held-out set: all of it to validate on)."""
    import yaml

    for split in sorted(p.name for p in (src / "images").iterdir() if p.is_dir()):
        to = into or split
        (dst / "images" / to).mkdir(parents=True, exist_ok=True)
        (dst / "labels" / to).mkdir(parents=True, exist_ok=True)
        for img in sorted((src / "images" / split).iterdir()):
            link = dst / "images" / to / f"{prefix}{img.name}"
            if not link.exists():
                os.symlink(img.resolve(), link)
            label = src / "labels" / split / f"{img.stem}.txt"
            rows = label.read_text(encoding="utf-8").splitlines() if label.is_file() else []
            out = [" ".join([str(ids[int(r.split()[0])]), *r.split()[1:]]) for r in rows if r.strip()]
            (dst / "labels" / to / f"{prefix}{img.stem}.txt").write_text("".join(x + "\n" for x in out))
    doc = {"path": str(dst.resolve()), "train": f"images/{into or 'train'}", "val": f"images/{into or 'val'}",
           "names": dict(enumerate(names))}
    (dst / "data.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def _validate(weights: Path, data: Path) -> tuple[float, float]:
    from ultralytics import YOLO

    m = YOLO(str(weights)).val(data=str(data / "data.yaml"), split="val", imgsz=640, batch=8,
                               device="cpu", workers=0, plots=False, verbose=False, project=str(data.parent / "val"),
                               name=data.name, exist_ok=True)
    return float(m.box.map50), float(m.box.map)


def _frame_ms(weights: Path, folder: Path, frames: int = 20) -> float:
    import statistics

    import cv2
    from ultralytics import YOLO

    model = YOLO(str(weights))
    images = sorted((folder / "images").rglob("*.*"))[:frames]
    pics = [cv2.imread(str(p)) for p in images]
    for p in pics[:3]:
        model.predict(p, imgsz=640, device="cpu", verbose=False)
    times = []
    for p in pics:
        t = time.perf_counter()
        model.predict(p, imgsz=640, device="cpu", verbose=False)
        times.append(1000 * (time.perf_counter() - t))
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=["oneworld", "battle-grounds"])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--own-epochs", type=int, default=None, help="epochs of the per-game models (default --epochs)")
    ap.add_argument("--fraction", type=float, default=0.25)
    ap.add_argument("--out", type=Path, default=Path("runs/shared-model"))
    ap.add_argument("--tiles", nargs="*", default=[], metavar="GAME=DIR")
    ap.add_argument("--held", nargs="*", default=[], metavar="GAME=DIR")
    args = ap.parse_args()
    if len(args.games) < 2:
        ap.error("a shared model needs two or more games")
    from vision.detect_train import load_recipe, train, with_overrides

    tiles = {g: Path(f"runs/train-{g}/tiles-320") for g in args.games} | _pairs(args.tiles, "--tiles")
    held = {g: Path(f"runs/held-{g}") for g in args.games} | _pairs(args.held, "--held")
    for g in args.games:
        if not (tiles[g] / "data.yaml").is_file():
            ap.error(f"no training tiles for {g} in {tiles[g]}: run 'tabletop train {g}' or give --tiles {g}=DIR")
        if not (held[g] / "data.yaml").is_file():
            ap.error(f"no held-out renders for {g} in {held[g]}: 'tabletop render {g} --count 200 --seed 1001 "
                     f"--val 0 --out DIR', then --held {g}=DIR")
    out = args.out.resolve()
    shared: list[str] = []
    for g in args.games:
        shared += [n for n in _names(tiles[g]) if n not in shared]
    for g in args.games:
        ids = [shared.index(n) for n in _names(tiles[g])]
        _mapped(tiles[g], out / "data-shared", ids, shared, f"{g}-")
        own = _names(held[g])
        _mapped(held[g], out / f"held-{g}-own", list(range(len(own))), own, "", "val")
        _mapped(held[g], out / f"held-{g}-shared", [shared.index(n) for n in own], shared, "", "val")
    base = load_recipe(args.games[0])
    results: dict[str, dict[str, float]] = {}
    models: dict[str, Path] = {}
    own_epochs = args.own_epochs or args.epochs
    for g in [*args.games, "shared"]:
        recipe = load_recipe(g) if g != "shared" else replace(base, game="shared")
        epochs = args.epochs if g == "shared" else own_epochs
        recipe = with_overrides(replace(recipe, then=()), epochs=epochs)
        data = tiles[g] / "data.yaml" if g != "shared" else out / "data-shared" / "data.yaml"
        target = out / f"{g}-{epochs}ep-{args.fraction:g}.pt"
        if not target.is_file():
            print(f"training {g} for {epochs} epochs on {args.fraction:g} of {data.parent}", flush=True)
            result = train(recipe, data, out / f"train-{g}-{epochs}", fraction=args.fraction)  # a run folder each
            shutil.copyfile(result.weights, target)
            print(f"  {result.seconds / 60:.1f} min", flush=True)
        models[g] = target
    for g in args.games:
        results[g] = {"own": _validate(models[g], out / f"held-{g}-own"),  # type: ignore[dict-item]
                      "shared": _validate(models["shared"], out / f"held-{g}-shared")}  # type: ignore[dict-item]
    print(f"\n{args.fraction:g} of each game's training tiles; per-game models {own_epochs} epochs, the shared one "
          f"{args.epochs}; held-out renders at 640 px")
    print("| game | classes (own / shared) | own model mAP50 / mAP50-95 | shared model mAP50 / mAP50-95 |")
    print("|---|---|---|---|")
    for g in args.games:
        own, sh = results[g]["own"], results[g]["shared"]
        print(f"| {g} | {len(_names(tiles[g]))} / {len(shared)} | {own[0]:.3f} / {own[1]:.3f} | "
              f"{sh[0]:.3f} / {sh[1]:.3f} |")
    for g in [*args.games, "shared"]:
        print(f"{g}: {_frame_ms(models[g], held[args.games[0]]):.1f} ms a 640x480 frame (ultralytics, median of 20)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Training detectors with ultralytics: from scratch on rendered data, or fine-tuning shipped weights.

A model's *recipe* (``models/<game>.json``, package data beside the weights) says how its
shipped weights were made: the architecture (an ultralytics model YAML, trained from
scratch, never a pretrained download), the rendered dataset (count, seed, image size, share
of hands), the epochs, image size, batch, seed and the few hyper-parameters changed from
ultralytics' defaults, and the held-out set it was measured on. An optional ``then``
section continues the training from the first stage's best weights on the same data for more
epochs with its own hyper-parameters (a fresh learning-rate schedule: how a model whose
accuracy was still rising gets more epochs without starting over). ``then`` may be a list of
such stages, each continuing from the one before; a stage's ``renders`` (``[{"count": N,
"seed": S}]``) adds the tiles of more renders to its training data (fresh layouts, grounds and
lights: how a model trained on few renders learns more without starting over). :func:`train`
runs them all; ``tabletop train`` (:mod:`tabletop.training`) is the command line.

>>> r = Recipe.from_json({"game": "oneworld", "architecture": "yolo11n.yaml",
...                       "data": {"count": 10, "seed": 1}, "train": {"epochs": 2}})
>>> r.epochs, r.imgsz, r.data_size, r.keypoints
(2, 640, (640, 480), False)
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from vision.detect import DetectorError, ultralytics_module

__all__ = [
    "EpochReport",
    "Recipe",
    "RecipeError",
    "TrainResult",
    "continue_training",
    "data_names",
    "later_stages",
    "load_recipe",
    "resolved_data_yaml",
    "stage_ordinal",
    "tile_dataset",
    "train",
    "union_data_yaml",
    "weights_names",
]


class RecipeError(DetectorError):
    """A recipe that is missing or malformed."""


@dataclass(frozen=True)
class Recipe:
    """How a shipped model is made (see the module docstring); values as in ``models/<game>.json``."""

    game: str
    architecture: str
    data_count: int
    data_seed: int
    data_size: tuple[int, int] = (640, 480)
    data_hands: float = 0.3
    #: the share of stacks the renders lay out side by side (``data.laid_out``; OneWorld's children)
    data_laid_out: float = 0.0
    data_val: float = 0.1
    epochs: int = 10
    imgsz: int = 640
    batch: int = 16
    seed: int = 0
    hyperparameters: Mapping[str, Any] = field(default_factory=dict)
    eval_count: int = 200
    eval_seed: int = 1001
    tile: int = 0  # > 0: train on tiles this many pixels square cut from the renders at full scale
    tiles_per_image: int = 2
    #: ``dice_faces`` section: the detector finds kinds of dice and a face reader reads them
    #: (:mod:`vision.dice_faces`); ``None``: every face is a detector class
    dice_faces: Mapping[str, Any] | None = None
    #: ``piece_reader`` section: a piece reader re-reads the class of each piece the detector
    #: finds (:mod:`vision.piece_reader`); ``None``: the detector's classes are reported
    piece_reader: Mapping[str, Any] | None = None
    #: ``facing_reader`` section: a facing reader reads which way each piece the detector
    #: finds faces (:mod:`vision.facing`); ``None``: the facing comes from the box and its dot
    facing_reader: Mapping[str, Any] | None = None
    #: ``stack_reader`` section: a stack reader counts the counters of each stack the detector
    #: boxes more than once (:mod:`vision.stack_reader`: OneWorld's); ``None``: no such reader
    stack_reader: Mapping[str, Any] | None = None
    #: ``train.dice_kinds``: the d6 finder's detector learns each kind of die as one class
    #: (``d6``, whatever the face: its face reader, the recipe's ``dice_faces``, reads the
    #: face), as a game's detector with a ``dice_faces`` section always does; ``False``: the d6
    #: finder's detector learns each face as its own class (a game's recipe ignores it)
    dice_kinds: bool = False
    #: ``then`` section: the stages after the first, each from the best weights of the one
    #: before (``{"epochs", "hyperparameters", "renders"}`` each; empty: one stage)
    then: tuple[Mapping[str, Any], ...] = ()
    #: a later stage's extra renders (``(count, seed, laid_out)`` each: ``laid_out`` is the
    #: share of stacks laid side by side, :class:`vision.render.RenderOptions`) whose tiles join
    #: its training data
    renders: tuple[tuple[int, int, float], ...] = ()
    #: a later stage's renders of games with d6 dice thrown among their pieces (``(game,
    #: count, seed)`` each; the dice labelled, the games' own pieces not): the d6 finder's, so
    #: that it learns dice beside a game's markers, counters and terrain, and those as no dice
    #: (:func:`vision.render.dice_scene.write_dice_among`)
    dice_among: tuple[tuple[str, int, int], ...] = ()
    #: where the detector trains (not read from the recipe file): ``"cpu"``, or a CUDA device such
    #: as ``"0"``; the result of a recipe does not depend on it beyond floating-point order
    device: str = "cpu"
    #: processes that render the images and, on a GPU, load training batches (on the CPU the
    #: batches load in the training process)
    workers: int = 2

    @property
    def keypoints(self) -> bool:
        """Whether the model is a pose model (The Game's front dot)."""
        return "pose" in self.architecture

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Recipe:
        try:
            data, tr, ev = doc["data"], doc.get("train", {}), doc.get("eval", {})
            kinds = _flag(tr.get("dice_kinds", False), "train.dice_kinds")
            if kinds and doc.get("dice_faces") is None:
                raise ValueError("train.dice_kinds needs a dice_faces section (the face reader that reads "
                                 "the faces of the dice the detector boxes)")
            return cls(
                game=str(doc["game"]),
                architecture=str(doc["architecture"]),
                data_count=int(data["count"]),
                data_seed=int(data["seed"]),
                data_size=tuple(int(v) for v in data.get("size", (640, 480))),  # type: ignore[arg-type]
                data_hands=float(data.get("hands", 0.3)),
                data_laid_out=float(data.get("laid_out", 0.0)),
                data_val=float(data.get("val", 0.1)),
                epochs=int(tr.get("epochs", 10)),
                imgsz=int(tr.get("imgsz", 640)),
                batch=int(tr.get("batch", 16)),
                seed=int(tr.get("seed", 0)),
                dice_kinds=kinds,
                hyperparameters=dict(doc.get("hyperparameters", {})),
                eval_count=int(ev.get("count", 200)),
                eval_seed=int(ev.get("seed", 1001)),
                tile=int(data.get("tile", 0)),
                tiles_per_image=int(data.get("tiles_per_image", 2)),
                dice_faces=dict(doc["dice_faces"]) if doc.get("dice_faces") is not None else None,
                piece_reader=dict(doc["piece_reader"]) if doc.get("piece_reader") is not None else None,
                facing_reader=dict(doc["facing_reader"]) if doc.get("facing_reader") is not None else None,
                stack_reader=dict(doc["stack_reader"]) if doc.get("stack_reader") is not None else None,
                then=_then_section(doc.get("then")),
            )
        except KeyError as err:
            raise RecipeError(f"malformed recipe: it has no {err.args[0]!r} (see models/GAME.json for one "
                              "that works)") from None
        except (TypeError, ValueError) as err:
            raise RecipeError(f"malformed recipe: {type(err).__name__}: {err}") from None


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} is true or false, not {value!r}")
    return value


def _then_section(doc: Any) -> tuple[dict[str, Any], ...]:
    if doc is None:
        return ()
    stages = []
    for stage in doc if isinstance(doc, list) else [doc]:
        epochs = int(stage["epochs"])
        if epochs < 1:
            raise ValueError(f"then.epochs must be at least 1, not {epochs}")
        renders = tuple((int(r["count"]), int(r["seed"]), float(r.get("laid_out", 0.0)))
                        for r in stage.get("renders", ()))
        if any(count < 2 for count, _, _ in renders):
            raise ValueError("then.renders: each needs a count of at least 2")
        if any(not 0.0 <= laid <= 1.0 for _, _, laid in renders):
            raise ValueError("then.renders: laid_out is a share, from 0 to 1")
        among = tuple((str(r["game"]), int(r["count"]), int(r["seed"])) for r in stage.get("dice_among", ()))
        if any(count < 2 for _, count, _ in among):
            raise ValueError("then.dice_among: each needs a count of at least 2")
        imgsz = stage.get("imgsz")
        if imgsz is not None and (int(imgsz) % 32 or not 32 <= int(imgsz) <= 4096):
            raise ValueError(f"then.imgsz must be a multiple of 32 from 32 to 4096, not {imgsz}")
        stages.append({"epochs": epochs, "hyperparameters": dict(stage.get("hyperparameters", {})),
                       "renders": renders, **({"dice_among": among} if among else {}),
                       **({"imgsz": int(imgsz)} if imgsz is not None else {})})
    return tuple(stages)


def later_stages(recipe: Recipe) -> list[Recipe]:
    """The recipes of the stages after ``recipe``'s first (its ``then`` section), in order:
    the same data, batch and seed; each stage's epochs and extra renders, its image size
    (``imgsz``, by default the recipe's), and its hyper-parameters over those of the stages
    before it. Empty when the recipe has one stage.

    >>> r = Recipe.from_json({"game": "the-game", "architecture": "yolo11n-pose.yaml",
    ...     "data": {"count": 10, "seed": 1}, "train": {"epochs": 24},
    ...     "hyperparameters": {"optimizer": "auto", "scale": 0.3},
    ...     "then": [{"epochs": 12, "hyperparameters": {"optimizer": "AdamW", "lr0": 0.001}},
    ...              {"epochs": 4, "hyperparameters": {"lr0": 0.0005}, "renders": [{"count": 30, "seed": 7}]}]})
    >>> [(s.epochs, dict(s.hyperparameters), s.renders) for s in later_stages(r)]  # doctest: +NORMALIZE_WHITESPACE
    [(12, {'optimizer': 'AdamW', 'scale': 0.3, 'lr0': 0.001}, ()),
     (4, {'optimizer': 'AdamW', 'scale': 0.3, 'lr0': 0.0005}, ((30, 7, 0.0),))]
    """
    hyper = dict(recipe.hyperparameters)
    stages = []
    for then in recipe.then:
        hyper = {**hyper, **then.get("hyperparameters", {})}
        stages.append(replace(recipe, epochs=int(then["epochs"]), hyperparameters=hyper, then=(),
                              renders=tuple(then.get("renders", ())), dice_among=tuple(then.get("dice_among", ())),
                              imgsz=int(then.get("imgsz", recipe.imgsz))))
    return stages


def load_recipe(game: str, path: str | os.PathLike[str] | None = None) -> Recipe:
    """The recipe of the model shipped for ``game`` (``models/<game>.json``), or the recipe
    file at ``path`` (a changed copy of it), which must be for ``game``."""
    source = resources.files("models") / f"{game}.json" if path is None else Path(path)
    name = f"models/{game}.json" if path is None else str(path)
    if not source.is_file():
        raise RecipeError(f"no training recipe for {game!r} (models/{game}.json is not shipped)" if path is None
                          else f"{path} is a folder, not a recipe file" if Path(path).is_dir()
                          else f"{path}: no such recipe file")
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RecipeError(f"{name}: invalid JSON at line {err.lineno}: {err.msg}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise RecipeError(f"{name}: cannot be read ({err})") from None
    recipe = Recipe.from_json(doc) if isinstance(doc, dict) else None
    if recipe is None:
        raise RecipeError(f"{name}: a recipe is a JSON object (see models/{game}.json)")
    if recipe.game != game:
        raise RecipeError(f"{name}: a recipe for {recipe.game!r}, not {game!r}")
    return recipe


def resolved_data_yaml(folder: Path, into: Path) -> tuple[Path, dict[str, Any]]:
    """Check an ultralytics dataset folder and write a copy of its ``data.yaml`` whose
    ``path`` is absolute (ultralytics otherwise resolves a relative path against its own
    datasets folder) into ``into``; return that copy and the parsed document."""
    import yaml  # a dependency of ultralytics

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise DetectorError(f"{folder} is a file, not a folder: give the dataset's folder (holding data.yaml)")
    if not folder.is_dir():
        raise DetectorError(f"{folder}: no such folder (give a dataset folder holding data.yaml)")
    src = folder / "data.yaml"
    if not src.is_file():
        raise DetectorError(f"{folder}: no data.yaml in it (an ultralytics dataset: data.yaml, images/, labels/)")
    try:
        doc = yaml.safe_load(src.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DetectorError(f"{src}: not a data.yaml (not UTF-8 text)") from None
    except yaml.YAMLError as err:
        line = getattr(getattr(err, "problem_mark", None), "line", None)
        where = f" at line {line + 1}" if line is not None else ""
        raise DetectorError(f"{src}: not valid YAML{where}") from None
    if not isinstance(doc, dict):
        raise DetectorError(f"{src}: expected a mapping with path, train, val and names")
    missing = [k for k in ("train", "val", "names") if k not in doc]
    if missing:
        raise DetectorError(f"{src}: missing {', '.join(missing)} (an ultralytics dataset needs train, val, names)")
    names = doc["names"]
    if isinstance(names, list):
        names = dict(enumerate(names))
    if not isinstance(names, dict) or not names:
        raise DetectorError(f"{src}: names must be a list or a mapping of class ids to names")
    try:
        names = {int(k): str(v) for k, v in names.items()}
    except (TypeError, ValueError):
        raise DetectorError(f"{src}: names must map whole class ids (0, 1, ...) to names, got "
                            f"{', '.join(repr(k) for k in names)}") from None
    base = Path(doc.get("path") or ".")  # no path: the folder itself
    if not base.is_absolute():
        base = (folder / base).resolve()
    for split in ("train", "val"):
        if not (base / str(doc[split])).exists():
            raise DetectorError(f"{src}: {split} images not found at {base / str(doc[split])}")
    doc = dict(doc, path=str(base), names=names)
    into.mkdir(parents=True, exist_ok=True)
    out = into / "data.yaml"
    out.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return out, doc


@dataclass(frozen=True)
class EpochReport:
    """One finished epoch, as the progress callback sees it."""

    epoch: int
    epochs: int
    seconds: float
    metrics: Mapping[str, float]


@dataclass(frozen=True)
class TrainResult:
    weights: Path
    seconds: float
    epochs: int
    run_dir: Path
    metrics: Mapping[str, float]


def stage_ordinal(n: int) -> str:
    """``1`` -> ``first``, ``2`` -> ``second``: how stage ``n`` of a recipe is named."""
    return ("first", "second", "third", "fourth", "fifth")[n - 1] if 1 <= n <= 5 else f"{n}th"


def _stage_name(k: int) -> str:
    """Where later stage ``k`` (0: the second stage) runs: ``run-then``, ``run-then-2``, ..."""
    return "run-then" if k == 0 else f"run-then-{k + 1}"


def train(recipe: Recipe, data_yaml: Path, out: Path, *, start_from: Path | None = None,
          progress: Callable[[EpochReport], None] | None = None, fraction: float = 1.0,
          verbose: bool = False, stage_data: Sequence[Path | None] = ()) -> TrainResult:
    """Train per ``recipe`` on ``data_yaml``; write ``out/<game>.pt``.

    ``start_from``: weights to fine-tune (a user's own photos); ``None`` trains from scratch
    from ``recipe.architecture`` (a model YAML: nothing is downloaded), then runs the
    recipe's later stages (``then``), each from the best weights of the stage before, which
    are kept as ``out/<game>.first-stage.pt`` (``second-stage``, ...). ``stage_data``: the
    dataset of each later stage where it differs from ``data_yaml`` (one with extra renders:
    :func:`union_data_yaml`). ``fraction`` uses that share of the training images (quick
    checks).
    """
    result = _train_stage(recipe, data_yaml, out, start_from=start_from, progress=progress, fraction=fraction,
                          verbose=verbose, name="run")
    if start_from is not None:
        return result
    seconds, epochs = result.seconds, result.epochs
    for k, stage in enumerate(later_stages(recipe)):
        kept = result.weights.with_name(f"{recipe.game}.{stage_ordinal(k + 1)}-stage.pt")
        shutil.copyfile(result.weights, kept)
        data = stage_data[k] if k < len(stage_data) and stage_data[k] is not None else data_yaml
        result = _train_stage(stage, Path(data), out, start_from=kept, progress=progress, fraction=fraction,
                              verbose=verbose, name=_stage_name(k))
        seconds, epochs = seconds + result.seconds, epochs + result.epochs
    return TrainResult(result.weights, seconds, epochs, result.run_dir, result.metrics)


def continue_training(recipe: Recipe, data_yaml: Path, out: Path, weights: Path, *,
                      progress: Callable[[EpochReport], None] | None = None, fraction: float = 1.0,
                      verbose: bool = False) -> TrainResult:
    """Run only ``recipe``'s last stage from ``weights``, the result of the stages before it
    (the shipped weights of a recipe whose last stage was added afterwards), on ``data_yaml``
    (that stage's dataset)."""
    stages = later_stages(recipe)
    if not stages:
        raise RecipeError(f"{recipe.game}'s recipe has no 'then' stage to continue with")
    return _train_stage(stages[-1], data_yaml, out, start_from=Path(weights), progress=progress, fraction=fraction,
                        verbose=verbose, name=_stage_name(len(stages) - 1))


def weights_names(weights: Path) -> tuple[str, ...] | None:
    """The class names of ultralytics weights ``weights``, in class order (``None`` where the
    file holds no model they can be read from)."""
    import torch

    try:
        ckpt = torch.load(str(weights), map_location="cpu", weights_only=False)
    except Exception:  # noqa: BLE001 - not a checkpoint this can read: the training says why
        return None
    model = (ckpt.get("ema") or ckpt.get("model")) if isinstance(ckpt, dict) else None
    names = getattr(model, "names", None)
    if isinstance(names, dict):
        return tuple(str(names[k]) for k in sorted(names))
    return tuple(str(n) for n in names) if isinstance(names, (list, tuple)) else None


def data_names(data_yaml: Path) -> tuple[str, ...]:
    """The class names of the dataset YAML ``data_yaml`` (a list, or a mapping of ids)."""
    import yaml

    names = yaml.safe_load(Path(data_yaml).read_text(encoding="utf-8"))["names"]
    return tuple(str(names[k]) for k in sorted(names)) if isinstance(names, dict) else tuple(str(n) for n in names)


def union_data_yaml(base: Path, extra: Sequence[Path], into: Path) -> Path:
    """A dataset YAML at ``into`` training on the training images of ``base`` and of every
    ``extra`` dataset YAML (the same classes), validated on ``base``'s validation images."""
    import yaml

    def resolved(path: Path, key: str) -> tuple[list[str], dict[str, Any]]:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        root = Path(doc.get("path") or Path(path).parent)
        if not root.is_absolute():
            root = (Path(path).parent / root).resolve()
        entries = doc[key] if isinstance(doc[key], list) else [doc[key]]
        return [str(root / e) for e in entries], doc

    train_dirs, doc = resolved(base, "train")
    val_dirs, _ = resolved(base, "val")
    for other in extra:
        dirs, other_doc = resolved(other, "train")
        if other_doc["names"] != doc["names"]:
            raise RecipeError(f"{other}: its classes differ from {base}'s")
        train_dirs += dirs
    into = Path(into)
    into.parent.mkdir(parents=True, exist_ok=True)
    kept = {k: v for k, v in doc.items() if k not in ("path", "train", "val")}
    into.write_text(yaml.safe_dump({"path": str(into.parent.resolve()), "train": train_dirs, "val": val_dirs, **kept},
                                   sort_keys=False), encoding="utf-8")
    return into


def _train_stage(recipe: Recipe, data_yaml: Path, out: Path, *, start_from: Path | None,
                 progress: Callable[[EpochReport], None] | None, fraction: float, verbose: bool,
                 name: str) -> TrainResult:
    ul = ultralytics_module()
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    model = ul.YOLO(str(start_from) if start_from is not None else recipe.architecture)
    began = time.perf_counter()

    def on_epoch(trainer: Any) -> None:
        if progress is None:
            return
        metrics = {k: float(v) for k, v in (getattr(trainer, "metrics", None) or {}).items()}
        progress(EpochReport(int(trainer.epoch) + 1, int(trainer.epochs), time.perf_counter() - began, metrics))

    model.add_callback("on_fit_epoch_end", on_epoch)
    args = dict(recipe.hyperparameters)
    args.update(
        data=str(data_yaml), epochs=recipe.epochs, imgsz=recipe.imgsz, batch=recipe.batch, seed=recipe.seed,
        device=recipe.device, workers=0 if recipe.device == "cpu" else recipe.workers, plots=False,
        project=str(out), name=name, exist_ok=True, amp=False, fraction=fraction, verbose=verbose,
        deterministic=True,
    )
    model.train(**args)
    seconds = time.perf_counter() - began
    trainer = model.trainer
    best = Path(trainer.best) if Path(trainer.best).is_file() else Path(trainer.last)
    target = out / f"{recipe.game}.pt"
    shutil.copyfile(best, target)
    metrics = {k: float(v) for k, v in (getattr(trainer, "metrics", None) or {}).items()}
    return TrainResult(target, seconds, recipe.epochs, Path(trainer.save_dir), metrics)


def with_overrides(recipe: Recipe, **changes: Any) -> Recipe:
    """``recipe`` with the given fields replaced (``None`` values ignored)."""
    return replace(recipe, **{k: v for k, v in changes.items() if v is not None})


def tile_dataset(src: Path, dst: Path, tile: int, per_image: int, seed: int) -> Path:
    """Cut ``per_image`` square tiles of ``tile`` pixels from every image of the ultralytics
    dataset ``src`` (full scale, no resizing) into ``dst``, with their labels; returns
    ``dst/data.yaml``.

    Pieces are small (10 to 30 pixels in a 640x480 frame), so the detector must learn them
    at full scale; a 320-pixel tile costs a quarter of a 640-pixel frame to train on, and a
    network that is all convolutions then runs on whole frames. The first tile of an image
    is centred near a random labelled piece, the others anywhere in the image (so the
    table, clutter and hands are seen too). A box is kept when at least half of it lies in
    the tile (clipped to it); a keypoint outside the tile becomes ``0 0 0``. Deterministic
    for a given ``seed``.
    """
    import cv2
    import numpy as np
    import yaml

    src, dst = Path(src), Path(dst)
    doc = yaml.safe_load((src / "data.yaml").read_text(encoding="utf-8"))
    rng = np.random.default_rng(seed)
    for split in ("train", "val"):
        (dst / "images" / split).mkdir(parents=True, exist_ok=True)
        (dst / "labels" / split).mkdir(parents=True, exist_ok=True)
        folder = src / "images" / split
        for img_path in sorted(folder.iterdir()) if folder.is_dir() else []:
            image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            h, w = image.shape[:2]
            label_path = src / "labels" / split / f"{img_path.stem}.txt"
            rows = [ln.split() for ln in label_path.read_text().splitlines() if ln.strip()] \
                if label_path.is_file() else []
            boxes = np.array([[float(v) for v in r[1:5]] for r in rows], float).reshape(-1, 4)
            px = boxes * [w, h, w, h]
            for k in range(per_image):
                size = min(tile, w, h)
                if k == 0 and len(px):
                    cx, cy = px[int(rng.integers(len(px))), :2] + rng.normal(0, size / 6, 2)
                else:
                    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
                x0 = int(np.clip(round(cx - size / 2), 0, w - size))
                y0 = int(np.clip(round(cy - size / 2), 0, h - size))
                lines = []
                for r, (bx, by, bw, bh) in zip(rows, px):
                    a = np.array([bx - bw / 2, by - bh / 2, bx + bw / 2, by + bh / 2]) - [x0, y0, x0, y0]
                    c = a.clip(0, size)
                    area = max((a[2] - a[0]) * (a[3] - a[1]), 1e-9)
                    if (c[2] - c[0]) * (c[3] - c[1]) < 0.5 * area or min(c[2] - c[0], c[3] - c[1]) < 2:
                        continue
                    out = [r[0], (c[0] + c[2]) / 2 / size, (c[1] + c[3]) / 2 / size, (c[2] - c[0]) / size,
                           (c[3] - c[1]) / size]
                    if len(r) >= 8:  # one keypoint: x y v
                        kx, ky, v = float(r[5]) * w - x0, float(r[6]) * h - y0, int(float(r[7]))
                        if v and 0 <= kx < size and 0 <= ky < size:
                            out += [kx / size, ky / size, v]
                        else:
                            out += [0.0, 0.0, 0]
                    lines.append(" ".join(f"{v:.6f}" if isinstance(v, float) else str(v) for v in out))
                stem = f"{img_path.stem}_{k}"
                cv2.imwrite(str(dst / "images" / split / f"{stem}.jpg"), image[y0:y0 + size, x0:x0 + size],
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
                (dst / "labels" / split / f"{stem}.txt").write_text("".join(ln + "\n" for ln in lines))
    out_doc = {k: v for k, v in doc.items() if k not in ("path",)}
    out_doc = dict(path=str(dst.resolve()), **{k: v for k, v in out_doc.items() if k != "path"})
    out_doc["train"], out_doc["val"] = "images/train", "images/val"
    (dst / "data.yaml").write_text(yaml.safe_dump(out_doc, sort_keys=False), encoding="utf-8")
    return dst / "data.yaml"

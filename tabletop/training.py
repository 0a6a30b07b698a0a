"""``tabletop train`` and ``tabletop eval``: make and measure the piece detectors.

    tabletop train GAME [--data DIR] [--epochs N] [--imgsz N] [--seed S] [--out DIR]
    tabletop eval GAME --data DIR [--weights W] [--backend auto|ultralytics|onnx]

Without ``--data``, ``train`` renders a fresh dataset with the renderer, seeded as the
shipped model's recipe says (``models/<game>.json``), and trains from scratch: the recipe
of the shipped weights, reproduced. With ``--data DIR`` it fine-tunes the shipped weights on
your own labelled photos (an ultralytics dataset). ``eval`` prints mAP50-95, per-cell and
whole-board accuracy, facing error, dice accuracy and a confusion table
(:mod:`vision.detect_eval`). docs/models.md describes both. Nothing heavy is imported until
a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tabletop.argtypes import image_size, share, whole
from tabletop.errors import InputError, TabletopError

__all__ = ["TrainingError", "add_eval_parser", "add_train_parser", "run_eval", "run_train"]


class TrainingError(TabletopError, ValueError):
    """A training or evaluation request that cannot be carried out (bad dataset, no weights)."""


def add_train_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], parser_class: type,
                     exit_text: str) -> argparse.ArgumentParser:
    """Register ``train`` on the ``tabletop`` subparsers."""
    cmd = commands.add_parser(
        "train",
        help="train a game's piece detector: from scratch on renders, or fine-tune on your photos",
        description=(
            "Without --data: render a fresh dataset of GAME with the renderer, seeded as the shipped\n"
            "model's recipe says (models/GAME.json), and train a nano YOLO model from scratch with\n"
            "the recipe's epochs, image size and seed: this reproduces the shipped weights' recipe.\n"
            "With --data DIR: fine-tune the shipped weights on your own labelled photos (an\n"
            "ultralytics dataset: DIR/data.yaml, DIR/images/{train,val}, DIR/labels/{train,val}).\n"
            "The weights are written to OUT/GAME.pt; use them with\n"
            "'tabletop eval GAME --data DIR --weights OUT/GAME.pt'. Nothing is downloaded."
        ),
        formatter_class=formatter,
        epilog=(
            "examples:\n"
            "  tabletop train oneworld --out runs/oneworld-model\n"
            "  tabletop train oneworld --data my-photos --epochs 30 --out runs/mine\n\n"
            "Step by step: docs/models.md.\n\n" + exit_text
        ),
    )
    cmd.add_argument("game", metavar="GAME", help="the game's short name, e.g. oneworld (see 'tabletop games'), or d6: "
                                                 "the d6 finder, which reads ordinary dice beside any game")
    cmd.add_argument("--data", metavar="DIR", help="fine-tune on this ultralytics dataset instead of renders")
    cmd.add_argument("--epochs", type=whole("epochs", 1, 10_000), metavar="N",
                     help="epochs (default: the recipe's; 30 when fine-tuning; with --continue, "
                          "the last stage's)")
    cmd.add_argument("--imgsz", type=image_size, metavar="N",
                     help="training image size (default: the recipe's; 640 when fine-tuning)")
    cmd.add_argument("--seed", type=whole("", 0, 2**31 - 1, "the seed"), metavar="S",
                     help="training seed (default: the recipe's)")
    cmd.add_argument("--count", type=whole("images", 2, 1_000_000, "the count"), metavar="N",
                     help="images to render (default: the recipe's; ignored with --data)")
    cmd.add_argument("--fraction", type=share(zero=False), default=1.0, metavar="SHARE",
                     help="train on this share of the training images (quick trials; default 1)")
    cmd.add_argument("--out", metavar="DIR", help="where to write data, runs and weights (default: runs/train-GAME)")
    cmd.add_argument("--faces-only", action="store_true",
                     help="train only the dice face reader (games whose recipe has one) and stop")
    cmd.add_argument("--pieces-only", action="store_true",
                     help="train only the piece reader (games whose recipe has one) and stop")
    cmd.add_argument("--stacks-only", action="store_true",
                     help="train only the stack reader (OneWorld: how many counters a stack holds) and stop")
    cmd.add_argument("--facing-only", action="store_true",
                     help="train only the facing reader (The Game: which way each piece faces) and stop")
    cmd.add_argument("--continue", dest="continue_from", metavar="WEIGHTS",
                     help="run only the recipe's last stage (the last of its 'then' section) from "
                          "WEIGHTS, the result of the stages before it, e.g. the shipped weights")
    cmd.add_argument("--recipe", metavar="FILE",
                     help="train with this recipe file instead of the shipped models/GAME.json "
                          "(a changed copy of it: more renders, other epochs or hyper-parameters)")
    cmd.add_argument("--device", default="cpu", metavar="DEV",
                     help="where the detector trains: cpu (default), or a CUDA GPU's number, e.g. 0; "
                          "the readers of crops train on the CPU")
    cmd.add_argument("--workers", type=whole("workers", 1, 64), default=2, metavar="N",
                     help="processes that render images (default 2); on a GPU, also those that load "
                          "training batches")
    cmd.set_defaults(run=run_train)
    return cmd


def add_eval_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], parser_class: type,
                    exit_text: str) -> argparse.ArgumentParser:
    """Register ``eval`` on the ``tabletop`` subparsers."""
    cmd = commands.add_parser(
        "eval",
        help="measure a detector on a labelled dataset: mAP, cells, boards, facing, dice",
        description=(
            "Run a detector over every image of DIR (an ultralytics dataset; a rendered one has\n"
            "truth/ too) and print mAP50-95 (from the label files), per-cell accuracy and\n"
            "whole-board accuracy (detections mapped through each frame's board homography to\n"
            "cells; every cell in view counts, empty or not; the cells read wrong told apart:\n"
            "missed, phantom, wrong piece, wrong count), facing error (The Game), dice\n"
            "accuracy and a confusion table. Every figure is computed from the files."
        ),
        formatter_class=formatter,
        epilog=(
            "examples:\n"
            "  tabletop render oneworld --count 200 --seed 1001 --out runs/heldout\n"
            "  tabletop eval oneworld --data runs/heldout\n"
            "  tabletop eval oneworld --data runs/heldout --weights runs/mine/oneworld.pt --json\n\n" + exit_text
        ),
    )
    cmd.add_argument("game", metavar="GAME", help="the game's short name, e.g. oneworld (see 'tabletop games')")
    cmd.add_argument("--data", required=True, metavar="DIR", help="the dataset folder (holding images/ and labels/)")
    cmd.add_argument("--weights", metavar="W", help="weights to measure (.pt or .onnx; default: the shipped ones)")
    cmd.add_argument("--backend", choices=("auto", "ultralytics", "onnx", "openvino"), default="auto",
                     help="inference backend (default: auto, the fastest one installed: openvino, onnx, "
                          "ultralytics)")
    cmd.add_argument("--split", metavar="NAME", help="only images/NAME (default: every split)")
    cmd.add_argument("--imgsz", type=image_size, metavar="N",
                     help="inference size: frames are scaled to fit N pixels on their longer side (default: the "
                          "size the model reads frames at)")
    cmd.add_argument("--conf", type=float, default=0.25, metavar="C",
                     help="confidence threshold for cells, dice, facing and confusions (default 0.25)")
    cmd.add_argument("--json", action="store_true", help="print the figures as one JSON object instead")
    cmd.set_defaults(run=run_eval)
    return cmd


def _check_game(game: str) -> None:
    from models import DICE_FINDER
    from rules.registry import get_game

    if game != DICE_FINDER:  # the d6 finder is trained like a game's detector
        get_game(game)  # an unknown game: one line, exit 2 (RulesError)


def _check_cuda(device: str) -> None:
    """Raise :class:`InputError` unless ``device`` names CUDA GPUs this machine has."""
    import torch

    if not torch.cuda.is_available():
        raise InputError("--device", f"{device}: no CUDA GPU is usable on this machine (train with --device cpu)")
    count = torch.cuda.device_count()
    for part in device.split(","):
        if not part.strip().isdigit() or int(part) >= count:
            raise InputError("--device", f"{part.strip()!r}: not a GPU of this machine (it has {count}: "
                             f"0 to {count - 1})")


def _stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def run_train(args: argparse.Namespace, out: TextIO) -> int:
    """Render (or read) a dataset and train; say where the weights went."""
    _check_game(args.game)
    from models import DICE_FINDER
    from vision.detect import DetectorError
    from vision.detect_train import (
        EpochReport,
        RecipeError,
        continue_training,
        data_names,
        later_stages,
        load_recipe,
        resolved_data_yaml,
        stage_ordinal,
        tile_dataset,
        train,
        weights_names,
        with_overrides,
    )

    try:
        path = getattr(args, "recipe", None)
        recipe = load_recipe(args.game) if path is None else load_recipe(args.game, path)
    except RecipeError as err:
        raise TrainingError(str(err)) from None
    device = str(getattr(args, "device", "cpu") or "cpu")
    if device != "cpu":
        _check_cuda(device)
    recipe = with_overrides(recipe, device=device, workers=getattr(args, "workers", None))
    if args.faces_only and (recipe.dice_faces is None or args.data):
        raise InputError("--faces-only", f"{args.game}'s recipe has no dice face reader"
                         if recipe.dice_faces is None else "the face reader is trained on renders, not with --data")
    if args.pieces_only and (recipe.piece_reader is None or args.data or args.faces_only):
        raise InputError("--pieces-only", f"{args.game}'s recipe has no piece reader" if recipe.piece_reader is None
                         else "the piece reader is trained on renders alone: not with --data or --faces-only")
    if args.facing_only and (recipe.facing_reader is None or args.data or args.faces_only or args.pieces_only):
        raise InputError("--facing-only", f"{args.game}'s recipe has no facing reader" if recipe.facing_reader is None
                         else "the facing reader is trained on renders alone: not with --data, --faces-only "
                              "or --pieces-only")
    stacks_only = bool(getattr(args, "stacks_only", False))
    if stacks_only and (recipe.stack_reader is None or args.data or args.faces_only or args.pieces_only
                        or args.facing_only):
        raise InputError("--stacks-only", f"{args.game}'s recipe has no stack reader" if recipe.stack_reader is None
                         else "the stack reader is trained on renders alone: not with --data, --faces-only, "
                              "--pieces-only or --facing-only")
    continue_from = args.continue_from
    if continue_from is not None:
        if args.data or args.faces_only or args.pieces_only or args.facing_only or stacks_only:
            raise InputError("--continue", "continues a training on renders: not with --data, --faces-only, "
                             "--pieces-only, --facing-only or --stacks-only")
        if not recipe.then:
            raise InputError("--continue", f"{args.game}'s recipe has no second stage ('then' section)")
        if not Path(continue_from).is_file():
            raise InputError("--continue", f"{continue_from}: no such weights file")
        if not zipfile.is_zipfile(continue_from):  # what torch.save writes: checked before any rendering
            raise InputError("--continue", f"{continue_from}: not a weights file (a PyTorch .pt checkpoint, "
                             "such as models/GAME.pt or a training's GAME.pt)")
    folder = Path(args.out or f"runs/train-{args.game}")
    if folder.exists() and not folder.is_dir():
        raise InputError("--out", f"{folder} is a file, not a folder")
    start_from = None
    share = 1.0  # a quick trial (--count) renders this share of every rendered set
    if args.data:
        data_dir = Path(args.data)
        try:
            yaml_path, doc = resolved_data_yaml(data_dir, folder)
        except DetectorError as err:
            raise InputError("--data", str(err)) from None
        import models

        try:
            start_from = models.weights_path(args.game)
        except models.ModelNotFoundError as err:
            raise TrainingError(f"cannot fine-tune: {err}") from None
        # whole photos at the detector's own input size (no tiles: photos come at any size)
        recipe = with_overrides(recipe, epochs=args.epochs or 30, imgsz=args.imgsz or 640, seed=args.seed, tile=0)
        out.write(f"fine-tuning the shipped {args.game} model on {data_dir} ({len(doc['names'])} classes)\n")
        if recipe.dice_faces is not None and recipe.game == DICE_FINDER and recipe.dice_kinds:
            yaml_path = _fine_tune_dice(args.game, start_from, data_dir, folder, out)  # one class: a die
        elif recipe.dice_faces is not None and recipe.game == DICE_FINDER:
            import shutil

            from vision.dice_faces import faces_path

            folder.mkdir(parents=True, exist_ok=True)  # it reads a die's pixels: it serves the new weights too
            shutil.copyfile(faces_path(start_from), faces_path(folder / f"{args.game}.pt"))
            out.write("the shipped face reader reads the faces of the fine-tuned weights' dice\n")
        elif recipe.dice_faces is not None:
            yaml_path = _fine_tune_dice(args.game, start_from, data_dir, folder, out)
        if recipe.facing_reader is not None:
            import shutil

            from vision.facing import facing_path

            if facing_path(start_from).is_file():  # it reads pixels, not classes: it serves the new weights too
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(facing_path(start_from), facing_path(folder / f"{args.game}.pt"))
                out.write("the shipped facing reader reads the facings of the fine-tuned weights' pieces\n")
        if recipe.stack_reader is not None:
            import shutil

            from vision.stack_reader import stacks_path

            if stacks_path(start_from).is_file():  # it counts pixels, not classes: it serves the new weights too
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(stacks_path(start_from), stacks_path(folder / f"{args.game}.pt"))
                out.write("the shipped stack reader counts the stacks of the fine-tuned weights' counters\n")
        if recipe.piece_reader is not None:
            from vision.piece_reader import pieces_path

            out.write("the shipped piece reader learnt the rendered pieces, not yours: the fine-tuned weights "
                      "report their own classes\n")
            stale = pieces_path(folder / f"{args.game}.pt")
            if stale.is_file():  # a reader of an earlier training here would re-read the new weights' pieces
                stale.unlink()
                out.write(f"removed {stale} (a piece reader of an earlier training in {folder})\n")
    else:
        if continue_from is not None and args.epochs and recipe.then:  # the stage that runs
            recipe = with_overrides(recipe, then=(*recipe.then[:-1], {**recipe.then[-1], "epochs": args.epochs}))
        else:
            recipe = with_overrides(recipe, epochs=args.epochs)
        share = args.count / recipe.data_count if args.count else 1.0
        recipe = with_overrides(recipe, imgsz=args.imgsz, seed=args.seed, data_count=args.count)
        yaml_path = _render(recipe, folder / "data", out)
        if recipe.tile:
            tiles = folder / f"tiles-{recipe.tile}"
            if not (tiles / "data.yaml").is_file():
                out.write(f"cutting {recipe.tiles_per_image} tiles of {recipe.tile} px from each image into {tiles}\n")
                out.flush()
                tile_dataset(folder / "data", tiles, recipe.tile, recipe.tiles_per_image, recipe.data_seed)
            yaml_path = tiles / "data.yaml"
        if recipe.facing_reader is not None and continue_from is None and not (args.faces_only or args.pieces_only
                                                                               or stacks_only):
            _facing_reader_stage(recipe, folder, out, again=args.facing_only, share=share)
            if args.facing_only:
                return 0
        if recipe.dice_faces is not None and not (args.pieces_only or stacks_only) and recipe.game == DICE_FINDER:
            _d6_face_reader(recipe, folder, out, again=args.faces_only, share=share)  # it reads its dice's faces again
            if args.faces_only:
                return 0
            if recipe.dice_kinds:
                yaml_path = _dice_kinds_data(yaml_path, out)
        elif recipe.dice_faces is not None and not (args.pieces_only or stacks_only):
            yaml_path = _dice_in_two_stages(recipe, folder, yaml_path, out, again=args.faces_only, share=share)
            if args.faces_only:
                return 0
        if recipe.stack_reader is not None and continue_from is None and not (args.faces_only or args.pieces_only):
            _stack_reader_stage(recipe, folder, out, again=stacks_only, share=share)
            if stacks_only:
                return 0
        if recipe.piece_reader is not None and not args.faces_only:
            _piece_reader_stage(recipe, folder, out, again=args.pieces_only, share=share)
            if args.pieces_only:
                return 0
    stages = later_stages(recipe) if start_from is None else []
    stage_data: list[Path | None] = []
    if stages:
        if any(stage.renders for stage in stages) and recipe.dice_faces is not None:
            raise TrainingError(f"{args.game}'s recipe adds renders to a later stage: not with a dice face reader")
        ran = stages[-1:] if continue_from is not None else stages  # --continue: the last stage alone
        skipped = len(stages) - len(ran)
        stage_data = [None] * skipped + [_stage_data(stage, skipped + k, folder, yaml_path, out, share)
                                         for k, stage in enumerate(ran)]
    if continue_from is not None and stages:
        yaml_path = stage_data[-1] or yaml_path
        # ultralytics would start the class head of weights of other classes afresh, unsaid
        # (the d6 finder's weights of a class a face, continued where the recipe learns one)
        had, learns = weights_names(Path(continue_from)), data_names(yaml_path)
        if had is not None and had != learns:
            raise InputError("--continue", f"{continue_from} finds {', '.join(had)}; this training learns "
                             f"{', '.join(learns)}: continue weights of the same classes")
        out.write(f"continuing {continue_from} for {stages[-1].epochs} epochs (the recipe's "
                  f"{stage_ordinal(len(stages) + 1)} stage) at {stages[-1].imgsz} px into {folder}\n")
    else:
        more = "".join(f", then {s.epochs} more from its best weights" for s in stages)
        out.write(f"training {recipe.architecture} for {recipe.epochs} epochs{more} at {recipe.imgsz} px "
                  f"(seed {recipe.seed}) into {folder}\n")
    out.flush()

    def progress(r: EpochReport) -> None:
        if r.epoch > r.epochs:  # ultralytics' final validation of the best weights
            return
        m = r.metrics
        score = next((m[k] for k in ("metrics/mAP50-95(P)", "metrics/mAP50-95(B)") if k in m), None)
        per = r.seconds / r.epoch
        left = per * (r.epochs - r.epoch)
        shown = "" if score is None else f", validation mAP50-95 {score:.3f}"
        _stderr_line(f"epoch {r.epoch}/{r.epochs} done{shown} ({r.seconds:.0f} s, about {left:.0f} s left)")

    try:
        if continue_from is not None:
            result = continue_training(recipe, yaml_path, folder, Path(continue_from), progress=progress,
                                       fraction=args.fraction)
        else:
            result = train(recipe, yaml_path, folder, start_from=start_from, progress=progress,
                           fraction=args.fraction, stage_data=stage_data)
    except DetectorError as err:
        raise TrainingError(str(err)) from None
    took = f"{result.seconds:.0f} s" if result.seconds < 120 else f"{result.seconds / 60:.1f} min"
    out.write(f"trained in {took}; weights: {result.weights}\n"
              f"measure them: tabletop eval {args.game} --data DIR --weights {result.weights}\n")
    return 0


def _dice_in_two_stages(recipe: Any, folder: Path, yaml_path: Path, out: TextIO, again: bool = False,
                        share: float = 1.0) -> Path:
    """Train the dice face reader on the full-size renders and its recipe's more renders
    (``share`` of them in a quick trial), once (``again`` retrains it), and give the detector a
    copy of its dataset with each kind of die as one class."""
    from vision.dice_faces import dataset_names, faces_path

    reader_path = faces_path(folder / f"{recipe.game}.pt")
    if not _trained_before("face reader", reader_path, again, out):
        reader = _train_faces(recipe, folder, dataset_names(folder / "data"), out, share)
        m = reader.metrics
        _save_reader("face reader", reader, reader_path, f"{m['val_accuracy']:.1%} of {m['val_dice']} validation dice "
                     "read right", out)
    return _dice_kinds_data(yaml_path, out)


def _dice_kinds_data(yaml_path: Path, out: TextIO) -> Path:
    """A copy of the dataset of ``yaml_path`` beside it with each kind of die as one detector
    class (made once), for a detector whose face reader reads the faces."""
    from vision.dice_faces import merge_dataset

    merged = yaml_path.parent.with_name(yaml_path.parent.name + "-dice-kinds")
    if not (merged / "data.yaml").is_file():
        out.write(f"relabelling each kind of die as one detector class into {merged}\n")
        out.flush()
        merge_dataset(yaml_path.parent, merged)
    return merged / "data.yaml"


def _piece_reader_stage(recipe: Any, folder: Path, out: TextIO, again: bool = False, share: float = 1.0) -> Path:
    """Train the piece reader on the full-size renders and its recipe's more renders
    (``share`` of them in a quick trial), once (``again`` retrains it), and save it beside
    the weights the training writes."""
    from vision.dice_faces import dataset_names
    from vision.piece_reader import PieceReaderError, PieceTraining, pieces_path, train_piece_reader

    reader_path = pieces_path(folder / f"{recipe.game}.pt")
    if _trained_before("piece reader", reader_path, again, out):
        return reader_path
    try:
        settings = PieceTraining.from_json(dict(recipe.piece_reader))
        assert settings is not None
        more = _reader_renders("piece reader", "pieces", settings, recipe, folder, share, out)
        from vision.artwork import get_kit

        groups = {name: kind.group for name, kind in get_kit(recipe.game).pieces.items()}
        reader = train_piece_reader(folder / "data", dataset_names(folder / "data"), settings,
                                    _epoch_progress("piece reader", "validation accuracy"), groups, more)
    except PieceReaderError as err:
        raise TrainingError(str(err)) from None
    m = reader.metrics
    return _save_reader("piece reader", reader, reader_path, f"{m['val_accuracy']:.1%} of {m['val_pieces']} validation "
                        "pieces read right", out)


def _reader_renders(kind: str, what: str, settings: Any, recipe: Any, folder: Path, share: float,
                    out: TextIO) -> list[Path]:
    """The folders of a crop reader's more renders (``settings.renders``, ``share`` of each in
    a quick trial), rendered once, and the line saying what the reader ``kind`` trains on."""
    more = [_extra_render(recipe, folder, r.count, r.seed, share, out, r.size).parent for r in settings.renders]
    also = "".join(f" and {m}" for m in more)
    out.write(f"training the {kind} for {settings.epochs} epochs on {settings.size} px crops of the "
              f"{what} of {folder / 'data'}{also}\n")
    out.flush()
    return more


def _stack_reader_stage(recipe: Any, folder: Path, out: TextIO, again: bool = False, share: float = 1.0) -> Path:
    """Train the stack reader on the stacks of the full-size renders and its recipe's more
    renders (``share`` of them in a quick trial), once (``again`` retrains it), and save it
    beside the weights the training writes."""
    from vision.stack_reader import StackReaderError, StackTraining, stacks_path, train_stack_reader

    reader_path = stacks_path(folder / f"{recipe.game}.pt")
    if _trained_before("stack reader", reader_path, again, out):
        return reader_path
    try:
        settings = StackTraining.from_json(dict(recipe.stack_reader))
        assert settings is not None
        more = _reader_renders("stack reader", "stacks", settings, recipe, folder, share, out)
        reader = train_stack_reader(folder / "data", settings, more, _epoch_progress("stack reader",
                                                                                     "validation accuracy"))
    except StackReaderError as err:
        raise TrainingError(str(err)) from None
    m = reader.metrics
    return _save_reader("stack reader", reader, reader_path, f"{m['val_accuracy']:.1%} of {m['val_stacks']} "
                        "validation stacks counted right", out)


def _facing_reader_stage(recipe: Any, folder: Path, out: TextIO, again: bool = False,
                         share: float = 1.0) -> Path | None:
    """Train the facing reader on the full-size renders and the recipe's extra renders
    (``share`` of their count; once: ``again`` retrains it) and save it beside the weights the
    training writes."""
    from vision.facing import FacingReaderError, FacingTraining, facing_path, train_facing_reader

    reader_path = facing_path(folder / f"{recipe.game}.pt")
    if _trained_before("facing reader", reader_path, again, out):
        return reader_path
    try:
        settings = FacingTraining.from_json(dict(recipe.facing_reader))
        assert settings is not None
        folders = [folder / "data"]
        for count, seed in settings.renders:  # more pieces than the detector's renders hold
            folders.append(_extra_render(recipe, folder, count, seed, share, out).parent)
        out.write(f"training the facing reader for {settings.epochs} epochs on {settings.size} px crops of the "
                  f"pieces of {', '.join(map(str, folders))}\n")
        out.flush()
        reader = train_facing_reader(folders, settings, _epoch_progress("facing reader", "validation within 5 deg"))
    except FacingReaderError as err:
        if again:
            raise TrainingError(str(err)) from None
        out.write(f"no facing reader trained ({err}): the facings come from the boxes and dots\n")
        return None
    m = reader.metrics
    return _save_reader("facing reader", reader, reader_path, f"validation error median {m.get('val_median_deg')} deg, "
                        f"95th percentile {m.get('val_p95_deg')} deg on {m['val_pieces']} pieces", out)


def _trained_before(kind: str, path: Path, again: bool, out: TextIO) -> bool:
    """Whether a reader trained before is at ``path`` to be used (said on ``out``); ``again``:
    never, it is trained anew."""
    if again or not path.is_file():
        return False
    out.write(f"using the {kind} already trained: {path}\n")
    return True


def _epoch_progress(kind: str, figure: str) -> Callable[[int, int, float, float], None]:
    """A reader training's progress line on standard error: its loss and validation ``figure``
    after each epoch."""

    def progress(epoch: int, epochs: int, loss: float, value: float) -> None:
        _stderr_line(f"{kind} epoch {epoch}/{epochs}: loss {loss:.3f}, {figure} {value:.1%}")

    return progress


def _save_reader(kind: str, reader: Any, path: Path, figures: str, out: TextIO) -> Path:
    """Save a reader just trained at ``path`` and say its validation ``figures`` and time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    reader.save(path)
    out.write(f"{kind}: {figures} ({reader.metrics['seconds']:.0f} s); saved {path}\n")
    return path


def _extra_render(recipe: Any, folder: Path, count: int, seed: int, share: float, out: TextIO,
                  size: tuple[int, int] | None = None, laid_out: float = 0.0) -> Path:
    """Render ``count`` more images (``share`` of them in a quick trial) with ``seed`` into
    ``folder/data-seed<seed>`` once (at ``size`` instead of the recipe's image size:
    ``folder/data-seed<seed>-<W>x<H>``; with a share ``laid_out`` of stacks laid side by side:
    ``-laid<percent>``); the dataset's YAML."""
    from vision.detect_train import with_overrides

    name = f"data-seed{seed}" + (f"-{size[0]}x{size[1]}" if size else "") + _laid(laid_out)
    return _render(with_overrides(recipe, data_count=max(2, round(count * share)), data_seed=seed, data_size=size,
                                  data_laid_out=laid_out), folder / name, out)


def _laid(laid_out: float) -> str:
    """The folder suffix of renders with a share ``laid_out`` of stacks laid side by side: its
    percent, whole (``-laid30``) or not (``-laid12.5``: no two shares share a folder)."""
    return f"-laid{100 * laid_out:.10g}" if laid_out else ""


def _stage_data(stage: Any, k: int, folder: Path, base: Path, out: TextIO, share: float) -> Path | None:
    """The dataset of later stage ``k`` (0: the second stage): ``None`` for the first stage's
    own, or one that adds the tiles of the stage's extra renders to it."""
    from vision.detect_train import tile_dataset, union_data_yaml

    if not stage.renders and not stage.dice_among:
        return None
    extra = [_dice_among(folder, game, count, seed, share, out, base) for game, count, seed in stage.dice_among]
    for count, seed, laid_out in stage.renders:
        data = _extra_render(stage, folder, count, seed, share, out, laid_out=laid_out)
        if not stage.tile:
            extra.append(data)
            continue
        tiles = folder / f"tiles-{stage.tile}-seed{seed}{_laid(laid_out)}"
        if not (tiles / "data.yaml").is_file():
            out.write(f"cutting {stage.tiles_per_image} tiles of {stage.tile} px from each image into {tiles}\n")
            out.flush()
            tile_dataset(data.parent, tiles, stage.tile, stage.tiles_per_image, seed)
        extra.append(tiles / "data.yaml")
    return union_data_yaml(base, extra, folder / f"stage-{k + 2}.yaml")


def _dice_among(folder: Path, game: str, count: int, seed: int, share: float, out: TextIO, base: Path) -> Path:
    """``count`` renders of ``game`` (``share`` of them in a quick trial) with d6 dice thrown
    among its pieces (:func:`vision.render.dice_scene.write_dice_among`), labelled as the
    classes of ``base`` say (``d6`` alone, or a class a face), into
    ``folder/dice-among-<game>-seed<seed>`` once; its YAML."""
    import yaml

    from tabletop.rendering import ProgressBar
    from vision.render.dice_scene import write_dice_among

    where = folder / f"dice-among-{game}-seed{seed}"
    n = max(2, round(count * share))
    if (where / "data.yaml").is_file() and len(list((where / "images" / "train").glob("*.jpg"))) == n:
        out.write(f"using the dice among {game}'s pieces already rendered in {where}\n")
        return where / "data.yaml"
    names = yaml.safe_load(Path(base).read_text(encoding="utf-8"))["names"]
    one_class = list(dict(names).values() if isinstance(names, dict) else names) == ["d6"]
    out.write(f"rendering {n} images of {game} (seed {seed}) with dice thrown among its pieces into {where}\n")
    out.flush()
    return write_dice_among(game, where, n, seed, one_class, progress=ProgressBar(f"dice among {game}'s pieces"))


def _fine_tune_dice(game: str, weights: Path, data_dir: Path, folder: Path, out: TextIO) -> Path:
    """Fine-tuning a model that finds kinds of dice: relabel the photos' dice faces as their
    kinds and put the shipped face reader beside the new weights."""
    import shutil

    from vision.dice_faces import faces_path, merge_dataset

    if not (Path(data_dir) / "images").is_dir():  # what merge_dataset relabels (ultralytics reads other layouts too)
        raise InputError("--data", f"{data_dir}: dice are relabelled as their kinds from the images/ and labels/ "
                         "folders in it (images/train, labels/train, images/val, labels/val): lay the photos out so")
    merged = folder / "data-dice-kinds"
    out.write(f"relabelling each kind of die as one detector class into {merged}; the shipped face reader "
              "reads the faces\n")
    if merged.exists():  # a copy made for an earlier training here: its photos are not these
        shutil.rmtree(merged)
    merge_dataset(data_dir, merged)
    reader = faces_path(weights)
    if reader.is_file():
        shutil.copyfile(reader, faces_path(folder / f"{game}.pt"))
    return merged / "data.yaml"


def _train_faces(recipe: Any, folder: Path, names: list[str], out: TextIO, share: float) -> Any:
    """A dice face reader of the classes ``names`` trained as the recipe's ``dice_faces``
    section says, on the dice of ``folder/data`` and of the section's more renders (``share``
    of them in a quick trial), rendered first where not yet."""
    from vision.dice_faces import FaceReaderError, FaceTraining, train_face_reader

    try:
        settings = FaceTraining.from_json(dict(recipe.dice_faces))
    except FaceReaderError as err:
        raise TrainingError(f"{recipe.game}'s recipe: {err}") from None
    more = [_extra_render(recipe, folder, r.count, r.seed, share, out, r.size).parent for r in settings.renders]
    also = "".join(f" and {m}" for m in more)
    out.write(f"training the dice face reader for {settings.epochs} epochs on the dice of {folder / 'data'}{also}\n")
    out.flush()
    return train_face_reader(folder / "data", names, settings, _epoch_progress("face reader", "validation accuracy"),
                             more)


def _d6_face_reader(recipe: Any, folder: Path, out: TextIO, again: bool = False, share: float = 1.0) -> Path:
    """The d6 finder's face reader, trained on the dice of its renders and of its section's
    more renders (``share`` of them in a quick trial; the recipe's ``dice_faces`` epochs and
    seed) and saved beside the weights as ``d6.faces.pt``."""
    from vision.dice_faces import faces_path
    from vision.render.dice_scene import CLASSES

    path = faces_path(folder / f"{recipe.game}.pt")
    if _trained_before("face reader", path, again, out):
        return path
    reader = _train_faces(recipe, folder, list(CLASSES), out, share)
    return _save_reader("face reader", reader, path,
                        f"validation accuracy {reader.metrics['val_accuracy']:.3f} on {reader.metrics['val_dice']} dice",
                        out)


def _render(recipe: Any, folder: Path, out: TextIO) -> Path:
    from models import DICE_FINDER
    from tabletop.rendering import ProgressBar
    from vision.render import RenderOptions
    from vision.render.dataset import write_dataset
    from vision.render.dice_scene import write_dice_dataset

    if (folder / "data.yaml").is_file() and json.loads((folder / "dataset.json").read_text()).get("count") == \
            recipe.data_count and json.loads((folder / "dataset.json").read_text()).get("seed") == recipe.data_seed:
        out.write(f"using the dataset already rendered in {folder}\n")
        return folder / "data.yaml"
    if folder.exists() and any(folder.iterdir()):
        raise InputError("--out", f"{folder} holds another dataset: choose a new --out folder")
    val_every = round(1 / recipe.data_val) if recipe.data_val > 0 else 0
    out.write(f"rendering {recipe.data_count} images of {recipe.game} (seed {recipe.data_seed}) into {folder}\n")
    out.flush()
    if recipe.game == DICE_FINDER:
        done = write_dice_dataset(folder, recipe.data_count, seed=recipe.data_seed, size=recipe.data_size,
                                  val_every=val_every, workers=recipe.workers, progress=ProgressBar("rendering dice"))
        return Path(done["yaml"])
    summary = write_dataset(recipe.game, folder, recipe.data_count, seed=recipe.data_seed,
                            options=RenderOptions(size=recipe.data_size, hands=recipe.data_hands,
                                                  laid_out=recipe.data_laid_out),
                            record=_bundled_record_text(recipe.game), val_every=val_every, workers=recipe.workers,
                            progress=ProgressBar(f"rendering {recipe.game}"))
    return Path(summary["yaml"])


def _bundled_record_text(game: str) -> str | None:
    from importlib import resources

    from tabletop.records import BUNDLED_PACKAGE, SUFFIX, bundled_record_names

    if game not in bundled_record_names():
        return None
    return (resources.files(BUNDLED_PACKAGE) / f"{game}{SUFFIX}").read_text(encoding="utf-8")


def run_eval(args: argparse.Namespace, out: TextIO) -> int:
    """Measure a detector on a dataset and print the figures."""
    _check_game(args.game)
    from vision.detect import Detector, DetectorError
    from vision.detect_eval import MAP_CONF, UnreadableImageError, evaluate, load_samples

    folder = Path(args.data)
    if folder.exists() and not folder.is_dir():
        raise InputError("--data", f"{folder} is a file, not a folder: give the dataset's folder (holding images/)")
    if not folder.is_dir():
        raise InputError("--data", f"{folder}: no such folder")
    if not (folder / "images").is_dir():
        raise InputError("--data", f"{folder}: no images/ folder in it (an ultralytics dataset: images/, labels/)")
    if args.split and not (folder / "images" / args.split).is_dir():
        raise InputError("--split", f"no images/{args.split} in {folder}")
    if not 0.0 < args.conf < 1.0:
        raise InputError("--conf", f"expected a confidence between 0 and 1, got {args.conf:g}")
    try:
        sized = {"imgsz": args.imgsz} if args.imgsz else {}
        detector = Detector.load(args.weights or args.game, args.backend, conf=MAP_CONF, **sized)
    except DetectorError as err:
        raise InputError("--weights" if args.weights else "GAME", str(err)) from None
    try:  # a label of a class the model lacks would count as a miss nobody could detect: refused
        samples = load_samples(folder, args.split, model_classes=len(detector.names))
    except (ValueError, json.JSONDecodeError) as err:
        raise InputError("--data", str(err)) from None
    if not samples:
        raise InputError("--data", f"{folder}: no images found under images/")
    names = _dataset_names(folder) or detector.names
    if tuple(names) != tuple(detector.names):
        raise InputError("--data", f"the dataset's classes ({len(names)}) are not the model's ({len(detector.names)}): "
                                   "evaluate with the weights trained on these classes (--weights)")
    began = time.perf_counter()
    from tabletop.rendering import ProgressBar

    try:
        report = evaluate(args.game, samples, detector.detect, detector.names, conf=args.conf,
                          progress=ProgressBar(f"evaluating {detector.info.source.name} ({detector.backend})"),
                          facing=_RefereeFacing() if args.game == "the-game" else None)
    except UnreadableImageError as err:
        raise InputError("--data", str(err)) from None
    if args.json:
        doc = dict(report.figures(), game=args.game, weights=str(detector.info.source), backend=detector.backend,
                   imgsz=detector.info.imgsz, by_piece_size=detector.piece_scale is not None,
                   sizes={str(k): v for k, v in sorted(detector.sizes_used.items())},
                   seconds=round(time.perf_counter() - began, 1))
        out.write(json.dumps(doc) + "\n")
    else:
        out.write(f"weights: {detector.info.source} ({detector.backend}; {_sizes_read(detector)})\n")
        out.write(report.text() + "\n")
    return 0


class _RefereeFacing:
    """The Game: a piece's facing as the live referee reads it (the prism fitted to its box,
    the front dot lifted to the piece's height and put on the dot's colour), on the field.
    The pieces of one frame and class are read once, not once per labelled piece."""

    def __init__(self) -> None:
        self._frame: Any = None
        self._read: dict[bytes, Any] = {}

    def __call__(self, det: Any, i: int, truth: Any, frame: Any) -> float | None:
        import numpy as np

        from tabletop.live.board import lift_pieces
        from vision.detect_cells import FrameGeometry

        if frame is not self._frame:
            self._frame, self._read = frame, {}
        key = det.xyxy.tobytes()
        if key not in self._read:
            size = truth.get("image_size") or (frame.shape[1], frame.shape[0])
            names = [str(n) for n in det.class_name] if det.class_name is not None else ()
            self._read[key] = lift_pieces(det, FrameGeometry.from_truth(truth), (int(size[0]), int(size[1])),
                                          frame, names)
        lifted = self._read[key]
        if lifted is None or not np.isfinite(lifted[1][i]):
            return None
        return float(lifted[1][i])


def _sizes_read(detector: Any) -> str:
    """The sizes a detector read frames at, in words."""
    used = ", ".join(f"{n} px {k}" for n, k in sorted(detector.sizes_used.items()))
    if detector.piece_scale is None:
        return f"frames read at {detector.info.imgsz} px"
    return f"frames read at the size their pieces need: {used or 'none read'}"


def _dataset_names(folder: Path) -> tuple[str, ...] | None:
    manifest = folder / "dataset.json"
    if manifest.is_file():
        try:
            return tuple(json.loads(manifest.read_text(encoding="utf-8"))["classes"])
        except (ValueError, KeyError, TypeError):
            return None
    yaml_file = folder / "data.yaml"
    if yaml_file.is_file():
        try:
            import yaml

            doc = yaml.safe_load(yaml_file.read_text(encoding="utf-8"))
            names = doc.get("names") if isinstance(doc, dict) else None
        except Exception:  # noqa: BLE001 - the eval reads labels, the names are a check only
            return None
        if isinstance(names, dict):
            return tuple(str(names[k]) for k in sorted(names))
        if isinstance(names, list):
            return tuple(str(n) for n in names)
    return None

"""Writing renders as an ultralytics dataset, with ground truth beside every image.

Layout of a dataset folder::

    data.yaml                 path, train, val, names (and kpt_shape for The Game)
    dataset.json              how it was made: game, seed, count, size, hands, classes
    images/train/000000.jpg   the renders (JPEG at each image's own quality)
    labels/train/000000.txt   YOLO labels: class cx cy w h (normalised), one line per box
    truth/train/000000.json   ground truth: position, camera, board homography, pieces
    images/val/... labels/val/... truth/val/...

For The Game the labels are in YOLO pose format with one keypoint, the front dot:
``class cx cy w h kx ky v`` (``v``: 2 seen, 1 hidden by something, 0 outside the image;
hands carry ``0 0 0``), and ``data.yaml`` has ``kpt_shape: [1, 3]`` and ``flip_idx: [0]``.

Image ``i`` goes to ``val`` when ``i % val_every == val_every - 1`` (every tenth by
default), so the split does not depend on how many images are made.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> write_yaml(folder, ["a", "b"], keypoints=False).name
'data.yaml'
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from vision.render.effects import jpeg
from vision.render.renderer import Rendered, Renderer, RenderOptions

__all__ = ["write_dataset", "write_yaml", "write_sample", "DatasetSummary", "split_of"]

Progress = Callable[[int, int], None]


class DatasetSummary(dict):  # type: ignore[type-arg]
    """What :func:`write_dataset` made: counts, classes, seconds, folder."""


def split_of(index: int, val_every: int) -> str:
    """``"val"`` for every ``val_every``-th image, else ``"train"`` (0: no val images)."""
    return "val" if val_every > 0 and index % val_every == val_every - 1 else "train"


def write_yaml(folder: str | os.PathLike[str], names: list[str], keypoints: bool) -> Path:
    """The ultralytics dataset description (written by hand: one format, no YAML library)."""
    root = Path(folder).resolve()
    lines = [
        f"# tabletop render dataset: {len(names)} classes",
        f"path: {json.dumps(str(root))}",
        "train: images/train",
        "val: images/val",
    ]
    if keypoints:
        lines += ["kpt_shape: [1, 3]  # one keypoint: the front dot (x, y, visibility)", "flip_idx: [0]"]
    lines.append("names:")
    lines += [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    path = root / "data.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_sample(folder: Path, split: str, stem: str, rendered: Rendered) -> None:
    """Write one image, its labels and its ground truth."""
    (folder / "images" / split / f"{stem}.jpg").write_bytes(jpeg(rendered.image, rendered.jpeg_quality))
    (folder / "labels" / split / f"{stem}.txt").write_text(rendered.yolo_text(), encoding="utf-8")
    truth = dict(rendered.truth, image=f"images/{split}/{stem}.jpg", labels=f"labels/{split}/{stem}.txt",
                 jpeg_quality=rendered.jpeg_quality)
    (folder / "truth" / split / f"{stem}.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n",
                                                           encoding="utf-8")


def _prepare(folder: Path) -> None:
    for kind in ("images", "labels", "truth"):
        for split in ("train", "val"):
            (folder / kind / split).mkdir(parents=True, exist_ok=True)


_WORKER: dict[str, Any] = {}


def _init_worker(game: str, seed: int, options: RenderOptions, record: str | None, folder: str,
                 val_every: int) -> None:
    _WORKER["renderer"] = Renderer(game, seed=seed, options=options, record=record)
    _WORKER["folder"] = Path(folder)
    _WORKER["val_every"] = val_every


def _work(indices: list[int]) -> int:
    r: Renderer = _WORKER["renderer"]
    for i in indices:
        write_sample(_WORKER["folder"], split_of(i, _WORKER["val_every"]), f"{i:06d}", r.render(i))
    return len(indices)


def write_dataset(game: str, folder: str | os.PathLike[str], count: int, seed: int = 0,
                  options: RenderOptions | None = None, record: str | None = None, val_every: int = 10,
                  workers: int = 1, progress: Progress | None = None, start: int = 0) -> DatasetSummary:
    """Render images ``start`` .. ``start + count - 1`` of ``game`` with ``seed`` into
    ``folder`` (created if needed). ``record``: a game record's text to take positions
    from too; ``workers`` > 1 renders in that many processes (same files, any order)."""
    options = options or RenderOptions()
    root = Path(folder)
    _prepare(root)
    began = time.perf_counter()
    if workers <= 1:
        renderer = Renderer(game, seed=seed, options=options, record=record)
        names, keypoints = renderer.class_names, renderer.keypoints
        for n, i in enumerate(range(start, start + count)):
            write_sample(root, split_of(i, val_every), f"{i:06d}", renderer.render(i))
            if progress:
                progress(n + 1, count)
    else:
        probe = Renderer(game, seed=seed, options=options, record=record)
        names, keypoints = probe.class_names, probe.keypoints
        indices = list(range(start, start + count))
        chunk = max(1, min(24, count // (workers * 4) or 1))
        chunks = [indices[k:k + chunk] for k in range(0, len(indices), chunk)]
        done = 0
        with ProcessPoolExecutor(workers, initializer=_init_worker,
                                 initargs=(game, seed, options, record, str(root), val_every)) as pool:
            for fut in as_completed([pool.submit(_work, c) for c in chunks]):
                done += fut.result()
                if progress:
                    progress(done, count)
    seconds = time.perf_counter() - began
    yaml_path = write_yaml(root, names, keypoints)
    manifest = {
        "game": game,
        "seed": seed,
        "first_index": start,
        "count": count,
        "size": list(options.size) if options.size else "random",
        "hands": options.hands,
        "min_visible": options.min_visible,
        **({"laid_out": options.laid_out} if options.laid_out else {}),
        "val_every": val_every,
        "classes": names,
        "keypoints": ["front-dot"] if keypoints else [],
        "label_format": "yolo-pose (1 keypoint: front dot)" if keypoints else "yolo-detect",
    }
    (root / "dataset.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return DatasetSummary(folder=str(root), yaml=str(yaml_path), count=count, classes=len(names),
                          seconds=round(seconds, 3), images_per_second=round(count / seconds, 2) if seconds else None)

"""Benchmark: automatic grid finding (calibration.grid.find_square_grid).

Figures, each printed with how it was measured and its target:

1. Accuracy on synthetic 1280x720 frames with a known homography (tests/calibration/
   grid_render.py): camera 30-90 degrees above the table, any turn of the board, blur sigma
   0.5-1.5 px, noise sigma 2-6 grey levels, a textured table with objects on it. The error
   of a frame is the largest distance, in squares, between where the found pose puts the
   board's four true outer corners and where they are (with the documented orientation
   rule). Median and 95th percentile over N frames (default 200 8x8, 100 6x7).
   Target: median at most 0.02 of a square.
2. Time per 1280x720 frame: wall clock (time.perf_counter) and this process's CPU time
   (time.process_time, all threads) of find_square_grid on the synthetic frames, after
   three warm-up calls. Target: at most 150 ms.
3. Real photos: OpenCV's chessboard (10x7 squares, 13 photos, 640x480): found or not; the
   found inner intersections against cv2.findChessboardCornersSB's corners (pixels); the
   pose's prediction against the same corners (a homography cannot follow the lens's
   distortion), also after undistorting the photos with a camera calibration made from the
   same corners. The printed checkers board (8x8, pieces on it, 640x400): found or not, and
   where the labelled pieces land on the board found.

Run from the repository root: ``python3 benchmarks/grid_finding.py [--frames N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests" / "calibration"))

import cv2
import numpy as np
from grid_render import corner_error, random_frame

from calibration import CalibrationError
from calibration.grid import detect_square_grid, find_square_grid

TARGET_ERROR = 0.02  # squares, median
TARGET_MS = 150.0
TESTS_REAL = ROOT / "tests" / "data" / "real"
SHARED_REAL = ROOT.parent / "shared" / "real"


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def synthetic(
    squares: tuple[int, int], frames: int, first_seed: int
) -> tuple[list[float], list[float], list[float], int]:
    errors, wall, cpu, missed = [], [], [], 0
    warm = random_frame(first_seed, squares)
    for _ in range(3):
        find_square_grid(warm.image, squares)
    for seed in range(first_seed, first_seed + frames):
        frame = random_frame(seed, squares)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            pose = find_square_grid(frame.image, squares)
        except CalibrationError:
            missed += 1
            continue
        finally:
            wall.append(1000 * (time.perf_counter() - t0))
            cpu.append(1000 * (time.process_time() - c0))
        errors.append(corner_error(pose, frame))
    return errors, wall, cpu, missed


def chessboard_reference(grey: np.ndarray) -> np.ndarray | None:
    for flags in (0, cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_NORMALIZE_IMAGE):
        ok, corners = cv2.findChessboardCornersSB(grey, (9, 6), flags=flags)
        if ok:
            return corners.reshape(-1, 2)
    return None


def nearest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.norm(a[:, None] - b[None], axis=2).min(axis=1)


def real_chessboard() -> None:
    folder = SHARED_REAL / "calibration-chessboard"
    if not folder.is_dir():
        folder = TESTS_REAL / "calibration-chessboard"
    paths = sorted(folder.glob("left*.jpg"))
    print(
        f"\nReal: OpenCV calibration chessboard, squares=(10, 7), {len(paths)} photos in {folder}"
    )
    found, gaps, pose_gaps, times = 0, [], [], []
    refs, images = {}, {}
    for path in paths:
        image = cv2.imread(str(path))
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        images[path.name], refs[path.name] = image, chessboard_reference(grey)
        t0 = time.perf_counter()
        try:
            det = detect_square_grid(image, (10, 7))
        except CalibrationError as err:
            print(f"  {path.name}: not found ({err})")
            continue
        times.append(1000 * (time.perf_counter() - t0))
        found += 1
        ref = refs[path.name]
        bx, by = det.board_points[:, 0], det.board_points[:, 1]
        inner = (bx > 0) & (bx < 10) & (by > 0) & (by < 7)
        if ref is not None:
            gaps += nearest(det.image_points[inner], ref).tolist()
            predicted = det.pose.to_image(
                np.stack(np.meshgrid(np.arange(1, 10), np.arange(1, 7)), -1).reshape(-1, 2)
            )
            pose_gaps += nearest(predicted, ref).tolist()
        q = det.pose.quality
        print(
            f"  {path.name}: found, {q.seen}/{q.expected} intersections, {inner.sum()}/54 inner, "
            f"residual {q.residual_px:.2f} px, coverage {q.coverage:.2f}, {times[-1]:.0f} ms"
        )
    print(f"  found: {found} of {len(paths)} (target: most of them)")
    print(
        f"  found inner intersections vs findChessboardCornersSB ({len(gaps)} corners of "
        f"{sum(r is not None for r in refs.values())} photos): median {np.median(gaps):.3f} px, "
        f"95th percentile {percentile(gaps, 95):.3f} px, max {max(gaps):.3f} px"
    )
    print(
        f"  pose (a homography) vs the same corners: median {np.median(pose_gaps):.2f} px, "
        f"95th percentile {percentile(pose_gaps, 95):.2f} px (lens distortion)"
    )
    # the same, with the lens distortion taken out by a calibration from the reference corners
    objp = np.zeros((54, 3), np.float32)
    objp[:, :2] = np.mgrid[0:9, 0:6].T.reshape(-1, 2)
    usable = [n for n, r in refs.items() if r is not None]
    size = images[usable[0]].shape[1::-1]
    _, k, dist, _, _ = cv2.calibrateCamera(
        [objp] * len(usable), [refs[n].astype(np.float32) for n in usable], size, None, None
    )
    undist_gaps = []
    for name in usable:
        flat = cv2.undistort(images[name], k, dist)
        ref = chessboard_reference(cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY))
        if ref is None:
            continue
        try:
            det = detect_square_grid(flat, (10, 7))
        except CalibrationError:
            continue
        predicted = det.pose.to_image(
            np.stack(np.meshgrid(np.arange(1, 10), np.arange(1, 7)), -1).reshape(-1, 2)
        )
        undist_gaps += nearest(predicted, ref).tolist()
    print(
        f"  pose vs corners after undistorting the photos ({len(undist_gaps) // 54} photos): "
        f"median {np.median(undist_gaps):.2f} px, 95th percentile {percentile(undist_gaps, 95):.2f} px"
    )
    print(f"  time per 640x480 photo: median {statistics.median(times):.0f} ms")


def real_checkers() -> None:
    folder = SHARED_REAL / "checkers-printed" / "images"
    labels = SHARED_REAL / "checkers-printed" / "labels"
    if not folder.is_dir():
        folder = labels = TESTS_REAL / "checkers-printed"
    paths = sorted(folder.glob("*.jpg"))
    print(f"\nReal: printed checkers board, squares=(8, 8), {len(paths)} photos in {folder}")
    found, tidy, tidy_pieces, offsets = 0, 0, 0, []
    for path in paths:
        image = cv2.imread(str(path))
        try:
            pose = find_square_grid(image, (8, 8))
        except CalibrationError as err:
            print(f"  {path.name[:12]}: not found ({err})")
            continue
        found += 1
        squares = np.stack(np.meshgrid(np.arange(8), np.arange(8)), axis=-1).reshape(-1, 2)
        centres = pose.to_image(squares + 0.5).round().astype(int)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        level = grey[centres[:, 1], centres[:, 0]].astype(float)
        even = squares.sum(axis=1) % 2 == 0
        dark = 0 if level[even].mean() < level[~even].mean() else 1
        boxes = np.loadtxt(labels / (path.stem + ".txt"), ndmin=2)
        board = pose.to_board(boxes[:, 1:3] * [image.shape[1], image.shape[0]])
        cell = np.floor(board).astype(int)
        inside = ((cell >= 0) & (cell < 8)).all(axis=1)
        on_dark = inside & (cell.sum(axis=1) % 2 == dark)
        off = np.abs(board - (cell + 0.5)).max(axis=1)
        q = pose.quality
        print(
            f"  {path.name[:12]}: found, {q.seen}/81 intersections, residual {q.residual_px:.2f} px; "
            f"pieces on dark squares {on_dark.sum()}/{len(board)}, farthest from its square's "
            f"centre {off[inside].max():.2f} square"
        )
        if on_dark.all():
            tidy += 1
            tidy_pieces += len(board)
            offsets += off.tolist()
    print(f"  found: {found} of {len(paths)}")
    print(
        f"  photos where every piece's box centre falls on a dark square: {tidy} ({tidy_pieces} "
        f"pieces); there, distance from the square's centre: median {np.median(offsets):.2f}, "
        f"max {max(offsets):.2f} square. (In the other photos the pieces lie piled or scattered "
        f"off the squares.)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--frames", type=int, default=200, help="synthetic 8x8 frames (6x7: half as many)"
    )
    args = parser.parse_args()
    print(
        f"Machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; OpenCV {cv2.__version__}, "
        f"{cv2.getNumThreads()} OpenCV threads"
    )
    all_wall, all_cpu = [], []
    for squares, frames, seed in (
        ((8, 8), args.frames, 10_000),
        ((6, 7), args.frames // 2, 20_000),
    ):
        errors, wall, cpu, missed = synthetic(squares, frames, seed)
        all_wall += wall
        all_cpu += cpu
        print(
            f"\nSynthetic {squares[0]}x{squares[1]} boards, 1280x720, {frames} frames (seeds {seed}..): "
            f"found {frames - missed}"
        )
        print(
            f"  corner error: median {np.median(errors):.4f}, 95th percentile {percentile(errors, 95):.4f}, "
            f"max {max(errors):.4f} square (target: median <= {TARGET_ERROR})"
        )
    print(
        f"\nTime per 1280x720 frame ({len(all_wall)} frames): wall median {statistics.median(all_wall):.1f} ms, "
        f"95th percentile {percentile(all_wall, 95):.1f} ms; CPU median {statistics.median(all_cpu):.1f} ms "
        f"(target: <= {TARGET_MS:.0f} ms)"
    )
    real_chessboard()
    real_checkers()


if __name__ == "__main__":
    main()

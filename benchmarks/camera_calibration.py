"""Camera calibration on OpenCV's 13 chessboard photos: our method against the tutorial's.

Run from the repository root: ``python3 benchmarks/camera_calibration.py [--frames N]``.

Prints the overall RMS reprojection error of :func:`calibration.camera.calibrate_camera`
(photos kept / given, and with all 13 kept), the classic tutorial method's RMS on the same
photos (``findChessboardCorners`` + ``cornerSubPix`` with an 11 x 11 half-window +
``calibrateCamera``), the RMS of every photo, the time taken, and how the size of the
sub-pixel window changes the result on the real photos and on N synthetic renders with known
corners. Target: overall RMS at most 0.25 px on the 13 photos.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2
import numpy as np

from calibration.camera import calibrate_camera, find_outliers
from calibration.patterns import (
    ChessboardPattern,
    find_chessboard_corners,
    refine_chessboard_corners,
)
from calibration.synthetic_lens import render_chessboard_views

TARGET = 0.25
PHOTOS = sorted((ROOT / "tests" / "data" / "real" / "calibration-chessboard").glob("left*.jpg"))
PATTERN = ChessboardPattern((9, 6), 1.0)


def calibrate_corners(corners: list[np.ndarray], size: tuple[int, int]) -> tuple[float, np.ndarray]:
    """Plain ``cv2.calibrateCamera`` on given corners: (overall RMS, per-photo RMS)."""
    obj = [PATTERN.object_points().astype(np.float32)] * len(corners)
    img = [c.astype(np.float32).reshape(-1, 1, 2) for c in corners]
    rms, k, d, rvecs, tvecs = cv2.calibrateCamera(obj, img, size, None, None)
    per = [
        math.sqrt(
            np.mean(
                np.sum(
                    (cv2.projectPoints(o, r, t, k, d)[0].reshape(-1, 2) - i.reshape(-1, 2)) ** 2,
                    axis=1,
                )
            )
        )
        for o, i, r, t in zip(obj, img, rvecs, tvecs)
    ]
    return float(rms), np.array(per)


def classic(greys: list[np.ndarray]) -> list[np.ndarray]:
    """The OpenCV tutorial's corners: findChessboardCorners, then cornerSubPix 11 x 11."""
    out = []
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
    for g in greys:
        found, c = cv2.findChessboardCorners(g, PATTERN.size, None)
        if not found:
            raise SystemExit("the classic detector missed a photo")
        out.append(cv2.cornerSubPix(g, c, (11, 11), (-1, -1), criteria).reshape(-1, 2))
    return out


def render_views(n: int, seed: int = 7) -> list[tuple[np.ndarray, np.ndarray]]:
    """N 640x480 photos of a 9x6 chessboard through a known lens, with the true corners."""
    return render_chessboard_views(n, seed=seed)


def corner_errors(views: list[tuple[np.ndarray, np.ndarray]], refine) -> np.ndarray:
    errors = []
    for img, truth in views:
        found = find_chessboard_corners(PATTERN, img)
        if found is None:
            continue
        c = refine(img, found)
        e = np.linalg.norm(c - truth, axis=1)
        errors.append(min(e, np.linalg.norm(c[::-1] - truth, axis=1), key=np.mean))
    return np.concatenate(errors)


def fixed_window(w: int):
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
    return lambda g, c: cv2.cornerSubPix(
        g, c.astype(np.float32).reshape(-1, 1, 2), (w, w), (-1, -1), criteria
    ).reshape(-1, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--frames", type=int, default=30, help="synthetic renders for the window sweep (0: skip)"
    )
    args = parser.parse_args()
    print(
        f"OpenCV {cv2.__version__}, {len(PHOTOS)} photos ({', '.join(p.name for p in PHOTOS)}), 9x6 inner corners"
    )

    start = time.perf_counter()
    ours = calibrate_camera(PHOTOS, pattern=(9, 6), square=1.0)
    took = time.perf_counter() - start
    everything = calibrate_camera(PHOTOS, pattern=(9, 6), square=1.0, outlier_k=math.inf)
    rational = calibrate_camera(
        PHOTOS, pattern=(9, 6), square=1.0, outlier_k=math.inf, distortion="rational"
    )

    greys = [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in PHOTOS]
    start = time.perf_counter()
    tutorial = classic(greys)
    tut_rms, tut_per = calibrate_corners(tutorial, (640, 480))
    tut_took = time.perf_counter() - start
    tut_drops = find_outliers(tut_per)
    tut_kept = [c for i, c in enumerate(tutorial) if i not in tut_drops]
    tut_rms_kept, _ = calibrate_corners(tut_kept, (640, 480))

    print("\nPer-photo RMS reprojection error (px):")
    print(f"  {'photo':<12}{'ours':>8}{'tutorial':>10}")
    ours_per = dict(everything.per_image)
    for p, t in zip(PHOTOS, tut_per):
        print(f"  {p.name:<12}{ours_per[p.name]:>8.3f}{t:>10.3f}")

    print("\nOverall RMS reprojection error (px), over every corner of the photos kept:")
    print(
        f"  ours, outlier rule applied: {ours.rms:.3f} px with {len(ours.per_image)} of {len(PHOTOS)} photos kept"
        + (f" (dropped: {', '.join(n for n, _ in ours.dropped)})" if ours.dropped else "")
    )
    print(f"  ours, all {len(PHOTOS)} kept:          {everything.rms:.3f} px")
    print(f"  ours, rational model (8 coefficients), all kept: {rational.rms:.3f} px")
    print(
        f"  tutorial method, all {len(PHOTOS)} kept: {tut_rms:.3f} px"
        + (
            f"; our outlier rule would drop {', '.join(PHOTOS[i].name for i in tut_drops)}, "
            f"leaving {tut_rms_kept:.3f} px with {len(tut_kept)} kept"
            if tut_drops
            else ""
        )
    )
    print(
        f"\nTime: ours {took:.2f} s for {len(PHOTOS)} photos ({1000 * took / len(PHOTOS):.0f} ms a photo, "
        f"detection, refinement, calibration, outlier check); tutorial {tut_took:.2f} s"
    )
    k = ours.camera_matrix
    print(
        f"Camera: fx {k[0, 0]:.1f}, fy {k[1, 1]:.1f}, cx {k[0, 2]:.1f}, cy {k[1, 2]:.1f}; "
        f"dist {np.array2string(ours.dist_coeffs, precision=4)}"
    )

    fractions = [0.2, 0.25, 0.3, 1 / 3, 0.35, 0.4, 0.45]
    print(
        "\nSub-pixel window: half-width as a fraction of each corner's clearance, or the fixed 11 px"
    )
    found = [find_chessboard_corners(PATTERN, g) for g in greys]
    views = render_views(args.frames) if args.frames > 0 else []
    header = f"  {'window':<14}{'real RMS px':>12}"
    if views:
        header += f"{'synthetic corner error px: median':>36}{'p95':>8}{'rms':>8}"
    print(
        header
        + (f"  ({len(views)} renders, blur 0.6-1.0 px, noise 2 grey levels)" if views else "")
    )
    options = [
        (f"{f:.3f}".rstrip("0"), lambda g, c, f=f: refine_chessboard_corners(PATTERN, g, c, f))
        for f in fractions
    ]
    options.append(("fixed 11", fixed_window(11)))
    for label, refine in options:
        rms, _ = calibrate_corners([refine(g, c) for g, c in zip(greys, found)], (640, 480))
        line = f"  {label:<14}{rms:>12.3f}"
        if views:
            e = corner_errors(views, refine)
            line += (
                f"{np.median(e):>36.3f}{np.percentile(e, 95):>8.3f}{math.sqrt(np.mean(e**2)):>8.3f}"
            )
        print(line)

    verdict = "met" if ours.rms <= TARGET else "NOT met"
    print(
        f"\nTarget: overall RMS <= {TARGET} px on the {len(PHOTOS)} photos: {ours.rms:.3f} px "
        f"({len(ours.per_image)} kept), {everything.rms:.3f} px with all kept - {verdict}; "
        f"tutorial method {tut_rms:.3f} px"
    )


if __name__ == "__main__":
    main()

"""Draw the picture of the README's outdoor guide: docs/images/outdoor-guide.jpg.

    python3 tools/make_outdoor_guide.py [--out docs/images/outdoor-guide.jpg]

Left: the field from above, drawn to scale: the four corner markers half an inch off the
corners (or the one scale marker at the near-left corner), a piece with its front dot and
its field of vision, the 6" circle and the 1" ring. Right: a rendered photo of a game (seed
31, camera about 55 degrees up) with the assistant's overlay, read from its labelled boxes.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.markers import field_spec, scale_marker_spec

INK = (40, 40, 40)
RED = (36, 27, 224)
BLUE = (216, 88, 28)
GREEN = (80, 200, 60)
ORANGE = (0, 150, 255)


def _diagram(size: int = 520) -> np.ndarray:
    img = np.full((size, size, 3), 245, np.uint8)
    left, bottom, top = 120, 130, 120
    ppi = (size - bottom - top) / 24.0

    def px(x: float, y: float) -> tuple[int, int]:  # field inches -> picture (far edge up)
        return round(left + x * ppi), round(size - bottom - y * ppi)

    cv2.rectangle(img, px(0, 24), px(24, 0), (170, 200, 170), -1)
    cv2.rectangle(img, px(0, 24), px(24, 0), INK, 2)
    spec = field_spec()
    for marker_id in spec.ids:
        c = spec.marker_corners(marker_id)
        pts = np.array([px(x, y) for x, y in c], np.int32)
        cv2.fillConvexPoly(img, pts, (20, 20, 20))
        centre = pts.mean(axis=0).astype(int)
        cv2.putText(img, str(marker_id), (int(centre[0]) - 9, int(centre[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (255, 255, 255), 1, cv2.LINE_AA)
    scale = scale_marker_spec().marker_corners(44)
    cv2.polylines(img, [np.array([px(x, y) for x, y in scale], np.int32)], True, (90, 90, 90), 1, cv2.LINE_AA)
    cv2.putText(img, "or one 6\" marker (44) here", (px(-7.0, 0)[0], size - 12),
                cv2.FONT_HERSHEY_SIMPLEX, 0.42, (90, 90, 90), 1, cv2.LINE_AA)
    cv2.putText(img, "24\" x 24\" field", px(8.5, 23.0), cv2.FONT_HERSHEY_SIMPLEX, 0.5, INK, 1, cv2.LINE_AA)
    cv2.putText(img, "near edge (you)", px(8.0, 0.5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, INK, 1, cv2.LINE_AA)
    # a red piece facing a blue one: wedges, the 6" circle, the 1" rings
    for (x, y, facing, colour, tag) in ((9.0, 8.0, 60.0, RED, "R1"), (13.5, 15.0, 235.0, BLUE, "B1")):
        c = px(x, y)
        a = np.radians(np.linspace(facing - 90, facing + 90, 30))
        fan = [c] + [px(x + 3.5 * math.cos(t), y + 3.5 * math.sin(t)) for t in a]
        layer = img.copy()
        cv2.fillPoly(layer, [np.array(fan, np.int32)], GREEN)
        cv2.addWeighted(layer, 0.25, img, 0.75, 0, dst=img)
        cv2.circle(img, c, int(6 * ppi), GREEN, 1, cv2.LINE_AA)
        cv2.circle(img, c, int(1.5 * ppi), GREEN, 1, cv2.LINE_AA)
        cv2.circle(img, c, int(0.5 * ppi), (120, 120, 120), -1, cv2.LINE_AA)
        dot = px(x + 0.32 * math.cos(math.radians(facing)), y + 0.32 * math.sin(math.radians(facing)))
        cv2.circle(img, dot, 4, colour, -1, cv2.LINE_AA)
        cv2.circle(img, dot, 5, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.putText(img, tag, (c[0] + 10, c[1] + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, INK, 1, cv2.LINE_AA)
    cv2.putText(img, "dot = the front; its colour = the side", (14, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.5, INK, 1,
                cv2.LINE_AA)
    cv2.putText(img, "green wedge: sees; circle: 6\" move; ring: 1\" reach", (14, 48), cv2.FONT_HERSHEY_SIMPLEX,
                0.45, INK, 1, cv2.LINE_AA)
    return img


def _photo(height: int) -> np.ndarray:
    from tabletop.outdoor.frame import OutdoorAssistant
    from tabletop.outdoor.overlay import draw_field
    from tabletop.outdoor.truth import detections_from_truth, truth_calibration
    from tabletop.outdoor.view import FieldSetup
    from vision.render import CameraRanges, Renderer, RenderOptions

    r = Renderer("the-game", seed=31, options=RenderOptions(size=(1280, 720), hands=0.0,
                                                           camera=CameraRanges(elevation=(50.0, 60.0), fill=(0.8, 0.9))))
    for i in range(40):
        sampled = r.sampler.sample(i)
        rng = np.random.default_rng([31, i])
        view = r.new_view(rng, r.adapter[0](sampled.game, sampled.state))
        frame = r.render_state(sampled.game, sampled.state, view, rng=rng, source=sampled)
        found = detections_from_truth(frame.truth)
        res = OutdoorAssistant(FieldSetup(calibration=truth_calibration(frame.truth)), lambda im, d=found: d,
                               crop=False).process(frame.image)
        if res.report is not None and len(res.readings) >= 4:
            img = draw_field(res.image, res.view, res.report, wedge=2.5)
            cv2.putText(img, "camera about 55 degrees up, 3 to 4 feet away, whole field and markers in view",
                        (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
            scale = height / img.shape[0]
            return cv2.resize(img, (int(img.shape[1] * scale), height), interpolation=cv2.INTER_AREA)
    raise SystemExit("no render showed the whole field: change the seed")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="docs/images/outdoor-guide.jpg")
    args = ap.parse_args()
    left = _diagram(520)
    right = _photo(520)
    picture = np.hstack([left, np.full((520, 8, 3), 255, np.uint8), right])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), picture, [cv2.IMWRITE_JPEG_QUALITY, 82])
    print(f"{out}: {picture.shape[1]}x{picture.shape[0]}, {out.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``tabletop measure IMAGE A B``: the distance in inches between two pieces or points of a photo.

Only :mod:`argparse` is imported until the command runs (the command line starts fast).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tabletop.argtypes import image_size, number
from tabletop.errors import InputError

__all__ = ["add_measure_parser", "run_measure"]


def add_measure_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], exit_text: str) -> None:
    """Register ``measure`` on the ``tabletop`` subparsers."""
    p = commands.add_parser(
        "measure",
        help="The Game: the distance in inches between two pieces (or points) in a photo",
        description=(
            "Find The Game's field (its corner markers, the scale marker, or --pose) and the pieces\n"
            "in a photo, and print the distance between A and B in inches: two pieces edge to edge\n"
            "as the rules measure it, a point to a piece's edge, or two points along the ground.\n"
            "A and B are piece ids as this photo's reading names them (R1, B2: side initial and\n"
            "number, counted from the near edge; --out draws them) or pixel points x,y of the photo.\n"
            "docs/outdoor.md."
        ),
        formatter_class=formatter,
        epilog=("examples:\n  tabletop measure field.jpg R1 B2 --out measured.png\n"
                "  tabletop measure field.jpg 640,410 R2 --markers scale --marker-size 6in\n\n" + exit_text),
    )
    p.add_argument("image", metavar="IMAGE", help="the photo")
    p.add_argument("a", metavar="A", help="a piece id (R1) or a pixel point x,y")
    p.add_argument("b", metavar="B", help="a piece id (B2) or a pixel point x,y")
    p.add_argument("--pose", metavar="FILE", help="a field pose (JSON from 'tabletop calibrate field') instead of markers")
    p.add_argument("--markers", choices=("auto", "corners", "scale"), default="auto",
                   help="which markers set the field up (default auto: the four corners, else the scale marker)")
    p.add_argument("--marker-size", metavar="SIZE", help="the printed marker size (mm, or 6in, 15cm)")
    p.add_argument("--field-size", default="24x24", metavar="WxD", help="the field in inches (default 24x24)")
    p.add_argument("--calibration", metavar="FILE", help="the camera's calibration (from 'tabletop calibrate camera')")
    p.add_argument("--weights", metavar="FILE", help="detector weights (default: the shipped the-game model)")
    p.add_argument("--imgsz", type=image_size, default=960, metavar="N",
                   help="the detector's input size, a multiple of 32 (default 960: a photo is worth the time)")
    p.add_argument("--labels", metavar="FILE", help="read the pieces from a labelled picture's ground truth JSON "
                   "(as 'tabletop render' writes it) instead of the detector")
    p.add_argument("--height", type=number("inches", 0, 12, "the pieces' height"), default=0.4, metavar="INCHES",
                   help="the pieces' height (default 0.4)")
    p.add_argument("--out", metavar="FILE", help="write the annotated picture here (PNG or JPG)")
    p.add_argument("--json", action="store_true", help="print the result and every piece as JSON")
    p.set_defaults(run=run_measure)


def _load_setup(args: argparse.Namespace) -> Any:
    from tabletop.calibrate import field_sizes
    from tabletop.outdoor.view import FieldSetup

    size, marker_mm = field_sizes(args.field_size, args.marker_size, "--field-size")
    calibration = pose = None
    if args.calibration:
        from calibration.camera import CameraCalibration

        calibration = CameraCalibration.load(args.calibration)
    if args.pose:
        from tabletop.calibrate import load_pose

        pose = load_pose(args.pose, units="inch", calibrated=calibration is not None, size=size,
                         remedy="give the pose's field size as --field-size, or calibrate this field "
                                f"('tabletop calibrate field --size {size[0]:g}x{size[1]:g}')")
    return FieldSetup(size, args.markers, marker_mm, calibration, pose, track=bool(getattr(args, "track", False)))


def _detector(args: argparse.Namespace) -> Callable[[Any], Any]:
    if args.labels:
        from tabletop.outdoor.truth import detections_from_truth

        try:
            truth = json.loads(Path(args.labels).read_text())
        except json.JSONDecodeError as err:
            raise InputError("--labels", f"not JSON: {err.msg}") from None
        except UnicodeDecodeError:
            raise InputError("--labels", "not JSON: not even text") from None
        except (ValueError, RecursionError) as err:
            from tabletop.records import json_limit

            raise InputError("--labels", f"unreadable JSON: {json_limit(err)}") from None
        if not isinstance(truth, dict) or "pieces" not in truth:
            raise InputError("--labels", "not a labelled picture's ground truth (no 'pieces')")
        calibration = None
        if args.calibration:  # the photo is read undistorted: so are its labels
            from calibration.camera import CameraCalibration

            calibration = CameraCalibration.load(args.calibration)
        found = detections_from_truth(truth, calibration=calibration)
        return lambda image: found
    from vision.detect import Detector, DetectorError

    try:
        return Detector.load(args.weights or "the-game", imgsz=args.imgsz).detect
    except DetectorError as err:
        raise InputError("detector", f"{err} (or give --weights FILE)") from None


def run_measure(args: argparse.Namespace, out: TextIO) -> int:
    import cv2
    import numpy as np

    from calibration.marker_detection import read_image
    from rules.geometry import FieldPoint
    from rules.the_game.options import TheGameOptions
    from tabletop.outdoor.assistant import inches
    from tabletop.outdoor.frame import OutdoorAssistant
    from tabletop.outdoor.measure import measure, parse_target
    from tabletop.outdoor.overlay import draw_field
    from tabletop.outdoor.readings import ReadingConfig

    targets = [parse_target(t) for t in (args.a, args.b)]
    setup = _load_setup(args)
    frame = read_image(args.image)
    opts = TheGameOptions(field_width=setup.size[0], field_depth=setup.size[1])
    helper = OutdoorAssistant(setup, _detector(args), opts, ReadingConfig(piece_height=args.height),
                              crop=not args.labels)
    result = helper.process(frame)
    if result.view is None or result.report is None:
        raise InputError(args.image, f"no field: {result.error}")
    ends: list[tuple[str, FieldPoint | None]] = []
    for name, pixel in targets:
        if pixel is None:
            ends.append((name, None))
            continue
        width, height = frame.shape[1], frame.shape[0]
        if not (0 <= pixel[0] < width and 0 <= pixel[1] < height):
            raise InputError("measure", f"the point {name} is outside the picture ({width} x {height} pixels: "
                                        f"x from 0 to {width - 1}, y from 0 to {height - 1})")
        px = np.array([pixel], float)
        if setup.calibration is not None:
            px = setup.calibration.undistort_points(px, (width, height))
        if not result.view.on_ground(px)[0]:
            raise InputError("measure", f"the point {name} is above the ground's horizon in the picture: "
                                        "it sees no point of the ground")
        fx, fy = result.view.to_field(px)[0]
        ends.append((name, FieldPoint(float(fx), float(fy))))
    m = measure(result.report, ends[0], ends[1])
    if args.json:
        out.write(json.dumps({"measurement": m.to_json(), "pieces": [r.to_json() for r in result.readings]},
                             indent=1) + "\n")
    else:
        out.write(m.text + "\n")
    if args.out:
        start, end = np.array([m.start.x, m.start.y]), np.array([m.end.x, m.end.y])
        img = draw_field(result.image, result.view, result.report, measure=(start, end, inches(m.distance)))
        try:
            written = cv2.imwrite(str(args.out), img)
        except cv2.error:  # an unknown suffix, or a folder given as the file
            written = False
        if not written:
            raise InputError("--out", f"could not write {args.out} (is the folder there, the suffix .png or .jpg?)")
    return 0

"""``tabletop outdoor (--camera N | --url U | --video F | --images DIR)``: the outdoor assistant live.

Only :mod:`argparse` is imported until the command runs.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tabletop.argtypes import CAMERA_INDEX, frame_size, image_size, number, whole
from tabletop.errors import InputError, RecordError

__all__ = ["add_outdoor_parser", "run_outdoor"]


def add_outdoor_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], exit_text: str) -> None:
    """Register ``outdoor`` on the ``tabletop`` subparsers."""
    p = commands.add_parser(
        "outdoor",
        help="The Game outdoors: who observes whom, what each piece may do, distances in inches, live",
        description=(
            "Watch a game of The Game on the ground from a phone (--url) or a webcam: find the field\n"
            "(its corner markers, the scale marker, or --pose), read each piece's place, foot and\n"
            "facing in inches, and draw on the ground who is observed (green) and who is not\n"
            "(orange), fields of vision, the 6\" circles, the 12\" arrows to the edge and the 1\"\n"
            "action rings. Once a position has stood still it announces each piece's options and\n"
            "judges the moves since the last one. Click two pieces (or points) in the window to\n"
            "measure between them. docs/outdoor.md."
        ),
        formatter_class=formatter,
        epilog=("examples:\n  tabletop outdoor --url http://192.168.1.20:8080/video --calibration phone.json\n"
                "  tabletop outdoor --camera 0 --markers scale --marker-size 6in\n"
                "  tabletop outdoor --images shots/ --no-window --out annotated/ --audio none\n"
                "  tabletop outdoor --camera 0 --log game.jsonl     (later: --resume game.jsonl)\n\n"
                "keys in the window: m mute, q quit.\n\n" + exit_text),
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=CAMERA_INDEX, metavar="N", help="camera index (0: the first webcam)")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--images", metavar="DIR", help="a folder of photos, taken in name order")
    src.add_argument("--url", metavar="URL", help="an RTSP or HTTP MJPEG stream (phone IP-camera apps)")
    p.add_argument("--glob", default="*", metavar="PATTERN", help="with --images: which files (default all)")
    p.add_argument("--camera-size", type=frame_size, default=None, metavar="WxH",
                   help="with --camera: ask the camera for frames of this size, e.g. 1280x720 (default: the "
                   "camera's own, often 640x480); small pieces and their front dots are read better with "
                   "more pixels")
    p.add_argument("--no-frame-drop", action="store_true",
                   help="with --camera or --url: read every frame in order, even when reading falls behind the "
                        "stream (default: skip to the newest frame)")
    p.add_argument("--pose", metavar="FILE", help="a fixed field pose (JSON from 'tabletop calibrate field')")
    p.add_argument("--markers", choices=("auto", "corners", "scale"), default="auto",
                   help="which markers set the field up (default auto)")
    p.add_argument("--marker-size", metavar="SIZE", help="the printed marker size (mm, or 6in, 15cm)")
    p.add_argument("--field-size", metavar="WxD", help="the field in inches (default: field_width x field_depth of "
                   "--options, 24x24 unless given; with --resume, the log's field)")
    p.add_argument("--calibration", metavar="FILE", help="the camera's calibration (lens distortion, focal length)")
    p.add_argument("--options", default="{}", metavar="JSON", help="The Game's options as JSON (field of vision...)")
    p.add_argument("--weights", metavar="FILE", help="detector weights (default: the shipped the-game model)")
    p.add_argument("--imgsz", type=image_size, default=640, metavar="N",
                   help="the detector's input size, a multiple of 32 (default 640; 960 finds a few more pieces "
                   "in one frame but follows a game no better, and is slower)")
    p.add_argument("--labels", action="store_true", help="with --images: read the pieces from each photo's "
                   "ground truth JSON beside it (as 'tabletop render' writes) instead of the detector")
    p.add_argument("--height", type=number("inches", 0, 12, "the pieces' height"), default=0.4, metavar="INCHES",
                   help="the pieces' height (default 0.4)")
    p.add_argument("--window", dest="window_s", type=number("seconds", 0, 10, "the window"), default=0.6, metavar="S",
                   help="seconds a position must stand still before it is announced (default 0.6)")
    p.add_argument("--audio", default="auto", metavar="MODE", help="auto, none or wav:FILE")
    p.add_argument("--no-window", action="store_true", help="no window: write annotated frames to --out")
    p.add_argument("--out", metavar="DIR", help="folder for annotated frames")
    log = p.add_mutually_exclusive_group()
    log.add_argument("--log", metavar="FILE", help="write what is read and said to FILE as it goes (JSON Lines, "
                     "a line per announcement and per still position; must not exist), the last still position's "
                     "frame beside it (FILE.still.jpg, FILE.still.json): a crash loses nothing")
    log.add_argument("--resume", metavar="FILE", help="continue the session of this log from its last still "
                     "position (its options and sequence), appending to it")
    p.add_argument("--max-frames", type=whole("frames", 1, 10**9), default=None, metavar="N",
                   help="stop after N frames")
    p.set_defaults(run=run_outdoor)


def run_outdoor(args: argparse.Namespace, out: TextIO) -> int:
    import numpy as np

    from rules.the_game.options import TheGameOptions
    from tabletop.calibrate import field_sizes
    from tabletop.live.audio import Audio
    from tabletop.live.inputs import (
        check_source_options,
        fitting_pose,
        frames_folder,
        none_read,
        open_source,
    )
    from tabletop.live.play import has_display
    from tabletop.live.record import cut_short
    from tabletop.outdoor.command import _load_setup
    from tabletop.outdoor.frame import DetectionFailed, OutdoorAssistant
    from tabletop.outdoor.live import OutdoorSession, click_to_measure
    from tabletop.outdoor.log import FieldLog, read_log, read_still
    from tabletop.outdoor.memory import KEPT
    from tabletop.outdoor.overlay import draw_field
    from tabletop.outdoor.readings import ReadingConfig

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    if args.audio not in ("auto", "none") and not (args.audio.startswith("wav:") and len(args.audio) > 4):
        raise InputError("--audio", f"expected auto, none or wav:FILE, got {args.audio!r}")
    if args.no_window and not args.out:
        raise InputError("--out", "--no-window needs --out DIR for the annotated frames")
    if args.labels and not args.images:
        raise InputError("--labels", "reads the ground truth beside each photo: use it with --images")
    check_source_options(args)
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as err:
        raise InputError("--options", f"not JSON: {err.msg}") from None
    if not isinstance(options, dict):
        raise InputError("--options", 'expected a JSON object such as {"field_of_vision": 180}')
    held = None
    if args.resume:
        if options:
            raise InputError("--options", "the options are those of the log being resumed: leave --options out")
        if not Path(args.resume).exists():
            raise InputError("--resume", f"{args.resume}: no such log (start one with --log FILE)")
        held = read_log(args.resume)  # read in full before anything is opened or written
    elif args.log and Path(args.log).exists():
        raise InputError("--log", f"{args.log} exists (use --resume to continue it)")
    args.track = not args.images  # a stream: keep the field while a hand hides a marker
    field = held.options if held is not None else TheGameOptions.from_json(options)
    if args.field_size is None:  # the field's size follows the options, or the log resumed
        args.field_size = f"{field.field_width!r}x{field.field_depth!r}"
    elif held is None and {"field_width", "field_depth"} & set(options) and \
            (field.field_width, field.field_depth) != field_sizes(args.field_size, None, "--field-size")[0]:
        raise InputError("--options", f"field_width {field.field_width:g} and field_depth {field.field_depth:g} "
                         f"make a {field.field_width:g}x{field.field_depth:g} field, and --field-size says "
                         f"{args.field_size}: give the field's size once (--field-size)")
    setup = _load_setup(args)
    if held is not None:
        opts = held.options
        if (opts.field_width, opts.field_depth) != tuple(setup.size):
            raise InputError("--resume", f"the log's field is {opts.field_width:g}x{opts.field_depth:g} inches, "
                             f"this set-up's {setup.size[0]:g}x{setup.size[1]:g}")
    else:
        opts = TheGameOptions.from_json({**options, "field_width": setup.size[0], "field_depth": setup.size[1]})
    labels: dict[str, Any] = {"current": None}
    if args.labels:
        from vision.detections import Detections

        def detect(image: Any) -> Any:
            return labels["current"] if labels["current"] is not None else Detections.empty()
    else:
        from vision.detect import Detector, DetectorError

        try:
            detect = Detector.load(args.weights or "the-game", imgsz=args.imgsz).detect
        except DetectorError as err:
            raise InputError("detector", f"{err} (or give --weights FILE)") from None
    helper = OutdoorAssistant(setup, detect, opts, ReadingConfig(piece_height=args.height, sides=tuple(opts.sides)),
                              crop=not args.labels)
    source = open_source(camera=args.camera, video=args.video, images=args.images, url=args.url, say=say,
                         pattern=args.glob, newest=not args.no_frame_drop,
                         camera_size=args.camera_size, window_s=args.window_s)
    if hasattr(source, "start"):
        source.start()  # a camera or URL that cannot be opened is refused before anything is written
    # with --pose, its first frame is checked now: nothing is written for frames it does not fit
    frames = source if setup.pose is None else fitting_pose(source, setup.pose)
    audio = Audio(args.audio, out=say)
    try:  # made before the log: a file in its way leaves no log behind
        folder = frames_folder(args.out) if args.out else None
    except BaseException:
        audio.close()
        raise
    log: FieldLog | None = None
    if held is not None:
        if cut_short(args.resume, held.kept):
            say(f"note: the last line of {args.resume} was cut short (written when a session stopped "
                "mid-line?) and is dropped; the positions before it are kept")
        log = FieldLog.reopen(args.resume, held.kept, positions=held.positions)
    elif args.log:
        log = FieldLog.create(args.log, opts)

    def announce(text: str, kind: str) -> None:
        if log is not None:
            log.said(text, kind)  # kept before it is spoken
        audio.announce(text, kind)

    def settled(report: Any, sequence: int, placing: bool) -> None:
        if log is not None:
            log.position(report, sequence, placing, picture=session.settled_picture, memo=session.memo())

    session = OutdoorSession(helper, announce, args.window_s, on_settle=settled)
    if held is not None and held.readings is not None:
        picture = None
        try:
            picture = read_still(args.resume, held.positions)
        except RecordError as err:
            say(f"note: the last position's picture is not used: {err}")
        session.resume(held.readings, held.sequence, held.placing, picture, held.memo)
    elif held is not None:
        announce("Resumed: no still position was read before; reading the field afresh.", "info")
    paths = iter(getattr(source, "paths", []))
    repeat = getattr(source, "repeat", 1)
    show = not args.no_window and has_display()
    if not args.no_window and not show:
        say("no display: running without a window (use --no-window --out DIR for annotated frames)")
    title = "tabletop outdoor"
    clicker = None
    n = unreadable = 0
    bad_run = False  # the last frame was unreadable
    started = time.monotonic()
    try:
        for frame, t in frames:
            if args.labels and n % repeat == 0:
                labels["current"] = _labels_for(next(paths, None), setup.calibration)
            n += 1
            if frame is None:
                if not bad_run:  # once for a run of them (a photo is held for several frames)
                    say(f"frame {n}: unreadable frame (a corrupt or empty file?), skipped")
                unreadable += 1
                bad_run = True
                continue
            bad_run = False
            try:
                result = session.process(frame, t)
            except DetectionFailed as err:
                say(f"frame {n}: detection failed ({err}), skipped")
                continue
            if folder is not None or show:
                import cv2

                fps = n / max(1e-6, time.monotonic() - started)
                status = f"{fps:.1f} fps | {len(result.readings)} pieces" + (f" | {result.error}" if result.error else "")
                if result.view is not None and result.report is not None:
                    measure = clicker.overlay() if clicker is not None else None
                    kept = [r for r in session.settled.readings if r.method == KEPT] if session.settled else []
                    img = draw_field(result.image, result.view, result.report, measure=measure, status=status,
                                     hidden=kept)
                else:
                    img = np.ascontiguousarray(frame).copy()
                    cv2.putText(img, status[:150], (6, img.shape[0] - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                                (255, 255, 255), 1, cv2.LINE_AA)
                if folder is not None:
                    cv2.imwrite(str(folder / f"frame-{n:05d}.jpg"), img)
                if show:
                    cv2.imshow(title, img)
                    if clicker is None:
                        clicker = click_to_measure(title, lambda: session.last, lambda text: announce(text, "info"))
                    key = cv2.waitKey(1) & 0xFF
                    if key == ord("q"):
                        break
                    if key == ord("m"):
                        say("muted" if audio.toggle_mute() else "sound on")
            if args.max_frames and n >= args.max_frames:
                break
    finally:
        audio.close()
        if log is not None:
            log.close()
    say(f"{n} frames")
    none_read(n - unreadable, video=args.video, images=args.images, started=() if args.resume or not args.log else (args.log,))
    return 0


def _labels_for(path: Path | None, calibration: Any = None) -> Any:
    """The detections a photo's ground truth JSON (beside it) gives, or none."""
    from tabletop.outdoor.truth import detections_from_truth
    from vision.detections import Detections

    if path is None:
        return Detections.empty()
    truth_path = Path(path).with_suffix(".json")
    try:
        truth = json.loads(truth_path.read_text())
    except (OSError, ValueError):
        return Detections.empty()
    return detections_from_truth(truth, calibration=calibration)

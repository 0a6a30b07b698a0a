"""``tabletop play GAME (--camera N | --video F | --images DIR | --url U) ...``: the live referee."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from tabletop.argtypes import CAMERA_INDEX, frame_size, number, whole
from tabletop.errors import InputError

__all__ = ["add_play_parser", "build_pipeline", "dice_finder_for", "has_display", "run_play"]


def has_display() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _rolls(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got {text!r}") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError("a roll is 0 (a piecepack die's null) or more")
    return values


def _choices(text: str) -> list[str]:
    values = [" ".join(v.split()) for v in text.split(",")]
    if not any(values) or not all(values):
        raise argparse.ArgumentTypeError(f"expected choices separated by commas (c1, 2, Heroic Stand, skip), got {text!r}")
    return values


def _audio(text: str) -> str:
    if text in ("auto", "none") or (text.startswith("wav:") and len(text) > 4):
        return text
    raise argparse.ArgumentTypeError(f"expected auto, none or wav:FILE, got {text!r}")


def add_play_parser(commands: Any, formatter: Callable[[str], argparse.HelpFormatter], parser_class: type,
                    exit_text: str) -> argparse.ArgumentParser:
    """Register ``play`` on the ``tabletop`` subparsers."""
    play = commands.add_parser(
        "play",
        help="referee a game live from a camera, a video, a folder of images or a stream URL",
        description=(
            "Watch a real board: per frame the board pose (the game's calibration markers), the pieces\n"
            "(the game's detector), the cells they stand on; a position counts once it has been still\n"
            "for --window seconds with no hand over the board; the move between two such positions is\n"
            "read through the rules engine, announced (legal: the engine's events; illegal: the reason)\n"
            "and written to the record. docs/live.md."
        ),
        formatter_class=formatter,
        epilog=(
            "examples:\n"
            "  tabletop play oneworld --camera 0 --record game.jsonl --position start.json\n"
            "  tabletop play wormholes --images sample_images --glob 'wormholes-turn-*.jpg' \\\n"
            "      --position start.json --no-window --out annotated --audio wav:said.wav\n"
            "  tabletop play oneworld --camera 0 --resume game.jsonl\n"
            "  tabletop play battle-grounds --video table.mp4 --no-window --out annotated.mp4\n\n"
            "keys in the window: p pause, u undo, a accept the other reading of the last move,\n"
            "r recalibrate, m mute, 1-6 a die thrown (the next roll the rules ask for; Backspace\n"
            "takes it back), c the next of the choices the board cannot show that the rules wait\n"
            "for (a Dice Zone pick, an aspect in a fight with a god: c1, c2, ..., c0 no pick, as\n"
            "the referee says them), Enter plays the choice c is on, q quit.\n\n" + exit_text
        ),
    )
    play.add_argument("game", metavar="GAME", help="the game's short name, e.g. oneworld (see 'tabletop games')")
    src = play.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=CAMERA_INDEX, metavar="N", help="camera index (0: the first webcam)")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--images", metavar="DIR", help="a folder of frames, taken in name order")
    src.add_argument("--url", metavar="URL", help="an RTSP or HTTP MJPEG stream (phone IP-camera apps)")
    play.add_argument("--glob", default="*", metavar="PATTERN", help="with --images: which files (default all)")
    play.add_argument("--camera-size", type=frame_size, default=None, metavar="WxH",
                      help="with --camera: ask the camera for frames of this size, e.g. 1280x720 (default: the "
                      "camera's own, often 640x480); dice and small pieces are read better with more pixels, "
                      "the detector's time stays about the same")
    play.add_argument("--position", metavar="FILE", help="the starting position (engine JSON; default the "
                      "engine's initial position)")
    play.add_argument("--options", metavar="JSON", default="{}", help="the game's options as JSON")
    play.add_argument("--rolls", type=_rolls, default=[], metavar="N,N,...",
                      help="die rolls, used in order: the d6 rolls the rules ask for, and a roll they await as an "
                           "action when no dice are read (When Gods Collide: the chess or hero die by the place of its "
                           "face, 1 to 6, then the numbered die; Wormholes: piecepack dice by value, 0 null); with a "
                           "window, keys 0 to 6 add the dice thrown")
    play.add_argument("--choices", type=_choices, default=[], metavar="C,C,...",
                      help="choices the board cannot show, used in order each time the rules wait for one (a "
                           "Battle Grounds Dice Zone pick or its decline, a Super Sense read, a battle stat; Wormholes' order of "
                           "play; The Game's split of the survivors and the group taken; in a OneWorld fight with a "
                           "god, the aspect the child shows and the one the god announces; a OneWorld combat round the "
                           "table cannot tell): the key the referee "
                           "says (c1, c2, ...; c0 declines; or 1, 2, 0) or the choice's words (a die's name, "
                           "'Rally for Team-Up', 'no pick' or skip, an aspect, a stat), e.g. 'Heroic Stand,c0'; "
                           "one that is none of the choices then is refused and said; with a window, c goes "
                           "through the choices and Enter chooses")
    play.add_argument("--no-dice-finder", action="store_true",
                      help="OneWorld, Battle Grounds, The Game: do not look for ordinary d6 dice on the table (by "
                           "default the d6 finder, models/d6.pt, reads a throw there as the roll an action waits "
                           "for; dice given, typed or rolled come first)")
    play.add_argument("--roll-dice", type=int, default=None, metavar="SEED",
                      help="when a roll is needed and none is given, roll it (seeded) and announce it")
    play.add_argument("--audio", type=_audio, default="auto", metavar="MODE",
                      help="auto (sound device, else printed), none, or wav:FILE")
    rec = play.add_mutually_exclusive_group()
    rec.add_argument("--record", metavar="FILE", help="write the game record (JSON Lines; must not exist)")
    rec.add_argument("--resume", metavar="FILE", help="continue the game of this record, appending to it")
    play.add_argument("--no-window", action="store_true", help="no window: write annotated frames to --out")
    play.add_argument("--out", metavar="DIR|FILE.mp4", help="annotated frames: a folder of JPEGs, or an MP4 "
                      "when the name ends in .mp4")
    play.add_argument("--video-out", metavar="FILE.mp4", help="also write the annotated frames as an MP4 (10 fps "
                      "for --images, else the source's rate)")
    play.add_argument("--window", dest="window_s", type=number("seconds", 0, 10, "the window"), default=0.3, metavar="S",
                      help="seconds a position must stay still with no hand (default 0.3)")
    play.add_argument("--read-every-frame", action="store_true",
                      help="find the board and the pieces in every frame; by default a frame that shows what "
                           "the last one read showed (a still board: only sensor noise changed) keeps its reading "
                           "once two readings of it agree, and is read again after two thirds of --window")
    play.add_argument("--no-frame-drop", action="store_true",
                      help="with --camera or --url: read every frame the stream delivers, in order, even when "
                           "reading falls behind it; by default the referee skips to the newest frame, so that "
                           "a verdict never waits behind stale frames")
    play.add_argument("--pose", metavar="FILE", help="a fixed board pose (JSON from 'tabletop calibrate board' "
                      "or 'calibrate field') instead of tracking the kit's markers")
    play.add_argument("--calibration", metavar="FILE", help="the camera's calibration (from 'tabletop calibrate "
                      "camera'): every frame is undistorted before the board and pieces are read")
    play.add_argument("--weights", metavar="FILE", help="detector weights (default: the game's shipped model)")
    play.add_argument("--max-frames", type=whole("frames", 1, 10**9), default=None, metavar="N",
                      help="stop after N frames")
    play.set_defaults(run=run_play)
    return play


def _prepare(detector: Any, say: Callable[[str], None]) -> None:
    """Make the detector ready at every size it may read a live frame at before the first
    frame comes, so that the game never stalls the first time pieces look larger or smaller."""
    if detector.piece_scale is None:  # one size, made when loaded
        return
    started = time.monotonic()
    say("preparing the detector at every size it may read a frame at (the first time, each is exported: "
        "allow a minute)")
    made = detector.prepare()
    say(f"detector ready at {len(made) + 1} sizes ({time.monotonic() - started:.1f} s)")


def _check_board(game: Any, state: Any, where: str) -> None:
    """Refuse, in one line, a position whose board the game's kit cannot lay out (When Gods
    Collide tiles spanning more than the 16 x 16 mat) before anything is loaded or written."""
    if game.name == "the-game":
        return
    from vision.artwork import ArtworkError
    from vision.detect_cells import board_cells

    try:
        board_cells(game.name, {"position": game.state_to_json(state),
                                "position_source": {"options": game.options_to_json()}})
    except ArtworkError as err:
        raise InputError(where, f"the kit cannot lay out this board: {err}") from None


def _marker_spec(game: str, options: dict[str, Any]) -> Any:
    from calibration.marker_spec import kit_for

    return kit_for(game, options)


def _pose_remedy(game: str, spec: Any) -> str:
    """What to do about a fixed pose of another board than ``game``'s (its kit ``spec``)."""
    w, h = spec.size
    if game == "the-game":
        return (f"calibrate this field ('tabletop calibrate field --size {w:g}x{h:g}'), or give the field's "
                "size in --options (field_width, field_depth)")
    if spec.units == "square":
        return (f"calibrate this board (by its corners: 'tabletop calibrate board --game {game} --squares "
                f"{w:g}x{h:g}'), or give the options of the board the pose was made for (--options)")
    return f"calibrate this board ('tabletop calibrate board --game {game}')"


def printed_markers(spec: Any, pose: Any) -> Any:
    """The markers that lie on the table, as a marker kit: ``spec`` when the board is
    followed by its markers (no fixed ``pose``); for a fixed pose found from the kit's
    markers, the kit printed at the size the pose records; for The Game's field posed from
    its scale marker, that one marker beside the near-left corner; ``None`` for a pose from
    corners given by hand or a grid, where nothing says markers are there, so a die lying
    where one would be is not left out."""
    if pose is None:
        return spec
    method, printed = pose.quality.method, pose.quality.marker_mm
    if method == "markers":
        return spec if printed is None else spec.with_marker_mm(printed)
    if method.startswith("scale marker") and spec.game == "the-game":
        from calibration.marker_spec import scale_marker_spec

        width, depth = spec.size
        return scale_marker_spec(width, depth) if printed is None else scale_marker_spec(width, depth, printed)
    return None


def dice_finder_for(detector: Any) -> Any:
    """The shipped d6 finder (:func:`vision.dice_finder.load_finder`) for a detector that
    finds no dice of its own (OneWorld's, Battle Grounds', The Game's), else ``None``."""
    from tabletop.live.board import DICE_PREFIXES
    from vision.dice_finder import load_finder

    if any(str(n).startswith(DICE_PREFIXES) for n in detector.names):  # When Gods Collide's, Wormholes'
        return None
    return load_finder()


def build_pipeline(game: Any, state: Any, detector: Any, *, pose: Any = None, tracker: Any = None,
                   audio: Any = None, record: Any = None, rolls: Any = None, window_s: float = 0.3,
                   say: Callable[[str], None] = print, every_frame: bool = False,
                   choices: Sequence[str] = (), dice: Any = None, markers: Any = None) -> Any:
    """The live pipeline of ``game`` from ``state``: a fixed ``pose`` (a
    :class:`calibration.pose.BoardPose`) or the game's marker ``tracker``, and ``detector``;
    ``dice``: a :class:`vision.dice_finder.DiceFinder` whose d6 dice join the detector's;
    ``markers``: the kit's :class:`calibration.marker_spec.MarkerSpec` (by default the
    tracker's), whose printed markers, where the pose puts them, are no dice."""
    from tabletop.live.board import BoardMapper, PoseGeometry
    from tabletop.live.motion import StillFrames
    from tabletop.live.pipeline import FrameView, LivePipeline, size_of_frame

    mapper = BoardMapper.for_game(game.name, game.state_to_json(state), game.options_to_json(),
                                  names=tuple(detector.names))

    spec = markers if markers is not None or tracker is None else tracker.spec

    def locate(frame: Any) -> FrameView | None:
        if pose is not None:
            size = size_of_frame(frame)
            sized = pose if size is None else pose.for_frame(size)  # a photo of another size: scaled
            return FrameView(PoseGeometry(sized), sized.board_corners_in_image(), "fixed",
                             spec.in_image(sized.to_image) if spec is not None else ())
        update = tracker.update(frame)
        for e in update.events:
            say(e.text)
        if update.pose is None:
            return None
        q = update.pose.quality
        return FrameView(PoseGeometry(update.pose), update.pose.board_corners_in_image(),
                         f"{update.state} {q.residual_px:.1f}px",
                         spec.in_image(update.pose.to_image) if spec is not None else ())

    detect = detector.detect
    if dice is not None:
        from vision.dice_finder import with_dice

        detect = with_dice(detect, dice)
    return LivePipeline(game, state, detect, locate, mapper, audio=audio, record=record,
                        rolls=rolls, window_s=window_s, log=say,
                        still=StillFrames(refresh_s=0.0) if every_frame else None, choices=choices)


def _position(game: Any, path: str) -> Any:
    """The starting position in the file ``path`` (the engine's JSON)."""
    from rules.errors import FormatError
    from tabletop.commands import read_json

    try:
        return game.state_from_json(read_json(path))
    except InputError as err:
        raise InputError("--position", str(err)) from None
    except FormatError as err:
        raise InputError("--position", f"{path}: {err}") from None


def _camera(path: str) -> Any:
    from calibration.camera import CalibrationError, CameraCalibration

    try:
        return CameraCalibration.load(path)
    except CalibrationError as err:
        raise InputError("--calibration", str(err)) from None


def undistorted(source: Iterable[tuple[Any, float]], camera: Any) -> Iterator[tuple[Any, float]]:
    """``source``'s frames through ``camera.undistort`` (one remap each); a missing or
    unreadable frame (``None``) passes as it is, for the pipeline to report."""
    for frame, t in source:
        yield (camera.undistort(frame) if frame is not None else None), t


def _video_fps(args: argparse.Namespace) -> float:
    if args.images:
        return 10.0  # ImageFolder's stream rate
    if args.video:
        import cv2

        cap = cv2.VideoCapture(args.video)
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        cap.release()
        return float(fps) if 1.0 <= fps <= 240.0 else 30.0
    return 30.0


def run_play(args: argparse.Namespace, out: TextIO) -> int:
    from tabletop.live.audio import Audio
    from tabletop.live.inputs import (
        check_source_options,
        fitting_pose,
        frames_folder,
        none_read,
        open_source,
    )
    from tabletop.live.pipeline import Rolls
    from tabletop.live.record import LiveRecord, cut_short
    from tabletop.live.session import FrameSink, run_frames
    from tabletop.live.window import Controls, Window, handle_key
    from tabletop.referee import load_game

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as err:
        raise InputError("--options", f"not JSON: {err.msg}") from None
    if args.no_window and not (args.out or args.video_out):
        raise InputError("--out", "--no-window needs --out DIR (or FILE.mp4) for the annotated frames")
    check_source_options(args)
    if args.video_out and not args.video_out.lower().endswith(".mp4"):
        raise InputError("--video-out", f"the video must be an .mp4 file, got {args.video_out!r}")
    # everything is read and checked before the record is written to (created, or reopened
    # to continue it): bad input never leaves a record changed, nor a new one behind
    n = kept = 0
    if args.resume:
        for flag, given in (("--position", args.position), ("--options", options)):
            if given:  # the record holds the game's options and every position since its start
                raise InputError(flag, "not with --resume: the record goes on from its own last position and options")
        referee, n, kept = LiveRecord.read(args.resume)
        game, state = referee.game, referee.state
        if game.name != args.game:
            raise InputError("--resume", f"the record is a game of {game.name}, not {args.game}")
        _check_board(game, state, "--resume")
    else:
        game = load_game(args.game, options)
        if args.position:
            state = _position(game, args.position)
        else:
            try:
                state = game.initial_state()
            except NotImplementedError:
                raise InputError("--position", f"{game.title} needs a starting position") from None
        _check_board(game, state, "--position")
        if args.record and Path(args.record).exists():
            raise InputError("--record", f"{args.record} exists (use --resume to continue it)")
        side = Path(args.record + ".events.jsonl") if args.record else None
        if side is not None and side.exists():  # a new record's side log holds its own game alone
            raise InputError("--record", f"{side} exists (the side log of an earlier game?): move it away or "
                                         "remove it, or give another --record")
    from calibration.tracker import PoseTracker
    from vision.detect import Detector, DetectorError

    try:
        detector = Detector.load(args.weights or args.game)
        if args.camera is not None or args.url is not None:
            _prepare(detector, say)
    except DetectorError as err:
        raise InputError("detector", str(err)) from None
    dice = None
    if not args.no_dice_finder:
        try:
            dice = dice_finder_for(detector)
        except DetectorError as err:  # a help beside the detector: the game goes on without it
            say(f"note: the d6 finder could not be loaded ({err}); dice are typed or rolled")
    fixed = None
    spec = _marker_spec(game.name, game.options_to_json())  # a resumed record: its own options
    if args.pose:
        from tabletop.calibrate import load_pose

        fixed = load_pose(args.pose, units=spec.units,  # the kit's units and size: this game's board
                          calibrated=bool(args.calibration), size=spec.size, remedy=_pose_remedy(game.name, spec))
    camera = _camera(args.calibration) if args.calibration else None
    tracker = None if fixed is not None else PoseTracker(spec)
    source = stream = open_source(camera=args.camera, video=args.video, images=args.images, url=args.url, say=say,
                                  pattern=args.glob, newest=not args.no_frame_drop,
                                  camera_size=args.camera_size, window_s=args.window_s)
    if hasattr(stream, "start"):
        stream.start()  # a camera or URL that cannot be opened is refused before a record is made
    if camera is not None:
        source = undistorted(source, camera)
    if fixed is not None:  # its first frame checked now: nothing is written for frames it does not fit
        source = fitting_pose(source, fixed)
    audio = Audio(args.audio, out=say)
    rolls = Rolls(args.rolls, args.roll_dice, say=lambda t: audio.announce(t, "info"))
    show = not args.no_window and has_display()
    if not args.no_window and not show:
        say("no display: running without a window (use --no-window --out DIR for annotated frames)")
    video = args.video_out or (args.out if args.out and args.out.lower().endswith(".mp4") else None)
    folder = args.out if args.out and args.out != video else None
    try:
        if folder:
            frames_folder(folder)
        sink = FrameSink(folder, video, _video_fps(args)) if (folder or video) else None
    except BaseException as err:
        audio.close()
        if isinstance(err, OSError):
            raise InputError("--video-out" if args.video_out else "--out", str(err)) from None
        raise
    record = None
    try:
        if args.resume:
            if cut_short(args.resume, kept):
                say(f"note: the last line of {args.resume} was cut short (written when a session stopped "
                    "mid-line?) and is dropped; the actions before it are kept")
            record = LiveRecord.reopen(args.resume, kept)
            say(f"resumed {args.resume}: {n} actions replayed")
        elif args.record:
            record = LiveRecord.create(args.record, game.name, game.options_to_json(), game.state_to_json(state))
    except BaseException:
        audio.close()
        raise
    pipe = build_pipeline(game, state, detector, pose=fixed, tracker=tracker, audio=audio, record=record, dice=dice,
                          markers=printed_markers(spec, fixed),
                          rolls=rolls, window_s=args.window_s, say=say,
                          every_frame=args.read_every_frame, choices=args.choices)
    window = None
    if show:
        try:
            window = Window(f"tabletop play {game.name}")
            rolls.typed = True  # a missing roll is asked for at the window's keys
            if game.name == "the-game":  # click two pieces (or points) to hear the distance in inches
                from tabletop.outdoor.live import register_play_window
                register_play_window(window.title, pipe, lambda text: audio.announce(text, "info"))
        except Exception as err:  # noqa: BLE001 - OpenCV built without a GUI, or the display refuses
            say(f"no window ({type(err).__name__}: {str(err).strip().splitlines()[-1][:120]}); going on without")
    controls = Controls(pipe, audio, tracker, say)
    try:
        n = run_frames(source, pipe, sink=sink, window=window, max_frames=args.max_frames,
                       on_key=lambda key: handle_key(key, controls))
    finally:
        if sink is not None:
            sink.close()
        if window is not None:
            window.close()
        audio.close()
        if record is not None:
            record.close()
    legal = sum(1 for k, _ in pipe.announced if k == "legal")
    illegal = sum(1 for k, _ in pipe.announced if k == "illegal")
    dropped = getattr(getattr(stream, "capture", None), "dropped", 0)
    skipped = f" ({dropped} stale frames skipped while reading)" if dropped else ""
    say(f"{n} frames{skipped}, {legal} legal and {illegal} illegal announced")
    if sink is not None:
        say(f"annotated frames: {sink.count} written to {video or folder}")
    begun = () if args.resume or not args.record else (args.record, args.record + ".events.jsonl")
    none_read(n - pipe.unreadable, video=args.video, images=args.images, started=begun)
    return 0

"""The ``tabletop calibrate`` commands: camera intrinsics, a board's pose, The Game's field.

::

    tabletop calibrate camera IMAGES... [--pattern 9x6 --square 25mm | --charuco ...] --out camera.json
    tabletop calibrate board IMAGE --game GAME [--corners "x,y x,y x,y x,y" | --click | --auto] [--squares 8x8]
                                   [--camera camera.json] [--overlay out.png] --out pose.json
    tabletop calibrate field IMAGE [--size 24x24] [--marker-size MM] [--camera camera.json]
                                   [--overlay out.png] --out pose.json

Each run function takes the parsed arguments and the output stream and returns the exit
status; bad input raises :class:`calibration.errors.CalibrationError` (or ``OSError``), which
:mod:`tabletop.cli` prints as one line (exit 2). OpenCV is loaded only when a command runs.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from calibration.errors import CalibrationError
from tabletop.errors import InputError

__all__ = [
    "add_calibrate_parser",
    "run_calibrate_camera",
    "run_calibrate_board",
    "run_calibrate_field",
    "field_sizes",
    "load_pose",
]

SQUARE_GAMES = ("battle-grounds", "wormholes", "when-gods-collide")

EPILOG = """\
examples:
  tabletop calibrate camera photos/left*.jpg --pattern 9x6 --square 25mm --out camera.json
  tabletop calibrate board table.jpg --game oneworld --camera camera.json --out pose.json
  tabletop calibrate board old-map.jpg --game oneworld --corners "212,80 1040,95 1090,690 160,670" --out pose.json
  tabletop calibrate board bg.jpg --game battle-grounds --auto --squares 8x8 --overlay check.png --out pose.json
  tabletop calibrate field lawn.jpg --size 36x24 --out field.json

Markers, corner order and file formats: docs/calibration.md.
"""


def add_calibrate_parser(
    commands: Any,
    formatter: Callable[[str], argparse.HelpFormatter],
    parser_class: type,
    exit_text: str,
) -> argparse.ArgumentParser:
    """Register ``calibrate`` and its three commands on the ``tabletop`` subparsers."""
    calibrate = commands.add_parser(
        "calibrate",
        help="calibrate the camera, a board or The Game's field from photos",
        description=(
            "Calibrate from photos: a camera's lens (intrinsics), a board's pose (markers, four\n"
            "corners by hand, or the grid found automatically), or The Game's field in inches.\n"
            "Each writes a JSON file the live pipeline reads (docs/calibration.md)."
        ),
        formatter_class=formatter,
        epilog=EPILOG + "\n" + exit_text,
    )
    sub = calibrate.add_subparsers(
        title="calibrate commands", metavar="COMMAND", parser_class=parser_class
    )

    camera = sub.add_parser(
        "camera",
        help="the camera's intrinsics from photos of a chessboard or ChArUco board",
        description=(
            "Find the pattern in each photo, calibrate, drop photos whose error is far above the\n"
            "others (saying why), and print the RMS reprojection error per photo and overall."
        ),
        formatter_class=formatter,
        epilog="example:\n  tabletop calibrate camera left*.jpg --pattern 9x6 --square 25mm --out camera.json\n\n"
        + exit_text,
    )
    camera.add_argument(
        "images", nargs="+", metavar="IMAGE", help="photos of the pattern (10 or more is best)"
    )
    camera.add_argument(
        "--pattern", metavar="COLSxROWS", help="inner corners of the chessboard (default 9x6)"
    )
    camera.add_argument(
        "--square", metavar="SIZE", help="side of a square, e.g. 25mm or 1in (default 25mm)"
    )
    camera.add_argument(
        "--charuco",
        metavar="SQX,SQY,SQ,MK,DICT",
        help="a ChArUco board instead: squares across and down, square and marker length, "
        "dictionary (e.g. 5,7,40mm,20mm,DICT_6X6_250)",
    )
    camera.add_argument(
        "--out", required=True, metavar="FILE", help="where to write the calibration (JSON)"
    )
    camera.set_defaults(run=run_calibrate_camera)

    board = sub.add_parser(
        "board",
        help="a board's pose from its markers, four corners, or its grid",
        description=(
            "Find the board in a photo and write its pose (image <-> board coordinates).\n"
            "By default from the kit's corner markers (at least 3 of 4 in view); --corners gives\n"
            "the four corners by hand (top-left, top-right, bottom-right, bottom-left; on a hex map\n"
            "the centres of the four corner hexes); --auto finds a square grid with no markers."
        ),
        formatter_class=formatter,
        epilog=EPILOG + "\n" + exit_text,
    )
    board.add_argument(
        "image", metavar="IMAGE", help="a photo of the board from the camera's position"
    )
    board.add_argument(
        "--game", required=True, metavar="NAME", help="the game whose board it is, e.g. oneworld"
    )
    board.add_argument(
        "--corners",
        metavar='"x,y x,y x,y x,y"',
        help="the board's four corners in pixels: top-left, top-right, bottom-right, "
        "bottom-left (The Game: near-left, near-right, far-right, far-left)",
    )
    board.add_argument(
        "--click",
        action="store_true",
        help="click the four corners in a window instead (needs a display)",
    )
    board.add_argument(
        "--auto", action="store_true", help="find a square grid automatically (square-grid boards)"
    )
    board.add_argument(
        "--squares",
        metavar="COLSxROWS",
        help="the grid's squares for --auto, --corners or --click (e.g. 8x8; default the game's board: "
        "Battle Grounds 8x8, its advanced board; give 6x7 for the basic one; Wormholes 10x18; "
        "When Gods Collide 16x16)",
    )
    board.add_argument(
        "--camera",
        metavar="FILE",
        help="a camera calibration to undistort with (from 'calibrate camera')",
    )
    board.add_argument(
        "--overlay", metavar="PNG", help="also draw the found grid on the photo and save it here"
    )
    board.add_argument(
        "--out", required=True, metavar="FILE", help="where to write the pose (JSON)"
    )
    board.set_defaults(run=run_calibrate_board)

    field = sub.add_parser(
        "field",
        help="The Game's field in inches, from corner markers or one scale marker",
        description=(
            "Find The Game's field: markers 40-43 at its corners (at least 3 in view), or the\n"
            "scale marker 44 beside its near-left corner. The pose measures the ground in inches."
        ),
        formatter_class=formatter,
        epilog="example:\n  tabletop calibrate field lawn.jpg --size 24x24 --out field.json\n\n"
        + exit_text,
    )
    field.add_argument(
        "image", metavar="IMAGE", help="a photo of the field from the camera's position"
    )
    field.add_argument(
        "--size",
        default="24x24",
        metavar="WxD",
        help="field width x depth in inches (default 24x24)",
    )
    field.add_argument(
        "--marker-size",
        metavar="MM",
        help="printed side of the markers used, in mm (default 76.2 = 3in; scale marker 152.4 = 6in)",
    )
    field.add_argument("--camera", metavar="FILE", help="a camera calibration to undistort with")
    field.add_argument(
        "--overlay", metavar="PNG", help="also draw the field on the photo and save it here"
    )
    field.add_argument(
        "--out", required=True, metavar="FILE", help="where to write the pose (JSON)"
    )
    field.set_defaults(run=run_calibrate_field)
    calibrate.set_defaults(help_of=calibrate)
    return calibrate


# -- camera ---------------------------------------------------------------------------------


def _charuco(text: str) -> tuple[str, str, str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 5 or not all(parts):
        raise CalibrationError(
            f"--charuco: expected SQX,SQY,SQ,MK,DICT (e.g. 5,7,40mm,20mm,DICT_6X6_250), got {text!r}"
        )
    return f"{parts[0]}x{parts[1]}", parts[2], parts[3], parts[4]


def _out_file(path: str, example: str) -> None:
    """Refuse, before any work, an ``--out`` that names a folder (``example``: a file name in it)."""
    if Path(path).is_dir():
        raise InputError("--out", f"{path} is a folder: give a file for --out (e.g. {Path(path) / example})")


def run_calibrate_camera(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.camera import calibrate_camera

    _out_file(args.out, "camera.json")
    # only folders given (the folder, not the photos in it): refused; a folder among photos (a
    # shell glob such as photos/* matching a subfolder) is dropped like any photo it cannot read
    if all(Path(image).is_dir() for image in args.images):
        image = args.images[0]
        raise InputError("IMAGE", f"{image} is a folder, not a photo: give the photos in it "
                                  f"(e.g. {Path(image) / '*.jpg'})")
    notes: list[str] = []
    if args.charuco:
        if args.pattern or args.square:
            raise CalibrationError(
                "give either --pattern/--square (chessboard) or --charuco, not both"
            )
        size, square, marker, dictionary = _charuco(args.charuco)
        result = calibrate_camera(
            args.images,
            pattern=size,
            square=square,
            kind="charuco",
            marker_length=marker,
            dictionary=dictionary,
            on_message=notes.append,
        )
    else:
        result = calibrate_camera(
            args.images,
            pattern=args.pattern or "9x6",
            square=args.square or "25mm",
            kind="chessboard",
            on_message=notes.append,
        )
    width = max([len(n) for n, _ in result.per_image] + [5])
    print(f"{'image':<{width}}  RMS (px)", file=out)
    for name, rms in result.per_image:
        print(f"{name:<{width}}  {rms:.3f}", file=out)
    if result.dropped:
        print("dropped:", file=out)
        for name, reason in result.dropped:
            print(f"  {name}: {reason}", file=out)
    for note in notes:
        if not note.endswith("(dropped)"):
            print(f"note: {note}", file=out)
    print(f"overall RMS: {result.rms:.3f} px over {len(result.per_image)} images", file=out)
    result.save(args.out)
    print(f"wrote {args.out}", file=out)
    return 0


# -- board and field ------------------------------------------------------------------------


def load_pose(path: str, units: str | None = None, option: str = "--pose", calibrated: bool | None = None,
              size: tuple[float, float] | None = None, remedy: str = "") -> Any:
    """The :class:`calibration.pose.BoardPose` in ``path`` (JSON from 'calibrate board' or
    'calibrate field'); with ``units``, it must measure its board in them ("inch": The Game's
    field); with ``calibrated`` (whether the frames will have a lens calibration's distortion
    removed), a pose made the other way (its ``undistorted``) is refused: it maps other pixels;
    with ``size``, it must be of a board that size (width, height in its units: a pose of
    another board puts the pieces on the wrong cells), ``remedy`` saying what to do instead.
    A file that is not such a pose is bad input naming ``option``."""
    from calibration.pose import BoardPose

    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not JSON: not even text") from None
    except IsADirectoryError:
        raise InputError(option, f"{path}: is a folder, not a pose file") from None
    except OSError as err:
        raise InputError(option, f"{path}: cannot read it: {err.strerror or err}") from None
    try:
        data = json.loads(text)
        pose = BoardPose.from_json(data)
    except json.JSONDecodeError as err:
        raise InputError(option, f"{path}: not JSON: {err.msg}") from None
    except (ValueError, RecursionError) as err:
        from tabletop.records import json_limit

        raise InputError(option, f"{path}: unreadable JSON: {json_limit(err)}") from None
    except CalibrationError as err:
        raise InputError(option, f"{path}: {err}") from None
    if units is not None and pose.units != units:
        raise InputError(option, f"{path}: a pose in {pose.units} units (another game's board), not in "
                                 f"{units} units: calibrate this game's board")
    if size is not None and any(abs(a - b) > 1e-6 * max(1.0, abs(b)) for a, b in zip(pose.size, size)):
        unit = {"inch": "inches", "square": "squares", "hex": "hex units"}.get(pose.units, pose.units)
        raise InputError(option, f"{path}: a pose of a board {pose.size[0]:g} x {pose.size[1]:g} {unit}, and this "
                                 f"game's board is {size[0]:g} x {size[1]:g}" + (f": {remedy}" if remedy else ""))
    made = data.get("undistorted")
    if calibrated is not None and isinstance(made, bool) and made != calibrated:
        raise InputError(option, f"{path}: made from a picture "
                                 + ("with the lens distortion removed (--camera): give the same camera "
                                    "calibration (--calibration)" if made else
                                    "as the camera took it (no --camera): leave --calibration out, or "
                                    "calibrate the board again with --camera"))
    return pose


def _squares(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    from calibration.patterns import parse_pattern_size

    cols, rows = parse_pattern_size(text)
    if not (1 <= cols <= 64 and 1 <= rows <= 64):
        raise CalibrationError(f"--squares: between 1x1 and 64x64 squares, got {text!r}")
    return cols, rows


def _camera(path: str | None) -> Any:
    if path is None:
        return None
    from calibration.camera import CameraCalibration

    return CameraCalibration.load(path)


def _game_title(game: str) -> str:
    """The game's title; an unknown game is bad input."""
    from rules.registry import game_class, game_names

    if game not in game_names():
        raise CalibrationError(
            f"--game: unknown game {game!r} (known games: {', '.join(game_names())})"
        )
    return str(getattr(game_class(game), "title", game))


def run_calibrate_board(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.markers import read_image

    title = _game_title(args.game)
    _out_file(args.out, "board.json")
    if sum(map(bool, (args.corners, args.click, args.auto))) > 1:
        raise CalibrationError("give one of --corners, --click or --auto, not several")
    squares = _squares(args.squares)
    if squares and not (args.corners or args.click or args.auto):
        raise CalibrationError(
            "--squares goes with --auto, --corners or --click (markers know their board)"
        )
    image = read_image(args.image)
    camera = _camera(args.camera)
    frame_size = (int(image.shape[1]), int(image.shape[0]))
    notes: tuple[str, ...] = ()
    if args.corners or args.click:
        from calibration.manual import (
            FIELD_ORDER,
            ORDER,
            board_geometry,
            click_corners,
            parse_corners,
            pose_from_corners,
        )

        if squares and args.game not in SQUARE_GAMES:
            raise CalibrationError(f"--squares is for square-grid boards, not {args.game}")
        units, size = board_geometry(args.game, squares)
        if args.corners:
            corners = parse_corners(args.corners)
        else:
            from tabletop.live.play import has_display

            if not has_display():
                raise CalibrationError("--click needs a window, and there is no display here: give the "
                                       "four corners in pixels with --corners instead")
            corners = click_corners(image, order=FIELD_ORDER if units == "inch" else ORDER)
        pose = pose_from_corners(corners, units, size, frame_size=frame_size, camera=camera)
    elif args.auto:
        from calibration.grid import find_square_grid

        if args.game not in SQUARE_GAMES:
            raise CalibrationError(
                f"--auto finds square grids; {args.game}'s board is not one: use its markers or --corners"
            )
        from calibration.manual import board_geometry

        _, size = board_geometry(args.game, squares)
        work = camera.undistort(image) if camera is not None else image
        pose = find_square_grid(work, squares=(int(size[0]), int(size[1])))
    else:
        fit, title = _board_from_markers(image, args.game, camera)
        pose, notes = fit.pose, fit.notes
    _report(out, title, pose, notes)
    if args.overlay:
        _write_overlay(out, args.overlay, image, pose, camera)
    _write_pose(out, args, pose, {"game": args.game}, notes, camera is not None, (image.shape[1], image.shape[0]))
    return 0


def _board_from_markers(image: Any, game: str, camera: Any) -> tuple[Any, str]:
    from calibration.markers import detect_markers, fit_markers, kits_for_game

    kits = kits_for_game(game)
    sighting = detect_markers(image, kits[0].dictionary)
    ranked = sorted(kits, key=lambda s: -sum(sighting.corners_of(i) is not None for i in s.ids))
    first_error: CalibrationError | None = None
    for spec in ranked:
        try:
            return fit_markers(sighting, spec, camera), spec.title
        except CalibrationError as err:
            first_error = first_error or err
    assert first_error is not None
    raise first_error


def field_sizes(size: str, marker: str | None, size_option: str) -> tuple[tuple[float, float], float | None]:
    """The field's size in inches and the markers' printed size in mm (``None``: the kit's)
    from the command line's texts; a bad one is bad input naming its option."""
    from calibration.field import parse_field_size, parse_marker_mm

    try:
        field = parse_field_size(size)
    except CalibrationError as err:
        raise InputError(size_option, str(err)) from None
    try:
        return field, parse_marker_mm(marker) if marker else None
    except CalibrationError as err:
        raise InputError("--marker-size", str(err)) from None


def run_calibrate_field(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.field import locate_field
    from calibration.markers import read_image

    size, marker_mm = field_sizes(args.size, args.marker_size, "--size")
    _out_file(args.out, "field.json")
    image = read_image(args.image)
    camera = _camera(args.camera)
    fit = locate_field(image, size, marker_mm, camera)
    _report(out, "The Game's field", fit.pose, fit.notes)
    if args.overlay:
        _write_overlay(out, args.overlay, image, fit.pose, camera)
    _write_pose(out, args, fit.pose, {"game": "the-game"}, fit.notes, camera is not None,
                (image.shape[1], image.shape[0]))
    return 0


def _report(out: TextIO, title: str, pose: Any, notes: tuple[str, ...]) -> None:
    q = pose.quality
    what = {
        "markers": "markers",
        "scale marker": "scale marker",
        "manual": "corners",
        "grid": "grid points",
    }.get(q.method, q.method)
    print(f"{title}: pose from {q.method}", file=out)
    print(f"  {what} used: {q.seen} of {q.expected}", file=out)
    print(f"  residual: {q.residual_px:.2f} px RMS", file=out)
    print(f"  the board fills {q.coverage * 100:.0f}% of the frame", file=out)
    plural = {"square": "squares", "hex": "hex units (circumradius)", "inch": "inches"}[pose.units]
    print(f"  board: {pose.size[0]:g} x {pose.size[1]:g} {plural}", file=out)
    for note in notes:
        print(f"note: {note}", file=out)


def _write_pose(
    out: TextIO,
    args: argparse.Namespace,
    pose: Any,
    extra: dict[str, Any],
    notes: tuple[str, ...],
    undistorted: bool,
    frame_size: tuple[int, int],
) -> None:
    doc = {
        "format": "tabletop-board-pose",
        "version": 1,
        **extra,
        "image": str(args.image),
        **replace(pose, frame_size=frame_size).to_json(),
        "undistorted": undistorted,
        "camera": str(args.camera) if args.camera else None,
        "notes": list(notes),
    }
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=out)


def _write_overlay(out: TextIO, path: str, image: Any, pose: Any, camera: Any) -> None:
    import cv2

    view = draw_pose(image, pose, camera)
    try:
        written = cv2.imwrite(str(path), view)
    except cv2.error:
        written = False
    if not written:
        raise CalibrationError(
            f"{path}: cannot write the overlay (use a .png or .jpg name in a folder that exists)"
        )
    print(f"wrote {path}", file=out)


def draw_pose(image: Any, pose: Any, camera: Any = None) -> Any:
    """A copy of ``image`` with the board's grid (squares, hexes, or the field's 6-inch grid)
    drawn through ``pose``."""
    import cv2
    import numpy as np

    view = image.copy()
    w, h = pose.size

    def to_px(board: Any) -> Any:
        px = pose.to_image(np.asarray(board, float))
        if camera is not None:
            px = camera.distort_points(px, (image.shape[1], image.shape[0]))
        return np.round(px * 16).astype(np.int32)

    def line(a: tuple[float, float], b: tuple[float, float], colour: tuple[int, int, int]) -> None:
        t = np.linspace(0, 1, 24)[:, None]
        pts = to_px(np.array(a) * (1 - t) + np.array(b) * t)
        cv2.polylines(view, [pts], False, colour, 2, cv2.LINE_AA, shift=4)

    if pose.units == "hex":
        from rules.oneworld.board import bundled_map
        from vision.hexmap import HexMapView

        hexes = HexMapView(pose, bundled_map())
        for hx in hexes.map_hexes():
            corners = pose.to_image(np.array(hexes.layout.corners(hx)))
            if camera is not None:
                corners = camera.distort_points(corners, (image.shape[1], image.shape[0]))
            cv2.polylines(
                view,
                [np.round(corners * 16).astype(np.int32)],
                True,
                (0, 255, 255),
                1,
                cv2.LINE_AA,
                shift=4,
            )
    else:
        step = 6.0 if pose.units == "inch" else 1.0
        for x in np.arange(0, w + 1e-9, step):
            line((x, 0), (x, h), (0, 255, 255))
        for y in np.arange(0, h + 1e-9, step):
            line((0, y), (w, y), (0, 255, 255))
    for a, b in (((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0))):
        line(a, b, (0, 0, 255))
    cv2.circle(view, tuple(int(v) for v in to_px([[0, 0]])[0] // 16), 8, (0, 0, 255), -1)
    return view

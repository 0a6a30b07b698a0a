"""The ``tabletop`` command line (also ``python -m tabletop``).

Commands (each has ``--help``; docs/cli.md has examples)::

    tabletop games                                    the games the referee knows
    tabletop demo [--game NAME] [--out DIR]           every game's sample turn through the live referee
    tabletop demo --record [--game NAME] [--speak]    replay a bundled game record, announced
    tabletop rules check --game NAME [FILE]           is this action legal? what happens?
    tabletop rules moves --game NAME [--piece ID] [FILE]
    tabletop rules replay (LOG | --example GAME) [--quiet] [--json] [--speak]
    tabletop calibrate camera IMAGES... [--pattern 9x6 --square 25mm | --charuco ...] --out FILE
    tabletop calibrate board IMAGE --game NAME [--corners "x,y ..." | --click | --auto] --out FILE
    tabletop calibrate field IMAGE [--size 24x24] [--marker-size MM] --out FILE
    tabletop render GAME --count N --out DIR [--seed S] [--size 640x480] [--hands 0.3]
    tabletop print GAME [--paper letter|a4] [--out DIR] [--format pdf,png]
    tabletop train GAME [--data DIR] [--epochs N] [--imgsz N] [--seed S] [--out DIR]
    tabletop eval GAME --data DIR [--weights W] [--backend auto|ultralytics|onnx]
    tabletop measure IMAGE A B [--pose F | --markers auto|corners|scale] [--calibration F] [--out F]
    tabletop outdoor (--camera N | --url U | --video F | --images DIR) [--calibration F] [--audio ...]
    tabletop play GAME (--camera N | --video F | --images DIR | --url U) [--rolls ...] [--audio ...]

Exit status: 0 done (or the action is legal), 1 the rules forbid an action, 2 bad input
(one line on standard error naming the field), 3 a bug in tabletop.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from calibration.errors import CalibrationError
from rules.errors import RulesError
from tabletop import __version__
from tabletop.calibrate import add_calibrate_parser
from tabletop.commands import (
    EXIT_BAD_INPUT,
    EXIT_BUG,
    run_check,
    run_demo,
    run_games,
    run_moves,
    run_replay,
)
from tabletop.errors import TabletopError
from tabletop.live.play import add_play_parser
from tabletop.outdoor.command import add_measure_parser
from tabletop.outdoor.command_live import add_outdoor_parser
from tabletop.printing import add_print_parser
from tabletop.rendering import add_render_parser
from tabletop.training import add_eval_parser, add_train_parser

__all__ = ["build_parser", "main"]

PROG = "tabletop"
DEBUG_ENV = "TABLETOP_DEBUG"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other tabletop error."""

    def error(self, message: str) -> NoReturn:
        print(f"{PROG}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30)


GAME_HELP = "the game's short name, e.g. oneworld (see 'tabletop games')"
FILE_HELP = "a JSON file to read; '-' or nothing reads standard input"
COMPACT_HELP = "print the JSON on one line instead of indented"
SPEAK_HELP = "also speak the announcements (needs espeak-ng or espeak; off by default)"

EXIT_TEXT = """\
exit status:
  0  done; for 'check', the action is legal
  1  the rules forbid the action (check), or a record holds an illegal action (replay)
  2  bad input: unreadable file, malformed JSON, unknown game or piece, a field with a bad
     value; one line on standard error names the field, e.g.
     "tabletop: error: action.to: not a hex label: '99x' (...)"
  3  a bug in tabletop (set TABLETOP_DEBUG=1 to see the traceback)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        formatter_class=_formatter,
        description=(
            "tabletop: a computer-vision referee for physical tabletop games.\n"
            "A camera reads the board, the rules engines check every move, and the referee\n"
            "announces the results. New here? Run 'tabletop demo'."
        ),
        epilog=EXIT_TEXT + "\nFormats: docs/formats.md. More examples: docs/cli.md.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)

    games = commands.add_parser(
        "games",
        help="list the games the referee knows",
        description="List the games whose rules engines are installed, with their titles, and "
        "say which have an example record to replay.",
        formatter_class=_formatter,
    )
    games.add_argument(
        "--json", action="store_true", help="print a JSON list of {name, title, example_record}"
    )
    games.set_defaults(run=run_games)

    demo = commands.add_parser(
        "demo",
        help="the referee on every game's bundled sample pictures (start here)",
        description=(
            "Run each game's bundled sample turn (pictures of a hand making a legal move, then an\n"
            "illegal one) through the live referee with the game's shipped detector, as 'tabletop\n"
            "play' would at the table: print what is announced next to what the turn's ground truth\n"
            "expects, and write per game the annotated frames, an MP4 and a WAV of what was said\n"
            "(into --out). No camera, display or sound device is needed. With --record, replay a\n"
            "bundled game record through the rules engine instead."
        ),
        formatter_class=_formatter,
        epilog="examples:\n  tabletop demo\n  tabletop demo --game wormholes --out /tmp/demo\n"
        "  tabletop demo --record --delay 0.5 --speak",
    )
    demo.add_argument(
        "--game",
        default=None,
        metavar="NAME",
        help="one game only (default: every game; with --record: oneworld)",
    )
    demo.add_argument("--out", default="demo-output", metavar="DIR",
                      help="where the annotated frames, MP4 and WAV files go (default: demo-output)")
    demo.add_argument("--record", action="store_true",
                      help="replay the game's bundled record instead of its sample pictures")
    demo.add_argument("--speak", action="store_true",
                      help="with --record: also speak the announcements (needs espeak-ng or espeak)")
    demo.add_argument(
        "--delay",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="with --record: pause after each action, to follow along (default: 0)",
    )
    demo.set_defaults(run=run_demo)

    rules = commands.add_parser(
        "rules",
        help="ask the rules engines: check an action, list moves, replay a record",
        description=(
            "Talk to the rules engines directly, with JSON in and out (see docs/formats.md)."
        ),
        formatter_class=_formatter,
        epilog=EXIT_TEXT,
    )
    rules_commands = rules.add_subparsers(
        title="rules commands", metavar="COMMAND", parser_class=_Parser
    )

    check = rules_commands.add_parser(
        "check",
        help="is an action legal in a position, and what happens if it is played?",
        description=(
            'Read {"position": ..., "action": ..., "rolls": [...], "options": {...}} and print\n'
            '{"verdict", "events", "rolls_used", "position" (the new one), "outcome", "to_move"}.\n'
            '"options" and "rolls" are optional; without "position" the game\'s starting\n'
            "position is used. An illegal action prints only the verdict (exit 1). A legal action\n"
            'that needs dice not given prints the verdict with "needs_rolls": true and the roll\n'
            "wanted, and no new position."
        ),
        formatter_class=_formatter,
        epilog=(
            "example:\n"
            '  echo \'{"position": {...},\n'
            '         "action": {"type": "move", "piece": "B2", "to": "0508"}}\' \\\n'
            "    | tabletop rules check --game oneworld\n\n" + EXIT_TEXT
        ),
    )
    check.add_argument("--game", required=True, metavar="NAME", help=GAME_HELP)
    check.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    check.add_argument("--compact", action="store_true", help=COMPACT_HELP)
    check.set_defaults(run=run_check)

    moves = rules_commands.add_parser(
        "moves",
        help="list the legal actions in a position",
        description=(
            'Read {"position": ..., "options": {...}} (both optional) and print\n'
            '{"to_move": [players], "actions": [each action\'s JSON plus "notation"]}.'
        ),
        formatter_class=_formatter,
        epilog="example:\n  tabletop rules moves --game oneworld --piece B2 position.json\n\n"
        + EXIT_TEXT,
    )
    moves.add_argument("--game", required=True, metavar="NAME", help=GAME_HELP)
    moves.add_argument(
        "--piece", metavar="ID", help="only the actions that move or use this piece (e.g. B2)"
    )
    moves.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    moves.add_argument("--compact", action="store_true", help=COMPACT_HELP)
    moves.set_defaults(run=run_moves)

    replay = rules_commands.add_parser(
        "replay",
        help="replay a game record, announcing every event",
        description=(
            'Replay a game record (JSON Lines: a header {"game", "options", "position"}, then one\n'
            '{"action", "rolls"} per line) through the referee. Each event is announced with the\n'
            "record line it comes from; the replay stops at the first illegal action, giving its\n"
            "line and the reason (exit 1); at the end the outcome is announced."
        ),
        formatter_class=_formatter,
        epilog=(
            "examples:\n"
            "  tabletop rules replay --example oneworld\n"
            "  tabletop rules replay my-game.jsonl --json\n\n" + EXIT_TEXT
        ),
    )
    replay.add_argument(
        "log", nargs="?", metavar="LOG", help="the record file; '-' reads standard input"
    )
    replay.add_argument(
        "--example", metavar="GAME", help="replay the record bundled with tabletop for GAME instead"
    )
    replay.add_argument(
        "--quiet", action="store_true", help="announce only the result (or the illegal action)"
    )
    replay.add_argument(
        "--json",
        action="store_true",
        help='print each event as a JSON line {line, kind, text, details}, then {"outcome": ...}',
    )
    replay.add_argument("--speak", action="store_true", help=SPEAK_HELP)
    replay.set_defaults(run=run_replay)

    add_calibrate_parser(commands, _formatter, _Parser, EXIT_TEXT)
    add_render_parser(commands, _formatter, _Parser, EXIT_TEXT)
    add_print_parser(commands, _formatter, EXIT_TEXT)
    add_train_parser(commands, _formatter, _Parser, EXIT_TEXT)
    add_eval_parser(commands, _formatter, _Parser, EXIT_TEXT)
    add_play_parser(commands, _formatter, _Parser, EXIT_TEXT)
    add_measure_parser(commands, _formatter, EXIT_TEXT)
    add_outdoor_parser(commands, _formatter, EXIT_TEXT)

    parser.set_defaults(help_of=parser)
    rules.set_defaults(help_of=rules)
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError("the delay must be between 0 and 60 seconds")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version and usage errors
        return done.code if isinstance(done.code, int) else EXIT_BAD_INPUT
    # OpenCV's own warnings (a camera number out of range, a stream it cannot open) repeat in
    # several lines what the command says in one; OPENCV_LOG_LEVEL=INFO shows them again (and
    # FFmpeg's, a video file it cannot read or a stream refused: OPENCV_FFMPEG_LOGLEVEL=16)
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # FFmpeg's AV_LOG_QUIET
    run = getattr(args, "run", None)
    if run is None:
        args.help_of.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    if run is run_replay and (args.log is None) == (args.example is None):
        return _fail(
            "give either a record file (LOG, or '-' for standard input) or --example GAME "
            "(see 'tabletop rules replay --help')"
        )
    try:
        return run(args, sys.stdout)
    except (RulesError, TabletopError, CalibrationError) as err:
        return _fail(str(err))
    except json.JSONDecodeError as err:  # a JSON error not caught nearer its source
        return _fail(f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}")
    except OSError as err:
        if isinstance(err, BrokenPipeError):
            return _quiet_broken_pipe()
        where = f"{err.filename}: " if err.filename else ""
        return _fail(f"{where}{err.strerror or err}")
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"{PROG}: internal error: {type(err).__name__}: {err} (this is a bug in tabletop; "
            f"set {DEBUG_ENV}=1 to see the traceback)",
            file=sys.stderr,
        )
        return EXIT_BUG


def _fail(message: str) -> int:
    text = " ".join(line.strip() for line in message.split("\n") if line.strip())
    print(f"{PROG}: error: {text}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _quiet_broken_pipe() -> int:
    """The reader of our output went away (e.g. ``| head``): stop quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

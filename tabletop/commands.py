"""What each ``tabletop`` command does; :mod:`tabletop.cli` parses the arguments and turns
errors into one line on standard error.

Every command takes its parsed arguments and the output stream and returns the exit status:
:data:`EXIT_OK`, :data:`EXIT_ILLEGAL` (the rules forbid an action) or, by raising, bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from rules.core import Outcome
from rules.errors import FormatError, RollNeededError
from rules.jsonutil import as_object, get_list, get_object, reject_unknown
from rules.registry import game_class, game_names
from tabletop.announcer import Announcer
from tabletop.errors import IllegalRecordActionError, InputError
from tabletop.records import (
    GameRecord,
    bundled_record,
    bundled_record_names,
    json_limit,
    parse_record,
)
from tabletop.referee import Referee, load_game, replay

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BUG",
    "EXIT_ILLEGAL",
    "EXIT_OK",
    "run_check",
    "run_demo",
    "run_games",
    "run_moves",
    "run_replay",
]

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_BAD_INPUT = 2
EXIT_BUG = 3

CHECK_FIELDS = frozenset({"position", "action", "rolls", "options"})
MOVES_FIELDS = CHECK_FIELDS  # a check input may be reused; its action and rolls are ignored


# -- input and output ---------------------------------------------------------------------


_NONE = object()


def read_json(file: str | None, empty: Any = _NONE, needs: str = "") -> Any:
    """The JSON document in ``file`` ("-" or ``None``: standard input). Empty input (nothing
    but white space) is ``empty`` when given, else refused saying it ``needs`` something."""
    if file in (None, "-"):
        source = "<stdin>"
        if sys.stdin.isatty():
            print(
                "tabletop: reading JSON from standard input (end it with Ctrl-D)", file=sys.stderr
            )
        text = sys.stdin.read()
    else:
        source = str(file)
        text = _read_text(Path(file))
    if not text.strip():
        if empty is not _NONE:
            return empty
        if needs:
            raise InputError(source, f"empty: {needs}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            source, f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}"
        ) from None
    except (ValueError, RecursionError) as err:
        raise InputError(source, f"unreadable JSON: {json_limit(err)}") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path), "not a UTF-8 text file") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a file") from None
    except OSError as err:
        raise InputError(str(path), f"cannot read it: {err.strerror or err}") from None


def _dump(obj: Any, out: TextIO, compact: bool) -> None:
    if compact:
        print(json.dumps(obj, ensure_ascii=False), file=out)
    else:
        print(json.dumps(obj, ensure_ascii=False, indent=2), file=out)


def _within(err: FormatError, prefix: str) -> FormatError:
    """``err`` with its field under ``prefix`` (engines usually name it already)."""
    if err.field == prefix or err.field.startswith((prefix + ".", prefix + "[")):
        return err
    return err.within(prefix)


def _starting_state(game: Any, doc: Any) -> Any:
    if "position" not in doc:
        try:
            return game.initial_state()
        except NotImplementedError:
            raise FormatError(
                "position", f"missing: {game.title} needs a starting position"
            ) from None
    try:
        return game.state_from_json(doc["position"])
    except FormatError as err:
        raise _within(err, "position") from None


def _game_and_state(name: str, doc: Any, fields: frozenset[str]) -> tuple[Any, Any]:
    doc = as_object(doc, "input")
    reject_unknown(doc, fields, "")
    options = get_object(doc, "options", "", default={})
    try:
        game = load_game(name, options)
    except FormatError as err:
        raise _within(err, "options") from None
    return game, _starting_state(game, doc)


# -- tabletop games -----------------------------------------------------------------------


def available_games() -> Iterator[tuple[str, str]]:
    """(name, title) of each game whose engine can be loaded now."""
    for name in game_names():
        try:
            yield name, game_class(name).title
        except (ImportError, AttributeError):
            continue  # its package is there but its engine is not finished yet


def run_games(args: argparse.Namespace, out: TextIO) -> int:
    bundled = set(bundled_record_names())
    games = list(available_games())
    if args.json:
        _dump(
            [{"name": n, "title": t, "example_record": n in bundled} for n, t in games],
            out,
            compact=False,
        )
        return EXIT_OK
    width = max((len(n) for n, _ in games), default=4) + 2
    twidth = max((len(t) for _, t in games), default=5) + 2
    print("Games the referee knows:", file=out)
    for name, title in games:
        example = f"example: tabletop rules replay --example {name}" if name in bundled else ""
        print(f"  {name:<{width}}{title:<{twidth}}{example}".rstrip(), file=out)
    return EXIT_OK


# -- tabletop rules check / moves ---------------------------------------------------------


def run_check(args: argparse.Namespace, out: TextIO) -> int:
    doc = read_json(args.file, needs='the action is missing: give a JSON object with at least "action", the '
                                     "action to check (docs/formats.md)")
    game, state = _game_and_state(args.game, doc, CHECK_FIELDS)
    if "action" not in doc:
        raise FormatError("action", "missing")
    try:
        action = game.action_from_json(doc["action"])
    except FormatError as err:
        raise _within(err, "action") from None
    rolls = get_list(doc, "rolls", "", default=[])
    verdict = game.verdict(state, action)
    result: dict[str, Any] = {"verdict": verdict.to_json()}
    if not verdict.legal:
        _dump(result, out, args.compact)
        return EXIT_ILLEGAL
    try:
        step = game.apply(state, action, rolls)
    except RollNeededError as err:
        result["needs_rolls"] = True
        result["roll"] = {"sides": err.sides, "for": err.what, "given": len(rolls)}
        _dump(result, out, args.compact)
        return EXIT_OK
    outcome = game.outcome(step.state)
    result.update(
        events=[e.to_json() for e in step.events],
        rolls_used=list(step.rolls_used),
        position=game.state_to_json(step.state),
        outcome=outcome.to_json() if outcome else None,
        to_move=list(game.to_move(step.state)),
    )
    _dump(result, out, args.compact)
    return EXIT_OK


def run_moves(args: argparse.Namespace, out: TextIO) -> int:
    doc = read_json(args.file, empty={})  # every field is optional: no input is {}
    game, state = _game_and_state(args.game, doc, MOVES_FIELDS)
    if args.piece is None:
        actions = game.legal_actions(state)
    else:
        known = piece_ids(game, state)
        if known is not None and args.piece not in known:
            listed = ", ".join(sorted(known, key=_natural)) or "none"
            raise InputError(
                "--piece", f"no piece {args.piece!r} on the board (pieces on the board: {listed})"
            )
        actions = game.actions_of(state, args.piece)
    listed_actions = [{**game.action_to_json(a), "notation": game.notation(a)} for a in actions]
    doc: dict[str, Any] = {"to_move": list(game.to_move(state)), "actions": listed_actions}
    why = game.unlisted(state)
    if why is not None:  # the list is not whole: say so, not an empty list alone
        doc["not_listed"] = f"{why}; check one with 'tabletop rules check'"
    _dump(doc, out, args.compact)
    return EXIT_OK


def piece_ids(game: Any, state: Any) -> set[str] | None:
    """The ids of the pieces in play, or ``None`` when the engine does not name its pieces."""
    pieces = game.pieces(state)
    return None if pieces is None else {str(p) for p in pieces}


def _natural(text: str) -> tuple[str, int, str]:
    """A sort key putting ``B2`` before ``B10``: the id without its trailing number, then the number."""
    stem = text.rstrip("0123456789")
    number = text[len(stem):]
    return (stem, int(number) if number else 0, text)


# -- tabletop rules replay ----------------------------------------------------------------


def load_record(log: str | None, example: str | None) -> GameRecord:
    if example is not None:
        return bundled_record(example)
    if log in (None, "-"):
        return parse_record(sys.stdin.read(), "<stdin>")
    assert log is not None
    return parse_record(_read_text(Path(log)), log)


def outcome_sentence(outcome: Outcome | None, to_move: tuple[str, ...]) -> str:
    if outcome is None:
        who = ", ".join(to_move) or "nobody"
        return f"The record ends here; the game is not over ({who} to move)."
    if outcome.draw:
        return f"Game over: a draw ({outcome.reason.rstrip('.')})."
    return f"Game over: {outcome.winner} wins ({outcome.reason.rstrip('.')})."


def run_replay(args: argparse.Namespace, out: TextIO) -> int:
    record = load_record(args.log, args.example)
    referee = Referee.for_record(record)
    if args.json:
        return _replay_json(record, referee, out)
    announcer = Announcer(out, speak=args.speak)
    if not args.quiet:
        n = len(record.entries)
        print(
            f"Replaying {record.source}: {referee.game.title}, {n} action{'' if n == 1 else 's'}.",
            file=out,
        )
    return _replay_spoken(record, referee, announcer, quiet=args.quiet)


def _replay_spoken(
    record: GameRecord,
    referee: Referee,
    announcer: Announcer,
    quiet: bool = False,
    delay: float = 0.0,
    gap_before: tuple[str, ...] = (),
) -> int:
    """Announce every event of ``record``; ``gap_before``: kinds of event that start a new
    paragraph (the demo separates turns)."""
    try:
        for step in replay(record, referee):
            if quiet:
                continue
            for event in step.transition.events:
                if event.kind in gap_before:
                    print(file=announcer.out)
                announcer.say(event.text, label=str(step.line))
            if delay:
                time.sleep(delay)
    except IllegalRecordActionError as err:
        v = err.verdict
        announcer.say(
            f"Line {err.line}: illegal action {err.notation}: {v.message} ({v.code}). "
            "The replay stops here."
        )
        return EXIT_ILLEGAL
    announcer.say(outcome_sentence(referee.outcome(), referee.to_move()))
    return EXIT_OK


def _replay_json(record: GameRecord, referee: Referee, out: TextIO) -> int:
    try:
        for step in replay(record, referee):
            for event in step.transition.events:
                print(
                    json.dumps({"line": step.line, **event.to_json()}, ensure_ascii=False), file=out
                )
    except IllegalRecordActionError as err:
        illegal = {"line": err.line, "action": err.notation, "verdict": err.verdict.to_json()}
        print(json.dumps({"illegal": illegal}, ensure_ascii=False), file=out)
        return EXIT_ILLEGAL
    outcome = referee.outcome()
    print(json.dumps({"outcome": outcome.to_json() if outcome else None}), file=out)
    return EXIT_OK


# -- tabletop demo ------------------------------------------------------------------------

DEMO_INTRO = """\
Welcome to tabletop, a referee for games played on a real table.

At the table, a camera reads the board, the rules engine checks every move, and the
referee announces what happened. This demo shows the last two steps: it replays a
recorded game of {title} through the referee, {actions} actions in all. Each action is
checked against the rules before it counts. The number in front of each announcement
is the line of the record it comes from ({source}).
{about}{speech}"""

DEMO_OUTRO = """
That was {turns} turns and {actions} actions, all checked by the rules engine.

What to try next:
{hints}
"""


def _demo_hints(game: str) -> str:
    hints = [
        ("tabletop games", "the games the referee knows"),
        (f"tabletop rules replay --example {game} --json", "the same game as JSON events"),
        (f"tabletop rules moves --game {game} FILE", "the legal moves in a position"),
        (f"tabletop rules check --game {game} FILE", "is a move legal, and what happens?"),
        ("tabletop --help", "everything else (and docs/cli.md)"),
    ]
    width = max(len(c) for c, _ in hints) + 3
    return "\n".join(f"  {c:<{width}}{what}" for c, what in hints)


def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    if not args.record:
        from tabletop.demo import DEMO_GAMES, run_sample_demo

        for flag, given in (("--speak", args.speak), ("--delay", args.delay)):
            if given:  # the sample turns are read at their own pace and their WAVs hold the speech
                raise InputError(flag, "only with --record (the sample turns write what is said to a WAV per game)")

        if args.game is not None and args.game not in DEMO_GAMES:
            raise InputError("--game", f"no sample turn for {args.game!r} (games: {', '.join(DEMO_GAMES)})")
        return run_sample_demo([args.game] if args.game else list(DEMO_GAMES), args.out, out)
    return _run_record_demo(args.game or "oneworld", args, out)


def _run_record_demo(game: str, args: argparse.Namespace, out: TextIO) -> int:
    record = bundled_record(game)
    referee = Referee.for_record(record)
    announcer = Announcer(out, speak=args.speak)
    if announcer.speaking:
        speech = "\nThe announcements are also spoken aloud.\n"
    elif not args.speak:
        speech = "\nAdd --speak to hear them too (needs espeak-ng), and --delay 1 to slow down.\n"
    else:
        speech = ""
    about = ""
    if record.header.comment:
        about = "\n" + textwrap.fill(f"About this game: {record.header.comment}", width=88) + "\n"
    print(
        DEMO_INTRO.format(
            title=referee.game.title,
            actions=len(record.entries),
            source=f"tabletop/data/records/{game}.jsonl",
            about=about,
            speech=speech,
        ),
        file=out,
    )
    status = _replay_spoken(record, referee, announcer, delay=args.delay, gap_before=("turn",))
    if status != EXIT_OK:
        return status
    turns = getattr(referee.state, "turn", None)
    print(
        DEMO_OUTRO.format(
            turns=turns if isinstance(turns, int) else "several",
            actions=len(record.entries),
            hints=_demo_hints(game),
        ),
        file=out,
        end="",
    )
    return EXIT_OK

"""The per-frame loop: pose, detection, mapping, stability, move inference, verdict, voice, record.

:class:`LivePipeline` is fed frames with :meth:`LivePipeline.process`; the camera, the pose
and the detector come in as callables so that tests (and the demo) can give their own. The
engine state only changes by legal actions; the seen board of the last legal position is
the base every new stable position is compared with, so a piece put back after an illegal
move reads as "back as it was", and the next move is read from the legal position.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rules.core import GameRules
from rules.errors import IllegalActionError, RollNeededError
from tabletop.live.board import BoardMapper, Geometry, SeenBoard, implausible
from tabletop.live.chance import TypedDiceError, typed_chance
from tabletop.live.chance import describe as describe_roll
from tabletop.live.choices import CHOICE_NOTE, awaited, label, match, numbered, prompt
from tabletop.live.explain import COSTS, fixed_pieces, piece_classes
from tabletop.live.infer import (
    EPS as COST_EPS,
)
from tabletop.live.infer import (
    PASS_NOTE,
    TURN_NOTE,
    Reading,
    hints,
    infer,
    legal,
    locations,
    passes,
)
from tabletop.live.motion import BoardMotion, StillFrames
from tabletop.live.outcomes import (
    DECIDING,
    awaiting_dice,
    change,
    engine_cells,
    exact_outcomes,
    seen_cells,
)
from tabletop.live.rolls import set_aside_lying
from vision.detections import Detections

__all__ = ["Corrections", "FrameResult", "FrameView", "LivePipeline", "Rolls", "SECRET_NOTE"]

#: The event log's note on a OneWorld side's secret choice, read from the round revealed.
SECRET_NOTE = "chosen in secret: read from the round revealed on the table"
#: The note on an action played with the dice thrown on the table (:meth:`LivePipeline._table_dice`).
TABLE_NOTE = "its dice read off the table"


class Rolls:
    """The dice the engine asks for: given rolls first (``--rolls``, and those typed in the
    window: :meth:`type`), then, when ``seed`` is set, rolled by
    :class:`tabletop.dice.SeededDice` and announced; else a roll is missing. ``typed``: a
    window takes typed dice (what a missing roll's announcement tells the player to do)."""

    def __init__(self, given: Sequence[int] = (), seed: int | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.given = list(given)
        self.say = say
        self.typed = False
        self._dice = None
        if seed is not None:
            from tabletop.dice import SeededDice

            self._dice = SeededDice(seed)

    def chance(self, game: GameRules[Any, Any], state: Any) -> tuple[Any, str] | None:
        """A chance action the engine awaits (a throw of dice that cannot be read off the
        table) and how it came: the dice given or typed first (``"typed"``;
        :func:`tabletop.live.chance.typed_chance`; dice that are no such roll are dropped and
        said), else drawn with the seeded dice by the outcomes' odds (``"rolled"``); ``None``
        when neither has it (too few dice typed yet)."""
        if self.given:
            try:
                typed = typed_chance(game, state, self.given)
            except TypedDiceError as err:
                if self.say:
                    self.say(f"Dice taken back: {err}.")
                self.given.clear()
                return None
            if typed is not None:
                action, count = typed
                del self.given[:count]
                return action, "typed"
            return None  # more dice to type: nothing is rolled meanwhile
        if self._dice is None:
            return None
        outcomes = list(game.chance_outcomes(state))
        if not outcomes:
            return None
        r = (self._dice.roll(1_000_000, "the awaited roll") - 0.5) / 1_000_000
        for action, p in outcomes:
            r -= p
            if r < 0:
                return action, "rolled"
        return outcomes[-1][0], "rolled"

    @property
    def seeded(self) -> bool:
        """Whether the referee rolls the dice nobody gives (``--roll-dice``)."""
        return self._dice is not None

    def type(self, value: int) -> None:
        """A die thrown on the table and typed in (0 to 6: a piecepack die's null is 0): the
        next roll the engine asks for after those already given."""
        if not 0 <= value <= 6:
            raise ValueError(f"a die shows 0 to 6, not {value}")
        self.given.append(value)

    def take_back(self) -> int | None:
        """The die given last, taken back (a key pressed by mistake); ``None`` when none waits."""
        return self.given.pop() if self.given else None

    def roll(self, sides: int, what: str) -> int:
        while self.given:
            value = self.given.pop(0)
            if 1 <= value <= sides:
                return value
            if self.say:  # a 0 typed for a piecepack die, where the rules roll a d6
                self.say(f"Die {value} taken back: a d{sides} shows 1 to {sides}.")
        if self._dice is None:
            raise RollNeededError(what, sides)
        value = self._dice.roll(sides, what)
        if self.say:
            self.say(f"Rolled {value} on a d{sides} for {what}.")
        return value


class Corrections:
    """What the undo and accept-other keys need: the last reading with the engine state and
    seen boards it was read from, the actions played with their dice, and, after an undo, the
    table's position that must change before anything is read again."""

    def __init__(self) -> None:
        self.context: tuple[Any, Any, SeenBoard, Reading] | None = None
        self.current: Reading | None = None  # the reading of the last move now standing
        self.current_played = False
        self.others: list[Reading] | None = None  # worked out on the first press of the key
        self.index = 0
        self.stack: list[tuple[Reading, tuple[int, ...]]] = []  # played readings, with their dice
        self.pending_key: Any = None
        self._pending_board: SeenBoard | None = None  # the table the pending key is of

    def remember(self, state: Any, base: SeenBoard, seen: SeenBoard, reading: Reading) -> None:
        if reading.kind in ("legal", "illegal"):
            self.context, self.current, self.current_played = (state, base, seen, reading), reading, False
            self.others, self.index = None, 0
        self.pending_key = None

    def played(self, reading: Reading, rolls: Any) -> None:
        self.stack.append((reading, tuple(rolls)))
        if reading is self.current:
            self.current_played = True

    def undone(self, after: SeenBoard | None) -> tuple[Reading | None, tuple[int, ...]]:
        self.pending_key = after.key() if after is not None else None
        self._pending_board = after
        self.current_played = False
        return self.stack.pop() if self.stack else (None, ())

    def waiting(self, seen: SeenBoard) -> bool:
        """Whether ``seen`` is still the table an undo left (nothing is read until it changes;
        The Game: a piece turned on the spot, which the key does not hold, is a change, as are
        dice thrown again to the faces they showed, lying elsewhere)."""
        from tabletop.live.rolls import thrown
        from tabletop.live.stability import _turned

        if self.pending_key is not None and seen.key() == self.pending_key \
                and not _turned(seen, self._pending_board) \
                and not (self._pending_board is not None and thrown(self._pending_board, seen)):
            return True
        self.pending_key = None
        return False


@dataclass(frozen=True)
class _Decided:
    """A battle whose result waits on a choice (:data:`tabletop.live.outcomes.DECIDING`: a
    battle stat), and what the table showed of it: ``waiting`` the engine state awaiting the
    choice; ``cells`` and ``before`` the engine's cells and state, and ``base`` the table seen,
    before the action that led to it; ``seen`` the table seen after it; ``action`` its JSON."""

    waiting: Any
    cells: Any
    before: Any
    base: SeenBoard
    seen: SeenBoard
    action: Any

    def drawn(self) -> tuple[Any, SeenBoard, SeenBoard, Any]:
        """What :meth:`LivePipeline._amend` compares a battle the referee's dice fought with."""
        return self.before, self.base, self.seen, self.action


@dataclass(frozen=True)
class FrameView:
    """Where the board is in one frame: the geometry (image <-> board) and its outline;
    ``markers``: where the kit's printed markers lie in the frame (each 4 x 2 pixels), which
    are no dice (:func:`vision.dice_finder.on_markers`)."""

    geometry: Geometry
    polygon: np.ndarray | None = None
    quality: str = ""
    markers: tuple[np.ndarray, ...] = ()


@dataclass
class FrameResult:
    index: int
    t: float
    status: str  # skipped, hand, settling, steady, accepted
    message: str = ""
    seen: SeenBoard | None = None
    view: FrameView | None = None
    reading: Reading | None = None
    announcements: list[tuple[str, str]] = field(default_factory=list)
    fresh: bool = True  # the pose and pieces read from this frame; False: kept from a still one


class LivePipeline:
    def __init__(
        self,
        game: GameRules[Any, Any],
        state: Any,
        detect: Callable[[Any], Detections],
        locate: Callable[[Any], FrameView | None],
        mapper: BoardMapper,
        *,
        audio: Any = None,
        record: Any = None,
        rolls: Rolls | None = None,
        window_s: float = 0.3,
        log: Callable[[str], None] | None = None,
        still: StillFrames | None = None,
        choices: Sequence[str] = (),
    ) -> None:
        from tabletop.live.stability import Stability

        self.game = game
        self.state = state
        self.detect = detect
        self.locate = locate
        self.mapper = mapper
        self.audio = audio
        self.record = record
        self.rolls = rolls or Rolls()
        self.stability = Stability(window_s)
        self.log = log or (lambda s: None)
        self.base: SeenBoard | None = None  # the seen board of the engine's position
        self.last_flagged: Any = None
        self.last_move: Reading | None = None
        self.history: list[tuple[Any, SeenBoard | None]] = []
        self.announced: list[tuple[str, str]] = []
        self.readings: list[Reading] = []  # every reading of an accepted position, in order
        self.frames = 0
        self._ready: Any = None  # a reading's action applied already (_by_outcome), for _play
        self._taken_off: SeenBoard | None = None  # a combat round revealed: the table once its dead are off
        self._lay_down = False  # The Game: an act read standing, its die rolled here: its target may go down
        #: (engine state, the table seen, [(words, round)]): OneWorld's combat rounds the table
        #: could not tell apart, for the window's keys
        self._rounds: tuple[Any, SeenBoard, list[tuple[str, Any]]] | None = None
        self._awaiting: Any = None  # the engine state whose move, made by hand, waits for its dice
        self.unreadable = 0  # frames that were no picture (a corrupt file, a camera hiccup)
        self._skipping: str | None = None  # why the frames before were skipped, said once a run
        self.paused = False
        self.hints: dict[Any, list[Any]] = {}  # lifted piece's cell -> where it may legally go
        self._hint_key: Any = None
        self._unclear = ""  # the last "cannot read" said, not said again in a row
        self._impossible: set[str] = set()  # what was called impossible, not said again in a row
        self._touched = False  # a hand or motion over the board since the last accepted position
        self.motion = BoardMotion()
        # a frame that shows what the last frame read showed keeps its pose and pieces; a still
        # board is read again after two thirds of the window, so each window's vote holds at
        # least two readings of it
        if still is None:
            still = StillFrames(refresh_s=window_s * 2 / 3)
        self.still = still
        self._kept: tuple[FrameView, SeenBoard] | None = None
        self._agreed = False  # the last two readings of the picture kept agree
        self._corrections = Corrections()
        self._roll_needed: str | None = None  # the move whose missing roll was said
        self._table_said: str | None = None  # the move and the dice on the table that could not be its roll
        self._still: SeenBoard | None = None  # the still position accepted last (the dice on the table now)
        self.choices = list(choices)  # --choices: the choices the board cannot show, used in order
        self._choice_said: Any = None  # the engine state whose awaited choice was said
        self._cursor: tuple[Any, int] | None = None  # (state, index): the choice the c key is on
        self._undone: Any = None  # the engine state a choice was taken back to: chosen at the keys, not --choices
        self._awaited_for: tuple[Any, list[Any]] | None = None  # (engine state, the choices it awaits)
        self._choice_waiting: tuple[Any, Any, str] | None = None  # (state, choice, how): its battle dice awaited
        #: what the battle a choice of DECIDING decides must leave (:class:`_Decided`)
        self._decided: _Decided | None = None

    # -- output ----------------------------------------------------------------------------
    def _announce(self, result: FrameResult, text: str, kind: str) -> None:
        result.announcements.append((kind, text))
        self.announced.append((kind, text))
        if self.audio is not None:
            self.audio.announce(text, kind)

    def _event(self, kind: str, **data: Any) -> None:
        if self.record is not None:
            self.record.event(kind, **data)

    def _say_skipped(self, why: str, message: str) -> None:
        """Say a skipped frame's ``message`` at the first of a run of frames skipped for the
        same reason (a bad photo held for several frames, a board out of view for a while),
        not at every one: each frame's result keeps its message."""
        if self._skipping != why:
            self.log(message)
        self._skipping = why

    # -- one frame -------------------------------------------------------------------------
    def process(self, frame: Any, t: float | None = None) -> FrameResult:
        self.frames += 1
        t = time.monotonic() if t is None else t
        result = FrameResult(self.frames, t, "skipped")
        if frame is None or (isinstance(frame, np.ndarray) and (frame.size == 0 or frame.ndim < 2)):
            result.message = f"frame {self.frames}: unreadable frame, skipped"
            self.unreadable += 1
            self._say_skipped("unreadable", result.message)
            return result
        unchanged = self._kept is not None and self.still.unchanged(frame)
        if unchanged and self._agreed and not self.still.due(t):
            view, seen = self._kept
            result.fresh = False
        else:
            before = self._kept[1] if unchanged and self._kept is not None else None
            read = self._read(frame, t, result)
            if read is None:
                self._agreed = False
                return result
            view, seen = read
            # a picture is kept once two readings of it agree: while the detector doubts
            # (reads a still picture otherwise each time), every frame is read
            self._agreed = before is not None and seen.key() == before.key()
        result.view = view
        moving = self.motion.update(frame, view.polygon)  # a hand the detector missed, say
        result.seen = seen
        if self.paused:
            result.status = "paused"
            return result
        # the window's vote, once still; motion over the board counts as a hand
        accepted = self.stability.update_board(t, replace(seen, hand_over_board=True) if moving else seen,
                                               still=unchanged)
        if seen.hand_over_board or moving:
            self._touched = True
            result.status = "hand" if seen.hand_over_board else "motion"
            self._update_hints(seen)
            return result
        self.hints, self._hint_key = {}, None
        if accepted is None:
            result.status = "settling" if self.stability.settling else "steady"
            return result
        result.status = "accepted"
        touched, self._touched = self._touched, False
        self._accept(accepted, result, touched)
        return result

    def _read(self, frame: Any, t: float, result: FrameResult) -> tuple[FrameView, SeenBoard] | None:
        """The board's pose and the pieces seen in ``frame`` (kept for the still frames after
        it, once two readings of the picture agree); ``None``, with the reason in ``result``,
        when the frame has no board or its pieces cannot be read."""
        self._kept = None
        try:
            view = self.locate(frame)
        except Exception as err:  # noqa: BLE001 - a frame never crashes the referee
            view = None
            result.message = f"frame {self.frames}: no board ({err}), skipped"
        if view is None:
            result.message = result.message or f"frame {self.frames}: no board in view, skipped"
            self._say_skipped("no board", result.message)
            return None
        try:
            det = self.detect(frame)
            seen = self.mapper.map(det, view.geometry, view.polygon, size_of_frame(frame),
                                   frame if isinstance(frame, np.ndarray) else None, view.markers)
            # a die unsure of its face lying where one lay at the position a throw is read from
            # (not the last still position: that may be the throw's own, held back) was not thrown
            seen = set_aside_lying(seen, self.base)
        except Exception as err:  # noqa: BLE001 - a frame never crashes the referee
            result.message = f"frame {self.frames}: detection failed ({type(err).__name__}: {err}), skipped"
            self._say_skipped("detection failed", result.message)
            return None
        self._skipping = None
        self._kept = (view, seen)
        self.still.keep(frame, t)
        return view, seen

    def _accept(self, seen: SeenBoard, result: FrameResult, touched: bool = False) -> None:
        self._still = seen
        if self.base is None:
            self.base = seen
            self._event("position", pieces=len(seen.pieces))
            self._offer_choice(result)
            return
        limit = getattr(self.game, "options", None)
        limit = getattr(limit, "stacking_limit", 4) if limit is not None else 4
        sj = self.game.state_to_json(self.state)
        known = len(locations(self.game.name, sj)) + len(fixed_pieces(self.game.name, sj))
        problems = implausible(seen, self.base, limit if isinstance(limit, int) else 4, known)
        if problems:
            text = "Impossible position: " + "; ".join(problems) + "."
            where = {re.sub(r"^\d+ ", "", problem) for problem in problems}  # a count may flicker
            if not where <= self._impossible:  # something new looks wrong: say it
                self._impossible |= where
                self._announce(result, text, "illegal")
                self._event("impossible", problems=problems)
            result.reading = Reading("impossible", note=text)
            return
        self._impossible = set()
        if self._corrections.waiting(seen):  # undone, and the table not yet put back
            return
        if self._offer_choice(result):  # a choice the board cannot show, not given yet
            self._touched = self._touched or touched  # read as after a hand once it is given
            result.reading = Reading("wait", note="waiting for a choice the board cannot show")
            return
        state0, base0 = self.state, self.base
        reading = infer(self.game, self.state, self.base, seen, touched=touched)
        if reading.kind == "no-dice":  # a roll awaited and no dice seen: typed, or rolled with --roll-dice
            drawn = self.rolls.chance(self.game, self.state)
            if drawn is None:
                what = describe_roll(self.game, self.state) if self.rolls.typed else None
                reading = replace(reading, kind="unclear",
                                  note=reading.note + (f", or type {what} in the window" if what else ""))
                if what:  # read again each window, so the move is played once its dice are typed
                    self.stability.reset()
            else:
                action, how = drawn
                why = "the dice not read surely" if seen.unsure_dice or seen.unsure_boxes else "no dice seen"
                reading = Reading("roll", action, self.game.action_to_json(action), self.game.verdict(self.state, action),
                                  note=f"typed: {why}" if how == "typed" else f"rolled by the referee: {why}")
        if self.game.name == "the-game":  # exits, acts, and what leaves the field as it was
            state1 = self.state
            reading = self._on_field(reading, seen, result, touched)
            if self.state is not state1:  # stays or passes played before the action read
                state0 = self.state
        elif reading.kind == "illegal":  # refused now, but perhaps not once the player to move passed
            passed = self._pass_before(seen, result, touched, reading)
            if passed is not None:
                state0, reading = self.state, passed
        reading = self._by_outcome(reading, seen, touched)
        if self.game.name == "oneworld" and reading.kind not in ("legal", "roll"):
            state1 = self.state
            reading = self._combat_round(reading, seen, result, touched)
            if self.state is not state1:  # an end of movement or a first choice played before the round
                state0 = self.state
        if reading.kind not in ("unclear", "none", "wait"):
            self._unclear = ""
        result.reading = reading
        if _flag_key(reading.action_json) != self._roll_needed:
            self._roll_needed = None  # another move: its missing roll is said again
        self._corrections.remember(state0, base0, seen, reading)
        self.readings.append(reading)
        if reading.kind == "wait":  # part of the board hidden (a hand the detector missed)
            return
        if reading.kind == "none":
            if self.last_flagged is not None and self._put_back(seen):
                self.last_flagged = None
                self._announce(result, "Back to the last legal position.", "info")
            return
        if reading.kind == "unclear":
            if reading.note != self._unclear:  # said once until something else is read
                self._unclear = reading.note
                self._announce(result, f"Cannot read the move: {reading.note}.", "info")
                self._event("unclear", note=reading.note)
            return
        if reading.kind == "illegal":
            self._flag(reading, result)
            return
        taken, self._taken_off = self._taken_off, None
        lay, self._lay_down = self._lay_down, False
        state1 = self.state
        self._play(reading, seen if taken is None else taken, result)
        if taken is not None and self.state is not state0:  # a round revealed: its dead are to come off
            self._announce(result, "Take the eliminated counters off the table.", "info")
        if lay and self.state is not state1:  # the referee's roll knocked the target down: lay it on its side
            self._lay_down_knocked(state1, result)
        if reading.kind in ("legal", "roll") and self.state is not state0:
            self._read_second(base0, reading, seen, result)

    def _pass_before(self, seen: SeenBoard, result: FrameResult, touched: bool,
                     refused: Reading | None = None) -> Reading | None:
        """The rules refuse the move read (``refused``), but it is read whole after an action
        the camera cannot see, since it moves nothing (:data:`tabletop.live.infer.PASSES`:
        OneWorld's end of movement, a Wormholes ship that stays, When Gods Collide's hero
        call): the other side moving is how the table says the turn went by. When exactly one
        such action makes the board read as a legal move, or as a roll read off the table,
        that action is played and announced (its dice as any move's: given, typed or rolled),
        and the reading after it returned, for the caller to play. A reading after a pass that
        must read the board further from how it looks than the refused move does (a piece of
        the side to move arrived, read as the other side's) is no such reading: an unseen pass
        does not buy a misread. ``None`` otherwise: the refusal stands."""
        found = []
        for action in passes(self.game, self.state):
            verdict = self.game.verdict(self.state, action)
            trial = Rolls(self.rolls.given)  # the dice given only: a seeded die is drawn once an action is taken
            try:
                step = self.game.apply(self.state, action, trial)
            except (RollNeededError, IllegalActionError):
                continue
            after = infer(self.game, step.state, self.base, seen, touched=touched)
            if _misread_more(after, refused):
                continue  # the refused move explains the board better
            if after.kind in ("legal", "roll"):
                found.append((action, verdict, step, after, trial.given))
        if not found:
            return self._pass_needs_dice(seen, result, touched, refused)
        if len(found) != 1:  # several that the board cannot tell apart
            return None
        action, verdict, step, after, left = found[0]
        self.rolls.given[:] = left
        self._commit(Reading("legal", action, self.game.action_to_json(action), verdict, note=PASS_NOTE),
                     step, self.base, result)
        return after

    def _by_outcome(self, reading: Reading, seen: SeenBoard, touched: bool) -> Reading:
        """``reading``, or the legal action whose outcome is exactly what the board shows
        (:func:`tabletop.live.outcomes.exact_outcomes`) where the reading of one piece moving
        could not say: a move read as illegal, unclear, as nothing, or waited on because
        several pieces went at once (a fight lost, a counter lost into Chaos, an army taken
        with its god, a swap); and among legal moves of one piece between the same two cells,
        the one whose captures on the way are those seen (a Princess: the first of those alike
        on the board, when they differ only in what was seen on the way). Only after a hand over
        the board (``touched``): none of these happens without one, and a lasting misread of the
        detector (a piece no longer found, a class read otherwise) is no move. Its step, applied
        with the dice given, is kept for :meth:`_play`; one whose dice are not given yet, when
        some roll would make the board look so (a battle lost, its dice thrown but not typed),
        is handed to :meth:`_play`, which asks for them."""
        touched = touched or self._awaiting is self.state  # a move made by hand waits for its dice
        if not touched or self.game.name == "the-game" or \
                reading.kind not in ("legal", "illegal", "none", "unclear", "wait"):
            return reading
        among = None
        if reading.kind == "legal":
            same = [a for a in legal(self.game, self.state)
                    if _ends_of(self.game, a) == _ends_of(self.game, reading.action)]
            if len(same) < 2:
                return reading
            among = same
        wanting: list[Any] = []
        try:
            found, one_end = exact_outcomes(self.game, self.state, self.base, seen, self.rolls, among, wanting)
            if not found and wanting and reading.kind != "legal":  # with --roll-dice, the referee's roll decides
                wanting = awaiting_dice(self.game, self.state, self.base, seen, wanting)
            else:
                wanting = []
        except Exception:  # noqa: BLE001 - a help to the reading, never a reason to stop
            return reading
        if not found and not wanting and self._awaiting is self.state and self.rolls.given:
            shown = ", ".join(map(str, self.rolls.given))
            return Reading("unclear", note=f"the dice typed ({shown}) do not give what the board shows: take them "
                                           "back (Backspace) and type the dice thrown")
        if len(wanting) == 1:  # a battle lost, its dice thrown but not given: _play asks for them (or rolls them)
            action = wanting[0]
            how = "its dice rolled by the referee" if self.rolls.seeded else "once its dice are given"
            return Reading("legal", action, self.game.action_to_json(action), self.game.verdict(self.state, action),
                           note=f"read by what it leaves on the board, {how}")
        if not found or (reading.kind == "legal" and any(o.action == reading.action for o in found)):
            return reading
        if not one_end and reading.kind != "legal":  # the board cannot tell which: the reading stands
            return reading
        outcome = found[0]
        self._ready = (self.state, outcome)
        aj = self.game.action_to_json(outcome.action)
        return Reading("legal", outcome.action, aj, self.game.verdict(self.state, outcome.action),
                       note="read by what it leaves on the board")

    def _combat_round(self, reading: Reading, seen: SeenBoard, result: FrameResult, touched: bool) -> Reading:
        """OneWorld: ``reading``, or, after a hand over the board, a combat round among
        children read off the table (:func:`tabletop.live.combat.read_round`: revealed, or
        with its eliminated taken off), or the end of movement before a child's fight with a
        god, read from the child gone from the god's hex
        (:func:`tabletop.live.combat.god_fight_after`; the two aspects are then asked for).
        The end of movement and the first side's choice are played here, the last choice
        returned for the caller to play (its step kept); a round revealed leaves the board
        the engine has once its eliminated are taken off (:func:`tabletop.live.combat.taken_off`).
        A round the table shows in ways that end differently is unclear."""
        from tabletop.live.combat import god_fight_after, read_round, round_words, taken_off

        if not touched or self.base is None:
            return reading
        found, one_end = read_round(self.game, self.state, self.base, seen, self.rolls)
        if found and not one_end:
            options: dict[str, Any] = {}
            for f in found:
                options.setdefault(round_words(self.game, f.run) + (" (revealed)" if f.revealed else ""), f)
            self._rounds = (self.state, seen, list(options.items()))
            ways = list(options)
            if self.choices and self._undone is not self.state:  # --choices: the next value names the round
                value = self.choices.pop(0)
                index = _round_named(ways, value)
                if index is not None:
                    self._play_round(index, result, "given by --choices")
                    return Reading("none", note="the combat round given by --choices")
                self._announce(result, f"Choice {value!r} refused: it names none of the combat rounds the table "
                               "could show.", "illegal")
                self._event("choice-refused", value=value, choices=[f"c{k + 1} {w}" for k, w in enumerate(ways)])
            if self.rolls.typed:
                more = f" (or {len(ways) - 3} more)" if len(ways) > 3 else ""
                return Reading("unclear", note=f"the combat round could be {' or '.join(ways[:3])}{more}: "
                                               "the table cannot tell which: c goes through them and Enter plays "
                                               "the one fought")
            listed = ", ".join(f"c{k + 1} {w}" for k, w in enumerate(ways))
            return Reading("unclear", note=f"the combat round could be {listed}: the table cannot tell which: "
                                           "give the one fought with --choices")
        if found:
            rr = found[0]
            for outcome in rr.run[:-1]:
                action, aj = outcome.action, self.game.action_to_json(outcome.action)
                note = PASS_NOTE if aj.get("type") == "end-movement" else SECRET_NOTE
                self.rolls.given[:] = outcome.given_left
                self._commit(Reading("legal", action, aj, self.game.verdict(self.state, action), note=note),
                             outcome.step, self.base, result)
            last = rr.run[-1]
            self._ready = (self.state, last)
            self._taken_off = taken_off(seen, rr.dead, rr.moved) if rr.revealed else None
            return Reading("legal", last.action, self.game.action_to_json(last.action),
                           self.game.verdict(self.state, last.action),
                           note="read from the round revealed on the table" if rr.revealed
                           else "read from what the round left on the table")
        fight = god_fight_after(self.game, self.state, self.base, seen, self.rolls)
        if fight is not None:
            self._ready = (self.state, fight)
            return Reading("legal", fight.action, self.game.action_to_json(fight.action),
                           self.game.verdict(self.state, fight.action), note=PASS_NOTE)
        return reading

    def _lay_down_knocked(self, before: Any, result: FrameResult) -> None:
        """The Game, after an act read with its target standing and its die rolled by the
        referee (``--roll-dice``): each piece the roll knocked down is asked to be laid on its
        side, and the field expected without it (the seen piece of its class nearest to where
        it stood, within :data:`~tabletop.live.infer.JITTER_IN`), so that laying it down reads
        as nothing new."""
        from tabletop.live.infer import JITTER_IN, locations

        standing = dict(locations(self.game.name, self.game.state_to_json(self.state)))
        classes = piece_classes(self.game, self.game.state_to_json(before))
        pieces = list(self.base.pieces)
        for pid, at in locations(self.game.name, self.game.state_to_json(before)):
            if pid in standing:
                continue
            near = [(math.dist(q.point, (float(at[0]), float(at[1]))), k) for k, q in enumerate(pieces)
                    if q.cls == classes.get(pid)]
            d, k = min(near, default=(math.inf, -1))
            if d <= JITTER_IN:
                pieces.pop(k)
                self._announce(result, f"Lay {pid} on its side.", "info")
        self.base = replace(self.base, pieces=tuple(pieces))

    def _on_field(self, reading: Reading, seen: SeenBoard, result: FrameResult, touched: bool) -> Reading:
        """The Game: ``reading``, or, where the reading of one piece moving could not say (an
        illegal move, nothing, unclear) after a hand over the field and with the field seen to
        change, the action read by what it leaves on the field (:mod:`tabletop.live.field`: a
        piece walked off, a piece closed in and its target turned on its side or still
        standing), else the actions that leave the field as it was (pieces left unmoved, a
        side passing, a piece that does not act or answer) read from the action after them:
        the shortest run of them (:func:`tabletop.live.field.passes_before`) after which the
        field reads as a legal action is played and announced, and that action returned for
        the caller to play (a turn on the spot, which the field's places do not show, is read
        so too: after a stay of the side to move). An act whose die is not given is handed on, once its run is
        played, for :meth:`_play` to ask for the roll (the field shows whether it succeeded,
        not what it showed)."""
        from tabletop.live.field import passes_before, shows

        touched = touched or self._awaiting is self.state  # an act made by hand waits for its die
        turn = reading.note == TURN_NOTE  # a turn on the spot: the field's places show nothing
        if reading.kind == "legal" or not touched or self.base is None \
                or (not turn and shows(self.game, self.state, self.state, self.base, seen)):
            return reading
        own = reading if turn else self._field_outcome(self.state, reading, seen)
        if own.kind == "legal":
            return own
        for run in passes_before(self.game, self.state, self.rolls):
            end = run[-1][1].state
            after = infer(self.game, end, self.base, seen, touched=turn)  # a turn read again after the run
            if after.kind != "legal" and not turn:
                after = self._field_outcome(end, after, seen)
            if after.kind != "legal":
                continue
            state = self.state
            for action, step in run:
                self._commit(Reading("legal", action, self.game.action_to_json(action),
                                     self.game.verdict(state, action), note=PASS_NOTE), step, self.base, result)
                state = step.state
            if self._ready is not None and self._ready[0] is end:
                self._ready = (self.state, self._ready[1])
            return after
        self._ready = None
        if own.kind == "illegal" and own.verdict is not None and own.verdict.code == "already-moved":
            return self._stay_again(own, result)
        return own

    def _stay_again(self, reading: Reading, result: FrameResult) -> Reading:
        """The Game: ``reading``, a move refused only because its piece was read as left
        alone earlier in the phase (a stay read from the move after it, :data:`PASS_NOTE`):
        the stays are read again. Of the side's other pieces that had not moved then, in the
        engine's order, the first whose stay the engine takes in its place, with every action
        after it in the phase replayed and then the move, is played instead: the actions from
        the stay on are taken back as :meth:`undo` takes them (an ``undo`` line each in the
        record), the new stay and the rest played again, and the move returned as legal for
        the caller to play. ``reading`` when no other piece can have stayed."""
        from rules.the_game.model import Stay

        stack, piece = self._corrections.stack, (reading.action_json or {}).get("piece")
        if len(stack) != len(self.history):
            return reading

        def phase(state: Any) -> tuple[Any, ...]:
            return state.sequence, state.phase, state.turn

        k = len(stack) - 1
        while k >= 0 and phase(self.history[k][0]) == phase(self.state) and \
                getattr(stack[k][0].action, "piece", None) != piece:
            k -= 1
        if k < 0 or phase(self.history[k][0]) != phase(self.state) or stack[k][0].note != PASS_NOTE \
                or not isinstance(stack[k][0].action, Stay):
            return reading
        move = self.game.action_from_json(reading.action_json)
        start = self.history[k][0]
        later = stack[k + 1:]
        boards = [base for _, base in self.history[k + 1:]] + [self.base]
        side = {p.id: p.controller for p in start.pieces}
        for stay in legal(self.game, start):
            if not isinstance(stay, Stay) or stay.piece == piece or side.get(stay.piece) != side.get(piece):
                continue
            trial = Rolls([r for _, rolls in later for r in rolls])
            try:
                end = self.game.apply(start, stay, trial).state
                for then, _ in later:
                    end = self.game.apply(end, then.action, trial).state
            except (RollNeededError, IllegalActionError):
                continue
            verdict = self.game.verdict(end, move)
            if not verdict.legal:
                continue
            first = stack[k][0]
            readings = [Reading("legal", stay, self.game.action_to_json(stay), self.game.verdict(start, stay),
                                note=PASS_NOTE), *(then for then, _ in later)]
            for _ in range(len(stack) - k):
                self.undo()
            self._announce(result, f"Read again: {stay.piece} was left alone, not {first.action.piece}.", "info")
            self._event("read-again", stay=readings[0].action_json, instead=first.action_json)
            for again, seen in zip(readings, boards):  # the dice given back are used again
                self._commit(again, self.game.apply(self.state, again.action, self.rolls), seen, result)
            return replace(reading, kind="legal", action=move, verdict=verdict)
        return reading

    def _field_outcome(self, state: Any, reading: Reading, seen: SeenBoard) -> Reading:
        """The Game: the exit or act of ``state`` whose field is ``seen``
        (:func:`tabletop.live.field.field_outcomes`), its step kept for :meth:`_play`; one
        whose die is not given, when some roll makes the field so (and the referee does not
        roll), for :meth:`_play` to ask for it; ``reading`` when none is, an unclear reading
        when several are and the field cannot tell which (or the dice typed disagree with it)."""
        from tabletop.live.field import field_awaiting, field_outcomes

        wanting: list[Any] = []
        found, one_end = field_outcomes(self.game, state, self.base, seen, self.rolls, wanting)
        if found and not one_end:
            which = " or ".join(self.game.notation(o.action) for o in found)
            return Reading("unclear", note=f"the field shows {which}: the camera cannot tell which")
        if found:
            outcome = found[0]
            self._ready = (state, outcome)
            return Reading("legal", outcome.action, self.game.action_to_json(outcome.action),
                           self.game.verdict(state, outcome.action), note="read by what it leaves on the field")
        seeded = self.rolls.seeded  # the referee rolls: the target still stands until its roll says
        waiting = field_awaiting(self.game, state, self.base, seen, wanting, standing=seeded)
        if len(waiting) == 1:
            action = waiting[0]
            self._lay_down = seeded
            return Reading("legal", action, self.game.action_to_json(action), self.game.verdict(state, action),
                           note="read by its closing in, its roll made by the referee" if seeded
                           else "read by what it leaves on the field, once its roll is given")
        if waiting:
            which = " or ".join(self.game.notation(a) for a in waiting)
            return Reading("unclear", note=f"the field shows {which}: the camera cannot tell which")
        if self._awaiting is state and self.rolls.given:
            shown = ", ".join(map(str, self.rolls.given))
            return Reading("unclear", note=f"the die typed ({shown}) does not give what the field shows: take it "
                                           "back (Backspace) and type the die thrown")
        return reading

    def _needs_dice(self, action: Any) -> bool:
        """Whether ``action``, legal now, waits for dice when none are given (none drawn)."""
        try:
            self.game.apply(self.state, action, Rolls())
        except RollNeededError:
            return True
        except IllegalActionError:
            return False
        return False

    def _pass_needs_dice(self, seen: SeenBoard, result: FrameResult, touched: bool,
                         refused: Reading | None = None) -> Reading | None:
        """A pass whose dice are not given yet (OneWorld's end of movement rolling for a
        reinforcement): when, with any roll, exactly one such pass makes the board read as a
        legal move, its roll is asked for as any move's is (``A roll is needed ...``) and the
        position read again once it is given; the move is not flagged meanwhile. As in
        :meth:`_pass_before`, a move read after it that needs a misread the refused move
        ``refused`` does not need is no such move."""
        waiting = []
        for action in passes(self.game, self.state):
            if not self._needs_dice(action):  # one that needs none was tried above
                continue
            try:
                step = self.game.apply(self.state, action, _AnyRoll())
            except (RollNeededError, IllegalActionError):
                continue
            after = infer(self.game, step.state, self.base, seen, touched=touched)
            if after.kind in ("legal", "roll") and not _misread_more(after, refused):
                waiting.append(action)
        if len(waiting) != 1:
            return None
        action = waiting[0]
        reading = Reading("legal", action, self.game.action_to_json(action), self.game.verdict(self.state, action),
                          note=PASS_NOTE)
        state0 = self.state
        self._play(reading, self.base, result, seen)  # its die thrown on the table, or asked for (or drawn)
        if self.state is not state0:  # played (its die rolled by the referee): the move after it is read now
            return infer(self.game, self.state, self.base, seen, touched=touched)
        # the pass's own action kept: its missing roll is said once, not at every window
        return Reading("wait", action, reading.action_json, note="the end of the turn read from the move after it "
                       "waits for its roll")

    def _put_back(self, seen: SeenBoard) -> bool:
        """Whether the piece of the last illegal move is seen back where it came from (and no
        longer where it went), not merely a flicker of the detector."""
        last = self.last_move
        if last is None or last.kind != "illegal" or self.game.name == "the-game" or last.frm is None:
            return True
        return bool(seen.at(str(last.frm))) and not (seen.at(str(last.to)) and not self.base.at(str(last.to)))

    def _flag(self, reading: Reading, result: FrameResult) -> None:
        """Announce an illegal reading (once: the same reading again is not repeated)."""
        assert reading.verdict is not None
        flag = (_flag_key(reading.action_json), reading.verdict.code)
        if flag == self.last_flagged:
            return
        self.last_flagged = flag
        self._announce(result, f"Illegal: {reading.verdict.message}", "illegal")
        self._event("illegal", action=reading.action_json, verdict=reading.verdict.to_json(),
                    alternatives=list(reading.alternatives))
        self.last_move = reading

    def _read_second(self, base0: SeenBoard, first: Reading, seen: SeenBoard, result: FrameResult) -> None:
        """Two actions seen in one still position (the one between them was never read: the
        arrival missed, a hand not seen, the dice read only once the piece had moved): the
        second is read from the first's outcome, the last seen board with the first move made
        (after a roll, the last seen board with the dice now on the table)."""
        if first.kind == "roll":
            moved, margin = replace(base0, dice=seen.dice, dice_boxes=seen.dice_boxes), None
        elif first.frm is None or first.to is None or self.game.name == "the-game" or \
                self._awaited():  # nothing is read before a choice it waits for
            return
        else:
            ends = (first.frm, first.to)
            moved = replace(base0, pieces=tuple(p for p in base0.pieces if p.cell not in ends)
                            + tuple(p for p in seen.pieces if p.cell in ends))
            margin = COSTS["second_margin"]
        second = infer(self.game, self.state, moved, seen, margin)
        if second.kind not in ("legal", "illegal"):
            return
        self.base = moved
        result.reading = second
        self.readings.append(second)
        self._corrections.remember(self.state, moved, seen, second)
        if second.kind == "illegal":
            self._flag(second, result)
        else:
            self._play(second, seen, result)

    def _play(self, reading: Reading, seen: SeenBoard, result: FrameResult, thrown: SeenBoard | None = None) -> None:
        """Play ``reading``, ``seen`` then the board of the position it leaves: with the dice
        given, else those thrown on the table (:meth:`_table_dice`: ``thrown``'s dice, default
        ``seen``'s), else rolled (``--roll-dice``); or say the roll it waits for."""
        ready, self._ready = self._ready, None
        if ready is not None and ready[0] is self.state and ready[1].action == reading.action:
            outcome = ready[1]  # applied already, with the dice given
            self.rolls.given[:] = outcome.given_left
            self._commit(reading, outcome.step, seen, result)
            return
        if self._table_dice(reading, seen, result, thrown if thrown is not None else seen):
            return
        given = list(self.rolls.given)
        try:
            step = self.game.apply(self.state, reading.action, self.rolls)
        except RollNeededError as err:
            # the dice it took wait for the rest it needs; the position is read again each
            # window, so the move is played once they are given (typed in the window)
            self.rolls.given[:] = given
            self.stability.reset()
            self._awaiting = self.state  # the hand made it: read again as such while its dice are awaited
            key = _flag_key(reading.action_json)
            if self._roll_needed != key:  # said once per move
                self._roll_needed = key
                how = ("Throw it and type it in the window (keys 1 to 6)" if self.rolls.typed
                       else "Give it with --rolls or --roll-dice")
                self._announce(result, f"A roll is needed: {err}. {how}.", "info")
                self._event("roll-needed", action=reading.action_json, reason=str(err))
            return
        except IllegalActionError as err:
            self.rolls.given[:] = given
            self._announce(result, f"Illegal: {err.verdict.message}", "illegal")
            self._event("illegal", action=reading.action_json, verdict=err.verdict.to_json())
            return
        drawn = self.rolls.seeded and len(step.rolls_used) > len(given)  # the referee's roll may decide otherwise
        self._commit(reading, step, seen, result, (self.state, self.base, seen, reading.action_json) if drawn else None)

    def _table_dice(self, reading: Reading, seen: SeenBoard, result: FrameResult, thrown: SeenBoard) -> bool:
        """Play ``reading`` with the d6 dice thrown on the table (those ``thrown`` shows and
        the last still position did not: :func:`tabletop.live.rolls.thrown_d6`) when it needs
        dice and none are given: in each order the dice could be taken in (the table does not
        say which die is whose), every die used, kept where the board then is the one ``seen``
        (a battle's result; The Game's field, its target down or standing). Not for a roll
        that leads to a choice deciding a battle (a roll-off before a battle stat: the dice on
        the table are the battle's, thrown last; they fight it once the stat is chosen:
        :meth:`_battle_off_table`). Played when one position is left
        (*"its dice read off the table"*). Returns whether it was played; when the dice fit
        no order, or several, that is said once and the roll is asked for (or rolled) as
        without them."""
        from tabletop.live.rolls import table_steps, thrown_d6

        if self.rolls.given or self.base is None:
            return False
        faces = thrown_d6(self.base, thrown)
        if not faces or not self._needs_dice(reading.action):
            return False
        shown = change(seen_cells(self.base), seen_cells(seen))
        kinds = DECIDING.get(self.game.name, ())
        orders = table_steps(self.game, self.state, reading.action, faces)
        if any(self.game.action_to_json(a).get("type") in kinds for step in orders for a in awaited(self.game, step.state)):
            return False  # a roll-off before a battle stat: the dice on the table are the battle's, thrown last

        def fits(step: Any) -> bool:
            if self.game.name == "the-game":  # the field the act leaves: its target down or standing
                from tabletop.live.field import shows

                return shows(self.game, self.state, step.state, self.base, seen)
            return not any(shown) or \
                change(engine_cells(self.game, self.state), engine_cells(self.game, step.state)) == shown

        steps = [step for step in orders if fits(step)]  # one per end position, as table_steps gives them
        dice = ", ".join(map(str, faces))
        if len(steps) == 1:
            note = f"{TABLE_NOTE} ({dice})"
            self._commit(replace(reading, note=f"{reading.note}; {note}" if reading.note else note), steps[0],
                         replace(seen, dice=thrown.dice, dice_boxes=thrown.dice_boxes),
                         result)  # the dice now seen, so none is read twice
            return True
        key = f"{_flag_key(reading.action_json)} {dice}"
        if self._table_said != key:  # said once for these dice
            self._table_said = key
            why = "could be taken in more than one order" if steps else "do not give what the board shows"
            self._announce(result, f"The dice on the table ({dice}) {why}.", "info")
            self._event("table-dice-unread", action=reading.action_json, dice=faces, orders=len(steps))
        return False

    def _commit(self, reading: Reading, step: Any, seen: SeenBoard, result: FrameResult,
                drawn: tuple[Any, SeenBoard, SeenBoard, Any] | None = None) -> None:
        """Take the applied ``step`` of ``reading``: the engine's new state, ``seen`` as its
        board, the announcement, the record line and, at the end, the result. ``drawn``: the
        engine state and the tables before and after the action, and its JSON, when the
        referee drew its dice: the table is then put right where the roll decided otherwise
        (:meth:`_amend`)."""
        self._roll_needed = None
        self._note_deciding(reading, step, seen)
        self.history.append((self.state, self.base))
        self._corrections.played(reading, step.rolls_used)
        self.state = step.state
        self.base = seen
        self.last_flagged = None
        self.last_move = reading
        text = " ".join(e.text for e in step.events) or self.game.notation(reading.action)
        self._announce(result, text, "legal")
        if reading.note:  # a detector doubt, a roll drawn here: for the log, not for the players
            self._event("reading-note", action=reading.action_json, note=reading.note)
        if self.record is not None:
            self.record.action(reading.action_json, step.rolls_used, text)
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self._announce(result, f"Game over: {outcome.winner or 'a draw'} ({outcome.reason}).", "info")
        if drawn is not None:
            self._amend(*drawn, result)
        self._offer_choice(result)  # the rules now wait for a choice: the next --choices value, or asked for

    def _note_deciding(self, reading: Reading, step: Any, seen: SeenBoard) -> None:
        """Before ``step`` is taken: when it leaves the rules waiting for a choice that decides
        what the board shows (:data:`tabletop.live.outcomes.DECIDING`: a battle stat), what the
        table showed it do, for :meth:`_contradicts` to hold the choice and its dice to."""
        kinds = DECIDING.get(self.game.name, ())
        if not kinds:
            return
        self._awaited_for = (step.state, awaited(self.game, step.state))  # asked for next (_offer_choice)
        waits = any(self.game.action_to_json(a).get("type") in kinds for a in self._awaited_for[1])
        if reading.note.startswith(CHOICE_NOTE):  # the first of two secret choices: the same battle
            if self._decided is not None and self._decided.waiting is self.state and waits:
                self._decided = replace(self._decided, waiting=step.state)
            return
        self._decided = None
        if waits and self.base is not None:
            self._decided = _Decided(step.state, engine_cells(self.game, self.state), self.state, self.base, seen,
                                     reading.action_json)

    def _contradicts(self, action: Any, step: Any) -> bool:
        """Whether the choice ``action``, applied as ``step`` (the battle fought with the dice
        given), leaves the board otherwise than the table showed the action before it do."""
        d = self._decided
        kinds = DECIDING.get(self.game.name, ())
        if d is None or d.waiting is not self.state or self.game.action_to_json(action).get("type") not in kinds:
            return False
        if any(self.game.action_to_json(a).get("type") in kinds for a in awaited(self.game, step.state)):
            return False  # the first of two secret choices: nothing fought yet
        return change(d.cells, engine_cells(self.game, step.state)) != change(seen_cells(d.base), seen_cells(d.seen))

    # -- choices the board cannot show (tabletop.live.choices) ---------------------------------
    def _awaited(self) -> list[Any]:
        """:func:`tabletop.live.choices.awaited` for the engine state now, worked out once per
        state (the status line asks every frame; the legal actions take milliseconds)."""
        if self._awaited_for is None or self._awaited_for[0] is not self.state:
            self._awaited_for = (self.state, awaited(self.game, self.state))
        return self._awaited_for[1]

    def _offer_choice(self, result: FrameResult) -> bool:
        """When the rules wait for a choice the board cannot show: the next ``--choices``
        value is played (not for a choice taken back: that one is asked for at the keys), or
        refused, with the choices there are, when it names none of them; else the choices
        are said, once for each engine position. Returns whether a choice is still awaited
        (the board is not read meanwhile)."""
        actions = self._awaited()
        if not actions:
            return False
        waiting = self._choice_waiting
        if waiting is not None and waiting[0] is self.state:  # chosen, its battle dice awaited: given now?
            return self._choose(waiting[1], result, waiting[2])
        if self.choices and self._undone is not self.state:
            value = self.choices.pop(0)
            action = match(self.game, actions, value)
            if action is not None:
                return self._choose(action, result, "given by --choices")
            self._choice_said = self.state
            self._announce(result, f"Choice {value!r} refused: it is none of the choices now. "
                           f"{prompt(self.game, self.state, actions)} {self._how_to_choose()}.", "illegal")
            self._event("choice-refused", value=value, choices=self._choice_list(actions))
            return True
        if self._choice_said is not self.state:
            self._choice_said = self.state
            self._announce(result, f"{prompt(self.game, self.state, actions)} {self._how_to_choose()}.", "info")
            self._event("choice-needed", choices=self._choice_list(actions))
        return True

    def _how_to_choose(self) -> str:
        if self.rolls.typed:  # a window takes keys
            return "Press c to go through them and Enter to choose"
        return "Give it with --choices (the game waits for it)"

    def _choice_list(self, actions: Sequence[Any]) -> list[str]:
        return [f"{key} {words}" for key, words, _ in numbered(self.game, actions)]

    def _choose(self, action: Any, result: FrameResult, how: str) -> bool:
        """Play the choice ``action`` (legal now) as any action: announced, recorded, undoable;
        the still position is read again, so a move made while it was awaited is read now.
        A choice that needs dice not given yet (a battle stat: the battle is fought next) says
        so once and is played when the position is next read with them given. Returns whether
        a choice is still awaited."""
        aj = self.game.action_to_json(action)
        step = self._battle_off_table(action)
        if step is not None:  # the battle dice thrown on the table
            self._cursor = self._choice_waiting = None
            self.stability.reset()
            reading = Reading("legal", action, aj, self.game.verdict(self.state, action),
                              note=f"{CHOICE_NOTE}: {how}; {TABLE_NOTE}")
            table = self._table_now()
            self._commit(reading, step, replace(self.base, dice=table.dice, dice_boxes=table.dice_boxes)
                         if self.base is not None else None, result)  # the dice now seen, so none is read twice
            return bool(self._awaited())
        given = list(self.rolls.given)
        try:
            step = self.game.apply(self.state, action, self.rolls)
        except RollNeededError as err:  # a battle stat chosen: the battle dice are thrown next
            self.rolls.given[:] = given
            self._choice_waiting = (self.state, action, how)  # played once they are given
            self.stability.reset()  # the still position is read again each window meanwhile
            key = "choice " + _flag_key(aj)
            if self._roll_needed != key:  # said once per choice
                self._roll_needed = key
                where = ("Throw them and type them in the window (keys 1 to 6)" if self.rolls.typed
                         else "Give them with --rolls or --roll-dice")
                self._announce(result, f"A roll is needed: {err}. {where}.", "info")
                self._event("roll-needed", action=aj, reason=str(err))
            return True
        except IllegalActionError as err:
            self.rolls.given[:] = given
            self._announce(result, f"Choice not played: {err}.", "illegal")
            return True
        drawn = self.rolls.seeded and len(step.rolls_used) > len(given)  # --roll-dice: the referee's roll decides
        if not drawn and self._contradicts(action, step):  # the battle fought ends otherwise than the table shows
            self.rolls.given[:] = given
            self._choice_waiting = (self.state, action, how)  # tried again with the dice typed next
            self.stability.reset()
            key = "contradicts " + _flag_key(aj) + str(given)
            if self._roll_needed != key:  # said once for these dice
                self._roll_needed = key
                shown = ", ".join(map(str, step.rolls_used))
                self._announce(result, f"{label(self.game, action)} with the dice given ({shown}) does not give "
                               "what the board shows: take them back (Backspace) and type the dice thrown, or "
                               "choose again.", "illegal")
                self._event("choice-contradicted", action=aj, rolls=list(step.rolls_used))
            return True
        self._cursor = self._choice_waiting = None
        self.stability.reset()
        decided = self._decided if self._decided is not None and self._decided.waiting is self.state else None
        reading = Reading("legal", action, aj, self.game.verdict(self.state, action), note=f"{CHOICE_NOTE}: {how}")
        self._commit(reading, step, self.base, result,  # the battle the referee's dice fought
                     decided.drawn() if drawn and decided is not None else None)
        return bool(self._awaited())

    def _table_now(self) -> SeenBoard:
        """The table as the battle a choice decides last showed it: the still position accepted
        last, or the table seen after the attack when none has been since."""
        d = self._decided
        assert d is not None
        return self._still if self._still is not None else d.seen

    def _battle_off_table(self, action: Any) -> Any:
        """The step of the choice ``action`` (a battle stat) fought with the d6 dice thrown on
        the table since the attack before it (:func:`tabletop.live.rolls.thrown_d6`: with the
        attack, or after the stat was asked for, as the still position accepted last shows
        them), in the one order that leaves the board the table showed (:meth:`_contradicts`);
        ``None`` when it needs no dice, dice are given, none were thrown, or no single order
        fits."""
        from tabletop.live.rolls import table_steps, thrown_d6

        d = self._decided
        if d is None or d.waiting is not self.state or self.rolls.given:
            return None
        faces = thrown_d6(d.base, self._table_now())
        if not faces or not self._needs_dice(action):  # none: the first of two secret stats
            return None
        steps = table_steps(self.game, self.state, action, faces, lambda step: not self._contradicts(action, step))
        return steps[0] if len(steps) == 1 else None

    def _amend(self, before: Any, base: SeenBoard, seen: SeenBoard, action: Any, result: FrameResult) -> None:
        """After ``action`` (its JSON), whose dice the referee drew (``--roll-dice``), played out
        on the table from ``base`` (the table of ``before``) to ``seen``: where the roll decided otherwise than
        the table shows (:func:`tabletop.live.amend.amend`), say what to change and expect the
        table so. Not while a choice that decides the result is awaited (the battle not fought)."""
        from tabletop.live.amend import amend

        kinds = DECIDING.get(self.game.name, ())
        if any(self.game.action_to_json(a).get("type") in kinds for a in self._awaited()):
            return
        fix = amend(self.game, before, self.state, base, seen, action or {})
        if fix is None:
            return
        self._announce(result, f"The roll decides otherwise than the table shows. {fix.words()}", "info")
        self._event("table-amended", take=[list(k) for k in fix.take], put=[list(k) for k in fix.put])
        self.base = fix.board

    def _round_options(self) -> list[tuple[str, Any]]:
        """The combat rounds the table could not tell apart at the engine state now
        (:meth:`_combat_round`), for the window's keys: (words, round); ``[]`` otherwise."""
        if self._rounds is None or self._rounds[0] is not self.state or self._awaited():
            return []
        return self._rounds[2]

    def _play_round(self, index: int, result: FrameResult | None = None, how: str = "chosen at the window's keys") -> str:
        """Play the ``index``-th of :meth:`_round_options` (chosen at the keys, or given by
        ``--choices``): its end of movement and both choices, as if read off the table (the
        eliminated of a round revealed then expected off it). Returns what was said."""
        from tabletop.live.combat import taken_off

        _, seen, options = self._rounds  # type: ignore[misc]
        words, rr = options[index]
        result = result if result is not None else FrameResult(self.frames, time.monotonic(), "accepted")
        said = len(result.announcements)
        board = taken_off(seen, rr.dead, rr.moved) if rr.revealed else seen
        for k, outcome in enumerate(rr.run):
            action, aj = outcome.action, self.game.action_to_json(outcome.action)
            last = k == len(rr.run) - 1
            note = f"{how}: the table could not tell which round" if last else \
                PASS_NOTE if aj.get("type") == "end-movement" else SECRET_NOTE
            self.rolls.given[:] = outcome.given_left
            self._commit(Reading("legal", action, aj, self.game.verdict(self.state, action), note=note),
                         outcome.step, board if last else self.base, result)
        if rr.revealed:
            self._announce(result, "Take the eliminated counters off the table.", "info")
        self._rounds, self._cursor = None, None
        self.stability.reset()
        return " ".join(text for _, text in result.announcements[said:]) or words

    def choice_status(self) -> str:
        """The status line's note on an awaited choice: the one the ``c`` key is on, or how to
        choose; ``""`` when none is awaited."""
        actions = self._awaited()
        if not actions and self._round_options():
            if self._cursor is not None and self._cursor[0] is self.state:
                return f"round c{self._cursor[1] + 1} {self._round_options()[self._cursor[1]][0]}: Enter to choose"
            return "the table cannot tell the combat round: c to go through them"
        if not actions:
            return ""
        if self._cursor is not None and self._cursor[0] is self.state:
            key, words, _ = numbered(self.game, actions)[self._cursor[1]]
            return f"choice {key} {words}: Enter to choose"
        return "a choice is awaited: c to go through them"

    def next_choice(self) -> str:
        """The ``c`` key: go to the next choice the rules wait for (the first, the first time;
        after the last, the first again). Returns it, for the player."""
        actions = self._awaited()
        rounds = self._round_options()
        if not actions and rounds:
            index = self._cursor[1] + 1 if self._cursor is not None and self._cursor[0] is self.state else 0
            index %= len(rounds)
            self._cursor = (self.state, index)
            return f"round c{index + 1}: {rounds[index][0]} (Enter to choose, c for the next)"
        if not actions:
            return "no choice awaited"
        index = self._cursor[1] + 1 if self._cursor is not None and self._cursor[0] is self.state else 0
        index %= len(actions)
        self._cursor = (self.state, index)
        key, words, _ = numbered(self.game, actions)[index]
        return f"choice {key}: {words} (Enter to choose, c for the next)"

    def choose_current(self) -> str:
        """The Enter key: play the choice the ``c`` key is on. Returns what happened."""
        actions = self._awaited()
        if not actions and self._round_options():
            if self._cursor is None or self._cursor[0] is not self.state:
                return "press c to go to a round first"
            return self._play_round(self._cursor[1])
        if not actions:
            return "no choice awaited"
        if self._cursor is None or self._cursor[0] is not self.state:
            return "press c to go to a choice first"
        _, _, action = numbered(self.game, actions)[self._cursor[1]]
        result = FrameResult(self.frames, time.monotonic(), "accepted")
        self._choose(action, result, "chosen at the window's keys")
        return " ".join(text for _, text in result.announcements)

    def _update_hints(self, seen: SeenBoard) -> None:
        """While a hand is over the board: the legal destinations of a lifted piece (worked
        out again only when what is seen changes)."""
        key = seen.key()
        if self.base is None or key == self._hint_key:
            return
        self._hint_key = key
        try:
            self.hints = hints(self.game, self.state, self.base, seen)
        except Exception:  # noqa: BLE001 - hints are a help, never a reason to stop
            self.hints = {}

    # -- keys (tabletop.live.window) ---------------------------------------------------------
    def undo(self) -> str:
        """Take back the last legal action: the engine state and the seen board go back, the
        dice it used are given back (not those read off the table: they lie there still, and
        are read again, or thrown again), the record gets an ``undo`` line. Nothing is read again
        until the table changes (the piece is put back, or moved elsewhere); a choice the
        board cannot show is asked for again at once, at the keys (not from ``--choices``).
        Returns what was undone ("" when nothing was)."""
        if not self.history:
            return ""
        after = self.base
        self.state, self.base = self.history.pop()
        reading, rolls = self._corrections.undone(after)
        if reading is None or TABLE_NOTE not in reading.note:
            self.rolls.given[:0] = list(rolls)  # the dice already rolled stay rolled
        if self._awaited():  # a choice taken back (or the move before one): asked again
            self._choice_said, self._cursor, self._undone = None, None, self.state
            if reading is not None and reading.note.startswith(CHOICE_NOTE):
                self._corrections.pending_key = None  # the table shows no choice: nothing to put back
        self.stability.reset()
        self.last_move, self.last_flagged = None, None
        what = self.game.notation(reading.action) if reading is not None and reading.action is not None else "a move"
        if self.record is not None and hasattr(self.record, "undo"):
            self.record.undo(reading.action_json if reading is not None else None, what)
        else:
            self._event("undo", action=reading.action_json if reading is not None else None)
        return what

    def accept_other(self) -> str:
        """Accept the next other reading of the last move (:mod:`tabletop.live.correct`): the
        first reading is taken back when it was played, the other one played and announced
        (an illegal one is flagged, and the position stays as it was before the move).
        Pressed again, the next reading (and at the end the first one again). Returns what
        happened, for the player."""
        c = self._corrections
        if c.context is None:
            return "no move to read otherwise yet"
        if c.stack and c.stack[-1][0].note.startswith(CHOICE_NOTE):
            return "the last action is a choice, not a reading of the board: u takes it back"
        state0, base0, seen, first = c.context
        if c.others is None:
            from tabletop.live.correct import other_readings

            c.others = [first] if first.kind == "legal" else []
            c.others[:0] = other_readings(self.game, state0, base0, seen, first)
        if not c.others or (len(c.others) == 1 and c.others[0] is c.current):
            return "no other reading of the last move"
        nxt = c.others[c.index % len(c.others)]
        c.index += 1
        if nxt is c.current:
            nxt = c.others[c.index % len(c.others)]
            c.index += 1
        if c.current is not None and c.current_played and self.history:
            self.undo()
        c.pending_key = None
        self.state, self.base = state0, base0
        result = FrameResult(self.frames, time.monotonic(), "accepted")
        if nxt.kind == "illegal":  # the move was not legal after all: flagged, the position kept
            self.last_flagged = None
            self._flag(nxt, result)
        else:
            self._play(nxt, seen, result)
        played = self.state is not state0
        c.current, c.current_played = nxt, played
        self._event("accept-other", action=nxt.action_json, played=played)
        said = " ".join(text for _, text in result.announcements)
        return f"other reading: {said}" if played else f"the other reading was not played: {said}"

    def recalibrate(self) -> None:
        self.stability.reset()
        self._kept = None  # the next frame is read in full, with the board found again
        self._event("recalibrate")


def _misread_more(after: Reading, refused: Reading | None) -> bool:
    """Whether the reading ``after`` (after an unseen pass) must read the board further from
    how it looks than the refused reading ``refused`` does; ``False`` where either was not
    weighed (:attr:`tabletop.live.infer.Reading.cost` ``None``)."""
    return refused is not None and refused.cost is not None and after.cost is not None \
        and after.cost > refused.cost + COST_EPS


def _round_named(ways: Sequence[str], value: str) -> int | None:
    """The index of the combat round ``value`` names among ``ways`` (the words of each): its
    key (``c2``, or ``2``) or its words (any case; ``(revealed)`` may be left off where only
    the round revealed has them); ``None`` when it names none or several."""
    text = " ".join(value.split()).lower()
    for loose in (False, True):
        found = [k for k, w in enumerate(ways)
                 if text in (f"c{k + 1}", str(k + 1), w.lower()) or (loose and text == w.lower().removesuffix(" (revealed)"))]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _flag_key(action_json: Any) -> str:
    """An illegal reading, as compared with the last one flagged. On The Game's field the piece
    alone (with the verdict's code): its box wanders between frames, and a weak detector's
    ghost of it elsewhere is the same illegal move."""
    if not action_json:
        return ""
    if isinstance(action_json.get("to"), dict):
        return str(action_json.get("piece"))
    return str(action_json)


class _AnyRoll:
    """Dice that show 1: where the board, not the roll, decides what an action does."""

    def roll(self, sides: int, what: str) -> int:
        return 1


def _ends_of(game: GameRules[Any, Any], action: Any) -> tuple[Any, Any, Any]:
    """(type, from, to) of a move as its JSON writes them: legal moves alike in these differ
    only on the way (a Princess's path)."""
    aj = game.action_to_json(action)
    return aj.get("type"), aj.get("from", aj.get("piece", aj.get("ship"))), aj.get("to")


def size_of_frame(frame: Any) -> tuple[int, int] | None:
    """(width, height) of a frame: an image, or a rendered frame's description with its
    ``image_size``; ``None`` when it has none."""
    if isinstance(frame, dict):
        size = frame.get("image_size")
        return (int(size[0]), int(size[1])) if size else None
    shape = getattr(frame, "shape", None)
    return (int(shape[1]), int(shape[0])) if shape is not None and len(shape) >= 2 else None

"""Accept a position only once it has been still, with no hand over the board, for a window.

>>> s = Stability(window_s=0.3)
>>> [s.update(t / 10, "A", hand=False) for t in range(5)]
[None, None, None, 'A', None]
>>> s.update(0.5, "B", hand=True), s.update(0.6, "B", hand=False), s.update(0.9, "B", hand=False)
(None, None, 'B')

A weak detector flickers: a box missed in one frame, a class read otherwise in the next. So
:meth:`Stability.update_board` compares each frame with the vote of the window so far by the
number of pieces per cell (a cell with fewer pieces counts a tenth: a missed box; for The
Game, pieces within half an inch; a class read otherwise is no motion) and lets one cell
differ (one in twenty pieces on a crowded board) without restarting the window, or any
number when the picture itself did not change (the detector's doubt, not a move); the window
slides, and the position accepted is its vote: a cell counts as occupied when it was seen
occupied in at least half the frames (two in three for a cell empty in the last accepted
position), with the reading seen most (confidences summed). The
Game has no cells: a piece seen within half an inch of where it was in the frames before is
the same piece, and stands at the median of its places when seen in at least half the frames,
or, where the last accepted position has a piece, in a third of them (:data:`STAY_SHARE`): a
piece the detector finds in every other frame is not announced as gone and back again from
one window to the next. A window whose vote is the last accepted position but for a die lying
elsewhere showing the face it showed (thrown again: :func:`tabletop.live.rolls.thrown`) is a
new position, as is one of The Game where a piece turned on the spot.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from tabletop.live.infer import TURN_DEG
from tabletop.live.rolls import thrown

__all__ = ["Stability", "vote"]

#: How many cells (or The Game's pieces) may differ from the window's vote and still count as
#: the same still position (one box missed or doubled in a frame).
FLICKER_CELLS = 1
#: What a cell where fewer pieces are seen than the vote holds counts for: a weak detector
#: misses boxes in most frames of a crowded board; a piece taken away wins the vote anyway.
MISSED = 0.1
#: A cell empty in the last accepted position counts as occupied when seen so in this share
#: of the window's frames (one already occupied: half): a box at the detector's threshold that
#: comes and goes does not make every other accepted position a move.
NEW_SHARE = 2 / 3
#: The Game: a piece of the last accepted position stays in the vote while seen in this share of
#: the window's frames. A piece put next to another, or half hidden, is found in some frames
#: only; at half, it came and went from one accepted position to the next: a move announced,
#: then "back to the last legal position", then the move again.
STAY_SHARE = 1 / 3
#: The Game: a piece seen this close (inches) to one of the frame before is the same piece.
SAME_PIECE_IN = 0.5


class Stability:
    """Feed ``(time, key, hand)`` per frame; :meth:`update` returns the key once, when it has
    been the same for ``window_s`` seconds with no hand (or motion: a changed key restarts the
    window), and ``None`` otherwise. A position equal to the last accepted one is not returned
    again. :meth:`update_board` does the same with seen boards and a vote over the window."""

    def __init__(self, window_s: float = 0.3) -> None:
        self.window_s = window_s
        self._key: Any = None
        self._since: float | None = None
        self._accepted: Any = object()
        self._last: Any = None  # the last accepted board
        self._frames: list[tuple[float, Any]] = []
        self.hand = False

    def reset(self, accepted: Any = None) -> None:
        self._key, self._since = None, None
        self._frames = []
        self._accepted = object() if accepted is None else accepted
        self._last = None

    @property
    def settling(self) -> bool:
        return self._since is not None

    def update(self, t: float, key: Any, hand: bool) -> Any:
        self.hand = hand
        if hand:
            self._key, self._since = None, None
            return None
        if self._since is None or key != self._key:
            self._key, self._since = key, t
        if t - self._since + 1e-9 >= self.window_s and key != self._accepted:
            self._accepted = key
            return key
        return None

    def update_board(self, t: float, seen: Any, still: bool = False) -> Any:
        """The vote of the last ``window_s`` seconds' frames, as a
        :class:`~tabletop.live.board.SeenBoard`, once the board has been still that long with
        no hand (each frame holding what the vote of the frames before it holds, up to
        :data:`FLICKER_CELLS` cells, or showing the same picture as the frame read before it:
        ``still``, whatever the detector reads in it) and the vote differs from the last
        accepted position (or only a die lies elsewhere, or The Game's piece turned); else ``None``."""
        self.hand = seen.hand_over_board
        if self.hand:
            self._since, self._frames = None, []
            return None
        if self._frames and (t - self._frames[-1][0] > self.window_s or not still and _differ(
                vote([f for _, f in self._frames]), seen, self._last) > _flicker(seen)):
            self._since, self._frames = None, []  # motion, or no frame for a while: start again
        if self._since is None:
            self._since = t
        self._frames.append((t, seen))
        # the window slides: a lasting change (a class read otherwise for good) wins the vote
        self._frames = [(ft, f) for ft, f in self._frames if t - ft < self.window_s + 1e-9]
        if t - self._since + 1e-9 < self.window_s:
            return None
        board = vote([f for _, f in self._frames], self._last)
        key = board.key()
        if key == self._accepted and not _turned(board, self._last) and \
                not (self._last is not None and thrown(self._last, board)):
            return None
        self._accepted, self._last = key, board
        return board


def _turned(board: Any, last: Any) -> bool:
    """The Game: whether a piece of ``board`` faces :data:`tabletop.live.infer.TURN_DEG` or
    more away from the nearest piece of its class in ``last`` (the last accepted position)
    within :data:`SAME_PIECE_IN`: every piece stands where it stood, and one turned on the
    spot, so the window is a new position."""
    if last is None or board.game != "the-game":
        return False
    for p in board.pieces:
        near = [q for q in last.pieces if q.cls == p.cls and math.dist(p.point, q.point) <= SAME_PIECE_IN]
        q = min(near, key=lambda q: math.dist(p.point, q.point), default=None)
        if p.facing is not None and q is not None and q.facing is not None \
                and abs((p.facing - q.facing + 180.0) % 360.0 - 180.0) >= TURN_DEG:
            return True
    return False


def _flicker(seen: Any) -> float:
    """How much one frame of a still board may differ from the window's vote: one cell, or one
    in twenty of the pieces seen on a crowded board (OneWorld's fifty counters)."""
    return max(FLICKER_CELLS, len(seen.pieces) / 20)


def _differ(a: Any, b: Any, last: Any = None) -> float:
    """How many cells of ``b`` hold more pieces than in ``a`` and than in ``last`` (the last
    accepted board: a piece it had, seen again, is a box missed before), plus :data:`MISSED`
    for each holding fewer (a weak detector misses far more than it invents), the dice
    counting as one cell; a class read otherwise is no motion (The Game: each piece of ``b``
    with none of ``a`` within :data:`SAME_PIECE_IN` counts as such a cell)."""
    dice = int(tuple(a.dice) != tuple(b.dice))
    if a.game == "the-game":
        def near(p: Any, board: Any) -> bool:
            return board is not None and any(math.dist(p.point, q.point) <= SAME_PIECE_IN for q in board.pieces)

        more = sum(1.0 if not near(p, last) else MISSED for p in b.pieces if not near(p, a))
        return more + MISSED * sum(1 for p in a.pieces if not near(p, b)) + dice
    na = Counter(p.cell for p in a.pieces if p.cell is not None)
    nb = Counter(p.cell for p in b.pieces if p.cell is not None)
    nl = Counter(p.cell for p in last.pieces if p.cell is not None) if last is not None else Counter()
    return sum(1.0 if nb[c] > max(na[c], nl[c]) else MISSED for c in set(na) | set(nb) if na[c] != nb[c]) + dice


def vote(frames: list[Any], accepted: Any = None) -> Any:
    """One seen board from the frames of a still window: each cell occupied in at least half
    of them, with its pieces as read in the frame whose reading of that cell was the most
    common (confidences summed); dice as read most often. A cell empty in ``accepted`` (the
    last accepted board) must be seen occupied in :data:`NEW_SHARE` of the frames: a weak box
    seen in every other frame would otherwise come and go from one accepted position to the
    next, each time read as a piece arriving. The Game: :func:`_vote_points`."""
    last = frames[-1]
    if len(frames) == 1:
        return last
    if last.game == "the-game":
        return _vote_points(frames, accepted)
    from dataclasses import replace

    held = {p.cell for p in accepted.pieces if p.cell is not None} if accepted is not None else None
    cells: Counter[Any] = Counter()
    readings: dict[Any, Counter[tuple[str, ...]]] = {}
    pieces_of: dict[tuple[Any, tuple[str, ...]], tuple[Any, ...]] = {}
    for f in frames:
        here: dict[Any, list[Any]] = {}
        for p in f.pieces:
            if p.cell is not None:
                here.setdefault(p.cell, []).append(p)
        for cell, ps in here.items():
            cells[cell] += 1
            classes = tuple(sorted(p.cls for p in ps))
            readings.setdefault(cell, Counter())[classes] += sum(p.confidence for p in ps)
            pieces_of[(cell, classes)] = tuple(ps)
    pieces: list[Any] = [p for p in last.pieces if p.cell is None]
    for cell, n in cells.items():
        if n >= len(frames) * (NEW_SHARE if held is not None and cell not in held else 0.5):
            classes = readings[cell].most_common(1)[0][0]
            pieces += pieces_of[(cell, classes)]
    dice = Counter(tuple(f.dice) for f in frames).most_common(1)[0][0]
    return replace(last, pieces=tuple(pieces), dice=dice, dice_boxes=_dice_boxes(frames, dice), **_unsure(frames, dice))


def _vote_points(frames: list[Any], accepted: Any = None) -> Any:
    """The Game's vote: each piece of a frame joins the nearest track (a piece of the frames
    before) within :data:`SAME_PIECE_IN` of its last place, most confident pieces first, one
    piece of a frame per track; a track seen in at least half the frames is a piece, at the
    median of its places, of the side with the most confidence summed, facing the
    confidence-weighted mean of its facings, with the box of its most confident frame. A track
    within :data:`SAME_PIECE_IN` of a piece of ``accepted`` (the last accepted board) needs
    only :data:`STAY_SHARE` of the frames."""
    from dataclasses import replace

    tracks: list[list[Any]] = []
    for f in frames:
        taken: set[int] = set()
        for p in sorted(f.pieces, key=lambda q: -q.confidence):
            near = [(math.dist(p.point, t[-1].point), k) for k, t in enumerate(tracks)
                    if k not in taken and math.dist(p.point, t[-1].point) <= SAME_PIECE_IN]
            k = min(near)[1] if near else len(tracks)
            if near:
                tracks[k].append(p)
            else:
                tracks.append([p])
            taken.add(k)
    pieces = []
    for t in tracks:
        point = (_median([p.point[0] for p in t]), _median([p.point[1] for p in t]))
        held = accepted is not None and any(math.dist(point, q.point) <= SAME_PIECE_IN for q in accepted.pieces)
        if len(t) < len(frames) * (STAY_SHARE if held else 0.5) - 1e-9:
            continue
        sides: Counter[str] = Counter()
        for p in t:
            sides[p.cls] += p.confidence
        best = max(t, key=lambda p: p.confidence)
        pieces.append(replace(best, cls=sides.most_common(1)[0][0], point=point, facing=_mean_facing(t, best.facing),
                              confidence=sum(p.confidence for p in t) / len(t)))
    dice = Counter(tuple(f.dice) for f in frames).most_common(1)[0][0]
    return replace(frames[-1], pieces=tuple(pieces), dice=dice, dice_boxes=_dice_boxes(frames, dice),
                   **_unsure(frames, dice))


def _unsure(frames: list[Any], dice: tuple[str, ...]) -> dict[str, Any]:
    """What the last frame of ``frames`` reading the dice ``dice`` says of the dice it did
    not read surely (how many, where, and the sure ones beside them): the vote's dice and
    these agree (a throw held back in most frames stays held back; dice read surely have no
    unsure die beside them that a later frame alone saw)."""
    f = next(f for f in reversed(frames) if tuple(f.dice) == dice)
    return {"unsure_dice": f.unsure_dice, "unsure_boxes": f.unsure_boxes, "sure_dice": f.sure_dice,
            "sure_boxes": f.sure_boxes}


def _dice_boxes(frames: list[Any], dice: tuple[str, ...]) -> tuple[Any, ...]:
    """Where the dice ``dice`` lie: their boxes in the frame of ``frames`` reading them so
    whose dice lie where they lie in most such frames (:func:`tabletop.live.rolls.thrown`:
    none thrown between them), the last of those alike: one frame whose die's box jumps (a
    detector's glitch) is no die thrown again."""
    reading = [f for f in frames if tuple(f.dice) == dice and len(f.dice_boxes) == len(dice)]
    if not reading:
        return ()
    if all(not thrown(g, reading[-1]) for g in reading):  # lying still: the last frame's boxes
        return tuple(reading[-1].dice_boxes)
    return tuple(max(reversed(reading), key=lambda f: sum(1 for g in reading if not thrown(g, f))).dice_boxes)


def _median(values: list[float]) -> float:
    v, n = sorted(values), len(values)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _mean_facing(pieces: list[Any], default: float | None) -> float | None:
    """The confidence-weighted circular mean of the pieces' facings (degrees); ``default``
    when none has one or they cancel out."""
    c = s = 0.0
    for p in pieces:
        if p.facing is not None:
            c += p.confidence * math.cos(math.radians(p.facing))
            s += p.confidence * math.sin(math.radians(p.facing))
    if math.hypot(c, s) < 1e-9:
        return default
    return math.degrees(math.atan2(s, c)) % 360.0

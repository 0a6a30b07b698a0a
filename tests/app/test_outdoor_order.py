"""Whose go it is outdoors (``tabletop.outdoor.order``): the engine's order of play followed
from the goes the camera sees: sides take turns, a side with nothing left to do is skipped,
the action phase follows when pieces stand within action range, and the turn ends."""

from __future__ import annotations

import re

from rules.geometry import FieldPoint
from rules.the_game.shapes import Footprint
from tabletop.outdoor.assistant import assess
from tabletop.outdoor.order import Order
from tabletop.outdoor.readings import PieceReading

DISC = Footprint.ellipse(1.0, 1.0)


def _field(*pieces: tuple[str, float, float]) -> object:
    return assess([PieceReading(pid, "red" if pid[0] == "R" else "blue", FieldPoint(x, y), 90.0, DISC,
                                (0, 0, 1, 1), 1.0) for pid, x, y in pieces])


def _played(positions: list[list[PieceReading]], hand: tuple[float, float, float, float]) -> tuple[list[str], object]:
    """A live session (the play begun) shown each position still for four frames, a hand at
    ``hand`` before each but the first: what it said, and the session."""
    from tabletop.outdoor.live import OutdoorSession

    from .test_outdoor import _frame, _Stub

    frames = []
    for k, pieces in enumerate(positions):
        frames += ([_frame(pieces, hands=[hand])] if k else []) + [_frame(pieces)] * 4
    said: list[str] = []
    session = OutdoorSession(_Stub(frames), lambda text, kind: said.append(text), window_s=0.2)
    session.placing = False
    for i in range(len(frames)):
        session.process(None, 0.1 * i)
    return said, session


def test_a_side_with_no_piece_left_to_go_is_skipped() -> None:
    """Red has three pieces, Blue one: once B1 has moved, Red moves twice in a row; then the
    turn ends (nobody within action range) and the first side goes first again."""
    order = Order()
    assert order.after("red", {"R1"}, _field(("R1", 3, 8), ("R2", 10, 4), ("R3", 16, 4), ("B1", 12, 20))) \
        == "Blue to move."
    assert order.after("blue", {"B1"}, _field(("R1", 3, 8), ("R2", 10, 4), ("R3", 16, 4), ("B1", 12, 16))) \
        == "Red to move."
    assert order.after("red", {"R2"}, _field(("R1", 3, 8), ("R2", 10, 8), ("R3", 16, 4), ("B1", 12, 16))) \
        == "Red to move."
    assert order.after("red", {"R3"}, _field(("R1", 3, 8), ("R2", 10, 8), ("R3", 16, 8), ("B1", 12, 16))) \
        == "Turn 2: Red to move."


def test_the_action_phase_follows_when_pieces_stand_within_range() -> None:
    """Once every piece has moved, R1 and B1 stand half an inch apart: the action phase, Red
    (first this sequence) to act; once R1 has closed in, Blue's B1 is still in range: Blue to
    act; then the turn ends."""
    order = Order()
    assert order.after("red", {"R1"}, _field(("R1", 12, 10), ("B1", 12, 16))) == "Blue to move."
    assert order.after("blue", {"B1"}, _field(("R1", 12, 10), ("B1", 12, 11.5))) == \
        "Turn 1: the action phase. Red to act."
    assert order.after("red", {"R1"}, _field(("R1", 12, 10.2), ("B1", 12, 11.5))) == "Blue to act."
    assert order.after("blue", {"B1"}, _field(("R1", 12, 10.2), ("B1", 12, 11.4))) == "Turn 2: Red to move."


def test_the_first_side_goes_first_in_every_phase() -> None:
    """Blue went first: after Red's last move, the next turn starts with Blue."""
    order = Order()
    assert order.after("blue", {"B1"}, _field(("R1", 3, 4), ("B1", 20, 16))) == "Red to move."
    assert order.after("red", {"R1"}, _field(("R1", 3, 8), ("B1", 20, 16))) == "Turn 2: Blue to move."


def test_no_go_or_goes_of_both_sides_say_nothing() -> None:
    order = Order()
    assert order.after(None, set(), _field(("R1", 3, 4), ("B1", 20, 16))) is None
    assert order.after("red", {"R1"}, _field()) is None


def test_a_session_says_whose_go_it_is_as_the_order_of_play_has_it() -> None:
    """Through the live session: Red has two pieces, Blue one. After R1 and B1 moved, Red is
    to move again (not Blue, as plain turn-taking would say); after R2, the turn ends."""
    from .test_outdoor import reading

    said, _ = _played([
        [reading("R1", 4, 4, 90), reading("R2", 20, 4, 90), reading("B1", 12, 20, 270)],
        [reading("R1", 4, 8, 90), reading("R2", 20, 4, 90), reading("B1", 12, 20, 270)],
        [reading("R1", 4, 8, 90), reading("R2", 20, 4, 90), reading("B1", 12, 16, 270)],
        [reading("R1", 4, 8, 90), reading("R2", 20, 8, 90), reading("B1", 12, 16, 270)],
    ], (0, 0, 10, 10))
    turns = [s for s in said if s.endswith(("to move.", "to act."))]
    assert turns == ["Blue to move.", "Red to move.", "Turn 2: Red to move."], said


def test_goes_of_both_sides_seen_in_one_still_position_still_count() -> None:
    """Red moved R1; then Blue's B1 and Red's R2 both moved before the camera saw the field
    still (nobody's turn is said then). Once B2 moves, every piece has had its go: the turn
    ends, rather than R2, which has moved, being called again."""
    order = Order()
    assert order.after("red", {"R1"}, _field(("R1", 3, 8), ("R2", 10, 4), ("B1", 16, 20), ("B2", 22, 20))) \
        == "Blue to move."
    assert order.after(None, {"B1", "R2"},
                       _field(("R1", 3, 8), ("R2", 10, 8), ("B1", 16, 16), ("B2", 22, 20))) is None
    assert order.after("blue", {"B2"}, _field(("R1", 3, 8), ("R2", 10, 8), ("B1", 16, 16), ("B2", 22, 16))) \
        == "Turn 2: Red to move."


def test_a_piece_that_knocked_one_down_without_moving_has_had_its_go() -> None:
    """The action phase: R1, already in contact, knocks B1 down without moving (the camera
    sees only B1 gone, "knocked down by Red R1"); Blue's B2 then closes in on R1, which stays
    standing. R1 has acted: the turn ends, rather than R1 being called to act again."""
    from tabletop.outdoor.assistant import changes

    from .test_outdoor import reading

    order = Order()
    order.phase, order.first = "action", "red"
    b0 = assess([reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("B2", 14.2, 10, 180)])
    b1 = assess([reading("R1", 12, 10, 90), reading("B2", 14.2, 10, 180)])
    b2 = assess([reading("R1", 12, 10, 90), reading("B2", 13.1, 10, 180)])
    went = {c.by for c in changes(b0, b1) if c.by}
    assert order.after("red", went, b1) == "Blue to act."
    went = {c.by for c in changes(b1, b2) if c.by}
    assert order.after("blue", went, b2) == "Turn 2: Red to move."


def test_after_a_split_whose_go_it_is_is_no_longer_said() -> None:
    """Blue's last piece is knocked down and Red's two survivors are to be split: the front
    dots no longer tell who plays which piece, so the session says so once and names nobody's
    go again this sequence (before, it went on by dot colour)."""
    from .test_outdoor import reading

    said, session = _played([
        [reading("R1", 12, 10, 90), reading("B1", 12, 11.5, 270), reading("R2", 3, 4, 90)],
        [reading("R1", 12, 10.5, 90), reading("R2", 3, 4, 90)],  # B1 knocked down
        [reading("R1", 12, 10.5, 90), reading("R2", 3, 8, 90)],  # R2 moves, whoever plays it
    ], (0, 0, 1280, 720))
    assert "Blue has no piece left standing: split the survivors." in said, said
    assert said.count("Whose go it is is not said again this sequence: the front dots no longer tell who plays "
                      "which piece.") == 1
    at = said.index("Blue has no piece left standing: split the survivors.")
    whose = re.compile(r"^(Turn \d+: )?(the action phase\. )?(Red|Blue) to (move|act)\.$")
    assert not any(whose.match(s) for s in said[at - 2:]), said
    assert any(s.startswith("Red R1:") for s in said[at:])  # the move after the split is still judged
    assert session.order.to_json()["split"] is True

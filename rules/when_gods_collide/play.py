"""The playing turn: checking a movement, carrying it out, and passing the turn on.

A movement is first turned into a :class:`Plan` (which checker goes where, which checkers
get turned over) by geometry alone; then what is under the turned checkers decides the
result. A god found where the power may not take it (Winged Sandals, God of Wind, Princess,
Seth) voids the movement: nothing moves, the mover now knows that god, and must choose
again with the same dice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.core import Event, Verdict
from rules.geometry import Square
from rules.when_gods_collide.actions import Convert, Move, PlayAction, Push
from rules.when_gods_collide.knowledge import identities, knows_god, normalize
from rules.when_gods_collide.listing import tokens_in_use
from rules.when_gods_collide.model import (
    Army,
    Checker,
    ChessFace,
    ConvertMethod,
    HeroFace,
    Identity,
    Phase,
    WgcState,
    army_order,
    sorted_checkers,
)
from rules.when_gods_collide.movement import (
    chain_problem,
    double_knight_middle,
    face_problem,
    line_to,
    push_problem,
)
from rules.when_gods_collide.options import GodReveal, WgcOptions, WindDistance, WindLanding
from rules.when_gods_collide.turn import eliminate, end_turn, settle

__all__ = ["Plan", "carry_out", "check_play", "plan_action"]


@dataclass(frozen=True)
class Plan:
    """What a movement does, worked out from the geometry before anything is turned over."""

    piece: Square  # the checker that moves, is pushed or is converted
    to: Square  # where it ends (the same square for a conversion)
    flips: tuple[Square, ...]  # checkers turned over, in order (captures, Seth's target)
    can_take_god: bool
    how: str  # words for the announcement


def plan_action(state: WgcState, options: WgcOptions, action: PlayAction) -> Plan | Verdict:
    """The plan of a movement, or the verdict saying why its geometry is not allowed."""
    roll, mover = state.roll, state.current
    assert roll is not None and mover is not None
    hero = roll.hero
    if isinstance(action, Move):
        if hero in (HeroFace.GOD_OF_WIND, HeroFace.SETH):
            verb = "push an enemy checker" if hero is HeroFace.GOD_OF_WIND else "convert one"
            return Verdict.illegal(
                "wrong-power", f"With {hero.title} you {verb}; none of your checkers moves."
            )
        return _plan_move(state, action)
    if isinstance(action, Push):
        if hero is not HeroFace.GOD_OF_WIND:
            return Verdict.illegal("wrong-power", "Only the God of Wind pushes a checker.")
        return _plan_push(state, options, action)
    if hero is not HeroFace.SETH:
        return Verdict.illegal("wrong-power", "Only Seth converts a checker.")
    return _plan_convert(state, options, action)


def _own_piece(state: WgcState, at: Square) -> Verdict | None:
    c = state.occupant.get(at)
    if c is None:
        return Verdict.illegal("no-checker", f"There is no checker on {at}.")
    if c.side is not state.current:
        return Verdict.illegal("not-your-checker", f"The checker on {at} is not one of yours.")
    return None


def _enemy_piece(state: WgcState, at: Square) -> Verdict | None:
    c = state.occupant.get(at)
    if c is None:
        return Verdict.illegal("no-checker", f"There is no checker on {at}.")
    if c.side is state.current:
        return Verdict.illegal(
            "not-an-enemy", f"The checker on {at} is your own; choose an enemy's."
        )
    return None


def _plan_move(state: WgcState, move: Move) -> Plan | Verdict:
    roll, mover = state.roll, state.current
    assert roll is not None and mover is not None
    board, sides = state.board, state.sides
    frm, to, hero, face, number = move.frm, move.to, roll.hero, roll.chess, roll.number
    bad = _own_piece(state, frm)
    if bad is not None:
        return bad
    if to == frm:
        return Verdict.illegal("no-movement", "The checker must end on another square.")
    if to not in board:
        return Verdict.illegal("not-a-square", f"{to} is a gap, not a square of the board.")
    if sides.get(to) is mover:
        return Verdict.illegal("own-checker", f"{to} already holds one of your checkers.")
    chain = hero is HeroFace.PRINCESS and not face.sliding
    if move.via and not chain:
        return Verdict.illegal(
            "via-not-allowed", "Only a Princess chain of king, pawn or knight steps lists squares."
        )
    flips: tuple[Square, ...] = (to,) if to in sides else ()
    problem = None
    how = face.title.lower()
    if hero is None:
        problem = face_problem(board, sides, frm, to, mover, face, number)
    elif hero is HeroFace.IMP:
        fits = [
            f for f in ChessFace if face_problem(board, sides, frm, to, mover, f, number) is None
        ]
        if not fits:
            problem = "no-chess-movement", (
                f"No chess-die movement with {number} on the numbered die takes {frm} to {to}."
            )
        else:
            how = f"Imp, as a {fits[0].title.lower()}"
    elif hero is HeroFace.DOUBLE_KNIGHT:
        how = "Double Knight"
        if double_knight_middle(board, sides, frm, to, mover) is None:
            problem = "not-a-double-knight", (
                f"No two knight jumps take {frm} to {to} with the first landing on an empty square."
            )
    elif hero is HeroFace.WINGED_SANDALS:
        how = "Winged Sandals"
    elif face.sliding:  # Princess, sliding straight through enemy checkers
        how = f"Princess, as a {how}"
        problem = face_problem(board, sides, frm, to, mover, face, number, through_enemies=True)
        if problem is not None and problem[0] == "wrong-distance" and to in sides:
            problem = None  # she may stop on a checker she captures, as the plain move would
        if problem is None:
            line = line_to(frm, to)
            assert line is not None
            direction, distance = line
            path = [frm.step(direction, k) for k in range(1, distance + 1)]
            flips = tuple(sq for sq in path if sq in sides)
    else:  # Princess chain
        how = f"Princess, as a {how}"
        steps = (*move.via, to)
        problem = chain_problem(board, sides, frm, steps, mover, face, number)
        flips = tuple(sq for sq in steps if sq in sides)
    if problem is not None:
        return Verdict.illegal(*problem)
    return Plan(frm, to, flips, hero is None or hero.can_capture_god, how)


def _plan_push(state: WgcState, options: WgcOptions, push: Push) -> Plan | Verdict:
    roll = state.roll
    assert roll is not None
    bad = _enemy_piece(state, push.frm)
    if bad is not None:
        return bad
    if push.to == push.frm:
        return Verdict.illegal("no-movement", "The pushed checker must end on another square.")
    if push.to not in state.board:
        return Verdict.illegal("not-a-square", f"{push.to} is a gap, not a square of the board.")
    capture = options.wind_landing is WindLanding.CAPTURE
    exact = options.wind_distance is WindDistance.EXACT
    problem = push_problem(state.board, state.sides, push.frm, push.to, roll.number, capture, exact)
    if problem is not None:
        return Verdict.illegal(*problem)
    flips = (push.to,) if push.to in state.sides else ()
    return Plan(push.frm, push.to, flips, False, "God of Wind")


def _plan_convert(state: WgcState, options: WgcOptions, convert: Convert) -> Plan | Verdict:
    mover = state.current
    assert mover is not None
    bad = _enemy_piece(state, convert.at)
    if bad is not None:
        return bad
    target = state.occupant[convert.at]
    if convert.method is ConvertMethod.TOKEN:
        limit = options.seth_tokens
        if target.army is not mover and limit is not None and tokens_in_use(state, mover) >= limit:
            return Verdict.illegal("no-seth-tokens", f"All {limit} of your Seth tokens are in use.")
    elif state.captured_count(mover) == 0:
        return Verdict.illegal(
            "no-captured-checkers",
            "None of your checkers has been captured, so none can come back.",
        )
    return Plan(convert.at, convert.at, (convert.at,), False, "Seth")


def check_play(
    state: WgcState, plan: Plan, gods_found: frozenset[Square] | None
) -> dict[Square, bool] | Verdict:
    """What each turned-over checker is, or why the movement is refused."""
    mover = state.current
    assert mover is not None
    end = state.occupant.get(plan.to) if plan.flips and plan.flips[-1] == plan.to else None
    if end is not None and not plan.can_take_god and knows_god(end, mover):
        roll = state.roll
        power = roll.hero.title if roll is not None and roll.hero is not None else "This movement"
        return Verdict.illegal(
            "god-protected",
            f"{power} cannot take a god checker, and you know the checker on {plan.to} is one: "
            "choose another movement.",
        )
    found = identities(state, plan.flips, gods_found)
    if isinstance(found, tuple):
        return Verdict.illegal(*found)
    return found


def _name(army: Army) -> str:
    return army.culture


def carry_out(
    state: WgcState, options: WgcOptions, action: PlayAction, plan: Plan, gods: dict[Square, bool]
) -> tuple[WgcState, list[Event]]:
    """Carry out a checked movement (``gods`` from :func:`check_play`)."""
    mover = state.current
    roll = state.roll
    assert mover is not None and roll is not None
    if gods.get(plan.to, False) and not plan.can_take_god:
        return _voided(state, options, plan, gods)
    board = dict(state.occupant)
    pool = dict(state.captured)
    events: list[Event] = []
    eliminated: Army | None = None
    if isinstance(action, Convert):
        events.append(_convert(board, pool, action, mover))
    else:
        piece = board.pop(plan.piece)
        who = f"{_name(mover)} moves" if isinstance(action, Move) else f"{_name(mover)} pushes"
        whose = "" if isinstance(action, Move) else f" the {_name(piece.side)} checker"
        via = ""
        if isinstance(action, Move) and action.via:
            via = " via " + ", ".join(str(sq) for sq in action.via)
        events.append(
            Event.of(
                "move",
                f"{who}{whose} from {plan.piece}{via} to {plan.to} ({plan.how}).",
                player=mover.value,
                frm=str(plan.piece),
                to=str(plan.to),
                how=plan.how,
            )
        )
        for sq in plan.flips:
            victim = board[sq]
            if gods[sq] and sq != plan.to:  # the Princess goes on past a god
                # the referee learns it too, when only ``gods_found`` told which it was
                god = replace(victim, identity=Identity.GOD)
                board[sq] = _learned(god, mover, options.god_reveal)
                where = f"the checker on {sq}" if options.god_reveal is GodReveal.ALL else "a checker on her way"
                events.append(
                    Event.of(
                        "power",
                        f"The Princess cannot take {where}; she moves on past it.",
                        player=mover.value,
                        at=str(sq),
                    )
                )
                continue
            del board[sq]
            taker = _name(mover) if isinstance(action, Move) else "The pushed checker"
            events.append(_capture_event(taker, mover, victim, gods[sq]))
            if gods[sq]:
                eliminated = victim.side
            else:
                pool[victim.army] = pool.get(victim.army, 0) + 1
        board[plan.to] = replace(piece, at=plan.to)
    new = replace(
        state,
        checkers=sorted_checkers(board.values()),
        captured=tuple(
            sorted(((a, n) for a, n in pool.items() if n), key=lambda p: army_order(p[0]))
        ),
    )
    if eliminated is not None:
        new = eliminate(new, eliminated, events)
        if len(new.alive) == 1:
            winner = new.alive[0]
            events.append(
                Event.of(
                    "victory",
                    f"{_name(winner)} is the last god standing: {winner.god} wins!",
                    winner=winner.value,
                )
            )
            return normalize(replace(new, phase=Phase.OVER, current=None, roll=None)), events
    return end_turn(normalize(new), events), events


def _capture_event(taker: str, mover: Army, victim: Checker, god: bool) -> Event:
    text = f"{taker} captures the {_name(victim.side)} checker on {victim.at}"
    text += f": it is {victim.army.god}, the {_name(victim.army)} god!" if god else "; not the god."
    return Event.of(
        "capture", text, player=mover.value, army=victim.side.value, at=str(victim.at), god=god
    )


def _convert(
    board: dict[Square, Checker], pool: dict[Army, int], action: Convert, mover: Army
) -> Event:
    target = board[action.at]
    if action.method is ConvertMethod.TOKEN:
        board[action.at] = replace(target, side=mover, identity=Identity.MORTAL, public=True)
        how = "takes back its own checker" if target.army is mover else "puts a Seth token on it"
    else:
        pool[target.army] = pool.get(target.army, 0) + 1
        pool[mover] -= 1
        board[action.at] = Checker(action.at, mover, mover, Identity.MORTAL, public=True)
        how = "replaces it with one of its captured checkers"
    return Event.of(
        "power",
        f"Seth: {_name(mover)} turns over the {_name(target.side)} checker on {action.at}, "
        f"not a god, and {how}.",
        player=mover.value,
        at=str(action.at),
        army=target.side.value,
        method=action.method.value,
    )


def _learned(c: Checker, mover: Army, reveal: GodReveal) -> Checker:
    """``c`` after ``mover`` turned it over and put it back (seen by all or by the mover)."""
    if reveal is GodReveal.ALL:
        return replace(c, public=True)
    return replace(c, seen_by=c.seen_by | {mover})


def _voided(
    state: WgcState, options: WgcOptions, plan: Plan, gods: dict[Square, bool]
) -> tuple[WgcState, list[Event]]:
    """A god was found where the power may not take one: nothing moves; the mover learns."""
    mover = state.current
    roll = state.roll
    assert mover is not None and roll is not None and roll.hero is not None
    board = dict(state.occupant)
    reveal = options.seth_reveal if roll.hero is HeroFace.SETH else options.god_reveal
    for sq in plan.flips:
        identity = Identity.GOD if gods[sq] else Identity.MORTAL
        board[sq] = _learned(replace(board[sq], identity=identity), mover, reveal)
    # Spoken to the whole table: the square is named only when everyone learns the god.
    which = f"the checker on {plan.to}" if reveal is GodReveal.ALL else "the checker"
    if roll.hero is HeroFace.SETH:
        text = (
            f"{_name(mover)} turns over {which}: Seth cannot convert it, so "
            f"{_name(mover)} must pick another checker."
        )
    else:
        text = (
            f"{_name(mover)} turns over {which}: the {roll.hero.title} cannot "
            f"take it, so {_name(mover)} must choose another movement."
        )
    events = [Event.of("power", text, player=mover.value, at=str(plan.to), power=roll.hero.value)]
    new = normalize(replace(state, checkers=sorted_checkers(board.values())))
    return settle(new, options, events), events

"""The When Gods Collide engine: phases, dice as chance actions, verdicts and JSON.

The life of a game::

    first-roll (chance) -> tiles -> deploy (all armies at once)
    -> roll (chance: chess die + numbered die) -> move [-> call-hero -> hero-roll (chance)
       -> move] -> roll ... -> over

Every die is a chance action carrying the faces read off the table, so ``_apply`` never
asks the ``dice`` argument for anything.

>>> from rules.geometry import Square
>>> game = WhenGodsCollide.from_options({"armies": ["greek", "norse"], "first_army": "greek"})
>>> state = game.initial_state()
>>> game.to_move(state), game.legal_actions(state)
(('greek',), [LayTile(at=Square(x=0, y=0))])
>>> game.verdict(state, LayTile(Square(1, 0))).code
'tile-misaligned'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.core import CHANCE, Dice, Event, GameRules, Outcome, Verdict
from rules.errors import FormatError
from rules.jsonutil import parse_enum
from rules.when_gods_collide import codec, setup
from rules.when_gods_collide.actions import (
    CallHero,
    Convert,
    FirstRoll,
    HeroRoll,
    LayTile,
    Move,
    Pass,
    Place,
    Push,
    Roll,
    WgcAction,
)
from rules.when_gods_collide.knowledge import normalize, view
from rules.when_gods_collide.listing import has_movement, legal_play
from rules.when_gods_collide.model import (
    Army,
    ChessFace,
    HeroFace,
    Phase,
    TurnRoll,
    WgcState,
    sorted_checkers,
)
from rules.when_gods_collide.options import WgcOptions
from rules.when_gods_collide.play import carry_out, check_play, plan_action
from rules.when_gods_collide.turn import can_call_hero, end_turn, settle
from rules.when_gods_collide.validate import check_state

__all__ = ["WhenGodsCollide"]

_EXPECTED: dict[Phase, tuple[tuple[type, ...], str, str]] = {
    Phase.FIRST_ROLL: (
        (FirstRoll,), "roll-off-first", "First roll the numbered die for the first tile."
    ),
    Phase.TILES: ((LayTile,), "lay-tiles-first", "The tiles are still being laid."),
    Phase.DEPLOY: ((Place,), "deploy-first", "The armies are still being placed."),
    Phase.ROLL: ((Roll,), "roll-first", "Roll the chess die and the numbered die first."),
    Phase.MOVE: (
        (Move, Push, Convert, Pass, CallHero), "already-rolled", "The dice are rolled: now move."
    ),
    Phase.HERO_ROLL: ((HeroRoll,), "hero-roll-awaited", "Roll the hero die and the numbered die."),
}
_ACTIONS = (FirstRoll, LayTile, Place, Roll, CallHero, HeroRoll, Move, Push, Convert, Pass)


class WhenGodsCollide(GameRules[WgcState, WgcAction]):
    """When Gods Collide (MetaDreams, 2022) for 2 to 4 armies; players are army names."""

    name = "when-gods-collide"
    title = "When Gods Collide"

    def __init__(self, options: WgcOptions | None = None) -> None:
        self.options = options or WgcOptions()

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> WhenGodsCollide:
        return cls(WgcOptions.from_json(options))

    def options_to_json(self) -> dict[str, Any]:
        return self.options.to_json()

    def players(self) -> tuple[str, ...]:
        return tuple(a.value for a in self.options.armies)

    def initial_state(self) -> WgcState:
        return setup.start(self.options)

    # -- who acts -----------------------------------------------------------------------
    def to_move(self, state: WgcState) -> tuple[str, ...]:
        if state.phase in (Phase.FIRST_ROLL, Phase.ROLL, Phase.HERO_ROLL):
            return (CHANCE,)
        if state.phase is Phase.DEPLOY:
            return tuple(a.value for a in setup.deploying(state, self.options))
        if state.phase is Phase.OVER or state.current is None:
            return ()
        return (state.current.value,)

    def chance_outcomes(self, state: WgcState) -> list[tuple[WgcAction, float]]:
        if state.phase is Phase.FIRST_ROLL:
            return [(FirstRoll(n), 1 / 6) for n in range(1, 7)]
        if state.phase is Phase.ROLL:
            return [(Roll(f, n), 1 / 36) for f in ChessFace for n in range(1, 7)]
        if state.phase is Phase.HERO_ROLL:
            return [(HeroRoll(h, n), 1 / 36) for h in HeroFace for n in range(1, 7)]
        return []

    def legal_actions(self, state: WgcState) -> list[WgcAction]:
        phase = state.phase
        if phase in (Phase.FIRST_ROLL, Phase.ROLL, Phase.HERO_ROLL):
            return [a for a, _ in self.chance_outcomes(state)]
        if phase is Phase.TILES:
            return list(setup.tile_choices(state))
        if phase is Phase.DEPLOY:
            return list(setup.place_choices(state, self.options))
        if phase is not Phase.MOVE:
            return []
        out: list[WgcAction] = list(legal_play(state, self.options))
        if can_call_hero(state, self.options):
            out.append(CallHero())
        if self.options.allow_pass or not out or out == [CallHero()]:
            out.append(Pass())
        return out

    # -- legality -----------------------------------------------------------------------
    def verdict(self, state: WgcState, action: WgcAction) -> Verdict:
        if not isinstance(action, _ACTIONS):
            return Verdict.illegal(
                "unknown-action", f"{action!r} is not a When Gods Collide action."
            )
        if state.phase is Phase.OVER:
            return Verdict.illegal("game-over", "The game is over: the last god is standing.")
        allowed, code, message = _EXPECTED[state.phase]
        if not isinstance(action, allowed):
            return Verdict.illegal(code, message)
        if isinstance(action, (FirstRoll, Roll, HeroRoll)) and not 1 <= action.number <= 6:
            return Verdict.illegal("bad-roll", f"A d6 shows 1 to 6, not {action.number}.")
        if isinstance(action, LayTile):
            return setup.check_tile(state, action)
        if isinstance(action, Place):
            return setup.check_place(state, self.options, action)
        if isinstance(action, CallHero):
            return self._check_call_hero(state)
        if isinstance(action, Pass):
            if self.options.allow_pass or not has_movement(state, self.options):
                return Verdict.ok()
            return Verdict.illegal("must-move", "You have a legal movement, so you must make one.")
        if isinstance(action, (Move, Push, Convert)):
            plan = plan_action(state, self.options, action)
            if isinstance(plan, Verdict):
                return plan
            found = check_play(state, plan, action.gods_found)
            if isinstance(found, Verdict):
                return found
        return Verdict.ok()

    def _check_call_hero(self, state: WgcState) -> Verdict:
        roll = state.roll
        assert roll is not None
        if not self.options.hero_die:
            return Verdict.illegal("hero-die-off", "This game is played without the hero die.")
        if roll.hero is not None:
            return Verdict.illegal(
                "hero-already-rolled", "The hero die was already rolled this turn."
            )
        if roll.number != 6:
            return Verdict.illegal(
                "hero-needs-six", f"The hero die may be rolled only after a 6, not a {roll.number}."
            )
        return Verdict.ok()

    # -- effects --------------------------------------------------------------------------
    def _apply(
        self, state: WgcState, action: WgcAction, dice: Dice
    ) -> tuple[WgcState, list[Event]]:
        options = self.options
        if isinstance(action, FirstRoll):
            return setup.first_roll(state, action)
        if isinstance(action, LayTile):
            return setup.lay_tile(state, options, action)
        if isinstance(action, Place):
            return setup.place(state, options, action)
        mover = state.current
        assert mover is not None
        events: list[Event] = []
        if isinstance(action, Roll):
            events.append(self._roll_event(mover, action))
            new = replace(state, phase=Phase.MOVE, roll=TurnRoll(action.chess, action.number))
            return settle(new, options, events), events
        if isinstance(action, CallHero):
            events.append(
                Event.of("power", f"{mover.culture} calls on the hero die.", player=mover.value)
            )
            return replace(state, phase=Phase.HERO_ROLL), events
        if isinstance(action, HeroRoll):
            assert state.roll is not None
            events.append(
                Event.of(
                    "roll",
                    f"{mover.culture} rolls the hero die: {action.hero.title}; the numbered die "
                    f"now shows {action.number}.",
                    player=mover.value,
                    hero=action.hero.value,
                    number=action.number,
                )
            )
            roll = replace(state.roll, hero=action.hero, number=action.number)
            return settle(replace(state, phase=Phase.MOVE, roll=roll), options, events), events
        if isinstance(action, Pass):
            events.append(Event.of("turn", f"{mover.culture} does not move.", player=mover.value))
            return end_turn(state, events), events
        assert isinstance(action, (Move, Push, Convert))
        plan = plan_action(state, options, action)
        assert not isinstance(plan, Verdict)
        found = check_play(state, plan, action.gods_found)
        assert not isinstance(found, Verdict)
        return carry_out(state, options, action, plan, found)

    def _roll_event(self, mover: Army, action: Roll) -> Event:
        text = f"{mover.culture} rolls {action.chess.title} and {action.number}."
        if action.number == 6 and self.options.hero_die:
            text += f" {mover.culture} may roll the hero die."
        return Event.of(
            "roll", text, player=mover.value, chess=action.chess.value, number=action.number
        )

    def outcome(self, state: WgcState) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        winner = state.alive[0]
        reason = f"{winner.god} of the {winner.culture} army is the last god standing"
        return Outcome(winner.value, reason)

    # -- hidden information ------------------------------------------------------------------
    def view(self, state: WgcState, player: str | None) -> WgcState:
        if player is None:
            return state
        army = parse_enum(player, Army, "player")
        if army not in self.options.armies:
            raise FormatError("player", f"{army.value} is not playing in this game")
        return view(state, army)

    def piece_of(self, action: WgcAction) -> str | None:
        if isinstance(action, (Move, Push)):
            return str(action.frm)
        if isinstance(action, (Convert, Place)):
            return str(action.at)
        return None

    # -- notation and JSON -----------------------------------------------------------------
    def notation(self, action: WgcAction) -> str:
        return str(action)

    def state_to_json(self, state: WgcState) -> dict[str, Any]:
        return codec.state_to_json(state)

    def state_from_json(self, data: Any) -> WgcState:
        state = codec.read_state(data, self.options.armies)
        check_state(state, self.options)
        return normalize(replace(state, checkers=sorted_checkers(state.checkers)))

    def action_to_json(self, action: WgcAction) -> dict[str, Any]:
        return codec.action_to_json(action)

    def action_from_json(self, data: Any) -> WgcAction:
        return codec.action_from_json(data)

"""Battle Grounds' battle stat in the live referee: a battle on a white square waits for a stat
that the board never shows, while the table shows the battle's result. The attack is read by
what it leaves (won or lost, through every stat and roll), the stat asked for as a choice the
board cannot show (``tabletop.live.choices``), and the battle fought with the dice given. The
board is read by a perfect detector (the harness of ``test_live_outcomes``)."""

from __future__ import annotations

from typing import Any

from rules.registry import get_game
from tabletop.live.choices import numbered
from tabletop.live.outcomes import Fixed
from tabletop.live.pipeline import Rolls

from .test_live_outcomes import Harness, _board, _replay, _same, feed, hand

#: North to play; North's Bullseye (b3) may attack South's Black Widow on the white square b4
#: (a position of a seeded playout from the bundled record).
POSITION = {
    "phase": "play", "to_play": "north", "turn": 10, "passes": 0,
    "board": {"a1": "rhino", "a6": "rogue", "a7": "iron-man", "b1": "venom", "b2": "green-goblin",
              "b3": "bullseye", "b4": "black-widow", "b7": "spider-man", "c1": "loki", "c2": "hydra-agent",
              "c6": "falcon", "c7": "silver-surfer", "d1": "thanos", "d2": "aim-agent", "d6": "jubilee",
              "d7": "doctor-strange", "e1": "mystique", "e2": "sandman", "e6": "storm", "e7": "daredevil",
              "f1": "emma-frost", "f2": "sabretooth", "f6": "wolverine", "f7": "professor-x"},
    "hypnotized": [], "holding": {"south": [], "north": []}, "dice_zone": {"south": [], "north": []},
    "dice_read": {"south": [], "north": []}, "battle": None, "pending": [],
}
ATTACK = {"type": "move", "piece": "bullseye", "from": "b3", "to": "b4"}


def _game() -> Any:
    game, _, _ = _replay("battle-grounds")
    return get_game("battle-grounds", game.options_to_json())


def _battle(game: Any, stat: str, roll_off: list[int], fight: list[int]) -> tuple[Any, Any]:
    """(the position, the position once the attack is made, the stat chosen and the battle fought)."""
    s = game.state_from_json(POSITION)
    mid = game.apply(s, game.action_from_json(ATTACK), Fixed(roll_off)).state
    choice = {"type": "choose-stat", "player": game.to_move(mid)[0], "stat": stat}
    return s, game.apply(mid, game.action_from_json(choice), Fixed(fight)).state


def _pipe(game: Any, state: Any, rolls: list[int], choices: list[str] | None = None, typed: bool = False) -> Harness:
    r = Rolls(rolls)
    r.typed = typed
    return Harness(game, state, None, None, None, rolls=r, window_s=0.3,
                   **({"choices": choices} if choices is not None else {}))


def test_an_attack_won_on_white_asks_for_the_stat_and_fights_with_the_dice_given() -> None:
    """The attacker stands on b4, the defender gone: the attack is read, the roll-off's
    chooser is asked for the stat (``--choices Strength``), the battle fought with the dice
    given, and the referee ends where the table is."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [6, 1])
    pipe = _pipe(game, s, [2, 5, 6, 1], ["Strength"])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, end)] * 4, t)
    assert _same(game, pipe.state, end), pipe.announced
    said = [text for kind, text in pipe.announced if kind == "legal"]
    assert any("South chooses Strength as the battle stat." in text for text in said), said
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced


def test_an_attack_lost_on_white_is_read_by_its_result_and_its_dice_and_stat_asked_for() -> None:
    """The attacker gone, the defender still on b4: no move shows, the attack is read by what
    it leaves (some stat and roll lose it), its roll-off asked for; once typed, the stat is
    asked for, numbered; chosen at the keys, the battle's dice are asked for; once typed,
    the battle is fought and the referee ends where the table is."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [1, 6])
    pipe = _pipe(game, s, [], typed=True)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, end)] * 4, t)
    assert any(text.startswith("A roll is needed") for _, text in pipe.announced), pipe.announced
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    for die in (2, 5):
        pipe.rolls.type(die)
    t = feed(pipe, [_board(game, end)] * 4, t)
    prompts = [text for _, text in pipe.announced if text.startswith("South chooses the battle stat:")]
    assert prompts and prompts[0].startswith("South chooses the battle stat: c1 Intelligence, c2 Strength, c3 Speed, "
                                             "c4 Durability, c5 Energy Projection, c6 Fighting Skills."), pipe.announced
    pipe.next_choice()
    pipe.next_choice()  # c2 Strength
    assert "A roll is needed" in pipe.choose_current()
    for die in (1, 6):
        pipe.rolls.type(die)
    pipe.choose_current()
    assert _same(game, pipe.state, end), pipe.announced
    assert any("Bullseye goes to south's Holding Zone" in text for _, text in pipe.announced)


def test_a_battle_stat_given_before_its_dice_waits_for_them() -> None:
    """``--choices Strength`` with the battle dice not given: the choice is taken, its roll
    said once, and played once the dice are typed."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [6, 1])
    pipe = _pipe(game, s, [2, 5], ["Strength"], typed=True)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, end)] * 6, t)
    assert pipe.choices == [] and pipe.state.battle is not None
    assert len([text for _, text in pipe.announced if text.startswith("A roll is needed")]) == 1, pipe.announced
    for die in (6, 1):
        pipe.rolls.type(die)
    feed(pipe, [_board(game, end)] * 4, t)
    assert _same(game, pipe.state, end) and pipe.choices == [], pipe.announced


def test_secret_stats_of_both_sides_are_numbered_with_their_owner() -> None:
    """A roll-off tie: each side chooses its stat in secret; the twelve choices say whose."""
    game = _game()
    s = game.state_from_json(POSITION)
    mid = game.apply(s, game.action_from_json(ATTACK), Fixed([3, 3])).state
    from tabletop.live.choices import awaited

    words = [w for _, w, _ in numbered(game, awaited(game, mid))]
    assert len(words) == 12 and len(set(words)) == 12
    assert "North Strength" in words and "South Strength" in words


def test_both_secret_stats_given_with_their_owner_are_taken() -> None:
    """A roll-off tie, ``--choices 'North Strength,South Strength'`` as the twelve choices say
    them: once North's is in, South's six are said without the owner, and South's, named
    with it, is still taken."""
    game = _game()
    s = game.state_from_json(POSITION)
    mid = game.apply(s, game.action_from_json(ATTACK), Fixed([3, 3])).state
    for player in ("north", "south"):
        mid = game.apply(mid, game.action_from_json({"type": "choose-stat", "player": player, "stat": "strength"}),
                         Fixed([6, 1])).state
    pipe = _pipe(game, s, [3, 3, 6, 1], ["North Strength", "South Strength"])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, mid)] * 4, t)
    assert not any(kind == "illegal" for kind, _ in pipe.announced), pipe.announced
    assert _same(game, pipe.state, mid), pipe.announced


def test_battle_dice_that_do_not_give_the_table_s_result_are_refused() -> None:
    """The table shows Bullseye won on b4 (Strength, 6 against 1). Given Strength and the dice
    1 and 6 (a battle Bullseye loses), the referee does not play a battle the table
    contradicts: it says so, keeps waiting, and plays it once the dice thrown are typed."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [6, 1])
    pipe = _pipe(game, s, [2, 5, 1, 6], ["Strength"], typed=True)
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    t = feed(pipe, [_board(game, end)] * 4, t)
    assert not any("Holding Zone" in text for _, text in pipe.announced), pipe.announced
    assert pipe.state.battle is not None
    assert any("not give what the board shows" in text for _, text in pipe.announced), pipe.announced
    assert pipe.rolls.take_back() == 6 and pipe.rolls.take_back() == 1
    for die in (6, 1):
        pipe.rolls.type(die)
    feed(pipe, [_board(game, end)] * 4, t)
    assert _same(game, pipe.state, end), pipe.announced


def test_the_referee_s_own_battle_dice_decide_whatever_the_table_shows() -> None:
    """``--roll-dice``: the stat given, the referee rolls the battle dice, and the battle it
    fights is played even where the table showed the other result (no silent reroll)."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [6, 1])  # the table: Bullseye won
    pipe = Harness(game, s, None, None, None, rolls=Rolls([2, 5], seed=3), window_s=0.3, choices=["Strength"])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, end)] * 4, t)
    assert pipe.state.battle is None, pipe.announced  # fought, with the referee's dice
    assert not any("does not give what the board shows" in text for _, text in pipe.announced)
    # its dice lose the battle the table shows won: the table is to be put right
    assert "bullseye" not in game.state_to_json(pipe.state)["board"].values(), pipe.announced
    assert any(text.endswith("Take Bullseye off b4; put Black Widow on b4.") for _, text in pipe.announced), \
        pipe.announced


def test_the_referee_s_dice_that_agree_with_the_table_ask_nothing_of_it() -> None:
    """``--roll-dice`` dice (seed 5) that win the battle the table shows won: nothing to put right."""
    game = _game()
    s, end = _battle(game, "strength", [2, 5], [6, 1])
    pipe = Harness(game, s, None, None, None, rolls=Rolls([2, 5], seed=5), window_s=0.3, choices=["Strength"])
    t = feed(pipe, [_board(game, s), hand(_board(game, s))])
    feed(pipe, [_board(game, end)] * 4, t)
    assert pipe.state.battle is None and "bullseye" in game.state_to_json(pipe.state)["board"].values()
    assert not any("otherwise than the table" in text for _, text in pipe.announced), pipe.announced


def _ends(game: Any, state: Any, depth: int = 3) -> list[Any]:
    """Every position a battle begun in ``state`` may end in: each roll of the dice it asks
    for, each stat chosen (by one side, or by each in secret)."""
    from itertools import product

    from rules.errors import IllegalActionError, RollNeededError
    from tabletop.live.choices import awaited

    if state.battle is None or depth == 0:
        return [state]
    out = []
    for choice in awaited(game, state):
        for faces in [(), *product(range(1, 7), repeat=2)]:
            try:
                step = game.apply(state, choice, Fixed(faces))
            except RollNeededError:
                continue
            except IllegalActionError:
                break
            out += _ends(game, step.state, depth - 1)
            if not faces:
                break
    return out


def test_a_battle_changes_only_the_two_squares_it_names() -> None:
    """What lets the referee leave a battle untried where the table changed elsewhere
    (``outcomes.NAMED_ONLY``): through every roll-off, stat and battle roll, a battle of the
    bundled record's positions changes no square but its attacker's and its target's."""
    from itertools import product

    from rules.errors import IllegalActionError, RollNeededError
    from tabletop.live.infer import legal
    from tabletop.live.outcomes import _named, change, engine_cells, reaches

    game, states, _ = _replay("battle-grounds")
    battles = 0
    for s in states[::7]:
        before = engine_cells(game, s)
        for action in legal(game, s):
            try:
                game.apply(s, action, Fixed([]))
                continue  # no dice: no battle
            except (RollNeededError, IllegalActionError):
                pass
            battles += 1
            named = _named(game.action_to_json(action))
            for faces in product(range(1, 7), repeat=2):  # the roll-off (a tie: both choose in secret)
                try:
                    mid = game.apply(s, action, Fixed(faces)).state
                except RollNeededError:
                    continue
                for end in _ends(game, mid):
                    added, removed = change(before, engine_cells(game, end))
                    cells = {cell for cell, _ in added | removed}
                    assert cells <= named, (game.action_to_json(action), cells)
                    assert reaches(game, action, cells)
            if battles >= 4:
                return
    assert battles >= 4, battles


class _Counting:
    """A game that counts the actions applied to it."""

    def __init__(self, game: Any) -> None:
        self.game, self.applied = game, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        self.applied += 1
        return self.game.apply(*args, **kwargs)


def test_a_battle_whose_squares_do_not_hold_the_change_is_not_fought_out() -> None:
    """Bullseye's attack on b4 cannot make Black Widow arrive on c5: the search for a roll
    and stat that would make the table look so is not run for it (every roll and stat took a
    fifth of a second, and the illegal move was said a window late), while the table the
    attack lost shows is still found."""
    from tabletop.live.outcomes import awaiting_dice, exact_outcomes

    game = _game()
    s = game.state_from_json(POSITION)
    attack = game.action_from_json(ATTACK)
    moved = dict(POSITION, board={**POSITION["board"], "c5": "black-widow"})
    del moved["board"]["b4"]
    counting = _Counting(game)
    assert awaiting_dice(counting, s, _board(game, s), _board(game, game.state_from_json(moved)), [attack]) == []
    assert counting.applied == 0
    wanting: list[Any] = []
    found, _ = exact_outcomes(counting, s, _board(game, s), _board(game, game.state_from_json(moved)),
                              Rolls([2, 5]), [attack], wanting)
    assert found == [] and counting.applied == 1  # the attack made, its battle not fought out
    _, lost = _battle(game, "strength", [2, 5], [1, 6])
    assert awaiting_dice(game, s, _board(game, s), _board(game, lost), [attack]) == [attack]

"""The `solver` baseline level: least deadwood by the exact meld solver, in every game."""

from __future__ import annotations

import random

import pytest

from engines import bots, tournament
from engines.base import BOT_LEVELS
from engines.registry import GAMES
from engines.spades import GAME as SPADES_GAME
from engines.spades import bots as spades_bot
from engines.three_thirteen import GAME as TT
from engines.three_thirteen.bots import solver as tt_solver
from engines.zhol import GAME as ZHOL
from engines.zhol.bots import solver as zhol_solver
from engines.zoliky import GAME as ZOLIKY
from engines.zoliky.bots import solver as zoliky_solver
from engines.zoliky.bots.hand import analyse, slots_of, without
from engines.zoliky.bots.knowledge import read_view
from engines.zoliky.rules import card_points
from tests.engines import test_spades_bots as spades_tests
from tests.engines.test_three_thirteen import start
from tests.engines.test_zhol import act as zhol_act
from tests.engines.test_zhol import new as zhol_new


def decide(game, state: dict) -> dict:
    seat = game.to_move(state)
    return bots.decide(game, game.view(state, seat), "solver", random.Random(0))


def test_solver_is_a_tournament_level_but_not_one_clients_may_seat():
    assert "solver" in tournament.LEVELS
    assert "solver" not in BOT_LEVELS


@pytest.mark.parametrize(
    ("game_id", "options", "seats"),
    [
        ("zhol", {"target_wins": 1}, 2),
        ("zhol", {"target_wins": 1, "variant": "large"}, 2),
        ("zhol", {"target_wins": 1}, 4),
        ("three-thirteen", {}, 2),
        ("three-thirteen", {"jokers_wild": True, "joker_dump": True, "false_out_penalty": True}, 3),
        ("three-thirteen", {"redemption_round": True}, 2),
        ("zoliky", {"target_wins": 1}, 2),
        ("spades", {"target_score": 100}, 4),
    ],
)
def test_solver_plays_whole_matches_with_legal_moves_only(game_id, options, seats):
    """The solver against medium: every decision is accepted by the engine, the match ends."""
    game = GAMES[game_id]
    levels = ["solver", "medium"] * (seats // 2) + ["solver"] * (seats % 2)
    state = tournament.play_match(game, levels, seed=3, options=options)
    assert state["status"] == "finished"


def test_zhol_solver_takes_the_card_that_completes_a_meld_then_goes_out():
    """5H on the pile completes 5S 5D 5H beside 7H 8H 9H TH: taken, then KD thrown wins."""
    hands = [["7H", "8H", "9H", "TH", "5S", "5D", "KD"], ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]]
    state = zhol_new(hands, stock_top=["2C", "3D"])
    zhol_act(state, 0, "draw", "stock")
    # 5S 5D KD 2C are all deadwood: any of them leaves 3 cards; the dearest, KD, goes.
    assert decide(ZHOL, state) == {"type": "discard", "card": "KD"}
    zhol_act(state, 0, "discard", "2C")
    # 2C helps no meld of seat 1's hand: the stock.
    assert decide(ZHOL, state) == {"type": "draw", "pile": "stock"}
    zhol_act(state, 1, "draw", "stock")
    zhol_act(state, 1, "discard", "5H")
    action, reason = zhol_solver.solver_decision(ZHOL.view(state, 0))
    assert action == {"type": "draw", "pile": "discard"}
    assert reason == "5H completes a set 5S-5H-5D"
    zhol_act(state, 0, "draw", "discard")
    action, reason = zhol_solver.solver_decision(ZHOL.view(state, 0))
    assert action == {"type": "discard", "card": "KD"}
    assert reason == "throwing KD completes the Zhol"


def test_three_thirteen_solver_takes_a_run_card_and_goes_out():
    """Round 1 (3 cards, 3s wild): 4H 5H KD with 6H on the pile: take it, throw KD, out."""
    state, _ = start([["2C", "9D", "KS"], ["4H", "5H", "KD"]], "6H", ["7C", "8C", "9C"])
    seat = TT.to_move(state)
    assert seat == 1
    action, reason = tt_solver.solver_decision(TT.view(state, seat))
    assert action == {"type": "draw", "pile": "discard"}
    assert reason == "6H completes a run 4H-5H-6H"
    TT.apply(state, seat, action)
    action, reason = tt_solver.solver_decision(TT.view(state, seat))
    assert action == {"type": "discard", "card": "KD"}
    assert "goes out" in reason


def test_three_thirteen_solver_throws_the_card_leaving_the_fewest_points():
    """9D 2C KS and 7C drawn, nothing melds: throwing KS leaves 18 points, the least."""
    state, _ = start([["4H", "5H", "KD"], ["9D", "2C", "KS"]], "7S", ["7C", "8C", "9C"])
    seat = TT.to_move(state)
    TT.apply(state, seat, {"type": "draw", "pile": "stock"})
    action, reason = tt_solver.solver_decision(TT.view(state, seat))
    assert action == {"type": "discard", "card": "KS"}
    assert reason == "throwing KS leaves the least deadwood (18 points)"


def zoliky_states(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    states: list[dict] = []
    while len(states) < count:
        opts = ZOLIKY.validate_options({"target_wins": 1}, 2)
        state, _ = ZOLIKY.new_match(opts, 2, seed + len(states))
        for _ in range(400):
            if state["status"] != "active":
                break
            seat = ZOLIKY.to_move(state)
            view = ZOLIKY.view(state, seat)
            if view["turn"]["phase"] != "draw" and rng.random() < 0.2:
                states.append(ZOLIKY.clone(state))
            ZOLIKY.apply(state, seat, bots.decide(ZOLIKY, view, rng.choice(("solver", "hard")), rng))
    return states[:count]


def test_zoliky_solver_throws_the_card_leaving_the_least_deadwood_dearest_first():
    """On every sampled turn that ends with a plain discard, no other normal card would leave less
    deadwood, nor as little while being dearer."""
    checked = 0
    for state in zoliky_states(40, seed=21):
        seat = ZOLIKY.to_move(state)
        view = ZOLIKY.view(state, seat)
        action = bots.decide(ZOLIKY, view, "solver", random.Random(0))
        assert action["type"] != "discard" or action["card"] in {
            a["card"] for a in view["legal_actions"] if a["type"] == "discard"
        }
        if action["type"] != "discard" or action["card"] == "JK":
            continue
        know = read_view(view)
        slots = slots_of(know.melds)
        left = analyse(without(know.hand, [action["card"]]), slots).deadwood
        for card in {c for c in know.hand if c != "JK"}:
            other = analyse(without(know.hand, [card]), slots).deadwood
            assert other > left or (other == left and card_points(card) <= card_points(action["card"]))
        checked += 1
    assert checked >= 10


def test_zoliky_solver_opens_as_soon_as_it_can():
    """Whenever the solver's hand, not yet open and allowed to meld, holds 42 points with a pure
    run, its action puts melds down (or goes out)."""
    from engines.zoliky.bots.hand import opening_melds

    seen = 0
    for state in zoliky_states(60, seed=5):
        seat = ZOLIKY.to_move(state)
        know = read_view(ZOLIKY.view(state, seat))
        if know.opened or not know.may_meld or "meld" not in know.types or opening_melds(know.hand) is None:
            continue
        action = zoliky_solver.solver_action(ZOLIKY.view(state, seat), random.Random(0))
        assert action["type"] in ("meld", "swap_joker", "lay_off")
        seen += 1
    assert seen >= 1


def test_spades_solver_is_hard_without_mistakes():
    for state in spades_tests.random_states(40, seed=3):
        seat = spades_tests.GAME.to_move(state)
        view = spades_tests.GAME.view(state, seat)
        if len(view["legal_actions"]) < 2:
            continue
        for k in range(3):
            assert bots.decide(SPADES_GAME, view, "solver", random.Random(k)) == spades_bot.heuristic_action(
                view
            )

"""Žolíky bots: no level sees a hidden card, every level plays legally, and the key decisions."""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import replace

import pytest

from engines import bots
from engines.cards import JOKER
from engines.zoliky import GAME
from engines.zoliky.bots import LEVELS, choose, choose_action, infer, mistake_rate
from engines.zoliky.bots import search as bot_search
from engines.zoliky.bots.close import find_close
from engines.zoliky.bots.hand import analyse, slots_of
from engines.zoliky.bots.knowledge import read_view, sample_hidden
from engines.zoliky.bots.policy import HARD, choose_discard, close_chance, decide
from engines.zoliky.rules import lay_off_reading
from tests.engines.harness import play_random
from tests.engines.test_zoliky import OTHER, act, draw, new, to_turn_7

ALL_LEVELS = ("random", "easy", "medium", "hard", "solver", "pro", "sound")


@pytest.fixture(autouse=True)
def small_pro_budget(monkeypatch):
    # A fixed number of samples and no clock: the pro's decision is a function of view and rng.
    monkeypatch.setitem(bot_search.PRO, "samples", 6)
    monkeypatch.setitem(bot_search.PRO, "time_limit", None)


def decision_states(matches: int, seed: int) -> list[tuple[dict, int]]:
    """States where a seat must decide, from matches between mixed levels (copies, every 3rd)."""
    out: list[tuple[dict, int]] = []
    levels = ["medium", "hard", "easy", "random"]
    for m in range(matches):
        rng = random.Random(seed + m)
        seats = [levels[m % 4], levels[(m + 1) % 4]]
        step = 0

        def pick(game, state, seat, legal, rng, seats=seats):
            nonlocal step
            step += 1
            if step % 3 == 1:
                out.append((copy.deepcopy(state), seat))
            return bots.decide(game, game.view(state, seat), seats[seat], rng)

        play_random(GAME, {"target_wins": 1}, 2, seed + m, pick=pick, max_steps=400)
        del rng
    return out


def rearranged(state: dict, seat: int, rng: random.Random) -> dict:
    """The same state with the cards `seat` cannot see (the other hand and the stock) reshuffled
    among themselves, keeping their sizes."""
    other = 1 - seat
    pool = state["hands"][other] + state["stock"]
    rng.shuffle(pool)
    out = copy.deepcopy(state)
    size = len(state["hands"][other])
    out["hands"][other] = pool[:size]
    out["stock"] = pool[size:]
    return out


STATES = decision_states(12, 500)


def test_the_sampled_states_cover_every_phase():
    phases = Counter(s["phase"] for s, _ in STATES)
    assert phases["draw"] > 20 and phases["play"] > 20 and phases["discard"] >= 10
    assert any(s["opened"][seat] for s, seat in STATES) and any(s["melds"] for s, _ in STATES)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_no_level_sees_another_hand_or_the_stock_order(level):
    checked = 0
    for k, (state, seat) in enumerate(STATES[::2]):
        view = GAME.view(state, seat)
        before = copy.deepcopy(view)
        action = bots.decide(GAME, view, level, random.Random(k))
        assert view == before, "the bot changed its view"
        other = rearranged(state, seat, random.Random(1000 + k))
        other_view = GAME.view(other, seat)
        assert other_view == view
        assert bots.decide(GAME, other_view, level, random.Random(k)) == action
        # …and the decision is legal in both arrangements.
        GAME.apply(copy.deepcopy(state), seat, action)
        GAME.apply(other, seat, action)
        checked += 1
    assert checked >= 40


def test_what_the_bot_knows_is_exactly_what_it_cannot_see():
    for state, seat in STATES:
        know = read_view(GAME.view(state, seat))
        hidden = Counter(state["hands"][1 - seat] + state["stock"])
        bottom = Counter(know.bottom)
        assert hidden - bottom == know.unseen
        assert bottom <= Counter(state["stock"][len(state["stock"]) - len(know.bottom) :])
        assert know.unseen_total == know.opp_cards + know.stock - len(know.bottom)
        opp_hand, stock = sample_hidden(know, random.Random(3))
        assert len(opp_hand) == len(state["hands"][1 - seat]) and len(stock) == len(state["stock"])
        assert Counter(opp_hand + stock) == hidden
        assert (
            stock[len(stock) - len(know.bottom) :] == state["stock"][len(state["stock"]) - len(know.bottom) :]
        )
    assert sum(bool(read_view(GAME.view(s, seat)).bottom) for s, seat in STATES) > len(STATES) // 2


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_every_level_plays_whole_matches_legally(level):
    for seed in range(2):
        state = play_random(
            GAME,
            {"target_wins": 1},
            2,
            40 + seed,
            pick=lambda game, state, seat, legal, rng: bots.decide(
                game, game.view(state, seat), level if seat == 0 else "medium", rng
            ),
            max_steps=3000,
        )
        assert state["status"] == "finished"


# --- the view's public history ----------------------------------------------------------------------


def test_the_view_shows_who_discarded_each_pile_card_and_what_was_taken():
    # Turns 1-6 discard QC (seat 0), then the early draws in turn: 6C (1), 7D (0), 8C (1), 9D (0), 8H (1).
    state = new(early=("6C", "7D", "8C", "9D", "8H"))
    to_turn_7(state)
    view = GAME.view(state, None)
    assert [p["discards"] for p in view["players"]] == [["QC", "7D", "9D"], ["6C", "8C", "8H"]]
    assert [p["taken"] for p in view["players"]] == [[], []]
    assert GAME.view(state, 1)["players"] == view["players"] == GAME.view(state, 0)["players"]
    # Seat 0 opens with seat 1's 8H: it leaves the pile and shows as taken.
    act(state, 0, {"type": "take_discard", "melds": [["8H", "9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    view = GAME.view(state, 1)
    assert [p["taken"] for p in view["players"]] == [["8H"], []]
    assert [p["discards"] for p in view["players"]] == [["QC", "7D", "9D"], ["6C", "8C"]]
    assert sum(len(p["discards"]) for p in view["players"]) == view["discard"]["count"]
    act(state, 0, {"type": "discard", "card": "2D"})
    assert GAME.view(state, None)["players"][0]["discards"] == ["QC", "7D", "9D", "2D"]


def test_a_refill_keeps_only_the_top_discard_and_its_owner():
    state = new()
    to_turn_7(state)
    last = state["discard_seats"][-1]
    state["stock"] = []
    draw(state, state["turn_seat"])
    view = GAME.view(state, None)
    assert [len(p["discards"]) for p in view["players"]] == [int(last == 0), int(last == 1)]
    know = read_view(GAME.view(state, state["turn_seat"]))
    assert know.bottom == []


def test_a_state_saved_before_the_history_still_has_a_view_and_plays_on():
    state = new()
    to_turn_7(state)
    del state["discard_seats"], state["taken"]
    view = GAME.view(state, 0)
    assert all(p["discards"] == [] and p["taken"] == [] for p in view["players"])
    seat = state["turn_seat"]
    while state["turn_seat"] == seat and state["status"] == "active":
        act(state, seat, bots.decide(GAME, GAME.view(state, seat), "hard", random.Random(1)))
    # The owners of the old pile cards stay unknown, the new discard is known.
    assert state["discard_seats"] == [None] * (len(state["discard"]) - 1) + [seat]
    assert GAME.view(state, None)["players"][seat]["discards"] == state["discard"][-1:]


# --- key decisions ----------------------------------------------------------------------------------


def test_lower_levels_overlook_more_and_overlooked_moves_are_random_but_legal():
    rates = [mistake_rate(name) for name in ("easy", "medium", "hard")]
    assert rates == sorted(rates, reverse=True) and rates[-1] > 0
    # In play, an overlooked decision discards a random normal card at once.
    state = new(draws=("6S",))
    to_turn_7(state)
    draw(state, 0)
    view = GAME.view(state, 0)
    seen = Counter()
    for k in range(200):
        action = bots.decide(GAME, view, "easy", random.Random(k))
        seen[action["type"]] += 1
        if action["type"] == "discard":
            assert action["card"] != JOKER and action["card"] in view["hand"]
    share = seen["discard"] / 200
    assert abs(share - mistake_rate("easy")) < 0.12 and seen["meld"] == 200 - seen["discard"]


# Opens on turn 7 with 9H TH JH + KS KD KC, keeping 2D-5D and 7S 8S: a 9S then closes.
CLOSER = ["9H", "TH", "JH", "KS", "KD", "KC", "2D", "3D", "4D", "5D", "7S", "8S", "QC"]


def test_every_level_takes_the_closing_card_that_closes_the_round():
    for level in ("easy", "medium", "hard", "pro"):
        state = new(CLOSER, cut=("9S", "3C", "4C"), draws=("2C", "5C"), target_wins=1)
        to_turn_7(state)
        draw(state, 0)
        act(state, 0, {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
        act(state, 0, {"type": "discard", "card": "2C"})
        draw(state, 1)
        act(state, 1, {"type": "discard", "card": "5C"})
        action = bots.decide(GAME, GAME.view(state, 0), level, random.Random(0))
        assert action["type"] == "take_closing", level
        act(state, 0, action)
        assert state["status"] == "finished" and state["winners"] == [0]


def test_the_bot_takes_the_discard_that_lets_it_go_out():
    state = new(CLOSER, draws=("2C", "9S"), target_wins=1)
    to_turn_7(state)
    draw(state, 0)
    act(state, 0, {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    act(state, 0, {"type": "discard", "card": "2C"})
    draw(state, 1)
    act(state, 1, {"type": "discard", "card": "9S"})
    for level in ("hard", "pro"):
        trial = copy.deepcopy(state)
        action = bots.decide(GAME, GAME.view(trial, 0), level, random.Random(0))
        assert action["type"] == "take_discard" and any("9S" in meld for meld in action["melds"])
        act(trial, 0, action)
        act(trial, 0, bots.decide(GAME, GAME.view(trial, 0), level, random.Random(0)))
        assert trial["status"] == "finished" and trial["winners"] == [0]


def test_hard_opens_with_the_melds_it_needs_and_keeps_the_rest_in_hand():
    # 9H TH JH (29, pure) + KS KD KC (30) open; 2D 3D 4D 5D stays in hand, the novice puts it down.
    state = new(draws=("6S",))
    to_turn_7(state)
    draw(state, 0)
    view = GAME.view(state, 0)
    opening = decide(read_view(view), HARD)
    assert opening["type"] == "meld"
    assert sorted(map(sorted, opening["melds"])) == [["9H", "JH", "TH"], ["KC", "KD", "KS"]]
    assert LEVELS["hard"]["style"].hold_melds


def test_hard_never_breaks_a_meld_of_normal_cards_when_a_loose_card_can_go():
    checked = 0
    for state, seat in STATES:
        if state["phase"] == "draw":
            continue
        know = read_view(GAME.view(state, seat))
        slots = slots_of(know.melds)
        card = choose_discard(know, slots, HARD)
        assert card != JOKER or all(c == JOKER for c in know.hand)
        found = analyse(know.hand, slots)
        if not found.loose or JOKER in know.hand:
            # (With a joker, breaking a meld it completes can be worth it: the joker is free again.)
            continue
        assert (
            analyse(
                [c for c in know.hand if c != card] + [card] * (know.hand.count(card) - 1), slots
            ).deadwood
            <= found.deadwood
        )
        checked += 1
    assert checked > 30


def test_a_pair_is_kept_with_a_spare_card_to_discard_when_going_out():
    # Opened with two kings and two loose cards: keeping KH KD and one more card goes out with any
    # of the unseen kings; keeping two loose cards needs two lay-offs.
    state = _opened_endgame(["KH", "KD", "9C", "2D"])
    know = read_view(GAME.view(state, 0))
    card = choose_discard(know, slots_of(know.melds), HARD)
    assert card in ("9C", "2D")


def _opened_endgame(hand: list[str]) -> dict:
    """Seat 0 opened (9H TH JH, KS KD KC… replaced) holding `hand` after its draw, seat 1 not."""
    state = new(draws=("6S",))
    to_turn_7(state)
    draw(state, 0)
    act(
        state,
        0,
        {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"], ["2D", "3D", "4D", "5D"]]},
    )
    # The rest of seat 0's hand is replaced by `hand`, the swapped cards going to the stock.
    rest = state["hands"][0]
    state["stock"].extend(rest)
    for card in hand:
        state["stock"].remove(card)
    state["hands"][0] = list(hand)
    return state


def test_find_close_uses_a_joker_swap():
    # The table's 7H 8H JK(9H) TH gives its joker for 9H; the joker then fills 2S JK 4S.
    melds = [
        {
            "id": "m1",
            "owner": 1,
            "kind": "run",
            "cards": ["7H", "8H", JOKER, "TH"],
            "stands_for": ["7H", "8H", "9H", "TH"],
        }
    ]
    plan = find_close(["9H", "2S", "4S", "KC"], slots_of(melds), opened=True)
    assert plan is not None and plan.swaps == [("m1", "9H")]
    assert sorted(plan.melds[0]) == sorted(["2S", JOKER, "4S"]) and plan.discard == "KC"
    assert find_close(["9H", "2S", "4S", "KC"], slots_of(melds), opened=True, swaps=False) is None


def test_pro_decisions_are_legal_and_follow_the_heuristic_when_it_sees_one_choice():
    for state, seat in STATES[:40]:
        view = GAME.view(state, seat)
        action = choose_action(view, "pro", random.Random(2))
        GAME.apply(copy.deepcopy(state), seat, action)
        if view["turn"]["phase"] != "draw" and len(view["legal_actions"]) > 1:
            know = read_view(view)
            heuristic = decide(know, HARD)
            if bot_search._opens_without_closing(know, heuristic):
                # The pro does not open before it can go out: it discards instead.
                assert action["type"] == "discard"
            elif heuristic["type"] != "discard":
                assert action == heuristic


def test_pro_waits_to_open_until_it_can_go_out():
    # The cutter's hand opens with 9H TH JH + KS KD KC but cannot go out: hard opens, pro waits.
    state = new(draws=("6S",))
    to_turn_7(state)
    draw(state, 0)
    view = GAME.view(state, 0)
    assert decide(read_view(view), HARD)["type"] == "meld"
    action = choose_action(view, "pro", random.Random(1))
    assert action["type"] == "discard"
    GAME.apply(state, 0, action)
    assert not state["opened"][0] and not state["melds"]


def test_pro_spares_the_discard_an_opened_opponent_would_lay_off():
    # Seat 1 opened with 4S 5S 6S (put on the table here by hand): 7S would fit its run.
    state = new(draws=("6S",))
    to_turn_7(state)
    know = read_view(GAME.view(state, 0))
    know.opp_opened = True
    know.melds = [
        {"id": "m1", "owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"], "stands_for": ["4S", "5S", "6S"]}
    ]
    slots = slots_of(know.melds)
    opponents = bot_search._sample_opponents(know, slots, random.Random(4))
    assert len(opponents) == bot_search.PRO["samples"]
    assert all(len(hand) == know.opp_cards for hand, _ in opponents)
    assert bot_search._opponent_use(know, "7S", opponents, slots) >= 1.0
    assert bot_search._opponent_use(know, "7S", opponents, slots) > bot_search._opponent_use(
        know, "QC", opponents, slots
    )


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_noticed_decision_is_the_levels_policy(level):
    # easy plays the novice policy, medium and hard the full heuristic, when they notice.
    state = new(draws=("6S",))
    to_turn_7(state)
    draw(state, 0)
    view = GAME.view(state, 0)
    noticed = [k for k in range(50) if random.Random(k).random() < LEVELS[level]["attention"]]
    expected = choose(view, random.Random(0)) if LEVELS[level]["novice"] else decide(read_view(view), HARD)
    assert noticed and all(bots.decide(GAME, view, level, random.Random(k)) == expected for k in noticed)
    assert LEVELS["easy"]["novice"] and not LEVELS["hard"]["novice"]


def test_bots_never_plan_a_lay_off_in_a_table_jokers_place():
    """docs/rules/zoliky.md: a joker on the table keeps its card; the bots' lay-off model agrees."""
    m1 = {
        "id": "m1",
        "owner": 0,
        "kind": "run",
        "cards": ["5D", JOKER, "7D"],
        "stands_for": ["5D", "6D", "7D"],
    }
    (slot,) = slots_of([m1])
    fits = {c for c in (r + "D" for r in "A23456789TJQK") if lay_off_reading(m1, [c]) is not None}
    assert set(slot.takes()) == fits == {"4D", "8D"}
    found = analyse(["6D", "8D", "TD", "2S", "9C"], [slot])
    assert found.lay_offs == [("m1", "8D")] and "6D" in found.loose
    # With 6D 8D TD the only way out would lay 6D in the joker's place: no close is planned.
    assert find_close(["6D", "8D", "TD"], [slot], opened=True) is None


# --- the pro's picture of the opponent (bots/infer.py) ----------------------------------------------


def test_the_imagined_opponent_hand_holds_only_cards_the_seat_cannot_see():
    for k, (state, seat) in enumerate(STATES):
        know = read_view(GAME.view(state, seat))
        hand = infer.sample_opponent(know, slots_of(know.melds), random.Random(k))
        assert len(hand) == len(state["hands"][1 - seat]) == know.opp_cards
        # Never a card in the seat's hand, on the table, in the pile, or known at the stock's bottom.
        assert Counter(hand) <= know.unseen


def test_the_imagined_hand_keeps_what_a_player_would_have_kept():
    cards = ["5H", "6H", "7H", "KS", "KD", "KC", JOKER, "2C", "9D", "4S", "4D", "QS", "8C", "TD"]
    kept = infer.keep_best(cards, 10, random.Random(1))
    assert Counter(kept) <= Counter(cards) and len(kept) == 10
    assert {"5H", "6H", "7H", "KS", "KD", "KC", JOKER} <= set(kept)
    # Of the loose cards, the pair 4S 4D is kept before the cards with no partner.
    assert {"4S", "4D"} <= set(kept)


def test_an_imagined_hand_that_contradicts_the_opponents_play_is_dealt_again():
    state = new()
    to_turn_7(state)
    know = replace(read_view(GAME.view(state, 0)), turn_number=9, my_discards=["8H"])
    # Unopened after a turn on which it could have opened: it holds no opening.
    assert infer.opponent_could_open(know)
    opening = ["9H", "TH", "JH", "KS", "KD", "KC", "2D", "3D", "4D", "7C", "7S", "QC"]
    assert infer.contradicts(know, opening, [])
    assert not infer.contradicts(know, list(OTHER), [])
    # It let 8H lie: it could not go out with it.
    opened = replace(know, opp_opened=True, opp_cards=3)
    assert infer.passed_card(opened) == "8H"
    assert infer.contradicts(opened, ["6H", "7H", "KC"], [])
    assert not infer.contradicts(opened, ["6S", "7H", "KC"], [])
    # Before turn 8 the opponent never had the chance.
    early = replace(know, turn_number=7)
    assert infer.passed_card(early) is None and not infer.opponent_could_open(early)


def test_the_pro_counts_who_could_go_out_with_each_discard():
    state = new(draws=("6S",))
    to_turn_7(state)
    know = replace(read_view(GAME.view(state, 0)), opp_opened=True, opp_cards=1)
    know.melds = [
        {"id": "m1", "owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"], "stands_for": ["4S", "5S", "6S"]}
    ]
    slots = slots_of(know.melds)
    opponents = bot_search._sample_opponents(know, slots, random.Random(4))
    # One card in hand: any card that lays off on 4S-5S-6S lets the opponent go out.
    risk = bot_search.going_out_risk(know, ["7S", "QC"], opponents, slots)
    assert risk == {"7S": 1.0, "QC": 0.0}


def test_the_pro_counts_the_closing_card_as_a_sure_out():
    state = new()
    to_turn_7(state)
    know = replace(read_view(GAME.view(state, 0)), opened=True, closing="8H")
    hand = ["6H", "7H", "KC", "KD", "KS", "KH"]
    found = analyse(hand, [])
    assert close_chance(know, hand, found, [], closing=True) == 1.0
    assert close_chance(know, hand, found, [], closing=False) < 0.2
    assert close_chance(replace(know, closing="9C"), hand, found, [], closing=True) < 0.2


def test_pro_opens_when_it_goes_out_in_the_same_turn():
    # With 7H drawn every card but one melds (5D comes off the diamond run): the pro goes out.
    state = new(draws=("7H",))
    to_turn_7(state)
    draw(state, 0)
    for _ in range(3):
        action = choose_action(GAME.view(state, 0), "pro", random.Random(1))
        GAME.apply(state, 0, action)
        if action["type"] == "discard":
            break
    assert state["round_result"]["winner"] == 0

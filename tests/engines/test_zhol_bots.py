"""Zhol bots: hand arithmetic against the meld solver, the public discard history in the view,
legality at every level, no cheating, and what each level decides."""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import bots
from engines.cards import CARD_INDEX, CARD_OF, JOKER, deck
from engines.meld_solver import goes_out
from engines.zhol import GAME, RULES
from engines.zhol import bots as zbot
from engines.zhol.bots import hand as bot_hand
from engines.zhol.bots import pro as bot_pro
from engines.zhol.bots.knowledge import Knowledge
from tests.engines import harness
from tests.engines.harness import play_random
from tests.engines.test_zhol import JUNK0, JUNK1, act, new

LEVELS = ("random", "easy", "medium", "hard", "solver", "pro", "sound")
SMALL_DECK = deck(1, 2)
LARGE_DECK = deck(2, 4)


def codes(cards: list[str]) -> tuple[int, ...]:
    return bot_hand.encode(cards)


def one_away(cards: list[str], full: list[str]) -> bool:
    """Whether some card of the deck, drawn, and some card thrown make a winning hand."""
    for extra in sorted(set(full)):
        more = [*cards, extra]
        for out in set(more):
            rest = list(more)
            rest.remove(out)
            if goes_out(rest, RULES):
                return True
    return False


def near_winning(rng: random.Random, variant: str) -> list[str]:
    """A winning hand built from random groups, with up to two cards then replaced at random."""
    full = SMALL_DECK if variant == "small" else LARGE_DECK
    size = 7 if variant == "small" else 14
    while True:
        pool = Counter(full)
        hand: list[str] = []
        shapes = [[3, 4]] if variant == "small" else [[3, 11], [4, 5, 5], [7, 7], [3, 3, 4, 4], [3, 3, 3, 5]]
        for length in rng.choice(shapes):
            if length <= 4 and rng.random() < 0.5:
                group = [rng.choice("A23456789TJQK") + s for s in rng.sample("SHDC", length)]
            else:
                lo = rng.randint(1, 15 - length)
                group = ["A23456789TJQKA"[lo - 1 + k] + rng.choice("SHDC")[0] for k in range(length)]
                suit = rng.choice("SHDC")
                group = [c[0] + suit for c in group]
            if rng.random() < 0.3:
                group[rng.randrange(length)] = JOKER
            hand += group
        if all(pool[c] >= n for c, n in Counter(hand).items()) and goes_out(hand, RULES):
            break
    for _ in range(rng.choice([0, 1, 1, 2])):
        rest = list((Counter(full) - Counter(hand)).elements())
        hand[rng.randrange(size)] = rng.choice(rest)
    return hand


# --------------------------------------------------------------------------------------------------
# Hand arithmetic
# --------------------------------------------------------------------------------------------------


def test_deficiency_agrees_with_the_meld_solver_on_near_winning_hands():
    """0 exactly for the winning hands; 1 exactly for the small hands one card away."""
    rng = random.Random(7)
    seen = Counter()
    for trial in range(500):
        variant = "small" if trial % 2 else "large"
        size = 7 if variant == "small" else 14
        hand = near_winning(rng, variant)
        need = bot_hand.deficiency(codes(hand), size)
        assert (need == 0) == goes_out(hand, RULES), hand
        if variant == "small" and need > 0 and trial % 4 == 1:
            assert (need == 1) == one_away(hand, SMALL_DECK), hand
        seen[need] += 1
    assert seen[0] > 50 and seen[1] > 50 and seen[2] > 20


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SMALL_DECK), min_size=8, max_size=8, unique=True), st.booleans())
def test_a_hand_of_eight_needs_nothing_exactly_when_one_discard_wins(cards, second_joker):
    if second_joker and JOKER not in cards:
        cards = [*cards[:6], JOKER, JOKER]
    elif second_joker:
        cards = [*[c for c in cards if c != JOKER][:6], JOKER, JOKER]
    winning = any(goes_out([c for j, c in enumerate(cards) if j != i], RULES) for i in range(8))
    assert (bot_hand.deficiency(codes(cards), 7) == 0) == winning


@pytest.mark.parametrize("exact", [False, True])
def test_improving_cards_are_exactly_those_that_lower_the_deficiency(exact):
    rng = random.Random(3)
    for trial in range(120):
        variant = "small" if trial % 2 else "large"
        size = 7 if variant == "small" else 14
        hand = codes(near_winning(rng, variant) if trial % 3 else rng.sample(SMALL_DECK, 7))
        if len(hand) != size:
            continue
        now = bot_hand.deficiency(hand, size, exact)
        every = list(range(53))
        slow = [
            c for c in every if now and bot_hand.deficiency(bot_hand.with_card(hand, c), size, exact) < now
        ]
        assert bot_hand.improving(hand, size, every, now, exact) == slow


def test_the_exact_large_arithmetic_is_never_more_pessimistic_and_sees_gaps_of_two():
    rng = random.Random(11)
    for trial in range(200):
        hand = codes(near_winning(rng, "large") if trial % 2 else rng.sample(LARGE_DECK, 14))
        exact = bot_hand.deficiency(hand, 14, exact=True)
        assert exact <= bot_hand.deficiency(hand, 14)
        assert (exact == 0) == goes_out([CARD_OF[c] for c in hand], RULES)
    # a random hand whose best keep has a partial group missing two cards: the shortcut (at most
    # one missing in the large game) keeps one card fewer
    hand = codes(["2C", "2D", "2S", "3H", "4S", "5C", "5H", "8S", "9H", "KC", "QS", "TC", "TD", "TS"])
    assert (bot_hand.deficiency(hand, 14), bot_hand.deficiency(hand, 14, exact=True)) == (5, 4)
    # the small game is exact either way
    small = codes(["5S", "5H", "8D", "9D", "2C", "JH", "KS"])
    assert bot_hand.deficiency(small, 7, exact=True) == bot_hand.deficiency(small, 7) == 3


def test_deficiency_counts_the_cards_still_missing():
    # 5S 6S 7S and 9H 9D 9C: complete; two more groups of three for large would need six cards
    assert bot_hand.deficiency(codes(["5S", "6S", "7S", "9H", "9D", "9C", "KD"]), 7) == 1
    assert bot_hand.deficiency(codes(["5S", "6S", "7S", "8S", "9H", "9D", "9C"]), 7) == 0
    # a pair and a connector: two cards to draw, and a third because the groups need 3 + 4
    assert bot_hand.deficiency(codes(["5S", "5H", "8D", "9D", "2C", "JH", "KS"]), 7) == 3
    # jokers fill the gaps of a run: Q-K-A with two jokers for the queen and king
    assert bot_hand.deficiency(codes(["AS", JOKER, JOKER, "4H", "4D", "4C", "4S"]), 7) == 0


# --------------------------------------------------------------------------------------------------
# The public discard history in the view
# --------------------------------------------------------------------------------------------------


def test_the_view_shows_the_whole_pile_and_who_took_what():
    state = new([JUNK0, JUNK1], stock_top=["KD", "QH"])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    act(state, 1, "draw", "discard")
    act(state, 1, "discard", "AS")
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "6S")
    for viewer in (None, 0, 1):
        table = GAME.view(state, viewer)["table"]
        assert table["pile"] == ["AS", "6S"]
        assert table["discards"] == [
            {"seat": 0, "card": "2S", "taken_by": 1},
            {"seat": 1, "card": "AS", "taken_by": None},
            {"seat": 0, "card": "6S", "taken_by": None},
        ]
    # a new hand starts a new history
    state["status"] = "round_over"
    GAME.start_next_round(state)
    assert GAME.view(state, 0)["table"]["discards"] == [] and GAME.view(state, 0)["table"]["pile"] == []


def test_the_history_survives_a_reshuffle_and_an_old_state_without_it():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    legacy = copy.deepcopy(state)
    del legacy["history"]
    assert GAME.view(legacy, 1)["table"]["discards"] == []
    act(legacy, 1, "draw", "discard")
    act(legacy, 1, "discard", "AS")
    assert GAME.view(legacy, 0)["table"]["discards"] == [{"seat": 1, "card": "AS", "taken_by": None}]
    # empty the stock into the pile and draw again: the pile is rebuilt, the history stays
    state["discard"] = state["discard"] + state["stock"]
    state["stock"] = []
    act(state, 1, "draw", "stock")
    view = GAME.view(state, 1)
    assert view["table"]["pile"] == [state["discard"][-1]]
    assert view["table"]["discards"][0] == {"seat": 0, "card": "2S", "taken_by": None}


def test_knowledge_counts_exactly_the_cards_a_seat_cannot_see():
    rng = random.Random(5)
    for seed, (variant, seats) in enumerate(itertools.product(("small", "large"), (2, 4))):
        opts = GAME.validate_options({"variant": variant, "target_wins": 1}, seats)
        state, _ = GAME.new_match(opts, seats, seed)
        for _ in range(60):
            if state["status"] != "active":
                break
            seat = GAME.to_move(state)
            know = Knowledge(GAME.view(state, seat))
            hidden = Counter(state["stock"])
            for s in range(seats):
                if s != seat:
                    mine = Counter(CARD_INDEX[c] for c in state["hands"][s])
                    assert not know.held[s] - mine
                    hidden.update(state["hands"][s])
            truth = Counter({CARD_INDEX[c]: n for c, n in hidden.items()})
            for s in range(seats):
                if s != seat:
                    truth.subtract(know.held[s])
            assert know.unseen == +truth
            GAME.apply(state, seat, bots.decide(GAME, GAME.view(state, seat), rng.choice(LEVELS[:3]), rng))


# --------------------------------------------------------------------------------------------------
# Legality and no cheating
# --------------------------------------------------------------------------------------------------


def playout_states(variant: str, seats: int, seed: int, count: int) -> list[dict]:
    """Copies of states met while bots of mixed levels play, `count` of them spread over the hand."""
    rng = random.Random(seed)
    kept: list[dict] = []

    def pick(game, state, seat, legal, _rng):
        if len(kept) < count and rng.random() < 0.3:
            kept.append(copy.deepcopy(state))
        return bots.decide(GAME, GAME.view(state, seat), rng.choice(("random", "easy", "hard")), rng)

    while len(kept) < count:
        play_random(GAME, {"variant": variant, "target_wins": 2}, seats, seed, pick=pick, max_steps=400)
        seed += 1000
    return kept


def rearranged(state: dict, seat: int, rng: random.Random) -> dict:
    """The same state with the cards `seat` cannot see (other hands, the stock) dealt anew: sizes
    stay, and the cards another player was seen taking from the pile (and still holds) stay there."""
    know = Knowledge(GAME.view(state, seat))
    known = {s: [CARD_OF[c] for c in know.held[s].elements()] for s in range(len(state["hands"]))}
    return harness.rearranged(state, seat, known, rng, order=lambda c: (c == JOKER, "SHDC".find(c[1]), c))


@pytest.mark.parametrize(
    ("variant", "seats", "count"), [("small", 2, 30), ("small", 4, 12), ("large", 2, 10), ("large", 4, 6)]
)
def test_no_bot_decision_depends_on_cards_its_seat_cannot_see(variant, seats, count):
    """Rearranging the other hands and the stock changes neither the seat's view nor any level's
    decision (the bot's generator seeded alike); and every decision is legal."""
    shuffler = random.Random(11)
    changed = 0
    for k, state in enumerate(playout_states(variant, seats, 100 + seats, count)):
        seat = GAME.to_move(state)
        view = GAME.view(state, seat)
        other = rearranged(state, seat, shuffler)
        changed += other["stock"] != state["stock"]
        assert GAME.view(other, seat) == view
        for level in LEVELS:
            if level == "pro" and k % 2:
                continue  # the slow level on every other state
            action = bots.decide(GAME, view, level, random.Random(k))
            assert action in GAME.legal_actions(state, seat)
            assert bots.decide(GAME, GAME.view(other, seat), level, random.Random(k)) == action
        if k % 2 and len(view["legal_actions"]) > 1:
            # the other states: the pro with its measuring switches on (exact arithmetic and so on)
            action = switched_pro(view, k)
            assert action in GAME.legal_actions(state, seat)
            assert switched_pro(GAME.view(other, seat), k) == action
    assert changed >= count // 2


def switched_pro(view: dict, seed: int) -> dict:
    know = Knowledge(view)
    features = {**bot_pro.FEATURES, "take_equal": True, "closer_race": True}
    budget = {**bot_pro.PRO[know.variant], "exact": True, "caution": 3}
    return bot_pro.choose(know, random.Random(seed), features, budget)


def test_every_level_finishes_matches_with_legal_moves_only():
    rng = random.Random(2)
    for seats, variant in ((2, "small"), (4, "small"), (2, "large")):
        opts = GAME.validate_options({"variant": variant, "target_wins": 1}, seats)
        state, _ = GAME.new_match(opts, seats, seats * 7)
        levels = [LEVELS[(s + seats) % 4] for s in range(seats)]  # no pro: it is slow
        for _ in range(3000):
            if state["status"] != "active":
                break
            seat = GAME.to_move(state)
            action = bots.decide(GAME, GAME.view(state, seat), levels[seat], rng)
            assert action in GAME.legal_actions(state, seat)
            GAME.apply(state, seat, action)
        assert state["status"] != "active"


# --------------------------------------------------------------------------------------------------
# What the levels decide
# --------------------------------------------------------------------------------------------------


def decide(state: dict, level: str, seed: int = 0) -> dict:
    seat = GAME.to_move(state)
    return bots.decide(GAME, GAME.view(state, seat), level, random.Random(seed))


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "pro", "sound"])
def test_every_level_takes_and_throws_for_a_zhol(level, monkeypatch):
    """5H on the pile completes 5S 5D 5H beside 7H 8H 9H TH: taken, then KD thrown wins."""
    if level in zbot.LEVELS:
        monkeypatch.setitem(zbot.LEVELS[level], "mistakes", 0.0)
    hands = [["7H", "8H", "9H", "TH", "5S", "5D", "KD"], ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]]
    state = new(hands, stock_top=["2C", "3D"])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2C")
    act(state, 1, "draw", "stock")
    act(state, 1, "discard", "5H")
    assert decide(state, level) == {"type": "draw", "pile": "discard"}
    act(state, 0, "draw", "discard")
    assert decide(state, level) == {"type": "discard", "card": "KD"}


@pytest.mark.parametrize("level", ["medium", "hard", "pro", "sound"])
def test_equal_discards_keep_the_most_live_outs(level, monkeypatch):
    """5S 5H 5C | 9D TD | JC QC and 2H drawn: throwing 2H, 9D, TD, JC or QC leaves two cards to
    draw, but only without 2H do both connectors stay (8D, JD, 7D, QD, TC, KC, 9C, AC help)."""
    if level in zbot.LEVELS:
        monkeypatch.setitem(zbot.LEVELS[level], "mistakes", 0.0)
    hands = [["5S", "5H", "5C", "9D", "TD", "JC", "QC"], ["AH", "AD", "8S", "3C", "4D", "KH", "6S"]]
    state = new(hands, stock_top=["2H"])
    act(state, 0, "draw", "stock")
    for seed in range(4):
        assert decide(state, level, seed) == {"type": "discard", "card": "2H"}


def test_easy_picks_among_equal_discards_at_random(monkeypatch):
    monkeypatch.setitem(zbot.LEVELS["easy"], "mistakes", 0.0)
    hands = [["5S", "5H", "5C", "9D", "TD", "JC", "QC"], ["AH", "AD", "8S", "3C", "4D", "KH", "6S"]]
    state = new(hands, stock_top=["2H"])
    act(state, 0, "draw", "stock")
    chosen = {decide(state, "easy", seed)["card"] for seed in range(30)}
    assert chosen == {"2H", "9D", "TD", "JC", "QC"}


@pytest.mark.parametrize("level", ["hard", "pro", "sound"])
def test_hard_and_pro_keep_back_a_card_the_next_player_collects(level, monkeypatch):
    """Seat 1 took 8C from the pile. Seat 0 holds 5S 6S 7S | JH JD JC and two loose cards, AD and
    8D, equal for its own hand: hard, pro and sound throw AD, not the 8 the next player collects."""
    monkeypatch.setitem(zbot.LEVELS["hard"], "mistakes", 0.0)
    hands = [["5S", "6S", "7S", "JH", "JD", "JC", "8C"], ["8S", "8H", "2D", "4D", "6C", "KH", "QS"]]
    state = new(hands, stock_top=["AD", "8D"])
    act(state, 0, "draw", "stock")  # AD
    act(state, 0, "discard", "8C")
    act(state, 1, "draw", "discard")
    act(state, 1, "discard", "2D")
    act(state, 0, "draw", "stock")  # 8D
    assert {"AD", "8D"} <= set(GAME.view(state, 0)["hand"])
    for seed in range(4):
        assert decide(state, level, seed) == {"type": "discard", "card": "AD"}


def test_lower_levels_overlook_more_often():
    """Over the same positions, each level departs from the mistake-free heuristic more often
    than the level above it."""
    states = playout_states("small", 2, 77, 150)
    spec = dict(zbot.LEVELS["hard"], mistakes=0.0)
    departures = {}
    for level in ("easy", "medium", "hard"):
        count = 0
        for k, state in enumerate(states):
            seat = GAME.to_move(state)
            view = GAME.view(state, seat)
            if len(view["legal_actions"]) < 2:
                continue
            best = zbot.heuristic_action(Knowledge(view), spec, random.Random(k))
            count += bots.decide(GAME, view, level, random.Random(k)) != best
        departures[level] = count
    assert departures["easy"] > departures["medium"] > departures["hard"]


def test_random_level_plays_every_legal_action():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    view = GAME.view(state, 0)
    rng = random.Random(0)
    chosen = Counter(bots.decide(GAME, view, "random", rng)["card"] for _ in range(400))
    assert set(chosen) == {a["card"] for a in view["legal_actions"]}


def test_pro_is_deterministic_for_a_view_and_seed_and_samples_plausible_hands():
    state = playout_states("small", 2, 31, 1)[0]
    while GAME.view(state, GAME.to_move(state))["turn"]["phase"] != "discard":
        seat = GAME.to_move(state)
        GAME.apply(state, seat, {"type": "draw", "pile": "stock"})
    seat = GAME.to_move(state)
    view = GAME.view(state, seat)
    assert bots.decide(GAME, view, "pro", random.Random(4)) == bots.decide(
        GAME, view, "pro", random.Random(4)
    )
    know = Knowledge(view)
    opponents = bot_pro.Opponents(know, random.Random(1), bot_pro.PRO["small"], True)
    assert opponents.hands
    unseen = Counter(know.unseen)
    for hand in opponents.hands:
        assert len(hand) == 7 and not Counter(hand) - unseen - know.held[know.next_seat]
    win, closer, saved = opponents.danger(know.hand[0])
    assert 0.0 <= win <= 1.0 and 0.0 <= closer <= 1.0 and saved >= 0.0


def test_the_draw_with_no_card_to_give_back_at_the_same_distance_takes_the_stock():
    """The open card keeps the hand's distance (`need`) only alongside every card of the hand, so
    no card could go back in its place at that distance: the pro (and the sound player, which asks
    the same search) draws from the stock. It raised on an empty `min()` in a yardstick run
    (seed 42000-42199, Zhol small, sound against hard)."""
    opts = GAME.validate_options({"variant": "small", "target_wins": 1}, 2)
    state, _ = GAME.new_match(opts, 2, 7)
    for _ in range(20):
        seat = GAME.to_move(state)
        know = Knowledge(GAME.view(state, seat))
        if know.phase != "draw" or not {a.get("pile") for a in know.legal} >= {"stock", "discard"}:
            # Play on (the stock, then the first card) until a seat may take the open card.
            move = {"type": "draw", "pile": "stock"} if know.phase == "draw" else know.legal[0]
            GAME.apply(state, seat, move)
            continue
        search = bot_pro.Search(know, random.Random(7), {**bot_pro.FEATURES, "take_equal": True})
        hand, taken = know.hand, bot_hand.with_card(know.hand, know.top)
        # The hand and the hand with the open card at one distance; any card given back, further.
        search.need = lambda cards, _hand=hand, _taken=taken: 3 if cards in (_hand, _taken) else 4  # type: ignore[method-assign]
        assert search.draw() == "stock"
        return
    raise AssertionError("no turn of the 20 had a choice of piles")

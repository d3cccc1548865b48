"""Spades bots: legality at every level, no cheating, what each level sees and decides."""

from __future__ import annotations

import random

import pytest

from engines import bots
from engines.cards import ACE_HIGH_CARD_OF, ACE_HIGH_INDEX
from engines.spades import GAME
from engines.spades import bots as spades_bot
from engines.spades.bots import LEVELS, choose_bid, heuristic_action
from engines.spades.bots.policy import masks_of
from engines.spades.bots.search import Sampler, candidate_cards, hand_outcome
from engines.spades.bots.seen import Seen, estimate_tricks
from engines.spades.rules import DECK

ALL_LEVELS = ("random", "easy", "medium", "hard", "solver", "pro", "sound")
RANKS = "23456789TJQKA"


def suit_cards(suit: str, ranks: str = RANKS) -> list[str]:
    return [r + suit for r in ranks]


def new(hands: list[list[str]] | None = None, dealer: int = 3, target: int = 500, seed: int = 7) -> dict:
    options = GAME.validate_options({"target_score": target, "first_dealer": dealer}, 4)
    deck = None
    if hands is not None:
        assert sorted(c for h in hands for c in h) == sorted(DECK)
        deck = [hands[(dealer + 1 + k) % 4][k // 4] for k in range(52)]
    state, _ = GAME.new_match(options, 4, seed, deck)
    return state


def bid_all(state: dict, bids: list[int]) -> None:
    for _ in range(4):
        seat = GAME.to_move(state)
        GAME.apply(state, seat, {"type": "bid", "tricks": bids[seat]})


def play(state: dict, seat: int, card: str) -> None:
    GAME.apply(state, seat, {"type": "play", "card": card})


MIXED = [
    ["2S", "3S", "4S", *suit_cards("H", "23456789TJ")],
    ["QH", "KH", "AH", *suit_cards("D", "23456789TJ")],
    ["QD", "KD", "AD", *suit_cards("C", "23456789TJ")],
    ["QC", "KC", "AC", *suit_cards("S", "56789TJQKA")],
]


@pytest.fixture
def quick_pro(monkeypatch):
    """A small pro budget bounded by samples only, so its decisions depend on the rng alone."""
    monkeypatch.setitem(spades_bot.PRO, "samples", 6)
    monkeypatch.setitem(spades_bot.PRO, "time_limit", None)


def random_states(count: int, seed: int) -> list[dict]:
    """States from random playouts: half in the bidding, half in the play, at random depths."""
    rng = random.Random(seed)
    states = []
    for k in range(count):
        state = new(dealer=rng.randrange(4), seed=seed * 1000 + k)
        depth = rng.randrange(4) if k % 2 == 0 else 4 + rng.randrange(51)
        for _ in range(depth):
            seat = GAME.to_move(state)
            GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        states.append(state)
    return states


def reshuffle_hidden(state: dict, seat: int, rng: random.Random) -> dict:
    """The state with the other three hands' cards dealt again among them, each keeping its size."""
    other = GAME.clone(state)
    seats = [s for s in range(4) if s != seat]
    hidden = [c for s in seats for c in state["hands"][s]]
    for _ in range(20):
        rng.shuffle(hidden)
        at = 0
        for s in seats:
            size = len(state["hands"][s])
            other["hands"][s] = sorted(hidden[at : at + size], key=ACE_HIGH_INDEX.__getitem__)
            at += size
        if other["hands"] != state["hands"]:
            break
    return other


# --- no cheating ---------------------------------------------------------------------------


def test_no_level_decides_differently_when_the_hidden_hands_are_reshuffled(quick_pro):
    shuffler = random.Random(99)
    states = random_states(120, seed=11)
    changed = 0
    for k, state in enumerate(states):
        seat = GAME.to_move(state)
        view = GAME.view(state, seat)
        other = reshuffle_hidden(state, seat, shuffler)
        changed += other["hands"] != state["hands"]
        assert other["hands"][seat] == state["hands"][seat]
        # The seat's view is the same whichever way the cards it cannot see lie…
        assert GAME.view(other, seat) == view
        for level in ALL_LEVELS:
            # …and so is every level's decision, from an identically seeded rng.
            first = bots.decide(GAME, view, level, random.Random(k))
            second = bots.decide(GAME, GAME.view(other, seat), level, random.Random(k))
            assert first == second, (level, k)
            assert first in view["legal_actions"]
    assert changed >= len(states) - 2


def test_a_view_names_no_card_of_another_hand_even_through_played():
    for state in random_states(10, seed=5):
        seat = GAME.to_move(state)
        view = GAME.view(state, seat)
        hidden = {c for s in range(4) if s != seat for c in state["hands"][s]}
        named = {e["card"] for e in view["table"]["played"]} | set(view["hand"])
        assert not named & hidden


# --- every level is legal ------------------------------------------------------------------


def test_every_level_plays_whole_matches_legally(quick_pro):
    rng = random.Random(3)
    pairs = [("random", "easy"), ("easy", "medium"), ("medium", "hard"), ("hard", "pro"), ("pro", "random")]
    for m, (a, b) in enumerate(pairs):
        levels = [a, b, a, b]
        state = new(target=500, seed=50 + m, dealer=m % 4)
        hands = 0
        while hands < 2:
            if state["status"] == "finished":
                break
            seat = GAME.to_move(state)
            view = GAME.view(state, seat)
            action = bots.decide(GAME, view, levels[seat], rng)
            assert action in GAME.legal_actions(state, seat)
            GAME.apply(state, seat, action)
            if state["status"] != "active":
                hands += 1
                if state["status"] == "round_over":
                    GAME.start_next_round(state)
        assert hands == 2


def test_a_forced_move_is_played_at_once_without_touching_the_rng():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    while len(state["tricks"]) < 12:
        seat = GAME.to_move(state)
        GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    view = GAME.view(state, GAME.to_move(state))
    assert len(view["legal_actions"]) == 1
    for level in ALL_LEVELS:
        rng = random.Random(4)
        before = rng.getstate()
        assert bots.decide(GAME, view, level, rng) == view["legal_actions"][0]
        assert rng.getstate() == before


def test_random_level_draws_uniformly_from_the_legal_actions():
    state = new(MIXED)
    view = GAME.view(state, 0)
    rng = random.Random(8)
    bids = [bots.decide(GAME, view, "random", rng)["tricks"] for _ in range(1400)]
    counts = [bids.count(n) for n in range(14)]
    # 100 expected per bid; far outside 60-140 would not be uniform.
    assert min(counts) > 60 and max(counts) < 140


# --- the heuristic levels ------------------------------------------------------------------


def test_heuristic_bids_by_strength():
    strong = ["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C"]
    weak = ["2S", "3S", "2H", "5H", "7H", "9H", "3D", "6D", "8D", "4C", "6C", "8C", "TC"]
    assert estimate_tricks(strong) > estimate_tricks(weak)
    assert choose_bid(strong, None) >= 7
    assert choose_bid(weak, None) == 0
    # Never a contract past 13 with the partner, nor a Nil beside a Nil.
    assert choose_bid(strong, 10) == 3
    assert choose_bid(weak, 0) >= 1


def test_heuristic_plays_the_cheapest_winner_and_ducks_for_partner_or_nil():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    play(state, 0, "2H")
    # Seat 1 beats the 2 with its cheapest heart.
    assert heuristic_action(GAME.view(state, 1)) == {"type": "play", "card": "QH"}
    play(state, 1, "QH")
    # Seat 2 has neither hearts nor spades: it throws its cheapest card.
    assert heuristic_action(GAME.view(state, 2)) == {"type": "play", "card": "2C"}
    play(state, 2, "2C")
    # Seat 3's partner holds the trick: it does not waste a trump on it.
    assert heuristic_action(GAME.view(state, 3)) == {"type": "play", "card": "QC"}
    play(state, 3, "5S")
    play(state, 3, "AC")
    # Seat 0, void in clubs, trumps the opponent's ace with its lowest spade.
    assert heuristic_action(GAME.view(state, 0)) == {"type": "play", "card": "2S"}
    nil_state = new(MIXED)
    bid_all(nil_state, [3, 0, 3, 3])
    play(nil_state, 0, "2H")
    # A Nil bidder follows with the highest card that loses… none loses, and no heart still out
    # can overtake, so the ace goes.
    assert heuristic_action(GAME.view(nil_state, 1)) == {"type": "play", "card": "AH"}
    partner_state = new(MIXED)
    bid_all(partner_state, [3, 3, 3, 3])
    for seat, card in ((0, "TH"), (1, "QH"), (2, "2C"), (3, "5S"), (3, "AC"), (0, "2H")):
        play(partner_state, seat, card)
    # Seat 1 has no clubs and its partner seat 3 holds the trick: it throws its cheapest card.
    assert heuristic_action(GAME.view(partner_state, 1)) == {"type": "play", "card": "2D"}


def test_nil_bidder_ducks_and_its_partner_covers():
    # Seat 1 bids Nil; seat 0 leads a heart. Seat 1 plays its highest heart that loses.
    hands = [
        ["AH", "9H", "2S", "3S", "4S", *suit_cards("D", "23456789")],
        ["TH", "8H", "3H", "TD", "JD", "QD", "KD", "AD", *suit_cards("C", "23456")],
        ["KH", "QH", "JH", "7H", "6H", "5H", "4H", "2H", *suit_cards("C", "789TJ")],
        [*suit_cards("S", "56789TJQKA"), "QC", "KC", "AC"],
    ]
    state = new(hands)
    bid_all(state, [3, 0, 3, 4])
    play(state, 0, "9H")
    assert heuristic_action(GAME.view(state, 1)) == {"type": "play", "card": "8H"}
    play(state, 1, "8H")
    play(state, 2, "2H")
    play(state, 3, "5S")
    # Seat 3 leads; its partner (seat 1) bid Nil, so it leads high.
    view = GAME.view(state, 3)
    assert heuristic_action(view)["card"] in ("AC", "AS")


def test_mistake_rates_follow_the_level_table():
    views = []
    for state in random_states(60, seed=21):
        seat = GAME.to_move(state)
        view = GAME.view(state, seat)
        if len(view["legal_actions"]) > 3:
            views.append(view)
    rng = random.Random(2)
    rates = {}
    for level, spec in LEVELS.items():
        differ = 0
        trials = 0
        for view in views:
            best = heuristic_action(view, spec["counts_cards"], spec["watches_partner"])
            for _ in range(10):
                differ += bots.decide(GAME, view, level, rng) != best
                trials += 1
        rates[level] = differ / trials
        # A mistake may hit the intended action by chance, so the rate seen is at most the table's.
        assert rates[level] <= spec["mistakes"] + 0.04
        assert rates[level] >= spec["mistakes"] * 0.5
    assert rates["easy"] > rates["medium"] > rates["hard"]


# --- what a seat has seen ------------------------------------------------------------------


def test_seen_reads_played_cards_and_voids_from_the_view():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    for seat, card in ((0, "2H"), (1, "QH"), (2, "2C"), (3, "5S")):
        play(state, seat, card)
    play(state, 3, "6S")  # spades are broken, seat 3 leads a spade
    view = GAME.view(state, 0)
    assert [e["card"] for e in view["table"]["played"]] == ["2H", "QH", "2C", "5S", "6S"]
    seen = Seen(view)
    # Seat 2 and seat 3 showed out of hearts.
    assert seen.voids[2] == 1 << 1 and seen.voids[3] == 1 << 1 and seen.voids[1] == 0
    assert seen.trick == [(3, ACE_HIGH_INDEX["6S"])]
    assert seen.tricks_left == 12 and seen.counts == [12, 12, 12, 11]
    gone = {"2H", "QH", "2C", "5S", "6S"}
    out = {ACE_HIGH_CARD_OF[k * 13 + r] for k in range(4) for r in range(13) if seen.out[k] >> r & 1}
    assert out == set(DECK) - gone - set(view["hand"])
    assert seen.hand == masks_of(view["hand"])


def test_leading_an_unbroken_spade_shows_a_hand_of_spades():
    hands = [
        [*suit_cards("S", "23456789TJQKA")],
        [*suit_cards("H", "23456789TJQKA")],
        [*suit_cards("D", "23456789TJQKA")],
        [*suit_cards("C", "23456789TJQKA")],
    ]
    state = new(hands)
    bid_all(state, [13, 0, 0, 0])
    play(state, 0, "2S")
    seen = Seen(GAME.view(state, 1))
    assert seen.voids[0] == 0b1110


# --- pro search ----------------------------------------------------------------------------


def test_sampled_deals_fit_everything_the_seat_has_seen():
    rng = random.Random(6)
    for state in random_states(16, seed=31):
        seat = GAME.to_move(state)
        seen = Seen(GAME.view(state, seat))
        sampler = Sampler(seen, list(seen.counts))
        for _ in range(5):
            hands = sampler.sample(rng)
            assert hands[seat] == seen.hand
            for s in range(4):
                assert sum(bin(m).count("1") for m in hands[s]) == seen.counts[s]
                for k in range(4):
                    if s != seat and seen.voids[s] >> k & 1:
                        assert hands[s][k] == 0
            for k in range(4):
                others = [hands[s][k] for s in range(4) if s != seat]
                assert others[0] | others[1] | others[2] == seen.out[k]
                assert not others[0] & others[1] and not others[0] & others[2] and not others[1] & others[2]


def test_touching_cards_are_one_candidate():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    seen = Seen(GAME.view(state, 0))
    # Hearts 2-T all touch (seat 0 holds every heart below the queen): one heart, one candidate.
    cards = [ACE_HIGH_CARD_OF[c] for c in candidate_cards(seen)]
    assert cards == ["2H"]


def test_hand_outcome_values_contracts_nils_bags_and_the_match_end():
    # Team 0 bid 4+3 and took 8 (one bag); team 1 bid 3 and Nil, the Nil made, 2 tricks short.
    value = hand_outcome(0, [4, 3, 3, 0], [5, 1, 3, 0], [0, 0], [0, 0], 500)
    assert value == (70 - 9) - (-30 + 100)
    # The same hand ends the match for team 0 when it reaches the target.
    assert hand_outcome(0, [4, 3, 3, 0], [5, 1, 3, 0], [0, 0], [450, 0], 500) == value + 200


def test_pro_is_deterministic_for_a_seeded_rng_and_honours_its_budget(quick_pro, monkeypatch):
    state = random_states(2, seed=41)[1]
    seat = GAME.to_move(state)
    view = GAME.view(state, seat)
    first = bots.decide(GAME, view, "pro", random.Random(5))
    assert bots.decide(GAME, view, "pro", random.Random(5)) == first
    assert first in view["legal_actions"]
    monkeypatch.setitem(spades_bot.PRO, "samples", 1)
    assert bots.decide(GAME, view, "pro", random.Random(5)) in view["legal_actions"]


def test_pro_bids_nil_on_a_hand_of_low_cards_and_high_on_a_strong_one(quick_pro):
    weak = ["2S", "3S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "2C", "3C", "4C", "5C"]
    strong = [*suit_cards("S", "89TJQKA"), "AH", "KH", "AD", "KD", "AC", "KC"]
    rest = [c for c in DECK if c not in weak + strong]
    hands = [weak, rest[:13], strong, rest[13:]]
    state = new(hands, dealer=3)
    view = GAME.view(state, 0)
    assert bots.decide(GAME, view, "pro", random.Random(1)) == {"type": "bid", "tricks": 0}
    GAME.apply(state, 0, {"type": "bid", "tricks": 0})
    GAME.apply(state, 1, {"type": "bid", "tricks": 3})
    view = GAME.view(state, 2)
    assert bots.decide(GAME, view, "pro", random.Random(1))["tricks"] >= 8


def test_pro_keeps_its_nil_by_playing_under(quick_pro):
    hands = [
        ["AH", "9H", "2S", "3S", "4S", *suit_cards("D", "23456789")],
        ["TH", "8H", "3H", "TD", "JD", "QD", "KD", "AD", *suit_cards("C", "23456")],
        ["KH", "QH", "JH", "7H", "6H", "5H", "4H", "2H", *suit_cards("C", "789TJ")],
        [*suit_cards("S", "56789TJQKA"), "QC", "KC", "AC"],
    ]
    for k in range(3):
        state = new(hands)
        bid_all(state, [3, 0, 3, 4])
        play(state, 0, "9H")
        assert bots.decide(GAME, GAME.view(state, 1), "pro", random.Random(k))["card"] in ("8H", "3H")

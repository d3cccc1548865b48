"""Spades engine: random-playout invariants and one test per rule of docs/rules/spades.md."""

from __future__ import annotations

import copy
import dataclasses
import json
import marshal
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import bots
from engines.base import redact_event
from engines.errors import IllegalAction, InvalidAction, InvalidOptions, MatchNotActive, NotYourTurn
from engines.rng import new_rng_state, randbelow
from engines.spades import GAME, SpadesGame, score_hand, score_team, trick_winner
from engines.spades.rules import DECK
from tests.engines.harness import play_random

RANKS = "23456789TJQKA"
CARD_CODE = re.compile(r'"([2-9TJQKA][SHDC])"')


def suit_cards(suit: str, ranks: str = RANKS) -> list[str]:
    return [r + suit for r in ranks]


def stack(hands: list[list[str]], dealer: int) -> list[str]:
    """The deck (top first) that deals `hands[seat]` to each seat when `dealer` deals."""
    assert sorted(c for h in hands for c in h) == sorted(DECK)
    return [hands[(dealer + 1 + k) % 4][k // 4] for k in range(52)]


def new(hands: list[list[str]] | None = None, dealer: int = 3, target: int = 500, seed: int = 7) -> dict:
    options = GAME.validate_options({"target_score": target, "first_dealer": dealer}, 4)
    deck = stack(hands, dealer) if hands is not None else None
    state, _ = GAME.new_match(options, 4, seed, deck)
    return state


def bid_all(state: dict, bids: list[int]) -> list[dict]:
    """Every seat bids `bids[seat]`, in turn from dealer+1."""
    events = []
    for _ in range(4):
        seat = GAME.to_move(state)
        events += GAME.apply(state, seat, {"type": "bid", "tricks": bids[seat]}).events
    return events


def play(state: dict, seat: int, card: str) -> list[dict]:
    return GAME.apply(state, seat, {"type": "play", "card": card}).events


def play_out(state: dict) -> list[dict]:
    """Play the rest of the hand, each seat its first legal card."""
    events = []
    while state["status"] == "active":
        seat = GAME.to_move(state)
        events += GAME.apply(state, seat, GAME.legal_actions(state, seat)[0]).events
    return events


def refused(state: dict, seat: int, action: object, error: type) -> str:
    """Assert that `action` is refused with `error` and leaves the state exactly unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action)  # type: ignore[arg-type]
    assert state == before
    return str(info.value)


# One full suit per seat: seat 0 holds every spade.
SUITED = [suit_cards("S"), suit_cards("H"), suit_cards("D"), suit_cards("C")]
# Seat 0: three low spades and ten hearts; seat 3: three top clubs and ten spades.
MIXED = [
    ["2S", "3S", "4S", *suit_cards("H", "23456789TJ")],
    ["QH", "KH", "AH", *suit_cards("D", "23456789TJ")],
    ["QD", "KD", "AD", *suit_cards("C", "23456789TJ")],
    ["QC", "KC", "AC", *suit_cards("S", "56789TJQKA")],
]


# --- random playouts -----------------------------------------------------------


def reference_points(bids: list[int], tricks: list[int], team: int, bags_before: int) -> tuple[int, int]:
    """docs/rules/spades.md scoring written out independently: (hand points, bags carried)."""
    points = bags = 0
    contract = sum(bids[s] for s in (team, team + 2) if bids[s] > 0)
    taken = sum(tricks[s] for s in (team, team + 2) if bids[s] > 0)
    for s in (team, team + 2):
        if bids[s] == 0:
            points += 100 if tricks[s] == 0 else -100
            bags += tricks[s]
    if contract:
        if taken >= contract:
            points += 10 * contract
            bags += taken - contract
        else:
            points -= 10 * contract
    points += bags
    points -= 100 * ((bags_before + bags) // 10)
    return points, (bags_before + bags) % 10


class Checker:
    """Invariants checked after every step of a random match, and refusals tried before it."""

    def __init__(self, use_bot: bool) -> None:
        self.use_bot = use_bot
        self.hands = 0
        self.tricks_this_hand = 0
        self.scores = [0, 0]
        self.bags = [0, 0]

    def pick(self, game: SpadesGame, state: dict, seat: int, legal: list, rng: random.Random) -> dict:
        # A marshal round trip deep-copies a JSON-like dict much faster than deepcopy or json.
        snapshot = marshal.loads(marshal.dumps(state))
        # A random card that is not a legal play is refused and changes nothing: half the time
        # one the seat holds (not following suit, leading spades, playing during the bidding).
        allowed = {a.get("card") for a in legal}
        held = [c for c in state["hands"][seat] if c not in allowed]
        card = rng.choice(held if held and rng.random() < 0.5 else [c for c in DECK if c not in allowed])
        with pytest.raises(IllegalAction):
            game.apply(state, seat, {"type": "play", "card": card})
        with pytest.raises(NotYourTurn):
            game.apply(state, (seat + rng.randrange(1, 4)) % 4, legal[0])
        assert state == snapshot
        if self.use_bot and seat % 2 == 0:
            action = bots.decide(game, game.view(state, seat), "medium", rng)
            assert action in legal
            return action
        return rng.choice(legal)

    def check_views(self, state: dict, events: list[dict]) -> None:
        hands = state["hands"]
        mover = GAME.to_move(state)
        public = GAME.view(state, None)
        assert public["hand"] is None and public["legal_actions"] == []
        shared = {k: v for k, v in public.items() if k not in ("hand", "legal_actions")}
        for viewer in range(4):
            view = GAME.view(state, viewer)
            assert view.pop("hand") == hands[viewer]
            legal = view.pop("legal_actions")
            assert legal == (GAME.legal_actions(state, viewer) if viewer == mover else [])
            assert {a.get("card") for a in legal} <= {None, *hands[viewer]}
            # Besides its own hand and moves, a seat sees exactly what a spectator sees.
            assert view == shared
        # The last hand's breakdown names last hand's cards, which may sit in hands again now.
        public["round_result"] = None
        unplayed = {c for h in hands for c in h}
        assert not set(CARD_CODE.findall(json.dumps(public))) & unplayed
        # An event's public part may name played cards only; its secret part, the seat's own.
        seen = set(CARD_CODE.findall(json.dumps([redact_event(e, None) for e in events])))
        assert not seen & unplayed, f"{seen & unplayed} leak in public events"
        for event in events:
            for key, secret in event.get("secret", {}).items():
                seat = int(key)
                hidden = {c for s in range(4) if s != seat for c in hands[s]}
                seen = set(CARD_CODE.findall(json.dumps(secret)))
                assert not seen & hidden, f"{seen & hidden} leak to seat {seat}"

    def check_deal(self, state: dict, events: list[dict]) -> None:
        assert [e["type"] for e in events] == ["deal"]
        assert [len(h) for h in state["hands"]] == [13] * 4
        assert all(h == sorted(h, key=DECK.index) for h in state["hands"])
        assert sorted(c for h in state["hands"] for c in h) == sorted(DECK)
        self.check_views(state, events)

    def on_step(self, state: dict, seat: int, action: dict, events: list[dict]) -> None:
        # Card conservation: hands + current trick + completed tricks hold the deck once.
        cards = [c for h in state["hands"] for c in h] + state["trick"]
        cards += [c for t in state["tricks"] for c in t["cards"]]
        assert sorted(cards) == sorted(DECK)
        done = len(state["tricks"])
        leader = state["leader"]
        played_now = {(leader + i) % 4 for i in range(len(state["trick"]))}
        for s in range(4):
            assert len(state["hands"][s]) == 13 - done - (s in played_now)
        assert sum(state["won"]) == done
        self.check_views(state, events)
        kinds = [e["type"] for e in events]
        self.tricks_this_hand += kinds.count("trick")
        if "round_over" in kinds:
            self.check_hand_over(state, next(e for e in events if e["type"] == "round_over"))
        if "match_over" in kinds:
            s0, s1 = state["scores"]
            target = state["options"]["target_score"]
            assert max(s0, s1) >= target and s0 != s1
            assert state["winners"] == ([0, 2] if s0 > s1 else [1, 3])
        elif state["status"] == "round_over":
            s0, s1 = state["scores"]
            assert max(s0, s1) < state["options"]["target_score"] or s0 == s1

    def check_hand_over(self, state: dict, event: dict) -> None:
        assert self.tricks_this_hand == 13 and sum(state["won"]) == 13
        self.tricks_this_hand = 0
        self.hands += 1
        result = event["result"]
        assert result == state["round_result"]
        for team in (0, 1):
            breakdown = result["teams"][str(team)]
            points, carried = reference_points(state["bids"], state["won"], team, self.bags[team])
            assert breakdown["points"] == points
            assert breakdown["bags_total"] == carried == state["bags"][team]
            assert breakdown["points"] == (
                breakdown["contract_points"]
                + breakdown["nil_points"]
                + breakdown["bag_points"]
                + breakdown["bag_penalty"]
            )
            assert breakdown["total"] == self.scores[team] + points == state["scores"][team]
            self.scores[team] += points
            self.bags[team] = carried
        assert result["scores"] == {"0": self.scores[0], "1": self.scores[1]}


class WatchedSpades(SpadesGame):
    """The engine with each new deal checked, for playouts through the shared harness."""

    checker: Checker | None = None

    def _next_round(self, state: dict) -> list[dict]:
        events = super()._next_round(state)
        assert self.checker is not None
        self.checker.check_deal(state, events)
        return events


WATCHED = WatchedSpades(**{f.name: getattr(GAME, f.name) for f in dataclasses.fields(GAME)})
TARGETS = (50, 150, 300, 500)  # low targets let bot-led matches finish; random bids mostly fail


def play_checked(seed: int, max_hands: int) -> tuple[dict, Checker]:
    """A random match checked at every step, as `play_random` does but with a JSON round trip
    per trick instead of per step, which keeps 2,000 hands within the test time budget."""
    checker = Checker(use_bot=seed % 2 == 0)
    rng = random.Random(seed)
    state, events = GAME.new_match(GAME.validate_options({"target_score": TARGETS[seed % 4]}, 4), 4, seed)
    checker.check_deal(state, events)
    while state["status"] != "finished":
        if state["status"] == "round_over":
            if checker.hands >= max_hands:
                break
            checker.check_deal(state, GAME.start_next_round(state).events)
            continue
        seat = GAME.to_move(state)
        action = checker.pick(GAME, state, seat, GAME.legal_actions(state, seat), rng)
        events = GAME.apply(state, seat, action).events
        checker.on_step(state, seat, action, events)
        if not state["trick"]:
            assert json.loads(json.dumps(state)) == state
    return state, checker


def test_random_hands_keep_every_invariant():
    hands = finished = 0
    seed = 0
    while hands < 2000:
        seed += 1
        state, checker = play_checked(seed, max_hands=25)
        hands += checker.hands
        finished += state["status"] == "finished"
    assert finished >= 10


def test_random_matches_through_the_shared_harness():
    hands = 0
    for seed in range(4):
        checker = Checker(use_bot=seed % 2 == 0)
        WATCHED.checker = checker
        state = play_random(
            WATCHED,
            {"target_score": TARGETS[seed]},
            4,
            seed,
            pick=checker.pick,
            on_step=checker.on_step,
            rounds=15,
        )
        hands += checker.hands
        assert state["status"] == "finished" or checker.hands == 15
    assert hands >= 30


# --- deal, dealer, turn order --------------------------------------------------------


def test_deal_order_from_stacked_deck():
    deck = list(DECK)
    state, events = GAME.new_match(GAME.validate_options({"first_dealer": 1}, 4), 4, 5, deck)
    # Dealer 1 deals one card at a time starting with seat 2.
    for k, card in enumerate(deck):
        assert card in state["hands"][(1 + 1 + k) % 4]
    assert state["hands"][2] == [deck[k] for k in range(0, 52, 4)]
    assert events[0]["type"] == "deal" and events[0]["dealer"] == 1
    assert GAME.to_move(state) == 2 and state["phase"] == "bid"


def test_later_hands_are_shuffled_from_the_seed_and_the_deal_passes_on():
    def second_hand(seed: int) -> list[list[str]]:
        state = new(SUITED, dealer=0, seed=seed)
        bid_all(state, [1, 1, 1, 1])
        play_out(state)
        GAME.start_next_round(state)
        assert state["dealer"] == 1 and GAME.to_move(state) == 2 and state["round"] == 2
        return state["hands"]

    first = second_hand(3)
    assert first == second_hand(3)
    assert first != second_hand(4)
    assert sorted(c for h in first for c in h) == sorted(DECK)
    assert first != [sorted(h, key=DECK.index) for h in SUITED]


def test_first_dealer_from_seed():
    dealers = set()
    for seed in range(20):
        state, _ = GAME.new_match(GAME.validate_options({}, 4), 4, seed)
        expected = randbelow(new_rng_state(seed), 4)
        assert state["dealer"] == expected
        assert GAME.to_move(state) == (expected + 1) % 4
        dealers.add(expected)
    assert len(dealers) > 1


def test_first_dealer_from_option():
    state = new(dealer=2)
    assert state["dealer"] == 2 and GAME.to_move(state) == 3
    assert GAME.view(state, None)["table"]["dealer"] == 2


def test_dealer_plus_one_bids_first_then_leads():
    state = new(MIXED, dealer=1)
    order = []
    for _ in range(4):
        seat = GAME.to_move(state)
        order.append(seat)
        GAME.apply(state, seat, {"type": "bid", "tricks": 2})
    assert order == [2, 3, 0, 1]
    assert state["phase"] == "play" and GAME.to_move(state) == 2


# --- bidding ---------------------------------------------------------------------


def test_every_bid_from_nil_to_13_is_offered_whatever_the_partner_bid():
    state = new(MIXED)
    GAME.apply(state, 0, {"type": "bid", "tricks": 13})
    GAME.apply(state, 1, {"type": "bid", "tricks": 0})
    assert [a["tricks"] for a in GAME.legal_actions(state, 2)] == list(range(14))
    events = GAME.apply(state, 2, {"type": "bid", "tricks": 13}).events
    assert events == [{"type": "bid", "seat": 2, "tricks": 13}]
    assert GAME.view(state, 3)["table"]["bids"] == [13, 0, 13, None]


def test_a_bid_cannot_be_changed_or_made_during_play():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    assert "bidding is over" in refused(state, 0, {"type": "bid", "tricks": 4}, IllegalAction)


# --- play --------------------------------------------------------------------------


def test_spades_cannot_be_led_before_broken_then_can():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    assert {a["card"] for a in GAME.legal_actions(state, 0)} == set(suit_cards("H", "23456789TJ"))
    assert "spades are not broken" in refused(state, 0, {"type": "play", "card": "2S"}, IllegalAction)
    play(state, 0, "2H")
    play(state, 1, "QH")
    play(state, 2, "2C")
    assert not state["spades_broken"]
    events = play(state, 3, "5S")  # void in hearts: trumps, which breaks spades
    assert state["spades_broken"] and GAME.view(state, 0)["table"]["spades_broken"] is True
    assert events[-1]["type"] == "trick" and events[-1]["winner"] == 3
    # Seat 3 still holds clubs but may now lead a spade.
    assert "6S" in {a["card"] for a in GAME.legal_actions(state, 3)}
    play(state, 3, "AC")
    play(state, 0, "3H")
    play(state, 1, "2D")
    play(state, 2, "3C")
    assert GAME.to_move(state) == 3
    play(state, 3, "6S")
    assert [a["card"] for a in GAME.legal_actions(state, 0)] == ["2S", "3S", "4S"]


def test_a_leader_holding_only_spades_may_lead_one():
    state = new(SUITED)
    bid_all(state, [3, 3, 3, 3])
    assert len(GAME.legal_actions(state, 0)) == 13
    play(state, 0, "AS")
    assert state["spades_broken"]


def test_follow_suit_when_you_can():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    play(state, 0, "2H")
    assert [a["card"] for a in GAME.legal_actions(state, 1)] == ["QH", "KH", "AH"]
    message = refused(state, 1, {"type": "play", "card": "2D"}, IllegalAction)
    assert message == "you must follow suit: you hold hearts"


def test_no_duty_to_trump_when_void():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    play(state, 0, "2H")
    play(state, 1, "QH")
    # Seat 3 has no hearts: every card is playable, a club as well as a spade.
    assert len(GAME.legal_actions(state, 2)) == 13
    play(state, 2, "2C")
    assert len(GAME.legal_actions(state, 3)) == 13
    events = play(state, 3, "AC")
    assert events[-1]["winner"] == 1  # the queen of the led suit beats an off-suit ace


def test_trick_winners():
    # Highest card of the led suit; an off-suit card never wins; the ace is high.
    assert trick_winner(0, ["2H", "KH", "AD", "AH"]) == 3
    assert trick_winner(2, ["TC", "AH", "9C", "KD"]) == 2
    # Any spade beats the led suit; the highest spade wins.
    assert trick_winner(1, ["AH", "2S", "KH", "3S"]) == 0
    assert trick_winner(3, ["4S", "AS", "KS", "2H"]) == 0
    assert trick_winner(0, ["QS", "KS", "2S", "3S"]) == 1


def test_the_trick_winner_leads_and_the_view_shows_the_trick():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    play(state, 0, "2H")
    play(state, 1, "QH")
    table = GAME.view(state, None)["table"]
    assert table["trick"] == [{"seat": 0, "card": "2H"}, {"seat": 1, "card": "QH"}] and table["leader"] == 0
    play(state, 2, "2C")
    play(state, 3, "5S")
    view = GAME.view(state, 2)
    assert view["turn"] == {"seat": 3, "phase": "play", "deadline": None}
    assert view["table"]["trick"] == [] and view["table"]["leader"] == 3
    assert view["table"]["tricks_won"] == [0, 0, 0, 1]
    assert view["table"]["last_trick"] == {
        "leader": 0,
        "winner": 3,
        "cards": [
            {"seat": 0, "card": "2H"},
            {"seat": 1, "card": "QH"},
            {"seat": 2, "card": "2C"},
            {"seat": 3, "card": "5S"},
        ],
    }
    assert [p["tricks"] for p in view["players"]] == [0, 0, 0, 1]
    assert [p["cards"] for p in view["players"]] == [12, 12, 12, 12]


# --- scoring: worked examples ------------------------------------------------------


def test_score_made_contract_with_bags():
    team = score_team(0, [4, 0, 3, 0], [5, 0, 4, 0], 0, 0)
    assert (team["contract"], team["made"], team["bags"], team["points"]) == (7, True, 2, 72)


def test_score_failed_contract():
    team = score_team(1, [0, 4, 0, 3], [0, 3, 0, 2], 6, 100)
    assert (team["made"], team["contract_points"], team["bags"], team["points"], team["total"]) == (
        False,
        -70,
        0,
        -70,
        30,
    )
    assert team["bags_total"] == 6


def test_score_nil_made_with_partner_contract():
    team = score_team(0, [0, 0, 5, 0], [0, 0, 6, 0], 0, 0)
    assert team["nil"] == [{"seat": 0, "made": True, "tricks": 0, "points": 100}]
    assert (team["contract"], team["made"], team["points"]) == (5, True, 100 + 50 + 1)


def test_score_failed_nil_tricks_do_not_help_the_partner_and_are_bags():
    team = score_team(1, [0, 0, 0, 4], [0, 2, 0, 3], 0, 0)
    assert team["nil"] == [{"seat": 1, "made": False, "tricks": 2, "points": -100}]
    # The partner's 3 tricks miss the 4 bid even though the team took 5.
    assert (team["contract_tricks"], team["made"], team["contract_points"]) == (3, False, -40)
    assert (team["bags"], team["bag_points"], team["points"]) == (2, 2, -100 - 40 + 2)


def test_score_bag_penalty_with_carry():
    team = score_team(0, [4, 0, 4, 0], [7, 0, 6, 0], 8, 200)
    assert team["bags"] == 5 and team["bag_penalty"] == -100 and team["bags_total"] == 3
    assert team["points"] == 80 + 5 - 100 and team["total"] == 185


def test_score_twenty_bags_cost_two_hundred():
    team = score_team(0, [1, 0, 1, 0], [13, 0, 0, 0], 9, 0)
    assert (team["bags"], team["bag_penalty"], team["bags_total"]) == (11, -200, 0)
    assert team["points"] == 20 + 11 - 200


def test_score_both_partners_nil():
    both_made = score_team(0, [0, 3, 0, 3], [0, 6, 0, 7], 0, 0)
    assert (both_made["contract"], both_made["made"], both_made["points"]) == (0, None, 200)
    one_failed = score_team(0, [0, 3, 0, 3], [0, 6, 1, 6], 0, 0)
    assert (one_failed["made"], one_failed["bags"], one_failed["points"]) == (None, 1, 100 - 100 + 1)


def test_score_hand_covers_both_teams():
    teams = score_hand([2, 3, 2, 3], [4, 3, 1, 5], [0, 9], [10, 20])
    assert teams["0"]["points"] == 41 and teams["0"]["total"] == 51
    assert teams["1"]["points"] == 62 - 100 and teams["1"]["bags_total"] == 1


@settings(max_examples=300, deadline=None)
@given(
    bids=st.lists(st.integers(0, 13), min_size=4, max_size=4),
    cuts=st.lists(st.integers(0, 13), min_size=3, max_size=3),
    bags_before=st.lists(st.integers(0, 9), min_size=2, max_size=2),
)
def test_score_hand_matches_the_rules_for_any_hand(bids, cuts, bags_before):
    bounds = [0, *sorted(cuts), 13]
    tricks = [bounds[i + 1] - bounds[i] for i in range(4)]
    teams = score_hand(bids, tricks, bags_before, [0, 0])
    for team in (0, 1):
        points, carried = reference_points(bids, tricks, team, bags_before[team])
        assert (teams[str(team)]["points"], teams[str(team)]["bags_total"]) == (points, carried)


def test_hand_scored_in_play_made_and_failed():
    state = new(SUITED)
    bid_all(state, [5, 3, 4, 3])
    events = play_out(state)
    assert [e["type"] for e in events].count("trick") == 13
    assert state["won"] == [13, 0, 0, 0]
    assert state["status"] == "round_over" and GAME.to_move(state) is None
    result = state["round_result"]
    assert events[-1] == {"type": "round_over", "round": 1, "result": result}
    team0, team1 = result["teams"]["0"], result["teams"]["1"]
    assert (team0["contract"], team0["made"], team0["bags"], team0["points"]) == (9, True, 4, 94)
    assert (team1["contract"], team1["made"], team1["points"]) == (6, False, -60)
    view = GAME.view(state, 1)
    assert view["scores"] == {"0": 94, "1": -60} and view["table"]["bags"] == {"0": 4, "1": 0}
    assert view["round_result"] == result and view["legal_actions"] == []
    assert result["hands"][0] == suit_cards("S") and result["winners"] == [0, 2]


def test_hand_scored_in_play_nil_made_and_nil_failed():
    state = new(SUITED)
    bid_all(state, [0, 0, 2, 3])
    play_out(state)
    team0, team1 = state["round_result"]["teams"]["0"], state["round_result"]["teams"]["1"]
    # Seat 0's 13 tricks: a failed Nil, no help to seat 2's 2, and 13 bags (one penalty, 3 carried).
    assert team0["nil"] == [{"seat": 0, "made": False, "tricks": 13, "points": -100}]
    assert (team0["contract_tricks"], team0["made"], team0["contract_points"]) == (0, False, -20)
    assert (team0["bags"], team0["bag_penalty"], team0["bags_total"]) == (13, -100, 3)
    assert team0["points"] == -100 - 20 + 13 - 100
    assert team1["nil"] == [{"seat": 1, "made": True, "tricks": 0, "points": 100}]
    assert team1["points"] == 100 - 30
    assert state["scores"] == [-207, 70] and state["bags"] == [3, 0]


def test_hand_scored_in_play_bag_penalty_carries():
    state = new(SUITED)
    state["bags"] = [8, 0]
    bid_all(state, [4, 3, 4, 3])
    play_out(state)
    team0 = state["round_result"]["teams"]["0"]
    assert (team0["bags"], team0["bags_before"], team0["bag_penalty"], team0["bags_total"]) == (5, 8, -100, 3)
    assert state["scores"][0] == 80 + 5 - 100 and state["bags"][0] == 3


# --- match end -------------------------------------------------------------------


def hand_with_totals(before: list[int], target: int = 500) -> tuple[dict, list[dict]]:
    """Play the SUITED hand (team 0 scores 85, team 1 scores -20) from `before` totals."""
    state = new(SUITED, target=target)
    state["scores"] = list(before)
    bid_all(state, [4, 1, 4, 1])
    return state, play_out(state)


def test_a_tie_at_the_target_plays_on():
    state, events = hand_with_totals([415, 520])
    assert state["scores"] == [500, 500]
    assert state["status"] == "round_over" and state["winners"] is None
    assert "match_over" not in [e["type"] for e in events]
    GAME.start_next_round(state)
    assert state["status"] == "active" and state["round"] == 2


def test_both_over_the_target_the_higher_wins():
    state, events = hand_with_totals([430, 530])
    assert state["scores"] == [515, 510]
    assert state["status"] == "finished" and state["winners"] == [0, 2]
    assert events[-1] == {
        "type": "match_over",
        "winners": [0, 2],
        "reason": "target",
        "scores": {"0": 515, "1": 510},
    }
    assert GAME.view(state, None)["winners"] == [0, 2]
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


def test_one_team_over_the_target_wins_even_behind_before_the_hand():
    state, _ = hand_with_totals([420, 499])
    assert state["scores"] == [505, 479] and state["winners"] == [0, 2]


def test_target_score_option_and_negative_scores():
    state, _ = hand_with_totals([0, 0], target=50)
    assert state["status"] == "finished" and state["winners"] == [0, 2]
    state, _ = hand_with_totals([-900, 20])
    assert state["scores"] == [-815, 0] and state["status"] == "round_over"


# --- resigning ---------------------------------------------------------------------


def test_resign_ends_the_match_for_the_team():
    state = new(MIXED)
    GAME.apply(state, 0, {"type": "bid", "tricks": 3})
    events = GAME.apply(state, 3, {"type": "resign"}).events  # not seat 3's turn: resigning needs none
    assert events[0] == {"type": "resign", "seat": 3}
    assert events[1]["type"] == "match_over" and events[1]["winners"] == [0, 2]
    assert state["status"] == "finished" and state["winners"] == [0, 2]
    view = GAME.view(state, 3)
    assert view["players"][3]["resigned"] is True and view["legal_actions"] == []
    assert GAME.to_move(state) is None
    refused(state, 1, {"type": "bid", "tricks": 3}, MatchNotActive)
    refused(state, 0, {"type": "resign"}, MatchNotActive)


def test_resign_between_hands():
    state = new(SUITED)
    bid_all(state, [1, 1, 1, 1])
    play_out(state)
    GAME.apply(state, 0, {"type": "resign"})
    assert state["status"] == "finished" and state["winners"] == [1, 3]


# --- validation --------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "tricks": 14},
        {"type": "bid", "tricks": -1},
        {"type": "bid", "tricks": "x"},
        {"type": "bid", "tricks": 3.0},
        {"type": "bid", "tricks": True},
        {"type": "bid"},
        {"type": "bid", "tricks": 3, "blind": True},
        {"type": "pass"},
        {"type": None},
        {},
        "bid",
        None,
        ["bid", 3],
        {"type": "play", "card": "1H"},
        {"type": "play", "card": "JK"},
        {"type": "play", "card": "qh"},
        {"type": "play", "card": 5},
        {"type": "play", "card": None},
        {"type": "play"},
        {"type": "play", "card": "QH", "seat": 0},
        {"type": "resign", "now": True},
    ],
)
def test_malformed_actions_are_invalid(action):
    state = new(MIXED)
    refused(state, 0, action, InvalidAction)


def test_out_of_turn_is_refused():
    state = new(MIXED)
    assert refused(state, 1, {"type": "bid", "tricks": 3}, NotYourTurn) == "it is not your turn"
    bid_all(state, [3, 3, 3, 3])
    refused(state, 2, {"type": "play", "card": "QD"}, NotYourTurn)
    refused(state, 7, {"type": "play", "card": "2H"}, NotYourTurn)


def test_rule_refusals_are_illegal():
    state = new(MIXED)
    assert "bids before" in refused(state, 0, {"type": "play", "card": "2H"}, IllegalAction)
    bid_all(state, [3, 3, 3, 3])
    assert refused(state, 0, {"type": "play", "card": "QH"}, IllegalAction) == "you do not hold QH"
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


@pytest.mark.parametrize(
    "options",
    [{"target_score": 49}, {"target_score": "500"}, {"first_dealer": 4}, {"first_dealer": -1}, {"jokers": 2}],
)
def test_invalid_options(options):
    with pytest.raises(InvalidOptions):
        GAME.validate_options(options, 4)


def test_four_players_and_a_full_deck_only():
    with pytest.raises(InvalidOptions):
        GAME.validate_options({}, 3)
    options = GAME.validate_options({}, 4)
    assert options == {"target_score": 500, "first_dealer": None}
    with pytest.raises(InvalidOptions):
        GAME.new_match(options, 4, 1, list(DECK[:51]) + ["AS"])
    assert sorted(GAME.full_deck(options)) == sorted(DECK)


# --- views and events ------------------------------------------------------------------


def test_deal_event_shows_each_seat_only_its_hand():
    state = new(MIXED, dealer=3)
    state2, events = GAME.new_match(GAME.validate_options({"first_dealer": 3}, 4), 4, 7, stack(MIXED, 3))
    assert state2 == state
    deal = events[0]
    public = {"type": "deal", "round": 1, "dealer": 3, "cards": [13, 13, 13, 13]}
    assert redact_event(deal, None) == {**public, "deal_commitment": deal["deal_commitment"]}
    for seat in range(4):
        seen = redact_event(deal, seat)
        assert seen["hand"] == state["hands"][seat]
        assert all(c not in json.dumps(seen) for s in range(4) if s != seat for c in state["hands"][s])


def test_spectator_and_seat_views():
    state = new(MIXED)
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []
    assert spectator["status"] == "active" and spectator["round"] == 1
    assert spectator["turn"] == {"seat": 0, "phase": "bid", "deadline": None}
    assert spectator["stock"] == 0 and spectator["discard"] is None
    assert spectator["scores"] == {"0": 0, "1": 0} and spectator["round_result"] is None
    assert [p["team"] for p in spectator["players"]] == ["0", "1", "0", "1"]
    seat0 = GAME.view(state, 0)
    assert seat0["hand"] == MIXED[0] and len(seat0["legal_actions"]) == 14
    assert GAME.view(state, 1)["legal_actions"] == []
    for key in ("rng", "hands", "seed"):
        assert key not in json.dumps(spectator)


def test_state_survives_a_json_round_trip_mid_hand():
    state = new(MIXED)
    bid_all(state, [3, 3, 3, 3])
    play(state, 0, "2H")
    copy_ = json.loads(json.dumps(state))
    assert copy_ == state
    play(copy_, 1, "QH")
    play(state, 1, "QH")
    assert copy_ == state

"""Zhol engine: random-playout invariants and one test per rule of docs/rules/zhol.md."""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter

import pytest

from engines import bots
from engines.base import redact_event
from engines.cards import ALL_CODES, JOKER, deck
from engines.errors import IllegalAction, InvalidAction, InvalidOptions, MatchNotActive, NotYourTurn
from engines.meld_solver import best_split
from engines.melds import interpretations
from engines.zhol import GAME, RULES, choose_discard
from engines.zhol.bots import choose_action
from engines.zhol.rules import sort_hand, unmatched
from tests.engines.harness import play_random

SIZE = {"small": 7, "large": 14}


def stack(variant: str, hands: list[list[str]], first: int = 0, stock_top: list[str] = ()) -> list[str]:
    """The deck (top first) that deals `hands[seat]` one card at a time from `first`, followed by
    `stock_top` and then every other card of the variant's deck."""
    n, size = len(hands), SIZE[variant]
    assert all(len(h) == size for h in hands)
    dealt = [hands[(first + k) % n][k // n] for k in range(n * size)]
    rest = Counter(GAME.full_deck({"variant": variant}))
    rest.subtract(dealt + list(stock_top))
    assert all(v >= 0 for v in rest.values()), "stacked cards not in the deck"
    # the filler keeps a fixed order so a stacked test is deterministic
    filler = sorted(rest.elements(), key=lambda c: (c == JOKER, c[1:], c[0]))
    return dealt + list(stock_top) + filler


def new(
    hands: list[list[str]] | None = None,
    *,
    variant: str = "small",
    first: int = 0,
    stock_top: list[str] = (),
    seats: int | None = None,
    seed: int = 5,
    **options,
) -> dict:
    n = seats if seats is not None else len(hands) if hands else 2
    opts = GAME.validate_options({"variant": variant, "first_player": first, **options}, n)
    deck_ = stack(variant, hands, first, stock_top) if hands is not None else None
    state, _ = GAME.new_match(opts, n, seed, deck_)
    return state


def act(state: dict, seat: int, kind: str, value: str) -> list[dict]:
    field = "pile" if kind == "draw" else "card"
    return GAME.apply(state, seat, {"type": kind, field: value}).events


def refused(state: dict, seat: object, action: object, error: type) -> str:
    """Assert that `action` is refused with `error` and leaves the state exactly unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action)  # type: ignore[arg-type]
    assert state == before
    return str(info.value)


CARD = re.compile(r'"([A2-9TJQK][SHDC]|JK)"')


def cards_in(obj: object) -> list[str]:
    """Every card code anywhere in a JSON-like value."""
    if isinstance(obj, str):
        return [obj] if obj in ALL_CODES else []
    if isinstance(obj, dict):
        return [c for v in obj.values() for c in cards_in(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in cards_in(v)]
    return []


# Hands that hold no group and cannot make one with one more card: two players, small.
JUNK0 = ["2S", "6S", "TS", "3H", "7H", "JH", "4D"]
JUNK1 = ["8D", "QD", "5C", "9C", "KC", "AS", "AH"]
# The other player's hand when seat 0 is about to win (no card seat 0 needs).
OTHER = ["AH", "AD", "QD", "8D", "TC", "JD", "4H"]
THIRD = ["2S", "6S", "TS", "3H", "JH", "4D", "9C"]
FOURTH = ["2H", "6H", "8S", "TH", "QS", "3C", "KS"]


# --------------------------------------------------------------------------------------------------
# Invariants checked at every step of every playout
# --------------------------------------------------------------------------------------------------


class Checker:
    """Checks a match after each action: card conservation, hand sizes, the discard rule, Zhol
    detection against an independent split, and what each seat's view may show."""

    def __init__(self, variant: str, seats: int):
        self.variant, self.seats = variant, seats
        self.full = sorted(deck(*(1, 2) if variant == "small" else (2, 4)))
        self.size = SIZE[variant]
        self.zhols = 0
        self.discards = 0
        self.reshuffles = 0
        self.taken: str | None = None

    def __call__(self, state: dict, seat: int, action: dict, events: list[dict]) -> None:
        every = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
        assert sorted(every) == self.full, "cards appeared or vanished"
        kinds = [e["type"] for e in events]
        self.reshuffles += kinds.count("reshuffle")
        if action["type"] == "draw":
            assert len(state["hands"][seat]) == self.size + 1
            self.taken = action.get("pile") == "discard" and state["taken"] or None
        elif action["type"] == "discard":
            self.discards += 1
            card = action["card"]
            hand = state["hands"][seat]
            if card == self.taken:
                # only a second copy of the card taken may go back (large game)
                assert card in hand
            self.taken = None
            full = best_split(hand, RULES, unmatched).leftover == ()
            if "zhol" in kinds:
                self.zhols += 1
                assert full and not state["resigned"][seat]
                assert state["status"] in ("round_over", "finished")
                result = state["round_result"]
                assert result["winners"] == [seat]
                winning = result["hands"][seat]
                shown = [c for m in winning["melds"] for c in m["cards"]]
                assert sorted(shown) == sorted(hand) and winning["leftover"] == []
                for meld in winning["melds"]:
                    assert interpretations(meld["cards"], RULES)
                if self.variant == "small":
                    assert sorted(len(m["cards"]) for m in winning["melds"]) == [3, 4]
            else:
                assert not full or state["resigned"][seat], f"missed a Zhol: {hand}"
        if state["status"] == "active":
            mover = state["turn"]
            for s in range(self.seats):
                want = self.size + (s == mover and state["phase"] == "discard")
                assert len(state["hands"][s]) == want
        self.check_views(state, events)

    def check_views(self, state: dict, events: list[dict]) -> None:
        public = Counter()
        if state["discard"]:
            public[state["discard"][-1]] += 2
        if state["taken"]:
            public[state["taken"]] += 2
        for discarded in state["history"]:
            # every discard of the hand is public: the view's pile, discards and top show it
            public[discarded["card"]] += 3
        for viewer in [None, *range(self.seats)]:
            view = GAME.view(state, viewer)
            own = state["hands"][viewer] if viewer is not None else []
            assert view["hand"] == (list(own) if viewer is not None else None)
            hidden = {k: v for k, v in view.items() if k not in ("round_result", "legal_actions")}
            shown = Counter(CARD.findall(json.dumps(hidden)))
            assert not shown - (Counter(own) + public), f"seat {viewer} sees {shown - Counter(own) - public}"
            assert set(CARD.findall(json.dumps(view["legal_actions"]))) <= set(own)
            if view["status"] == "active" and view["turn"]["seat"] == viewer:
                assert view["legal_actions"]
            else:
                assert view["legal_actions"] == []
            for event in events:
                if event["type"] == "draw" and event["pile"] == "stock" and viewer != event["seat"]:
                    assert "card" not in redact_event(event, viewer)
                if event["type"] == "deal":
                    assert redact_event(event, viewer).get("hand") == (own if viewer is not None else None)


def random_pick(game, state, seat, legal, rng):
    """A random legal action; the stock is drawn three times in four, so it runs out now and then."""
    if legal[0]["type"] == "draw" and len(legal) == 2 and rng.random() < 0.5:
        return legal[0]
    return rng.choice(legal)


@pytest.mark.parametrize("variant", ["small", "large"])
@pytest.mark.parametrize("seats", [2, 4])
def test_random_hands_keep_every_invariant(variant, seats):
    """2,000 random deals per variant and player count, each played for a random number of turns
    (a random hand rarely makes a Zhol, so it is cut short), checked at every step."""
    checker = Checker(variant, seats)
    stock = len(GAME.full_deck({"variant": variant})) - seats * SIZE[variant]
    for seed in range(2000):
        # most hands are short; every 400th plays on past the end of the stock
        turns = 2 * stock if seed % 400 == 0 else 1 + seed % 4
        options = {"variant": variant}
        play_random(GAME, options, seats, seed, pick=random_pick, on_step=checker, max_steps=2 * turns)
    assert checker.discards > 4000
    assert checker.reshuffles > 0


def greedy_pick(game, state, seat, legal, rng):
    return choose_action(GAME.view(state, seat), "hard", rng)


@pytest.mark.parametrize(
    ("variant", "seats", "matches"), [("small", 2, 12), ("small", 4, 8), ("large", 2, 2)]
)
def test_greedy_playouts_make_zhols(variant, seats, matches):
    """Bots that aim at a Zhol win hands, so detection, crowns and new hands are exercised."""
    checker = Checker(variant, seats)
    finished = 0
    for seed in range(matches):
        state = play_random(
            GAME,
            {"variant": variant, "target_wins": 2},
            seats,
            1000 + seed,
            pick=greedy_pick,
            on_step=checker,
            max_steps=1500 if variant == "small" else 600,
        )
        finished += state["status"] == "finished"
        if state["status"] == "finished":
            assert max(state["crowns"]) == 2 and state["winners"] == [state["crowns"].index(2)]
    assert checker.zhols >= matches
    assert finished >= matches // 2


# --------------------------------------------------------------------------------------------------
# Options, deal and turn
# --------------------------------------------------------------------------------------------------


def test_options_defaults_and_limits():
    assert GAME.validate_options({}, 2) == {
        "variant": "small",
        "first_player": None,
        "target_wins": 5,
        "turn_seconds": 60,
    }
    assert GAME.validate_options({"first_player": 3, "variant": "large"}, 4)["first_player"] == 3
    for options, seats in [
        ({}, 3),
        ({}, 1),
        ({}, 5),
        ({"variant": "medium"}, 2),
        ({"first_player": 2}, 2),
        ({"first_player": -1}, 2),
        ({"target_wins": 0}, 2),
        ({"turn_seconds": 4}, 2),
        ({"turn_seconds": "60"}, 2),
        ({"crowns": 3}, 2),
    ]:
        with pytest.raises(InvalidOptions):
            GAME.validate_options(options, seats)
    assert GAME.describe()["variants"] == ["small", "large"]


def test_decks():
    assert Counter(GAME.full_deck({"variant": "small"})) == Counter(deck(1, 2))
    assert len(GAME.full_deck({"variant": "large"})) == 108
    with pytest.raises(InvalidOptions):
        GAME.new_match(GAME.validate_options({}, 2), 2, 1, deck(1, 1))
    with pytest.raises(InvalidOptions):
        GAME.new_match(GAME.validate_options({}, 2), 3, 1)


@pytest.mark.parametrize(("variant", "seats"), [("small", 2), ("small", 4), ("large", 2), ("large", 4)])
def test_deal_one_card_at_a_time_from_the_first_player(variant, seats):
    cards = GAME.full_deck({"variant": variant})
    random.Random(3).shuffle(cards)
    first = seats - 1
    opts = GAME.validate_options({"variant": variant, "first_player": first}, seats)
    state, events = GAME.new_match(opts, seats, 9, list(cards))
    size = SIZE[variant]
    for k in range(seats * size):
        assert cards[k] in state["hands"][(first + k) % seats]
    for s in range(seats):
        assert sorted(state["hands"][s]) == sorted(cards[(s - first) % seats : seats * size : seats])
    assert state["stock"] == cards[seats * size :]
    assert state["discard"] == []
    assert GAME.to_move(state) == first
    assert GAME.legal_actions(state, first) == [{"type": "draw", "pile": "stock"}]
    view = GAME.view(state, first)
    assert view["turn"] == {"seat": first, "phase": "draw", "deadline": None}
    assert view["discard"] == {"top": None, "count": 0}
    assert view["stock"] == len(cards) - seats * size
    assert view["table"]["first_player"] == first and view["table"]["variant"] == variant
    (deal,) = events
    for s in range(seats):
        assert redact_event(deal, s)["hand"] == state["hands"][s]
    assert "hand" not in redact_event(deal, None)


def test_first_player_defaults_to_seat_zero():
    state, _ = GAME.new_match(GAME.validate_options({}, 4), 4, 1)
    assert GAME.to_move(state) == 0


def test_a_turn_is_draw_then_discard():
    state = new([JUNK0, JUNK1], stock_top=["KD"])
    events = act(state, 0, "draw", "stock")
    assert events == [{"type": "draw", "seat": 0, "pile": "stock", "secret": {"0": {"card": "KD"}}}]
    assert "KD" in state["hands"][0] and GAME.view(state, 0)["turn"]["phase"] == "discard"
    assert {a["card"] for a in GAME.legal_actions(state, 0)} == set(JUNK0) | {"KD"}
    assert GAME.legal_actions(state, 1) == []
    refused(state, 0, {"type": "draw", "pile": "stock"}, IllegalAction)
    events = act(state, 0, "discard", "KD")
    assert events == [{"type": "discard", "seat": 0, "card": "KD"}]
    assert GAME.to_move(state) == 1
    assert GAME.legal_actions(state, 1) == [
        {"type": "draw", "pile": "stock"},
        {"type": "draw", "pile": "discard"},
    ]
    assert GAME.view(state, 1)["discard"] == {"top": "KD", "count": 1}


def test_taking_the_discard_and_the_card_cannot_go_back():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    events = act(state, 1, "draw", "discard")
    assert events == [{"type": "draw", "seat": 1, "pile": "discard", "card": "2S"}]
    assert state["discard"] == [] and "2S" in state["hands"][1]
    assert GAME.view(state, 0)["table"]["taken"] == "2S"
    assert "2S" not in [a["card"] for a in GAME.legal_actions(state, 1)]
    msg = refused(state, 1, {"type": "discard", "card": "2S"}, IllegalAction)
    assert "just took it" in msg
    act(state, 1, "discard", "KC")
    assert GAME.view(state, 0)["table"]["taken"] is None


def test_a_second_copy_of_the_taken_card_may_be_discarded_with_two_decks():
    h0 = ["2S", "6S", "TS", "3H", "7H", "JH", "4D", "8D", "QD", "5C", "9C", "KC", "AS", "AH"]
    h1 = ["3S", "7S", "JS", "4H", "8H", "QH", "5D", "9D", "KD", "6C", "TC", "AD", "2C", "2S"]
    state = new([h0, h1], variant="large")
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    act(state, 1, "draw", "discard")
    assert state["hands"][1].count("2S") == 2
    assert "2S" in [a["card"] for a in GAME.legal_actions(state, 1)]
    act(state, 1, "discard", "2S")
    assert state["hands"][1].count("2S") == 1


def test_the_discard_pile_starts_empty_and_only_its_top_may_be_taken():
    state = new([JUNK0, JUNK1])
    msg = refused(state, 0, {"type": "draw", "pile": "discard"}, IllegalAction)
    assert "empty" in msg
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    act(state, 1, "draw", "stock")
    act(state, 1, "discard", "8D")
    act(state, 0, "draw", "discard")
    assert state["taken"] == "8D" and state["discard"] == ["2S"]


# --------------------------------------------------------------------------------------------------
# Winning hands
# --------------------------------------------------------------------------------------------------


def zhol_after(state: dict, seat: int, discard: str) -> bool:
    act(state, seat, "draw", "stock")
    events = act(state, seat, "discard", discard)
    return any(e["type"] == "zhol" for e in events)


def test_small_zhol_three_and_four_wins_a_crown():
    state = new([["7H", "8H", "9H", "5S", "5D", "5C", "KC"], OTHER], stock_top=["5H"])
    act(state, 0, "draw", "stock")
    events = act(state, 0, "discard", "KC")
    assert [e["type"] for e in events] == ["discard", "zhol", "round_over"]
    assert events[1] == {"type": "zhol", "seat": 0} and events[2]["seat"] == 0 and events[2]["round"] == 1
    assert state["status"] == "round_over" and state["crowns"] == [1, 0]
    result = GAME.view(state, 1)["round_result"]
    assert result["winner"] == 0 and result["winners"] == [0]
    assert result["hands"][0]["leftover"] == []
    assert sorted(len(m["cards"]) for m in result["hands"][0]["melds"]) == [3, 4]
    assert result["hands"][1]["cards"] == state["hands"][1]  # every hand is shown
    assert GAME.view(state, 1)["players"][0]["crowns"] == 1
    assert GAME.view(state, 1)["scores"] == {"0": 1, "1": 0}
    assert GAME.legal_actions(state, 1) == [] and GAME.to_move(state) is None


def test_small_run_of_seven_is_shown_as_three_and_four():
    state = new([["2C", "3C", "4C", "5C", "6C", "7C", "KH"], OTHER], stock_top=["8C"])
    assert zhol_after(state, 0, "KH")
    melds = state["round_result"]["hands"][0]["melds"]
    assert sorted(len(m["cards"]) for m in melds) == [3, 4]
    assert all(interpretations(m["cards"], RULES) for m in melds)


def test_joker_at_a_run_end_wins():
    state = new([["7H", "8H", "JK", "5S", "5D", "5C", "KC"], OTHER], stock_top=["5H"])
    assert zhol_after(state, 0, "KC")
    melds = state["round_result"]["hands"][0]["melds"]
    assert any("JK" in m["cards"] and m["kind"] == "run" for m in melds)


def test_k_a_2_does_not_win():
    state = new([["KS", "AS", "2S", "5S", "5D", "5C", "KC"], OTHER], stock_top=["5H"])
    assert not zhol_after(state, 0, "KC")
    assert state["status"] == "active" and GAME.to_move(state) == 1


def test_ace_high_and_low_runs_win():
    for run in (["QS", "KS", "AS"], ["AS", "2S", "3S"]):
        state = new([[*run, "5S", "5D", "5C", "KC"], OTHER], stock_top=["5H"])
        assert zhol_after(state, 0, "KC")


def test_set_with_two_equal_suits_does_not_win():
    h0 = ["9S", "9S", "9H", "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "KC"]
    h1 = ["3S", "7S", "JS", "4H", "8H", "QH", "5C", "9C", "KD", "6C", "TC", "AH", "2C", "2S"]
    state = new([h0, h1], variant="large", stock_top=["QC"])
    assert not zhol_after(state, 0, "KC")
    assert state["status"] == "active"


@pytest.mark.parametrize(
    "winning",
    [
        # 3 + 11
        ["5H", "5D", "5C", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS"],
        # 4 + 5 + 5
        ["7C", "7D", "7H", "7S", "2H", "3H", "4H", "5H", "6H", "9D", "TD", "JD", "QD", "KD"],
        # 7 + 7 with two decks' copies and jokers
        ["AH", "2H", "3H", "JK", "5H", "6H", "7H", "8C", "9C", "TC", "JK", "QC", "KC", "AC"],
    ],
)
def test_large_winning_shapes(winning):
    hand = winning[:13] + ["2D"]
    other = ["3D", "4D", "6D", "8D", "8S", "QS", "KS", "3C", "4C", "6C", "9H", "TH", "JH", "QH"]
    state = new([hand, other], variant="large", stock_top=[winning[13]])
    assert zhol_after(state, 0, "2D")
    shown = state["round_result"]["hands"][0]["melds"]
    assert sorted(c for m in shown for c in m["cards"]) == sorted(winning)


# --------------------------------------------------------------------------------------------------
# Crowns, next hands, match end
# --------------------------------------------------------------------------------------------------


def test_next_hand_first_player_rotates_and_target_wins_ends_the_match():
    winner = ["7H", "8H", "9H", "5S", "5D", "5C", "KC"]
    state = new([winner, OTHER], stock_top=["5H"], target_wins=2)
    assert zhol_after(state, 0, "KC")
    refused(state, 1, {"type": "draw", "pile": "stock"}, MatchNotActive)
    events = GAME.start_next_round(state).events
    assert events[0]["type"] == "deal" and events[0]["first_player"] == 1
    assert state["round"] == 2 and GAME.to_move(state) == 1 and state["discard"] == []
    assert GAME.view(state, 0)["round_result"]["round"] == 1  # the last hand stays visible
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)
    # the second hand is shuffled from the seed; rearrange it so that seat 0 wins again
    other = ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]
    state["hands"] = [sort_hand(winner), sort_hand(other)]
    state["stock"] = [c for c in deck(1, 2) if c not in winner + other]
    act(state, 1, "draw", "stock")
    act(state, 1, "discard", "5H")
    act(state, 0, "draw", "discard")
    events = act(state, 0, "discard", "KC")
    assert [e["type"] for e in events] == ["discard", "zhol", "round_over", "match_over"]
    assert state["status"] == "finished" and state["winners"] == [0]
    assert GAME.view(state, None)["winners"] == [0]
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


def test_four_players_next_first_player_wraps():
    hands = [["7H", "8H", "9H", "5S", "5D", "5C", "KC"], OTHER, THIRD, FOURTH]
    state = new(hands, first=3, stock_top=["5H"])
    act(state, 3, "draw", "stock")
    act(state, 3, "discard", "5H")
    act(state, 0, "draw", "discard")
    assert [e["type"] for e in act(state, 0, "discard", "KC")] == ["discard", "zhol", "round_over"]
    assert state["crowns"] == [1, 0, 0, 0]
    GAME.start_next_round(state)
    assert GAME.to_move(state) == 0 and state["first_player"] == 0
    for first in (1, 2, 3, 0):
        GAME._hand_over(state, None)
        GAME.start_next_round(state)
        assert state["first_player"] == first == GAME.to_move(state)


def test_end_match_gives_the_win_to_the_most_crowns():
    state = new(seats=4)
    state["crowns"] = [1, 3, 3, 0]
    (event,) = GAME.end_match(state).events
    assert event["type"] == "match_over" and event["winners"] == [1, 2] and event["reason"] == "ended"
    assert state["status"] == "finished" and state["winners"] == [1, 2]
    with pytest.raises(MatchNotActive):
        GAME.end_match(state)
    state = new(seats=2)
    GAME.end_match(state)
    assert state["winners"] == [0, 1]


# --------------------------------------------------------------------------------------------------
# Stock, reshuffle, clock, resigning
# --------------------------------------------------------------------------------------------------


def test_reshuffle_when_drawing_from_an_empty_stock():
    state = new([JUNK0, JUNK1])
    seat = 0
    while state["stock"]:
        act(state, seat, "draw", "stock")
        act(state, seat, "discard", state["drawn"]["card"])
        seat = 1 - seat
    assert len(state["discard"]) == 40
    top = state["discard"][-1]
    under = sorted(state["discard"][:-1])
    assert GAME.legal_actions(state, seat)[0] == {"type": "draw", "pile": "stock"}
    events = act(state, seat, "draw", "stock")
    assert [e["type"] for e in events] == ["reshuffle", "draw"]
    assert events[0]["stock"] == 39
    assert state["discard"] == [top]
    assert sorted(state["stock"] + [state["drawn"]["card"]]) == under
    assert len(state["stock"]) == 38
    # the same seed shuffles the same way
    again = new([JUNK0, JUNK1])
    s = 0
    while again["stock"]:
        act(again, s, "draw", "stock")
        act(again, s, "discard", again["drawn"]["card"])
        s = 1 - s
    act(again, s, "draw", "stock")
    assert again["stock"] == state["stock"]


def test_empty_stock_with_a_single_discard_leaves_only_the_discard():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2S")
    # a state no real play reaches (26+ cards are always outside the hands): an empty stock
    state["stock"] = []
    assert GAME.legal_actions(state, 1) == [{"type": "draw", "pile": "discard"}]
    assert "nothing to shuffle" in refused(state, 1, {"type": "draw", "pile": "stock"}, IllegalAction)
    act(state, 1, "draw", "discard")
    assert state["hands"][1].count("2S") == 1


def test_a_hand_without_any_draw_left_ends_drawn():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    events = GAME._hand_over(state, None)
    assert events[0]["type"] == "round_over" and events[0]["seat"] is None
    assert state["status"] == "round_over" and state["crowns"] == [0, 0]
    assert state["round_result"]["winners"] == [] and state["round_result"]["winner"] is None
    GAME.start_next_round(state)
    assert state["round"] == 2 and GAME.to_move(state) == 1


def test_timeout_before_drawing_draws_from_the_stock_and_discards_it():
    state = new([JUNK0, JUNK1], stock_top=["KD"])
    with pytest.raises(NotYourTurn):
        GAME.apply_timeout(state, 1)
    events = GAME.apply_timeout(state, 0).events
    assert [(e["type"], e.get("auto")) for e in events] == [("draw", True), ("discard", True)]
    assert events[1]["card"] == "KD" and state["hands"][0] == sort_hand(JUNK0)
    assert GAME.to_move(state) == 1 and state["discard"] == ["KD"]


def test_timeout_after_drawing():
    state = new([JUNK0, JUNK1], stock_top=["KD"])
    act(state, 0, "draw", "stock")
    events = GAME.apply_timeout(state, 0).events
    assert events == [{"type": "discard", "seat": 0, "card": "KD", "auto": True}]
    # after taking the discard, the taken card may not go back: the bot's choice is discarded
    act(state, 1, "draw", "discard")
    hand = list(state["hands"][1])
    events = GAME.apply_timeout(state, 1).events
    assert events[0]["auto"] and events[0]["card"] != "KD"
    assert events[0]["card"] == choose_discard(hand, "KD")
    finished = new([JUNK0, JUNK1])
    GAME.end_match(finished)
    with pytest.raises(MatchNotActive):
        GAME.apply_timeout(finished, 0)


def test_timeout_can_complete_a_zhol():
    other = ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]
    state = new([["7H", "8H", "9H", "5S", "5D", "5C", "KC"], other], stock_top=["2C", "3D"])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "2C")
    act(state, 1, "draw", "stock")
    act(state, 1, "discard", "5H")
    act(state, 0, "draw", "discard")
    # the clock runs out after taking 5H: the bot's discard is KC, which makes the Zhol
    events = GAME.apply_timeout(state, 0).events
    assert [e["type"] for e in events] == ["discard", "zhol", "round_over"]
    assert events[0] == {"type": "discard", "seat": 0, "card": "KC", "auto": True}
    assert state["crowns"] == [1, 0]


def test_resign_with_two_players_ends_the_match():
    state = new([JUNK0, JUNK1])
    events = GAME.apply(state, 1, {"type": "resign"}).events
    assert [e["type"] for e in events] == ["resign", "match_over"]
    assert state["status"] == "finished" and state["winners"] == [0]
    assert GAME.view(state, 1)["players"][1]["resigned"] is True
    refused(state, 0, {"type": "resign"}, MatchNotActive)


def test_resign_between_hands():
    state = new([["7H", "8H", "9H", "5S", "5D", "5C", "KC"], OTHER], stock_top=["5H"])
    assert zhol_after(state, 0, "KC")
    GAME.apply(state, 0, {"type": "resign"})
    assert state["status"] == "finished" and state["winners"] == [1]


def test_resign_with_four_players_play_continues_and_the_seat_cannot_win():
    hands = [["7H", "8H", "9H", "5S", "5D", "5C", "KC"], OTHER, THIRD, FOURTH]
    state = new(hands, stock_top=["5H"])
    events = GAME.apply(state, 0, {"type": "resign"}).events
    assert events == [{"type": "resign", "seat": 0}]
    assert state["status"] == "active" and GAME.to_move(state) == 0
    assert "already resigned" in refused(state, 0, {"type": "resign"}, IllegalAction)
    # the resigned seat (played by a bot) completes a full split: no Zhol is called
    act(state, 0, "draw", "stock")
    events = act(state, 0, "discard", "KC")
    assert [e["type"] for e in events] == ["discard"]
    assert state["status"] == "active" and GAME.to_move(state) == 1
    state["crowns"] = [4, 1, 1, 0]
    ended = copy.deepcopy(state)
    GAME.end_match(ended)
    assert ended["winners"] == [1, 2]  # the resigned seat ranks last whatever its crowns
    GAME.apply(state, 1, {"type": "resign"})
    assert state["status"] == "active"
    events = GAME.apply(state, 3, {"type": "resign"}).events
    assert events[-1]["type"] == "match_over" and events[-1]["winners"] == [2]
    assert events[-1]["reason"] == "resign" and state["winners"] == [2]


# --------------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        None,
        [],
        "draw",
        {},
        {"type": "pass"},
        {"type": "draw"},
        {"type": "draw", "pile": "table"},
        {"type": "draw", "pile": ["stock"]},
        {"type": "draw", "pile": "stock", "card": "7H"},
        {"type": "discard"},
        {"type": "discard", "card": "1H"},
        {"type": "discard", "card": 7},
        {"type": "discard", "card": None},
        {"type": "discard", "card": "7H", "extra": 1},
        {"type": "resign", "seat": 0},
        {"type": ["draw"]},
    ],
)
def test_malformed_actions_are_invalid(action):
    state = new([JUNK0, JUNK1])
    refused(state, 0, action, InvalidAction)


def test_out_of_turn_and_unknown_seats():
    state = new([JUNK0, JUNK1])
    refused(state, 1, {"type": "draw", "pile": "stock"}, NotYourTurn)
    refused(state, "0", {"type": "draw", "pile": "stock"}, NotYourTurn)
    refused(state, 7, {"type": "resign"}, NotYourTurn)
    refused(state, None, {"type": "discard", "card": "2S"}, NotYourTurn)


def test_rule_refusals_are_illegal():
    state = new([JUNK0, JUNK1])
    assert "draw a card first" in refused(state, 0, {"type": "discard", "card": "2S"}, IllegalAction)
    act(state, 0, "draw", "stock")
    assert "do not hold" in refused(state, 0, {"type": "discard", "card": "QH"}, IllegalAction)
    assert "drawn already" in refused(state, 0, {"type": "draw", "pile": "discard"}, IllegalAction)


# --------------------------------------------------------------------------------------------------
# Views, JSON, bots
# --------------------------------------------------------------------------------------------------


def test_views_hide_other_hands_and_the_stock():
    state = new([JUNK0, JUNK1], stock_top=["KD"])
    act(state, 0, "draw", "stock")
    for viewer in (0, 1):
        view = GAME.view(state, viewer)
        assert view["hand"] == state["hands"][viewer]
        text = json.dumps(view)
        assert "seed" not in text and "rng" not in text
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []
    assert cards_in(spectator) == []
    assert set(cards_in(GAME.view(state, 1))) == set(JUNK1)
    assert spectator["players"] == [
        {"seat": 0, "cards": 8, "resigned": False, "crowns": 0},
        {"seat": 1, "cards": 7, "resigned": False, "crowns": 0},
    ]
    assert spectator["table"]["crowns"] == {"0": 0, "1": 0}


def test_state_survives_a_json_round_trip_mid_hand():
    state = new([JUNK0, JUNK1])
    act(state, 0, "draw", "stock")
    copy_ = json.loads(json.dumps(state))
    assert copy_ == state
    act(copy_, 0, "discard", "2S")
    act(state, 0, "discard", "2S")
    assert copy_ == state and state["schema_version"] == 1


def test_bot_moves_are_legal_from_the_view_only():
    rng = random.Random(1)
    for seed in range(30):
        state, _ = GAME.new_match(GAME.validate_options({"variant": "small"}, 2), 2, seed)
        for _ in range(10):
            seat = GAME.to_move(state)
            view = GAME.view(state, seat)
            action = bots.decide(GAME, view, rng.choice(["easy", "medium", "hard", "pro"]), rng)
            assert action in GAME.legal_actions(state, seat)
            GAME.apply(state, seat, action)
            if state["status"] != "active":
                break


def test_bot_takes_a_useful_discard_and_keeps_its_groups():
    other = ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]
    state = new([["7H", "8H", "9H", "5S", "5D", "KD", "2C"], other], stock_top=["AS", "3D"])
    act(state, 0, "draw", "stock")
    act(state, 0, "discard", "AS")
    act(state, 1, "draw", "stock")
    rng = random.Random(0)
    assert bots.decide(GAME, GAME.view(state, 1), "pro", rng) in GAME.legal_actions(state, 1)
    act(state, 1, "discard", "5H")
    assert bots.decide(GAME, GAME.view(state, 0), "pro", rng) == {"type": "draw", "pile": "discard"}
    act(state, 0, "draw", "discard")
    action = bots.decide(GAME, GAME.view(state, 0), "pro", rng)
    assert action in ({"type": "discard", "card": "KD"}, {"type": "discard", "card": "2C"})
    # with nothing useful on the pile it draws from the stock
    act(state, 0, "discard", action["card"])
    act(state, 1, "draw", "stock")
    act(state, 1, "discard", "AH")
    assert bots.decide(GAME, GAME.view(state, 0), "pro", rng) == {"type": "draw", "pile": "stock"}

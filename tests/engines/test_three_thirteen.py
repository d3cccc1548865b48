"""Three Thirteen engine: a test per rule and option of docs/rules/three-thirteen.md, and random playouts."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import bots
from engines.base import redact_event
from engines.cards import JOKER
from engines.errors import (
    EngineError,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    MatchNotActive,
    NotYourTurn,
)
from engines.meld_solver import best_split
from engines.melds import classify
from engines.three_thirteen import GAME
from engines.three_thirteen import rules as tt
from engines.three_thirteen.game import BOOLEAN_OPTIONS
from tests.engines.harness import play_random

RANKS = "A23456789TJQK"


# --- helpers ---------------------------------------------------------------------------


def options_for(num_seats: int = 2, dealer: int | None = 0, **flags: Any) -> dict[str, Any]:
    return GAME.validate_options({"first_dealer": dealer, **flags}, num_seats)


def stacked_deck(
    options: dict[str, Any],
    dealer: int,
    hands: list[list[str]],
    discard: str,
    stock: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The deck (top first) that deals `hands[seat]` to each seat, then `discard`, then `stock` on top.

    Cards go one at a time from dealer+1; the rest of the game's deck follows in a fixed order.
    """
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    top = [hands[(dealer + 1 + k) % n][k // n] for k in range(size * n)] + [discard, *stock]
    rest = Counter(GAME.full_deck(options))
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), "the stacked cards are not all in the deck"
    return top + sorted(rest.elements(), key=lambda c: (tt.sort_key(c), c))


def start(
    hands: list[list[str]],
    discard: str,
    stock: list[str] | tuple[str, ...] = (),
    *,
    dealer: int = 0,
    round_no: int = 1,
    seed: int = 1,
    **flags: Any,
) -> tuple[dict, list[dict]]:
    """A match whose round `round_no` is dealt from a stacked deck (later rounds: the deal is forced)."""
    n = len(hands)
    options = options_for(n, dealer, **flags)
    deck = stacked_deck(options, dealer, hands, discard, stock)
    if round_no == 1:
        return GAME.new_match(options, n, seed, deck)
    state, _ = GAME.new_match(options, n, seed)
    state["round"] = round_no - 1
    state["dealer"] = (dealer - 1) % n
    return state, GAME._deal(state, deck)


def act(state: dict, seat: int, **action: Any) -> list[dict]:
    return GAME.apply(state, seat, action).events


def turn(state: dict, seat: int, discard: str, pile: str = "stock", **extra: Any) -> list[dict]:
    """Draw from `pile`, then discard `discard`."""
    events = act(state, seat, type="draw", pile=pile)
    return events + act(state, seat, type="discard", card=discard, **extra)


def refused(state: dict, seat: int, action: object, error: type) -> str:
    """Assert that `action` is refused with `error` and leaves the state exactly unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action)  # type: ignore[arg-type]
    assert state == before
    return str(info.value)


def all_cards(state: dict) -> list[str]:
    cards = list(state["stock"]) + list(state["discard"])
    for hand in state["hands"]:
        cards += hand
    for meld in state["melds"]:
        cards += meld["cards"]
    for dumped in state["dumped"]:
        cards += dumped
    return cards


def finish_round_passing(state: dict) -> None:
    """Play the final turns after a going out: draw from the stock and discard the card drawn."""
    assert state["went_out"] is not None
    while state["status"] == "active":
        seat = GAME.to_move(state)
        if state["phase"] == "lay_off":
            act(state, seat, type="end_turn")
            continue
        drawn = state["stock"][0]
        turn(state, seat, drawn)


# --- options ---------------------------------------------------------------------------


def test_describe_lists_every_option_with_defaults():
    info = GAME.describe()
    assert info["id"] == "three-thirteen"
    assert info["name"] == "Three Thirteen"
    assert info["players"] == {"min": 2, "max": 7}
    assert info["options"]["first_dealer"]["default"] is None
    assert set(info["options"]) == {"first_dealer", *BOOLEAN_OPTIONS}
    assert len(BOOLEAN_OPTIONS) == 11
    for name in BOOLEAN_OPTIONS:
        assert (info["options"][name]["type"], info["options"][name]["default"]) == ("boolean", False)
    assert GAME.validate_options({}, 4) == {"first_dealer": None, **{name: False for name in BOOLEAN_OPTIONS}}


@pytest.mark.parametrize(
    ("options", "seats", "words"),
    [
        ({"first_dealer": 3}, 3, "first_dealer"),
        ({"first_dealer": 7}, 7, "at most 6"),
        ({"first_dealer": -1}, 2, "at least 0"),
        ({"first_dealer": True}, 2, "integer"),
        ({"joker_dump": True}, 3, "joker_dump needs jokers_wild"),
        ({"extra_rounds": True, "up_and_down": True}, 3, "cannot be combined"),
        ({"extra_rounds": True}, 7, "cannot be dealt 15 cards"),
        ({"extra_rounds": True, "jokers_wild": True, "joker_dump": True}, 7, "cannot be dealt 15"),
        ({"aces_high_low": "yes"}, 2, "true or false"),
        ({"wilds": True}, 2, "unknown option"),
        ({}, 1, "2 to 7 players"),
        ({}, 8, "2 to 7 players"),
    ],
)
def test_invalid_options(options, seats, words):
    with pytest.raises(InvalidOptions) as info:
        GAME.validate_options(options, seats)
    assert words in str(info.value)


def test_extra_rounds_for_seven_need_jokers_that_stay_in_play():
    options = GAME.validate_options({"extra_rounds": True, "jokers_wild": True}, 7)
    state, _ = GAME.new_match(options, 7, 3)
    assert state["schedule"][-1] == 15
    # Six players fit in two plain decks even with 15 cards each.
    GAME.validate_options({"extra_rounds": True}, 6)
    # all_wild_melds without jokers is accepted (it only matters with jokers).
    GAME.validate_options({"all_wild_melds": True}, 2)


def test_stacked_deck_must_be_the_games_deck():
    options = options_for(2)
    with pytest.raises(InvalidOptions):
        GAME.new_match(options, 2, 1, GAME.full_deck(options)[:-1])
    with pytest.raises(InvalidOptions):
        GAME.new_match(options, 2, 1, GAME.full_deck(options)[:-1] + [JOKER])
    assert len(GAME.full_deck(options)) == 104
    assert Counter(GAME.full_deck(options_for(2, jokers_wild=True)))[JOKER] == 4


# --- schedule, wild ranks, deal -----------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "sizes"),
    [
        ({}, list(range(3, 14))),
        ({"extra_rounds": True}, list(range(3, 16))),
        ({"up_and_down": True}, list(range(3, 14)) + list(range(13, 2, -1))),
    ],
)
def test_round_schedule_and_wild_ranks(flags, sizes):
    assert tt.schedule(options_for(3, **flags)) == sizes
    assert len(sizes) in (11, 13, 22)
    wilds = [tt.WILD_RANK[n] for n in sizes]
    assert wilds[:11] == list("3456789TJQK")
    if flags.get("extra_rounds"):
        assert wilds[11:] == ["A", "2"]


def test_deal_one_card_at_a_time_from_left_of_the_dealer():
    options = options_for(3, dealer=1)
    deck = GAME.full_deck(options)
    random.Random(4).shuffle(deck)
    state, events = GAME.new_match(options, 3, 9, deck)
    # Seat 2 (dealer+1) gets cards 0, 3, 6; seat 0 gets 1, 4, 7; seat 1 (the dealer) 2, 5, 8.
    assert sorted(state["hands"][2]) == sorted(deck[0:9:3])
    assert sorted(state["hands"][0]) == sorted(deck[1:9:3])
    assert sorted(state["hands"][1]) == sorted(deck[2:9:3])
    assert state["discard"] == [deck[9]]
    assert state["stock"] == deck[10:]
    assert GAME.to_move(state) == 2 and state["phase"] == "draw"
    deal = events[0]
    assert deal["type"] == "deal" and deal["dealer"] == 1 and deal["cards"] == 3 and deal["wild_rank"] == "3"
    assert deal["discard"] == deck[9]
    for seat in range(3):
        assert redact_event(deal, seat)["hand"] == state["hands"][seat]
    assert "hand" not in redact_event(deal, None)


def test_first_dealer_drawn_from_the_seed():
    dealers = set()
    for seed in range(30):
        options = GAME.validate_options({}, 5)
        a, _ = GAME.new_match(options, 5, seed)
        b, _ = GAME.new_match(options, 5, seed)
        assert a == b
        assert 0 <= a["dealer"] < 5
        dealers.add(a["dealer"])
    assert len(dealers) == 5


def test_the_deal_passes_left_and_later_rounds_grow_and_are_shuffled():
    hands = [["2S", "3D", "4S"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", ["AH"], dealer=1)
    assert state["dealer"] == 1 and GAME.to_move(state) == 0
    turn(state, 0, "AH")
    finish_round_passing(state)
    assert state["status"] == "round_over"
    events = GAME.start_next_round(state).events
    assert state["round"] == 2 and state["dealer"] == 0 and GAME.to_move(state) == 1
    assert [len(h) for h in state["hands"]] == [4, 4]
    assert events[0]["wild_rank"] == "4"
    assert sorted(all_cards(state)) == sorted(GAME.full_deck(state["options"]))
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


# --- turn ----------------------------------------------------------------------------------


def test_draw_then_discard_and_the_events_hide_stock_draws():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", ["5H", "9C"], dealer=1)
    assert GAME.legal_actions(state, 0) == [
        {"type": "draw", "pile": "stock"},
        {"type": "draw", "pile": "discard"},
    ]
    assert GAME.legal_actions(state, 1) == []
    events = act(state, 0, type="draw", pile="stock")
    assert events == [{"type": "draw", "seat": 0, "pile": "stock", "secret": {"0": {"card": "5H"}}}]
    assert redact_event(events[0], 1) == {"type": "draw", "seat": 0, "pile": "stock"}
    assert state["phase"] == "discard"
    assert {a["card"] for a in GAME.legal_actions(state, 0)} == {"2S", "4D", "6C", "5H"}
    events = act(state, 0, type="discard", card="2S")
    assert events == [{"type": "discard", "seat": 0, "card": "2S"}]
    assert state["discard"][-1] == "2S" and GAME.to_move(state) == 1
    events = act(state, 1, type="draw", pile="discard")
    assert events == [{"type": "draw", "seat": 1, "pile": "discard", "card": "2S"}]
    assert "2S" in state["hands"][1] and state["discard"] == ["KC"]
    # Taking the discard and throwing it back is allowed.
    act(state, 1, type="discard", card="2S")
    assert state["discard"] == ["KC", "2S"]


def test_refusals_leave_the_state_unchanged():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", dealer=1)
    assert "draw first" in refused(state, 0, {"type": "discard", "card": "2S"}, IllegalAction)
    refused(state, 1, {"type": "draw", "pile": "stock"}, NotYourTurn)
    act(state, 0, type="draw", pile="stock")
    assert "drawn already" in refused(state, 0, {"type": "draw", "pile": "stock"}, IllegalAction)
    assert "do not hold" in refused(state, 0, {"type": "discard", "card": "8H"}, IllegalAction)
    assert "joker_dump is off" in refused(
        state, 0, {"type": "discard", "card": "2S", "onto": 1}, IllegalAction
    )
    assert "nothing to declare" in refused(
        state, 0, {"type": "discard", "card": "2S", "declare_out": True}, IllegalAction
    )
    assert "redemption" in refused(state, 0, {"type": "end_turn"}, IllegalAction)
    assert "redemption" in refused(state, 0, {"type": "lay_off", "card": "2S", "meld": "m1"}, IllegalAction)


@pytest.mark.parametrize(
    "action",
    [
        None,
        [],
        "draw",
        {},
        {"type": "play", "card": "2S"},
        {"type": "draw"},
        {"type": "draw", "pile": "table"},
        {"type": "draw", "pile": "stock", "card": "2S"},
        {"type": "discard"},
        {"type": "discard", "card": "2s"},
        {"type": "discard", "card": "1S"},
        {"type": "discard", "card": 7},
        {"type": "discard", "card": "2S", "onto": True},
        {"type": "discard", "card": "2S", "onto": 2},
        {"type": "discard", "card": "2S", "onto": "1"},
        {"type": "discard", "card": "2S", "declare_out": 1},
        {"type": "discard", "card": "2S", "extra": 1},
        {"type": "lay_off", "card": "2S"},
        {"type": "lay_off", "card": "2S", "meld": 1},
        {"type": "end_turn", "now": True},
        {"type": "resign", "seat": 1},
    ],
)
def test_malformed_actions_are_invalid(action):
    state, _ = start([["2S", "4D", "6C"], ["8H", "TS", "QD"]], "KC", dealer=1)
    refused(state, 0, action, InvalidAction)


# --- melds and going out ------------------------------------------------------------------


def test_going_out_gives_every_other_player_exactly_one_more_turn():
    # Round 1, threes wild. Seat 1 (dealer+1) holds a run and goes out at once.
    hands = [["KS", "KD", "9C"], ["5H", "6H", "7H"], ["2C", "4D", "8S"]]
    state, _ = start(hands, "QC", ["JD", "AS", "AH", "TC"], dealer=0)
    events = turn(state, 1, "JD")
    assert [e["type"] for e in events] == ["draw", "discard", "went_out"]
    assert events[-1]["melds"][0]["cards"] == ["5H", "6H", "7H"]
    assert state["went_out"] == 1 and state["hands"][1] == []
    assert state["final_turns"] == [2, 0]
    view = GAME.view(state, 2)
    assert view["table"]["went_out"] == 1 and view["table"]["final_turns_left"] == 2
    assert view["table"]["melds"][0]["owner"] == 1
    turn(state, 2, "AS")
    assert state["final_turns"] == [0] and GAME.to_move(state) == 0
    # Seat 0 draws the AH and discards the 9C: the round is over.
    events = turn(state, 0, "9C")
    assert state["status"] == "round_over" and events[-1]["type"] == "round_over"
    result = state["round_result"]
    assert result["went_out"] == 1 and result["wild_rank"] == "3" and result["cards_dealt"] == 3
    assert result["points"] == {"0": 10 + 10 + 1, "1": 0, "2": 2 + 4 + 8}
    assert result["players"][1]["hand"] == ["5H", "6H", "7H"]
    assert result["players"][0]["hand"] == ["KS", "AH", "KD"]
    assert result["players"][2]["leftover"] == ["8S", "4D", "2C"] and result["players"][2]["melds"] == []
    assert result["winners"] == [1]
    assert state["scores"] == [21, 0, 14]
    assert GAME.view(state, None)["scores"] == {"0": 21, "1": 0, "2": 14}


def test_a_wild_card_stands_in_once_per_meld():
    # Seat 1: 5H 3C 7H goes out (3C is 6H), seat 0's 9S 3D 3H cannot: two wilds, no third nine.
    hands = [["9S", "3D", "3H"], ["5H", "3C", "7H"]]
    state, _ = start(hands, "QC", ["KD", "KH"], dealer=0)
    turn(state, 1, "KD")
    assert state["went_out"] == 1
    assert state["melds"][0]["stands_for"] == ["5H", "6H", "7H"]
    turn(state, 0, "KH")
    # 9S 3D 3H: no meld, so 9 + 15 + 15.
    assert state["round_result"]["points"] == {"0": 39, "1": 0}


def test_multiple_wilds_lift_the_one_wild_rule():
    hands = [["9S", "3D", "3H"], ["2C", "8D", "KC"]]
    state, _ = start(hands, "QC", ["JS"], dealer=1, multiple_wilds=True)
    turn(state, 0, "JS")
    assert state["went_out"] == 0
    assert state["melds"][0]["kind"] == "set"
    assert state["melds"][0]["stands_for"] == ["9S", "9?", "9?"]


def test_wild_rank_cards_stand_for_themselves_in_a_plain_set():
    hands = [["3C", "3D", "3H"], ["2C", "8D", "KC"]]
    state, _ = start(hands, "QC", ["JS"], dealer=1)
    turn(state, 0, "JS")
    assert state["went_out"] == 0
    assert state["melds"][0]["kind"] == "set"
    assert sorted(state["melds"][0]["stands_for"]) == ["3C", "3D", "3H"]


def test_sets_may_repeat_suits_and_runs_need_one_suit():
    # Round 2 (fours wild): two 9S (two decks) and a 9D are a set; 5H 6D 7H is no run.
    hands = [["9S", "9S", "9D", "KH"], ["5H", "6D", "7H", "QC"]]
    state, _ = start(hands, "2C", ["JS", "AD"], dealer=1, round_no=2)
    assert state["round"] == 2 and tt.WILD_RANK[4] == "4"
    assert GAME.view(state, 0)["table"]["wild_rank"] == "4"
    turn(state, 0, "KH")
    # 9S 9S 9D + JS: the set keeps three nines, the JS is left: not out.
    assert state["went_out"] is None
    turn(state, 1, "QC")
    assert state["went_out"] is None  # 5H 6D 7H AD is no run


def test_ace_is_low_only_unless_aces_high_low():
    hands = [["QH", "KH", "AH"], ["2C", "8D", "TC"]]
    state, _ = start(hands, "9C", ["JS", "5S"], dealer=1)
    turn(state, 0, "JS")
    assert state["went_out"] is None
    turn(state, 1, "5S")
    state, _ = start(hands, "9C", ["JS", "5S"], dealer=1, aces_high_low=True)
    turn(state, 0, "JS")
    assert state["went_out"] == 0 and state["melds"][0]["ace_high"] is True
    # A-2-3 stays allowed with aces high or low; K-A-2 never.
    hands = [["KH", "AH", "2H"], ["2C", "8D", "TC"]]
    state, _ = start(hands, "9C", ["JS", "5S"], dealer=1, aces_high_low=True)
    turn(state, 0, "JS")
    assert state["went_out"] is None


def test_card_points_and_every_scoring_option():
    plain = options_for(2)
    assert [
        tt.card_points(c, plain, "5") for c in ("AS", "2H", "9D", "TC", "JS", "QH", "KD", "5C", JOKER)
    ] == [
        1,
        2,
        9,
        10,
        10,
        10,
        10,
        15,
        20,
    ]
    high = options_for(2, aces_high_low=True, face_cards_11_12_13=True)
    assert [tt.card_points(c, high, "5") for c in ("AS", "JS", "QH", "KD", "TC")] == [15, 11, 12, 13, 10]
    # In the K round a king is wild: 15, not 13.
    assert tt.card_points("KD", high, "K") == 15
    assert tt.doubled(options_for(2, double_face_rounds=True), 11)
    assert not tt.doubled(options_for(2, double_face_rounds=True), 10)
    assert not tt.doubled(options_for(2), 12)


def test_scoring_with_aces_high_and_face_values():
    hands = [["AS", "KD", "9C"], ["5H", "6H", "7H"]]
    state, _ = start(hands, "QC", ["JD", "2S"], dealer=0, aces_high_low=True, face_cards_11_12_13=True)
    turn(state, 1, "JD")
    turn(state, 0, "2S")
    assert state["round_result"]["points"]["0"] == 15 + 13 + 9


def test_double_face_rounds_double_the_jack_round_but_not_a_false_out_penalty():
    size = 11
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "KS", "KD", "5C"],
        ["2C", "4C", "6C", "8C", "TC", "QC", "2D", "4D", "6D", "8D", "TD"],
    ]
    flags = {"double_face_rounds": True, "false_out_penalty": True}
    state, _ = start(hands, "QS", ["AD", "KC"], dealer=1, round_no=9, **flags)
    table = GAME.view(state, 0)["table"]
    assert table["wild_rank"] == "J" and table["doubled"] is True and table["cards_dealt"] == size
    # Seat 0 declares going out wrongly: 20 points, and play goes on.
    events = turn(state, 0, "AD", declare_out=True)
    assert events[-1] == {"type": "false_out", "seat": 0, "penalty": 20}
    assert state["went_out"] is None and state["penalties"] == [20, 0]
    turn(state, 1, "KC")
    turn(state, 0, "5C", pile="discard", declare_out=True)
    assert state["went_out"] == 0
    turn(state, 1, state["stock"][0])
    result = state["round_result"]
    assert result["doubled"] is True
    assert result["players"][0]["points"] == 20 and result["players"][0]["cards_points"] == 0
    left = best_split(
        state["hands"][1], tt.meld_rules(state["options"], size), tt.points_function(state["options"], size)
    )
    assert left.points > 0
    assert result["players"][1]["points"] == 2 * left.points


def test_extra_rounds_make_aces_then_twos_wild():
    options = options_for(2, extra_rounds=True)
    assert [tt.WILD_RANK[n] for n in tt.schedule(options)[-2:]] == ["A", "2"]
    hands = [
        ["AS", "5H", "7H", *"2C 4C 6C 8C TC QC 2D 4D 6D 8D QD".split()],
        ["3S", "5S", "7S", "9S", "JS", "3H", "9H", "JH", "3D", "5D", "7D", "9D", "JD", "3C"],
    ]
    state, _ = start(hands, "KD", ["KC"], dealer=1, round_no=12, extra_rounds=True)
    table = GAME.view(state, 0)["table"]
    assert table["wild_rank"] == "A" and table["cards_dealt"] == 14 and table["rounds"] == 13
    assert tt.meld_rules(state["options"], 14).wild_rank == "A"
    hands15 = [
        ["2S", "5H", "7H", *"3C 4C 6C 8C TC QC 3D 4D 6D 8D QD AS".split()],
        ["3S", "5S", "7S", "9S", "JS", "3H", "9H", "JH", "5D", "7D", "9D", "JD", "9C", "JC", "KC"],
    ]
    state, _ = start(hands15, "KD", ["KH"], dealer=1, round_no=13, extra_rounds=True)
    assert GAME.view(state, 0)["table"]["wild_rank"] == "2"
    assert [len(h) for h in state["hands"]] == [15, 15]
    # The 2 is wild in the 15-card round; an unmatched ace is an ordinary 1 there.
    rules = tt.meld_rules(state["options"], 15)
    assert classify(["5H", "2S", "7H"], rules) is not None
    assert tt.points_function(state["options"], 15)("AS") == 1
    assert tt.points_function(state["options"], 15)("2S") == 15


# --- stock --------------------------------------------------------------------------------


def test_an_empty_stock_is_renewed_from_the_discard_pile_but_its_top_card():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", dealer=1)
    pile = state["stock"][:-1]
    state["discard"] = pile + state["discard"]
    state["stock"] = state["stock"][-1:]
    last = state["stock"][0]
    events = turn(state, 0, last)
    assert redact_event(events[-1], 1) == {
        "type": "reshuffle",
        "stock": len(pile) + 1,
        "deal_commitment": events[-1]["deal_commitment"],
    }
    assert state["discard"] == [last]
    assert sorted(state["stock"]) == sorted([*pile, "KC"])
    assert sorted(all_cards(state)) == sorted(GAME.full_deck(state["options"]))
    assert GAME.view(state, 1)["stock"] == len(pile) + 1


# --- jokers -------------------------------------------------------------------------------


def test_jokers_are_wild_and_cost_twenty():
    hands = [["JK", "KD", "9C"], ["5H", JOKER, "7H"]]
    state, _ = start(hands, "QC", ["JD", "2S"], dealer=0, jokers_wild=True)
    assert len(state["stock"]) + 7 == 108
    turn(state, 1, "JD")
    assert state["went_out"] == 1
    turn(state, 0, "2S")
    assert state["round_result"]["points"]["0"] == 20 + 10 + 9


def test_all_wild_melds_allow_a_meld_of_jokers_only():
    hands = [[JOKER, JOKER, "3D"], ["2C", "8D", "KC"]]
    state, _ = start(hands, "QC", ["JS"], dealer=1, jokers_wild=True)
    turn(state, 0, "JS")
    assert state["went_out"] is None
    state, _ = start(hands, "QC", ["JS"], dealer=1, jokers_wild=True, all_wild_melds=True)
    turn(state, 0, "JS")
    assert state["went_out"] == 0


def test_joker_dump_puts_a_joker_in_front_of_another_player_for_nothing():
    hands = [["5H", "6H", "7H"], ["2C", "8D", "KC"], ["4S", "9S", "TD"]]
    state, _ = start(hands, "QC", [JOKER, "AD", "AC", "AH"], dealer=0, jokers_wild=True, joker_dump=True)
    act(state, 1, type="draw", pile="stock")
    legal = GAME.legal_actions(state, 1)
    assert {"type": "discard", "card": JOKER, "onto": 2} in legal
    assert {"type": "discard", "card": JOKER, "onto": 0} in legal
    assert {"type": "discard", "card": JOKER, "onto": 1} not in legal
    assert {"type": "discard", "card": JOKER} in legal
    assert "not yourself" in refused(state, 1, {"type": "discard", "card": JOKER, "onto": 1}, IllegalAction)
    assert "only a joker" in refused(state, 1, {"type": "discard", "card": "2C", "onto": 2}, IllegalAction)
    events = act(state, 1, type="discard", card=JOKER, onto=0)
    assert events == [{"type": "discard", "seat": 1, "card": JOKER, "onto": 0}]
    assert state["discard"] == ["QC"] and state["dumped"][0] == [JOKER]
    assert GAME.view(state, 2)["players"][0]["dumped_jokers"] == 1
    assert sorted(all_cards(state)) == sorted(GAME.full_deck(state["options"]))
    # Seat 2 passes; seat 0 goes out by drawing and discarding; the dumped joker costs seat 0 nothing.
    turn(state, 2, "AD")
    turn(state, 0, "AC")
    assert state["went_out"] == 0
    finish_round_passing(state)
    assert state["round_result"]["points"]["0"] == 0
    assert state["round_result"]["players"][0]["dumped_jokers"] == 1


def test_going_out_with_a_joker_dump():
    hands = [["5H", "6H", "7H"], ["2C", "8D", "KC"]]
    state, _ = start(hands, "QC", [JOKER], dealer=1, jokers_wild=True, joker_dump=True)
    turn(state, 0, JOKER, onto=1)
    assert state["went_out"] == 0 and state["dumped"][1] == [JOKER]


# --- false out penalty ------------------------------------------------------------------------


def test_false_out_penalty_going_out_must_be_declared():
    hands = [["5H", "6H", "7H"], ["2C", "8D", "KC"], ["4S", "9S", "TD"]]
    state, _ = start(hands, "QC", ["AD", "AC", "AH", "2H", "2S"], dealer=0, false_out_penalty=True)
    act(state, 1, type="draw", pile="stock")
    legal = GAME.legal_actions(state, 1)
    assert {"type": "discard", "card": "2C", "declare_out": True} in legal
    assert len(legal) == 8
    act(state, 1, type="discard", card="AD")
    turn(state, 2, "AC")
    # A plain discard never goes out, even when the hand is complete.
    turn(state, 0, "AH")
    assert state["went_out"] is None
    # A wrong declaration costs 20 and play goes on.
    events = turn(state, 1, "2H", declare_out=True)
    assert events[-1] == {"type": "false_out", "seat": 1, "penalty": 20}
    assert events[-2] == {"type": "discard", "seat": 1, "card": "2H", "declare_out": True}
    assert GAME.to_move(state) == 2 and state["penalties"] == [0, 20, 0]
    # A right declaration goes out; after that no one may declare.
    turn(state, 2, "2S")
    turn(state, 0, state["stock"][0], declare_out=True)
    assert state["went_out"] == 0
    act(state, 1, type="draw", pile="stock")
    assert all("declare_out" not in a for a in GAME.legal_actions(state, 1))
    card = state["hands"][1][0]
    assert "final turn" in refused(
        state, 1, {"type": "discard", "card": card, "declare_out": True}, IllegalAction
    )
    act(state, 1, type="discard", card=card)
    finish_round_passing(state)
    assert state["round_result"]["players"][1]["penalty"] == 20
    assert state["round_result"]["players"][0]["points"] == 0


# --- redemption round ----------------------------------------------------------------------------


def test_redemption_round_lay_offs_and_lay_downs():
    # Round 2, fours wild. Seat 1 goes out with 5H-8H. Seat 2 could lay off its 9H but keeps its
    # four nines and lays them down; seat 0 then lays off 9H and TH onto the run and 9C onto the nines.
    hands = [["9H", "TH", "KC", "KD"], ["5H", "6H", "7H", "8H"], ["9H", "9C", "9D", "9S"]]
    stock = ["QS", "QD", "9C", "AS"]
    state, _ = start(hands, "QC", stock, dealer=0, round_no=2, redemption_round=True)
    turn(state, 1, "QS")
    assert state["went_out"] == 1 and state["melds"][0]["id"] == "m1"
    turn(state, 2, "QD")
    assert state["phase"] == "lay_off" and GAME.to_move(state) == 2
    assert GAME.view(state, 2)["turn"]["phase"] == "lay_off"
    assert GAME.legal_actions(state, 2) == [
        {"type": "lay_off", "card": "9H", "meld": "m1"},
        {"type": "end_turn"},
    ]
    assert "does not fit" in refused(state, 2, {"type": "lay_off", "card": "9C", "meld": "m1"}, IllegalAction)
    assert "no meld" in refused(state, 2, {"type": "lay_off", "card": "9H", "meld": "m9"}, IllegalAction)
    assert "do not hold" in refused(state, 2, {"type": "lay_off", "card": "TH", "meld": "m1"}, IllegalAction)
    assert "discarded already" in refused(state, 2, {"type": "discard", "card": "9H"}, IllegalAction)
    assert "nearly over" in refused(state, 2, {"type": "draw", "pile": "stock"}, IllegalAction)
    events = act(state, 2, type="end_turn")
    nines = ["9S", "9H", "9D", "9C"]
    meld = {"id": "m2", "owner": 2, "kind": "set", "cards": nines, "stands_for": nines, "ace_high": False}
    assert events[0] == {"type": "lay_down", "seat": 2, "melds": [meld], "leftover": 0}
    assert state["hands"][2] == []
    # Seat 0 draws the 9C, discards KD and lays off three cards; the KC fits nowhere, so the turn
    # (and the round) ends by itself.
    turn(state, 0, "KD")
    assert state["phase"] == "lay_off"
    act(state, 0, type="lay_off", card="9H", meld="m1")
    act(state, 0, type="lay_off", card="TH", meld="m1")
    act(state, 0, type="lay_off", card="9C", meld="m2")
    assert state["status"] == "round_over"
    result = state["round_result"]
    assert result["points"] == {"0": 10, "1": 0, "2": 0}
    assert result["players"][0]["laid_off"] == ["9H", "TH", "9C"]
    assert result["players"][0]["leftover"] == ["KC"]
    assert sorted(result["players"][0]["hand"]) == sorted(["9H", "TH", "KC", "9C"])
    assert result["table"][0]["cards"] == ["5H", "6H", "7H", "8H", "9H", "TH"]
    assert len(result["table"][1]["cards"]) == 5
    assert sorted(all_cards(state)) == sorted(GAME.full_deck(state["options"]))


def test_redemption_round_a_player_rid_of_every_card_scores_zero():
    hands = [["9H", "TH", "KD"], ["5H", "6H", "7H"]]
    state, _ = start(hands, "QC", ["QS", "8H"], dealer=0, redemption_round=True)
    turn(state, 1, "QS")
    turn(state, 0, "KD")
    assert state["phase"] == "lay_off"
    act(state, 0, type="lay_off", card="8H", meld="m1")
    act(state, 0, type="lay_off", card="9H", meld="m1")
    act(state, 0, type="lay_off", card="TH", meld="m1")
    assert state["status"] == "round_over"
    assert state["round_result"]["points"] == {"0": 0, "1": 0}
    assert state["round_result"]["table"][0]["cards"] == ["5H", "6H", "7H", "8H", "9H", "TH"]


def test_redemption_phase_is_skipped_without_a_possible_lay_off():
    hands = [["2S", "KC", "9D"], ["5H", "6H", "7H"]]
    state, _ = start(hands, "QC", ["QS", "JD"], dealer=0, redemption_round=True)
    turn(state, 1, "QS")
    turn(state, 0, "JD")
    assert state["status"] == "round_over"


# --- resigning and the end ---------------------------------------------------------------------


def test_resign_with_two_players_ends_the_match():
    state, _ = start([["2S", "4D", "6C"], ["8H", "TS", "QD"]], "KC", dealer=1)
    events = act(state, 1, type="resign")
    assert events[0] == {"type": "resign", "seat": 1}
    assert events[1]["type"] == "match_over" and state["winners"] == [0]
    assert state["status"] == "finished" and GAME.to_move(state) is None
    refused(state, 0, {"type": "resign"}, MatchNotActive)
    refused(state, 0, {"type": "draw", "pile": "stock"}, MatchNotActive)


def test_resign_with_three_players_marks_the_seat_and_play_goes_on():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"], ["5H", "6H", "7H"]]
    state, _ = start(hands, "KC", ["AS"], dealer=2)
    act(state, 0, type="resign")
    assert state["status"] == "active" and state["resigned"] == [True, False, False]
    assert GAME.to_move(state) == 0
    assert GAME.view(state, 1)["players"][0]["resigned"] is True
    assert "already" in refused(state, 0, {"type": "resign"}, IllegalAction)
    # The resigned seat still plays (the service's bot here) and ranks last even with the lowest total.
    turn(state, 0, "AS")
    assert state["went_out"] is None
    state["schedule"] = [3]
    state["scores"] = [-100, 5, 0]
    turn(state, 1, "8H")
    turn(state, 2, state["stock"][0])
    assert state["went_out"] == 2
    finish_round_passing(state)
    assert state["status"] == "finished"
    assert state["scores"][0] < state["scores"][2] < state["scores"][1]
    assert state["winners"] == [2]
    # Another resignation leaves one seat: the match ends.
    state, _ = start(hands, "KC", ["AS"], dealer=2)
    act(state, 0, type="resign")
    events = act(state, 2, type="resign")
    assert state["winners"] == [1] and events[-1]["reason"] == "resign"


def test_resign_between_rounds():
    hands = [["5H", "6H", "7H"], ["8H", "TS", "QD"], ["2S", "4D", "6C"]]
    state, _ = start(hands, "KC", ["AS", "AD", "AH"], dealer=2)
    turn(state, 0, "AS")
    finish_round_passing(state)
    assert state["status"] == "round_over"
    act(state, 1, type="resign")
    assert state["status"] == "round_over" and state["resigned"][1]
    GAME.start_next_round(state)
    assert state["round"] == 2


def test_the_last_round_ends_the_match_and_ties_share_the_win():
    hands = [["5H", "6H", "7H"], ["8H", "TS", "QD"], ["2S", "4D", "6C"]]

    def last_round(scores: list[int]) -> dict:
        state, _ = start(hands, "KC", ["AS", "AD", "AH"], dealer=2)
        state["schedule"] = [3]  # this round is the last one
        state["scores"] = list(scores)
        turn(state, 0, "AS")
        finish_round_passing(state)
        return state

    state = last_round([0, 0, 0])
    assert state["status"] == "finished" and GAME.to_move(state) is None
    points = state["round_result"]["points"]
    assert points == {"0": 0, "1": 8 + 10 + 10, "2": 2 + 4 + 6}
    assert state["winners"] == [0] and state["round_result"]["winners"] == [0]
    # Seats 1 and 2 end level, below seat 0: both win.
    state = last_round([100, 0, 16])
    assert state["scores"] == [100, 28, 28]
    assert state["winners"] == [1, 2] and state["round_result"]["winners"] == [0]
    assert GAME.view(state, 1)["winners"] == [1, 2]
    refused(state, 1, {"type": "draw", "pile": "stock"}, MatchNotActive)
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


# --- views --------------------------------------------------------------------------------


def test_views_show_only_the_viewers_hand():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", ["5H"], dealer=1)
    act(state, 0, type="draw", pile="stock")
    view = GAME.view(state, 0)
    assert set(view) == {
        "status",
        "round",
        "turn",
        "players",
        "hand",
        "stock",
        "discard",
        "table",
        "scores",
        "legal_actions",
        "round_result",
        "winners",
    }
    assert view["turn"] == {"seat": 0, "phase": "discard", "deadline": None}
    assert view["hand"] == ["2S", "5H", "4D", "6C"]
    assert view["players"][1]["cards"] == 3 and view["players"][0]["cards"] == 4
    assert view["discard"] == {"top": "KC", "count": 1}
    assert view["stock"] == 104 - 7 - 1
    table = view["table"]
    assert (
        table["round"] == 1 and table["rounds"] == 11 and table["wild_rank"] == "3" and table["dealer"] == 1
    )
    assert table["went_out"] is None and table["final_turns_left"] is None
    other = GAME.view(state, 1)
    assert other["hand"] == ["TS", "8H", "QD"] and other["legal_actions"] == []
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []
    text = json.dumps(spectator)
    assert "rng" not in text and "seed" not in text
    assert view["round_result"] is None and view["winners"] is None
    assert view["scores"] == {"0": 0, "1": 0}


def test_state_survives_a_json_round_trip():
    hands = [["2S", "4D", "6C"], ["8H", "TS", "QD"]]
    state, _ = start(hands, "KC", ["5H"], dealer=1, redemption_round=True, jokers_wild=True)
    act(state, 0, type="draw", pile="stock")
    copy_ = json.loads(json.dumps(state))
    assert copy_ == state
    act(copy_, 0, type="discard", card="5H")
    act(state, 0, type="discard", card="5H")
    assert copy_ == state


# --- bot ----------------------------------------------------------------------------------


def bot(state: dict, seat: int, seed: int = 0) -> dict:
    return bots.decide(GAME, GAME.view(state, seat), "medium", random.Random(seed))


def test_bot_takes_a_discard_that_lowers_its_points_and_throws_the_dearest_loner():
    hands = [["5H", "6H", "KD"], ["2C", "8D", "KC"]]
    state, _ = start(hands, "7H", ["QS"], dealer=1)
    assert bot(state, 0) == {"type": "draw", "pile": "discard"}
    act(state, 0, type="draw", pile="discard")
    assert bot(state, 0) == {"type": "discard", "card": "KD"}
    state, _ = start(hands, "QS", ["7H"], dealer=1)
    assert bot(state, 0) == {"type": "draw", "pile": "stock"}


def test_bot_declares_only_a_true_out_and_dumps_jokers():
    hands = [["5H", "6H", "7H"], ["2C", "8D", "KC"]]
    state, _ = start(
        hands, "QC", ["KS", JOKER], dealer=1, false_out_penalty=True, jokers_wild=True, joker_dump=True
    )
    act(state, 0, type="draw", pile="stock")
    assert bot(state, 0) == {"type": "discard", "card": "KS", "declare_out": True}
    state, _ = start(
        hands[::-1], "QC", [JOKER], dealer=1, false_out_penalty=True, jokers_wild=True, joker_dump=True
    )
    act(state, 0, type="draw", pile="stock")
    action = bot(state, 0)
    assert action["card"] in ("KC", JOKER) and "declare_out" not in action
    if action["card"] == JOKER:
        assert action["onto"] == 1


def test_bot_lays_off_in_a_redemption_round():
    hands = [["9H", "TH", "KD"], ["5H", "6H", "7H"]]
    state, _ = start(hands, "QC", ["QS", "8H"], dealer=0, redemption_round=True)
    turn(state, 1, "QS")
    act(state, 0, type="draw", pile="stock")
    act(state, 0, type="discard", card="KD")
    while state["status"] == "active":
        action = bot(state, 0)
        assert action in GAME.legal_actions(state, 0)
        GAME.apply(state, 0, action)
    assert state["round_result"]["points"]["0"] == 0


def bot_pick(game, state, seat, legal, rng):
    action = bots.decide(game, game.view(state, seat), "medium", rng)
    assert action in legal
    return action


@pytest.mark.parametrize(
    ("seats", "flags"),
    [
        (2, {}),
        (3, {"redemption_round": True, "false_out_penalty": True, "jokers_wild": True, "joker_dump": True}),
    ],
)
def test_bots_play_whole_matches(seats, flags):
    state = play_random(GAME, flags, seats, 11, pick=bot_pick)
    assert state["status"] == "finished" and len(state["round_points"]) == 11


# --- hypothesis: junk never crashes --------------------------------------------------------------

JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 10)
    | st.sampled_from(["2S", "JK", "m1", "stock", "discard", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["card", "pile", "onto", "meld"]), inner)
    ),
    max_leaves=6,
)
ACTIONS = st.builds(
    lambda kind, fields: {"type": kind, **fields} if kind is not None else fields,
    st.sampled_from([None, "draw", "discard", "lay_off", "end_turn", "resign", "bid"]),
    st.dictionaries(st.sampled_from(["card", "pile", "onto", "meld", "declare_out", "x"]), JUNK, max_size=3),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=ACTIONS | JUNK, seat=st.integers(-1, 3), steps=st.integers(0, 5))
def test_any_action_is_applied_or_refused_with_an_engine_error(action, seat, steps):
    hands = [["5H", "6H", "9C"], ["2C", "8D", "KC"], ["4S", "9S", "TD"]]
    state, _ = start(
        hands,
        "QC",
        [JOKER, "7H", "AC"],
        dealer=0,
        jokers_wild=True,
        joker_dump=True,
        redemption_round=True,
        false_out_penalty=True,
    )
    rng = random.Random(steps)
    for _ in range(steps):
        mover = GAME.to_move(state)
        GAME.apply(state, mover, rng.choice(GAME.legal_actions(state, mover)))
    before = copy.deepcopy(state)
    try:
        GAME.apply(state, seat, action)
    except EngineError:
        assert state == before
    json.dumps(state)


# --- random playouts --------------------------------------------------------------------------


class Checker:
    """A cheap playing policy plus the invariants checked after every step."""

    def __init__(self, views_every: int = 1):
        self.views_every = views_every
        self.steps = 0
        self.rounds = 0

    # A collector of sets and runs that keeps wild cards, with random moves mixed in so no
    # two players can block each other forever.
    def pick(self, game, state, seat, legal, rng):
        if rng.random() < 0.05 or state["phase"] == "lay_off":
            return rng.choice(legal)
        hand = state["hands"][seat]
        size = state["schedule"][state["round"] - 1]
        wild = tt.WILD_RANK[size]

        def keep(card: str, cards: list[str]) -> float:
            if card == JOKER or card[0] == wild:
                return 100.0
            r = RANKS.index(card[0])
            same = sum(1 for c in cards if c is not card and c[0] == card[0])
            near = sum(
                1 for c in cards if c != JOKER and c[1] == card[1] and 0 < abs(RANKS.index(c[0]) - r) <= 2
            )
            return 3 * same + 2 * near - tt.card_points(card, state["options"], wild) / 20

        if state["phase"] == "draw":
            top = state["discard"][-1] if state["discard"] else None
            if top is not None and keep(top, [*hand, top]) >= 3:
                return {"type": "draw", "pile": "discard"}
            return rng.choice([a for a in legal if a["pile"] == "stock"] or legal)
        scores = {c: keep(c, hand) for c in set(hand)}
        low = min(scores.values())
        card = rng.choice(sorted(c for c, v in scores.items() if v == low))
        return rng.choice([a for a in legal if a["card"] == card])

    def on_step(self, state, seat, action, events):
        self.steps += 1
        n = state["num_seats"]
        options = state["options"]
        deck = GAME.full_deck(options)
        assert sorted(all_cards(state)) == sorted(deck)
        size = state["schedule"][state["round"] - 1]
        assert state["schedule"] == tt.schedule(options)
        if state["status"] == "active":
            went_out = state["went_out"]
            mover = state["turn"]
            finished = set()
            if went_out is not None:
                finished = {s for s in range(n) if s != went_out and s not in state["final_turns"]}
            for s in range(n):
                count = len(state["hands"][s])
                if s == went_out:
                    assert count == 0
                elif s in finished and options["redemption_round"]:
                    assert count <= size
                elif s == mover and state["phase"] == "discard":
                    assert count == size + 1
                elif s == mover and state["phase"] == "lay_off":
                    assert count <= size
                else:
                    assert count == size, (s, count, size)
        for event in events:
            if event["type"] == "draw" and event["pile"] == "stock":
                for viewer in range(n):
                    if viewer != event["seat"]:
                        assert "card" not in redact_event(event, viewer)
            if event["type"] == "round_over":
                self.check_round(state, event["result"])
        if self.steps % self.views_every == 0 or state["status"] != "active":
            self.check_views(state)

    def check_round(self, state, result):
        self.rounds += 1
        n = state["num_seats"]
        size = result["cards_dealt"]
        assert result["wild_rank"] == tt.WILD_RANK[size] == "3456789TJQKA2"[size - 3]
        assert size == state["schedule"][result["round"] - 1]
        assert [sum(p[s] for p in state["round_points"]) for s in range(n)] == state["scores"]
        assert {str(s): state["round_points"][-1][s] for s in range(n)} == result["points"]
        assert result["scores"] == {str(s): v for s, v in enumerate(state["scores"])}
        assert result["points"][str(result["went_out"])] == state["penalties"][result["went_out"]]
        for player in result["players"]:
            assert player["points"] == player["cards_points"] + player["penalty"]
            melded = [c for m in player["melds"] for c in m["cards"]]
            assert len(player["hand"]) == size
            if not state["options"]["redemption_round"]:
                assert sorted(melded + player["leftover"]) == sorted(player["hand"])
            factor = 2 if result["doubled"] else 1
            points = tt.points_function(state["options"], size)
            assert player["cards_points"] == factor * sum(points(c) for c in player["leftover"])
        low = min(result["points"].values())
        assert result["winners"] == [s for s in range(n) if result["points"][str(s)] == low]
        if state["status"] == "finished":
            assert len(state["round_points"]) == len(state["schedule"])
            best = min(state["scores"][s] for s in range(n) if not state["resigned"][s])
            assert state["winners"] == [
                s for s in range(n) if not state["resigned"][s] and state["scores"][s] == best
            ]

    def check_views(self, state):
        n = state["num_seats"]
        for viewer in [None, *range(n)]:
            view = GAME.view(state, viewer)
            json.dumps(view)
            assert view["table"]["wild_rank"] == tt.WILD_RANK[state["schedule"][state["round"] - 1]]
            assert view["table"]["round"] == state["round"]
            assert [p["cards"] for p in view["players"]] == [len(h) for h in state["hands"]]
            if viewer is None:
                assert view["hand"] is None and view["legal_actions"] == []
            else:
                assert view["hand"] == tt.sorted_cards(state["hands"][viewer])
                assert view["legal_actions"] == GAME.legal_actions(state, viewer)
            assert "rng" not in view["table"] and "stock" not in view["table"]


def option_combos() -> list[dict[str, bool]]:
    """Option sets for playouts: each option on in some of them, none contradictory."""
    return [
        {},
        {"aces_high_low": True, "face_cards_11_12_13": True},
        {"extra_rounds": True, "jokers_wild": True},
        {"jokers_wild": True, "joker_dump": True, "all_wild_melds": True},
        {"up_and_down": True, "double_face_rounds": True},
        {"redemption_round": True},
        {"false_out_penalty": True, "multiple_wilds": True},
        {"redemption_round": True, "jokers_wild": True, "joker_dump": True, "false_out_penalty": True},
        {"multiple_wilds": True, "all_wild_melds": True, "jokers_wild": True, "aces_high_low": True},
        {"double_face_rounds": True, "face_cards_11_12_13": True, "extra_rounds": True},
        {"redemption_round": True, "aces_high_low": True, "multiple_wilds": True},
        {**{name: True for name in BOOLEAN_OPTIONS}, "up_and_down": False, "joker_dump": False},
        {"false_out_penalty": True},
    ]


def playout(index: int, checker: Checker, roundtrip_every: int = 1) -> dict:
    combos = option_combos()
    seats = 2 + index % 6
    flags = combos[index % len(combos)]
    if seats == 7 and flags.get("extra_rounds") and (flags.get("joker_dump") or not flags.get("jokers_wild")):
        seats = 6
    state = play_random(
        GAME, flags, seats, index, pick=checker.pick, on_step=checker.on_step, roundtrip_every=roundtrip_every
    )
    assert state["status"] == "finished"
    assert len(state["round_points"]) == len(tt.schedule(state["options"]))
    return state


def test_random_matches_every_seat_count_and_option():
    checker = Checker(views_every=5)
    seats = set()
    for index in range(len(option_combos())):
        seats.add(playout(index, checker)["num_seats"])
    assert seats == {2, 3, 4, 5, 6, 7}
    assert checker.rounds >= 13 * 11


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_a_thousand_random_matches(chunk):
    # 1,000 matches in 8 chunks of 125, so pytest-xdist spreads them over the cores.
    checker = Checker(views_every=25)
    for index in range(1000 + chunk * 125, 1000 + (chunk + 1) * 125):
        playout(index, checker, roundtrip_every=20)
    assert checker.rounds >= 125 * 11

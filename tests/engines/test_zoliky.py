"""Žolíky engine: one test per rule of docs/rules/zoliky.md on stacked decks, and random playouts."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import bots
from engines.base import redact_event
from engines.cards import JOKER, RANKS
from engines.errors import (
    EngineError,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    MatchNotActive,
    NotYourTurn,
)
from engines.melds import classify
from engines.zoliky import GAME, ZolikyGame
from engines.zoliky.bots.hand import Slot
from engines.zoliky.rules import (
    RULES,
    card_points,
    joker_cards,
    lay_off_reading,
    meld_points,
    read_meld,
    why_not_a_meld,
)
from tests.engines.harness import play_random

FULL = GAME.full_deck({})
FULL_SORTED = sorted(FULL)

# A cutter's hand that can open with 9H TH JH (29, pure) + KS KD KC (30); QC is its turn-1 discard.
CUTTER = ["9H", "TH", "JH", "KS", "KD", "KC", "2D", "3D", "4D", "5D", "7C", "7S", "QC"]
# A scattered hand with no meld in it.
OTHER = ["2S", "4S", "6S", "8S", "TS", "QS", "2H", "4H", "6H", "8C", "TC", "QD"]


def stacked(
    cutter: list[str],
    other: list[str],
    cut: tuple[str, ...] = ("2C", "3C", "4C"),
    draws: tuple[str, ...] = (),
    early: tuple[str, ...] | None = None,
) -> list[str]:
    """The 108-card deck (top first) that deals these hands and reveals `cut` (in reveal order).

    `cutter` is what the cutter is dealt (13 minus the cut's jokers), `other` the other's 12.
    `early` are the 5 cards drawn (and, by `to_turn_7`, discarded) on turns 2–6; `draws` the
    cards drawn from turn 7 on. Everything else fills the middle of the stock.
    """
    jokers = list(cut).count(JOKER)
    assert len(cutter) == 13 - jokers and len(other) == 12
    dealt: list[str] = []
    c, o = list(cutter), list(other)
    turn = 0
    while c or o:
        source = c if turn == 0 else o
        if source:
            dealt.append(source.pop(0))
        turn = 1 - turn
    pool = Counter(FULL)
    pool.subtract(Counter([*cutter, *other, *cut, *draws, *(early or ())]))
    assert all(n >= 0 for n in pool.values()), "a card is asked for more often than the two decks hold"
    rest = [card for card in dict.fromkeys(FULL) for _ in range(pool[card])]
    if early is None:
        early = tuple(card for card in rest if card != JOKER)[:5]
        for card in early:
            rest.remove(card)
    # Jokers sit at the end of `rest`, right above the cut: never drawn in these scenarios.
    return [*dealt, *early, *draws, *rest, *reversed(cut)]


def new(
    cutter: list[str] = CUTTER,
    other: list[str] = OTHER,
    *,
    first_cutter: int = 0,
    target_wins: int = 5,
    seed: int = 1,
    **deck_args: Any,
) -> dict:
    options = GAME.validate_options({"first_cutter": first_cutter, "target_wins": target_wins}, 2)
    state, _ = GAME.new_match(options, 2, seed, stacked(cutter, other, **deck_args))
    return state


def act(state: dict, seat: int, action: dict) -> list[dict]:
    return GAME.apply(state, seat, action).events


def draw(state: dict, seat: int) -> str:
    events = act(state, seat, {"type": "draw"})
    return events[-1]["secret"][str(seat)]["card"]


def to_turn_7(state: dict, spare: str = "QC") -> None:
    """Turns 1–6: the cutter discards `spare`, then each turn draws and discards the drawn card."""
    act(state, state["turn_seat"], {"type": "discard", "card": spare})
    while state["turn_number"] < 7:
        seat = state["turn_seat"]
        act(state, seat, {"type": "discard", "card": draw(state, seat)})


def refused(state: dict, seat: int, action: Any, error: type = IllegalAction) -> str:
    """Assert that `action` is refused with `error` and leaves the state exactly unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action)
    assert state == before
    return str(info.value)


def table(state: dict) -> dict[str, dict]:
    return {m["id"]: m for m in state["melds"]}


def all_cards(state: dict) -> Counter:
    cards = [c for h in state["hands"] for c in h] + state["stock"] + state["discard"]
    cards += [c for m in state["melds"] for c in m["cards"]]
    if state["closing_card"] is not None:
        cards.append(state["closing_card"])
    return Counter(cards)


# --- the game and its options ------------------------------------------------------------


def test_description_options_and_deck():
    assert (GAME.id, GAME.name, GAME.min_seats, GAME.max_seats) == ("zoliky", "Žolíky", 2, 2)
    assert GAME.validate_options({}, 2) == {"first_cutter": 0, "target_wins": 5}
    assert Counter(FULL) == Counter({**{c: 2 for c in FULL if c != JOKER}, JOKER: 4})
    assert len(FULL) == 108


@pytest.mark.parametrize(
    "options, seats",
    [
        ({"first_cutter": 2}, 2),
        ({"first_cutter": -1}, 2),
        ({"target_wins": 0}, 2),
        ({"target_wins": "5"}, 2),
        ({"first_cutter": True}, 2),
        ({"colour": 1}, 2),
        ({}, 3),
        ({}, 1),
    ],
)
def test_invalid_options(options, seats):
    with pytest.raises(InvalidOptions):
        GAME.validate_options(options, seats)


def test_a_stacked_deck_must_be_the_108_cards():
    options = GAME.validate_options({}, 2)
    with pytest.raises(InvalidOptions):
        GAME.new_match(options, 2, 1, FULL[:-1])
    with pytest.raises(InvalidOptions):
        GAME.new_match(options, 2, 1, [*FULL[:-1], "AS"])


# --- cut and deal ----------------------------------------------------------------------------


def test_cut_reveals_three_from_the_bottom_closing_card_first_normal_jokers_to_cutter():
    # Revealed: 5H (closing card), JK (to the cutter), 7C (stays at the bottom).
    state = new(CUTTER[:12], OTHER, cut=("5H", JOKER, "7C"))
    assert state["cut"] == ["5H", JOKER, "7C"]
    assert state["closing_card"] == "5H"
    assert state["hands"][0].count(JOKER) == 1 and len(state["hands"][0]) == 13
    assert state["stock"][-1] == "7C"
    assert state["discard"] == []
    view = GAME.view(state, 1)
    assert view["table"]["cut"] == ["5H", JOKER, "7C"] and view["table"]["closing_card"] == "5H"
    assert all_cards(state) == Counter(FULL)


def test_cut_kept_normal_cards_stay_at_the_bottom_in_their_order():
    state = new(cut=("5H", "7C", "9S"))
    assert state["closing_card"] == "5H"
    # Top-first list: 9S lay above 7C, which lay above 5H at the very bottom.
    assert state["stock"][-2:] == ["9S", "7C"]
    assert len(state["stock"]) == 108 - 25 - 1


def test_cut_with_three_jokers_continues_to_the_first_normal_card():
    state = new(CUTTER[:10], OTHER, cut=(JOKER, JOKER, JOKER, "8D"))
    assert state["cut"] == [JOKER, JOKER, JOKER, "8D"]
    assert state["closing_card"] == "8D"
    assert state["hands"][0].count(JOKER) == 3 and len(state["hands"][0]) == 13


def test_cut_with_four_jokers_gives_all_four_to_the_cutter():
    state = new(CUTTER[:9], OTHER, cut=(JOKER, JOKER, JOKER, JOKER, "8D"))
    assert state["cut"] == [JOKER] * 4 + ["8D"]
    assert state["closing_card"] == "8D"
    assert sorted(state["hands"][0]) == sorted([*CUTTER[:9], *[JOKER] * 4])


def test_cut_jokers_after_the_first_normal_card_still_go_to_the_cutter():
    state = new(CUTTER[:11], OTHER, cut=(JOKER, "6S", JOKER))
    assert state["closing_card"] == "6S" and state["hands"][0].count(JOKER) == 2


def test_deal_one_at_a_time_from_the_top_cutter_first():
    # Written out by index, independently of the `stacked` helper.
    normal = [c for c in FULL if c != JOKER]
    random.Random(5).shuffle(normal)
    deck = [*normal[:50], JOKER, JOKER, JOKER, JOKER, *normal[50:]]
    options = GAME.validate_options({"first_cutter": 1}, 2)
    state, events = GAME.new_match(options, 2, 3, deck)
    assert state["cut"] == [normal[103], normal[102], normal[101]]
    assert state["closing_card"] == normal[103]
    assert sorted(state["hands"][1]) == sorted(deck[0:25:2])  # the cutter: 13 cards
    assert sorted(state["hands"][0]) == sorted(deck[1:24:2])  # the other: 12 cards
    assert state["stock"][0] == deck[25] and state["stock"][-2:] == [normal[101], normal[102]]
    assert state["turn_seat"] == 1 and state["phase"] == "discard" and state["discard"] == []
    assert [e["type"] for e in events] == ["cut", "deal"]
    assert events[1]["round"] == 1 and events[1]["cutter"] == 1 and events[1]["carried_jokers"] == 0


def test_deal_skips_the_full_hand_of_a_cutter_with_cut_jokers():
    normal = [c for c in FULL if c != JOKER]
    random.Random(6).shuffle(normal)
    normal.remove("5H")
    # Revealed from the bottom: JK, JK (to the cutter, seat 0), 5H (the closing card).
    deck = [*normal, JOKER, JOKER, "5H", JOKER, JOKER]
    state, _ = GAME.new_match(GAME.validate_options({}, 2), 2, 3, deck)
    assert state["cut"] == [JOKER, JOKER, "5H"]
    # The cutter is dealt 11 cards (indices 0, 2, …, 20); the other 1, 3, …, 21 and then 22.
    assert sorted(state["hands"][0]) == sorted([*deck[0:21:2], JOKER, JOKER])
    assert sorted(state["hands"][1]) == sorted([*deck[1:22:2], deck[22]])
    assert state["stock"][0] == deck[23]
    # The two jokers above the reveal were not revealed: they stay at the bottom of the stock.
    assert state["stock"][-2:] == [JOKER, JOKER]


# --- turns ----------------------------------------------------------------------------------


def test_the_cutters_first_turn_only_discards_then_every_turn_draws_first():
    state = new()
    assert GAME.to_move(state) == 0 and state["phase"] == "discard"
    assert "only discards" in refused(state, 0, {"type": "draw"})
    assert "only discards" in refused(state, 0, {"type": "meld", "melds": [CUTTER[:3]]})
    refused(state, 1, {"type": "draw"}, NotYourTurn)
    act(state, 0, {"type": "discard", "card": "QC"})
    assert len(state["hands"][0]) == 12 and state["discard"] == ["QC"]
    assert (state["turn_number"], state["turn_seat"], state["phase"]) == (2, 1, "draw")
    assert "draw a card first" in refused(state, 1, {"type": "discard", "card": "2S"})
    card = draw(state, 1)
    assert len(state["hands"][1]) == 13 and state["phase"] == "play"
    assert "already drawn" in refused(state, 1, {"type": "draw"})
    act(state, 1, {"type": "discard", "card": card})
    assert (state["turn_number"], state["turn_seat"]) == (3, 0)
    assert GAME.view(state, 0)["table"]["turn_number"] == 3


@pytest.mark.parametrize(
    "action, words",
    [
        (
            {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]},
            "melding is allowed only from turn 7",
        ),
        ({"type": "lay_off", "meld": "m1", "cards": ["9H"]}, "laying off is allowed only from turn 7"),
        ({"type": "swap_joker", "meld": "m1", "card": "9H"}, "swapping jokers is allowed only from turn 7"),
    ],
)
def test_melding_lay_offs_and_swaps_wait_for_turn_7(action, words):
    state = new()
    act(state, 0, {"type": "discard", "card": "QC"})
    act(state, 1, {"type": "discard", "card": draw(state, 1)})
    draw(state, 0)  # turn 3
    message = refused(state, 0, action)
    assert words in message and "this is turn 3" in message
    assert [a["type"] for a in GAME.legal_actions(state, 0)] == ["discard"] * len(set(state["hands"][0]))


def test_taking_the_discard_or_closing_card_waits_for_turn_7():
    state = new()
    act(state, 0, {"type": "discard", "card": "QC"})
    message = refused(state, 1, {"type": "take_discard", "melds": [["QC", "QS", "QD"]]})
    assert "taking the discard is allowed only from turn 7" in message
    message = refused(state, 1, {"type": "take_closing", "melds": [], "discard": "2S"})
    assert "taking the closing card is allowed only from turn 7" in message
    assert GAME.legal_actions(state, 1) == [{"type": "draw"}]


def test_turn_7_is_the_cutters_fourth_turn_and_opens_melding():
    state = new(draws=(JOKER,))
    to_turn_7(state)
    assert (state["turn_number"], state["turn_seat"]) == (7, 0)
    assert [a["type"] for a in GAME.legal_actions(state, 0)] == ["draw", "take_discard", "take_closing"]
    draw(state, 0)
    types = [a["type"] for a in GAME.legal_actions(state, 0)]
    assert types[-1] == "meld" and set(types[:-1]) == {"discard"}
    assert {"type": "meld", "melds": [], "lay_offs": [], "template": True} in GAME.legal_actions(state, 0)
    act(state, 0, {"type": "meld", "melds": [["JH", "9H", "TH"], ["KC", "KS", "KD"]]})
    assert state["opened"] == [True, False]


# --- opening ----------------------------------------------------------------------------------


def test_card_points_for_the_42():
    assert meld_points(read_meld(["2D", "3D", "4D", "5D"])) == 14
    assert meld_points(read_meld(["7C", "7S", JOKER])) == 21
    assert meld_points(read_meld(["7H", "8H", JOKER, "TH", "JH"])) == 44
    assert meld_points(read_meld(["AH", "2H", "3H"])) == 16  # the ace is 11 also in A-2-3
    assert meld_points(read_meld(["QS", "KS", "AS"])) == 31
    assert meld_points(read_meld(["JC", "QC", "KC"])) == 30
    assert meld_points(read_meld(["9D", JOKER, "JD"])) == 29  # the joker counts as the TD it stands for
    points = {c: card_points(c) for c in ("2S", "9S", "TS", "JS", "QS", "KS", "AS", JOKER)}
    assert list(points.values()) == [2, 9, 10, 10, 10, 10, 11, 0]  # a joker left in hand counts 0


def test_opening_needs_42_points_rules_examples():
    state = new(draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    run = ["2D", "3D", "4D", "5D"]
    message = refused(state, 0, {"type": "meld", "melds": [run]})
    assert message == "the first meld needs at least 42 points; these melds are worth 14"
    message = refused(state, 0, {"type": "meld", "melds": [["7C", "7S", JOKER]]})
    assert "at least 42 points and a run without jokers" in message and "worth 21" in message
    message = refused(state, 0, {"type": "meld", "melds": [run, ["7C", JOKER, "7S"]]})
    assert message == "the first meld needs at least 42 points; these melds are worth 35"
    # Several melds together: 14 + 21 + 30 = 65.
    act(state, 0, {"type": "meld", "melds": [run, ["7C", JOKER, "7S"], ["KS", "KD", "KC"]]})
    assert state["opened"][0] and [m["id"] for m in state["melds"]] == ["m1", "m2", "m3"]


def test_opening_needs_a_pure_run_rules_example_44_points():
    cutter = ["7H", "8H", "TH", "JH", "2D", "3D", "4D", "5S", "9S", "KC", "6C", "AD", "QC"]
    state = new(cutter, draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    joker_run = ["7H", "8H", JOKER, "TH", "JH"]
    message = refused(state, 0, {"type": "meld", "melds": [joker_run]})
    assert message == "the first meld needs a run without jokers"
    act(state, 0, {"type": "meld", "melds": [joker_run, ["4D", "2D", "3D"]]})
    assert table(state)["m1"]["cards"] == ["7H", "8H", JOKER, "TH", "JH"]
    assert table(state)["m1"]["stands_for"] == ["7H", "8H", "9H", "TH", "JH"]
    assert table(state)["m2"]["cards"] == ["2D", "3D", "4D"]


def test_lay_offs_do_not_count_toward_the_42():
    # 2D-5D (14) + 7C 7S JK (21) = 35; laying KD off on the new run adds nothing.
    state = new(
        ["2D", "3D", "4D", "5D", "6D", "7C", "7S", "KS", "KH", "9S", "8C", "AH", "QC"], draws=(JOKER,)
    )
    to_turn_7(state)
    draw(state, 0)
    action = {
        "type": "meld",
        "melds": [["2D", "3D", "4D", "5D"], ["7C", "7S", JOKER]],
        "lay_offs": [{"meld": 0, "cards": ["6D"]}],
    }
    assert "worth 35" in refused(state, 0, action)


def test_after_the_opening_melds_need_neither_42_nor_a_pure_run():
    state = new(draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    act(state, 0, {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    act(state, 0, {"type": "meld", "melds": [["7C", "7S", JOKER]]})
    assert sorted(table(state)["m3"]["stands_for"]) == ["7?", "7C", "7S"]
    assert sorted(state["hands"][0]) == sorted(["2D", "3D", "4D", "5D"])


# --- melds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cards, valid",
    [
        (["7H", JOKER, "9H"], True),
        (["7H", "8H", JOKER], False),
        ([JOKER, "8H", "9H"], False),
        (["KH", "AH", "2H"], False),
        (["QH", "KH", "AH"], True),
        (["AH", "2H", "3H"], True),
        (["5H", "5H", "5S"], False),
        (["5H", "5S", "5D", "5C"], True),
        (["5H", "5S", "5D", "5C", JOKER], False),
        (["5H", "5S", JOKER], True),
        ([JOKER, JOKER, JOKER], False),
        (["7H", "8H", "9S"], False),
    ],
)
def test_meld_validity(cards, valid):
    assert (read_meld(cards) is not None) is valid
    assert (classify(cards, RULES) is not None) is valid


def test_a_set_joker_stands_for_a_missing_suit_open_while_two_are_missing():
    assert read_meld(["7H", "7S", JOKER]).stands_for.count("7?") == 1
    assert sorted(read_meld(["7H", "7S", "7D", JOKER]).stands_for) == ["7C", "7D", "7H", "7S"]


@pytest.mark.parametrize(
    "cards, words",
    [
        (["7H", "8H", JOKER], "a joker may stand only inside a run"),
        (["KH", "AH", "2H"], "KH AH 2H is neither a run nor a set"),
        (["5H", "5H", "5S"], "two 5H cannot be in one set"),
        (["5H", "5S", "5D", "5C", JOKER], "a set has at most 4 cards"),
        ([JOKER, JOKER, JOKER], "at least one normal card"),
        (["5H", "5S"], "a meld needs at least 3 cards"),
        (["7H", "8S", "9D"], "a run needs one suit and a set one rank"),
    ],
)
def test_why_not_a_meld_in_words(cards, words):
    assert words in why_not_a_meld(cards)


def test_an_invalid_meld_is_refused_in_words_and_valid_ones_are_placed_by_the_engine():
    cutter = ["7H", "8H", "TH", "JH", "2D", "3D", "4D", "KH", "AH", "2H", "9C", "9S", "QC"]
    state = new(cutter, draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    opening = [["2D", "3D", "4D"], ["9C", "9S", JOKER]]  # 9 + 27 = 36
    assert "worth 36" in refused(state, 0, {"type": "meld", "melds": opening})
    message = refused(state, 0, {"type": "meld", "melds": [*opening, ["7H", "8H", "TH"]]})
    assert "7H 8H TH is neither a run nor a set" in message
    message = refused(state, 0, {"type": "meld", "melds": [*opening, ["KH", "AH", "2H"]]})
    assert "KH AH 2H is neither a run nor a set" in message
    assert "you do not hold 5C" in refused(state, 0, {"type": "meld", "melds": [["5C", "6C", "7C"]]})
    message = refused(state, 0, {"type": "meld", "melds": [["2D", "3D", "4D"], ["2D", "3D", "4D"]]})
    assert "you hold only 1 × 2D, not 2" in message
    act(state, 0, {"type": "meld", "melds": [["JH", JOKER, "TH", "8H", "7H"], ["4D", "3D", "2D"]]})
    assert table(state)["m1"]["cards"] == ["7H", "8H", JOKER, "TH", "JH"]
    assert table(state)["m1"]["stands_for"] == ["7H", "8H", "9H", "TH", "JH"]


# --- laying off ---------------------------------------------------------------------------------

LAY_CUTTER = ["9H", "TH", "JH", "KS", "KD", "KC", "2D", "3D", "4D", "5D", "QH", "8S", "QC"]
LAY_OTHER = ["3C", "4C", "5C", "6C", "QS", "QH", "QD", "8H", "7C", "2S", "4S", "6D"]


def test_lay_offs_after_ones_own_opening_on_both_players_melds():
    state = new(LAY_CUTTER, LAY_OTHER, draws=(JOKER, "9D"))
    to_turn_7(state)
    draw(state, 0)
    message = refused(state, 0, {"type": "lay_off", "meld": "m1", "cards": ["QH"]})
    assert message == "you may lay off only after your own first meld"
    act(state, 0, {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    assert {"type": "lay_off", "meld": "", "cards": [], "template": True} in GAME.legal_actions(state, 0)
    # A joker may stand only inside a run, also after laying off.
    message = refused(state, 0, {"type": "lay_off", "meld": "m1", "cards": [JOKER]})
    assert message == "JK cannot be laid off on m1 (9H TH JH): the run would not stay valid"
    act(state, 0, {"type": "lay_off", "meld": "m1", "cards": ["QH"]})
    assert table(state)["m1"]["cards"] == ["9H", "TH", "JH", "QH"]
    assert "cannot be laid off on m1" in refused(
        state, 0, {"type": "lay_off", "meld": "m1", "cards": [JOKER]}
    )
    act(state, 0, {"type": "lay_off", "meld": "m2", "cards": [JOKER]})
    assert table(state)["m2"]["stands_for"] == ["KS", "KH", "KD", "KC"]
    assert "cannot be laid off on m2" in refused(state, 0, {"type": "lay_off", "meld": "m2", "cards": ["8S"]})
    assert (
        refused(state, 0, {"type": "lay_off", "meld": "m9", "cards": ["8S"]})
        == "there is no meld m9 on the table"
    )
    act(state, 0, {"type": "discard", "card": "8S"})

    draw(state, 1)
    message = refused(state, 1, {"type": "lay_off", "meld": "m1", "cards": ["8H"]})
    assert message == "you may lay off only after your own first meld"
    opening = [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]]
    message = refused(
        state, 1, {"type": "meld", "melds": opening, "lay_offs": [{"meld": 2, "cards": ["7C"]}]}
    )
    assert "names new meld 2" in message
    # The opening may end with lay-offs, onto the opponent's meld and onto a new meld by position.
    act(
        state,
        1,
        {
            "type": "meld",
            "melds": opening,
            "lay_offs": [{"meld": "m1", "cards": ["8H"]}, {"meld": 0, "cards": ["7C"]}],
        },
    )
    melds = table(state)
    assert melds["m1"]["cards"] == ["8H", "9H", "TH", "JH", "QH"] and melds["m1"]["owner"] == 0
    assert melds["m3"]["cards"] == ["3C", "4C", "5C", "6C", "7C"] and melds["m3"]["owner"] == 1
    assert melds["m4"]["owner"] == 1 and state["opened"] == [True, True]


def test_a_lay_off_keeps_the_melds_kind():
    assert read_meld(["7H", JOKER, JOKER, "TH"]).kind == "run"
    assert read_meld(["7H", JOKER, JOKER, "TH"], kind="set") is None
    assert read_meld(["7H", JOKER, JOKER, "7S"], kind="set") is not None


def test_from_two_cards_lay_off_one_and_discard_the_other():
    state = new(LAY_CUTTER, LAY_OTHER, draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    act(
        state,
        0,
        {"type": "meld", "melds": [["9H", "TH", "JH", "QH"], ["KS", "KD", "KC", JOKER], ["2D", "3D", "4D"]]},
    )
    assert sorted(state["hands"][0]) == ["5D", "8S"]
    act(state, 0, {"type": "lay_off", "meld": "m3", "cards": ["5D"]})
    assert state["status"] == "active" and state["hands"][0] == ["8S"]
    act(state, 0, {"type": "discard", "card": "8S"})
    assert state["status"] == "round_over" and state["round_result"]["winner"] == 0


# --- joker swap ---------------------------------------------------------------------------------

SWAP_CUTTER = ["7H", "8H", "TH", "JH", "2D", "3D", "4D", "5S", "5H", "9C", "KS", "QC"]
SWAP_OTHER = ["3C", "4C", "5C", "6C", "QS", "QH", "QD", "9H", "5D", "8S", "2S", "4S"]


def swap_table() -> dict:
    """Seat 0 has melded m1 = 7H 8H JK(9H) TH JH, m2 = 2D 3D 4D, m3 = 5S 5H JK(5?); seat 1 to draw."""
    state = new(SWAP_CUTTER, SWAP_OTHER, cut=("2C", JOKER, "3C"), draws=(JOKER, "6H"))
    to_turn_7(state)
    draw(state, 0)
    act(
        state,
        0,
        {"type": "meld", "melds": [["7H", "8H", JOKER, "TH", "JH"], ["2D", "3D", "4D"], ["5H", JOKER, "5S"]]},
    )
    act(state, 0, {"type": "discard", "card": "KS"})
    return state


def test_joker_swap_run_needs_the_exact_card_set_a_missing_suit_and_the_joker_goes_to_hand():
    state = swap_table()
    assert "5?" in table(state)["m3"]["stands_for"]
    assert "draw a card first" in refused(state, 1, {"type": "swap_joker", "meld": "m1", "card": "9H"})
    draw(state, 1)
    message = refused(state, 1, {"type": "swap_joker", "meld": "m1", "card": "9H"})
    assert message == "you may swap a joker only after your own first meld"
    act(state, 1, {"type": "meld", "melds": [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]]})
    assert {"type": "swap_joker", "meld": "", "card": "", "template": True} in GAME.legal_actions(state, 1)
    message = refused(state, 1, {"type": "swap_joker", "meld": "m1", "card": "8S"})
    assert message == "the joker in m1 stands for 9H; only that card can replace it"
    assert "has no joker" in refused(state, 1, {"type": "swap_joker", "meld": "m2", "card": "5D"})
    assert "you do not hold 5C" in refused(state, 1, {"type": "swap_joker", "meld": "m3", "card": "5C"})
    size = len(state["hands"][1])
    act(state, 1, {"type": "swap_joker", "meld": "m1", "card": "9H"})
    assert table(state)["m1"]["cards"] == ["7H", "8H", "9H", "TH", "JH"]
    assert state["hands"][1].count(JOKER) == 1 and "9H" not in state["hands"][1]
    message = refused(state, 1, {"type": "swap_joker", "meld": "m3", "card": JOKER})
    assert "not for another joker" in message
    act(state, 1, {"type": "swap_joker", "meld": "m3", "card": "5D"})
    assert sorted(table(state)["m3"]["cards"]) == ["5D", "5H", "5S"]
    assert state["hands"][1].count(JOKER) == 2 and len(state["hands"][1]) == size
    assert all(a["type"] != "swap_joker" for a in GAME.legal_actions(state, 1))


def test_a_set_joker_is_replaced_only_by_a_suit_not_yet_present():
    state = swap_table()
    draw(state, 1)
    state["hands"][1].append("5S")  # a second 5S (two decks), for this refusal only
    state["stock"].remove("5S")
    act(state, 1, {"type": "meld", "melds": [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]]})
    message = refused(state, 1, {"type": "swap_joker", "meld": "m3", "card": "5S"})
    assert message == "a joker in the set m3 can be replaced only by a 5 of a suit not yet in the set"


# --- a joker on the table keeps its card ----------------------------------------------------------

RUN_CUTTER = ["5D", "7D", JOKER, "QS", "KS", "AS", "6D", "8D", "TD", "QC", "2C", "4C", "9C"]
RUN_MELDS = [["5D", JOKER, "7D"], ["QS", "KS", "AS"]]
KEEPS = "a joker on the table keeps the card it stands for"


def jokers_run_at_turn_7() -> dict:
    """Seat 0 has drawn at turn 7 and holds RUN_MELDS (18 + 31 points) and 6D 8D TD."""
    state = new(RUN_CUTTER, OTHER, cut=("5C", "6C", "7C"), draws=("3H",))
    to_turn_7(state)
    draw(state, 0)
    return state


def test_a_lay_off_never_moves_a_table_joker_and_its_card_goes_in_by_a_swap():
    state = jokers_run_at_turn_7()
    act(state, 0, {"type": "meld", "melds": RUN_MELDS})
    assert table(state)["m1"]["stands_for"] == ["5D", "6D", "7D"]
    # 5D 6D 7D 8D JK TD would read as a run, the joker moved to 9D: refused.
    message = refused(state, 0, {"type": "lay_off", "meld": "m1", "cards": ["6D", "8D", "TD"]})
    assert message == (
        "6D 8D TD cannot be laid off on m1 (5D JK 7D): a joker on the table keeps the card it "
        "stands for, and the joker there stands for 6D; 6D goes in only by a joker swap"
    )
    assert KEEPS in refused(state, 0, {"type": "lay_off", "meld": "m1", "cards": ["6D"]})
    # Extending the run past the joker is still a lay-off.
    act(state, 0, {"type": "lay_off", "meld": "m1", "cards": ["8D"]})
    m1 = table(state)["m1"]
    assert m1["cards"] == ["5D", JOKER, "7D", "8D"] and m1["stands_for"] == ["5D", "6D", "7D", "8D"]
    act(state, 0, {"type": "swap_joker", "meld": "m1", "card": "6D"})
    assert table(state)["m1"]["cards"] == ["5D", "6D", "7D", "8D"]
    assert JOKER in state["hands"][0] and "6D" not in state["hands"][0]
    act(state, 0, {"type": "lay_off", "meld": "m1", "cards": [JOKER, "TD"]})
    assert table(state)["m1"]["stands_for"] == ["5D", "6D", "7D", "8D", "9D", "TD"]


def test_a_new_melds_jokers_are_fixed_for_the_lay_offs_of_the_same_action():
    state = jokers_run_at_turn_7()
    lay_offs = [{"meld": 0, "cards": ["6D", "8D", "TD"]}]
    message = refused(state, 0, {"type": "meld", "melds": RUN_MELDS, "lay_offs": lay_offs})
    assert KEEPS in message and "cannot be laid off on m1" in message


def _on_top(state: dict, card: str, where: str) -> None:
    """Put the stock's copy of `card` on the discard pile or aside as the closing card."""
    index = state["stock"].index(card)
    if where == "discard":
        state["stock"][index], state["discard"][-1] = state["discard"][-1], card
    else:
        state["stock"][index], state["closing_card"] = state["closing_card"], card


@pytest.mark.parametrize("kind", ["take_discard", "take_closing"])
def test_taking_a_card_to_lay_it_off_in_a_jokers_place_is_refused(kind):
    state = swap_table()  # m1 = 7H 8H JK(9H) TH JH; seat 1 holds 9H and opens with QS QH QD, 3C-6C
    _on_top(state, "9H", "discard" if kind == "take_discard" else "closing")
    action = {
        "type": kind,
        "melds": [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]],
        # 7H 8H 9H TH JH JK KH would read as a run with the joker moved to QH.
        "lay_offs": [{"meld": "m1", "cards": ["9H", "KH"]}],
    }
    state["hands"][1][state["hands"][1].index("8S")] = "KH"
    state["stock"][state["stock"].index("KH")] = "8S"
    assert read_meld([*table(state)["m1"]["cards"], "9H", "KH"]) is not None
    if kind == "take_closing":
        action["discard"] = "2S"
    assert KEEPS in refused(state, 1, action)


def test_a_set_joker_keeps_its_rank_and_a_lay_off_may_settle_its_open_suit():
    state = swap_table()
    draw(state, 1)
    act(state, 1, {"type": "meld", "melds": [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]]})
    act(state, 1, {"type": "lay_off", "meld": "m3", "cards": ["5D"]})
    m3 = table(state)["m3"]
    assert sorted(m3["stands_for"]) == ["5C", "5D", "5H", "5S"] and JOKER in m3["cards"]


# --- taking the discard ------------------------------------------------------------------------

TAKE_CUTTER = ["9H", "TH", "KS", "KD", "KC", "2D", "3D", "4D", "5D", "7C", "7S", "8S", "QC"]


def test_take_discard_only_to_use_it_at_once_with_the_opening_rules():
    state = new(TAKE_CUTTER, OTHER, early=("AS", "5S", "6S", "7S", "JH"), draws=("8H",))
    to_turn_7(state)
    assert state["discard"][-1] == "JH"
    message = refused(
        state, 0, {"type": "take_discard", "melds": [["KS", "KD", "KC"], ["2D", "3D", "4D", "5D"]]}
    )
    assert "the top discard (JH) must be in a new meld or a lay-off" in message
    message = refused(state, 0, {"type": "take_discard", "melds": [["9H", "TH", "JH"]]})
    assert message == "the first meld needs at least 42 points; these melds are worth 29"
    message = refused(state, 0, {"type": "take_discard", "lay_offs": [{"meld": "m1", "cards": ["JH"]}]})
    assert message == "you may lay off only after your own first meld"
    events = act(state, 0, {"type": "take_discard", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    assert events[0] == {"type": "take_discard", "seat": 0, "card": "JH"}
    assert state["discard"][-1] == "7S" and state["phase"] == "play"
    assert sorted(state["hands"][0]) == sorted(["2D", "3D", "4D", "5D", "7C", "7S", "8S"])
    assert "already drawn" in refused(state, 0, {"type": "draw"})
    act(state, 0, {"type": "discard", "card": "8S"})
    draw(state, 1)
    act(state, 1, {"type": "discard", "card": "8H"})
    # After the opening the discard may be taken for a lay-off alone.
    act(state, 0, {"type": "take_discard", "lay_offs": [{"meld": "m1", "cards": ["8H"]}]})
    assert table(state)["m1"]["cards"] == ["8H", "9H", "TH", "JH"]


def test_take_discard_from_an_empty_pile_is_refused():
    state = new(draws=(JOKER,))
    to_turn_7(state)
    state["stock"].extend(state["discard"])  # an empty pile, for this refusal only
    state["discard"] = []
    message = refused(state, 0, {"type": "take_discard", "melds": [["9H", "TH", "JH"]]})
    assert message == "the discard pile is empty"


# --- the closing card and closing the round -------------------------------------------------------

CLOSE_CUTTER = ["9H", "TH", "JH", "KS", "KD", "KC", "2D", "3D", "4D", "5D", "6D", "8C", "QC"]


def test_take_closing_only_to_meld_it_and_close_in_the_same_turn():
    state = new(CLOSE_CUTTER, OTHER, cut=("QH", "3C", "4C"), target_wins=1)
    to_turn_7(state)
    assert state["closing_card"] == "QH"
    melds = [["9H", "TH", "JH", "QH"], ["KS", "KD", "KC"], ["2D", "3D", "4D", "5D", "6D"]]
    message = refused(state, 0, {"type": "take_closing", "melds": melds[1:], "discard": "8C"})
    assert "the closing card (QH) must be in a new meld or a lay-off" in message
    message = refused(state, 0, {"type": "take_closing", "melds": melds[:2], "discard": "8C"})
    assert message == (
        "you may take the closing card only to close the round in the same turn; "
        "after discarding 8C you would still hold 2D 3D 4D 5D 6D"
    )
    message = refused(state, 0, {"type": "take_closing", "melds": melds, "discard": "9H"})
    assert message == "you cannot discard 9H: you would not hold it after melding"
    events = act(state, 0, {"type": "take_closing", "melds": melds, "discard": "8C"})
    assert [e["type"] for e in events] == [
        "take_closing",
        "meld",
        "meld",
        "meld",
        "discard",
        "round_over",
        "match_over",
    ]
    assert state["status"] == "finished" and state["winners"] == [0]
    result = state["round_result"]
    assert result["winner"] == 0 and result["winners"] == [0]
    assert result["hands"] == {"0": [], "1": GAME.view(state, 1)["hand"]}
    assert result["points"] == {"0": 0, "1": 80}
    assert state["closing_card"] is None and state["discard"][-1] == "8C"
    assert GAME.to_move(state) is None and GAME.legal_actions(state, 0) == []
    assert refused(state, 1, {"type": "draw"}, MatchNotActive)
    with pytest.raises(MatchNotActive):
        GAME.start_next_round(state)


def test_melding_never_ends_the_round_a_card_must_stay_and_the_discard_closes():
    cutter = ["9H", "TH", "JH", "KS", "KD", "KC", "3D", "4D", "5D", "6D", "7D", "8D", "QC"]
    state = new(cutter, OTHER, draws=("9D",))
    to_turn_7(state)
    draw(state, 0)
    act(state, 0, {"type": "meld", "melds": [["9H", "TH", "JH"], ["KS", "KD", "KC"]]})
    run = ["3D", "4D", "5D", "6D", "7D", "8D", "9D"]
    message = refused(state, 0, {"type": "meld", "melds": [run]})
    assert message == "you must keep a card: every turn ends with a discard"
    assert "keep a card" in refused(
        state, 0, {"type": "meld", "melds": [run[:3]], "lay_offs": [{"meld": 0, "cards": run[3:]}]}
    )
    act(state, 0, {"type": "meld", "melds": [run[:-1]]})
    assert state["status"] == "active" and state["hands"][0] == ["9D"] and state["phase"] == "play"
    assert [a["type"] for a in GAME.legal_actions(state, 0)] == ["discard"]
    events = act(state, 0, {"type": "discard", "card": "9D"})
    assert events[-1]["type"] == "round_over" and state["status"] == "round_over"
    assert state["wins"] == [1, 0] and GAME.view(state, 1)["scores"] == {"0": 1, "1": 0}


WIN_OTHER = ["3C", "4C", "5C", "6C", "7C", "QS", "QH", "QD", "8S", "8H", "8C", "9D"]


def turn_8_melded() -> dict:
    """Seat 1 (not the cutter) has melded everything but 9D and a drawn joker at turn 8."""
    state = new(CUTTER, WIN_OTHER, cut=("2C", "2H", "5D"), draws=("AD", JOKER, "AC", "TD"))
    to_turn_7(state)
    act(state, 0, {"type": "discard", "card": draw(state, 0)})
    assert draw(state, 1) == JOKER
    act(state, 1, {"type": "meld", "melds": [WIN_OTHER[:5], WIN_OTHER[5:8], WIN_OTHER[8:11]]})
    assert sorted(state["hands"][1]) == ["9D", JOKER] and state["status"] == "active"
    return state


def test_jokers_left_with_the_winner_go_into_the_next_round_and_the_winner_cuts():
    state = turn_8_melded()
    act(state, 1, {"type": "discard", "card": "9D"})
    assert state["status"] == "round_over" and state["wins"] == [0, 1]
    assert state["round_result"]["hands"]["1"] == [JOKER] and state["round_result"]["points"]["1"] == 0
    assert state["round_result"]["carried_jokers"] == 1
    assert all_cards(state) == Counter(FULL)
    events = GAME.start_next_round(state).events
    assert state["round"] == 2 and state["cutter"] == 1 and GAME.to_move(state) == 1
    assert state["phase"] == "discard" and state["turn_number"] == 1 and state["melds"] == []
    cut_jokers = state["cut"].count(JOKER)
    assert state["hands"][1].count(JOKER) >= 1 + cut_jokers  # more may be dealt
    assert [len(h) for h in state["hands"]] == [12, 13]
    assert all_cards(state) == Counter(FULL)
    deal = events[1]
    assert deal["type"] == "deal" and (deal["round"], deal["cutter"], deal["carried_jokers"]) == (2, 1, 1)


def test_a_player_keeping_one_card_draws_first_next_turn():
    state = turn_8_melded()
    act(state, 1, {"type": "discard", "card": JOKER})  # keeps 9D: the round goes on
    assert state["status"] == "active" and state["hands"][1] == ["9D"]
    act(state, 0, {"type": "discard", "card": draw(state, 0)})
    assert "draw a card first" in refused(state, 1, {"type": "discard", "card": "9D"})
    assert GAME.legal_actions(state, 1)[0] == {"type": "draw"}
    assert draw(state, 1) == "TD"
    act(state, 1, {"type": "discard", "card": "TD"})
    assert state["status"] == "active" and state["hands"][1] == ["9D"]


def test_closing_needs_ones_own_opening():
    state = new()
    act(state, 0, {"type": "discard", "card": "QC"})
    draw(state, 1)
    # A state no play reaches (an unopened hand keeps 12+ cards), to check the rule's guard.
    state["stock"].extend(state["hands"][1][1:])
    state["hands"][1] = state["hands"][1][:1] + [JOKER]
    state["stock"].remove(JOKER)
    card = state["hands"][1][0]
    message = refused(state, 1, {"type": "discard", "card": card})
    assert message == "you can close the round only after your own first meld"
    assert {"type": "discard", "card": card} not in GAME.legal_actions(state, 1)


# --- stock, match, resigning ------------------------------------------------------------------------


def test_an_empty_stock_is_refilled_from_the_discard_pile_but_its_top_and_the_closing_card():
    state = new()
    to_turn_7(state)
    while state["stock"]:
        seat = state["turn_seat"]
        act(state, seat, {"type": "discard", "card": draw(state, seat)})
    assert len(state["discard"]) == 83 and state["closing_card"] == "2C"
    top = state["discard"][-1]
    pile = Counter(state["discard"][:-1])
    seat = state["turn_seat"]
    first = copy.deepcopy(state)
    events = act(state, seat, {"type": "draw"})
    reshuffle = events[0]
    assert (reshuffle["type"], reshuffle["count"]) == ("reshuffle", 82)
    # The new stock is committed to like a deal (docs/api.md, fair deals).
    assert len(reshuffle["deal_commitment"]) == 64 and len(reshuffle["sealed"]["order"]) == 82
    drawn = events[1]["secret"][str(seat)]["card"]
    assert state["discard"] == [top] and state["closing_card"] == "2C"
    assert Counter([*state["stock"], drawn]) == pile and len(state["stock"]) == 81
    assert all_cards(state) == Counter(FULL)
    act(first, seat, {"type": "draw"})
    assert first == state  # the reshuffle follows the match's seeded RNG


def test_the_match_ends_at_target_wins_or_when_the_host_ends_it():
    state = new(CLOSE_CUTTER, OTHER, cut=("QH", "3C", "4C"), target_wins=2)
    to_turn_7(state)
    melds = [["9H", "TH", "JH", "QH"], ["KS", "KD", "KC"], ["2D", "3D", "4D", "5D", "6D"]]
    act(state, 0, {"type": "take_closing", "melds": melds, "discard": "8C"})
    assert state["status"] == "round_over" and state["winners"] is None
    events = GAME.end_match(state).events
    scores = {"0": 1, "1": 0}
    assert events == [
        {"type": "match_over", "winners": [0], "reason": "ended", "scores": scores, "ended_by_host": True}
    ]
    assert state["status"] == "finished" and state["winners"] == [0]
    with pytest.raises(MatchNotActive):
        GAME.end_match(state)
    level = new()
    GAME.end_match(level)
    assert level["winners"] == [0, 1] and GAME.view(level, None)["winners"] == [0, 1]


def test_resign_ends_the_match_for_the_other_player():
    state = new()
    events = act(state, 1, {"type": "resign"})  # not seat 1's turn: resigning needs none
    over = {"type": "match_over", "winners": [0], "reason": "resign", "scores": {"0": 0, "1": 0}}
    assert events == [{"type": "resign", "seat": 1}, over]
    assert state["status"] == "finished" and state["winners"] == [0]
    assert GAME.view(state, 0)["players"][1]["resigned"] is True
    refused(state, 0, {"type": "resign"}, MatchNotActive)
    assert "unknown action type" in refused(state, 0, {"type": "surrender"}, InvalidAction)


# --- view, legal actions, validation ---------------------------------------------------------------


def test_views_of_seats_and_spectators():
    state = swap_table()
    view = GAME.view(state, 1)
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
    assert view["turn"] == {"seat": 1, "phase": "draw", "deadline": None}
    assert view["hand"] == sorted(SWAP_OTHER, key=lambda c: ("SHDC".index(c[1]), RANKS.index(c[0])))
    assert [p["cards"] for p in view["players"]] == [1, 12]
    assert view["stock"] == len(state["stock"]) and view["discard"] == {"top": "KS", "count": 7}
    assert set(view["table"]) == {"melds", "closing_card", "cut", "opened", "turn_number"}
    assert view["table"]["melds"][2] == {
        "id": "m3",
        "owner": 0,
        "kind": "set",
        "cards": ["5S", "5H", JOKER],
        "stands_for": ["5S", "5H", "5?"],
    }
    assert view["table"]["opened"] == [True, False] and view["table"]["turn_number"] == 8
    assert view["scores"] == {"0": 0, "1": 0} and view["round_result"] is None and view["winners"] is None
    assert GAME.view(state, 0)["legal_actions"] == [] and GAME.view(state, 0)["hand"] == ["9C"]
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []
    text = json.dumps(spectator)
    assert "rng" not in text and "seed" not in text


def test_legal_actions_are_complete_discards_and_templates():
    state = new(draws=(JOKER,))
    assert GAME.legal_actions(state, 0) == [
        {"type": "discard", "card": c}
        for c in ["7S", "KS", "9H", "TH", "JH", "2D", "3D", "4D", "5D", "KD", "7C", "QC", "KC"]
    ]
    assert GAME.legal_actions(state, 1) == []
    to_turn_7(state)
    assert GAME.legal_actions(state, 0) == [
        {"type": "draw"},
        {"type": "take_discard", "melds": [], "lay_offs": [], "template": True},
        {"type": "take_closing", "melds": [], "lay_offs": [], "discard": "", "template": True},
    ]


@pytest.mark.parametrize(
    "action",
    [
        None,
        [],
        "draw",
        5,
        {},
        {"type": 5},
        {"type": "fly"},
        {"type": "draw", "pile": "stock"},
        {"type": "discard"},
        {"type": "discard", "card": "ZZ"},
        {"type": "discard", "card": 5},
        {"type": "discard", "card": "5c"},
        {"type": "discard", "card": ["5C"]},
        {"type": "meld"},
        {"type": "meld", "melds": "7H 8H 9H"},
        {"type": "meld", "melds": [["7H", "XX"]]},
        {"type": "meld", "melds": [[]]},
        {"type": "meld", "melds": ["7H"]},
        {"type": "meld", "melds": [], "x": 1},
        {"type": "meld", "melds": [], "lay_offs": {}},
        {"type": "meld", "melds": [], "lay_offs": [5]},
        {"type": "meld", "melds": [], "lay_offs": [{"meld": True, "cards": ["7H"]}]},
        {"type": "meld", "melds": [], "lay_offs": [{"meld": "m1"}]},
        {"type": "meld", "melds": [], "lay_offs": [{"meld": "m1", "cards": ["7H"], "x": 0}]},
        {"type": "meld", "melds": [], "lay_offs": [{"meld": 1.5, "cards": ["7H"]}]},
        {"type": "lay_off", "meld": 0, "cards": ["7H"]},
        {"type": "lay_off", "meld": "m1", "cards": "7H"},
        {"type": "lay_off", "meld": "", "cards": ["7H"]},
        {"type": "lay_off", "cards": ["7H"]},
        {"type": "swap_joker", "meld": "m1"},
        {"type": "swap_joker", "meld": "m1", "card": None},
        {"type": "take_discard", "melds": None},
        {"type": "take_closing", "melds": []},
        {"type": "take_closing", "discard": "JOKER"},
        {"type": "resign", "seat": 1},
        {"type": "meld", "melds": [["7H"] * 200]},
    ],
)
def test_malformed_actions_are_invalid(action):
    state = new()
    message = refused(state, 0, action, InvalidAction)
    assert message and "Traceback" not in message


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=4)
    | st.sampled_from(["7H", "JK", "m1", "draw", "meld", "lay_off", "swap_joker", "take_discard"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["type", "card", "cards", "meld", "melds", "lay_offs", "discard", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(action=json_values)
def test_any_json_action_is_refused_only_with_an_engine_error(action):
    state = new(draws=(JOKER,))
    to_turn_7(state)
    draw(state, 0)
    before = copy.deepcopy(state)
    try:
        GAME.apply(state, 0, action)
    except EngineError:
        assert state == before


def test_out_of_turn_and_not_active():
    state = new()
    refused(state, 1, {"type": "discard", "card": "2S"}, NotYourTurn)
    assert "unknown action type" in refused(state, 1, {"type": "pass"}, InvalidAction)
    act(state, 0, {"type": "resign"})
    refused(state, 1, {"type": "draw"}, MatchNotActive)


def test_events_show_hidden_cards_only_to_their_owner():
    options = GAME.validate_options({}, 2)
    state, events = GAME.new_match(options, 2, 9)
    deal = events[1]
    for seat in (0, 1):
        assert sorted(redact_event(deal, seat)["hand"]) == sorted(state["hands"][seat])
    assert "hand" not in redact_event(deal, None) and redact_event(deal, None)["cards"] == {"0": 13, "1": 12}
    act(state, 0, {"type": "discard", "card": state["hands"][0][0]})
    (event,) = act(state, 1, {"type": "draw"})
    assert redact_event(event, 1)["card"] == state["hands"][1][-1]
    assert "card" not in redact_event(event, 0) and "card" not in redact_event(event, None)


def test_same_seed_same_match():
    options = GAME.validate_options({"first_cutter": 1}, 2)
    assert GAME.new_match(options, 2, 77) == GAME.new_match(options, 2, 77)
    assert GAME.new_match(options, 2, 77)[0]["hands"] != GAME.new_match(options, 2, 78)[0]["hands"]


# --- bot ------------------------------------------------------------------------------------------


def test_bot_discards_the_highest_unmatched_card():
    state = new()
    assert bots.decide(GAME, GAME.view(state, 0), "easy", random.Random(1)) == {
        "type": "discard",
        "card": "QC",
    }


def test_bot_opens_when_it_can_and_goes_out():
    state = new(draws=(JOKER,))
    to_turn_7(state)
    view = GAME.view(state, 0)
    assert bots.decide(GAME, view, "easy", random.Random(1)) == {"type": "draw"}
    draw(state, 0)
    action = bots.decide(GAME, GAME.view(state, 0), "easy", random.Random(1))
    assert action["type"] == "meld"
    act(state, 0, action)
    assert state["opened"][0] and len(state["hands"][0]) == 1
    action = bots.decide(GAME, GAME.view(state, 0), "easy", random.Random(1))
    act(state, 0, action)
    assert state["status"] == "round_over" and state["round_result"]["winner"] == 0


def test_bot_lays_off_and_swaps():
    state = swap_table()
    draw(state, 1)
    act(state, 1, {"type": "meld", "melds": [["3C", "4C", "5C", "6C"], ["QS", "QH", "QD"]]})
    rng = random.Random(2)
    actions = []
    while state["phase"] == "play":
        action = bots.decide(GAME, GAME.view(state, 1), "easy", rng)
        actions.append(action)
        act(state, 1, action)
    kinds = [a["type"] for a in actions]
    assert "swap_joker" in kinds and kinds[-1] == "discard"
    assert {"type": "swap_joker", "meld": "m1", "card": "9H"} in actions


def test_bot_plays_whole_matches_legally():
    finished = 0
    for seed in range(6):
        state = play_random(
            GAME,
            {"target_wins": 2},
            2,
            1000 + seed,
            pick=lambda game, state, seat, legal, rng: bots.decide(game, game.view(state, seat), "easy", rng),
        )
        finished += state["status"] == "finished"
    assert finished == 6


# --- random playouts --------------------------------------------------------------------------------

SUIT_ORDER = "SHDC"


def candidate_melds(cards: list[str]) -> list[list[str]]:
    """Cheap meld guesses for the random policy (the engine judges them): sets and runs of naturals,
    a pair plus a joker, a gap filled by a joker."""
    jokers = cards.count(JOKER)
    naturals = sorted(set(cards) - {JOKER})
    out: list[list[str]] = []
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, set[int]] = {}
    for c in naturals:
        by_rank.setdefault(c[0], []).append(c)
        by_suit.setdefault(c[1], set()).add(RANKS.index(c[0]) + 1)
    for group in by_rank.values():
        if len(group) >= 3:
            out.append(group[:4])
        elif len(group) == 2 and jokers:
            out.append([*group, JOKER])
    for s, values in by_suit.items():
        if 1 in values:
            values = values | {14}
        v = 1
        while v <= 14:
            if v in values:
                w = v
                while w + 1 in values:
                    w += 1
                if w - v >= 2 and not (v == 1 and w == 14):
                    out.append([RANKS[(x - 1) % 13] + s for x in range(v, w + 1)])
                if jokers and w + 2 in values and w + 2 <= 14:
                    out.append([RANKS[(w - 1) % 13] + s, JOKER, RANKS[(w + 1) % 13] + s])
                v = w + 1
            else:
                v += 1
    return out


def pick_disjoint(
    candidates: list[list[str]], cards: list[str], rng: random.Random, p: float
) -> list[list[str]]:
    """Some of the guessed melds (each with probability p) that the cards can make together."""
    left = Counter(cards)
    chosen = []
    for meld in rng.sample(candidates, len(candidates)):
        need = Counter(meld)
        if all(left[c] >= n for c, n in need.items()) and rng.random() < p:
            left -= need
            chosen.append(meld)
    return chosen


def fitting_melds(card: str, melds: list[dict]) -> list[str]:
    """Ids of the table melds `card` could extend (a cheap filter, then the meld rules)."""
    out = []
    for meld in melds:
        natural = next(c for c in meld["cards"] if c != JOKER)
        if (
            card != JOKER
            and (card[0] if meld["kind"] == "set" else card[1]) != natural[meld["kind"] == "run"]
        ):
            continue
        if lay_off_reading(meld, [card]) is not None:
            out.append(meld["id"])
    return out


class Playout:
    """A random policy that tries melds, lay-offs and swaps, and the invariants checked at every step."""

    def __init__(self, bot_share: float) -> None:
        self.bot_share = bot_share
        self.rounds = 0
        self.refused = 0
        self.accepted: Counter = Counter()
        self.sizes: list[int] = []
        self.valid_melds: set = set()
        self.views: dict = {}  # the seats' views of the state as on_step last saw it
        self.tables: dict[str, list[str]] = {}  # per run on the table, what its jokers stood for
        self.joker_refusals = 0  # lay-offs of a joker's card tried and refused

    # the policy
    def pick(self, game: ZolikyGame, state: dict, seat: int, legal: list, rng: random.Random) -> dict:
        if state["turn_number"] == 1 and state["phase"] == "discard":
            # A new round: on_step has not seen this state yet.
            assert len(state["hands"][seat]) == 13 and len(state["hands"][1 - seat]) == 12
            self.check_state(state)
        view = self.views.pop(seat)
        self.views.clear()
        assert view["legal_actions"] == legal and game.legal_actions(state, 1 - seat) == []
        self.sizes = [len(h) for h in state["hands"]]
        if "lay_off" in {a["type"] for a in legal}:
            self.try_a_jokers_card(game, state, seat, view)
        # The bot plays a share of the decisions: its better melding keeps rounds short.
        if rng.random() < self.bot_share:
            return bots.decide(game, view, "easy", rng)
        hand = view["hand"]
        guesses = candidate_melds(hand) if state["phase"] == "play" else []
        trial = None
        for attempt in self.attempts(view, guesses, {a["type"] for a in legal}, rng):
            if trial is None:
                trial = json.loads(json.dumps(state))
            try:
                game.apply(trial, seat, attempt)
            except IllegalAction:
                # A refusal leaves the state unchanged, so the same copy serves the next attempt.
                assert trial == state
                self.refused += 1
                continue
            self.accepted[attempt["type"]] += 1
            return attempt
        if state["phase"] == "draw":
            return {"type": "draw"}
        # Mostly the dearest card no guessed meld uses, so that rounds end; sometimes any card.
        used = {c for m in guesses for c in m}
        loose = [a for a in legal if a["type"] == "discard" and a["card"] not in used and a["card"] != JOKER]
        if loose and rng.random() < 0.95:
            return max(loose, key=lambda a: (card_points(a["card"]), a["card"]))
        return rng.choice([a for a in legal if a["type"] == "discard"])

    def try_a_jokers_card(self, game: ZolikyGame, state: dict, seat: int, view: dict) -> None:
        """Lay off the card a table joker stands for, with the hand's other cards of its suit (so
        that a re-reading could move the joker): always refused, naming the rule."""
        for meld in view["table"]["melds"]:
            held = [c for c in joker_cards(meld) if c in view["hand"]] if meld["kind"] == "run" else []
            if not held:
                continue
            more = [c for c in dict.fromkeys(view["hand"]) if c[1] == held[0][1] and c != held[0]]
            action = {"type": "lay_off", "meld": meld["id"], "cards": [held[0], *more[:3]]}
            trial = json.loads(json.dumps(state))
            with pytest.raises(IllegalAction, match="a joker on the table keeps the card it stands for"):
                game.apply(trial, seat, action)
            assert trial == state
            self.joker_refusals += 1

    @staticmethod
    def attempts(view: dict, guesses: list[list[str]], types: set, rng: random.Random):
        """Actions worth trying now: likely ones first, then some the engine must refuse."""
        hand = view["hand"]
        melds = view["table"]["melds"]
        if "take_discard" in types:
            top = view["discard"]["top"]
            fits = fitting_melds(top, melds)
            if fits:
                yield {"type": "take_discard", "lay_offs": [{"meld": rng.choice(fits), "cards": [top]}]}
            guesses = [m for m in candidate_melds([*hand, top]) if top in m]
            if guesses:
                yield {"type": "take_discard", "melds": [rng.choice(guesses)], "lay_offs": []}
            if melds and rng.random() < 0.2:
                yield {
                    "type": "take_discard",
                    "lay_offs": [{"meld": rng.choice(melds)["id"], "cards": [top]}],
                }
        if "take_closing" in types and rng.random() < 0.2:
            closing = view["table"]["closing_card"]
            chosen = pick_disjoint(candidate_melds([*hand, closing]), [*hand, closing], rng, 1.0)
            rest = Counter([*hand, closing]) - Counter(c for m in chosen for c in m)
            if rest:
                yield {"type": "take_closing", "melds": chosen, "discard": max(rest, key=card_points)}
        if "meld" in types and guesses:
            every = pick_disjoint(guesses, hand, rng, 1.0)
            yield {"type": "meld", "melds": every, "lay_offs": []}
            some = pick_disjoint(guesses, hand, rng, 0.5)
            if some and some != every:
                yield {"type": "meld", "melds": some}
            if rng.random() < 0.1:
                yield {"type": "meld", "melds": [rng.sample(hand, min(len(hand), 3))]}
        if "lay_off" in types:
            for card in rng.sample(hand, len(hand)):
                fits = fitting_melds(card, melds)
                if fits:
                    yield {"type": "lay_off", "meld": rng.choice(fits), "cards": [card]}
                    break
            if rng.random() < 0.3:
                yield {"type": "lay_off", "meld": rng.choice(melds)["id"], "cards": [rng.choice(hand)]}
        if "swap_joker" in types:
            with_joker = [m for m in melds if JOKER in m["cards"]]
            yield {"type": "swap_joker", "meld": rng.choice(with_joker)["id"], "card": rng.choice(hand)}

    # the invariants
    def check_state(self, state: dict) -> None:
        assert sorted(all_cards(state).elements()) == FULL_SORTED
        for meld in state["melds"]:
            key = (meld["kind"], tuple(meld["cards"]), tuple(meld["stands_for"]))
            if key not in self.valid_melds:
                reading = read_meld(meld["cards"], kind=meld["kind"])
                assert reading is not None and classify(meld["cards"], RULES) is not None
                assert (reading.cards, reading.stands_for) == key[1:]
                self.check_slot(meld)
                self.valid_melds.add(key)
        self.check_jokers_fixed(state)
        if state["status"] == "active" and state["phase"] == "draw":
            assert all(len(h) <= 12 for h in state["hands"])
        self.check_views(state)

    @staticmethod
    def check_slot(meld: dict) -> None:
        """The bots' lay-off model of a table meld takes exactly the cards the engine accepts."""
        natural = next(c for c in meld["cards"] if c != JOKER)
        near = [r + natural[1] for r in RANKS] if meld["kind"] == "run" else [natural[0] + s for s in "SHDC"]
        fits = {c for c in near if lay_off_reading(meld, [c]) is not None}
        assert set(Slot.of(meld).takes()) == fits, meld

    def check_jokers_fixed(self, state: dict) -> None:
        """Every table joker keeps the card it stood for when its meld was laid: in a run the place
        holds a joker or, after a swap, that very card; in a set the joker keeps the set's rank."""
        if state["turn_number"] == 1 or len(self.tables) > len(state["melds"]):
            self.tables = {}  # a new round: meld ids start again
        for meld in state["melds"]:
            if JOKER not in meld["cards"]:
                continue
            stands = joker_cards(meld)
            if meld["kind"] == "set":
                rank = next(c for c in meld["cards"] if c != JOKER)[0]
                assert all(s[0] == rank for s in stands)
                continue
            at = dict(zip(meld["stands_for"], meld["cards"], strict=True))
            for card in self.tables.get(meld["id"], ()):
                assert at.get(card) in (JOKER, card), (card, meld)
            self.tables[meld["id"]] = stands

    def check_views(self, state: dict) -> None:
        """No view holds a card its viewer may not see.

        The spectator's view must not change when the hidden cards (both hands, or after the round
        only the stock) are dealt differently; a seat's view must be the spectator's plus its own
        hand and its legal actions, which only name its own cards.
        """
        pool = (
            state["stock"]
            if state["status"] != "active"
            else [*state["hands"][0], *state["hands"][1], *state["stock"]]
        )
        pool = pool[::-1]
        hands = list(state["hands"])
        if state["status"] == "active":
            hands = [pool[: len(hands[0])], pool[len(hands[0]) : len(hands[0]) + len(hands[1])]]
            pool = pool[len(hands[0]) + len(hands[1]) :]
        public = GAME.view(state, None)
        assert public["hand"] is None and public["legal_actions"] == []
        assert GAME.view({**state, "hands": hands, "stock": pool}, None) == public
        for seat in (0, 1):
            view = GAME.view(state, seat)
            assert {**view, "hand": None, "legal_actions": []} == public
            assert sorted(view["hand"]) == sorted(state["hands"][seat])
            assert {a["card"] for a in view["legal_actions"] if "card" in a and a["card"]} <= set(
                view["hand"]
            )
            self.views[seat] = view

    def on_step(self, state: dict, seat: int, action: dict, events: list[dict]) -> None:
        self.check_state(state)
        kind = action["type"]
        used = sum(len(m) for m in action.get("melds", [])) + sum(
            len(lo["cards"]) for lo in action.get("lay_offs", [])
        )
        delta = {
            "draw": 1,
            "discard": -1,
            "meld": -used,
            "lay_off": -len(action.get("cards", [])),
            "swap_joker": 0,
            "take_discard": 1 - used,
            "take_closing": -used,
        }[kind]
        expected = list(self.sizes)
        expected[seat] += delta
        assert [len(h) for h in state["hands"]] == expected
        for event in events:
            if "secret" in event:
                assert set(event["secret"]) <= {"0", "1"}
            if event["type"] == "draw":
                assert "card" not in redact_event(event, 1 - seat) and "card" not in redact_event(event, None)
            if event["type"] == "round_over":
                self.rounds += 1
                assert event["winner"] == seat and all(c == JOKER for c in state["hands"][seat])
                for s in (0, 1):
                    assert event["points"][str(s)] == sum(card_points(c) for c in state["hands"][s])
                assert state["opened"][seat]


def test_random_rounds_keep_every_invariant():
    playout = Playout(bot_share=0.7)
    seed = 0
    while playout.rounds < 1000:
        seed += 1
        play_random(
            GAME,
            {"target_wins": 3, "first_cutter": seed % 2},
            2,
            seed,
            pick=playout.pick,
            on_step=playout.on_step,
            max_steps=3000,
        )
    assert playout.refused > 1000 and playout.joker_refusals > 0
    assert (
        min(playout.accepted[t] for t in ("meld", "lay_off", "swap_joker", "take_discard", "take_closing"))
        > 0
    )

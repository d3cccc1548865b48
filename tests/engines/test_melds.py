"""Tests of engines.melds (readings against docs/rules/) and engines.meld_solver (against brute force)."""

from __future__ import annotations

import functools
from itertools import combinations, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.cards import JOKER, RANKS, STANDARD_52, SUITS
from engines.meld_solver import best_split, goes_out
from engines.melds import Meld, MeldRules, classify, interpretations

ZHOL = MeldRules(ace_low=True, ace_high=True)
ZOLIKY = MeldRules(ace_low=True, ace_high=True, wild_at_run_ends=False)


def three_thirteen(wild_rank: str | None = "3", *, multiple=False, all_wild=False, aces_high_low=False):
    return MeldRules(
        ace_high=aces_high_low,
        max_set=None,
        set_distinct_suits=False,
        max_wilds_per_meld=None if multiple else 1,
        allow_all_wild=all_wild,
        wild_rank=wild_rank,
    )


RULE_SETS = {
    "zhol": ZHOL,
    "zoliky": ZOLIKY,
    "tt": three_thirteen("3"),
    "tt-multi": three_thirteen("5", multiple=True),
    "tt-allwild": three_thirteen("5", multiple=True, all_wild=True, aces_high_low=True),
    "tt-allwild-one": three_thirteen("A", all_wild=True),
    "low-only-sets-3": MeldRules(ace_low=True, ace_high=False, max_set=3, max_wilds_per_meld=2),
    "high-only": MeldRules(ace_low=False, ace_high=True, min_run=4),
}


def points(card: str) -> int:
    if card == JOKER:
        return 20
    return {"A": 11, "T": 10, "J": 10, "Q": 10, "K": 10}.get(card[0]) or int(card[0])


def tt_points(rules: MeldRules):
    def pts(card: str) -> int:
        if card == JOKER:
            return 20
        if card[0] == rules.wild_rank:
            return 15
        return {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(card[0]) or int(card[0])

    return pts


def codes(text: str) -> list[str]:
    return text.split()


def is_meld(text: str, rules: MeldRules) -> bool:
    return bool(interpretations(codes(text), rules))


# --------------------------------------------------------------------------------------------------
# examples of docs/rules/
# --------------------------------------------------------------------------------------------------


def test_runs_never_wrap_around_the_ace():
    assert not is_meld("KS AS 2S", ZHOL)
    assert not is_meld("KS AS 2S", ZOLIKY)
    assert not is_meld("QS KS AS 2S", ZHOL)


def test_ace_is_low_or_high_where_allowed():
    assert is_meld("AS 2S 3S", ZHOL) and is_meld("QS KS AS", ZHOL)
    low = classify(codes("3S AS 2S"), ZHOL)
    assert low == Meld("run", ("AS", "2S", "3S"), ("AS", "2S", "3S"), False)
    high = classify(codes("AS QS KS"), ZHOL)
    assert high == Meld("run", ("QS", "KS", "AS"), ("QS", "KS", "AS"), True)
    tt = three_thirteen(None)
    assert is_meld("AS 2S 3S", tt) and not is_meld("QS KS AS", tt)
    assert is_meld("QS KS AS", three_thirteen(None, aces_high_low=True))


def test_run_needs_one_suit_consecutive_ranks_no_repeat():
    assert is_meld("7S 8S 9S", ZHOL)
    assert not is_meld("7S 8H 9D", ZHOL)
    assert not is_meld("7S 8S 8S 9S", ZHOL)
    assert not is_meld("7S 9S TS", ZHOL)
    assert not is_meld("7S 8S", ZHOL)


def test_zoliky_joker_only_inside_a_run():
    assert classify(codes("7H JK 9H"), ZOLIKY) == Meld("run", ("7H", "JK", "9H"), ("7H", "8H", "9H"), False)
    assert not is_meld("7H 8H JK", ZOLIKY)
    assert not is_meld("JK 8H 9H", ZOLIKY)
    assert is_meld("7H 8H JK TH", ZOLIKY)
    # 44 points example from docs/rules/zoliky.md: a valid run with a joker standing for 9H
    assert classify(codes("7H 8H JK TH JH"), ZOLIKY).stands_for == ("7H", "8H", "9H", "TH", "JH")


def test_zhol_joker_anywhere_in_a_run():
    readings = interpretations(codes("7H 8H JK"), ZHOL)
    assert [m.stands_for for m in readings] == [("7H", "8H", "9H"), ("6H", "7H", "8H")]
    assert classify(codes("5C 6C JK 8C"), ZHOL).stands_for == ("5C", "6C", "7C", "8C")
    assert classify(codes("QS KS JK"), ZHOL) == Meld("run", ("QS", "KS", "JK"), ("QS", "KS", "AS"), True)


def test_no_all_joker_meld_unless_allowed():
    assert not is_meld("JK JK JK", ZHOL)
    assert not is_meld("JK JK JK", ZOLIKY)
    tt = three_thirteen("5", multiple=True, all_wild=True)
    assert classify(codes("JK 5S 5H"), tt).stands_for == ("5S", "5H", "5?")
    all_wild = interpretations(codes("JK JK 7D"), three_thirteen("7", all_wild=True))
    assert all_wild and all(m.kind == "set" and set(m.stands_for) == {"??"} for m in all_wild)


def test_sets_of_distinct_suits():
    assert is_meld("9S 9H 9D", ZHOL) and is_meld("9S 9H 9D 9C", ZHOL)
    assert not is_meld("AS AS AH", ZHOL)  # two equal cards from two decks
    assert not is_meld("AS AS AH", ZOLIKY)
    assert not is_meld("9S 9H 9D 9C 9S", ZHOL)
    assert not is_meld("9S 9H 9D 9C JK", ZHOL)  # a joker needs a missing suit
    assert not is_meld("9S 9H", ZHOL)


def test_joker_in_a_set_stands_for_a_missing_suit():
    assert classify(codes("7S 7H 7D JK"), ZOLIKY).stands_for == ("7S", "7H", "7D", "7C")
    assert classify(codes("JK 7S 7H"), ZOLIKY).stands_for == ("7S", "7H", "7?")
    assert classify(codes("JK JK 7H"), ZHOL) is not None
    assert [m.kind for m in interpretations(codes("JK JK 7H"), ZHOL)] == ["run", "run", "run", "set"]


def test_jk_5h_jk_reads_as_runs_or_a_set():
    readings = interpretations(codes("JK 5H JK"), ZHOL)
    assert {m.stands_for for m in readings} == {
        ("5H", "6H", "7H"),
        ("4H", "5H", "6H"),
        ("3H", "4H", "5H"),
        ("5H", "5?", "5?"),
    }


def test_three_thirteen_sets_may_repeat_suits_and_are_unlimited():
    tt = three_thirteen("3")
    assert is_meld("9S 9S 9H", tt)
    assert is_meld("9S 9S 9H 9H 9D 9C", tt)
    assert not is_meld("9S 9S", tt)


def test_three_thirteen_wild_rank_stands_for_itself():
    tt = three_thirteen("3")
    readings = interpretations(codes("3C 3D 3H"), tt)
    assert readings == [Meld("set", ("3H", "3D", "3C"), ("3H", "3D", "3C"), False)]
    # as a wild card it stands for anything: 3S completes a run of hearts
    assert classify(codes("7H 3S 9H"), tt).stands_for == ("7H", "8H", "9H")
    # a run with the wild rank in its natural place uses no wild, so a second wild is fine
    assert classify(codes("3H 4H JK"), three_thirteen("3")).stands_for == ("3H", "4H", "5H")


def test_three_thirteen_one_wild_per_meld():
    tt = three_thirteen("3")
    assert not is_meld("7H 3S 3C", tt)
    assert not is_meld("7H JK 9H JK", tt)
    assert is_meld("7H 3S 3C", three_thirteen("3", multiple=True))


def test_invalid_codes_are_not_melds():
    assert interpretations(["7H", "8H", "XX"], ZHOL) == []
    assert interpretations([], ZHOL) == []
    with pytest.raises(ValueError):
        best_split(["7H", "ZZ"], ZHOL, points)


# --------------------------------------------------------------------------------------------------
# best_split examples
# --------------------------------------------------------------------------------------------------


def test_goes_out():
    assert goes_out(codes("7H 8H 9H 5S 5D 5C JK"), ZHOL)
    assert not goes_out(codes("7H 8H 9H 5S 5D 5C 2C"), ZHOL)
    assert goes_out([], ZHOL)
    assert not goes_out(codes("JK JK JK"), ZHOL)
    assert goes_out(codes("JK JK JK"), three_thirteen("9", all_wild=True))


def test_best_split_small_zhol_wins():
    split = best_split(codes("7H 8H 9H 5S 5D 5C JK"), ZHOL, points)
    assert split.leftover == () and split.points == 0
    assert sorted(len(m.cards) for m in split.melds) == [3, 4]


def test_best_split_rejects_wrap_and_equal_suits():
    assert best_split(codes("KS AS 2S 5S 5D 5C 5H"), ZHOL, points).leftover != ()
    assert best_split(codes("9S 9S 9H 5S 5D 5C 5H"), ZHOL, points).leftover != ()


def test_best_split_large_zhol_shapes():
    for hand in (
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS 5H 5D 5C",  # 11 + 3
        "7C 7D 7H 7S 2H 3H 4H 5H 6H 9D TD JD QD KD",  # 4 + 5 + 5
        "AH 2H 3H 4H 5H 6H 7H QS KS AS JK 9C 9D 9H",  # 7 + 4 + 3
        "JK JK JK JK AS 2D 3S 4D 5S 6D 7S 8D 9S TD",  # joker-heavy, still complete
    ):
        split = best_split(codes(hand), ZHOL, points)
        if "JK JK JK JK" in hand:
            assert split.points > 0  # ten cards alternating suits cannot all be covered by 4 jokers
        else:
            assert split.leftover == (), hand


def test_best_split_leaves_the_cheapest_wild():
    tt = three_thirteen("7", multiple=False)
    pts = tt_points(tt)
    split = best_split(codes("7H JK 2C 2D"), tt, pts)
    # 2C 2D + one wild is a set; the other wild stays: the 15-point 7H rather than the 20-point joker
    assert split.points == 15 and split.leftover == ("7H",)


def test_best_split_uses_wild_rank_as_itself():
    tt = three_thirteen("3")
    split = best_split(codes("3C 3D 3H"), tt, tt_points(tt))
    assert split.leftover == ()
    assert split.melds[0].stands_for == ("3H", "3D", "3C")
    # 3H as itself plus 3S as the one wild: 2H 3H 4H and 9C 9D 3S
    split = best_split(codes("2H 3H 4H 9C 9D 3S"), tt, tt_points(tt))
    assert split.leftover == ()


def test_best_split_all_wild_meld_when_allowed():
    tt = three_thirteen("9", all_wild=True)
    split = best_split(codes("9S 9H JK 2C"), tt, tt_points(tt))
    assert split.points == 2 and split.leftover == ("2C",)
    tt_no = three_thirteen("8", all_wild=False)
    # 8S 8H as themselves plus the joker: a set of eights with one wild
    assert best_split(codes("8S 8H JK 2C"), tt_no, tt_points(tt_no)).points == 2
    # with multiple wilds, 2C and three wilds make a set of twos
    assert best_split(codes("8S 8H JK 2C"), three_thirteen("8", multiple=True), tt_points(tt_no)).points == 0
    # without the all-wild option two jokers and an eight (a wild here) cannot meld alone
    assert best_split(codes("JK JK 8H 2C"), tt_no, tt_points(tt_no)).points == 2 + 20 + 20 + 15


# --------------------------------------------------------------------------------------------------
# Properties: readings agree with an independent check; best_split is exact
# --------------------------------------------------------------------------------------------------


def natural_meld(stands: list[str], rules: MeldRules) -> str | None:
    """The kind of meld these concrete cards form with no wilds at all, by the text of docs/rules/cards.md."""
    if len(stands) >= rules.min_set and (rules.max_set is None or len(stands) <= rules.max_set):
        if len({c[0] for c in stands}) == 1:
            if not rules.set_distinct_suits or len({c[1] for c in stands}) == len(stands):
                return "set"
    if len(stands) >= rules.min_run and len({c[1] for c in stands}) == 1:
        values = [RANKS.index(c[0]) + 1 for c in stands]
        for high in (False, True):
            if (high and not rules.ace_high) or (not high and 1 in values and not rules.ace_low):
                continue
            vs = sorted(14 if (high and v == 1) else v for v in values)
            if vs == list(range(vs[0], vs[0] + len(vs))):
                return "run"
    return None


def brute_is_meld(cards: list[str], rules: MeldRules) -> bool:
    """Try every card each wild could stand for (slow; for up to 2 wilds)."""
    wild_at = [i for i, c in enumerate(cards) if rules.is_wild(c)]
    for stands in product(*([c] if i not in wild_at else STANDARD_52 for i, c in enumerate(cards))):
        acting = [i for i in wild_at if stands[i] != cards[i] or cards[i] == JOKER]
        if len(acting) == len(cards) or (
            rules.max_wilds_per_meld is not None and len(acting) > rules.max_wilds_per_meld
        ):
            continue
        kind = natural_meld(list(stands), rules)
        if kind is None:
            continue
        if kind == "run" and not rules.wild_at_run_ends:
            # the ace is high in a run that holds a king (runs here are at most 5 cards long)
            ace_high = any(c[0] == "K" for c in stands)
            positions = [14 if c[0] == "A" and ace_high else RANKS.index(c[0]) + 1 for c in stands]
            order = sorted(range(len(cards)), key=positions.__getitem__)
            if order[0] in acting or order[-1] in acting:
                continue
        return True
    return False


SMALL_POOL = [r + s for r in "A234QK" for s in "SH"] + [JOKER]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(SMALL_POOL), min_size=3, max_size=5),
    st.sampled_from(["zhol", "zoliky", "tt", "tt-multi", "low-only-sets-3", "high-only"]),
)
def test_interpretations_agree_with_brute_force(cards, rules_name):
    rules = RULE_SETS[rules_name]
    if sum(rules.is_wild(c) for c in cards) > 2:
        cards = cards[:3]
    if sum(rules.is_wild(c) for c in cards) > 2:
        return
    readings = interpretations(cards, rules)
    assert bool(readings) == brute_is_meld(cards, rules), (cards, readings)
    for meld in readings:
        assert sorted(meld.cards) == sorted(cards)
        assert len(meld.stands_for) == len(meld.cards)
        for card, stand in zip(meld.cards, meld.stands_for, strict=True):
            if not rules.is_wild(card):
                assert stand == card
        if meld.kind == "run":
            assert natural_meld(list(meld.stands_for), rules) == "run"
            first, last = meld.stands_for[0][0], meld.stands_for[-1][0]
            assert meld.ace_high == (last == "A" and first != "A")
        else:
            assert len({s[0] for s in meld.stands_for}) == 1


@functools.lru_cache(maxsize=200_000)
def _is_meld_cached(cards: tuple[str, ...], rules: MeldRules) -> bool:
    return bool(interpretations(cards, rules))


def brute_best(hand: list[str], rules: MeldRules, pts) -> int:
    """Minimum leftover points over every partition of the hand, by direct enumeration."""

    @functools.cache
    def go(rest: tuple[str, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = pts(first) + go(others)
        for size in range(2, len(others) + 1):
            for idx in combinations(range(len(others)), size):
                meld = (first, *(others[i] for i in idx))
                if _is_meld_cached(tuple(sorted(meld)), rules):
                    remaining = tuple(c for i, c in enumerate(others) if i not in idx)
                    best = min(best, go(remaining))
        return best

    return go(tuple(sorted(hand)))


def check_split(hand: list[str], rules: MeldRules, pts) -> None:
    split = best_split(hand, rules, pts)
    assert split.points == brute_best(hand, rules, pts), (hand, split)
    used = [c for m in split.melds for c in m.cards] + list(split.leftover)
    assert sorted(used) == sorted(hand)
    assert split.points == sum(pts(c) for c in split.leftover)
    for meld in split.melds:
        assert meld in interpretations(meld.cards, rules), (hand, meld)
    # the answer does not depend on the order of the hand
    assert best_split(list(reversed(hand)), rules, pts).points == split.points
    assert goes_out(hand, rules) == (split.leftover == ())


TWO_DECKS = list(STANDARD_52) * 2 + [JOKER] * 4
DENSE = [r + s for r in "A2345JQK" for s in "SHD"] * 2 + [JOKER] * 4


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(RULE_SETS)),
    st.booleans(),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=8),
)
def test_best_split_is_exact(rules_name, dense, picks):
    rules = RULE_SETS[rules_name]
    pool = list(DENSE if dense else TWO_DECKS)
    hand = []
    for p in picks:  # draw without replacement: two decks hold two copies of each card
        hand.append(pool.pop(p % len(pool)))
    pts = tt_points(rules) if rules_name.startswith("tt") else points
    check_split(hand, rules, pts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([r + s for r in "3456" for s in SUITS] + [JOKER]), min_size=1, max_size=8))
def test_best_split_exact_with_many_wild_rank_cards(hand):
    rules = three_thirteen("4", multiple=True)
    check_split(hand, rules, tt_points(rules))
    check_split(hand, three_thirteen("4"), tt_points(rules))

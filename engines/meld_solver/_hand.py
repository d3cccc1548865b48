"""The meld solver's view of a hand: which cards can only be left over, which cards could share a
meld, and the `Solver` set up for the hand with its packed naturals and wild pool.

Internal to `engines.meld_solver`. Cards are ints of the rummy layout (`engines.cards.CARD_INDEX`:
13 * suit + rank, ace 0), so `divmod(i, 13)` is (suit, rank).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable
from typing import NamedTuple

from engines.cards import ALL_CODES, CARD_INDEX, JOKER, SUITS
from engines.meld_solver._search import BITS, MASK, Pool, Solver
from engines.melds import MeldRules


def positions(rank: int, rules: MeldRules) -> list[int]:
    """Run positions of a card of rank index `rank` (0 = ace)."""
    if rank:
        return [rank + 1]
    return [v for v, ok in ((1, rules.ace_low), (14, rules.ace_high)) if ok]


def fits_run(value: int, present: int, rules: MeldRules, kmax: int) -> bool:
    """Whether some run through position `value` has at most kmax positions missing from the
    bit mask `present` (bit p: position p, 1 = low ace … 14 = high ace)."""
    bottom, top = (1 if rules.ace_low else 2), (14 if rules.ace_high else 13)
    if rules.wild_at_run_ends:
        # a run through value contains a minimum-length run through value with no more wilds
        length = rules.min_run
        full = (1 << length) - 1
        for lo in range(max(bottom, value - length + 1), min(value, top - length + 1) + 1):
            if lo == 1 and lo + length - 1 == 14:
                continue
            if length - ((present >> lo) & full).bit_count() <= kmax:
                return True
        return False
    ends = [p for p in range(bottom, top + 1) if (present >> p) & 1]
    for lo in ends:
        for hi in ends:
            if lo > value or hi < value or hi - lo + 1 < rules.min_run or hi - lo >= 13:
                continue
            if lo == 1 and hi == 14:
                continue
            span = ((1 << (hi - lo + 1)) - 1) << lo
            if (hi - lo + 1) - (present & span).bit_count() <= kmax:
                return True
    return False


def dead_naturals(counts: Counter[int], flex: set[int], rules: MeldRules, kmax: int) -> set[int]:
    """Plain cards that fit no meld of the hand's cards using at most kmax wilds."""
    max_set = rules.max_set if rules.max_set is not None else 99
    if rules.set_distinct_suits:
        max_set = min(max_set, len(SUITS))
    present = [0] * len(SUITS)  # per suit, a bit per run position held
    for i in counts:
        s, r = divmod(i, 13)
        for v in positions(r, rules):
            present[s] |= 1 << v
    dead = set()
    for i in counts:
        if i in flex:
            continue
        s, r = divmod(i, 13)
        same = [counts.get(t * 13 + r, 0) for t in range(len(SUITS))]
        m = sum(1 for n in same if n) if rules.set_distinct_suits else sum(same)
        if min(m + kmax, max_set) >= rules.min_set:
            continue
        if not any(fits_run(value, present[s], rules, kmax) for value in positions(r, rules)):
            dead.add(i)
    return dead


@functools.lru_cache(maxsize=4096)
def partner_fields(i: int, rules: MeldRules, kmax: int) -> int:
    """The count fields of every card that could be in one meld with card i: the same rank, or
    the same suit close enough for the gap to be filled with kmax wilds."""
    s, r = divmod(i, 13)
    fields = 0
    for t in range(len(SUITS)):
        if t != s or not rules.set_distinct_suits:
            fields |= MASK << ((t * 13 + r) * BITS)
    reach = kmax + 1
    for v in positions(r, rules):
        for w in range(max(1, v - reach), min(14, v + reach) + 1):
            q = (w - 1) % 13
            if q != r and (w != 1 or rules.ace_low) and (w != 14 or rules.ace_high):
                fields |= MASK << ((s * 13 + q) * BITS)
    return fields


def flex_groups(
    flex: list[int], counts: Counter[int], cost: dict[int, int], rules: MeldRules, kmax: int
) -> list[list[int]]:
    """Wild-rank cards grouped where one may replace another anywhere (same cost, and no plain
    card of their suit near enough to share a run, so as naturals they only make sets, where
    suits do not matter when they may repeat). A run of one natural and wilds is a set too."""
    runs_are_sets = not rules.wild_at_run_ends or (
        rules.min_set <= rules.min_run and (rules.max_set is None or rules.max_set >= 13)
    )
    groups: dict[object, list[int]] = {}
    for j in flex:
        s, r = divmod(j, 13)
        mine = positions(r, rules)
        near = any(
            abs(v - w) <= kmax + 1
            for i in counts
            if i // 13 == s and i not in flex
            for v in mine
            for w in positions(i % 13, rules)
        )
        alone = not near and runs_are_sets and not rules.set_distinct_suits
        groups.setdefault(("any", cost[j]) if alone else j, []).append(j)
    return list(groups.values())


class Setup(NamedTuple):
    """A hand made ready for the search."""

    solver: Solver
    naturals: int  # the packed natural cards the search decides on
    pool: Pool  # the spare wilds' costs, dearest first (`Solver`)
    leftover: list[str]  # cards that fit no meld whatever happens
    spare: list[str]  # the spare wilds themselves, in pool order
    encoded: Callable[[str], int]  # a wild card's pool entry


def flex_meld(rules: MeldRules) -> bool:
    """Whether every wild-rank card goes to the pool (a meld may still take one as itself).

    With any number of wilds per meld and wilds allowed at run ends, a wild-rank card standing
    for itself next to a plain card may as well be a wild standing for itself; so all such cards
    go to the pool, and only a meld of nothing but wild-rank cards and jokers needs one of them
    natural: a set of the wild rank, made of spare wilds at the end.
    """
    return (
        rules.wild_rank is not None
        and rules.max_wilds_per_meld is None
        and rules.wild_at_run_ends
        and rules.max_set is None
        and not rules.set_distinct_suits
        and rules.min_set <= rules.min_run
    )


def setup(
    hand: Iterable[str], rules: MeldRules, points: Callable[[str], int], give_up_on_dead: bool = False
) -> Setup | None:
    """The search for a hand (None when `give_up_on_dead` and some card fits no meld)."""
    hand = list(hand)
    bad = [c for c in hand if not isinstance(c, str) or c not in ALL_CODES]
    if bad:
        raise ValueError(f"not card codes: {bad!r}")
    to_pool = flex_meld(rules)
    naturals = [c for c in hand if not (c == JOKER or (to_pool and rules.is_wild(c)))]
    wilds = [c for c in hand if c == JOKER or (to_pool and rules.is_wild(c))]
    cost = {CARD_INDEX[c]: points(c) for c in set(naturals)}
    flex = sorted({CARD_INDEX[c] for c in naturals if rules.is_wild(c)})
    supply = len(hand) - len(naturals) + sum(1 for c in naturals if rules.is_wild(c))
    counts = Counter(CARD_INDEX[c] for c in naturals)
    kmax = min(supply, rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else supply)
    # a card that fits no meld at all, even with the hand's wilds, is left over whatever happens
    lonely = kmax < min(rules.min_set, rules.min_run) - 1
    dead = dead_naturals(counts, set(flex), rules, kmax) if lonely else set()
    if dead and give_up_on_dead:
        return None
    groups = flex_groups(flex, counts, cost, rules, kmax)
    solver = Solver(rules, cost, flex, groups, supply, to_pool)
    hand_fields = sum(MASK << (i * BITS) for i in counts)
    solver.partners = {i: partner_fields(i, rules, kmax) & hand_fields for i in counts}
    x = 0
    leftover: list[str] = []
    for c in naturals:
        if CARD_INDEX[c] in dead:
            leftover.append(c)
        else:
            x += 1 << (CARD_INDEX[c] * BITS)

    def encoded(card: str) -> int:
        return 2 * points(card) + (card == JOKER)

    spare = sorted(wilds, key=lambda c: (-encoded(c), c))  # the actual pool cards
    pool: Pool = tuple(encoded(c) for c in spare)
    return Setup(solver, x, pool, leftover, spare, encoded)

"""Meld validation: runs and sets with jokers and wild cards.

Shared by the rummy engines (Žolíky, Three Thirteen, Zhol). Each game describes its meld rules with
a `MeldRules`; `interpretations` lists every reading of some cards as one meld, `classify` picks the
preferred one. The exact best split of a hand into melds is `engines.meld_solver`, which builds its
melds with `set_reading`, `all_wild_reading` and `position_code`.

Decisions (also in docs/rules/cards.md, "How the engine reads melds"):
- A joker ("JK") is always wild; with `wild_rank` set, cards of that rank are wild too, and such a
  card may also stand for itself as a plain card. A wild card standing for itself counts as natural.
- Wild cards are interchangeable: readings that differ only in which wild card takes which place are
  one reading (wild cards are placed in sorted code order).
- A wild card in a set with distinct suits stands for a missing suit; when the wilds fill exactly the
  missing suits they get those suits (in S H D C order), otherwise each shows rank + "?" ("7?").
  In a set where suits may repeat, a wild always shows rank + "?".
- An all-wild meld (only with `allow_all_wild`) is exempt from `max_wilds_per_meld` (otherwise the
  option could never apply with one wild per meld); it needs at least min(min_set, min_run) cards,
  is a "set" of open rank ("??" for each card) when it fits the set size, else a "run".
- Preferred reading order: fewest cards acting as wild; then runs before sets; then runs with the
  fewest wilds below the lowest natural card (wilds extend a run upwards); then ace low before high.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

from engines.cards import ALL_CODES, JOKER, RANKS, SUITS

_SUIT_ORDER = {s: i for i, s in enumerate(SUITS)}
_OPEN = "?"


@dataclass(frozen=True)
class MeldRules:
    """What counts as a meld in one game (docs/rules/cards.md, and each game's page in docs/rules/)."""

    ace_low: bool = True  # A-2-3 allowed
    ace_high: bool = False  # Q-K-A allowed (never both in one run; never wraps K-A-2)
    min_run: int = 3
    min_set: int = 3
    max_set: int | None = 4  # None = unlimited set size
    set_distinct_suits: bool = True  # no two cards of one suit in a set (incl. a wild's suit)
    wild_at_run_ends: bool = True  # Žolíky: False (first and last card of a run must be natural)
    max_wilds_per_meld: int | None = None  # Three Thirteen: 1 unless multiple_wilds
    allow_all_wild: bool = False  # a meld made only of wild cards
    wild_rank: str | None = None  # Three Thirteen's round wild rank; such a card may stand for itself

    def is_wild(self, card: str) -> bool:
        return card == JOKER or (self.wild_rank is not None and card[0] == self.wild_rank)


@dataclass(frozen=True)
class Meld:
    """One reading of some cards as a meld."""

    kind: str  # "run" | "set"
    cards: tuple[str, ...]  # the actual cards, in meld order (runs low to high)
    stands_for: tuple[str, ...]  # per card the card it represents ("9H", or "7?" in a set)
    ace_high: bool = False  # for runs: the ace is high in this run


def position_code(value: int, suit: str) -> str:
    """Card code of run position `value` (1 = low ace … 13 = king, 14 = high ace)."""
    return RANKS[(value - 1) % 13] + suit


# --------------------------------------------------------------------------------------------------
# Readings of a fixed set of cards as one meld
# --------------------------------------------------------------------------------------------------


def all_wild_reading(wilds: list[str], rules: MeldRules) -> Meld | None:
    """The reading of `wilds` (sorted) as a meld of wild cards only, or None."""
    n = len(wilds)
    if not rules.allow_all_wild or n < min(rules.min_set, rules.min_run):
        return None
    fits_set = n >= rules.min_set and (rules.max_set is None or n <= rules.max_set)
    if not fits_set and not (rules.min_run <= n <= 13):
        return None
    return Meld("set" if fits_set else "run", tuple(wilds), ("??",) * n, False)


def set_reading(naturals: list[str], wilds: list[str], rules: MeldRules) -> Meld | None:
    """The reading of `naturals` (at least one) and `wilds` as a set, or None."""
    n = len(naturals) + len(wilds)
    rank = naturals[0][0]
    if any(c[0] != rank for c in naturals):
        return None
    if n < rules.min_set or (rules.max_set is not None and n > rules.max_set):
        return None
    pairs = [(c, c) for c in naturals]
    suits = {c[1] for c in naturals}
    # a wild-rank card of the set's own rank that could stand for itself is read as natural
    if any(w != JOKER and w[0] == rank and not (rules.set_distinct_suits and w[1] in suits) for w in wilds):
        return None
    if rules.set_distinct_suits:
        if len(suits) != len(naturals) or n > len(SUITS):
            return None
        missing = [s for s in SUITS if s not in suits]
        if len(missing) == len(wilds):
            pairs += [(w, rank + s) for w, s in zip(wilds, missing, strict=True)]
        else:
            pairs += [(w, rank + _OPEN) for w in wilds]
    else:
        pairs += [(w, rank + _OPEN) for w in wilds]
    pairs.sort(key=lambda p: _SUIT_ORDER.get(p[1][1], 9))
    return Meld("set", tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), False)


def _run_readings(naturals: list[str], wilds: list[str], rules: MeldRules) -> list[tuple[int, Meld]]:
    """Every run reading, each with the number of wilds below its lowest natural card."""
    n = len(naturals) + len(wilds)
    suit = naturals[0][1]
    if n < rules.min_run or n > 13 or any(c[1] != suit for c in naturals):
        return []
    out = []
    for lo in range(1, 16 - n):
        hi = lo + n - 1
        if (lo == 1 and not rules.ace_low) or (hi == 14 and not rules.ace_high):
            continue
        ace_value = 1 if lo == 1 else 14 if hi == 14 else 0
        at: dict[int, str] = {}
        for c in naturals:
            v = RANKS.index(c[0]) + 1
            if v == 1:
                v = ace_value
            if not lo <= v <= hi or v in at:
                break
            at[v] = c
        else:
            if not rules.wild_at_run_ends and (lo not in at or hi not in at):
                continue
            spare = iter(wilds)
            cards = tuple(at[v] if v in at else next(spare) for v in range(lo, hi + 1))
            stands = tuple(position_code(v, suit) for v in range(lo, hi + 1))
            out.append((min(at) - lo, Meld("run", cards, stands, hi == 14)))
    return out


def interpretations(cards: Iterable[str], rules: MeldRules) -> list[Meld]:
    """Every distinct valid reading of `cards` as ONE meld, preferred first; [] if none."""
    cards = list(cards)
    if not cards or any(not isinstance(c, str) or c not in ALL_CODES for c in cards):
        return []
    jokers = [c for c in cards if c == JOKER]
    flex = Counter(c for c in cards if c != JOKER and rules.is_wild(c))
    plain = [c for c in cards if not rules.is_wild(c)]
    codes = sorted(flex)
    found: dict[tuple[object, ...], tuple[tuple[int, int, int, bool], Meld]] = {}  # key: the meld read
    for choice in product(*(range(flex[c] + 1) for c in codes)):
        as_wild = [c for c, j in zip(codes, choice, strict=True) for _ in range(j)]
        naturals = plain + [c for c, j in zip(codes, choice, strict=True) for _ in range(flex[c] - j)]
        wilds = sorted(jokers + as_wild)
        readings: list[tuple[tuple[int, int, int, bool], Meld]] = []
        if not naturals:
            meld = all_wild_reading(wilds, rules)
            if meld is not None:
                readings.append(((len(wilds), 2, 0, False), meld))
        elif rules.max_wilds_per_meld is None or len(wilds) <= rules.max_wilds_per_meld:
            for below, meld in _run_readings(naturals, wilds, rules):
                readings.append(((len(wilds), 0, below, meld.ace_high), meld))
            meld = set_reading(naturals, wilds, rules)
            if meld is not None:
                readings.append(((len(wilds), 1, 0, False), meld))
        for order, meld in readings:
            key = (meld.kind, meld.cards, meld.stands_for, meld.ace_high)
            if key not in found or order < found[key][0]:
                found[key] = (order, meld)
    return [m for _, m in sorted(found.values(), key=lambda om: (om[0], om[1].stands_for))]


def classify(cards: Iterable[str], rules: MeldRules) -> Meld | None:
    """The preferred reading of `cards` as one meld (first of `interpretations`), or None."""
    readings = interpretations(cards, rules)
    return readings[0] if readings else None

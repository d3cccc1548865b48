"""Hand analysis for the Žolíky bots: melds in hand, lay-offs onto the table, openings and closes.

The unit throughout is the *deadwood*: normal cards that fit no meld of the hand and no meld on
the table. A round is won by the first player to be left with no deadwood after a discard, so
the bots count cards, not points; points matter only for the 42 of the opening.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from engines.cards import JOKER, RANKS, SUITS
from engines.meld_solver import best_split
from engines.melds import Meld
from engines.zoliky.rules import OPENING_POINTS, RULES, card_points, is_pure_run, meld_points, read_meld


def position_of(card: str) -> list[int]:
    """Run positions of a normal card: 1 = low ace … 13 = king, 14 = high ace."""
    v = RANKS.index(card[0]) + 1
    return [1, 14] if v == 1 else [v]


def card_at(position: int, suit: str) -> str:
    return RANKS[(position - 1) % 13] + suit


# --- table melds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """A table meld as far as laying off and joker swaps go."""

    id: str
    kind: str
    suit: str  # a run's suit
    rank: str  # a set's rank
    lo: int  # a run's lowest and highest position
    hi: int
    suits: frozenset[str]  # the suits of a set's normal cards
    size: int
    joker_for: tuple[str, ...]  # a run: the cards its jokers stand for; a set: one entry per joker

    @staticmethod
    def of(meld: dict[str, Any]) -> Slot:
        cards, stands = meld["cards"], meld["stands_for"]
        jokers = tuple(s for c, s in zip(cards, stands, strict=True) if c == JOKER)
        if meld["kind"] == "run":
            suit = stands[0][1]
            lo = RANKS.index(stands[0][0]) + 1
            hi = lo + len(stands) - 1
            if stands[-1][0] == "A" and len(stands) > 1:
                hi = 14
                lo = hi - len(stands) + 1
            return Slot(meld["id"], "run", suit, "", lo, hi, frozenset(), len(cards), jokers)
        naturals = [c for c in cards if c != JOKER]
        return Slot(
            meld["id"], "set", "", naturals[0][0], 0, 0, frozenset(c[1] for c in naturals), len(cards), jokers
        )

    def takes(self) -> tuple[str, ...]:
        """The normal cards that could be laid off on this meld one at a time."""
        return _takes(self)

    def _compute_takes(self) -> tuple[str, ...]:
        if self.kind == "set":
            if self.size >= 4:
                return ()
            return tuple(self.rank + s for s in SUITS if s not in self.suits)
        out = []
        length = self.hi - self.lo + 1
        if length < 13:
            if self.lo > 1 and not (self.lo == 2 and self.hi == 14):
                out.append(card_at(self.lo - 1, self.suit))
            if self.hi < 14 and not (self.hi == 13 and self.lo == 1):
                out.append(card_at(self.hi + 1, self.suit))
        return tuple(out)

    def add(self, card: str) -> Slot:
        """The meld after laying off `card` (one of `takes()`)."""
        if self.kind == "set":
            return Slot(
                self.id, "set", "", self.rank, 0, 0, self.suits | {card[1]}, self.size + 1, self.joker_for
            )
        positions = position_of(card)
        if self.lo - 1 in positions:
            return Slot(self.id, "run", self.suit, "", self.lo - 1, self.hi, frozenset(), self.size + 1, ())
        return Slot(self.id, "run", self.suit, "", self.lo, self.hi + 1, frozenset(), self.size + 1, ())

    def swaps_for(self, card: str) -> bool:
        """Whether `card` may replace a joker of this meld."""
        if not self.joker_for or card == JOKER:
            return False
        if self.kind == "run":
            return card in self.joker_for
        return card[0] == self.rank and card[1] not in self.suits


@lru_cache(maxsize=20_000)
def _takes(slot: Slot) -> tuple[str, ...]:
    return slot._compute_takes()


def slots_of(melds: Iterable[dict[str, Any]]) -> list[Slot]:
    return [Slot.of(m) for m in melds]


def table_takes(slots: Iterable[Slot]) -> set[str]:
    return {c for s in slots for c in s.takes()}


def lay_off(loose: Sequence[str], slots: Sequence[Slot]) -> tuple[list[tuple[str, str]], list[str]]:
    """Lay off as many of `loose` as fit, one card at a time, chains included (6H then 5H on a run
    from 7H): the (meld id, card) pairs, in order, and the cards left."""
    current = list(slots)
    left = list(loose)
    laid: list[tuple[str, str]] = []
    changed = True
    while changed and left:
        changed = False
        wanted: dict[str, int] = {}
        for i, slot in enumerate(current):
            for card in slot.takes():
                wanted.setdefault(card, i)
        for card in list(left):
            i = wanted.get(card, -1)
            if i >= 0 and card in current[i].takes():
                current[i] = current[i].add(card)
                left.remove(card)
                laid.append((current[i].id, card))
                changed = True
    return laid, left


# --- melds in the hand -------------------------------------------------------------------------


def _count_cost(card: str) -> int:
    # Fewest deadwood cards first, then the fewest points among them (the 42 wants points in
    # melds); a spare joker costs nothing, as it may be kept to the end.
    return 0 if card == JOKER else 100 + card_points(card)


def _point_cost(card: str) -> int:
    return 0 if card == JOKER else card_points(card)


@lru_cache(maxsize=50_000)
def _split(hand: tuple[str, ...], by_points: bool) -> tuple[tuple[Meld, ...], tuple[str, ...]]:
    split = best_split(hand, RULES, _point_cost if by_points else _count_cost)
    return _strip_spare_jokers(split.melds, split.leftover)


def _strip_spare_jokers(
    melds: Sequence[Meld], leftover: Sequence[str]
) -> tuple[tuple[Meld, ...], tuple[str, ...]]:
    """Jokers a meld does not need go back to the hand: a joker on the table can be swapped away."""
    out = []
    spare = list(leftover)
    for meld in melds:
        while JOKER in meld.cards:
            cards = list(meld.cards)
            cards.remove(JOKER)
            smaller = read_meld(cards, kind=meld.kind)
            if smaller is None:
                break
            meld = smaller
            spare.append(JOKER)
        out.append(meld)
    return tuple(out), tuple(spare)


def split_hand(hand: Iterable[str], by_points: bool = False) -> tuple[tuple[Meld, ...], tuple[str, ...]]:
    """The hand's melds and leftover cards: fewest deadwood (or, by_points, fewest points) left."""
    return _split(tuple(sorted(hand)), by_points)


@dataclass
class Analysis:
    """A hand split into its own melds, lay-offs onto the table and deadwood."""

    melds: tuple[Meld, ...]
    lay_offs: list[tuple[str, str]]
    loose: list[str]  # deadwood: normal cards in no meld and no lay-off
    jokers: int  # jokers in hand not needed by the melds

    @property
    def deadwood(self) -> int:
        return len(self.loose)


def analyse(hand: Sequence[str], slots: Sequence[Slot]) -> Analysis:
    """The split of `hand` with the least deadwood once the table takes what it can."""
    melds, leftover = split_hand(hand)
    loose = [c for c in leftover if c != JOKER]
    jokers = len(leftover) - len(loose)
    laid, left = lay_off(loose, slots) if slots else ([], loose)
    best = Analysis(melds, laid, left, jokers)
    if slots and best.loose:
        # Cards the table takes may be worth more there than in a meld of the hand.
        takes = table_takes(slots)
        if any(c in takes for c in hand if c != JOKER):
            first, rest = lay_off([c for c in hand if c != JOKER], slots)
            rest_hand = rest + [JOKER] * hand.count(JOKER)
            melds2, leftover2 = split_hand(rest_hand)
            loose2 = [c for c in leftover2 if c != JOKER]
            laid2, left2 = lay_off(loose2, _after(slots, first))
            if len(left2) < len(best.loose):
                best = Analysis(melds2, first + laid2, left2, len(leftover2) - len(loose2))
    return best


def _after(slots: Sequence[Slot], laid: Sequence[tuple[str, str]]) -> list[Slot]:
    current = {s.id: s for s in slots}
    for meld_id, card in laid:
        current[meld_id] = current[meld_id].add(card)
    return list(current.values())


# --- openings --------------------------------------------------------------------------------------


def opening_ok(melds: Sequence[Meld]) -> bool:
    return sum(meld_points(m) for m in melds) >= OPENING_POINTS and any(is_pure_run(m) for m in melds)


def pure_runs(hand: Sequence[str]) -> list[list[str]]:
    """Every run of 3+ normal cards of one suit in the hand (all lengths and starts)."""
    out = []
    for suit in SUITS:
        have = {p for c in set(hand) if c != JOKER and c[1] == suit for p in position_of(c)}
        for lo in range(1, 13):
            hi = lo
            while hi + 1 in have and lo in have and hi + 1 <= 14 and not (lo == 1 and hi + 1 == 14):
                hi += 1
                if hi - lo >= 2:
                    out.append([card_at(p, suit) for p in range(lo, hi + 1)])
    return out


def opening_melds(hand: Sequence[str], must_use: str | None = None) -> tuple[Meld, ...] | None:
    """Melds of `hand` that open (42 points and a pure run), as a superset found among the best
    splits; None when the hand has no opening. `must_use` must be in one of them."""
    runs = pure_runs(hand)
    if not runs:
        return None
    candidates: list[tuple[Meld, ...]] = []
    for by_points in (False, True):
        melds, _ = split_hand(hand, by_points)
        candidates.append(melds)
    for melds in candidates:
        if opening_ok(melds) and _uses(melds, must_use):
            return melds
    # The best splits may prefer a set to a pure run; force each pure run in turn.
    for run in runs:
        rest = list(hand)
        for c in run:
            rest.remove(c)
        melds, _ = split_hand(rest, True)
        full = (_meld_of(run), *melds)
        if opening_ok(full) and _uses(full, must_use):
            return full
    return None


def _meld_of(cards: Sequence[str]) -> Meld:
    meld = read_meld(list(cards))
    assert meld is not None
    return meld


def _uses(melds: Sequence[Meld], card: str | None) -> bool:
    return card is None or any(card in m.cards for m in melds)


def smallest_opening(melds: Sequence[Meld], must_use: str | None = None) -> tuple[Meld, ...]:
    """The fewest of `melds` that still open: held melds give the opponent nothing to lay off
    on, and a joker on the table can be swapped away, so jokers stay in hand where possible."""
    best: tuple[Meld, ...] = tuple(melds)
    best_key = (_jokers(best), sum(len(m.cards) for m in best))
    for k in range(1, len(melds) + 1):
        for subset in combinations(melds, k):
            if opening_ok(subset) and _uses(subset, must_use):
                key = (_jokers(subset), sum(len(m.cards) for m in subset))
                if key < best_key:
                    best, best_key = subset, key
    return best


def _jokers(melds: Iterable[Meld]) -> int:
    return sum(m.cards.count(JOKER) for m in melds)


def opening_gap(melds: Sequence[Meld]) -> tuple[int, bool]:
    """Points missing to the 42 and whether a pure run is missing, for the hand's melds."""
    points = sum(meld_points(m) for m in melds)
    return max(0, OPENING_POINTS - points), not any(is_pure_run(m) for m in melds)


def without(cards: Sequence[str], used: Iterable[str]) -> list[str]:
    rest = list(cards)
    for c in used:
        rest.remove(c)
    return rest


# --- outs ------------------------------------------------------------------------------------------


def gain_map(found: Analysis, hand_melds_takes: set[str], table: set[str]) -> dict[str, int]:
    """How much drawing each card would shrink the deadwood after the turn's discard (cards not
    listed: 0, a useless card): 1 a card that fits somewhere, 2 or 3 one that makes a new meld
    with deadwood (with a spare joker, or with two deadwood cards)."""
    loose = found.loose
    gains = dict.fromkeys(hand_melds_takes | table, 1)
    if found.jokers:
        # With a spare joker: a set of two suits, or a run with the joker inside.
        for card in set(loose):
            r, s = card[0], card[1]
            for t in SUITS:
                if t != s:
                    gains[r + t] = max(gains.get(r + t, 0), 2)
            for p in position_of(card):
                for q in (p - 2, p + 2):
                    if 1 <= q <= 14:
                        other = card_at(q, s)
                        gains[other] = max(gains.get(other, 0), 2)
    distinct = sorted(set(loose))
    for a, b in combinations(distinct, 2):
        for third in completions(a, b):
            gains[third] = 3
    if loose:
        gains[JOKER] = 3 if _joker_pair(loose) else 1
    return gains


def gain_of(card: str, found: Analysis, hand_melds_takes: set[str], table: set[str]) -> int:
    """`gain_map` for one card."""
    return gain_map(found, hand_melds_takes, table).get(card, 0)


def _joker_pair(loose: Sequence[str]) -> bool:
    """Whether two deadwood cards make a meld with a joker (a joker is never at a run's end)."""
    for a, b in combinations(set(loose), 2):
        if a[0] == b[0] and a[1] != b[1]:
            return True
        if a[1] == b[1] and any(abs(p - q) == 2 for p in position_of(a) for q in position_of(b)):
            return True
    return False


def hand_meld_takes(melds: Iterable[Meld]) -> set[str]:
    """Cards that would extend one of the hand's own melds."""
    out: set[str] = set()
    for meld in melds:
        entry = {"id": "", "kind": meld.kind, "cards": meld.cards, "stands_for": meld.stands_for}
        out.update(Slot.of(entry).takes())
    return out


def partners(card: str) -> list[tuple[str, str]]:
    """The pairs of cards that make a three-card meld with `card` (no jokers)."""
    r, s = card[0], card[1]
    others = [r + t for t in SUITS if t != s]
    out = [(a, b) for a, b in combinations(others, 2)]
    for v in position_of(card):
        for d1, d2 in ((-2, -1), (-1, 1), (1, 2)):
            p1, p2 = v + d1, v + d2
            if 1 <= p1 <= 14 and 1 <= p2 <= 14 and not ({1, 14} <= {p1, p2, v}):
                out.append((card_at(p1, s), card_at(p2, s)))
    return out


def completions(a: str, b: str) -> list[str]:
    """The cards that make a three-card meld with `a` and `b` (none when they are no pair)."""
    if a[0] == b[0]:
        if a[1] == b[1]:
            return []
        return [a[0] + s for s in SUITS if s not in (a[1], b[1])]
    if a[1] != b[1]:
        return []
    out = []
    for p in position_of(a):
        for q in position_of(b):
            lo, hi = min(p, q), max(p, q)
            if hi - lo == 1:
                out += [
                    card_at(v, a[1]) for v in (lo - 1, hi + 1) if 1 <= v <= 14 and not {1, 14} <= {v, lo, hi}
                ]
            elif hi - lo == 2:
                out.append(card_at(lo + 1, a[1]))
    return out


def neighbours(card: str) -> list[str]:
    """Cards that make a pair towards a meld with `card`: its rank in other suits, its suit near it."""
    r, s = card[0], card[1]
    out = [r + t for t in SUITS if t != s]
    for v in position_of(card):
        for d in (-2, -1, 1, 2):
            if 1 <= v + d <= 14:
                c = card_at(v + d, s)
                if c != card and c not in out:
                    out.append(c)
    return out


def counts(cards: Iterable[str]) -> Counter[str]:
    return Counter(cards)

"""Meld validation (runs and sets with jokers and wild cards) and the exact best split of a hand.

Shared by the rummy engines (Žolíky, Three Thirteen, Zhol). Each game describes its meld rules with
a `MeldRules`; `interpretations` lists every reading of some cards as one meld, `classify` picks the
preferred one, and `best_split` finds the split of a hand into disjoint melds that leaves the fewest
points unmatched.

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
- `best_split` is exact for points >= 0: spare wilds go into melds with room, the dearest first, and
  wild-rank cards act as themselves or as wilds, whichever is better. `goes_out` answers only
  whether the whole hand melds, faster. bench/solver.py measures both kinds of hard hands.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable
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


@dataclass(frozen=True)
class Split:
    """A split of a hand into disjoint melds plus the unmatched cards."""

    melds: tuple[Meld, ...]
    leftover: tuple[str, ...]
    points: int  # sum of points(c) over leftover, minimal over all splits


def _value_code(value: int, suit: str) -> str:
    """Card code of run position `value` (1 = low ace … 13 = king, 14 = high ace)."""
    return RANKS[(value - 1) % 13] + suit


# --------------------------------------------------------------------------------------------------
# Readings of a fixed set of cards as one meld
# --------------------------------------------------------------------------------------------------


def _all_wild_reading(wilds: list[str], rules: MeldRules) -> Meld | None:
    n = len(wilds)
    if not rules.allow_all_wild or n < min(rules.min_set, rules.min_run):
        return None
    fits_set = n >= rules.min_set and (rules.max_set is None or n <= rules.max_set)
    if not fits_set and not (rules.min_run <= n <= 13):
        return None
    return Meld("set" if fits_set else "run", tuple(wilds), ("??",) * n, False)


def _set_reading(naturals: list[str], wilds: list[str], rules: MeldRules) -> Meld | None:
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
            stands = tuple(_value_code(v, suit) for v in range(lo, hi + 1))
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
    found: dict[tuple, tuple[tuple, Meld]] = {}
    for choice in product(*(range(flex[c] + 1) for c in codes)):
        as_wild = [c for c, j in zip(codes, choice, strict=True) for _ in range(j)]
        naturals = plain + [c for c, j in zip(codes, choice, strict=True) for _ in range(flex[c] - j)]
        wilds = sorted(jokers + as_wild)
        readings: list[tuple[tuple, Meld]] = []
        if not naturals:
            meld = _all_wild_reading(wilds, rules)
            if meld is not None:
                readings.append(((len(wilds), 2, 0, False), meld))
        elif rules.max_wilds_per_meld is None or len(wilds) <= rules.max_wilds_per_meld:
            for below, meld in _run_readings(naturals, wilds, rules):
                readings.append(((len(wilds), 0, below, meld.ace_high), meld))
            meld = _set_reading(naturals, wilds, rules)
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


# --------------------------------------------------------------------------------------------------
# Best split
# --------------------------------------------------------------------------------------------------

_BITS = 4  # per-card count field in the packed hand (two decks hold at most 2 copies)
_MASK = (1 << _BITS) - 1
_INF = 1 << 60


_INDEX = {r + su: t * 13 + q for t, su in enumerate(SUITS) for q, r in enumerate(RANKS)}
_index = _INDEX.__getitem__  # card code -> 13 * suit + rank (ace 0)


def _code(index: int) -> str:
    return RANKS[index % 13] + SUITS[index // 13]


# The spare wild cards, dearest first, each as 2 * cost + 1 for a joker, 2 * cost for a wild-rank
# card: at equal cost a joker is spent first and a wild-rank card, which can still stand for
# itself, stays.
Pool = tuple[int, ...]
Key = tuple[int, Pool, int]


# Per card, the count fields of the cards that may share a meld with it and come later in the
# solver's order: the rest of its suit and its rank in later suits (and its own field, for copies).
_LATER = [
    sum(_MASK << (j * _BITS) for j in range(i, (i // 13 + 1) * 13))
    | sum(_MASK << ((t * 13 + i % 13) * _BITS) for t in range(i // 13, len(SUITS)))
    for i in range(13 * len(SUITS))
]
_SHAPES: dict[tuple, list[tuple[int, int, int, int, tuple]]] = {}
_SHAPES_MAX = 30_000  # about 20 MB; the cache starts again empty when full


class _Solver:
    """Exact minimum of unmatched points: a memoised depth-first search with bounds.

    The natural cards are packed into one int (a 4-bit count per card, suit-major, ace first),
    so a state is (naturals, pool, room) and hashes cheaply: the pool holds the costs of the
    spare wild cards and room counts the extra wilds the melds made so far could still take.
    The lowest natural card is either left over or belongs to some meld whose other natural
    cards all come later in that order: a set of its rank with later suits, or a run of its
    suit through it (lower ranks of the suit are already decided, so there they can only be
    wilds, except below a high ace).

    Melds are made with as few wilds as they need (gaps of runs, padding to the minimum size);
    a wild that would be left over goes into a meld with room at the end instead, the dearest
    first. Melds take the dearest pool wilds, so those left over are the cheapest. A wild-rank
    card stays among the naturals: a meld may take it as a wild, and when it is the lowest card
    it may also move into the pool for later melds.

    `solve(x, pool, room, limit)` returns the exact value when it is below `limit`, else some
    value >= limit; a failed search leaves a lower bound so a later, wider search can resume.
    """

    def __init__(
        self,
        rules: MeldRules,
        cost: dict[int, int],
        flex: list[int],
        groups: list[list[int]],
        supply: int,
        flex_meld: bool,
    ):
        self.rules = rules
        self.cost = cost
        self.flex = flex  # indices of wild-rank cards (they may act as wilds)
        self.flex_groups = groups  # the same cards, grouped where any one may replace another
        self.flex_set = frozenset(flex)
        # bit b of every wild-rank card's count field, to count them with int.bit_count
        self.flex_bits = [sum(1 << (j * _BITS + b) for j in flex) for b in range(_BITS)]
        self.supply = supply  # every card that may act as a wild: room beyond it is useless
        self.flex_meld = flex_meld  # wild-rank cards are all in the pool but may still stand for themselves
        self.maxw = rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else 99
        self.max_set = rules.max_set if rules.max_set is not None else 99
        if rules.set_distinct_suits:
            self.max_set = min(self.max_set, len(SUITS))
        self.max_run = 13 if rules.ace_low or rules.ace_high else 12
        self.all_wild_min = min(rules.min_set, rules.min_run) if rules.allow_all_wild else _INF
        self.partners: dict[int, int] = {}  # per card: the fields of cards it could share a meld with
        self.need = max(1, min(rules.min_set, rules.min_run) - 1)  # wilds to meld a card alone
        self.bounds: dict[tuple[int, int], int] = {}
        self.exact: dict[Key, int] = {}
        self.lower: dict[Key, int] = {}
        self.choice: dict[Key, tuple] = {}

    def base(self, pool: Pool, room: int) -> int:
        """The cost of the wilds left when no natural is: melds with room take the dearest."""
        if len(pool) >= self.all_wild_min or self.wild_rank_set(pool):
            return 0
        return sum(e >> 1 for e in pool[room:])

    def wild_rank_set(self, pool: Pool) -> bool:
        """Whether the spare wilds make a set of the wild rank (one of them standing for itself)."""
        return self.flex_meld and len(pool) >= self.rules.min_set and any(not e & 1 for e in pool)

    def solve(self, x: int, pool: Pool, room: int, limit: int) -> int:
        key = (x, pool, room)
        got = self.exact.get(key)
        if got is not None:
            return got
        low = self.lower.get(key, 0)
        if low >= limit:
            return low
        if x == 0:
            got = self.base(pool, room)
            self.exact[key] = got
            return got
        if limit < _INF:  # the bound only matters once some split is known
            bound = self.bound(x, pool)
            if bound >= limit:
                self.lower[key] = bound
                return bound
            low = max(low, bound)
        i = ((x & -x).bit_length() - 1) // _BITS
        rest = x - (1 << (i * _BITS))
        best, choice = limit, None
        for nx, npool, extra, option in self._melds(i, rest, pool, room):
            value = self.solve(nx, npool, extra, best)
            if value < best:
                best, choice = value, option
                if best <= low:
                    break
        else:
            if i in self.flex_set:
                npool = tuple(sorted((*pool, 2 * self.cost[i]), reverse=True))
                value = self.solve(rest, npool, room, best)
                if value < best:
                    best, choice = value, ("wild", i)
            here = self.cost[i]
            if here < best:
                value = here + self.solve(rest, pool, room, best - here)
                if value < best:
                    best, choice = value, ("left", i)
        if choice is not None:
            self.exact[key] = best
            self.choice[key] = choice
            return best
        self.lower[key] = limit
        return limit

    def bound(self, x: int, pool: Pool) -> int:
        """A lower bound: cards with no possible partner left need a meld of their own made of
        wilds, and the wilds suffice for only so many of them; the rest are left over."""
        cover = (len(pool) + (self._wilds_in(x) if self.flex else 0)) // self.need
        key = (x, cover)
        got = self.bounds.get(key)
        if got is None:
            got = self.bounds[key] = self._bound(x, cover)
        return got

    def _bound(self, x: int, cover: int) -> int:
        solo = []
        y = x
        while y:
            i = ((y & -y).bit_length() - 1) // _BITS
            field = _MASK << (i * _BITS)
            y &= ~field
            if i not in self.flex_set and not ((x - (1 << (i * _BITS))) & self.partners[i]):
                solo += [self.cost[i]] * ((x & field) >> (i * _BITS))
        if len(solo) <= cover:
            return 0
        solo.sort()
        return sum(solo[: len(solo) - cover])

    def _wilds_in(self, x: int) -> int:
        """How many wild-rank naturals x holds."""
        b0, b1, b2, b3 = self.flex_bits
        return (
            (x & b0).bit_count()
            + 2 * (x & b1).bit_count()
            + 4 * (x & b2).bit_count()
            + 8 * (x & b3).bit_count()
        )

    def _melds(self, i: int, rest: int, pool: Pool, room: int) -> list[tuple[int, Pool, int, tuple]]:
        """(naturals after, pool after, room after, option) for each meld whose lowest natural is i.

        Melds that leave the same cards keep only the one with the most room, and the options
        come biggest meld first so that good bounds are found early.
        """
        found: dict[tuple[int, Pool], tuple[int, int, tuple]] = {}
        if not self.flex:
            for delta, k, naturals, extra, option in self._shapes_of(i, rest, min(self.maxw, len(pool))):
                nx = rest - delta
                npool = pool[k:]
                new_room = min(room + extra, len(npool))
                old = found.get((nx, npool))
                if old is None or old[0] < new_room:
                    found[(nx, npool)] = (new_room, naturals, (*option, k, ()))
            if len(found) == 1:
                (((nx, npool), (r, _, option)),) = found.items()
                return [(nx, npool, r, option)]
            ranked = sorted(found.items(), key=lambda kv: -kv[1][1])
            return [(ny, npool, r, option) for (ny, npool), (r, _, option) in ranked]
        maxk = min(self.maxw, len(pool) + self._wilds_in(rest))
        for delta, k, naturals, extra, option in self._shapes_of(i, rest, maxk):
            nx = rest - delta
            if not k:
                draws: Iterable[tuple[int, Pool, int, tuple[int, ...]]] = [(nx, pool, 0, ())]
            else:
                draws = self._wilds(nx, pool, k)
            for ny, npool, j, used in draws:
                supply = len(npool) + (self._wilds_in(ny) if self.flex else 0)
                new_room = min(room + extra, supply)
                old = found.get((ny, npool))
                if old is None or old[0] < new_room:
                    found[(ny, npool)] = (new_room, naturals + len(used), (*option, j, used))
        ranked = sorted(found.items(), key=lambda kv: -kv[1][1])
        return [(ny, npool, r, option) for (ny, npool), (r, _, option) in ranked]

    def _wilds(self, nx: int, pool: Pool, k: int):
        """Ways to find k wilds: the dearest j of the pool plus k - j wild-rank naturals.

        A wild-rank natural is taken only when it is dearer than every pool wild left: keeping
        it instead (as a natural, or a pool wild later) and spending the pool wild is never worse.
        """
        for j in range(min(k, len(pool)), -1, -1):
            if j == k:
                yield nx, pool[j:], j, ()
                continue
            floor = pool[j] if j < len(pool) else -1
            for ny, used in self._flex_draws(nx, k - j, 0):
                if all(2 * self.cost[f] > floor for f in used):
                    yield ny, pool[j:], j, used

    def _flex_draws(self, nx: int, t: int, start: int):
        """Ways to take t wild-rank naturals from nx as wilds (one card per interchangeable group)."""
        if not t:
            yield nx, ()
            return
        for g in range(start, len(self.flex_groups)):
            for j in self.flex_groups[g]:
                shift = j * _BITS
                if (nx >> shift) & _MASK:
                    for ny, used in self._flex_draws(nx - (1 << shift), t - 1, g):
                        yield ny, (j, *used)
                    break

    def _shapes_of(self, i: int, rest: int, maxk: int) -> list[tuple[int, int, int, int, tuple]]:
        """`_shapes` as (cards used, wilds, naturals, room, option), cached across hands: they
        depend only on the later cards of card i's suit and rank."""
        key = (self.rules, i, rest & _LATER[i], maxk)
        got = _SHAPES.get(key)
        if got is None:
            if len(_SHAPES) >= _SHAPES_MAX:
                _SHAPES.clear()
            got = _SHAPES[key] = [(rest - nx, *more) for nx, *more in self._shapes(i, rest, maxk)]
        return got

    def _shapes(self, i: int, rest: int, maxk: int):
        """(naturals after, wilds needed, room, option) for each set or run through card i."""
        rules = self.rules
        maxw = self.maxw
        s, r = divmod(i, 13)
        # sets: later suits of the same rank (and the same card's other copies where suits repeat)
        slots = []
        for t in range(s + 1 if rules.set_distinct_suits else s, len(SUITS)):
            j = t * 13 + r
            n = (rest >> (j * _BITS)) & _MASK
            if n:
                slots.append((j, 1 if rules.set_distinct_suits else n))
        if not slots:
            k = rules.min_set - 1
            if k <= maxk and 1 + k <= self.max_set:
                yield rest, k, 1, min(self.max_set - 1 - k, maxw - k), ("set", (i,))
            slots_product: Iterable[tuple[int, ...]] = ()
        else:
            slots_product = product(*(range(top + 1) for _, top in slots))
        for takes in slots_product:
            m = 1 + sum(takes)
            k = max(0, rules.min_set - m)
            if m + k > self.max_set or k > maxk:
                continue
            nx = rest
            members = [i]
            for (j, _), n in zip(slots, takes, strict=True):
                if n:
                    nx -= n << (j * _BITS)
                    members += [j] * n
            yield nx, k, m, min(self.max_set - m - k, maxw - k), ("set", tuple(members))
        # runs: from card i (the lowest natural) naturals and gap wilds upwards, ending on a
        # natural, then padded with wilds to the minimum length; bit p of a mask marks run
        # position p (1 = low ace … 14 = high ace) as a wild
        base = s * 13
        min_run = rules.min_run
        ends = rules.wild_at_run_ends
        if r or rules.ace_low:
            v = r + 1
            top = 13 if v == 1 or not rules.ace_high else 14
            bottom = 1 if rules.ace_low else 2
            stack = [(v + 1, rest, 0, 0)]
            while stack:
                p, nx, k, mask = stack.pop()  # p: next position; p - 1 holds a natural
                length = p - v
                pad = max(0, min_run - length)
                if pad <= maxk - k and (ends or not pad):
                    above = min(pad, top - (p - 1))
                    lo, hi = v - (pad - above), p - 1 + above
                    if lo >= bottom and not (lo == 1 and hi == 14):
                        wmask = (
                            mask
                            | (((1 << (hi + 1)) - 1) ^ ((1 << p) - 1))
                            | (((1 << v) - 1) ^ ((1 << lo) - 1))
                        )
                        room = min(self.max_run - length - pad, maxw - k - pad) if ends else 0
                        yield nx, k + pad, length - k, room, ("run", s, lo, hi, wmask)
                # extend with naturals, possibly after gap wilds
                q, kk, gap = p, k, 0
                while q <= 13:
                    shift = (base + q - 1) * _BITS
                    above = nx >> shift
                    if not above & ((1 << ((14 - q) * _BITS)) - 1):
                        break  # no natural of the suit at q or above
                    if above & _MASK:
                        stack.append((q + 1, nx - (1 << shift), kk, mask | gap))
                    if kk == maxk:
                        break
                    gap |= 1 << q
                    q += 1
                    kk += 1
        if r == 0 and rules.ace_high:
            # a high ace: the run grows downwards from the king, ending on a natural
            bottom = 2
            stack = [(13, rest, 0, 0)]
            while stack:
                p, nx, k, mask = stack.pop()  # p: next position down; p + 1 holds a natural
                length = 14 - p
                pad = max(0, min_run - length)
                lo = p + 1 - pad
                if pad <= maxk - k and (ends or not pad) and lo >= bottom:
                    wmask = mask | (((1 << (p + 1)) - 1) ^ ((1 << lo) - 1))
                    room = min(self.max_run - length - pad, maxw - k - pad) if ends else 0
                    yield nx, k + pad, length - k, room, ("run", s, lo, 14, wmask)
                q, kk, gap = p, k, 0
                while q >= bottom:
                    if not (nx >> ((base + 1) * _BITS)) & ((1 << ((q - 1) * _BITS)) - 1):
                        break  # no natural of the suit at q or below
                    shift = (base + q - 1) * _BITS
                    if (nx >> shift) & _MASK:
                        stack.append((q - 1, nx - (1 << shift), kk, mask | gap))
                    if kk == maxk:
                        break
                    gap |= 1 << q
                    q -= 1
                    kk += 1


def _run_top(lo: int, rules: MeldRules) -> int:
    return 13 if lo == 1 or not rules.ace_high else 14


def _run_bottom(hi: int, rules: MeldRules) -> int:
    return 1 if rules.ace_low and hi < 14 else 2


def _set_meld(members: list[str], wilds: list[str], rules: MeldRules) -> Meld:
    """The set reading of a solved set; a wild-rank wild that can stand for itself is natural."""
    naturals = list(members)
    rank = naturals[0][0]
    spare = []
    for w in sorted(wilds):
        suits = {c[1] for c in naturals}
        if w != JOKER and w[0] == rank and not (rules.set_distinct_suits and w[1] in suits):
            naturals.append(w)
        else:
            spare.append(w)
    meld = _set_reading(naturals, spare, rules)
    assert meld is not None
    return meld


def _run_meld(suit: str, lo: int, hi: int, naturals: list[str], wilds: list[str]) -> Meld:
    by_value = {}
    for c in naturals:
        v = RANKS.index(c[0]) + 1
        by_value[14 if v == 1 and hi == 14 else v] = c
    spare = iter(sorted(wilds))
    cards = tuple(by_value[v] if v in by_value else next(spare) for v in range(lo, hi + 1))
    stands = tuple(_value_code(v, suit) for v in range(lo, hi + 1))
    return Meld("run", cards, stands, hi == 14)


class _Draft:
    """A meld being rebuilt from the solver's choices, before spare wilds are added to it."""

    def __init__(
        self, kind: str, naturals: list[str], wilds: list[str], suit: str = "", lo: int = 0, hi: int = 0
    ):
        self.kind, self.naturals, self.wilds = kind, naturals, wilds
        self.suit, self.lo, self.hi = suit, lo, hi

    def take(self, wild: str, solver: _Solver) -> bool:
        """Add a spare wild if the meld has room for it."""
        rules = solver.rules
        if len(self.wilds) >= solver.maxw:
            return False
        if self.kind == "set":
            if len(self.naturals) + len(self.wilds) >= solver.max_set:
                return False
        elif not rules.wild_at_run_ends or self.hi - self.lo + 1 >= solver.max_run:
            return False
        elif self.hi < _run_top(self.lo, rules):
            self.hi += 1
        elif self.lo > _run_bottom(self.hi, rules):
            self.lo -= 1
        else:
            return False
        self.wilds.append(wild)
        return True

    def meld(self, rules: MeldRules) -> Meld:
        if self.kind == "set":
            return _set_meld(self.naturals, self.wilds, rules)
        return _run_meld(self.suit, self.lo, self.hi, self.naturals, self.wilds)


def _positions(rank: int, rules: MeldRules) -> list[int]:
    """Run positions of a card of rank index `rank` (0 = ace)."""
    if rank:
        return [rank + 1]
    return [v for v, ok in ((1, rules.ace_low), (14, rules.ace_high)) if ok]


def _fits_run(value: int, present: int, rules: MeldRules, kmax: int) -> bool:
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


def _dead_naturals(counts: Counter[int], flex: set[int], rules: MeldRules, kmax: int) -> set[int]:
    """Plain cards that fit no meld of the hand's cards using at most kmax wilds."""
    max_set = rules.max_set if rules.max_set is not None else 99
    if rules.set_distinct_suits:
        max_set = min(max_set, len(SUITS))
    present = [0] * len(SUITS)  # per suit, a bit per run position held
    for i in counts:
        s, r = divmod(i, 13)
        for v in _positions(r, rules):
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
        if not any(_fits_run(value, present[s], rules, kmax) for value in _positions(r, rules)):
            dead.add(i)
    return dead


@functools.lru_cache(maxsize=4096)
def _partner_fields(i: int, rules: MeldRules, kmax: int) -> int:
    """The count fields of every card that could be in one meld with card i: the same rank, or
    the same suit close enough for the gap to be filled with kmax wilds."""
    s, r = divmod(i, 13)
    fields = 0
    for t in range(len(SUITS)):
        if t != s or not rules.set_distinct_suits:
            fields |= _MASK << ((t * 13 + r) * _BITS)
    reach = kmax + 1
    for v in _positions(r, rules):
        for w in range(max(1, v - reach), min(14, v + reach) + 1):
            q = (w - 1) % 13
            if q != r and (w != 1 or rules.ace_low) and (w != 14 or rules.ace_high):
                fields |= _MASK << ((s * 13 + q) * _BITS)
    return fields


def _flex_groups(
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
        mine = _positions(r, rules)
        near = any(
            abs(v - w) <= kmax + 1
            for i in counts
            if i // 13 == s and i not in flex
            for v in mine
            for w in _positions(i % 13, rules)
        )
        alone = not near and runs_are_sets and not rules.set_distinct_suits
        groups.setdefault(("any", cost[j]) if alone else j, []).append(j)
    return list(groups.values())


def _setup(
    hand: Iterable[str], rules: MeldRules, points: Callable[[str], int], give_up_on_dead: bool = False
) -> tuple | None:
    """The solver for a hand, its packed naturals and pool, the cards that can only be left
    over, and the pool's actual cards with the pool order (None when `give_up_on_dead` and
    some card fits no meld)."""
    hand = list(hand)
    bad = [c for c in hand if not isinstance(c, str) or c not in ALL_CODES]
    if bad:
        raise ValueError(f"not card codes: {bad!r}")
    # With any number of wilds per meld and wilds allowed at run ends, a wild-rank card standing
    # for itself next to a plain card may as well be a wild standing for itself; so all such cards
    # go to the pool, and only a meld of nothing but wild-rank cards and jokers needs one of them
    # natural: a set of the wild rank, made of spare wilds at the end.
    flex_meld = (
        rules.wild_rank is not None
        and rules.max_wilds_per_meld is None
        and rules.wild_at_run_ends
        and rules.max_set is None
        and not rules.set_distinct_suits
        and rules.min_set <= rules.min_run
    )
    naturals = [c for c in hand if not (c == JOKER or (flex_meld and rules.is_wild(c)))]
    wilds = [c for c in hand if c == JOKER or (flex_meld and rules.is_wild(c))]
    cost = {_index(c): points(c) for c in set(naturals)}
    flex = sorted({_index(c) for c in naturals if rules.is_wild(c)})
    supply = len(hand) - len(naturals) + sum(1 for c in naturals if rules.is_wild(c))
    counts = Counter(_index(c) for c in naturals)
    kmax = min(supply, rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else supply)
    # a card that fits no meld at all, even with the hand's wilds, is left over whatever happens
    lonely = kmax < min(rules.min_set, rules.min_run) - 1
    dead = _dead_naturals(counts, set(flex), rules, kmax) if lonely else set()
    if dead and give_up_on_dead:
        return None
    groups = _flex_groups(flex, counts, cost, rules, kmax)
    solver = _Solver(rules, cost, flex, groups, supply, flex_meld)
    hand_fields = sum(_MASK << (i * _BITS) for i in counts)
    solver.partners = {i: _partner_fields(i, rules, kmax) & hand_fields for i in counts}
    x = 0
    leftover: list[str] = []
    for c in naturals:
        if _index(c) in dead:
            leftover.append(c)
        else:
            x += 1 << (_index(c) * _BITS)

    def encoded(card: str) -> int:
        return 2 * points(card) + (card == JOKER)

    spare = sorted(wilds, key=lambda c: (-encoded(c), c))  # the actual pool cards
    pool: Pool = tuple(encoded(c) for c in spare)
    return solver, x, pool, leftover, spare, encoded


def goes_out(hand: Iterable[str], rules: MeldRules) -> bool:
    """Whether the whole hand splits into valid melds (faster than `best_split` for that)."""
    setup = _setup(hand, rules, _one_point, give_up_on_dead=True)
    if setup is None:
        return False
    solver, x, pool, _, _, _ = setup
    return solver.solve(x, pool, 0, 1) == 0


def _one_point(card: str) -> int:
    return 1


def best_split(hand: Iterable[str], rules: MeldRules, points: Callable[[str], int]) -> Split:
    """The split of `hand` into disjoint valid melds with the least points unmatched (exact).

    `points(card)` (>= 0) is what an unmatched card costs, wild cards included. The result is
    deterministic for a given hand (in any order) and rules.
    """
    setup = _setup(hand, rules, points)
    assert setup is not None
    solver, x, pool, leftover, spare, encoded = setup
    room = 0
    total = solver.solve(x, pool, room, _INF) + sum(points(c) for c in leftover)

    # replay the recorded choices
    drafts: list[_Draft] = []
    while x:
        choice = solver.choice[(x, pool, room)]
        kind = choice[0]
        if kind in ("left", "wild"):
            i = choice[1]
            x -= 1 << (i * _BITS)
            if kind == "left":
                leftover.append(_code(i))
            else:
                spare = sorted([*spare, _code(i)], key=lambda c: (-encoded(c), c))
                pool = tuple(encoded(c) for c in spare)
            continue
        from_pool, used = choice[-2], choice[-1]
        if kind == "set":
            draft = _Draft("set", [_code(j) for j in choice[1]], [])
        else:
            _, s, lo, hi, mask, _, _ = choice
            suit = SUITS[s]
            members = [_value_code(p, suit) for p in range(lo, hi + 1) if not (mask >> p) & 1]
            draft = _Draft("run", members, [], suit, lo, hi)
        draft.wilds = [_code(j) for j in used] + spare[:from_pool]
        for c in [*draft.naturals, *map(_code, used)]:
            x -= 1 << (_index(c) * _BITS)
        spare, pool = spare[from_pool:], pool[from_pool:]
        drafts.append(draft)
        supply = len(pool) + (solver._wilds_in(x) if solver.flex else 0)
        room = min(room + _draft_room(draft, solver), supply)
    melds = [d.meld(rules) for d in drafts]
    if spare and len(spare) >= solver.all_wild_min:
        meld = _all_wild_reading(sorted(spare), rules)
        assert meld is not None
        melds.append(meld)
    elif solver.wild_rank_set(pool):
        own = [c for c in spare if c != JOKER]
        melds.append(_set_meld(own[:1], own[1:] + [c for c in spare if c == JOKER], rules))
    else:
        for wild in list(spare[:room]):
            if any(d.take(wild, solver) for d in drafts):
                spare.remove(wild)
        leftover.extend(spare)
        melds = [d.meld(rules) for d in drafts]
    assert sum(points(c) for c in leftover) == total
    return Split(tuple(melds), tuple(leftover), total)


def _draft_room(draft: _Draft, solver: _Solver) -> int:
    """How many more wilds the meld could take (the room the solver counted for it)."""
    k = len(draft.wilds)
    if draft.kind == "set":
        return min(solver.max_set - len(draft.naturals) - k, solver.maxw - k)
    if not solver.rules.wild_at_run_ends:
        return 0
    return min(solver.max_run - (draft.hi - draft.lo + 1), solver.maxw - k)

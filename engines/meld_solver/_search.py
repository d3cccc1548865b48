"""The meld solver's search: an exact, memoised depth-first search over packed hands.

Internal to `engines.meld_solver` (its `__init__` holds the public API). A hand's natural cards
are one int with a 4-bit count field per card, in the rummy layout of `engines.cards.CARD_INDEX`
(suit-major, ace first), so that the arithmetic below can step through a suit by field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import product
from typing import Any

from engines.cards import SUITS
from engines.melds import MeldRules

BITS = 4  # per-card count field in the packed hand (two decks hold at most 2 copies)
MASK = (1 << BITS) - 1
INF = 1 << 60

# The spare wild cards, dearest first, each as 2 * cost + 1 for a joker, 2 * cost for a wild-rank
# card: at equal cost a joker is spent first and a wild-rank card, which can still stand for
# itself, stays.
Pool = tuple[int, ...]
Key = tuple[int, Pool, int]
# A meld's recorded choice: its kind, card indices and wilds, flat (engines/meld_solver/_replay.py).
Option = tuple[Any, ...]


# Per card, the count fields of the cards that may share a meld with it and come later in the
# solver's order: the rest of its suit and its rank in later suits (and its own field, for copies).
LATER = [
    sum(MASK << (j * BITS) for j in range(i, (i // 13 + 1) * 13))
    | sum(MASK << ((t * 13 + i % 13) * BITS) for t in range(i // 13, len(SUITS)))
    for i in range(13 * len(SUITS))
]
# A meld through one card: (naturals, wilds it needs, naturals it holds, room, option), where
# naturals are those left after it (`Solver._shapes`) or those it uses (the cache).
Shape = tuple[int, int, int, int, Option]
SHAPES: dict[tuple[MeldRules, int, int, int], list[Shape]] = {}
SHAPES_MAX = 30_000  # about 20 MB; the cache starts again empty when full


class Solver:
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
        self.flex_bits = [sum(1 << (j * BITS + b) for j in flex) for b in range(BITS)]
        self.supply = supply  # every card that may act as a wild: room beyond it is useless
        self.flex_meld = flex_meld  # wild-rank cards are all in the pool but may still stand for themselves
        self.maxw = rules.max_wilds_per_meld if rules.max_wilds_per_meld is not None else 99
        self.max_set = rules.max_set if rules.max_set is not None else 99
        if rules.set_distinct_suits:
            self.max_set = min(self.max_set, len(SUITS))
        self.max_run = 13 if rules.ace_low or rules.ace_high else 12
        self.all_wild_min = min(rules.min_set, rules.min_run) if rules.allow_all_wild else INF
        self.partners: dict[int, int] = {}  # per card: the fields of cards it could share a meld with
        self.need = max(1, min(rules.min_set, rules.min_run) - 1)  # wilds to meld a card alone
        self.bounds: dict[tuple[int, int], int] = {}
        self.exact: dict[Key, int] = {}
        self.lower: dict[Key, int] = {}
        self.choice: dict[Key, Option] = {}

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
        if limit < INF:  # the bound only matters once some split is known
            bound = self.bound(x, pool)
            if bound >= limit:
                self.lower[key] = bound
                return bound
            low = max(low, bound)
        i = ((x & -x).bit_length() - 1) // BITS
        rest = x - (1 << (i * BITS))
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
        cover = (len(pool) + (self.wilds_in(x) if self.flex else 0)) // self.need
        key = (x, cover)
        got = self.bounds.get(key)
        if got is None:
            got = self.bounds[key] = self._bound(x, cover)
        return got

    def _bound(self, x: int, cover: int) -> int:
        solo = []
        y = x
        while y:
            i = ((y & -y).bit_length() - 1) // BITS
            field = MASK << (i * BITS)
            y &= ~field
            if i not in self.flex_set and not ((x - (1 << (i * BITS))) & self.partners[i]):
                solo += [self.cost[i]] * ((x & field) >> (i * BITS))
        if len(solo) <= cover:
            return 0
        solo.sort()
        return sum(solo[: len(solo) - cover])

    def wilds_in(self, x: int) -> int:
        """How many wild-rank naturals x holds."""
        b0, b1, b2, b3 = self.flex_bits
        return (
            (x & b0).bit_count()
            + 2 * (x & b1).bit_count()
            + 4 * (x & b2).bit_count()
            + 8 * (x & b3).bit_count()
        )

    def _melds(self, i: int, rest: int, pool: Pool, room: int) -> list[tuple[int, Pool, int, Option]]:
        """(naturals after, pool after, room after, option) for each meld whose lowest natural is i.

        Melds that leave the same cards keep only the one with the most room, and the options
        come biggest meld first so that good bounds are found early.
        """
        found: dict[tuple[int, Pool], tuple[int, int, Option]] = {}
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
        maxk = min(self.maxw, len(pool) + self.wilds_in(rest))
        for delta, k, naturals, extra, option in self._shapes_of(i, rest, maxk):
            nx = rest - delta
            if not k:
                draws: Iterable[tuple[int, Pool, int, tuple[int, ...]]] = [(nx, pool, 0, ())]
            else:
                draws = self._wilds(nx, pool, k)
            for ny, npool, j, used in draws:
                supply = len(npool) + (self.wilds_in(ny) if self.flex else 0)
                new_room = min(room + extra, supply)
                old = found.get((ny, npool))
                if old is None or old[0] < new_room:
                    found[(ny, npool)] = (new_room, naturals + len(used), (*option, j, used))
        ranked = sorted(found.items(), key=lambda kv: -kv[1][1])
        return [(ny, npool, r, option) for (ny, npool), (r, _, option) in ranked]

    def _wilds(self, nx: int, pool: Pool, k: int) -> Iterator[tuple[int, Pool, int, tuple[int, ...]]]:
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

    def _flex_draws(self, nx: int, t: int, start: int) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Ways to take t wild-rank naturals from nx as wilds (one card per interchangeable group)."""
        if not t:
            yield nx, ()
            return
        for g in range(start, len(self.flex_groups)):
            for j in self.flex_groups[g]:
                shift = j * BITS
                if (nx >> shift) & MASK:
                    for ny, used in self._flex_draws(nx - (1 << shift), t - 1, g):
                        yield ny, (j, *used)
                    break

    def _shapes_of(self, i: int, rest: int, maxk: int) -> list[Shape]:
        """`_shapes` as (cards used, wilds, naturals, room, option), cached across hands: they
        depend only on the later cards of card i's suit and rank."""
        key = (self.rules, i, rest & LATER[i], maxk)
        got = SHAPES.get(key)
        if got is None:
            if len(SHAPES) >= SHAPES_MAX:
                SHAPES.clear()
            got = SHAPES[key] = [(rest - nx, k, m, r, o) for nx, k, m, r, o in self._shapes(i, rest, maxk)]
        return got

    def _shapes(self, i: int, rest: int, maxk: int) -> Iterator[Shape]:
        """(naturals after, wilds needed, naturals used, room, option) for each set or run through card i.

        Runs: from card i (the lowest natural) naturals and gap wilds upwards, ending on a
        natural, then padded with wilds to the minimum length; bit p of a mask marks run
        position p (1 = low ace … 14 = high ace) as a wild.
        """
        yield from self._sets(i, rest, maxk)
        s, r = divmod(i, 13)
        if r or self.rules.ace_low:
            yield from self._runs_up(s, r + 1, rest, maxk)
        if r == 0 and self.rules.ace_high:
            yield from self._runs_down_to_high_ace(s, rest, maxk)

    def _sets(self, i: int, rest: int, maxk: int) -> Iterator[Shape]:
        """The sets of card i: later suits of the same rank (and the same card's other copies
        where suits repeat), padded with wilds to the minimum size."""
        rules = self.rules
        maxw = self.maxw
        s, r = divmod(i, 13)
        slots = []
        for t in range(s + 1 if rules.set_distinct_suits else s, len(SUITS)):
            j = t * 13 + r
            n = (rest >> (j * BITS)) & MASK
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
                    nx -= n << (j * BITS)
                    members += [j] * n
            yield nx, k, m, min(self.max_set - m - k, maxw - k), ("set", tuple(members))

    def _runs_up(self, s: int, v: int, rest: int, maxk: int) -> Iterator[Shape]:
        """The runs of suit s whose lowest natural is at position v, grown upwards."""
        rules = self.rules
        maxw, min_run, ends = self.maxw, rules.min_run, rules.wild_at_run_ends
        base = s * 13
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
                        mask | (((1 << (hi + 1)) - 1) ^ ((1 << p) - 1)) | (((1 << v) - 1) ^ ((1 << lo) - 1))
                    )
                    room = min(self.max_run - length - pad, maxw - k - pad) if ends else 0
                    yield nx, k + pad, length - k, room, ("run", s, lo, hi, wmask)
            # extend with naturals, possibly after gap wilds
            q, kk, gap = p, k, 0
            while q <= 13:
                shift = (base + q - 1) * BITS
                higher = nx >> shift
                if not higher & ((1 << ((14 - q) * BITS)) - 1):
                    break  # no natural of the suit at q or above
                if higher & MASK:
                    stack.append((q + 1, nx - (1 << shift), kk, mask | gap))
                if kk == maxk:
                    break
                gap |= 1 << q
                q += 1
                kk += 1

    def _runs_down_to_high_ace(self, s: int, rest: int, maxk: int) -> Iterator[Shape]:
        """The runs of suit s ending on a high ace: grown downwards from the king, ending on a natural."""
        rules = self.rules
        maxw, min_run, ends = self.maxw, rules.min_run, rules.wild_at_run_ends
        base = s * 13
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
                if not (nx >> ((base + 1) * BITS)) & ((1 << ((q - 1) * BITS)) - 1):
                    break  # no natural of the suit at q or below
                shift = (base + q - 1) * BITS
                if (nx >> shift) & MASK:
                    stack.append((q - 1, nx - (1 << shift), kk, mask | gap))
                if kk == maxk:
                    break
                gap |= 1 << q
                q -= 1
                kk += 1

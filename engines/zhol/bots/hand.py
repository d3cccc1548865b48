"""Zhol hand arithmetic for the bots: how many cards a hand still has to draw, and which draws help.

A hand's *deficiency* is the number of cards it must still draw (throwing one away each time) to
win: the winning size minus the most cards it can keep. Kept cards form *partial groups*, each a
subset of a set or run whose smallest completion has a *size*; the sizes must add up to at most
the winning size (the room left over is filled by extending a group or by a new group). Jokers
fill any gap, so they are always kept. For speed a partial group may miss at most `waste(size)`
cards of its completion (a single card misses 2), or one more than the hand's jokers when it is
close to winning: a hand that wins or needs one card is judged exactly, a hand further away
sometimes one card too pessimistically. `exact=True` lifts that shortcut in the large game too
(about twice the time; the pro can switch it on, docs/bots.md).

The naturals of a hand are packed into one int, 2 bits per card (two decks hold at most 2 copies
of a card), and the search runs per *component* (cards that could share a partial group), with
every component's answer cached across calls.
"""

from __future__ import annotations

from itertools import combinations

from engines.cards import CARD_INDEX, JOKER_INDEX

_EVEN = sum(1 << (2 * i) for i in range(52))  # bit 2i: card i present
_SUIT_FIELD = (1 << 26) - 1
_CACHE_LIMIT = 400_000  # entries per cache (each cache starts again empty when full)


def waste(size: int, exact: bool = False) -> int:
    """The most cards a partial group may miss for a winning hand of `size` cards: 2 for the small
    game (exact), 1 for the large one (singles still allowed), which is several times faster;
    `exact` asks for 2 in the large one too (the pro: its choices hang on these counts)."""
    return 2 if size <= 7 or exact else 1


def encode(cards: list[str]) -> tuple[int, ...]:
    """A hand as sorted ints of the rummy layout (`engines.cards.CARD_INDEX`: 13 * suit + rank,
    ace 0 … king 12, the joker 52), which the bit packing and rank/suit arithmetic below rely on."""
    return tuple(sorted(CARD_INDEX[c] for c in cards))


def pack(hand: tuple[int, ...]) -> tuple[int, int]:
    """(the naturals packed, the number of jokers)."""
    x = 0
    jokers = 0
    for c in hand:
        if c == JOKER_INDEX:
            jokers += 1
        else:
            x += 1 << (2 * c)
    return x, jokers


def _linked(a: int, b: int, slack: int) -> bool:
    """Whether two cards could share a partial group missing at most `slack` cards."""
    if a % 13 == b % 13:
        return True
    if a // 13 != b // 13:
        return False
    low, high = sorted((a % 13, b % 13))
    # close, or (an ace) close to the king end, where the ace is high
    return high - low <= slack + 1 or (low == 0 and 13 - high <= slack + 1)


# Per slack and card, the cards it could share a partial group with (bit 2j for card j).
_NEIGHBOURS = {
    slack: [sum(1 << (2 * j) for j in range(52) if j != i and _linked(i, j, slack)) for i in range(52)]
    for slack in range(1, 7)
}

_OPTIONS: dict[tuple[int, int, int, int], tuple[tuple[int, int, int], ...]] = {}


def _options(first: int, present: int, slack: int) -> tuple[tuple[int, int, int], ...]:
    """The partial groups whose lowest card is `first`, among the cards in `present` (bit 2i: card
    i held), as (packed cards, completed size, cards): a single, a set, or a run of its suit."""
    suit, rank = divmod(first, 13)
    suit_bits = (present >> (26 * suit)) & _SUIT_FIELD
    rank_bits = sum(1 << t for t in range(suit + 1, 4) if present >> (2 * (13 * t + rank)) & 1)
    key = (first, suit_bits, rank_bits, slack)
    got = _OPTIONS.get(key)
    if got is not None:
        return got
    own = 1 << (2 * first)
    out: list[tuple[int, int, int]] = [(own, 3, 1)]
    mates = [13 * t + rank for t in range(suit + 1, 4) if rank_bits >> t & 1]
    for n in range(1, len(mates) + 1):
        for combo in combinations(mates, n):
            if max(3, n + 1) - n - 1 <= slack:
                out.append((own + sum(1 << (2 * c) for c in combo), max(3, n + 1), n + 1))
    line = [13 * suit + q for q in range(rank + 1, 13) if suit_bits >> (2 * q) & 1]
    found: dict[int, tuple[int, int]] = {}
    _grow(rank + 1, [(c % 13 + 1, c) for c in line], own, slack, found)
    if rank == 0:
        # the ace high: the run grows down from position 14
        _grow(-14, [(-(c % 13 + 1), c) for c in reversed(line)], own, slack, found)
    out.extend((packed, size, n) for packed, (size, n) in found.items())
    result = tuple(out)
    if len(_OPTIONS) > _CACHE_LIMIT:
        _OPTIONS.clear()
    _OPTIONS[key] = result
    return result


def _grow(
    start: int, cards: list[tuple[int, int]], own: int, slack: int, found: dict[int, tuple[int, int]]
) -> None:
    """Record in `found` every run from position `start` through some of `cards` ((position, card),
    positions increasing) missing at most `slack` cards: packed cards -> (completed size, cards)."""
    stack: list[tuple[int, int, int]] = [(0, own, 1)]
    while stack:
        i, packed, n = stack.pop()
        for j in range(i, len(cards)):
            pos, card = cards[j]
            span = pos - start + 1
            if span - n - 1 > slack:
                break
            grown = packed + (1 << (2 * card))
            size = max(3, span)
            if size - n - 1 <= slack:
                old = found.get(grown)
                if old is None or size < old[0]:
                    found[grown] = (size, n + 1)
            stack.append((j + 1, grown, n + 1))


def _components(x: int, slack: int) -> list[int]:
    """The packed naturals split into groups of cards that could never share a partial group."""
    neighbours = _NEIGHBOURS[slack]
    present = (x | (x >> 1)) & _EVEN
    parts = []
    while present:
        comp = todo = present & -present
        while todo:
            bit = todo & -todo
            todo ^= bit
            add = neighbours[(bit.bit_length() - 1) >> 1] & present & ~comp
            comp |= add
            todo |= add
        present &= ~comp
        parts.append(x & (comp | comp << 1))
    return parts


_COSTS: dict[tuple[int, int, int], tuple[int, ...]] = {}
_COMPONENT: dict[tuple[int, int, int], tuple[int, ...]] = {}


def costs(x: int, top: int, slack: int) -> tuple[int, ...]:
    """For k = 0, 1, ...: the least total completed size of partial groups, each missing at most
    `slack` cards, holding k of the natural cards packed in `x`, as long as it is at most `top` (so
    the tuple may stop early)."""
    key = (x, top, slack)
    got = _COSTS.get(key)
    if got is not None:
        return got
    if x == 0:
        result: tuple[int, ...] = (0,)
    else:
        parts = _components(x, slack)
        result = _component_costs(parts[0], top, slack)
        for part in parts[1:]:
            result = _merge(result, _component_costs(part, top, slack), top)
    if len(_COSTS) > _CACHE_LIMIT:
        _COSTS.clear()
    _COSTS[key] = result
    return result


def _merge(a: tuple[int, ...], b: tuple[int, ...], top: int) -> tuple[int, ...]:
    out = [top + 1] * (len(a) + len(b) - 1)
    for i, ca in enumerate(a):
        for j, cb in enumerate(b):
            if ca + cb < out[i + j]:
                out[i + j] = ca + cb
    return _trim(out, top)


def _trim(out: list[int], top: int) -> tuple[int, ...]:
    n = len(out)
    while n > 1 and out[n - 1] > top:
        n -= 1
    return tuple(out[:n])


def _component_costs(x: int, top: int, slack: int) -> tuple[int, ...]:
    """`costs` for one component: its lowest card is left out, or the lowest card of a partial group."""
    key = (x, top, slack)
    got = _COMPONENT.get(key)
    if got is not None:
        return got
    low = x & -x
    first = (low.bit_length() - 1) >> 1
    own = 1 << (2 * first)
    best = list(costs(x - own, top, slack))
    present = (x | (x >> 1)) & _EVEN
    for packed, size, k in _options(first, present, slack):
        if size > top:
            continue
        rest = costs(x - packed, top, slack)
        if len(best) < len(rest) + k:
            best += [top + 1] * (len(rest) + k - len(best))
        for j, c in enumerate(rest):
            c += size
            if c < best[j + k]:
                best[j + k] = c
    # keeping fewer cards never costs more: drop one from a partial group
    for j in range(len(best) - 2, -1, -1):
        if best[j + 1] < best[j]:
            best[j] = best[j + 1]
    result = _trim(best, top)
    if len(_COMPONENT) > _CACHE_LIMIT:
        _COMPONENT.clear()
    _COMPONENT[key] = result
    return result


def deficiency(hand: tuple[int, ...], size: int, exact: bool = False) -> int:
    """How many cards the hand (int codes) still has to draw, throwing one away each time, to win
    with `size` cards. 0 for a winning hand, or one a discard away from it. `exact`: see `waste`."""
    x, jokers = pack(hand)
    slack = waste(size, exact)
    need = _need(x, jokers, size, slack)
    # jokers can fill a partial group missing more cards: judge a hand this close again, so that a
    # winning hand (and in the small game a hand one card away) is judged exactly
    wider = jokers + 1 if size <= 7 else jokers
    if wider > slack and need <= max(2, jokers):
        need = min(need, _need(x, jokers, size, wider))
    return need


def _need(x: int, jokers: int, size: int, slack: int) -> int:
    table = costs(x, size, slack)
    kept = len(table) - 1
    while table[kept] > size:
        kept -= 1
    return max(0, size - jokers - kept)


def present_mask(hand: tuple[int, ...]) -> int:
    """Bit 2i set for every natural card i of the hand."""
    mask = 0
    for c in hand:
        if c != JOKER_INDEX:
            mask |= 1 << (2 * c)
    return mask


def relevant(card: int, mask: int, size: int, jokers: int = 0, exact: bool = False) -> bool:
    """Whether drawing `card` could lower the deficiency of a hand with naturals `mask` and
    `jokers`: it is a joker or it could share a partial group with one of them."""
    if card == JOKER_INDEX:
        return True
    slack = max(waste(size, exact), jokers + 1) if jokers else waste(size, exact)
    return bool(_NEIGHBOURS[slack][card] & mask)


def with_card(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    out = list(hand)
    out.append(card)
    out.sort()
    return tuple(out)


def without_card(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    out = list(hand)
    out.remove(card)
    return tuple(out)


def improving(
    hand: tuple[int, ...], size: int, cards: list[int], current: int | None = None, exact: bool = False
) -> list[int]:
    """The cards among `cards` (distinct) that lower the deficiency of `hand` if drawn."""
    now = deficiency(hand, size, exact) if current is None else current
    if now == 0:
        return []
    x, jokers = pack(hand)
    slack = waste(size, exact)
    if (jokers + 1 if size <= 7 else jokers) > slack:
        # `deficiency` may look again with a wider slack: ask it card by card
        mask = present_mask(hand)
        return [
            c
            for c in cards
            if relevant(c, mask, size, jokers, exact) and deficiency(with_card(hand, c), size, exact) < now
        ]
    # the hand's components are fixed; a drawn card joins those it could share a group with
    parts = _components(x, slack)
    vecs = [_component_costs(p, size, slack) for p in parts]
    masks = [(p | (p >> 1)) & _EVEN for p in parts]
    k = len(parts)
    prefix: list[tuple[int, ...]] = [(0,)]
    for v in vecs:
        prefix.append(_merge(prefix[-1], v, size))
    suffix: list[tuple[int, ...]] = [(0,)]
    for v in reversed(vecs):
        suffix.append(_merge(suffix[-1], v, size))
    suffix.reverse()
    neighbours = _NEIGHBOURS[slack]
    goal = size - jokers - now  # the naturals kept now; one more lowers the deficiency
    out = []
    for c in cards:
        if c == JOKER_INDEX:
            out.append(c)
            continue
        near = neighbours[c]
        touched = [i for i in range(k) if masks[i] & near]
        if not touched:
            continue
        joined = 1 << (2 * c)
        for i in touched:
            joined += parts[i]
        if len(touched) == 1:
            i = touched[0]
            rest = _merge(prefix[i], suffix[i + 1], size)
        else:
            rest = (0,)
            for i in range(k):
                if i not in touched:
                    rest = _merge(rest, vecs[i], size)
        total = _merge(rest, _component_costs(joined, size, slack), size)
        kept = len(total) - 1
        while total[kept] > size:
            kept -= 1
        if kept > goal:
            out.append(c)
    return out


def neighbours(card: int, size: int) -> int:
    """The cards (bit 2j for card j) that `card` could share a partial group with."""
    if card == JOKER_INDEX:
        return _EVEN
    return _NEIGHBOURS[waste(size)][card]

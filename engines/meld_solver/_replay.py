"""Rebuilding the split the meld solver found: its recorded choices become melds, and spare
wilds go into melds with room, the dearest first.

Internal to `engines.meld_solver`; cards in the choices are ints of the rummy layout
(`engines.cards.CARD_INDEX`).
"""

from __future__ import annotations

from typing import Any

from engines.cards import CARD_INDEX, JOKER, RANK_VALUE, SUITS, card_of
from engines.meld_solver._hand import Setup
from engines.meld_solver._search import BITS, Solver
from engines.melds import Meld, MeldRules, all_wild_reading, position_code, set_reading


def run_top(lo: int, rules: MeldRules) -> int:
    return 13 if lo == 1 or not rules.ace_high else 14


def run_bottom(hi: int, rules: MeldRules) -> int:
    return 1 if rules.ace_low and hi < 14 else 2


def set_meld(members: list[str], wilds: list[str], rules: MeldRules) -> Meld:
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
    meld = set_reading(naturals, spare, rules)
    assert meld is not None
    return meld


def run_meld(suit: str, lo: int, hi: int, naturals: list[str], wilds: list[str]) -> Meld:
    by_value = {}
    for c in naturals:
        v = RANK_VALUE[c[0]]
        by_value[14 if v == 1 and hi == 14 else v] = c
    spare = iter(sorted(wilds))
    cards = tuple(by_value[v] if v in by_value else next(spare) for v in range(lo, hi + 1))
    stands = tuple(position_code(v, suit) for v in range(lo, hi + 1))
    return Meld("run", cards, stands, hi == 14)


class Draft:
    """A meld being rebuilt from the solver's choices, before spare wilds are added to it."""

    def __init__(
        self, kind: str, naturals: list[str], wilds: list[str], suit: str = "", lo: int = 0, hi: int = 0
    ):
        self.kind, self.naturals, self.wilds = kind, naturals, wilds
        self.suit, self.lo, self.hi = suit, lo, hi

    def take(self, wild: str, solver: Solver) -> bool:
        """Add a spare wild if the meld has room for it."""
        rules = solver.rules
        if len(self.wilds) >= solver.maxw:
            return False
        if self.kind == "set":
            if len(self.naturals) + len(self.wilds) >= solver.max_set:
                return False
        elif not rules.wild_at_run_ends or self.hi - self.lo + 1 >= solver.max_run:
            return False
        elif self.hi < run_top(self.lo, rules):
            self.hi += 1
        elif self.lo > run_bottom(self.hi, rules):
            self.lo -= 1
        else:
            return False
        self.wilds.append(wild)
        return True

    def meld(self, rules: MeldRules) -> Meld:
        if self.kind == "set":
            return set_meld(self.naturals, self.wilds, rules)
        return run_meld(self.suit, self.lo, self.hi, self.naturals, self.wilds)


def draft_room(draft: Draft, solver: Solver) -> int:
    """How many more wilds the meld could take (the room the solver counted for it)."""
    k = len(draft.wilds)
    if draft.kind == "set":
        return min(solver.max_set - len(draft.naturals) - k, solver.maxw - k)
    if not solver.rules.wild_at_run_ends:
        return 0
    return min(solver.max_run - (draft.hi - draft.lo + 1), solver.maxw - k)


def draft_of(choice: tuple[Any, ...], spare: list[str]) -> Draft:
    """The meld of one recorded choice, with the wilds it takes: its wild-rank cards acting as
    wilds and the first of the spare wilds."""
    kind, from_pool, used = choice[0], choice[-2], choice[-1]
    if kind == "set":
        draft = Draft("set", [card_of(j) for j in choice[1]], [])
    else:
        _, s, lo, hi, mask, _, _ = choice
        suit = SUITS[s]
        members = [position_code(p, suit) for p in range(lo, hi + 1) if not (mask >> p) & 1]
        draft = Draft("run", members, [], suit, lo, hi)
    draft.wilds = [card_of(j) for j in used] + spare[:from_pool]
    return draft


def rebuild(ready: Setup) -> tuple[list[Meld], list[str]]:
    """The melds and the leftover cards of the split `ready.solver` found (after its search)."""
    solver, encoded = ready.solver, ready.encoded
    x, pool, room = ready.naturals, ready.pool, 0
    leftover, spare = ready.leftover, ready.spare
    drafts: list[Draft] = []
    while x:
        choice = solver.choice[(x, pool, room)]
        kind = choice[0]
        if kind in ("left", "wild"):
            i = choice[1]
            x -= 1 << (i * BITS)
            if kind == "left":
                leftover.append(card_of(i))
            else:
                spare = sorted([*spare, card_of(i)], key=lambda c: (-encoded(c), c))
                pool = tuple(encoded(c) for c in spare)
            continue
        draft = draft_of(choice, spare)
        for c in [*draft.naturals, *map(card_of, choice[-1])]:
            x -= 1 << (CARD_INDEX[c] * BITS)
        from_pool = choice[-2]
        spare, pool = spare[from_pool:], pool[from_pool:]
        drafts.append(draft)
        supply = len(pool) + (solver.wilds_in(x) if solver.flex else 0)
        room = min(room + draft_room(draft, solver), supply)
    return place_spares(drafts, spare, pool, room, solver, leftover)


def place_spares(
    drafts: list[Draft],
    spare: list[str],
    pool: tuple[int, ...],
    room: int,
    solver: Solver,
    leftover: list[str],
) -> tuple[list[Meld], list[str]]:
    """The melds once the spare wilds are placed: all in one meld of their own when they make
    one, else into melds with room, the dearest first; the rest are left over."""
    rules = solver.rules
    if spare and len(spare) >= solver.all_wild_min:
        meld = all_wild_reading(sorted(spare), rules)
        assert meld is not None
        return [*(d.meld(rules) for d in drafts), meld], leftover
    if solver.wild_rank_set(pool):
        own = [c for c in spare if c != JOKER]
        wild_set = set_meld(own[:1], own[1:] + [c for c in spare if c == JOKER], rules)
        return [*(d.meld(rules) for d in drafts), wild_set], leftover
    for wild in list(spare[:room]):
        if any(d.take(wild, solver) for d in drafts):
            spare.remove(wild)
    return [d.meld(rules) for d in drafts], leftover + spare

"""Hand evaluation for the Three Thirteen bots: memoised minimal splits under one round's rules.

Everything here works from one seat's view: the round's meld rules and card points, the seat's own
hand and the public cards (discard pile, table melds, dumped jokers, cards seen taken). It also
holds what every level does alike: the complete discard action for a card (`discard_body`), the
redemption lay-offs (`lay_off_action`) and whether a card would feed the next player (`feeds_next`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.meld_solver import best_split
from engines.melds import MeldRules
from engines.three_thirteen import rules as tt

_ORDER = "A23456789TJQK"


def without(hand: list[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


class Judge:
    """Points left by the minimal split of a hand, under this round's rules (memoised per decision)."""

    def __init__(self, view: dict[str, Any]):
        table = view["table"]
        self.options: dict[str, Any] = table["options"]
        size = table["cards_dealt"]
        self.rules: MeldRules = tt.meld_rules(self.options, size)
        self.points: Callable[[str], int] = tt.points_function(self.options, size)
        self.wild_rank: str = tt.WILD_RANK[size]
        self.ace_high = bool(self.options.get("aces_high_low"))
        self.multiple_wilds = bool(self.options.get("multiple_wilds") or self.options.get("all_wild_melds"))
        self.memo: dict[tuple[str, ...], tuple[int, tuple[str, ...]]] = {}
        self.splits = 0  # how many splits were actually solved (for budgets and tests)

    def split(self, cards: list[str]) -> tuple[int, tuple[str, ...]]:
        """(points left, unmatched cards) of the minimal split."""
        key = tuple(sorted(cards))
        got = self.memo.get(key)
        if got is None:
            self.splits += 1
            s = best_split(key, self.rules, self.points)
            got = self.memo[key] = (s.points, tuple(s.leftover))
        return got

    def left(self, cards: list[str]) -> int:
        return self.split(cards)[0]

    def is_wild(self, card: str) -> bool:
        return card == JOKER or card[0] == self.wild_rank

    def connected(self, a: str, b: str) -> bool:
        """Whether two natural cards could sit in one meld (same rank, or same suit within two ranks)."""
        if a[0] == b[0]:
            return True
        if a[1] != b[1]:
            return False
        i, j = _ORDER.index(a[0]), _ORDER.index(b[0])
        if abs(i - j) <= 2:
            return True
        # With aces high, A sits next to Q and K too.
        return self.ace_high and {a[0], b[0]} & {"A"} != set() and max(i, j) >= 11 and min(i, j) == 0

    def can_help(self, card: str, hand: list[str]) -> bool:
        """Whether `card` could join a meld with cards of `hand` (else it only adds its points)."""
        if self.is_wild(card):
            return True
        wilds = sum(1 for c in hand if self.is_wild(c))
        if wilds >= 2 and self.multiple_wilds:
            return True
        return any(self.connected(card, c) for c in hand if c != JOKER)

    def discard_values(self, hand: list[str], slack: int = 0) -> dict[str, int]:
        """Exact points left after discarding each card that can come within `slack` of the best.

        Discarding an unmatched card of the minimal split leaves exactly its points less; a melded
        card can do better only if it is dearer than the dearest unmatched one, so only those cards
        are solved again.
        """
        total, leftover = self.split(hand)
        out: dict[str, int] = {}
        dearest = max((self.points(c) for c in leftover), default=0)
        for card in leftover:
            out[card] = total - self.points(card)
        best = total - dearest if leftover else None
        for card in sorted(set(hand) - set(leftover)):
            # Lower bound on what discarding a melded card leaves.
            if best is not None and total - self.points(card) > best + slack:
                continue
            value = self.left(without(hand, card))
            out[card] = value
            best = value if best is None else min(best, value)
        return out

    def after_best_discard(self, hand: list[str]) -> int:
        """Points left after the best discard from `hand` (approximately: the dearest unmatched card)."""
        total, leftover = self.split(hand)
        if not leftover:
            # Every card melds: dropping the cheapest melded card may break a meld; a close estimate.
            return 0
        return total - max(self.points(c) for c in leftover)


def unseen_cards(view: dict[str, Any], exclude_taken: bool = True) -> list[str]:
    """The cards this seat cannot see (other hands and the stock), from public information only."""
    table = view["table"]
    counts = Counter(tt.full_deck(table["options"]))
    seen: list[str] = list(view["hand"] or [])
    seen += table.get("discard_pile") or ([view["discard"]["top"]] if view["discard"]["top"] else [])
    for meld in table["melds"]:
        seen += meld["cards"]
    seen += [JOKER] * sum(p.get("dumped_jokers", 0) for p in view["players"])
    if exclude_taken:
        me = view["turn"]["seat"]
        for seat, cards in enumerate(table.get("taken") or []):
            if seat != me:
                seen += cards
    counts.subtract(seen)
    return sorted(counts.elements())


def final_turn(view: dict[str, Any]) -> bool:
    return view["table"]["went_out"] is not None


def discard_body(view: dict[str, Any], card: str, rest_left: int, rng: random.Random) -> Action:
    """The complete discard action for `card`: dump a joker if allowed, declare going out if out."""
    legal: list[Action] = view["legal_actions"]
    candidates = [a for a in legal if a["type"] == "discard" and a.get("card") == card]
    dumps = [a for a in candidates if "onto" in a]
    if dumps:
        # A joker dumped in front of someone is gone for good; on the pile it helps the next player.
        candidates = dumps
    declare = [a for a in candidates if a.get("declare_out")]
    if declare and rest_left == 0:
        return rng.choice(declare)
    plain = [a for a in candidates if not a.get("declare_out")]
    return rng.choice(plain or candidates)


def lay_off_action(view: dict[str, Any], judge: Judge) -> Action:
    """In a redemption round: lay off the card that lowers the points most, else end the turn."""
    legal: list[Action] = view["legal_actions"]
    hand: list[str] = list(view["hand"] or [])
    lay_offs = [a for a in legal if a["type"] == "lay_off"]
    if lay_offs:
        now = judge.left(hand)
        best = min(lay_offs, key=lambda a: (judge.left(without(hand, a["card"])), a["card"], a["meld"]))
        if judge.left(without(hand, best["card"])) < now:
            return best
    return {"type": "end_turn"}


def feeds_next(view: dict[str, Any], judge: Judge, card: str) -> bool:
    """Whether the next player took from the pile a card that `card` would fit with (public)."""
    if judge.is_wild(card):
        return True
    taken = view["table"].get("taken") or []
    n = len(view["players"])
    me = view["turn"]["seat"]
    nxt = (me + 1) % n
    if nxt >= len(taken):
        return False
    return any(not judge.is_wild(c) and judge.connected(card, c) for c in taken[nxt])

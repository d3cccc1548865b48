"""A simple Three Thirteen policy that decides from one seat's view only.

It keeps the hand whose minimal split leaves the fewest points: it takes the top discard when
that lowers them, discards the card whose loss costs least (keeping wild cards and low cards on
ties), dumps jokers when it may, declares going out only when the hand really is out, and lays
off whatever lowers its points in a redemption round. Levels will be built on top of this later;
`level` is unused.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.melds import MeldRules, best_split
from engines.three_thirteen import rules as tt


def _without(hand: list[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


class _Judge:
    """Points left by the minimal split of a hand, under this round's rules (memoised)."""

    def __init__(self, view: dict[str, Any]):
        table = view["table"]
        options = table["options"]
        size = table["cards_dealt"]
        self.rules: MeldRules = tt.meld_rules(options, size)
        self.points: Callable[[str], int] = tt.points_function(options, size)
        self.wild_rank = tt.WILD_RANK[size]
        self.memo: dict[tuple[str, ...], int] = {}

    def left(self, cards: list[str]) -> int:
        key = tuple(sorted(cards))
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = best_split(key, self.rules, self.points).points
        return got

    def is_wild(self, card: str) -> bool:
        return card == JOKER or card[0] == self.wild_rank

    def best_discard(self, hand: list[str], rng: random.Random) -> tuple[str, int]:
        """The card to discard and the points the rest of the hand leaves."""
        scored = []
        for card in sorted(set(hand)):
            # Fewest points left; then keep wild cards; then throw the dearest card.
            scored.append(((self.left(_without(hand, card)), self.is_wild(card), -self.points(card)), card))
        best = min(key for key, _ in scored)
        card = rng.choice([c for key, c in scored if key == best])
        return card, best[0]


def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    legal: list[Action] = view["legal_actions"]
    if not legal:
        raise ValueError("the bot was asked to move when the seat has nothing to do")
    phase = view["turn"]["phase"]
    hand: list[str] = list(view["hand"] or [])
    judge = _Judge(view)
    if phase == "draw":
        top = view["discard"]["top"]
        if {"type": "draw", "pile": "discard"} in legal and top is not None:
            with_top = [*hand, top]
            _, after = judge.best_discard(with_top, rng)
            if after < judge.left(hand) or {"type": "draw", "pile": "stock"} not in legal:
                return {"type": "draw", "pile": "discard"}
        return {"type": "draw", "pile": "stock"}
    if phase == "discard":
        card, after = judge.best_discard(hand, rng)
        candidates = [a for a in legal if a.get("card") == card]
        dumps = [a for a in candidates if "onto" in a]
        if dumps:
            # A joker dumped in front of someone is gone for good; on the pile it helps the next player.
            candidates = dumps
        declare = [a for a in candidates if a.get("declare_out")]
        if declare and after == 0:
            return rng.choice(declare)
        plain = [a for a in candidates if not a.get("declare_out")]
        return rng.choice(plain or candidates or legal)
    lay_offs = [a for a in legal if a["type"] == "lay_off"]
    if lay_offs:
        now = judge.left(hand)
        best = min(lay_offs, key=lambda a: judge.left(_without(hand, a["card"])))
        if judge.left(_without(hand, best["card"])) < now:
            return best
    return {"type": "end_turn"}

"""Zhol bots: decide a draw or a discard from the seat's view only."""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.melds import best_split
from engines.zhol.game import RULES, unmatched

# How often each level plays a random legal move instead of its best one.
MISTAKES = {"easy": 0.3, "medium": 0.1, "hard": 0.03, "pro": 0.0}


def _left_after_best_discard(hand: list[str], forbidden: str | None) -> int:
    """Cards outside groups after the best discard from `hand` (not `forbidden`)."""
    best = None
    for card in set(hand):
        if card == forbidden and hand.count(card) < 2:
            continue
        rest = list(hand)
        rest.remove(card)
        left = best_split(rest, RULES, unmatched).points
        if best is None or left < best:
            best = left
    return best if best is not None else len(hand)


def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the bot was asked to move with no legal action")
    if rng.random() < MISTAKES.get(level, 0.1):
        return dict(rng.choice(legal))
    hand = list(view["hand"])
    if view["turn"]["phase"] == "draw":
        top = view["discard"]["top"]
        can_take = any(a.get("pile") == "discard" for a in legal)
        can_stock = any(a.get("pile") == "stock" for a in legal)
        if can_take and top is not None:
            now = best_split(hand, RULES, unmatched).points
            # take the open card only when it brings the hand closer to a Zhol
            if not can_stock or _left_after_best_discard([*hand, top], top) < now:
                return {"type": "draw", "pile": "discard"}
        return {"type": "draw", "pile": "stock"}
    options = [a["card"] for a in legal]
    best, best_left = options[-1], None
    for card in reversed(options):
        rest = list(hand)
        rest.remove(card)
        left = 2 * best_split(rest, RULES, unmatched).points + (card == JOKER)
        if best_left is None or left < best_left:
            best, best_left = card, left
    return {"type": "discard", "card": best}

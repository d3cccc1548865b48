"""The Zhol `solver` level: the least deadwood by the exact meld solver (engines/solver_level.py).

Deadwood here is the number of cards outside the melds of the hand's best split (a Zhol needs
every card in a meld, so cards, not points, count); the dearest card on ties is the highest rank.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from engines.base import Action
from engines.cards import JOKER, RANKS
from engines.meld_solver import best_split, goes_out
from engines.solver_level import discard_reason, least_deadwood, take_reason
from engines.zhol.rules import RULES


def _one(card: str) -> int:
    return 1


@lru_cache(maxsize=20_000)
def _deadwood(cards: tuple[str, ...]) -> int:
    return best_split(cards, RULES, _one).points


def deadwood(cards: list[str]) -> int:
    """Cards outside the melds of the best split of `cards`."""
    return _deadwood(tuple(sorted(cards)))


def dearness(card: str) -> int:
    # A joker fits anywhere: never the dearest.
    return -1 if card == JOKER else RANKS.index(card[0]) + 1


def _without(cards: list[str], card: str) -> list[str]:
    rest = list(cards)
    rest.remove(card)
    return rest


def best_discard(hand: list[str], options: list[str]) -> tuple[str, int]:
    """A winning discard first; else the least deadwood left, dearest first on ties."""
    for card in sorted(set(options)):
        if goes_out(_without(hand, card), RULES):
            return card, 0
    return least_deadwood(options, lambda c: deadwood(_without(hand, c)), dearness)


def _take_options(hand: list[str], top: str) -> list[str]:
    # The card just taken cannot go back at once, unless a second copy of it is held.
    return [c for c in hand if c != top] + ([top] if top in hand else [])


def solver_action(view: dict[str, Any], rng: random.Random) -> Action:
    action, _ = solver_decision(view)
    return action


def solver_decision(view: dict[str, Any]) -> tuple[Action, str]:
    """The solver's action for the seat whose view this is, and its reason in words."""
    legal = view["legal_actions"]
    hand: list[str] = list(view["hand"])
    if view["turn"]["phase"] == "draw":
        top = view["discard"]["top"]
        can_take = any(a.get("pile") == "discard" for a in legal)
        can_stock = any(a.get("pile") == "stock" for a in legal)
        if can_take and top is not None:
            taken = [*hand, top]
            card, left = best_discard(taken, _take_options(hand, top))
            if not can_stock or left < deadwood(hand):
                kept = _without(taken, card)
                return {"type": "draw", "pile": "discard"}, take_reason(kept, top, RULES, _one)
        return {"type": "draw", "pile": "stock"}, "the open card would not lower the deadwood"
    options = [a["card"] for a in legal if a["type"] == "discard"]
    card, left = best_discard(hand, options)
    if left == 0 and goes_out(_without(hand, card), RULES):
        return {"type": "discard", "card": card}, f"throwing {card} completes the Zhol"
    return {"type": "discard", "card": card}, discard_reason(card, left, "cards", True)


def explain(view: dict[str, Any], action: Action) -> str:
    """A reason in words for `action` (another level's choice) from this seat's view."""
    reason_action, reason = solver_decision(view)
    if reason_action == action:
        return reason
    hand: list[str] = list(view["hand"])
    if action["type"] == "discard":
        card = action["card"]
        rest = _without(hand, card)
        if goes_out(rest, RULES):
            return f"throwing {card} completes the Zhol"
        left = deadwood(rest)
        best = left <= best_discard(hand, [a["card"] for a in view["legal_actions"]])[1]
        return discard_reason(card, left, "cards", best)
    if action.get("pile") == "discard":
        top = view["discard"]["top"]
        taken = [*hand, top]
        card, _ = best_discard(taken, _take_options(hand, top))
        return take_reason(_without(taken, card), top, RULES, _one)
    return "a stock card is worth more on average than the open card"

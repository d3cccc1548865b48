"""The Three Thirteen `solver` level: the least deadwood by the exact meld solver
(engines/solver_level.py). Deadwood is the points the minimal split leaves under the round's
rules (`bots.eval.Judge`); the dearest card on ties is the one worth most points.

Like every level it declares going out (`false_out_penalty`) only when the rest really melds,
dumps a joker it throws when `joker_dump` allows, and in a redemption round lays off the card that
lowers its points most until none does.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.solver_level import discard_reason, least_deadwood, take_reason
from engines.three_thirteen.bots.eval import Judge, discard_body, lay_off_action, without


def best_discard(judge: Judge, hand: list[str]) -> tuple[str, int]:
    """The card whose loss leaves the fewest points (exact), the dearest first on ties."""
    values = judge.discard_values(hand)
    return least_deadwood(values, values.__getitem__, judge.points)


def solver_action(view: dict[str, Any], rng: random.Random) -> Action:
    action, _ = solver_decision(view, rng)
    return action


def solver_decision(view: dict[str, Any], rng: random.Random | None = None) -> tuple[Action, str | None]:
    """The solver's action for the seat whose view this is, and its reason in words."""
    rng = rng or random.Random(0)
    legal: list[Action] = view["legal_actions"]
    hand: list[str] = list(view["hand"] or [])
    judge = Judge(view)
    phase = view["turn"]["phase"]
    if phase == "draw":
        top = view["discard"]["top"]
        can_stock = {"type": "draw", "pile": "stock"} in legal
        if {"type": "draw", "pile": "discard"} in legal and top is not None:
            card, left = best_discard(judge, [*hand, top])
            if not can_stock or left < judge.left(hand):
                kept = without([*hand, top], card)
                return {"type": "draw", "pile": "discard"}, take_reason(kept, top, judge.rules, judge.points)
        return {"type": "draw", "pile": "stock"}, "the top discard would not lower the points left"
    if phase == "discard":
        card, left = best_discard(judge, hand)
        if left == 0:
            return discard_body(view, card, 0, rng), f"throwing {card} goes out: the rest of the hand melds"
        return discard_body(view, card, left, rng), discard_reason(card, left, "points", True)
    action = lay_off_action(view, judge)
    if action["type"] == "lay_off":
        return action, f"laying off {action['card']} lowers the points left"
    return action, "no lay-off lowers the points left"


def explain(view: dict[str, Any], action: Action) -> str | None:
    """A reason in words for `action` (another level's choice) from this seat's view."""
    solver, reason = solver_decision(view)
    if solver == action:
        return reason
    hand: list[str] = list(view["hand"] or [])
    judge = Judge(view)
    if action["type"] == "discard":
        card = action["card"]
        left = judge.left(without(hand, card))
        if left == 0:
            return f"throwing {card} goes out: the rest of the hand melds"
        return discard_reason(card, left, "points", left <= best_discard(judge, hand)[1])
    if action["type"] == "draw" and action["pile"] == "discard":
        top = view["discard"]["top"]
        card, _ = best_discard(judge, [*hand, top])
        return take_reason(without([*hand, top], card), top, judge.rules, judge.points)
    if action["type"] == "draw":
        return "a stock card is worth more on average than the top discard"
    return None

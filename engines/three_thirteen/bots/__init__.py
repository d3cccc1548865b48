"""Three Thirteen bots at every level (random, easy, medium, hard, pro), deciding from one seat's view.

- random: a uniformly random complete legal action.
- easy, medium: keep the hand whose minimal split leaves the fewest points. Draw: take the top
  discard when it lowers the points left after the best discard. Discard: the card whose loss
  leaves the fewest points, then keep wild cards, then throw the dearest card.
- hard: `solver`'s rule (`engines.three_thirteen.bots.solver`: the exact least deadwood) with
  fewer mistakes, so solver, hard without mistakes as in Spades, is the rung above it
  (docs/bots.md, "Three Thirteen bots").
- Each of easy, medium and hard overlooks the better move at its `MISTAKES` rate (35%, 25%, 16% of
  draw and discard decisions): it draws from the stock without looking at the discard, or throws
  a random card that is not wild (easy) or its second choice (medium, hard). Going out is never
  overlooked; on a final turn (someone has gone out) only the points left count.
- solver: `engines.three_thirteen.bots.solver`, the least-deadwood baseline of the ladder (not
  offered to clients).
- sound: `engines.three_thirteen.bots.sound`, the top rung of the ladder (live outs, what the
  next player collects; not offered to clients).
- pro: `engines.three_thirteen.bots.pro` (expected points after the next two draws over sampled
  unseen cards).

Every level dumps a joker it throws when `joker_dump` allows (it counts nothing there), declares
going out (`false_out_penalty`) only when the rest of the hand really melds, and in a redemption
round lays off the card that lowers its points most until none does.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.bots import register, register_hint
from engines.three_thirteen.bots.eval import (
    Judge,
    discard_body,
    lay_off_action,
    without,
)
from engines.three_thirteen.bots.pro import pro_action
from engines.three_thirteen.bots.solver import explain, solver_action
from engines.three_thirteen.bots.sound import sound_action

LEVELS = ("random", "easy", "medium", "hard", "pro")
# Chance per decision of overlooking the better move (draw or discard). Hard decides as solver when
# it does not overlook, so the ladder hard < solver holds: with pro's one-draw look-ahead instead
# it is level with solver at 15% to 30% mistakes (docs/bots.md).
MISTAKES = {"easy": 0.35, "medium": 0.25, "hard": 0.16}
# The pro's budget for a hint (engines/hints.py): tens of milliseconds, inside a request.
HINT: dict[str, Any] = {
    "samples": 12,
    "candidates": 3,
    "depth": 2,
    "exact": True,
    "pairs": 16,
    "time_limit": 0.04,
}


@register("three-thirteen", *LEVELS, "solver", "sound")
def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    legal: list[Action] = view["legal_actions"]
    if not legal:
        raise ValueError("the bot was asked to move when the seat has nothing to do")
    if level == "random":
        return rng.choice(legal)
    if len(legal) == 1:
        return legal[0]
    if level == "solver":
        return solver_action(view, rng)
    if level == "sound":
        return sound_action(view, rng)
    if level == "pro":
        return pro_action(view, rng)
    return heuristic_action(view, level if level in MISTAKES else "medium", rng)


def ranked_discards(judge: Judge, hand: list[str]) -> list[str]:
    """Discard candidates, best first: fewest points left, then keep wild cards, then the dearest."""
    values = judge.discard_values(hand)
    return sorted(values, key=lambda card: (values[card], judge.is_wild(card), -judge.points(card), card))


def heuristic_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    legal: list[Action] = view["legal_actions"]
    phase = view["turn"]["phase"]
    hand: list[str] = list(view["hand"] or [])
    judge = Judge(view)
    mistake = rng.random() < MISTAKES[level]
    if level == "hard" and not mistake and phase != "lay_off":
        return solver_action(view, rng)
    if phase == "draw":
        top = view["discard"]["top"]
        can_stock = {"type": "draw", "pile": "stock"} in legal
        if {"type": "draw", "pile": "discard"} in legal and top is not None:
            if not can_stock:
                return {"type": "draw", "pile": "discard"}
            if not mistake and judge.after_best_discard([*hand, top]) < judge.left(hand):
                return {"type": "draw", "pile": "discard"}
        return {"type": "draw", "pile": "stock"}
    if phase == "discard":
        ranked = ranked_discards(judge, hand)
        best = ranked[0]
        best_left = judge.left(without(hand, best))
        if best_left == 0 or not mistake:
            return discard_body(view, best, best_left, rng)
        if level == "easy":
            pool = sorted({c for c in hand if not judge.is_wild(c)}) or sorted(set(hand))
            card = rng.choice(pool)
        else:
            card = ranked[1] if len(ranked) > 1 else best
        return discard_body(view, card, judge.left(without(hand, card)), rng)
    return lay_off_action(view, judge)


@register_hint("three-thirteen")
def hint(view: dict[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    """The pro within the `HINT` budget, and why (`solver.explain`)."""
    action = pro_action(view, rng, HINT)
    return action, explain(view, action)

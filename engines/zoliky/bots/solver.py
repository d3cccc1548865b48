"""The Žolíky `solver` level: the least deadwood by the exact meld solver (engines/solver_level.py),
under Žolíky's opening rule, with lay-offs and joker swaps.

Deadwood is `hand.analyse`'s: normal cards in no meld of the hand's exact best split and no
lay-off onto the table. Per turn: go out when the hand can (with the closing card, the discard or
its own cards, joker swaps included); take the discard only when it opens the hand or, once open,
lowers the deadwood; open as soon as 42 points with a pure run are there, putting every meld down;
after the opening put new melds down, lay off and swap a table joker when the deadwood is no worse
for it; throw the card whose removal leaves the least deadwood, the dearest first on ties, a joker
only when no normal card is left.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.solver_level import discard_reason
from engines.zoliky.bots.close import find_close
from engines.zoliky.bots.hand import Slot, analyse, slots_of, without
from engines.zoliky.bots.knowledge import Knowledge, read_view
from engines.zoliky.bots.policy import (
    Style,
    _use_of,
    close_step,
    improve_step,
    opening_action,
    take_action,
    take_closing_action,
    useful_take,
)
from engines.zoliky.rules import card_points

# The heuristic's moves with nothing held back: every meld goes down as soon as it may.
SOLVER_STYLE = Style(hold_melds=False, outs=0.0, spread=0.0, safety=0.0, close=0.0)


def solver_action(view: dict[str, Any], rng: random.Random) -> Action:
    action, _ = solver_decision(view)
    return action


def solver_decision(view: dict[str, Any]) -> tuple[Action, str]:
    """The solver's action for the seat whose view this is, and its reason in words."""
    know = read_view(view)
    if know.phase == "draw":
        return draw(know)
    return play(know)


def draw(know: Knowledge) -> tuple[Action, str]:
    slots = slots_of(know.melds)
    types = know.types
    for card, kind in ((know.closing, "take_closing"), (know.top, "take_discard")):
        if card is None or kind not in types:
            continue
        plan = find_close([*know.hand, card], slots, know.opened, must_use=card, swaps=False)
        if plan is not None:
            action = (
                take_closing_action(plan)
                if kind == "take_closing"
                else take_action(plan.melds, plan.lay_offs)
            )
            return action, f"taking {card} lets the hand go out"
    if "take_discard" in types and know.top is not None:
        taken = take_if_better(know, slots)
        if taken is not None:
            return taken
    return {"type": "draw"}, "the discard would not lower the deadwood"


def take_if_better(know: Knowledge, slots: list[Slot]) -> tuple[Action, str] | None:
    """Take the discard when it opens the hand, or once open when using it lowers the deadwood."""
    top = know.top
    assert top is not None
    hand = [*know.hand, top]
    if not know.opened:
        # The heuristic's take before the opening is exactly this: only to open, all melds down.
        opening = useful_take(know, slots, SOLVER_STYLE)
        return (opening, f"taking {top} opens the hand") if opening is not None else None
    now, after = analyse(know.hand, slots), analyse(hand, slots)
    use = _use_of(top, after, slots)
    # Taking, a deadwood card goes at the end of the turn; the stock card is not counted on.
    if use is None or max(after.deadwood - 1, 0) >= now.deadwood:
        return None
    new_melds, lay_offs = use
    if len(new_melds and new_melds[0] or []) + len(lay_offs) >= len(hand):
        return None
    where = f"melds it in {'-'.join(new_melds[0])}" if new_melds else f"lays it off on {lay_offs[-1][0]}"
    return take_action(new_melds, lay_offs), f"taking {top} lowers the deadwood: {where}"


def play(know: Knowledge) -> tuple[Action, str]:
    slots = slots_of(know.melds)
    if know.phase == "play" and know.may_meld:
        plan = find_close(know.hand, slots, know.opened, swaps="swap_joker" in know.types)
        if plan is not None:
            return close_step(plan, know), "the hand can go out this turn"
        if not know.opened and "meld" in know.types:
            action = opening_action(know.hand, slots, SOLVER_STYLE)
            if action is not None:
                return action, "the hand opens: 42 points with a pure run"
        if know.opened:
            action = improve_step(know, slots, SOLVER_STYLE)
            if action is not None:
                return action, _improve_words(action)
    card, left, _ = best_discard(know, slots)
    return {"type": "discard", "card": card}, discard_reason(card, left, "cards", True)


def _improve_words(action: Action) -> str:
    if action["type"] == "swap_joker":
        return f"{action['card']} frees the joker of {action['meld']} without adding deadwood"
    if action["type"] == "lay_off":
        return f"laying off {'-'.join(action['cards'])} on {action['meld']} lowers the deadwood"
    return "putting the melds down lowers the deadwood"


def best_discard(know: Knowledge, slots: list[Slot]) -> tuple[str, int, dict[str, int]]:
    """The least deadwood left, dearest first on ties; a joker only when no normal card is left."""
    allowed = sorted({a["card"] for a in know.legal if a["type"] == "discard"})
    normals = [c for c in allowed if c != JOKER] or allowed
    left = {c: analyse(without(know.hand, [c]), slots).deadwood for c in normals}
    card = min(normals, key=lambda c: (left[c], -card_points(c) if c != JOKER else 0, c))
    return card, left[card], left


def explain(view: dict[str, Any], action: Action) -> str | None:
    """A reason in words for `action` (another level's choice) from this seat's view."""
    solver, reason = solver_decision(view)
    if solver == action:
        return reason
    know = read_view(view)
    if action["type"] == "discard" and know.phase != "draw":
        _, least, left = best_discard(know, slots_of(know.melds))
        card = action["card"]
        if card in left and left[card] > least:
            return (
                f"throwing {card} leaves {left[card]} cards of deadwood and keeps better chances to improve"
            )
        if card in left:
            return f"throwing {card} leaves the least deadwood ({left[card]} cards)"
    if action["type"] in ("take_discard", "take_closing"):
        return f"taking {know.top if action['type'] == 'take_discard' else know.closing} puts it to use"
    if action["type"] == "meld":
        return "putting these melds down"
    if action["type"] == "draw":
        return "a stock card is worth more on average than the discard"
    return None

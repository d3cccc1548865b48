"""Hints for people: the pro bot's action for a seat, from that seat's view only, with a reason.

`hint(game_id, view)` runs each game's pro decision with a lighter budget (`HINT_BUDGET`) so that
a hint costs tens of milliseconds, not the pro's up to half a second: the web process computes it
inside the request (docs/api.md "Hints", docs/bots.md "Hints" for the measured cost). The random
generator is seeded from the view itself, so one view always gets one hint, and a hint can depend
on nothing but what the seat sees. The reason in words comes from `explain` in the game's
bots/solver.py (the meld solver in the rummy games), or None where there is none to give.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

from engines.base import Action

# Per game, the pro's budget for a hint: a time limit where the pro has one, fewer samples and
# candidates everywhere (Zhol's pro has no time limit: its sampling chain is shortened instead, and
# the large game looks one step ahead only).
HINT_BUDGET: dict[str, dict[str, Any]] = {
    "spades": {"samples": 16, "time_limit": 0.04},
    "three-thirteen": {
        "samples": 12,
        "candidates": 3,
        "depth": 2,
        "exact": True,
        "pairs": 16,
        "time_limit": 0.04,
    },
    "zoliky": {"samples": 8, "candidates": 3, "margin": 1.5, "time_limit": 0.04},
    "zhol-small": {"chain": 60, "burn": 12, "thin": 6, "two_step_cards": 6, "keeps": 2},
    # In the large game even one card looked at two steps ahead costs tens of milliseconds.
    "zhol-large": {"chain": 24, "burn": 8, "thin": 4, "two_step_cards": 0, "keeps": 1},
}


def view_rng(view: Mapping[str, Any]) -> random.Random:
    """A generator seeded from the seat's view: the same view, the same hint."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), default=str)
    return random.Random(hashlib.sha256(text.encode()).hexdigest())


def hint(game_id: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """{"action", "reason"} for the seat whose view this is; its turn, with a legal action."""
    legal = [a for a in view["legal_actions"] if a.get("type") != "resign"]
    if not legal:
        return {"action": None, "reason": "there is nothing to do now"}
    if len(legal) == 1 and _complete(legal[0]):
        return {"action": dict(legal[0]), "reason": "the only legal move"}
    rng = view_rng(view)
    action, reason = _pro_with_reason(game_id, {**view, "legal_actions": legal}, rng)
    return {"action": action, "reason": reason}


def _complete(action: Action) -> bool:
    # Žolíky lists meld-type actions as templates with fields to fill: not a hint by themselves.
    return not any(value in ("", None, []) for value in action.values())


def _pro_with_reason(game_id: str, view: dict[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    if game_id == "spades":
        from engines.spades.bots import search
        from engines.spades.bots import solver as spades_words
        from engines.spades.bots.seen import Seen

        budget = HINT_BUDGET["spades"]
        action = search.decide(Seen(view), rng, budget["samples"], budget["time_limit"])
        return action, spades_words.explain(view, action)
    if game_id == "three-thirteen":
        from engines.three_thirteen.bots import solver as tt_words
        from engines.three_thirteen.bots.pro import pro_action

        action = pro_action(view, rng, HINT_BUDGET["three-thirteen"])
        return action, tt_words.explain(view, action)
    if game_id == "zoliky":
        from engines.zoliky.bots import solver as zoliky_words
        from engines.zoliky.bots.knowledge import read_view
        from engines.zoliky.bots.search import search_action

        action = search_action(read_view(view), view, rng, HINT_BUDGET["zoliky"])
        return action, zoliky_words.explain(view, action)
    if game_id == "zhol":
        from engines.zhol.bots import pro as bot_pro
        from engines.zhol.bots import solver as zhol_words
        from engines.zhol.bots.knowledge import Knowledge

        know = Knowledge(view)
        budget = HINT_BUDGET[f"zhol-{know.variant}"]
        features = {**bot_pro.FEATURES, "two_step": budget["two_step_cards"] > 0}
        action = bot_pro.choose(know, rng, features, budget)
        return action, zhol_words.explain(view, action)
    raise ValueError(f"no hints for game {game_id!r}")

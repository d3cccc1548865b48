"""Hints for people: the pro bot's action for a seat, from that seat's view only, with a reason.

`hint(game_id, view)` answers a forced move itself and asks the game's registered hint
(`engines.bots.register_hint`) for the rest: the pro decision with a lighter budget (each game's
bots module, `HINT`) so that a hint costs tens of milliseconds, not the pro's up to half a
second, since the web process computes it inside the request (docs/api.md "Hints", docs/bots.md
"Hints" for the measured cost), and its reason in words, or None where there is none to give.
The random generator is seeded from the view itself, so one view always gets one hint, and a
hint can depend on nothing but what the seat sees.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

from engines import bots
from engines.legal import is_template
from engines.registry import GAMES


def view_rng(view: Mapping[str, Any]) -> random.Random:
    """A generator seeded from the seat's view: the same view, the same hint."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), default=str)
    return random.Random(hashlib.sha256(text.encode()).hexdigest())


def hint(game_id: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """{"action", "reason"} for the seat whose view this is; its turn, with a legal action."""
    legal = [a for a in view["legal_actions"] if a.get("type") != "resign"]
    if not legal:
        return {"action": None, "reason": "there is nothing to do now"}
    # A lone template (Žolíky's meld to fill in) is no hint by itself: the game's hint fills it.
    if len(legal) == 1 and not is_template(legal[0]):
        return {"action": dict(legal[0]), "reason": "the only legal move"}
    game = GAMES.get(game_id)
    if game is None:
        raise ValueError(f"no hints for game {game_id!r}")
    action, reason = bots.hint_decision(game, {**view, "legal_actions": legal}, view_rng(view))
    return {"action": action, "reason": reason}

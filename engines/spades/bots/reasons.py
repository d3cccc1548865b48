"""Spades reasons in words for a bid or a card, from the seat's view alone, for hints
(`GET /v1/matches/{id}/hint`, engines/hints.py).

The Spades `solver` rung of the ladder is the heuristic `hard` with no mistakes
(`engines.spades.bots.LEVELS["solver"]`); no search is involved here.
"""

from __future__ import annotations

from typing import Any

from engines.base import Action
from engines.spades.bots.seen import estimate_tricks
from engines.spades.rules import POWER, RANK_INDEX, SUIT_NAMES


def _beats(card: str, best: str, led: str) -> bool:
    """Whether `card` beats `best` in a trick led in `led` (the rules' trick strength, `POWER`)."""
    power = POWER[led]
    return power[card] > power[best]


def _bid_words(view: dict[str, Any], tricks: int) -> str:
    if tricks == 0:
        return "bids Nil: the hand has no card likely to take a trick"
    estimate = estimate_tricks(list(view["hand"]))
    return f"bids {tricks}: the hand counts about {estimate:.1f} likely tricks"


def explain(view: dict[str, Any], action: Action) -> str | None:
    """Why this bid or card, in words."""
    if action["type"] == "bid":
        return _bid_words(view, action["tricks"])
    if action["type"] != "play":
        return None
    card = action["card"]
    hand: list[str] = list(view["hand"])
    trick = view["table"]["trick"]
    if not trick:
        same = sorted((c for c in hand if c[1] == card[1]), key=RANK_INDEX.__getitem__)
        if len(same) == 1 and card[1] != "S":
            return f"leads the singleton {card}, to ruff that suit later"
        return f"leads {card}"
    led = trick[0]["card"][1]
    best = trick[0]["card"]
    for entry in trick[1:]:
        if _beats(entry["card"], best, led):
            best = entry["card"]
    winners = [c for c in hand if (c[1] == led or c[1] == "S") and _beats(c, best, led)]
    if card[1] == led:
        suit = sorted((c for c in hand if c[1] == led), key=RANK_INDEX.__getitem__)
        if _beats(card, best, led):
            cheapest = min((c for c in winners if c[1] == led), key=RANK_INDEX.__getitem__)
            return (
                f"wins the trick with the cheapest winner, {card}"
                if card == cheapest
                else f"wins with {card}"
            )
        if card == suit[0]:
            return "follows suit with the lowest card"
        return f"follows suit with {card}, under the {best} winning the trick"
    if card[1] == "S":
        return f"ruffs with {card}: no {SUIT_NAMES[led]} left" if _beats(card, best, led) else f"plays {card}"
    return f"discards {card}: no {SUIT_NAMES[led]} left"

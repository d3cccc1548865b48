"""A simple, sensible Spades policy that decides from one seat's view only.

Bidding counts likely winners (side-suit aces and guarded kings, high and long
spades, short suits to ruff); play follows with the cheapest winning card, else
throws the cheapest card, lets a winning partner have the trick, and plays a
Nil defensively. Levels will be built on top of this later; `level` is unused.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.errors import IllegalAction
from engines.spades.game import NUM_SEATS, POWER, RANK_INDEX, TRICKS_PER_HAND

ACE, KING, QUEEN, JACK = 12, 11, 10, 9


def estimate_tricks(hand: list[str]) -> float:
    """A rough count of the tricks `hand` should take with spades as trumps."""
    by_suit: dict[str, list[int]] = {s: [] for s in "SHDC"}
    for card in hand:
        by_suit[card[1]].append(RANK_INDEX[card])
    spades = by_suit["S"]
    estimate = 0.0
    for suit in "HDC":
        ranks = by_suit[suit]
        length = len(ranks)
        if ACE in ranks:
            # A long side suit gets ruffed before its ace cashes.
            estimate += 1.0 if length <= 5 else 0.6
        if KING in ranks and length >= 2:
            estimate += 0.7 if length <= 4 else 0.4
        if QUEEN in ranks and 3 <= length <= 4:
            estimate += 0.3
        if length <= 1 and len(spades) >= 3:
            estimate += 0.5 * (2 - length)
    for rank in spades:
        if rank == ACE or (rank == KING and len(spades) >= 2) or (rank == QUEEN and len(spades) >= 3):
            estimate += 1.0
    # Spades beyond the third are winners once the others are drawn.
    estimate += max(0, len(spades) - 3) * 0.8
    return estimate


def choose_bid(hand: list[str], partner_bid: int | None) -> int:
    estimate = estimate_tricks(hand)
    spades = [RANK_INDEX[c] for c in hand if c[1] == "S"]
    high = [c for c in hand if RANK_INDEX[c] >= KING]
    if estimate < 1.0 and not high and len(spades) <= 3 and all(r < JACK for r in spades):
        return 0
    bid = max(1, round(estimate))
    if partner_bid:
        # Bidding past 13 together is a contract that cannot be made.
        bid = max(1, min(bid, TRICKS_PER_HAND - partner_bid))
    return min(bid, TRICKS_PER_HAND)


def _cheapest(cards: list[str]) -> str:
    """The card least worth keeping: the lowest, and a spade only when nothing else is left."""
    return min(cards, key=lambda c: (c[1] == "S", RANK_INDEX[c]))


def choose_play(view: dict[str, Any], cards: list[str]) -> str:
    seat = view["turn"]["seat"]
    partner = (seat + 2) % NUM_SEATS
    bids = view["table"]["bids"]
    trick = view["table"]["trick"]
    nil = bids[seat] == 0
    if not trick:
        if nil:
            return min(cards, key=RANK_INDEX.__getitem__)
        aces = [c for c in cards if RANK_INDEX[c] == ACE and c[1] != "S"]
        return aces[0] if aces else _cheapest(cards)
    power = POWER[trick[0]["card"][1]]
    best = max(trick, key=lambda entry: power[entry["card"]])
    best_power = power[best["card"]]
    winning = [c for c in cards if power[c] > best_power]
    losing = [c for c in cards if power[c] <= best_power]
    if nil:
        if losing:
            return max(losing, key=RANK_INDEX.__getitem__)
        return max(winning, key=power.__getitem__)
    # A partner who bid Nil must be rescued, not left holding the trick.
    if best["seat"] == partner and bids[partner] != 0:
        return _cheapest(losing or cards)
    if winning:
        return min(winning, key=power.__getitem__)
    return _cheapest(cards)


def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    legal = view.get("legal_actions") or []
    if not legal:
        raise IllegalAction("it is not this seat's turn")
    if legal[0]["type"] == "bid":
        seat = view["turn"]["seat"]
        tricks = choose_bid(view["hand"], view["table"]["bids"][(seat + 2) % NUM_SEATS])
        allowed = {a["tricks"] for a in legal}
        return {"type": "bid", "tricks": tricks if tricks in allowed else rng.choice(sorted(allowed))}
    cards = [a["card"] for a in legal if a["type"] == "play"]
    return {"type": "play", "card": choose_play(view, cards)}

"""The Three Thirteen `sound` level: the top rung of the ladder, a sound player from the table alone.

It plays as a careful person would, from its seat's view only, with no deliberate mistakes
(docs/bots.md, "The sound yardstick"):

- Outs over live cards: each discard within reach of the fewest points now is judged by the
  points expected after the next draw, averaged over every live card (not in its hand, on the
  pile, in a meld, dumped, or taken by another player and still held), and after two draws
  (sampled pairs of live cards), each followed by its best discard; going out counts 0.
- Not feeding the next player: a card that joins what the next player took from the pile costs
  more than its points (twice as much when it joins two of those cards, so it may complete a
  meld; a wild card most of all), and one of the rank of a card the next player let pass or threw costs less.
- Going out: the engine ends the round when a discard leaves the hand melded, so a discard that
  goes out is taken at once, and on the final turn (someone went out) only the points left count.
  The open card is taken when the points left with it beat the average live draw.

It shares the pro's arithmetic (`pro.next_draw_points`, `pro.two_draws_points`) with a larger
budget and the danger read above; budgets are counted in cards and pairs, never in time.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engines.base import Action
from engines.three_thirteen.bots import pro
from engines.three_thirteen.bots.eval import (
    Judge,
    discard_body,
    final_turn,
    lay_off_action,
    unseen_cards,
    without,
)

SOUND: dict[str, Any] = {"candidates": 6, "pairs": 96, "slack": 12}
NOW_WEIGHT = 0.25
WILD = 8.0  # a wild card on the pile: a sure gift
JOINS = 3.0  # per card of the next player's pile takings it joins (at most two)
DECLINED = 0.5  # the share of the danger left for a card like one it let pass


def _declined(view: dict[str, Any]) -> list[str]:
    """The last cards left on the pile: every one of them the next player let pass or threw."""
    return list((view["table"].get("discard_pile") or [])[-6:])


def danger(view: dict[str, Any], judge: Judge, card: str, declined: list[str]) -> float:
    """What throwing `card` on the pile may give the next player, in points (none when dumped)."""
    if any(a.get("card") == card and "onto" in a for a in view["legal_actions"]):
        return 0.0
    if judge.is_wild(card):
        return WILD
    taken = view["table"].get("taken") or []
    nxt = (view["turn"]["seat"] + 1) % len(view["players"])
    collected = taken[nxt] if nxt < len(taken) else []
    joins = sum(1 for c in collected if not judge.is_wild(c) and judge.connected(card, c))
    cost = JOINS * min(joins, 2)
    if cost and any(c[0] == card[0] for c in declined):
        cost *= DECLINED
    return cost


def discard_action(view: dict[str, Any], judge: Judge, hand: list[str], rng: random.Random) -> Action:
    card, left = discard_choice(view, judge, hand, rng)
    return discard_body(view, card, left, rng)


def discard_choice(
    view: dict[str, Any], judge: Judge, hand: list[str], rng: random.Random
) -> tuple[str, int]:
    """The card the sound player throws from `hand` and the points it leaves."""
    values = judge.discard_values(hand, slack=0 if final_turn(view) else SOUND["slack"])
    ranked = sorted(values.items(), key=lambda kv: (kv[1], judge.is_wild(kv[0]), -judge.points(kv[0]), kv[0]))
    best, best_left = ranked[0]
    unseen = unseen_cards(view)
    if best_left == 0 or final_turn(view) or len(unseen) < 2:
        return best, best_left
    kinds = sorted(Counter(unseen).items())
    pairs = [(a, b) for a, b in (rng.sample(unseen, 2) for _ in range(SOUND["pairs"]))]
    declined = _declined(view)
    scored: list[tuple[float, int, str, int]] = []
    for card, left in ranked[: 1 + SOUND["candidates"]]:
        rest = without(hand, card)
        future = sum(k * pro.next_draw_points(judge, rest, c) for c, k in kinds) / len(unseen)
        future = 0.5 * future + sum(pro.two_draws_points(judge, rest, a, b) for a, b in pairs) / len(pairs)
        cost = future + NOW_WEIGHT * left + danger(view, judge, card, declined)
        scored.append((cost, -judge.points(card), card, left))
    scored.sort()
    _, _, card, left = scored[0]
    return card, left


def sound_action(view: dict[str, Any], rng: random.Random) -> Action:
    """The sound player's action for the seat whose view this is."""
    phase = view["turn"]["phase"]
    hand: list[str] = list(view["hand"] or [])
    judge = Judge(view)
    if phase == "lay_off":
        return lay_off_action(view, judge)
    if phase == "draw":
        # every live card weighed by its copies, not a sample
        # the top card is not taken to be thrown straight back (`pro.draw_action`)
        return pro.draw_action(
            view, judge, hand, unseen_cards(view), lambda cards: discard_choice(view, judge, cards, rng)[0]
        )
    return discard_action(view, judge, hand, rng)

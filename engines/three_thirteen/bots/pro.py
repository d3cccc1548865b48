"""The pro Three Thirteen bot: discards judged by the expected points after the next draw.

It samples stock cards from the cards it cannot see (the full deck less its hand, the discard pile,
the table melds, dumped jokers and the cards other players were seen taking from the pile and
still hold) and plays with no deliberate mistakes:

- Draw: take the top discard when the points left after the best discard with it are below the
  average over the sampled stock cards (a wild card in the pile is always worth it), and only
  when the discard below would then keep it: a card taken to be thrown back is a pass.
- Discard: go out when it can. Otherwise, for the few cards whose loss leaves the fewest points
  now, estimate the points left after the next draw and its best discard (`exact`: averaged over
  every unseen card, weighted by its unseen copies; else over the sampled stock cards), and (depth
  2) after two draws (`pairs` sampled pairs of distinct unseen cards, else each sampled card paired
  with the next), each followed by the greedy discard (0 once out); the score is half the first
  plus the second, a quarter of the points left now, and a penalty for throwing a wild card (not
  when dumped) or a card that fits what the next player took from the pile. The lowest score wins.
- Final turn (someone has gone out): only the points left count.
- Redemption lay-offs as the other levels (the card that lowers the points most).

The budget (`PRO`) is bounded by samples and candidates, work and not time, so that how strong the
pro plays never depends on its machine's load (a hint's budget adds a time limit: it is computed
inside a request); all randomness comes from `rng`.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from engines.base import Action
from engines.three_thirteen.bots.eval import (
    Judge,
    discard_body,
    feeds_next,
    final_turn,
    lay_off_action,
    unseen_cards,
    without,
)

# samples: stock cards sampled per decision; candidates: discards searched beyond the best now;
# time_limit: seconds after which no further candidate is searched (None: samples only; the pro's
# was 0.4 s, which a loaded worker reached and then searched fewer candidates).
# depth: 2 also looks at a second draw. exact: the next draw averaged over every unseen card (else
# over the samples); pairs: two-draw sequences sampled for depth 2 (else each sampled card paired
# with the next one).
PRO: dict[str, Any] = {
    "samples": 24,
    "candidates": 5,
    "depth": 2,
    "exact": True,
    "pairs": 48,
    "time_limit": None,
}
NOW_WEIGHT = 0.25
WILD_GIFT = 6.0  # a wild card on the pile is a gift to the next player
FEED_GIFT = 2.0  # so is a card that fits what they took from the pile


def next_draw_points(judge: Judge, rest: list[str], card: str) -> int:
    """Points left (about) after drawing `card` to `rest` and discarding the best card."""
    if judge.can_help(card, rest):
        return judge.after_best_discard([*rest, card])
    total, leftover = judge.split(rest)
    # A card that melds with nothing only replaces the dearest unmatched card if it is cheaper.
    dearest = max((judge.points(c) for c in leftover), default=0)
    return total - max(0, dearest - judge.points(card))


def greedy_keep(judge: Judge, cards: list[str]) -> list[str] | None:
    """`cards` less its dearest unmatched card (None when every card melds: the hand is out)."""
    _, leftover = judge.split(cards)
    if not leftover:
        return None
    return without(cards, max(leftover, key=lambda c: (judge.points(c), c)))


def two_draws_points(judge: Judge, rest: list[str], first: str, second: str) -> float:
    """Points left after two draws, each followed by the greedy discard (0 once the hand is out)."""
    if not judge.can_help(first, rest):
        kept: list[str] | None = (
            rest
            if judge.points(first) >= max((judge.points(c) for c in judge.split(rest)[1]), default=0)
            else greedy_keep(judge, [*rest, first])
        )
    else:
        kept = greedy_keep(judge, [*rest, first])
    if kept is None:
        return 0.0
    return float(next_draw_points(judge, kept, second))


def draw_action(
    view: dict[str, Any],
    judge: Judge,
    hand: list[str],
    sample: list[str],
    throws: Callable[[list[str]], str] | None = None,
) -> Action:
    """Take the top discard when the points left with it beat the mean over the sampled stock
    cards (a wild card always), unless `throws` (the card this bot's discard would then throw
    from the hand with the top card) says it would go straight back onto the pile.

    Taking the top card to throw it back is a pass, which the rules allow (docs/rules/
    three-thirteen.md, "Turn"): two bots passing so, each judging the card worth taking and then
    its own hand worth keeping, would pass it between them for ever and the round never end."""
    legal: list[Action] = view["legal_actions"]
    top = view["discard"]["top"]
    stock_draw: Action = {"type": "draw", "pile": "stock"}
    if {"type": "draw", "pile": "discard"} not in legal or top is None:
        return stock_draw
    if {"type": "draw", "pile": "stock"} not in legal:
        return {"type": "draw", "pile": "discard"}
    if not judge.is_wild(top):
        with_top = judge.after_best_discard([*hand, top])
        if sample:
            stock = sum(next_draw_points(judge, hand, c) for c in sample) / len(sample)
        else:
            stock = judge.left(hand)
        if with_top >= stock:
            return stock_draw
    if throws is not None and throws([*hand, top]) == top:
        return stock_draw
    return {"type": "draw", "pile": "discard"}


def draw_pairs(
    unseen: list[str], sample: list[str], budget: dict[str, Any], rng: random.Random
) -> list[tuple[str, str]]:
    """The two-draw sequences a depth-2 search averages over (none at depth 1)."""
    if budget.get("depth", 1) < 2 or len(sample) < 2:
        return []
    if budget.get("pairs") and len(unseen) >= 2:
        # Two draws in a row: `pairs` independent draws of two distinct unseen cards.
        return [(a, b) for a, b in (rng.sample(unseen, 2) for _ in range(budget["pairs"]))]
    # Pair each sampled card with the next one: its draw after this one.
    return [(sample[i], sample[(i + 1) % len(sample)]) for i in range(len(sample))]


def gift(view: dict[str, Any], judge: Judge, card: str) -> float:
    """The penalty for what throwing `card` on the pile gives the next player (none when dumped)."""
    if any(a.get("card") == card and "onto" in a for a in view["legal_actions"]):
        return 0.0
    if judge.is_wild(card):
        return WILD_GIFT
    return FEED_GIFT if feeds_next(view, judge, card) else 0.0


def pro_action(view: dict[str, Any], rng: random.Random, budget: dict[str, Any] | None = None) -> Action:
    """The pro decision; `budget` (default `PRO`) bounds the search (hard uses a small one)."""
    budget = PRO if budget is None else budget
    phase = view["turn"]["phase"]
    hand: list[str] = list(view["hand"] or [])
    judge = Judge(view)
    if phase == "lay_off":
        return lay_off_action(view, judge)
    unseen = unseen_cards(view)
    if phase == "draw":
        sample = rng.sample(unseen, min(budget["samples"], len(unseen))) if unseen else []
        # the discard it would make with the top card: the top itself, and it draws instead
        return draw_action(
            view, judge, hand, sample, lambda held: discard_choice(view, judge, held, unseen, rng, budget)[0]
        )
    card, left = discard_choice(view, judge, hand, unseen, rng, budget)
    return discard_body(view, card, left, rng)


def discard_choice(
    view: dict[str, Any],
    judge: Judge,
    hand: list[str],
    unseen: list[str],
    rng: random.Random,
    budget: dict[str, Any],
) -> tuple[str, int]:
    """The card the pro throws from `hand` and the points it leaves (see the module)."""
    start = time.perf_counter()
    limit = budget["time_limit"]
    sample = rng.sample(unseen, min(budget["samples"], len(unseen))) if unseen else []
    values = judge.discard_values(hand, slack=0 if final_turn(view) else 12)
    ranked = sorted(values.items(), key=lambda kv: (kv[1], judge.is_wild(kv[0]), -judge.points(kv[0]), kv[0]))
    best, best_left = ranked[0]
    if best_left == 0 or final_turn(view) or not sample:
        return best, best_left
    scored: list[tuple[float, int, str, int]] = []
    # exact: the next draw averaged over every unseen card (weighted by copies), not the sample.
    kinds = sorted(Counter(unseen).items()) if budget.get("exact") else []
    pairs = draw_pairs(unseen, sample, budget, rng)
    for card, left in ranked[: 1 + budget["candidates"]]:
        if limit is not None and scored and time.perf_counter() - start > limit:
            break
        rest = without(hand, card)
        if kinds:
            future = sum(k * next_draw_points(judge, rest, c) for c, k in kinds) / len(unseen)
        else:
            future = sum(next_draw_points(judge, rest, c) for c in sample) / len(sample)
        if pairs:
            future = 0.5 * future + sum(two_draws_points(judge, rest, a, b) for a, b in pairs) / len(pairs)
        scored.append((future + NOW_WEIGHT * left + gift(view, judge, card), -judge.points(card), card, left))
    scored.sort()
    _, _, card, left = scored[0]
    return card, left

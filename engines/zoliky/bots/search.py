"""The pro Žolíky bot: a search over the cards its seat cannot see.

The heuristic policy (`policy`) proposes the candidates: its best-scored discards, or the
stock against the discard it would take. The pro then looks one draw further than the heuristic:

- **Its own next draw**, exactly: for every card it cannot see (weighted by copies unseen) it
  plays its best answer (go out if it can, else the discard that leaves the best-scored hand),
  and averages. The heuristic only estimates this from the shapes in the hand. A hand that goes
  out with the closing card counts as going out next turn (`PRO_STYLE.closing`).
- **No opening before going out**: where the heuristic would open with melds and keep playing,
  the pro discards instead and waits to put everything down in the turn it goes out.
- **The opponent's use of the discard**, by sampling: opponent hands are dealt from the unseen
  cards and shaped by the opponent's play (`infer.sample_opponent`); every sensible discard is
  charged for the share of them that could take it and go out (`going_out_risk`), and the
  candidates for what else the opponent would gain (to open, or to shrink their hand).

Its search is bounded by `PRO` in work (samples, candidates: no time limit, so its strength does
not depend on the load; a hint adds one); when the heuristic sees a single sensible choice the pro
takes it without searching.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.zoliky.bots.close import find_close
from engines.zoliky.bots.hand import (
    Analysis,
    Slot,
    analyse,
    gain_map,
    hand_meld_takes,
    opening_ok,
    slots_of,
    table_takes,
    without,
)
from engines.zoliky.bots.infer import sample_opponent
from engines.zoliky.bots.knowledge import Knowledge
from engines.zoliky.bots.policy import (
    HARD,
    Style,
    choose_discard,
    close_chance,
    decide,
    discard_scores,
    hand_score,
    without_card,
)
from engines.zoliky.rules import FIRST_MELDING_TURN, card_points

PRO_SAMPLES = 16  # sampled opponent hands per decision
PRO_CANDIDATES = 4  # discards looked at beyond the heuristic's score
PRO_MARGIN = 1.5  # … those scored within this much of the best
# The pro budget; change the entries (tests and benchmarks do) to trade strength for time.
PRO: dict[str, Any] = {
    "samples": PRO_SAMPLES,
    "candidates": PRO_CANDIDATES,
    "margin": PRO_MARGIN,
    # None: every candidate is examined however loaded the worker (at 0.5 s, as it was, a
    # loaded worker left candidates unexamined and played weaker). Hints set one.
    "time_limit": None,
}
PRO_STYLE: Style = replace(HARD, closing=True)
# Going out is worth this many deadwood cards in the scores: it wins the round.
GOING_OUT = 8.0


def search_action(
    know: Knowledge, view: dict[str, Any], rng: random.Random, budget: dict[str, Any] | None = None
) -> Action:
    """The pro's decision: the heuristic's, unless the search prefers another candidate.

    `budget` (default `PRO`) is lighter for hints (engines/hints.py)."""
    base = decide(know, PRO_STYLE)
    if know.phase == "draw":
        if base["type"] == "take_discard" and not _take_closes(know, base):
            return _draw_or_take(know, base)
        return base
    if _opens_without_closing(know, base):
        # Going out in one go: melds put down early give an opened opponent cards to lay off
        # and jokers to swap, and the pro can still lay off on the opponent's melds as it closes.
        base = {"type": "discard", "card": choose_discard(know, slots_of(know.melds), PRO_STYLE)}
    if base["type"] == "discard" and not all(c == JOKER for c in without(know.hand, [base["card"]])):
        return _search_discard(know, base, rng, PRO if budget is None else budget)
    return base


def _opens_without_closing(know: Knowledge, action: Action) -> bool:
    """Whether `action` is an opening meld that does not go out this turn."""
    if action["type"] != "meld" or know.opened:
        return False
    return find_close(know.hand, slots_of(know.melds), know.opened) is None


def _take_closes(know: Knowledge, take: Action) -> bool:
    used = [c for m in take["melds"] for c in m] + [c for lo in take["lay_offs"] for c in lo["cards"]]
    rest = without([*know.hand, str(know.top)], used)
    return sum(1 for c in rest if c != JOKER) <= 1


# --- the discard -------------------------------------------------------------------------------------


def _search_discard(know: Knowledge, base: Action, rng: random.Random, budget: dict[str, Any]) -> Action:
    slots = slots_of(know.melds)
    scored = discard_scores(know, slots, PRO_STYLE)
    opponents = _sample_opponents(know, slots, rng, budget["samples"])
    # A discard that lets the opponent go out loses the round: every sensible discard is
    # checked for it, not only the heuristic's best.
    risk = going_out_risk(know, [c for c, _ in scored], opponents, slots)
    scored = sorted(
        ((c, score + PRO_STYLE.safety * GOING_OUT * risk[c]) for c, score in scored),
        key=lambda item: (item[1], item[0]),
    )
    best = scored[0][1]
    cards = [c for c, score in scored if score <= best + budget["margin"]][: budget["candidates"]]
    if len(cards) < 2:
        return {"type": "discard", "card": cards[0]}
    deadline = time.perf_counter() + budget["time_limit"] if budget["time_limit"] else None
    values: list[tuple[float, int]] = []
    for rank, card in enumerate(cards):
        if deadline is not None and values and time.perf_counter() > deadline:
            break
        rest = without(know.hand, [card])
        value = _next_draw_value(know, rest, slots) + _opponent_use(know, card, opponents, slots)
        # Before the opening a high card is worth keeping for the 42; afterwards it is a card.
        value += (-1 if not know.opened else 1) * card_points(card) / 1000
        values.append((value, rank))
    return {"type": "discard", "card": cards[min(values)[1]]}


def _next_draw_value(know: Knowledge, hand: list[str], slots: list[Slot]) -> float:
    """The expected score of this hand after its next stock card and the best answer to it."""
    total = know.unseen_total
    found = analyse(hand, slots)
    if total <= 0:
        return hand_score(know, hand, found, slots, PRO_STYLE)
    gains = gain_map(found, hand_meld_takes(found.melds), table_takes(slots))
    may_close = know.turn_number + 2 >= FIRST_MELDING_TURN
    unchanged: float | None = None
    value = 0.0
    for card, n in know.unseen.items():
        if card != JOKER and card not in gains:
            # A card that fits nowhere goes straight back: the hand stays as it is.
            if unchanged is None:
                unchanged = hand_score(know, hand, found, slots, PRO_STYLE, cheap_opening=True)
            value += n * unchanged
            continue
        drawn = [*hand, card]
        if may_close and find_close(drawn, slots, know.opened) is not None:
            value -= n * GOING_OUT
            continue
        value += n * _best_answer(know, drawn, slots)
    return value / total


def _best_answer(know: Knowledge, hand: list[str], slots: list[Slot]) -> float:
    """The best score after discarding one card of `hand` (a deadwood card, or any when none)."""
    found = analyse(hand, slots)
    options = sorted(set(found.loose)) or sorted({c for c in hand if c != JOKER})
    if not options:
        return 0.0
    scored = []
    for card in options:
        rest = without(hand, [card])
        after = without_card(found, card) or analyse(rest, slots)
        score = hand_score(know, rest, after, slots, PRO_STYLE, cheap_opening=True, close=False)
        scored.append((score, card, rest, after))
    scored.sort(key=lambda item: (item[0], item[1]))
    best = scored[0][0]
    if PRO_STYLE.close and know.turn_number + 2 >= FIRST_MELDING_TURN:
        # The chance to go out is dear: only for the two answers it could most likely lift.
        for score, _, rest, after in scored[:2]:
            if after.deadwood <= 2:
                chance = close_chance(know, rest, after, slots, PRO_STYLE.closing)
                best = min(best, score - PRO_STYLE.close * chance)
    return best


# --- the opponent ------------------------------------------------------------------------------------


def _sample_opponents(
    know: Knowledge, slots: list[Slot], rng: random.Random, samples: int | None = None
) -> list[tuple[list[str], Analysis]]:
    """Opponent hands dealt from the unseen cards (`samples`, default PRO's), each with its analysis."""
    out = []
    for _ in range(PRO["samples"] if samples is None else samples):
        hand = sample_opponent(know, slots, rng)
        out.append((hand, analyse(hand, slots)))
    return out


def going_out_risk(
    know: Knowledge, cards: list[str], opponents: list[tuple[list[str], Analysis]], slots: list[Slot]
) -> dict[str, float]:
    """For each card, the share of the sampled opponent hands that could take it and go out."""
    risk = dict.fromkeys(cards, 0.0)
    if not know.opp_may_take_next or not opponents:
        return risk
    for hand, found in opponents:
        if found.deadwood > 2:
            continue
        for card in risk:
            if card != JOKER and find_close(
                [*hand, card], slots, know.opp_opened, must_use=card, swaps=False
            ):
                risk[card] += 1
    return {card: n / len(opponents) for card, n in risk.items()}


def _opponent_use(
    know: Knowledge, card: str, opponents: list[tuple[list[str], Analysis]], slots: list[Slot]
) -> float:
    """What the opponent would gain from this discard on average over the sampled hands, in the
    scores' units: going out with it, opening with it, or the deadwood it saves them."""
    if not know.opp_may_take_next or not opponents:
        return 0.0
    table = table_takes(slots) if know.opp_opened else set()
    total = 0.0
    for hand, found in opponents:
        gain = gain_map(found, hand_meld_takes(found.melds), table).get(card, 0)
        if gain == 0:
            continue
        if found.deadwood <= 2 and find_close(
            [*hand, card], slots, know.opp_opened, must_use=card, swaps=False
        ):
            total += GOING_OUT
        elif know.opp_opened:
            total += gain
        elif gain >= 2 and opening_ok(analyse([*hand, card], slots).melds):
            total += gain + 1.0  # opening is worth more than the cards it puts down
    return PRO_STYLE.safety * total / len(opponents)


# --- the draw ----------------------------------------------------------------------------------------


def _draw_or_take(know: Knowledge, take: Action) -> Action:
    """Take the discard only if the hand after it beats the average stock card."""
    slots = slots_of(know.melds)
    top = str(know.top)
    used = [c for m in take["melds"] for c in m] + [c for lo in take["lay_offs"] for c in lo["cards"]]
    # A take with melds opens the hand: what is left is judged as an opened hand.
    after = replace(know, opened=True) if take["melds"] else know
    taking = _best_answer(after, without([*know.hand, top], used), slots)
    total = know.unseen_total
    if total <= 0:
        return take
    found = analyse(know.hand, slots)
    gains = gain_map(found, hand_meld_takes(found.melds), table_takes(slots))
    unchanged: float | None = None
    drawing = 0.0
    for card, n in know.unseen.items():
        if card != JOKER and card not in gains:
            if unchanged is None:
                unchanged = hand_score(know, know.hand, found, slots, PRO_STYLE, cheap_opening=True)
            drawing += n * unchanged
            continue
        drawn = [*know.hand, card]
        if know.may_meld and find_close(drawn, slots, know.opened) is not None:
            drawing -= n * GOING_OUT
            continue
        drawing += n * _best_answer(know, drawn, slots)
    return take if taking <= drawing / total else {"type": "draw"}

"""The Zhol `sound` level: the top rung of the ladder, a sound player from the table alone.

It plays as a careful person would, from its seat's view only (`Knowledge`), with no sampled
hands and no deliberate mistakes (docs/bots.md, "The sound yardstick"):

- Outs over live cards: of the discards that leave the fewest cards to draw, it keeps the hand
  that needs the fewest draws, counted from the cards still live (not in its hand, on the pile or
  taken by another player and still held), one step ahead card by card and a second step for the
  likeliest improving draws (`pro.Search.expected_draws` with the sampled defence off).
- Not feeding the next player: a card that joins what the next player visibly collects (the
  cards it took from the pile and still holds) is likelier to hand it its Zhol; one like a card it
  let pass or threw away is less likely. The chance is weighed against the race: the value of a
  discard is the chance to finish first at these speeds times the chance the next player does not
  win with it, and a discard one card further from a Zhol is considered when it is much safer.
- Going out: a Zhol ends the hand at once, so it wins whenever a discard or the open card lets it;
  the open card is taken when it lowers the cards still to draw, or, at the same distance, when
  it leaves a clearly faster hand.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.cards import CARD_INDEX, CARD_OF, JOKER_INDEX
from engines.meld_solver import goes_out
from engines.zhol.bots import hand as bh
from engines.zhol.bots import pro
from engines.zhol.bots.knowledge import Knowledge
from engines.zhol.rules import RULES

# The search budget: pro's, with the sampled defence, inference and live-card discount off (the
# danger below is read from the table instead).
FEATURES = {**pro.FEATURES, "defence": False, "infer": False, "live": False, "take_equal": True}
# How much likelier a card is to win for the next player when it joins two of the cards it
# collects, one of them, or looks like a card it let pass or threw.
JOINS_TWO, JOINS_ONE, DECLINED = 4.0, 2.0, 0.4
# The cards that typically win for a hand one card away, by variant.
WINNERS = {"small": 4.0, "large": 6.0}


def _linked(a: int, b: int) -> bool:
    """Whether two naturals could sit in one group: the same rank, or one suit two ranks apart."""
    if a == JOKER_INDEX or b == JOKER_INDEX:
        return True
    if a % 13 == b % 13:
        return a // 13 != b // 13
    if a // 13 != b // 13:
        return False
    gap = abs(a % 13 - b % 13)
    return gap <= 2 or 13 - gap <= 2


class Table:
    """What the table shows of the next player: what it collects, what it let go, how far it is."""

    def __init__(self, know: Knowledge):
        seat = know.next_seat
        self.collects = [c for c in know.held[seat].elements() if c != JOKER_INDEX]
        self.declined = set(pro.Opponents._passed(know, seat)) | set(know.thrown[seat])
        played = pro.PLAYED[know.variant]
        row = played[min(len(know.thrown[seat]), len(played) - 1)]
        typical = pro.TYPICAL[know.variant]
        # the chance it is one card away, and the draws it typically still needs
        self.one_away = row[0] / sum(row)
        self.draws = sum(
            share * sum(1.0 / typical[min(j, len(typical)) - 1] for j in range(1, k + 2))
            for k, share in enumerate(row)
        ) / sum(row)
        self.base = WINNERS[know.variant] / max(1.0, float(sum(know.unseen.values())))

    def danger(self, card: int) -> float:
        """The chance that the next player wins by taking `card`."""
        if card == JOKER_INDEX:
            return min(1.0, self.one_away)
        joins = sum(1 for c in self.collects if _linked(card, c))
        factor = JOINS_TWO if joins >= 2 else JOINS_ONE if joins == 1 else 1.0
        if joins == 0 and any(card % 13 == c % 13 or card == c for c in self.declined):
            factor = DECLINED
        return min(1.0, self.one_away * self.base * factor)


def discard(know: Knowledge, search: pro.Search) -> int:
    options = sorted({CARD_INDEX[a["card"]] for a in know.legal})
    rests = {card: bh.without_card(know.hand, card) for card in options}
    for card in options:
        if goes_out([CARD_OF[c] for c in rests[card]], RULES):
            return card
    needs = {card: search.need(rests[card]) for card in options}
    least = min(needs.values())
    table = Table(know)
    danger = {card: table.danger(card) for card in options if needs[card] <= least + 1}
    safest = min(danger[card] for card in danger if needs[card] == least)
    # one card further away is worth it only for a clearly safer card
    candidates = [c for c in danger if needs[c] == least or danger[c] < safest / 2]
    draws = {card: search.expected_draws(rests[card], least) for card in candidates if needs[card] == least}
    fastest = min(draws.values())
    best_value, best_card = -1.0, candidates[0]
    for card in candidates:
        mine = draws.get(card)
        if mine is None:
            extra = 1.0 / search.typical[min(needs[card], len(search.typical)) - 1]
            mine = max(search.expected_draws(rests[card], needs[card]), fastest + extra)
        value = pro.race(mine, table.draws) * (1 - danger[card])
        if card == JOKER_INDEX:
            value -= 1e-9  # a joker fits anywhere: thrown last
        if value > best_value:
            best_value, best_card = value, card
    return best_card


def choose(know: Knowledge, rng: random.Random) -> Action:
    """The sound player's action for the seat whose knowledge this is."""
    search = pro.Search(know, rng, FEATURES)
    if know.phase == "draw":
        return {"type": "draw", "pile": search.draw()}
    return {"type": "discard", "card": CARD_OF[discard(know, search)]}


def sound_action(view: dict[str, Any], rng: random.Random) -> Action:
    return choose(Knowledge(view), rng)

"""What a Žolíky bot knows: its seat's view read into hand, table and the cards it cannot see."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engines.cards import JOKER, STANDARD_52
from engines.zoliky.rules import FIRST_MELDING_TURN

# Every card of the game with its number of copies: two decks and four jokers.
FULL_COUNTS: Counter[str] = Counter({**{c: 2 for c in STANDARD_52}, JOKER: 4})


@dataclass
class Knowledge:
    """One seat's knowledge, read from its view only (never from the match state)."""

    me: int
    phase: str
    hand: list[str]
    legal: list[dict[str, Any]]
    opened: bool
    opp_opened: bool
    melds: list[dict[str, Any]]
    top: str | None
    closing: str | None
    turn_number: int
    stock: int
    opp_cards: int
    opp_discards: list[str]  # the opponent's cards in the discard pile
    opp_taken: list[str]
    my_discards: list[str]
    # Cards the seat cannot see, with their copies: in the opponent's hand or the stock.
    unseen: Counter[str] = field(default_factory=Counter)
    # Revealed cut cards still known to lie at the bottom of the stock, bottom-most first.
    bottom: list[str] = field(default_factory=list)

    @property
    def opp(self) -> int:
        return 1 - self.me

    @property
    def types(self) -> set[str]:
        return {a["type"] for a in self.legal}

    @property
    def unseen_total(self) -> int:
        return sum(self.unseen.values())

    @property
    def may_meld(self) -> bool:
        return self.turn_number >= FIRST_MELDING_TURN

    @property
    def opp_may_take_next(self) -> bool:
        """Whether the opponent may take the discard on their next turn (turn 7 on)."""
        return self.turn_number + 1 >= FIRST_MELDING_TURN

    def live(self, card: str) -> int:
        """Copies of `card` that could still come from the stock or sit in the opponent's hand."""
        return self.unseen[card]


def read_view(view: dict[str, Any]) -> Knowledge:
    """The seat's knowledge from its view."""
    me = view["turn"]["seat"]
    table = view["table"]
    opp = 1 - me
    hand = list(view["hand"])
    players = view["players"]
    know = Knowledge(
        me=me,
        phase=view["turn"]["phase"],
        hand=hand,
        legal=view["legal_actions"],
        opened=bool(table["opened"][me]),
        opp_opened=bool(table["opened"][opp]),
        melds=table["melds"],
        top=view["discard"]["top"],
        closing=table["closing_card"],
        turn_number=table["turn_number"],
        stock=view["stock"],
        opp_cards=players[opp]["cards"],
        opp_discards=list(players[opp].get("discards", [])),
        opp_taken=list(players[opp].get("taken", [])),
        my_discards=list(players[me].get("discards", [])),
    )
    # The pile holds both players' discards; the top is the opponent's last one.
    pile = know.opp_discards + know.my_discards
    if know.top is not None and know.top not in pile:
        pile.append(know.top)
    seen = Counter(hand)
    for meld in table["melds"]:
        seen.update(meld["cards"])
    seen.update(pile)
    cut = list(table.get("cut") or [])
    normals = [c for c in cut if c != JOKER]
    closing_card = normals[0] if normals else None
    if closing_card is not None and table["closing_card"] is not None:
        seen[closing_card] += 1
    # The other revealed normal cards stay at the bottom of the stock, in reveal order (the
    # bottom-most first), until the stock runs down to them; a refill reshuffles them away.
    kept = normals[1:]
    # Every finished turn put one card on the pile; fewer there and taken means a refill.
    taken = sum(len(p.get("taken", [])) for p in players)
    refilled = view["discard"]["count"] + taken < know.turn_number - 1
    if not refilled:
        know.bottom = kept[: min(len(kept), view["stock"])]
        seen.update(know.bottom)
    unseen = FULL_COUNTS.copy()
    unseen.subtract(seen)
    know.unseen = Counter({c: n for c, n in unseen.items() if n > 0})
    return know


def sample_hidden(know: Knowledge, rng: random.Random) -> tuple[list[str], list[str]]:
    """One arrangement of the cards the seat cannot see: (opponent's hand, stock top first).

    The cut cards known to lie at the bottom of the stock stay there, in their order.
    """
    pool = list(know.unseen.elements())
    rng.shuffle(pool)
    size = min(know.opp_cards, len(pool))
    hand, stock = pool[:size], pool[size:]
    stock.extend(reversed(know.bottom))
    return hand, stock

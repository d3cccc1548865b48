"""What a Zhol seat knows, read from its own view only: its hand, the cards gone and the cards live."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engines.cards import CARD_INDEX, JOKER_INDEX

SIZES = {"small": 7, "large": 14}
COPIES = {"small": 1, "large": 2}
JOKERS = {"small": 2, "large": 4}


class Knowledge:
    """One seat's knowledge at its turn, built from `view` (never from the match state).

    Cards are int codes (`engines.cards.CARD_INDEX`). `unseen` counts, per card, the copies this seat cannot
    see: in the stock or in another hand, not known to be there. `held[s]` counts the cards seat s
    is known to hold: taken from the discard pile and not discarded since.
    """

    def __init__(self, view: dict[str, Any]):
        table = view["table"]
        self.variant: str = table["variant"]
        self.size = SIZES[self.variant]
        self.seats = len(view["players"])
        self.seat: int = view["turn"]["seat"]
        self.phase: str = view["turn"]["phase"]
        self.legal: list[dict[str, Any]] = view["legal_actions"]
        self.hand: tuple[int, ...] = tuple(sorted(CARD_INDEX[c] for c in view["hand"]))
        top = view["discard"]["top"]
        self.top: int | None = CARD_INDEX[top] if top is not None else None
        taken = table.get("taken")
        self.taken: int | None = CARD_INDEX[taken] if taken is not None else None
        self.pile: list[int] = [CARD_INDEX[c] for c in table.get("pile", [])]
        self.stock: int = view["stock"]
        self.held: list[Counter[int]] = [Counter() for _ in range(self.seats)]
        self.thrown: list[list[int]] = [[] for _ in range(self.seats)]  # discards by seat, in order
        self.took: list[list[int]] = [[] for _ in range(self.seats)]  # cards taken by seat, in order
        self.discard_log: list[tuple[int, int, int | None]] = []  # (seat, card, taken by)
        for entry in table.get("discards", []):
            card = CARD_INDEX[entry["card"]]
            by = entry["seat"]
            if self.held[by][card] > 0:
                self.held[by][card] -= 1
            self.thrown[by].append(card)
            self.discard_log.append((by, card, entry["taken_by"]))
            if entry["taken_by"] is not None:
                self.held[entry["taken_by"]][card] += 1
                self.took[entry["taken_by"]].append(card)
        # what this seat took this turn is in its hand already
        self.held[self.seat] = Counter()
        full: Counter[int] = Counter({i: COPIES[self.variant] for i in range(52)})
        full[JOKER_INDEX] = JOKERS[self.variant]
        full.subtract(self.hand)
        full.subtract(self.pile)
        for s in range(self.seats):
            if s != self.seat:
                full.subtract(self.held[s])
        self.unseen: Counter[int] = +full
        self.next_seat = (self.seat + 1) % self.seats
        self.hand_sizes: list[int] = [p["cards"] for p in view["players"]]

    def unknown_cards(self) -> list[int]:
        """The unseen cards, one entry per copy, in a fixed order."""
        return sorted(self.unseen.elements())

    def hidden_count(self, seat: int) -> int:
        """How many of `seat`'s cards this seat does not know."""
        return self.hand_sizes[seat] - sum(self.held[seat].values())

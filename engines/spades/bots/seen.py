"""What one Spades seat has seen, read from its view: the bots' whole input, as bitmask hands
(`engines.spades.bots.policy`)."""

from __future__ import annotations

from typing import Any

from engines.cards import ACE_HIGH_INDEX
from engines.spades.bots.policy import FULL_SUIT, SPADE, Hand, Trick, estimate_masks, masks_of


class Seen:
    """Everything one seat knows, read from its view: the bot's whole input."""

    __slots__ = (
        "seat", "phase", "hand", "out", "played_by", "voids", "counts", "trick", "bids", "won",
        "broken", "tricks_left", "scores", "bags", "target", "dealer",
    )  # fmt: skip

    def __init__(self, view: dict[str, Any]) -> None:
        table = view["table"]
        self.seat: int = view["turn"]["seat"]
        self.phase: str | None = view["turn"]["phase"]
        self.hand: Hand = masks_of(view["hand"])
        self.bids: list[int | None] = list(table["bids"])
        self.won: list[int] = list(table["tricks_won"])
        self.broken: bool = table["spades_broken"]
        self.tricks_left: int = 13 - table["tricks_played"]
        self.counts: list[int] = [p["cards"] for p in view["players"]]
        self.scores: list[int] = [view["scores"]["0"], view["scores"]["1"]]
        self.bags: list[int] = [table["bags"]["0"], table["bags"]["1"]]
        self.target: int = table["target_score"]
        self.dealer: int = table["dealer"]
        self.trick: Trick = [(e["seat"], ACE_HIGH_INDEX[e["card"]]) for e in table["trick"]]
        played: list[dict[str, Any]] = table.get("played") or []
        self.played_by: list[Hand] = [[0, 0, 0, 0] for _ in range(4)]
        self.voids: list[int] = [0, 0, 0, 0]  # per seat, a bit per suit it has shown out of
        broken = False
        for start in range(0, len(played), 4):
            chunk = played[start : start + 4]
            led = ACE_HIGH_INDEX[chunk[0]["card"]] // 13
            for i, entry in enumerate(chunk):
                s, c = entry["seat"], ACE_HIGH_INDEX[entry["card"]]
                suit = c // 13
                self.played_by[s][suit] |= 1 << (c % 13)
                if i == 0 and suit == SPADE and not broken:
                    # Leading an unbroken spade is allowed only from a hand of spades.
                    self.voids[s] |= 0b1110
                elif suit != led:
                    self.voids[s] |= 1 << led
            broken = broken or any(e["card"][1] == "S" for e in chunk)
        gone = [
            self.played_by[0][k] | self.played_by[1][k] | self.played_by[2][k] | self.played_by[3][k]
            for k in range(4)
        ]
        self.out: Hand = [FULL_SUIT & ~gone[k] & ~self.hand[k] for k in range(4)]

    def forgetful_out(self) -> Hand:
        """The cards out for a player who does not count: all but its own and the trick's."""
        out = [FULL_SUIT & ~m for m in self.hand]
        for _, c in self.trick:
            out[c // 13] &= ~(1 << (c % 13))
        return out


def estimate_tricks(hand: list[str]) -> float:
    """A rough count of the tricks `hand` should take with spades as trumps."""
    return estimate_masks(masks_of(hand))

"""The Spades heuristic policy on bitmask hands: the card play and bid of every bot level, and the
fast playout policy of the pro search.

A card is an int `suit * 13 + rank`, suits in the order S H D C (so suit 0 is the trump suit) and
rank 0 = '2' … 12 = 'A': the ace-high layout of `engines.cards.ACE_HIGH_INDEX`. A hand is a list
of four 13-bit masks, one per suit. The policy sees what a seat at the table sees: its own hand,
the cards still out (unplayed and not its own), the trick, the bids and the tricks won; nothing
else, so the same function drives a bot from its view and every seat of a simulated deal.
"""

from __future__ import annotations

from typing import Any

from engines.cards import ACE_HIGH_INDEX

SPADE = 0
ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8
FULL_SUIT = (1 << 13) - 1

# Number of set bits of every 13-bit mask (int.bit_count is fast, but a table is faster still).
POPCOUNT = [bin(m).count("1") for m in range(1 << 13)]

Hand = list[int]
Trick = list[tuple[int, int]]  # (seat, card), leader first


def masks_of(cards: list[str]) -> Hand:
    hand = [0, 0, 0, 0]
    for code in cards:
        c = ACE_HIGH_INDEX[code]
        hand[c // 13] |= 1 << (c % 13)
    return hand


def cards_of(hand: Hand) -> list[int]:
    out = []
    for suit in range(4):
        m = hand[suit]
        while m:
            low = m & -m
            out.append(suit * 13 + low.bit_length() - 1)
            m ^= low
    return out


def lowest(m: int) -> int:
    return (m & -m).bit_length() - 1


def highest(m: int) -> int:
    return m.bit_length() - 1


def above(m: int, rank: int) -> int:
    """The cards of mask `m` higher than `rank`."""
    return m >> (rank + 1) << (rank + 1)


def below(m: int, rank: int) -> int:
    return m & ((1 << rank) - 1)


def trick_best(trick: Trick) -> tuple[int, int, int]:
    """(seat, suit, rank) of the card winning `trick` so far."""
    seat, card = trick[0]
    best_seat, best_suit, best_rank = seat, card // 13, card % 13
    for seat, card in trick[1:]:
        suit, rank = card // 13, card % 13
        if suit == best_suit:
            if rank > best_rank:
                best_seat, best_rank = seat, rank
        elif suit == SPADE:
            best_seat, best_suit, best_rank = seat, suit, rank
    return best_seat, best_suit, best_rank


def legal_masks(hand: Hand, trick: Trick, broken: bool) -> Hand:
    """The playable part of `hand`, suit by suit (docs/rules/spades.md, "Play")."""
    if trick:
        led = trick[0][1] // 13
        if hand[led]:
            out = [0, 0, 0, 0]
            out[led] = hand[led]
            return out
        return hand
    if broken or not (hand[1] | hand[2] | hand[3]):
        return hand
    return [0, hand[1], hand[2], hand[3]]


# --- bidding ------------------------------------------------------------------------------


def estimate_masks(hand: Hand) -> float:
    """A count of the tricks `hand` should take with spades as trumps (no partner, no bids)."""
    spades = hand[SPADE]
    n_spades = POPCOUNT[spades]
    estimate = 0.0
    for suit in (1, 2, 3):
        m = hand[suit]
        length = POPCOUNT[m]
        if m >> ACE & 1:
            # A long side suit gets ruffed before its ace cashes.
            estimate += 1.0 if length <= 5 else 0.6
        if m >> KING & 1 and length >= 2:
            estimate += (0.8 if m >> ACE & 1 else 0.6) if length <= 4 else 0.3
        if m >> QUEEN & 1 and 3 <= length <= 4 and m >> KING & 1 and m >> ACE & 1:
            estimate += 0.4
        if length <= 1 and n_spades >= 2:
            # A void or singleton ruffs side-suit leads while the spades last.
            extra = min(2 - length, n_spades - 1)
            estimate += 0.55 * extra
    for rank in range(12, -1, -1):
        if not spades >> rank & 1:
            continue
        # A spade is a winner when enough small spades guard it against the higher ones out.
        higher_out = 12 - rank - POPCOUNT[spades >> (rank + 1)]
        guards = POPCOUNT[below(spades, rank)]
        if higher_out == 0 or guards >= higher_out:
            estimate += 1.0 if higher_out <= 1 else 0.8
    # Spades beyond the fourth win once the others are drawn.
    estimate += max(0, n_spades - 4) * 0.7
    return estimate


NIL_HONOUR_RISK = ((ACE, 1.0), (KING, 0.8), (QUEEN, 0.5), (JACK, 0.3))


def nil_risk(hand: Hand) -> float:
    """How dangerous `hand` is for a Nil: high cards that cannot be ducked, short low suits."""
    risk = 0.0
    spades = hand[SPADE]
    n_spades = POPCOUNT[spades]
    for rank in range(12, -1, -1):
        if spades >> rank & 1:
            risk += 1.2 if rank >= QUEEN else 0.6 if rank >= TEN else 0.2
    if n_spades >= 4:
        risk += 0.5 * (n_spades - 3)
    for suit in (1, 2, 3):
        m = hand[suit]
        length = POPCOUNT[m]
        if not m:
            continue
        # High cards protected by few low cards (2-6 count as low).
        low_cards = POPCOUNT[m & 0b11111]
        for rank, weight in NIL_HONOUR_RISK:
            if m >> rank & 1:
                risk += weight * (1.0 if low_cards == 0 else 0.5 if low_cards == 1 else 0.2)
        if length >= 1 and lowest(m) >= 6:
            risk += 0.3
    return risk


def heuristic_bid(hand: Hand, partner_bid: int | None, careful: bool = True) -> int:
    """A bid for `hand`: Nil for a hand that can duck everything, else its rounded trick count.

    `careful` also looks at the partner's bid: no Nil beside a Nil, and no contract past 13.
    """
    estimate = estimate_masks(hand)
    nil_ok = nil_risk(hand) < 1.3 and estimate < 2.0
    if careful and partner_bid == 0:
        nil_ok = False
    if nil_ok:
        return 0
    bid = max(1, int(estimate + 0.5))
    if careful and partner_bid:
        bid = max(1, min(bid, 13 - partner_bid))
    return min(bid, 13)


# --- card play ----------------------------------------------------------------------------


def lead_low(hand: Hand, out: Hand) -> int:
    """The lead most likely to lose: the lowest card with the most higher cards still out."""
    best_card, best_score = -1, -99.0
    for suit in range(4):
        m = hand[suit]
        if not m:
            continue
        r = lowest(m)
        score = POPCOUNT[above(out[suit], r)] - (3 if suit == SPADE else 0) - r * 0.01
        if score > best_score:
            best_card, best_score = suit * 13 + r, score
    return best_card


def discard_high(hand: Hand) -> int:
    """A discard when void that sheds the most dangerous side card (a spade only when forced)."""
    best_card, best_key = -1, (9, 0)
    for suit in (1, 2, 3, 0):
        m = hand[suit]
        if not m:
            continue
        r = highest(m)
        key = (1 if suit == SPADE else 0, -r)
        if key < best_key:
            best_card, best_key = suit * 13 + r, key
    return best_card


def discard_low(hand: Hand, out: Hand) -> int:
    """The card least worth keeping: a low side card, from a short suit, never a boss if avoidable."""
    best_card, best_key = -1, (9, 9, 99.0)
    for suit in range(4):
        m = hand[suit]
        if not m:
            continue
        r = lowest(m)
        boss = 1 if not (out[suit] >> (r + 1)) and out[suit] else 0
        key = (1 if suit == SPADE else 0, boss, r + 0.1 * POPCOUNT[m])
        if key < best_key:
            best_card, best_key = suit * 13 + r, key
    return best_card


def play_card(
    seat: int,
    hand: Hand,
    out: Hand,
    trick: Trick,
    bids: list[int],
    won: list[int],
    broken: bool,
    tricks_left: int,
    avoid_bags: bool = True,
) -> int:
    """The heuristic card for `seat` (see the module docstring for the arguments).

    `out` holds the cards the seat knows are still in other hands (unplayed, not its own);
    `tricks_left` counts the current trick. Without `avoid_bags` it takes every trick it can
    even once its contract is made and the opponents' is safe.
    """
    if trick:
        led = trick[0][1] // 13
        m = hand[led]
        if m and not m & (m - 1):
            return led * 13 + m.bit_length() - 1  # forced: the only card of the led suit
        legal = hand
    else:
        legal = legal_masks(hand, trick, broken)
    partner = seat ^ 2
    left, right = (seat + 1) & 3, (seat + 3) & 3
    b_me, b_partner, b_left, b_right = bids[seat], bids[partner], bids[left], bids[right]
    my_nil = b_me == 0
    partner_nil = b_partner == 0 and won[partner] == 0
    left_nil = b_left == 0 and won[left] == 0
    right_nil = b_right == 0 and won[right] == 0
    need = b_me + b_partner - (won[seat] if b_me else 0) - (won[partner] if b_partner else 0)
    opp_need = b_left + b_right - (won[left] if b_left else 0) - (won[right] if b_right else 0)
    # Take tricks while our contract needs them or theirs can still be set; else duck the bags.
    take = need > 0 or 0 < opp_need <= tricks_left or not avoid_bags

    if not trick:
        if my_nil:
            return lead_low(legal, out)
        if partner_nil:
            return _lead_high(legal, out)
        if left_nil or right_nil:
            return lead_low(legal, out)
        if not take:
            return lead_low(legal, out)
        return _lead_to_win(legal, hand, out, broken)

    best_seat, best_suit, best_rank = trick_best(trick)
    position = len(trick)  # 1: second hand, 3: last
    last = position == 3
    # My cards that beat the trick so far, and those that do not.
    if hand[led]:
        if best_suit != led:
            winners = 0  # trumped: nothing of the led suit wins
        else:
            winners = above(hand[led], best_rank)
        win_suit = led
        losers_mask = hand[led] ^ winners
    else:
        win_suit = SPADE
        winners = above(hand[SPADE], best_rank) if best_suit == SPADE else hand[SPADE]
        losers_mask = -1  # void: every off-suit card and the low spades lose

    if my_nil:
        return _duck(legal, hand, out, led, win_suit, winners, losers_mask, last)
    if partner_nil:
        if best_seat == partner:
            # Rescue the Nil: overtake the partner as cheaply as possible.
            if winners:
                return win_suit * 13 + lowest(winners)
            return _cheapest_follow(legal, hand, out, led, take)
        if position + (partner - seat) % 4 <= 3:
            # The partner plays after me: set the bar as high as possible.
            if winners:
                return win_suit * 13 + highest(winners)
            return _cheapest_follow(legal, hand, out, led, take)
    if left_nil or right_nil:
        if (left_nil and best_seat == left) or (right_nil and best_seat == right):
            # Leave the Nil bidder holding the trick.
            return _duck(legal, hand, out, led, win_suit, winners, losers_mask, last)
        if left_nil and not last and best_seat != partner:
            # The Nil bidder on my left plays after me: keep the trick low for them to win.
            if hand[led]:
                return led * 13 + lowest(hand[led])
            return discard_low(hand, out)
    if not take:
        return _duck(legal, hand, out, led, win_suit, winners, losers_mask, last)

    if best_seat == partner:
        # Partner holds the trick: leave it unless an opponent after me can still beat it.
        safe = (
            last
            or (best_suit == led and not above(out[led], best_rank) and led != SPADE)
            or (best_suit == SPADE and not above(out[SPADE], best_rank))
        )
        if safe or not winners:
            return _cheapest_follow(legal, hand, out, led, take)
        if position == 2 and winners and win_suit == led:
            boss = _bosses(winners, out[led])
            if boss:
                return led * 13 + lowest(boss)
        return _cheapest_follow(legal, hand, out, led, take)
    if not winners:
        return _cheapest_follow(legal, hand, out, led, take)
    if last:
        return win_suit * 13 + lowest(winners)
    if win_suit == led:
        boss = _bosses(winners, out[led])
        if boss and (led == SPADE or out[SPADE] == 0 or POPCOUNT[out[led]] >= 2):
            return led * 13 + lowest(boss)
        if position == 1:
            # Second hand low: the partner still plays.
            return led * 13 + lowest(hand[led])
        return led * 13 + highest(winners)
    # Ruff: the cheapest spade that beats the trick, unless a higher spade is likely behind.
    return SPADE * 13 + lowest(winners)


def _bosses(mask: int, out_suit: int) -> int:
    """The cards of `mask` that no card still out in their suit beats."""
    if not out_suit:
        return mask
    return above(mask, highest(out_suit))


def _lead_high(hand: Hand, out: Hand) -> int:
    """A lead that covers a Nil partner: the highest card, a boss first, a side suit first."""
    best_card, best_key = -1, (-1, -1, -1)
    for suit in range(4):
        m = hand[suit]
        if not m:
            continue
        r = highest(m)
        key = (1 if not above(out[suit], r) else 0, 1 if suit != SPADE else 0, r)
        if key > best_key:
            best_card, best_key = suit * 13 + r, key
    return best_card


def _lead_to_win(legal: Hand, hand: Hand, out: Hand, broken: bool) -> int:
    # Cash a side-suit boss, from the suit the others still hold most of (least likely ruffed).
    best_card, best_key = -1, (-1, -1)
    for suit in (1, 2, 3):
        m = legal[suit]
        if not m:
            continue
        bosses = _bosses(m, out[suit])
        if bosses and out[suit]:
            key = (POPCOUNT[out[suit]], highest(bosses))
            if key > best_key:
                best_card, best_key = suit * 13 + highest(bosses), key
    if best_card >= 0 and (best_key[0] >= 2 or not out[SPADE]):
        return best_card
    # Draw trumps with a boss spade.
    if legal[SPADE] and out[SPADE]:
        bosses = _bosses(legal[SPADE], out[SPADE])
        if bosses:
            return SPADE * 13 + highest(bosses)
    if best_card >= 0:
        return best_card
    # A singleton side card to ruff that suit later.
    if hand[SPADE]:
        for suit in (1, 2, 3):
            m = legal[suit]
            if m and POPCOUNT[m] == 1 and out[suit]:
                return suit * 13 + lowest(m)
    # Else low from the longest side suit.
    best_card, best_len = -1, -1
    for suit in (1, 2, 3):
        m = legal[suit]
        if m and POPCOUNT[m] > best_len:
            best_card, best_len = suit * 13 + lowest(m), POPCOUNT[m]
    if best_card >= 0:
        return best_card
    return SPADE * 13 + lowest(legal[SPADE])


def _duck(
    legal: Hand, hand: Hand, out: Hand, led: int, win_suit: int, winners: int, losers_mask: int, last: bool
) -> int:
    """Lose the trick if possible, shedding the highest safe card; else win it as high as possible."""
    if hand[led]:
        losers = hand[led] & losers_mask
        if losers:
            return led * 13 + highest(losers)
        # Every card wins for now: hope to be overtaken, unless nobody can, then shed the top card.
        low = lowest(hand[led])
        return led * 13 + (highest(hand[led]) if last or not above(out[led], low) else low)
    # Void: any side card loses, and so does a spade under the trick's spade.
    side = [0, hand[1], hand[2], hand[3]]
    if side[1] | side[2] | side[3]:
        return discard_high(side)
    low_spades = hand[SPADE] ^ winners
    if low_spades:
        return SPADE * 13 + highest(low_spades)
    return SPADE * 13 + (highest(hand[SPADE]) if last else lowest(hand[SPADE]))


def _cheapest_follow(legal: Hand, hand: Hand, out: Hand, led: int, take: bool) -> int:
    if hand[led]:
        return led * 13 + lowest(hand[led])
    return discard_low(hand, out)


# --- what a seat has seen ------------------------------------------------------------------


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

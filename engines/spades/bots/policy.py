"""The Spades heuristic policy on bitmask hands: the card play and bid of every bot level, and the
fast playout policy of the pro search.

A card is an int `suit * 13 + rank`, suits in the order S H D C (so suit 0 is the trump suit) and
rank 0 = '2' … 12 = 'A': the ace-high layout of `engines.cards.ACE_HIGH_INDEX`. A hand is a list
of four 13-bit masks, one per suit. The policy sees what a seat at the table sees: its own hand,
the cards still out (unplayed and not its own), the trick, the bids and the tricks won; nothing
else, so the same function drives a bot from its view and every seat of a simulated deal.
"""

from __future__ import annotations

from typing import NamedTuple

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


class _Contracts(NamedTuple):
    """Who around the table bid Nil and still keeps it, and whether the seat takes tricks."""

    partner: int
    left: int
    right: int
    my_nil: bool
    partner_nil: bool
    left_nil: bool
    right_nil: bool
    take: bool


def _contracts(seat: int, bids: list[int], won: list[int], tricks_left: int, avoid_bags: bool) -> _Contracts:
    partner = seat ^ 2
    left, right = (seat + 1) & 3, (seat + 3) & 3
    b_me, b_partner, b_left, b_right = bids[seat], bids[partner], bids[left], bids[right]
    need = b_me + b_partner - (won[seat] if b_me else 0) - (won[partner] if b_partner else 0)
    opp_need = b_left + b_right - (won[left] if b_left else 0) - (won[right] if b_right else 0)
    # Take tricks while our contract needs them or theirs can still be set; else duck the bags.
    take = need > 0 or 0 < opp_need <= tricks_left or not avoid_bags
    return _Contracts(
        partner,
        left,
        right,
        b_me == 0,
        b_partner == 0 and won[partner] == 0,
        b_left == 0 and won[left] == 0,
        b_right == 0 and won[right] == 0,
        take,
    )


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
    if not trick:
        legal = legal_masks(hand, trick, broken)
        return _lead(legal, hand, out, broken, _contracts(seat, bids, won, tricks_left, avoid_bags))
    led = trick[0][1] // 13
    m = hand[led]
    if m and not m & (m - 1):
        return led * 13 + m.bit_length() - 1  # forced: the only card of the led suit
    return _follow(seat, hand, out, trick, _contracts(seat, bids, won, tricks_left, avoid_bags))


def _lead(legal: Hand, hand: Hand, out: Hand, broken: bool, c: _Contracts) -> int:
    if c.partner_nil and not c.my_nil:
        return _lead_high(legal, out)
    if c.my_nil or c.left_nil or c.right_nil or not c.take:
        return lead_low(legal, out)
    return _lead_to_win(legal, hand, out, broken)


def _follow(seat: int, hand: Hand, out: Hand, trick: Trick, c: _Contracts) -> int:
    """The card to play to a trick already led (`hand` is then also the legal cards' source)."""
    led = trick[0][1] // 13
    legal = hand
    best_seat, best_suit, best_rank = trick_best(trick)
    position = len(trick)  # 1: second hand, 3: last
    last = position == 3
    # My cards that beat the trick so far, and those that do not.
    if hand[led]:
        winners = above(hand[led], best_rank) if best_suit == led else 0  # trumped: none wins
        win_suit = led
        losers_mask = hand[led] ^ winners
    else:
        win_suit = SPADE
        winners = above(hand[SPADE], best_rank) if best_suit == SPADE else hand[SPADE]
        losers_mask = -1  # void: every off-suit card and the low spades lose

    def duck() -> int:
        return _duck(legal, hand, out, led, win_suit, winners, losers_mask, last)

    def cheapest() -> int:
        return _cheapest_follow(legal, hand, out, led, c.take)

    if c.my_nil:
        return duck()
    if c.partner_nil:
        if best_seat == c.partner:
            # Rescue the Nil: overtake the partner as cheaply as possible.
            return win_suit * 13 + lowest(winners) if winners else cheapest()
        if position + (c.partner - seat) % 4 <= 3:
            # The partner plays after me: set the bar as high as possible.
            return win_suit * 13 + highest(winners) if winners else cheapest()
    if c.left_nil or c.right_nil:
        if (c.left_nil and best_seat == c.left) or (c.right_nil and best_seat == c.right):
            return duck()  # leave the Nil bidder holding the trick
        if c.left_nil and not last and best_seat != c.partner:
            # The Nil bidder on my left plays after me: keep the trick low for them to win.
            return led * 13 + lowest(hand[led]) if hand[led] else discard_low(hand, out)
    if not c.take:
        return duck()
    if best_seat == c.partner:
        # Partner holds the trick: leave it unless an opponent after me can still beat it.
        safe = (
            last
            or (best_suit == led and not above(out[led], best_rank) and led != SPADE)
            or (best_suit == SPADE and not above(out[SPADE], best_rank))
        )
        if not safe and position == 2 and winners and win_suit == led:
            boss = _bosses(winners, out[led])
            if boss:
                return led * 13 + lowest(boss)
        return cheapest()
    if not winners:
        return cheapest()
    return _win(hand, out, led, win_suit, winners, position)


def _win(hand: Hand, out: Hand, led: int, win_suit: int, winners: int, position: int) -> int:
    """The card that takes the trick, when the seat means to and can."""
    if position == 3:
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

"""The pro Spades bot: determinized search over sampled hidden hands, with heuristic playouts.

Play: deal the cards the seat cannot see to the other three hands at random, consistently with
what it has seen (hand sizes, cards played, voids shown by failing to follow suit or by leading
an unbroken spade) and, by rejection, with the bids made (a Nil hand holds few high cards, a
bid of 5 about five tricks' worth). On every sample, play each candidate card and finish the
hand with the heuristic policy for all four seats; score the outcome for the partnership and
play the card with the best mean. Cards equal for trick-taking (touching ranks once the cards
between are gone) are one candidate, every candidate sees the same samples, and the weaker half
of the candidates drops out after a quarter and again after half of the samples.

Bidding: sample the other hands, let seats still to bid bid with the heuristic, play the hand
out once as a contract bid and once as Nil, and bid the number (or Nil) with the best mean
outcome given the partner's bid and the bags carried.

An outcome is worth the partnership's hand points minus the opponents', with each bag at its
long-run price (+1 now, -100 per ten: -9), plus `MATCH_VALUE` either way when the hand ends the
match. The budget is `samples` deals and, when not None, `time_limit` seconds, whichever ends
first: the pro's has no time limit (a decision depends on the view and the rng only, whatever
the machine's load), a hint's has one (it is computed inside a request).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from engines.cards import ACE_HIGH_CARD_OF
from engines.spades.bots.policy import (
    POPCOUNT,
    SPADE,
    Hand,
    Trick,
    estimate_masks,
    heuristic_bid,
    legal_masks,
    nil_risk,
    play_card,
    trick_best,
)
from engines.spades.bots.seen import Seen

MATCH_VALUE = 200
BAG_COST = 9
# How far a sampled hand's estimated tricks may stray from its bid (the spread of the weight).
BID_SPREAD = 1.5
# Deals tried per accepted sample when matching the bids made.
BID_TRIES = 6


def hand_outcome(
    team: int, bids: list[int], won: list[int], bags: list[int], scores: list[int], target: int
) -> float:
    """The worth of a finished hand for `team` (see the module docstring)."""
    values = [0.0, 0.0]
    totals = [0, 0]
    for t in (0, 1):
        contract = contract_won = nil_points = nil_bags = 0
        for s in (t, t + 2):
            if bids[s] == 0:
                nil_points += 100 if won[s] == 0 else -100
                nil_bags += won[s]
            else:
                contract += bids[s]
                contract_won += won[s]
        if contract == 0:
            points, over = 0, 0
        elif contract_won >= contract:
            points, over = 10 * contract, contract_won - contract
        else:
            points, over = -10 * contract, 0
        new_bags = over + nil_bags
        values[t] = points + nil_points - BAG_COST * new_bags
        totals[t] = scores[t] + points + nil_points + new_bags - 100 * ((bags[t] + new_bags) // 10)
    value = values[team] - values[1 - team]
    if (totals[0] >= target or totals[1] >= target) and totals[0] != totals[1]:
        value += MATCH_VALUE if (totals[team] > totals[1 - team]) else -MATCH_VALUE
    return value


def playout(
    hands: list[Hand], trick: Trick, bids: list[int], won: list[int], broken: bool, leader: int
) -> None:
    """Finish the hand with the heuristic policy at every seat; `hands`, `won` are updated in place."""
    rem = [hands[0][k] | hands[1][k] | hands[2][k] | hands[3][k] for k in range(4)]
    total = sum(POPCOUNT[m] for h in hands for m in h)
    tricks_left = (total + len(trick)) // 4
    seat = (trick[-1][0] + 1) & 3 if trick else leader
    trick = list(trick)
    while tricks_left:
        hand = hands[seat]
        out = [rem[0] & ~hand[0], rem[1] & ~hand[1], rem[2] & ~hand[2], rem[3] & ~hand[3]]
        card = play_card(seat, hand, out, trick, bids, won, broken, tricks_left)
        suit, bit = card // 13, 1 << (card % 13)
        hand[suit] ^= bit
        rem[suit] ^= bit
        if suit == SPADE:
            broken = True
        trick.append((seat, card))
        if len(trick) == 4:
            seat = trick_best(trick)[0]
            won[seat] += 1
            trick = []
            tricks_left -= 1
        else:
            seat = (seat + 1) & 3


# --- sampling the hidden hands --------------------------------------------------------------


class Sampler:
    """Random deals of the cards one seat cannot see, consistent with what it has seen.

    Hand sizes and cards played are respected exactly, and so are the voids shown (a seat
    that failed to follow a suit holds none of it); deals are then drawn by rejection in
    proportion to how well each hand fits its owner's bid (`bid_weight`).
    """

    def __init__(self, seen: Seen, counts: list[int]) -> None:
        self.seen = seen
        self.me = seen.seat
        self.others = [s for s in range(4) if s != seen.seat]
        self.counts = counts
        self.cards = [k * 13 + r for k in range(4) for r in range(13) if seen.out[k] >> r & 1]
        self.constrained = any(seen.voids[s] & 0b1111 for s in self.others)
        # Suits by how few seats may hold them, the most constrained first.
        groups = []
        for k in range(4):
            eligible = [s for s in self.others if not seen.voids[s] >> k & 1]
            groups.append((len(eligible), k, eligible))
        groups.sort()
        self.groups = [(k, eligible) for _, k, eligible in groups]
        self.bidders = [s for s in self.others if seen.bids[s] is not None]

    def deal(self, rng: random.Random) -> list[Hand]:
        """A deal respecting the voids seen (falling back to ignoring them after many dead ends)."""
        if self.constrained:
            for _ in range(30):
                attempt = self._deal_with_voids(rng)
                if attempt is not None:
                    return attempt
        cards = list(self.cards)
        rng.shuffle(cards)
        hands: list[Hand] = [[0, 0, 0, 0] for _ in range(4)]
        hands[self.me] = list(self.seen.hand)
        at = 0
        for s in self.others:
            hand = hands[s]
            for c in cards[at : at + self.counts[s]]:
                hand[c // 13] |= 1 << (c % 13)
            at += self.counts[s]
        return hands

    def _deal_with_voids(self, rng: random.Random) -> list[Hand] | None:
        seen = self.seen
        hands: list[Hand] = [[0, 0, 0, 0] for _ in range(4)]
        hands[self.me] = list(seen.hand)
        room = list(self.counts)
        for k, eligible in self.groups:
            ranks = [r for r in range(13) if seen.out[k] >> r & 1]
            rng.shuffle(ranks)
            for r in ranks:
                total = 0
                for s in eligible:
                    total += room[s]
                if total == 0:
                    return None
                pick = rng.randrange(total)
                for s in eligible:
                    pick -= room[s]
                    if pick < 0:
                        break
                room[s] -= 1
                hands[s][k] |= 1 << r
        return hands

    def bid_weight(self, hands: list[Hand]) -> float:
        """How well a deal fits the bids made (1.0: perfectly), judged on each hand as dealt."""
        seen = self.seen
        weight = 1.0
        for s in self.bidders:
            bid = seen.bids[s]
            played = seen.played_by[s]
            hand = hands[s]
            dealt = [hand[0] | played[0], hand[1] | played[1], hand[2] | played[2], hand[3] | played[3]]
            if bid == 0:
                excess = max(0.0, nil_risk(dealt) - 1.5)
                weight *= math.exp(-excess * excess)
            else:
                gap = estimate_masks(dealt) - (bid or 0)
                weight *= math.exp(-gap * gap / (2 * BID_SPREAD * BID_SPREAD))
        return weight

    def sample(self, rng: random.Random) -> list[Hand]:
        if not self.bidders:
            return self.deal(rng)
        best: list[Hand] = []
        best_weight = -1.0
        for _ in range(BID_TRIES):
            hands = self.deal(rng)
            weight = self.bid_weight(hands)
            if rng.random() < weight:
                return hands
            if weight > best_weight:
                best, best_weight = hands, weight
        return best


# --- decisions ------------------------------------------------------------------------------


def candidate_cards(seen: Seen) -> list[int]:
    """The legal cards, one per group of cards that are equal for trick-taking."""
    legal = legal_masks(seen.hand, seen.trick, seen.broken)
    out = []
    for k in range(4):
        m = legal[k]
        prev = -1
        for r in range(13):
            if not m >> r & 1:
                continue
            # Touching with the previous card when no card still out lies between them.
            if prev >= 0 and not (seen.out[k] >> (prev + 1)) & ((1 << (r - prev - 1)) - 1):
                prev = r
                continue
            out.append(k * 13 + r)
            prev = r
    return out


def pro_card(seen: Seen, rng: random.Random, samples: int, time_limit: float | None) -> int:
    candidates = candidate_cards(seen)
    if len(candidates) == 1:
        return candidates[0]
    bids = [b if b is not None else 1 for b in seen.bids]
    heuristic = play_card(
        seen.seat, seen.hand, seen.out, seen.trick, bids, seen.won, seen.broken, seen.tricks_left
    )
    # Equal-value candidates fall back to the heuristic's card (or its trick-taking twin).
    candidates.sort(key=lambda c: (c // 13 != heuristic // 13, abs(c - heuristic)))
    start = time.perf_counter()
    sampler = Sampler(seen, list(seen.counts))
    team = seen.seat & 1
    leader = seen.trick[0][0] if seen.trick else seen.seat
    totals = [0.0] * len(candidates)
    alive = list(range(len(candidates)))
    # After a quarter and after half of the samples, the weaker half of the candidates drops out;
    # the survivors keep sharing every sample, so their totals stay comparable.
    checkpoints = {max(1, samples // 4), max(2, samples // 2)}
    done = 0
    while done < samples:
        hands = sampler.sample(rng)
        for i in alive:
            card = candidates[i]
            sim = [list(h) for h in hands]
            sim[seen.seat][card // 13] ^= 1 << (card % 13)
            won = list(seen.won)
            trick = [*seen.trick, (seen.seat, card)]
            broken = seen.broken or card // 13 == SPADE
            if len(trick) == 4:
                winner = trick_best(trick)[0]
                won[winner] += 1
                playout(sim, [], bids, won, broken, winner)
            else:
                playout(sim, trick, bids, won, broken, leader)
            totals[i] += hand_outcome(team, bids, won, seen.bags, seen.scores, seen.target)
        done += 1
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        if done in checkpoints and len(alive) > 2:
            alive.sort(key=lambda i: (-totals[i], i))
            alive = sorted(alive[: max(2, (len(alive) + 1) // 2)])
    best = max(alive, key=lambda i: (totals[i], -i))
    return candidates[best]


def pro_bid(seen: Seen, rng: random.Random, samples: int, time_limit: float | None) -> int:
    me, partner = seen.seat, seen.seat ^ 2
    team = me & 1
    partner_bid = seen.bids[partner]
    base = heuristic_bid(seen.hand, partner_bid)
    contract_bid = max(1, base) if base else max(1, int(estimate_masks(seen.hand) + 0.5))
    # Nil is worth simulating for a hand that is not obviously strong, beside a non-Nil partner.
    try_nil = partner_bid != 0 and nil_risk(seen.hand) < 3.5 and estimate_masks(seen.hand) < 3.5
    sampler = Sampler(seen, [13, 13, 13, 13])
    start = time.perf_counter()
    by_bid = [0.0] * 14
    done = 0
    leader = (seen.dealer + 1) & 3
    while done < samples:
        hands = sampler.sample(rng)
        for nil in (False, True) if try_nil else (False,):
            bids = list(seen.bids)
            bids[me] = 0 if nil else contract_bid
            # Seats after me bid with the heuristic, in bidding order.
            for k in range(1, 4):
                s = (me + k) & 3
                if s == leader:
                    break
                if bids[s] is None:
                    bids[s] = heuristic_bid(hands[s], bids[s ^ 2])
            full: list[int] = [b if b is not None else 1 for b in bids]
            sim = [list(h) for h in hands]
            won = [0, 0, 0, 0]
            playout(sim, [], full, won, False, leader)
            if nil:
                by_bid[0] += hand_outcome(team, full, won, seen.bags, seen.scores, seen.target)
            else:
                for b in range(1, 14):
                    full[me] = b
                    by_bid[b] += hand_outcome(team, full, won, seen.bags, seen.scores, seen.target)
        done += 1
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
    if not try_nil:
        by_bid[0] = -math.inf
    return max(range(14), key=lambda b: (by_bid[b], -abs(b - base)))


def decide(seen: Seen, rng: random.Random, samples: int, time_limit: float | None) -> dict[str, Any]:
    if seen.phase == "bid":
        return {"type": "bid", "tricks": pro_bid(seen, rng, samples, time_limit)}
    return {"type": "play", "card": ACE_HIGH_CARD_OF[pro_card(seen, rng, samples, time_limit)]}

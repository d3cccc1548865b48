"""The pro Zhol bot: determinized search over sampled hands of the next player, and outs arithmetic.

A decision is made from the seat's view only (`Knowledge`):

- The next player's hidden cards are sampled (`Opponents`): the cards it is known to hold (taken
  from the discard pile) are kept, the rest drawn from the cards this seat has not seen, by a
  Metropolis chain whose hands are as close to a Zhol as a player's hand typically is after that
  many turns (measured in bot play); a sampled hand that would have taken a card it let pass
  counts less. The samples tell how likely each discard is to hand the next player its Zhol, and
  how likely each unseen card is to sit in that hand rather than in the stock.
- A hand's speed is the expected number of draws it still needs (`expected_draws`): for the next
  step the live outs (cards that lower its deficiency, counted by their chance to be in the
  stock), for the step after each improving draw the best hand it allows and that hand's outs,
  and a typical step for every step further.
- A discard is chosen among those leaving the fewest cards to draw (or one more, to keep a likely
  winning card from the next player) by the chance to win the race: the chance the next player
  does not win with the discard, times the chance to finish first drawing at these speeds.
- A draw takes the open card when it wins, lowers the deficiency, or leaves a faster hand.

The budget is fixed per decision (module constants), so the choice is a function of the view and
the random generator; the large game looks at fewer cards two steps ahead.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.cards import CARD_INDEX, CARD_OF, JOKER_INDEX
from engines.meld_solver import goes_out
from engines.zhol.bots import hand as bh
from engines.zhol.bots.knowledge import Knowledge
from engines.zhol.rules import RULES

# The pro budget per variant; change the entries (tests and benchmarks do) to trade strength for
# time. chain/burn/thin: the Metropolis steps sampling the next player's hand, the first ones
# dropped and one hand kept every `thin` steps. two_step_cards: how many improving draws (the most
# likely first) are looked at two steps ahead; keeps: how many of the best discards after such a
# draw have their outs counted; exact: the large game's hand arithmetic without its shortcut
# (`hand.waste`). The shortcut misjudges which discards leave the fewest cards to draw in about one
# large decision in five, yet the exact count made the large pro no stronger against `solver` at
# twice the CPU (docs/bots.md, "Tried and not kept"), so it stays off.
PRO: dict[str, dict[str, Any]] = {
    "small": {"chain": 400, "burn": 40, "thin": 6, "two_step_cards": 40, "keeps": 8},
    "large": {"chain": 160, "burn": 20, "thin": 4, "two_step_cards": 6, "keeps": 2, "exact": False},
}
CLOSER = 0.05  # what handing the next player a card that brings it closer costs, against a win

# Switches, for measuring what each part is worth.
FEATURES: dict[str, bool] = {
    "two_step": True,
    "defence": True,
    "infer": True,
    "live": True,
    "take_equal": False,
    "closer_race": False,
}

# The share of unseen cards that improve a hand still missing 1, 2, ... cards, as measured in
# bot play: what a step further away is assumed to cost.
TYPICAL = {"small": (0.12, 0.2, 0.29, 0.4, 0.5), "large": (0.17, 0.21, 0.28, 0.39, 0.49, 0.55, 0.6)}

# How far from a Zhol (deficiency 1, 2, ...) the next player's hand is after t turns of play, as
# measured between hard bots (t = 0, 1, ...; the last row for later turns), and how far a hand of
# unseen cards dealt at random is: the sampler weighs a hand by the first over the second.
PLAYED = {
    "small": (
        (0.02, 0.24, 0.57, 0.16, 0.01),
        (0.075, 0.4, 0.495, 0.03, 0.001),
        (0.18, 0.52, 0.3, 0.003, 0.001),
        (0.3, 0.52, 0.18, 0.002, 0.001),
        (0.44, 0.45, 0.11, 0.001, 0.001),
        (0.52, 0.41, 0.066, 0.001, 0.001),
        (0.6, 0.36, 0.043, 0.001, 0.001),
        (0.66, 0.32, 0.025, 0.001, 0.001),
        (0.7, 0.3, 0.006, 0.001, 0.001),
        (0.74, 0.25, 0.005, 0.001, 0.001),
        (0.82, 0.17, 0.006, 0.001, 0.001),
    ),
    "large": (
        (0.007, 0.04, 0.227, 0.433, 0.267, 0.027, 0.001),
        (0.013, 0.097, 0.365, 0.388, 0.134, 0.003, 0.001),
        (0.047, 0.218, 0.44, 0.245, 0.05, 0.001, 0.001),
        (0.111, 0.348, 0.392, 0.122, 0.027, 0.001, 0.001),
        (0.196, 0.399, 0.308, 0.087, 0.01, 0.001, 0.001),
        (0.297, 0.409, 0.249, 0.045, 0.001, 0.001, 0.001),
        (0.38, 0.413, 0.186, 0.021, 0.001, 0.001, 0.001),
        (0.477, 0.379, 0.126, 0.019, 0.001, 0.001, 0.001),
        (0.565, 0.335, 0.094, 0.005, 0.001, 0.001, 0.001),
        (0.627, 0.32, 0.052, 0.001, 0.001, 0.001, 0.001),
        (0.734, 0.223, 0.034, 0.008, 0.001, 0.001, 0.001),
    ),
}
RANDOM_HAND = {
    "small": (0.0285, 0.275, 0.574, 0.116, 0.006),
    "large": (0.0028, 0.0524, 0.243, 0.4269, 0.2413, 0.0324, 0.0009),
}


class Opponents:
    """Hands of the next player sampled from the cards this seat has not seen (see the module)."""

    def __init__(self, know: Knowledge, rng: random.Random, budget: dict[str, Any], infer: bool):
        seat = know.next_seat
        size = know.size
        exact = budget.get("exact", False)
        known = sorted(know.held[seat].elements())
        pool = know.unknown_cards()
        hidden_n = min(know.hidden_count(seat), len(pool))
        played = PLAYED[know.variant]
        row = played[min(len(know.thrown[seat]), len(played) - 1)]
        base = RANDOM_HAND[know.variant]
        ratio = [0.0] + [row[i] / base[i] for i in range(len(row))]
        ratio += [ratio[-1]] * (size + 2)

        rng.shuffle(pool)
        hidden, rest = pool[:hidden_n], pool[hidden_n:]
        hand = tuple(sorted(known + hidden))
        need = bh.deficiency(hand, size, exact)
        current = ratio[need]
        self.hands: list[tuple[int, ...]] = []
        self.needs: list[int] = []
        steps, burn, thin = budget["chain"], budget["burn"], budget["thin"]
        for step in range(steps):
            if hidden_n and rest:
                i = rng.randrange(hidden_n)
                j = rng.randrange(len(rest))
                hidden[i], rest[j] = rest[j], hidden[i]
                trial = tuple(sorted(known + hidden))
                trial_need = bh.deficiency(trial, size, exact)
                trial_weight = ratio[trial_need]
                if current == 0 or rng.random() * current < trial_weight:
                    hand, need, current = trial, trial_need, trial_weight
                else:
                    hidden[i], rest[j] = rest[j], hidden[i]
            if step >= burn and (step - burn) % thin == 0 and need > 0:
                self.hands.append(hand)
                self.needs.append(need)
        passed = self._passed(know, seat) if infer else []
        self.weights: list[float] = []
        for hand, need in zip(self.hands, self.needs, strict=True):
            w = 1.0
            if need == 1:
                for c in passed:
                    after = bh.deficiency(bh.with_card(hand, c), size, exact)
                    w *= 0.1 if after == 0 else 0.5 if after < need else 1.0
            self.weights.append(w)
        self.total = sum(self.weights) or 1.0
        self.size = size
        self.exact = exact
        self.variant = know.variant

    @staticmethod
    def _passed(know: Knowledge, seat: int) -> list[int]:
        """The last cards offered to `seat` (discarded just before its turn) that it did not take."""
        out = []
        log = know.discard_log
        for i, (by, card, taken_by) in enumerate(log):
            if (by + 1) % know.seats == seat and taken_by is None and i + 1 < len(log):
                out.append(card)
        return out[-4:]

    def danger(self, card: int) -> tuple[float, float, float]:
        """The chances that the next player wins by taking `card` and that it comes closer, and the
        draws taking it saves it on average (the typical step it no longer needs)."""
        win = closer = saved = 0.0
        typical = TYPICAL[self.variant]
        for hand, need, w in zip(self.hands, self.needs, self.weights, strict=True):
            after = bh.deficiency(bh.with_card(hand, card), self.size, self.exact)
            if after == 0:
                win += w
            elif after < need:
                closer += w
                saved += w * (need - after) / typical[min(need, len(typical)) - 1]
        return win / self.total, closer / self.total, saved / self.total

    def holds(self) -> dict[int, float]:
        """Per card, the copies the next player is expected to hold beyond those known."""
        out: dict[int, float] = {}
        for hand, w in zip(self.hands, self.weights, strict=True):
            for c in hand:
                out[c] = out.get(c, 0.0) + w
        return {c: v / self.total for c, v in out.items()}

    def draws(self, variant: str) -> float:
        """The draws the next player typically still needs."""
        if not self.needs:
            return 12.0
        typical = TYPICAL[variant]
        total = 0.0
        for need, w in zip(self.needs, self.weights, strict=True):
            total += w * sum(1.0 / typical[min(j, len(typical)) - 1] for j in range(1, need + 1))
        return total / self.total


def race(mine: float, theirs: float) -> float:
    """My chance to finish first when I need about `mine` draws, they `theirs`, and they draw next."""
    r1 = 1.0 / max(mine, 1.0)
    r2 = 1.0 / max(theirs, 1.0)
    return (1 - r2) * r1 / (1 - (1 - r1) * (1 - r2))


class Search:
    """One pro decision."""

    def __init__(
        self,
        know: Knowledge,
        rng: random.Random,
        features: dict[str, bool] | None = None,
        budget: dict[str, Any] | None = None,
    ):
        self.know = know
        self.size = know.size
        self.features = FEATURES if features is None else features
        self.budget = PRO[know.variant] if budget is None else budget
        self.exact: bool = self.budget.get("exact", False)
        self.typical = TYPICAL[know.variant]
        self.opponents: Opponents | None = None
        if self.features["defence"] and know.phase == "discard":
            self.opponents = Opponents(know, rng, self.budget, self.features["infer"])
        live: dict[int, float] = {c: float(n) for c, n in know.unseen.items() if n > 0}
        if self.opponents is not None and self.features["live"]:
            # a card likely in the next player's hand is less likely to be drawn
            known = know.held[know.next_seat]
            for c, held in self.opponents.holds().items():
                if c in live:
                    live[c] = max(0.0, live[c] - max(0.0, held - known[c]))
        self.live = live
        self.total = max(1.0, sum(live.values()))
        self.cards = sorted(c for c, v in live.items() if v > 0)

    # --- speed of a hand ----------------------------------------------------------------------
    def need(self, hand: tuple[int, ...]) -> int:
        return bh.deficiency(hand, self.size, self.exact)

    def outs(self, hand: tuple[int, ...], need: int) -> tuple[float, list[int]]:
        improving = bh.improving(hand, self.size, self.cards, need, self.exact)
        return sum(self.live[c] for c in improving), improving

    def step(self, outs: float, need: int) -> float:
        """Draws expected for one step with `outs` live outs, at most three typical steps (a hand
        that stalls can still change its shape)."""
        typical = self.typical[min(need, len(self.typical)) - 1]
        return min(self.total / max(outs, 0.25), 3.0 / typical)

    def best_keep_outs(self, hand: tuple[int, ...]) -> float:
        """The most outs of a hand kept from `hand` (size + 1 cards) with the fewest cards to draw."""
        scored = []
        for card in sorted(set(hand)):
            rest = bh.without_card(hand, card)
            scored.append((self.need(rest), card, rest))
        least = min(s[0] for s in scored)
        keeps = [rest for need, _, rest in scored if need == least][: self.budget["keeps"]]
        return max(self.outs(rest, least)[0] for rest in keeps)

    def expected_draws(self, hand: tuple[int, ...], need: int | None = None) -> float:
        """Roughly how many draws `hand` (size cards) still needs to win (see the module)."""
        if need is None:
            need = self.need(hand)
        if need == 0:
            return 0.0
        outs, improving = self.outs(hand, need)
        draws = self.step(outs, need)
        if need >= 2:
            if self.features["two_step"] and improving:
                likely = sorted(improving, key=lambda c: (-self.live[c], c))[: self.budget["two_step_cards"]]
                weight = after = 0.0
                for c in likely:
                    next_outs = self.best_keep_outs(bh.with_card(hand, c))
                    weight += self.live[c]
                    after += self.live[c] * self.step(next_outs, need - 1)
                draws += after / weight
            else:
                draws += 1.0 / self.typical[min(need - 1, len(self.typical)) - 1]
            draws += sum(1.0 / self.typical[min(j, len(self.typical)) - 1] for j in range(1, need - 1))
        return draws

    # --- decisions ----------------------------------------------------------------------------
    def discard(self) -> int:
        know = self.know
        options = sorted({CARD_INDEX[a["card"]] for a in know.legal})
        hand = know.hand
        for card in options:
            rest = bh.without_card(hand, card)
            if goes_out([CARD_OF[c] for c in rest], RULES):
                return card
        scored = []
        for card in options:
            rest = bh.without_card(hand, card)
            scored.append((self.need(rest), card, rest))
        least = min(s[0] for s in scored)
        slack = 1 if self.opponents is not None else 0
        candidates = [(need, card, rest) for need, card, rest in scored if need <= least + slack]
        if len(candidates) == 1:
            return candidates[0][1]
        opponents = self.opponents
        danger = {card: opponents.danger(card) if opponents else (0.0, 0.0, 0.0) for _, card, _ in candidates}
        safest = min(danger[card][0] for need, card, _ in candidates if need == least)
        # a step back is only worth it for a card less likely to hand over the Zhol
        candidates = [c for c in candidates if c[0] == least or danger[c[1]][0] < safest]
        if len(candidates) == 1:
            return candidates[0][1]
        draws = {card: self.expected_draws(rest, need) for need, card, rest in candidates if need == least}
        fastest = min(draws.values())
        theirs = opponents.draws(know.variant) if opponents is not None else 12.0
        best_value, best_card = -1.0, candidates[0][1]
        for need, card, rest in candidates:
            if need == least:
                mine = draws[card]
            else:
                # a step further away costs at least a typical step more than the fastest hand
                extra = 1.0 / self.typical[min(need, len(self.typical)) - 1]
                mine = max(self.expected_draws(rest, need), fastest + extra)
            win, closer, saved = danger[card]
            # the estimate of `win` comes from a few dozen sampled hands: `caution` > 1 weighs it more
            win = min(1.0, self.budget.get("caution", 1) * win)
            if self.features["closer_race"]:
                # a card that brings the next player closer shortens its race by the step saved
                value = race(mine, max(1.0, theirs - saved)) * (1 - win)
            else:
                # feeding a card that only brings the next player closer costs a little
                value = race(mine, theirs) * (1 - win) * (1 - CLOSER * closer)
            if card == JOKER_INDEX:
                value -= 1e-9
            if value > best_value:
                best_value, best_card = value, card
        return best_card

    def draw(self) -> str:
        know = self.know
        can_stock = any(a.get("pile") == "stock" for a in know.legal)
        can_take = any(a.get("pile") == "discard" for a in know.legal)
        if not (can_stock and can_take) or know.top is None:
            return "stock" if can_stock else "discard"
        hand = know.hand
        top = know.top
        taken = bh.with_card(hand, top)
        for card in sorted(set(hand)):
            # the card taken may not go back; winning by throwing another is what counts
            if goes_out([CARD_OF[c] for c in bh.without_card(taken, card)], RULES):
                return "discard"
        now = self.need(hand)
        after = self.need(taken)
        if after < now:
            return "discard"
        if after > now or not self.features["take_equal"]:
            return "stock"
        # the same distance either way: take the open card if it leaves a clearly faster hand.
        # None such when every card of the hand that could go back in its place is needed (the
        # open card only keeps the distance with all of them): then it is not worth taking.
        best = min(
            (
                self.expected_draws(bh.without_card(taken, card))
                for card in sorted(set(hand))
                if self.need(bh.without_card(taken, card)) == now
            ),
            default=None,
        )
        return "discard" if best is not None and 1.0 + best < self.expected_draws(hand, now) else "stock"


def choose(
    know: Knowledge,
    rng: random.Random,
    features: dict[str, bool] | None = None,
    budget: dict[str, Any] | None = None,
) -> Action:
    """The pro's action; `budget` (default `PRO[variant]`) is lighter for hints (engines/hints.py)."""
    search = Search(know, rng, features, budget)
    if know.phase == "draw":
        return {"type": "draw", "pile": search.draw()}
    return {"type": "discard", "card": CARD_OF[search.discard()]}

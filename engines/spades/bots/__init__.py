"""Spades bots at every level, deciding from one seat's view only (docs/bots.md).

- `random`: a uniformly random legal action, the bottom of the ladder.
- `easy`, `medium`, `hard`: the heuristic policy of `engines.spades.bots.policy` (bids by counting likely
  winners, Nil on hands that can duck everything; plays the cheapest sure winner, ducks for a
  winning partner, covers a Nil partner, attacks an opposing Nil, sheds bags once the contract
  is safe), with a documented share of decisions overlooked (`LEVELS[level]["mistakes"]`): such a
  play is a random legal card and such a bid is off by one or two. Lower levels also notice
  less: `easy` forgets the cards of earlier tricks and bids without looking at its partner's
  bid; `easy` and `medium` keep taking tricks (bags) once both contracts are settled.
- `pro`: determinized search (`engines.spades.bots.search`) with no deliberate mistakes; its budget
  is `PRO["samples"]` deals per decision, work and not time, so that how strong it plays never
  depends on how busy its machine is.
- `sound`: the top rung of the ladder (not offered to clients): the same search on
  `SOUND_SAMPLES` deals, each consistent with the voids shown and the trumps played.

Every bot is stateless: what it knows of earlier tricks (cards gone, voids shown) it reads
from the view's `table.played`. A seat with one legal action plays it at once.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.bots import register, register_hint
from engines.cards import ACE_HIGH_CARD_OF
from engines.spades.bots import reasons, search
from engines.spades.bots.policy import heuristic_bid, masks_of, play_card
from engines.spades.bots.seen import Seen

# Share of decisions each heuristic level overlooks, and what it pays attention to.
LEVELS: dict[str, dict[str, Any]] = {
    "easy": {"mistakes": 0.35, "counts_cards": False, "watches_partner": False, "avoids_bags": False},
    "medium": {"mistakes": 0.20, "counts_cards": True, "watches_partner": True, "avoids_bags": False},
    "hard": {"mistakes": 0.05, "counts_cards": True, "watches_partner": True, "avoids_bags": True},
    # The ladder's baseline (bench/bots.py, `cardtable tournament`; not offered to clients):
    # hard with no mistakes.
    "solver": {"mistakes": 0.0, "counts_cards": True, "watches_partner": True, "avoids_bags": True},
}
PRO_SAMPLES = 64
# The pro budget; change the entries (tests and benchmarks do) to trade strength for time. No
# time limit: with one (it was 0.5 s) a loaded worker cut searches short and played weaker.
PRO: dict[str, Any] = {"samples": PRO_SAMPLES, "time_limit": None}
# The `sound` rung's budget (the top of the ladder, not offered to clients): the pro's search on a
# quarter of its samples, each dealt consistently with every void shown and every trump played.
SOUND_SAMPLES = 16
# The pro's budget for a hint (engines/hints.py): tens of milliseconds, inside a request.
HINT: dict[str, Any] = {"samples": 16, "time_limit": 0.04}


def choose_bid(hand: list[str], partner_bid: int | None) -> int:
    """The heuristic bid for `hand` (cards as codes) beside a partner who bid `partner_bid`."""
    return heuristic_bid(masks_of(hand), partner_bid)


def heuristic_action(
    view: dict[str, Any], counts_cards: bool = True, watches_partner: bool = True, avoids_bags: bool = True
) -> Action:
    """The heuristic's decision, without mistakes."""
    seen = Seen(view)
    if seen.phase == "bid":
        partner_bid = seen.bids[seen.seat ^ 2]
        return {"type": "bid", "tricks": heuristic_bid(seen.hand, partner_bid, watches_partner)}
    out = seen.out if counts_cards else seen.forgetful_out()
    bids = [b if b is not None else 1 for b in seen.bids]
    card = play_card(
        seen.seat, seen.hand, out, seen.trick, bids, seen.won, seen.broken, seen.tricks_left, avoids_bags
    )
    return {"type": "play", "card": ACE_HIGH_CARD_OF[card]}


def _mistake(legal: list[Action], intended: Action, rng: random.Random) -> Action:
    """An overlooked decision: a random card, or a bid one or two off (never an accidental Nil)."""
    if intended["type"] == "bid":
        tricks = intended["tricks"]
        if tricks == 0:
            return intended
        return {"type": "bid", "tricks": min(13, max(1, tricks + rng.choice((-2, -1, 1, 2))))}
    return rng.choice(legal)


@register("spades", "random")
def random_bot(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    """The bottom of the ladder; a forced move is played without drawing from `rng`."""
    legal = view["legal_actions"]
    return dict(legal[0] if len(legal) == 1 else rng.choice(legal))


@register("spades", "easy", "medium", "hard", "solver")
def heuristic(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    """A heuristic level (`LEVELS`) for the seat whose view this is."""
    legal = view["legal_actions"]
    if len(legal) == 1:
        return dict(legal[0])
    spec = LEVELS[level]
    action = heuristic_action(view, spec["counts_cards"], spec["watches_partner"], spec["avoids_bags"])
    if rng.random() < spec["mistakes"]:
        action = _mistake(legal, action, rng)
    return action


@register("spades", "pro", "sound")
def pro(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    """Determinized search (`search.decide`) within the `PRO` budget (`sound`: `SOUND_SAMPLES`)."""
    legal = view["legal_actions"]
    if len(legal) == 1:
        return dict(legal[0])
    if level == "sound":
        return search.decide(Seen(view), rng, SOUND_SAMPLES, None)
    return search.decide(Seen(view), rng, PRO["samples"], PRO["time_limit"])


@register_hint("spades")
def hint(view: dict[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    """The pro's search within the `HINT` budget, and why (`reasons.explain`)."""
    action = search.decide(Seen(view), rng, HINT["samples"], HINT["time_limit"])
    return action, reasons.explain(view, action)

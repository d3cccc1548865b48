"""Zhol bots at every level, deciding a draw or a discard from one seat's view only (docs/bots.md).

- `random`: a uniformly random legal action, the bottom of the ladder.
- `easy`, `medium`, `hard`: `heuristic_action`. A draw takes the open card when it wins or lowers
  the hand's deficiency (the cards still to draw, `hand.deficiency`), else the stock. A
  discard wins when it can, else keeps the fewest cards to draw; among equal discards `easy`
  picks at random (keeping jokers), `medium` and `hard` keep the most live outs (unseen cards that
  would lower the deficiency), and `hard` also avoids cards the next player is known to collect
  (it took their neighbours from the discard pile). Each level overlooks its move in a documented
  share of decisions (`LEVELS[level]["mistakes"]`) and then plays a random legal action.
- `solver`: `solver`, the least-deadwood baseline of the ladder (not offered to clients).
- `sound`: `sound`, the top rung of the ladder: live outs, the next player's visible collection,
  the race (not offered to clients).
- `pro`: `pro` (sampled hands of the next player, outs two steps ahead, the race to finish
  first), with no deliberate mistakes.

Every bot is stateless: what it knows of the hand so far (the discard pile, who took what) it
reads from the view's table. A seat with one legal action plays it at once.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.bots import register, register_hint
from engines.cards import CARD_INDEX, CARD_OF, JOKER_INDEX
from engines.meld_solver import goes_out
from engines.zhol.bots import hand as bh
from engines.zhol.bots import pro, solver, sound
from engines.zhol.bots.knowledge import Knowledge
from engines.zhol.rules import RULES

# Per heuristic level: the share of decisions overlooked (a random legal action instead), whether
# equal discards are told apart by their live outs, and whether it keeps back what the next
# player collects. In the large game `outs` looks at the `outs_candidates` least connected equal
# discards only (time). hard overlooks 20%, which keeps it clearly below the `solver` rung of the
# ladder (hard < solver < pro; at 15% it is only just below) and still well above medium.
LEVELS: dict[str, dict[str, Any]] = {
    "easy": {"mistakes": 0.55, "outs": False, "defence": False},
    "medium": {"mistakes": 0.35, "outs": True, "defence": False},
    "hard": {"mistakes": 0.2, "outs": True, "defence": True},
}
OUTS_CANDIDATES = {"small": 8, "large": 3}
# The pro's budget for a hint (engines/hints.py), by variant: tens of milliseconds, inside a
# request. The pro has no time limit: its sampling chain is shortened instead, and in the large
# game, where even one card looked at two steps ahead costs tens of milliseconds, it looks one
# step ahead only.
HINT: dict[str, dict[str, Any]] = {
    "small": {"chain": 60, "burn": 12, "thin": 6, "two_step_cards": 6, "keeps": 2},
    "large": {"chain": 24, "burn": 8, "thin": 4, "two_step_cards": 0, "keeps": 1},
}


@register("zhol", "random", "easy", "medium", "hard", "pro", "solver", "sound")
def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    """The bot's action for the seat whose `view` this is (it must be that seat's turn)."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the bot was asked to move with no legal action")
    if level == "random":
        return dict(rng.choice(legal))
    if len(legal) == 1:
        return dict(legal[0])
    if level == "solver":
        return solver.solver_action(view, rng)
    if level == "sound":
        return sound.sound_action(view, rng)
    know = Knowledge(view)
    if level == "pro":
        return pro.choose(know, rng)
    spec = LEVELS.get(level, LEVELS["medium"])
    if rng.random() < spec["mistakes"]:
        return dict(rng.choice(legal))
    return heuristic_action(know, spec, rng)


def heuristic_action(know: Knowledge, spec: dict[str, Any], rng: random.Random) -> Action:
    if know.phase == "draw":
        return {"type": "draw", "pile": heuristic_draw(know)}
    return {"type": "discard", "card": CARD_OF[heuristic_discard(know, spec, rng)]}


def wins(hand: tuple[int, ...]) -> bool:
    return goes_out([CARD_OF[c] for c in hand], RULES)


def heuristic_draw(know: Knowledge) -> str:
    """Take the open card when it wins or brings the hand closer to a Zhol, else draw the stock."""
    can_stock = any(a.get("pile") == "stock" for a in know.legal)
    can_take = any(a.get("pile") == "discard" for a in know.legal)
    if not (can_stock and can_take) or know.top is None:
        return "stock" if can_stock else "discard"
    taken = bh.with_card(know.hand, know.top)
    if any(wins(bh.without_card(taken, c)) for c in set(know.hand)):
        return "discard"
    if bh.deficiency(taken, know.size) < bh.deficiency(know.hand, know.size):
        return "discard"
    return "stock"


def heuristic_discard(know: Knowledge, spec: dict[str, Any], rng: random.Random) -> int:
    """A winning discard; else one leaving the fewest cards to draw, told apart by the level."""
    options = sorted({CARD_INDEX[a["card"]] for a in know.legal})
    rests = {card: bh.without_card(know.hand, card) for card in options}
    for card in options:
        if wins(rests[card]):
            return card
    needs = {card: bh.deficiency(rests[card], know.size) for card in options}
    least = min(needs.values())
    best = [card for card in options if needs[card] == least]
    # a joker fits anywhere: never the first choice to throw
    best = [c for c in best if c != JOKER_INDEX] or best
    if len(best) > 1 and spec["defence"]:
        risk = {card: feeds(know, card) for card in best}
        low = min(risk.values())
        best = [c for c in best if risk[c] == low]
    if len(best) > 1 and spec["outs"]:
        # the least connected cards first: the likeliest good discards
        hand_mask = bh.present_mask(know.hand)
        best.sort(key=lambda c: (bin(bh.neighbours(c, know.size) & hand_mask).count("1"), c))
        best = best[: OUTS_CANDIDATES[know.variant]]
        cards = sorted(c for c, n in know.unseen.items() if n > 0)
        outs = {
            card: sum(know.unseen[c] for c in bh.improving(rests[card], know.size, cards, least))
            for card in best
        }
        most = max(outs.values())
        best = [c for c in best if outs[c] == most]
    return rng.choice(best)


def feeds(know: Knowledge, card: int) -> int:
    """How many cards the next player is known to hold (taken from the pile, not thrown since)
    that `card` could join in a group."""
    held = [c for c in know.held[know.next_seat].elements() if c != JOKER_INDEX]
    if card == JOKER_INDEX:
        return len(held) + 1
    return sum(1 for c in held if bh.neighbours(card, know.size) & (1 << (2 * c)))


@register_hint("zhol")
def hint(view: dict[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    """The pro within its variant's `HINT` budget, and why (`solver.explain`)."""
    know = Knowledge(view)
    budget = HINT[know.variant]
    features = {**pro.FEATURES, "two_step": budget["two_step_cards"] > 0}
    action = pro.choose(know, rng, features, budget)
    return action, solver.explain(view, action)

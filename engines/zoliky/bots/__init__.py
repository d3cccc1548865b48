"""Žolíky bots at every level, deciding from one seat's view only (docs/bots.md).

- `random`: a uniformly random complete legal action: any discard or a stock draw, plus the
  meld, lay-off, swap or take the novice policy (`choose` below) finds, as one more option.
- `easy`, `medium`, `hard`: the heuristic policy of `policy` (close when the hand can go out,
  open as soon as 42 points with a pure run allow it keeping further melds in hand, lay off, swap
  jokers, take a discard worth more than a stock card, discard by deadwood, outs and the chance to
  go out, sparing what the opponent could use). Each level notices the better move in a share of
  its decisions (`LEVELS[level]["attention"]`); in the others (its mistake rate) it overlooks it and
  plays a random move: a stock draw, or a random normal card discarded at once (no meld, lay-off
  or swap that turn). No level overlooks a way to go out this turn.
- `solver`: `solver`, the least-deadwood baseline of the ladder (not offered to clients).
- `sound`: `sound`, the top rung of the ladder: the heuristic policy with nothing overlooked
  (not offered to clients).
- `pro`: determinized search (`search`), no deliberate mistakes; budget `search.PRO`.

Every bot is stateless: all it uses comes from the view (`knowledge.read_view`).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, cast

from engines.base import Action
from engines.bots import register, register_hint
from engines.cards import JOKER, RANKS
from engines.errors import IllegalAction
from engines.legal import complete
from engines.meld_solver import Split, best_split
from engines.melds import Meld
from engines.zoliky.bots.close import find_close
from engines.zoliky.bots.hand import slots_of
from engines.zoliky.bots.knowledge import Knowledge, read_view
from engines.zoliky.bots.policy import HARD, decide
from engines.zoliky.bots.search import search_action
from engines.zoliky.bots.solver import explain, solver_action
from engines.zoliky.bots.sound import sound_action
from engines.zoliky.rules import RULES, card_points, lay_off_reading, opening_problem, read_meld

# The pro's budget for a hint (engines/hints.py): tens of milliseconds, inside a request.
HINT: dict[str, Any] = {"samples": 8, "candidates": 3, "margin": 1.5, "time_limit": 0.04}

# The share of decisions in which each heuristic level notices the better move; the mistake rate
# is the rest. `easy` plays the novice policy (`choose` below: it counts no cards), the others the
# full heuristic. The rates are set so that each level beats the one below it in about two
# matches of three (bench/bots.py): the game is mostly luck, so the steps must be wide.
LEVELS: dict[str, dict[str, Any]] = {
    "easy": {"attention": 0.25, "novice": True, "style": HARD},
    "medium": {"attention": 0.4, "novice": False, "style": HARD},
    "hard": {"attention": 0.68, "novice": False, "style": HARD},
}


def mistake_rate(level: str) -> float:
    return cast(float, 1.0 - LEVELS[level]["attention"])  # a level's settings are mixed


@register("zoliky", "random", "easy", "medium", "hard", "pro", "solver", "sound")
def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> Action:
    """The decision of a `level` bot for the seat whose view this is."""
    legal = view.get("legal_actions") or []
    if not legal:
        raise IllegalAction("the bot was asked to move when it has no legal action")
    if level == "random":
        return random_action(view, rng)
    if len(legal) == 1 and legal[0]["type"] in ("draw", "discard"):
        return dict(legal[0])
    if level == "solver":
        return solver_action(view, rng)
    if level == "sound":
        return sound_action(view, rng)
    know = read_view(view)
    if level == "pro":
        return search_action(know, view, rng)
    config = LEVELS.get(level, LEVELS["medium"])
    noticed = rng.random() < config["attention"]
    if not noticed and not _can_go_out(know):
        return overlooked(know, rng)
    if config["novice"]:
        return choose(view, rng)
    return decide(know, config["style"])


def overlooked(know: Knowledge, rng: random.Random) -> Action:
    """A move that overlooks the better one: a stock draw, or a random normal card discarded."""
    if know.phase == "draw":
        return {"type": "draw"}
    cards = [a["card"] for a in know.legal if a["type"] == "discard"]
    normals = [c for c in cards if c != JOKER] or cards
    return {"type": "discard", "card": rng.choice(sorted(normals))}


def _can_go_out(know: Knowledge) -> bool:
    """Whether the seat can go out this turn (with the closing card, the discard or its hand)."""
    slots = slots_of(know.melds)
    if know.phase == "draw":
        for card, kind in ((know.closing, "take_closing"), (know.top, "take_discard")):
            if card is not None and kind in know.types:
                if find_close([*know.hand, card], slots, know.opened, must_use=card, swaps=False):
                    return True
        return False
    if know.phase != "play" or not know.may_meld:
        return False
    return find_close(know.hand, slots, know.opened, swaps="swap_joker" in know.types) is not None


def random_action(view: dict[str, Any], rng: random.Random) -> Action:
    """A random complete legal action: draws and discards as listed, plus what the novice finds."""
    legal = view["legal_actions"]
    # The complete entries are the draws and discards; the meld-type ones are templates.
    options: list[Action] = [dict(a) for a in complete(legal)]
    if len(options) < len(legal):
        found = choose(view, rng)
        if found["type"] not in ("draw", "discard"):
            options.append(found)
    return rng.choice(options)


# --- the novice policy (the random level's melds) ---------------------------------------------------


def _cost_keep_jokers(card: str) -> int:
    return card_points(card)


def _cost_use_jokers(card: str) -> int:
    # A joker left unmatched is made expensive so that the split puts it to work.
    return 30 if card == JOKER else card_points(card)


@lru_cache(maxsize=512)
def _split(hand: tuple[str, ...], use_jokers: bool) -> Split:
    """best_split of a sorted hand, cached: one turn asks for the same split several times."""
    return best_split(hand, RULES, _cost_use_jokers if use_jokers else _cost_keep_jokers)


def _without(cards: list[str], used: list[str]) -> list[str]:
    rest = list(cards)
    for c in used:
        rest.remove(c)
    return rest


def _keep_one(melds: list[Meld], leftover: list[str], opened: bool) -> tuple[list[Meld], list[str]] | None:
    """Melds that leave at least one card to discard (and still open when needed); None if impossible."""
    if leftover:
        return melds, leftover
    # Take one card off a meld that stays valid without it: that card is then the closing discard.
    for i, meld in enumerate(melds):
        for card in dict.fromkeys(meld.cards):
            if card == JOKER:
                continue
            smaller = read_meld(_without(list(meld.cards), [card]))
            if smaller is None:
                continue
            trial = [*melds[:i], smaller, *melds[i + 1 :]]
            if opened or opening_problem(trial) is None:
                return trial, [card]
    # Otherwise hold back a whole meld.
    for i, meld in enumerate(melds):
        trial = melds[:i] + melds[i + 1 :]
        if trial and (opened or opening_problem(trial) is None):
            return trial, list(meld.cards)
    return None


def plan_melds(
    hand: list[str], opened: bool, must_use: str | None = None
) -> tuple[list[Meld], list[str]] | None:
    """New melds for this hand (an opening when not opened yet) leaving a card to discard, or None."""
    for use_jokers in (False, True):
        if use_jokers and JOKER not in hand:
            break
        split = _split(tuple(sorted(hand)), use_jokers)
        melds = list(split.melds)
        if not melds:
            continue
        if not opened and opening_problem(melds) is not None:
            continue
        kept = _keep_one(melds, list(split.leftover), opened)
        if kept is None:
            continue
        if must_use is not None and must_use not in [c for m in kept[0] for c in m.cards]:
            continue
        return kept
    return None


def _lay_off_target(card: str, table: list[dict[str, Any]]) -> str | None:
    for meld in table:
        if lay_off_reading(meld, [card]) is not None:
            return cast(str, meld["id"])  # a table meld, as in the view
    return None


def _swap(hand: list[str], table: list[dict[str, Any]]) -> Action | None:
    for meld in table:
        if JOKER not in meld["cards"]:
            continue
        for card in sorted(set(hand) - {JOKER}):
            if meld["kind"] == "run":
                fits = any(
                    c == JOKER and s == card for c, s in zip(meld["cards"], meld["stands_for"], strict=True)
                )
            else:
                naturals = [c for c in meld["cards"] if c != JOKER]
                fits = card[0] == naturals[0][0] and card[1] not in {c[1] for c in naturals}
            if fits:
                return {"type": "swap_joker", "meld": meld["id"], "card": card}
    return None


def _discard(hand: list[str], legal: list[Action]) -> Action:
    """The highest unmatched normal card; a joker only when nothing else is left."""
    allowed = {a["card"] for a in legal if a["type"] == "discard"}
    leftover = [c for c in _split(tuple(sorted(hand)), False).leftover if c != JOKER]
    pool = leftover or [c for c in hand if c != JOKER] or list(hand)
    for card in sorted(pool, key=lambda c: (-card_points(c), c)):
        if card in allowed:
            return {"type": "discard", "card": card}
    return next(a for a in legal if a["type"] == "discard")


def _completes_meld(card: str, hand: list[str]) -> bool:
    """A cheap test before searching: does `card` make a 3-card set or run with two natural cards?"""
    suits = {c[1] for c in hand if c != JOKER and c[0] == card[0]} - {card[1]}
    if len(suits) >= 2:
        return True
    values = {RANKS.index(c[0]) + 1 for c in hand if c != JOKER and c[1] == card[1]}
    if 1 in values:
        values.add(14)  # the ace is also high
    v = RANKS.index(card[0]) + 1
    for own in {v, 14} if v == 1 else {v}:
        if {own - 2, own - 1} <= values or {own - 1, own + 1} <= values or {own + 1, own + 2} <= values:
            return True
    return False


def _melds_body(melds: list[Meld]) -> list[list[str]]:
    return [list(m.cards) for m in melds]


def choose(view: dict[str, Any], rng: random.Random) -> Action:
    """The novice: draw; open or meld when possible; lay off; swap jokers; discard the highest
    unmatched card."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the bot was asked to move when it has no legal action")
    types = {a["type"] for a in legal}
    hand: list[str] = list(view["hand"])
    table: list[dict[str, Any]] = view["table"]["melds"]
    me = view["turn"]["seat"]
    opened = bool(view["table"]["opened"][me])
    phase = view["turn"]["phase"]

    if phase == "draw":
        top = view["discard"]["top"]
        if "take_closing" in types and opened:
            action = _take_closing(hand, view["table"]["closing_card"], opened, table)
            if action is not None:
                return action
        if "take_discard" in types and top is not None and top != JOKER:
            target = _lay_off_target(top, table) if opened else None
            if target is not None:
                return {"type": "take_discard", "melds": [], "lay_offs": [{"meld": target, "cards": [top]}]}
            planned = plan_melds([*hand, top], opened, must_use=top) if _completes_meld(top, hand) else None
            if planned is not None:
                return {"type": "take_discard", "melds": _melds_body(planned[0]), "lay_offs": []}
        return {"type": "draw"}

    if "meld" in types:
        planned = plan_melds(hand, opened)
        if planned is not None:
            return {"type": "meld", "melds": _melds_body(planned[0]), "lay_offs": []}
    if "lay_off" in types and len(hand) >= 2:
        for card in sorted(set(hand) - {JOKER}, key=lambda c: (-card_points(c), c)):
            target = _lay_off_target(card, table)
            if target is not None:
                return {"type": "lay_off", "meld": target, "cards": [card]}
    if "swap_joker" in types:
        action = _swap(hand, table)
        if action is not None:
            return action
    return _discard(hand, legal)


def _take_closing(
    hand: list[str], closing: str | None, opened: bool, table: list[dict[str, Any]]
) -> Action | None:
    """Take the closing card when it lets the bot meld it and go out this turn."""
    if closing is None:
        return None
    cards = [*hand, closing]
    if opened and sum(1 for c in hand if c != JOKER) == 1:
        # Lay the closing card off and discard the last normal card.
        target = _lay_off_target(closing, table)
        if target is not None:
            last = next(c for c in hand if c != JOKER)
            return {
                "type": "take_closing",
                "melds": [],
                "lay_offs": [{"meld": target, "cards": [closing]}],
                "discard": last,
            }
    planned = plan_melds(cards, opened, must_use=closing)
    if planned is None:
        return None
    melds, leftover = planned
    normals = [c for c in leftover if c != JOKER]
    if len(normals) > 1:
        return None
    discard = normals[0] if normals else JOKER
    return {"type": "take_closing", "melds": _melds_body(melds), "lay_offs": [], "discard": discard}


@register_hint("zoliky")
def hint(view: dict[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    """The pro's search within the `HINT` budget, and why (`solver.explain`)."""
    action = search_action(read_view(view), view, rng, HINT)
    return action, explain(view, action)

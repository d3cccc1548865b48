"""Zhol's pure rule helpers, shared by the engine and its bots: the meld rules and variants, the
action shapes, hand order, which cards may be discarded, how a hand splits into groups and the
discard a timed-out seat makes (docs/rules/zhol.md)."""

from __future__ import annotations

from typing import Any

from engines.base import Action, Game
from engines.cards import ALL_CODES, CARD_INDEX, JOKER
from engines.errors import InvalidAction
from engines.meld_solver import Split, best_split
from engines.melds import Meld, MeldRules

RULES = MeldRules(
    ace_low=True,
    ace_high=True,
    min_run=3,
    min_set=3,
    max_set=4,
    set_distinct_suits=True,
    wild_at_run_ends=True,
    max_wilds_per_meld=None,
    allow_all_wild=False,
)
VARIANTS = {
    # variant: (standard decks, jokers, cards per hand)
    "small": (1, 2, 7),
    "large": (2, 4, 14),
}
DRAW_SHAPE = 'a draw is {"type": "draw", "pile": "stock"} or {"type": "draw", "pile": "discard"}'
DISCARD_SHAPE = 'a discard is {"type": "discard", "card": "<card code such as 7H>"}'


def parse_action(action: Any) -> Action:
    """`action` if it has the shape of a draw, a discard or a resignation; InvalidAction."""
    if type(action) is not dict:
        raise InvalidAction('an action is a JSON object such as {"type": "draw", "pile": "stock"}')
    kind = action.get("type")
    if kind == "draw":
        pile = Game.one_field(action, "pile", DRAW_SHAPE)
        if pile not in ("stock", "discard") or type(pile) is not str:
            raise InvalidAction(DRAW_SHAPE)
    elif kind == "discard":
        card = Game.one_field(action, "card", DISCARD_SHAPE)
        if type(card) is not str or card not in ALL_CODES:
            raise InvalidAction(f"{card!r} is not a card code (rank A 2-9 T J Q K, then suit S H D C; or JK)")
    elif kind == "resign":
        Game.check_resign(action)
    else:
        raise InvalidAction(f"unknown action type {kind!r}; Zhol knows draw, discard and resign")
    return action


def sort_hand(cards: list[str]) -> list[str]:
    """By suit (S H D C), ace low to king, jokers last: the order of `CARD_INDEX`."""
    return sorted(cards, key=CARD_INDEX.__getitem__)


def unmatched(card: str) -> int:
    """What a card left outside groups costs when splitting a hand: only whether a split is
    complete matters in Zhol, so every card counts 1."""
    return 1


def meld_json(meld: Meld) -> dict[str, Any]:
    return {"kind": meld.kind, "cards": list(meld.cards), "stands_for": list(meld.stands_for)}


def winning_melds(split: Split, variant: str) -> list[Meld]:
    """The split as shown: in the small game a run of 7 is shown as a group of 3 and one of 4."""
    melds = list(split.melds)
    if variant == "small" and len(melds) == 1 and len(melds[0].cards) == 7:
        run = melds[0]
        # with two jokers at most, either cut leaves a natural card in each part
        for cut in (3, 4):
            parts = [(run.cards[:cut], run.stands_for[:cut]), (run.cards[cut:], run.stands_for[cut:])]
            if all(any(c != JOKER for c in cards) for cards, _ in parts):
                ace_high = run.ace_high
                return [
                    Meld("run", cards, stands, ace_high and stands[-1][0] == "A") for cards, stands in parts
                ]
    return melds


def hand_split(seat: int, cards: list[str], winner: int | None, variant: str) -> dict[str, Any]:
    """A seat's cards at the end of a hand with their best split into groups (the winner's as
    shown, `winning_melds`) and the cards left over."""
    split = best_split(cards, RULES, unmatched)
    melds = winning_melds(split, variant) if seat == winner else list(split.melds)
    return {
        "seat": seat,
        "cards": list(cards),
        "melds": [meld_json(m) for m in melds],
        "leftover": sort_hand(list(split.leftover)),
    }


def discardable(hand: list[str], taken: str | None) -> list[str]:
    """The codes of `hand` (sorted) that may be discarded: each once, and not the card just taken
    from the discard pile unless a second copy is held."""
    out: list[str] = []
    for c in hand:
        if (not out or out[-1] != c) and (c != taken or hand.count(c) >= 2):
            out.append(c)
    return out


def choose_discard(hand: list[str], taken: str | None) -> str:
    """The discard leaving the fewest cards outside groups; ties go to the highest card in hand
    order (jokers are kept when possible)."""
    best, best_left = None, None
    for card in reversed(discardable(hand, taken)):
        rest = list(hand)
        rest.remove(card)
        left = best_split(rest, RULES, unmatched).points + (card == JOKER)
        if best_left is None or left < best_left:
            best, best_left = card, left
    assert best is not None
    return best

"""Žolíky card points, meld reading and the opening test, shared by the engine and its bot."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from engines.cards import CARD_INDEX, JOKER, RANK_VALUE, rank, suit
from engines.melds import Meld, MeldRules, classify, interpretations

# docs/rules/zoliky.md "Melds": aces low or high (never wrapping), sets of 3–4 distinct suits,
# a joker never at either end of a run.
RULES = MeldRules(ace_low=True, ace_high=True, max_set=4, set_distinct_suits=True, wild_at_run_ends=False)
# The same rules with jokers allowed at run ends, only to explain a refusal in words.
_RULES_WILD_ENDS = MeldRules(ace_low=True, ace_high=True, max_set=4, set_distinct_suits=True)

OPENING_POINTS = 42
FIRST_MELDING_TURN = 7
CUTTER_HAND = 13
OTHER_HAND = 12
CUT_REVEALS = 3


def rank_points(r: str) -> int:
    """Points of a rank for the 42: 2–10 face value, J Q K 10, ace 11 (also in A-2-3)."""
    if r == "A":
        return 11
    return min(RANK_VALUE[r], 10)


def card_points(code: str) -> int:
    """Points of a card left in hand: a joker there stands for no card, so it counts 0."""
    return 0 if code == JOKER else rank_points(rank(code))


def meld_points(meld: Meld) -> int:
    """Points of a meld for the opening: every joker counts as the card it stands for."""
    return sum(rank_points(code[0]) for code in meld.stands_for)


def read_meld(cards: Sequence[str], kind: str | None = None) -> Meld | None:
    """The reading of `cards` as one meld (of `kind` when given), worth the most points; None if none."""
    readings = [m for m in interpretations(list(cards), RULES) if kind is None or m.kind == kind]
    if not readings:
        return None
    return max(readings, key=meld_points)


def _joker_stands(cards: Sequence[str], stands_for: Sequence[str]) -> list[str]:
    return [s for c, s in zip(cards, stands_for, strict=True) if c == JOKER]


def joker_cards(meld: dict[str, Any]) -> list[str]:
    """The cards the jokers of a table meld stand for (a set's open suit shows as "7?")."""
    return _joker_stands(meld["cards"], meld["stands_for"])


def lay_off_reading(meld: dict[str, Any], cards: Sequence[str]) -> Meld | None:
    """Table meld `meld` with `cards` laid off, read as it lies; None when they do not fit.

    docs/rules/zoliky.md, "Laying off": the meld keeps its kind and every joker of a run keeps the card
    it stands for, so the card a joker stands for goes in only by a joker swap. A set's joker
    keeps its rank, its suit may still settle (as a set of 3 fills up). The engine judges every
    lay-off with this and the bots plan theirs with it.
    """
    readings = interpretations([*meld["cards"], *cards], RULES)
    readings = [m for m in readings if m.kind == meld["kind"]]
    if meld["kind"] == "run":
        fixed = Counter(joker_cards(meld))
        readings = [m for m in readings if not fixed - Counter(_joker_stands(m.cards, m.stands_for))]
    if not readings:
        return None
    return max(readings, key=meld_points)


def why_no_lay_off(meld: dict[str, Any], cards: Sequence[str]) -> str:
    """A player-facing reason why `cards` cannot be laid off on the table meld `meld`."""
    head = f"{describe(cards)} cannot be laid off on {meld['id']} ({describe(meld['cards'])})"
    held = [c for c in joker_cards(meld) if c in cards] if meld["kind"] == "run" else []
    if held:
        return (
            f"{head}: a joker on the table keeps the card it stands for, and the joker there stands "
            f"for {held[0]}; {held[0]} goes in only by a joker swap"
        )
    return f"{head}: the {meld['kind']} would not stay valid"


def is_pure_run(meld: Meld) -> bool:
    return meld.kind == "run" and JOKER not in meld.cards


def opening_problem(melds: Sequence[Meld]) -> str | None:
    """Why these new melds cannot be a first meld, in a player's words; None when they can."""
    worth = sum(meld_points(m) for m in melds)
    short = worth < OPENING_POINTS
    impure = not any(is_pure_run(m) for m in melds)
    if short and impure:
        return (
            f"the first meld needs at least {OPENING_POINTS} points and a run without jokers; "
            f"these melds are worth {worth} and have no such run"
        )
    if short:
        return f"the first meld needs at least {OPENING_POINTS} points; these melds are worth {worth}"
    if impure:
        return "the first meld needs a run without jokers"
    return None


def describe(cards: Iterable[str]) -> str:
    return " ".join(cards)


def why_not_a_meld(cards: Sequence[str]) -> str:
    """A player-facing reason why `cards` form no meld."""
    shown = describe(cards)
    naturals = [c for c in cards if c != JOKER]
    if len(cards) < 3:
        return f"a meld needs at least 3 cards; {shown} has {len(cards)}"
    if not naturals:
        return "a meld needs at least one normal card besides jokers"
    if len({rank(c) for c in naturals}) == 1:
        if len(cards) > 4:
            return f"{shown} is not a meld: a set has at most 4 cards"
        twice = [c for c, n in Counter(naturals).items() if n > 1]
        if twice:
            return f"{shown} is not a meld: two {twice[0]} cannot be in one set"
    if classify(list(cards), _RULES_WILD_ENDS) is not None:
        return f"{shown} is not a meld: a joker may stand only inside a run, not at its end"
    if len({suit(c) for c in naturals}) > 1 and len({rank(c) for c in naturals}) > 1:
        return f"{shown} is not a meld: a run needs one suit and a set one rank"
    return f"{shown} is neither a run nor a set"


def hand_shortfall(hand: Sequence[str], used: Iterable[str]) -> str | None:
    """Which used card the hand lacks, in words; None when the hand holds them all."""
    have = Counter(hand)
    for card, n in sorted(Counter(used).items()):
        if have[card] < n:
            if have[card] == 0:
                return f"you do not hold {card}"
            return f"you hold only {have[card]} × {card}, not {n}"
    return None


def sort_key(code: str) -> int:
    """Hand order: by suit (S H D C), then rank A…K; jokers last (the order of `CARD_INDEX`)."""
    return CARD_INDEX[code]


def copy_meld(meld: dict[str, Any]) -> dict[str, Any]:
    return {**meld, "cards": list(meld["cards"]), "stands_for": list(meld["stands_for"])}


def copy_melds(melds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of table melds: views are built often, and this is three times faster than
    engines.base.json_copy on them."""
    return [copy_meld(m) for m in melds]

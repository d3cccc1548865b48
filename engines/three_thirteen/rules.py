"""Three Thirteen's fixed tables: rounds, wild ranks, card points, melds (docs/rules/three-thirteen.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.cards import CARD_INDEX, JOKER, deck
from engines.melds import MeldRules

BASE_DECK = 104
JOKERS = 4  # two decks, each with its two jokers, as in Žolíky and large Zhol
FALSE_OUT_PENALTY = 20
UNUSED_WILD_POINTS = 15
JOKER_POINTS = 20
HIGH_ACE_POINTS = 15

# The wild rank is the number of cards dealt: 3…9, T (10), J, Q, K; the extra rounds' 14 and 15
# cards make aces and then 2s wild.
WILD_RANK = {n: r for n, r in zip(range(3, 16), "3456789TJQKA2", strict=True)}
FACE_ROUND_SIZES = frozenset({11, 12, 13})
FACE_POINTS = {"J": 11, "Q": 12, "K": 13}
RANK_POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


def schedule(options: dict[str, Any]) -> list[int]:
    """The number of cards dealt in each round, first round first."""
    up = list(range(3, 16 if options.get("extra_rounds") else 14))
    if options.get("up_and_down"):
        # 3→13 and back 13→3: 22 rounds, the 13-card round twice.
        return up + up[::-1]
    return up


def full_deck(options: dict[str, Any]) -> list[str]:
    return deck(copies=2, jokers=JOKERS if options.get("jokers_wild") else 0)


def meld_rules(options: dict[str, Any], hand_size: int) -> MeldRules:
    return MeldRules(
        ace_low=True,
        ace_high=bool(options.get("aces_high_low")),
        max_set=None,
        set_distinct_suits=False,
        wild_at_run_ends=True,
        max_wilds_per_meld=None if options.get("multiple_wilds") else 1,
        allow_all_wild=bool(options.get("all_wild_melds")),
        wild_rank=WILD_RANK[hand_size],
    )


def card_points(card: str, options: dict[str, Any], wild_rank: str) -> int:
    """What `card` costs when it is left unmatched at the end of a round (before doubling)."""
    if card == JOKER:
        return JOKER_POINTS
    rank = card[0]
    if rank == wild_rank:
        return UNUSED_WILD_POINTS
    if rank == "A" and options.get("aces_high_low"):
        return HIGH_ACE_POINTS
    if rank in FACE_POINTS and options.get("face_cards_11_12_13"):
        return FACE_POINTS[rank]
    return RANK_POINTS[rank]


def points_function(options: dict[str, Any], hand_size: int) -> Callable[[str], int]:
    """`card_points` for one round, as the fast lookup `best_split` calls for every card."""
    key = (bool(options.get("aces_high_low")), bool(options.get("face_cards_11_12_13")), hand_size)
    table = _POINT_TABLES.get(key)
    if table is None:
        wild_rank = WILD_RANK[hand_size]
        table = {c: card_points(c, options, wild_rank) for c in set(deck(copies=1, jokers=1))}
        _POINT_TABLES[key] = table
    return table.__getitem__


_POINT_TABLES: dict[tuple[bool, bool, int], dict[str, int]] = {}


def doubled(options: dict[str, Any], hand_size: int) -> bool:
    return bool(options.get("double_face_rounds")) and hand_size in FACE_ROUND_SIZES


def sort_key(card: str) -> int:
    """Hands are shown by suit (S H D C), ace low to king, jokers last (the order of `CARD_INDEX`)."""
    return CARD_INDEX[card]


def sorted_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=sort_key)

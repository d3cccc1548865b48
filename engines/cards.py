"""Card codes, ranks, suits and decks shared by all four games."""

from __future__ import annotations

from typing import TypeGuard

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "JK"

# Rank number of each rank letter: ace 1 … king 13 (ace-high games map A to 14 themselves).
RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}
RANK_OF_VALUE = {v: r for r, v in RANK_VALUE.items()}

STANDARD_52 = tuple(r + s for s in SUITS for r in RANKS)
ALL_CODES = frozenset(STANDARD_52) | {JOKER}

# Cards as small ints, for the bots' and the meld solver's bit arithmetic. Both layouts are
# 13 * suit + rank with suits in S H D C order, so `i // 13` is the suit and `i % 13` the rank;
# they differ in the rank order, because rummy runs start at the ace and Spades ranks it highest.
#
# The rummy layout (meld solver, Zhol bots, hand order): rank 0 = ace … 12 = king, the joker 52.
# It is the position in STANDARD_52.
JOKER_INDEX = 52
CARD_OF = (*STANDARD_52, JOKER)  # int -> code
CARD_INDEX = {code: i for i, code in enumerate(CARD_OF)}  # code -> int
#
# The ace-high layout (Spades): rank 0 = '2' … 12 = ace, no joker.
ACE_HIGH_RANKS = "23456789TJQKA"
ACE_HIGH_CARD_OF = tuple(r + s for s in SUITS for r in ACE_HIGH_RANKS)  # int -> code
ACE_HIGH_INDEX = {code: i for i, code in enumerate(ACE_HIGH_CARD_OF)}  # code -> int


def is_card(code: object) -> TypeGuard[str]:
    return isinstance(code, str) and code in ALL_CODES


def is_joker(code: str) -> bool:
    return code == JOKER


def rank(code: str) -> str:
    return code[0]


def suit(code: str) -> str:
    return code[1]


def deck(copies: int = 1, jokers: int = 0) -> list[str]:
    """A fresh unshuffled deck: `copies` standard decks plus `jokers` jokers."""
    return list(STANDARD_52) * copies + [JOKER] * jokers


def same_multiset(a: list[str], b: list[str]) -> bool:
    """True when `a` is a permutation of `b` (copies of a code count separately)."""
    return len(a) == len(b) and sorted(a) == sorted(b)


def card_of(index: int) -> str:
    """The card code of a rummy-layout int (`CARD_OF`)."""
    return CARD_OF[index]

"""Card codes, ranks, suits and decks shared by all four games."""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "JK"

# Rank number of each rank letter: ace 1 … king 13 (ace-high games map A to 14 themselves).
RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}
RANK_OF_VALUE = {v: r for r, v in RANK_VALUE.items()}

STANDARD_52 = tuple(r + s for s in SUITS for r in RANKS)
ALL_CODES = frozenset(STANDARD_52) | {JOKER}


def is_card(code: object) -> bool:
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

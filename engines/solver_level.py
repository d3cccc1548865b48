"""The `solver` baseline shared by the rummy games: the least deadwood by the exact meld solver.

The `solver` level is a rung of the strength ladder (`cardtable tournament`, bench/bots.py), not
a level clients can seat: a simple but sound player the stronger levels are measured against
(docs/bots.md, "The solver baseline"). After each draw it keeps the hand whose exact best split
(`engines.melds.best_split`) leaves the least deadwood, takes the discard only when that lowers its
deadwood, and throws the card whose removal leaves the least deadwood, the dearest first on ties.

This module holds what the rummy games' solver levels share (each game's bots/solver.py): the
discard rule and reasons in words for hints; and `LADDER_ONLY_LEVELS`, the levels of every game
that exist for the ladder only (Spades' `solver` is its heuristic without mistakes, no meld solver;
`sound`, the top rung, is each game's bots/sound.py or Spades' search on a smaller budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engines.meld_solver import best_split
from engines.melds import Meld, MeldRules, classify

# Levels that exist for measuring only: accepted by the tournament, never by the API.
LADDER_ONLY_LEVELS = ("solver", "sound")


def least_deadwood(
    options: Iterable[str], deadwood_without: Callable[[str], int], dearness: Callable[[str], float]
) -> tuple[str, int]:
    """The card to throw: the least deadwood left without it, then the dearest, then by code."""
    scored = [(deadwood_without(card), -dearness(card), card) for card in sorted(set(options))]
    left, _, card = min(scored)
    return card, left


def meld_words(meld: Meld) -> str:
    """A meld as a player would say it: "a run 5H-6H-7H" or "a set 7S-7H-7D"."""
    return f"a {meld.kind} {'-'.join(meld.cards)}"


def take_reason(kept: list[str], card: str, rules: MeldRules, points: Callable[[str], int]) -> str:
    """Why taking `card` from the discard pile helps: the meld of the kept hand it completes or
    extends (a meld that stays one without it is extended)."""
    split = best_split(kept, rules, points)
    meld = next((m for m in split.melds if card in m.cards), None)
    if meld is None:
        return f"taking {card} lowers the deadwood"
    rest = list(meld.cards)
    rest.remove(card)
    completes = classify(rest, rules) is None
    return f"{card} {'completes' if completes else 'extends'} {meld_words(meld)}"


def amount(n: int, unit: str) -> str:
    """ "3 cards", "1 card", "0 points"."""
    return f"{n} {unit[:-1] if n == 1 and unit.endswith('s') else unit}"


def discard_reason(card: str, left: int, unit: str, best: bool) -> str:
    """Why throwing `card`: the deadwood it leaves, and whether that is the least possible."""
    amount_left = amount(left, unit)
    if best:
        return f"throwing {card} leaves the least deadwood ({amount_left})"
    return f"throwing {card} leaves {amount_left} of deadwood and keeps better chances to improve"

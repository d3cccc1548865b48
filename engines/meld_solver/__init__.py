"""The exact best split of a rummy hand into melds, for the rummy engines and their bots.

Public API:
- `best_split(hand, rules, points)`: the split of a hand into disjoint melds that leaves the fewest
  points unmatched, as a `Split`.
- `goes_out(hand, rules)`: whether the whole hand melds (faster than `best_split` for that).
- `clear_shape_cache()`: forget the meld shapes cached across hands (bench/solver.py times every
  hand cold with it).

What counts as a meld is `engines.melds` (`MeldRules`, `Meld`); this package only searches.
Decisions (also in docs/rules/cards.md, "How the engine reads melds"): the split is exact for
points >= 0; spare wilds go into melds with room, the dearest first, and wild-rank cards act as
themselves or as wilds, whichever is better. The result is deterministic for a given hand (in
any order) and rules. bench/solver.py measures both kinds of hard hands.

Inside: `_search` is the search (`Solver`), `_hand` sets it up for a hand, `_replay` turns its
recorded choices back into melds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engines.meld_solver._hand import setup
from engines.meld_solver._replay import rebuild
from engines.meld_solver._search import INF, SHAPES
from engines.melds import Meld, MeldRules

__all__ = ["Split", "best_split", "clear_shape_cache", "goes_out"]


@dataclass(frozen=True)
class Split:
    """A split of a hand into disjoint melds plus the unmatched cards."""

    melds: tuple[Meld, ...]
    leftover: tuple[str, ...]
    points: int  # sum of points(c) over leftover, minimal over all splits


def best_split(hand: Iterable[str], rules: MeldRules, points: Callable[[str], int]) -> Split:
    """The split of `hand` into disjoint valid melds with the least points unmatched (exact).

    `points(card)` (>= 0) is what an unmatched card costs, wild cards included. The result is
    deterministic for a given hand (in any order) and rules.
    """
    ready = setup(hand, rules, points)
    assert ready is not None
    total = ready.solver.solve(ready.naturals, ready.pool, 0, INF) + sum(points(c) for c in ready.leftover)
    melds, leftover = rebuild(ready)
    assert sum(points(c) for c in leftover) == total
    return Split(tuple(melds), tuple(leftover), total)


def goes_out(hand: Iterable[str], rules: MeldRules) -> bool:
    """Whether the whole hand splits into valid melds (faster than `best_split` for that)."""
    ready = setup(hand, rules, _one_point, give_up_on_dead=True)
    if ready is None:
        return False
    return ready.solver.solve(ready.naturals, ready.pool, 0, 1) == 0


def _one_point(card: str) -> int:
    return 1


def clear_shape_cache() -> None:
    """Forget the meld shapes the search caches across hands (they are rebuilt on demand)."""
    SHAPES.clear()

"""Seeded randomness whose whole state lives in the match state.

A match keeps its secret seed and a counter of draws made so far. Each shuffle
seeds a fresh `random.Random` from (seed, counter): string seeds are hashed with
SHA-512 by CPython, so the sequence is the same on every platform and version,
and the state stays two integers instead of Mersenne Twister's 625 words.
"""

from __future__ import annotations

import random
from typing import Any


def _next(rng_state: dict[str, Any]) -> random.Random:
    counter = rng_state["counter"]
    rng_state["counter"] = counter + 1
    return random.Random(f"cardtable:{rng_state['seed']}:{counter}")


def new_rng_state(seed: int) -> dict[str, Any]:
    return {"seed": int(seed), "counter": 0}


def shuffle(rng_state: dict[str, Any], items: list[Any]) -> None:
    """Shuffle `items` in place and advance the match's RNG."""
    _next(rng_state).shuffle(items)


def randbelow(rng_state: dict[str, Any], n: int) -> int:
    return _next(rng_state).randrange(n)

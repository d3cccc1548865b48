"""Seeded randomness whose whole state lives in the match state, and deal commitments.

A match keeps its secret seed and a counter of draws made so far. Each shuffle
seeds a fresh `random.Random` from (seed, counter): string seeds are hashed with
SHA-512 by CPython, so the sequence is the same on every platform and version,
and the state stays two integers instead of Mersenne Twister's 625 words.

Every deal (and every reshuffle of a discard pile into a new stock) is committed
to: `seal_deck` hashes a secret salt with the deck order (layout in docs/api.md,
"Fair deals"). The salt is HMAC-SHA256 under the match's `deal_key`, a 256-bit
secret the service draws from the OS for each match, keyed on the draw counter so
every shuffle gets its own; an engine stays deterministic and does no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any


def _next(rng_state: dict[str, Any]) -> random.Random:
    counter = rng_state["counter"]
    rng_state["counter"] = counter + 1
    return random.Random(f"cardtable:{rng_state['seed']}:{counter}")


def new_rng_state(seed: int, deal_key: str | None = None) -> dict[str, Any]:
    """The RNG of a new match; `deal_key` (64 hex digits) keys the deal salts.

    Without a key (engines used offline: tests, tournaments) the key is derived from the
    seed, which only someone who knows the seed can predict; the service always passes one.
    """
    if deal_key is None:
        deal_key = hashlib.sha256(f"cardtable-deal-key:{int(seed)}".encode()).hexdigest()
    return {"seed": int(seed), "counter": 0, "deal_key": deal_key}


def shuffle(rng_state: dict[str, Any], items: list[Any]) -> None:
    """Shuffle `items` in place and advance the match's RNG.

    This is `random.Random.shuffle`'s Fisher-Yates draw for draw (each swap index drawn with
    `getrandbits`, redrawn while out of range, as its `_randbelow` does), written out without
    its Python call a card (52 cards: 7.2 against 11.9 µs, seeding aside), and so that a seed
    deals the same matches whatever a Python version does inside `shuffle`.
    tests/engines/test_deal_commitments.py checks it against `random.Random.shuffle`."""
    getrandbits = _next(rng_state).getrandbits
    bits = _BITS if len(items) < len(_BITS) else [n.bit_length() for n in range(len(items) + 1)]
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = bits[n]  # n.bit_length(), without a method call a card
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


# int.bit_length() of 0..160: every deck and pile the games shuffle is shorter (two decks and four
# jokers are 108 cards).
_BITS = [n.bit_length() for n in range(161)]


def randbelow(rng_state: dict[str, Any], n: int) -> int:
    return _next(rng_state).randrange(n)


def _deal_key(rng_state: dict[str, Any]) -> bytes:
    # Matches stored before deal keys existed fall back to the seed-derived key.
    key = rng_state.get("deal_key") or new_rng_state(rng_state["seed"])["deal_key"]
    return bytes.fromhex(key)


def commitment(salt_hex: str, order: list[str]) -> str:
    """SHA-256 hex of the salt's 32 bytes followed by the card codes joined by "," in ASCII."""
    return hashlib.sha256(bytes.fromhex(salt_hex) + ",".join(order).encode("ascii")).hexdigest()


def seal_deck(rng_state: dict[str, Any], order: list[str], deal: bool = True) -> dict[str, Any]:
    """Commit to `order` (top card first) just after it was shuffled or stacked.

    Returns the fields for the deal (or reshuffle) event: the public `deal_commitment` and,
    under `sealed`, the salt and order that `redact_event` strips for every seat and only
    `/history` reveals. A deal's commitment is also kept for the views (`deal_commitment`).
    """
    # The counter has moved past this shuffle's draw, so every seal has its own salt.
    message = f"seal:{rng_state['counter']}".encode()
    salt = hmac.new(_deal_key(rng_state), message, hashlib.sha256).hexdigest()
    digest = commitment(salt, order)
    if deal:
        rng_state["deal_commitment"] = digest
    return {"deal_commitment": digest, "sealed": {"salt": salt, "order": list(order)}}


def deal_commitment(rng_state: dict[str, Any]) -> str | None:
    """The current deal's commitment, for the views (None before the first deal)."""
    return rng_state.get("deal_commitment")

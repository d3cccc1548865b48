"""Deals nobody can bias (docs/api.md, "Fair deals"): the server's seed, committed to by its hash
from creation on, and the client seeds the seats bring, chained into the match's deck seed when
the match starts.

    chain = SHA-256(UTF-8(JSON [server_seed, client seed of seat 0 or null, …]))
    seed  = the top 63 bits of chain

The JSON is compact (no spaces) with non-ASCII characters as they are, which is what
`JSON.stringify` writes too, so a client in any language can redo it.

The match draws its server seed at creation and chains its deck seed when it starts
(`Match.new`, `Match.start`: service/matches/match.py); a client seed sent with create is the
creator's first human seat's.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

# 256 random bits (the contract asks for at least 128), as 64 lowercase hex digits.
SERVER_SEED_BYTES = 32
CLIENT_SEED_LENGTH = 64


def new_server_seed() -> tuple[str, str]:
    """A fresh server seed and the hash the views show of it from creation on."""
    server_seed = secrets.token_hex(SERVER_SEED_BYTES)
    return server_seed, seed_hash(server_seed)


def seed_hash(server_seed: str) -> str:
    return hashlib.sha256(server_seed.encode("utf-8")).hexdigest()


def chained_seed(server_seed: str, client_seeds: list[str | None]) -> int:
    """The deck seed of a server seed and the client seeds in seat order (None: the seat brought
    none): an integer from 0 to 2**63 - 1, the range a creator's own `seed` takes."""
    material = json.dumps([server_seed, *client_seeds], separators=(",", ":"), ensure_ascii=False)
    return int(hashlib.sha256(material.encode("utf-8")).hexdigest()[:16], 16) >> 1


def client_seeds(record: dict[str, Any]) -> list[str | None]:
    return [s.get("client_seed") for s in record["seats"]]

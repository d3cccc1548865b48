"""Paged lists over sorted sets: the cursor a page answers (`next` / `next_cursor`) and the
walk from the place it names.

A cursor is the base64url of a JSON array naming the last entry a page showed (its score and
member, and whatever else its list needs). It is a place, not an offset: entries added or
removed meanwhile never make a page repeat or skip one that stayed. The player's matches
(service/matches/my_matches.py), an app's matches (service/matches/app_matches.py) and the leaderboards
(service/ratings/leaderboards.py) page this way.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any, NoReturn

from service import errors

# Entries read per round trip while walking a sorted set.
BATCH = 50
# Entries a page of a filtered list (the player's matches, an app's) looks at beyond the
# `limit` it shows, at most: past them it answers what it found, with a cursor that goes on
# from the last entry it looked at. A page's work is bounded by its `limit`, whatever the list
# holds; a narrow filter gives short (even empty) pages with a cursor instead.
MAX_SKIPPED = 50


def encode(*place: Any) -> str:
    raw = json.dumps(list(place), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str) -> list[Any]:
    """The place a cursor names, as `encode` was given it; 422 for anything not of that form
    (each list checks the parts it expects, and calls `refuse` when they are not)."""
    try:
        place = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError, UnicodeDecodeError):
        refuse()
    if not isinstance(place, list):
        refuse()
    return place


def refuse() -> NoReturn:
    raise errors.InvalidRequest(
        "cursor is not one this service gave; start again without it",
        {"cursor": ["not a cursor from next_cursor"]},
    )


def newest_first(client: Any, key: str, after: tuple[float, str] | None) -> Iterator[tuple[str, float]]:
    """(member, score) of a sorted set, highest score first (ties: highest member first, as
    ZREVRANGE orders them), strictly after the place `after` (score, member) names."""
    top = "+inf" if after is None else after[0]
    offset = 0
    while True:
        rows = client.zrevrangebyscore(key, top, "-inf", start=offset, num=BATCH, withscores=True)
        for raw, score in rows:
            member = raw.decode() if isinstance(raw, bytes) else str(raw)
            if after is None or (score, member) < after:
                yield member, score
        if len(rows) < BATCH:
            return
        offset += BATCH

"""The lobby's index of listed waiting matches (docs/architecture.md, "The lobby").

Three sorted sets, all members at score 0 and so ordered by the member itself:

- `ct:{lobby}:all`: every listed match,
- `ct:{lobby}:g:<game>`: the listed matches of one game (`GET /v1/matches?game=`),
- `ct:{lobby}:q:<game>:<table hash>`: those of one game, seat count and options (quick play).

A member is `<created ms, 14 digits>:<match id>:<game>:<table hash>`: sorting by member sorts by
creation time, a page resumes after the last member it showed, and an entry can be removed from
all three sets without its match (which may have expired). The `{lobby}` hash tag keeps the three
sets in one Redis Cluster slot, apart from the matches' `{m:<id>}` slots.

The index is never updated inside a match's compare-and-set (another slot). Instead a match is
added before the commit that creates it and an entry is dropped when a reader finds its match is
no longer listed and waiting (started, aborted, expired, or never written): the index may hold
stale entries for a while, but it never misses a listed waiting match.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import redis

_ALL = "ct:{lobby}:all"
_MEMBER = re.compile(r"^\d{14}:[0-9a-f]{16}:[a-z0-9-]+:[0-9a-f]{16}$")


def _game_key(game: str) -> str:
    return f"ct:{{lobby}}:g:{game}"


def _table_key(game: str, table: str) -> str:
    return f"ct:{{lobby}}:q:{game}:{table}"


def table_hash(options: dict[str, Any], seats: int) -> str:
    """Matches that quick play treats as the same table: one game's seat count and full options."""
    canonical = json.dumps([seats, options], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def member(match_id: str, record: dict[str, Any]) -> str:
    table = table_hash(record["options"], len(record["seats"]))
    return f"{int(record['created'] * 1000):014d}:{match_id}:{record['game']}:{table}"


def parse_member(entry: str) -> tuple[str, str, str] | None:
    """(match id, game, table hash) of a well-formed member, else None."""
    if not _MEMBER.match(entry):
        return None
    _, match_id, game, table = entry.split(":")
    return match_id, game, table


class LobbyIndex:
    def __init__(self, client: redis.Redis):
        self.redis = client

    def add(self, match_id: str, record: dict[str, Any]) -> None:
        entry = member(match_id, record)
        _, _, game, table = entry.split(":")
        pipe = self.redis.pipeline(transaction=True)
        for key in (_ALL, _game_key(game), _table_key(game, table)):
            pipe.zadd(key, {entry: 0})
        pipe.execute()

    def drop(self, entry: str) -> None:
        parsed = parse_member(entry)
        if parsed is None:
            return
        _, game, table = parsed
        pipe = self.redis.pipeline(transaction=True)
        for key in (_ALL, _game_key(game), _table_key(game, table)):
            pipe.zrem(key, entry)
        pipe.execute()

    def newest(self, game: str | None, before: str | None, count: int) -> list[str]:
        """Up to `count` members, newest first, strictly older than `before` when given."""
        key = _ALL if game is None else _game_key(game)
        start = "+" if before is None else f"({before}"
        return _decoded(self.redis.zrange(key, start, "-", desc=True, bylex=True, offset=0, num=count))

    def oldest(self, game: str, table: str, after: str | None, count: int) -> list[str]:
        """Up to `count` members of one table, oldest first, strictly newer than `after` when given."""
        start = "-" if after is None else f"({after}"
        return _decoded(
            self.redis.zrange(_table_key(game, table), start, "+", bylex=True, offset=0, num=count)
        )


def _decoded(members: Any) -> list[str]:
    return [m.decode() for m in members]

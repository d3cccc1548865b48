"""How many live matches of a kind one caller holds (docs/api.md, "Limits").

An owner (an anonymous caller's address today) has one sorted set per kind of match it is
limited in, `ct:{o:<owner>}:<kind>`: the ids of the matches it created, scored by creation
time. Whether a member still counts is asked of the match itself at the first creation that
finds the set full (a match that ended or expired leaves the set then), so nothing has to
remember to release a quota, a creation within the limit asks no match, and the set never
holds more than the limit and one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from service import errors

# How long after its place was taken a match that is not stored yet still counts.
CREATE_GRACE = 60.0


def owner_of_address(address: str | None) -> str:
    return f"a:{address or '-'}"


class Quotas:
    def __init__(self, client: redis.Redis, ttl: int):
        self.client = client
        self.ttl = ttl  # a set outlives its newest match by this much

    @staticmethod
    def key(owner: str, kind: str) -> str:
        # The owner's own hash tag: its sets live in one Redis Cluster slot, none of a match's.
        return f"ct:{{o:{owner}}}:{kind}"

    def take(
        self,
        owner: str,
        kind: str,
        match_id: str,
        limit: int,
        live: Callable[[str], bool | None],
        message: str,
    ) -> None:
        """Count `match_id` against `owner`'s `limit` of `kind`, or raise QuotaExceeded (429).

        `live(id)` says whether an earlier match still counts: True, False, or None when it is
        not stored (gone, or not yet committed). The id is added before the count is read, in
        one transaction, so two creations at once can never both pass the last place (both may
        be refused: the caller tries again). The matches are asked only when the count is over
        the limit: a creation within it costs one round trip, whatever the limit."""
        key = self.key(owner, kind)
        if self._add(key, match_id) <= limit:
            return
        members: list[tuple[bytes, float]] = self.client.zrange(key, 0, -1, withscores=True)  # type: ignore[assignment]
        recent = time.time() - CREATE_GRACE
        ended = []
        for member, added in members:
            name = member.decode()
            if name == match_id:
                continue
            state = live(name)
            # A match not stored yet may still be on its way (its place is taken just before
            # its commit): only a missing match older than the grace is gone.
            if state is False or (state is None and added < recent):
                ended.append(name)
        if ended:
            self.client.zrem(key, *ended)
        if self.client.zcard(key) > limit:
            self.client.zrem(key, match_id)
            raise errors.QuotaExceeded(kind, message)

    def _add(self, key: str, match_id: str) -> int:
        """Add the match to the owner's set; how many the set holds with it."""
        with self.client.pipeline(transaction=True) as p:
            p.zadd(key, {match_id: time.time()})
            p.expire(key, self.ttl)
            p.zcard(key)
            *_, held = p.execute()
        return int(held)

    def release(self, owner: str, kind: str, match_id: str) -> None:
        """Give back a place taken for a match that was not created after all."""
        self.client.zrem(self.key(owner, kind), match_id)

"""The due index: matches that may need a worker (a bot's turn, a turn clock), scored by when
the sweeper should look at them (docs/architecture.md, "No match stalls").

One key for all matches, so outside the `{m:<id>}` hash tags: a commit adds its match in the
same round trip as its script (Store.commit), never inside it. It lives on the queue Redis
(REDIS_URL) with the jobs it guards, never on a state cluster, where it would be one hot key
(docs/deployment.md).
"""

from __future__ import annotations

from typing import Any

import redis

DUE_KEY = "ct:due"

# KEYS[1] the due index. ARGV[1] match id, ARGV[2] the score the sweeper read, ARGV[3] the
# new score ('' removes the entry). Changes nothing if a commit moved the score meanwhile.
RESCHEDULE = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not cur or tonumber(cur) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


class DueIndex:
    def __init__(self, client: redis.Redis):
        self.client = client
        self._reschedule = client.register_script(RESCHEDULE)

    def matches(self, now: float, limit: int) -> list[tuple[str, float]]:
        """Up to `limit` matches whose time to be looked at has come, earliest first."""
        rows: list[Any] = self.client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit, withscores=True)
        return [(m.decode() if isinstance(m, bytes) else str(m), float(score)) for m, score in rows]

    def reschedule(self, match_id: str, seen: float, score: float | None) -> bool:
        """Move (or, with None, drop) an entry the sweeper looked at, unless a commit moved it."""
        new = "" if score is None else f"{score:.3f}"
        return bool(self._reschedule(keys=[DUE_KEY], args=[match_id, repr(seen), new]))

    def counts(self, now: float) -> tuple[int, int]:
        """Entries in the index, and those whose time has come."""
        with self.client.pipeline(transaction=False) as p:
            p.zcard(DUE_KEY)
            p.zcount(DUE_KEY, "-inf", now)
            total, overdue = p.execute()
        return int(total), int(overdue)

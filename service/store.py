"""The one module that owns Redis: every key, the compare-and-set write, events and idempotency.

All keys of a match share the hash tag `{m:<id>}` so a match lives in one Redis
Cluster slot and the Lua scripts may touch all of them.
"""

from __future__ import annotations

import os
import secrets
import threading
import zlib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import redis

from service import codec

# KEYS[1] match hash (fields v = version, n = events stored, data = record JSON)
# KEYS[2] events list, KEYS[3] idempotency key (ignored when ARGV[6] is '')
# ARGV[1] expected version ('-1': the match must not exist yet), ARGV[2] new version,
# ARGV[3] record JSON, ARGV[4] events count after this write, ARGV[5] expiry in seconds,
# ARGV[6] idempotency answer ('' for none), ARGV[7] its expiry, ARGV[8] channel to notify,
# ARGV[9] this write's random id (kept in field w), ARGV[10..] new events as JSON.
# Returns 1 when written, 0 when the version did not match (nothing written).
_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '-1' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'n', ARGV[4], 'data', ARGV[3], 'w', ARGV[9])
if #ARGV >= 10 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 10))
end
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ttl) end
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[3], ARGV[6], 'EX', ARGV[7])
end
redis.call('PUBLISH', ARGV[8], ARGV[2])
return 1
"""

# KEYS[1] idempotency key. ARGV[1] marker for a request in progress, ARGV[2] its expiry.
# Returns nil when the key was free (now claimed), else the stored value.
_CLAIM = """
local cur = redis.call('GET', KEYS[1])
if cur then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""

# KEYS[1] match hash, KEYS[2] events list. ARGV[1] the version the events were read at,
# ARGV[2] all of them as one compressed JSON array. Returns 1 when archived, 0 when the
# match changed after the read (nothing written).
_ARCHIVE = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'z', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""

# KEYS[1] the due index. ARGV[1] match id, ARGV[2] the score the sweeper read, ARGV[3] the
# new score ('' removes the entry). Changes nothing if a commit moved the score meanwhile.
_RESCHEDULE = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not cur or tonumber(cur) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

IN_PROGRESS = "in-progress"
# Connections of the hot path (match load, commit) per process at most; and of redis-py's pool
# (events, idempotency, RQ), which then makes a caller wait for one rather than fail.
HOT_CONNECTIONS = 16
POOL_CONNECTIONS = 8
METRICS_KEY = "ct:metrics"
# Matches that may need a worker (a bot's turn, a turn clock), scored by when the sweeper
# should look at them (docs/architecture.md, "No match stalls"). One key for all matches, so
# outside the `{m:<id>}` hash tags: under Redis Cluster it lives in a slot of its own and is
# written beside the commit, never inside its script.
DUE_KEY = "ct:due"


class RateLimited(Exception):
    """The client made more requests in this second than the limit allows."""

    def __init__(self, limit: int):
        super().__init__(limit)
        self.limit = limit


# A request's rate-limit count, deferred so it rides in the same round trip as the
# match load (see Store.defer_rate).
_pending_rate: ContextVar[tuple[str, int, str, int] | None] = ContextVar("pending_rate", default=None)


def connect(url: str) -> redis.Redis:
    """A client whose pool makes a caller wait for a free connection (up to 20 s) rather than
    open one per concurrent caller: under gevent those are as many as requests in flight."""
    return redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_CONNECTIONS, timeout=20
        )
    )


def _key(match_id: str, part: str) -> str:
    return f"ct:{{m:{match_id}}}:{part}"


def channel(match_id: str) -> str:
    return _key(match_id, "chan")


@dataclass
class Loaded:
    record: dict[str, Any]
    version: int
    events: int


class Store:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._commit = client.register_script(_COMMIT)
        self._claim = client.register_script(_CLAIM)
        self._archive = client.register_script(_ARCHIVE)
        self._reschedule = client.register_script(_RESCHEDULE)
        self._idle: list = []
        self._idle_pid = os.getpid()
        # At most this many round trips in flight at once (more wait their turn): under gevent
        # a move seen by 1,000 waiters wakes 1,000 greenlets that each load the match.
        self._hot = threading.BoundedSemaphore(HOT_CONNECTIONS)

    # --- the hot path: pooled connections, used directly -------------------
    # Every request loads a match and every move commits one. Through redis-py's client a
    # command also passes the pool, the retry wrapper and (since redis-py 8) the
    # observability hooks: 87 us of CPU for an HMGET against 48 us on the connection itself,
    # 143 against 63 us for the rate count and load (bench/api.py's machine). So these two
    # calls take a connection from a free list of their own for the round trip and talk to
    # it directly. Not one per thread: under gevent every request is a greenlet of its own,
    # and a connection per greenlet would be a new connection per request; with the list
    # there are as many as round trips in flight at once (at most HOT_CONNECTIONS), however
    # many requests wait.
    def _take(self):
        self._hot.acquire()
        if self._idle_pid != os.getpid():  # never share a socket across a fork
            self._idle, self._idle_pid = [], os.getpid()
        try:
            return self._idle.pop()
        except IndexError:
            pool = self.redis.connection_pool
            return pool.connection_class(**pool.connection_kwargs)
        except BaseException:
            self._hot.release()
            raise

    def _give(self, conn) -> None:
        self._idle.append(conn)
        self._hot.release()

    def _roundtrip(self, commands: list[tuple], retry: bool) -> list[Any]:
        """Send `commands` in one write and read their replies; a failed read drops the
        connection (replies left unread would answer the next call)."""
        conn = self._take()
        try:
            return self._exchange(conn, commands, retry)
        finally:
            self._give(conn)  # a dropped one reconnects on its next use

    @staticmethod
    def _exchange(conn, commands: list[tuple], retry: bool) -> list[Any]:
        try:
            conn.send_packed_command(conn.pack_commands(commands))
            return [conn.read_response() for _ in commands]
        except (redis.ConnectionError, redis.TimeoutError):
            conn.disconnect()
            if not retry:
                raise
            # A read (or a rate count, where counting twice is harmless) is safe to repeat once
            # on a fresh connection (Redis restarted, idle connection closed); a commit is not,
            # since it may have been applied: commit() finds out by its write id.
            return Store._exchange(conn, commands, retry=False)
        except BaseException:
            conn.disconnect()
            raise

    def load(self, match_id: str) -> Loaded | None:
        read = ("HMGET", _key(match_id, "match"), "v", "n", "data")
        pending = _pending_rate.get()
        if pending is None:
            ((v, n, data),) = self._roundtrip([read], retry=True)
        else:
            _pending_rate.set(None)
            count, _, _, (v, n, data) = self._roundtrip(
                [*self._count_commands(*pending[:3]), read], retry=True
            )
            if count > pending[3]:
                raise RateLimited(pending[3])
        if data is None:
            return None
        return Loaded(codec.loads(data), int(v), int(n))

    def commit(
        self,
        match_id: str,
        expected: int | None,
        record: dict[str, Any],
        events: list[dict[str, Any]],
        events_before: int,
        ttl: int,
        idempotency: tuple[str, str, int] | None = None,
        due: float | None = None,
    ) -> bool:
        """Store `record` as version expected+1 (or 0 for a new match) if nobody wrote meanwhile.

        With `due`, the match enters the due index first, in the same round trip: a process
        that dies after the commit, before it enqueues the job, still leaves the entry the
        sweeper finds. An entry left by a commit that lost its race costs one look.
        """
        new_version = 0 if expected is None else expected + 1
        idem_key, idem_value, idem_ttl = idempotency or (_key(match_id, "idem:-"), "", 0)
        args = [
            -1 if expected is None else expected,
            new_version,
            codec.dumps(record),
            events_before + len(events),
            ttl,
            idem_value,
            idem_ttl,
            channel(match_id),
            secrets.token_hex(8),
            *(codec.dumps(e) for e in events),
        ]
        keys = [_key(match_id, "match"), _key(match_id, "events"), idem_key]
        pre = [] if due is None else [("ZADD", DUE_KEY, f"{due:.3f}", match_id)]
        try:
            return self._run_commit(keys, args, pre)
        except (redis.ConnectionError, redis.TimeoutError):
            # The connection dropped before the answer came: the write may or may not have
            # happened. Its id, stored with it, tells which (asked on a new connection, which
            # raises in turn if Redis is still away).
            ((version, write_id),) = self._roundtrip([("HMGET", keys[0], "v", "w")], retry=True)
            if version == str(new_version).encode() and write_id == args[8].encode():
                return True
            if version == (None if expected is None else str(expected).encode()):
                # Not written, and nobody else wrote: send it once more (the version check in
                # the script still guards it). Callers never see the lost attempt: a bot's
                # job or a clock's would otherwise end as stale and leave the match waiting.
                return self._run_commit(keys, args, pre)
            raise  # another writer since: whether ours came first is unknowable

    def _run_commit(self, keys: list[str], args: list[Any], pre: list[tuple] | None = None) -> bool:
        try:
            *_, written = self._roundtrip(
                [*(pre or []), ("EVALSHA", self._commit.sha, 3, *keys, *args)], retry=False
            )
        except redis.exceptions.NoScriptError:
            # Redis restarted or its script cache was flushed: EVAL loads the script again.
            (written,) = self._roundtrip([("EVAL", _COMMIT, 3, *keys, *args)], retry=False)
        return bool(written)

    def events(self, match_id: str, after: int) -> list[dict[str, Any]]:
        """Stored events with seq > after (seq counts from 1)."""
        return self.events_since(match_id, after)[0]

    def events_since(self, match_id: str, after: int) -> tuple[list[dict[str, Any]], int | None]:
        """Stored events with seq > after, and the match's version read with them (None when
        the match is gone), in one round trip on the hot path's connections: every woken
        waiter makes this read."""
        after = max(after, 0)
        raw, archived, version = self._roundtrip(
            [
                ("LRANGE", _key(match_id, "events"), after, -1),
                ("HGET", _key(match_id, "match"), "z"),
                ("HGET", _key(match_id, "match"), "v"),
            ],
            retry=True,
        )
        version = None if version is None else int(version)
        if not raw and archived is not None:
            return codec.loads(zlib.decompress(archived))[after:], version
        return [codec.loads(e) for e in raw], version

    def archive(self, match_id: str, version: int) -> bool:
        """Fold a finished match's events into one compressed field of its hash.

        A match that is over never changes again, so its list of small events (a long 500-point
        Spades match writes over 2,000 of them, 130 KB of JSON) becomes one zlib blob of about a
        tenth of the size, read whole by the rare events or history call on a finished match.
        """
        raw = self.redis.lrange(_key(match_id, "events"), 0, -1)
        blob = zlib.compress(b"[" + b",".join(raw) + b"]", 6)
        keys = [_key(match_id, "match"), _key(match_id, "events")]
        return bool(self._archive(keys=keys, args=[version, blob]))

    # --- idempotency -------------------------------------------------------
    def idempotency_key(self, match_id: str, seat: int, key: str) -> str:
        return _key(match_id, f"idem:{seat}:{key}")

    def claim_idempotency(self, full_key: str, ttl: int = 60) -> str | None:
        """Claim the key for a request now running; return the stored value if already there."""
        cur = self._claim(keys=[full_key], args=[IN_PROGRESS, ttl])
        return cur.decode() if isinstance(cur, bytes) else cur

    def release_idempotency(self, full_key: str) -> None:
        """A rejected request stores nothing: free the key it claimed."""
        self.redis.delete(full_key)

    # --- rate limiting (not per match, so outside the match hash tag) ------
    @staticmethod
    def _count_commands(client_id: str, window: int, endpoint: str) -> list[tuple]:
        key = f"ct:rl:{client_id}:{window}"
        return [("INCR", key), ("EXPIRE", key, 2), ("HINCRBY", METRICS_KEY, f"requests:{endpoint}", 1)]

    def hit_rate(self, client_id: str, window: int, endpoint: str) -> int:
        """Count a request of `client_id` in this one-second window (and in the metrics)."""
        return int(self._roundtrip(self._count_commands(client_id, window, endpoint), retry=True)[0])

    def defer_rate(self, client_id: str, window: int, endpoint: str, limit: int) -> None:
        """Count this request with the next match load, which then raises RateLimited if over."""
        _pending_rate.set((client_id, window, endpoint, limit))

    def flush_rate(self) -> None:
        """Count a deferred request that never loaded a match (e.g. refused by validation)."""
        pending = _pending_rate.get()
        if pending is not None:
            _pending_rate.set(None)
            self.hit_rate(*pending[:3])

    def metrics(self) -> dict[str, float]:
        return {k.decode(): float(v) for k, v in self.redis.hgetall(METRICS_KEY).items()}

    def count(self, name: str, by: int = 1) -> None:
        """Add to a counter every process shares (shown by /metrics)."""
        self.redis.hincrby(METRICS_KEY, name, by)

    def observe(self, name: str, value: float, buckets: tuple[float, ...]) -> None:
        """One observation of a histogram: its bucket (not cumulative), sum and count."""
        bucket = next((f"{b:g}" for b in buckets if value <= b), "+Inf")
        with self.redis.pipeline(transaction=False) as p:
            p.hincrby(METRICS_KEY, f"{name}_bucket:{bucket}", 1)
            p.hincrbyfloat(METRICS_KEY, f"{name}_sum", value)
            p.hincrby(METRICS_KEY, f"{name}_count", 1)
            p.execute()

    # --- the due index (see DUE_KEY) ------------------------------------------
    def due_matches(self, now: float, limit: int) -> list[tuple[str, float]]:
        """Up to `limit` matches whose time to be looked at has come, earliest first."""
        rows: list[Any] = self.redis.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit, withscores=True)
        return [(m.decode() if isinstance(m, bytes) else str(m), float(score)) for m, score in rows]

    def reschedule(self, match_id: str, seen: float, score: float | None) -> bool:
        """Move (or, with None, drop) an entry the sweeper looked at, unless a commit moved it."""
        new = "" if score is None else f"{score:.3f}"
        return bool(self._reschedule(keys=[DUE_KEY], args=[match_id, repr(seen), new]))

    def due_counts(self, now: float) -> tuple[int, int]:
        """Entries in the due index, and those whose time has come."""
        with self.redis.pipeline(transaction=False) as p:
            p.zcard(DUE_KEY)
            p.zcount(DUE_KEY, "-inf", now)
            total, overdue = p.execute()
        return int(total), int(overdue)

    def memory_usage(self, match_id: str) -> int:
        """Bytes Redis spends on a match's state and events (for benchmarks)."""
        total = 0
        for part in ("match", "events"):
            total += self.redis.memory_usage(_key(match_id, part), samples=0) or 0
        return total

"""The Redis clients and the hot path's round trips: `connect` makes a pooled client, and
`RoundTrips` holds the queue Redis (REDIS_URL: RQ, the due index) and the state Redis
(CARDTABLE_STATE_URL: matches, players, rate counts, metrics; the same Redis by default, or a
Redis Cluster) with the pooled raw connections on which a match's load, its commit, a rate
count and a feed's read make one round trip (`exchange`). The match store, the rate limiter
and the players' feeds each receive the one `RoundTrips` the composition root builds.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.infra import tracing
from service.infra.cluster import Group, Router, pack_commands

# Connections of the hot path (match load, commit) per process at most; and of redis-py's pool
# (events, idempotency, RQ), which then makes a caller wait for one rather than fail.
HOT_CONNECTIONS = 16
POOL_CONNECTIONS = 8


def connect(url: str) -> redis.Redis:
    """A client whose pool makes a caller wait for a free connection (up to 20 s) rather than
    open one per concurrent caller: under gevent those are as many as requests in flight."""
    return redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_CONNECTIONS, timeout=20
        )
    )


def _reply(conn: Any) -> Any:
    """One reply of a round trip; an error reply is returned, not raised (`RoundTrips._send`)."""
    try:
        return conn.read_response()
    except redis.ResponseError as e:
        if "OOM command not allowed" in str(e):
            # A script's write refused at maxmemory (noeviction) comes back as the script's
            # error, with nothing written: the store is unavailable, as for a plain OOM (503).
            return redis.exceptions.OutOfMemoryError(str(e))
        return e


class RoundTrips:
    """`queue` is the queue Redis; `state` the state Redis or cluster (None: the queue Redis)."""

    def __init__(self, queue: redis.Redis, state: redis.Redis | RedisCluster | None = None):
        self.queue = queue
        self.state: Any = queue if state is None else state
        # On one server for everything the hot path is one connection a round trip; else a
        # Router groups each round trip by server (the queue Redis, the state Redis or a node).
        self.router = None if state is None or state is queue else Router(state, queue, HOT_CONNECTIONS)
        self.cluster = isinstance(state, RedisCluster)
        self._idle: list[Any] = []
        self._idle_pid = os.getpid()
        # At most this many round trips in flight at once (more wait their turn): under gevent
        # a move seen by 1,000 waiters wakes 1,000 greenlets that each load the match.
        self._hot = threading.BoundedSemaphore(HOT_CONNECTIONS)

    def ping(self) -> None:
        """Raise unless both the queue Redis and the state Redis answer (/readyz)."""
        self.queue.ping()
        if self.state is not self.queue:
            self.state.ping()

    # Every request loads a match and every move commits one. Through redis-py's client a
    # command also passes the pool, the retry wrapper and (since redis-py 8) the
    # observability hooks: 87 us of CPU for an HMGET against 48 us on the connection itself,
    # 143 against 63 us for the rate count and load (bench/api.py's machine). So these
    # round trips take a connection from a free list of their own and talk to it directly.
    # Not one per thread: under gevent every request is a greenlet of its own, and a
    # connection per greenlet would be a new connection per request; with the list there are
    # as many as round trips in flight at once (at most HOT_CONNECTIONS), however many
    # requests wait.
    def _take(self) -> Any:
        self._hot.acquire()
        if self._idle_pid != os.getpid():  # never share a socket across a fork
            self._idle, self._idle_pid = [], os.getpid()
        try:
            return self._idle.pop()
        except IndexError:
            pool = self.state.connection_pool
            return pool.connection_class(**pool.connection_kwargs)
        except BaseException:
            self._hot.release()
            raise

    def _give(self, conn: Any) -> None:
        self._idle.append(conn)
        self._hot.release()

    def roundtrip(self, commands: list[tuple[Any, ...]], retry: bool) -> list[Any]:
        """Send `commands` in one write and read their replies; a failed read drops the
        connection (replies left unread would answer the next call)."""
        conn = self._take()
        try:
            # Past redis-py's client, so past its instrumentation: a span of our own.
            with tracing.redis_span(commands):
                return self._send(conn, commands, retry)
        finally:
            self._give(conn)  # a dropped one reconnects on its next use

    @staticmethod
    def _send(conn: Any, commands: list[tuple[Any, ...]], retry: bool) -> list[Any]:
        try:
            conn.send_packed_command(pack_commands(commands))
            replies = [_reply(conn) for _ in commands]
        except (redis.ConnectionError, redis.TimeoutError):
            conn.disconnect()
            if not retry:
                raise
            # A read (or a rate count, where counting twice is harmless) is safe to repeat once
            # on a fresh connection (Redis restarted, idle connection closed); a commit is not,
            # since it may have been applied: Store.commit finds out by its write id.
            return RoundTrips._send(conn, commands, retry=False)
        except BaseException:
            conn.disconnect()
            raise
        # Every reply is read before an error one is raised: replies left unread would answer
        # the connection's next round trip.
        error = next((r for r in replies if isinstance(r, redis.ResponseError)), None)
        if error is not None:
            raise error
        return replies

    def exchange(self, groups: list[Group], retry: bool) -> list[list[Any]]:
        """Each group's replies, all in one round trip: on one Redis a single write on one
        connection; on a cluster one write per node that owns a group's key."""
        if self.router is not None:
            return self.router.roundtrip(groups, retry)
        replies = self.roundtrip([c for _, commands in groups for c in commands], retry)
        out, at = [], 0
        for _, commands in groups:
            out.append(replies[at : at + len(commands)])
            at += len(commands)
        return out

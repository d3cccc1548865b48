"""The match transport: a match's keys, the compare-and-set write, events and idempotency.

All keys of a match share the hash tag `{m:<id>}` so a match lives in one Redis
Cluster slot and the Lua scripts may touch all of them. `Store` also builds the pieces that
keep the rest, each with one job and the Redis client it needs, and nobody else touches a
client: rate limits (service/infra/rate_limit.py), counters for /metrics (service/infra/counters.py), the
due index (service/infra/due_index.py), the lobby's index (service/matches/lobby_index.py), the outbox's
relay side (service/matches/outbox.py), live-match quotas (service/identity/quotas.py), players' feeds
(service/notify/feeds.py), the waiters' hub (service/infra/waiters.py), and apps' webhook endpoints and
deliveries (service/notify/webhooks.py, service/notify/deliveries.py).
"""

from __future__ import annotations

import os
import secrets
import threading
import zlib
from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster

from service import codec
from service.identity.apps import Apps
from service.identity.players import Players
from service.identity.quotas import Quotas
from service.infra import tracing
from service.infra.cluster import Group, Router, pack_commands
from service.infra.counters import Counters
from service.infra.due_index import DUE_KEY, DueIndex
from service.infra.rate_limit import RateLimiter
from service.infra.waiter import open_waiters
from service.infra.waiters import ClusterHub, Hub
from service.matches.invitations import Invitations
from service.matches.lobby_index import LobbyIndex
from service.matches.outbox import OUTBOX_KEY, Outbox, member
from service.matches.store_scripts import ARCHIVE, CLAIM, COMMIT, COMMIT_PUBLISHING, COMMIT_SHARDED, RELEASE
from service.notify.deliveries import Deliveries
from service.notify.feeds import Feeds
from service.notify.webhooks import Webhooks
from service.ratings.leaderboards import Leaderboards

IN_PROGRESS = "in-progress"
# Connections of the hot path (match load, commit) per process at most; and of redis-py's pool
# (events, idempotency, RQ), which then makes a caller wait for one rather than fail.
HOT_CONNECTIONS = 16
POOL_CONNECTIONS = 8
# On a cluster the rate counts and the counters every request bumps are split over this many
# hash tags, so no one node takes them all (service/infra/counters.py adds the counters up).
SHARDS = 64
# The most events one read of a feed takes: a page of /events (docs/api.md, "Limits") and one
# more, which tells whether more follow. History reads them all.
EVENTS_PAGE = 1000
READ_EVENTS = EVENTS_PAGE + 1


def _reply(conn: Any) -> Any:
    """One reply of a round trip; an error reply is returned, not raised (Store._send)."""
    try:
        return conn.read_response()
    except redis.ResponseError as e:
        if "OOM command not allowed" in str(e):
            # A script's write refused at maxmemory (noeviction) comes back as the script's
            # error, with nothing written: the store is unavailable, as for a plain OOM (503).
            return redis.exceptions.OutOfMemoryError(str(e))
        return e


def connect(url: str) -> redis.Redis:
    """A client whose pool makes a caller wait for a free connection (up to 20 s) rather than
    open one per concurrent caller: under gevent those are as many as requests in flight."""
    return redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_CONNECTIONS, timeout=20
        )
    )


def _events(raw: list[bytes], archived: bytes | None, after: int, count: int | None) -> list[dict[str, Any]]:
    """The events after `after` (at most `count` of them, None: all) from an LRANGE of the
    list, or from the archive once folded (a change after the end, a rematch's event, is read
    once `Store.archive` has folded it in too, a moment after its commit)."""
    if archived is not None:
        start = max(after, 0)
        return codec.loads(zlib.decompress(archived))[start : None if count is None else start + count]  # type: ignore[no-any-return]  # JSON
    return [codec.loads(e) for e in raw]


def _range(after: int, count: int | None) -> tuple[int, int]:
    """LRANGE's bounds for the events after seq `after`, at most `count` of them."""
    start = max(after, 0)
    return start, -1 if count is None else start + count - 1


def _loaded(replies: list[Any], events_after: int | None) -> Loaded | None:
    v, n, data = replies[0]
    if data is None:
        return None
    if events_after is None:
        return Loaded(codec.loads(data), int(v), int(n))
    archived, tenures = replies[2]
    after = _events(replies[1], archived, events_after, READ_EVENTS)
    return Loaded(codec.loads(data), int(v), int(n), after, tenures=tenures)


def _index_entries(match_id: str, version: int, due: float | None, relay_at: float) -> list[Group]:
    """The commit's entries in the due index and the outbox's index (both on the queue Redis;
    `relay_at` 0: no effects)."""
    entries: list[tuple[Any, ...]] = [] if due is None else [("ZADD", DUE_KEY, f"{due:.3f}", match_id)]
    if relay_at:
        entries.append(("ZADD", OUTBOX_KEY, f"{relay_at:.3f}", member(match_id, version)))
    return [(None, entries)] if entries else []


def _key(match_id: str, part: str) -> str:
    return f"ct:{{m:{match_id}}}:{part}"


def channel(match_id: str) -> str:
    return _key(match_id, "chan")


@dataclass
class Loaded:
    record: dict[str, Any]
    version: int
    event_count: int  # events stored: the seq of the last one
    # With `load(..., events_after=k)`: the stored events with seq > k, read in the same round
    # trip (a long-poll's first look costs no second one).
    events_after: list[dict[str, Any]] | None = None
    # With `load(..., also=group)`: that group's replies (a player token's check).
    also: list[Any] | None = None
    # With `events_after`: the seats' tenures read after those events (service/matches/tenure.py).
    tenures: bytes | None = None


class ReplicaTimeout(redis.ConnectionError):
    """A commit was written on the master but no replica confirmed it in time
    (CARDTABLE_REPLICA_ACKS): not acknowledged, so a 503 the client may retry."""


class Store:
    """`client` is the queue Redis (REDIS_URL: RQ, the due index); `state` holds the matches,
    the rate counts and the metrics (CARDTABLE_STATE_URL; the same Redis by default). With
    `replica_acks`, a commit is acknowledged only once that many replicas hold it (Redis WAIT,
    up to `replica_wait_ms`)."""

    def __init__(
        self,
        client: redis.Redis,
        state: redis.Redis | RedisCluster | None = None,
        replica_acks: int = 0,
        replica_wait_ms: int = 1000,
        webhooks_ttl: float = 1.0,
    ):
        self.redis = client
        self.state: Any = client if state is None else state
        # On one server for everything the hot path is one connection a round trip; else a Router groups
        # each round trip by server (the queue Redis, the state Redis or cluster node).
        self.router = None if state is None or state is client else Router(state, client, HOT_CONNECTIONS)
        self.cluster = isinstance(state, RedisCluster)
        self.shards = SHARDS if self.cluster else 1
        self.counters = Counters(self.state, self.shards)
        self.rates = RateLimiter(self._exchange, self.counters)
        self._wait = ("WAIT", replica_acks, replica_wait_ms) if replica_acks > 0 else None
        self._commit = self.state.register_script(COMMIT_SHARDED if self.cluster else COMMIT)
        # The commit that also publishes its notices to the players' feeds (one Redis only).
        self._commit_publishing = self.state.register_script(COMMIT_PUBLISHING)
        self._claim = self.state.register_script(CLAIM)
        self._archive = self.state.register_script(ARCHIVE)
        self._release = self.state.register_script(RELEASE)
        self.due = DueIndex(client)
        self.lobby = LobbyIndex(client)
        # Invitation codes' hashes, beside each match and outside its commits.
        self.invitations = Invitations(self.state, _key)
        self.outbox = Outbox(self.state, client, _key)
        # Its publish rides the hot path's own connections (one round trip for every player a
        # commit's notices name), like the match's load and commit.
        self.feeds = Feeds(self.state, self._exchange, self.rates)
        # A change of a player's tokens wakes its waiting feeds, which then re-check theirs.
        self.apps = Apps(self.state, wake=self.feeds.wake)
        self.players = Players(self.state, wake=self.feeds.wake)
        self.leaderboards = Leaderboards(self.state)
        # An app's webhook endpoints, with each process's copy of the types they want for
        # webhooks_ttl seconds; their deliveries, with the index of pending ones on the queue Redis.
        self.webhooks = Webhooks(self.state, webhooks_ttl)
        self.deliveries = Deliveries(self.state, client)
        self._idle: list[Any] = []  # raw connections, as _reply reads them
        self._idle_pid = os.getpid()
        # At most this many round trips in flight at once (more wait their turn): under gevent
        # a move seen by 1,000 waiters wakes 1,000 greenlets that each load the match.
        self._hot = threading.BoundedSemaphore(HOT_CONNECTIONS)

    def hub(self) -> Hub | ClusterHub:
        """The process's waiters' subscription(s): on the match state's Redis (where commits
        publish), one per master on a cluster; waiter counts go to the queue Redis."""
        if self.cluster:
            return ClusterHub(self.state, self.redis)
        return Hub(self.state, self.redis)

    def open_waiters(self) -> dict[str, int]:
        """Open waiters of every live API process, by kind (reported to the queue Redis)."""
        return open_waiters(self.redis)

    def quotas(self, ttl: int) -> Quotas:
        """Live matches per owner (service/identity/quotas.py), kept beside the matches."""
        return Quotas(self.state, ttl)

    def ping(self) -> None:
        """Raise unless both the queue Redis and the match state answer (/readyz)."""
        self.redis.ping()
        if self.state is not self.redis:
            self.state.ping()

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

    def _roundtrip(self, commands: list[tuple[Any, ...]], retry: bool) -> list[Any]:
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
            # since it may have been applied: commit() finds out by its write id.
            return Store._send(conn, commands, retry=False)
        except BaseException:
            conn.disconnect()
            raise
        # Every reply is read before an error one is raised: replies left unread would answer
        # the connection's next round trip.
        error = next((r for r in replies if isinstance(r, redis.ResponseError)), None)
        if error is not None:
            raise error
        return replies

    def _exchange(self, groups: list[Group], retry: bool) -> list[list[Any]]:
        """Each group's replies, all in one round trip: on one Redis a single write on one
        connection; on a cluster one write per node that owns a group's key."""
        if self.router is not None:
            return self.router.roundtrip(groups, retry)
        replies = self._roundtrip([c for _, commands in groups for c in commands], retry)
        out, at = [], 0
        for _, commands in groups:
            out.append(replies[at : at + len(commands)])
            at += len(commands)
        return out

    def load(
        self, match_id: str, events_after: int | None = None, also: Group | None = None
    ) -> Loaded | None:
        """The match as stored (None when there is none), with the request's pending rate count
        in the same round trip; with `events_after`, also the events after that seq; with
        `also`, that group of reads too (its replies in `Loaded.also`)."""
        key = _key(match_id, "match")
        reads: list[tuple[Any, ...]] = [("HMGET", key, "v", "n", "data")]
        if events_after is not None:
            # The tenures after the events: they are at least as new as any event read.
            reads += [
                ("LRANGE", _key(match_id, "events"), *_range(events_after, READ_EVENTS)),
                ("HMGET", key, "z", "t"),
            ]
        pending = self.rates.take_pending()
        extra = [] if also is None else [also]
        if pending is None and also is None:
            (replies,) = self._exchange([(key, reads)], retry=True)
            return _loaded(replies, events_after)
        counts = [] if pending is None else self.rates.groups(pending)
        *counted, replies = self._exchange([*counts, *extra, (key, reads)], retry=True)
        loaded = _loaded(replies, events_after)
        if also is not None:
            also_replies = counted.pop()
            if loaded is not None:
                loaded.also = also_replies
        if pending is None:
            return loaded
        self.rates.settle(pending, [int(c[0]) for c in counted], loaded.record if loaded else None)
        return loaded

    def commit(
        self,
        match_id: str,
        expected: int | None,
        record: dict[str, Any],
        events: list[dict[str, Any]],
        events_before: int,
        ttl: int,
        idempotency: tuple[str, bytes | str, int] | None = None,
        due: float | None = None,
        effects: tuple[list[bytes], float] | None = None,
        tenures: str = "",
        notices: list[dict[str, Any]] | None = None,
    ) -> bool:
        """Store `record` as version expected+1 (or 0 for a new match) if nobody wrote meanwhile,
        the seats' `tenures` beside it (service/matches/tenure.py). With `due`, the match enters the due
        index first, in the same round trip: a process that dies after the commit, before it
        enqueues the job, still leaves the entry the sweeper finds. An entry left by a commit
        that lost its race costs one look. `effects`: the encoded effects for the match's outbox
        (written by the script) and when the relay should look at them (its index entry goes
        with the due index's, before the script; service/matches/outbox.py). `notices`: the commit's
        notices, which on one Redis its script publishes to the players' feeds once it wrote
        (`Feeds.joined`; they are in the outbox's notify effect too, for the relay)."""
        new_version = 0 if expected is None else expected + 1
        idem_key, idem_value, idem_ttl = idempotency or ("", "", 0)
        outbox, relay_at = effects or ([], 0.0)
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
            len(outbox),
            tenures,
            *outbox,
            *(codec.dumps(e) for e in events),
        ]
        keys, args, script = self._commit_call(match_id, bool(outbox), idem_key, args, notices)
        pre = _index_entries(match_id, new_version, due, relay_at) if due is not None or outbox else []
        if pre and self.router is not None:
            # The indexes are on the queue Redis, another server: they must hold the entries before
            # the commit can happen (a queue Redis that is away fails the move, not the match).
            self._exchange(pre, retry=True)
            pre = []
        try:
            written, acked = self._run_commit(keys, args, pre, script)
        except (redis.ConnectionError, redis.TimeoutError):
            written, acked = self._after_lost_answer(keys, args, pre, expected, script)
        if written and self._wait is not None and acked < self._wait[1]:
            raise ReplicaTimeout(f"{acked} of {self._wait[1]} replicas confirmed the commit in time")
        return written

    def _commit_call(
        self,
        match_id: str,
        outbox: bool,
        idem_key: str,
        args: list[Any],
        notices: list[dict[str, Any]] | None,
    ) -> tuple[list[str], list[Any], Any]:
        """The commit script's keys, arguments and script: on one Redis, the one that also
        publishes the notices to the players' feeds when they name any (`Feeds.joined`)."""
        # Only keys the script writes: on a cluster, a slot being migrated serves a script only
        # if every key it names exists on one side (else TRYAGAIN), and an unused placeholder
        # never does.
        keys = [
            _key(match_id, "match"),
            _key(match_id, "events"),
            *([_key(match_id, "outbox")] if outbox else []),
            *([idem_key] if idem_key else []),
        ]
        joined = self.feeds.joined(notices) if notices and self.feeds.joins_commit else None
        if joined is None:
            return keys, args, self._commit
        # Its keys and arguments after COMMIT's, and COMMIT's counts last (store_scripts.py).
        return [*keys, *joined[0]], [*args, *joined[1], len(keys), len(args)], self._commit_publishing

    def _after_lost_answer(
        self, keys: list[str], args: list[Any], pre: list[Group], expected: int | None, script: Any
    ) -> tuple[bool, int]:
        """The connection dropped before a commit's answer came: the write may or may not have
        happened. Its id, stored with it, tells which (asked on a new connection, which raises
        in turn if Redis is still away)."""
        check = [(keys[0], [("HMGET", keys[0], "v", "w")])]
        (((version, write_id),),) = self._exchange(check, retry=True)
        if version == str(args[1]).encode() and write_id == str(args[8]).encode():
            if self._wait is not None:
                # Written, but whether a replica holds it is unknown (WAIT only counts this
                # connection's writes): not acknowledged.
                raise ReplicaTimeout("the commit's replication is unknown") from None
            return True, 0
        if version == (None if expected is None else str(expected).encode()):
            # Not written, and nobody else wrote: send it once more (the version check in the
            # script still guards it). Callers never see the lost attempt: a bot's job or a
            # clock's would otherwise end as stale and leave the match waiting.
            return self._run_commit(keys, args, pre, script)
        raise redis.ConnectionError("the commit's answer was lost and another writer came since")

    def _run_commit(
        self, keys: list[str], args: list[Any], pre: list[Group], script: Any
    ) -> tuple[bool, int]:
        """Whether the script wrote, and how many replicas confirmed it (WAIT, on the same
        connection right after the script, counts this connection's writes)."""
        wait = [] if self._wait is None else [self._wait]
        called = (len(keys), *keys, *args)
        try:
            commit = [("EVALSHA", script.sha, *called), *wait]
            *_, replies = self._exchange([*pre, (keys[0], commit)], retry=False)
        except redis.exceptions.NoScriptError:
            # Redis restarted or its script cache was flushed: EVAL loads the script again.
            reload = [("EVAL", script.script, *called), *wait]
            ((*replies,),) = self._exchange([(keys[0], reload)], retry=False)
        return bool(replies[0]), int(replies[1]) if wait else 0

    def events(self, match_id: str, after: int) -> list[dict[str, Any]]:
        """Every stored event with seq > after (seq counts from 1)."""
        return self.events_since(match_id, after, None)[0]

    def events_since(
        self, match_id: str, after: int, count: int | None = READ_EVENTS
    ) -> tuple[list[dict[str, Any]], int | None, bytes | None]:
        """Stored events with seq > after (at most `count`, None: all), the match's version
        (None when the match is gone) and its seats' tenures (service/matches/tenure.py) read after them,
        in one round trip on the hot path's connections: every woken waiter makes this read."""
        events, match = _key(match_id, "events"), _key(match_id, "match")
        read = [("LRANGE", events, *_range(after, count)), ("HMGET", match, "z", "v", "t")]
        ((raw, (archived, version, tenures)),) = self._exchange([(match, read)], retry=True)
        return _events(raw, archived, after, count), None if version is None else int(version), tenures

    def archive(self, match_id: str, version: int) -> bool:
        """Fold a finished match's events into one compressed field of its hash.

        A match that is over hardly changes again (a rematch's event), so its list of small
        events (a long 500-point Spades match writes over 2,000 of them, 130 KB of JSON) becomes
        one zlib blob of about a tenth of the size, read whole by the rare events or history call
        on a finished match.
        """
        raw, folded = (
            self.state.lrange(_key(match_id, "events"), 0, -1),
            self.state.hget(_key(match_id, "match"), "z"),
        )
        # A change after the end (a rematch's event) adds to what was folded before.
        earlier = zlib.decompress(folded)[1:-1] if folded else b""
        blob = zlib.compress(b"[" + b",".join([earlier, *raw] if earlier else raw) + b"]", 6)
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
        """A rejected request stores nothing: free the key it claimed, unless the commit did
        happen (its answer, written by the same script, is there instead of the claim)."""
        self._release(keys=[full_key], args=[IN_PROGRESS])

    def memory_usage(self, match_id: str) -> int:
        """Bytes Redis spends on a match's state and events (bench/api.py reports it)."""
        total = 0
        for part in ("match", "events"):
            total += self.state.memory_usage(_key(match_id, part), samples=0) or 0
        return total

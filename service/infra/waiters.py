"""Waiting for a match or a player's feed to change at no thread and no Redis connection per waiter.

Long-polls (`/events?wait=`) and SSE streams (`/stream`) of matches and of players' feeds
(`/v1/me/events`, `/v1/me/stream`) wait here (docs/architecture.md, "Waiting"); to the hub a
player's channel is just another channel. Each process keeps ONE Redis connection in subscribe
mode, owned by its `Hub`:

- A waiter registers for its match's (or player's) channel. The first waiter of a channel subscribes it (and
  waits for Redis to confirm, so no commit can slip between its read of the events and the
  subscription); the channel stays subscribed while it has waiters and for `LINGER` seconds
  after the last one leaves, since a long-poll re-polls right after each answer.
- One reader (a greenlet under gunicorn's gevent worker, a thread elsewhere) reads every
  notification and wakes that channel's waiters, who then read the events over the store's
  ordinary pooled connections and give them back.
- A waiter whose client hangs up is woken at once: under gevent the client socket is watched
  by the event loop; with threads it is looked at once a second.
- A housekeeper unsubscribes idle channels and writes the process's waiter counts by kind to
  Redis once a second (while they change), for `/metrics` (service/infra/waiter.py).

Subscribing per channel, with reference counts, over one connection is also what Redis
Cluster's sharded pub/sub needs: there the commands become SSUBSCRIBE/SUNSUBSCRIBE and the
messages `smessage`, with one such connection per shard (the class attributes below).
"""

from __future__ import annotations

import collections
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from service.infra.waiter import (
    HEARTBEAT_SECONDS,
    KINDS,
    METRICS_KEY,
    REPORT_SECONDS,
    Waiting,
    encode_counts,
)
from service.infra.waiter import (
    Waiter as Waiter,  # its users import it from the hub
)

log = logging.getLogger("cardtable.waiters")

# A channel stays subscribed this long after its last waiter left: a long-poll answered by an
# event comes back within milliseconds, and unsubscribing in between costs two round trips.
LINGER = 5.0
# How long a waiter waits for Redis to confirm a new subscription before giving up (503).
CONFIRM_SECONDS = 5.0
# Silence on the subscription after which the reader pings Redis; no answer to the ping
# within as long again means a dead connection (Redis gone without a reset): reconnect.
HEALTH_SECONDS = 15.0


class _Channel:
    __slots__ = ("waiters", "ready", "idle_since", "notified")

    def __init__(self) -> None:
        self.waiters: set[Waiter] = set()
        self.ready = threading.Event()  # set when Redis confirmed the subscription
        self.idle_since: float | None = None
        self.notified = 0  # notifications received (reads started since saw all of them)


class _Read:
    __slots__ = ("generation", "done", "value", "error")

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class Hub(Waiting):
    """The process's one subscription, shared by all its waiters (started on first use)."""

    SUBSCRIBE = "SUBSCRIBE"
    UNSUBSCRIBE = "UNSUBSCRIBE"
    MESSAGE = b"message"
    CONFIRMATIONS = (b"subscribe", b"unsubscribe")

    def __init__(self, client: redis.Redis, report: redis.Redis | None = None, label: str = ""):
        self._client = client
        # Where the waiter counts go (the queue Redis when matches live elsewhere), and what
        # tells this subscription's entry from the process's others (one per cluster shard).
        self._report = client if report is None else report
        self._label = label
        self._pid: int | None = None
        self._start_lock = threading.Lock()

    # --- waiters --------------------------------------------------------------------
    def open(self, channel: str, kind: str, sock: Any = None) -> Waiter:
        """Register a waiter on `channel` (subscribing it if needed); close() it when done.

        `sock` is the client's socket, watched so that a client that leaves frees the waiter."""
        self._start()
        waiter = Waiter(channel, kind, sock)
        with self._lock:
            entry = self._channels.get(channel)
            if entry is None:
                entry = self._channels[channel] = _Channel()
                self._send(self.SUBSCRIBE, [channel], [entry.ready])
            entry.waiters.add(waiter)
            entry.idle_since = None
            self._counts[kind] += 1
        try:
            if not entry.ready.wait(CONFIRM_SECONDS):
                raise redis.ConnectionError("Redis did not confirm the subscription")
            waiter._watch_client()
        except BaseException:
            self.close(waiter)
            raise
        return waiter

    def close(self, waiter: Waiter) -> None:
        """Unregister a waiter (again is harmless); its channel lingers, then is unsubscribed."""
        if not waiter._open:
            return
        waiter._open = False
        waiter._unwatch()
        with self._lock:
            self._counts[waiter.kind] -= 1
            entry = self._channels.get(waiter.channel)
            if entry is not None:
                entry.waiters.discard(waiter)
                if not entry.waiters:
                    entry.idle_since = time.monotonic()

    def shared_read(self, waiter: Waiter, key: Any, read: Callable[[], Any]) -> Any:
        """`read()`, or the result of the same read (same `key`) another waiter of the channel
        started after the last notification: a move seen by 1,000 spectators is read once.

        A read started after the latest notification started after the commit behind any
        notification a waiter has been woken by, so it holds what that waiter looks for."""
        entry = self._channels.get(waiter.channel)
        if entry is None:
            return read()
        generation = entry.notified
        pending = self._reads.get(key)
        if pending is not None and pending.generation == generation:
            pending.done.wait()
            if pending.error is not None:
                raise pending.error
            return pending.value
        mine = self._reads[key] = _Read(generation)
        try:
            mine.value = read()
            return mine.value
        except BaseException as e:
            mine.error = e
            raise
        finally:
            mine.done.set()
            if self._reads.get(key) is mine:
                del self._reads[key]

    def mark(self, channel: str) -> Any:
        if self._pid != os.getpid():
            return None
        entry = self._channels.get(channel)
        if entry is None or not entry.ready.is_set():
            return None
        return entry, entry.notified, self._epoch

    def quiet_since(self, channel: str, mark: Any) -> bool:
        # The same subscription, no notification since, the same connection (one lost may have
        # lost some: the reader wakes every registered waiter once it is back).
        if mark is None:
            return False
        entry, notified, epoch = mark
        return entry.notified == notified and self._epoch == epoch and self._channels.get(channel) is entry

    def counts(self) -> dict[str, int]:
        """Open waiters of this process by kind."""
        if self._pid != os.getpid():
            return dict.fromkeys(KINDS, 0)
        return {kind: self._counts[kind] for kind in KINDS}

    # --- the subscription -----------------------------------------------------------
    def _start(self) -> None:
        if self._pid == os.getpid():
            return
        with self._start_lock:
            if self._pid != os.getpid():
                self._start_here()

    def _start_here(self) -> None:
        # First use in this process (never share a socket or a thread across a fork).
        self._lock = threading.Lock()
        self._channels: dict[str, _Channel] = {}
        self._reads: dict[Any, _Read] = {}  # reads in flight, see shared_read
        # Per channel, what each confirmation still to come will set (None: an unsubscribe).
        # Redis answers a connection's commands in order, so a SUBSCRIBE, UNSUBSCRIBE,
        # SUBSCRIBE of one channel in flight at once each meet their own confirmation.
        self._expect: dict[str, collections.deque[threading.Event | None]] = {}
        self._conn: Any = None
        self._epoch = 0  # connections made or lost: notifications may be lost in between
        self._counts: collections.Counter[str] = collections.Counter()
        self._pid = os.getpid()
        threading.Thread(target=self._read_forever, name="waiters-reader", daemon=True).start()
        threading.Thread(target=self._housekeep_forever, name="waiters-housekeeper", daemon=True).start()

    def _send(self, command: str, channels: list[str], confirmations: list[threading.Event | None]) -> None:
        """Send a (un)subscribe for `channels`; hold self._lock. Without a connection it is
        left to the reader, which subscribes every registered channel when it (re)connects."""
        if self._conn is None:
            return
        for name, confirmation in zip(channels, confirmations, strict=True):
            self._expect.setdefault(name, collections.deque()).append(confirmation)
        try:
            _send_each(self._conn, command, channels)
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            pass  # the reader's read fails in turn, and it reconnects and subscribes anew

    def _connect(self) -> Any:
        pool = self._client.connection_pool
        # RESP2, where every subscription message is a plain reply (RESP3 makes them pushes).
        conn = pool.connection_class(**{**pool.connection_kwargs, "protocol": 2})
        conn.connect()
        with self._lock:
            self._conn = conn
            self._epoch += 1
            self._expect.clear()
            names = list(self._channels)
            for name in names:
                self._expect[name] = collections.deque([self._channels[name].ready])
            _send_each(conn, self.SUBSCRIBE, names)
            waiters = [w for entry in self._channels.values() for w in entry.waiters]
        for w in waiters:
            w.notify()  # notifications may have been lost while disconnected: read again
        return conn

    def _read_forever(self) -> None:
        backoff = 0.1
        while True:
            conn = None
            try:
                conn = self._connect()
                backoff = 0.1
                self._pump(conn)
            except (redis.ConnectionError, redis.TimeoutError, OSError) as e:
                # Once an outage: every retry of it would say the same.
                level = logging.WARNING if backoff == 0.1 else logging.DEBUG
                log.log(level, "waiters' subscription lost (%s); reconnecting", e)
            except Exception:
                log.exception("waiters' subscription failed; reconnecting")
            with self._lock:
                self._conn = None
                self._epoch += 1
            if conn is not None:
                conn.disconnect()
            time.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    def _pump(self, conn: Any) -> None:
        pinged = False
        while True:
            if not conn.can_read(timeout=HEALTH_SECONDS):
                if pinged:
                    raise redis.TimeoutError("no answer to PING on the subscription")
                with self._lock:
                    conn.send_command("PING", check_health=False)
                pinged = True
                continue
            pinged = False
            reply = conn.read_response()
            if reply[0] == self.MESSAGE:
                entry = self._channels.get(reply[1].decode())
                if entry is not None:
                    entry.notified += 1
                    for w in list(entry.waiters):
                        w.notify()
            elif reply[0] in self.CONFIRMATIONS:
                self._confirmed(reply[1].decode())

    def _confirmed(self, name: str) -> None:
        with self._lock:
            pending = self._expect.get(name)
            if not pending:
                return
            confirmation = pending.popleft()
            if not pending:
                del self._expect[name]
        if confirmation is not None:
            confirmation.set()

    # --- housekeeping ---------------------------------------------------------------
    def _housekeep_forever(self) -> None:
        # One field per hub, not per process: a process may hold several (the tests' apps do),
        # and each hub's counts would overwrite the others'.
        me = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}{self._label}"
        reported, reported_at = None, 0.0
        while True:
            time.sleep(REPORT_SECONDS)
            try:
                self._unsubscribe_idle()
                counts = self.counts()
                now = time.time()
                if counts != reported or now - reported_at >= HEARTBEAT_SECONDS:
                    self._report.hset(METRICS_KEY, me, encode_counts(counts, now))
                    reported, reported_at = counts, now
            except (redis.ConnectionError, redis.TimeoutError):
                pass  # Redis away: the reader reconnects; counts are written once it is back
            except Exception:
                log.exception("waiters' housekeeping failed")

    def _unsubscribe_idle(self) -> None:
        now = time.monotonic()
        with self._lock:
            idle = [
                name
                for name, entry in self._channels.items()
                if not entry.waiters and entry.idle_since is not None and now - entry.idle_since > LINGER
            ]
            for name in idle:
                del self._channels[name]
            if idle:
                self._send(self.UNSUBSCRIBE, idle, [None] * len(idle))


def _send_each(conn: Any, command: str, channels: list[str]) -> None:
    """One (un)subscribe command per channel: a sharded SSUBSCRIBE may only name channels of
    one slot (Redis Cluster answers CROSSSLOT otherwise), and each channel gets its own
    confirmation either way."""
    for name in channels:
        conn.send_command(command, name, check_health=False)


class ShardHub(Hub):
    """The subscription to one Redis Cluster master: sharded pub/sub, whose messages go only to
    the nodes of the channel's slot (a plain PUBLISH on a cluster reaches every node)."""

    SUBSCRIBE = "SSUBSCRIBE"
    UNSUBSCRIBE = "SUNSUBSCRIBE"
    MESSAGE = b"smessage"
    CONFIRMATIONS = (b"ssubscribe", b"sunsubscribe")


class ClusterHub(Waiting):
    """On Redis Cluster: one ShardHub (one connection) per master, each channel on the master
    that owns its slot; the same interface as Hub."""

    def __init__(self, cluster: Any, report: redis.Redis):
        self._cluster, self._report = cluster, report
        self._hubs: dict[str, ShardHub] = {}
        self._owners: dict[int, ShardHub] = {}
        self._lock = threading.Lock()

    def _hub(self, channel: str) -> ShardHub:
        node = self._cluster.get_node_from_key(channel)
        with self._lock:
            hub = self._hubs.get(node.name)
            if hub is None:
                hub = self._hubs[node.name] = ShardHub(node.redis_connection, self._report, f"@{node.name}")
            return hub

    def open(self, channel: str, kind: str, sock: Any = None) -> Waiter:
        hub = self._hub(channel)
        waiter = hub.open(channel, kind, sock)
        # Its own hub, whatever the slot map says later (a failover moves the slot).
        self._owners[id(waiter)] = hub
        return waiter

    def close(self, waiter: Waiter) -> None:
        hub = self._owners.pop(id(waiter), None)
        if hub is not None:
            hub.close(waiter)

    def shared_read(self, waiter: Waiter, key: Any, read: Callable[[], Any]) -> Any:
        hub = self._owners.get(id(waiter))
        return read() if hub is None else hub.shared_read(waiter, key, read)

    def counts(self) -> dict[str, int]:
        totals = dict.fromkeys(KINDS, 0)
        for hub in list(self._hubs.values()):
            for kind, n in hub.counts().items():
                totals[kind] += n
        return totals

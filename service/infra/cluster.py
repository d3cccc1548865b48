"""Match state on Redis Cluster: the state URL, and the hot path's routing to the node of a slot.

`CARDTABLE_STATE_URL=redis+cluster://host:port[,host:port...]` keeps matches on a cluster
(docs/deployment.md). The store's hot path (a match load, a commit) does not go through
redis-py's `RedisCluster` object, for the same reason it bypasses `redis.Redis` on one server
(docs/architecture.md, "Serving"): `Router` keeps one raw connection per thread and node, finds
the node from redis-py's slot map, and follows the cluster's redirections itself.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import hiredis
import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)

log = logging.getLogger("cardtable.cluster")

CLUSTER_SCHEME = "redis+cluster://"

# Answers that mean the slot's owner is changing (a failover, a resharding) or unknown: the
# command was not executed, and the client's slot map may be stale.
_REDIRECTS = (MovedError, AskError, TryAgainError, ClusterDownError, ReadOnlyError)
# Tries of one round trip that meets redirections before the caller gets a 503.
ATTEMPTS = 3
# At most one slot-map refresh per process in this many seconds (a failover makes every
# request of every thread fail at once).
REFRESH_INTERVAL = 0.2


def pack_commands(commands: list[tuple[Any, ...]]) -> list[bytes]:
    """Redis commands in the wire protocol, for one write. hiredis packs each command in C;
    redis-py's own `pack_commands` first walks every argument in Python (33 calls a move).
    Our commands are all str, bytes and int arguments, which hiredis packs as redis-py does."""
    return [b"".join(map(hiredis.pack_command, commands))]  # one item: one sendall


class StateUnavailable(redis.ConnectionError):
    """The cluster cannot serve the match's slot right now (failover in progress, slot not
    covered): a 503 with Retry-After, like a Redis that is away."""


def state_client(
    url: str, connect: Callable[[str], redis.Redis] = redis.Redis.from_url
) -> redis.Redis | RedisCluster:
    """The client for match state: `RedisCluster` for a redis+cluster:// URL, else one Redis
    (made by `connect`)."""
    if not url.startswith(CLUSTER_SCHEME):
        return connect(url)
    auth, _, hosts = url[len(CLUSTER_SCHEME) :].rpartition("@")
    user, _, password = auth.partition(":")
    nodes = []
    for part in hosts.split("/")[0].split(","):
        host, _, port = part.strip().rpartition(":")
        nodes.append(ClusterNode(host or "127.0.0.1", int(port or 6379)))
    return RedisCluster(
        startup_nodes=nodes,
        username=unquote(user) or None,
        password=unquote(password) or None,
        socket_timeout=5,
        socket_connect_timeout=2,
    )


# A round trip's part for one server: the key whose slot picks the node (None: the queue
# Redis; a (host, port) pair: that node, after an ASK), and its commands.
Group = tuple[Any, list[tuple[Any, ...]]]


class Router:
    """One raw connection per thread and node; commands grouped by node go out in one write
    each, then every reply is read, so a round trip costs one network wait whatever the number
    of nodes it touches."""

    def __init__(self, state: redis.Redis | RedisCluster, queue: redis.Redis, limit: int = 16):
        self.state = state
        self.queue = queue
        # As RoundTrips' own (service/infra/roundtrips.py): per server a free list of
        # connections, taken for one round trip (not one per thread: under gevent each request
        # is a greenlet), and at most `limit` round trips in flight.
        self._idle: dict[str, list[Any]] = {}
        self._idle_pid = os.getpid()
        self._hot = threading.BoundedSemaphore(limit)
        self._refresh_lock = threading.Lock()
        self._refreshed = 0.0

    def _conn(self, target: Any, used: dict[str, Any]) -> tuple[str, Any]:
        cluster = self.state
        if target is None:
            name, client = "queue", self.queue
        elif not isinstance(cluster, RedisCluster):  # state on one Redis of its own
            name, client = "state", cluster
        else:
            if isinstance(target, tuple):
                node = cluster.get_node(host=target[0], port=target[1])
                if node is None:  # a node the slot map does not know yet
                    self.refresh(force=True)
                    node = cluster.get_node(host=target[0], port=target[1])
            else:
                node = cluster.get_node_from_key(target)
            if node is None or node.redis_connection is None:
                raise StateUnavailable(f"no cluster node for {target!r}")
            name, client = node.name, node.redis_connection
        conn = used.get(name)
        if conn is None:
            idle = self._idle.setdefault(name, [])
            if idle:
                conn = idle.pop()
            else:
                pool = client.connection_pool
                conn = pool.connection_class(**pool.connection_kwargs)
            used[name] = conn
        return name, conn

    def refresh(self, force: bool = False) -> None:
        """Reload the slot map from the cluster (after a failover or a MOVED)."""
        with self._refresh_lock:
            now = time.monotonic()
            if not force and now - self._refreshed < REFRESH_INTERVAL:
                return
            self._refreshed = now
            if not isinstance(self.state, RedisCluster):
                return
            try:
                self.state.nodes_manager.initialize()
            except Exception as e:  # no node answers yet: the next request tries again
                log.warning("cluster slot map refresh failed: %s", e.__class__.__name__)

    def roundtrip(self, groups: list[Group], retry: bool) -> list[list[Any]]:
        """Each group's replies. Redirections are followed (the command was not executed);
        a dropped connection is retried once only when `retry` (see RoundTrips.roundtrip)."""
        last: BaseException | None = None
        for attempt in range(ATTEMPTS):
            try:
                return self._once(groups)
            except (redis.ConnectionError, redis.TimeoutError):
                self.refresh()
                if not retry:
                    raise
                retry = False
            except AskError as e:
                if not isinstance(e, MovedError):
                    # The slot is moving and this key is already on the target: ask there once.
                    failed = getattr(e, "group", None)
                    groups = [_asking(g, e) if i == failed else g for i, g in enumerate(groups)]
                    last = e
                    continue
                self.refresh(force=True)
            except _REDIRECTS as e:
                self.refresh()
                if isinstance(e, TryAgainError):
                    time.sleep(0.05 * (attempt + 1))
                last = e
            except RedisClusterException as e:  # a slot no node covers (mid-failover)
                self.refresh()
                last = e
        raise StateUnavailable(f"the match's cluster slot is unavailable: {last.__class__.__name__}")

    def _once(self, groups: list[Group]) -> list[list[Any]]:
        self._hot.acquire()
        if self._idle_pid != os.getpid():  # never share a socket across a fork
            self._idle, self._idle_pid = {}, os.getpid()
        used: dict[str, Any] = {}
        try:
            return self._send_and_read(groups, used)
        finally:
            for name, conn in used.items():  # a dropped one reconnects on its next use
                self._idle.setdefault(name, []).append(conn)
            self._hot.release()

    def _send_and_read(self, groups: list[Group], used: dict[str, Any]) -> list[list[Any]]:
        sent: list[tuple[Any, int]] = []
        try:
            for target, commands in groups:
                _, conn = self._conn(target, used)
                conn.send_packed_command(pack_commands(commands))
                sent.append((conn, len(commands)))
        except BaseException:
            for conn in used.values():
                conn.disconnect()
            raise
        results: list[list[Any]] = []
        error: BaseException | None = None
        for index, ((conn, count), (target, _)) in enumerate(zip(sent, groups, strict=True)):
            replies: list[Any] = []
            try:
                for _ in range(count):
                    try:
                        replies.append(conn.read_response())
                    except ResponseError as e:  # read on: the connection stays in step
                        replies.append(e)
                        if error is None:
                            e.group, error = index, e  # type: ignore[attr-defined]
            except BaseException as e:
                conn.disconnect()
                error = error or e
            if isinstance(target, tuple):
                replies = replies[1:]  # ASKING's answer
            results.append(replies)
        if error is not None:
            raise error
        return results


def _asking(group: Group, ask: AskError) -> Group:
    target, commands = group
    if isinstance(target, tuple):
        commands = commands[1:]  # asked before already: ASKING is added once
    return (ask.host, ask.port), [("ASKING",), *commands]

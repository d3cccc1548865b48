"""One waiting request of the waiters' hub (service/infra/waiters.py): a long-poll or a stream of a
match or a player's feed, woken by a notification on its channel or by its client leaving; what
its users do with a hub (`Waiting`: watch, wait_read); and how many wait, by kind, over every
API process (`/metrics`: docs/api.md, "Metrics").

Each process's hub writes its counts to one Redis hash, `ct:waiters`: "<host>:<pid>:<hub>[@shard]"
(a field per hub) -> "<count of each kind, in KINDS' order> <unix time>", each second while they
change and every HEARTBEAT_SECONDS regardless; an entry older than STALE_SECONDS belongs to a
process that is gone.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def _client_left(sock: Any) -> bool:
    """Whether the client at the other end of `sock` has closed it (never blocks)."""
    raw: socket.socket = getattr(sock, "_sock", sock)  # gevent's socket wraps the real one
    try:
        return raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False  # nothing to read: still there
    except (OSError, ValueError):
        return True  # reset, or closed on our side


def _gevent_loop() -> Any:
    """The gevent event loop when this process runs under gevent's patching, else None."""
    try:
        from gevent import get_hub, monkey
    except ImportError:
        return None
    return get_hub().loop if monkey.is_module_patched("socket") else None


class Waiter:
    """One waiting request: woken by a notification on its channel or by its client leaving."""

    __slots__ = ("channel", "kind", "gone", "_event", "_sock", "_watcher", "_open")

    def __init__(self, channel: str, kind: str, sock: Any = None):
        self.channel = channel
        self.kind = kind
        self.gone = False  # the client hung up
        self._event = threading.Event()  # gevent's Event under its patching
        self._sock = sock
        self._watcher: Any = None
        self._open = True

    def notify(self) -> None:
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """True when woken (by a notification, or its client leaving: see `gone`), False after
        `timeout` seconds. Clears the wake-up, so events read after it are not missed."""
        if self._sock is None or self._watcher is not None:
            woke = self._event.wait(timeout)
        else:
            woke = self._poll_client(timeout)
        self._event.clear()
        return woke or self.gone

    def _poll_client(self, timeout: float) -> bool:
        # Threads: no event loop to watch the socket, so look at it once a second.
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            if self._event.wait(min(left, 1.0)):
                return True
            if _client_left(self._sock):
                self.gone = True
                return True

    def _watch_client(self) -> None:
        loop = _gevent_loop() if self._sock is not None else None
        if loop is None:
            return
        try:
            fd = self._sock.fileno()
        except OSError:
            self.gone = True
            return
        self._watcher = loop.io(fd, 1)  # 1: readable
        self._watcher.start(self._readable)

    def _readable(self) -> None:
        # Runs in the event loop. A client waiting for its answer sends nothing, so a readable
        # socket means it closed (EOF or reset), or it pipelined another request: either way
        # one look is enough, and the watch stops (closed later by _unwatch, outside the loop).
        self._watcher.stop()
        if _client_left(self._sock):
            self.gone = True
            self._event.set()

    def _unwatch(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher.close()
            self._watcher = None


class Waiting:
    """What every hub offers its waiters' users (Hub, ClusterHub: service/infra/waiters.py):
    `watch`, a waiter opened for a `with` block and closed however the block ends; `wait_read`,
    a long-poll's wait, one shared read a wake-up."""

    def open(self, channel: str, kind: str, sock: Any = None) -> Waiter:
        raise NotImplementedError

    def close(self, waiter: Waiter) -> None:
        raise NotImplementedError

    def shared_read(self, waiter: Waiter, key: Any, read: Callable[[], Any]) -> Any:
        raise NotImplementedError

    def mark(self, channel: str) -> Any:
        """Taken before a read, for `quiet_since`; None (never quiet) unless subscribed."""
        return None

    def quiet_since(self, channel: str, mark: Any) -> bool:
        """Asked once a waiter of `channel` is registered: no notification can have come since
        `mark`, so a read made after it saw every commit that will not wake the waiter."""
        return False

    def wait_read(
        self, waiter: Waiter, key: Any, read: Callable[[], tuple[Any, ...]], wait: float
    ) -> tuple[Any, ...] | None:
        """Up to `wait` seconds: `read()` after each wake-up; its first answer whose first item
        is not empty, else None (time up, or the client hung up)."""
        deadline = time.monotonic() + wait
        while not waiter.gone:
            left = deadline - time.monotonic()
            if left <= 0 or not waiter.wait(left):
                break
            answer: tuple[Any, ...] = self.shared_read(waiter, key, read)
            if answer[0]:
                return answer
        return None

    @contextmanager
    def watch(self, channel: str, kind: str, sock: Any = None) -> Iterator[Waiter]:
        waiter = self.open(channel, kind, sock)
        try:
            yield waiter
        finally:
            self.close(waiter)


# Match feeds (`/v1/matches/{id}/events?wait=`, `/stream`) and players' feeds (`/v1/me/events`,
# `/v1/me/stream`). A new kind goes last: a process still writing fewer counts reads as zeros
# for the kinds it does not know.
KINDS = ("long_poll", "sse", "player_long_poll", "player_sse")
METRICS_KEY = "ct:waiters"
REPORT_SECONDS = 1.0
HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 30.0


def encode_counts(counts: dict[str, int], now: float) -> str:
    """A process's entry of the hash."""
    return " ".join([*(str(counts[kind]) for kind in KINDS), f"{now:.0f}"])


def open_waiters(client: Any) -> dict[str, int]:
    """Open waiters of every live API process, by kind (stale processes' entries are dropped)."""
    totals = dict.fromkeys(KINDS, 0)
    now, stale = time.time(), []
    for field, value in client.hgetall(METRICS_KEY).items():
        *counts, at = value.split()
        if now - float(at) > STALE_SECONDS:
            stale.append(field)
            continue
        for kind, n in zip(KINDS, counts, strict=False):
            totals[kind] += int(n)
    if stale:
        client.hdel(METRICS_KEY, *stale)
    return totals

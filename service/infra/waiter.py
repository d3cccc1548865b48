"""One waiting request of the waiters' hub (service/infra/waiters.py): a long-poll or a stream of a
match or a player's feed, woken by a notification on its channel or by its client leaving."""

from __future__ import annotations

import socket
import threading
import time
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

"""Open long-polls and streams per client address (docs/api.md, "Limits").

Each waiting request (a match's `/events` long-poll or `/stream`, a player's `/v1/me/events`
long-poll or `/v1/me/stream`) holds one of its address's places while it waits, taken before
the wait begins and given back when it ends, however it ends (its time up, the token lost, the
client gone). Past CARDTABLE_MAX_WAITS_PER_ADDRESS open at once the next is 429
`quota_exceeded` (quota `waits`).

Counted in each API process, not in Redis: what a wait holds (a socket, a greenlet, its
memory) is the process's, and so is the limit a process needs; a count in Redis would cost
every long-poll two round trips and leave the places of a process that died taken. With P
processes an address may hold P times the limit in all. The places are a count an address,
not an entry a wait: the waits themselves weigh nothing more.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from service import errors

# What a refused caller is told to wait: the shortest long-poll ends well within it.
RETRY_AFTER = 5


class WaitQuota:
    def __init__(self, limit: int):
        self.limit = limit  # 0: no limit
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()  # gevent's under its patching

    def take(self, address: str) -> None:
        """One more open wait for `address`, or 429 when it holds all its places."""
        if self.limit <= 0:
            return
        with self._lock:
            held = self._open.get(address, 0)
            if held >= self.limit:
                raise errors.QuotaExceeded(
                    "waits",
                    f"this address holds {held} open long-polls and streams, the most it may;"
                    " close one first",
                    retry_after=RETRY_AFTER,
                )
            self._open[address] = held + 1

    def give(self, address: str) -> None:
        """A wait `take` counted has ended."""
        if self.limit <= 0:
            return
        with self._lock:
            held = self._open.get(address, 0) - 1
            if held > 0:
                self._open[address] = held
            else:
                self._open.pop(address, None)

    @contextmanager
    def held(self, address: str, waits: bool = True) -> Iterator[None]:
        """A place for the block's wait (none when it `waits` not: it answers at once)."""
        if not waits:
            yield
            return
        self.take(address)
        try:
            yield
        finally:
            self.give(address)

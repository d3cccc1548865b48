"""Held decisions: what a bot worker's jobs leave to run later, waited for in one thread of the
worker so that a held decision holds no worker (docs/architecture.md, "Held decisions").

A pro's decision in a match with a person is committed no sooner than its floor after its job
started (service/matches/bots.py, `decision_floor`), and a turn clock's job released before its
deadline acts no sooner than the deadline. Slept in the job, either wait kept the worker from
every other job: one worker played at most ten Spades pro decisions a second, whatever the
cores. Here the job computes the decision and returns; its commit waits in a heap ordered by due
time, and this thread sleeps on a condition until the earliest is due (no polling), then runs
it with the job's log ids. A due commit runs within the interpreter's switch interval (5 ms)
even while the worker's main thread searches.

Nothing acknowledged waits here: a held commit was never answered to anyone, and a worker
killed with decisions held loses only work the sweeper does again (workers/sweeper.py: the
match still waits for a bot at its version and the job is gone, so it is enqueued again once
its grace is past; the second job decides the same, from the same view and bot seed). A
worker that is stopped (SIGTERM, Ctrl-C) commits what it holds before it exits (`stop`).
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

import redis

log = logging.getLogger("cardtable.held")

# The longest a stopping worker waits for its held commits (the longest floor is 0.5 s, a clock
# released early waits under a second).
DRAIN_WAIT = 10.0


class Held(threading.Thread):
    """The worker's `Holder` (service/matches/bots.py): `hold` queues and returns at once."""

    def __init__(self) -> None:
        super().__init__(name="cardtable-held", daemon=True)
        self._due: list[tuple[float, int, Callable[[], str], contextvars.Context]] = []
        self._order = itertools.count()  # equal due times run in the order they came
        self._changed = threading.Condition()
        self._stopping = False

    def hold(self, seconds: float, then: Callable[[], str]) -> str:
        """Run `then` `seconds` from now in this thread; the job's outcome is "held"."""
        entry = (time.monotonic() + seconds, next(self._order), then, contextvars.copy_context())
        with self._changed:
            heapq.heappush(self._due, entry)
            self._changed.notify()
        return "held"

    def run(self) -> None:
        while True:
            entry = self._next()
            if entry is None:
                return
            _, _, then, context = entry
            try:
                outcome = context.run(then)
                log.debug("held %s", outcome)
            except (redis.ConnectionError, redis.TimeoutError) as e:
                # Not committed, or committed without its answer: the match then still waits
                # for this version's bot and the sweeper enqueues its job again.
                log.warning("a held commit could not reach Redis (%s); the sweeper will retry it", e)
            except Exception:
                log.exception("a held commit failed; the sweeper will retry it")

    def _next(self) -> tuple[float, int, Callable[[], str], contextvars.Context] | None:
        """The earliest entry once it is due; None once stopped with nothing left."""
        with self._changed:
            while True:
                if not self._due:
                    if self._stopping:
                        return None
                    self._changed.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait <= 0:
                    return heapq.heappop(self._due)
                self._changed.wait(wait)

    def stop(self) -> None:
        """Run what is held at its time, then end the thread (a stopping worker loses nothing)."""
        with self._changed:
            self._stopping = True
            self._changed.notify()
        if self.is_alive():
            self.join(timeout=DRAIN_WAIT)
        if self._due:
            log.warning("%d held commit(s) left to the sweeper", len(self._due))

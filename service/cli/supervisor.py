"""What `cardtable serve` runs beside gunicorn, and how it keeps them running: its children
(the embedded Redis, the bot workers, the webhooks worker, gunicorn's master), each restarted
with backoff when it dies, or ending `serve` when it may not be (docs/architecture.md, "No
match stalls")."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable

log = logging.getLogger("cardtable")


def cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's cpuset)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Child:
    """A process `serve` runs; with `restart`, started again when it dies instead of stopping all."""

    def __init__(
        self,
        name: str,
        start: Callable[[], subprocess.Popen[bytes]],
        restart: bool,
        proc: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.name, self.start, self.restart = name, start, restart
        self.proc = proc
        self.started = time.monotonic()
        self.backoff = 1.0
        self.retry_at: float | None = None

    def launch(self) -> None:
        self.proc, self.started, self.retry_at = self.start(), time.monotonic(), None

    def check(self) -> bool:
        """False when the child died and `serve` must stop; restarts it (with backoff) otherwise."""
        now = time.monotonic()
        if self.retry_at is not None:
            if now >= self.retry_at:
                try:
                    self.launch()
                    log.warning("%s restarted", self.name)
                except Exception as e:  # e.g. Redis could not start: try again later
                    self._schedule(now, f"failed to start ({e})")
            return True
        if self.proc is None or self.proc.poll() is None:
            return True
        if not self.restart:
            log.error("%s exited with %s; stopping", self.name, self.proc.returncode)
            return False
        if now - self.started > 60:
            self.backoff = 1.0  # it ran a good while: a new failure, not a crash loop
        self._schedule(now, f"exited with {self.proc.returncode}")
        return True

    def _schedule(self, now: float, why: str) -> None:
        log.error("%s %s; restarting it in %.0f s", self.name, why, self.backoff)
        self.retry_at = now + self.backoff
        self.backoff = min(self.backoff * 2, 30.0)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def supervise(children: list[Child]) -> int:
    """Start the children not yet running, then watch them until Ctrl-C/SIGTERM (0) or a child
    that is not restarted dies (1)."""
    for child in children:
        if child.proc is None:
            child.launch()
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    while not stopping:
        if not all(child.check() for child in children):
            stopping, code = True, 1
        time.sleep(0.2)
    # Stop the web and worker processes before Redis so they can finish their writes.
    for child in reversed(children):
        child.stop()
    return code

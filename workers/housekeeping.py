"""The housekeeper: RQ's scheduler, the outbox relay and the sweeper, in a thread of every
worker, one active at a time.

RQ runs its scheduler in a process forked from the worker and guards it with a lock that
lives 61 s; a scheduler killed with its lock held blocked every other one until the lock
expired, and the worker looked for a dead scheduler only at its 10-minute maintenance. Here
each `cardtable worker` runs a thread that every TICK takes or refreshes the same lock
(RQ's key, so an RQ scheduler started by hand never runs beside it) with a life of LOCK_TTL
seconds. The holder moves due delayed jobs to the queue, relays what committers left in their
matches' outboxes (workers/relay.py) and sweeps (workers/sweeper.py); the webhooks workers'
holder (a lock of their own) releases their delayed retries and sweeps deliveries whose attempt
was lost (workers/webhooks.py). When a holder dies, with its worker or alone, another worker of
its kind takes over within LOCK_TTL + TICK seconds. A thread dies with its process, so no
scheduler outlives its worker.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid

import redis
from rq.scheduler import RQScheduler
from rq.scripts import acquire_or_refresh_lock, release_lock
from rq.serializers import JSONSerializer

from service.config import Config
from service.infra.jobqueue import queue_names, webhook_queue_names

log = logging.getLogger("cardtable.housekeeper")

LOCK_TTL = 5  # seconds; the longest a dead housekeeper keeps the others waiting
# Seconds between two scheduler passes. RQ's own is 1 s, which rounds every delayed bot move
# up to the next whole second; a pass is two cheap commands.
TICK = 0.25
MAX_BACKOFF = 30.0


class Housekeeper(threading.Thread):
    """With `webhooks`, the housekeeper of the webhooks workers: their own lock, their queues'
    delayed retries and the sweep of deliveries, so no bot worker's process ever spends a
    moment on webhooks (docs/webhooks.md); else the bot workers': scheduler, relay, sweeper."""

    def __init__(self, config: Config, queue_name: str, webhooks: bool = False):
        super().__init__(name="cardtable-housekeeper", daemon=True)
        self.config = config
        self.queue_name = queue_name
        self.webhooks = webhooks
        # The lock's value: which process holds it (operators and tests read it).
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.client = redis.Redis.from_url(config.REDIS_URL)
        # One lock (the first queue's) guards the scheduling of the kind's queues.
        self.queue_names = webhook_queue_names(queue_name) if webhooks else queue_names(queue_name)
        self.lock_key = RQScheduler.get_locking_key(self.queue_names[0])
        self.scheduler = RQScheduler(
            self.queue_names, connection=self.client, serializer=JSONSerializer, name=self.owner
        )
        self.stopping = threading.Event()
        self.leading = False

    def run(self) -> None:
        backoff = TICK
        next_sweep = 0.0
        while not self.stopping.wait(backoff):
            try:
                if self.tick(sweep=time.monotonic() >= next_sweep):
                    next_sweep = time.monotonic() + self.config.SWEEP_INTERVAL
                backoff = TICK
            except (redis.ConnectionError, redis.TimeoutError) as e:
                backoff = min(backoff * 2, MAX_BACKOFF)
                log.warning("Redis unreachable (%s); the housekeeper retries in %.1f s", e, backoff)
            except Exception:
                # A bug here must not end the thread: the next tick tries again.
                log.exception("housekeeping pass failed")
                backoff = TICK

    def tick(self, sweep: bool) -> bool:
        """One pass if this worker holds the lock (or takes it): release the delayed jobs that
        are due and, with `sweep`, sweep. True when it swept."""
        self.leading = self._hold_lock()
        if not self.leading:
            return False
        self.scheduler.enqueue_scheduled_jobs()
        if sweep:
            self._sweep()
        return sweep

    def _hold_lock(self) -> bool:
        outcome = acquire_or_refresh_lock(self.client, self.lock_key, self.owner, LOCK_TTL)
        if outcome == "acquired":
            log.info("%s now runs the scheduler and the sweeper", self.owner)
            self.scheduler._acquired_locks = set(self.queue_names)
            self.scheduler.prepare_registries()
        return outcome != "taken"

    def _sweep(self) -> None:
        from workers.jobs import service
        from workers.relay import relay
        from workers.sweeper import sweep
        from workers.webhooks import sweep_deliveries

        if self.webhooks:
            requeued = sweep_deliveries(service())
            if requeued:
                log.warning("the sweep enqueued %d lost webhook attempt(s) again", requeued)
            return
        relay(service())
        requeued = sweep(service())
        if requeued:
            log.warning("the sweeper enqueued %d overdue job(s) again", requeued)

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive():
            self.join(timeout=5)
        try:
            release_lock(self.client, self.lock_key, self.owner)
        except (redis.ConnectionError, redis.TimeoutError):
            pass  # the lock expires by itself within LOCK_TTL

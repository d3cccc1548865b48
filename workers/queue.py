"""Enqueueing jobs: plain functions by dotted name, JSON serializer, ids that make duplicates harmless."""

from __future__ import annotations

from datetime import timedelta

import redis
from rq import Queue
from rq.serializers import JSONSerializer


def make_queue(connection: redis.Redis, name: str) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


class JobQueue:
    """What the service hands to the workers."""

    def __init__(self, queue: Queue, bot_delay: float = 0.0):
        self.queue = queue
        self.bot_delay = bot_delay

    def enqueue_bot(self, match_id: str, version: int) -> None:
        # One job per (match, version): a duplicate enqueue replaces the job, and a job
        # that finds a newer version does nothing.
        kwargs = dict(job_id=f"bot-{match_id}-{version}", result_ttl=0, failure_ttl=24 * 3600)
        if self.bot_delay > 0:
            self.queue.enqueue_in(
                timedelta(seconds=self.bot_delay), "workers.jobs.bot_turn", match_id, version, **kwargs
            )
        else:
            self.queue.enqueue("workers.jobs.bot_turn", match_id, version, **kwargs)

    def enqueue_clock(self, match_id: str, turn: int, seconds: float) -> None:
        self.queue.enqueue_in(
            timedelta(seconds=seconds),
            "workers.jobs.clock_expired",
            match_id,
            turn,
            job_id=f"clock-{match_id}-{turn}",
            result_ttl=0,
            failure_ttl=24 * 3600,
        )

"""Enqueueing jobs: plain functions by dotted name, JSON serializer, ids that make duplicates harmless."""

from __future__ import annotations

from datetime import timedelta

import redis
from rq import Queue
from rq.serializers import JSONSerializer


def make_queue(connection: redis.Redis, name: str) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


def bot_job_id(match_id: str, version: int) -> str:
    return f"bot-{match_id}-{version}"


def clock_job_id(match_id: str, turn: int) -> str:
    return f"clock-{match_id}-{turn}"


class JobQueue:
    """What the service hands to the workers."""

    def __init__(self, queue: Queue, bot_delay: float = 0.0):
        self.queue = queue
        self.bot_delay = bot_delay

    def enqueue_bot(self, match_id: str, version: int, delay: float | None = None) -> None:
        # One job per (match, version): a duplicate enqueue replaces the job, and a job
        # that finds a newer version does nothing.
        seconds = self.bot_delay if delay is None else delay
        self._enqueue("workers.jobs.bot_turn", (match_id, version), bot_job_id(match_id, version), seconds)

    def enqueue_clock(self, match_id: str, turn: int, seconds: float) -> None:
        self._enqueue("workers.jobs.clock_expired", (match_id, turn), clock_job_id(match_id, turn), seconds)

    def _enqueue(self, func: str, args: tuple, job_id: str, seconds: float) -> None:
        kwargs = dict(job_id=job_id, result_ttl=0, failure_ttl=24 * 3600)
        if seconds > 0:
            self.queue.enqueue_in(timedelta(seconds=seconds), func, *args, **kwargs)
        else:
            self.queue.enqueue(func, *args, **kwargs)

"""What the service hands to the workers, and its RQ implementation.

`Jobs` is all the match service knows of a queue (service/matches/repository.py); `JobQueue` is the RQ
one that `build_service` wires in at start-up: plain functions by dotted name (workers/jobs.py),
the JSON serializer, and ids that make duplicates harmless. The workers (workers/) take the
jobs from the same queues."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Protocol

import redis
from rq import Queue, Worker
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.infra.tracing import job_meta


class Jobs(Protocol):
    """The match service's view of the queue: a bot's turn at a version, a turn clock, a
    rematch's deadline."""

    def enqueue_bot(
        self, match_id: str, version: int, delay: float | None = None, low: bool = False
    ) -> None: ...

    def enqueue_clock(self, match_id: str, turn: int, seconds: float) -> None: ...

    def enqueue_rematch(self, match_id: str, seconds: float) -> None: ...

    def enqueue_tournament(self, tournament_id: str, number: int) -> None: ...


# Delete a job still waiting in a scheduled registry, and only such a one: a job already
# released to the queue or running is left alone (it finds nothing to do). KEYS: the registry,
# the job's hash; ARGV: the job id.
DROP_SCHEDULED = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('DEL', KEYS[2]) end
"""


def make_queue(connection: redis.Redis, name: str) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


def bot_job_id(match_id: str, version: int) -> str:
    return f"bot-{match_id}-{version}"


def clock_job_id(match_id: str, turn: int) -> str:
    return f"clock-{match_id}-{turn}"


def rematch_job_id(match_id: str) -> str:
    return f"rematch-{match_id}"


def tournament_job_id(tournament_id: str, number: int) -> str:
    return f"tournament-{tournament_id}-{number}"


def fan_out_job_id(match_id: str, version: int) -> str:
    return f"notify-{match_id}-{version}"


def delivery_job_id(delivery_id: str, seq: int) -> str:
    return f"whd-{delivery_id}-{seq}"


def low_queue_name(name: str) -> str:
    """The queue of bot turns that may wait: matches nobody plays in, and very long ones."""
    return f"{name}-low"


def queue_names(name: str) -> list[str]:
    """Every queue a worker takes jobs from, in the order it takes them (RQ's priority)."""
    return [name, low_queue_name(name)]


def webhook_queue_name(name: str) -> str:
    """The queue of webhook work (docs/webhooks.md): fan-outs and each delivery's first attempt.
    Only `cardtable worker --webhooks` takes from it, so a slow receiver never delays a bot."""
    return f"{name}-webhooks"


def webhook_retry_queue_name(name: str) -> str:
    """The queue of deliveries' later attempts: taken only when the first is empty, so the
    retries of a dead receiver never delay the first attempts to healthy ones."""
    return f"{name}-webhooks-retry"


def webhook_queue_names(name: str) -> list[str]:
    """Every queue a webhooks worker takes jobs from, in the order it takes them."""
    return [webhook_queue_name(name), webhook_retry_queue_name(name)]


class JobQueue:
    """What the service hands to the workers: turn clocks and the bot turns of matches with
    people on `queue`, the bot turns of bot-only and long matches on `low`, which a worker
    takes from only when `queue` is empty (docs/architecture.md, "Workers")."""

    def __init__(self, queue: Queue, bot_delay: float = 0.0):
        self.queue = queue
        self.low = make_queue(queue.connection, low_queue_name(queue.name))
        self.bot_delay = bot_delay
        self.scheduled_key = ScheduledJobRegistry(queue=queue).key
        self._drop_scheduled = queue.connection.register_script(DROP_SCHEDULED)
        self.webhooks = make_queue(queue.connection, webhook_queue_name(queue.name))
        self.webhook_retries = make_queue(queue.connection, webhook_retry_queue_name(queue.name))

    @property
    def queues(self) -> list[Queue]:
        return [self.queue, self.low]

    def enqueue_bot(self, match_id: str, version: int, delay: float | None = None, low: bool = False) -> None:
        # One job per (match, version): a duplicate enqueue replaces the job, and a job
        # that finds a newer version does nothing.
        seconds = self.bot_delay if delay is None else delay
        job_id = bot_job_id(match_id, version)
        self._enqueue(
            self.low if low else self.queue, "workers.jobs.bot_turn", (match_id, version), job_id, seconds
        )

    def enqueue_clock(self, match_id: str, turn: int, seconds: float) -> None:
        job_id = clock_job_id(match_id, turn)
        self._enqueue(self.queue, "workers.jobs.clock_expired", (match_id, turn), job_id, seconds)
        # The turn before ended (a match's clocks are numbered one after another): its job would
        # only wake at its deadline to find nothing to do. With clocks of up to 14 days
        # (correspondence play) such jobs would pile up, one for every move made in the last
        # 14 days (about 650 bytes each); dropped here, a match keeps one.
        previous = clock_job_id(match_id, turn - 1)
        self._drop_scheduled(keys=[self.scheduled_key, Job.key_for(previous)], args=[previous])

    def enqueue_rematch(self, match_id: str, seconds: float) -> None:
        """The end of a rematch's wait for its reserved seats (service/matches/rematch.py, `decline`):
        one job a match, which does nothing once every reserved seat was taken."""
        job_id = rematch_job_id(match_id)
        self._enqueue(self.queue, "workers.jobs.rematch_expired", (match_id,), job_id, seconds)

    def enqueue_tournament(self, tournament_id: str, number: int) -> None:
        """Pair and open round `number` of a tournament, or finish it (service/tournaments/rounds.py):
        its matches are made by a worker, never inside the request whose move ended a round."""
        job_id = tournament_job_id(tournament_id, number)
        self._enqueue(self.queue, "workers.jobs.advance_tournament", (tournament_id,), job_id, 0)

    def enqueue_fan_out(self, match_id: str, version: int, notices: list[dict[str, Any]]) -> None:
        """A commit's notices for the apps' webhooks (workers/webhooks.py): one job a commit."""
        # enqueue_many writes the job and queues it in one round trip (enqueue takes two): this
        # runs on the commit path, a bot worker's too.
        job = Queue.prepare_data(
            "workers.webhooks.fan_out",
            (match_id, version, notices),
            job_id=fan_out_job_id(match_id, version),
            result_ttl=0,
            failure_ttl=24 * 3600,
            meta=job_meta(),
        )
        self.webhooks.enqueue_many([job])

    def enqueue_delivery(
        self, app_id: str, delivery_id: str, seq: int, delay: float = 0.0, retry: bool = False
    ) -> None:
        """One attempt of a webhook delivery (workers/webhooks.py); a retry waits in the queue
        the webhooks workers take from last."""
        queue = self.webhook_retries if retry else self.webhooks
        job_id = delivery_job_id(delivery_id, seq)
        self._enqueue(queue, "workers.webhooks.deliver", (app_id, delivery_id, seq), job_id, delay)

    def enqueue_first_attempts(self, app_id: str, delivery_ids: list[str], retry: bool = False) -> None:
        """The first attempts of a fan-out's deliveries, in one round trip."""
        queue = self.webhook_retries if retry else self.webhooks
        meta = job_meta()
        jobs = [
            Queue.prepare_data(
                "workers.webhooks.deliver",
                (app_id, i, 0),
                job_id=delivery_job_id(i, 0),
                result_ttl=0,
                failure_ttl=24 * 3600,
                meta=meta,
            )
            for i in delivery_ids
        ]
        queue.enqueue_many(jobs)

    # --- what the sweeper, the relay, the webhooks' housekeeping and /metrics read of RQ -----
    def job_fields(self, job_id: str, *fields: str) -> list[str | None]:
        """Fields of a job's hash (`status`, `origin`, `enqueued_at`, ...), None where unset."""
        raw: list[Any] = self.queue.connection.hmget(Job.key_for(job_id), *fields)
        return [f.decode() if f else None for f in raw]

    def exists(self, job_id: str) -> bool:
        """Whether RQ holds the job (queued, scheduled, running, or failed)."""
        return bool(self.queue.connection.exists(Job.key_for(job_id)))

    def _queue_of(self, job_id: str) -> Queue:
        """The queue a bot turn or clock was put on (its `origin`): bot turns go to one of two."""
        (origin,) = self.job_fields(job_id, "origin")
        return self.low if origin == self.low.name else self.queue

    def unschedule(self, job_id: str) -> bool:
        """Take a job out of its queue's scheduled registry; False when a scheduler released it
        (or it was never there)."""
        key = ScheduledJobRegistry(queue=self._queue_of(job_id)).key
        return bool(self.queue.connection.zrem(key, job_id))

    def listed(self, job_id: str) -> bool:
        """Whether the job still waits in its queue's list (a backlog, not a loss)."""
        return self.queue.connection.lpos(self._queue_of(job_id).key, job_id) is not None

    def being_taken(self, origin: str, job_id: str) -> bool:
        """Whether the job sits in the intermediate list of the queue `origin`, where a worker
        takes a job through (and where one killed as it took it leaves it)."""
        taken = IntermediateQueue.get_intermediate_queue_key(f"rq:queue:{origin}")
        return self.queue.connection.lpos(taken, job_id) is not None

    def depths(self) -> dict[str, int]:
        """For /metrics: jobs waiting in the bot and clock queues (both), of those on `low`,
        scheduled, failed, and RQ workers alive."""
        queues = self.queues
        return {
            "queued": sum(len(q) for q in queues),
            "low": len(self.low),
            "scheduled": sum(len(ScheduledJobRegistry(queue=q)) for q in queues),
            "failed": sum(len(FailedJobRegistry(queue=q)) for q in queues),
            "workers": Worker.count(queue=self.queue),
        }

    def ping(self) -> None:
        """Raise unless the queue's Redis answers (/readyz)."""
        len(self.queue)

    @staticmethod
    def _enqueue(queue: Queue, func: str, args: tuple[Any, ...], job_id: str, seconds: float) -> None:
        # The request id and trace context of whoever enqueued it (service/infra/tracing.py).
        kwargs = dict(job_id=job_id, result_ttl=0, failure_ttl=24 * 3600, meta=job_meta())
        if seconds > 0:
            queue.enqueue_in(timedelta(seconds=seconds), func, *args, **kwargs)
        else:
            queue.enqueue(func, *args, **kwargs)

"""`cardtable worker`: an RQ worker that outlives Redis outages, with the housekeeper thread and
(a bot worker's) the thread that commits held decisions (workers/held.py)."""

from __future__ import annotations

import logging
import signal
import time
from types import FrameType

import redis
from rq.job import Job
from rq.queue import Queue
from rq.worker import SimpleWorker

from service.config import Config
from service.infra import logs, tracing
from service.infra.jobqueue import make_queue, queue_names, webhook_queue_names
from workers.held import Held
from workers.housekeeping import Housekeeper

log = logging.getLogger("cardtable.worker")

MAX_BACKOFF = 30.0
# Seconds the command listener blocks at most before it looks at its run flag (RQ's is 60).
LISTEN_WAIT = 1.0


class CardtableWorker(SimpleWorker):
    """SimpleWorker runs jobs in-process: a bot turn is milliseconds of Python, and forking a
    work horse per job would cost more than the job itself. It remembers a stop request, so
    that one sent while Redis is away (when RQ's own handling of it fails) or while RQ starts
    up is still obeyed."""

    stop_asked = False

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_asked = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]  # RQ's is unannotated

    def note_stops(self) -> None:
        """Handle the stop signals by remembering them, wherever RQ's own handlers are not
        installed: while RQ starts up (it registers the worker first, and a SIGTERM in between
        killed the worker and left it registered) and while the worker waits for Redis."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self.note_stop)

    def note_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_asked = True

    def _install_signal_handlers(self) -> None:
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]  # RQ's is unannotated
        if self.stop_asked:  # asked while starting: RQ's loop stops before its first job
            self._stop_requested = True

    def execute_job(self, job: Job, queue: Queue) -> None:
        """Run the job with its ids on every line it logs (the request that enqueued it, the
        job's own) and in its span (service/infra/tracing.py); one DEBUG line when it is done."""
        started = time.monotonic()
        with logs.bound(request_id=(job.meta or {}).get("request_id"), job_id=job.id), tracing.job_span(job):
            try:
                super().execute_job(job, queue)  # RQ's returns nothing
            finally:
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("job %s done in %.1f ms", job.func_name, (time.monotonic() - started) * 1000)

    def subscribe(self) -> None:
        """RQ's command listener (stop or kill a job, shut down), waiting LISTEN_WAIT at a time.

        RQ blocks it up to 60 s and stops it by UNSUBSCRIBE, whose reply wakes it. When the
        listener reads that reply before RQ clears its run flag, it waits the 60 s again for a
        subscription, and redis-py 8.2's `stop()` joins it with no time limit: a SIGTERM'd
        worker took up to a minute to exit (tests/test_worker_stop.py)."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]  # rq declares it None
            sleep_time=LISTEN_WAIT, daemon=True, exception_handler=self._pubsub_exception_handler
        )


def run(
    queue_name: str | None, burst: bool, scheduler: bool, log_level: str | None, webhooks: bool = False
) -> int:
    """Work the bot and clock queues, or with `webhooks` the webhook queues only (a bot's turn
    never waits behind a slow receiver); each kind runs its own housekeeper."""
    config = Config.from_env()
    settings = logs.configure(log_level or config.LOG_LEVEL, config.LOG_FORMAT)
    tracing.setup_from_env("cardtable-worker")
    name = queue_name or config.QUEUE
    names = webhook_queue_names(name) if webhooks else queue_names(name)
    log.info("%s worker started on queues %s", "webhooks" if webhooks else "bot", ", ".join(names))
    housekeeper = Housekeeper(config, name, webhooks) if scheduler else None
    if housekeeper is not None and burst:
        housekeeper.tick(sweep=True)  # one pass, then work the queue empty (as RQ's burst does)
    elif housekeeper is not None:
        housekeeper.start()
    held = _hold_in_a_thread() if not (webhooks or burst) else None
    try:
        _work_until_stopped(config, names, burst, settings.rq_level)
    finally:
        if held is not None:
            held.stop()  # commits what it holds first: a stopped worker loses nothing
        if housekeeper is not None:
            housekeeper.stop()
        log.info("worker stopped")
    return 0


def _hold_in_a_thread() -> Held:
    """Start the thread that waits out this worker's held decisions and early clocks, and hand
    it to the jobs. A burst worker keeps the service's sleeping holder: it works the queue
    empty, which a decision held elsewhere would leave before its commit enqueues the next."""
    from workers import jobs

    held = Held()
    held.start()
    jobs.holder = held
    return held


def _work_until_stopped(config: Config, names: list[str], burst: bool, rq_level: str) -> None:
    """Run RQ's work loop (its per-job lines only at DEBUG: service/infra/logs.py); whenever it ends
    for anything but a stop request (RQ quits on a Redis timeout, or on a connection error
    outside its dequeue), wait for Redis and start again."""
    backoff = 1.0
    while True:
        client = redis.Redis.from_url(config.REDIS_URL)
        # In order: turns in matches with people, then bot-only and long matches; or first
        # attempts of webhook deliveries, then their retries.
        queues = [make_queue(client, n) for n in names]
        worker = CardtableWorker(queues, connection=client, serializer=queues[0].serializer)
        worker.note_stops()
        started = time.monotonic()
        try:
            worker.work(burst=burst, logging_level=rq_level)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            log.warning("worker lost Redis: %s", e)
        if worker.stop_asked or burst:
            return
        if time.monotonic() - started > 60:
            backoff = 1.0  # it ran a good while: this is a new outage
        if _wait_for_redis(worker, backoff):
            return
        backoff = min(backoff * 2, MAX_BACKOFF)


def _wait_for_redis(worker: CardtableWorker, backoff: float) -> bool:
    """Sleep and ping with growing pauses until Redis answers; True if asked to stop meanwhile."""
    worker.note_stops()
    while not worker.stop_asked:
        log.warning("Redis unreachable; the worker tries again in %.0f s", backoff)
        deadline = time.monotonic() + backoff
        while not worker.stop_asked and time.monotonic() < deadline:
            time.sleep(0.1)
        try:
            worker.connection.ping()
            log.warning("Redis is back; the worker starts again")
            return worker.stop_asked
        except (redis.ConnectionError, redis.TimeoutError):
            backoff = min(backoff * 2, MAX_BACKOFF)
    return True

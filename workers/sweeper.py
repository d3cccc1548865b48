"""The sweeper: matches that wait for a worker past their time get their job enqueued again.

The commit that leaves a match waiting for a bot or a turn clock puts the match in the due
index (`Store.commit`, key `ct:due`) with the time by which its job should have run, plus
CARDTABLE_SWEEP_GRACE. Normally the job runs long before that and the entry is only looked at
once, to drop it. An entry still there past its time means a job was lost: the worker running
it was killed, the enqueue never happened (the process died after its commit), the scheduler
that should have released it is dead, or the job failed. The sweeper then enqueues the job
again, to run now, under the same id: `bot-<match>-<version>`, `clock-<match>-<turn>` and
`rematch-<match>` (a rematch's reserved seats past their time) find the match moved on and do
nothing if the first job did run after all, so a move is never applied twice.
"""

from __future__ import annotations

import logging
import time

from rq.utils import str_to_date

from service.bootstrap import MatchService
from service.infra.jobqueue import JobQueue, bot_job_id, clock_job_id, rematch_job_id

log = logging.getLogger("cardtable.sweeper")

# Entries looked at per sweep; the rest wait for the next one, earliest first.
BATCH = 200


def sweep(svc: MatchService, now: float | None = None) -> int:
    """Look at every overdue match once; return how many jobs were enqueued again."""
    now = time.time() if now is None else now
    requeued = 0
    for match_id, seen in svc.due.matches(now, BATCH):
        next_look, enqueued = _look(svc, match_id, now)
        requeued += enqueued
        svc.due.reschedule(match_id, seen, next_look)
    if requeued:
        svc.counters.count("sweeper_requeues", requeued)
    return requeued


def _look(svc: MatchService, match_id: str, now: float) -> tuple[float | None, bool]:
    """The next time to look at the match (None: never again), and whether its job was
    enqueued again."""
    grace = svc.config.SWEEP_GRACE
    match = svc.repo.find(match_id)
    job = match.pending_job() if match is not None else None
    if match is None or job is None:
        return None, False
    record = match.record
    if job == "clock":
        clock = record["clock"]
        due = clock["deadline"] + grace
        job_id = clock_job_id(match_id, clock["turn"])
    elif job == "rematch":
        due = (match.reserved_until() or 0.0) + grace
        job_id = rematch_job_id(match_id)
    else:
        due = record.get("at", 0) + svc.config.BOT_DELAY + grace
        job_id = bot_job_id(match_id, match.version)
    if due > now:
        return due, False
    status, alive = _job_state(svc, job_id, now - grace)
    if alive:
        return now + grace, False
    if status == "scheduled":
        # Still waiting for a scheduler: take it out of the scheduled registry and run it now,
        # once. Already gone from there means a scheduler released it this instant.
        if not rq_queue(svc).unschedule(job_id):
            return now + grace, False
        log.warning("match %s: job %s is overdue; no scheduler released it", match_id, job_id)
    else:
        log.warning("match %s: job %s is overdue and nothing runs it; enqueued again", match_id, job_id)
    if job == "clock":
        rq_queue(svc).enqueue_clock(match_id, record["clock"]["turn"], 0)
    elif job == "rematch":
        rq_queue(svc).enqueue_rematch(match_id, 0)
    else:
        low = match.low_priority(match.version, svc.config.LOW_PRIORITY_AFTER)
        rq_queue(svc).enqueue_bot(match_id, match.version, delay=0, low=low)
    return now + grace, True


def _job_state(svc: MatchService, job_id: str, since: float) -> tuple[str | None, bool]:
    """The job's RQ status, and whether it is alive: started after `since`, or queued and either
    enqueued after `since` or still in the queue's list (a backlog, not a loss).

    A scheduled job past its time has no live scheduler; one started long ago, or queued long
    ago and gone from the list, sits in the started registry or the fetch list of a worker that
    was killed. Enqueued again, such a job may still run twice: the second run finds the match
    moved on and does nothing.
    """
    status, enqueued, started = rq_queue(svc).job_fields(job_id, "status", "enqueued_at", "started_at")
    stamp = {"queued": enqueued, "started": started}.get(status or "")
    if stamp is not None and str_to_date(stamp).timestamp() >= since:
        return status, True
    # Under a backlog every queued job gets old: never add a copy of one still waiting its turn.
    return status, status == "queued" and rq_queue(svc).listed(job_id)


def rq_queue(svc: MatchService) -> JobQueue:
    """The RQ queues behind the service: the sweeper looks into RQ's registries and lists."""
    return svc.rq

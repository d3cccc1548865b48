"""Prometheus text for /metrics, from counters kept in Redis so every gunicorn worker agrees."""

from __future__ import annotations

from rq import Worker
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from service.waiters import open_waiters


def render(svc) -> str:
    lines = [
        "# HELP cardtable_requests_total HTTP requests by endpoint.",
        "# TYPE cardtable_requests_total counter",
    ]
    for key, value in sorted(svc.store.metrics().items()):
        kind, _, endpoint = key.partition(":")
        if kind == "requests":
            lines.append(f'cardtable_requests_total{{endpoint="{endpoint}"}} {value}')
    queue = svc.queue.queue
    lines += [
        "# HELP cardtable_queue_jobs Jobs waiting in the bot and clock queue.",
        "# TYPE cardtable_queue_jobs gauge",
        f"cardtable_queue_jobs {len(queue)}",
        "# HELP cardtable_scheduled_jobs Turn clocks and delayed bot moves waiting for their time.",
        "# TYPE cardtable_scheduled_jobs gauge",
        f"cardtable_scheduled_jobs {len(ScheduledJobRegistry(queue=queue))}",
        "# HELP cardtable_failed_jobs Jobs in RQ's failed registry.",
        "# TYPE cardtable_failed_jobs gauge",
        f"cardtable_failed_jobs {len(FailedJobRegistry(queue=queue))}",
        "# HELP cardtable_workers RQ workers alive.",
        "# TYPE cardtable_workers gauge",
        f"cardtable_workers {Worker.count(queue=queue)}",
    ]
    lines += _waiter_lines(svc)
    return "\n".join(lines) + "\n"


def _waiter_lines(svc) -> list[str]:
    waiting = open_waiters(svc.store.redis)
    return [
        "# HELP cardtable_open_waiters Long-polls and SSE streams waiting for a match to change.",
        "# TYPE cardtable_open_waiters gauge",
        *(f'cardtable_open_waiters{{kind="{kind}"}} {n}' for kind, n in waiting.items()),
    ]

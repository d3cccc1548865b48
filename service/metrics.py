"""Prometheus text for /metrics, from counters kept in Redis so every gunicorn worker agrees."""

from __future__ import annotations

from rq import Worker
from rq.registry import FailedJobRegistry, ScheduledJobRegistry


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
    return "\n".join(lines) + "\n"

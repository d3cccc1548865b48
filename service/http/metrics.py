"""Prometheus text for /metrics, from counters kept in Redis so every gunicorn worker agrees."""

from __future__ import annotations

import time

from service.bootstrap import MatchService
from service.matches.bots import BOT_DECISION_BUCKETS, BOT_LATENCY_BUCKETS


def render(svc: MatchService) -> str:
    lines = [
        "# HELP cardtable_requests_total HTTP requests by endpoint.",
        "# TYPE cardtable_requests_total counter",
    ]
    counters = svc.counters.metrics()
    for key, value in sorted(counters.items()):
        kind, _, endpoint = key.partition(":")
        if kind == "requests":
            lines.append(f'cardtable_requests_total{{endpoint="{endpoint}"}} {int(value)}')
    depths = svc.rq.depths()
    lines += [
        "# HELP cardtable_queue_jobs Queue depth: jobs waiting in the bot and clock queues (both).",
        "# TYPE cardtable_queue_jobs gauge",
        f"cardtable_queue_jobs {depths['queued']}",
        "# HELP cardtable_low_priority_jobs Of those, bot turns of bot-only and long matches.",
        "# TYPE cardtable_low_priority_jobs gauge",
        f"cardtable_low_priority_jobs {depths['low']}",
        "# HELP cardtable_scheduled_jobs Turn clocks and delayed bot moves waiting for their time.",
        "# TYPE cardtable_scheduled_jobs gauge",
        f"cardtable_scheduled_jobs {depths['scheduled']}",
        "# HELP cardtable_failed_jobs Jobs in RQ's failed registry.",
        "# TYPE cardtable_failed_jobs gauge",
        f"cardtable_failed_jobs {depths['failed']}",
        "# HELP cardtable_workers RQ workers alive.",
        "# TYPE cardtable_workers gauge",
        f"cardtable_workers {depths['workers']}",
    ]
    lines += _healing(svc, counters)
    lines += _waiter_lines(svc)
    return "\n".join(lines) + "\n"


def _healing(svc: MatchService, counters: dict[str, float]) -> list[str]:
    """The sweeper, the bots' fallbacks and how long a bot's turn takes (docs/api.md)."""
    total, overdue = svc.due.counts(time.time())
    lines = [
        "# HELP cardtable_due_matches Matches waiting for a bot or a turn clock (the sweeper's index).",
        "# TYPE cardtable_due_matches gauge",
        f"cardtable_due_matches {total}",
        "# HELP cardtable_overdue_matches Matches of that index past the time the sweeper looks at them.",
        "# TYPE cardtable_overdue_matches gauge",
        f"cardtable_overdue_matches {overdue}",
        "# HELP cardtable_sweeper_requeues_total Lost bot turns and turn clocks the sweeper enqueued again.",
        "# TYPE cardtable_sweeper_requeues_total counter",
        f"cardtable_sweeper_requeues_total {int(counters.get('sweeper_requeues', 0))}",
        "# HELP cardtable_outbox_relayed_total Effects whose committer died before handing them on.",
        "# TYPE cardtable_outbox_relayed_total counter",
        f"cardtable_outbox_relayed_total {int(counters.get('outbox_relayed', 0))}",
        "# HELP cardtable_outbox_commits Commits whose outbox the relay has not looked at yet.",
        "# TYPE cardtable_outbox_commits gauge",
        f"cardtable_outbox_commits {svc.outbox.pending()}",
        "# HELP cardtable_bot_fallbacks_total Bot decisions that raised; a random legal action was played.",
        "# TYPE cardtable_bot_fallbacks_total counter",
        f"cardtable_bot_fallbacks_total {int(counters.get('bot_fallbacks', 0))}",
        "# HELP cardtable_bot_turn_seconds From the change that made it a bot's turn to the bot's move.",
        "# TYPE cardtable_bot_turn_seconds histogram",
        *_histogram(counters, "bot_turn_seconds", BOT_LATENCY_BUCKETS),
        "# HELP cardtable_bot_decision_seconds How long a bot thought over its move, by level.",
        "# TYPE cardtable_bot_decision_seconds histogram",
    ]
    prefix = "bot_decision_seconds."
    levels = sorted(
        k[len(prefix) : -len("_count")] for k in counters if k.startswith(prefix) and k.endswith("_count")
    )
    for level in levels:
        lines += _histogram(counters, prefix + level, BOT_DECISION_BUCKETS, f'level="{level}"')
    return lines


def _histogram(
    counters: dict[str, float], name: str, buckets: tuple[float, ...], label: str = ""
) -> list[str]:
    """A histogram's lines from the counters `Store.observe` keeps (`name` with an optional
    `.label` suffix, which the label names)."""
    metric = "cardtable_" + name.partition(".")[0]
    labels = f"{label}," if label else ""
    lines, cumulative = [], 0.0
    for le in [f"{b:g}" for b in buckets] + ["+Inf"]:
        cumulative += counters.get(f"{name}_bucket:{le}", 0)
        lines.append(f'{metric}_bucket{{{labels}le="{le}"}} {int(cumulative)}')
    braces = f"{{{label}}}" if label else ""
    return [
        *lines,
        f"{metric}_sum{braces} {counters.get(f'{name}_sum', 0):.6f}",
        f"{metric}_count{braces} {int(counters.get(f'{name}_count', 0))}",
    ]


def _waiter_lines(svc: MatchService) -> list[str]:
    waiting = svc.open_waiters()
    return [
        "# HELP cardtable_open_waiters Long-polls and SSE streams waiting for a match or a player's feed.",
        "# TYPE cardtable_open_waiters gauge",
        *(f'cardtable_open_waiters{{kind="{kind}"}} {n}' for kind, n in waiting.items()),
    ]

"""Webhook jobs, run by `cardtable worker --webhooks` (docs/webhooks.md): the fan-out of a
commit's notices to the endpoints that want them, and one attempt of one delivery; and the
housekeeper's sweep of deliveries whose attempt never finished.

A delivery is tried up to 8 times over about a day (SCHEDULE, with ±20 % jitter); a 2xx answer
delivers it, a 410 disables the endpoint (`gone`), anything else (another status, a timeout, a
refused connection, a refused address) schedules the next try, and the last one failing fails
it. An endpoint whose attempts have failed for 24 h with no success in between is disabled
(`failing`). CARDTABLE_WEBHOOK_RETRY_SCALE multiplies the delays and those 24 h: a seam for
the tests, which cannot wait a day.
"""

from __future__ import annotations

import json
import logging
import random
import time
from datetime import UTC, datetime
from typing import Any

from standardwebhooks.webhooks import Webhook

from service.bootstrap import MatchService
from service.infra import tracing
from service.infra.jobqueue import delivery_job_id
from service.notify import delivery_sends
from service.notify.deliveries import ATTEMPT_TIMEOUT
from service.notify.delivery_record import Delivery
from service.notify.url_guard import UrlPolicy
from service.notify.webhooks import Endpoint
from workers.jobs import service
from workers.sweeper import rq_queue
from workers.webhook_sender import Outcome, post

log = logging.getLogger("cardtable.webhooks")

TIMEOUT = ATTEMPT_TIMEOUT
# Seconds to wait after each failed attempt (Svix's schedule): 8 attempts over about 27 hours.
SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)
JITTER = 0.2
FAILING_FOR = 24 * 3600  # seconds of failures with no success before an endpoint is disabled
# Deliveries the sweep looks at per pass; the rest wait for the next one, earliest first.
BATCH = 200
# Seconds before the sweep looks again at a delivery whose attempt waits in a backlog.
BACKLOG_LOOK = 60.0


def fan_out(match_id: str, version: int, notices: list[dict[str, Any]]) -> str:
    """Create the delivery of each notice to each enabled endpoint of its app that wants its
    type, once (a second run finds them made), and enqueue each one's first attempt: per app,
    one script and one RQ round trip however many endpoints."""
    svc = service()
    by_app: dict[str, list[dict[str, Any]]] = {}
    for notice in notices:
        if notice.get("app"):
            by_app.setdefault(notice["app"], []).append(notice)
    made = 0
    for app_id, told in by_app.items():
        if not _live(svc, app_id):
            continue  # a revoked app is told nothing more (docs/webhooks.md)
        # A fan-out that waited in its queue past an erasure names nobody erased.
        told = svc.deliveries.redacted(app_id, told)
        # Read fresh: the cache of `wanted` that let the notices through may be a second old.
        endpoints = [e for e in svc.webhooks.list(app_id) if e.enabled]
        wanted = [(e.id, n) for n in told for e in endpoints if n["type"] in e.events]
        failing = frozenset(e.id for e in endpoints if e.failing_since is not None)
        grace = svc.config.SWEEP_GRACE
        made += len(
            delivery_sends.start(
                svc.deliveries,
                rq_queue(svc),
                grace,
                app_id,
                wanted,
                failing,
                pending_limit=svc.config.WEBHOOK_PENDING,
            )
        )
    svc.deliveries.fanned(match_id, version)  # the relay need not hand them on again
    return f"match {match_id} v{version}: {made} deliveries"


def deliver(app_id: str, delivery_id: str, seq: int) -> str:
    """Attempt `seq` of a delivery: one signed POST, and what its answer means."""
    svc = service()
    deliveries = svc.deliveries
    delivery = deliveries.get(app_id, delivery_id)
    if delivery is None or delivery.status != "pending" or delivery.seq != seq:
        return "stale"
    endpoint = svc.webhooks.get(app_id, delivery.endpoint)
    why = _why_off(svc, app_id, endpoint)
    if why is not None or endpoint is None:
        deliveries.finish(app_id, delivery, status="failed", error=why, next_try=None)
        deliveries.settled(app_id, delivery_id)
        return "failed: endpoint off"
    now = time.time()
    if not deliveries.claim(app_id, delivery, now, now + TIMEOUT + svc.config.SWEEP_GRACE):
        return "held by another attempt"
    delivery.payload = _shown(svc, app_id, delivery.payload)
    outcome = attempt(svc, endpoint, delivery)
    return _record(svc, app_id, endpoint, delivery, outcome)


def _shown(svc: MatchService, app_id: str, payload: str) -> str:
    """A delivery's body without the external ids of players erased since it was made (one
    its erasure did not reach: pending, and no longer in its endpoint's list)."""
    body = json.loads(payload)
    (shown,) = svc.deliveries.redacted(app_id, [body])
    return payload if shown is body else json.dumps(shown, separators=(",", ":"), ensure_ascii=False)


def _live(svc: MatchService, app_id: str) -> bool:
    app = svc.apps.get(app_id)
    return app is not None and not app.revoked


def _why_off(svc: MatchService, app_id: str, endpoint: Endpoint | None) -> str | None:
    """Why a pending delivery must stop before its next attempt, if it must."""
    if endpoint is None:
        return "the endpoint was deleted"
    if not endpoint.enabled:
        return f"the endpoint is disabled ({endpoint.disabled_reason})"
    if not _live(svc, app_id):
        return "the app was revoked"
    return None


def attempt(svc: MatchService, endpoint: Endpoint, delivery: Delivery) -> Outcome:
    """POST the delivery's body, signed with the endpoint's secret (Standard Webhooks)."""
    body = delivery.payload.encode()
    at = datetime.now(UTC)
    headers = {
        "webhook-id": delivery.message,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(endpoint.secret).sign(delivery.message, at, body),
        "content-type": "application/json",
    }
    policy = UrlPolicy(svc.config.WEBHOOK_ALLOW_HTTP, svc.config.WEBHOOK_ALLOW_PRIVATE)
    with tracing.span("webhook POST", endpoint=endpoint.id):
        # The receiver may continue the trace (W3C traceparent) when tracing is on.
        tracing.inject(headers)
        return post(policy, endpoint.url, headers, body, TIMEOUT)


def _record(svc: MatchService, app_id: str, endpoint: Endpoint, delivery: Delivery, outcome: Outcome) -> str:
    """Write the attempt's outcome and what follows from it: delivered, the endpoint gone, the
    next try, or failed."""
    deliveries, hooks = svc.deliveries, svc.webhooks
    seen = dict(
        attempts=delivery.attempts + 1,
        status_code=outcome.status,
        latency_ms=outcome.latency_ms,
        response=outcome.response,
        error=outcome.error,
        lease=0,
    )
    ok = outcome.status is not None and 200 <= outcome.status < 300
    if ok or outcome.status == 410:
        written = deliveries.finish(
            app_id, delivery, status="delivered" if ok else "failed", next_try=None, **seen
        )
        if written:
            deliveries.settled(app_id, delivery.id)
        if ok:
            hooks.succeeded(app_id, endpoint.id)
            return "delivered"
        hooks.disable(app_id, endpoint.id, "gone")
        log.warning("webhook %s of app %s answered 410: disabled", endpoint.id, app_id)
        return "gone"
    scale = svc.config.WEBHOOK_RETRY_SCALE
    now = time.time()
    failing = now - hooks.failed(app_id, endpoint.id, now) >= FAILING_FOR * scale
    if failing:
        hooks.disable(app_id, endpoint.id, "failing")
        log.warning("webhook %s of app %s failed for a day with no success: disabled", endpoint.id, app_id)
    if failing or delivery.step >= len(SCHEDULE):
        if deliveries.finish(app_id, delivery, status="failed", next_try=None, **seen):
            deliveries.settled(app_id, delivery.id)
        return "failed"
    delay = SCHEDULE[delivery.step] * random.uniform(1 - JITTER, 1 + JITTER) * scale
    seq = delivery.seq + 1
    if deliveries.finish(
        app_id, delivery, seq=seq, step=delivery.step + 1, next_try=f"{now + delay:.3f}", **seen
    ):
        deliveries.due(app_id, delivery.id, now + delay + TIMEOUT + svc.config.SWEEP_GRACE)
        rq_queue(svc).enqueue_delivery(app_id, delivery.id, seq, delay=delay, retry=True)
    return f"retry in {delay:.1f} s"


def sweep_deliveries(svc: MatchService, now: float | None = None) -> int:
    """Enqueue again the attempts of pending deliveries past their time whose job is lost (a
    killed worker, a lost enqueue); return how many."""
    now = time.time() if now is None else now
    deliveries = svc.deliveries
    requeued = 0
    for app_id, delivery_id in deliveries.overdue(now, BATCH):
        delivery = deliveries.get(app_id, delivery_id)
        if delivery is None or delivery.status != "pending":
            deliveries.settled(app_id, delivery_id)
            continue
        lease = now + TIMEOUT + svc.config.SWEEP_GRACE
        if _waiting(svc, delivery_job_id(delivery_id, delivery.seq)):
            deliveries.due(app_id, delivery_id, now + BACKLOG_LOOK)
            continue
        log.warning(
            "webhook delivery %s of app %s: attempt %d was lost; enqueued again",
            delivery_id,
            app_id,
            delivery.seq,
        )
        deliveries.due(app_id, delivery_id, lease)
        rq_queue(svc).enqueue_delivery(app_id, delivery_id, delivery.seq, retry=delivery.attempts > 0)
        requeued += 1
    return requeued


def _waiting(svc: MatchService, job_id: str) -> bool:
    """Whether the attempt's job still waits its turn: scheduled (the housekeeper releases it),
    or queued and not stranded in the intermediate list of a worker killed as it took the job.
    (The queue's own list is not searched: under a backlog of thousands that would cost a scan
    of the list per look; a worker takes a job through the short intermediate list.)"""
    jobs = rq_queue(svc)
    status, origin = jobs.job_fields(job_id, "status", "origin")
    if status == "scheduled":
        return True
    if status != "queued" or origin is None:
        return False
    return not jobs.being_taken(origin, job_id)

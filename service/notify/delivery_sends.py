"""Sending deliveries (docs/webhooks.md): a notice's deliveries created and their first attempts
enqueued (the fan-out, an endpoint's test), and a delivery sent again (a manual retry); and what
that needs of the queue (`DeliveryJobs`). The records and their scripts are
service/notify/deliveries.py's."""

from __future__ import annotations

import time
from typing import Any, Protocol

from service.notify.deliveries import ATTEMPT_TIMEOUT, PENDING_LIMIT, Deliveries


class DeliveryJobs(Protocol):
    """What starting a delivery needs of the queue (service/infra/jobqueue.py's JobQueue)."""

    def enqueue_delivery(
        self, app_id: str, delivery_id: str, seq: int, delay: float = 0.0, retry: bool = False
    ) -> None: ...

    def enqueue_first_attempts(self, app_id: str, delivery_ids: list[str], retry: bool = False) -> None: ...


def start(
    deliveries: Deliveries,
    queue: DeliveryJobs,
    grace: float,
    app_id: str,
    wanted: list[tuple[str, dict[str, Any]]],
    failing: frozenset[str] = frozenset(),
    delivery_id: str = "",
    pending_limit: int = PENDING_LIMIT,
    refuse: bool = False,
) -> list[str]:
    """Create the deliveries of the app's (endpoint, notice) pairs that do not exist yet and
    enqueue their first attempts; the ids of those made pending. Until an attempt holds one,
    the sweep looks at it after the attempt's time and `grace`. The first attempts to the
    endpoints in `failing` wait with the retries, behind healthy endpoints'. Past the app's
    `pending_limit`: `Deliveries.create`."""
    lease = time.time() + ATTEMPT_TIMEOUT + grace
    made = deliveries.create(app_id, wanted, lease, delivery_id, pending_limit, refuse)
    for retry in (False, True):
        ids = [i for i, endpoint_id in made if (endpoint_id in failing) == retry]
        if ids:
            queue.enqueue_first_attempts(app_id, ids, retry=retry)
    return [i for i, _ in made]


def retry(
    deliveries: Deliveries,
    queue: DeliveryJobs,
    grace: float,
    app_id: str,
    delivery_id: str,
    failing: bool = False,
    pending_limit: int = PENDING_LIMIT,
) -> bool:
    """A delivery sent again now (its schedule from the start), behind healthy endpoints'
    attempts when its endpoint is `failing`; False when there is none."""
    seq = deliveries.retry(app_id, delivery_id, time.time() + ATTEMPT_TIMEOUT + grace, pending_limit)
    if seq is None:
        return False
    queue.enqueue_delivery(app_id, delivery_id, seq, retry=failing)
    return True

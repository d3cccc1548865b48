"""The webhooks' notice sink: a commit's notices that some endpoint wants become one fan-out
job (docs/webhooks.md, docs/architecture.md "Notices").

Called by the committer right after its commit, for every commit of an app's match, so the
common case costs nothing: `Webhooks.wanted` answers from the process's copy, and an app
without endpoints for a type makes no job. The relay calls it again for every notify effect it
finds (`relayed`), not knowing whether the committer lived to hand them on: then the job is
enqueued only if the fan-out neither ran to its end nor waits in RQ. A fan-out that runs twice
anyway creates each delivery once (service/notify/deliveries.py).
"""

from __future__ import annotations

from typing import Any

from rq.job import Job

from service.infra.jobqueue import JobQueue, fan_out_job_id
from service.matches.repository import NoticeSink
from service.notify.deliveries import Deliveries
from service.notify.webhooks import Webhooks

# What a delivery needs of a notice: the players' internal ids stay behind.
KEPT = ("id", "app", "type", "timestamp", "data")


def version_of(match_id: str, notice: dict[str, Any]) -> int:
    """The commit's version, from the notice id `<match>-<version>-<type>`."""
    return int(notice["id"].removeprefix(f"{match_id}-").split("-", 1)[0])


def webhook_sink(webhooks: Webhooks, deliveries: Deliveries, queue: JobQueue) -> NoticeSink:
    """The sink `build_service` adds to the repository's notice sinks."""

    def sink(match_id: str, notices: list[dict[str, Any]], relayed: bool) -> None:
        wanted = [
            {k: n[k] for k in KEPT}
            for n in notices
            if n.get("app") and n["type"] in webhooks.wanted(n["app"])
        ]
        if not wanted:
            return
        version = version_of(match_id, wanted[0])
        job_key = Job.key_for(fan_out_job_id(match_id, version))
        if relayed and deliveries.fanned_or_queued(match_id, version, job_key):
            return
        queue.enqueue_fan_out(match_id, version, wanted)

    return sink

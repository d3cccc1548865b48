"""How many requests wait, by kind, over every API process (`/metrics`: docs/api.md, "Metrics").

Each process's hub (service/infra/waiters.py) writes its counts to one Redis hash, `ct:waiters`:
"<host>:<pid>:<hub>[@shard]" (a field per hub) -> "<count of each kind, in KINDS' order> <unix
time>", each second while they change and every HEARTBEAT_SECONDS regardless; an entry older
than STALE_SECONDS belongs to a process that is gone.
"""

from __future__ import annotations

import time
from typing import Any

# Match feeds (`/v1/matches/{id}/events?wait=`, `/stream`) and players' feeds (`/v1/me/events`,
# `/v1/me/stream`). A new kind goes last: a process still writing fewer counts reads as zeros
# for the kinds it does not know.
KINDS = ("long_poll", "sse", "player_long_poll", "player_sse")
METRICS_KEY = "ct:waiters"
REPORT_SECONDS = 1.0
HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 30.0


def encode(counts: dict[str, int], now: float) -> str:
    """A process's entry of the hash."""
    return " ".join([*(str(counts[kind]) for kind in KINDS), f"{now:.0f}"])


def open_waiters(client: Any) -> dict[str, int]:
    """Open waiters of every live API process, by kind (stale processes' entries are dropped)."""
    totals = dict.fromkeys(KINDS, 0)
    now, stale = time.time(), []
    for field, value in client.hgetall(METRICS_KEY).items():
        *counts, at = value.split()
        if now - float(at) > STALE_SECONDS:
            stale.append(field)
            continue
        for kind, n in zip(KINDS, counts, strict=False):
            totals[kind] += int(n)
    if stale:
        client.hdel(METRICS_KEY, *stale)
    return totals

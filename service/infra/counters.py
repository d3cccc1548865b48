"""The counters and histograms `/metrics` shows, shared by every process (docs/api.md,
"Metrics"): Redis hashes `ct:metrics` (on a cluster one per shard, `ct:metrics:{s<n>}`, so the
counts every request bumps spread over the nodes; `metrics` adds them up)."""

from __future__ import annotations

import random
from typing import Any

METRICS_KEY = "ct:metrics"
# On a cluster the rate counts and the counters every request bumps are split over this many
# hash tags, so no one node takes them all (`metrics` adds the counters up).
SHARDS = 64


class Counters:
    def __init__(self, client: Any, shards: int):
        self.client = client
        self.shards = shards

    def key(self, shard: int) -> str:
        return METRICS_KEY if self.shards == 1 else f"{METRICS_KEY}:{{s{shard}}}"

    def _any_key(self) -> str:
        return self.key(random.randrange(self.shards))

    def metrics(self) -> dict[str, float]:
        """Every counter, added up over the shards."""
        with self.client.pipeline(transaction=False) as p:
            for shard in range(self.shards):
                p.hgetall(self.key(shard))
            hashes = p.execute()
        total: dict[str, float] = {}
        for fields in hashes:
            for k, v in fields.items():
                total[k.decode()] = total.get(k.decode(), 0.0) + float(v)
        return total

    def count(self, name: str, by: int = 1) -> None:
        """Add to a counter every process shares."""
        self.client.hincrby(self._any_key(), name, by)

    def observe(self, name: str, value: float, buckets: tuple[float, ...]) -> None:
        """One observation of a histogram: its bucket (not cumulative), sum and count."""
        bucket = next((f"{b:g}" for b in buckets if value <= b), "+Inf")
        key = self._any_key()
        with self.client.pipeline(transaction=False) as p:
            p.hincrby(key, f"{name}_bucket:{bucket}", 1)
            p.hincrbyfloat(key, f"{name}_sum", value)
            p.hincrby(key, f"{name}_count", 1)
            p.execute()

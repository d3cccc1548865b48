"""Match state on Redis Cluster against one Redis, in the same run (docs/deployment.md).

Starts a local 3-master/3-replica cluster (Debian's redis-server 7, as tests/cluster_helpers.py
does) and a single Redis, then plays bench/api.py's Spades clients against gunicorn three times:
state on the single Redis, on the cluster, and on the cluster with CARDTABLE_REPLICA_ACKS=1.
Prints moves/s and latency for each, and the commands each master ran during the cluster phase
(INFO commandstats), which should be within a few tens of percent of each other: nothing
serialises on one node.

    python bench/cluster.py [--seconds 20] [--clients 16]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.api import drive, gunicorn, latency, spades_worker  # noqa: E402
from service.infra.embedded import free_port, start_redis  # noqa: E402
from tests.cluster_helpers import Cluster  # noqa: E402


def commands(port: int) -> int:
    stats = redis.Redis(port=port).info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if k not in ("cmdstat_info", "cmdstat_cluster"))


def phase(args, name: str, env: dict) -> dict:
    port = free_port()
    proc = gunicorn("service.wsgi:app", port, env, args.workers, args.threads, ROOT)
    threads = args.clients // args.processes
    try:
        moves, lat, _, wall = drive(
            spades_worker, lambda i: (port, threads, 7 + i, 1000, args.seconds, 0.0), args.processes
        )
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"{name:<22} {moves / wall:7.0f} moves/s  {latency(lat)}", flush=True)
    return {"rate": moves / wall, "lat": lat}


def spread(cluster: Cluster, queue_url: str, matches: int) -> str:
    """Create `matches` Spades matches of four people and play each one's first bid (in-process,
    through the real app and Redis): the commands each master ran meanwhile. Each match is
    created from an address of its own, as by many clients: one address's rate count is one
    key, on one node."""
    from service.config import Config
    from service.http.app import create_app

    config = Config(REDIS_URL=queue_url, STATE_URL=cluster.url, RATE_LIMIT=100000, LOG_LEVEL="WARNING")
    client = create_app(config).test_client()
    seats = [{"kind": "human", "name": n} for n in "ABCD"]
    masters = cluster.masters()
    before = {p: commands(p) for p in masters}
    for i in range(matches):
        who = {"REMOTE_ADDR": f"10.0.{i // 256}.{i % 256}"}
        body = {"game": "spades", "seats": seats, "seed": i}
        created = client.post("/v1/matches", json=body, environ_base=who).get_json()
        turn = client.get(f"/v1/matches/{created['id']}", environ_base=who).get_json()["turn"]["seat"]
        token = created["seats"][turn]["token"]
        bid, auth = {"type": "bid", "tricks": 3}, {"Authorization": f"Bearer {token}"}
        client.post(f"/v1/matches/{created['id']}/actions", json=bid, headers=auth)
    counts = {p: commands(p) - before[p] for p in masters}
    mean = sum(counts.values()) / len(counts)
    return ", ".join(f"{p}: {n} ({(n - mean) / mean:+.0%})" for p, n in counts.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--matches", type=int, default=1000, help="matches created for the per-node spread")
    args = ap.parse_args()
    print("load:", open("/proc/loadavg").read().split()[:3], flush=True)
    single_proc, single_url = start_redis(tempfile.mkdtemp(prefix="bench-single-"), persist=False)
    cluster = Cluster()
    base = dict(os.environ, CARDTABLE_RATE_LIMIT="100000", CARDTABLE_LOG_LEVEL="WARNING", PYTHONPATH=ROOT)
    try:
        phase(args, "single Redis", dict(base, REDIS_URL=single_url))
        masters = cluster.masters()
        before = {p: commands(p) for p in masters}
        on_cluster = dict(base, REDIS_URL=single_url, CARDTABLE_STATE_URL=cluster.url)
        phase(args, "cluster", on_cluster)
        counts = {p: commands(p) - before[p] for p in masters}
        phase(args, "cluster, REPLICA_ACKS=1", dict(on_cluster, CARDTABLE_REPLICA_ACKS="1"))
        mean = sum(counts.values()) / len(counts)
        during = ", ".join(f"{p}: {n} ({(n - mean) / mean:+.0%})" for p, n in counts.items())
        print(f"commands per master during the cluster phase: {during}")
        new = spread(cluster, single_url, args.matches)
        print(f"commands per master for {args.matches} new matches: {new}")
    finally:
        cluster.stop()
        single_proc.terminate()
    print("load:", open("/proc/loadavg").read().split()[:3], flush=True)


if __name__ == "__main__":
    main()

"""Bot turns with and without an app's webhooks that never answer (docs/webhooks.md).

Starts a private Redis, one bot worker and `--webhook-workers` (1) `cardtable worker --webhooks`,
and keeps `--matches` human-vs-bots matches of one app going: the human seat is the app's player,
played by this script (a random legal move as soon as it is its turn), so every bot move that
hands the turn back makes a `turn.started` notice. Phases alternate, `--seconds` each:

- without webhooks: the app has no endpoint;
- with webhooks: the app has `--endpoints` (100) endpoints that want `turn.started`, all on a
  receiver that accepts each connection and never answers (every attempt waits out its 5 s).
  An app may have 20; the bench lifts that limit in its own API so that every notice makes
  100 deliveries.

For each phase it prints the bot-turn latency, from the commit that made it a bot's turn to the
bot's move (`cardtable_bot_turn_seconds` of GET /metrics, this phase's share): the exact mean
(the histogram's sum over its count) and the p95 read off the buckets (linear within a bucket,
as Prometheus' histogram_quantile does); and the human's wait, from its move's answer to its
next turn (all the bots' turns in between, measured here exactly), its p50 and p95. Then the
ratios with/without, whose target is within 10 % (1.10).

    python bench/webhooks.py [--game spades] [--matches 4] [--seconds 45] [--rounds 2]

Between phases the endpoints are deleted and the webhook queues drained, so a phase never pays
for the one before; each round runs its two phases in the order opposite to the round before.
Nothing else should run on the machine meanwhile: all is wall time.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from service.config import Config  # noqa: E402
from service.http.app import create_app  # noqa: E402
from service.infra.embedded import start_redis  # noqa: E402
from service.infra.jobqueue import webhook_queue_names  # noqa: E402
from service.notify import webhooks as webhook_registry  # noqa: E402

LOCAL = {"CARDTABLE_WEBHOOK_ALLOW_HTTP": "1", "CARDTABLE_WEBHOOK_ALLOW_PRIVATE": "1"}


def silent_receiver() -> tuple[int, threading.Event]:
    """A TCP server on 127.0.0.1 that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1024)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        server.settimeout(0.5)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)  # kept open, never read, never answered
            except TimeoutError:
                continue
        for conn in held:
            conn.close()
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1], stop


def histogram(text: str, name: str) -> tuple[dict[float, float], float, float]:
    """Cumulative buckets (le -> count), sum and count of a histogram in /metrics text."""
    buckets: dict[float, float] = {}
    total = count = 0.0
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        key, value = line.rsplit(" ", 1)
        if "_bucket{" in key:
            le = key.split('le="')[1].split('"')[0]
            buckets[float("inf") if le == "+Inf" else float(le)] = float(value)
        elif key.startswith(f"{name}_sum"):
            total = float(value)
        elif key.startswith(f"{name}_count"):
            count = float(value)
    return buckets, total, count


def quantile(buckets: dict[float, float], q: float) -> float:
    """histogram_quantile: linear within the bucket the q-th observation falls in."""
    bounds = sorted(buckets)
    rank = q * buckets[bounds[-1]]
    lower, below = 0.0, 0.0
    for le in bounds:
        if buckets[le] >= rank:
            if le == float("inf"):
                return lower
            return lower + (le - lower) * (rank - below) / max(buckets[le] - below, 1e-9)
        lower, below = le, buckets[le]
    return lower


class Players:
    """The human seats, each played by a thread: a random legal move as soon as it is its turn;
    a finished match is replaced by a new one."""

    def __init__(self, app, key: str, game: str, matches: int, seed: int):
        self.app, self.key, self.game = app, key, game
        self.waits: list[float] = []
        self.recording = False
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(target=self.play, args=(i, random.Random(seed + i)), daemon=True)
            for i in range(matches)
        ]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        self.stopping.set()
        for t in self.threads:
            t.join(30)

    def play(self, index: int, rng: random.Random) -> None:
        client = self.app.test_client()
        external = f"bench-{index}"
        token = client.put(f"/v1/players/{external}", json={"name": external}, headers=self.auth(self.key))
        token = token.get_json()["token"]
        seats = [{"kind": "human", "player": external}] + [{"kind": "bot", "level": "easy"}] * 3
        while not self.stopping.is_set():
            created = client.post(
                "/v1/matches", json={"game": self.game, "seats": seats}, headers=self.auth(self.key)
            )
            assert created.status_code == 201, created.get_json()
            self.one_match(client, created.get_json()["id"], token, rng)

    def one_match(self, client, match_id: str, token: str, rng: random.Random) -> None:
        auth = self.auth(token)
        seq, answered = 0, None
        while not self.stopping.is_set():
            view = client.get(f"/v1/matches/{match_id}", headers=auth).get_json()
            if view["status"] in ("finished", "aborted"):
                return
            if view["status"] == "round_over":
                client.post(f"/v1/matches/{match_id}/rounds", headers=auth)
                answered = None
                continue
            if view["status"] == "active" and view["turn"]["seat"] == view["you"]:
                if answered is not None and self.recording:
                    self.waits.append(time.perf_counter() - answered)
                moves = [a for a in view["legal_actions"] if a["type"] != "resign"]
                client.post(f"/v1/matches/{match_id}/actions", json=rng.choice(moves), headers=auth)
                answered = time.perf_counter()
                continue
            events = client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=5", headers=auth).get_json()
            seq = events["events"][-1]["seq"] if events["events"] else seq

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}


def drained(svc, queue: str) -> None:
    """Wait until the webhook queues are empty (their deliveries fail at once: endpoint deleted)."""
    connection = svc.trips.queue
    deadline = time.monotonic() + 600
    while any(connection.llen(f"rq:queue:{name}") for name in webhook_queue_names(queue)):
        if time.monotonic() > deadline:
            print("webhook queues still not empty after 10 minutes; going on", flush=True)
            return
        time.sleep(0.5)


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the processes have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def phase(
    client, svc, players: Players, key: str, seconds: float, endpoints: list[str], pids: dict[str, list[int]]
) -> dict:
    """One phase with these endpoints registered; the figures of its bot turns, and the CPU
    time the bot worker, the webhooks workers and Redis spent in it (a measure the other load
    on a shared machine does not stretch as it stretches wall time)."""
    made = []
    for url in endpoints:
        r = client.post(
            "/v1/webhooks", json={"url": url, "events": ["turn.started"]}, headers=players.auth(key)
        )
        assert r.status_code == 201, r.get_json()
        made.append(r.get_json()["id"])
    before = histogram(client.get("/metrics").get_data(as_text=True), "cardtable_bot_turn_seconds")
    cpu_before = {name: cpu_seconds(p) for name, p in pids.items()}
    players.waits, players.recording = [], True
    time.sleep(seconds)
    players.recording = False
    cpu = {name: cpu_seconds(p) - cpu_before[name] for name, p in pids.items()}
    after = histogram(client.get("/metrics").get_data(as_text=True), "cardtable_bot_turn_seconds")
    pending = svc.trips.queue.zcard("ct:webhooks:due")
    for endpoint in made:
        client.delete(f"/v1/webhooks/{endpoint}", headers=players.auth(key))
    drained(svc, svc.config.QUEUE)
    buckets = {le: after[0][le] - before[0].get(le, 0.0) for le in after[0]}
    count = after[2] - before[2]
    waits = sorted(players.waits)
    return {
        "turns": int(count),
        "mean_ms": (after[1] - before[1]) / count * 1000 if count else float("nan"),
        "p95_ms": quantile(buckets, 0.95) * 1000 if count else float("nan"),
        "waits": len(waits),
        "wait_p50_ms": statistics.median(waits) * 1000 if waits else float("nan"),
        "wait_p95_ms": waits[int(0.95 * (len(waits) - 1))] * 1000 if waits else float("nan"),
        "pending": pending,
        "bot_cpu_ms_per_turn": cpu["bot"] / count * 1000 if count else float("nan"),
        "webhooks_cpu_s": cpu["webhooks"],
        "redis_cpu_s": cpu["redis"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="spades")
    ap.add_argument("--matches", type=int, default=4, help="human-vs-bots matches kept going at once")
    ap.add_argument("--seconds", type=float, default=45, help="length of each phase")
    ap.add_argument("--rounds", type=int, default=2, help="pairs of phases (without, with)")
    ap.add_argument("--endpoints", type=int, default=100)
    ap.add_argument("--webhook-workers", type=int, default=1, help="`cardtable worker --webhooks` processes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    # An app may have 20 endpoints; the bench puts all of them on one app (in this process's
    # API), so that each notice makes `--endpoints` deliveries: the worst case, not a real one.
    webhook_registry.MAX_ENDPOINTS = max(webhook_registry.MAX_ENDPOINTS, args.endpoints)
    redis_proc, url = start_redis(tempfile.mkdtemp(prefix="bench-webhooks-"), persist=False)
    env = dict(os.environ, REDIS_URL=url, CARDTABLE_BOT_DELAY="0", CARDTABLE_LOG_LEVEL="ERROR", **LOCAL)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--log-level", "ERROR", *extra],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )
        for extra in [[]] + [["--webhooks"]] * args.webhook_workers
    ]
    config = Config(
        REDIS_URL=url, RATE_LIMIT=0, BOT_DELAY=0.0, WEBHOOK_ALLOW_HTTP=True, WEBHOOK_ALLOW_PRIVATE=True
    )
    pids = {"bot": [workers[0].pid], "webhooks": [w.pid for w in workers[1:]], "redis": [redis_proc.pid]}
    app = create_app(config)
    svc = app.extensions["cardtable"]
    client = app.test_client()
    _, key = svc.apps.create("bench", rate=100_000, matches=100_000, bot_matches=100_000)
    port, stop_receiver = silent_receiver()
    hooks = [f"http://127.0.0.1:{port}/hook/{i}" for i in range(args.endpoints)]
    players = Players(app, key, args.game, args.matches, args.seed)
    players.start()
    results: dict[str, list[dict]] = {"without": [], "with": []}
    try:
        time.sleep(5)  # warm up: every match under way
        for n in range(args.rounds):
            # Each round's order is the last one's reversed (without, with, with, without, ...):
            # a load that drifts over a run then weighs on both sides alike.
            order = [("without", []), ("with", hooks)]
            for name, endpoints in order if n % 2 == 0 else order[::-1]:
                result = phase(client, svc, players, key, args.seconds, endpoints, pids)
                results[name].append(result)
                print(f"{name:>7}: {result}", flush=True)
        costs(svc, key)
    finally:
        players.stop()
        stop_receiver.set()
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(30)
        redis_proc.terminate()
    report(args, results)


def costs(svc, key: str) -> None:
    """What a commit of an app's match pays for webhooks, in this process: `wanted` from the
    process's copy, and the one fan-out enqueue of a commit whose notice some endpoint wants."""
    app_id = key[4:16]
    hooks = svc.webhooks
    hooks.wanted(app_id)
    n = 200_000
    started = time.perf_counter()
    for _ in range(n):
        hooks.wanted(app_id)
    cached = (time.perf_counter() - started) / n * 1e6
    notice = {
        "id": "0" * 16 + "-1-turn.started",
        "app": app_id,
        "type": "turn.started",
        "timestamp": "t",
        "data": {},
    }
    m = 300
    started = time.perf_counter()
    for i in range(m):
        svc.repo.queue.enqueue_fan_out(f"{i:016x}", 1, [notice])
    enqueue = (time.perf_counter() - started) / m * 1e3
    for name in webhook_queue_names(svc.config.QUEUE):
        svc.trips.queue.delete(f"rq:queue:{name}")
    print(f"Webhooks.wanted from the copy: {cached:.2f} µs a call; a fan-out enqueue: {enqueue:.2f} ms")


def report(args, results: dict[str, list[dict]]) -> None:
    def pooled(name: str, field: str) -> float:
        rows = results[name]
        if field == "mean_ms":  # weighted by turns
            return sum(r[field] * r["turns"] for r in rows) / max(sum(r["turns"] for r in rows), 1)
        return statistics.median(r[field] for r in rows)

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    phases = f"{args.rounds} x 2 phases of {args.seconds:.0f} s"
    print(f"\n{args.game}: {args.matches} human-vs-3-bots matches, {phases}, {args.endpoints} endpoints")
    print(f"1 bot worker, {args.webhook_workers} webhooks worker(s)")
    print(f"load average at the end {load}")
    print("| | bot turns | bot turn mean ms | bot turn p95 ms | human waits | wait p50 ms | wait p95 ms |")
    print("|---|---|---|---|---|---|---|")
    for name in ("without", "with"):
        rows = results[name]
        turns, waits = sum(r["turns"] for r in rows), sum(r["waits"] for r in rows)
        cells = " | ".join(f"{pooled(name, f):.1f}" for f in ("mean_ms", "p95_ms"))
        tail = " | ".join(f"{pooled(name, f):.1f}" for f in ("wait_p50_ms", "wait_p95_ms"))
        print(f"| {name} webhooks | {turns} | {cells} | {waits} | {tail} |")
    print("| | bot worker CPU a bot turn, ms | webhooks workers CPU, s a phase | Redis CPU, s a phase |")
    print("|---|---|---|---|")
    for name in ("without", "with"):
        cells = " | ".join(
            f"{pooled(name, f):.2f}" for f in ("bot_cpu_ms_per_turn", "webhooks_cpu_s", "redis_cpu_s")
        )
        print(f"| {name} webhooks | {cells} |")
    for field in ("mean_ms", "p95_ms", "wait_p95_ms", "bot_cpu_ms_per_turn"):
        # Each round's 'with' phase against its 'without' phase, its neighbour in time: on a
        # shared machine the load drifts, and neighbours share more of it.
        pairs = [w[field] / o[field] for o, w in zip(results["without"], results["with"], strict=True)]
        shown = ", ".join(f"{p:.2f}" for p in pairs)
        print(
            f"ratio with/without, {field}: pooled {pooled('with', field) / pooled('without', field):.3f}; "
            f"paired {shown}, median {statistics.median(pairs):.3f}"
        )
    print(f"deliveries pending at the end of each 'with' phase: {[r['pending'] for r in results['with']]}")


if __name__ == "__main__":
    main()

"""Waiters benchmark: moves while thousands of idle long-polls and SSE streams are open.

In one run, against gunicorn as `cardtable serve` runs it (2 gevent workers, `--reuse-port`)
and a private Redis with append-only persistence:

1. baseline: bench/api.py's 32 closed-loop clients play Spades for --seconds, alone;
2. the same with --waiters idle waiters open (half long-polls re-polling on every answer, half
   SSE streams, spread over --matches matches nobody plays);
3. the same with --spectators waiters (half and half) on ONE match, which this script moves
   --fanout-moves times: how long each move takes to reach every spectator.

Meanwhile /healthz is probed every 50 ms on a new connection (as a load balancer does). Prints
the move throughput of phases 2 and 3 against phase 1, /healthz latency, Redis connections
(CLIENT LIST), the workers' RSS per idle waiter and the fan-out latency.

    python bench/waiters.py [--waiters 5000] [--matches 1000] [--spectators 1000] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing as mp
import os
import re
import resource
import sys
import tempfile
import threading
import time

import orjson
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

import api as movers  # noqa: E402  (bench/api.py: the movers, gunicorn, percentiles)

from service.embedded import free_port, start_redis  # noqa: E402

_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *(\d+)")
_SEQ = re.compile(rb"\nid: (\d+)\n")


# --- the waiters: one asyncio process holding every connection ------------------------------
async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict]:
    head = await reader.readuntil(b"\r\n\r\n")
    body = await reader.readexactly(int(_LENGTH.search(head).group(1)))
    return int(head[9:12]), orjson.loads(body)


async def _request(writer: asyncio.StreamWriter, method: str, path: str, body=None, token=None) -> None:
    writer.write(movers.http_request(method, path, body, token))
    await writer.drain()


class Waiters:
    """Long-polls and streams; `seen[i][seq]` is when waiter i first saw event `seq`."""

    def __init__(self, port: int):
        self.port = port
        self.seen: list[dict[int, float]] = []
        self.tasks: list[asyncio.Task] = []
        self.failed = 0

    def open(self, match_id: str, after: int, kind: str) -> None:
        self.seen.append({})
        run = self._long_poll if kind == "long_poll" else self._stream
        self.tasks.append(asyncio.ensure_future(run(match_id, after, self.seen[-1])))

    async def _long_poll(self, match_id: str, after: int, seen: dict) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            while True:  # re-poll on every answer, as an app does
                await _request(writer, "GET", f"/v1/matches/{match_id}/events?after={after}&wait=30")
                status, body = await _answer(reader)
                now = time.monotonic()
                assert status == 200, body
                for e in body["events"]:
                    seen.setdefault(e["seq"], now)
                    after = e["seq"]
        except (OSError, asyncio.IncompleteReadError, AssertionError):
            self.failed += 1

    async def _stream(self, match_id: str, after: int, seen: dict) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            await _request(writer, "GET", f"/v1/matches/{match_id}/stream?after={after}")
            while chunk := await reader.read(65536):
                now = time.monotonic()
                for m in _SEQ.finditer(b"\n" + chunk):
                    seen.setdefault(int(m.group(1)), now)
            self.failed += 1  # the server ended the stream within the run
        except OSError:
            self.failed += 1

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks, self.seen = [], []


async def _move(port: int, match_id: str, tokens: list[str]) -> tuple[float, int]:
    """Play the first legal action of the seat to move; return when it was sent and its version."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await _request(writer, "GET", f"/v1/matches/{match_id}")
    _, view = await _answer(reader)
    token = tokens[view["turn"]["seat"]]
    await _request(writer, "GET", f"/v1/matches/{match_id}", token=token)
    _, view = await _answer(reader)
    sent = time.monotonic()
    await _request(writer, "POST", f"/v1/matches/{match_id}/actions", view["legal_actions"][0], token)
    status, view = await _answer(reader)
    assert status == 200, view
    writer.close()
    return sent, view["version"]


async def _fanout(waiters: Waiters, port: int, match_id: str, tokens: list[str], moves: int) -> list:
    """Each move's delay to every spectator (seconds); None for a spectator that never got it."""
    delays: list[float | None] = []
    for _ in range(moves):
        known = max((max(s) for s in waiters.seen if s), default=0)
        sent, _ = await _move(port, match_id, tokens)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(any(q > known for q in s) for s in waiters.seen):
            await asyncio.sleep(0.01)
        for s in waiters.seen:
            got = [t for q, t in s.items() if q > known]
            delays.append(min(got) - sent if got else None)
        await asyncio.sleep(0.3)  # the long-polls are back and waiting
    return delays


def waiter_process(port: int, conn) -> None:
    """Hold the waiters, and serve the main process's commands meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_serve(port, conn))


async def _serve(port: int, conn) -> None:
    loop = asyncio.get_running_loop()
    waiters = Waiters(port)
    while True:
        # Commands come over the pipe, read in a thread so the waiters run in the meantime.
        command, *args = await loop.run_in_executor(None, conn.recv)
        if command == "open":
            for match_id, after, kind in args[0]:
                waiters.open(match_id, after, kind)
                if len(waiters.tasks) % 100 == 0:
                    await asyncio.sleep(0.05)  # connect in batches
            conn.send(len(waiters.tasks))
        elif command == "fanout":
            conn.send(await _fanout(waiters, port, *args))
        elif command == "close":
            await waiters.close()
            conn.send(waiters.failed)
        elif command == "exit":
            return


# --- measuring ---------------------------------------------------------------------------
def healthz_probe(port: int, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", "/healthz")
            c.getresponse().read()
            c.close()
            out.append(time.perf_counter() - start)
        except OSError:
            out.append(30.0)
        stop.wait(0.05)


def workers_rss_kb(master: int) -> int:
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := movers._stat(int(entry))) and int(fields[1]) == master:
            with open(f"/proc/{entry}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return total


def open_waiters(port: int) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    return sum(
        int(line.split()[-1]) for line in text.splitlines() if line.startswith("cardtable_open_waiters{")
    )


def until_open(port: int, n: int, timeout: float = 120) -> float:
    start = time.monotonic()
    while open_waiters(port) < n:
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"only {open_waiters(port)} of {n} waiters open after {timeout} s")
        time.sleep(0.5)
    return time.monotonic() - start


def create_matches(port: int, n: int) -> list[tuple[str, list[str]]]:
    client = movers.Client(port)
    out = []
    for _ in range(n):
        status, created, _ = client.call(
            "POST", "/v1/matches", {"game": "spades", "seats": [{"kind": "human"}] * 4}
        )
        assert status == 201, created
        out.append((created["id"], [s["token"] for s in created["seats"]]))
    return out


def phase(args, port: int, master: int, r: redis.Redis, seed: int, during=None) -> dict:
    """The movers for --seconds (and `during()` alongside), with /healthz probed and Redis's
    connections counted halfway."""
    stop, health = threading.Event(), []
    probe = threading.Thread(target=healthz_probe, args=(port, stop, health))
    probe.start()
    counted = {}

    def count_connections():
        time.sleep(args.seconds / 2)
        clients = r.client_list()
        counted.update(clients=len(clients), subscribed=sum(1 for c in clients if int(c.get("sub", 0)) > 0))

    counter = threading.Thread(target=count_connections)
    counter.start()
    side = threading.Thread(target=during) if during else None
    if side:
        side.start()
    threads = args.clients // args.processes
    cpu0 = movers.cpu_seconds(master)
    moves, lat, _, wall = movers.drive(
        movers.spades_worker, lambda i: (port, threads, seed + i, 1, args.seconds, 0.0), args.processes
    )
    stop.set()
    for t in (probe, counter, side):
        if t:
            t.join()
    cpu = movers.cpu_seconds(master) - cpu0
    return {"rate": moves / wall, "lat": lat, "health": health, "cpu": cpu / moves, **counted}


def report(name: str, result: dict, base: dict | None) -> None:
    ratio = f" = {result['rate'] / base['rate']:.2f} x phase 1" if base else ""
    print(f"{name}: {result['rate']:.0f} moves/s{ratio}; moves {movers.latency(result['lat'])}")
    print(f"  workers' CPU per move (all they did meanwhile included): {1000 * result['cpu']:.2f} ms")
    print(f"  /healthz ({len(result['health'])} probes): {movers.latency(result['health'])}")
    print(f"  Redis connections {result['clients']} ({result['subscribed']} subscribed), counted halfway")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--waiters", type=int, default=5000)
    ap.add_argument("--matches", type=int, default=1000, help="idle matches the waiters spread over")
    ap.add_argument("--spectators", type=int, default=1000, help="waiters on the one match moved in phase 3")
    ap.add_argument("--fanout-moves", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20, help="each phase's moving time")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--worker-class", choices=("gevent", "gthread"), default="gevent")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    tmp = tempfile.mkdtemp(prefix="cardtable-bench-waiters-")
    redis_proc, url = start_redis(os.path.join(tmp, "redis"))
    env = dict(os.environ, REDIS_URL=url, CARDTABLE_RATE_LIMIT="1000000", PYTHONPATH=ROOT)
    env["CARDTABLE_LOG_LEVEL"] = "WARNING"
    port = free_port()
    server = movers.gunicorn("service.wsgi:app", port, env, args.workers, 8, ROOT, args.worker_class)
    here, there = mp.Pipe()
    client = mp.Process(target=waiter_process, args=(port, there))
    client.start()
    r = redis.Redis.from_url(url)
    try:
        run(args, port, server.pid, r, here)
    finally:
        here.send(("exit",))
        client.join(30)
        server.terminate()
        server.wait(20)
        redis_proc.terminate()
        redis_proc.wait(10)


def run(args, port: int, master: int, r: redis.Redis, waiters) -> None:
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.clients} movers, gunicorn {args.workers} {args.worker_class} workers; load {load}")
    base = phase(args, port, master, r, seed=1)
    report("phase 1, movers alone", base, None)

    matches = create_matches(port, args.matches)
    after = 3  # match_created, match_started, deal
    rss0 = workers_rss_kb(master)
    specs = [(matches[i % len(matches)][0], after, ("long_poll", "sse")[i % 2]) for i in range(args.waiters)]
    waiters.send(("open", specs))
    waiters.recv()
    took = until_open(port, args.waiters)
    time.sleep(5)  # opening them made garbage; the workers' collector is done with it
    rss1 = workers_rss_kb(master)
    print(
        f"{args.waiters} waiters open in {took:.1f} s over {len(matches)} matches; workers' RSS "
        f"{rss0 / 1024:.0f} -> {rss1 / 1024:.0f} MB = {(rss1 - rss0) / args.waiters:.1f} KB per waiter"
    )
    loaded = phase(args, port, master, r, seed=2)
    report(f"phase 2, with {args.waiters} idle waiters", loaded, base)
    waiters.send(("close",))
    print(f"  waiters that failed or were ended early: {waiters.recv()}")

    match_id, tokens = create_matches(port, 1)[0]
    specs = [(match_id, after, ("long_poll", "sse")[i % 2]) for i in range(args.spectators)]
    waiters.send(("open", specs))
    waiters.recv()
    until_open(port, args.spectators)
    fan: dict = {}

    def fanout():
        waiters.send(("fanout", match_id, tokens, args.fanout_moves))
        fan["delays"] = waiters.recv()

    spectated = phase(args, port, master, r, seed=3, during=fanout)
    report(f"phase 3, with {args.spectators} spectators on one match", spectated, base)
    delays = fan["delays"]
    got = [d for d in delays if d is not None]
    print(
        f"  fan-out of {args.fanout_moves} moves to {args.spectators} spectators: {len(got)} of "
        f"{len(delays)} deliveries; {movers.latency(got)}"
    )
    waiters.send(("close",))
    waiters.recv()


if __name__ == "__main__":
    main()

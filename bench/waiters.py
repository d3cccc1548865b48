"""Waiters benchmark: moves while thousands of idle long-polls and SSE streams are open.

In one run, against gunicorn as `cardtable serve` runs it (2 gevent workers, `--reuse-port`)
and a private Redis with append-only persistence:

1. baseline: bench/api.py's 32 closed-loop clients play Spades for --seconds, alone;
2. the same with --waiters idle waiters open (first, --idle-seconds without moves: the workers'
   CPU per empty long-poll round): --player-share of them players' feeds (one
   player each, half `/v1/me/events?wait=30` long-polls, half `/v1/me/stream`), the rest on
   matches (half long-polls, half SSE, spread over --matches matches nobody plays); long-polls
   re-poll on every answer. Then, with them still open, --notice-turns turns of a Zhol match
   between two players whose own streams are open: how long each turn takes from the move
   that ends it to the `turn.started` on the next player's stream;
3. the same with --spectators waiters (half and half) on ONE match, which this script moves
   --fanout-moves times: how long each move takes to reach every spectator.

Meanwhile /healthz is probed every 50 ms on a new connection (as a load balancer does). Prints
the move throughput of phases 2 and 3 against phase 1, /healthz latency, Redis connections
(CLIENT LIST), the workers' RSS and Redis's memory per idle waiter, and the delivery latencies.
The waiters are held by --waiter-processes asyncio processes (each process's open files are
limited; the server's gevent workers take --worker-connections each). With --app-movers the
movers play as an app's players, so every move also makes notices for their feeds.

    python bench/waiters.py [--waiters 5000] [--player-share 0.5] [--matches 1000] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import http.client
import multiprocessing as mp
import os
import random
import re
import resource
import socket
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

from service.infra.embedded import free_port, start_redis  # noqa: E402

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
        self.failed: collections.Counter = collections.Counter()  # why, how many
        self.answered = 0  # long-poll answers (each a round: request, wait, answer)

    def open(self, kind: str, target: str, after: int) -> None:
        """A waiter of `kind` (service/infra/waiter.py's KINDS): `target` is the match id of a
        match's waiter, the player token of a player's."""
        self.seen.append({})
        seen = self.seen[-1]
        if kind in ("long_poll", "sse"):
            base, token = f"/v1/matches/{target}", None
            paths = (base + "/events?after={after}&wait=30", base + "/stream?after={after}")
        else:
            token = target
            paths = ("/v1/me/events?after={after}&wait=30", "/v1/me/stream?after={after}")
        if kind.endswith("long_poll"):
            run = self._long_poll(paths[0], token, after, seen)
        else:
            run = self._stream(paths[1].format(after=after), token, seen)
        self.tasks.append(asyncio.ensure_future(run))

    async def _long_poll(self, path: str, token: str | None, after: int, seen: dict) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            while True:  # re-poll on every answer, as an app does
                await _request(writer, "GET", path.format(after=after), token=token)
                status, body = await _answer(reader)
                now = time.monotonic()
                assert status == 200, body
                self.answered += 1
                for e in body["events"]:
                    seen.setdefault(e["seq"], now)
                    after = e["seq"]
        except (OSError, asyncio.IncompleteReadError, AssertionError) as e:
            self.failed[f"long-poll {type(e).__name__}: {str(e)[:60]}"] += 1

    async def _stream(self, path: str, token: str | None, seen: dict) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            await _request(writer, "GET", path, token=token)
            while chunk := await reader.read(65536):
                now = time.monotonic()
                for m in _SEQ.finditer(b"\n" + chunk):
                    seen.setdefault(int(m.group(1)), now)
            self.failed["stream ended by the server"] += 1
        except OSError as e:
            self.failed[f"stream {type(e).__name__}: {str(e)[:60]}"] += 1

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


class Pool:
    """The waiter processes: each holds its share of the waiters (a process's open files are
    limited, by the hard limit at most), and answers commands over its pipe."""

    def __init__(self, port: int, processes: int):
        self.pipes, self.procs = [], []
        for _ in range(processes):
            here, there = mp.Pipe()
            proc = mp.Process(target=waiter_process, args=(port, there))
            proc.start()
            self.pipes.append(here)
            self.procs.append(proc)

    def open(self, specs: list[tuple[str, str, int]], rate: float) -> int:
        """Open the waiters of `specs`, about `rate` a second in all."""
        n = len(self.pipes)
        for i, pipe in enumerate(self.pipes):
            pipe.send(("open", specs[i::n], rate / n))
        return sum(pipe.recv() for pipe in self.pipes)

    def close(self) -> collections.Counter:
        """Close every waiter; how many failed or were ended early meanwhile, and why."""
        return self._ask("close")

    def failed(self) -> collections.Counter:
        return self._ask("failed")

    def answered(self) -> int:
        """Long-poll answers so far, in every process."""
        for pipe in self.pipes:
            pipe.send(("answered",))
        return sum(pipe.recv() for pipe in self.pipes)

    def _ask(self, command: str) -> collections.Counter:
        for pipe in self.pipes:
            pipe.send((command,))
        return sum((pipe.recv() for pipe in self.pipes), collections.Counter())

    def fanout(self, match_id: str, tokens: list[str], moves: int) -> list:
        """Phase 3's moves, timed to the waiters of the first process (which holds them all)."""
        self.pipes[0].send(("fanout", match_id, tokens, moves))
        return self.pipes[0].recv()

    def exit(self) -> None:
        for pipe in self.pipes:
            pipe.send(("exit",))
        for proc in self.procs:
            proc.join(30)


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
            specs, rate = args
            for kind, target, after in specs:
                waiters.open(kind, target, after)
                if len(waiters.tasks) % 50 == 0:
                    await asyncio.sleep(50 / rate)  # connect in batches, `rate` a second
            conn.send(len(waiters.tasks))
        elif command == "fanout":
            conn.send(await _fanout(waiters, port, *args))
        elif command == "failed":
            conn.send(waiters.failed)
        elif command == "answered":
            conn.send(waiters.answered)
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


def open_waiters(port: int) -> dict[str, int]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    return {
        line.split('"')[1]: int(line.split()[-1])
        for line in text.splitlines()
        if line.startswith("cardtable_open_waiters{")
    }


def until_open(port: int, specs: list[tuple[str, str, int]], timeout: float = 300) -> float:
    """Wait until /metrics counts exactly the waiters of `specs` by kind (those of an earlier
    phase gone, these all there); how long that took."""
    start, expected = time.monotonic(), collections.Counter(kind for kind, _, _ in specs)
    while (counts := open_waiters(port)) != {kind: expected[kind] for kind in counts}:
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"{counts} waiters open after {timeout} s, not {dict(expected)}")
        time.sleep(0.25)
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


def create_players(port: int, app_key: str, n: int, prefix: str, threads: int = 4) -> list[str]:
    """`n` players of the app (PUT /v1/players/...); their tokens."""
    tokens: list[str] = [""] * n

    def make(part: int) -> None:
        client = movers.Client(port)
        for i in range(part, n, threads):
            status, body, _ = client.call("PUT", f"/v1/players/{prefix}-{i}", {"name": f"P{i}"}, app_key)
            assert status == 200, body
            tokens[i] = body["token"]

    workers = [threading.Thread(target=make, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return tokens


class FeedReader(threading.Thread):
    """A player's `/v1/me/stream`, read in a thread: when each `turn.started` arrived."""

    def __init__(self, port: int, token: str):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.sendall(movers.http_request("GET", "/v1/me/stream", token=token))
        self.turns: list[float] = []

    def run(self) -> None:
        buf = b""
        try:
            while chunk := self.sock.recv(65536):
                now = time.monotonic()
                buf += chunk
                *events, buf = buf.split(b"\n\n")
                self.turns += [now for e in events if b"\nevent: turn.started\n" in e]
        except OSError:
            pass


def notice_turns(port: int, app_key: str, turns: int) -> list[float]:
    """Play `turns` turns of Zhol between two players, each following its own stream; for each
    turn, seconds from the request that ends it to its `turn.started` on the next one's stream."""
    prefix = f"turns-{time.time():.0f}"
    tokens = create_players(port, app_key, 2, prefix, threads=1)
    c = movers.Client(port)
    seats = [{"kind": "human", "player": f"{prefix}-{i}"} for i in range(2)]
    status, created, _ = c.call("POST", "/v1/matches", {"game": "zhol", "seats": seats}, app_key)
    assert status == 201, created
    match_id, readers = created["id"], [FeedReader(port, t) for t in tokens]
    for r in readers:
        r.start()
    deadline = time.monotonic() + 10
    while not any(r.turns for r in readers) and time.monotonic() < deadline:
        time.sleep(0.002)  # the first turn's notice, made with the match
    path, delays = f"/v1/matches/{match_id}", []
    for _ in range(turns):
        known = sum(len(r.turns) for r in readers)
        _, view, _ = c.call("GET", path, token=tokens[0])
        if view["status"] == "round_over":
            sent = time.monotonic()
            c.call("POST", path + "/rounds", token=tokens[0])
        elif view["status"] != "active":
            break
        else:
            token = tokens[view["turn"]["seat"]]
            _, view, _ = c.call("GET", path, token=token)
            _, view, _ = c.call("POST", path + "/actions", view["legal_actions"][0], token)  # draw
            sent = time.monotonic()
            _, view, _ = c.call("POST", path + "/actions", view["legal_actions"][0], token)  # discard
            if view["status"] != "active":
                continue  # the discard ended the round: the next turn starts with the next one
        deadline = time.monotonic() + 10
        while sum(len(r.turns) for r in readers) == known and time.monotonic() < deadline:
            time.sleep(0.002)
        arrived = sorted(t for r in readers for t in r.turns)[known:]
        delays.append(arrived[0] - sent if arrived else None)
    for r in readers:
        r.sock.close()
    return delays


def phase(args, port: int, master: int, r: redis.Redis, seed: int, app_key, during=None) -> dict:
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
        movers.spades_worker,
        lambda i: (port, threads, seed + i, 1, args.seconds, 0.0, app_key if args.app_movers else None),
        args.processes,
    )
    stop.set()
    for t in (probe, counter, side):
        if t:
            t.join()
    cpu = movers.cpu_seconds(master) - cpu0
    return {"rate": moves / wall, "lat": lat, "health": health, "cpu": cpu / moves, **counted}


def idle(args, master: int, pool: Pool) -> None:
    """No moves for --idle-seconds: the workers' CPU over the long-poll rounds the waiters made
    meanwhile (each an empty answer at the end of its wait, and the re-poll), the streams'
    keep-alives and the housekeeping included."""
    cpu0, answered0, start = movers.cpu_seconds(master), pool.answered(), time.monotonic()
    time.sleep(args.idle_seconds)
    cpu, rounds = movers.cpu_seconds(master) - cpu0, pool.answered() - answered0
    wall = time.monotonic() - start
    each = f"{1000 * cpu / rounds:.2f} ms" if rounds else "-"
    print(
        f"idle {wall:.0f} s, no moves: {rounds} empty long-poll rounds ({rounds / wall:.0f}/s), workers' CPU "
        f"{cpu:.2f} s = {each} a round (keep-alives and housekeeping included); "
        f"load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def report(name: str, result: dict, base: dict | None) -> None:
    ratio = f" = {result['rate'] / base['rate']:.2f} x phase 1" if base else ""
    print(f"{name}: {result['rate']:.0f} moves/s{ratio}; moves {movers.latency(result['lat'])}")
    print(f"  workers' CPU per move (all they did meanwhile included): {1000 * result['cpu']:.2f} ms")
    print(f"  /healthz ({len(result['health'])} probes): {movers.latency(result['health'])}")
    print(f"  Redis connections {result['clients']} ({result['subscribed']} subscribed), counted halfway")


def delivered(name: str, delays: list) -> None:
    got = [d for d in delays if d is not None]
    print(f"  {name}: {len(got)} of {len(delays)} deliveries; {movers.latency(got) if got else '-'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--waiters", type=int, default=5000)
    ap.add_argument("--player-share", type=float, default=0.5, help="of the waiters, players' feeds")
    ap.add_argument(
        "--stream-share",
        type=float,
        default=0.5,
        help="of each kind of waiter, SSE streams (the rest long-polls)",
    )
    ap.add_argument("--matches", type=int, default=1000, help="idle matches the match waiters spread over")
    ap.add_argument("--spectators", type=int, default=1000, help="waiters on the one match moved in phase 3")
    ap.add_argument("--fanout-moves", type=int, default=10)
    ap.add_argument("--notice-turns", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20, help="each phase's moving time")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--worker-connections", type=int, default=16000)
    ap.add_argument("--waiter-processes", type=int, default=2)
    ap.add_argument(
        "--open-rate",
        type=float,
        default=1000,
        help="waiters connecting a second (a faster burst overflows the workers' listen queues)",
    )
    ap.add_argument(
        "--idle-seconds",
        type=float,
        default=35,
        help="before phase 2, this long without moves: the workers' CPU a long-poll round (0: skip)",
    )
    ap.add_argument("--app-movers", action="store_true", help="the movers are an app's players")
    ap.add_argument("--worker-class", choices=("gevent", "gthread"), default="gevent")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    tmp = tempfile.mkdtemp(prefix="cardtable-bench-waiters-")
    redis_proc, url = start_redis(os.path.join(tmp, "redis"))
    r = redis.Redis.from_url(url)
    from service.identity.apps import Apps

    _, app_key = Apps(r).create("bench", matches=10**6, bot_matches=10**6, rate=10**9)
    env = dict(os.environ, REDIS_URL=url, CARDTABLE_RATE_LIMIT="1000000", PYTHONPATH=ROOT)
    # Every simulated client comes from this one address: no cap on its open waits, nor on the
    # live matches it creates (the waiters' matches are never played).
    env.update(
        CARDTABLE_LOG_LEVEL="WARNING",
        CARDTABLE_MAX_WAITS_PER_ADDRESS="0",
        CARDTABLE_ANONYMOUS_LIVE_MATCHES="1000000",
    )
    port = free_port()
    server = movers.gunicorn(
        "service.wsgi:app", port, env, args.workers, 8, ROOT, args.worker_class, args.worker_connections
    )
    pool = Pool(port, args.waiter_processes)
    try:
        run(args, port, server.pid, r, pool, app_key)
    finally:
        pool.exit()
        server.terminate()
        server.wait(20)
        redis_proc.terminate()
        redis_proc.wait(10)


def waiter_specs(args, port: int, app_key: str) -> list[tuple[str, str, int]]:
    """Phase 2's waiters: (kind, match id or player token, after), the kinds interleaved."""
    players = round(args.waiters * args.player_share)
    started = time.monotonic()
    tokens = create_players(port, app_key, players, "feed") if players else []
    if players:
        print(f"{players} players made in {time.monotonic() - started:.1f} s")
    matches = create_matches(port, args.matches) if args.waiters > players else []
    after = 3  # match_created, match_started, deal

    def streams(i: int) -> bool:
        # --stream-share of each kind streams (interleaved), the rest long-poll.
        return int((i + 1) * args.stream_share) > int(i * args.stream_share)

    specs = [
        ("sse" if streams(i) else "long_poll", matches[i % len(matches)][0], after)
        for i in range(args.waiters - players)
    ]
    specs += [("player_sse" if streams(i) else "player_long_poll", t, 0) for i, t in enumerate(tokens)]
    random.Random(1).shuffle(specs)
    return specs


def run(args, port: int, master: int, r: redis.Redis, pool: Pool, app_key: str) -> None:
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.clients} movers, gunicorn {args.workers} {args.worker_class} workers; load {load}")
    base = phase(args, port, master, r, 1, app_key)
    report("phase 1, movers alone", base, None)

    specs = waiter_specs(args, port, app_key)
    rss0, mem0 = workers_rss_kb(master), r.info("memory")["used_memory"]
    pool.open(specs, args.open_rate)
    try:
        took = until_open(port, specs)
    except RuntimeError:
        print(f"waiters that failed: {dict(pool.failed())}")
        raise
    time.sleep(5)  # opening them made garbage; the workers' collector is done with it
    rss1, mem1 = workers_rss_kb(master), r.info("memory")["used_memory"]
    print(
        f"{args.waiters} waiters open in {took:.1f} s ({open_waiters(port)}); workers' RSS "
        f"{rss0 / 1024:.0f} -> {rss1 / 1024:.0f} MB = {(rss1 - rss0) / args.waiters:.1f} KB per waiter; "
        f"Redis {mem0 / 2**20:.0f} -> {mem1 / 2**20:.0f} MB = "
        f"{(mem1 - mem0) / args.waiters / 1024:.1f} KB per waiter"
    )
    print(f"  load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.idle_seconds:
        idle(args, master, pool)
    loaded = phase(args, port, master, r, 2, app_key)
    report(f"phase 2, with {args.waiters} idle waiters", loaded, base)
    if args.notice_turns:
        delivered("turn.started on the next player's stream", notice_turns(port, app_key, args.notice_turns))
    print(f"  waiters that failed or were ended early: {dict(pool.close()) or 0}")

    match_id, tokens = create_matches(port, 1)[0]
    specs = [(("long_poll", "sse")[i % 2], match_id, 3) for i in range(args.spectators)]
    pool.pipes[0].send(("open", specs, args.open_rate))
    pool.pipes[0].recv()
    until_open(port, specs)
    fan: dict = {}

    def fanout():
        fan["delays"] = pool.fanout(match_id, tokens, args.fanout_moves)

    spectated = phase(args, port, master, r, 3, app_key, during=fanout)
    report(f"phase 3, with {args.spectators} spectators on one match", spectated, base)
    delivered(f"fan-out of {args.fanout_moves} moves to {args.spectators} spectators", fan["delays"])
    pool.close()


if __name__ == "__main__":
    main()

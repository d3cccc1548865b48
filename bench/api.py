"""HTTP benchmark: Spades matches played by concurrent scripted clients against gunicorn.

In the same run it measures the floor: a bare Flask endpoint that does one Redis GET and
one SET of a JSON blob the size of a match record, served by the same gunicorn settings,
driven by the same clients. Prints moves/s, p50/p99 latency, the ratio to the floor and
Redis memory per finished match.

    python bench/api.py [--clients 32] [--seconds 60] [--rounds 3]
    python bench/api.py --variants json,traced   # what JSON logs and tracing cost
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import orjson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.stats import pct  # noqa: E402
from service.infra.embedded import free_port, start_redis  # noqa: E402

FLOOR_APP = """
import os, json, redis
from flask import Flask, Response, request
app = Flask("floor")
r = redis.Redis.from_url(os.environ["REDIS_URL"])
BLOB = "x" * int(os.environ["BLOB_SIZE"])

@app.post("/floor/<key>")
def floor(key):
    body = request.get_json()
    old = r.get("floor:" + key)
    r.set("floor:" + key, json.dumps({"blob": BLOB, "body": body}))
    return Response(json.dumps({"ok": True, "n": len(old or b""), "blob": BLOB[: len(BLOB) // 2]}),
                    mimetype="application/json")

# As service/wsgi.py does once its app is loaded: the floor gets the same treatment.
import gc
gc.freeze()
gc.set_threshold(700, 10, 1000)
"""


def gunicorn(
    app: str,
    port: int,
    env: dict,
    workers: int,
    threads: int,
    cwd: str,
    worker_class: str = "gevent",
    connections: int = 10000,
    quiet: bool = False,
) -> subprocess.Popen:
    """gunicorn as `cardtable serve --worker-class <worker_class>` runs it (a gevent worker
    takes up to `connections` at once)."""
    cmd = [
        sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--worker-class", worker_class,
        "--reuse-port", "--log-level", "warning",
    ]  # fmt: skip
    cmd += (
        ["--worker-connections", str(connections)]
        if worker_class == "gevent"
        else ["--threads", str(threads)]
    )
    out = subprocess.DEVNULL if quiet else None
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=out)
    deadline = time.monotonic() + 30
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            return proc
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (None once the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int, children: bool = True) -> float:
    """CPU time (user + system) of a process, or of its direct children (gunicorn's workers)."""
    pids = [pid]
    if children:
        stats = ((int(e), _stat(int(e))) for e in os.listdir("/proc") if e.isdigit())
        pids = [p for p, fields in stats if fields and int(fields[1]) == pid]
    total = 0.0
    for p in pids:
        if fields := _stat(p):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def http_request(method: str, path: str, body=None, token=None) -> bytes:
    """One HTTP/1.1 request, JSON body and bearer token optional, as bytes to send."""
    data = orjson.dumps(body) if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\nContent-Length: {len(data)}\r\n"
    if body is not None:
        head += "Content-Type: application/json\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    return head.encode() + b"\r\n" + data


_CONTENT_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *(\d+)")


class Client:
    """A keep-alive HTTP/1.1 client on a bare socket.

    The load generators share the two cores with the servers they measure, so they must cost
    little: http.client parses each response's headers with the email package, and json decodes
    a Spades view at half orjson's pace. This client writes the request in one `sendall`, finds
    the body by its Content-Length and decodes it with orjson (gunicorn always sends a length
    for these bodies).
    """

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def call(self, method: str, path: str, body=None, token=None) -> tuple[int, dict, float]:
        request = http_request(method, path, body, token)
        start = time.perf_counter()
        self.sock.sendall(request)
        buf = self.buf
        while (end := buf.find(b"\r\n\r\n")) < 0:
            buf += self._recv()
        header = buf[:end]
        need = end + 4 + int(_CONTENT_LENGTH.search(header).group(1))
        while len(buf) < need:
            buf += self._recv()
        took = time.perf_counter() - start
        self.buf = buf[need:]
        return int(header[9:12]), orjson.loads(buf[end + 4 : need]), took

    def _recv(self) -> bytes:
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk


def legal_play(hand: list[str], trick: list, broken: bool) -> list[str]:
    """The client's own copy of the follow-suit rule, so a move costs one request."""
    if trick:
        led = trick[0]["card"][1] if isinstance(trick[0], dict) else trick[0][1]
        follow = [c for c in hand if c[1] == led]
        return follow or hand
    if broken:
        return hand
    return [c for c in hand if c[1] != "S"] or hand


def seated(c: Client, seed: int, app_key: str | None) -> tuple[str, list[str]]:
    """A new Spades match of four people and the credential each plays with: its seat tokens, or
    with `app_key` four players of that app bound to the seats and their player tokens."""
    if app_key is None:
        seats = [{"kind": "human", "name": f"p{i}"} for i in range(4)]
        status, created, _ = c.call("POST", "/v1/matches", {"game": "spades", "seats": seats, "seed": seed})
        assert status == 201, created
        return created["id"], [s["token"] for s in created["seats"]]
    tokens, seats = [], []
    for i in range(4):
        external = f"bench-{seed}-{i}"
        status, player, _ = c.call("PUT", f"/v1/players/{external}", {"name": f"p{i}"}, app_key)
        assert status == 200, player
        tokens.append(player["token"])
        seats.append({"kind": "human", "player": external})
    body = {"game": "spades", "seats": seats, "seed": seed}
    status, created, _ = c.call("POST", "/v1/matches", body, app_key)
    assert status == 201, created
    return created["id"], tokens


def play_match(
    port: int,
    seed: int,
    latencies: list[float],
    ids: list[str],
    stop_at: float,
    mean_gap: float = 0.0,
    app_key: str | None = None,
) -> int:
    """Play one match with four seats; with `mean_gap`, moves are sent at random times that far
    apart on average (otherwise back to back); with `app_key`, by players with their tokens."""
    c = Client(port)
    rng = random.Random(seed)
    match_id, tokens = seated(c, seed, app_key)
    ids.append(match_id)
    moves = 0
    hands: dict[int, list[str]] = {}
    view = None
    send_at = time.perf_counter() + (rng.expovariate(1 / mean_gap) if mean_gap else 0.0)
    while time.monotonic() < stop_at:
        if view is None or view["status"] == "round_over" or not hands:
            if view is not None and view["status"] == "round_over":
                status, view, _ = c.call("POST", f"/v1/matches/{match_id}/rounds", token=tokens[0])
                assert status == 200, view
            for s in range(4):
                status, v, _ = c.call("GET", f"/v1/matches/{match_id}", token=tokens[s])
                hands[s] = v["hand"]
            view = v
            # Reading the hands is the client's own business between moves: the next move is
            # due no earlier than now, or its latency would include these requests.
            send_at = max(send_at, time.perf_counter())
        if view["status"] == "finished":
            break
        seat = view["turn"]["seat"]
        table = view["table"]
        if view["turn"]["phase"] == "bid":
            action = {"type": "bid", "tricks": rng.randint(1, 4)}
        else:
            card = rng.choice(legal_play(hands[seat], table["trick"], table["spades_broken"]))
            action = {"type": "play", "card": card}
        if mean_gap:
            # Open loop: each move's send time is drawn in advance and its latency counts from
            # then, so time spent queued behind a slow answer is not hidden by waiting for it.
            time.sleep(max(0.0, send_at - time.perf_counter()))
        status, view, took = c.call("POST", f"/v1/matches/{match_id}/actions", action, tokens[seat])
        assert status == 200, view
        if mean_gap:
            took = max(took, time.perf_counter() - send_at)
            send_at += rng.expovariate(1 / mean_gap)
        if action["type"] == "play":
            hands[seat].remove(action["card"])
        latencies.append(took)
        moves += 1
    return moves


def spades_worker(
    port: int,
    threads: int,
    seed: int,
    matches: int,
    seconds: float,
    mean_gap: float,
    app_key: str | None,
    out: mp.Queue,
) -> None:
    latencies: list[float] = []
    ids: list[str] = []
    stop_at = time.monotonic() + seconds
    counts = [0] * threads

    def run(i):
        n = 0
        for m in range(matches):
            n += play_match(port, seed * 1000 + i * 100 + m, latencies, ids, stop_at, mean_gap, app_key)
            if time.monotonic() >= stop_at:
                break
        counts[i] = n

    ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put((sum(counts), latencies, ids))


def floor_worker(port: int, threads: int, requests: int, out: mp.Queue) -> None:
    latencies: list[float] = []

    def run(i):
        c = Client(port)
        for k in range(requests):
            status, _, took = c.call("POST", f"/floor/{i}-{k % 50}", {"type": "play", "card": "QH"})
            assert status == 200
            latencies.append(took)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put((len(latencies), latencies, []))


def drive(target, args_for, procs: int) -> tuple[int, list[float], list[str], float]:
    out: mp.Queue = mp.Queue()
    ps = [mp.Process(target=target, args=(*args_for(i), out)) for i in range(procs)]
    start = time.perf_counter()
    for p in ps:
        p.start()
    results = [out.get() for _ in ps]
    wall = time.perf_counter() - start
    for p in ps:
        p.join()
    n = sum(r[0] for r in results)
    lat = [x for r in results for x in r[1]]
    ids = [x for r in results for x in r[2]]
    return n, lat, ids, wall


def latency(values: list[float]) -> str:
    return (
        f"p50 {pct(values, 0.5):.1f} ms, p90 {pct(values, 0.9):.1f} ms, p99 {pct(values, 0.99):.1f} ms, "
        f"max {max(values) * 1000:.0f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--processes", type=int, default=4, help="client processes (clients split over them)")
    ap.add_argument("--matches", type=int, default=1, help="matches per client")
    ap.add_argument("--seconds", type=float, default=60, help="stop playing after this long")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers (as cardtable serve)")
    ap.add_argument(
        "--threads", type=int, default=8, help="threads per worker with gthread (as cardtable serve)"
    )
    ap.add_argument(
        "--worker-class", choices=("gevent", "gthread"), default="gevent", help="as cardtable serve's"
    )
    ap.add_argument("--rounds", type=int, default=3, help="service-then-floor rounds, each on fresh servers")
    ap.add_argument(
        "--paced",
        type=float,
        default=0.5,
        help="then offer this fraction of the median service rate, spread over the clients (0: skip)",
    )
    ap.add_argument("--offer", type=float, help="moves/s to offer in the paced phase (e.g. with --rounds 0)")
    ap.add_argument(
        "--variants",
        type=lambda v: [x for x in v.split(",") if x],
        default=[],
        help=f"also play the service set up otherwise, each round, against the plain one: comma-"
        f"separated, of {', '.join(v for v in VARIANTS if v != 'plain')} (skips the player-token row)",
    )
    ap.add_argument(
        "--wrk",
        action="store_true",
        help="also drive the floor with wrk (C, needs the wrk binary) for its own p99",
    )
    args = ap.parse_args()
    threads = max(1, args.clients // args.processes)

    tmp = tempfile.mkdtemp(prefix="cardtable-bench-")
    redis_proc, url = start_redis(os.path.join(tmp, "redis"))
    # Rate limiting stays on (its Redis count rides in every match load), with a limit above
    # what one load-generating client reaches, so no request is refused.
    env = dict(os.environ, REDIS_URL=url, CARDTABLE_RATE_LIMIT="100000", PYTHONPATH=ROOT)
    env["CARDTABLE_LOG_LEVEL"] = "WARNING"
    floor_dir = os.path.join(tmp, "floor")
    os.makedirs(floor_dir)
    with open(os.path.join(floor_dir, "floor_app.py"), "w") as f:
        f.write(FLOOR_APP)
    per_worker = "greenlets" if args.worker_class == "gevent" else f"{args.threads} threads"
    print(f"clients {threads * args.processes}, gunicorn {args.workers} workers x {per_worker}")
    rounds, finished = [], []
    import redis

    from service.identity.apps import Apps

    # The app whose players play the player-token row (created before any server starts).
    _, app_key = Apps(redis.Redis.from_url(url)).create("bench", matches=100_000, rate=100_000)
    try:
        for r in range(args.rounds):
            # Each round starts both servers afresh: how the kernel spreads the connections over
            # the workers changes from start to start, and moves the ratio more than anything.
            result = one_round(args, threads, env, redis_proc, floor_dir, seed=1 + 100 * r, app_key=app_key)
            rounds.append(result)
            finished += result["finished"]
            print(f"round {r + 1}:")
            cpu, fcpu, moves, fn = result["cpu"], result["fcpu"], result["moves"], result["fn"]
            rate, frate = result["rate"], result["frate"]
            wall, fwall = result["wall"], result["fwall"]
            print(f"  service: {moves} moves in {wall:.1f}s = {rate:.0f} moves/s; {latency(result['lat'])}")
            print(f"  floor:   {fn} requests in {fwall:.1f}s = {frate:.0f} req/s; {latency(result['flat'])}")
            print(
                f"  server CPU per request: service {1000 * cpu[0] / moves:.2f} ms gunicorn + "
                f"{1000 * cpu[1] / moves:.2f} ms Redis; "
                f"floor {1000 * fcpu[0] / fn:.2f} ms + {1000 * fcpu[1] / fn:.2f} ms"
            )
            print(f"  ratio {rate / frate:.2f}")
            for name, var in result["variants"].items():
                print(
                    f"  {name}: {var['moves']} moves = {var['rate']:.0f} moves/s; {latency(var['lat'])}; "
                    f"ratio {var['rate'] / frate:.2f}, {var['rate'] / rate - 1:+.1%} against plain;"
                    f" CPU a move {cost(result, var):+.1%}"
                )
            if "players" not in result:
                continue
            pl = result["players"]
            print(
                f"  player tokens: {pl['moves']} moves = {pl['rate']:.0f} moves/s; {latency(pl['lat'])}; "
                f"CPU {1000 * pl['cpu'][0] / pl['moves']:.2f} ms gunicorn + "
                f"{1000 * pl['cpu'][1] / pl['moves']:.2f} ms Redis a move: "
                f"{cost(result, pl):+.1%} against seat tokens"
            )
        if args.wrk:
            print(wrk_floor(args, env, floor_dir))
        if args.paced > 0 or args.offer:
            offered = args.offer or args.paced * statistics.median(x["rate"] for x in rounds)
            gap = args.clients / offered
            paced = service_phase(
                args, threads, env, redis_proc.pid, seed=1 + 100 * args.rounds, mean_gap=gap
            )
            finished += paced["finished"]
            print(
                f"paced: {args.clients} clients offering {offered:.0f} moves/s in all "
                f"({'as asked' if args.offer else f'{args.paced:.0%} of the median rate above'}): "
                f"{paced['rate']:.0f} moves/s; "
                f"{latency(paced['lat'])}"
            )
        import redis

        from service.infra.roundtrips import RoundTrips
        from service.matches.store import Store

        store = Store(RoundTrips(redis.Redis.from_url(url)))
        # Random play makes some matches very long: report the hands of the largest.
        sizes = sorted((store.memory_usage(m), store.load(m).record["state"]["round"]) for m in finished)
    finally:
        redis_proc.terminate()

    if not rounds:
        return
    ratios = [x["rate"] / x["frate"] for x in rounds]
    p99 = [pct(x["lat"], 0.99) for x in rounds]
    fp99 = [pct(x["flat"], 0.99) for x in rounds]
    print(
        f"median of {len(rounds)} rounds: ratio moves/s to floor {statistics.median(ratios):.2f} "
        f"(range {min(ratios):.2f}-{max(ratios):.2f}; target >= 0.60); service p99 "
        f"{statistics.median(p99):.1f} ms (target <= 40 ms), floor p99 {statistics.median(fp99):.1f} ms"
    )
    for name in args.variants:
        vs = [x["variants"][name]["rate"] / x["rate"] - 1 for x in rounds]
        vr = [x["variants"][name]["rate"] / x["frate"] for x in rounds]
        vc = [cost(x, x["variants"][name]) for x in rounds]
        print(
            f"{name}: ratio to floor {statistics.median(vr):.2f}; moves/s {statistics.median(vs):+.1%}"
            f" against plain (median; range {min(vs):+.1%} to {max(vs):+.1%}); server CPU a move"
            f" {statistics.median(vc):+.1%} (range {min(vc):+.1%} to {max(vc):+.1%})"
        )
    if not args.variants:
        costs = [cost(x, x["players"]) for x in rounds]
        print(
            f"player tokens: server CPU a move {statistics.median(costs):+.1%} against seat tokens (median;"
            f" range {min(costs):+.1%} to {max(costs):+.1%}; target at most +5%)"
        )
    if sizes:
        mem = [m for m, _ in sizes]
        print(
            f"Redis memory per finished match: median {statistics.median(mem) / 1024:.1f} KB, "
            f"max {sizes[-1][0] / 1024:.1f} KB ({sizes[-1][1]} hands) over {len(mem)} matches "
            "(target < 64 KB)"
        )
    else:
        print("no match finished within --seconds; raise it to measure memory per finished match")


def cost(seats: dict, players: dict) -> float:
    """How much more server CPU (gunicorn and Redis) a move took with player tokens."""
    per_move = [(r["cpu"][0] + r["cpu"][1]) / r["moves"] for r in (seats, players)]
    return per_move[1] / per_move[0] - 1


def finished_matches(env: dict, ids: list[str]) -> tuple[list[str], int]:
    """The matches among `ids` that ended, and the largest record's size in bytes."""
    import redis

    from service.infra.roundtrips import RoundTrips
    from service.matches.store import Store

    store = Store(RoundTrips(redis.Redis.from_url(env["REDIS_URL"])))
    records = {m: store.load(m).record for m in ids}
    finished = [m for m, record in records.items() if record["state"]["status"] == "finished"]
    return finished, max((len(json.dumps(record)) for record in records.values()), default=2000)


# The service's variants (--variants): its plain setup (quiet text logs, no tracing), JSON logs,
# a line per request, and tracing into an in-memory exporter (bench/traced_wsgi.py).
VARIANTS = {
    "plain": ("service.wsgi:app", {}),
    "json": ("service.wsgi:app", {"CARDTABLE_LOG_FORMAT": "json"}),
    "json-debug": ("service.wsgi:app", {"CARDTABLE_LOG_FORMAT": "json", "CARDTABLE_LOG_LEVEL": "DEBUG"}),
    "text-debug": ("service.wsgi:app", {"CARDTABLE_LOG_LEVEL": "DEBUG"}),
    "traced": ("bench.traced_wsgi:app", {}),
    # One trace in ten recorded, as the SDK's standard sampler variables set it.
    "traced-10": (
        "bench.traced_wsgi:app",
        {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"},
    ),
}


def service_phase(
    args,
    threads: int,
    env: dict,
    redis_pid: int,
    seed: int,
    mean_gap: float = 0.0,
    app_key: str | None = None,
    variant: str = "plain",
) -> dict:
    """The service on a fresh gunicorn, played by the clients (back to back, or `mean_gap` apart
    on average; with `app_key`, by that app's players with player tokens), with the CPU its
    workers and Redis spent meanwhile. Its logs (DEBUG variants: a line per request) go to
    /dev/null, as a process's output to a log collector costs about that."""
    port = free_port()
    wsgi, extra = VARIANTS[variant]
    proc = gunicorn(
        wsgi, port, {**env, **extra}, args.workers, args.threads, ROOT, args.worker_class, quiet=True
    )
    try:
        cpu0 = cpu_seconds(proc.pid), cpu_seconds(redis_pid, children=False)
        moves, lat, ids, wall = drive(
            spades_worker,
            lambda i: (port, threads, seed + i, args.matches, args.seconds, mean_gap, app_key),
            args.processes,
        )
        cpu = cpu_seconds(proc.pid) - cpu0[0], cpu_seconds(redis_pid, children=False) - cpu0[1]
        finished, record_size = finished_matches(env, ids)
    finally:
        proc.terminate()
        proc.wait(10)
    return {
        "moves": moves, "wall": wall, "rate": moves / wall, "lat": lat, "cpu": cpu,
        "finished": finished, "record_size": record_size,
    }  # fmt: skip


WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = '{"type":"play","card":"QH"}'
wrk.headers["Content-Type"] = "application/json"
n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/floor/wrk-" .. (n % 50))
end
"""


def wrk_floor(args, env: dict, floor_dir: str) -> str:
    """The floor under wrk, a load generator in C that costs next to nothing: the best p99 the
    bare endpoint reaches with `--clients` connections on this machine."""
    script = os.path.join(floor_dir, "floor.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT)
    port = free_port()
    proc = gunicorn(
        "floor_app:app",
        port,
        dict(env, BLOB_SIZE="2600"),
        args.workers,
        args.threads,
        floor_dir,
        args.worker_class,
    )
    try:
        cmd = ["wrk", "-t2", f"-c{args.clients}", f"-d{int(args.seconds)}s", "--latency", "-s", script]
        out = subprocess.run(
            [*cmd, f"http://127.0.0.1:{port}"], capture_output=True, text=True, check=True
        ).stdout
    finally:
        proc.terminate()
        proc.wait(10)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)
    p99 = re.search(r"99%\s+(\S+)", out).group(1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return f"floor under wrk ({args.clients} connections): {float(rate):.0f} req/s, p99 {p99}" + (
        f", {errors.group(1)} errors" if errors else ""
    )


def one_round(args, threads: int, env: dict, redis_proc, floor_dir: str, seed: int, app_key: str) -> dict:
    """The service (seat tokens, then the same with players' tokens), then the floor with the
    same gunicorn settings and the same clients."""
    result = service_phase(args, threads, env, redis_proc.pid, seed)
    if not args.variants:
        result["players"] = service_phase(args, threads, env, redis_proc.pid, seed + 50, app_key=app_key)
    # The same clients and seeds as the plain service, so the same matches are played.
    result["variants"] = {
        v: service_phase(args, threads, env, redis_proc.pid, seed, variant=v) for v in args.variants
    }

    # --- the floor: one GET + one SET of a blob the size of a match record ---
    fport = free_port()
    fenv = dict(env, BLOB_SIZE=str(result["record_size"]))
    proc = gunicorn("floor_app:app", fport, fenv, args.workers, args.threads, floor_dir, args.worker_class)
    try:
        per_client = max(50, len(result["lat"]) // args.clients)
        fcpu0 = cpu_seconds(proc.pid), cpu_seconds(redis_proc.pid, children=False)
        fn, flat, _, fwall = drive(floor_worker, lambda i: (fport, threads, per_client), args.processes)
        fcpu = cpu_seconds(proc.pid) - fcpu0[0], cpu_seconds(redis_proc.pid, children=False) - fcpu0[1]
    finally:
        proc.terminate()
        proc.wait(10)
    return {**result, "fn": fn, "fwall": fwall, "frate": fn / fwall, "flat": flat, "fcpu": fcpu}


if __name__ == "__main__":
    main()

"""Leaderboard pages against a bare ZREVRANGE of the same rows, in the same run
(service/ratings/leaderboards.py; docs/performance.md, "Leaderboards").

Starts a private redis-server, puts 100,000 rated players on one board through
`Leaderboards.record` (one call each, timed), then reads pages: the first page and a deep one
(resumed from the cursor of the entry at position 50,000), of 50 and of 100 players, and the
deep one again from a cursor whose entry has since left the board (the page then finds its place
by bisection among the equal ratings). Every page read alternates with the baselines on the same
connection: a bare `ZREVRANGE start stop WITHSCORES` of the same rows, and that ZREVRANGE with
an HMGET of the rows' display fields in one pipelined round trip. Prints p50/p99 of each
(microseconds) and the page's ratio to each.

Then the same board through HTTP: `GET /v1/leaderboards/{game}` (the first and the deep page of
50) on gunicorn as `cardtable serve` runs it, read by 8 clients at once, against `GET /healthz`
on the same server in the same run.

    python bench/leaderboard.py [--players 100000] [--reads 3000]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import redis  # noqa: E402

from bench.api import gunicorn  # noqa: E402
from service.identity.apps import Apps  # noqa: E402
from service.infra.embedded import free_port, start_redis  # noqa: E402
from service.ratings.leaderboards import Leaderboards, board_keys, encode_cursor  # noqa: E402

GAME = "spades"
APP = "bench-app"  # the board's app: main() makes a real app and uses its id, for the HTTP part
HTTP_CLIENTS = 8


def quantiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 in microseconds."""
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49] * 1e6, cuts[98] * 1e6


def fill(boards: Leaderboards, players: int, rng: random.Random) -> list[float]:
    """Record every player once: ordinals as openskill's spread them (mostly -10 to 40, two
    decimals, so many players share a rating). Returns each call's time."""
    times = []
    for i in range(players):
        player = f"{rng.getrandbits(64):016x}"
        rating = round(rng.gauss(12.0, 9.0), 2)
        display = {"player": f"p_{player[:12]}", "name": f"Player {i}"}
        start = time.perf_counter()
        boards.record(APP, GAME, player, display, rating)
        times.append(time.perf_counter() - start)
    return times


def cursor_at(client: redis.Redis, position: int) -> tuple[str, str]:
    """The cursor a reader holds after the page ending at `position` (0-based), and one naming
    the same rating with an id that is not on the board (its entry has moved or left)."""
    ratings, _ = board_keys(APP, GAME)
    ((member, score),) = client.zrevrange(ratings, position, position, withscores=True)
    # The id less its last character sorts just below it: the page starts where it stood.
    return encode_cursor(score, member.decode()), encode_cursor(score, member.decode()[:-1])


def measure(boards: Leaderboards, limit: int, cursor: str | None, start: int, reads: int) -> list:
    """p50/p99 of `reads` page reads, each followed by the two baselines' reads of the same
    rows: a bare ZREVRANGE, and ZREVRANGE + HMGET of the rows' display fields in one round trip
    (the page's data without its script and decoding)."""
    client, (ratings, players) = boards.client, board_keys(APP, GAME)
    times: list[list[float]] = [[], [], []]
    for _ in range(reads):
        t0 = time.perf_counter()
        page = boards.page(APP, GAME, limit, cursor)
        t1 = time.perf_counter()
        rows = client.zrevrange(ratings, start, start + limit - 1, withscores=True)
        t2 = time.perf_counter()
        with client.pipeline(transaction=False) as pipe:
            pipe.zrevrange(ratings, start, start + limit - 1, withscores=True)
            pipe.hmget(players, [m for m, _ in rows])  # the ids read just before: same rows
            pipe.execute()
        t3 = time.perf_counter()
        for i, took in enumerate((t1 - t0, t2 - t1, t3 - t2)):
            times[i].append(took)
    assert len(page["players"]) == limit and page["players"][0]["rank"] == start + 1, page["players"][0]
    return [quantiles(t) for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=100_000, help="players on the board")
    ap.add_argument("--reads", type=int, default=3000, help="page reads per case")
    args = ap.parse_args()
    global APP
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-bench-"), persist=False)
    try:
        client = redis.Redis.from_url(url)
        app, key = Apps(client).create("bench", rate=10**9)
        APP = app.id
        boards = Leaderboards(client)
        started = time.perf_counter()
        r50, r99 = quantiles(fill(boards, args.players, random.Random(1)))
        took = time.perf_counter() - started
        print(f"record: {args.players:,} players in {took:.1f} s, p50 {r50:.0f} us p99 {r99:.0f} us")
        keys = board_keys(APP, GAME)
        memory = sum(client.memory_usage(k, samples=0) or 0 for k in keys)  # every element counted
        print(f"board: {memory / 2**20:.1f} MiB, {memory / args.players:.0f} bytes a player")
        deep = args.players // 2
        at, gone = cursor_at(client, deep - 1)
        cases = [(f"first page, {n}", n, None, 0) for n in (50, 100)]
        cases += [(f"deep page (rank {deep + 1:,}), {n}", n, at, deep) for n in (50, 100)]
        cases += [(f"deep, cursor's entry gone, {n}", n, gone, deep) for n in (50, 100)]
        for name, limit, cursor, start in cases:
            measure(boards, limit, cursor, start, 200)  # warm up
            (p50, p99), (b50, b99), (h50, h99) = measure(boards, limit, cursor, start, args.reads)
            print(
                f"{name:30s} page {p50:4.0f}/{p99:4.0f} us | ZREVRANGE {b50:4.0f}/{b99:4.0f} us, "
                f"page/it {p50 / b50:.2f}/{p99 / b99:.2f} | +HMGET {h50:4.0f}/{h99:4.0f} us, "
                f"page/it {p50 / h50:.2f}/{p99 / h99:.2f}"
            )
        http_phase(url, key, at, args.reads)
    finally:
        proc.terminate()
        proc.wait(10)


def http_phase(url: str, key: str, cursor: str, reads: int) -> None:
    """The board's pages over HTTP, 8 clients at once, against /healthz on the same server."""
    port = free_port()
    # The rate limit stays on, above what the clients reach (as bench/api.py).
    env = dict(
        os.environ,
        REDIS_URL=url,
        CARDTABLE_LOG_LEVEL="WARNING",
        PYTHONPATH=ROOT,
        CARDTABLE_RATE_LIMIT="1000000",
    )
    server = gunicorn("service.wsgi:app", port, env, workers=2, threads=8, cwd=ROOT)  # as bench/api.py
    try:
        paths = {
            "healthz": "/healthz",
            "first page, 50": f"/v1/leaderboards/{GAME}?limit=50",
            "deep page, 50": f"/v1/leaderboards/{GAME}?limit=50&cursor={cursor}",
        }
        for name, path in paths.items():
            times = _http_reads(port, path, key, reads)
            p50, p99 = quantiles(times)
            print(f"HTTP {name:16s} {HTTP_CLIENTS} clients: p50 {p50 / 1000:.2f} ms, p99 {p99 / 1000:.2f} ms")
    finally:
        server.terminate()
        server.wait(10)


def _http_reads(port: int, path: str, key: str, reads: int) -> list[float]:
    times: list[float] = []

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(reads // HTTP_CLIENTS):
            start = time.perf_counter()
            conn.request("GET", path, headers={"Authorization": f"Bearer {key}"})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200, resp.status
            times.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client) for _ in range(HTTP_CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


if __name__ == "__main__":
    main()

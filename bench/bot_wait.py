"""How long a person waits for the pro bots at their table while N tables play at once.

Each table is one person against pro bots: Spades with three pros, or small Zhol with one. The
person thinks `--think` seconds (uniform between 0.5 and 1.5 times it), then plays a random
complete legal action (never `resign`) over HTTP, and waits for their next turn with the
events long-poll (`GET …/events?wait=`) and their view. A wait is timed from the answer to the
person's move to the view that gives them the turn again, and divided by the bot moves in
between (one version each): the wait per bot move. A move after which the person is to move
again (a trick won, Zhol's draw before its discard) makes no wait. A finished match is replaced
by a new one; between rounds the person starts the next (the first wait of a round is timed
from that answer).

For each N of `--tables` (1, 16, 32, 64 by default) the tables play for `--seconds`, then the
script prints the waits measured, the bot moves they covered, the p50, p95 and p99 wait per bot
move, and each p95 against the first N's (one table's, by default).

Against `--url` (any running service), or by default against a `cardtable serve` this script
starts with default options and an embedded Redis in a fresh data directory. Every table of
this script comes from one address, where a crowd's come from many: that serve is started with
`CARDTABLE_ADDRESS_RATE_LIMIT` and `CARDTABLE_ANONYMOUS_LIVE_MATCHES` high enough (its only
settings changed); a service at `--url` must allow as much, or the answers 429 are counted and retried.

    python bench/bot_wait.py [--tables 1,16,32,64] [--seconds 40] [--think 1] [--game spades]

The script's own threads use CPU on the same machine as the service when it starts it: the
figures hold for this client beside that server. Note the load average with them.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import orjson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.stats import percentile  # noqa: E402
from engines.legal import complete  # noqa: E402
from service.infra.embedded import free_port  # noqa: E402

TABLES = {
    "spades": {"game": "spades", "seats": [{"kind": "human"}, *[{"kind": "bot", "level": "pro"}] * 3]},
    "zhol": {
        "game": "zhol",
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "pro"}],
        "options": {"variant": "small"},
    },
}
LONG_POLL = 20  # seconds a wait for the bots asks the server to hold the events long-poll


class Client:
    """One keep-alive HTTP connection, JSON in and out; 429 is waited out and counted."""

    def __init__(self, base: str, stats: Stats):
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.stats = stats
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=LONG_POLL + 30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = orjson.dumps(body) if body is not None else None
        while True:
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()  # reconnect on the next request
                self.stats.count("connection errors")
                time.sleep(0.1)
                continue
            if resp.status == 429:
                self.stats.count("429 answers")
                time.sleep(0.05)
                continue
            return resp.status, orjson.loads(raw) if raw else None


@dataclass
class Stats:
    """What every table of one N measured."""

    waits: list[float] = field(default_factory=list)  # seconds per bot move, one per wait
    bot_moves: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, seconds: float, moves: int) -> None:
        with self.lock:
            self.waits.append(seconds / moves)
            self.bot_moves += moves

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1


def play_table(base: str, game: str, think: float, stop: threading.Event, stats: Stats, seed: int) -> None:
    """One person at one table (a new one when it ends) until `stop`."""
    rng = random.Random(seed)
    client = Client(base, stats)
    while not stop.is_set():
        status, created = client.call("POST", "/v1/matches", TABLES[game])
        if status != 201:
            stats.count(f"create answered {status}")
            time.sleep(1)
            continue
        match_id, token = created["id"], created["seats"][0]["token"]
        play_match(client, match_id, token, think, stop, stats, rng)


def play_match(client: Client, match_id: str, token: str, think: float, stop: threading.Event, stats: Stats,
               rng: random.Random) -> None:  # fmt: skip
    """The person's turns in one match until it ends or `stop`."""
    path = f"/v1/matches/{match_id}"
    _, view = client.call("GET", path, token=token)
    after = 0
    answered: tuple[float, int] | None = None  # when the person's last move was answered, at what version
    while not stop.is_set():
        me = view["you"]
        if view["status"] == "finished":
            return
        if view["status"] == "round_over" or (view["status"] == "active" and view["turn"]["seat"] == me):
            if answered is not None and view["version"] > answered[1]:
                stats.wait(time.monotonic() - answered[0], view["version"] - answered[1])
            answered = None
            if view["status"] == "round_over":
                status, view = client.call("POST", f"{path}/rounds", token=token)
            else:
                if stop.wait(think * rng.uniform(0.5, 1.5)):
                    return
                actions = [a for a in complete(view["legal_actions"]) if a["type"] != "resign"]
                status, view = client.call("POST", f"{path}/actions", rng.choice(actions), token=token)
            if status != 200:
                stats.count(f"move answered {status}")
                _, view = client.call("GET", path, token=token)
                continue
            answered = (time.monotonic(), view["version"])
            continue
        # The bots' turn: wait for a change, then look again.
        _, events = client.call("GET", f"{path}/events?after={after}&wait={LONG_POLL}", token=token)
        if events["events"]:
            after = events["events"][-1]["seq"]
        if events.get("next_after") is None:
            _, view = client.call("GET", path, token=token)


def run(base: str, game: str, tables: int, seconds: float, think: float, seed: int) -> Stats:
    stats = Stats()
    stop = threading.Event()
    threads = [
        threading.Thread(target=play_table, args=(base, game, think, stop, stats, seed + t), daemon=True)
        for t in range(tables)
    ]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(LONG_POLL + 40)
    return stats


def start_serve(data_dir: str) -> tuple[subprocess.Popen, str]:
    """`cardtable serve` with default options on a free port, an embedded Redis in `data_dir`."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    # One address plays every table: its rate and its live matches (tables left mid-match by the
    # N before count until they expire) are a crowd's, not one caller's.
    env.update(
        PYTHONPATH=ROOT,
        CARDTABLE_ADDRESS_RATE_LIMIT="100000",
        CARDTABLE_ANONYMOUS_LIVE_MATCHES="100000",
        CARDTABLE_LOG_LEVEL="WARNING",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", data_dir],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, "cardtable serve exited"
        assert time.monotonic() < deadline, "cardtable serve did not become ready"
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return proc, base
        except OSError:
            pass
        time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running service (default: start `cardtable serve` here)")
    ap.add_argument("--game", choices=sorted(TABLES), default="spades")
    ap.add_argument("--tables", default="1,16,32,64", help="the Ns: tables at once, one run each")
    ap.add_argument("--seconds", type=float, default=40, help="how long each N plays")
    ap.add_argument("--think", type=float, default=1.0, help="a person's mean thinking time, seconds")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    proc = None
    base = args.url
    if base is None:
        proc, base = start_serve(tempfile.mkdtemp(prefix="bot-wait-"))
    try:
        bots = len(TABLES[args.game]["seats"]) - 1
        print(f"{args.game}: one person against {bots} pro bot(s) a table, thinking {args.think} s")
        head = ("tables", "waits", "bot moves", "p50 ms", "p95 ms", "p99 ms")
        print(" ".join(f"{h:>{w}}" for h, w in zip(head, (6, 6, 9, 8, 8, 8), strict=True)), " p95/first")
        first: float | None = None
        for n in (int(x) for x in args.tables.split(",")):
            load = os.getloadavg()[0]
            stats = run(base, args.game, n, args.seconds, args.think, args.seed * 1000 + n)
            if not stats.waits:
                print(f"{n:>6} {0:>6}  no wait measured {stats.counts}")
                continue
            p50, p95, p99 = (percentile(stats.waits, q) * 1000 for q in (0.5, 0.95, 0.99))
            first = first or p95
            mean = statistics.mean(stats.waits) * 1000
            print(
                f"{n:>6} {len(stats.waits):>6} {stats.bot_moves:>9} {p50:>8.0f} {p95:>8.0f} {p99:>8.0f}"
                f"  {p95 / first:.2f}×  (mean {mean:.0f} ms; load average before {load:.1f})"
                + (f" {stats.counts}" if stats.counts else "")
            )
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()

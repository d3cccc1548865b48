"""Waiting long-polls and SSE streams against a real `cardtable serve` (gunicorn's gevent worker)
and a private real Redis: they hold no thread and no Redis connection each, a client that hangs
up frees its waiter, and one subscription per process wakes them all (service/infra/waiters.py)."""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest
import redis

from service.infra.embedded import free_port, start_redis
from service.infra.roundtrips import HOT_CONNECTIONS, POOL_CONNECTIONS
from service.infra.waiters import Waiter
from tests.serve_helpers import wait_ready
from tests.test_serve import call

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUMANS4 = [{"kind": "human"}] * 4
FAR_AHEAD = 10**6  # an event seq no match reaches: a request for events after it waits


@pytest.fixture(scope="module")
def private_redis():
    """A Redis of this module's own, so its client list holds only this module's servers."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-test-waiters-"), persist=False)
    yield url
    proc.terminate()
    proc.wait(10)


class Served:
    """`cardtable serve` against a Redis (so it runs gunicorn only), as docker-compose runs it."""

    def __init__(self, redis_url: str, *options: str):
        self.port = free_port()
        env = dict(os.environ, REDIS_URL=redis_url, CARDTABLE_RATE_LIMIT="0", CARDTABLE_LOG_LEVEL="WARNING")
        env["PYTHONPATH"] = ROOT
        args = [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port), *options]
        self.proc = subprocess.Popen(args, env=env, cwd=ROOT, start_new_session=True)
        self.redis = redis.Redis.from_url(redis_url)
        wait_ready(self.proc, f"http://127.0.0.1:{self.port}", 60)

    def call(self, method: str, path: str, body=None, token=None):
        return call(f"http://127.0.0.1:{self.port}", method, path, body, token)

    def open_waiter(self, path: str, token: str | None = None) -> socket.socket:
        """Send a GET and leave its answer unread: a long-poll or stream waiting server-side."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        authorization = f"Authorization: Bearer {token}\r\n" if token else ""
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n{authorization}\r\n".encode())
        return s

    def open_waiters(self, player: bool = False) -> dict[str, int]:
        """Open waiters by kind: of matches, or with `player` of players' feeds."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=40) as resp:
            text = resp.read().decode()
        found = {}
        for line in text.splitlines():
            if line.startswith("cardtable_open_waiters{"):
                kind = line.split('"')[1]
                if kind.startswith("player_") == player:
                    found[kind] = int(line.split()[-1])
        return found

    def until_waiters(self, predicate, timeout: float = 60, player: bool = False) -> dict[str, int]:
        deadline = time.monotonic() + timeout
        while not predicate(counts := self.open_waiters(player)):
            assert time.monotonic() < deadline, f"open waiters stayed at {counts}"
            time.sleep(0.2)
        return counts

    def spades(self) -> tuple[str, list[str]]:
        status, created = self.call("POST", "/v1/matches", {"game": "spades", "seats": HUMANS4})
        assert status == 201, created
        return created["id"], [s["token"] for s in created["seats"]]

    def bid(self, match_id: str, tokens: list[str]) -> dict:
        """The seat to move bids 3: a move, answered with its view."""
        _, view = self.call("GET", f"/v1/matches/{match_id}")
        seat = view["turn"]["seat"]
        status, view = self.call(
            "POST", f"/v1/matches/{match_id}/actions", {"type": "bid", "tricks": 3}, tokens[seat]
        )
        assert status == 200, view
        return view

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)


@pytest.fixture
def served(private_redis, request):
    server = Served(private_redis, *getattr(request, "param", ()))
    yield server
    server.stop()


def last_seq(served: Served, match_id: str) -> int:
    status, body = served.call("GET", f"/v1/matches/{match_id}/events")
    assert status == 200
    return body["events"][-1]["seq"]


def waiter_paths(match_id: str, n: int) -> list[str]:
    """Half long-polls for 30 s, half SSE streams, all after the last event."""
    base = f"/v1/matches/{match_id}"
    return [
        f"{base}/events?after={FAR_AHEAD}&wait=30" if i % 2 else f"{base}/stream?after={FAR_AHEAD}"
        for i in range(n)
    ]


def close_all(sockets: list[socket.socket]) -> None:
    for s in sockets:
        s.close()


def test_500_abandoned_long_polls_and_streams_leave_healthz_and_moves_answering(served):
    waited_on, _ = served.spades()
    match_id, tokens = served.spades()
    paths = waiter_paths(waited_on, 500)

    # Opened and dropped at once, before the server even reads them.
    close_all([served.open_waiter(p) for p in paths])
    assert served.call("GET", "/healthz") == (200, {"status": "ok"})
    assert served.bid(match_id, tokens)["version"] == 1

    # Opened and held: all 500 wait at once (16 threads held 16 before), and meanwhile the
    # probe, a view and a move on another match are answered.
    held = [served.open_waiter(p) for p in paths]
    try:
        counts = served.until_waiters(lambda c: sum(c.values()) == 500)
        assert counts == {"long_poll": 250, "sse": 250}
        assert served.call("GET", "/healthz") == (200, {"status": "ok"})
        assert served.call("GET", f"/v1/matches/{match_id}")[0] == 200
        assert served.bid(match_id, tokens)["version"] == 2
    finally:
        close_all(held)  # then abandoned: every waiter is freed
    # Their long-polls wait 30 s and their streams write a keep-alive only every 15 s: only
    # noticing the hang-ups frees them all within this (generous) bound.
    served.until_waiters(lambda c: c == {"long_poll": 0, "sse": 0}, timeout=25)
    assert served.call("GET", "/healthz") == (200, {"status": "ok"})
    assert served.bid(match_id, tokens)["version"] == 3


def read_http_answer(s: socket.socket) -> tuple[int, dict]:
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536) or b"!"  # EOF before the answer fails the parse below
    head, _, body = buf.partition(b"\r\n\r\n")
    length = int(
        next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1]
    )
    while len(body) < length:
        chunk = s.recv(65536)
        assert chunk, "connection closed mid-answer"
        body += chunk
    return int(head.split()[1]), json.loads(body)


def read_sse_until(s: socket.socket, needle: bytes) -> bytes:
    buf = b""
    while needle not in buf:
        chunk = s.recv(65536)
        assert chunk, f"stream ended before {needle!r}: {buf[-300:]!r}"
        buf += chunk
    return buf


def subscribed_connections(client: redis.Redis) -> int:
    return sum(1 for c in client.client_list() if int(c.get("sub", 0)) > 0)


@pytest.mark.parametrize("served", [("--workers", "1")], indirect=True)
def test_a_move_reaches_many_waiters_of_a_process_over_one_subscription(served):
    match_id, tokens = served.spades()
    after = last_seq(served, match_id)
    first = served.open_waiter(f"/v1/matches/{match_id}/events?after={after}&wait=30")
    polls = [served.open_waiter(f"/v1/matches/{match_id}/events?after={after}&wait=30") for _ in range(199)]
    streams = [served.open_waiter(f"/v1/matches/{match_id}/stream?after={after}") for _ in range(100)]
    try:
        served.until_waiters(lambda c: c == {"long_poll": 200, "sse": 100})
        # 300 waiters, and fewer connections: the process's pools are bounded (requests in
        # flight wait for a connection), plus its subscription and this test's own client.
        assert len(served.redis.client_list()) <= HOT_CONNECTIONS + POOL_CONNECTIONS + 2
        assert subscribed_connections(served.redis) == 1

        view = served.bid(match_id, tokens)
        for s in [first, *polls]:
            status, body = read_http_answer(s)
            assert status == 200 and [e["type"] for e in body["events"]] == ["bid"]
            assert body["events"][0]["seq"] == after + 1 and body["version"] == view["version"]
        for s in streams:
            assert f"id: {after + 1}\nevent: bid\n".encode() in read_sse_until(s, b"event: bid")
    finally:
        close_all([first, *polls, *streams])
    served.until_waiters(lambda c: c == {"long_poll": 0, "sse": 0})


@pytest.mark.parametrize("served", [("--workers", "1")], indirect=True)
def test_a_lost_subscription_is_renewed_and_still_wakes_its_waiters(served):
    match_id, tokens = served.spades()
    after = last_seq(served, match_id)
    poll = served.open_waiter(f"/v1/matches/{match_id}/events?after={after}&wait=30")
    try:
        served.until_waiters(lambda c: c["long_poll"] == 1)
        # Redis drops the subscription (restart, failover, CLIENT KILL); the process subscribes
        # again, and the waiter, woken to read what it may have missed, keeps waiting.
        assert served.redis.client_kill_filter(_type="pubsub") == 1
        deadline = time.monotonic() + 30
        while subscribed_connections(served.redis) != 1:
            assert time.monotonic() < deadline, "the subscription was not renewed"
            time.sleep(0.1)
        served.bid(match_id, tokens)
        status, body = read_http_answer(poll)
        assert status == 200 and [e["type"] for e in body["events"]] == ["bid"]
    finally:
        poll.close()


@pytest.mark.parametrize("served", [("--workers", "1")], indirect=True)
def test_players_feeds_wait_on_the_same_subscription_and_each_wakes_on_its_own(served):
    """`/v1/me/events` and `/v1/me/stream` are waiters like a match's: on the process's one
    subscription, counted by kind, each woken by a publish on its own player's feed only."""
    from service.identity.apps import Apps
    from service.notify.feeds import Feeds

    _, key = Apps(served.redis).create("feeds")
    tokens = []
    for i in range(40):
        status, body = served.call("PUT", f"/v1/players/p{i}", {"name": f"P{i}"}, key)
        assert status == 200, body
        tokens.append(body["token"])
    match_id, _ = served.spades()
    match_poll = served.open_waiter(f"/v1/matches/{match_id}/events?after={FAR_AHEAD}&wait=30")
    polls = [served.open_waiter("/v1/me/events?wait=30", t) for t in tokens[:20]]
    streams = [served.open_waiter("/v1/me/stream", t) for t in tokens[20:]]
    try:
        served.until_waiters(lambda c: c == {"player_long_poll": 20, "player_sse": 20}, player=True)
        served.until_waiters(lambda c: c["long_poll"] == 1)
        assert subscribed_connections(served.redis) == 1
        feeds = Feeds(served.redis)
        for i, token in enumerate(tokens):
            n = {
                "id": f"m{i}-1-match.started",
                "type": "match.started",
                "timestamp": "2026-12-05T00:00:00.000Z",
            }
            feeds.publish(token[4:20], [{**n, "data": {"match": f"m{i}", "game": "zhol", "players": {}}}])
        for i, s in enumerate(polls):
            status, body = read_http_answer(s)
            assert status == 200 and [e["id"] for e in body["events"]] == [f"m{i}-1-match.started"]
        for i, s in enumerate(streams, start=20):
            text = read_sse_until(s, b"event: match.started")
            assert f'id: 1\nevent: match.started\ndata: {{"seq":1,"id":"m{i}-1-'.encode() in text
            assert text.count(b"event: match.started") == 1
    finally:
        close_all([match_poll, *polls, *streams])
    served.until_waiters(lambda c: c == {"player_long_poll": 0, "player_sse": 0}, player=True)


def test_with_threads_a_waiter_notices_its_client_hang_up():
    # `--worker-class gthread` has no event loop to watch the socket: the waiter looks at it
    # between slices of its wait. Woken by the hang-up, not by the end of its 30 s.
    ours, theirs = socket.socketpair()
    waiter = Waiter("ct:{m:0}:chan", "long_poll", ours)
    hang_up = threading.Timer(0.3, theirs.close)
    hang_up.start()
    try:
        assert waiter.wait(30) is True and waiter.gone
    finally:
        hang_up.cancel()
        ours.close()


def test_a_waiter_whose_client_stays_is_not_taken_for_gone():
    ours, theirs = socket.socketpair()
    try:
        waiter = Waiter("ct:{m:0}:chan", "long_poll", ours)
        assert waiter.wait(1.5) is False and not waiter.gone
    finally:
        ours.close()
        theirs.close()


def test_serve_raises_its_open_file_limit_to_the_hard_limit():
    # Every waiting client is an open socket; a soft limit of 256 would cap them near that.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    code = (
        "import resource; from service.cli import raise_open_file_limit; raise_open_file_limit(); "
        "print(*resource.getrlimit(resource.RLIMIT_NOFILE))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
    ).stdout.split()
    expected = hard if hard != resource.RLIM_INFINITY else 1 << 20
    assert [int(x) for x in out] == [expected, hard]


def test_a_long_polls_wait_skips_its_second_read_only_while_its_channel_stayed_quiet(private_redis):
    """A match's long-poll reads its events, then registers its waiter: it need not read again
    when nothing can have been published between the two (service/matches/following.py)."""
    from service.infra.waiters import Hub

    client = redis.Redis.from_url(private_redis)
    hub, name = Hub(client), "ct:{m:quiet-test}:chan"

    def until(predicate) -> None:
        deadline = time.monotonic() + 30
        while not predicate():
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.01)

    assert hub.mark(name) is None  # not subscribed before the read: the wait reads again
    with hub.watch(name, "long_poll"):
        mark = hub.mark(name)
        with hub.watch(name, "long_poll"):
            assert mark is not None and hub.quiet_since(name, mark)
        # A commit published on the channel after the mark: the next waiter reads again.
        client.publish(name, "7")
        until(lambda: not hub.quiet_since(name, mark))
        # The subscription's connection lost (notifications may be lost with it): reads again.
        mark = hub.mark(name)
        assert hub.quiet_since(name, mark)
        client.client_kill_filter(_type="pubsub")
        until(lambda: not hub.quiet_since(name, mark))
        until(lambda: hub.mark(name) is not None)  # subscribed anew
    assert hub.quiet_since(name, hub.mark(name))  # lingering after its last waiter left

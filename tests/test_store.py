"""The store's hot path talks to its own connection per thread: it must survive what Redis does
to connections and scripts, and never mix up two threads' replies."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import redis

from service.config import Config
from service.http.app import create_app
from service.infra.cluster import pack_commands
from service.infra.embedded import start_redis
from service.infra.roundtrips import RoundTrips
from service.matches.store import Store
from tests.api_helpers import Api, auth
from tests.conftest import UNLIMITED_MATCHES

HUMANS4 = [{"kind": "human"} for _ in range(4)]


def _first_bid(c, match_id, tokens):
    view = c.get(f"/v1/matches/{match_id}").get_json()
    seat = view["turn"]["seat"]
    resp = c.post(
        f"/v1/matches/{match_id}/actions", json={"type": "bid", "tricks": 3}, headers=auth(tokens[seat])
    )
    return resp, view["version"]


def test_a_move_commits_after_redis_forgot_its_scripts(client, redis_url):
    api = Api(client)
    created = api.create("spades", HUMANS4, seed=11)
    tokens = [s["token"] for s in created["seats"]]
    redis.Redis.from_url(redis_url).script_flush()  # as after a Redis restart
    resp, before = _first_bid(client, created["id"], tokens)
    assert resp.status_code == 200, resp.get_json()
    assert api.view(created["id"])["version"] == before + 1


def test_a_killed_connection_is_replaced_for_reads_and_writes(redis_url):
    app = create_app(Config(REDIS_URL=redis_url, RATE_LIMIT=1000, **UNLIMITED_MATCHES))
    c = app.test_client()
    created = Api(c).create("spades", HUMANS4, seed=12)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    store: Store = app.extensions["cardtable"].store
    admin = redis.Redis.from_url(redis_url)
    for _ in range(2):
        # Redis drops the store's connection (timeout, restart, CLIENT KILL): the next
        # request still gets its answer, through the rate count and load on a new one.
        admin.client_kill_filter(_id=_client_id(store))
        view = c.get(f"/v1/matches/{match_id}", headers=auth(tokens[0]))
        assert view.status_code == 200, view.get_json()
        resp, before = _first_bid(c, match_id, tokens)
        assert resp.status_code == 200, resp.get_json()
        assert resp.get_json()["version"] == before + 1


def _client_id(store: Store) -> int:
    # One request at a time: the store's hot path keeps one connection, the one asked here.
    (client_id,) = store.trips.roundtrip([("CLIENT", "ID")], retry=False)
    return client_id


def test_threads_never_read_each_others_replies(app):
    api = Api(app.test_client())
    matches = [api.create("spades", HUMANS4, seed=20 + i)["id"] for i in range(4)]
    store: Store = app.extensions["cardtable"].store
    wrong: list[str] = []

    def reader(match_id):
        for _ in range(200):
            loaded = store.load(match_id)
            if loaded is None or loaded.record["seed"] != 20 + matches.index(match_id):
                wrong.append(match_id)

    threads = [threading.Thread(target=reader, args=(m,)) for m in matches for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_redis_down_is_a_503_the_client_may_retry():
    from service.infra.embedded import free_port

    # Nothing listens on this port: every call that needs Redis fails to connect.
    app = create_app(Config(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", RATE_LIMIT=100))
    c = app.test_client()
    calls = [
        c.get("/v1/matches/0123456789abcdef"),
        c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4}),
        c.post("/v1/matches/0123456789abcdef/actions", json={"type": "bid"}, headers=auth("x")),
    ]
    for resp in calls:
        body = resp.get_json()
        assert resp.status_code == 503, body
        assert body["error"] == "unavailable" and resp.headers["Retry-After"] == "1"
    assert c.get("/healthz").status_code == 200
    assert c.get("/readyz").get_json()["error"] == "not_ready"
    # What needs no Redis keeps answering: the rate limiter does not turn it into a 503.
    assert [g["id"] for g in c.get("/v1/games").get_json()["games"]]
    assert c.get("/openapi.json").get_json()["openapi"] == "3.1.0"
    docs = c.get("/docs")
    assert docs.status_code == 200 and b"swagger" in docs.data.lower()


def test_a_cluster_that_serves_no_slot_is_a_503_and_leaves_the_catalogue_answering(tmp_path):
    """A real redis-server in cluster mode with no slot assigned answers every key command with
    CLUSTERDOWN, as a cluster does while it fails over: the rate count is skipped for what needs
    no store, and what does is a 503 the client may retry."""
    from service.infra.embedded import start_redis
    from tests.cluster_helpers import cluster_port

    cluster = ("--cluster-enabled", "yes", "--cluster-config-file", str(tmp_path / "nodes.conf"))
    # The port's cluster bus (+10000) must be free too.
    proc, url = start_redis(str(tmp_path), port=cluster_port(), persist=False, extra=cluster)
    try:
        with pytest.raises(redis.exceptions.ClusterDownError):
            redis.Redis.from_url(url).incr("x")
        c = create_app(Config(REDIS_URL=url, RATE_LIMIT=100)).test_client()
        assert [g["id"] for g in c.get("/v1/games").get_json()["games"]]
        assert c.get("/openapi.json").status_code == 200
        resp = c.get("/v1/matches/0123456789abcdef")
        assert resp.status_code == 503 and resp.get_json()["error"] == "unavailable", resp.get_json()
        assert resp.headers["Retry-After"] == "1"
    finally:
        proc.kill()
        proc.wait()


class DroppingProxy:
    """A TCP proxy in front of the test Redis that can lose one commit on the wire: either the
    request (Redis never sees it) or the reply (Redis applied it, the service never hears)."""

    def __init__(self, redis_url: str):
        host, port = redis_url.split("//")[1].split("/")[0].split(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.drop: str | None = None  # "request" or "reply": what the next commit loses
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(self.target)
            mute = threading.Event()  # set: this connection's replies are swallowed
            threading.Thread(target=self._up, args=(client, server, mute), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, mute), daemon=True).start()

    def _up(self, client, server, mute):
        while data := client.recv(1 << 20):
            drop, is_commit = self.drop, b"EVALSHA" in data or b"\r\nEVAL\r\n" in data
            if is_commit and drop == "request":
                self.drop = None
                return self._cut(client, server)
            if is_commit and drop == "reply":
                mute.set()
            server.sendall(data)
            if is_commit and drop == "reply":
                self.drop = None
                time.sleep(0.2)  # Redis runs the script meanwhile; its answer goes nowhere
                return self._cut(client, server)

    @staticmethod
    def _down(server, client, mute):
        try:
            while data := server.recv(1 << 20):
                if not mute.is_set():
                    client.sendall(data)
        except OSError:
            pass

    @staticmethod
    def _cut(client, server):
        for s in (client, server):
            s.shutdown(socket.SHUT_RDWR)
            s.close()


@pytest.mark.parametrize("lost", ["request", "reply"])
def test_a_commit_lost_on_the_wire_is_applied_exactly_once(redis_url, lost):
    proxy = DroppingProxy(redis_url)
    app = create_app(Config(REDIS_URL=proxy.url, RATE_LIMIT=1000, **UNLIMITED_MATCHES))
    c = app.test_client()
    created = Api(c).create("spades", HUMANS4, seed=13)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    events_before = len(Api(c).events(match_id)["events"])
    proxy.drop = lost
    resp, before = _first_bid(c, match_id, tokens)
    assert proxy.drop is None, "the proxy saw no commit"
    # Lost request: the service finds the match unchanged and plays the bid again. Lost reply:
    # it finds its own write there. Either way the bid is stored once and answered with 200.
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["version"] == before + 1
    events = Api(c).events(match_id)["events"]
    assert len(events) == events_before + 1 and events[-1]["type"] == "bid"


def test_the_store_itself_resends_a_commit_whose_request_was_lost(redis_url):
    # Bots and clocks commit through the same call and do not retry a "not written": the store
    # must resend it itself, or a bot's job ends as stale and the match waits forever.
    proxy = DroppingProxy(redis_url)
    store = Store(RoundTrips(redis.Redis.from_url(proxy.url)))
    app = create_app(Config(REDIS_URL=proxy.url, RATE_LIMIT=0, **UNLIMITED_MATCHES))
    match_id = Api(app.test_client()).create("spades", HUMANS4, seed=14)["id"]
    loaded = store.load(match_id)
    proxy.drop = "request"
    assert store.commit(match_id, loaded.version, loaded.record, [{"type": "x"}], loaded.event_count, 60)
    assert proxy.drop is None
    assert store.load(match_id).version == loaded.version + 1
    assert store.events(match_id, loaded.event_count)[-1]["type"] == "x"


def test_commands_are_packed_byte_for_byte_as_redis_py_packs_them():
    """The store packs its commands with hiredis in one call; what goes on the wire must be what
    redis-py would have sent, for every kind of argument the store uses."""
    commands = [
        ("HMGET", "ct:{m:0123456789abcdef}:match", "v", "n", "data"),
        ("LRANGE", "ct:{m:0123456789abcdef}:events", 0, -1),
        ("ZADD", "ct:due", 1733212345.123456789, "0123456789abcdef"),
        ("EVALSHA", "a" * 40, 2, "k1", "k2", '{"json": "ž"}'.encode(), -1, 0, 0.5),
        ("HINCRBY", "ct:metrics:{s3}", "requests:matches.Actions", 1),
        ("SET", "k", "žolíky"),
    ]
    wire = b"".join(redis.Connection().pack_commands(commands))
    assert b"".join(pack_commands(commands)) == wire
    assert len(pack_commands(commands)) == 1  # one write


def test_a_full_redis_with_noeviction_is_a_503_not_a_crash(tmp_path):
    """The compose files run Redis with noeviction: at its memory limit it refuses writes (OOM),
    which the client sees as a 503 it may retry, while what needs no write still answers."""
    proc, url = start_redis(
        str(tmp_path), persist=False, extra=("--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
    )
    try:
        client = redis.Redis.from_url(url)
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            for i in range(10_000):
                client.set(f"filler:{i}", "x" * 10_000)
        c = create_app(Config(REDIS_URL=url, RATE_LIMIT=0)).test_client()
        resp = c.post("/v1/matches", json={"game": "spades", "seats": [{"kind": "human"}] * 4})
        assert resp.status_code == 503 and resp.get_json()["error"] == "unavailable"
        assert resp.headers["Retry-After"] == "1"
        assert c.get("/v1/games").status_code == 200
    finally:
        proc.terminate()
        proc.wait(10)

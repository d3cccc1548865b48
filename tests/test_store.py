"""The store's hot path talks to its own connection per thread: it must survive what Redis does
to connections and scripts, and never mix up two threads' replies."""

from __future__ import annotations

import threading

import redis

from service.app import create_app
from service.config import Config
from service.store import Store
from tests.api_helpers import Api, auth

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
    app = create_app(Config(REDIS_URL=redis_url, RATE_LIMIT=1000))
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
    conn = store._connection()
    conn.send_command("CLIENT", "ID")
    return conn.read_response()


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
    from service.embedded import free_port

    # Nothing listens on this port: every call that needs Redis fails to connect.
    app = create_app(Config(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", RATE_LIMIT=100))
    c = app.test_client()
    calls = [
        c.get("/v1/matches/0123456789abcdef"),
        c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4}),
        c.post("/v1/matches/0123456789abcdef/actions", json={"type": "bid"}, headers=auth("x")),
        c.get("/v1/games"),
    ]
    for resp in calls:
        body = resp.get_json()
        assert resp.status_code == 503, body
        assert body["error"] == "unavailable" and resp.headers["Retry-After"] == "1"
    assert c.get("/healthz").status_code == 200
    assert c.get("/readyz").get_json()["error"] == "not_ready"

"""What one caller may take of the service (docs/api.md, "Limits"): live bot-only and waiting
matches per anonymous address, joins and versions per match, one hint a turn and a budget of
hints per process, pages of events, the metrics token and /metrics' rate limit, and the queue
bot-only matches wait on."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from service.config import Config
from service.http.app import create_app
from service.matches import hints
from tests.api_helpers import Api, auth

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]
BOTS4 = [{"kind": "bot", "level": "easy"}] * 4
WAITING = [HUMANS4[0], {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
OTHER_ADDRESS = {"REMOTE_ADDR": "127.0.0.3"}


def limited_api(redis_url: str, db: int, **config) -> Api:
    """A client of an app with these limits, on its own Redis db (its own counts)."""
    url = redis_url.rsplit("/", 1)[0] + f"/{db}"
    redis.Redis.from_url(url).flushdb()
    return Api(create_app(Config(REDIS_URL=url, RATE_LIMIT=0, **config)).test_client())


def refused(resp, quota: str) -> None:
    assert resp.status_code == 429, resp.get_json()
    body = resp.get_json()
    assert body["error"] == "quota_exceeded" and body["quota"] == quota, body
    assert int(resp.headers["Retry-After"]) >= 1


def test_an_address_holds_at_most_its_live_bot_only_matches(redis_url):
    api = limited_api(redis_url, 5, ANONYMOUS_BOT_MATCHES=2)
    body = {"game": "spades", "seats": BOTS4}
    first = api.c.post("/v1/matches", json=body)
    assert first.status_code == 201
    assert api.c.post("/v1/matches", json=body).status_code == 201
    refused(api.c.post("/v1/matches", json=body), "bot_matches")
    # A match with a person in it is not limited by that quota, nor is another address.
    assert (
        api.c.post("/v1/matches", json={"game": "spades", "seats": [HUMANS4[0], *BOTS4[1:]]}).status_code
        == 201
    )
    assert api.c.post("/v1/matches", json=body, environ_base=OTHER_ADDRESS).status_code == 201
    # Once one of them is over (here: gone, as a match that expired long after its creation
    # is), its place is free again.
    svc = api.c.application.extensions["cardtable"]
    first_id = first.get_json()["id"]
    svc.trips.state.delete(f"ct:{{m:{first_id}}}:match")
    svc.trips.state.zadd(svc.quotas.key("a:127.0.0.1", "bot_matches"), {first_id: time.time() - 3600})
    assert api.c.post("/v1/matches", json=body).status_code == 201
    refused(api.c.post("/v1/matches", json=body), "bot_matches")


def test_no_bot_only_matches_at_all_with_a_quota_of_0(redis_url):
    api = limited_api(redis_url, 5, ANONYMOUS_BOT_MATCHES=0)
    version_before = api.c.get("/v1/matches?limit=1").get_json()
    refused(api.c.post("/v1/matches", json={"game": "spades", "seats": BOTS4, "listed": True}), "bot_matches")
    assert api.c.get("/v1/matches?limit=1").get_json() == version_before  # nothing was created


def test_an_address_holds_at_most_its_waiting_matches_and_a_started_one_frees_its_place(redis_url):
    api = limited_api(redis_url, 6, ANONYMOUS_WAITING_MATCHES=2)
    ids = [
        api.c.post("/v1/matches", json={"game": "spades", "seats": WAITING}).get_json()["id"]
        for _ in range(2)
    ]
    refused(api.c.post("/v1/matches", json={"game": "spades", "seats": WAITING}), "waiting_matches")
    for _ in range(3):
        assert api.c.post(f"/v1/matches/{ids[0]}/join", json={}).status_code == 200
    assert api.view(ids[0])["status"] == "active"
    assert api.c.post("/v1/matches", json={"game": "spades", "seats": WAITING}).status_code == 201


def test_a_waiting_match_expires_after_the_waiting_ttl_and_a_started_one_lives_on(redis_url):
    api = limited_api(redis_url, 6, WAITING_TTL=120)
    match_id = api.create("spades", WAITING)["id"]
    client = api.c.application.extensions["cardtable"].trips.state
    key = f"ct:{{m:{match_id}}}:match"
    assert 0 < client.ttl(key) <= 120
    for _ in range(3):
        api.c.post(f"/v1/matches/{match_id}/join", json={})
    assert client.ttl(key) > 24 * 3600  # playing: the idle expiry of days


def test_a_waiting_match_takes_at_most_max_joins(redis_url):
    api = limited_api(redis_url, 6, MAX_JOINS=4)
    match_id = api.create("spades", WAITING)["id"]
    statuses = []
    for _ in range(5):
        joined = api.c.post(f"/v1/matches/{match_id}/join", json={})
        statuses.append(joined.status_code)
        if joined.status_code == 200:
            api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(joined.get_json()["token"]))
    # The creator's seat counts as the first join: three more, then the match refuses.
    assert statuses == [200, 200, 200, 409, 409]


def test_the_change_that_reaches_max_versions_aborts_the_match(redis_url):
    api = limited_api(redis_url, 6, MAX_VERSIONS=3)
    created = api.create("spades", HUMANS4, options={"first_dealer": 3})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    for seat in range(3):
        assert api.act(match_id, tokens[seat], {"type": "bid", "tricks": 3}).status_code == 200
    view = api.view(match_id)
    assert view["status"] == "aborted" and view["version"] == 3
    over = api.events(match_id)["events"][-1]
    assert over["type"] == "match_over" and over["reason"] == "too_long" and over["winners"] == []
    refused_move = api.act(match_id, tokens[3], {"type": "bid", "tricks": 3})
    assert refused_move.status_code == 409 and refused_move.get_json()["error"] == "match_not_active"


def test_a_hint_asked_again_in_the_same_turn_costs_nothing_and_adds_no_event(redis_url):
    api = limited_api(redis_url, 7)
    created = api.create("spades", HUMANS4, options={"first_dealer": 3, "hints": True})
    match_id, token = created["id"], created["seats"][0]["token"]
    first = api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(token)).get_json()
    events = api.events(match_id)["events"]
    for _ in range(5):
        again = api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(token))
        assert again.status_code == 200 and again.get_json() == first
    assert api.events(match_id)["events"] == events and api.view(match_id)["version"] == first["version"]
    assert api.view(match_id)["players"][0]["hints_used"] == 1
    # After the move, the next turn's hint is a new one.
    api.act(match_id, token, first["action"])
    second = api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(created["seats"][1]["token"])).get_json()
    assert second["version"] > first["version"]


def test_hints_beyond_the_processs_budget_are_refused_with_429(redis_url):
    api = limited_api(redis_url, 7, HINTS_AT_ONCE=1)
    created = api.create("spades", HUMANS4, options={"first_dealer": 3, "hints": True})
    match_id, token = created["id"], created["seats"][0]["token"]
    budget = hints._hint_budget(1)
    assert budget.acquire(timeout=5)  # another hint is being computed in this process
    try:
        refused(api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(token)), "hints_at_once")
    finally:
        budget.release()
    assert api.view(match_id)["players"][0]["hints_used"] == 0  # the refusal changed nothing
    assert api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(token)).status_code == 200


def test_events_come_in_pages_that_together_are_the_whole_list(redis_url):
    api = limited_api(redis_url, 7)
    created = api.create("spades", HUMANS4, options={"first_dealer": 3})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    for seat in range(4):
        api.act(match_id, tokens[seat], {"type": "bid", "tricks": 3})
    everything = api.events(match_id, tokens[1])
    assert everything["next_after"] is None and len(everything["events"]) > 5
    paged, after = [], 0
    while True:
        page = api.c.get(
            f"/v1/matches/{match_id}/events?after={after}&limit=2", headers=auth(tokens[1])
        ).get_json()
        assert len(page["events"]) <= 2
        paged += page["events"]
        if page["next_after"] is None:
            break
        after = page["next_after"]
        assert after == paged[-1]["seq"]
    assert paged == everything["events"]
    for bad in (0, 1001, "x"):
        resp = api.c.get(f"/v1/matches/{match_id}/events?limit={bad}")
        assert resp.status_code == 422 and "limit" in resp.get_json()["errors"]


def test_metrics_need_the_metrics_token_when_one_is_set(redis_url):
    api = limited_api(redis_url, 7, METRICS_TOKEN="scrape-me")
    assert api.c.get("/metrics").status_code == 401
    assert api.c.get("/metrics", headers=auth("wrong")).status_code == 401
    resp = api.c.get("/metrics", headers=auth("scrape-me"))
    assert resp.status_code == 200 and b"cardtable_queue_jobs" in resp.data


@pytest.mark.parametrize("metrics_token", ["", "scrape-me"])
def test_metrics_are_rate_limited_like_any_call_unless_a_metrics_token_guards_them(redis_url, metrics_token):
    url = redis_url.rsplit("/", 1)[0] + "/10"
    redis.Redis.from_url(url).flushdb()
    c = create_app(Config(REDIS_URL=url, RATE_LIMIT=3, METRICS_TOKEN=metrics_token)).test_client()
    # Within one second at most 3 pass; the window may roll over once mid-burst.
    statuses = [c.get("/metrics", headers=auth(metrics_token)).status_code for _ in range(8)]
    if metrics_token:
        assert statuses == [200] * 8  # the scrape that knows the token is never limited
    else:
        assert statuses.count(200) <= 6 and 429 in statuses, statuses


def test_bot_only_matches_wait_on_the_low_priority_queue(redis_url):
    api = limited_api(redis_url, 8, BOT_DELAY=0.0)
    svc = api.c.application.extensions["cardtable"]
    bots_only = api.create("spades", BOTS4, options={"first_dealer": 3})["id"]
    with_person = api.create("spades", [*BOTS4[:3], HUMANS4[0]], options={"first_dealer": 3})["id"]
    assert svc.queue.low.get_job_ids() == [f"bot-{bots_only}-0"]
    assert svc.queue.queue.get_job_ids() == [f"bot-{with_person}-0"]


def test_concurrent_creations_never_pass_the_last_place_twice(redis_url):
    api = limited_api(redis_url, 9, ANONYMOUS_BOT_MATCHES=1)
    statuses: list[int] = []
    start = threading.Barrier(4)

    def create() -> None:
        start.wait()
        statuses.append(api.c.post("/v1/matches", json={"game": "spades", "seats": BOTS4}).status_code)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(201) <= 1 and set(statuses) <= {201, 429}, statuses


@pytest.mark.parametrize("seats", [BOTS4, WAITING])
def test_service_callers_without_an_owner_are_not_limited(redis_url, seats):
    api = limited_api(redis_url, 9, ANONYMOUS_BOT_MATCHES=0, ANONYMOUS_WAITING_MATCHES=0)
    svc = api.c.application.extensions["cardtable"]
    assert svc.create({"game": "spades", "seats": seats})["id"]


def test_an_address_holds_at_most_its_live_matches_of_any_kind(redis_url):
    api = limited_api(redis_url, 10, ANONYMOUS_LIVE_MATCHES=2)
    first = api.create("spades", HUMANS4)
    api.create("spades", WAITING)
    refused(api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4}), "matches")
    # Quick play hosting a new match counts too; joining someone else's does not.
    refused(api.c.post("/v1/matches/quick", json={"game": "zoliky"}), "matches")
    hosted = api.c.post("/v1/matches/quick", json={"game": "zoliky"}, environ_base=OTHER_ADDRESS)
    assert hosted.status_code == 200 and hosted.get_json()["created"] is True
    joined = api.c.post("/v1/matches/quick", json={"game": "zoliky"})
    assert joined.status_code == 200 and joined.get_json()["id"] == hosted.get_json()["id"]
    # An app's players are counted against their app, not the address.
    svc = api.c.application.extensions["cardtable"]
    _, key = svc.apps.create("limits app")
    assert (
        api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4}, headers=auth(key)).status_code
        == 201
    )
    # One of the address's matches over (a seat left: Spades ends), its place is free again.
    api.c.post(f"/v1/matches/{first['id']}/leave", headers=auth(first["seats"][0]["token"]))
    assert api.view(first["id"])["status"] == "finished"
    assert api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4}).status_code == 201


def test_only_moves_count_toward_max_versions(redis_url):
    api = limited_api(redis_url, 10, MAX_VERSIONS=3)
    created = api.create("spades", HUMANS4, options={"first_dealer": 3, "hints": True})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    # A hint and ten hand-overs: eleven versions past the limit's three, and no move.
    assert api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(tokens[0])).status_code == 200
    for _ in range(10):
        code = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(tokens[1])).get_json()["code"]
        tokens[1] = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()["token"]
    view = api.view(match_id)
    assert view["status"] == "active" and view["version"] == 11
    # The moves still meet the limit: the third one ends the match.
    for seat in range(3):
        assert api.act(match_id, tokens[seat], {"type": "bid", "tricks": 3}).status_code == 200
    over = api.events(match_id)["events"][-1]
    assert over["reason"] == "too_long" and api.view(match_id)["status"] == "aborted"

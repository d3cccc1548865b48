"""Contract points of docs/api.md: the rate limit's key, resigning and leaving, history's token,
cache headers per viewer, and the idempotency key after a commit."""

from __future__ import annotations

import secrets

import pytest
import redis

from service.bootstrap import MatchService
from service.config import Config
from service.http.app import create_app
from service.infra.jobqueue import JobQueue, make_queue
from service.infra.roundtrips import RoundTrips
from tests.api_helpers import Api, auth
from tests.conftest import UNLIMITED_MATCHES

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]
LIMIT = 4
# Another client machine, as the WSGI server would name it (no traffic leaves the process).
OTHER_ADDRESS = {"REMOTE_ADDR": "127.0.0.2"}


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture
def limited(redis_url):
    """A client of an app limited to LIMIT requests a second, with its own Redis db so no other
    test's requests share the address's count."""
    app = create_app(
        Config(REDIS_URL=redis_url.rsplit("/", 1)[0] + "/3", RATE_LIMIT=LIMIT, **UNLIMITED_MATCHES)
    )
    return app.test_client()


@pytest.fixture
def setup_api(redis_url):
    """An unlimited client of the same db, to set matches up however much the tests before
    spent of the address's allowance in this second."""
    return Api(
        create_app(
            Config(REDIS_URL=redis_url.rsplit("/", 1)[0] + "/3", RATE_LIMIT=0, **UNLIMITED_MATCHES)
        ).test_client()
    )


def burst(send, n=4 * LIMIT):
    """n requests as fast as they go: more than the limit within one second, however the
    one-second windows fall (unless a request takes over an eighth of a second)."""
    return [send().status_code for _ in range(n)]


def random_bearer():
    return auth(secrets.token_urlsafe(24))


# --- the rate limit cannot be dodged -------------------------------------------------------


def test_a_fresh_made_up_token_on_each_create_is_limited_like_no_token(limited):
    body = {"game": "spades", "seats": HUMANS4}
    for headers in ({}, None):
        statuses = burst(
            lambda h=headers: limited.post("/v1/matches", json=body, headers=h or random_bearer())
        )
        assert 429 in statuses, statuses


def test_made_up_tokens_on_match_calls_count_against_the_address(limited, setup_api):
    created = setup_api.create("spades", HUMANS4)
    match_id, token = created["id"], created["seats"][0]["token"]
    for path in (f"/v1/matches/{match_id}", f"/v1/matches/{match_id}/events", "/v1/matches/0123456789abcdef"):
        statuses = burst(lambda p=path: limited.get(p, headers=random_bearer()))
        assert 429 in statuses and set(statuses) <= {401, 404, 429}, (path, statuses)
    # Refused before any match is loaded (a malformed id, a bad body): counted all the same.
    statuses = burst(lambda: limited.post("/v1/matches/nothex/actions", json={}, headers=random_bearer()))
    assert 429 in statuses, statuses
    # A seat's own token has its own allowance: from another address, the first address
    # being over does not stop it.
    elsewhere = limited.get(f"/v1/matches/{match_id}", headers=auth(token), environ_base=OTHER_ADDRESS)
    assert elsewhere.status_code == 200


def test_a_seat_token_is_limited_on_its_own(limited, setup_api):
    created = setup_api.create("spades", HUMANS4)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    statuses = burst(lambda: limited.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])))
    assert 429 in statuses and set(statuses) <= {200, 429}, statuses
    other = limited.get(f"/v1/matches/{match_id}", headers=auth(tokens[1]), environ_base=OTHER_ADDRESS)
    assert other.status_code == 200


def test_a_full_tables_tokens_from_one_address_share_the_addresss_allowance(limited, setup_api):
    # Four seats' tokens, each used no more than its own limit, from one address: together
    # they are over the address's limit (twice a token's), so some are refused.
    created = setup_api.create("spades", HUMANS4)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    statuses = [
        limited.get(f"/v1/matches/{match_id}", headers=auth(token)).status_code
        for _ in range(LIMIT)
        for token in tokens
    ]
    assert 429 in statuses and set(statuses) <= {200, 429}, statuses
    assert statuses.count(200) <= 2 * (2 * LIMIT), statuses  # at most two one-second windows


# --- resigning and leaving -----------------------------------------------------------------


def test_resign_is_listed_for_every_seat_that_may_resign(api):
    created = api.create("spades", HUMANS4, options={"first_dealer": 3})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    to_move = api.view(match_id)["turn"]["seat"]
    for seat, token in enumerate(tokens):
        legal = api.view(match_id, token)["legal_actions"]
        assert {"type": "resign"} in legal, seat
        if seat != to_move:
            assert legal == [{"type": "resign"}], seat  # off turn, resigning is all one may do
        else:
            assert len(legal) == 15  # the bids 0-13 and resign
    assert api.view(match_id)["legal_actions"] == []  # spectators do nothing


def test_a_resigned_seat_is_no_longer_offered_resign_and_may_leave(api):
    created = api.create("three-thirteen", HUMANS4[:3])
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    assert api.act(match_id, tokens[2], {"type": "resign"}).status_code == 200
    view = api.view(match_id, tokens[2])
    assert view["status"] == "active" and view["players"][2]["resigned"] is True
    assert {"type": "resign"} not in view["legal_actions"]
    assert {"type": "resign"} in api.view(match_id, tokens[0])["legal_actions"]
    left = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[2]))
    assert left.status_code == 200, left.get_json()
    assert left.get_json()["players"][2]["left"] is True and left.get_json()["status"] == "active"
    assert [e["type"] for e in api.events(match_id)["events"][-1:]] == ["leave"]
    again = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[2]))
    assert again.status_code == 409 and again.get_json()["error"] == "match_not_active"


def test_a_resigned_seat_on_turn_has_no_moves_and_its_bot_plays_it(api, worker):
    created = api.create("three-thirteen", HUMANS4[:3])
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    seat = api.view(match_id)["turn"]["seat"]
    before = api.view(match_id, tokens[seat])
    draw = next(a for a in before["legal_actions"] if a["type"] == "draw")
    resigned = api.act(match_id, tokens[seat], {"type": "resign"})
    assert resigned.status_code == 200, resigned.get_json()
    assert resigned.get_json()["legal_actions"] == []
    refused = api.act(match_id, tokens[seat], draw)
    assert refused.status_code == 409 and refused.get_json()["error"] == "not_your_turn"
    after = api.wait_for(match_id, tokens[seat], lambda v: v["turn"]["seat"] != seat)
    assert after["status"] == "active" and after["legal_actions"] == []
    drawn = [e for e in api.events(match_id)["events"] if e["type"] == "draw" and e["seat"] == seat]
    assert len(drawn) == 1  # the bot's draw, never the person's


def test_history_without_a_token_is_401(api):
    created = api.create("spades", HUMANS4)
    resp = api.c.get(f"/v1/matches/{created['id']}/history")
    assert resp.status_code == 401 and resp.get_json()["error"] == "invalid_token"


# --- caches --------------------------------------------------------------------------------


def test_views_have_an_etag_per_viewer_and_private_ones_are_never_stored(api):
    created = api.create("spades", HUMANS4)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    public = api.c.get(f"/v1/matches/{match_id}")
    private = [api.c.get(f"/v1/matches/{match_id}", headers=auth(t)) for t in tokens]
    etags = [r.headers["ETag"] for r in [public, *private]]
    assert len(set(etags)) == 5 and etags[0] == '"0"', etags
    assert all("Authorization" in r.headers["Vary"] for r in [public, *private])
    assert all(r.headers["Cache-Control"] == "no-store" for r in private)
    assert "no-store" not in public.headers.get("Cache-Control", "")
    # Answers holding tokens are not stored either.
    joined = api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4})
    assert joined.headers["Cache-Control"] == "no-store"
    events = api.c.get(f"/v1/matches/{match_id}/events", headers=auth(tokens[0]))
    assert events.headers["Cache-Control"] == "no-store" and "Authorization" in events.headers["Vary"]


# --- idempotency after a commit ------------------------------------------------------------


def test_a_failure_after_the_commit_keeps_the_idempotent_answer(redis_url, app):
    """The move is stored, then handing the bots' turn to the queue fails (its Redis is away):
    the client gets an error, but the key keeps the committed answer, so its retry gets that
    answer instead of a second move or a 412."""
    from service.infra.embedded import free_port

    dead = redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
    config = Config(REDIS_URL=redis_url, RATE_LIMIT=0, **UNLIMITED_MATCHES)
    broken = MatchService(
        RoundTrips(redis.Redis.from_url(redis_url)), config, JobQueue(make_queue(dead, "q"))
    )
    api = Api(app.test_client())
    seats = [HUMANS4[0], *[{"kind": "bot", "level": "easy"}] * 3]
    created = api.create("spades", seats, options={"first_dealer": 3})
    match_id, token = created["id"], created["seats"][0]["token"]
    action = {"type": "bid", "tricks": 3}
    with pytest.raises(redis.ConnectionError):
        broken.act(match_id, token, action, idempotency_key="once")
    assert api.view(match_id)["version"] == 1
    retry = api.act(match_id, token, action, **{"Idempotency-Key": "once", "If-Match": '"0"'})
    assert retry.status_code == 200, retry.get_json()
    assert retry.get_json()["version"] == 1 and retry.get_json()["players"][0]["bid"] == 3

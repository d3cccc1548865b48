"""An app's request-rate quota (docs/api.md, "Limits"): the calls made with its key count on the
app, at most its `rate` a second from any address, even with CARDTABLE_RATE_LIMIT off; its
players' tokens and everyone else keep the service's own limits."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from service.config import Config
from service.http.app import create_app
from tests.api_helpers import auth


@pytest.fixture
def svc(app):
    return app.extensions["cardtable"]


def in_one_second(calls: list[Callable[[], object]]) -> list:
    """The answers of `calls` made one after another within one one-second window of the rate
    counts (service/infra/rate_limit.py counts per int(time.time())): started right after a second
    begins, and made again in the next second should they run over into it."""
    for _ in range(5):
        time.sleep(1.005 - time.time() % 1)
        window = int(time.time())
        answers = [call() for call in calls]
        if int(time.time()) == window:
            return answers
    raise AssertionError("the calls never fitted in one second")


def over_quota(resp, quota: str) -> bool:
    body = resp.get_json()
    return (
        resp.status_code == 429
        and body["error"] == "quota_exceeded"
        and body["quota"] == quota
        and resp.headers["Retry-After"] == "1"
    )


def test_an_app_key_makes_rate_requests_a_second_and_the_next_is_429_quota_rate(client, svc):
    # The tests' config has CARDTABLE_RATE_LIMIT=0: the app's own quota applies all the same.
    _, key = svc.apps.create("rated app", rate=5)
    answers = in_one_second([lambda: client.get("/v1/games", headers=auth(key))] * 6)
    assert [r.status_code for r in answers[:5]] == [200] * 5
    assert over_quota(answers[5], "rate"), answers[5].get_json()
    assert "5 requests a second" in answers[5].get_json()["message"]
    # Another app's key has its own count.
    _, other = svc.apps.create("other app", rate=5)
    assert client.get("/v1/games", headers=auth(other)).status_code == 200


def test_a_match_call_with_an_app_key_counts_on_the_app(client, svc):
    _, key = svc.apps.create("spectating app", rate=2)
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}
    ).get_json()["id"]
    answers = in_one_second([lambda: client.get(f"/v1/matches/{match_id}", headers=auth(key))] * 3)
    assert [r.status_code for r in answers[:2]] == [200, 200]
    assert over_quota(answers[2], "rate"), answers[2].get_json()


def test_a_player_token_is_not_counted_on_its_apps_rate(client, svc):
    _, key = svc.apps.create("busy app", rate=2)
    put = client.put("/v1/players/pia", json={"name": "Pia"}, headers=auth(key))
    player = put.get_json()["token"]
    calls = [lambda: client.get("/v1/games", headers=auth(key))] * 3
    calls += [lambda: client.get("/v1/me", headers=auth(player))] * 5
    answers = in_one_second(calls)
    assert [r.status_code for r in answers[:2]] == [200, 200]
    assert over_quota(answers[2], "rate")
    assert [r.status_code for r in answers[3:]] == [200] * 5


def test_app_key_calls_count_on_the_app_and_not_on_the_address(config, svc):
    # 2 a second per address without a token, 4 in all: far below the app's 10.
    limited = create_app(Config(**{**config.__dict__, "RATE_LIMIT": 2})).test_client()
    _, key = svc.apps.create("backend app", rate=10)
    calls = [lambda: limited.get("/v1/games", headers=auth(key))] * 8
    calls += [lambda: limited.get("/v1/games")] * 3
    answers = in_one_second(calls)
    assert [r.status_code for r in answers[:8]] == [200] * 8
    # The address's own allowance is untouched by them.
    assert [r.status_code for r in answers[8:10]] == [200, 200]
    assert answers[10].status_code == 429 and answers[10].get_json()["error"] == "rate_limited"


def test_a_bad_app_key_counts_as_no_key(config):
    limited = create_app(Config(**{**config.__dict__, "RATE_LIMIT": 2})).test_client()
    bad = auth("ctk_000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    answers = in_one_second([lambda: limited.get("/v1/games", headers=bad)] * 3)
    assert [r.status_code for r in answers[:2]] == [200, 200]
    assert answers[2].get_json()["error"] == "rate_limited"
    # Where a call needs a valid key it is 401, as always.
    (needs_key,) = in_one_second([lambda: limited.get("/v1/players/pia", headers=bad)])
    assert needs_key.status_code == 401

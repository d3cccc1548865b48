"""Issue 39, findings 5 and 6, tried against a live `cardtable serve` as an attacker would: a
player whose history makes every read of its match list load it all, and an app that points a
webhook endpoint at a host that never answers and keeps sending tests and retries to it.

One serve for the module, with the limits it needs lowered: no per-second rate limit (the
player's loop would wait), webhooks to 127.0.0.1 over http, retries and the day to `failing`
at 1/10,000 (8.6 s), and an app holding at most 3 pending deliveries.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from service.identity.apps import Apps
from service.infra.cursors import MAX_SKIPPED
from service.infra.embedded import REDIS_URL_FILE, free_port
from tests.serve_helpers import cardtable_serve
from tests.webhook_helpers import receiver, until

PENDING = 3  # CARDTABLE_WEBHOOK_PENDING of this serve


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[httpx.Client, redis.Redis]]:
    """An HTTP client of the serve, and its Redis (where an operator makes apps)."""
    data = tmp_path_factory.mktemp("abuse-indexes")
    env = {
        "CARDTABLE_RATE_LIMIT": "0",
        "CARDTABLE_WEBHOOK_ALLOW_HTTP": "1",
        "CARDTABLE_WEBHOOK_ALLOW_PRIVATE": "1",
        "CARDTABLE_WEBHOOK_RETRY_SCALE": "0.0001",
        "CARDTABLE_WEBHOOK_PENDING": str(PENDING),
        "CARDTABLE_LOG_LEVEL": "WARNING",
    }
    with cardtable_serve(str(data), **env) as (_, base):
        url = (Path(data) / REDIS_URL_FILE).read_text().strip()
        with httpx.Client(base_url=base, timeout=30) as http, redis.Redis.from_url(url) as client:
            yield http, client


def app_key(client: redis.Redis) -> str:
    _, key = Apps(client).create("abuse")
    return key


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def hmgets(client: redis.Redis) -> int:
    """Match records read so far (Store.load reads one with one HMGET)."""
    return int(client.info("commandstats").get("cmdstat_hmget", {}).get("calls", 0))


def test_a_players_long_history_does_not_make_each_list_read_load_it(served):
    http, client = served
    key = app_key(client)
    token = http.put("/v1/players/looper", json={"name": "Looper"}, headers=auth(key)).json()["token"]
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    for _ in range(150):  # create and resign, again and again
        made = http.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token))
        assert made.status_code == 201, made.text
        resigned = http.post(
            f"/v1/matches/{made.json()['id']}/actions", json={"type": "resign"}, headers=auth(token)
        )
        assert resigned.status_code == 200, resigned.text
    before = hmgets(client)
    page = http.get("/v1/me/matches?status=active&limit=1", headers=auth(token))
    assert page.status_code == 200 and page.json()["matches"] == []
    # At most `limit` + MAX_SKIPPED records (and the token's check, and room for the workers'
    # own reads meanwhile), not the 150 the player ever had.
    assert hmgets(client) - before <= 1 + MAX_SKIPPED + 10


def test_an_app_sends_at_most_10_tests_or_retries_a_minute(served):
    http, client = served
    key = app_key(client)
    with receiver(200) as hook:
        made = http.post("/v1/webhooks", json={"url": hook.url, "events": ["match.over"]}, headers=auth(key))
        base = f"/v1/webhooks/{made.json()['id']}"

        def delivered(delivery: dict) -> None:
            # One at a time, each delivered before the next: the app never holds 3 pending.
            until(
                lambda: any(
                    d["id"] == delivery["id"] and d["status"] == "delivered"
                    for d in http.get(f"{base}/deliveries", headers=auth(key)).json()["deliveries"]
                ),
                what="the delivery",
            )

        first = http.post(f"{base}/test", headers=auth(key))
        assert first.status_code == 202, first.text
        delivered(first.json())
        for n in range(9):
            sent = (
                http.post(f"{base}/test", headers=auth(key))
                if n % 2
                else http.post(f"{base}/deliveries/{first.json()['id']}/retry", headers=auth(key))
            )
            assert sent.status_code == 202, (n, sent.text)
            delivered(sent.json())
        for refused in (
            http.post(f"{base}/test", headers=auth(key)),
            http.post(f"{base}/deliveries/{first.json()['id']}/retry", headers=auth(key)),
        ):
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"] == "quota_exceeded" and refused.json()["quota"] == "webhook_sends"
            assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert len(hook.received) == 10


def test_enabling_a_failing_endpoint_again_keeps_its_failures(served):
    http, client = served
    key = app_key(client)
    nobody = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens: every attempt fails
    made = http.post("/v1/webhooks", json={"url": nobody, "events": ["match.over"]}, headers=auth(key))
    url = f"/v1/webhooks/{made.json()['id']}"

    def disabled() -> bool:
        shown = http.get(url, headers=auth(key)).json()
        if shown["enabled"]:
            # Its failures span the "day" (8.6 s here) once one more test has failed after it.
            deliveries = http.get(f"{url}/deliveries", headers=auth(key)).json()["deliveries"]
            if all(d["status"] == "failed" for d in deliveries):
                # 409: the last attempt disabled it since it was read.
                assert http.post(f"{url}/test", headers=auth(key)).status_code in (202, 409)
            return False
        assert shown["disabled_reason"] == "failing"
        return True

    until(disabled, 60, "the endpoint failing for a day")
    again = http.patch(url, json={"enabled": True}, headers=auth(key))
    assert again.status_code == 200 and again.json()["enabled"] is True
    test = http.post(f"{url}/test", headers=auth(key))
    assert test.status_code == 202, test.text
    until(
        lambda: any(
            d["id"] == test.json()["id"] and d["attempts"] >= 1
            for d in http.get(f"{url}/deliveries", headers=auth(key)).json()["deliveries"]
        ),
        what="the test's first attempt",
    )
    # Its failures did not start again from nothing: the first one failing disabled it.
    shown = http.get(url, headers=auth(key)).json()
    assert shown["enabled"] is False and shown["disabled_reason"] == "failing"


def test_an_app_holds_a_bounded_number_of_pending_deliveries(served):
    http, client = served
    key = app_key(client)
    # A host that takes the connection and never answers: each attempt waits out its 5 s.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        hook = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
        made = http.post("/v1/webhooks", json={"url": hook, "events": ["match.over"]}, headers=auth(key))
        base = f"/v1/webhooks/{made.json()['id']}"
        sent = [http.post(f"{base}/test", headers=auth(key)) for _ in range(PENDING)]
        assert all(s.status_code == 202 for s in sent), [s.text for s in sent]
        refused = http.post(f"{base}/test", headers=auth(key))
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"] == "quota_exceeded" and refused.json()["quota"] == "webhook_pending"
        assert "Retry-After" in refused.headers
        listed = http.get(f"{base}/deliveries", headers=auth(key)).json()["deliveries"]
        assert sorted(d["id"] for d in listed) == sorted(s.json()["id"] for s in sent)

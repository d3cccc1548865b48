"""Webhook deliveries end to end, minus the match: the tests hand notices to the fan-out job as
a commit does, and a real `cardtable worker --webhooks` POSTs them to a real HTTP receiver on
127.0.0.1 (both safety flags on, as a local setup runs it). Signatures are checked with the
standardwebhooks package, as a receiver does."""

from __future__ import annotations

import os
import signal
import time

import pytest
from standardwebhooks.webhooks import Webhook

from service.config import Config
from service.http.app import create_app
from service.infra.jobqueue import delivery_job_id
from tests.api_helpers import auth
from tests.test_players import new_app
from tests.webhook_helpers import (
    HOLD,
    LOCAL,
    SILENT,
    receiver,
    start_worker,
    stop,
    tls_files,
    until,
    webhook_worker,
)


@pytest.fixture(scope="module")
def local(config):
    """The API as a local setup runs it: webhook URLs on 127.0.0.1 over http are taken."""
    return create_app(
        Config(**{**config.__dict__, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True})
    )


@pytest.fixture
def client(local):
    return local.test_client()


@pytest.fixture
def svc(local):
    return local.extensions["cardtable"]


def register(client, key: str, url: str, events=("turn.started", "match.over")) -> dict:
    r = client.post("/v1/webhooks", json={"url": url, "events": list(events)}, headers=auth(key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def notice(app_id: str, kind: str = "turn.started", match: str = "", version: int = 3) -> dict:
    match = match or os.urandom(8).hex()
    return {
        "id": f"{match}-{version}-{kind}",
        "app": app_id,
        "type": kind,
        "timestamp": "2026-12-05T09:30:12.345Z",
        "data": {"match": match, "game": "spades", "seat": 1, "player": "user-4711", "version": version},
        "players": ["internal-player-id"],
    }


def fan_out(svc, *notices: dict) -> None:
    """What the notice sink does for a commit: one fan-out job for its notices."""
    first = notices[0]
    match, version = first["data"]["match"], int(first["id"].split("-")[1])
    svc.repo.queue.enqueue_fan_out(match, version, list(notices))


def deliveries(client, key: str, endpoint: dict) -> list[dict]:
    r = client.get(f"/v1/webhooks/{endpoint['id']}/deliveries", headers=auth(key))
    assert r.status_code == 200, r.get_json()
    return r.get_json()["deliveries"]


def settled(client, key, endpoint, count: int = 1) -> list[dict]:
    """The endpoint's deliveries once `count` of them are delivered or failed."""
    return until(
        lambda: (
            (d := deliveries(client, key, endpoint))
            and sum(x["status"] != "pending" for x in d) >= count
            and d
        ),
        what="the deliveries to settle",
    )


def verified(endpoint: dict, request) -> dict:
    """The body of a received delivery, verified as a receiver does (raises if forged)."""
    return Webhook(endpoint["secret"]).verify(request.body, request.headers)


def test_a_delivery_is_signed_and_carries_the_notice_but_not_its_players(client, svc, redis_url):
    key = new_app(svc)
    app_id = key[4:16]
    with receiver(200) as hook, receiver(200) as second, webhook_worker(redis_url, **LOCAL):
        endpoint = register(client, key, hook.url)
        other = register(client, key, second.url, events=["turn.started"])
        ends_only = register(client, key, second.url.replace("/hook", "/ends"), events=["match.over"])
        told = notice(app_id)
        fan_out(svc, told)
        (got,) = hook.wait_for(1)
        body = verified(endpoint, got)
        assert body == {"type": "turn.started", "timestamp": told["timestamp"], "data": told["data"]}
        assert got.headers["webhook-id"] == told["id"]
        assert got.headers["content-type"] == "application/json"
        assert got.headers["user-agent"].startswith("cardtable-webhooks/")
        assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 300
        assert "internal-player-id" not in got.body.decode()
        # Every endpoint that wants the type gets the same message, signed with its own secret.
        (again,) = second.wait_for(1)
        assert again.headers["webhook-id"] == told["id"] and verified(other, again) == body
        assert again.headers["webhook-signature"] != got.headers["webhook-signature"]
        with pytest.raises(Exception, match="signature"):
            Webhook(endpoint["secret"]).verify(again.body, again.headers)
        (done,) = settled(client, key, endpoint)
        assert done["status"] == "delivered" and done["attempts"] == 1 and done["status_code"] == 200
        assert done["message"] == told["id"] and done["type"] == "turn.started"
        assert done["response"] == '{"ok": true}' and done["error"] is None and done["next_try"] is None
        assert deliveries(client, key, ends_only) == []  # it does not want turn.started
        assert [r.path for r in second.received] == ["/hook"]


def test_a_fan_out_that_runs_twice_delivers_once(client, svc, redis_url):
    key = new_app(svc)
    app_id = key[4:16]
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        endpoint = register(client, key, hook.url)
        told = notice(app_id)
        fan_out(svc, told)
        settled(client, key, endpoint)
        fan_out(svc, told)  # the relay handing the commit's notices on again
        # A later notice, fanned out after the repeat: once it arrives, the repeat has run.
        later = notice(app_id, match=told["data"]["match"], version=4)
        fan_out(svc, later)
        hook.wait_for(2)
        settled(client, key, endpoint, 2)
        assert [r.headers["webhook-id"] for r in hook.received] == [told["id"], later["id"]]
        assert len(deliveries(client, key, endpoint)) == 2


def test_a_receiver_failing_three_times_then_answering_gets_the_same_message_four_times(
    client, svc, redis_url
):
    key = new_app(svc)
    app_id = key[4:16]
    with (
        receiver(500, 502, (503, "busy " * 400), 204) as hook,
        webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="0.001", **LOCAL),
    ):
        endpoint = register(client, key, hook.url)
        told = notice(app_id, "match.over")
        fan_out(svc, told)
        received = hook.wait_for(4)
        assert [r.headers["webhook-id"] for r in received] == [told["id"]] * 4
        assert all(verified(endpoint, r)["type"] == "match.over" for r in received)
        (done,) = settled(client, key, endpoint)
        assert done["status"] == "delivered" and done["attempts"] == 4 and done["status_code"] == 204
    assert svc.webhooks.get(app_id, endpoint["id"]).failing_since is None


def test_the_receivers_answer_is_kept_cut_to_1_kb(client, svc, redis_url):
    key = new_app(svc)
    with (
        receiver((500, "é" * 3000)) as hook,
        webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="100", **LOCAL),
    ):
        endpoint = register(client, key, hook.url)
        fan_out(svc, notice(key[4:16]))
        pending = until(lambda: [d for d in deliveries(client, key, endpoint) if d["attempts"] == 1])
        (first,) = pending
        assert (
            first["status"] == "pending" and first["status_code"] == 500 and first["next_try"] > time.time()
        )
        assert len(first["response"].encode()) <= 1024 and first["response"].startswith("é" * 500)


def test_a_410_disables_the_endpoint(client, svc, redis_url):
    key = new_app(svc)
    app_id = key[4:16]
    with receiver((410, "gone for good")) as hook, webhook_worker(redis_url, **LOCAL):
        endpoint = register(client, key, hook.url)
        fan_out(svc, notice(app_id))
        (done,) = settled(client, key, endpoint)
        assert done["status"] == "failed" and done["status_code"] == 410 and done["attempts"] == 1
        shown = client.get(f"/v1/webhooks/{endpoint['id']}", headers=auth(key)).get_json()
        assert shown["enabled"] is False and shown["disabled_reason"] == "gone"
        assert svc.webhooks.wanted(app_id) == frozenset()  # no more fan-outs for it
        # A test send to a disabled endpoint is refused until the app enables it again.
        r = client.post(f"/v1/webhooks/{endpoint['id']}/test", json={}, headers=auth(key))
        assert r.status_code == 409 and r.get_json()["error"] == "conflict"
    assert len(hook.received) == 1


def test_a_receiver_that_never_answers_times_out_and_is_tried_again(client, svc, redis_url):
    key = new_app(svc)
    with (
        receiver(SILENT, 200) as hook,
        webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="0.5", **LOCAL),
    ):
        endpoint = register(client, key, hook.url)
        told = notice(key[4:16])
        fan_out(svc, told)
        waiting = until(lambda: [d for d in deliveries(client, key, endpoint) if d["attempts"] == 1], 30)
        assert waiting[0]["status"] == "pending" and waiting[0]["error"] == "timeout"
        assert waiting[0]["status_code"] is None and waiting[0]["latency_ms"] >= 4900
        (done,) = settled(client, key, endpoint)
        assert done["status"] == "delivered" and done["attempts"] == 2
        assert [r.headers["webhook-id"] for r in hook.received] == [told["id"]] * 2


@pytest.mark.slow
def test_a_delivery_survives_its_worker_killed_in_the_middle(client, svc, redis_url):
    key = new_app(svc)
    grace = {"CARDTABLE_SWEEP_GRACE": "1", "CARDTABLE_SWEEP_INTERVAL": "0.5"}
    with receiver(HOLD, 200) as hook:
        first = start_worker(redis_url, "--webhooks", **LOCAL, **grace)
        try:
            endpoint = register(client, key, hook.url)
            told = notice(key[4:16])
            fan_out(svc, told)
            hook.wait_for(1)  # the worker is in the middle of the delivery: the receiver holds it
            first.send_signal(signal.SIGKILL)
            first.wait(10)
        finally:
            stop(first)
        hook.released.set()
        with webhook_worker(redis_url, **LOCAL, **grace):
            (done,) = settled(client, key, endpoint)
        assert done["status"] == "delivered"
        assert [r.headers["webhook-id"] for r in hook.received] == [told["id"]] * 2


def test_http_and_private_urls_are_refused_at_delivery_without_the_flags(client, svc, redis_url):
    """Registered while the flags were on, delivered by workers without them: never sent."""
    key = new_app(svc)
    with receiver(200) as hook:
        endpoint = register(client, key, hook.url)
        for env, why in (({}, "only https"), ({"CARDTABLE_WEBHOOK_ALLOW_HTTP": "1"}, "loopback")):
            with webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="1000", **env):
                told = notice(key[4:16])
                fan_out(svc, told)
                tried = until(
                    lambda message=told["id"]: [
                        d
                        for d in deliveries(client, key, endpoint)
                        if d["message"] == message and d["attempts"]
                    ]
                )
            assert tried[0]["status"] == "pending" and tried[0]["status_code"] is None
            assert tried[0]["error"].startswith("refused:") and why in tried[0]["error"], tried[0]
        assert hook.received == []


def test_the_test_send_and_a_retry_reach_the_receiver(client, svc, redis_url):
    key = new_app(svc)
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        endpoint = register(client, key, hook.url, events=["match.over", "seat.timed_out"])
        base = f"/v1/webhooks/{endpoint['id']}"
        r = client.post(f"{base}/test", headers=auth(key))
        assert r.status_code == 202, r.get_json()
        started = r.get_json()
        assert started["status"] == "pending" and started["type"] == "match.over"
        (got,) = hook.wait_for(1)
        body = verified(endpoint, got)
        assert body["type"] == "match.over" and body["data"]["test"] is True
        assert got.headers["webhook-id"] == started["message"]
        r = client.post(f"{base}/test", json={"type": "rematch.offered"}, headers=auth(key))
        assert r.status_code == 202
        assert verified(endpoint, hook.wait_for(2)[1])["type"] == "rematch.offered"
        done = settled(client, key, endpoint, 2)
        # A retry sends the delivery again with the same webhook-id: a receiver can tell.
        first = next(d for d in done if d["id"] == started["id"])
        r = client.post(f"{base}/deliveries/{first['id']}/retry", headers=auth(key))
        assert r.status_code == 202 and r.get_json()["status"] == "pending"
        assert hook.wait_for(3)[2].headers["webhook-id"] == started["message"]
        until(
            lambda: (
                next(d for d in deliveries(client, key, endpoint) if d["id"] == first["id"])["attempts"] == 2
            )
        )
        # Another app's key, or a delivery of another endpoint, is 404.
        other = new_app(svc)
        assert client.post(f"{base}/deliveries/{first['id']}/retry", headers=auth(other)).status_code == 404
        second = register(client, key, hook.url)
        r = client.post(f"/v1/webhooks/{second['id']}/deliveries/{first['id']}/retry", headers=auth(key))
        assert r.status_code == 404
        assert client.post(f"{base}/deliveries/dl_nope/retry", headers=auth(key)).status_code == 404


def stopped_while_pending(client, svc, key: str, url: str, stop) -> tuple[dict, object]:
    """A delivery failing at `url` once, then `stop(endpoint)`: the endpoint, and the delivery
    once it has failed for good."""
    app_id = key[4:16]
    endpoint = register(client, key, url)
    fan_out(svc, notice(app_id))
    (pending,) = until(lambda: [d for d in deliveries(client, key, endpoint) if d["attempts"] == 1])
    stop(endpoint)
    return endpoint, until(
        lambda: (d := svc.deliveries.get(app_id, pending["id"])) and d.status == "failed" and d
    )


def test_a_deleted_endpoints_pending_delivery_stops(client, svc, redis_url):
    key = new_app(svc)
    with receiver(500) as hook, webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="0.2", **LOCAL):

        def delete(endpoint):
            assert client.delete(f"/v1/webhooks/{endpoint['id']}", headers=auth(key)).status_code == 200

        _, stopped = stopped_while_pending(client, svc, key, hook.url, delete)
        assert stopped.error == "the endpoint was deleted" and stopped.attempts == 1
    assert len(hook.received) == 1


def test_a_revoked_apps_endpoints_get_nothing_more(client, svc, redis_url):
    key = new_app(svc)
    app_id = key[4:16]
    with receiver(500) as hook, webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="0.2", **LOCAL):
        endpoint, stopped = stopped_while_pending(
            client, svc, key, hook.url, lambda _: svc.apps.revoke(app_id)
        )
        assert stopped.error == "the app was revoked" and stopped.attempts == 1
        # A later commit's notices make no delivery at all: the fan-out runs to its end and
        # records none.
        later = notice(app_id)
        fan_out(svc, later)
        version = int(later["id"].split("-")[1])
        until(lambda: svc.deliveries.fanned_or_queued(later["data"]["match"], version, "no-such-job"))
        assert [d.id for d in svc.deliveries.listed(app_id, endpoint["id"])] == [stopped.id]
    assert len(hook.received) == 1


@pytest.mark.slow
def test_an_endpoint_failing_for_a_day_is_disabled(client, svc, redis_url):
    # 1/10,000 of the schedule: the "day" is 8.6 s, and one delivery's 8 attempts take 8 to 12 s
    # (the jitter), so the endpoint is disabled by its last attempt or by the next notice's first.
    key = new_app(svc)
    app_id = key[4:16]
    with receiver(503) as hook, webhook_worker(redis_url, CARDTABLE_WEBHOOK_RETRY_SCALE="0.0001", **LOCAL):
        endpoint = register(client, key, hook.url)
        fan_out(svc, notice(app_id))
        (done,) = until(lambda: [d for d in deliveries(client, key, endpoint) if d["status"] == "failed"], 60)
        assert done["attempts"] == 8 and done["status_code"] == 503
        if svc.webhooks.get(app_id, endpoint["id"]).enabled:
            fan_out(svc, notice(app_id))
        until(lambda: not svc.webhooks.get(app_id, endpoint["id"]).enabled, 30)
        shown = client.get(f"/v1/webhooks/{endpoint['id']}", headers=auth(key)).get_json()
        assert shown["disabled_reason"] == "failing" and shown["enabled"] is False
        assert all(
            d["status"] == "failed"
            for d in settled(client, key, endpoint, len(deliveries(client, key, endpoint)))
        )


def test_a_delivery_whose_attempt_was_never_enqueued_is_swept_up(client, svc, redis_url):
    """A fan-out that died between a delivery's record and its enqueue: the sweep finds it."""
    key = new_app(svc)
    app_id = key[4:16]
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        endpoint = register(client, key, hook.url)
        told = notice(app_id)
        ((made, _),) = svc.deliveries.create(app_id, [(endpoint["id"], told)], time.time())  # no enqueue
        (got,) = hook.wait_for(1)
        assert got.headers["webhook-id"] == told["id"] and verified(endpoint, got)["type"] == "turn.started"
        until(lambda: svc.deliveries.get(app_id, made).status == "delivered")


def test_one_notice_reaches_each_of_an_apps_20_endpoints_once(client, svc, redis_url):
    key = new_app(svc)
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        endpoints = [register(client, key, f"{hook.url}/{i}", events=["match.over"]) for i in range(20)]
        told = notice(key[4:16], "match.over")
        fan_out(svc, told, notice(key[4:16], "turn.started", match=told["data"]["match"]))
        hook.wait_for(20)
        for endpoint in endpoints:
            (done,) = settled(client, key, endpoint)
            assert done["status"] == "delivered" and done["message"] == told["id"]
        paths = sorted(r.path for r in hook.received)
        assert paths == sorted(f"/hook/{i}" for i in range(20))
        secrets = {e["id"]: e["secret"] for e in endpoints}
        for got in hook.received:
            endpoint = next(e for e in endpoints if e["url"].endswith(got.path))
            assert Webhook(secrets[endpoint["id"]]).verify(got.body, got.headers)["type"] == "match.over"


def test_https_is_verified_against_the_urls_host_name_though_sent_to_the_checked_address(
    client, svc, redis_url, tmp_path
):
    """A receiver whose certificate (from a CA the worker trusts) names `localhost` only: its
    https URL with that name is delivered to the address `localhost` resolved to and checked;
    the same receiver by its IP address fails the certificate check, and nothing is sent."""
    key = new_app(svc)
    ca, cert, private_key = tls_files(str(tmp_path))
    trusted = {"SSL_CERT_FILE": ca, "CARDTABLE_WEBHOOK_ALLOW_PRIVATE": "1"}  # no ALLOW_HTTP: https
    with receiver(200, tls=(cert, private_key)) as hook, webhook_worker(redis_url, **trusted):
        by_name = register(client, key, hook.url)
        by_address = register(client, key, hook.url.replace("localhost", "127.0.0.1"))
        told = notice(key[4:16])
        fan_out(svc, told)
        (got,) = hook.wait_for(1)
        assert verified(by_name, got)["type"] == "turn.started"
        (done,) = settled(client, key, by_name)
        assert done["status"] == "delivered"
        (refused,) = until(lambda: [d for d in deliveries(client, key, by_address) if d["attempts"]])
        assert refused["status_code"] is None and refused["error"].startswith("TLS"), refused
    assert len(hook.received) == 1


def test_tests_and_retries_to_a_failing_endpoint_wait_behind_healthy_endpoints(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    queue = svc.repo.queue
    with receiver(200) as hook:
        failing, healthy = register(client, key, hook.url), register(client, key, hook.url)
        svc.webhooks.failed(app_id, failing["id"], time.time())
        # Enabled again after the service disabled it: its failures are still counted.
        svc.webhooks.disable(app_id, failing["id"], "failing")
        client.patch(f"/v1/webhooks/{failing['id']}", json={"enabled": True}, headers=auth(key))
        sent = client.post(f"/v1/webhooks/{failing['id']}/test", headers=auth(key)).get_json()
        fine = client.post(f"/v1/webhooks/{healthy['id']}/test", headers=auth(key)).get_json()
        retried = client.post(
            f"/v1/webhooks/{failing['id']}/deliveries/{sent['id']}/retry", headers=auth(key)
        )
        assert retried.status_code == 202
        low, first = queue.webhook_retries.job_ids, queue.webhooks.job_ids
        assert delivery_job_id(sent["id"], 0) in low and delivery_job_id(sent["id"], 1) in low
        assert delivery_job_id(fine["id"], 0) in first
        assert not {delivery_job_id(sent["id"], 0), delivery_job_id(sent["id"], 1)} & set(first)
        for endpoint in (failing, healthy):  # their attempts stop at once, sending nothing
            client.delete(f"/v1/webhooks/{endpoint['id']}", headers=auth(key))

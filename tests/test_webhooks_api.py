"""Webhook endpoints over the API (docs/webhooks.md): an app registers, reads, changes and
deletes its own, gets the secret once, never reaches another app's, and cannot point one at a
URL the server refuses to call."""

from __future__ import annotations

import base64
import ipaddress
import time

import pytest

from service import errors
from service.config import Config
from service.http.app import create_app
from service.notify.url_guard import address_refusal
from service.notify.webhooks import MAX_ENDPOINTS, Webhooks
from tests.api_helpers import auth
from tests.test_players import new_app, put_player

PUBLIC = "https://93.184.215.14/hooks/cardtable"  # a public address: no DNS needed to check it


@pytest.fixture(scope="module")
def local(config):
    """The API with both safety flags on, as a local setup runs it (receivers on 127.0.0.1)."""
    return create_app(
        Config(**{**config.__dict__, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True})
    )


@pytest.fixture
def svc(app):
    return app.extensions["cardtable"]


def create(client, key, url=PUBLIC, events=("turn.started",), **extra):
    r = client.post("/v1/webhooks", json={"url": url, "events": list(events), **extra}, headers=auth(key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_an_app_registers_an_endpoint_and_sees_its_secret_only_once(client, svc):
    key = new_app(svc)
    made = create(client, key, events=["turn.started", "match.over", "turn.started"], description="reminders")
    assert made["id"].startswith("wh_") and made["enabled"] is True and made["disabled_reason"] is None
    assert made["events"] == ["turn.started", "match.over"]  # each type once
    assert made["url"] == PUBLIC and made["description"] == "reminders"
    assert made["secret"].startswith("whsec_")
    assert len(base64.b64decode(made["secret"].removeprefix("whsec_"))) == 32
    one = client.get(f"/v1/webhooks/{made['id']}", headers=auth(key))
    assert one.status_code == 200 and one.headers["Cache-Control"] == "no-store"
    assert one.get_json() == {k: v for k, v in made.items() if k != "secret"}
    listed = client.get("/v1/webhooks", headers=auth(key)).get_json()["webhooks"]
    assert listed == [one.get_json()]
    assert made["secret"] not in str(listed)


def test_patch_changes_an_endpoint_and_enabling_clears_why_it_was_disabled(client, svc):
    key = new_app(svc)
    made = create(client, key)
    url = f"/v1/webhooks/{made['id']}"
    r = client.patch(url, json={"events": ["match.over"], "description": "ends only"}, headers=auth(key))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["events"] == ["match.over"] and r.get_json()["description"] == "ends only"
    r = client.patch(url, json={"enabled": False}, headers=auth(key))
    assert r.get_json()["enabled"] is False and r.get_json()["disabled_reason"] == "manual"
    # The service disables one that answered 410; the app enables it again.
    svc.webhooks.disable(key[4:16], made["id"], "gone")
    assert client.get(url, headers=auth(key)).get_json()["disabled_reason"] == "gone"
    r = client.patch(url, json={"enabled": True}, headers=auth(key))
    assert r.get_json()["enabled"] is True and r.get_json()["disabled_reason"] is None
    # The secret stays what it was: deliveries keep verifying.
    endpoint = svc.webhooks.get(key[4:16], made["id"])
    assert endpoint.secret == made["secret"]


def test_a_deleted_endpoint_is_gone_with_its_deliveries(client, svc):
    key = new_app(svc)
    made = create(client, key)
    r = client.delete(f"/v1/webhooks/{made['id']}", headers=auth(key))
    assert r.status_code == 200 and r.get_json() == {"id": made["id"], "deleted": True}
    for method, path in [
        ("GET", ""),
        ("PATCH", ""),
        ("DELETE", ""),
        ("GET", "/deliveries"),
        ("POST", "/test"),
    ]:
        body = {"enabled": True} if method == "PATCH" else None
        r = client.open(f"/v1/webhooks/{made['id']}{path}", method=method, json=body, headers=auth(key))
        assert r.status_code == 404 and r.get_json()["error"] == "not_found", (method, path)
    assert client.get("/v1/webhooks", headers=auth(key)).get_json() == {"webhooks": []}


def test_another_apps_endpoint_answers_404_and_stays_as_it_was(client, svc):
    owner, other = new_app(svc), new_app(svc)
    made = create(client, owner)
    before = client.get(f"/v1/webhooks/{made['id']}", headers=auth(owner)).get_json()
    base = f"/v1/webhooks/{made['id']}"
    for method, path, body in [
        ("GET", "", None),
        ("PATCH", "", {"enabled": False}),
        ("DELETE", "", None),
        ("POST", "/test", {}),
        ("GET", "/deliveries", None),
        ("POST", "/deliveries/dl_000000000000000000000000/retry", None),
    ]:
        r = client.open(base + path, method=method, json=body, headers=auth(other))
        assert r.status_code == 404 and r.get_json()["error"] == "not_found", (method, path, r.get_json())
    assert client.get("/v1/webhooks", headers=auth(other)).get_json() == {"webhooks": []}
    assert client.get(base, headers=auth(owner)).get_json() == before


def test_webhooks_need_the_apps_key(client, svc):
    key = new_app(svc)
    player = put_player(client, key, "hook-player")
    for credential in (None, player, "ctk_000000000000.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "seat-token"):
        r = client.post(
            "/v1/webhooks", json={"url": PUBLIC, "events": ["match.over"]}, headers=auth(credential)
        )
        assert r.status_code == 401 and r.get_json()["error"] == "invalid_token", credential
        assert client.get("/v1/webhooks", headers=auth(credential)).status_code == 401
    assert client.get("/v1/webhooks", headers=auth(key)).get_json() == {"webhooks": []}


@pytest.mark.parametrize(
    "body",
    [
        {"url": PUBLIC},
        {"events": ["match.over"]},
        {"url": PUBLIC, "events": []},
        {"url": PUBLIC, "events": ["match.ended"]},
        {"url": PUBLIC, "events": "match.over"},
        {"url": 7, "events": ["match.over"]},
        {"url": "", "events": ["match.over"]},
        {"url": PUBLIC, "events": ["match.over"], "description": "x" * 201},
        {"url": PUBLIC, "events": ["match.over"], "secret": "whsec_mine"},
        {"url": "https://" + "a" * 2000 + ".com/", "events": ["match.over"]},
    ],
)
def test_bad_input_is_422_and_makes_nothing(client, svc, body):
    key = new_app(svc)
    r = client.post("/v1/webhooks", json=body, headers=auth(key))
    assert r.status_code == 422 and r.get_json()["error"] == "validation_error", r.get_json()
    assert client.get("/v1/webhooks", headers=auth(key)).get_json() == {"webhooks": []}


def test_bad_changes_are_422_and_change_nothing(client, svc):
    key = new_app(svc)
    made = create(client, key)
    url = f"/v1/webhooks/{made['id']}"
    before = client.get(url, headers=auth(key)).get_json()
    for body in ({"enabled": "maybe"}, {"events": []}, {"events": ["nope"]}, {"id": "wh_0"}, {"secret": "x"}):
        r = client.patch(url, json=body, headers=auth(key))
        assert r.status_code == 422, (body, r.get_json())
    r = client.patch(url, data="{not json", headers={**auth(key), "Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_request"
    r = client.post(f"{url}/test", json={"type": "match.ended"}, headers=auth(key))
    assert r.status_code == 422
    assert client.get(url, headers=auth(key)).get_json() == before


@pytest.mark.parametrize(
    "url,why",
    [
        ("http://93.184.215.14/hook", "only https"),
        ("ftp://93.184.215.14/hook", "not https"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://localhost:8443/hook", "loopback"),
        ("https://10.1.2.3/hook", "private"),
        ("https://192.168.0.10/hook", "private"),
        ("https://172.16.5.4/hook", "private"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://100.64.0.1/hook", "not a public address"),
        ("https://0.0.0.0/hook", "unspecified"),
        ("https://224.0.0.1/hook", "multicast"),
        ("https://240.0.0.1/hook", "reserved"),
        ("https://[::1]/hook", "loopback"),
        ("https://[fe80::1]/hook", "link-local"),
        ("https://[fd00::1]/hook", "private"),
        ("https://[::ffff:127.0.0.1]/hook", "127.0.0.1"),
        ("https://[2002:7f00:1::1]/hook", "127.0.0.1"),
        ("https://[64:ff9b::a00:1]/hook", "reserved"),
        ("https://[ff02::1]/hook", "multicast"),
        ("https://user:pw@93.184.215.14/hook", "user name or password"),
        ("https://no-such-host.invalid/hook", "does not resolve"),
        ("https:///hook", "no host"),
        ("https://93.184.215.14:99999/hook", "not a URL"),
        ("just words", "only https"),
    ],
)
def test_a_url_the_server_will_not_call_is_refused_at_registration(client, svc, url, why):
    key = new_app(svc)
    r = client.post("/v1/webhooks", json={"url": url, "events": ["match.over"]}, headers=auth(key))
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["error"] == "url_not_allowed" and why in r.get_json()["message"], r.get_json()
    assert client.get("/v1/webhooks", headers=auth(key)).get_json() == {"webhooks": []}


def test_a_change_to_a_refused_url_is_refused_and_changes_nothing(client, svc):
    key = new_app(svc)
    made = create(client, key)
    r = client.patch(f"/v1/webhooks/{made['id']}", json={"url": "https://10.0.0.7/x"}, headers=auth(key))
    assert r.status_code == 422 and r.get_json()["error"] == "url_not_allowed"
    assert client.get(f"/v1/webhooks/{made['id']}", headers=auth(key)).get_json()["url"] == PUBLIC


def test_the_flags_take_http_and_private_hosts_for_tests_and_local_setups(local):
    client, svc = local.test_client(), local.extensions["cardtable"]
    key = new_app(svc)
    for url in ("http://127.0.0.1:9/hook", "https://10.0.0.7/x", "http://[::1]:8080/"):
        assert create(client, key, url=url)["url"] == url
    # Still never with a password in it, nor a scheme other than http(s).
    for url in ("http://u:p@127.0.0.1/", "gopher://127.0.0.1/"):
        r = client.post("/v1/webhooks", json={"url": url, "events": ["match.over"]}, headers=auth(key))
        assert r.status_code == 422 and r.get_json()["error"] == "url_not_allowed"


def test_an_app_has_at_most_20_endpoints(client, svc):
    key = new_app(svc)
    for _ in range(MAX_ENDPOINTS):
        create(client, key)
    r = client.post("/v1/webhooks", json={"url": PUBLIC, "events": ["match.over"]}, headers=auth(key))
    assert r.status_code == 409 and r.get_json()["error"] == "conflict"
    assert len(client.get("/v1/webhooks", headers=auth(key)).get_json()["webhooks"]) == MAX_ENDPOINTS


def test_wanted_is_what_enabled_endpoints_want_and_this_process_sees_changes_at_once(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    hooks = svc.webhooks
    assert hooks.wanted(app_id) == frozenset()
    made = create(client, key, events=["turn.started", "match.over"])
    create(client, key, events=["match.over", "rematch.offered"])
    assert hooks.wanted(app_id) == {"turn.started", "match.over", "rematch.offered"}
    client.patch(f"/v1/webhooks/{made['id']}", json={"enabled": False}, headers=auth(key))
    assert hooks.wanted(app_id) == {"match.over", "rematch.offered"}
    # Another process keeps its copy for its TTL, then reads again.
    elsewhere = Webhooks(svc.trips.state, ttl=3600)
    assert elsewhere.wanted(app_id) == {"match.over", "rematch.offered"}
    client.patch(f"/v1/webhooks/{made['id']}", json={"enabled": True}, headers=auth(key))
    assert elsewhere.wanted(app_id) == {"match.over", "rematch.offered"}
    assert Webhooks(svc.trips.state, ttl=0).wanted(app_id) == {
        "turn.started",
        "match.over",
        "rematch.offered",
    }


@pytest.mark.parametrize(
    "address,allowed",
    [
        ("93.184.215.14", True),
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("172.31.255.255", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("255.255.255.255", False),
        ("198.18.0.1", False),
        ("192.0.2.1", False),
        ("::", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff05::1", False),
        ("::ffff:10.0.0.1", False),
        ("::ffff:93.184.215.14", False),  # an IPv4-mapped address is not one to connect to
        ("2002:c0a8:0101::1", False),  # 6to4 of 192.168.1.1
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
    ],
)
def test_only_public_addresses_may_receive_webhooks(address, allowed):
    assert (address_refusal(ipaddress.ip_address(address)) is None) == allowed


def test_an_endpoint_lists_its_last_100_deliveries_and_keeps_the_pending_ones_beyond(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    endpoint = create(client, key)
    store = svc.deliveries

    def made(n: int) -> str:
        told = {
            "id": f"{'ab' * 8}-{n}-match.over",
            "type": "match.over",
            "timestamp": "2026-12-05T00:00:00.000Z",
        }
        ((delivery_id, _),) = store.create(
            app_id, [(endpoint["id"], {**told, "data": {"match": "ab" * 8}})], 0.0
        )
        store.settled(app_id, delivery_id)  # no worker is to try it
        return delivery_id

    first = [made(n) for n in range(3)]
    for delivery_id in first[:2]:  # delivered: nothing keeps them once off the list
        store.finish(app_id, store.get(app_id, delivery_id), status="delivered", attempts=1)
    later = [made(n) for n in range(3, 103)]
    listed = client.get(f"/v1/webhooks/{endpoint['id']}/deliveries", headers=auth(key)).get_json()[
        "deliveries"
    ]
    assert {d["id"] for d in listed} == set(later)
    assert [d["created"] for d in listed] == sorted((d["created"] for d in listed), reverse=True)
    assert store.get(app_id, first[0]) is None and store.get(app_id, first[1]) is None
    assert store.get(app_id, first[2]).status == "pending"  # its attempts go on
    # Creating the same notice's delivery again makes nothing.
    again = {"id": f"{'ab' * 8}-50-match.over", "type": "match.over", "timestamp": "x", "data": {}}
    assert store.create(app_id, [(endpoint["id"], again)], 0.0) == []
    client.delete(f"/v1/webhooks/{endpoint['id']}", headers=auth(key))


def test_enabling_an_endpoint_again_keeps_since_when_it_fails(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    endpoint = create(client, key)
    hooks = svc.webhooks
    since = hooks.failed(app_id, endpoint["id"], time.time() - 90_000)  # failing for over a day
    hooks.disable(app_id, endpoint["id"], "failing")
    r = client.patch(f"/v1/webhooks/{endpoint['id']}", json={"enabled": True}, headers=auth(key))
    assert r.get_json()["enabled"] is True and r.get_json()["disabled_reason"] is None
    # The next failure counts from then (and disables it again at once); only a success clears it.
    assert hooks.get(app_id, endpoint["id"]).failing_since == pytest.approx(since, abs=0.01)
    assert hooks.failed(app_id, endpoint["id"], time.time()) == pytest.approx(since, abs=0.01)
    hooks.succeeded(app_id, endpoint["id"])
    assert hooks.get(app_id, endpoint["id"]).failing_since is None


def test_an_app_sends_at_most_10_tests_and_retries_a_minute(client, svc):
    key, other = new_app(svc), new_app(svc)
    endpoint = create(client, key)
    base = f"/v1/webhooks/{endpoint['id']}"
    sent = [client.post(f"{base}/test", headers=auth(key)) for _ in range(9)]
    assert [r.status_code for r in sent] == [202] * 9
    retried = client.post(f"{base}/deliveries/{sent[0].get_json()['id']}/retry", headers=auth(key))
    assert retried.status_code == 202
    for refused in (
        client.post(f"{base}/test", headers=auth(key)),
        client.post(f"{base}/deliveries/{sent[0].get_json()['id']}/retry", headers=auth(key)),
    ):
        assert refused.status_code == 429
        assert refused.get_json()["error"] == "quota_exceeded"
        assert refused.get_json()["quota"] == "webhook_sends"
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
    listed = client.get(f"{base}/deliveries", headers=auth(key)).get_json()["deliveries"]
    assert len(listed) == 9  # the refused test made nothing
    # Another app counts its own.
    theirs = create(client, other)
    assert client.post(f"/v1/webhooks/{theirs['id']}/test", headers=auth(other)).status_code == 202
    for k, e in ((key, endpoint), (other, theirs)):  # their attempts stop at once, sending nothing
        client.delete(f"/v1/webhooks/{e['id']}", headers=auth(k))


def test_an_apps_pending_deliveries_are_bounded_and_the_rest_fail_unsent_but_listed(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    endpoint = create(client, key)
    store = svc.deliveries

    def told(n: int) -> tuple[str, dict]:
        notice = {"id": f"{'cd' * 8}-{n}-match.over", "type": "match.over", "timestamp": "x", "data": {}}
        return endpoint["id"], notice

    made = store.create(app_id, [told(n) for n in range(3)], 0.0, pending_limit=2)
    assert len(made) == 2 and store.pending(app_id) == 2
    listed = client.get(f"/v1/webhooks/{endpoint['id']}/deliveries", headers=auth(key)).get_json()[
        "deliveries"
    ]
    unsent = [d for d in listed if d["status"] == "failed"]
    assert len(listed) == 3 and len(unsent) == 1 and unsent[0]["attempts"] == 0
    assert "2 pending deliveries" in unsent[0]["error"]
    # A test send, or a retry, past the limit is refused and makes nothing.
    with pytest.raises(errors.QuotaExceeded) as refused:
        store.create(app_id, [told(9)], 0.0, pending_limit=2, refuse=True)
    assert refused.value.quota == "webhook_pending"
    with pytest.raises(errors.QuotaExceeded):
        store.retry(app_id, unsent[0]["id"], 0.0, pending_limit=2)
    # One delivered frees a place: the unsent one can be retried, and counts.
    delivered = store.get(app_id, made[0][0])
    assert store.finish(app_id, delivered, status="delivered", attempts=1)
    assert store.pending(app_id) == 1
    assert store.retry(app_id, unsent[0]["id"], 0.0, pending_limit=2) == 1
    assert store.pending(app_id) == 2
    for delivery_id in (made[1][0], unsent[0]["id"]):  # no worker is to try them
        store.settled(app_id, delivery_id)
    client.delete(f"/v1/webhooks/{endpoint['id']}", headers=auth(key))

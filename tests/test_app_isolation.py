"""One app never sees or touches another's: every operation of the OpenAPI document, called with
another app's key and with one of its players' tokens on the first app's match, player, game,
webhook endpoint and delivery, answers without 403, shows nothing that names the first app's
players or endpoints, and changes nothing of theirs. The operations come from the document, so
a new endpoint is covered without editing this test."""

from __future__ import annotations

import json

import pytest

from tests.api_helpers import auth
from tests.test_contract_examples import load_document, op_examples
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows

# What only the first app may read: its player's external id and metadata, and its app id.
SECRET_ID = "alpha-only-7f3a91"
SECRET_META = "alpha-meta-c55e02"
SECRET_HOOK = "https://93.184.215.14/alpha-hook-3b9d20"  # its webhook endpoint's URL


def operations() -> list[tuple[str, str, dict]]:
    doc = load_document()
    return [
        (method, path, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def request_body(op: dict):
    for where, _, _, example in op_examples(op):
        if where == "request":
            return example
    return None


@pytest.fixture
def alpha(client, svc):
    """The first app: a player in a rated-free match against a bot, with a finished match too."""
    key = new_app(svc)
    app_id = key[4:16]
    r = client.put(
        f"/v1/players/{SECRET_ID}", json={"name": "Alpha", "metadata": {"m": SECRET_META}}, headers=auth(key)
    )
    token = r.get_json()["token"]
    seats = [{"kind": "human", "player": SECRET_ID}, {"kind": "bot", "level": "easy"}]
    live = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key)).get_json()[
        "id"
    ]
    over = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key)).get_json()[
        "id"
    ]
    client.post(f"/v1/matches/{over}/actions", json={"type": "resign"}, headers=auth(token))
    hook = client.post(
        "/v1/webhooks", json={"url": SECRET_HOOK, "events": ["match.over"]}, headers=auth(key)
    ).get_json()
    return {
        "key": key,
        "app": app_id,
        "token": token,
        "live": live,
        "over": over,
        "webhook": hook["id"],
        "secret": hook["secret"],
        "delivery": delivered(svc, app_id, hook["id"], over),
    }


def delivered(svc, app_id: str, endpoint_id: str, match_id: str) -> str:
    """A delivery of the first app's endpoint, as a worker leaves it once delivered."""
    notice = {"id": f"{match_id}-9-match.over", "type": "match.over", "timestamp": "2026-12-05T00:00:00.000Z"}
    notice["data"] = {"match": match_id, "game": "zhol", "players": {"0": SECRET_ID}}
    ((made, _),) = svc.deliveries.create(app_id, [(endpoint_id, notice)], 0.0)
    svc.deliveries.finish(app_id, svc.deliveries.get(app_id, made), status="delivered", attempts=1)
    svc.deliveries.settled(app_id, made)
    return made


def answer(client, method: str, url: str, op: dict, credential: str) -> tuple[int, str]:
    """The status and text of a call; of a stream (which would run for minutes), its first chunk."""
    streams = "text/event-stream" in op["responses"].get("200", {}).get("content", {})
    resp = client.open(
        url, method=method.upper(), json=request_body(op), headers=auth(credential), buffered=not streams
    )
    if not streams:
        return resp.status_code, resp.get_data(as_text=True)
    try:
        first = next(iter(resp.response), b"")
        return resp.status_code, first.decode() if isinstance(first, bytes) else first
    finally:
        resp.close()


def state_of(client, alpha: dict) -> str:
    """Everything of the first app a change by another could touch, as its own key and token read it."""
    reads = [
        client.get(f"/v1/players/{SECRET_ID}", headers=auth(alpha["key"])),
        client.get("/v1/me/matches", headers=auth(alpha["token"])),
        client.get(f"/v1/matches/{alpha['live']}", headers=auth(alpha["token"])),
        client.get(f"/v1/matches/{alpha['over']}/events?after=0", headers=auth(alpha["token"])),
        client.get("/v1/me/events", headers=auth(alpha["token"])),
        client.get("/v1/webhooks", headers=auth(alpha["key"])),
        client.get(f"/v1/webhooks/{alpha['webhook']}/deliveries", headers=auth(alpha["key"])),
    ]
    return json.dumps([r.get_json() for r in reads], sort_keys=True)


@pytest.mark.parametrize("method,path,op", operations(), ids=lambda v: v if isinstance(v, str) else "")
def test_another_apps_credentials_never_reach_this_apps_players_or_matches(
    client, svc, alpha, method, path, op
):
    # Operations for apps and players answer another app's resources 404; the others keep
    # their own refusals (a wrong invitation code is 403 for anyone).
    app_scoped = "{external_id}" in path or any(
        {"appKey", "playerToken"} & set(s) for s in op.get("security", [])
    )
    before = state_of(client, alpha)
    other_key = new_app(svc)
    other_player = put_player(client, other_key, "beta-player")
    for match_id in (alpha["live"], alpha["over"]):
        url = (
            path.replace("{match_id}", match_id)
            .replace("{external_id}", SECRET_ID)
            .replace("{game}", "zhol")
            .replace("{webhook_id}", alpha["webhook"])
            .replace("{delivery_id}", alpha["delivery"])
        )
        for credential in (other_key, other_player):
            status, text = answer(client, method, url, op, credential)
            if app_scoped:
                assert status != 403, (method, url, text)  # another app's things are not there: 404
            # The external id is the caller's own word when the path names it.
            secrets = [SECRET_META, SECRET_HOOK, alpha["secret"], alpha["app"]]
            secrets += [] if "{external_id}" in path else [SECRET_ID]
            assert not [s for s in secrets if s in text], (method, url, text)
    if not (method == "put" and path == "/v1/players/{external_id}"):
        assert state_of(client, alpha) == before, (method, path)
    else:
        # PUT with another app's key makes that app's own player of the same external id.
        assert json.loads(state_of(client, alpha))[0] == json.loads(before)[0]

"""Webhooks from real matches: an app's players play, and every notice type the match makes
reaches the app's endpoint through the commit's notice sink, the fan-out and a real
`cardtable worker --webhooks`, signed, once per notice id, with the data docs/api.md
("Notices") promises."""

from __future__ import annotations

import random

import pytest
from standardwebhooks.webhooks import Webhook

from service.config import Config
from service.http.app import create_app
from service.notify.webhooks import EVENT_TYPES
from tests.api_helpers import Api, auth, cards_in
from tests.test_api_games import human_move
from tests.test_players import new_app, put_player
from tests.webhook_helpers import LOCAL, receiver, until, webhook_worker


@pytest.fixture(scope="module")
def local(config):
    return create_app(
        Config(**{**config.__dict__, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True})
    )


def test_every_notice_of_a_players_match_reaches_the_apps_endpoint_signed_and_once(local, redis_url):
    client, svc = local.test_client(), local.extensions["cardtable"]
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("wh-ana", "wh-bo")}
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        r = client.post(
            "/v1/webhooks", json={"url": hook.url, "events": list(EVENT_TYPES)}, headers=auth(key)
        )
        endpoint = r.get_json()
        seats = [{"kind": "human", "player": "wh-ana"}, {"kind": "human", "player": "wh-bo"}]
        match = client.post(
            "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key)
        ).get_json()
        match_id = match["id"]
        by_seat = {0: tokens["wh-ana"], 1: tokens["wh-bo"]}
        api, rng = Api(client), random.Random(3)
        # Play until the turn has passed from one player to the other.
        movers = []
        while len(set(movers)) < 2 or movers[-1] == movers[0]:
            view = api.view(match_id, by_seat[0])
            movers.append(view["turn"]["seat"])
            human_move(api, "zhol", match_id, by_seat[view["turn"]["seat"]], rng)
        client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(by_seat[1]))
        again = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(by_seat[1]))
        assert again.status_code == 201, again.get_json()
        wanted = {"match.created", "match.started", "turn.started", "match.over", "rematch.offered"}
        until(lambda: wanted <= {r.json["type"] for r in hook.received}, 60, "every notice type")
        rematch = again.get_json()["id"]
        until(lambda: any(r.json["data"]["match"] == rematch for r in hook.received), 60, "the rematch's")
        received = list(hook.received)  # later notices may still come in
        bodies = [Webhook(endpoint["secret"]).verify(r.body, r.headers) for r in received]

    ids = [r.headers["webhook-id"] for r in received]
    assert len(ids) == len(set(ids)), "a notice was delivered twice"
    of_match = [(i, b) for i, b in zip(ids, bodies, strict=True) if b["data"]["match"] == match_id]
    for notice_id, body in of_match:
        assert notice_id.startswith(f"{match_id}-") and notice_id.endswith(body["type"])
        assert body["data"]["game"] == "zhol"
    kinds = [b["type"] for _, b in of_match]
    assert kinds[:3] == ["match.created", "match.started", "turn.started"]
    assert kinds.count("turn.started") >= 2 and kinds[-2:] == ["match.over", "rematch.offered"]
    created = of_match[0][1]["data"]
    assert created["players"] == {"0": "wh-ana", "1": "wh-bo"}
    turns = [b["data"] for _, b in of_match if b["type"] == "turn.started"]
    assert {t["player"] for t in turns} == {"wh-ana", "wh-bo"}
    assert all(set(t) >= {"seat", "player", "version", "deadline"} for t in turns)
    over = next(b["data"] for _, b in of_match if b["type"] == "match.over")
    assert over["winners"] == [0] and over["reason"] == "resign" and over["players"] == created["players"]
    offered = of_match[-1][1]["data"]
    assert offered["rematch"] == again.get_json()["id"] and offered["by_seat"] == 1
    # The new match tells of itself too; no notice carries a card.
    assert any(b["data"]["match"] == offered["rematch"] and b["type"] == "match.created" for b in bodies)
    assert not cards_in(bodies)


def test_a_seat_whose_clock_runs_out_is_told_to_its_app(local, redis_url, worker):
    client, svc = local.test_client(), local.extensions["cardtable"]
    key = new_app(svc)
    for p in ("to-ana", "to-bo"):
        put_player(client, key, p)
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        r = client.post(
            "/v1/webhooks", json={"url": hook.url, "events": ["seat.timed_out"]}, headers=auth(key)
        )
        endpoint = r.get_json()
        seats = [{"kind": "human", "player": "to-ana"}, {"kind": "human", "player": "to-bo"}]
        body = {"game": "zhol", "seats": seats, "options": {"turn_seconds": 5}}
        match_id = client.post("/v1/matches", json=body, headers=auth(key)).get_json()["id"]
        # Nobody moves: the clock runs out in the session's bot workers, whose commit tells the app.
        until(lambda: hook.received, 30, "the timeout's notice")
        (first, *_) = hook.received
        notice = Webhook(endpoint["secret"]).verify(first.body, first.headers)
    assert notice["type"] == "seat.timed_out" and notice["data"]["match"] == match_id
    assert notice["data"]["on_timeout"] == "auto"
    assert notice["data"]["player"] == ["to-ana", "to-bo"][notice["data"]["seat"]]

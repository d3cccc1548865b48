"""CARDTABLE_REQUIRE_APP=1 (docs/api.md, "Limits"): creating a match (a rematch too), joining
one, claiming an invitation and quick play need an app key or a player token; everything else is
as without it."""

from __future__ import annotations

import pytest

from service.config import Config
from service.http.app import create_app
from tests.api_helpers import auth

WAITING = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}
QUICK = {"game": "zhol", "options": {}}


@pytest.fixture(scope="module")
def client(config):
    return create_app(Config(**{**config.__dict__, "REQUIRE_APP": True})).test_client()


@pytest.fixture(scope="module")
def key(client):
    _, key = client.application.extensions["cardtable"].apps.create("only app")
    return key


def player(client, key: str, external: str) -> str:
    put = client.put(f"/v1/players/{external}", json={"name": external.title()}, headers=auth(key))
    assert put.status_code == 200, put.get_json()
    return put.get_json()["token"]


def waiting_match(client, key: str) -> tuple[str, str]:
    """A waiting match with one open seat, created with the app key; its id and seat 0's token."""
    created = client.post("/v1/matches", json=WAITING, headers=auth(key))
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    return body["id"], body["seats"][0]["token"]


def invitation(client, match_id: str, token: str) -> str:
    invited = client.post(f"/v1/matches/{match_id}/invite", headers=auth(token))
    assert invited.status_code == 200, invited.get_json()
    return invited.get_json()["code"]


def refused(resp) -> None:
    assert resp.status_code == 401, resp.get_json()
    body = resp.get_json()
    assert body["error"] == "invalid_token" and "ctk_" in body["message"] and "ctp_" in body["message"]


def test_creating_joining_claiming_and_quick_play_without_an_app_are_401(client, key):
    match_id, token = waiting_match(client, key)
    code = invitation(client, match_id, token)
    for credential in (None, token):  # nothing, or a seat's token
        refused(client.post("/v1/matches", json=WAITING, headers=auth(credential)))
        refused(client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(credential)))
        refused(client.post(f"/v1/matches/{match_id}/claim", json={"code": code}, headers=auth(credential)))
        refused(client.post("/v1/matches/quick", json=QUICK, headers=auth(credential)))
    # Nothing was taken: the seat is still open and the invitation still good.
    seats = client.get(f"/v1/matches/{match_id}").get_json()["players"]
    assert seats[1]["kind"] == "open"
    claimed = client.post(f"/v1/matches/{match_id}/claim", json={"code": code}, headers=auth(key))
    assert claimed.status_code == 200


def test_a_bad_app_key_or_player_token_is_401(client):
    bad_key = auth("ctk_000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert client.post("/v1/matches", json=WAITING, headers=bad_key).status_code == 401
    bad_player = auth("ctp_000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert client.post("/v1/matches/quick", json=QUICK, headers=bad_player).status_code == 401


def test_an_app_key_and_a_player_token_create_join_claim_and_quick_play(client, key):
    ana, bo = player(client, key, "ana"), player(client, key, "bo")
    created = client.post("/v1/matches", json=WAITING, headers=auth(ana))
    assert created.status_code == 201, created.get_json()
    joined = client.post(f"/v1/matches/{created.get_json()['id']}/join", json={}, headers=auth(bo))
    assert joined.status_code == 200, joined.get_json()
    match_id, token = waiting_match(client, key)
    claimed = client.post(
        f"/v1/matches/{match_id}/claim", json={"code": invitation(client, match_id, token)}, headers=auth(bo)
    )
    assert claimed.status_code == 200, claimed.get_json()
    assert client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(key)).status_code == 200
    for credential in (ana, key):
        quick = client.post("/v1/matches/quick", json=QUICK, headers=auth(credential))
        assert quick.status_code == 200, quick.get_json()


def test_a_rematch_takes_a_player_token_and_a_seat_token_is_not_enough(client, key):
    cy, di = player(client, key, "cy"), player(client, key, "di")
    bound = {"game": "zhol", "seats": [{"kind": "human", "player": "cy"}, {"kind": "human", "player": "di"}]}
    players_match = client.post("/v1/matches", json=bound, headers=auth(key)).get_json()["id"]
    seats = client.post("/v1/matches", json={**bound, "seats": [{"kind": "human"}] * 2}, headers=auth(key))
    seats_match, (first, second) = seats.get_json()["id"], [s["token"] for s in seats.get_json()["seats"]]
    for match_id, resigner in ((players_match, cy), (seats_match, first)):
        resigned = client.post(
            f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(resigner)
        )
        assert resigned.get_json()["status"] == "finished", resigned.get_json()
    refused(client.post(f"/v1/matches/{seats_match}/rematch", headers=auth(second)))
    again = client.post(f"/v1/matches/{players_match}/rematch", headers=auth(di))
    assert again.status_code == 201, again.get_json()


def test_everything_else_works_without_an_app(client, key):
    match_id, token = waiting_match(client, key)
    assert client.get("/v1/games").status_code == 200
    assert client.get("/v1/matches").status_code == 200  # the lobby
    assert client.get(f"/v1/matches/{match_id}").status_code == 200  # a spectator's view
    assert client.get(f"/v1/matches/{match_id}", headers=auth(token)).get_json()["you"] == 0
    assert client.get(f"/v1/matches/{match_id}/events").status_code == 200
    assert client.post(f"/v1/matches/{match_id}/leave", headers=auth(token)).status_code == 200
    # OPTIONS on the calls that need an app (a browser's preflight carries no credential).
    for url in ("/v1/matches", f"/v1/matches/{match_id}/join", "/v1/matches/quick"):
        assert client.options(url).status_code == 200


def test_without_require_app_anonymous_play_is_unchanged(app):
    anonymous = app.test_client()
    created = anonymous.post("/v1/matches", json=WAITING)
    assert created.status_code == 201
    assert anonymous.post(f"/v1/matches/{created.get_json()['id']}/join", json={}).status_code == 200
    assert anonymous.post("/v1/matches/quick", json=QUICK).status_code == 200

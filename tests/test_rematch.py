"""Rematch: after the end, the same game again, with the same players seated, bots at their
levels, the asker's own seat and everyone else's open; once per match."""

from __future__ import annotations

from tests.api_helpers import auth
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows


def events_of(client, match_id: str, token: str) -> list[dict]:
    return client.get(f"/v1/matches/{match_id}/events?after=0&limit=1000", headers=auth(token)).get_json()[
        "events"
    ]


def test_a_rematch_of_anonymous_seats_seats_the_asker_and_opens_the_rest(client):
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "human", "name": "Bo"},
        {"kind": "bot", "level": "hard"},
        {"kind": "bot", "level": "easy"},
    ]
    created = client.post(
        "/v1/matches", json={"game": "spades", "seats": seats, "options": {"target_score": 100}}
    ).get_json()
    match_id, ana, bo = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    early = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo))
    assert early.status_code == 409 and early.get_json()["error"] == "match_not_active"
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(ana))
    made = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo))
    assert made.status_code == 201, made.get_json()
    again = made.get_json()
    assert [(s["kind"], "token" in s) for s in again["seats"]] == [
        ("open", False),
        ("human", True),
        ("bot", False),
        ("bot", False),
    ]
    view = client.get(f"/v1/matches/{again['id']}", headers=auth(again["seats"][1]["token"])).get_json()
    assert view["you"] == 1 and view["status"] == "waiting" and view["options"]["target_score"] == 100
    assert [p.get("level") for p in view["players"]][2:] == ["hard", "easy"]
    # The old match names the new one, for the seats that were not asked.
    told = [e for e in events_of(client, match_id, ana) if e["type"] == "rematch"]
    assert told == [{"type": "rematch", "match": again["id"], "seat": 1, "seq": told[0]["seq"]}]
    joined = client.post(f"/v1/matches/{again['id']}/join", json={"name": "Ana"})
    assert joined.status_code == 200 and joined.get_json()["seat"] == 0
    twice = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(ana))
    assert twice.status_code == 409 and again["id"] in twice.get_json()["message"]


def test_a_rematch_of_players_seats_them_at_once(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("cy", "di")}
    seats = [{"kind": "human", "player": "cy"}, {"kind": "human", "player": "di"}]
    body = {"game": "zhol", "seats": seats, "options": {"rated": True}}
    match_id = client.post("/v1/matches", json=body, headers=auth(key)).get_json()["id"]
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens["di"]))
    made = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens["di"])).get_json()
    assert [s.get("player") for s in made["seats"]] == ["cy", "di"]
    assert all("token" not in s for s in made["seats"])
    view = client.get(f"/v1/matches/{made['id']}", headers=auth(tokens["cy"])).get_json()
    assert view["status"] == "active" and view["you"] == 0 and view["options"]["rated"] is True
    listed = client.get("/v1/me/matches", headers=auth(tokens["di"])).get_json()["matches"]
    assert listed[0]["id"] == made["id"]

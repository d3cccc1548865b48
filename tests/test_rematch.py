"""Rematch: after the end, the same game again, with bots at their levels, the asker seated and
every other person's seat reserved for them until they ask too; once per match."""

from __future__ import annotations

import time

import pytest

from service.config import Config
from service.http.app import create_app
from service.infra.embedded import start_redis
from tests.api_helpers import auth
from tests.conftest import UNLIMITED_MATCHES
from tests.test_players import new_app, put_player, svc
from tests.test_typed_contract import Contract
from workers.sweeper import sweep

__all__ = ["svc"]  # the fixture this module borrows

SPADES_SEATS = [
    {"kind": "human", "name": "Ana"},
    {"kind": "human", "name": "Bo"},
    {"kind": "bot", "level": "hard"},
    {"kind": "bot", "level": "easy"},
]


def events_of(client, match_id: str, token: str) -> list[dict]:
    return client.get(f"/v1/matches/{match_id}/events?after=0&limit=1000", headers=auth(token)).get_json()[
        "events"
    ]


def ended_spades(client) -> tuple[str, str, str]:
    """A Spades match of Ana and Bo (and two bots) that Ana resigned: (id, Ana's, Bo's token)."""
    body = {"game": "spades", "seats": SPADES_SEATS, "options": {"target_score": 100}}
    created = client.post("/v1/matches", json=body).get_json()
    match_id, ana, bo = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(ana))
    return match_id, ana, bo


def test_a_rematch_of_anonymous_seats_seats_the_asker_and_holds_the_others_seat(client):
    contract = Contract(client.get("/openapi.json").get_json())
    created = client.post("/v1/matches", json={"game": "spades", "seats": SPADES_SEATS}).get_json()
    early = client.post(f"/v1/matches/{created['id']}/rematch", headers=auth(created["seats"][1]["token"]))
    assert early.status_code == 409 and early.get_json()["error"] == "match_not_active"
    match_id, ana, bo = ended_spades(client)
    made = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo))
    assert made.status_code == 201, made.get_json()
    again = made.get_json()
    assert [(s["kind"], "token" in s, s.get("reserved")) for s in again["seats"]] == [
        ("open", False, True),
        ("human", True, None),
        ("bot", False, None),
        ("bot", False, None),
    ]
    view = client.get(f"/v1/matches/{again['id']}", headers=auth(again["seats"][1]["token"])).get_json()
    assert view["you"] == 1 and view["status"] == "waiting" and view["options"]["target_score"] == 100
    assert [p.get("level") for p in view["players"]][2:] == ["hard", "easy"]
    assert view["players"][0]["kind"] == "open" and view["players"][0]["reserved"] is True
    assert view["players"][0]["name"] is None
    # A reserved seat is the typed contract's: an `open` seat with the flag it declares.
    contract.check("SpadesView", view)
    contract.check("Created", again)
    # The old match names the new one, for the seats that were not asked.
    told = [e for e in events_of(client, match_id, ana) if e["type"] == "rematch"]
    assert told == [{"type": "rematch", "match": again["id"], "seat": 1, "seq": told[0]["seq"]}]
    # Ana's seat is hers: a plain join does not take it, her old token does.
    joined = client.post(f"/v1/matches/{again['id']}/join", json={"name": "Mallory"})
    assert joined.status_code == 409 and joined.get_json()["error"] == "match_not_active"
    taken = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(ana))
    assert taken.status_code == 201, taken.get_json()
    answer = taken.get_json()
    assert answer["id"] == again["id"] and answer["seats"][0]["kind"] == "human"
    assert "token" in answer["seats"][0] and "token" not in answer["seats"][1]
    view = client.get(f"/v1/matches/{again['id']}", headers=auth(answer["seats"][0]["token"])).get_json()
    assert view["you"] == 0 and view["status"] == "active" and view["players"][0]["name"] == "Ana"
    assert answer["version"] == 1  # the take's own commit, after the creation's version 0
    # Once seated, asking again is the 409 that names the rematch; the old token stays the
    # old match's.
    for token in (ana, bo):
        twice = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(token))
        assert twice.status_code == 409 and again["id"] in twice.get_json()["message"]
    assert client.get(f"/v1/matches/{again['id']}", headers=auth(ana)).status_code == 401


def test_a_rematch_of_players_seats_the_asker_and_the_other_when_it_asks(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("cy", "di")}
    seats = [{"kind": "human", "player": "cy"}, {"kind": "human", "player": "di"}]
    body = {"game": "zhol", "seats": seats, "options": {"rated": True}}
    match_id = client.post("/v1/matches", json=body, headers=auth(key)).get_json()["id"]
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens["di"]))
    made = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens["di"])).get_json()
    assert [s.get("player") for s in made["seats"]] == [None, "di"]
    assert [s.get("reserved") for s in made["seats"]] == [True, None]
    assert all("token" not in s for s in made["seats"])
    # Cy sits nowhere in it yet: not in its view, not in Cy's list of matches.
    assert client.get(f"/v1/matches/{made['id']}", headers=auth(tokens["cy"])).status_code == 401
    listed = client.get("/v1/me/matches", headers=auth(tokens["cy"])).get_json()["matches"]
    assert [m["id"] for m in listed] == [match_id]
    # Cy's feed has the offer, which says who asked and where, and nothing of any hand.
    feed = client.get("/v1/me/events?after=0", headers=auth(tokens["cy"])).get_json()["events"]
    (offer,) = [e for e in feed if e["type"] == "rematch.offered"]
    assert offer["data"] == {"match": match_id, "game": "zhol", "rematch": made["id"], "by_seat": 1}
    # A player of the app joining is refused; Cy asking takes the seat and the match starts.
    stranger = put_player(client, key, "eve")
    refused = client.post(f"/v1/matches/{made['id']}/join", json={}, headers=auth(stranger))
    assert refused.status_code == 409
    taken = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens["cy"]))
    assert taken.status_code == 201 and taken.get_json()["id"] == made["id"]
    assert [s.get("player") for s in taken.get_json()["seats"]] == ["cy", "di"]
    view = client.get(f"/v1/matches/{made['id']}", headers=auth(tokens["cy"])).get_json()
    assert view["status"] == "active" and view["you"] == 0 and view["options"]["rated"] is True
    listed = client.get("/v1/me/matches", headers=auth(tokens["cy"])).get_json()["matches"]
    assert listed[0]["id"] == made["id"]


def test_a_rematch_of_one_person_and_bots_starts_at_once(client):
    seats = [{"kind": "human", "name": "Ana"}, *[{"kind": "bot"}] * 3]
    created = client.post("/v1/matches", json={"game": "spades", "seats": seats}).get_json()
    ana = created["seats"][0]["token"]
    client.post(f"/v1/matches/{created['id']}/actions", json={"type": "resign"}, headers=auth(ana))
    made = client.post(f"/v1/matches/{created['id']}/rematch", headers=auth(ana)).get_json()
    view = client.get(f"/v1/matches/{made['id']}", headers=auth(made["seats"][0]["token"])).get_json()
    assert view["status"] == "active" and not any(p.get("reserved") for p in view["players"])


@pytest.fixture
def alone(tmp_path):
    """The app on a Redis of its own with no worker (nothing runs a job unless a test does),
    made with settings of the test's."""
    proc, url = start_redis(str(tmp_path / "redis"), persist=False)
    yield lambda **settings: create_app(Config(REDIS_URL=url, RATE_LIMIT=0, **settings))
    proc.terminate()
    proc.wait(10)


def test_a_lost_deadline_job_still_ends_the_rematch_declined(alone):
    app = alone(REMATCH_SECONDS=1, SWEEP_GRACE=0.2, **UNLIMITED_MATCHES)
    client, service = app.test_client(), app.extensions["cardtable"]
    match_id, ana, bo = ended_spades(client)
    made = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo)).get_json()
    new = made["id"]
    # Its deadline job waits for a scheduler that never comes (no worker here); before the
    # deadline the sweeper leaves it alone.
    assert sweep(service) == 0
    until = service.load(new).reserved_until()
    time.sleep(max(0.0, until + 0.3 - time.time()))
    assert sweep(service) == 1
    assert f"rematch-{new}" in service.queue.queue.get_job_ids()
    assert service.rematch_expired(new) == "declined"
    token = made["seats"][1]["token"]
    view = client.get(f"/v1/matches/{new}", headers=auth(token)).get_json()
    assert view["status"] == "aborted" and not any(p.get("reserved") for p in view["players"])
    over = [e for e in events_of(client, new, token) if e["type"] == "match_over"]
    assert [(o["reason"], o["winners"]) for o in over] == [("declined", [])]
    # Ended: the job run again does nothing, the sweeper forgets it, nobody takes the seat.
    assert service.rematch_expired(new) == "stale"
    assert sweep(service) == 0
    late = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(ana))
    assert late.status_code == 409 and late.get_json()["error"] == "match_not_active"


def test_the_deadline_job_leaves_a_rematch_whose_seats_were_all_taken(alone):
    app = alone(**UNLIMITED_MATCHES)
    client, service = app.test_client(), app.extensions["cardtable"]
    match_id, ana, bo = ended_spades(client)
    new = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo)).get_json()["id"]
    assert service.rematch_expired(new) == "early"
    assert client.post(f"/v1/matches/{match_id}/rematch", headers=auth(ana)).status_code == 201
    assert service.rematch_expired(new) == "stale"
    assert service.load(new).record["status"] == "playing"


def test_a_rematch_that_could_not_be_made_may_be_asked_again(alone):
    # No waiting match allowed for an address without an app key: the rematch is refused.
    app = alone(ANONYMOUS_WAITING_MATCHES=0)
    client = app.test_client()
    match_id, ana, bo = ended_spades(client)
    refused = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(bo))
    assert refused.status_code == 429 and refused.get_json()["error"] == "quota_exceeded"
    assert "rematch" not in app.extensions["cardtable"].load(match_id).record
    # Not "a rematch was made already": asked again, it is refused for the same reason.
    again = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(ana))
    assert again.status_code == 429

"""The service's own events follow the one vocabulary of docs/api.md in every game."""

from __future__ import annotations

import pytest

from engines.registry import GAMES
from tests.api_helpers import Api, auth

SEATS = {"zoliky": 2, "three-thirteen": 3, "zhol": 2, "spades": 4}


@pytest.fixture
def api(client):
    return Api(client)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_match_from_creation_to_a_leave_speaks_the_vocabulary(api, game_id):
    game = GAMES[game_id]
    seats = [{"kind": "human", "name": "Ana"}] + [{"kind": "open"}] * (SEATS[game_id] - 1)
    created = api.create(game_id, seats, seed=5)
    match_id = created["id"]
    for _ in range(SEATS[game_id] - 1):
        resp = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Bo"})
        assert resp.status_code in (200, 201), resp.get_json()
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(created["seats"][0]["token"]))
    assert resp.status_code == 200, resp.get_json()
    types = [e["type"] for e in api.events(match_id)["events"]]
    assert set(types) <= set(game.event_types()), set(types) - set(game.event_types())
    start = ["match_created", *["join"] * (SEATS[game_id] - 1), "match_started"]
    assert types[: len(start)] == start and types[len(start)] in ("deal", "cut")
    # Leaving a match in play resigns the seat; the match ends unless the others play on.
    assert "deal" in types and types[types.index("resign") :] in (
        ["resign", "match_over", "leave"],
        ["resign", "leave"],
    )


def test_a_waiting_match_everyone_left_ends_with_match_over_aborted(api):
    created = api.create("zoliky", [{"kind": "human", "name": "Ana"}, {"kind": "open"}])
    match_id = created["id"]
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(created["seats"][0]["token"]))
    assert resp.status_code == 200, resp.get_json()
    events = api.events(match_id)["events"]
    assert [e["type"] for e in events] == ["match_created", "leave", "match_over"]
    assert events[-1]["winners"] == [] and events[-1]["reason"] == "aborted"
    assert api.view(match_id)["status"] == "aborted"


def test_the_match_plays_on_while_a_person_plays_it_and_ends_abandoned_when_none_does(api, app):
    bot = {"kind": "bot", "level": "easy"}
    created = api.create("zhol", [{"kind": "human"}, {"kind": "human"}, bot, bot], seed=5)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"][:2]]
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[0])).status_code == 200
    assert api.view(match_id)["status"] in ("active", "round_over")  # seat 1 still plays
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[1])).status_code == 200
    assert api.view(match_id)["status"] == "aborted"
    events = api.events(match_id)["events"]
    assert [e["type"] for e in events[-3:]] == ["resign", "leave", "match_over"]
    assert {k: events[-1][k] for k in ("winners", "reason")} == {"winners": [], "reason": "abandoned"}
    # Nothing is left for a bot to play.
    assert app.extensions["cardtable"].load(match_id).pending_job() is None


def test_where_the_rules_end_a_match_at_a_resignation_they_say_how(api):
    bots = [{"kind": "bot", "level": "easy"}] * 3
    created = api.create("spades", [{"kind": "human"}, *bots], options={"first_dealer": 3})
    match_id, token = created["id"], created["seats"][0]["token"]
    assert api.act(match_id, token, {"type": "resign"}).status_code == 200
    over = api.events(match_id)["events"][-1]
    assert over["type"] == "match_over" and over["reason"] == "resign" and over["winners"] == [1, 3]
    assert api.view(match_id)["status"] == "finished"

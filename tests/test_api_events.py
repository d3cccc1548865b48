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

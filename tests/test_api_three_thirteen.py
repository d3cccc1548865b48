"""Three Thirteen over HTTP: a full match of a person against two bots through real RQ workers."""

from __future__ import annotations

import random

import pytest

from tests.api_helpers import Api, auth
from tests.test_api_games import play_until, round_over


@pytest.fixture
def api(client):
    return Api(client)


def test_three_thirteen_full_match_against_two_bots(api, worker):
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "bot", "level": "easy"},
        {"kind": "bot", "level": "medium"},
    ]
    created = api.create("three-thirteen", seats, seed=13)
    match_id, token = created["id"], created["seats"][0]["token"]
    rng = random.Random(13)
    rounds = 0
    while True:
        view = play_until(api, "three-thirteen", match_id, {0: token}, rng, round_over, check_every=7)
        rounds += 1
        assert len(view["round_result"]) > 0
        if view["status"] == "finished":
            break
        resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(token))
        assert resp.status_code == 200, resp.get_json()
        assert len(resp.get_json()["hand"]) == rounds + 3
    assert rounds == 11
    assert view["winners"] and set(view["scores"]) == {"0", "1", "2"}
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(token)).get_json()
    assert history["seed"] == 13 and len(history["deck"]) == 104


def test_three_thirteen_contradictory_options_are_422(api):
    resp = api.c.post(
        "/v1/matches",
        json={"game": "three-thirteen", "seats": [{"kind": "human"}] * 3, "options": {"joker_dump": True}},
    )
    body = resp.get_json()
    assert resp.status_code == 422 and body["error"] == "validation_error" and "joker" in body["message"]

"""Rated quick play (docs/api.md, "Rated quick play"): a player joins the waiting rated match
whose players' mean rating is nearest theirs within a band that widens with the match's wait;
Spades seats the four so the partnerships balance; players of one app only meet each other.

The band's seconds run on CARDTABLE_QUICK_BAND_SCALE: at SCALE a step of 15 s is 1.5 s, and a
match is open to anyone once it has waited 6 s, so nobody here sleeps a minute.
"""

from __future__ import annotations

import json
import time

import pytest

from service.config import Config
from service.http.app import create_app
from service.matches.lobby_rated import band
from tests.api_helpers import auth
from tests.conftest import UNLIMITED_MATCHES
from tests.test_players import new_app, put_player

SCALE = 0.1
STEP = 15 * SCALE


@pytest.fixture(scope="module")
def app(redis_url):
    return create_app(Config(REDIS_URL=redis_url, RATE_LIMIT=0, QUICK_BAND_SCALE=SCALE, **UNLIMITED_MATCHES))


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def svc(app):
    return app.extensions["cardtable"]


def players(client, svc, game: str, ratings: dict[str, float], sigma: float) -> dict[str, str]:
    """Players of a new app with these mus (and one sigma) in the game: their tokens."""
    key = new_app(svc)
    app_id = key[4:16]
    tokens = {}
    for name, mu in ratings.items():
        tokens[name] = put_player(client, key, name)
        player = svc.players.find(app_id, name)
        stored = {"mu": mu, "sigma": sigma, "rating": mu - 3 * sigma, "matches": 9, "match": "earlier"}
        svc.trips.state.hset(f"ct:{{pl:{player.id}}}", f"rating:{game}", json.dumps(stored))
    return tokens


def quick(client, token: str, game: str, options: dict) -> dict:
    r = client.post("/v1/matches/quick", json={"game": game, "options": options}, headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_the_band_doubles_every_step_and_opens_after_four():
    assert [band(2.0, t) for t in (0, 14.9, 15, 30, 45, 59.9)] == [2, 2, 4, 8, 16, 16]
    assert band(2.0, 60) == float("inf") and band(2.0, 6, scale=0.1) == float("inf")


def test_eight_players_the_closest_first_and_the_far_one_after_the_band_widened(client, svc):
    ratings = {"far": 60, "low": 10, "mid": 16, "high": 30, "j14": 14, "j12": 12, "j31": 31, "f40": 40}
    tokens = players(client, svc, "zhol", ratings, sigma=5.0)
    # Options of their own: no other test's table waits in this part of the lobby.
    options = {"rated": True, "target_wins": 6}
    start = time.monotonic()
    hosted = {name: quick(client, tokens[name], "zhol", options) for name in ("far", "low", "mid", "high")}
    # 10, 16 and 30 are more than a sigma (5) from every match waiting when they came: each hosts.
    assert all(h["created"] and h["seat"] == 0 for h in hosted.values())
    # 14 is within the band of 10 and of 16: the closest, 16, though 10 waited longer.
    assert quick(client, tokens["j14"], "zhol", options)["id"] == hosted["mid"]["id"]
    assert quick(client, tokens["j12"], "zhol", options)["id"] == hosted["low"]["id"]
    assert quick(client, tokens["j31"], "zhol", options)["id"] == hosted["high"]["id"]
    # 40 is 20 from 60, the only match left: more than the band (5, then 10) the young match allows.
    early = quick(client, tokens["f40"], "zhol", options)
    assert time.monotonic() - start < 2 * STEP, "too slow for the scaled band: raise SCALE"
    assert early["created"]
    r = client.post(f"/v1/matches/{early['id']}/leave", headers=auth(tokens["f40"]))
    assert r.status_code == 200, r.get_json()
    # Once 60's match has waited two steps (and not three) its band is four sigmas, 20: 40 is
    # seated there.
    time.sleep(max(0.0, start + 2.5 * STEP - time.monotonic()))
    late = quick(client, tokens["f40"], "zhol", options)
    assert late["id"] == hosted["far"]["id"] and late["seat"] == 1 and not late["created"]
    assert (
        client.get(f"/v1/matches/{late['id']}", headers=auth(tokens["far"])).get_json()["status"] == "active"
    )


def test_spades_balances_the_partnerships(client, svc):
    tokens = players(client, svc, "spades", {"p30": 30, "p24": 24, "p33": 33, "p27": 27}, sigma=8.0)
    options = {"rated": True, "target_score": 150}
    host = quick(client, tokens["p30"], "spades", options)
    assert host["created"]
    seats = {name: quick(client, tokens[name], "spades", options) for name in ("p24", "p33", "p27")}
    assert {s["id"] for s in seats.values()} == {host["id"]}
    # 24 sits opposite the host (seats 0 and 2 against 1 and 3); 33 then partners 24, the one
    # that leaves the partnerships nearest; 27 takes the last seat: 30 + 27 against 24 + 33.
    assert {name: s["seat"] for name, s in seats.items()} == {"p24": 1, "p33": 3, "p27": 2}


def test_players_of_another_app_never_meet(client, svc):
    options = {"rated": True, "target_wins": 7}
    ours = players(client, svc, "zhol", {"ana": 25}, sigma=5.0)
    theirs = players(client, svc, "zhol", {"bo": 25}, sigma=5.0)
    first = quick(client, ours["ana"], "zhol", options)
    other = quick(client, theirs["bo"], "zhol", options)
    assert first["created"] and other["created"] and other["id"] != first["id"]


def test_rated_quick_play_needs_a_player_token(client):
    r = client.post("/v1/matches/quick", json={"game": "zhol", "options": {"rated": True, "target_wins": 8}})
    assert r.status_code == 422 and "rated" in r.get_json()["errors"]["options"]

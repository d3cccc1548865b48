"""Žolíky, Three Thirteen and Zhol over HTTP: people with tokens, bots through real RQ workers, the clock."""

from __future__ import annotations

import random
import time

import pytest

from engines import bots
from engines.registry import GAMES
from service.http.resources.matches.schemas import ViewSchema
from tests.api_helpers import Api, auth, bot_input, cards_in

SCHEMA = ViewSchema()


@pytest.fixture
def api(client):
    return Api(client)


def private_part(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("hand", "legal_actions", "you")}


def check_views(api: Api, match_id: str, tokens: dict[int, str]) -> None:
    """A seat sees nothing a spectator does not, except its own hand."""
    public = api.view(match_id)
    assert public["hand"] is None and SCHEMA.validate(public) == {}
    public_cards = cards_in(public)
    for seat, token in tokens.items():
        view = api.view(match_id, token)
        assert SCHEMA.validate(view) == {}, SCHEMA.validate(view)
        assert len(view["hand"]) == view["players"][seat]["cards"]
        assert cards_in(private_part(view)) <= public_cards | set(view["hand"]), seat
        assert cards_in(view["legal_actions"]) <= set(view["hand"]) | public_cards


def human_move(api: Api, game_id: str, match_id: str, token: str, rng: random.Random) -> dict:
    """One decision by a person: the engine's easy bot stands in, fed only the HTTP view."""
    view = api.view(match_id, token)
    action = bots.decide(GAMES[game_id], bot_input(view), "easy", rng)
    resp = api.act(match_id, token, action, **{"If-Match": f'"{view["version"]}"'})
    assert resp.status_code == 200, (action, resp.get_json())
    assert resp.get_json()["version"] == view["version"] + 1
    return resp.get_json()


def play_until(api, game_id, match_id, tokens, rng, done, check_every=1, max_moves=5000):
    """People move whenever it is their turn; bots move in the workers. Stop when done(view)."""
    any_token = next(iter(tokens.values()))
    for moves in range(max_moves):
        view = api.wait_for(
            match_id, any_token, lambda v: done(v) or v["status"] != "active" or v["turn"]["seat"] in tokens
        )
        if done(view) or view["status"] != "active":
            return view
        if moves % check_every == 0:
            check_views(api, match_id, tokens)
        human_move(api, game_id, match_id, tokens[view["turn"]["seat"]], rng)
    raise AssertionError("the match did not get there")


def round_over(view):
    return view["status"] in ("round_over", "finished")


# --- Žolíky ----------------------------------------------------------------------------


def test_zoliky_round_between_two_people(api):
    created = api.create("zoliky", [{"kind": "human", "name": "Ana"}, {"kind": "open"}], seed=21)
    match_id = created["id"]
    joined = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Bo"}).get_json()
    tokens = {0: created["seats"][0]["token"], 1: joined["token"]}
    view = api.view(match_id, tokens[0])
    assert view["status"] == "active" and view["table"]["closing_card"]
    assert len(view["hand"]) + len(api.view(match_id, tokens[1])["hand"]) >= 25
    view = play_until(api, "zoliky", match_id, tokens, random.Random(21), round_over, check_every=3)
    result = view["round_result"]
    assert result is not None and result["winners"]
    # The round result shows every hand.
    for seat in (0, 1):
        assert api.view(match_id, tokens[seat])["round_result"] == result
    error_of_turn = api.act(match_id, tokens[1], {"type": "draw"})
    assert error_of_turn.status_code == 409
    # The winner of the round cuts the next one; only the host starts it.
    resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[1]))
    assert resp.status_code == 403
    resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[0]))
    assert resp.status_code == 200 and resp.get_json()["round"] == 2


def test_zoliky_illegal_meld_names_the_rule(api):
    created = api.create("zoliky", [{"kind": "human"}, {"kind": "human"}], seed=5)
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    view = api.view(match_id)
    token = tokens[view["turn"]["seat"]]
    before = api.view(match_id, token)
    resp = api.act(match_id, token, {"type": "meld", "melds": [before["hand"][:3]], "lay_offs": []})
    body = resp.get_json()
    assert resp.status_code == 422 and body["error"] == "illegal_action" and len(body["message"]) > 10
    assert api.view(match_id, token) == before


def test_zoliky_against_a_bot_through_the_worker(api, worker):
    created = api.create(
        "zoliky", [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "easy"}], seed=8
    )
    match_id, token = created["id"], created["seats"][0]["token"]
    view = play_until(api, "zoliky", match_id, {0: token}, random.Random(8), round_over, check_every=5)
    assert view["round_result"]["winners"]
    bot_events = [e for e in api.events(match_id, token)["events"] if e.get("seat") == 1 and e.get("bot")]
    assert bot_events


# --- Zhol --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, players", [("small", 2), ("small", 4), ("large", 2), ("large", 4)])
def test_zhol_hand_between_people(api, variant, players):
    created = api.create(
        "zhol",
        [{"kind": "human"}] * players,
        seed=players * 10 + len(variant),
        options={"variant": variant, "turn_seconds": 600},
    )
    match_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    view = api.view(match_id, tokens[0])
    assert len(view["hand"]) == (7 if variant == "small" else 14)
    assert view["turn"]["deadline"] is not None  # more than one person: the clock runs
    view = play_until(api, "zhol", match_id, tokens, random.Random(players), round_over, check_every=9)
    result = view["round_result"]
    assert result is not None
    if result.get("winners"):
        assert view["players"][result["winners"][0]]["crowns"] == 1


def test_zhol_clock_plays_for_a_slow_player(api, worker):
    created = api.create("zhol", [{"kind": "human"}, {"kind": "human"}], seed=3, options={"turn_seconds": 5})
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    view = api.view(match_id, tokens[0])
    seat, deadline = view["turn"]["seat"], view["turn"]["deadline"]
    assert deadline == pytest.approx(time.time() + 5, abs=2)
    hand_before = len(api.view(match_id, tokens[seat])["hand"])
    # Nobody moves: the scheduler's clock job draws and discards for that seat.
    view = api.wait_for(match_id, tokens[0], lambda v: v["turn"]["seat"] != seat, timeout=30)
    assert time.time() >= deadline - 0.01
    auto = [e for e in api.events(match_id, tokens[0])["events"] if e.get("auto")]
    assert {e["type"] for e in auto} >= {"draw", "discard"} and all(e["seat"] == seat for e in auto)
    assert len(api.view(match_id, tokens[seat])["hand"]) == hand_before
    assert view["turn"]["deadline"] > deadline  # the next player's clock started


def test_zhol_against_bots_has_no_clock(api):
    created = api.create("zhol", [{"kind": "human"}, {"kind": "bot", "level": "easy"}], seed=4)
    view = api.view(created["id"], created["seats"][0]["token"])
    assert view["turn"]["deadline"] is None


def test_zhol_host_passes_in_joining_order(api, worker):
    created = api.create(
        "zhol",
        [
            {"kind": "human", "name": "Ana"},
            {"kind": "open"},
            {"kind": "open"},
            {"kind": "human", "name": "Di"},
        ],
        seed=9,
        options={"turn_seconds": 600},
    )
    match_id = created["id"]
    t0, t3 = created["seats"][0]["token"], created["seats"][3]["token"]
    # Joining order: 0 and 3 at creation, then 1 and 2 (join fills the first open seat).
    j1 = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Bo"}).get_json()
    j2 = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Cy"}).get_json()
    assert (j1["seat"], j2["seat"]) == (1, 2)
    assert api.view(match_id)["host"] == 0
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(t0))
    assert resp.status_code == 200
    view = api.view(match_id, t3)
    assert view["host"] == 3 and view["players"][0]["resigned"] and view["status"] == "active"
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(t3))
    assert api.view(match_id)["host"] == 1
    # A resigned seat is played on by a bot in the workers.
    tokens = {1: j1["token"], 2: j2["token"]}
    view = play_until(api, "zhol", match_id, tokens, random.Random(9), round_over, check_every=20)
    events = api.events(match_id)["events"]
    assert any(e.get("bot") and e.get("seat") in (0, 3) for e in events)


def test_zhol_clock_job_for_a_played_turn_does_nothing(api, app):
    created = api.create(
        "zhol", [{"kind": "human"}, {"kind": "human"}], seed=6, options={"turn_seconds": 600}
    )
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    svc = app.extensions["cardtable"]
    first_turn = svc.store.load(match_id).record["clock"]["turn"]
    seat = api.view(match_id)["turn"]["seat"]
    human_move(api, "zhol", match_id, tokens[seat], random.Random(1))  # draw
    # The same turn goes on after the draw: its clock, and deadline, stay.
    assert svc.store.load(match_id).record["clock"]["turn"] == first_turn
    human_move(api, "zhol", match_id, tokens[seat], random.Random(1))  # discard
    version = api.view(match_id)["version"]
    assert svc.clock_expired(match_id, first_turn) == "stale"
    assert api.view(match_id)["version"] == version
    assert svc.store.load(match_id).record["clock"]["turn"] == first_turn + 1


@pytest.mark.parametrize(
    ("game", "levels"),
    [
        ("spades", ["pro", "easy", "hard", "medium"]),
        ("zoliky", ["pro", "hard"]),
        ("three-thirteen", ["pro", "medium", "easy"]),
        ("zhol", ["easy", "pro", "medium", "hard"]),
    ],
)
def test_bots_of_every_level_play_a_whole_round_with_no_client(client, worker, game, levels):
    """A match of bots only: the workers chain every turn, and the next round, on their own."""
    api = Api(client)
    seats = [{"kind": "bot", "level": level} for level in levels]
    match_id = api.create(game, seats, seed=42)["id"]
    deadline = time.monotonic() + 120
    seen = 0
    while (view := api.view(match_id))["round"] < 2 and view["status"] != "finished":
        assert time.monotonic() < deadline, f"stuck at {view['status']}, round {view['round']}"
        got = api.events(match_id, after=seen, wait=2)["events"]  # long-poll for the next move
        seen = got[-1]["seq"] if got else seen
    events = api.events(match_id)["events"]
    movers = {e["seat"] for e in events if e.get("bot") and "seat" in e}
    assert movers == set(range(len(levels)))  # every level moved
    assert not any("secret" in e for e in events)  # the spectator sees no hidden card

"""The HTTP contract of docs/api.md, exercised with Spades against a real Redis and real RQ workers."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from engines import bots
from engines.registry import GAMES
from service.config import Config
from service.http.app import create_app
from service.http.resources.matches.schemas import ViewSchema
from tests.api_helpers import Api, auth, bot_input, cards_in, playable
from tests.conftest import UNLIMITED_MATCHES

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]


@pytest.fixture
def api(client):
    return Api(client)


def new_spades(api, seed=7, **body):
    created = api.create("spades", HUMANS4, seed=seed, options={"first_dealer": 3}, **body)
    return created["id"], [s["token"] for s in created["seats"]]


def to_move(api, match_id, tokens):
    seat = api.view(match_id)["turn"]["seat"]
    return seat, tokens[seat]


def error_of(resp, status, error):
    body = resp.get_json()
    assert resp.status_code == status, body
    assert body["error"] == error, body
    assert body["code"] == status and body["message"] and body["status"]
    return body


# --- catalogue and creation -------------------------------------------------


def test_games_list_describes_spades(api):
    games = {g["id"]: g for g in api.c.get("/v1/games").get_json()["games"]}
    spades = games["spades"]
    assert spades["players"] == {"min": 4, "max": 4}
    assert spades["options"]["target_score"]["default"] == 500
    assert spades["bot_levels"] == ["easy", "medium", "hard", "pro"]


def test_create_returns_tokens_only_for_humans(api):
    created = api.create(
        "spades", [HUMANS4[0], {"kind": "bot", "level": "pro"}, {"kind": "open"}, HUMANS4[1]]
    )
    assert created["version"] == 0
    kinds = [(s["kind"], "token" in s) for s in created["seats"]]
    assert kinds == [("human", True), ("bot", False), ("open", False), ("human", True)]
    tokens = [s["token"] for s in created["seats"] if "token" in s]
    assert len(set(tokens)) == 2 and all(len(t) >= 22 for t in tokens)  # ≥ 128 bits of base64
    view = api.view(created["id"], tokens[0])
    assert view["status"] == "waiting" and view["host"] == 0 and view["you"] == 0


@pytest.mark.parametrize(
    "body, field",
    [
        ({"game": "chess", "seats": HUMANS4}, "game"),
        ({"game": "spades", "seats": HUMANS4[:3]}, None),
        ({"game": "spades", "seats": HUMANS4, "options": {"target_score": "lots"}}, None),
        ({"game": "spades", "seats": HUMANS4, "options": {"no_such_option": 1}}, None),
        ({"game": "spades", "seats": [{"kind": "robot"}] * 4}, "seats"),
        ({"game": "spades", "seats": [{"kind": "bot", "level": "godlike"}] * 4}, "seats"),
        ({"game": "spades", "seats": HUMANS4, "seed": -1}, "seed"),
        ({"game": "spades", "seats": HUMANS4, "deck": ["AS"] * 52}, "deck"),
        ({"game": "spades", "seats": HUMANS4, "deck": ["XX"]}, "deck"),
        ({"seats": HUMANS4}, "game"),
    ],
)
def test_create_rejects_bad_bodies_with_422(api, body, field):
    body = error_of(api.c.post("/v1/matches", json=body), 422, "validation_error")
    if field:
        assert field in body["errors"]


def test_unreadable_json_is_400(api):
    resp = api.c.post("/v1/matches", data="{nope", headers={"Content-Type": "application/json"})
    error_of(resp, 400, "bad_request")


@pytest.mark.parametrize(
    ("data", "headers", "status", "field"),
    [
        ("{nope", {"Content-Type": "application/json"}, 400, None),
        (b"\xff\xfe", {"Content-Type": "application/json"}, 400, None),
        ('{"type": "bid"}', {"Content-Type": "text/plain"}, 422, "type"),  # not JSON: no body at all
        ("", {"Content-Type": "application/json"}, 422, "type"),
        ("[1, 2]", {"Content-Type": "application/json"}, 422, "_schema"),
        ('{"type": 5}', {"Content-Type": "application/json"}, 422, "type"),
        ('{"type": "bid", "tricks": 1}', {"Idempotency-Key": ""}, 422, "Idempotency-Key"),
        ('{"type": "bid", "tricks": 1}', {"Idempotency-Key": "k" * 201}, 422, "Idempotency-Key"),
    ],
)
def test_unparseable_actions_get_the_error_of_their_part(api, data, headers, status, field):
    """Body and headers are checked before anything else, with the fields named, and nothing changes."""
    match_id, tokens = new_spades(api)
    before = api.view(match_id)["version"]
    headers = {"Content-Type": "application/json", **headers, **auth(tokens[0])}
    resp = api.c.post(f"/v1/matches/{match_id}/actions", data=data, headers=headers)
    body = error_of(resp, status, "bad_request" if status == 400 else "validation_error")
    if field:
        assert field in body["errors"], body
    assert api.view(match_id)["version"] == before


def test_stacked_deck_forbidden_unless_allowed(redis_url):
    app = create_app(Config(REDIS_URL=redis_url, ALLOW_STACKED_DECK=False, RATE_LIMIT=0, **UNLIMITED_MATCHES))
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    resp = app.test_client().post("/v1/matches", json={"game": "spades", "seats": HUMANS4, "deck": deck})
    error_of(resp, 403, "forbidden")


def test_stacked_deck_deals_one_card_at_a_time_from_dealer_plus_one(api):
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    match_id, tokens = new_spades(api, deck=deck)
    for seat in range(4):
        # first_dealer 3: seat 0 gets deck[0], deck[4], …
        assert sorted(api.view(match_id, tokens[seat])["hand"]) == sorted(deck[seat::4])


def test_same_seed_same_deal(api):
    a, ta = new_spades(api, seed=99)
    b, tb = new_spades(api, seed=99)
    c, tc = new_spades(api, seed=100)
    hands = lambda m, t: [api.view(m, t[s])["hand"] for s in range(4)]  # noqa: E731
    assert hands(a, ta) == hands(b, tb) != hands(c, tc)


# --- tokens and errors ----------------------------------------------------------


def test_token_errors_are_401(api):
    match_id, tokens = new_spades(api)
    error_of(api.act(match_id, None, {"type": "bid", "tricks": 2}), 401, "invalid_token")
    error_of(api.act(match_id, "not-a-token", {"type": "bid", "tricks": 2}), 401, "invalid_token")
    resp = api.c.get(f"/v1/matches/{match_id}", headers={"Authorization": "Basic abc"})
    error_of(resp, 401, "invalid_token")
    other_id, other_tokens = new_spades(api)
    # A token is bound to one match.
    error_of(api.act(match_id, other_tokens[0], {"type": "bid", "tricks": 2}), 401, "invalid_token")


def test_unknown_match_is_404(api):
    error_of(api.c.get("/v1/matches/0123456789abcdef"), 404, "not_found")
    error_of(api.c.get("/v1/matches/../../etc"), 404, "not_found")
    error_of(api.c.post("/v1/matches/0123456789abcdef/join", json={}), 404, "not_found")


def test_rejected_requests_change_nothing(api):
    match_id, tokens = new_spades(api)
    before = api.view(match_id, tokens[0])
    events_before = api.events(match_id)["events"]
    seat, token = to_move(api, match_id, tokens)
    other = tokens[(seat + 1) % 4]
    error_of(api.act(match_id, other, {"type": "bid", "tricks": 3}), 409, "not_your_turn")
    error_of(api.act(match_id, token, {"type": "bid", "tricks": 14}), 422, "validation_error")
    error_of(api.act(match_id, token, {"type": "bid", "tricks": "3"}), 422, "validation_error")
    error_of(api.act(match_id, token, {"type": "fly"}), 422, "validation_error")
    error_of(api.act(match_id, token, {"tricks": 3}), 422, "validation_error")
    error_of(api.act(match_id, token, {"type": "play", "card": "AS"}), 422, "illegal_action")
    resp = api.c.post(f"/v1/matches/{match_id}/actions", json=[1, 2], headers=auth(token))
    error_of(resp, 422, "validation_error")
    error_of(
        api.act(match_id, token, {"type": "bid", "tricks": 3}, **{"If-Match": '"5"'}), 412, "version_conflict"
    )
    error_of(
        api.act(match_id, token, {"type": "bid", "tricks": 3}, **{"If-Match": "x"}), 412, "version_conflict"
    )
    after = api.view(match_id, tokens[0])
    assert after == before
    assert api.events(match_id)["events"] == events_before


def test_illegal_play_message_names_the_rule(api):
    match_id, tokens = new_spades(api, seed=3)
    for _ in range(4):
        seat, token = to_move(api, match_id, tokens)
        assert api.act(match_id, token, {"type": "bid", "tricks": 3}).status_code == 200
    seat, token = to_move(api, match_id, tokens)
    hand = api.view(match_id, token)["hand"]
    lead = next(c for c in hand if c[1] != "S")
    assert api.act(match_id, token, {"type": "play", "card": lead}).status_code == 200
    seat, token = to_move(api, match_id, tokens)
    hand = api.view(match_id, token)["hand"]
    if any(c[1] == lead[1] for c in hand) and any(c[1] != lead[1] for c in hand):
        off = next(c for c in hand if c[1] != lead[1])
        body = error_of(api.act(match_id, token, {"type": "play", "card": off}), 422, "illegal_action")
        assert "follow suit" in body["message"]
    body = error_of(api.act(match_id, token, {"type": "play", "card": "JK"}), 422, "validation_error")
    assert "card" in body["message"] or "errors" in body


def test_if_match_accepts_the_current_version(api):
    match_id, tokens = new_spades(api)
    seat, token = to_move(api, match_id, tokens)
    resp = api.act(match_id, token, {"type": "bid", "tricks": 2}, **{"If-Match": '"0"'})
    assert resp.status_code == 200
    assert resp.get_json()["version"] == 1 and resp.headers["ETag"] == f'"1-{seat}"'
    # The ETag a seat's view carries is itself a valid If-Match.
    seat, token = to_move(api, match_id, tokens)
    etag = api.c.get(f"/v1/matches/{match_id}", headers=auth(token)).headers["ETag"]
    assert etag == f'"1-{seat}"'
    resp = api.act(match_id, token, {"type": "bid", "tricks": 3}, **{"If-Match": etag})
    assert resp.status_code == 200, resp.get_json()
    error_of(
        api.act(match_id, token, {"type": "bid", "tricks": 3}, **{"If-Match": etag}), 412, "version_conflict"
    )


def test_idempotency_key_replays_the_first_answer(api, app):
    match_id, tokens = new_spades(api)
    seat, token = to_move(api, match_id, tokens)
    key = {"Idempotency-Key": "bid-once"}
    first = api.act(match_id, token, {"type": "bid", "tricks": 4}, **key)
    again = api.act(match_id, token, {"type": "bid", "tricks": 4}, **key)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert api.view(match_id)["version"] == 1  # applied once
    error_of(api.act(match_id, token, {"type": "bid", "tricks": 5}, **key), 422, "idempotency_key_reused")
    # A rejected request stores nothing: the same key works once the request is right.
    nxt, ntoken = to_move(api, match_id, tokens)
    key2 = {"Idempotency-Key": "k2"}
    error_of(api.act(match_id, ntoken, {"type": "bid", "tricks": 99}, **key2), 422, "validation_error")
    assert api.act(match_id, ntoken, {"type": "bid", "tricks": 1}, **key2).status_code == 200


def test_idempotency_key_in_progress_is_409(api, app):
    match_id, tokens = new_spades(api)
    seat, token = to_move(api, match_id, tokens)
    store = app.extensions["cardtable"].store
    import hashlib

    # A request with this key is running right now (claimed, answer not yet stored).
    full = store.idempotency_key(match_id, seat, hashlib.sha256(b"slow").hexdigest())
    assert store.claim_idempotency(full) is None
    resp = api.act(match_id, token, {"type": "bid", "tricks": 4}, **{"Idempotency-Key": "slow"})
    error_of(resp, 409, "idempotency_in_progress")
    assert api.view(match_id)["version"] == 0


def test_rate_limit_is_429_with_retry_after(redis_url):
    # A Redis db of its own: the address's count would take other tests' requests of this second.
    url = redis_url.rsplit("/", 1)[0] + "/4"
    app = create_app(Config(REDIS_URL=url, ALLOW_STACKED_DECK=True, RATE_LIMIT=3, **UNLIMITED_MATCHES))
    c = app.test_client()
    created = Api(c).create("spades", HUMANS4)
    match_id, token = created["id"], created["seats"][0]["token"]
    for path in ("/v1/games", f"/v1/matches/{match_id}"):
        # Within one second at most 3 pass; the window may roll over once mid-burst.
        statuses = [c.get(path, headers=auth(token)).status_code for _ in range(8)]
        assert statuses.count(200) <= 6 and 429 in statuses, statuses
        limited = c.get(path, headers=auth(token))
        while limited.status_code != 429:
            limited = c.get(path, headers=auth(token))
        body = limited.get_json()
        assert body["error"] == "rate_limited" and int(limited.headers["Retry-After"]) >= 1
    # Another client (another token, from its own address) is not limited by the first one's traffic.
    other = {"REMOTE_ADDR": "127.0.0.2"}
    assert (
        c.get(
            f"/v1/matches/{match_id}", headers=auth(created["seats"][1]["token"]), environ_base=other
        ).status_code
        == 200
    )
    # Health checks are never limited.
    assert all(c.get("/healthz").status_code == 200 for _ in range(8))


# --- seats ---------------------------------------------------------------------


def test_join_open_seats_then_match_starts(api):
    created = api.create(
        "spades", [HUMANS4[0], {"kind": "open"}, {"kind": "open"}, {"kind": "bot", "level": "easy"}]
    )
    match_id, host = created["id"], created["seats"][0]["token"]
    assert api.view(match_id)["status"] == "waiting"
    error_of(api.act(match_id, host, {"type": "bid", "tricks": 1}), 409, "match_not_active")
    j1 = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Eve"}).get_json()
    assert j1["seat"] == 1 and api.view(match_id)["status"] == "waiting"
    j2 = api.c.post(f"/v1/matches/{match_id}/join", json={}).get_json()
    assert j2["seat"] == 2
    view = api.view(match_id, j2["token"])
    assert view["status"] == "active" and view["you"] == 2 and len(view["hand"]) == 13
    assert view["players"][1]["name"] == "Eve"
    error_of(api.c.post(f"/v1/matches/{match_id}/join", json={}), 409, "match_not_active")


def test_leave_while_waiting_frees_the_seat_and_passes_host(api):
    created = api.create("spades", [HUMANS4[0], {"kind": "open"}, HUMANS4[1], {"kind": "open"}])
    match_id, t0, t2 = created["id"], created["seats"][0]["token"], created["seats"][2]["token"]
    assert api.view(match_id)["host"] == 0
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(t0))
    assert resp.status_code == 200
    view = api.view(match_id, t2)
    assert view["host"] == 2 and view["players"][0]["kind"] == "open"
    error_of(api.c.get(f"/v1/matches/{match_id}", headers=auth(t0)), 401, "invalid_token")
    api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(t2))
    assert api.view(match_id)["status"] == "aborted"


def test_leave_during_play_resigns_and_the_team_loses(api):
    match_id, tokens = new_spades(api)
    resp = api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[1]))
    assert resp.status_code == 200
    view = api.view(match_id, tokens[1])  # the token can still read the match
    assert view["status"] == "finished" and sorted(view["winners"]) == [0, 2]
    assert view["players"][1]["resigned"] is True
    error_of(api.act(match_id, tokens[0], {"type": "bid", "tricks": 1}), 409, "match_not_active")


def test_resign_action_and_history_after_the_end(api):
    match_id, tokens = new_spades(api, seed=1234)
    error_of(api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[1])), 409, "match_not_active")
    hands = {s: api.view(match_id, tokens[s])["hand"] for s in range(4)}
    assert api.act(match_id, tokens[0], {"type": "resign"}).status_code == 200
    # Every call about a match but its public view and events needs a token, history too.
    error_of(api.c.get(f"/v1/matches/{match_id}/history"), 401, "invalid_token")
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[2])).get_json()
    assert history["seed"] == 1234
    assert sorted(history["deck"]) == sorted(r + s for s in "SHDC" for r in "A23456789TJQK")
    for s in range(4):
        assert sorted(history["deck"][s::4]) == sorted(hands[s])
    # The history is unredacted: the deal shows every seat's cards.
    assert cards_in(history["events"]) >= set().union(*map(set, hands.values()))


def test_a_finished_match_is_archived_compactly_and_reads_the_same(api, app):
    """A whole 500-point match: afterwards its events live compressed in the match hash, the
    events and history calls answer exactly as before, and it takes under 64 KB of Redis."""
    match_id, tokens = new_spades(api, seed=2026)
    store = app.extensions["cardtable"].store
    rng = random.Random(2026)
    before: dict[int | None, list[dict]] = {0: [], 1: [], None: []}
    while (view := api.view(match_id))["status"] != "finished":
        if view["status"] == "round_over":
            assert api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[0])).status_code == 200
            continue
        seat, token = to_move(api, match_id, tokens)
        mine = api.view(match_id, token)
        # A real match length: the hard bot's choice from the seat's own view (random bids
        # would drift below zero and never end).
        action = bots.decide(GAMES["spades"], bot_input(mine), "hard", rng)
        for who, seen in before.items():  # each viewer's events so far, read as play goes
            seen += api.events(match_id, tokens[who] if who is not None else None, after=len(seen))["events"]
        assert api.act(match_id, token, action).status_code == 200
    assert view["winners"] and max(view["scores"].values()) >= 500
    key = f"ct:{{m:{match_id}}}"
    assert not store.state.exists(f"{key}:events") and store.state.hexists(f"{key}:match", "z")
    memory = store.memory_usage(match_id)
    assert 0 < memory < 64 * 1024, memory
    for who, old in before.items():
        now = api.events(match_id, tokens[who] if who is not None else None)["events"]
        assert now[: len(old)] == old and len(now) > len(old) and now[-1]["type"] == "match_over"
        assert [e["seq"] for e in now] == list(range(1, len(now) + 1))
        assert api.events(match_id, after=len(now) - 3)["events"] == api.events(match_id)["events"][-3:]
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[0])).get_json()
    assert len(history["events"]) == len(now) and any("secret" in e for e in history["events"])


def test_only_the_host_starts_the_next_round(api):
    match_id, tokens = new_spades(api, seed=5)
    error_of(api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[0])), 409, "match_not_active")
    play_hand(api, match_id, tokens, random.Random(5))
    assert api.view(match_id)["status"] == "round_over"
    error_of(api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[1])), 403, "forbidden")
    resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[0]))
    assert resp.status_code == 200 and resp.get_json()["status"] == "active" and resp.get_json()["round"] == 2


# --- hidden information -------------------------------------------------------------


def play_hand(api, match_id, tokens, rng, check=None):
    """Play one hand with random legal actions over HTTP; `check()` runs before every step."""
    while api.view(match_id)["status"] == "active":
        if check:
            check()
        seat, token = to_move(api, match_id, tokens)
        view = api.view(match_id, token)
        version = view["version"]
        resp = api.act(match_id, token, rng.choice(playable(view)), **{"If-Match": f'"{version}"'})
        assert resp.status_code == 200, resp.get_json()
        assert resp.get_json()["version"] == version + 1


def test_no_view_or_event_shows_a_card_its_seat_may_not_see(api):
    match_id, tokens = new_spades(api, seed=77)
    schema = ViewSchema()

    def check():
        played = cards_in([e for e in api.events(match_id)["events"] if e["type"] in ("play", "trick")])
        public = api.view(match_id)
        assert public["hand"] is None
        assert cards_in(public) <= played
        assert schema.validate(public) == {}
        for s in range(4):
            view = api.view(match_id, tokens[s])
            assert schema.validate(view) == {}
            own = set(view["hand"])
            assert len(view["hand"]) == view["players"][s]["cards"]
            assert cards_in(view) <= own | played, s
            # Events for a seat never show another seat's dealt cards.
            seen = cards_in(api.events(match_id, tokens[s])["events"])
            assert seen <= played | dealt[s], s
        assert '"seed"' not in json.dumps(public)  # the key (`seeded_by_client` is public)

    dealt = {s: set(api.view(match_id, tokens[s])["hand"]) for s in range(4)}
    play_hand(api, match_id, tokens, random.Random(77), check)
    result = api.view(match_id)["round_result"]
    assert result is not None


# --- events -------------------------------------------------------------------------


def test_events_long_poll_wakes_on_a_move(api):
    match_id, tokens = new_spades(api)
    last = api.events(match_id)["events"][-1]["seq"]
    seat, token = to_move(api, match_id, tokens)
    got = {}

    def poll():
        start = time.monotonic()
        got["body"] = api.events(match_id, after=last, wait=10)
        got["took"] = time.monotonic() - start

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    assert api.act(match_id, token, {"type": "bid", "tricks": 3}).status_code == 200
    thread.join(15)
    events = got["body"]["events"]
    assert [e["type"] for e in events] == ["bid"] and events[0]["seat"] == seat
    assert events[0]["seq"] == last + 1 and got["body"]["version"] == 1
    assert got["took"] < 9  # woken by the move, not by the timeout


def test_events_wait_returns_empty_after_timeout(api):
    match_id, _ = new_spades(api)
    last = api.events(match_id)["events"][-1]["seq"]
    start = time.monotonic()
    body = api.events(match_id, after=last, wait=0.5)
    assert body["events"] == [] and time.monotonic() - start >= 0.4
    error_of(api.c.get(f"/v1/matches/{match_id}/events?wait=31"), 422, "validation_error")
    error_of(api.c.get(f"/v1/matches/{match_id}/events?after=x"), 422, "validation_error")


def test_stream_sends_server_sent_events(api):
    match_id, tokens = new_spades(api)
    resp = api.c.get(f"/v1/matches/{match_id}/stream", headers=auth(tokens[0]), buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    chunks = []
    for chunk in resp.response:
        chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        if sum(c.count("\nevent: ") for c in chunks) >= 3:
            break
    resp.close()
    text = "".join(chunks)
    assert "event: match_created" in text and "event: deal" in text and "id: 1\n" in text


# --- bots through the worker -------------------------------------------------------------


def test_one_human_plays_a_hand_against_three_bots(api, worker):
    created = api.create(
        "spades",
        [
            HUMANS4[0],
            {"kind": "bot", "level": "easy"},
            {"kind": "bot", "level": "medium"},
            {"kind": "bot", "level": "hard"},
        ],
        seed=11,
        options={"first_dealer": 0},  # seat 1 (a bot) bids first: the worker must start on its own
    )
    match_id, token = created["id"], created["seats"][0]["token"]
    rng = random.Random(11)
    moves = 0
    while True:
        view = api.wait_for(match_id, token, lambda v: v["status"] != "active" or v["turn"]["seat"] == 0)
        if view["status"] != "active":
            break
        resp = api.act(match_id, token, rng.choice(playable(view)))
        assert resp.status_code == 200, resp.get_json()
        moves += 1
    assert view["status"] == "round_over" and moves == 14  # one bid and 13 cards
    events = api.events(match_id, token)["events"]
    bot_moves = [e for e in events if e["type"] in ("bid", "play") and e["seat"] != 0]
    assert len(bot_moves) == 3 * 14 and all(e.get("bot") for e in bot_moves)
    # version rose by exactly one per accepted action
    assert view["version"] == 4 * 14
    # the human starts the next hand, and bots carry on
    resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(token))
    assert resp.status_code == 200


def test_a_scripted_client_plays_a_whole_match_against_three_bots(api, worker):
    """docs/api.md only: create, read the view, act when it is our turn, start each next hand, to 500."""
    seats = [HUMANS4[0]] + [{"kind": "bot", "level": level} for level in ("hard", "medium", "hard")]
    created = api.create("spades", seats, seed=500)
    match_id, token = created["id"], created["seats"][0]["token"]
    rng = random.Random(500)
    hands = 0
    while True:
        view = api.wait_for(
            match_id, token, lambda v: v["status"] != "active" or v["turn"]["seat"] == 0, timeout=60
        )
        if view["status"] == "finished":
            break
        if view["status"] == "round_over":
            hands += 1
            assert api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(token)).status_code == 200
            continue
        # the client decides from its own view, here with the hard bot's rules
        resp = api.act(match_id, token, bots.decide(GAMES["spades"], bot_input(view), "hard", rng))
        assert resp.status_code == 200, resp.get_json()
    assert hands >= 2 and view["winners"] and max(view["scores"].values()) >= 500
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(token)).get_json()
    assert history["seed"] == 500 and history["events"][-1]["type"] == "match_over"


# --- service endpoints ---------------------------------------------------------------------


def test_health_ready_metrics(api, worker):
    assert api.c.get("/healthz").get_json() == {"status": "ok"}
    assert api.c.get("/readyz").get_json() == {"status": "ready"}
    text = api.c.get("/metrics").get_data(as_text=True)
    assert "cardtable_workers 2" in text and "# TYPE cardtable_queue_jobs gauge" in text

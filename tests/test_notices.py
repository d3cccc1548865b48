"""Notices: what each commit of an app's match tells its apps and players (service/matches/notices.py),
as the notice sinks receive them in the process that commits."""

from __future__ import annotations

import random

import pytest

from engines.cards import is_card
from tests.api_helpers import Api, auth
from tests.test_api_games import human_move, play_until, round_over
from tests.test_player_feed import play_turn
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows


@pytest.fixture
def told(svc):
    """Every notice the in-process service hands on, in order (committer and relay alike)."""
    seen: list[tuple[str, dict, bool]] = []

    def sink(match_id: str, notices: list[dict], relayed: bool) -> None:
        seen.extend((match_id, n, relayed) for n in notices)

    svc.repo.notice_sinks.append(sink)
    yield seen
    svc.repo.notice_sinks.remove(sink)


def app_id(key: str) -> str:
    return key[len("ctk_") :].split(".")[0]


def test_a_players_match_tells_its_app_of_creation_start_each_new_turn_and_the_end(client, svc, told):
    key = new_app(svc)
    app = app_id(key)
    tokens = {i: put_player(client, key, p) for i, p in enumerate(["n-ana", "n-bo"])}
    seats = [{"kind": "human", "player": "n-ana"}, {"kind": "human", "player": "n-bo"}]
    r = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key))
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["id"]
    kinds = [n["type"] for m, n, _ in told if m == match_id]
    assert kinds[:3] == ["match.created", "match.started", "turn.started"]
    created = told[0][1]
    assert created["app"] == app and created["id"] == f"{match_id}-0-match.created"
    assert created["data"] == {"match": match_id, "game": "zhol", "players": {"0": "n-ana", "1": "n-bo"}}
    assert len(created["players"]) == 2  # both players' own streams
    turn = told[2][1]["data"]
    view = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])).get_json()
    mover = view["turn"]["seat"]
    assert turn["seat"] == mover and turn["player"] == ["n-ana", "n-bo"][mover]
    assert turn["version"] == 0 and turn["deadline"] == view["turn"]["deadline"]
    assert told[2][1]["players"] == [created["players"][mover]]  # only the mover's stream

    view = play_until(Api(client), "zhol", match_id, tokens, random.Random(5), round_over)
    assert view["status"] == "round_over"
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens[1]))
    notices = [n for m, n, _ in told if m == match_id]
    turns = [n["data"] for n in notices if n["type"] == "turn.started"]
    # A turn is told when it passes to another seat (or a new round begins), never twice in a row
    # for one seat's draw and discard.
    assert all(
        a["seat"] != b["seat"] or b["version"] > a["version"] + 1
        for a, b in zip(turns, turns[1:], strict=False)
    )
    assert len({n["id"] for n in notices}) == len(notices)
    over = notices[-1]
    assert over["type"] == "match.over" and over["data"]["players"] == {"0": "n-ana", "1": "n-bo"}
    final = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])).get_json()
    assert over["data"]["winners"] == final["winners"]
    # Notices say whose turn it is and how a match ended: never a card.
    assert not any(is_card(v) for v in _leaves([n["data"] for n in notices]))


def test_an_anonymous_match_tells_nobody(client, told):
    r = client.post("/v1/matches", json={"game": "zhol", "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 201
    assert [n for m, n, _ in told if m == r.get_json()["id"]] == []


def test_each_app_hears_only_of_its_own_players(client, svc, told):
    key_a, key_b = new_app(svc), new_app(svc)
    put_player(client, key_a, "x-ana")
    token_b = put_player(client, key_b, "x-bo")
    r = client.post(
        "/v1/matches",
        json={"game": "zhol", "seats": [{"kind": "human", "player": "x-ana"}, {"kind": "open"}]},
        headers=auth(key_a),
    )
    match_id = r.get_json()["id"]
    joined = client.post(f"/v1/matches/{match_id}/join", json={"name": "Bo"}, headers=auth(token_b))
    assert joined.status_code == 200, joined.get_json()
    started = [n for m, n, _ in told if m == match_id and n["type"] == "match.started"]
    by_app = {n["app"]: n["data"]["players"] for n in started}
    assert by_app == {app_id(key_a): {"0": "x-ana"}, app_id(key_b): {"1": "x-bo"}}


def test_a_resignation_ends_the_match_with_one_notice_per_app(client, svc, told):
    key = new_app(svc)
    tokens = [put_player(client, key, p) for p in ("r-ana", "r-bo")]
    seats = [{"kind": "human", "player": "r-ana"}, {"kind": "human", "player": "r-bo"}]
    r = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key))
    match_id = r.get_json()["id"]
    r = client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens[1]))
    assert r.status_code == 200
    (over,) = [n for m, n, _ in told if m == match_id and n["type"] == "match.over"]
    assert over["data"]["winners"] == [0] and over["data"]["reason"] == "resign"
    assert len(over["players"]) == 2


def test_a_rematch_is_offered_to_every_player_of_the_old_match(client, svc, told):
    key = new_app(svc)
    tokens = [put_player(client, key, p) for p in ("m-ana", "m-bo")]
    seats = [{"kind": "human", "player": "m-ana"}, {"kind": "human", "player": "m-bo"}]
    r = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key))
    old = r.get_json()["id"]
    client.post(f"/v1/matches/{old}/actions", json={"type": "resign"}, headers=auth(tokens[1]))
    again = client.post(f"/v1/matches/{old}/rematch", headers=auth(tokens[1]))
    assert again.status_code == 201, again.get_json()
    new = again.get_json()["id"]
    (offered,) = [n for m, n, _ in told if m == old and n["type"] == "rematch.offered"]
    assert offered["data"]["rematch"] == new and offered["data"]["by_seat"] == 1
    assert len(offered["players"]) == 2
    # The new match is the same app's: it hears of it too; it starts once the other asked too.
    assert [n["type"] for m, n, _ in told if m == new] == ["match.created"]
    assert client.post(f"/v1/matches/{old}/rematch", headers=auth(tokens[0])).status_code == 201
    assert [n["type"] for m, n, _ in told if m == new][:2] == ["match.created", "match.started"]


def _leaves(value):
    """Every string and number inside a JSON value."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def test_a_spades_trick_winner_who_leads_again_is_told_of_the_new_turn(client, svc, told):
    key = new_app(svc)
    names = ["t-ana", "t-bo", "t-cy", "t-di"]
    tokens = {i: put_player(client, key, p) for i, p in enumerate(names)}
    seats = [{"kind": "human", "player": p} for p in names]
    r = client.post(
        "/v1/matches",
        json={"game": "spades", "seats": seats, "options": {"turn_seconds": 600}},
        headers=auth(key),
    )
    match_id = r.get_json()["id"]
    api = Api(client)
    events = []
    while not any(e["type"] == "trick" and e["winner"] == e.get("last", e["winner"]) for e in events):
        view = play_until(api, "spades", match_id, tokens, random.Random(3), lambda v: True)
        seat = view["turn"]["seat"]
        before = api.events(match_id, tokens[0])["events"][-1]["seq"]
        human_move(api, "spades", match_id, tokens[seat], random.Random(3))
        events = [{**e, "last": seat} for e in api.events(match_id, tokens[0], after=before)["events"]]
    trick = next(e for e in events if e["type"] == "trick")
    view = api.view(match_id, tokens[0])
    told_last = [n for m, n, _ in told if m == match_id][-1]
    # The winner played the trick's last card and leads the next: a new turn, a new deadline.
    assert told_last["type"] == "turn.started" and told_last["data"]["seat"] == trick["winner"]
    assert told_last["data"]["version"] == view["version"]
    assert told_last["data"]["deadline"] == view["turn"]["deadline"]


def test_notices_a_sink_could_not_take_are_answered_and_later_relayed(client, svc, told):
    import time

    import redis

    from workers.relay import relay

    def unreachable(match_id, notices, relayed):
        if not relayed:
            raise redis.ConnectionError("the feeds' Redis is away")

    key = new_app(svc)
    for p in ("u-ana", "u-bo"):
        put_player(client, key, p)
    seats = [{"kind": "human", "player": "u-ana"}, {"kind": "human", "player": "u-bo"}]
    svc.repo.notice_sinks.insert(0, unreachable)
    try:
        r = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key))
        # The commit is stored and answered though the first sink failed to take its notices.
        assert r.status_code == 201, r.get_json()
        match_id = r.get_json()["id"]
        relay(svc, now=time.time() + 60)
    finally:
        svc.repo.notice_sinks.remove(unreachable)
    handed = [(n["type"], relayed) for m, n, relayed in told if m == match_id]
    # The sinks after the failing one took them at once; the relay handed them on again.
    assert ("match.created", False) in handed and ("match.created", True) in handed


def feed_of(svc, token: str) -> list[dict]:
    """A player's whole feed as stored (its id is in its token, service/identity/players.py)."""
    return svc.feeds.since(token[4:20], 0, 1000)[0]


def a_pair(client, svc, names: tuple[str, str]) -> tuple[str, list[str]]:
    """A Zhol match of two players of a new app: its id and their player tokens."""
    key = new_app(svc)
    tokens = [put_player(client, key, n) for n in names]
    seats = [{"kind": "human", "player": n} for n in names]
    r = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], tokens


def test_on_one_redis_a_moves_commit_writes_its_notices_to_the_players_feeds_itself(client, svc):
    if not svc.feeds.joins_commit:
        pytest.skip("on a Redis Cluster the committer publishes after its commit")
    match_id, (ana, bo) = a_pair(client, svc, ("one-ana", "one-bo"))
    # No notice sink hands the commit's notices to the feeds now: only the commit's script can.
    svc.repo.notice_sinks.remove(svc.feeds.take)
    try:
        view = play_turn(client, match_id, ana, random.Random(5))
    finally:
        svc.repo.notice_sinks.insert(0, svc.feeds.take)
    turns = [e for e in feed_of(svc, bo) if e["type"] == "turn.started"]
    assert [(e["data"]["seat"], e["data"]["version"]) for e in turns] == [(1, view["version"])]
    assert [e["seq"] for e in feed_of(svc, bo)] == [1, 2, 3]  # created, started, Bo's turn


def test_a_feed_the_commit_cannot_write_leaves_the_move_answered_and_the_relay_delivers_it_once(client, svc):
    import time

    from service.notify.feeds import feed_key
    from workers.relay import relay

    match_id, (ana, bo) = a_pair(client, svc, ("bad-ana", "bad-bo"))
    before = feed_of(svc, bo)
    state, key = svc.trips.state, feed_key(bo[4:20])
    state.delete(key)
    state.set(key, "not a list")  # a write of Bo's feed fails (WRONGTYPE) inside the commit
    view = play_turn(client, match_id, ana, random.Random(5))
    assert view["turn"]["seat"] == 1 and view["status"] == "active"  # the move is stored and answered
    state.delete(key)
    relay(svc, now=time.time() + 60)
    after = svc.feeds.since(bo[4:20], 0, 1000)[0]
    turns = [e for e in after if e["type"] == "turn.started"]
    assert [(e["data"]["seat"], e["data"]["version"]) for e in turns] == [(1, view["version"])]
    relay(svc, now=time.time() + 60)  # handed on again: stored once
    assert svc.feeds.since(bo[4:20], 0, 1000)[0] == after
    assert len(before) == 2 and [e["seq"] for e in after] == [3]

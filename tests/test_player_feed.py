"""A player's feed (service/notify/feeds.py) on the real Redis, and `GET /v1/me/events` and
`GET /v1/me/stream` over it: numbering, a notice handed on twice stored once, the last 1,000
kept, long-polls woken by a publish, SSE resumed after Last-Event-ID, a feed that ends once its
token stops holding, bad input refused, and one player's entries never served to another."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from service.identity.players import player_key
from service.notify.feeds import FEED_LENGTH, FEED_TTL, feed_key, ids_key
from tests.api_helpers import auth, playable
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows (tests/test_cluster.py re-runs these tests)


def notice(match_id: str, version: int, kind: str = "turn.started", **data) -> dict:
    """A notice as the commit's notify effect carries it (service/matches/notices.py)."""
    return {
        "id": f"{match_id}-{version}-{kind}",
        "app": "an-app-id",
        "type": kind,
        "timestamp": "2026-12-05T00:00:00.123Z",
        "data": {"match": match_id, "game": "spades", **data},
        "players": ["someone", "else"],
    }


def a_player(client, svc, external: str = "ana") -> tuple[str, str, str]:
    """A new app's player: (app key, player token, player id)."""
    key = new_app(svc)
    token = put_player(client, key, external)
    return key, token, token[4:20]


def my_events(client, token: str, query: str = "") -> dict:
    r = client.get(f"/v1/me/events{query}", headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_publish_numbers_a_players_entries_and_since_answers_those_after_a_seq(client, svc):
    _, _, pid = a_player(client, svc)
    feeds = svc.feeds
    assert feeds.since(pid, 0, 10) == ([], 0)
    feeds.publish(pid, [notice("m1", 1), notice("m1", 2, "match.over", winners=[1])])
    feeds.publish(pid, [notice("m2", 0, "match.created")])
    entries, last = feeds.since(pid, 0, 10)
    assert last == 3 and [e["seq"] for e in entries] == [1, 2, 3]
    # The entry is the notice without whom it goes to: the feed is the player's own.
    assert entries[1] == {
        "seq": 2,
        "id": "m1-2-match.over",
        "type": "match.over",
        "timestamp": "2026-12-05T00:00:00.123Z",
        "data": {"match": "m1", "game": "spades", "winners": [1]},
    }
    assert feeds.since(pid, 1, 10) == (entries[1:], 3)
    assert feeds.since(pid, 0, 2) == (entries[:2], 3)
    assert feeds.since(pid, 3, 10) == ([], 3)


def test_a_notice_handed_on_again_is_stored_once(client, svc):
    _, _, pid = a_player(client, svc)
    feeds = svc.feeds
    first = [notice("m1", 1), notice("m1", 2)]
    feeds.publish(pid, first)
    # The relay hands the same effect on again, and a later one with one notice repeated.
    feeds.publish(pid, first)
    feeds.publish(pid, [notice("m1", 2), notice("m1", 3)])
    entries, last = feeds.since(pid, 0, 10)
    assert last == 3 and [e["id"] for e in entries] == [
        "m1-1-turn.started",
        "m1-2-turn.started",
        "m1-3-turn.started",
    ]


def test_take_gives_each_notice_to_each_player_it_names_even_after_redis_lost_its_scripts(client, svc):
    _, _, ana = a_player(client, svc, "ana")
    _, _, bo = a_player(client, svc, "bo")
    feeds = svc.feeds
    both, bos = {**notice("m9", 1), "players": [ana, bo]}, {**notice("m9", 2), "players": [bo]}
    svc.trips.state.script_flush()  # as a restarted Redis: the publish script must come back
    feeds.take("m9", [both, bos], False)
    feeds.take("m9", [both, bos, {**notice("m9", 3), "players": [ana]}], True)  # the relay, again
    assert [e["id"] for e in feeds.since(ana, 0, 10)[0]] == ["m9-1-turn.started", "m9-3-turn.started"]
    assert [e["id"] for e in feeds.since(bo, 0, 10)[0]] == ["m9-1-turn.started", "m9-2-turn.started"]


def test_a_feed_keeps_its_last_entries_for_thirty_days(client, svc):
    _, _, pid = a_player(client, svc)
    feeds = svc.feeds
    for start in range(0, FEED_LENGTH + 5, 100):
        feeds.publish(pid, [notice("m1", v) for v in range(start, min(start + 100, FEED_LENGTH + 5))])
    entries, last = feeds.since(pid, 0, 2 * FEED_LENGTH)
    assert last == FEED_LENGTH + 5
    assert [e["seq"] for e in entries] == list(range(6, FEED_LENGTH + 6))
    # A client behind the kept entries gets the oldest kept one first (its seq says what was lost).
    assert feeds.since(pid, 2, 1)[0][0]["seq"] == 6
    assert feeds.since(pid, FEED_LENGTH, 10)[0][0]["seq"] == FEED_LENGTH + 1
    state = svc.trips.state
    assert state.zcard(ids_key(pid)) == FEED_LENGTH
    for key in (feed_key(pid), ids_key(pid)):
        assert FEED_TTL - 60 < state.ttl(key) <= FEED_TTL


def test_a_player_that_is_gone_gets_no_feed(client, svc):
    key, token, pid = a_player(client, svc, "gone")
    feeds = svc.feeds
    feeds.publish(pid, [notice("m1", 1)])
    assert client.delete("/v1/players/gone", headers=auth(key)).status_code == 200
    state = svc.trips.state
    assert not state.exists(feed_key(pid), ids_key(pid), player_key(pid))
    # A notice handed on after the erasure brings nothing back.
    feeds.publish(pid, [notice("m1", 2)])
    assert not state.exists(feed_key(pid), ids_key(pid), player_key(pid))
    feeds.publish("0123456789abcdef", [notice("m1", 1)])
    assert not state.exists(feed_key("0123456789abcdef"), player_key("0123456789abcdef"))


def test_my_events_answers_the_players_entries_page_by_page(client, svc):
    _, token, pid = a_player(client, svc)
    assert my_events(client, token) == {"events": [], "last": 0, "next_after": None}
    svc.feeds.publish(pid, [notice("m1", v) for v in range(5)])
    page = my_events(client, token, "?after=1&limit=2")
    assert [e["seq"] for e in page["events"]] == [2, 3] and page["last"] == 5 and page["next_after"] == 3
    page = my_events(client, token, "?after=3&limit=2")
    assert [e["seq"] for e in page["events"]] == [4, 5] and page["next_after"] is None


def until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_long_poll_wakes_on_a_publish_made_while_it_waits(client, svc):
    _, token, pid = a_player(client, svc)
    svc.feeds.publish(pid, [notice("m1", 1)])
    answer: dict = {}
    waiting_before = svc.waiters.counts()["player_long_poll"]

    def poll():
        answer["body"] = my_events(client, token, "?after=1&wait=20")

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        until(lambda: svc.waiters.counts()["player_long_poll"] > waiting_before)
        svc.feeds.publish(pid, [notice("m1", 2), notice("m1", 3)])
    finally:
        poller.join(30)
    assert [e["id"] for e in answer["body"]["events"]] == ["m1-2-turn.started", "m1-3-turn.started"]
    assert answer["body"]["last"] == 3


def read_stream(resp, entries: int) -> str:
    """What a stream sent until it held `entries` entries, or until it ended."""
    text = ""
    for chunk in resp.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.count("\nevent: ") >= entries:
            break
    return text


def test_a_stream_resumes_after_last_event_id(client, svc):
    _, token, pid = a_player(client, svc)
    svc.feeds.publish(pid, [notice("m1", v) for v in range(3)])
    resp = client.get("/v1/me/stream", headers={**auth(token), "Last-Event-ID": "1"}, buffered=False)
    try:
        assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
        text = read_stream(resp, 2)
    finally:
        resp.close()
    assert text.startswith("retry: 1000\n\n")
    assert "id: 1\n" not in text
    assert 'id: 2\nevent: turn.started\ndata: {"seq":2,"id":"m1-1-turn.started"' in text
    assert "id: 3\nevent: turn.started\n" in text
    # after= does the same when there is no Last-Event-ID (which wins when both are sent).
    resp = client.get("/v1/me/stream?after=2", headers=auth(token), buffered=False)
    try:
        text = read_stream(resp, 1)
    finally:
        resp.close()
    assert "id: 2\n" not in text and "id: 3\n" in text


@pytest.mark.parametrize("how", ["rotate", "revoke", "erase"])
def test_a_waiting_stream_ends_at_once_when_its_token_stops_holding(client, svc, how):
    key, token, pid = a_player(client, svc, "streamer")
    resp = client.get("/v1/me/stream", headers=auth(token), buffered=False)
    chunks = iter(resp.response)

    def change():
        if how == "rotate":
            assert client.post("/v1/players/streamer/token", headers=auth(key)).status_code == 200
        elif how == "revoke":
            svc.apps.revoke(key[4:16])
        else:
            assert client.delete("/v1/players/streamer", headers=auth(key)).status_code == 200

    # Made while the stream waits for its next entry (made before its wait, it is seen too).
    changer = threading.Timer(0.5, change)
    try:
        assert next(chunks) == b"retry: 1000\n\n"
        changer.start()
        rest = [c.decode() if isinstance(c, bytes) else c for c in chunks]
    finally:
        changer.join(30)
        resp.close()
    # No entry after the change, and no keep-alive either: the change woke the stream, which
    # ended then rather than after 15 s of silence.
    assert rest == []
    assert client.get("/v1/me/stream", headers=auth(token)).status_code == 401


def test_an_entry_published_after_a_rotation_never_reaches_a_stream_of_the_old_token(client, svc):
    key, token, pid = a_player(client, svc, "rotated")
    svc.feeds.publish(pid, [notice("m1", 1)])
    resp = client.get("/v1/me/stream", headers=auth(token), buffered=False)
    try:
        assert "id: 1\n" in read_stream(resp, 1)
        assert client.post("/v1/players/rotated/token", headers=auth(key)).status_code == 200
        svc.feeds.publish(pid, [notice("m1", 2)])
        rest = "".join(c.decode() if isinstance(c, bytes) else c for c in resp.response)
    finally:
        resp.close()
    assert "event:" not in rest


def test_a_long_poll_whose_token_is_rotated_while_it_waits_answers_401(client, svc):
    key, token, _ = a_player(client, svc, "poller")
    answer: dict = {}
    waiting_before = svc.waiters.counts()["player_long_poll"]

    def poll():
        r = client.get("/v1/me/events?wait=20", headers=auth(token))
        answer.update(status=r.status_code, body=r.get_json())

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        until(lambda: svc.waiters.counts()["player_long_poll"] > waiting_before)
        assert client.post("/v1/players/poller/token", headers=auth(key)).status_code == 200
    finally:
        poller.join(30)
    assert answer["status"] == 401 and answer["body"]["error"] == "invalid_token"


@pytest.mark.parametrize(
    "query",
    [
        "?after=-1",
        "?after=abc",
        "?after=2147483648",
        "?wait=abc",
        "?wait=-1",
        "?wait=nan",
        "?limit=0",
        "?limit=1001",
        "?limit=1.5",
    ],
)
def test_bad_query_is_422_and_serves_nothing(client, svc, query):
    _, token, pid = a_player(client, svc)
    svc.feeds.publish(pid, [notice("m1", 1)])
    for path in ("/v1/me/events", "/v1/me/stream"):
        if path.endswith("stream") and not query.startswith("?after"):
            continue
        r = client.get(path + query, headers=auth(token))
        assert r.status_code == 422, (path, query, r.get_data(as_text=True))
        assert r.get_json()["error"] == "validation_error"
    r = client.get("/v1/me/stream", headers={**auth(token), "Last-Event-ID": "x"})
    assert r.status_code == 422


def test_only_a_player_token_reads_a_feed(client, svc):
    key, token, _ = a_player(client, svc)
    seat = client.post("/v1/matches", json={"game": "zhol", "seats": [{"kind": "human"}] * 2}).get_json()
    for credential in (None, key, seat["seats"][0]["token"], "ctp_0000000000000000.nope", token + "x"):
        for path in ("/v1/me/events", "/v1/me/stream"):
            r = client.get(path, headers=auth(credential))
            assert r.status_code == 401, (path, credential, r.get_data(as_text=True))
            assert r.get_json()["error"] == "invalid_token"


def test_another_players_entries_are_never_served(client, svc):
    key, ana, ana_id = a_player(client, svc, "ana")
    bo = put_player(client, key, "bo")
    bo_id = bo[4:20]
    feeds = svc.feeds
    feeds.publish(ana_id, [notice("m-ana", v) for v in range(3)])
    feeds.publish(bo_id, [notice("m-bo", 0)])
    # The same match's notice to both: each feed numbers it in its own sequence.
    feeds.publish(ana_id, [notice("m-both", 0, "match.created")])
    feeds.publish(bo_id, [notice("m-both", 0, "match.created")])
    mine = my_events(client, bo, "?after=0")
    assert [(e["seq"], e["data"]["match"]) for e in mine["events"]] == [(1, "m-bo"), (2, "m-both")]
    resp = client.get("/v1/me/stream", headers=auth(bo), buffered=False)
    try:
        text = read_stream(resp, 2)
    finally:
        resp.close()
    assert "m-ana" not in text and "m-both" in text
    theirs = my_events(client, ana)["events"]
    assert [e["data"]["match"] for e in theirs] == ["m-ana", "m-ana", "m-ana", "m-both"]


def test_open_player_feeds_are_counted_by_kind_in_metrics(client, svc):
    _, token, _ = a_player(client, svc)
    resp = client.get("/v1/me/stream", headers=auth(token), buffered=False)
    try:
        next(iter(resp.response))
        assert svc.waiters.counts()["player_sse"] >= 1

        def counted() -> bool:
            text = client.get("/metrics").get_data(as_text=True)
            return any(
                line.startswith('cardtable_open_waiters{kind="player_sse"}') and int(line.split()[-1]) >= 1
                for line in text.splitlines()
            )

        until(counted)
        assert 'cardtable_open_waiters{kind="player_long_poll"}' in client.get("/metrics").get_data(
            as_text=True
        )
    finally:
        resp.close()


# --- end to end: the notices of real matches -------------------------------------------------
def play_turn(client, match_id: str, token: str, rng: random.Random) -> dict:
    """The seat's whole turn (a draw and a discard in Zhol): random legal moves, never a
    resignation, until the turn passes on; the view after it."""
    while True:
        view = client.get(f"/v1/matches/{match_id}", headers=auth(token)).get_json()
        if view["status"] != "active" or view["turn"]["seat"] != view["you"]:
            return view
        moved = client.post(
            f"/v1/matches/{match_id}/actions", json=rng.choice(playable(view)), headers=auth(token)
        )
        assert moved.status_code == 200, moved.get_json()


def resign(client, match_id: str, token: str) -> None:
    r = client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(token))
    assert r.status_code == 200, r.get_json()


def start_round_if_over(client, match_id: str, host: str) -> None:
    """A round that ended (a bot's call of zhol, say) waits for its host, whom no notice tells."""
    if client.get(f"/v1/matches/{match_id}", headers=auth(host)).get_json()["status"] == "round_over":
        assert client.post(f"/v1/matches/{match_id}/rounds", headers=auth(host)).status_code == 200


def test_one_feed_tells_a_player_of_each_turn_in_two_matches_to_their_ends(client, svc, worker):
    """Ana plays a match against a bot and one against Bo, moving only when her ONE feed says a
    turn of hers began; Bo moves when his own feed says so. Her feed holds, for each match, its
    creation and start, every turn of hers at its version, and its end; nothing of Bo's."""
    key = new_app(svc)
    ana, bo = put_player(client, key, "e2e-ana"), put_player(client, key, "e2e-bo")
    against_bot = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]}
    vs_bot = client.post("/v1/matches", json=against_bot, headers=auth(ana)).get_json()["id"]
    pair = {"game": "zhol", "seats": [{"kind": "human", "player": p} for p in ("e2e-ana", "e2e-bo")]}
    vs_bo = client.post("/v1/matches", json=pair, headers=auth(key)).get_json()["id"]
    rng = random.Random(31)
    feed: list[dict] = []
    turns = {vs_bot: 0, vs_bo: 0}
    bo_after = 0
    deadline = time.monotonic() + 240
    while sum(e["type"] == "match.over" for e in feed) < 2:
        assert time.monotonic() < deadline, [(e["data"]["match"], e["type"]) for e in feed]
        page = my_events(client, ana, f"?after={feed[-1]['seq'] if feed else 0}&wait=1")
        for e in page["events"]:
            feed.append(e)
            if e["type"] != "turn.started":
                continue
            match_id = e["data"]["match"]
            view = client.get(f"/v1/matches/{match_id}", headers=auth(ana)).get_json()
            # Told at the version the turn began, which is still the match's: nobody else moves.
            assert (view["turn"]["seat"], view["version"]) == (view["you"], e["data"]["version"])
            turns[match_id] += 1
            if match_id == vs_bot and turns[match_id] == 3:
                resign(client, vs_bot, ana)
            else:
                play_turn(client, match_id, ana, rng)
        for e in my_events(client, bo, f"?after={bo_after}")["events"]:
            bo_after = e["seq"]
            if e["type"] == "turn.started" and turns[vs_bo] >= 3:
                resign(client, vs_bo, bo)
            elif e["type"] == "turn.started":
                play_turn(client, vs_bo, bo, rng)
        for match_id in (vs_bot, vs_bo):
            start_round_if_over(client, match_id, ana)

    assert [e["seq"] for e in feed] == list(range(1, len(feed) + 1))
    assert len({e["id"] for e in feed}) == len(feed)
    for match_id in (vs_bot, vs_bo):
        mine = [e for e in feed if e["data"]["match"] == match_id]
        kinds = [e["type"] for e in mine]
        assert kinds == ["match.created", "match.started", *["turn.started"] * turns[match_id], "match.over"]
        assert all(e["data"]["player"] == "e2e-ana" and e["data"]["seat"] == 0 for e in mine[2:-1])
        assert mine[-1]["data"]["reason"] == "resign" and mine[-1]["data"]["players"]["0"] == "e2e-ana"
    assert turns[vs_bot] == 3 and turns[vs_bo] >= 3

    # The relay hands every notice on again a moment later: the feed takes none twice.
    until(lambda: svc.outbox.pending() == 0, timeout=60)
    assert my_events(client, ana, f"?after={len(feed)}&wait=1")["events"] == []

    # The same entries as one stream.
    resp = client.get("/v1/me/stream", headers=auth(ana), buffered=False)
    try:
        text = read_stream(resp, len(feed))
    finally:
        resp.close()
    sent = [json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]
    assert sent == feed


def test_a_players_long_polls_count_against_its_address_rate_limit(redis_url):
    """The count rides in the feed's read (service/notify/feeds.py); a refused query still counts."""
    from service.config import Config
    from service.http.app import create_app

    limited = create_app(Config(REDIS_URL=redis_url, RATE_LIMIT=3)).test_client()
    key = limited.application.extensions["cardtable"].apps.create("feed rate app")[1]
    token = put_player(limited, key, "rl-ana")
    for query in ("?wait=0", "?wait=-1"):
        # Within one second at most 3 pass; the window may roll over once mid-burst.
        statuses = [limited.get(f"/v1/me/events{query}", headers=auth(token)).status_code for _ in range(8)]
        assert 429 in statuses and statuses.count(429) >= 2, statuses
        limited_answer = limited.get("/v1/me/events", headers=auth(token))
        while limited_answer.status_code != 429:
            limited_answer = limited.get("/v1/me/events", headers=auth(token))
        assert limited_answer.get_json()["error"] == "rate_limited"

"""A player's feed (service/feeds.py) on the real Redis, and `GET /v1/me/events` and
`GET /v1/me/stream` over it: numbering, a notice handed on twice stored once, the last 1,000
kept, long-polls woken by a publish, SSE resumed after Last-Event-ID, a feed that ends once its
token stops holding, bad input refused, and one player's entries never served to another."""

from __future__ import annotations

import threading
import time

import pytest

from service.feeds import FEED_LENGTH, FEED_TTL, feed_key, ids_key
from service.players import player_key
from tests.api_helpers import auth
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows (tests/test_cluster.py re-runs these tests)


def notice(match_id: str, version: int, kind: str = "turn.started", seat: int | None = 0, **data) -> dict:
    """A notice as the commit's notify effect carries it (docs/architecture.md, "The outbox")."""
    suffix = f"-{seat}" if seat is not None else ""
    return {
        "id": f"{match_id}-{version}-{kind}{suffix}",
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
    feeds = svc.store.feeds
    assert feeds.since(pid, 0, 10) == ([], 0)
    feeds.publish(pid, [notice("m1", 1), notice("m1", 2, "match.over", None, winners=[1])])
    feeds.publish(pid, [notice("m2", 0, "match.created", None)])
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
    feeds = svc.store.feeds
    first = [notice("m1", 1), notice("m1", 2)]
    feeds.publish(pid, first)
    # The relay hands the same effect on again, and a later one with one notice repeated.
    feeds.publish(pid, first)
    feeds.publish(pid, [notice("m1", 2), notice("m1", 3)])
    entries, last = feeds.since(pid, 0, 10)
    assert last == 3 and [e["id"] for e in entries] == [
        "m1-1-turn.started-0",
        "m1-2-turn.started-0",
        "m1-3-turn.started-0",
    ]


def test_a_feed_keeps_its_last_entries_for_thirty_days(client, svc):
    _, _, pid = a_player(client, svc)
    feeds = svc.store.feeds
    for start in range(0, FEED_LENGTH + 5, 100):
        feeds.publish(pid, [notice("m1", v) for v in range(start, min(start + 100, FEED_LENGTH + 5))])
    entries, last = feeds.since(pid, 0, 2 * FEED_LENGTH)
    assert last == FEED_LENGTH + 5
    assert [e["seq"] for e in entries] == list(range(6, FEED_LENGTH + 6))
    # A client behind the kept entries gets the oldest kept one first (its seq says what was lost).
    assert feeds.since(pid, 2, 1)[0][0]["seq"] == 6
    assert feeds.since(pid, FEED_LENGTH, 10)[0][0]["seq"] == FEED_LENGTH + 1
    state = svc.store.state
    assert state.zcard(ids_key(pid)) == FEED_LENGTH
    for key in (feed_key(pid), ids_key(pid)):
        assert FEED_TTL - 60 < state.ttl(key) <= FEED_TTL


def test_a_player_that_is_gone_gets_no_feed(client, svc):
    key, token, pid = a_player(client, svc, "gone")
    feeds = svc.store.feeds
    feeds.publish(pid, [notice("m1", 1)])
    assert client.delete("/v1/players/gone", headers=auth(key)).status_code == 200
    state = svc.store.state
    assert not state.exists(feed_key(pid), ids_key(pid), player_key(pid))
    # A notice handed on after the erasure brings nothing back.
    feeds.publish(pid, [notice("m1", 2)])
    assert not state.exists(feed_key(pid), ids_key(pid), player_key(pid))
    feeds.publish("0123456789abcdef", [notice("m1", 1)])
    assert not state.exists(feed_key("0123456789abcdef"), player_key("0123456789abcdef"))


def test_my_events_answers_the_players_entries_page_by_page(client, svc):
    _, token, pid = a_player(client, svc)
    assert my_events(client, token) == {"events": [], "last": 0, "next_after": None}
    svc.store.feeds.publish(pid, [notice("m1", v) for v in range(5)])
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
    svc.store.feeds.publish(pid, [notice("m1", 1)])
    answer: dict = {}
    waiting_before = svc.waiters.counts()["player_long_poll"]

    def poll():
        answer["body"] = my_events(client, token, "?after=1&wait=20")

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        until(lambda: svc.waiters.counts()["player_long_poll"] > waiting_before)
        svc.store.feeds.publish(pid, [notice("m1", 2), notice("m1", 3)])
    finally:
        poller.join(30)
    assert [e["id"] for e in answer["body"]["events"]] == ["m1-2-turn.started-0", "m1-3-turn.started-0"]
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
    svc.store.feeds.publish(pid, [notice("m1", v) for v in range(3)])
    resp = client.get("/v1/me/stream", headers={**auth(token), "Last-Event-ID": "1"}, buffered=False)
    try:
        assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
        text = read_stream(resp, 2)
    finally:
        resp.close()
    assert text.startswith("retry: 1000\n\n")
    assert "id: 1\n" not in text
    assert 'id: 2\nevent: turn.started\ndata: {"seq":2,"id":"m1-1-turn.started-0"' in text
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
            svc.store.apps.revoke(key[4:16])
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
    svc.store.feeds.publish(pid, [notice("m1", 1)])
    resp = client.get("/v1/me/stream", headers=auth(token), buffered=False)
    try:
        assert "id: 1\n" in read_stream(resp, 1)
        assert client.post("/v1/players/rotated/token", headers=auth(key)).status_code == 200
        svc.store.feeds.publish(pid, [notice("m1", 2)])
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
    svc.store.feeds.publish(pid, [notice("m1", 1)])
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
    feeds = svc.store.feeds
    feeds.publish(ana_id, [notice("m-ana", v) for v in range(3)])
    feeds.publish(bo_id, [notice("m-bo", 0)])
    # The same match's notice to both: each feed numbers it in its own sequence.
    feeds.publish(ana_id, [notice("m-both", 0, "match.created", None)])
    feeds.publish(bo_id, [notice("m-both", 0, "match.created", None)])
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

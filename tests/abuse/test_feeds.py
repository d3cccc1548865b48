"""Abuse against a live `cardtable serve` (issue 39, findings 1 and 8): a feed asked past its own
seat's leave, and an address holding long-polls and streams without end."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import redis

from service.identity.apps import Apps
from tests.serve_helpers import cardtable_serve
from tests.test_serve import _call_once, call

OPEN3 = [{"kind": "open"}] * 3
WAITS = 3  # CARDTABLE_MAX_WAITS_PER_ADDRESS of this module's serve


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, str]]:
    data = str(tmp_path_factory.mktemp("abuse-tenure"))
    # One API process: an address's waits are counted in each process (docs/api.md, "Limits").
    env = {"CARDTABLE_MAX_WAITS_PER_ADDRESS": str(WAITS)}
    with cardtable_serve(data, args=("--workers", "1"), **env) as (_, base):
        yield base, data


@pytest.fixture
def base(served) -> str:
    return served[0]


def open_waiters(base: str) -> dict[str, int]:
    """The serve's open long-polls and streams by kind, as /metrics reports them."""
    status, text = _raw(base, "GET", "/metrics")
    assert status == 200, text
    found = re.findall(r'cardtable_open_waiters\{kind="(\w+)"\} (\d+)', text)
    return {kind: int(n) for kind, n in found}


def wait_for_waiters(base: str, kind: str, count: int) -> None:
    """Until the serve reports `count` open waiters of `kind` (counts are reported each second)."""
    deadline = time.monotonic() + 30
    while open_waiters(base).get(kind, 0) != count:
        assert time.monotonic() < deadline, f"never {count} open {kind}: {open_waiters(base)}"
        time.sleep(0.2)


def _raw(base: str, method: str, path: str, token: str | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=40)
    conn.request(method, path, headers={"Authorization": f"Bearer {token}"} if token else {})
    resp = conn.getresponse()
    body = resp.read().decode()
    conn.close()
    return resp.status, body


def spy_in_waiting_spades(base: str) -> tuple[str, str, int]:
    """A waiting Spades match with Ana and a spy in it: its id, the spy's token, and the seq the
    last of the spy's leave and three joins will have (the last join deals right after it)."""
    seats = [{"kind": "human", "name": "Ana"}, *OPEN3]
    status, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": seats})
    assert status == 201, created
    match_id = created["id"]
    status, spy = call(base, "POST", f"/v1/matches/{match_id}/join", {"name": "Spy"})
    assert status == 200 and spy["seat"] == 1, spy
    status, page = call(base, "GET", f"/v1/matches/{match_id}/events", token=spy["token"])
    last = page["events"][-1]["seq"]
    return match_id, spy["token"], last + 4


def spy_leaves_and_seat_is_taken(base: str, match_id: str, spy: str) -> list[str]:
    """The spy leaves; three people join (the first takes the spy's seat) and the match deals.
    The new occupant's hand."""
    status, _ = call(base, "POST", f"/v1/matches/{match_id}/leave", token=spy)
    assert status == 200
    tokens = []
    for name in ("Cy", "Di", "Ed"):
        status, joined = call(base, "POST", f"/v1/matches/{match_id}/join", {"name": name})
        assert status == 200, joined
        tokens.append(joined)
    assert tokens[0]["seat"] == 1
    status, view = call(base, "GET", f"/v1/matches/{match_id}", token=tokens[0]["token"])
    assert view["status"] == "active" and len(view["hand"]) == 13
    return view["hand"]


def carries_hand(events: list[dict], hand: list[str]) -> bool:
    """Whether any event shows a hand, or any card of `hand`."""
    text = json.dumps(events)
    return any("hand" in e for e in events) or any(re.search(rf"\b{c}\b", text) for c in hand)


def test_a_long_poll_asked_past_its_own_leave_never_gets_the_next_occupants_deal(base):
    match_id, spy, ahead = spy_in_waiting_spades(base)
    answers: list[tuple[int, dict]] = []
    poll = threading.Thread(
        target=lambda: answers.append(
            _call_once(base, "GET", f"/v1/matches/{match_id}/events?after={ahead}&wait=30", token=spy)
        )
    )
    poll.start()
    wait_for_waiters(base, "long_poll", 1)  # the spy's token was checked: the long-poll waits
    hand = spy_leaves_and_seat_is_taken(base, match_id, spy)
    poll.join(60)
    status, answer = answers[0]
    assert not carries_hand(answer.get("events", []), hand), answer
    assert status == 401 and answer["error"] == "invalid_token", answer


def test_a_stream_resumed_past_its_own_leave_closes_before_the_next_occupants_deal(base):
    match_id, spy, ahead = spy_in_waiting_spades(base)
    conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=40)
    headers = {"Authorization": f"Bearer {spy}", "Last-Event-ID": str(ahead)}
    conn.request("GET", f"/v1/matches/{match_id}/stream", headers=headers)
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.readline() == b"retry: 1000\n"  # the stream is open: its token was checked
    hand = spy_leaves_and_seat_is_taken(base, match_id, spy)
    events = []
    try:
        for line in iter(resp.readline, b""):  # until the stream ends (or shows a deal)
            if line.startswith(b"data: "):
                events.append(json.loads(line[6:]))
                if events[-1]["type"] == "deal":
                    break
    except TimeoutError:
        pytest.fail("the stream of a token that lost its seat stayed open")
    finally:
        conn.close()
    assert not carries_hand(events, hand), events
    assert events == []  # asked past the leave: nothing after it is served
    status, _ = _raw(base, "GET", f"/v1/matches/{match_id}/stream", token=spy)
    assert status == 401


FAR_AHEAD = 10**6  # an event seq no match reaches: a long-poll after it waits


def open_waiter(base: str, path: str, token: str | None = None) -> socket.socket:
    """Send a GET and leave its answer unread: a long-poll or stream waiting in the serve."""
    host, port = urlsplit(base).netloc.split(":")
    s = socket.create_connection((host, int(port)), timeout=60)
    authorization = f"Authorization: Bearer {token}\r\n" if token else ""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n{authorization}\r\n".encode())
    return s


def refused_for_waits(status: int, answer: dict) -> bool:
    return status == 429 and answer["error"] == "quota_exceeded" and answer["quota"] == "waits"


def player_token(served: tuple[str, str]) -> str:
    """A player of an app made in the serve's own Redis, as `cardtable apps create` would."""
    base, data = served
    with open(os.path.join(data, "redis.url")) as f:
        client = redis.Redis.from_url(f.read().strip())
    _, key = Apps(client).create("abuse")
    status, player = call(base, "PUT", "/v1/players/opaque-1", {"name": "Ana"}, key)
    assert status == 200, player
    return player["token"]


def test_an_address_holds_at_most_its_open_waits_and_gets_each_back_when_its_client_goes(served):
    base = served[0]
    seats = [{"kind": "human", "name": "Ana"}, *OPEN3]
    _, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": seats})
    events = f"/v1/matches/{created['id']}/events?after={FAR_AHEAD}"
    stream = f"/v1/matches/{created['id']}/stream?after={FAR_AHEAD}"
    held = [open_waiter(base, f"{events}&wait=30") for _ in range(WAITS - 1)]
    held.append(open_waiter(base, stream))
    try:
        wait_for_waiters(base, "long_poll", WAITS - 1)
        wait_for_waiters(base, "sse", 1)
        # Every place taken: one more long-poll or stream is refused, a read that waits not is not.
        status, answer = _call_once(base, "GET", f"{events}&wait=1")
        assert refused_for_waits(status, answer) and int(answer["retry_after"]) >= 1, answer
        assert refused_for_waits(*_call_once(base, "GET", stream))
        assert _call_once(base, "GET", f"{events}&wait=0")[0] == 200
        # A client that goes away gives its place back.
        held.pop(0).close()
        wait_for_waiters(base, "long_poll", WAITS - 2)
        assert _call_once(base, "GET", f"{events}&wait=1")[0] == 200
    finally:
        for s in held:
            s.close()
    wait_for_waiters(base, "long_poll", 0)
    wait_for_waiters(base, "sse", 0)


def test_a_players_feeds_count_among_the_addresss_waits(served):
    base = served[0]
    token = player_token(served)
    held = [
        open_waiter(base, f"/v1/me/events?after={FAR_AHEAD}&wait=30", token),
        open_waiter(base, f"/v1/me/stream?after={FAR_AHEAD}", token),
    ]
    _, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": [{"kind": "human"}, *OPEN3]})
    held.append(open_waiter(base, f"/v1/matches/{created['id']}/stream?after={FAR_AHEAD}"))
    try:
        wait_for_waiters(base, "player_long_poll", 1)
        wait_for_waiters(base, "player_sse", 1)
        wait_for_waiters(base, "sse", 1)
        me = f"/v1/me/events?after={FAR_AHEAD}"
        assert refused_for_waits(*_call_once(base, "GET", f"{me}&wait=1", token=token))
        assert refused_for_waits(*_call_once(base, "GET", f"/v1/me/stream?after={FAR_AHEAD}", token=token))
        held.pop(1).close()  # the player's stream goes: its place is free again
        wait_for_waiters(base, "player_sse", 0)
        assert _call_once(base, "GET", f"{me}&wait=1", token=token)[0] == 200
    finally:
        for s in held:
            s.close()

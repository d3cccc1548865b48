"""Issue 39, findings 2 and 4, tried against a live `cardtable serve` as an abuser would:

- a loop of one seat's calls (invitations, claims, hints) must neither hold up the other seats
  (their `If-Match` stays good) nor end the match. 60 invitations no longer abort a rated match
  under a low `CARDTABLE_MAX_VERSIONS`, which counts moves only; a seat is handed on by claim at
  most 10 times; hints move the version at most once a turn;
- an address without an app key holds a bounded number of live matches of any kind, and a
  match whose last person left ends (`abandoned`) instead of leaving bots to play for nobody.

Each test calls from its own loopback address (127.0.0.x), so the per-address counts of one
never touch another's.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from tests.api_helpers import playable
from tests.serve_helpers import ROOT, cardtable_serve

# Low enough that the 60 invitations reached it on the old code.
MAX_VERSIONS = 40
LIVE_MATCHES = 29
HUMAN = {"kind": "human"}
PRO = {"kind": "bot", "level": "pro"}


class Client:
    """Plain HTTP calls from one loopback address (the service counts anonymous callers by it)."""

    def __init__(self, base: str, address: str):
        parts = urlsplit(base)
        self.host, self.port, self.address = parts.hostname, parts.port, address

    def call(self, method: str, path: str, body=None, token: str | None = None, **headers: str):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=40, source_address=(self.address, 0))
        try:
            sent = {"Content-Type": "application/json"} if body is not None else {}
            if token:
                sent["Authorization"] = f"Bearer {token}"
            sent.update({k.replace("_", "-"): v for k, v in headers.items()})
            conn.request(method, path, None if body is None else json.dumps(body), sent)
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read())
        finally:
            conn.close()

    def ok(self, method: str, path: str, body=None, token: str | None = None, **headers: str):
        status, answer = self.call(method, path, body, token, **headers)
        assert status in (200, 201), (method, path, status, answer)
        return answer

    def events(self, match_id: str, token: str | None = None, after: int = 0, wait: float = 0) -> list:
        return self.ok("GET", f"/v1/matches/{match_id}/events?after={after}&wait={wait}", token=token)[
            "events"
        ]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("abuse-loops")
    env = {
        "CARDTABLE_MAX_VERSIONS": str(MAX_VERSIONS),
        "CARDTABLE_ANONYMOUS_LIVE_MATCHES": str(LIVE_MATCHES),
        "CARDTABLE_RATE_LIMIT": "0",
        "CARDTABLE_LOG_LEVEL": "WARNING",
    }
    with cardtable_serve(str(data), **env) as (_, base):
        yield base, str(data)


def new_app(data_dir: str) -> str:
    """An app key, made as the operator makes one (`cardtable apps create`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDTABLE_STATE_URL")}
    env["PYTHONPATH"] = ROOT
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", "create", "Loops", "--json", "--data-dir", data_dir],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)["key"]


def rated_pair(api: Client, key: str) -> tuple[str, dict[str, str]]:
    tokens = {p: api.ok("PUT", f"/v1/players/{p}", {"name": p.title()}, key)["token"] for p in ("ana", "bo")}
    seats = [{"kind": "human", "player": p} for p in ("ana", "bo")]
    created = api.ok("POST", "/v1/matches", {"game": "zhol", "seats": seats, "options": {"rated": True}}, key)
    return created["id"], tokens


def test_sixty_invitations_leave_a_rated_match_as_it_was_and_it_ends_rated(served):
    base, data_dir = served
    api = Client(base, "127.0.0.2")
    key = new_app(data_dir)
    match_id, tokens = rated_pair(api, key)
    view = api.ok("GET", f"/v1/matches/{match_id}", token=tokens["ana"])
    mover = ("ana", "bo")[view["turn"]["seat"]]
    loser = "bo" if mover == "ana" else "ana"
    version, events = view["version"], api.events(match_id)
    # The losing seat loops invitations: each answers, and none is a change anyone else sees.
    answers = [api.call("POST", f"/v1/matches/{match_id}/invite", token=tokens[loser]) for _ in range(60)]
    seen = api.ok("GET", f"/v1/matches/{match_id}", token=tokens[mover])
    assert seen["status"] == "active", [e for e in api.events(match_id) if e["type"] == "match_over"]
    assert [status for status, _ in answers] == [200] * 60
    assert {invited["version"] for _, invited in answers} == {version}
    assert api.events(match_id) == events and seen["version"] == version
    # The other seat's If-Match, read before the loop, is still the match's version.
    action = playable(seen)[0]
    moved = api.ok("POST", f"/v1/matches/{match_id}/actions", action, tokens[mover], If_Match=str(version))
    assert moved["version"] == version + 1
    # The match ends by its rules (here a resignation), rated.
    api.ok("POST", f"/v1/matches/{match_id}/actions", {"type": "resign"}, tokens[loser])
    over = api.events(match_id, tokens[mover])[-1]
    assert over["type"] == "match_over" and over["reason"] == "resign"
    seats = {"ana": "0", "bo": "1"}
    for player in (mover, loser):
        moved = over["ratings"][seats[player]]["after"]["rating"]
        assert api.ok("GET", f"/v1/players/{player}", token=key)["ratings"]["zhol"]["rating"] == moved
    assert over["ratings"][seats[mover]]["after"]["rating"] > over["ratings"][seats[loser]]["after"]["rating"]


def test_a_seat_is_handed_on_by_claim_at_most_ten_times(served):
    base, _ = served
    api = Client(base, "127.0.0.3")
    created = api.ok("POST", "/v1/matches", {"game": "zoliky", "seats": [HUMAN, HUMAN]})
    match_id, token = created["id"], created["seats"][1]["token"]
    for _ in range(10):
        code = api.ok("POST", f"/v1/matches/{match_id}/invite", token=token)["code"]
        token = api.ok("POST", f"/v1/matches/{match_id}/claim", {"code": code})["token"]
    status, refused = api.call("POST", f"/v1/matches/{match_id}/invite", token=token)
    assert status == 409 and refused["error"] == "match_not_active", refused
    assert "10" in refused["message"]
    view = api.ok("GET", f"/v1/matches/{match_id}", token=token)
    assert view["status"] == "active" and view["you"] == 1  # the last holder keeps the seat


def test_hints_move_the_version_at_most_once_a_turn_whatever_the_other_seat_does(served):
    base, _ = served
    api = Client(base, "127.0.0.4")
    body = {"game": "spades", "seats": [HUMAN] * 4, "options": {"hints": True, "first_dealer": 3}}
    created = api.ok("POST", "/v1/matches", body)
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    view = api.ok("GET", f"/v1/matches/{match_id}", token=tokens[0])
    mover, other = 0, 1
    assert view["turn"]["seat"] == mover
    version = view["version"]
    first = api.ok("GET", f"/v1/matches/{match_id}/hint", token=tokens[mover])
    # The other seat hands its seat on and on while the seat to move asks for its hint again.
    for _ in range(5):
        code = api.ok("POST", f"/v1/matches/{match_id}/invite", token=tokens[other])["code"]
        tokens[other] = api.ok("POST", f"/v1/matches/{match_id}/claim", {"code": code})["token"]
        again = api.ok("GET", f"/v1/matches/{match_id}/hint", token=tokens[mover])
        assert again["hints_used"] == 1 and again["action"] == first["action"]
    view = api.ok("GET", f"/v1/matches/{match_id}", token=tokens[mover])
    assert view["players"][mover]["hints_used"] == 1
    assert view["version"] == version + 1 + 5  # the one hint and the five claims
    assert again["version"] == view["version"]  # the answer's version is the match's now


def test_an_address_without_an_app_key_holds_a_bounded_number_of_live_matches(served):
    base, _ = served
    api = Client(base, "127.0.0.5")
    created, answers = [], []
    for _ in range(LIVE_MATCHES + 1):
        status, answer = api.call("POST", "/v1/matches", {"game": "zoliky", "seats": [HUMAN, HUMAN]})
        answers.append(status)
        if status == 201:
            created.append(answer)
    assert answers == [201] * LIVE_MATCHES + [429], answers
    status, refused = api.call("POST", "/v1/matches", {"game": "zoliky", "seats": [HUMAN, HUMAN]})
    assert status == 429 and refused["error"] == "quota_exceeded" and refused["quota"] == "matches"
    # Quick play that would host a new match counts too.
    status, quick = api.call("POST", "/v1/matches/quick", {"game": "spades"})
    assert status == 429 and quick["quota"] == "matches", quick
    # Another address is not held back by this one's matches.
    assert Client(base, "127.0.0.6").call("POST", "/v1/matches/quick", {"game": "spades"})[0] == 200
    # One of them over (a seat left: Žolíky ends), its place is free again.
    api.ok("POST", f"/v1/matches/{created[0]['id']}/leave", token=created[0]["seats"][0]["token"])
    assert api.call("POST", "/v1/matches", {"game": "zoliky", "seats": [HUMAN, HUMAN]})[0] == 201


@pytest.mark.parametrize("how", ["leave", "resign"])
def test_the_last_person_gone_ends_the_match_and_no_bot_plays_for_nobody(served, how):
    base, _ = served
    api = Client(base, "127.0.0.7")
    created = api.ok("POST", "/v1/matches", {"game": "three-thirteen", "seats": [HUMAN, PRO, PRO]})
    match_id, token = created["id"], created["seats"][0]["token"]
    if how == "leave":
        api.ok("POST", f"/v1/matches/{match_id}/leave", token=token)
    else:
        api.ok("POST", f"/v1/matches/{match_id}/actions", {"type": "resign"}, token)
    view = api.ok("GET", f"/v1/matches/{match_id}", token=token)
    assert view["status"] == "aborted", view["status"]
    events = api.events(match_id)
    (over,) = [e for e in events if e["type"] == "match_over"]
    assert over["reason"] == "abandoned" and over["winners"] == []
    bot_moves = [e for e in events if e.get("bot")]
    # No bot turn after the end: a long-poll past the last event hears nothing more.
    assert api.events(match_id, after=events[-1]["seq"], wait=3) == []
    assert [e for e in api.events(match_id) if e.get("bot")] == bot_moves

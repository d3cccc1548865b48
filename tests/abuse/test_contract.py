"""The contract holds from outside (issue 39, item 9), against a live `cardtable serve`: an
integer written with a fraction (`4.0`, as Swift's JSONEncoder writes a Double) is that integer
wherever the document says integer; a bearer that is no credential of the call is refused 401
on create, join, claim and quick play instead of being taken as an anonymous caller; and what
each event stream sends is what its document describes, event by event (docs/api.md, "Numbers",
"Bearers", "Events")."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import jsonschema_rs
import pytest

from tests.serve_helpers import ROOT, cardtable_serve
from tests.test_contract_examples import DOC, sse_events

HUMAN = {"kind": "human", "name": "Ana"}
BOT = {"kind": "bot", "level": "easy"}
OPEN = {"kind": "open"}
# Each bearer below is tried on a match of its own, waiting for its open seat.
LIMITS = {"CARDTABLE_ANONYMOUS_WAITING_MATCHES": "50"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One live serve for the module: its data directory (for `cardtable apps`) and base URL.
    A stream ends after 2 s here, so reading one whole costs little."""
    data = tmp_path_factory.mktemp("serve")
    env = {"CARDTABLE_STREAM_SECONDS": "2", "CARDTABLE_RATE_LIMIT": "0", **LIMITS}
    with cardtable_serve(str(data), **env) as (_, base):
        yield str(data), base


@pytest.fixture
def base(served):
    return served[1]


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    raw: bytes | None = None,
    authorization: str | None = None,
) -> tuple[int, Any]:
    """One request; `raw` is sent as the JSON body byte for byte (numbers as written)."""
    req = urllib.request.Request(base + path, method=method)
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    if authorization is not None:
        req.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(req, data, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def view(base: str, match_id: str, token: str | None = None) -> dict:
    status, answer = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    assert status == 200, answer
    return answer


def my_turn(base: str, match_id: str, token: str) -> dict:
    """The seat's view once it is the seat's turn (the bots move on their own meanwhile)."""
    deadline = time.monotonic() + 60
    while True:
        seen = view(base, match_id, token)
        if seen["status"] == "active" and seen["turn"]["seat"] == seen["you"]:
            return seen
        assert time.monotonic() < deadline, seen
        time.sleep(0.2)


# --- numbers ---------------------------------------------------------------------------------


def test_an_integer_written_with_a_fraction_is_that_integer_in_options_quick_play_and_moves(base):
    # Create: an option and the seed written as Swift writes a Double.
    raw = b'{"game": "spades", "seats": [%s, %s, %s, %s], "options": {"target_score": 300.0}, "seed": 7.0}'
    raw %= tuple(json.dumps(s).encode() for s in (HUMAN, BOT, BOT, BOT))
    status, created = call(base, "POST", "/v1/matches", raw=raw)
    assert status == 201, created
    match_id, token = created["id"], created["seats"][0]["token"]
    assert view(base, match_id)["options"]["target_score"] == 300

    # A move: Spades' bid of 4 tricks written 4.0 is the bid of 4.
    seen = my_turn(base, match_id, token)
    assert any(a["type"] == "bid" for a in seen["legal_actions"]), seen["legal_actions"]
    bid = b'{"type": "bid", "tricks": 4.0}'
    status, played = call(base, "POST", f"/v1/matches/{match_id}/actions", raw=bid, token=token)
    assert status == 200, played
    status, page = call(base, "GET", f"/v1/matches/{match_id}/events?after=0", token=token)
    assert status == 200
    bids = [e for e in page["events"] if e["type"] == "bid" and e["seat"] == seen["you"]]
    assert bids and bids[0]["tricks"] == 4 and isinstance(bids[0]["tricks"], int)

    # Quick play: the table size and an option.
    raw = b'{"game": "spades", "players": 4.0, "options": {"target_score": 250.0}}'
    status, quick = call(base, "POST", "/v1/matches/quick", raw=raw)
    assert status == 200, quick
    assert view(base, quick["id"])["options"]["target_score"] == 250
    assert len(view(base, quick["id"])["players"]) == 4


# A body that is right but for the number it is given.
ZHOL = b'{"game": "zhol", "seats": [{"kind": "human"}, {"kind": "bot"}], %s}'


@pytest.mark.parametrize(
    "path, raw",
    [
        ("/v1/matches", ZHOL % b'"options": {"target_wins": 3.5}'),
        ("/v1/matches", ZHOL % b'"options": {"target_wins": true}'),
        ("/v1/matches", ZHOL % b'"seed": 7.5'),
        ("/v1/matches/quick", b'{"game": "spades", "players": 4.5}'),
        ("/v1/matches/quick", b'{"game": "spades", "players": true}'),
        ("/v1/matches/quick", b'{"game": "spades", "options": {"target_score": 250.5}}'),
    ],
)
def test_a_number_with_a_fraction_or_a_boolean_is_still_no_integer(base, path, raw):
    status, answer = call(base, "POST", path, raw=raw)
    assert status == 422 and answer["error"] == "validation_error", answer


def test_a_bid_with_a_fraction_or_a_boolean_is_refused_and_changes_nothing(base):
    status, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": [HUMAN, BOT, BOT, BOT]})
    assert status == 201
    match_id, token = created["id"], created["seats"][0]["token"]
    seen = my_turn(base, match_id, token)
    for raw in (b'{"type": "bid", "tricks": 4.5}', b'{"type": "bid", "tricks": true}'):
        status, answer = call(base, "POST", f"/v1/matches/{match_id}/actions", raw=raw, token=token)
        assert status == 422 and answer["error"] == "validation_error", answer
    assert view(base, match_id, token)["version"] == seen["version"]


# --- bearers ---------------------------------------------------------------------------------

# What a client with a mangled or made-up credential sends: nothing the service issued, though
# three of them have the form of a seat token, a player token and an app key.
NO_CREDENTIALS = {
    "garbage": "Bearer garbage",
    "seat-token-form": "Bearer " + secrets.token_urlsafe(24),
    "player-token-form": "Bearer ctp_" + secrets.token_hex(8) + "." + secrets.token_urlsafe(24),
    "app-key-form": "Bearer ctk_" + secrets.token_hex(6) + "." + secrets.token_urlsafe(24),
    "empty": "Bearer ",
    "not-bearer": "Basic YW5hOnNlY3JldA==",
}


@pytest.mark.parametrize("authorization", NO_CREDENTIALS.values(), ids=NO_CREDENTIALS.keys())
def test_a_bearer_that_is_no_credential_is_refused_on_create_join_claim_and_quick_play(base, authorization):
    status, host = call(base, "POST", "/v1/matches", {"game": "spades", "seats": [HUMAN, OPEN, BOT, BOT]})
    assert status == 201
    match_id = host["id"]
    status, invited = call(base, "POST", f"/v1/matches/{match_id}/invite", token=host["seats"][0]["token"])
    assert status == 200, invited
    tries = [
        ("/v1/matches", {"game": "spades", "seats": [HUMAN, BOT, BOT, BOT]}),
        ("/v1/matches/quick", {"game": "zhol", "players": 2}),
        (f"/v1/matches/{match_id}/join", {"name": "Eve"}),
        (f"/v1/matches/{match_id}/claim", {"code": invited["code"], "name": "Eve"}),
    ]
    before = view(base, match_id)
    for path, body in tries:
        status, answer = call(base, "POST", path, body, authorization=authorization)
        assert (status, answer["error"]) == (401, "invalid_token"), (path, answer)
    # Nothing changed: the seat is still open, the invitation still unclaimed.
    assert view(base, match_id) == before
    status, claimed = call(base, "POST", f"/v1/matches/{match_id}/claim", {"code": invited["code"]})
    assert status == 200, claimed


def test_a_seat_token_creates_nothing_it_acts_in_its_own_seat_only(base):
    status, first = call(base, "POST", "/v1/matches", {"game": "zhol", "seats": [HUMAN, BOT]})
    assert status == 201
    seat_token = first["seats"][0]["token"]
    body = {"game": "zhol", "seats": [HUMAN, BOT]}
    status, answer = call(base, "POST", "/v1/matches", body, token=seat_token)
    assert (status, answer["error"]) == (401, "invalid_token"), answer
    status, answer = call(base, "POST", "/v1/matches/quick", {"game": "zhol"}, token=seat_token)
    assert (status, answer["error"]) == (401, "invalid_token"), answer
    # Without the header the same calls are taken, and the token still plays its own seat.
    assert call(base, "POST", "/v1/matches", body)[0] == 201
    assert view(base, first["id"], seat_token)["you"] == 0


# --- streams ---------------------------------------------------------------------------------


def read_stream(base: str, path: str, token: str) -> list[dict[str, str]]:
    """Every event of one stream (it closes after CARDTABLE_STREAM_SECONDS), as its frames
    carry them: the fields of each block that has `data`."""
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        text = resp.read().decode()
    return sse_events(text)


def resolved(schema: dict) -> dict:
    while "$ref" in schema:
        schema = DOC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def assert_described(operation_path: str, events: list[dict[str, str]]) -> None:
    """Each event fits the schema the document gives the stream's events, its `data` the
    schema named as its content; and the frame's id and event name are the event's seq and type."""
    content = DOC["paths"][operation_path]["get"]["responses"]["200"]["content"]["text/event-stream"]
    item = content.get("itemSchema") or content["schema"]
    frame = jsonschema_rs.Draft202012Validator({**item, "components": DOC["components"]})
    data_schema = resolved(item)["properties"]["data"]
    assert data_schema["contentMediaType"] == "application/json"
    content_schema = {**data_schema["contentSchema"], "components": DOC["components"]}
    body = jsonschema_rs.Draft202012Validator(content_schema)
    assert events
    for event in events:
        frame.validate(event)
        data = json.loads(event["data"])
        body.validate(data)
        assert (event["id"], event["event"]) == (str(data["seq"]), data["type"])


def test_a_match_stream_sends_the_events_its_document_describes(base):
    status, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": [HUMAN, BOT, BOT, BOT]})
    assert status == 201
    events = read_stream(base, f"/v1/matches/{created['id']}/stream", created["seats"][0]["token"])
    assert {"match_created", "match_started", "deal"} <= {e["event"] for e in events}
    assert_described("/v1/matches/{match_id}/stream", events)


def test_a_players_stream_sends_the_entries_its_document_describes(served):
    data_dir, base = served
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", "create", "Streams", "--json", "--data-dir", data_dir],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    key = json.loads(made.stdout)["key"]
    status, player = call(base, "PUT", "/v1/players/ana", {"name": "Ana"}, token=key)
    assert status in (200, 201), player
    body = {"game": "zhol", "seats": [{"kind": "human", "player": "ana"}, BOT]}
    status, created = call(base, "POST", "/v1/matches", body, token=key)
    assert status == 201, created
    events = read_stream(base, "/v1/me/stream", player["token"])
    assert {"match.created", "match.started"} <= {e["event"] for e in events}
    assert_described("/v1/me/stream", events)

"""openapi/openapi.json reads as documentation: every operation and schema is described, every
example fits its schema and has the fields of a live answer, and every operation declares the
errors it can give (docs/api.md, "Errors")."""

from __future__ import annotations

import copy
import json
import os

import jsonschema_rs
import pytest

from service.config import Config
from service.http import examples
from service.http.app import create_app

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METHODS = ("get", "post", "put", "patch", "delete")


def load_document() -> dict:
    with open(os.path.join(ROOT, "openapi", "openapi.json"), encoding="utf-8") as f:
        return json.load(f)


DOC = load_document()


def operations(doc: dict = DOC):
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def op_examples(op: dict):
    """(where, media type, schema or None, example) of every example of an operation."""
    for param in op.get("parameters", []):
        schema = dict(param["schema"])
        if "example" in schema:
            example = schema.pop("example")
            yield f"parameter {param['name']}", None, schema, example
    for media, content in op.get("requestBody", {}).get("content", {}).items():
        if "example" in content:
            yield "request", media, content.get("schema"), content["example"]
    for status, response in op["responses"].items():
        for media, content in response.get("content", {}).items():
            if "example" in content:
                yield status, media, content.get("schema"), content["example"]


def validator(schema: dict, doc: dict = DOC):
    # The schema's $refs point into the document's components: validate inside the document.
    return jsonschema_rs.Draft202012Validator({**schema, "components": doc["components"]})


def test_every_operation_has_a_summary_a_description_and_an_example():
    ops = list(operations())
    assert len(ops) == 45
    for path, method, op in ops:
        where = f"{method.upper()} {path}"
        assert op.get("summary"), where
        # flask-smorest takes the docstring's text after its first line as the description.
        assert len(op.get("description", "")) > 40, where
        assert any(status == "request" or status.startswith("2") for status, *_ in op_examples(op)), where


def test_every_component_schema_has_a_description():
    schemas = DOC["components"]["schemas"]
    assert len(schemas) >= 27
    assert [name for name, s in schemas.items() if len(s.get("description", "")) < 10] == []


def required_errors(path: str, op: dict) -> set[int]:
    """The error statuses the code can give for an operation (service/http/statuses.py,
    service/http/admission.py, service/http/extensions.py)."""
    need: set[int] = set()
    if "requestBody" in op:
        need |= {400, 413, 422}  # not JSON, over CARDTABLE_MAX_BODY, not the schema
    if any(p["in"] in ("query", "header") for p in op.get("parameters", [])):
        need.add(422)  # parameters are validated by their schema
    if path.startswith("/v1/"):
        need.add(429)  # every call but the probes and /metrics is rate limited (UNLIMITED_PATHS)
    if path.startswith("/v1/matches") or path in ("/readyz", "/metrics"):
        need.add(503)  # they read or write Redis; the catalogue and /healthz do not
    if "{match_id}" in path:
        need.add(404)
    if {"bearer": []} in op.get("security", []):
        need.add(401)  # a malformed Authorization header, or a token of no seat
    if op["operationId"] in ("createMatch", "joinMatch", "claimSeat", "quickPlay"):
        need.add(401)  # an Authorization that is no app key or player token (service/http/admission.py)
    return need


def test_every_operation_declares_the_errors_it_can_give():
    for path, method, op in operations():
        declared = {int(s) for s in op["responses"] if s.isdigit()}
        missing = required_errors(path, op) - declared
        assert not missing, f"{method.upper()} {path} does not declare {sorted(missing)}"
        for status in declared - {200, 201, 202}:
            assert "Error" in json.dumps(op["responses"][str(status)]) or path == "/readyz", (path, status)


def sse_events(text: str) -> list[dict[str, str]]:
    """The events of a text/event-stream: the fields of each block that has `data`."""
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.partition(": ")[::2] for line in block.splitlines() if not line.startswith(":"))
        if "data" in fields:
            events.append(fields)
    return events


def stream_example_errors(schema: dict, example: str) -> list[str]:
    """What is wrong with a text/event-stream example: its schema describes each event of the
    stream, and the event's `data` holds the JSON its `contentSchema` names (docs/api.md, "Events")."""
    name = schema["$ref"].rsplit("/", 1)[1]
    content = DOC["components"]["schemas"][name]["properties"]["data"]["contentSchema"]
    events = sse_events(example)
    errors = [] if events else ["no event"]
    for event in events:
        errors += [e.message for e in validator(schema).iter_errors(event)]
        errors += [e.message for e in validator(content).iter_errors(json.loads(event["data"]))]
    return errors


def test_every_example_fits_its_schema():
    checked = 0
    for path, method, op in operations():
        for where, media, schema, example in op_examples(op):
            if schema is None:
                assert isinstance(example, str) and media and media.startswith("text/"), (path, where)
                continue
            if media == "text/event-stream":
                errors = stream_example_errors(schema, example)
                assert not errors, f"{method.upper()} {path} {where}: {errors}"
                checked += 1
                continue
            errors = [e.message for e in validator(schema).iter_errors(example)]
            assert not errors, f"{method.upper()} {path} {where}: {errors}"
            checked += 1
    assert checked >= 30


def test_the_example_check_refuses_an_example_that_breaks_its_schema():
    # The check above can fail: a view without its version, or with a bad status, is refused.
    schema = {"$ref": "#/components/schemas/View"}
    broken = copy.deepcopy(examples.VIEW)
    del broken["version"]
    assert not validator(schema).is_valid(broken)
    broken = {**examples.VIEW, "status": "paused"}
    assert not validator(schema).is_valid(broken)
    assert validator(schema).is_valid(examples.VIEW)
    # A stream's events are checked each: a frame without its id, or data no Event fits.
    stream = {"$ref": "#/components/schemas/StreamEvent"}
    assert stream_example_errors(stream, examples.STREAM) == []
    assert stream_example_errors(stream, 'event: bid\ndata: {"type":"bid","seat":0,"tricks":3,"seq":5}\n\n')
    assert stream_example_errors(stream, 'id: 5\nevent: bid\ndata: {"type":"bid","tricks":"3"}\n\n')


def test_committed_examples_are_the_ones_in_service_examples():
    ops = {op["operationId"]: op for _, _, op in operations()}
    content = "application/json"
    assert ops["createMatch"]["requestBody"]["content"][content]["example"] == examples.CREATE_MATCH
    assert ops["playAction"]["responses"]["200"]["content"][content]["example"] == examples.PLAYED
    assert ops["getHistory"]["responses"]["200"]["content"][content]["example"] == examples.HISTORY


def shape(value):
    """The structure of a JSON value: the keys of objects, the shape of a list's first item and
    the JSON type of everything else."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _json(resp, status=200):
    assert resp.status_code == status, resp.get_data(as_text=True)
    return resp.get_json()


def test_examples_have_the_fields_of_live_answers(app):
    """Each example is replayed as it was captured; the live answers have the same fields."""
    # The events example stops before the first bot's bid: with the test run's bot delay of 0
    # a worker started by another test could play it before the events are read, so the bots
    # of this app wait (their jobs are scheduled minutes ahead, after the match has ended).
    config = Config(**{**app.extensions["cardtable"].config.__dict__, "BOT_DELAY": 300.0})
    client = create_app(config).test_client()
    assert _json(client.get("/v1/games")) == examples.GAMES
    assert _json(client.get("/healthz")) == examples.HEALTHY
    assert _json(client.get("/readyz")) == examples.READY

    created = _json(client.post("/v1/matches", json=examples.CREATE_MATCH), 201)
    assert shape(created) == shape(examples.CREATED)
    page = _json(client.get("/v1/matches?game=spades&limit=1"))
    assert page["matches"][0]["id"] == created["id"]
    assert shape(page) == shape(examples.LOBBY_PAGE)
    assert shape(_json(client.post(f"/v1/matches/{created['id']}/join", json=examples.JOIN))) == shape(
        examples.JOINED
    )
    assert shape(_json(client.post("/v1/matches/quick", json=examples.QUICK_PLAY))) == shape(
        examples.QUICK_PLAYED
    )

    # The view, hint, move, events and history examples: one Spades match, seat 0 to bid.
    body = {
        "game": "spades",
        "options": {"first_dealer": 3, "hints": True},
        "seats": [{"kind": "human", "name": "Ana"}]
        + [{"kind": "bot", "level": level} for level in ("hard", "pro", "medium")],
        "seed": 7,
    }
    match = _json(client.post("/v1/matches", json=body), 201)
    mid, auth = match["id"], {"Authorization": f"Bearer {match['seats'][0]['token']}"}
    view = _json(client.get(f"/v1/matches/{mid}", headers=auth))
    assert shape(view) == shape(examples.VIEW)
    assert view["hand"] == examples.VIEW["hand"]  # the same seed deals the same hand
    assert _json(client.get(f"/v1/matches/{mid}/hint", headers=auth)) == examples.HINT
    played = _json(
        client.post(f"/v1/matches/{mid}/actions", json=examples.ACTION, headers={**auth, "If-Match": '"1"'})
    )
    assert shape(played) == shape(examples.PLAYED)
    events = _json(client.get(f"/v1/matches/{mid}/events?after=3", headers=auth))
    assert events == examples.EVENTS
    _json(client.post(f"/v1/matches/{mid}/actions", json={"type": "resign"}, headers=auth))
    history = _json(client.get(f"/v1/matches/{mid}/history", headers=auth))
    assert shape(history) == shape(examples.HISTORY)
    assert history["deck"] == examples.HISTORY["deck"]

    waiting = _json(
        client.post(
            "/v1/matches",
            json={"game": "three-thirteen", "seats": [{"kind": "human", "name": "Ana"}, {"kind": "open"}]},
        ),
        201,
    )
    token = {"Authorization": f"Bearer {waiting['seats'][0]['token']}"}
    left = _json(client.post(f"/v1/matches/{waiting['id']}/leave", headers=token))
    assert shape(left) == shape(examples.LEFT) and left["status"] == "aborted"

    # A player's feed: its match's creation and start, then its turn (the example's first entry).
    svc = app.extensions["cardtable"]
    _, key = svc.apps.create("examples")
    player = _json(
        client.put("/v1/players/user-4711", json={"name": "Ana"}, headers={"Authorization": f"Bearer {key}"})
    )
    seats = [{"kind": "human", "player": "user-4711"}, {"kind": "bot", "level": "easy"}]
    body = {"game": "zhol", "options": {"first_player": 0}, "seats": seats}
    _json(client.post("/v1/matches", json=body, headers={"Authorization": f"Bearer {key}"}), 201)
    feed = _json(client.get("/v1/me/events?after=2", headers={"Authorization": f"Bearer {player['token']}"}))
    assert shape(feed) == shape(examples.MY_EVENTS) and feed["events"][0]["type"] == "turn.started"


@pytest.mark.parametrize("status", ["400", "409", "422", "429", "503"])
def test_error_examples_carry_the_id_of_their_status(status):
    # docs/api.md's table of error ids is what the examples of the error answers show.
    ops = [op for _, _, op in operations() if status in op["responses"]]
    assert ops
    for op in ops:
        example = op["responses"][status]["content"]["application/json"]["example"]
        assert example["code"] == int(status) and example["error"], example

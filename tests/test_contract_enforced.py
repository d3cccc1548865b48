"""The contract says what the server enforces (docs/api.md, "API stability"): what the served
OpenAPI document admits the server takes, and what the server refuses the document does not
admit. Bodies are checked with a JSON Schema validator against the served document itself."""

from __future__ import annotations

import pytest

from tests.api_helpers import Api

UNKNOWN = "0123456789abcdef"  # well formed, no such match


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture(scope="module")
def served(app):
    return app.test_client().get("/openapi.json").get_json()


def token_operations(doc: dict) -> list[tuple[str, str]]:
    """(method, path) of every operation the document says only a seat's token may call."""
    return [
        (method, path)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and op.get("security") == [{"bearer": []}]
    ]


def test_every_token_call_without_a_token_is_401_whether_or_not_the_match_exists(api, served):
    ops = token_operations(served)
    assert {path.rsplit("/", 1)[-1] for _, path in ops} == {
        "actions",
        "rounds",
        "end",
        "leave",
        "history",
        "hint",
    }
    created = api.create("spades", [{"kind": "human", "name": "Ana"}] + [{"kind": "bot"}] * 3)
    for method, path in ops:
        for match_id in (UNKNOWN, created["id"], "not-an-id"):
            url = path.replace("{match_id}", match_id)
            # A body that does not fit either: the missing token is what the answer names.
            for headers in ({}, {"Authorization": "Basic YW5hOg=="}):
                resp = api.c.open(url, method=method.upper(), json={"type": 7}, headers=headers)
                assert resp.status_code == 401, (method, url, headers, resp.get_json())
                assert resp.get_json()["error"] == "invalid_token"


def test_a_round_asked_of_an_unknown_match_without_a_token_is_401_not_404(api):
    resp = api.c.post(f"/v1/matches/{UNKNOWN}/rounds")
    assert resp.status_code == 401
    assert resp.get_json()["message"] == "this call needs the seat's token: Authorization: Bearer <token>"
    # With a token, the match is looked up: no such match is still 404.
    found = api.c.post(f"/v1/matches/{UNKNOWN}/rounds", headers={"Authorization": "Bearer x"})
    assert found.status_code == 404

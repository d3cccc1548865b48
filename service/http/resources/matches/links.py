"""OpenAPI links between the match operations: a created or joined seat's id and token lead to
the calls that need them. Clients may follow them; schemathesis's stateful phase does (CI)."""

from __future__ import annotations

from typing import Any


def _ref(path: str, method: str) -> str:
    # A JSON pointer into the document's own paths ("/" is written "~1").
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method


_MATCH = "/v1/matches/{match_id}"
# (link name, path under the match, method, needs the token)
_TARGETS = [
    ("view", "", "get", True),
    ("publicView", "", "get", False),
    ("act", "/actions", "post", True),
    ("join", "/join", "post", False),
    ("events", "/events", "get", True),
    ("stream", "/stream", "get", True),
    ("history", "/history", "get", True),
    ("startRound", "/rounds", "post", True),
    ("end", "/end", "post", True),
    ("leave", "/leave", "post", True),
    ("invite", "/invite", "post", True),
]


def _links(match_id: str, token: str, names: tuple[str, ...]) -> dict[str, Any]:
    out = {}
    for name, path, method, auth in _TARGETS:
        if name not in names:
            continue
        parameters = {"path.match_id": match_id}
        if auth:
            parameters["header.Authorization"] = f"Bearer {{{token}}}"
        out[name] = {"operationRef": _ref(_MATCH + path, method), "parameters": parameters}
    return out


def created() -> dict[str, Any]:
    """Links of POST /v1/matches: the match id, and seat 0's token (when seat 0 is human).

    The shape is what flask-smorest's `alt_response` merges into the documented response.
    """
    names = tuple(name for name, *_ in _TARGETS)
    return {
        "content_type": None,
        "links": _links("$response.body#/id", "$response.body#/seats/0/token", names),
    }


def joined() -> dict[str, Any]:
    """Links of POST …/join: the joined seat's token."""
    names = ("view", "act", "events", "stream", "leave", "invite", "history")
    return {"content_type": None, "links": _links("$request.path.match_id", "$response.body#/token", names)}

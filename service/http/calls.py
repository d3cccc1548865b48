"""What every resource's routes share about a call: the service that answers it (`service`), who
makes it (`current_caller`: the caller its credential names, service/identity/callers.py), the
credential it declares and checks (the security schemes, `needs_token`, `app_player`), the match
ids its URLs take (`MatchIdConverter`) and how a view goes out (`json_response` with its ETag).

The resources (service/http/resources/<area>/routes.py) and the request hooks import these from
here, never from one another.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import wraps
from typing import Any, cast

from flask import Response, current_app, request
from werkzeug.routing import BaseConverter

from service import codec, errors
from service.bootstrap import MatchService
from service.errors import ApiError
from service.http.extensions import Blueprint, View, bearer_or_none, bearer_token
from service.identity.callers import Caller, identify
from service.identity.players import Player
from service.matches.new_match import MATCH_ID_PATTERN

# The security an operation declares (openapi/openapi.json's securitySchemes).
AUTH: list[dict[str, list[str]]] = [{"bearer": []}]
OPTIONAL_AUTH: list[dict[str, list[str]]] = [{}, {"bearer": []}]
APP_KEY: list[dict[str, list[str]]] = [{"appKey": []}]
PLAYER_TOKEN: list[dict[str, list[str]]] = [{"playerToken": []}]
# External ids: what an app calls its users, 1-128 characters of one path segment.
EXTERNAL_ID_LENGTH = 128


# Where a request keeps its caller once identified: its WSGI environ, which no other request
# shares (Flask's `g` outlives a request made inside an app context someone already pushed).
_CALLER = "cardtable.caller"


def service() -> MatchService:
    return cast(MatchService, current_app.extensions["cardtable"])  # set by the app factory


def current_caller() -> Caller:
    """Identified once a request: the request hooks (an app's rate, CARDTABLE_REQUIRE_APP) and
    the view ask for the same caller, and an app key or player token costs a Redis read."""
    environ = request.environ
    known: Caller | None = environ.get(_CALLER)
    if known is not None:
        return known
    svc = service()
    caller = environ[_CALLER] = identify(svc.apps, svc.players, bearer_or_none(), request.remote_addr)
    return caller


class MatchIdConverter(BaseConverter):
    """`<match_id:...>` in a route: 16 hex digits. A URL with anything else there is no match's
    (404), and answers no method of a match's: /v1/matches/quick is quick play's alone."""

    regex = MATCH_ID_PATTERN

    @staticmethod
    def json_schema(converter: BaseConverter) -> dict[str, Any]:
        return {"type": "string", "pattern": f"^{MATCH_ID_PATTERN}$"}


# The answer to a call that needs a token and has none (the same as MatchRepository.authenticate's).
NO_TOKEN = "this call needs the seat's token: Authorization: Bearer <token>"


def needs_token(view: View) -> View:
    """A call only a seat may make: documented with the bearer scheme, and without an
    Authorization header (or with one not of the form 'Bearer <token>') refused with 401
    before anything else is looked at. The answer then says what is missing whether or not
    the match exists and whatever the body holds, as the contract's security says; the token
    itself is checked against the match once it is loaded."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if bearer_token() is None:
            raise ApiError(401, "invalid_token", NO_TOKEN)
        return view(*args, **kwargs)

    return Blueprint.doc(security=AUTH)(wrapper)


def app_player(external_id: str) -> tuple[Player, str]:
    """The app key's player with this external id, and the app's id; 404 for one the app does
    not have: another app's player answers the same (an app sees only its own, never a 403)."""
    app = current_caller().require_app()
    player = None
    if 1 <= len(external_id) <= EXTERNAL_ID_LENGTH:
        player = service().players.find(app.id, external_id)
    if player is None:
        raise errors.NotFound(f"no player {external_id!r} in this app")
    return player, app.id


def json_response(data: Mapping[str, Any], version: int | None = None) -> Response:
    # Views are built as plain dicts that ViewSchema documents (a test checks every view
    # against it); dumping them directly keeps marshmallow off the hot path.
    resp = Response(codec.dumps(data), mimetype="application/json")
    if version is not None:
        resp.headers["ETag"] = etag(version, data.get("you"))
    return resp


def etag(version: int, seat: int | None) -> str:
    """`"<version>"` for the public view, `"<version>-<seat>"` for a seat's: two viewers of the
    same version see different things, so their views must not share a validator."""
    return f'"{version}"' if seat is None else f'"{version}-{seat}"'

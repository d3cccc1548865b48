"""The request's caller (service/identity/callers.py), for the routes that act differently for an app, a
player or anyone else."""

from __future__ import annotations

from flask import current_app, request

from service.http.extensions import bearer_or_none
from service.identity.callers import Caller, identify

# Where a request keeps its caller once identified: its WSGI environ, which no other request
# shares (Flask's `g` outlives a request made inside an app context someone already pushed).
_CALLER = "cardtable.caller"


def current_caller() -> Caller:
    """Identified once a request: the request hooks (an app's rate, CARDTABLE_REQUIRE_APP) and
    the view ask for the same caller, and an app key or player token costs a Redis read."""
    environ = request.environ
    known: Caller | None = environ.get(_CALLER)
    if known is not None:
        return known
    svc = current_app.extensions["cardtable"]
    caller = environ[_CALLER] = identify(svc.apps, svc.players, bearer_or_none(), request.remote_addr)
    return caller

"""The request's caller (service/callers.py), for the routes that act differently for an app, a
player or anyone else."""

from __future__ import annotations

from flask import current_app, request

from service.callers import Caller, identify
from service.extensions import bearer_or_none


def current_caller() -> Caller:
    store = current_app.extensions["cardtable"].store
    return identify(store.apps, store.players, bearer_or_none(), request.remote_addr)

"""A view's arguments loaded from its request (a JSON body, headers, a query string) by its
schema: `Blueprint.arguments`' own parsing (service/http/extensions.py), which skips webargs'
general machinery on the hot path and caches the loads of small bodies and short queries."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import marshmallow as ma
from flask import Request, request
from webargs.core import is_json
from webargs.flaskparser import abort
from werkzeug.exceptions import RequestEntityTooLarge

from engines.base import json_copy
from service import codec

# The body cache of `Blueprint.arguments`: bodies up to this size, this many per schema (at
# most about 1 MB each).
BODY_CACHE_BYTES = 256
BODY_CACHE_ENTRIES = 4096


def current_request() -> Request:
    """The request itself: hot code reads it once, since each `request.x` is a context lookup
    through the proxy."""
    return request._get_current_object()  # type: ignore[attr-defined,no-any-return]


def _small_body() -> bytes | None:
    """The raw body when it is JSON and small enough to cache its load, else None."""
    req = current_request()
    length = req.content_length
    if length is None or length > BODY_CACHE_BYTES or not is_json(req.mimetype):
        return None
    return req.get_data(cache=True)


def _json_body() -> Any:
    """The request's JSON body as webargs reads it: {} when it is not JSON (so required fields
    are reported), 400 when it does not decode.

    orjson, not the standard library, decodes it: it refuses what the standard library would
    turn into a crash further on (nesting over 1,024 levels, a RecursionError there; lone
    surrogates, which cannot be encoded again; integers too long to convert, a ValueError), and
    reads an integer beyond 64 bits as a float, which every strict integer field refuses.
    """
    if not is_json(request.mimetype):
        return {}
    raw = request.get_data(cache=True)  # over MAX_CONTENT_LENGTH: a 413 from Werkzeug
    limit = request.max_content_length
    if limit is not None and request.content_length is None and len(raw) >= limit:
        # A chunked body (no Content-Length) is cut at the limit without a word: Werkzeug
        # raises only on a read past it. What reached the limit is too large.
        raise RequestEntityTooLarge()
    try:
        return codec.loads(raw) if raw else {}
    except (ValueError, RecursionError) as e:  # orjson.JSONDecodeError is a ValueError
        abort(400, exc=e, messages={"json": ["Invalid JSON body."]})


def loading(func: Callable[..., Any], schema: ma.Schema, location: str) -> Callable[..., Any]:
    """`func` called with what `schema` loads from the request's `location` after its own
    arguments: `Blueprint.arguments`' parsing, decided once a view."""
    keys = [field.data_key or name for name, field in schema.fields.items()]
    # Most requests send none of the optional headers or parameters: load that case once.
    nothing = _load_or_none(schema, {}) if location != "json" else None
    # Small JSON bodies repeat (a move is one of a few hundred: {"type": "play", "card":
    # "QH"}), and a schema's load depends on the body alone: each distinct one is decoded
    # and loaded once, then copied (about 0.1 ms a move of decoding and marshmallow).
    loaded: dict[bytes, Any] = {}
    plain_query = location == "query" and _plain(schema)

    @wraps(func)
    def wrapper(*args: Any, **kw: Any) -> Any:
        raw = _cache_key(location, plain_query)
        hit = loaded.get(raw) if raw is not None else None
        if hit is not None:
            return func(*args, json_copy(hit) if location == "json" else dict(hit), **kw)
        if location != "json":
            given = request.headers if location == "headers" else request.args
            data = {k: given[k] for k in keys if k in given}
            if not data and nothing is not None:
                return func(*args, dict(nothing), **kw)
        else:
            data = _json_body()
        try:
            parsed = schema.load(data)
        except ma.ValidationError as e:
            abort(422, exc=e, messages={location: e.messages}, schema=schema)
        if raw is not None:
            if len(loaded) >= BODY_CACHE_ENTRIES:
                loaded.clear()  # a client sending ever new bodies: start over
            loaded[raw] = json_copy(parsed) if location == "json" else dict(parsed)
        return func(*args, parsed, **kw)

    return wrapper


def _plain(schema: ma.Schema) -> bool:
    """Whether every field of the schema loads a plain value (a number, a string, a flag)."""
    plain = (ma.fields.Integer, ma.fields.Float, ma.fields.String, ma.fields.Boolean)
    return all(type(f) in plain for f in schema.fields.values())


def _cache_key(location: str, plain_query: bool) -> bytes | None:
    """What a load is cached by: a small JSON body, or a short query string of plain values (a
    long-poll re-polls with the same one, round after round); None: not cached."""
    if location == "json":
        return _small_body()
    raw = current_request().query_string if plain_query else None
    return raw if raw is not None and len(raw) <= BODY_CACHE_BYTES else None


def _load_or_none(schema: ma.Schema, data: dict[str, Any]) -> Any:
    try:
        return schema.load(data)
    except ma.ValidationError:
        return None

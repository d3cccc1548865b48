"""CORS for the browser clients of apps (docs/api.md, "Pages and browsers").

An origin that some live app lists (`cardtable apps set APP --origin https://...`, kept in the
Redis set `ct:origins` by service/identity/apps.py) gets CORS answers: `Access-Control-Allow-Origin`
echoing it, and on a preflight the methods the URL takes, the request headers the API reads
and how long the browser may keep that answer. Any other origin gets no CORS header at all, so
the browser keeps the answer from its page.

Each API process keeps its own copy of the set and reads it again at most every `ttl` seconds,
when a request with an Origin header comes: a request pays no Redis read for it, and a request
without Origin (every call that is not a browser's cross-origin one) looks at nothing but
that header.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis
from flask import Flask, Response, request

log = logging.getLogger("cardtable.cors")

# The request headers a browser client sends to the API, and the answer headers it reads.
ALLOW_HEADERS = "Authorization, Content-Type, If-Match, Idempotency-Key, Last-Event-ID, X-Request-Id"
EXPOSE_HEADERS = "ETag, Retry-After, X-Request-Id"
# Seconds a browser keeps a preflight's answer before it asks again.
MAX_AGE = "600"
# Not reaching Redis must never fail a request over CORS: the process keeps what it had.
_UNREACHABLE = (redis.RedisError, redis.exceptions.RedisClusterException)


class AllowedOrigins:
    """The origins CORS answers, as `read` gives them, read again at most every `ttl` seconds."""

    def __init__(self, read: Callable[[], set[str]], ttl: float):
        self.read = read
        self.ttl = ttl
        self._origins: frozenset[str] = frozenset()
        self._until = 0.0  # time.monotonic() at which the copy is too old

    def allows(self, origin: str) -> bool:
        now = time.monotonic()
        if now >= self._until:
            # Set first: requests that come while this one reads use the copy they find.
            self._until = now + self.ttl
            try:
                self._origins = frozenset(self.read())
            except _UNREACHABLE as e:
                log.warning("the apps' web origins could not be read: %s", e)
        return origin.lower() in self._origins


def install(app: Flask, origins: AllowedOrigins) -> None:
    """Answer CORS for the allowed origins on every response, errors and preflights included."""

    @app.after_request
    def _cors(resp: Response) -> Response:
        environ = request.environ
        origin = environ.get("HTTP_ORIGIN")
        if origin is None:
            return resp
        headers = resp.headers
        # The answer depends on the Origin it was asked with: a shared cache must not give one
        # origin's answer to another.
        vary = headers.get("Vary")
        if not vary:
            headers["Vary"] = "Origin"
        elif "Origin" not in vary:
            headers["Vary"] = f"{vary}, Origin"
        if not origins.allows(origin):
            return resp
        headers["Access-Control-Allow-Origin"] = origin
        headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        if environ.get("REQUEST_METHOD") == "OPTIONS" and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in environ:
            allow = headers.get("Allow")  # the URL's methods, as the OPTIONS answer names them
            if allow:
                headers["Access-Control-Allow-Methods"] = allow
            headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
            headers["Access-Control-Max-Age"] = MAX_AGE
        return resp

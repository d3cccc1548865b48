"""Every error a client sees, in the one shape of docs/api.md: the one table from domain and
engine errors to HTTP statuses (`STATUS`), the store's unreachability as a 503 a client may retry
(`STORE_UNREACHABLE`), the rate limit's 429, and the app's handlers that answer them."""

from __future__ import annotations

import logging

import redis
from flask import Flask, Response

from engines import errors as engine_errors
from service import errors
from service.errors import ApiError
from service.http.extensions import error_response
from service.infra.rate_limit import RateLimited

log = logging.getLogger("cardtable.app")

# Redis down or restarting, or a cluster failing over: a 503 where a call needs the store, and
# a skipped rate count where it does not.
STORE_UNREACHABLE = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.ClusterError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.RedisClusterException,
    # Redis at its maxmemory with noeviction (the compose files) refuses writes: not the
    # client's fault either, and reads still answer.
    redis.exceptions.OutOfMemoryError,
)


# The HTTP status of every domain and engine error (docs/api.md): the one place they are set.
# A class not listed takes the status of its nearest listed base.
STATUS: dict[type[Exception], int] = {
    errors.NotFound: 404,
    errors.InvalidToken: 401,
    errors.Forbidden: 403,
    errors.Conflict: 409,
    errors.MatchNotActive: 409,
    errors.NotYourTurn: 409,
    errors.VersionConflict: 409,
    errors.StaleVersion: 412,
    errors.IdempotencyInProgress: 409,
    errors.IdempotencyKeyReused: 422,
    errors.InvalidRequest: 422,
    errors.QuotaExceeded: 429,
    errors.DomainError: 409,
    engine_errors.EngineError: 422,
    engine_errors.NotYourTurn: 409,
    engine_errors.MatchNotActive: 409,
}


def status_of(e: Exception) -> int:
    return next(STATUS[c] for c in type(e).__mro__ if c in STATUS)


def install_error_handlers(app: Flask) -> None:
    """Every error a client sees, in the one shape of docs/api.md; domain and engine errors
    take their status from `STATUS`."""

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError) -> Response:
        return error_response(e.status, e.error, e.message, e.errors)

    @app.errorhandler(errors.DomainError)
    def _domain_error(e: errors.DomainError) -> Response:
        return error_response(status_of(e), e.error, e.message, e.errors)

    @app.errorhandler(errors.QuotaExceeded)
    def _quota_exceeded(e: errors.QuotaExceeded) -> Response:
        return error_response(
            429, e.error, e.message, headers={"Retry-After": str(e.retry_after)}, quota=e.quota
        )

    @app.errorhandler(engine_errors.EngineError)
    def _engine_error(e: engine_errors.EngineError) -> Response:
        return error_response(status_of(e), e.error, str(e))

    app.register_error_handler(RateLimited, rate_limited_response)

    def _store_unreachable(e: Exception) -> Response:
        # Redis down or restarting, or a cluster failing over (CLUSTERDOWN, a demoted master's
        # READONLY, a slot no node covers yet), is not the client's fault nor a bug: a 503 it
        # may retry (with If-Match, a retried move whose first answer was lost is refused with
        # 412; with the same Idempotency-Key it gets the first answer).
        log.warning("Redis unreachable: %s", e)
        return error_response(
            503,
            "unavailable",
            "the match store is unreachable; try again shortly",
            headers={"Retry-After": "1"},
        )

    for unreachable in STORE_UNREACHABLE:
        app.register_error_handler(unreachable, _store_unreachable)


def rate_limited_response(e: RateLimited) -> Response:
    return error_response(
        429, "rate_limited", f"more than {e.limit} requests a second; slow down", headers={"Retry-After": "1"}
    )

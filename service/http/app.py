"""The Flask application factory."""

from __future__ import annotations

import importlib.resources
import inspect
import logging
import time
from collections.abc import Callable
from types import FunctionType
from typing import Any

import redis
from flask import Flask, Response, jsonify, request, send_from_directory
from flask.globals import request_ctx
from flask.json.provider import DefaultJSONProvider

from engines import errors as engine_errors
from service import errors
from service.bootstrap import MatchService, build_service
from service.config import Config
from service.errors import ApiError
from service.http import cors, pages
from service.http.extensions import Api, bearer_or_none, current_request, error_response
from service.http.resources.auth import current_caller
from service.identity.apps import KEY_PREFIX
from service.identity.tokens import hash_token
from service.infra import logs, tracing
from service.infra.rate_limit import RateCheck, RateLimited

log = logging.getLogger("cardtable.app")

# Where a request keeps its log context's token and its start (its WSGI environ, its own).
_LOG_TOKEN = "cardtable.log_token"
_STARTED = "cardtable.started"

API_TITLE = "cardtable"
API_VERSION = "1.0.0"
# Swagger UI's script and style come from the swagger-ui-py wheel, served by the API itself, so
# /docs works where the browser cannot reach a CDN (a private network, these machines).
SWAGGER_UI_ASSETS = "/docs/assets/"
SWAGGER_UI_FILES = {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"}


# The calls that make a match or give a seat: create, rematch, join, claim (an invitation) and
# quick play. Their credential is an app key or a player token (a rematch's also its old seat's
# token), and with CARDTABLE_REQUIRE_APP they need one.
APP_ONLY_ENDPOINTS = frozenset(
    {"matches.Matches", "matches.Rematch", "matches.Join", "matches.Claim", "lobby.Quick"}
)
# Calls that are never rate limited: the probes.
UNLIMITED_PATHS = ("/healthz", "/readyz")
# /metrics too, but only where a token keeps it to the scrape that knows it: an open /metrics
# adds up every counter shard at each call, and is limited like any call.
SCRAPE_PATH = "/metrics"
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


class CardtableFlask(Flask):
    # Flask asks inspect.iscoroutinefunction of the view and of every request hook on every
    # request (seven times a move); the answer for a function never changes, so it is kept.
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_async: dict[Callable[..., Any], bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        # Keyed by the plain function: a MethodView's handler comes as a new bound method on
        # every request. Anything else (a partial, a callable object) gets Flask's own check.
        code_of = getattr(func, "__func__", func)
        if not isinstance(code_of, FunctionType):
            return super().ensure_sync(func)
        is_async = self._is_async.get(code_of)
        if is_async is None:
            is_async = self._is_async[code_of] = inspect.iscoroutinefunction(code_of)
        return self.async_to_sync(func) if is_async else func

    def make_default_options_response(self) -> Response:
        """OPTIONS answers in JSON like everything else: the methods the URL takes, also in
        the Allow header (Flask's default is an empty text/html body).

        Every rule of the URL counts, not only the one OPTIONS matched: `/v1/matches` is two
        rules of two blueprints (the lobby's GET, create's POST)."""
        adapter = request_ctx.url_adapter
        allow = sorted(adapter.allowed_methods()) if adapter is not None else []
        resp = jsonify({"allow": allow})
        resp.headers["Allow"] = ", ".join(allow)
        return resp


def create_app(config: Config | None = None) -> Flask:
    config = config or Config.from_env()
    logs.configure(config.LOG_LEVEL, config.LOG_FORMAT)
    tracing.setup_from_env("cardtable-api")
    app = CardtableFlask("cardtable")
    app.config.update(
        MAX_CONTENT_LENGTH=config.MAX_BODY,
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL=SWAGGER_UI_ASSETS,
        API_SPEC_OPTIONS={
            "info": {"description": "Card games as a service: Žolíky, Three Thirteen, Zhol and Spades."},
            "servers": [{"url": "/"}],
        },
        JSON_SORT_KEYS=False,
    )
    json_provider = app.json
    assert isinstance(json_provider, DefaultJSONProvider)
    json_provider.sort_keys = False
    json_provider.ensure_ascii = False
    svc = build_service(config)
    app.extensions["cardtable"] = svc
    api = Api(app)
    from service.http.resources.matches.routes import MatchIdConverter

    app.url_map.converters["match_id"] = MatchIdConverter
    api.register_converter(MatchIdConverter, MatchIdConverter.json_schema)
    _document(api)

    _register_blueprints(api)
    from service.http.resources.play import blp as play_blp

    app.register_blueprint(play_blp)  # the web table; not in the OpenAPI document (docs/play.md)

    @app.get(SWAGGER_UI_ASSETS + "<name>")
    def _swagger_ui_asset(name: str):
        if name not in SWAGGER_UI_FILES:
            raise ApiError(404, "not_found", f"no documentation asset {name!r}")
        folder = importlib.resources.files("swagger_ui") / "static"
        return send_from_directory(str(folder), name, max_age=24 * 3600)

    _install_error_handlers(app)
    _install_hooks(app, svc, config)
    pages.install(app, API_TITLE, SWAGGER_UI_ASSETS)
    tracing.instrument_app(app)
    return app


def _register_blueprints(api: Api) -> None:
    """The API's resources, in the order the OpenAPI document lists them."""
    from service.http.resources.admin.routes import blp as admin_blp
    from service.http.resources.games.routes import blp as games_blp
    from service.http.resources.health.routes import blp as health_blp
    from service.http.resources.hints.routes import blp as hints_blp
    from service.http.resources.lobby.routes import blp as lobby_blp
    from service.http.resources.matches.routes import blp as matches_blp
    from service.http.resources.players.routes import blp as players_blp
    from service.http.resources.webhooks.routes import blp as webhooks_blp

    resources = (
        games_blp,
        matches_blp,
        lobby_blp,
        hints_blp,
        players_blp,
        admin_blp,
        webhooks_blp,
        health_blp,
    )
    for blp in resources:
        api.register_blueprint(blp)


def _install_hooks(app: Flask, svc: MatchService, config: Config) -> None:
    """The request hooks. Before-request hooks run in this order (the rate count first, so a
    call refused for want of an app is counted too); after-request hooks run last registered
    first, so CORS sees the Vary that _cache_headers set."""
    _install_request_ids(app)
    _install_rate_limit(app, svc, config)
    _install_credentials(app, config)
    cors.install(app, cors.AllowedOrigins(svc.apps.origins, config.ORIGINS_TTL))
    app.after_request(_cache_headers)


def _document(api: Api) -> None:
    """The parts of the OpenAPI document no blueprint registers."""
    from service.http.contract import game_components
    from service.http.resources.matches.schemas import ACTION_VALUES
    from service.matches.options import SERVICE_OPTIONS

    api.spec.components.security_scheme(
        "bearer", {"type": "http", "scheme": "bearer", "description": "a seat's token, or its player's token"}
    )
    api.spec.components.security_scheme(
        "appKey",
        {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "ctk_<app id>.<secret>",
            "description": "an app's key (cardtable apps create): its backend's calls; never in a client",
        },
    )
    api.spec.components.security_scheme(
        "playerToken",
        {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "ctp_<player id>.<secret>",
            "description": "a player's token (PUT /v1/players/{external_id}): acts in each of its seats",
        },
    )
    # What the action fields and each game's options refer to (service/http/contract.py).
    for name, component in {**ACTION_VALUES, **game_components(SERVICE_OPTIONS)}.items():
        api.spec.components.schema(name, component)
    # flask-smorest registers its pagination schema itself (no call here pages); it is
    # described like every other schema of the document.
    pagination = api.spec.components.schemas.get("PaginationMetadata")
    if pagination is not None:
        pagination["description"] = (
            "flask-smorest's X-Pagination header; no operation of this API pages with it."
        )


def _install_error_handlers(app: Flask) -> None:
    """Every error a client sees, in the one shape of docs/api.md; domain and engine errors
    take their status from `STATUS`."""

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return error_response(e.status, e.error, e.message, e.errors)

    @app.errorhandler(errors.DomainError)
    def _domain_error(e: errors.DomainError):
        return error_response(status_of(e), e.error, e.message, e.errors)

    @app.errorhandler(errors.QuotaExceeded)
    def _quota_exceeded(e: errors.QuotaExceeded):
        return error_response(
            429, e.error, e.message, headers={"Retry-After": str(e.retry_after)}, quota=e.quota
        )

    @app.errorhandler(engine_errors.EngineError)
    def _engine_error(e: engine_errors.EngineError):
        return error_response(status_of(e), e.error, str(e))

    app.register_error_handler(RateLimited, _rate_limited_response)

    def _store_unreachable(e: Exception):
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


def _install_request_ids(app: Flask) -> None:
    """Every request has an id: the caller's (a proxy's) `X-Request-Id`, or one made here. It
    is on every line logged while the request runs, in the jobs it enqueues (a bot's turn logs
    it too: service/infra/logs.py) and in the response's `X-Request-Id`. At DEBUG, one line per
    request: method, path (never the query: no token or code is logged), status, time."""

    @app.before_request
    def _bind_request():
        environ = request.environ
        view_args = request.view_args or {}
        environ[_LOG_TOKEN] = logs.bind(
            request_id=logs.request_id(request.headers.get("X-Request-Id")),
            match_id=view_args.get("match_id"),
        )
        environ[_STARTED] = time.perf_counter()

    @app.after_request
    def _tell_request_id(resp: Response) -> Response:
        rid = logs.current("request_id")
        if rid is not None:
            resp.headers["X-Request-Id"] = rid
        if log.isEnabledFor(logging.DEBUG):
            took = (time.perf_counter() - request.environ.get(_STARTED, time.perf_counter())) * 1000
            log.debug("%s %s %d %.1f ms", request.method, request.path, resp.status_code, took)
        return resp

    @app.teardown_request
    def _unbind_request(exc):
        token = request.environ.pop(_LOG_TOKEN, None)
        if token is not None:
            try:
                logs.reset(token)
            except ValueError:  # a stream's end, in another context: that one ends with it
                pass


# `GET /v1/me/events`, whose request count rides in its feed's first read (service/notify/feeds.py),
# on the client's address: one round trip a long-poll round instead of two.
FEED_POLL = "players.MyEvents"


def _install_rate_limit(app: Flask, svc: MatchService, config: Config) -> None:
    """A call with an app's key counts on its app alone, at most the app's `rate` a second, even
    with CARDTABLE_RATE_LIMIT at 0 (`_count_on_app`). Any other call: `CARDTABLE_RATE_LIMIT` a
    second per seat token, else per client address; `CARDTABLE_ADDRESS_RATE_LIMIT` per address in all.

    A token counts as its own only once the match it names shows it belongs to one of its
    seats: any other token (made up, another match's, for no match at all) counts against the
    address, as no token would. Match calls load their match first thing, so their count rides
    in that round trip (RateLimiter.defer) and the token is checked against what it loads; a
    match call that never gets to its load (refused by validation) is counted on the address
    afterwards (so is a player's long-poll, in its feed's read: `FEED_POLL`). Other calls (create,
    the catalogue, the spec, the docs) count on the address at once. While Redis is away the
    catalogue, the spec and the docs still answer: their count is skipped, not a 503.
    """
    limit, address_limit, unlimited = config.RATE_LIMIT, config.address_rate_limit, _unlimited(config)

    @app.before_request
    def _rate_limit():
        req = current_request()
        environ = req.environ
        if environ.get("PATH_INFO") in unlimited:
            return
        # Only a header that may hold an app key is looked at further (no read for the others).
        if KEY_PREFIX in environ.get("HTTP_AUTHORIZATION", "") and _count_on_app(svc, req.endpoint):
            return
        if limit <= 0:
            return
        address = req.remote_addr or "-"
        window, endpoint = int(time.time()), req.endpoint or "unknown"
        if endpoint == FEED_POLL or "match_id" in (req.view_args or {}):
            token = None if endpoint == FEED_POLL else bearer_or_none()  # a player's: no seat's
            digest = hash_token(token) if token else None
            svc.rates.defer(RateCheck(address, digest, window, endpoint, limit, address_limit))
            return
        try:
            count = svc.rates.hit(address, window, endpoint)
        except STORE_UNREACHABLE:
            return  # calls that need Redis answer 503 by themselves; the others go on
        if count > limit:
            raise RateLimited(limit)

    if limit <= 0:
        return

    @app.after_request
    def _flush_rate(resp: Response) -> Response:
        try:
            svc.rates.flush()
        except RateLimited as e:
            # A 429 promises that nothing changed: it may replace a refusal, never an answer
            # whose change is already committed (the client would send the move again).
            return _rate_limited_response(e) if resp.status_code >= 400 else resp
        except STORE_UNREACHABLE:
            pass  # the count is best effort; the request already has its answer
        return resp

    @app.teardown_request
    def _forget_rate(exc):
        svc.rates.forget()  # never carry a count over to this thread's next request


def _unlimited(config: Config) -> tuple[str, ...]:
    """The paths never rate limited: the probes, and /metrics when its token guards it."""
    return (*UNLIMITED_PATHS, SCRAPE_PATH) if config.METRICS_TOKEN else UNLIMITED_PATHS


def _count_on_app(svc: MatchService, endpoint: str | None) -> bool:
    """Count a call made with a valid app key on its app; 429 `quota_exceeded` (quota `rate`)
    past the app's `rate` in this second. False when the credential is no valid app key (a
    player token, a seat token, a bad key): the call is counted as the others are, and the
    view answers a bad key itself."""
    try:
        caller = current_caller()
    except errors.InvalidToken:
        return False
    except STORE_UNREACHABLE:
        return False  # calls that need Redis answer 503 by themselves; the others go on
    if not caller.is_app or caller.app is None:
        return False
    app = caller.app
    try:
        count = svc.rates.hit_app(app.id, int(time.time()), endpoint or "unknown")
    except STORE_UNREACHABLE:
        return True
    if count > app.rate:
        raise errors.QuotaExceeded(
            "rate", f"the app {app.id} may make {app.rate} requests a second; slow down", retry_after=1
        )
    return True


def _install_credentials(app: Flask, config: Config) -> None:
    """The calls that make a match or give a seat (create, rematch, join, claim, quick play) take
    an app key or a player token as their credential, checked here by endpoint before the view
    reads its body: a bad one is 401 (in current_caller). Any other Authorization is 401 too,
    never taken for an anonymous caller (docs/api.md, "Bearers"): a mangled or made-up bearer,
    or a seat token, which acts in its own seat only; a client that sends one has a bug to hear
    of. A rematch takes its old seat's token and checks it against that match itself.
    CARDTABLE_REQUIRE_APP: these calls need an app key or a player token."""

    @app.before_request
    def _check_credential():
        req = current_request()
        if req.method != "POST" or req.endpoint not in APP_ONLY_ENDPOINTS:
            return
        if current_caller().app is not None:
            return
        if config.REQUIRE_APP:
            raise errors.InvalidToken(
                "this server plays only through apps: send your app's key (Authorization: Bearer"
                " ctk_...) or a player token (Authorization: Bearer ctp_...)"
            )
        if req.endpoint != "matches.Rematch" and "Authorization" in req.headers:
            raise errors.InvalidToken(
                "this call takes an app key (Bearer ctk_...) or a player token (Bearer ctp_...), or no"
                " Authorization at all: this one is neither (a seat token acts in its own seat only)"
            )


def _rate_limited_response(e: RateLimited) -> Response:
    return error_response(
        429, "rate_limited", f"more than {e.limit} requests a second; slow down", headers={"Retry-After": "1"}
    )


# Answers that depend on who asks (and may hold a new token): never kept by a shared cache.
PRIVATE_PATHS = ("/v1/matches", "/v1/players", "/v1/me", "/v1/leaderboards", "/v1/webhooks")


def _cache_headers(resp: Response) -> Response:
    """Match answers depend on the Authorization header (each seat sees its own hand), and those
    made for a seat, or holding a new token, must never be kept by a cache."""
    environ = request.environ  # read once: each access through `request` costs a lookup
    if environ.get("PATH_INFO", "").startswith(PRIVATE_PATHS):
        # Set directly: Response.vary parses the header into a set and back on every call.
        # Origin too: a browser's cross-origin call gets CORS headers others do not (service/http/cors.py,
        # which runs after this and adds Origin where it is missing).
        headers = resp.headers
        vary = headers.get("Vary")
        headers["Vary"] = f"{vary}, Authorization, Origin" if vary else "Authorization, Origin"
        if environ.get("REQUEST_METHOD") == "POST" or "HTTP_AUTHORIZATION" in environ:
            headers["Cache-Control"] = "no-store"
    return resp

"""The Flask application factory: the app, its configuration and OpenAPI document, its resources
and the order of its request hooks (who may call: service/http/admission.py; what an error
answers: service/http/statuses.py; CORS and pages: cors.py, pages.py)."""

from __future__ import annotations

import importlib.resources
import inspect
import logging
import time
from collections.abc import Callable
from types import FunctionType
from typing import Any

from flask import Flask, Response, jsonify, request, send_from_directory
from flask.globals import request_ctx
from flask.json.provider import DefaultJSONProvider

from service.bootstrap import MatchService, build_service
from service.config import Config
from service.errors import ApiError
from service.http import cors, pages
from service.http.admission import install_credentials, install_rate_limit
from service.http.extensions import Api
from service.http.statuses import install_error_handlers
from service.infra import logs, tracing

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
    from service.http.calls import MatchIdConverter

    app.url_map.converters["match_id"] = MatchIdConverter
    api.register_converter(MatchIdConverter, MatchIdConverter.json_schema)
    _document(api)

    _register_blueprints(api)
    from service.http.resources.play import blp as play_blp

    app.register_blueprint(play_blp)  # the web table; not in the OpenAPI document (docs/play.md)

    @app.get(SWAGGER_UI_ASSETS + "<name>")
    def _swagger_ui_asset(name: str) -> Response:
        if name not in SWAGGER_UI_FILES:
            raise ApiError(404, "not_found", f"no documentation asset {name!r}")
        folder = importlib.resources.files("swagger_ui") / "static"
        return send_from_directory(str(folder), name, max_age=24 * 3600)

    install_error_handlers(app)
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
    from service.http.resources.tournaments.routes import blp as tournaments_blp
    from service.http.resources.webhooks.routes import blp as webhooks_blp

    resources = (
        games_blp,
        matches_blp,
        lobby_blp,
        hints_blp,
        players_blp,
        admin_blp,
        webhooks_blp,
        tournaments_blp,
        health_blp,
    )
    for blp in resources:
        api.register_blueprint(blp)


def _install_hooks(app: Flask, svc: MatchService, config: Config) -> None:
    """The request hooks. Before-request hooks run in this order (the rate count first, so a
    call refused for want of an app is counted too); after-request hooks run last registered
    first, so CORS sees the Vary that _cache_headers set."""
    _install_request_ids(app)
    install_rate_limit(app, svc, config)
    install_credentials(app, config)
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


def _install_request_ids(app: Flask) -> None:
    """Every request has an id: the caller's (a proxy's) `X-Request-Id`, or one made here. It
    is on every line logged while the request runs, in the jobs it enqueues (a bot's turn logs
    it too: service/infra/logs.py) and in the response's `X-Request-Id`. At DEBUG, one line per
    request: method, path (never the query: no token or code is logged), status, time."""

    @app.before_request
    def _bind_request() -> None:
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
    def _unbind_request(exc: BaseException | None) -> None:
        token = request.environ.pop(_LOG_TOKEN, None)
        if token is not None:
            try:
                logs.reset(token)
            except ValueError:  # a stream's end, in another context: that one ends with it
                pass


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

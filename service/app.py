"""The Flask application factory."""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import time

import redis
from flask import Flask, request, send_from_directory

from service.config import Config
from service.extensions import Api, error_response
from service.matches import ApiError, MatchService
from service.store import RateLimited, Store, connect
from workers.queue import JobQueue, make_queue

log = logging.getLogger("cardtable.app")

API_TITLE = "cardtable"
API_VERSION = "1.0.0"
# Swagger UI's script and style come from the swagger-ui-py wheel, served by the API itself, so
# /docs works where the browser cannot reach a CDN (a private network, these machines).
SWAGGER_UI_ASSETS = "/docs/assets/"
SWAGGER_UI_FILES = {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"}


def build_service(config: Config) -> MatchService:
    client = connect(config.REDIS_URL)
    return MatchService(Store(client), config, JobQueue(make_queue(client, config.QUEUE), config.BOT_DELAY))


def create_app(config: Config | None = None) -> Flask:
    config = config or Config.from_env()
    logging.basicConfig(level=config.LOG_LEVEL)
    app = Flask("cardtable")
    app.config.update(
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
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    svc = build_service(config)
    app.extensions["cardtable"] = svc
    api = Api(app)
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})

    from service.resources.games.routes import blp as games_blp
    from service.resources.health.routes import blp as health_blp
    from service.resources.hints.routes import blp as hints_blp
    from service.resources.lobby.routes import blp as lobby_blp
    from service.resources.matches.routes import blp as matches_blp

    for blp in (games_blp, matches_blp, lobby_blp, hints_blp, health_blp):
        api.register_blueprint(blp)
    from service.resources.play import blp as play_blp

    app.register_blueprint(play_blp)  # the web table; not in the OpenAPI document (docs/play.md)

    @app.get(SWAGGER_UI_ASSETS + "<name>")
    def _swagger_ui_asset(name: str):
        if name not in SWAGGER_UI_FILES:
            raise ApiError(404, "not_found", f"no documentation asset {name!r}")
        folder = importlib.resources.files("swagger_ui") / "static"
        return send_from_directory(str(folder), name, max_age=24 * 3600)

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return error_response(e.status, e.error, e.message, e.errors)

    @app.errorhandler(RateLimited)
    def _rate_limited(e: RateLimited):
        return error_response(
            429,
            "rate_limited",
            f"more than {e.limit} requests a second; slow down",
            headers={"Retry-After": "1"},
        )

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def _store_unreachable(e: Exception):
        # Redis down or restarting is not the client's fault nor a bug: a 503 it may retry
        # (with If-Match, a retried move whose first answer was lost is refused with 412).
        log.warning("Redis unreachable: %s", e)
        return error_response(
            503,
            "unavailable",
            "the match store is unreachable; try again shortly",
            headers={"Retry-After": "1"},
        )

    @app.before_request
    def _rate_limit():
        limit = config.RATE_LIMIT
        if limit <= 0 or request.path in ("/healthz", "/readyz", "/metrics"):
            return
        auth = request.headers.get("Authorization", "")
        who = hashlib.sha256(auth.encode()).hexdigest()[:20] if auth else (request.remote_addr or "-")
        window, endpoint = int(time.time()), request.endpoint or "unknown"
        if request.view_args and "match_id" in request.view_args:
            # Match calls load the match first thing: count the request in that round trip.
            svc.store.defer_rate(who, window, endpoint, limit)
        elif svc.store.hit_rate(who, window, endpoint) > limit:
            raise RateLimited(limit)

    @app.teardown_request
    def _flush_rate(exc):
        if config.RATE_LIMIT > 0:
            try:
                svc.store.flush_rate()
            except (redis.ConnectionError, redis.TimeoutError):
                pass  # the count is best effort; the request itself already got its answer

    return app

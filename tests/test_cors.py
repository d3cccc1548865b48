"""CORS for the browser clients of apps (docs/api.md, "Pages and browsers"): an origin some live
app lists gets CORS answers, preflights included; any other origin, a revoked app's among them,
gets no CORS header at all."""

from __future__ import annotations

import json
import secrets
import time

import pytest

from service import errors
from service.config import Config
from service.http.app import create_app
from tests.api_helpers import auth
from tests.test_apps_cli import apps as apps_command
from tests.test_apps_cli import created

ALLOW_HEADERS = "Authorization, Content-Type, If-Match, Idempotency-Key, Last-Event-ID, X-Request-Id"
PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
ZHOL = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}


@pytest.fixture(scope="module")
def fresh(config):
    """A client of a process that reads the origins again on every request (ORIGINS_TTL 0)."""
    return create_app(Config(**{**config.__dict__, "ORIGINS_TTL": 0})).test_client()


@pytest.fixture
def apps(app):
    return app.extensions["cardtable"].apps


def new_origin() -> str:
    return f"https://{secrets.token_hex(4)}.game.example"


def cors_headers(resp) -> dict[str, str]:
    return {k: v for k, v in resp.headers.items() if k.lower().startswith("access-control-")}


def test_a_preflight_from_a_listed_origin_gets_the_cors_headers(fresh, apps):
    origin = new_origin()
    apps.create("web game", origins=[origin])
    resp = fresh.options("/v1/matches", headers={"Origin": origin, **PREFLIGHT})
    assert resp.status_code == 200
    assert cors_headers(resp) == {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS, POST",
        "Access-Control-Allow-Headers": ALLOW_HEADERS,
        "Access-Control-Expose-Headers": "ETag, Retry-After, X-Request-Id",
        "Access-Control-Max-Age": "600",
    }
    assert "Origin" in resp.headers["Vary"]


def test_a_listed_origins_calls_and_their_errors_get_its_origin_allowed(fresh, apps):
    origin = new_origin()
    apps.create("web game", origins=[origin])
    created = fresh.post("/v1/matches", json=ZHOL, headers={"Origin": origin})
    assert created.status_code == 201
    view = fresh.get(f"/v1/matches/{created.get_json()['id']}", headers={"Origin": origin})
    missing = fresh.get("/v1/matches/0000000000000000", headers={"Origin": origin})
    refused = fresh.post("/v1/matches/0000000000000000/actions", json={}, headers={"Origin": origin})
    for resp in (created, view, missing, refused):
        assert cors_headers(resp) == {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": "ETag, Retry-After, X-Request-Id",
        }, resp.status_code
        assert "Origin" in resp.headers["Vary"]
    assert [missing.status_code, refused.status_code] == [404, 401]


def test_an_unlisted_origin_gets_no_cors_headers_and_options_answers_as_always(fresh, apps):
    apps.create("web game", origins=[new_origin()])
    stranger = {"Origin": new_origin()}
    preflight = fresh.options("/v1/matches", headers={**stranger, **PREFLIGHT})
    assert cors_headers(preflight) == {}
    assert preflight.get_json() == {"allow": ["GET", "HEAD", "OPTIONS", "POST"]}
    assert cors_headers(fresh.get("/v1/games", headers=stranger)) == {}
    # Nor does a page on a listed origin's host with another scheme or port.
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": "http://localhost"})) == {}


def test_a_revoked_apps_origin_gets_no_cors_headers(fresh, apps):
    origin = new_origin()
    app, _ = apps.create("web game", origins=[origin])
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": origin}))
    apps.revoke(app.id)
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": origin})) == {}
    assert cors_headers(fresh.options("/v1/matches", headers={"Origin": origin, **PREFLIGHT})) == {}


def test_an_origin_follows_apps_set_and_stays_while_another_live_app_lists_it(fresh, apps):
    shared, other = new_origin(), new_origin()
    first, _ = apps.create("first", origins=[shared])
    second, _ = apps.create("second", origins=[shared])
    apps.update(first.id, origins=[other])
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": other}))
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": shared}))  # still the second's
    apps.revoke(second.id)
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": shared})) == {}
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": other}))


def test_a_process_answers_from_its_copy_of_the_origins_for_origins_ttl_seconds(config, apps):
    cached = create_app(Config(**{**config.__dict__, "ORIGINS_TTL": 1.0})).test_client()
    origin = new_origin()
    app, _ = apps.create("web game", origins=[origin])
    assert cors_headers(cached.get("/v1/games", headers={"Origin": origin}))  # read now
    apps.revoke(app.id)
    assert cors_headers(cached.get("/v1/games", headers={"Origin": origin}))  # from the copy
    time.sleep(1.05)
    assert cors_headers(cached.get("/v1/games", headers={"Origin": origin})) == {}


def test_origins_are_kept_as_browsers_send_them_and_a_non_origin_is_refused(fresh, apps):
    app, key = apps.create("web game", origins=["HTTPS://Play.Game.Example/"])
    assert app.origins == ["https://play.game.example"]
    resp = fresh.get("/v1/games", headers={"Origin": "https://play.game.example", **auth(key)})
    assert resp.headers["Access-Control-Allow-Origin"] == "https://play.game.example"
    for wrong in ("*", "play.game.example", "https://play.game.example/table", "null"):
        with pytest.raises(errors.InvalidRequest):
            apps.update(app.id, origins=[wrong])
    assert apps.get(app.id).origins == ["https://play.game.example"]


def test_a_call_without_origin_gets_no_cors_headers(fresh, apps):
    apps.create("web game", origins=[new_origin()])
    resp = fresh.get("/v1/games")
    assert cors_headers(resp) == {} and "Vary" not in resp.headers
    assert fresh.options("/v1/matches").get_json() == {"allow": ["GET", "HEAD", "OPTIONS", "POST"]}


def test_cardtable_apps_set_origin_opens_cors_to_it_and_refuses_a_non_origin(redis_url, fresh):
    made, origin = created(redis_url, "Web Cards"), new_origin()
    assert cors_headers(fresh.get("/v1/games", headers={"Origin": origin})) == {}
    done = apps_command(redis_url, "set", made["app"], "--origin", origin + "/", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["origins"] == [origin]
    assert fresh.get("/v1/games", headers={"Origin": origin}).headers["Access-Control-Allow-Origin"] == origin
    wrong = apps_command(redis_url, "set", made["app"], "--origin", "cards.example")
    assert wrong.returncode == 1 and "not a web origin" in wrong.stderr

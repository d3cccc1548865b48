"""Whether a call may go on, decided before its view runs: the rate limits (per seat token, per
address, per app: docs/api.md, "Rate limits") and the credential the calls that make a match or
give a seat take (docs/api.md, "Bearers"). Both are request hooks `create_app` installs."""

from __future__ import annotations

import time

from flask import Flask, Response

from service import errors
from service.bootstrap import MatchService
from service.config import Config
from service.http.arguments import current_request
from service.http.calls import current_caller
from service.http.extensions import bearer_or_none
from service.http.statuses import STORE_UNREACHABLE, rate_limited_response
from service.identity.apps import KEY_PREFIX
from service.identity.tokens import hash_token
from service.infra.rate_limit import RateCheck, RateLimited

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
# `GET /v1/me/events`, whose request count rides in its feed's first read (service/notify/feeds.py),
# on the client's address: one round trip a long-poll round instead of two.
FEED_POLL = "players.MyEvents"


def install_rate_limit(app: Flask, svc: MatchService, config: Config) -> None:
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
    def _rate_limit() -> None:
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

    if limit > 0:
        _install_rate_flush(app, svc)


def _install_rate_flush(app: Flask, svc: MatchService) -> None:
    """A count deferred into the match's load is settled after the view, and never carried over
    to the thread's next request."""

    @app.after_request
    def _flush_rate(resp: Response) -> Response:
        try:
            svc.rates.flush()
        except RateLimited as e:
            # A 429 promises that nothing changed: it may replace a refusal, never an answer
            # whose change is already committed (the client would send the move again).
            return rate_limited_response(e) if resp.status_code >= 400 else resp
        except STORE_UNREACHABLE:
            pass  # the count is best effort; the request already has its answer
        return resp

    @app.teardown_request
    def _forget_rate(exc: BaseException | None) -> None:
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


def install_credentials(app: Flask, config: Config) -> None:
    """The calls that make a match or give a seat (create, rematch, join, claim, quick play) take
    an app key or a player token as their credential, checked here by endpoint before the view
    reads its body: a bad one is 401 (in current_caller). Any other Authorization is 401 too,
    never taken for an anonymous caller (docs/api.md, "Bearers"): a mangled or made-up bearer,
    or a seat token, which acts in its own seat only; a client that sends one has a bug to hear
    of. A rematch takes its old seat's token and checks it against that match itself.
    CARDTABLE_REQUIRE_APP: these calls need an app key or a player token."""

    @app.before_request
    def _check_credential() -> None:
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

"""Players of an app and the calling player (`me`): docs/integrating.md."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Response, request
from flask.views import MethodView

from engines.registry import GAMES
from service import codec, errors
from service.http import examples, streams
from service.http.calls import APP_KEY, EXTERNAL_ID_LENGTH, PLAYER_TOKEN, app_player, current_caller, service
from service.http.extensions import Blueprint, bearer_token, declare_errors
from service.http.resources.matches.following_schemas import (
    EventsQuerySchema,
    StreamHeadersSchema,
    StreamQuerySchema,
)
from service.http.resources.players.schemas import (
    AppPlayerSchema,
    FeedStreamEventSchema,
    LeaderboardQuerySchema,
    LeaderboardSchema,
    MeSchema,
    MyEventsSchema,
    MyMatchesQuerySchema,
    MyMatchesSchema,
    PlayerTokenSchema,
    PutPlayerSchema,
)
from service.matches.my_matches import my_matches
from service.notify.feed_following import Entries, player_of
from service.notify.feeds import feed_channel

blp = Blueprint("players", __name__, url_prefix="/v1", description="Players of an app; the calling player")


@blp.route("/players/<external_id>")
class PlayerResource(MethodView):
    @blp.arguments(PutPlayerSchema(), example=examples.PUT_PLAYER)
    @blp.response(200, PlayerTokenSchema, example=examples.PLAYER_TOKEN)
    @declare_errors(blp, 400, 401, 404, 413, 422, 429, 503)
    @blp.doc(operationId="putPlayer", security=APP_KEY)
    def put(self, body: dict[str, Any], external_id: str) -> dict[str, Any]:
        """Create or update a player of your app; answers a new player token for it

        `external_id` is your own id of the user (1-128 characters). Each call issues one more
        token (a player holds up to 20 at once, one a device); hand it to that client. Your
        app key only.
        """
        if not 1 <= len(external_id) <= EXTERNAL_ID_LENGTH:
            raise errors.InvalidRequest("external_id is 1-128 characters", {"external_id": ["bad length"]})
        app = current_caller().require_app()
        player, token = service().players.put(app.id, external_id, body["name"], body.get("metadata"))
        return {"player": player.external, "name": player.name, "token": token}

    @blp.response(200, AppPlayerSchema, example=examples.PLAYER)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="getPlayer", security=APP_KEY)
    def get(self, external_id: str) -> dict[str, Any]:
        """A player of your app, with its ratings

        Your app key only; a player of another app answers 404 like one that never was.
        `ratings` holds a rating per game once a rated match of it has ended.
        """
        player, _ = app_player(external_id)
        return {**player.public(), "ratings": service().ratings.of(player.id)}


@blp.route("/players/<external_id>/token")
class PlayerTokenResource(MethodView):
    @blp.response(200, PlayerTokenSchema, example=examples.PLAYER_TOKEN)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="rotatePlayerToken", security=APP_KEY)
    def post(self, external_id: str) -> dict[str, Any]:
        """Rotate a player's tokens: one new token, every older one answers 401 from now on

        For a lost or stolen device: hand the new token to the player's current client. The
        player keeps its seats; its matches answer to the new token at once.
        """
        player, _ = app_player(external_id)
        token = service().players.rotate(player)
        return {"player": player.external, "name": player.name, "token": token}


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, MeSchema, example=examples.ME)
    @declare_errors(blp, 401, 429, 503)
    @blp.doc(operationId="getMe", security=PLAYER_TOKEN)
    def get(self) -> dict[str, Any]:
        """The calling player (a player token)

        Its external id (your app's own id of the user), display name, app and metadata: what
        a client shows after it was handed its token.
        """
        player = current_caller().require_player()
        return {**player.public(), "app": player.app}


@blp.route("/me/matches")
class MyMatches(MethodView):
    @blp.arguments(MyMatchesQuerySchema(), location="query")
    @blp.response(200, MyMatchesSchema, example=examples.MY_MATCHES)
    @declare_errors(blp, 401, 422, 429, 503)
    @blp.doc(operationId="listMyMatches", security=PLAYER_TOKEN)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The calling player's matches: live ones first, newest first

        Each with the player's seat, `your_turn`, the turn's `deadline` when a clock runs and
        when it last changed: all an app needs to show a player's games again on a new phone.
        A page looks at `limit` + 50 of the player's matches at most: with a `status` it may
        hold fewer than `limit` (even none) while `next` is not null.
        """
        player = current_caller().require_player()
        return my_matches(service().repo, player, query.get("status"), query["limit"], query.get("cursor"))


@blp.route("/me/events")
class MyEvents(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.view_response(200, MyEventsSchema, example=examples.MY_EVENTS)
    @declare_errors(blp, 401, 422, 429, 503)
    @blp.doc(operationId="getMyEvents", security=PLAYER_TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The calling player's events of all its matches after `after`; long-polls up to `wait` seconds

        One feed per player (a player token): `match.created`, `match.started`, `turn.started`
        (its own turns), `match.over`, `seat.timed_out` and `rematch.offered` of every match it
        sits in, and `tournament.round_started` and `tournament.over` of its tournaments, each
        with its own `seq`. Answers at once when there are entries after `after`,
        else waits up to `wait` seconds (at most 30). At most `limit` entries; `next_after` when
        more follow; `last` is the newest entry's seq (ask after it to get only what comes
        next). 401 when the token stops holding during the wait (rotated, app revoked).
        """
        # The feed's read authenticates the token (service/notify/feed_following.py).
        token = bearer_token()
        player_id = player_of(token)
        assert token is not None
        client = request.environ.get("gunicorn.socket")
        after, wait, limit = query["after"], query["wait"], query["limit"]
        svc = service()
        with svc.wait_quota.held(request.remote_addr or "-", wait > 0):
            events, last, next_after = svc.player_feed.events(player_id, token, after, wait, limit, client)
        body = {"events": events, "last": last, "next_after": next_after}
        return Response(codec.dumps(body), mimetype="application/json")


@blp.route("/me/stream")
class MyStream(MethodView):
    @blp.arguments(StreamHeadersSchema(), location="headers")
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.view_response(
        200, FeedStreamEventSchema, content_type="text/event-stream", example=examples.MY_STREAM
    )
    @declare_errors(blp, 401, 422, 429, 503)
    @blp.doc(operationId="streamMyEvents", security=PLAYER_TOKEN)
    def get(self, headers: dict[str, Any], query: dict[str, Any]) -> Response:
        """The calling player's events as Server-Sent Events; resumes after Last-Event-ID

        The entries of `GET /v1/me/events`, each sent with `id` = its seq and `event` = its
        type; comments keep the connection alive. The stream closes after
        `CARDTABLE_STREAM_SECONDS` (5 minutes by default), and at once when the token stops
        holding (rotated, app revoked, player erased: the reconnection then gets 401).
        """
        token = bearer_token()
        player_id = player_of(token)
        assert token is not None
        svc = service()
        resume = headers.get("last_event_id", query["after"])
        # Registered before the first read (nothing published after it is missed), so a token
        # that does not hold is still a JSON error.
        address = request.remote_addr or "-"
        client = request.environ.get("gunicorn.socket")
        waiter = streams.open_waiter(svc, feed_channel(player_id), "player_sse", address, client)

        closed = streams.closer(svc, waiter, address)
        try:
            first = svc.player_feed.first(player_id, token, resume)
        except BaseException:
            closed()
            raise

        def generate(after: int = resume, entries: Entries = first) -> Iterator[str]:
            # Ends after a while (proxies drop long responses; EventSource reconnects with
            # Last-Event-ID by itself), and at once when the token stops holding.
            end = time.monotonic() + svc.config.STREAM_SECONDS
            yield "retry: 1000\n\n"
            while True:
                for e in entries:
                    after = e["seq"]
                    yield streams.frame(e)
                if time.monotonic() >= end or waiter.gone:
                    return
                # Through svc: the stream's closures keep no more than they need, a stream's
                # memory is what a process holds per open stream (bench/waiters.py).
                entries = svc.player_feed.stream_entries(  # type: ignore[assignment]  # None ends it below
                    player_id, token, after, min(15.0, end - time.monotonic()), waiter
                )
                if entries is None:
                    return
                if not entries and not waiter.gone:
                    yield ": keep-alive\n\n"

        return streams.response(generate(), closed)


@blp.route("/leaderboards/<game>")
class Leaderboard(MethodView):
    @blp.arguments(LeaderboardQuerySchema(), location="query")
    @blp.view_response(200, LeaderboardSchema, example=examples.LEADERBOARD)
    @declare_errors(blp, 401, 404, 422, 429, 503)
    @blp.doc(operationId="getLeaderboard", security=APP_KEY + PLAYER_TOKEN)
    def get(self, query: dict[str, Any], game: str) -> Response:
        """Your app's leaderboard of a game: its players by rating, best first

        With your app key or one of your players' tokens; only your app's players, rated by
        the rated matches they finished. Pass `next_cursor` back as `cursor` for the next page.
        """
        app = current_caller().app
        if app is None:
            raise errors.InvalidToken("this call needs an app key or a player token")
        if game not in GAMES:
            raise errors.NotFound(f"no game {game!r}")
        page = service().leaderboards.page(app.id, game, query["limit"], query.get("cursor"))
        # Dumped directly, as views are: marshmallow over a page of 100 players was most of its time.
        return Response(codec.dumps(page), mimetype="application/json")

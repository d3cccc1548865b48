"""Match endpoints of docs/api.md: create, join, view, actions, rounds, leave, events, stream, history."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import marshmallow as ma
from flask import Response, request
from flask.views import MethodView

from service import errors
from service.errors import ApiError
from service.http import examples, streams
from service.http.calls import OPTIONAL_AUTH, current_caller, json_response, needs_token, service
from service.http.extensions import Blueprint, F, View, bearer_token, declare_errors
from service.http.resources.matches import links
from service.http.resources.matches.following_schemas import (
    EventsQuerySchema,
    EventsSchema,
    HistorySchema,
    StreamEventSchema,
    StreamHeadersSchema,
    StreamQuerySchema,
)
from service.http.resources.matches.schemas import (
    ActionHeadersSchema,
    ActionSchema,
    ClaimedSchema,
    ClaimSchema,
    CreatedSchema,
    CreateMatchSchema,
    InvitedSchema,
    JoinedSchema,
    JoinSchema,
    ViewSchema,
)
from service.identity.apps import is_app_key
from service.matches.following import Holder
from service.matches.rematch import rematch
from service.matches.store import channel

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches: seats, play and events")


def _seat_call(
    operation_id: str,
    codes: tuple[int, ...] = (401, 403, 404, 409),
    schema: type[ma.Schema] | ma.Schema = ViewSchema,
    example: Any = None,
    own: bool = True,
) -> Callable[[View], View]:
    """The documentation of a call with a seat's token: its id, the errors it may give (`codes`)
    and its 200 answer (`own`: the view builds its Response itself, see Blueprint.view_response)."""
    respond = blp.view_response if own else blp.response

    def document(view: View) -> View:
        for decorate in (
            blp.doc(operationId=operation_id),
            _errors(*codes),
            respond(200, schema, example=examples.VIEW if example is None else example),
        ):
            view = decorate(view)
        return needs_token(view)

    return document


def _errors(*codes: int) -> Callable[[F], F]:
    # Any match call may meet the rate limit (429) or an unreachable store (503).
    return declare_errors(blp, *codes, 429, 503)


# A call with a JSON body may also get 400 (not JSON), 413 (too large) and 422 (not the schema).
BODY_ERRORS = (400, 413, 422)
# A call that makes a match or gives a seat takes an app key or a player token, and answers any
# other Authorization 401 (service/http/admission.py, install_credentials). Its security is not declared:
# a generated client would then want an authenticated client for it, and it needs none.
CREDENTIAL_ERRORS = (401,)


@blp.route("")
class Matches(MethodView):
    @blp.arguments(CreateMatchSchema(), example=examples.CREATE_MATCH)
    @blp.response(201, CreatedSchema, example=examples.CREATED)
    @_errors(403, *CREDENTIAL_ERRORS, *BODY_ERRORS)
    @blp.alt_response(201, response=links.created(), success=True)
    @blp.doc(operationId="createMatch")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a match; human seats get their token now, open seats wait for /join

        `seats` lists every seat: `human` (a token for you now), `open` (someone joins with
        /join, or takes it through the lobby when `listed`) or `bot` with a `level`. A token is
        shown only in this answer; keep it. `client_seed` (at most 64 characters) is the seed
        your first human seat brings to the deal. `seed` is accepted only when nobody else can be
        dealt from it (docs/api.md, "Fair deals"). 403 when `deck` is sent and the server does
        not allow stacked decks. Anonymous, or with an app key or a player token
        (docs/integrating.md); any other Authorization is 401 `invalid_token`.
        """
        return service().create(body, current_caller())


@blp.route("/<match_id:match_id>")
class MatchView(MethodView):
    @blp.view_response(200, ViewSchema, example=examples.VIEW)
    @_errors(401, 404)
    @blp.doc(security=OPTIONAL_AUTH)
    @blp.doc(operationId="getMatch")
    def get(self, match_id: str) -> Response:
        """Your seat's view with a token; the public (spectator) view without one

        A seat's view shows its own `hand` and `legal_actions`; the public view shows no hand
        (null) and no actions. Other hands are only counted (`players[].cards`). The `ETag` is
        `"<version>"` for the public view and `"<version>-<seat>"` for a seat's.
        """
        svc = service()
        token = bearer_token()
        if token is not None and is_app_key(token):
            # The app's backend sees the public view, with its own players named.
            app = current_caller().require_app()
            match = svc.load(match_id)
            return json_response(svc.view(match, None, app=app.id), match.version)
        match = svc.load(match_id, token=token)
        seat = svc.authenticate(match, token, required=False)
        return json_response(svc.view(match, seat), match.version)


@blp.route("/<match_id:match_id>/join")
class Join(MethodView):
    # The body may be left out: a join needs nothing (the name is optional).
    @blp.arguments(JoinSchema(), example=examples.JOIN, required=False)
    @blp.response(200, JoinedSchema, example=examples.JOINED)
    @_errors(404, 409, *CREDENTIAL_ERRORS, *BODY_ERRORS)
    @blp.alt_response(200, response=links.joined(), success=True)
    @blp.doc(operationId="joinMatch")
    def post(self, body: dict[str, Any], match_id: str) -> dict[str, Any]:
        """Claim the first open seat; the match starts when none is left

        No token needed (a player token joins as its player; any other Authorization is 401
        `invalid_token`): the answer holds the new seat's token (shown only once). 409
        `match_not_active` when no seat is open. `client_seed` (at most 64 characters) is the
        seat's seed for the deal: read the match's `server_seed_hash` before you send it
        (docs/api.md, "Fair deals").
        """
        return service().join(match_id, body.get("name"), body.get("client_seed"), current_caller())


# A version as If-Match carries it: "17", 17, W/"17", or a seat view's ETag "17-2" (the part
# after the dash names the viewer, not the version). ASCII digits only: str.isdigit() takes
# "²", which int() then refuses.
_IF_MATCH = re.compile(r'(?:W/)?"?([0-9]{1,15})(?:-[0-9]{1,2})?"?')


def _if_match(raw: str | None) -> int | None:
    if raw is None:
        return None
    found = _IF_MATCH.fullmatch(raw.strip())
    if found is None:
        raise ApiError(412, "version_conflict", f"If-Match must be a version number, got {raw[:40]!r}")
    return int(found.group(1))


@blp.route("/<match_id:match_id>/actions")
class Actions(MethodView):
    @needs_token  # outermost: before the headers and the body are read
    @blp.arguments(ActionHeadersSchema(), location="headers")
    @blp.arguments(ActionSchema(), example=examples.ACTION)
    @blp.view_response(200, ViewSchema, example=examples.PLAYED)
    @_errors(401, 404, 409, 412, *BODY_ERRORS)
    @blp.doc(operationId="playAction")
    def post(self, headers: dict[str, Any], action: dict[str, Any], match_id: str) -> Response:
        """Play an action (docs/rules/<game>.md, "Actions"); answers with your new view

        Any entry of your view's `legal_actions` can be sent as it is, but one marked
        `"template": true` (Žolíky's melds: fill in the cards first); a `template` mark on a
        sent action is ignored. `If-Match` (the version you saw) makes a stale move a 412
        instead of a surprise; `Idempotency-Key` makes a retry return the first answer. 409
        `not_your_turn` or `match_not_active`, 422 `illegal_action` when the rules forbid it
        (the message names the rule).
        """
        view = service().act(
            match_id,
            bearer_token(),
            action,
            _if_match(headers.get("if_match")),
            headers.get("idempotency_key"),
        )
        return json_response(view, view["version"])


@blp.route("/<match_id:match_id>/rounds")
class Rounds(MethodView):
    @_seat_call("startRound")
    def post(self, match_id: str) -> Response:
        """The host starts the next round or hand after round_over

        Only the host (the earliest-joined human seat still playing) may; 403 `forbidden` for
        the others, 409 `match_not_active` unless the match is `round_over`. Bot-only tables
        start their rounds by themselves.
        """
        view = service().start_round(match_id, bearer_token())
        return json_response(view, view["version"])


@blp.route("/<match_id:match_id>/end")
class End(MethodView):
    @_seat_call("endMatch")
    def post(self, match_id: str) -> Response:
        """The host ends the match now (Žolíky, Zhol: games played to a number of wins)

        An extension: the match is `finished` with `match_over` reason `ended`. 403 for a seat
        that is not the host; 409 in Spades and Three Thirteen, which end by their own rules.
        """
        view = service().end(match_id, bearer_token())
        return json_response(view, view["version"])


@blp.route("/<match_id:match_id>/leave")
class Leave(MethodView):
    @_seat_call("leaveMatch", (401, 404, 409), example=examples.LEFT)
    def post(self, match_id: str) -> Response:
        """Free your seat while waiting; later resign it (the host role passes on)

        While `waiting` the seat is `open` again and the token stops working (with no human
        seat left the match is `aborted`, as in the example). Once started, the seat resigns
        and is marked `left`; the token can still read the match.
        """
        view = service().leave(match_id, bearer_token())
        return json_response(view, view["version"])


@blp.route("/<match_id:match_id>/invite")
class Invite(MethodView):
    @_seat_call("inviteToSeat", (401, 404, 409), InvitedSchema, examples.INVITED, own=False)
    def post(self, match_id: str) -> dict[str, Any]:
        """An invitation code that hands your seat over; your token dies when it is claimed

        Give the code to the person who should play your seat (the web table's join link
        carries it). Whoever claims it first with `POST …/claim` gets the seat with a new token
        and yours stops working, so nobody keeps a copy of their token. A new invitation
        replaces your last one. It changes nothing anyone else sees: the answer's `version` is
        the match's, unchanged. 409 `match_not_active` once the match is over, you left it, or
        the seat was handed on 10 times.
        """
        return service().invite(match_id, bearer_token())


@blp.route("/<match_id:match_id>/rematch")
class Rematch(MethodView):
    @needs_token  # outermost: no token is a 401 whether or not the match exists
    @blp.response(201, CreatedSchema, example=examples.REMATCHED)
    @_errors(401, 404, 409)
    @blp.doc(operationId="rematch")
    def post(self, match_id: str) -> dict[str, Any]:
        """After the end, the same game again: a new match with the same players and bots

        Any seat's token (or its player's) may ask once the match is over. The new match has the
        same game, options and bot levels; you are seated (a new token unless the seat is a
        player's), and every other person's seat is `open` with `reserved: true`, held for that
        person: no join takes it, they take it by asking for the rematch of this match too (the
        answer: the same new match, their seat, a new token for an anonymous seat). It starts
        when the last seat is taken; a reserved seat untaken after CARDTABLE_REMATCH_SECONDS
        (300) ends it, `aborted` with reason `declined`. The old match gets a `rematch` event
        naming the new one; asked again once seated, 409 `conflict` names it; 409
        `match_not_active` once the rematch ended. Answers like create.
        """
        svc = service()
        return rematch(svc.repo, svc.seats, match_id, bearer_token(), current_caller())


@blp.route("/<match_id:match_id>/claim")
class Claim(MethodView):
    @blp.arguments(ClaimSchema(), example=examples.CLAIM)
    @blp.response(200, ClaimedSchema, example=examples.CLAIMED)
    @_errors(403, 404, 409, *CREDENTIAL_ERRORS, *BODY_ERRORS)
    @blp.doc(operationId="claimSeat")
    def post(self, body: dict[str, Any], match_id: str) -> dict[str, Any]:
        """Take a seat over with its invitation code: a fresh token, the old one dead

        No token needed: the code is the credential, good once (an Authorization that is no app
        key or player token is 401 `invalid_token`). The answer holds the seat's
        new token (shown only once); the one who made the invitation can no longer read the
        seat's hand or act in it. 403 `forbidden` for a code that was claimed, replaced or
        never made, or whose maker no longer holds the seat; 409 `match_not_active` once the
        match is over or the seat was handed on 10 times.
        """
        return service().claim(match_id, body["code"], body.get("name"))


@blp.route("/<match_id:match_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.view_response(200, EventsSchema, example=examples.EVENTS)
    @_errors(401, 404, 422)
    @blp.doc(security=OPTIONAL_AUTH)
    @blp.doc(operationId="getEvents")
    def get(self, query: dict[str, Any], match_id: str) -> Response:
        """Events after `after`, redacted for your seat; long-polls up to `wait` seconds

        Answers at once when there are events after `after`, else waits up to `wait` seconds
        (at most 30) for one. At most `limit` events (at most 1,000); `next_after` is the
        `after` of the next page when more follow (null when none do). A `deal` shows only your
        own hand (none to spectators). The answer's `version` is the match's, for an `If-Match`.
        A token whose seat changes hands meanwhile gets the events up to that change, or 401
        `invalid_token` when it asked from past it.
        """
        svc = service()
        token = bearer_token()
        after, wait, limit = query["after"], query["wait"], query["limit"]
        # Before the load: the wait that follows it need not read again if nothing came since.
        mark = svc.waiters.mark(channel(match_id)) if wait > 0 else None
        match = svc.load(match_id, events_after=after, token=token)
        holder = Holder.of(svc.repo, match, token)
        client = request.environ.get("gunicorn.socket")
        with svc.wait_quota.held(request.remote_addr or "-", wait > 0):
            events, version, next_after = svc.events(
                match_id, holder, after, wait, client, match, limit, mark
            )
        if holder.lost and not events:
            # Nothing it may see: the token lost its seat before any event it asked for.
            raise errors.InvalidToken("this token no longer holds a seat of this match")
        return json_response({"events": events, "version": version, "next_after": next_after})


@blp.route("/<match_id:match_id>/stream")
class Stream(MethodView):
    @blp.arguments(StreamHeadersSchema(), location="headers")
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.view_response(200, StreamEventSchema, content_type="text/event-stream", example=examples.STREAM)
    @_errors(401, 404, 422)
    @blp.doc(security=OPTIONAL_AUTH)
    @blp.doc(operationId="streamEvents")
    def get(self, headers: dict[str, Any], query: dict[str, Any], match_id: str) -> Response:
        """The same events as Server-Sent Events; resumes after Last-Event-ID

        Each event is sent with `id` = its seq and `event` = its type; comments keep the
        connection alive. The stream closes after `CARDTABLE_STREAM_SECONDS` (5 minutes by
        default) and EventSource reconnects with `Last-Event-ID` by itself.
        """
        svc = service()
        token = bearer_token()
        holder = Holder.of(svc.repo, svc.load(match_id, token=token), token)
        resume = headers.get("last_event_id", query["after"])

        address = holder.address = request.remote_addr or "-"
        client = request.environ.get("gunicorn.socket")
        waiter = streams.open_waiter(svc, channel(match_id), "sse", address, client)

        def generate(after: int = resume) -> Iterator[str]:
            # A stream still ends after a while (proxies drop long responses); EventSource
            # reconnects with Last-Event-ID by itself. It ends at once when its token stops
            # holding its seat (the reconnection then gets 401).
            end = time.monotonic() + svc.config.STREAM_SECONDS
            yield "retry: 1000\n\n"
            catch_up = True
            while time.monotonic() < end and not waiter.gone and not holder.lost:
                left = min(15.0, end - time.monotonic())
                events = svc.stream_events(match_id, holder, after, left, waiter, catch_up)
                catch_up = False
                if not events and not waiter.gone:
                    yield ": keep-alive\n\n"
                for e in events:
                    after = e["seq"]
                    yield streams.frame(e)

        return streams.response(generate(), streams.closer(svc, waiter, address))


@blp.route("/<match_id:match_id>/history")
class History(MethodView):
    @_seat_call("getHistory", (401, 404, 409), HistorySchema, examples.HISTORY, own=False)
    def get(self, match_id: str) -> dict[str, Any]:
        """After the match: every event unredacted, the seeds and the initial deck

        Only once the match is `finished` or `aborted` (409 `match_not_active` before), with a
        seat's token. `server_seed` and `client_seeds` give the `seed` the deals were shuffled
        from, and `deals` reveals the salt and order behind every `deal_commitment`, so a client
        can check that nobody chose the deals and that they were fixed in advance (docs/api.md,
        "Fair deals").
        """
        return service().history(match_id, bearer_token(), required=True)

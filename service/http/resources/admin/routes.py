"""An app's matches and its players' data, with the app's key (docs/integrating.md, "Data of
players"): list the app's matches, abort one, export a player's data, erase a player. Another
app's match or player answers 404, as one that never was."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service import codec, errors
from service.http import examples
from service.http.calls import APP_KEY, EXTERNAL_ID_LENGTH, app_player, current_caller, json_response, service
from service.http.extensions import Blueprint, declare_errors
from service.http.resources.admin.schemas import (
    AppMatchesQuerySchema,
    AppMatchesSchema,
    ErasedSchema,
    PlayerExportSchema,
)
from service.http.resources.matches.schemas import ViewSchema
from service.matches import app_matches
from service.privacy.export import export

blp = Blueprint(
    "admin", __name__, url_prefix="/v1", description="An app's matches and its players' data (the app's key)"
)


@blp.after_request
def _never_stored(resp: Response) -> Response:
    # Each answer is one app's, read with its key: no cache keeps it.
    resp.headers["Cache-Control"] = "no-store"
    return resp


@blp.route("/admin/matches")
class AppMatches(MethodView):
    @blp.arguments(AppMatchesQuerySchema(), location="query")
    @blp.response(200, AppMatchesSchema, example=examples.APP_MATCHES)
    @declare_errors(blp, 401, 422, 429, 503)
    @blp.doc(operationId="listAppMatches", security=APP_KEY)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Your app's matches, newest first, with filters

        Every match created with your app key or by one of your players, and every match one
        of your players joined, while it is stored. `status`, `game` and `player` (an external
        id) narrow the list; pass `next_cursor` back as `cursor` for the next page (null on
        the last). A page looks at `limit` + 50 matches at most: with a narrow filter it may
        hold fewer than `limit` (even none) while `next_cursor` is not null.
        """
        app = current_caller().require_app()
        filters = {k: query.get(k) for k in ("status", "game", "player")}
        return app_matches.app_matches(service().repo, app.id, filters, query["limit"], query.get("cursor"))


@blp.route("/admin/matches/<match_id:match_id>/abort")
class AbortMatch(MethodView):
    @blp.view_response(200, ViewSchema, example=examples.ABORTED)
    @declare_errors(blp, 401, 404, 409, 429, 503)
    @blp.doc(operationId="abortMatch", security=APP_KEY)
    def post(self, match_id: str) -> Response:
        """Abort a live match your app created; answers its public view

        The match is `aborted` at once, with a `match_over` event (reason `aborted_by_app`,
        no winners) that every seat's feed and long-poll receives. Only a match created with
        your app key or by one of your players: any other answers 404. 409
        `match_not_active` when it is over already.
        """
        app = current_caller().require_app()
        view = app_matches.abort(service().repo, app.id, match_id)
        return json_response(view, view["version"])


@blp.route("/players/<external_id>/export")
class PlayerExport(MethodView):
    @blp.view_response(200, PlayerExportSchema, example=examples.PLAYER_EXPORT)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="exportPlayer", security=APP_KEY)
    def get(self, external_id: str) -> Response:
        """Everything the service holds of one of your players (GDPR art. 15 and 20)

        The player (external id, name, metadata, created, ratings) and every stored match it
        holds a seat in: its seat and the name the seat shows, with the match's public
        history once it is over, else its public view. Finished matches are kept 7 days
        (CARDTABLE_FINISHED_TTL).
        """
        player, app_id = app_player(external_id)
        svc = service()
        exported = export(svc.repo, svc.following, app_id, player)
        return Response(codec.dumps(exported), mimetype="application/json")


@blp.route("/players/<external_id>")
class ErasePlayer(MethodView):
    @blp.response(200, ErasedSchema, example=examples.ERASED)
    @declare_errors(blp, 401, 404, 409, 429, 503)
    @blp.doc(operationId="erasePlayer", security=APP_KEY)
    def delete(self, external_id: str) -> dict[str, Any]:
        """Erase one of your players (GDPR art. 17)

        Its tokens stop at once (401), it leaves every leaderboard of your app, and in every
        stored match it sat in (a seat it handed on too) its seat shows "Erased player" and
        names it no more, in the views, the events and the history (which still replays), nor
        do other players' feeds or your stored webhook deliveries; a rating or notice handed on
        after the erasure leaves it out. The external id is free again:
        a `PUT` makes a new player. Its live matches go on without it; abort them first to end
        them. 409 `version_conflict` when one of its matches kept changing: send it again.
        docs/integrating.md, "Erasure", says what is left.
        """
        app = current_caller().require_app()
        if not 1 <= len(external_id) <= EXTERNAL_ID_LENGTH:
            raise errors.NotFound(f"no player {external_id!r} in this app")
        erased = service().erasure.erase(app.id, external_id)
        if erased is None:
            raise errors.NotFound(f"no player {external_id!r} in this app")
        return erased

"""The lobby (GET /v1/matches) and quick play (POST /v1/matches/quick) of docs/api.md."""

from __future__ import annotations

from typing import Any, cast

from flask import current_app
from flask.views import MethodView

from service.http import examples
from service.http.calls import current_caller
from service.http.extensions import Blueprint, declare_errors
from service.http.resources.lobby.schemas import (
    LobbyPageSchema,
    LobbyQuerySchema,
    QuickPlayedSchema,
    QuickPlaySchema,
)
from service.matches.lobby import Lobby

blp = Blueprint("lobby", __name__, url_prefix="/v1/matches", description="The lobby: find a match to join")


def lobby() -> Lobby:
    app = current_app
    if "cardtable_lobby" not in app.extensions:
        svc = app.extensions["cardtable"]
        app.extensions["cardtable_lobby"] = Lobby(svc.repo, svc.seats)
    return cast(Lobby, app.extensions["cardtable_lobby"])  # made above


@blp.route("")
class Listed(MethodView):
    @blp.arguments(LobbyQuerySchema(), location="query")
    @blp.response(200, LobbyPageSchema, example=examples.LOBBY_PAGE)
    @declare_errors(blp, 422, 429, 503)
    @blp.doc(operationId="listMatches")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Listed matches with open seats, newest first (public facts only)

        Only matches created with `"listed": true` that are `waiting`. Pass the answer's
        `next_cursor` back as `cursor` for the next page (null on the last); a page may hold
        fewer than `limit` matches. Never a token, seed or card.
        """
        return lobby().list_matches(query.get("game"), query["limit"], query.get("cursor"))


@blp.route("/quick")
class Quick(MethodView):
    @blp.arguments(QuickPlaySchema(), example=examples.QUICK_PLAY)
    @blp.response(200, QuickPlayedSchema, example=examples.QUICK_PLAYED)
    # 401: an Authorization that is no app key or player token (service/http/admission.py).
    @declare_errors(blp, 400, 401, 413, 422, 429, 503)
    @blp.doc(operationId="quickPlay")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Take a seat in the oldest listed match of this game and options, or host a new one

        Matches the seat count (`players`, default the game's smallest table) and the options
        after defaults. With no seat free it creates a listed match with you in seat 0, the
        host (`created`: true), every other seat open. The token is shown only once.
        `client_seed` (at most 64 characters) is your seat's seed for the deal (docs/api.md,
        "Fair deals"). Anonymous, or with an app key or a player token (docs/integrating.md); any
        other Authorization is 401 `invalid_token`. With `"rated": true` (a player token only) it
        takes the waiting rated match whose players' ratings are closest to yours, within a band
        that widens while the match waits (docs/api.md, "Rated quick play").
        """
        return lobby().quick(
            body["game"],
            body["options"],
            body.get("name"),
            body.get("players"),
            body.get("client_seed"),
            current_caller(),
        )

"""The lobby (GET /v1/matches) and quick play (POST /v1/matches/quick) of docs/api.md."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from service.extensions import Blueprint, ErrorSchema
from service.lobby import Lobby
from service.resources.lobby.schemas import (
    LobbyPageSchema,
    LobbyQuerySchema,
    QuickPlayedSchema,
    QuickPlaySchema,
)

blp = Blueprint("lobby", __name__, url_prefix="/v1/matches", description="The lobby: find a match to join")


def lobby() -> Lobby:
    app = current_app
    if "cardtable_lobby" not in app.extensions:
        app.extensions["cardtable_lobby"] = Lobby(app.extensions["cardtable"])
    return app.extensions["cardtable_lobby"]


@blp.route("")
class Listed(MethodView):
    @blp.arguments(LobbyQuerySchema(), location="query")
    @blp.response(200, LobbyPageSchema)
    @blp.alt_response(422, schema=ErrorSchema)
    @blp.alt_response(429, schema=ErrorSchema)
    @blp.doc(operationId="listMatches")
    def get(self, query):
        """Listed matches with open seats, newest first (public facts only)"""
        return lobby().list_matches(query.get("game"), query["limit"], query.get("cursor"))


@blp.route("/quick")
class Quick(MethodView):
    @blp.arguments(QuickPlaySchema())
    @blp.response(200, QuickPlayedSchema)
    @blp.alt_response(422, schema=ErrorSchema)
    @blp.alt_response(429, schema=ErrorSchema)
    @blp.doc(operationId="quickPlay")
    def post(self, body):
        """Take a seat in the oldest listed match of this game and options, or host a new one"""
        return lobby().quick(body["game"], body["options"], body.get("name"), body.get("players"))

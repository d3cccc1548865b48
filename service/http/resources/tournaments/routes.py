"""Tournaments an app runs and its players join (docs/api.md, "Tournaments")."""

from __future__ import annotations

import re
from typing import Any

from flask.views import MethodView

from service import errors
from service.http import examples
from service.http.calls import APP_KEY, PLAYER_TOKEN, current_caller, service
from service.http.extensions import Blueprint, declare_errors
from service.http.resources.tournaments.schemas import (
    TOURNAMENT_ID_PATTERN,
    CreateTournamentSchema,
    TournamentSchema,
    TournamentsQuerySchema,
    TournamentsSchema,
)

blp = Blueprint(
    "tournaments",
    __name__,
    url_prefix="/v1/tournaments",
    description="Swiss and knockout tournaments of an app",
)
_ID = re.compile(TOURNAMENT_ID_PATTERN)


def _checked(tournament_id: str) -> str:
    if not _ID.fullmatch(tournament_id):
        raise errors.NotFound(f"no tournament with id {tournament_id!r}")
    return tournament_id


@blp.route("")
class TournamentList(MethodView):
    @blp.arguments(CreateTournamentSchema(), example=examples.CREATE_TOURNAMENT)
    @blp.response(201, TournamentSchema, example=examples.TOURNAMENT_CREATED)
    @declare_errors(blp, 400, 401, 413, 422, 429, 503)
    @blp.doc(operationId="createTournament", security=APP_KEY)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a tournament; your players join it until you start it

        Swiss (`rounds` rounds; players of equal points meet, never the same pair twice when
        avoidable; a bye is a win) or knockout (seeded by rating, byes to the top seeds, the loser
        leaves). Tables of the game's smallest size (Spades: 4, in partnerships). Your app key
        only; your app holds at most its `tournaments` quota registering or running (429).
        """
        app = current_caller().require_app()
        return service().tournaments.create(app, body)

    @blp.arguments(TournamentsQuerySchema(), location="query")
    @blp.response(200, TournamentsSchema, example=examples.TOURNAMENTS)
    @declare_errors(blp, 401, 422, 429, 503)
    @blp.doc(operationId="listTournaments", security=APP_KEY + PLAYER_TOKEN)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Your app's tournaments, newest first

        With your app key or one of your players' tokens (to find one to join). Each without
        its rounds: GET /v1/tournaments/{id} has them.
        """
        app = current_caller().app
        if app is None:
            raise errors.InvalidToken("this call needs an app key or a player token")
        return {"tournaments": service().tournaments.listed(app.id, query["limit"])}


@blp.route("/<tournament_id>")
class TournamentResource(MethodView):
    @blp.response(200, TournamentSchema, example=examples.TOURNAMENT)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="getTournament", security=APP_KEY + PLAYER_TOKEN)
    def get(self, tournament_id: str) -> dict[str, Any]:
        """A tournament: status, standings, every round's matches

        With your app key or one of your players' tokens; another app's tournament is 404. With
        a player token `you` says where that player sits in the current round.
        """
        caller = current_caller()
        if caller.app is None:
            raise errors.InvalidToken("this call needs an app key or a player token")
        return service().tournaments.get(caller.app, caller.player, _checked(tournament_id))


@blp.route("/<tournament_id>/join")
class TournamentJoin(MethodView):
    @blp.response(200, TournamentSchema, example=examples.TOURNAMENT)
    @declare_errors(blp, 401, 404, 409, 429, 503)
    @blp.doc(operationId="joinTournament", security=PLAYER_TOKEN)
    def post(self, tournament_id: str) -> dict[str, Any]:
        """Join a tournament while it registers (a player token)

        Joining twice changes nothing. 409 once it has started or is full.
        """
        player = current_caller().require_player()
        return service().tournaments.join(player, _checked(tournament_id))


@blp.route("/<tournament_id>/start")
class TournamentStart(MethodView):
    @blp.response(200, TournamentSchema, example=examples.TOURNAMENT)
    @declare_errors(blp, 401, 404, 409, 429, 503)
    @blp.doc(operationId="startTournament", security=APP_KEY)
    def post(self, tournament_id: str) -> dict[str, Any]:
        """Start a tournament: registration closes and round 1's matches are made

        Each player hears `tournament.round_started` with its match and seat (its feed and your
        webhooks); each later round starts when the last match of the one before ends. Starting
        a running tournament changes nothing. 409 with fewer players than a table.
        """
        app = current_caller().require_app()
        return service().tournaments.start(app, _checked(tournament_id))

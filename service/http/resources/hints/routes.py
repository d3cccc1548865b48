"""GET /v1/matches/{id}/hint: the pro bot's move for the seat to move (docs/api.md "Hints")."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.http import examples
from service.http.calls import json_response, needs_token, service
from service.http.extensions import Blueprint, bearer_token, declare_errors
from service.http.resources.hints.schemas import HintSchema
from service.matches.hints import give_hint

blp = Blueprint("hints", __name__, url_prefix="/v1/matches", description="Hints for people")


@blp.route("/<match_id:match_id>/hint")
class Hint(MethodView):
    @needs_token
    @blp.response(200, HintSchema, example=examples.HINT)
    @declare_errors(blp, 401, 403, 404, 409, 429, 503)
    @blp.doc(operationId="getHint")
    def get(self, match_id: str) -> Response:
        """The pro bot's action for your seat now, with a reason (needs the match option hints)

        Computed from your seat's view only. Counts a hint: `players[].hints_used` rises and the
        match version moves on by one. 403 when hints are off, 409 `not_your_turn` when another
        seat is to move, 409 `match_not_active` between rounds or after the match.
        """
        found = give_hint(service().repo, match_id, bearer_token())
        resp = json_response(found)
        resp.headers["Cache-Control"] = "no-store"
        return resp

"""GET /v1/games: the games this server hosts."""

from flask.views import MethodView

from engines.registry import GAMES
from service.extensions import Blueprint
from service.resources.games.schemas import GameListSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="The games hosted here")


@blp.route("")
class Games(MethodView):
    @blp.response(200, GameListSchema)
    @blp.doc(operationId="listGames")
    def get(self):
        """List the games with player counts, variants, options and bot levels"""
        return {"games": [g.describe() for g in GAMES.values()]}

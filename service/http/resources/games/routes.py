"""GET /v1/games: the games this server hosts."""

from typing import Any

from flask.views import MethodView

from engines.registry import GAMES
from service.http import examples
from service.http.extensions import Blueprint, declare_errors
from service.http.resources.games.schemas import GameListSchema
from service.matches.options import service_options

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="The games hosted here")


@blp.route("")
class Games(MethodView):
    @blp.response(200, GameListSchema, example=examples.GAMES)
    # Rate limited like every /v1 call; it needs no Redis (it answers while Redis is away).
    @declare_errors(blp, 429)
    @blp.doc(operationId="listGames")
    def get(self) -> dict[str, Any]:
        """List the games with player counts, variants, options and bot levels

        Each option has its `type`, `default` and `description`, and its bounds where it has
        them (`minimum`, `maximum`, `choices`): what `options` at creation accepts.
        """
        games = [g.describe() for g in GAMES.values()]
        for g, game in zip(games, GAMES.values(), strict=True):
            # The service's own options, the same in every game but where the game has its own
            # (Zhol's turn_seconds): service/matches/options.py.
            for name, option in service_options(game).items():
                g["options"][name] = option.describe()
        return {"games": games}

"""Players' stored ratings: in each player's hash, one field a game
(service/identity/players.py, `rating_field`), read when a rated match is settled and written
after it (service/matches/rated_matches.py), never for a player gone or being erased
(service/identity/tombstones.py), and shown with the player.
"""

from __future__ import annotations

import json
from typing import Any

from service.identity import tombstones
from service.identity.players import player_key, rating_field

# KEYS[1] a player's hash, KEYS[2] its tombstone (service/identity/tombstones.py). ARGV: the field and
# the rating. Written only while the player is there and not being erased, so a rating handed
# on after an erasure does not make the erased player's hash again.
STORE = """
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('HEXISTS', KEYS[1], 'player') == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


class PlayerRatings:
    """The players' ratings, on the match state's Redis (beside the players)."""

    def __init__(self, client: Any):
        self.client = client
        self._store = client.register_script(STORE)

    def before(self, player_id: str, game: str) -> tuple[float, float] | None:
        """The player's (mu, sigma) in the game, None before its first rated match."""
        raw = self.client.hget(player_key(player_id), rating_field(game))
        return (json.loads(raw)["mu"], json.loads(raw)["sigma"]) if raw else None

    def current(self, player_id: str, game: str) -> dict[str, Any] | None:
        """The player's stored rating in the game ({} before its first), None when the player
        is gone or being erased."""
        key = player_key(player_id)
        if self.erased(player_id) or not self.client.hexists(key, "player"):
            return None
        raw = self.client.hget(key, rating_field(game))
        return json.loads(raw) if raw else {}

    def store(self, player_id: str, game: str, stored: dict[str, Any]) -> bool:
        """Store the player's rating in the game, unless it is gone or being erased meanwhile."""
        keys = [player_key(player_id), tombstones.player_tombstone(player_id)]
        return bool(self._store(keys=keys, args=[rating_field(game), json.dumps(stored)]))

    def erased(self, player_id: str) -> bool:
        return tombstones.erased(self.client, player_id)

    def of(self, player_id: str) -> dict[str, Any]:
        """A player's rating in each game it has played rated matches of."""
        out = {}
        for name, raw in self.client.hgetall(player_key(player_id)).items():
            name = name.decode() if isinstance(name, bytes) else name
            if name.startswith("rating:"):
                stored = json.loads(raw)
                shown = ("rating", "mu", "sigma", "matches")
                out[name.removeprefix("rating:")] = {k: stored[k] for k in shown}
        return out

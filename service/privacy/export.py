"""A player's export (GDPR art. 15 and 20; docs/integrating.md, "Data of players"): everything the
service holds of one of an app's players, as its app's backend asks for it with its key.
Erasing one is service/privacy/erasure.py.
"""

from __future__ import annotations

from typing import Any

from service.identity.players import Player
from service.matches.following import Following
from service.matches.repository import MatchRepository


def export(repo: MatchRepository, following: Following, app_id: str, player: Player) -> dict[str, Any]:
    """A player's data (docs/integrating.md): the player with its ratings, and every stored
    match it holds a seat in (of those it sat down in or joined, `Players.all_match_ids`), each
    with its public history once over, else its public view as the app sees it."""
    matches = []
    for match_id in repo.players.all_match_ids(player.id):
        match = repo.find(match_id)
        seat = match.seat_of_player(player.id) if match is not None else None
        if match is None or seat is None:
            continue
        over = match.over()
        matches.append(
            {
                "id": match_id,
                "game": match.record["game"],
                "status": match.status(),
                "seat": seat,
                "name": match.record["seats"][seat].get("name"),
                "view": None if over else following.view(match, None, app=app_id),
                "history": following.history(match_id, None) if over else None,
            }
        )
    shown = {**player.public(), "ratings": repo.ratings.of(player.id)}
    return {"player": shown, "matches": matches}

"""Rematch: after a match ends, any seat asks for the same game again (docs/api.md, "Rematch").

The new match has the same game and options, every bot at its level, every player-bound seat
bound to the same player (seated at once), the asking seat's person seated with a new token
when it is not a player's, and every other person's seat open for them to join. The old match
gets a `rematch` event naming the new one, committed first (with the new match's id chosen
beforehand), so two seats asking at once make one rematch: the second is told where it is.
"""

from __future__ import annotations

from typing import Any

from service import errors
from service.callers import Caller
from service.match import Match, new_id
from service.players import Player
from service.repository import MatchRepository, Write
from service.seats import Seats


def rematch(
    repo: MatchRepository, seats: Seats, match_id: str, token: str | None, caller: Caller
) -> dict[str, Any]:
    old = repo.load(match_id, token=token)
    asker = repo.authenticate(old, token)
    assert asker is not None  # a token is required: authenticate raised otherwise
    new = new_id()

    def change(match: Match) -> Write:
        if not match.over():
            raise errors.MatchNotActive(f"the match is {match.status()}: a rematch follows its end")
        if match.record.get("rematch"):
            raise errors.Conflict(f"a rematch was made already: match {match.record['rematch']}")
        match.record["rematch"] = new
        return Write([{"type": "rematch", "match": new, "seat": asker}], match.record)

    record = repo.update(match_id, old, change)
    body, players = _again(record, asker, repo)
    return seats.create(body, caller, match_id=new, players=players, app=record.get("app"))


def _again(
    record: dict[str, Any], asker: int, repo: MatchRepository
) -> tuple[dict[str, Any], dict[int, Player]]:
    """The new match's body, and the players to bind to its seats."""
    players: dict[int, Player] = {}
    seats_in: list[dict[str, Any]] = []
    for s in record["seats"]:
        player = repo.store.players.get(s["player"]) if "player" in s else None
        if s["kind"] == "bot":
            seats_in.append({"kind": "bot", "level": s["level"], "name": s["name"]})
        elif player is not None:
            players[s["seat"]] = player
            seats_in.append({"kind": "human"})
        elif s["seat"] == asker:
            seats_in.append({"kind": "human", "name": s["name"]})
        else:
            seats_in.append({"kind": "open"})
    options = dict(record["options"])
    if not record.get("clock_asked"):
        # Zhol's default clock (turn_seconds filled in, not asked for) stays a default one.
        options.pop("turn_seconds", None)
    return {"game": record["game"], "options": options, "seats": seats_in}, players

"""A player's matches, for `GET /v1/me/matches`: live ones first, then those that are over,
newest first in each, each with what an app's match list shows (docs/integrating.md)."""

from __future__ import annotations

from typing import Any

from service import cursors
from service.match import Match
from service.players import Player
from service.repository import MatchRepository

PARTS = ("live", "done")


def _place(cursor: str) -> tuple[str, float, str]:
    """The (part, score, match id) a cursor of this list names."""
    place = cursors.decode(cursor)
    if (
        len(place) != 3
        or place[0] not in PARTS
        or type(place[1]) not in (int, float)
        or not isinstance(place[2], str)
    ):
        cursors.refuse()
    return place[0], float(place[1]), place[2]


def entry(match: Match, seat: int) -> dict[str, Any]:
    """One match as the player's list shows it."""
    status = match.status()
    step = match.step
    clock = match.record.get("clock")
    to_move = step.to_move if step is not None and status == "active" else None
    return {
        "id": match.id,
        "game": match.record["game"],
        "status": status,
        "seat": seat,
        "your_turn": to_move == seat or (status == "round_over" and match.host_seat() == seat),
        "deadline": clock["deadline"] if clock and to_move == seat and clock["seat"] == seat else None,
        "version": match.version,
        "updated": match.record.get("at", match.record.get("created")),
    }


def my_matches(
    repo: MatchRepository, player: Player, status: str | None, limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of the player's matches and the cursor of the next one (None: the last page)."""
    players = repo.store.players
    part, after = "live", None
    if cursor is not None:
        part, score, match_id = _place(cursor)
        after = (score, match_id)
    found: list[dict[str, Any]] = []
    last: tuple[str, float, str] | None = None  # where the page's last match stands
    # Matches to move to the done part, and to drop: changed after the walk over the part, as
    # a sorted set read in pages must not change under its reader.
    over: list[tuple[str, float]] = []
    gone: list[str] = []
    try:
        while True:
            for match_id, score in players.matches(player.id, part, after):
                match = repo.find(match_id)
                seat = match.seat_of_player(player.id) if match is not None else None
                if match is None or seat is None:
                    gone.append(match_id)  # expired, or the seat was left or handed over
                elif part == "live" and match.over():
                    over.append((match_id, score))  # listed again among the done ones
                elif status is None or match.status() == status:
                    if len(found) == limit:
                        # One more than the page holds: a next page exists, and starts after `last`.
                        return {"matches": found, "next": cursors.encode(*last) if last else None}
                    found.append(entry(match, seat))
                    last = (part, score, match_id)
            if part == "done":
                return {"matches": found, "next": None}
            players.settle(player.id, over)  # before the done part is read
            over, part, after = [], "done", None
    finally:
        players.settle(player.id, over)
        players.forget(player.id, gone)

"""A player's matches, for `GET /v1/me/matches`: live ones first, then those that are over,
newest first in each, each with what an app's match list shows (docs/integrating.md).

The lists are the player's sorted sets (service/identity/players.py), walked from a cursor's place: a
page costs the entries it looks at, at most `limit` + MAX_SKIPPED, never the whole history."""

from __future__ import annotations

import sys
from typing import Any

from service.identity.players import Player
from service.infra import cursors
from service.matches.match import Match
from service.matches.repository import MatchRepository

PARTS = ("live", "done")
DONE = ("finished", "aborted")  # the statuses of the done part
# Entries a page may look at beyond the `limit` it shows: those its filter passes over, and
# those it drops (expired, the seat no longer the player's) or moves (found over).
MAX_SKIPPED = cursors.MAX_SKIPPED
# The place before a part's first entry, in a cursor (JSON has no infinity).
TOP = sys.float_info.max


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
    """A page of the player's matches and the cursor of the next one (None: the last page).

    A page looks at `limit` + MAX_SKIPPED entries at most, whatever the player's history: with
    a filter few of its matches pass (or entries of matches that expired) it answers what it
    found with the cursor of the last entry it looked at, and the next page goes on from there.
    A live status never reads the done part (a match over never comes back)."""
    players = repo.players
    parts = PARTS if status is None or status in DONE else PARTS[:1]
    part, place = "live", None  # the part walked, and the last entry looked at in it
    if cursor is not None:
        part, score, match_id = _place(cursor)
        place = (score, match_id)
        if part not in parts:
            return {"matches": [], "next": None}
    found: list[dict[str, Any]] = []
    budget = limit + MAX_SKIPPED
    # Matches to move to the done part, and to drop: changed after the walk over the part, as
    # a sorted set read in pages must not change under its reader.
    over: list[tuple[str, float]] = []
    expired: list[str] = []
    left: list[tuple[str, float]] = []
    try:
        while True:
            for match_id, score in players.matches(player.id, part, place):
                if budget == 0:
                    return {"matches": found, "next": _cursor(part, place)}
                budget -= 1
                match = repo.find(match_id)
                seat = match.seat_of_player(player.id) if match is not None else None
                if match is None:
                    expired.append(match_id)
                elif seat is None:
                    left.append((match_id, score))  # the seat was left, or handed on
                elif part == "live" and match.over():
                    over.append((match_id, score))  # listed again among the done ones
                elif status is None or match.status() == status:
                    if len(found) == limit:
                        # One more than the page holds: a next page exists, and starts after `place`.
                        return {"matches": found, "next": _cursor(part, place)}
                    found.append(entry(match, seat))
                place = (score, match_id)
            if part == parts[-1]:
                return {"matches": found, "next": None}
            players.settle(player.id, over)  # before the done part is read
            over, part, place = [], "done", None
    finally:
        players.settle(player.id, over)
        players.forget(player.id, expired, left)


def _cursor(part: str, place: tuple[float, str] | None) -> str:
    """The cursor of the entry after `place` in `part` (None: the part's first)."""
    return cursors.encode(part, *(place or (TOP, "")))

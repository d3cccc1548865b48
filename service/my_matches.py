"""A player's matches, for `GET /v1/me/matches`: live ones first, then those that are over,
newest first in each, each with what an app's match list shows (docs/integrating.md)."""

from __future__ import annotations

import base64
import json
from typing import Any

from service import errors
from service.match import Match
from service.players import Player
from service.repository import MatchRepository

PARTS = ("live", "done")
_OVER = ("finished", "aborted")


def encode_cursor(part: str, score: float, match_id: str) -> str:
    raw = json.dumps([part, score, match_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, float, str]:
    try:
        part, score, match_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if part in PARTS and isinstance(score, int | float) and isinstance(match_id, str):
            return part, float(score), match_id
    except (ValueError, TypeError):
        pass
    raise errors.InvalidRequest("cursor is not one this service gave", {"cursor": ["not from this list"]})


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
        part, score, match_id = decode_cursor(cursor)
        after = (score, match_id)
    found: list[dict[str, Any]] = []
    last: tuple[str, float, str] | None = None  # where the page's last match stands
    while True:
        rows = players.matches(player.id, part, after, limit)
        for match_id, score in rows:
            after = (score, match_id)
            match = repo.find(match_id)
            seat = match.seat_of_player(player.id) if match is not None else None
            if match is None or seat is None:
                players.forget_match(player.id, match_id)  # expired, or the seat was left
                continue
            if part == "live" and match.over():
                players.settle(player.id, match_id, score)
                continue  # listed again among the done ones
            if status is None or match.status() == status:
                if len(found) == limit:
                    # One more than the page holds: a next page exists, and starts after `last`.
                    return {"matches": found, "next": encode_cursor(*last) if last else None}
                found.append(entry(match, seat))
                last = (part, score, match_id)
        if len(rows) < limit:
            if part == "done":
                return {"matches": found, "next": None}
            part, after = "done", None

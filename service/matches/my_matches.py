"""A player's matches, for `GET /v1/me/matches`: live ones first, then those that are over,
newest first in each, each with what an app's match list shows (docs/integrating.md).

The lists are the player's sorted sets (service/identity/players.py), walked from a cursor's place: a
page costs the entries it looks at, at most `limit` + MAX_SKIPPED, never the whole history."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
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
    page = _Page(repo, player.id, status, limit)
    try:
        while True:
            for match_id, score in players.matches(player.id, part, place):
                if not page.look(part, match_id, score):
                    return {"matches": page.found, "next": _cursor(part, place)}
                place = (score, match_id)
            if part == parts[-1]:
                return {"matches": page.found, "next": None}
            players.settle(player.id, page.over)  # before the done part is read
            page.over, part, place = [], "done", None
    finally:
        players.settle(player.id, page.over)
        players.forget(player.id, page.expired, page.left)


@dataclass
class _Page:
    """A page being filled: the entries it shows (`found`), what it may still look at
    (`budget`), and the entries to move to the done part (`over`) and to drop (`expired`, and
    `left`: the seat was left or handed on), which are changed after the walk over their part,
    as a sorted set read in pages must not change under its reader."""

    repo: MatchRepository
    player_id: str
    status: str | None
    limit: int
    found: list[dict[str, Any]] = field(default_factory=list)
    over: list[tuple[str, float]] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    left: list[tuple[str, float]] = field(default_factory=list)
    budget: int = field(init=False)

    def __post_init__(self) -> None:
        self.budget = self.limit + MAX_SKIPPED

    def look(self, part: str, match_id: str, score: float) -> bool:
        """Look at one entry of `part`; False when the page ends before it (the budget spent,
        or one more match than the page holds: a next page exists, and starts at this one)."""
        if self.budget == 0:
            return False
        self.budget -= 1
        match = self.repo.find(match_id)
        seat = match.seat_of_player(self.player_id) if match is not None else None
        if match is None:
            self.expired.append(match_id)
        elif seat is None:
            self.left.append((match_id, score))
        elif part == "live" and match.over():
            self.over.append((match_id, score))  # listed again among the done ones
        elif self.status is None or match.status() == self.status:
            if len(self.found) == self.limit:
                return False
            self.found.append(entry(match, seat))
        return True


def _cursor(part: str, place: tuple[float, str] | None) -> str:
    """The cursor of the entry after `place` in `part` (None: the part's first)."""
    return cursors.encode(part, *(place or (TOP, "")))

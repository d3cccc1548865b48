"""An app's own matches, for its backend with its key (docs/integrating.md, "Data of players"):
listing them (from the app's index, service/matches/app_index.py, whose entries a lists effect of
the commit that makes the match the app's writes: service/matches/listings.py) and aborting one.
A player's export and erasure are service/privacy/'s.
"""

from __future__ import annotations

from typing import Any, cast

from service import errors
from service.infra import cursors
from service.matches.following import Following
from service.matches.match import Match
from service.matches.repository import MatchRepository, Write

# Matches one page looks at beyond the `limit` it shows, at most, before it answers with what
# it found: a filter that few of an app's matches pass then gives short pages (with a
# next_cursor) rather than a request that reads every match the app has.
MAX_SKIPPED = cursors.MAX_SKIPPED
# The `match_over` reason of a match its app aborted.
ABORTED_BY_APP = "aborted_by_app"


# --- listing --------------------------------------------------------------------------------
def _place(cursor: str) -> tuple[float, str]:
    """The (score, match id) a cursor of this list names."""
    place = cursors.decode(cursor)
    if len(place) != 2 or type(place[0]) not in (int, float) or not isinstance(place[1], str):
        cursors.refuse()
    return float(place[0]), place[1]


def entry(match: Match, app_id: str) -> dict[str, Any]:
    """One match as the app's list shows it; `own` is filled in by the caller."""
    record = match.record
    seats = []
    for s in record["seats"]:
        seat = {"seat": s["seat"], "kind": s["kind"], "name": s.get("name") if s["kind"] != "open" else None}
        if s.get("app") == app_id:
            seat["player"] = s["external"]
        seats.append(seat)
    return {
        "id": match.id,
        "game": record["game"],
        "status": match.status(),
        "created": record["created"],
        "updated": record.get("at", record["created"]),
        "version": match.version,
        "seats": seats,
    }


def app_matches(
    repo: MatchRepository, app_id: str, filters: dict[str, Any], limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of the app's matches, newest first, with the cursor of the next page (None on the
    last). `filters`: `status`, `game` and `player` (an external id), each optional."""
    index = repo.app_index
    player_id: str | None = None
    if filters.get("player") is not None:
        player = repo.players.find(app_id, filters["player"])
        if player is None:
            return {"matches": [], "next_cursor": None}
        player_id = player.id
    found: list[dict[str, Any]] = []
    gone: list[str] = []
    place = _place(cursor) if cursor else None  # the last entry looked at
    next_cursor = None
    budget = limit + MAX_SKIPPED
    for scanned, (match_id, score) in enumerate(index.newest_first(app_id, place)):
        if scanned == budget:
            next_cursor = cursors.encode(*place) if place else None
            break
        match = repo.find(match_id)
        if match is None:
            gone.append(match_id)  # expired
        elif _passes(match, filters, player_id):
            if len(found) == limit:
                # One more than the page holds: a next page exists, and starts after `place`.
                next_cursor = cursors.encode(*place) if place else None
                break
            found.append(entry(match, app_id))
        place = (score, match_id)
    index.mark_own(app_id, found)
    if gone:
        index.drop(app_id, gone)
    return {"matches": found, "next_cursor": next_cursor}


def _passes(match: Match, filters: dict[str, Any], player_id: str | None) -> bool:
    if filters.get("status") is not None and match.status() != filters["status"]:
        return False
    if filters.get("game") is not None and match.record["game"] != filters["game"]:
        return False
    return player_id is None or match.seat_of_player(player_id) is not None


# --- aborting -------------------------------------------------------------------------------
def abort(repo: MatchRepository, app_id: str, match_id: str) -> dict[str, Any]:
    """Abort a live match the app created: `aborted`, with a `match_over` event (reason
    `aborted_by_app`), in one compare-and-set commit every waiter sees. Answers the public
    view as the app sees it. 404 for a match the app did not create, 409 for one that is over."""
    if not repo.app_index.owns(app_id, match_id):
        raise errors.NotFound(f"no match with id {match_id!r} in this app")

    def change(match: Match) -> Write:
        if match.over():
            raise errors.MatchNotActive(f"the match is {match.status()}")
        events = match.abort(ABORTED_BY_APP)
        return Write(events, Following.view(match, None, match.next_version, app=app_id))

    return cast(dict[str, Any], repo.update(match_id, None, change))  # the Write's result

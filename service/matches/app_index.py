"""The apps' match indexes (docs/integrating.md, "Data of players"), each under the hash tag
of the app or player it belongs to:

- `ct:{app:<id>}:matches`: every match created with the app's key or by one of its players, or
  joined by one of its players, scored by the match's creation time;
- `ct:{app:<id>}:created`: of those, the ones the app created (its key or a player's token):
  the ones it may abort;
- `ct:{pl:<id>}:joined`: the matches the player took an open seat in, by creation time (its
  `join` event carries the name it had then; erasure scrubs it there, even once the player
  left the seat again).

An entry is written right after the commit that makes the match the app's, so the index never
names a match that was not stored. Entries of matches that expired are dropped by the listing
that finds them gone (service/matches/app_matches.py), as `/v1/me/matches` does; each index
keeps its newest INDEX_LIMIT. Seats and rematches write it, through the repository that holds
it; the app's listing, abort and a player's export read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from service.identity.apps import app_key
from service.identity.callers import Caller
from service.identity.players import Players, match_list_key
from service.infra import cursors
from service.matches.store import Store

# Entries an index keeps; the oldest go first.
INDEX_LIMIT = 100_000


def matches_key(app_id: str) -> str:
    return f"{app_key(app_id)}:matches"


def created_key(app_id: str) -> str:
    return f"{app_key(app_id)}:created"


def joined_key(player_id: str) -> str:
    return match_list_key(player_id, "joined")


# --- the index ------------------------------------------------------------------------------
class AppIndex:
    """The apps' match indexes and the players' lists of joins, on the match state's Redis
    (`client`); `store` and `players` tell what a join adds."""

    def __init__(self, client: Any, store: Store, players: Players):
        self.client = client
        self.store = store
        self.players = players

    def created(self, caller: Caller | None, match_id: str, record: dict[str, Any]) -> None:
        """A match just stored by an app's key or one of its players goes into the app's index."""
        if caller is None or caller.app is None:
            return
        self._index(caller.app.id, match_id, record["created"], own=True)

    def joined(self, caller: Caller | None, match_id: str) -> None:
        """A match one of an app's players just joined goes into the app's index and the
        player's list of joins."""
        if caller is None or caller.player is None or caller.app is None:
            return
        loaded = self.store.load(match_id)
        if loaded is None:
            return  # expired already
        created = loaded.record["created"]
        mine = [s for s in loaded.record["seats"] if s.get("player") == caller.player.id]
        if mine and mine[0].get("name"):
            # A name it joined with (not its own) is one more its erasure must find.
            self.players.named(caller.player.id, mine[0]["name"])
        self._index(caller.app.id, match_id, created, own=False)
        with self.client.pipeline(transaction=True) as p:
            p.zadd(joined_key(caller.player.id), {match_id: created})
            p.zremrangebyrank(joined_key(caller.player.id), 0, -INDEX_LIMIT - 1)
            p.execute()

    def _index(self, app_id: str, match_id: str, created: float, own: bool) -> None:
        keys = [matches_key(app_id), *([created_key(app_id)] if own else [])]
        with self.client.pipeline(transaction=True) as p:
            for key in keys:
                p.zadd(key, {match_id: created})
                p.zremrangebyrank(key, 0, -INDEX_LIMIT - 1)
            p.execute()

    def owns(self, app_id: str, match_id: str) -> bool:
        """Whether the app created the match (its key or one of its players)."""
        return self.client.zscore(created_key(app_id), match_id) is not None

    def newest_first(self, app_id: str, place: tuple[float, str] | None) -> Iterator[tuple[str, float]]:
        """The app's matches, newest first, after `place` (the last entry looked at)."""
        return cursors.newest_first(self.client, matches_key(app_id), place)

    def mark_own(self, app_id: str, found: list[dict[str, Any]]) -> None:
        """Mark the matches of a page the app created (one round trip)."""
        if not found:
            return
        scores = self.client.zmscore(created_key(app_id), [m["id"] for m in found])
        for m, score in zip(found, scores, strict=True):
            m["own"] = score is not None

    def drop(self, app_id: str, gone: list[str]) -> None:
        """Entries of matches that expired leave the app's index."""
        with self.client.pipeline(transaction=True) as p:
            p.zrem(matches_key(app_id), *gone)
            p.zrem(created_key(app_id), *gone)
            p.execute()

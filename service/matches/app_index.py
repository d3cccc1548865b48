"""The apps' match indexes (docs/integrating.md, "Data of players"), each under the hash tag
of the app or player it belongs to:

- `ct:{app:<id>}:matches`: every match created with the app's key or by one of its players, or
  joined by one of its players, scored by the match's creation time;
- `ct:{app:<id>}:created`: of those, the ones the app created (its key or a player's token):
  the ones it may abort;
- `ct:{pl:<id>}:joined`: the matches the player took an open seat in, by creation time (its
  `join` event carries the name it had then; erasure scrubs it there, even once the player
  left the seat again).

An entry is written by the `lists` effect of the commit that makes the match the app's
(service/matches/listings.py), right after that commit or by the relay, so the index never names
a match that was not stored and never misses one that was. Entries of matches that expired are
dropped by the listing that finds them gone (service/matches/app_matches.py), as
`/v1/me/matches` does; each index keeps its newest INDEX_LIMIT. The repository applies the
effects (`apply`); the app's listing, abort and a player's export read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from service.identity.apps import app_key
from service.identity.players import Players, match_list_key
from service.infra import cursors

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
    (`client`), with the players' own lists (`players`)."""

    def __init__(self, client: Any, players: Players):
        self.client = client
        self.players = players

    def apply(self, match_id: str, effect: dict[str, Any], relayed: bool) -> None:
        """Write what a `lists` effect names (service/matches/listings.py). The relay skips a
        player already listed (its committer got that far: the match may have moved to `done`
        since) or erased (its keys stay gone)."""
        for player_id in effect["sat"]:
            if relayed and self._listed_or_gone(player_id, match_id):
                continue
            self.players.sat_down(player_id, match_id, effect["at"])
        joiner = effect.get("joined")
        if joiner is not None and not (relayed and self.players.get(joiner) is None):
            if effect.get("name"):
                # A name it joined with (not its own) is one more its erasure must find.
                self.players.named(joiner, effect["name"])
            self._add([joined_key(joiner)], match_id, effect["created"])
        if effect["app"] is not None:
            self._index(effect["app"], match_id, effect["created"], own=effect["own"])

    def _listed_or_gone(self, player_id: str, match_id: str) -> bool:
        if self.client.zscore(match_list_key(player_id, "sat"), match_id) is not None:
            return True
        return self.players.get(player_id) is None

    def _index(self, app_id: str, match_id: str, created: float, own: bool) -> None:
        self._add([matches_key(app_id), *([created_key(app_id)] if own else [])], match_id, created)

    def _add(self, keys: list[str], match_id: str, created: float) -> None:
        """The match in each index of `keys` by its creation time, each kept to INDEX_LIMIT."""
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

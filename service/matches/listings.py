"""Where a match is listed outside its own slot: its players' lists and its app's index, written
by an outbox effect (docs/architecture.md, "Writes outside a match's slot").

A commit that seats players (a creation binding seats to players, a player's join, a player
taking its seat in a rematch) or makes a match an app's carries one `lists` effect in the
match's outbox (service/matches/outbox.py), so the entries exist whenever the commit does:

    {"kind": "lists", "v", "at", "created": <the match's creation time>, "sat": [player ids],
     "app": <app id or null>, "own": <the app created it>, "joined": <player id or null>,
     "name": <the name the joining player showed, or null>}

`apply` writes them right after the commit, or the relay does when the committer died first:
each seated player's `live` and `sat` lists (service/identity/players.py), a joining player's
`names` and `joined` (what its erasure must find), and the app's `matches` (and `created`, the
ones it may abort). Each is a ZADD of the same member at the same score, so the relay applying
an effect its committer applied already changes nothing.

Keys, each under the hash tag of the app or player it belongs to:

- `ct:{app:<id>}:matches`: every match created with the app's key or by one of its players, or
  joined by one of its players, scored by the match's creation time;
- `ct:{app:<id>}:created`: of those, the ones the app created (its key or a player's token);
- `ct:{pl:<id>}:joined`: the matches the player took an open seat in, by creation time (its
  `join` event carries the name it had then; erasure scrubs it there, even once the player
  left the seat again).

Entries of matches that expired are dropped by the listings that find them gone
(service/matches/app_matches.py, service/matches/my_matches.py); each index keeps its newest
INDEX_LIMIT.
"""

from __future__ import annotations

from typing import Any

from service.identity.apps import app_key
from service.identity.players import Player, Players, match_list_key

# Entries an index keeps; the oldest go first.
INDEX_LIMIT = 100_000


def matches_key(app_id: str) -> str:
    return f"{app_key(app_id)}:matches"


def created_key(app_id: str) -> str:
    return f"{app_key(app_id)}:created"


def joined_key(player_id: str) -> str:
    return match_list_key(player_id, "joined")


def created(record: dict[str, Any], bound: list[str], app_id: str | None) -> list[dict[str, Any]]:
    """The effect of a new match: its bound players' lists, and the index of the app whose key
    or player made it (`app_id`); none when it has neither."""
    if not bound and app_id is None:
        return []
    return [{"kind": "lists", "created": record["created"], "sat": bound, "app": app_id, "own": True}]


def joined(player: Player | None, record: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The effect of a player's taking an open (or its reserved) seat `seat` of the match
    `record`, with the name shown there; none for a seat's token (no player, no lists)."""
    if player is None:
        return []
    effect = {"kind": "lists", "created": record["created"], "sat": [player.id], "app": player.app}
    return [{**effect, "own": False, "joined": player.id, "name": record["seats"][seat]["name"]}]


def apply(client: Any, players: Players, match_id: str, effect: dict[str, Any], relayed: bool) -> None:
    """Write what a `lists` effect names. The relay skips a player already listed (its committer
    got that far: the match may have moved to `done` since) or erased (its keys stay gone)."""
    for player_id in effect["sat"]:
        if relayed and _listed_or_gone(client, players, player_id, match_id):
            continue
        players.sat_down(player_id, match_id, effect["at"])
    joiner = effect.get("joined")
    if joiner is not None and not (relayed and players.get(joiner) is None):
        if effect.get("name"):
            # A name it joined with (not its own) is one more its erasure must find.
            players.named(joiner, effect["name"])
        with client.pipeline(transaction=True) as p:
            p.zadd(joined_key(joiner), {match_id: effect["created"]})
            p.zremrangebyrank(joined_key(joiner), 0, -INDEX_LIMIT - 1)
            p.execute()
    if effect["app"] is not None:
        index(client, effect["app"], match_id, effect["created"], own=effect["own"])


def _listed_or_gone(client: Any, players: Players, player_id: str, match_id: str) -> bool:
    if client.zscore(match_list_key(player_id, "sat"), match_id) is not None:
        return True
    return players.get(player_id) is None


def index(client: Any, app_id: str, match_id: str, created: float, own: bool) -> None:
    """The match in the app's index (and among those it created, when `own`)."""
    keys = [matches_key(app_id), *([created_key(app_id)] if own else [])]
    with client.pipeline(transaction=True) as p:
        for key in keys:
            p.zadd(key, {match_id: created})
            p.zremrangebyrank(key, 0, -INDEX_LIMIT - 1)
        p.execute()

"""Where a match is listed outside its own slot: its players' lists and its app's index, written
by an outbox effect (docs/architecture.md, "Writes outside a match's slot").

A commit that seats players (a creation binding seats to players, a player's join, a player
taking its seat in a rematch) or makes a match an app's carries one `lists` effect in the
match's outbox (service/matches/outbox.py), so the entries exist whenever the commit does:

    {"kind": "lists", "v", "at", "created": <the match's creation time>, "sat": [player ids],
     "app": <app id or null>, "own": <the app created it>, "joined": <player id or null>,
     "name": <the name the joining player showed, or null>}

`AppIndex.apply` (service/matches/app_index.py, which owns the keys) writes them right after
the commit, or the relay does when the committer died first:
each seated player's `live` and `sat` lists (service/identity/players.py), a joining player's
`names` and `joined` (what its erasure must find), and the app's `matches` (and `created`, the
ones it may abort). Each is a ZADD of the same member at the same score, so the relay applying
an effect its committer applied already changes nothing.

The keys are service/matches/app_index.py's and service/identity/players.py's.

Entries of matches that expired are dropped by the listings that find them gone
(service/matches/app_matches.py, service/matches/my_matches.py); each index keeps its newest
INDEX_LIMIT.
"""

from __future__ import annotations

from typing import Any

from service.identity.players import Player


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

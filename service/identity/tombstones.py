"""Tombstones of erased players (docs/integrating.md, "Erasure"): what keeps a write that comes
after an erasure from naming the player again.

A commit that read a match before the erasure reached it hands on what it derived (a rated
finish's ratings, its notices) after its commit, or its relay does seconds later, and a
webhook fan-out job may wait in its queue: that can be after the erasure scrubbed everything
stored. So:

- `ct:{pl:<id>}:erased`, set when the erasure starts and kept TOMBSTONE_SECONDS: a rating of
  the player handed on after that is dropped (service/matches/rated_matches.py, `apply`).
- `ct:{app:<app>}:erased`, a sorted set of the SHA-256 digests of the app's erased external
  ids (never the ids), each scored by when its erasure ended (+inf while it runs): a notice
  naming an erased external id that is not newer than its erasure shows that seat as it would
  have after the erasure, not the player's (no entry in `players`, `player` null): in the
  players' feeds as they are read (service/notify/feeds.py), in webhook deliveries as they are made
  and as they are sent (workers/webhooks.py). A player made again with the same external id
  afterwards is named in its own notices. The set is never trimmed: a feed keeps its last
  notices for as long as it gets new ones.
"""

from __future__ import annotations

import hashlib
import math
import time
from datetime import datetime
from typing import Any

from service.identity.players import app_key, player_key

TOMBSTONE_SECONDS = 7 * 24 * 3600
# Seconds a notice's time may run ahead of its erasure's end: the two come from the clocks of
# different processes (an API process's commit, the erasing request's).
CLOCK_MARGIN = 1.0


def player_tombstone(player_id: str) -> str:
    return f"{player_key(player_id)}:erased"


def erased_key(app_id: str) -> str:
    return f"{app_key(app_id)}:erased"


def digest(external: str) -> str:
    return hashlib.sha256(external.encode()).hexdigest()


def begin(client: Any, app_id: str, player_id: str, external: str) -> None:
    """The erasure starts: from now on nothing new names the player."""
    client.set(player_tombstone(player_id), 1, ex=TOMBSTONE_SECONDS)
    client.zadd(erased_key(app_id), {digest(external): "+inf"})


def end(client: Any, app_id: str, external: str) -> None:
    """The erasure is done: notices from later on name whoever has the external id then."""
    client.zadd(erased_key(app_id), {digest(external): time.time() + CLOCK_MARGIN})


class Tombstones:
    """The tombstones on the state Redis, as the erasure writes them (`begin`, `end`)."""

    def __init__(self, client: Any):
        self.client = client

    def begin(self, app_id: str, player_id: str, external: str) -> None:
        begin(self.client, app_id, player_id, external)

    def end(self, app_id: str, external: str) -> None:
        end(self.client, app_id, external)


def erased(client: Any, player_id: str) -> bool:
    return bool(client.exists(player_tombstone(player_id)))


def named(data: dict[str, Any]) -> set[str]:
    """The external ids a notice's data names."""
    found = set((data.get("players") or {}).values())
    if data.get("player"):
        found.add(data["player"])
    # A tournament's end (service/tournaments/rounds.py): its winners and standings name players.
    found.update(w for w in data.get("winners") or () if isinstance(w, str))
    found.update(row["player"] for row in data.get("standings") or () if row.get("player"))
    return found


def redact(client: Any, app_id: str, notices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The notices (each with `timestamp` and `data`; feed entries, webhook bodies) of one app,
    each without the external ids erased since it was made. One read, and none when no notice
    names anyone."""
    externals = sorted(set().union(*(named(n["data"]) for n in notices))) if notices else []
    if not externals:
        return notices
    scores = client.zmscore(erased_key(app_id), [digest(e) for e in externals])
    ended = {e: float(s) for e, s in zip(externals, scores, strict=True) if s is not None}
    if not ended:
        return notices
    return [without(n, ended) for n in notices]


def without(notice: dict[str, Any], ended: dict[str, float]) -> dict[str, Any]:
    """The notice without the external ids of `ended` (external id -> when its erasure ended)
    that it was made before."""
    at = _seconds(notice["timestamp"])
    gone = {e for e in named(notice["data"]) if e in ended and at <= ended[e]}
    if not gone:
        return notice
    data = dict(notice["data"])
    if "players" in data:
        data["players"] = {seat: e for seat, e in data["players"].items() if e not in gone}
    if data.get("player") in gone:
        data["player"] = None
    if "standings" in data:
        data["standings"] = [
            {**row, "player": None, "name": None} if row.get("player") in gone else row
            for row in data["standings"]
        ]
    if "winners" in data:
        data["winners"] = [None if w in gone else w for w in data["winners"]]
    return {**notice, "data": data}


def _seconds(stamp: str) -> float:
    """A notice's RFC 3339 timestamp as seconds since the epoch (-inf when unreadable: older
    than any erasure, so redacted)."""
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (AttributeError, ValueError):
        return -math.inf

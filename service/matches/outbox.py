"""The outbox: what a commit causes beyond the match itself, written by the same Lua script
(docs/architecture.md, "The outbox").

A commit that leaves work for someone else (a bot's turn, a turn clock, a rematch's deadline;
the notifications; a rated match's ratings; the match's entries in its players' and app's lists,
service/matches/listings.py) writes one effect for each into the match's outbox list `ct:{m:<id>}:outbox`
inside its script, so the effect exists exactly when the commit does. The committing process
then hands the effects on at once (`hand_on`). A process that dies between its commit and
that hand-off leaves them in the outbox, and the relay on the workers (workers/relay.py)
hands on what is still there once it is older than CARDTABLE_OUTBOX_GRACE, then removes it.

The relay finds outboxes through `ct:outbox`, a sorted set on the queue Redis (one key for
all matches, so outside the match's hash tag, like the due index): one member
`<match>:<version>` for each commit that wrote effects, scored by when the relay should look,
added in the commit's own round trip, before its script. A member a commit leaves for every
version, never one a match keeps moving, so a match that goes on moving does not keep its
lost effects waiting.
"""

from __future__ import annotations

import json
import time
from typing import Any

import orjson
import redis

from service.infra.jobqueue import Jobs

OUTBOX_KEY = "ct:outbox"


def member(match_id: str, version: int) -> str:
    return f"{match_id}:{version}"


def bot_turn(version: int, low: bool, at: float) -> dict[str, Any]:
    """The bot's (or a resigned seat's) decision the match waits for at `version`."""
    return {"kind": "bot", "v": version, "low": low, "at": at}


def clock(version: int, clock: dict[str, Any], at: float) -> dict[str, Any]:
    """The turn clock the commit of `version` started (its turn number and deadline)."""
    return {"kind": "clock", "v": version, "turn": clock["turn"], "deadline": clock["deadline"], "at": at}


def hand_on(queue: Jobs, match_id: str, effect: dict[str, Any], bot_delay: float | None = None) -> None:
    """Give `effect` to the workers. `bot_delay`: what is left of a bot's delay (the queue's
    own delay when None). Handing on twice is harmless: a job's id is its match and version
    (or turn), so a second enqueue replaces the first, and a job that finds the match moved on
    does nothing."""
    if effect["kind"] == "bot":
        queue.enqueue_bot(match_id, effect["v"], delay=bot_delay, low=effect["low"])
    elif effect["kind"] == "clock":
        queue.enqueue_clock(match_id, effect["turn"], max(0.0, effect["deadline"] - time.time()))
    elif effect["kind"] == "rematch":
        queue.enqueue_rematch(match_id, max(0.0, effect["deadline"] - time.time()))


def rematch(version: int, deadline: float, at: float) -> dict[str, Any]:
    """The deadline of a rematch's reserved seats (service/matches/rematch.py), set by its creation."""
    return {"kind": "rematch", "v": version, "deadline": deadline, "at": at}


def encode(effect: dict[str, Any]) -> bytes:
    """The stored form of an effect: compact JSON with sorted keys, so the same effect always
    encodes the same (the relay removes what it handed on by its stored form). orjson: a
    player's match writes a notify effect with every move that hands the turn on."""
    return orjson.dumps(effect, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


class Outbox:
    """The relay's side: which outboxes are due, what they hold, and removing what was handed on.
    `state` holds the matches (their outbox lists), `queue_client` the index."""

    def __init__(self, state: Any, queue_client: redis.Redis, key: Any):
        self.state = state
        self.client = queue_client
        self.key = key  # the store's key function: key(match_id, "outbox")

    def due(self, now: float, limit: int) -> dict[str, list[tuple[str, int]]]:
        """Index members whose time has come (at most `limit`), by match: (member, version)."""
        rows: list[Any] = self.client.zrangebyscore(OUTBOX_KEY, "-inf", now, start=0, num=limit)
        out: dict[str, list[tuple[str, int]]] = {}
        for raw in rows:
            name = raw.decode() if isinstance(raw, bytes) else str(raw)
            match_id, _, version = name.rpartition(":")
            out.setdefault(match_id, []).append((name, int(version)))
        return out

    def effects(self, match_id: str) -> list[tuple[bytes, dict[str, Any]]]:
        """The effects in the match's outbox, oldest first, each with its stored form."""
        raw: list[bytes] = self.state.lrange(self.key(match_id, "outbox"), 0, -1)
        return [(r, json.loads(r)) for r in raw]

    def remove(self, match_id: str, handed: list[bytes], members: list[str]) -> None:
        """Remove effects handed on (by their stored form, so a removal that runs twice removes
        nothing more), then the index members they were found through."""
        if handed:
            with self.state.pipeline(transaction=False) as p:
                for r in handed:
                    p.lrem(self.key(match_id, "outbox"), 1, r)
                p.execute()
        if members:
            self.client.zrem(OUTBOX_KEY, *members)

    def pending(self) -> int:
        """Commits whose effects the relay has not looked at yet (/metrics)."""
        return int(self.client.zcard(OUTBOX_KEY))

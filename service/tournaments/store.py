"""Where a tournament is kept: its record, the results of its matches, its app's list of
tournaments and the index of rounds waiting to open (docs/architecture.md, "Tournaments").

- `ct:{t:<id>}`: a hash, `v` the record's version and `r` the record as JSON; every change of
  the record is a compare-and-set on `v` (one key, so one slot of a Redis Cluster).
- `ct:{t:<id>}:results`: a hash beside it, one field a match of the tournament that ended, its
  winners as JSON. A match's end writes it alone, with HSETNX, so the hundreds of matches of a
  round that end at once never contend for the record, and a result written twice (the relay
  hands a match's effect on again) changes nothing.
- `ct:{app:<id>}:tournaments`: the app's tournaments by creation time (the app's own slot),
  added before the record is: a listed id whose record is missing is skipped.
- `ct:tournaments:opening`: on the queue Redis, the tournaments with a round paired but not yet
  opened (its matches created, its players told), scored by when the housekeeper should open it
  should the process that paired it die first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import redis

from service import errors

OPENING_KEY = "ct:tournaments:opening"
# A tournament's keys outlive its last change by this long (a finished one is kept for its
# standings' sake).
TTL = 30 * 24 * 3600
# The app's list keeps its newest tournaments only.
LISTED = 1000
RETRIES = 50

# KEYS[1] the record's hash. ARGV[1] expected version ('0': must not exist), ARGV[2] record
# JSON, ARGV[3] expiry. Returns 1 when written, 0 when another writer got in first.
_SET = """
local cur = redis.call('HGET', KEYS[1], 'v') or '0'
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(cur) + 1), 'r', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


class Unchanged(Exception):
    """Raised by a change that finds nothing to do: `TournamentStore.update` writes nothing."""


def record_key(tournament_id: str) -> str:
    return f"ct:{{t:{tournament_id}}}"


def results_key(tournament_id: str) -> str:
    return f"ct:{{t:{tournament_id}}}:results"


def app_list_key(app_id: str) -> str:
    return f"ct:{{app:{app_id}}}:tournaments"


class TournamentStore:
    """Tournaments on the match state's Redis; the opening index on the queue Redis."""

    def __init__(self, state: Any, queue: redis.Redis):
        self.client = state
        self.queue = queue
        self._set = state.register_script(_SET)

    def load(self, tournament_id: str) -> tuple[dict[str, Any], int] | None:
        """The record and its version, None when there is none."""
        version, raw = self.client.hmget(record_key(tournament_id), ["v", "r"])
        if raw is None:
            return None
        return json.loads(raw), int(version)

    def results(self, tournament_id: str) -> dict[str, dict[str, Any]]:
        """How each of the tournament's matches that ended ended (`winners`, player ids, and
        `status`), by match id."""
        raw: dict[bytes, bytes] = self.client.hgetall(results_key(tournament_id))
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    def ended(self, tournament_id: str, match_ids: list[str]) -> bool:
        """Whether every one of these matches of the tournament has its result."""
        if not match_ids:
            return True
        found = self.client.hmget(results_key(tournament_id), match_ids)
        return all(r is not None for r in found)

    def add(self, record: dict[str, Any]) -> None:
        """Store a new tournament, listed with its app first."""
        with self.client.pipeline(transaction=False) as p:
            p.zadd(app_list_key(record["app"]), {record["id"]: record["created"]})
            p.zremrangebyrank(app_list_key(record["app"]), 0, -LISTED - 1)
            p.expire(app_list_key(record["app"]), TTL)
            p.execute()
        if not self._set(keys=[record_key(record["id"])], args=["0", json.dumps(record), TTL]):
            raise errors.Conflict("tournament id collision, try again")

    def update(
        self, tournament_id: str, change: Callable[[dict[str, Any]], Any]
    ) -> tuple[Any, dict[str, Any]]:
        """Apply `change` to the record as loaded and write it at that version, again when
        another writer got in first. `change` changes the record in place and answers what the
        caller gets; it raises `Unchanged` when there is nothing to do, or an error to refuse
        (nothing written either way). Returns its answer (None when unchanged) and the record as
        written (or as found)."""
        for _ in range(RETRIES):
            loaded = self.load(tournament_id)
            if loaded is None:
                raise errors.NotFound(f"no tournament with id {tournament_id!r}")
            record, version = loaded
            try:
                answer = change(record)
            except Unchanged:
                return None, record
            if self._set(keys=[record_key(tournament_id)], args=[str(version), json.dumps(record), TTL]):
                return answer, record
        raise errors.VersionConflict()

    def result(self, tournament_id: str, match_id: str, result: dict[str, Any]) -> None:
        """A match of the tournament ended so (written once; again is a no-op)."""
        with self.client.pipeline(transaction=False) as p:
            p.hsetnx(results_key(tournament_id), match_id, json.dumps(result))
            p.expire(results_key(tournament_id), TTL)
            p.execute()

    def listed(self, app_id: str, limit: int) -> list[dict[str, Any]]:
        """The app's newest tournaments (at most `limit`), newest first."""
        ids = [i.decode() for i in self.client.zrevrange(app_list_key(app_id), 0, limit - 1)]
        out = []
        for tournament_id in ids:
            loaded = self.load(tournament_id)
            if loaded is not None:
                out.append(loaded[0])
        return out

    # --- rounds waiting to open ---------------------------------------------------------------
    # One member a round (`<tournament>:<round>`): opening a round never removes the mark of the
    # next one, which another process may be pairing meanwhile.
    def opening(self, tournament_id: str, number: int, at: float) -> None:
        self.queue.zadd(OPENING_KEY, {f"{tournament_id}:{number}": at})

    def opened(self, tournament_id: str, number: int) -> None:
        self.queue.zrem(OPENING_KEY, f"{tournament_id}:{number}")

    def due(self, now: float | None = None, limit: int = 100) -> list[tuple[str, int]]:
        """(tournament, round) of paired rounds still not open by now."""
        now = time.time() if now is None else now
        rows = self.queue.zrangebyscore(OPENING_KEY, "-inf", now, start=0, num=limit)
        out = []
        for raw in rows:
            tournament_id, _, number = (raw.decode() if isinstance(raw, bytes) else str(raw)).rpartition(":")
            out.append((tournament_id, int(number)))
        return out

    def is_open(self, tournament_id: str, number: int) -> bool:
        """Whether the round (or, past the last, the end) needs the housekeeper no more: open, told,
        or the tournament is gone."""
        loaded = self.load(tournament_id)
        if loaded is None:
            return True
        if loaded[0]["status"] == "finished":
            return bool(loaded[0].get("told", True))
        rounds = loaded[0]["played"]
        return len(rounds) >= number and bool(rounds[number - 1]["open"])

"""Leaderboards: one board of rated players per app and game (issue 30; docs/architecture.md,
"Ratings").

A board is two keys under one hash tag, so on a Redis Cluster all of it is in one slot and a
page is read from one node in one script:

- `ct:{lb:<app>:<game>}:ratings`, a sorted set: the player's id, scored by the rating shown
  (service/ratings/model.py);
- `ct:{lb:<app>:<game>}:players`, a hash: the player's id → the public fields a page shows of
  them (JSON, e.g. `{"player": <external id>, "name": ...}`).

The board's order is the rating, highest first; equal ratings are ordered by player id, highest
first (Redis's own order of equal scores in ZREVRANGE), so the order is total and stable. A
page's `rank` is a player's 1-based position in that order: players with equal ratings get
consecutive ranks, never a shared one. A cursor names the last entry a page showed (its rating
and player id), not an offset: the next page starts right after that entry wherever it stands
now, so players added, moved or removed meanwhile never make a page repeat or skip the players
that stayed where they were.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster

from service import errors
from service.infra import cursors

MAX_LIMIT = 100
# An app id or game id goes inside the `{...}` hash tag: a brace would end the tag early.
_NAME = re.compile(r"^[^{}]+$")

# KEYS: ratings, players. ARGV: player id, rating, display JSON.
RECORD = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
"""

# KEYS: ratings, players. ARGV: player id. Returns 1 if the player was on the board.
REMOVE = """
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""

# KEYS: ratings, players. ARGV: rows to read, then the cursor's rating and player id (both ''
# for the first page). Returns the position of the first row, the rows (id, rating, ...) and
# each row's display JSON. Where the cursor's entry still stands, the page starts after it
# (ZREVRANK). Where it has moved or gone, the page starts where it would stand: after every
# higher rating, and within its rating (ids in ZREVRANGE order, highest first) at the first id
# below its own, found by bisection; ids are compared byte by byte, as Redis orders them (Lua's
# `<` on strings follows the server's locale).
PAGE = """
local function below(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local start = 0
local score, member = ARGV[2], ARGV[3]
if score ~= '' then
  local now = redis.call('ZSCORE', KEYS[1], member)
  if now and tonumber(now) == tonumber(score) then
    start = redis.call('ZREVRANK', KEYS[1], member) + 1
  else
    local lo = redis.call('ZCOUNT', KEYS[1], '(' .. score, '+inf')
    local hi = lo + redis.call('ZCOUNT', KEYS[1], score, score)
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if below(redis.call('ZREVRANGE', KEYS[1], mid, mid)[1], member) then hi = mid else lo = mid + 1 end
    end
    start = lo
  end
end
local rows = redis.call('ZREVRANGE', KEYS[1], start, start + tonumber(ARGV[1]) - 1, 'WITHSCORES')
local shown = {}
if #rows > 0 then
  local ids = {}
  for i = 1, #rows, 2 do ids[#ids + 1] = rows[i] end
  shown = redis.call('HMGET', KEYS[2], unpack(ids))
end
return {start, rows, shown}
"""


def board_keys(app_id: str, game: str) -> tuple[str, str]:
    """The sorted set and the hash of one board, under the board's own hash tag."""
    for what, name in (("app id", app_id), ("game", game)):
        if not _NAME.match(name):
            raise ValueError(f"{what} {name!r} cannot name a leaderboard")
    tag = f"ct:{{lb:{app_id}:{game}}}"
    return f"{tag}:ratings", f"{tag}:players"


def encode_cursor(rating: float, player_id: str) -> str:
    return cursors.encode(rating, player_id)


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The (rating, player id) a cursor names; InvalidRequest for anything not of the form
    `encode_cursor` makes. A well-formed cursor it did not make is still a place in the board's
    order, and gets the page after that place."""
    place = cursors.decode(cursor)
    if len(place) != 2 or type(place[0]) not in (int, float) or not math.isfinite(place[0]):
        cursors.refuse()
    if type(place[1]) is not str:
        cursors.refuse()
    return float(place[0]), place[1]


class Leaderboards:
    def __init__(self, client: redis.Redis | RedisCluster):
        """`client`: one Redis or a Redis Cluster (every script touches one board's slot)."""
        self.client = client
        self._record = client.register_script(RECORD)
        self._remove = client.register_script(REMOVE)
        self._page = client.register_script(PAGE)

    def record(self, app_id: str, game: str, player_id: str, display: dict[str, Any], rating: float) -> None:
        """Put the player on the board at `rating`, or move them there, with the public fields a
        page shows of them (`display`, stored as JSON)."""
        if not math.isfinite(rating):
            raise ValueError(f"rating {rating!r} is not a number a board can sort")
        if {"rank", "rating"} & set(display):
            raise ValueError("a page gives rank and rating itself")
        shown = orjson.dumps(display)
        self._record(keys=board_keys(app_id, game), args=[player_id, repr(float(rating)), shown])

    def page(self, app_id: str, game: str, limit: int, cursor: str | None = None) -> dict[str, Any]:
        """Up to `limit` (1 to 100) players, best first, from the start or after the entry
        `cursor` names: `{"players": [{"rank", "rating", and the display fields ("player",
        "name")}], "next_cursor"}`, `next_cursor` None on the last page."""
        if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
            raise errors.InvalidRequest(
                f"limit must be 1 to {MAX_LIMIT}", {"limit": [f"must be 1 to {MAX_LIMIT}"]}
            )
        after, after_id = "", ""  # the first page
        if cursor is not None:
            rating, after_id = decode_cursor(cursor)
            after = repr(rating)  # the shortest text of the same double, as Redis parses it
        # One row more than the page shows: whether there is a next page.
        start, rows, shown = self._page(keys=board_keys(app_id, game), args=[limit + 1, after, after_id])
        ids, ratings = [_text(m) for m in rows[0::2]], [float(r) for r in rows[1::2]]
        players = [
            # orjson: a tenth of json's time, which was half a page of 100 (bench/leaderboard.py)
            {"rank": start + i + 1, **(orjson.loads(shown[i]) if shown[i] else {}), "rating": ratings[i]}
            for i in range(min(limit, len(ids)))
        ]
        more = len(ids) > limit
        next_cursor = encode_cursor(ratings[limit - 1], ids[limit - 1]) if more else None
        return {"players": players, "next_cursor": next_cursor}

    def remove(self, app_id: str, game: str, player_id: str) -> bool:
        """Take the player off one board; whether they were on it."""
        return bool(self._remove(keys=board_keys(app_id, game), args=[player_id]))

    def remove_everywhere(self, app_id: str, player_id: str, games: list[str]) -> int:
        """Take the player off the app's board of each game (erasure); how many boards had them.
        One script a board: on a cluster each board is in a slot of its own."""
        return sum(self.remove(app_id, game, player_id) for game in games)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

"""Each player's feed: the notices of all its matches, in one numbered list
(`GET /v1/me/events`, `GET /v1/me/stream`; docs/api.md, "A player's events").

Handing on a commit's notices (docs/architecture.md, "The outbox") gives them to `Feeds.take`,
one of the repository's notice sinks, which calls `Feeds.publish` for each player they name.
Keys, all in the player's Redis Cluster slot (service/identity/players.py), so one script writes them
together and the player's erasure deletes them with the player:

- `ct:{pl:<id>}:feed`: the entries, oldest first, each the JSON of
  `{"seq", "id", "type", "timestamp", "data"}`; seq counts from 1, by one, per player;
- `ct:{pl:<id>}:feed:ids`: the notice ids those entries came from, scored by their seq, so a
  notice handed on again (the relay after a committer that died) is not stored twice;
- the player's hash holds the last seq (field `feed`): it never expires with the entries, so
  a feed that was silent for its whole TTL goes on numbering after the seq a client holds;
- `ct:{pl:<id>}:chan`: notified with the last seq on each publish, and when the player's
  tokens change (`wake`), so a waiting feed re-checks its token at once.

A feed keeps its last FEED_LENGTH entries, for FEED_TTL seconds after its last one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import redis
from redis.cluster import RedisCluster

from service import codec
from service.identity import tombstones
from service.identity.players import player_key
from service.infra.lists import REPLACE
from service.infra.rate_limit import RateLimiter

# The hot path's round trip on its own connections (service/infra/roundtrips.py): groups
# of commands by the key whose node takes them, and whether a dropped read may be repeated.
Exchange = Callable[[list[tuple[Any, list[tuple[Any, ...]]]], bool], list[list[Any]]]

log = logging.getLogger("cardtable.feeds")

FEED_LENGTH = 1000
FEED_TTL = 30 * 24 * 3600
# The hash field of the player's last seq.
SEQ_FIELD = "feed"
# What a feed's channel says when the player's tokens changed rather than an entry came.
TOKENS_CHANGED = "tokens"


def feed_key(player_id: str) -> str:
    return f"{player_key(player_id)}:feed"


def ids_key(player_id: str) -> str:
    return f"{feed_key(player_id)}:ids"


def feed_channel(player_id: str) -> str:
    return f"{player_key(player_id)}:chan"


# Appends notices to one player's feed: its hash, its feed (a list), its notice ids (a sorted
# set), the feed's length and expiry, its channel, and `argv[first..last]`: pairs of a notice id
# and its entry as a JSON object without `seq` (the function puts the seq first). Returns the
# last seq, or -1 when the player is gone (erased, or never was: nothing is written for it).
# Shared by the publish script and the commit's (`commit_publishing`, service/matches/store_scripts.py,
# which gets it from `Feeds.publish_function`: matches never import notify).
PUBLISH_FUNCTION = """
local function publish(hash, feed, ids, length, ttl, channel, argv, first, last)
  if redis.call('EXISTS', hash) == 0 then return -1 end
  local seq = tonumber(redis.call('HGET', hash, 'feed') or '0')
  local added, size = 0, 0
  for i = first, last, 2 do
    if not redis.call('ZSCORE', ids, argv[i]) then
      seq = seq + 1
      added = added + 1
      size = redis.call('RPUSH', feed, '{"seq":' .. seq .. ',' .. string.sub(argv[i + 1], 2))
      redis.call('ZADD', ids, seq, argv[i])
    end
  end
  if added == 0 then return seq end
  redis.call('HSET', hash, 'feed', seq)
  if size > length then redis.call('LTRIM', feed, -length, -1) end
  if seq > length then redis.call('ZREMRANGEBYSCORE', ids, '-inf', seq - length) end
  redis.call('EXPIRE', feed, ttl)
  redis.call('EXPIRE', ids, ttl)
  redis.call('PUBLISH', channel, seq)
  return seq
end
"""

# KEYS[1] the player's hash, KEYS[2] its feed, KEYS[3] the notice ids. ARGV[1] FEED_LENGTH,
# ARGV[2] FEED_TTL, ARGV[3] the channel, then the pairs of notice id and entry.
PUBLISH = (
    PUBLISH_FUNCTION
    + "return publish(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV, 4, #ARGV)\n"
)

# KEYS[1] the player's hash, KEYS[2] its feed. ARGV[1] after, ARGV[2] limit. Returns the last
# seq, the player's token hashes as stored ('' when it has none: erased), then the entries
# with seq > after (at most limit). The list holds the seqs up to the last one without a gap
# (entries are only appended, by one, and trimmed from the front), so where an entry stands
# follows from its seq.
SINCE = """
local last, tokens = unpack(redis.call('HMGET', KEYS[1], 'feed', 'tokens'))
last = tonumber(last or '0')
local first = last - redis.call('LLEN', KEYS[2]) + 1
local start = math.max(tonumber(ARGV[1]) - first + 1, 0)
local out = redis.call('LRANGE', KEYS[2], start, start + tonumber(ARGV[2]) - 1)
table.insert(out, 1, tokens or '')
table.insert(out, 1, last)
return out
"""


def _sharded(script: str) -> str:
    # On a cluster a plain PUBLISH reaches every node; a shard channel (the player's hash tag,
    # the slot the script writes) only the nodes of that slot, as the commit's (store_scripts.py).
    return script.replace("'PUBLISH'", "'SPUBLISH'")


class Feeds:
    """The players' feeds, on the match state's Redis (beside the players)."""

    # The Lua function the commit's script embeds to publish a commit's notices itself (one
    # Redis only: `joins_commit`), handed to the store as its `CommitPublisher`.
    publish_function = PUBLISH_FUNCTION

    def __init__(self, client: Any, exchange: Exchange | None = None, rates: RateLimiter | None = None):
        self.client = client
        # A long-poll's request count rides in its first read (`read`), as a match call's
        # rides in its match load.
        self._rates = rates
        self.cluster = isinstance(client, RedisCluster)
        # On one Redis the commit's own script publishes its notices to the players' feeds
        # (`joined`): no round trip of their own, and never a commit without them. On a cluster
        # a player's feed lives in another slot than the match, so the committer publishes them
        # right after its commit (`take`), and the relay again should it die in between.
        self.joins_commit = not self.cluster
        self._publish = client.register_script(_sharded(PUBLISH) if self.cluster else PUBLISH)
        self._since = client.register_script(SINCE)
        self._replace = client.register_script(REPLACE)
        self._exchange = exchange

    @staticmethod
    def _script(player_id: str, notices: list[dict[str, Any]]) -> tuple[list[str], list[Any]]:
        """The publish script's keys and arguments for `notices` to `player_id`'s feed."""
        args: list[Any] = [FEED_LENGTH, FEED_TTL, feed_channel(player_id), *_pairs(notices)]
        return [player_key(player_id), feed_key(player_id), ids_key(player_id)], args

    @staticmethod
    def joined(notices: list[dict[str, Any]]) -> tuple[list[str], list[Any]] | None:
        """What the commit's script needs to publish `notices` to the feeds of the players they
        name (`commit_publishing`, service/matches/store_scripts.py): three keys a player, and a player's
        channel, its count of notices and their pairs, then the feeds' length and expiry. None
        when they name nobody."""
        mine = _by_player(notices)
        if not mine:
            return None
        keys: list[str] = []
        args: list[Any] = []
        for player_id, entries in mine.items():
            keys += [player_key(player_id), feed_key(player_id), ids_key(player_id)]
            args += [feed_channel(player_id), len(entries), *_pairs(entries)]
        return keys, [*args, FEED_LENGTH, FEED_TTL]

    def publish(self, player_id: str, notices: list[dict[str, Any]]) -> None:
        """Append the notices the feed does not hold yet (by id), as entries numbered on from
        its last seq, and wake its waiters. Notices' `app` and `players` are not kept: the feed
        is the player's own. A player that is gone gets nothing."""
        if notices:
            keys, args = self._script(player_id, notices)
            self._publish(keys=keys, args=args)

    def publish_all(self, mine: dict[str, list[dict[str, Any]]]) -> None:
        """`publish` for each player, in one round trip on the store's connections (one a node
        on a cluster): a move that hands the turn on publishes on every commit. A Redis that
        lost its scripts gets them again through `publish` (a notice published twice is
        stored once)."""
        if self._exchange is not None:
            groups = []
            for player_id, entries in mine.items():
                keys, args = self._script(player_id, entries)
                groups.append((keys[0], [("EVALSHA", self._publish.sha, len(keys), *keys, *args)]))
            try:
                self._exchange(groups, True)
                return
            except redis.exceptions.NoScriptError:
                pass  # redis-py's script call below loads it again
        for player_id, entries in mine.items():
            self.publish(player_id, entries)

    def take(self, match_id: str, notices: list[dict[str, Any]], relayed: bool) -> None:
        """The players' feeds as a notice sink (service/matches/repository.py, `NoticeSink`): each
        notice to the feed of each player it names, one publish a player.

        The relay hands every notify effect on again (`relayed`), which the feeds skip by
        notice id. So the committer's hand-off may fail without losing a notice: a Redis that
        does not answer it is logged, and the move it follows is still answered; the relay's
        own failure is raised, and it tries again on its next pass.

        On one Redis the commit's script has published them already (`joined`): only the
        relay's hand-off publishes here, and finds every notice there."""
        if self.joins_commit and not relayed:
            return
        mine = _by_player(notices)
        try:
            if mine:
                self.publish_all(mine)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            if relayed:
                raise
            log.warning("match %s: players' feeds left to the relay (%s)", match_id, e)

    def since(self, player_id: str, after: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The entries with seq > `after` (at most `limit`, oldest first) and the feed's last seq."""
        entries, last, _ = self.read(player_id, after, limit)
        return entries, last

    def read(self, player_id: str, after: int, limit: int) -> tuple[list[dict[str, Any]], int, bytes]:
        """`since`, and the player's token hashes as stored (for `players.holds`) read with them:
        a feed re-checks its token with every batch it serves at no extra round trip."""
        keys = [player_key(player_id), feed_key(player_id)]
        last, tokens, *raw = self._read(keys, [after, limit])
        return self._redacted(player_id, [codec.loads(e) for e in raw]), int(last), tokens

    def _read(self, keys: list[str], args: list[Any]) -> list[Any]:
        """The read script's answer, on the store's own connections (every long-poll round
        makes one), with the request's deferred rate count in the same round trip."""
        if self._exchange is None:
            return list(self._since(keys=keys, args=args))
        ride = self._rates.ride() if self._rates is not None else None
        counts = [] if ride is None else ride.groups
        try:
            *counted, (answer,) = self._exchange(
                [*counts, (keys[0], [("EVALSHA", self._since.sha, len(keys), *keys, *args)])], True
            )
        except redis.exceptions.NoScriptError:
            # Redis lost its scripts: redis-py's call loads it again (the count was made).
            return list(self._since(keys=keys, args=args))
        if ride is not None:
            ride.enforce(counted, None)
        return list(answer)

    def _redacted(self, player_id: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The entries without the external ids of players erased since (service/identity/tombstones.py).
        Only a match's creation, start and end name other players (`players`): reads of
        other entries cost nothing more."""
        if not any(e["data"].get("players") for e in entries):
            return entries
        raw = self.client.hget(player_key(player_id), "player")
        if raw is None:
            return entries  # the reader is gone: its token check refuses the read
        return tombstones.redact(self.client, json.loads(raw)["app"], entries)

    def wake(self, player_id: str) -> None:
        """Tell the player's waiting feeds that its tokens changed (rotated, its app revoked, the
        player erased): each re-checks its token now, not at its next entry."""
        if self.cluster:
            self.client.spublish(feed_channel(player_id), TOKENS_CHANGED)
        else:
            self.client.publish(feed_channel(player_id), TOKENS_CHANGED)

    def entries(self, player_id: str) -> list[bytes]:
        """The feed's entries as stored (an erasure rewrites those naming the erased player)."""
        return list(self.client.lrange(feed_key(player_id), 0, -1))

    def replace_entries(self, player_id: str, pairs: list[Any]) -> None:
        """Replace entries where they stand: `pairs` of an entry as stored and what replaces it
        (its `seq` first, as the publish script stores it)."""
        self._replace(keys=[feed_key(player_id)], args=pairs)

    def keys(self, player_id: str) -> list[str]:
        """The feed's keys (the seq lives in the player's hash), for the player's erasure."""
        return [feed_key(player_id), ids_key(player_id)]


def _by_player(notices: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The notices by each player they name, in their order."""
    mine: dict[str, list[dict[str, Any]]] = {}
    for notice in notices:
        for player_id in notice["players"]:
            mine.setdefault(player_id, []).append(notice)
    return mine


def _pairs(notices: list[dict[str, Any]]) -> list[str]:
    """Each notice's id and its feed entry (without `seq`, which the script adds), in turn.
    Notices' `app` and `players` are not kept: the feed is the player's own."""
    out = []
    for n in notices:
        entry = {"id": n["id"], "type": n["type"], "timestamp": n["timestamp"], "data": n["data"]}
        out += [n["id"], codec.dumps(entry)]
    return out

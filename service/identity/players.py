"""Players: one identity across matches for an app's users (docs/integrating.md).

An app's backend makes a player with `PUT /v1/players/{external_id}` (its own user id) and
hands the answered player token to its client. A token reads `ctp_<player id>.<secret>`: the
player id finds the player in one read. A player holds up to MAX_TOKENS live tokens, one per
device (each PUT issues one more); rotating drops them all for one new token.

Keys, each in a Redis Cluster slot of its own player or app:

- `ct:{pl:<id>}`: the player (app, external id, name, metadata, token hashes);
- `ct:{pl:<id>}:live` and `:done`: the matches it sits in, scored by when it sat down; a
  match moves from live to done with the commit that ends it (`Players.take`, a notice sink),
  and the player's list moves one it finds over still (one that ended before this was so);
- `ct:{pl:<id>}:joined`: matches it sat in and may have left since (service/matches/listings.py writes
  the ones it joined; the player's list moves there those whose seat is no longer its), so
  that erasure still finds its name in their events (`Players.match_ids`: all of them);
- `ct:{pl:<id>}:sat` and `:names`: every match it ever sat down in and every name it had, for
  its erasure (`all_match_ids`, `names_of`);
- `ct:{app:<app>}:players`: the app's external ids → player ids.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from service import errors
from service.identity.tokens import hash_token
from service.infra import cursors

TOKEN_PREFIX = "ctp_"
_TOKEN = re.compile(r"ctp_([0-9a-f]{16})\.[A-Za-z0-9_-]{32}")
MAX_TOKENS = 20  # live tokens a player holds at once; the oldest goes first
MAX_METADATA = 1024  # bytes of a player's metadata as JSON
# Matches and names kept for a player's erasure (`all_match_ids`, `names_of`); the oldest go first.
REMEMBERED = 100_000
# Entries the done part and the `joined` set keep, the newest; older ones go (their matches
# expired long before a player plays this many).
MAX_LISTED = 100_000

# KEYS[1] the live part, KEYS[2] the done part; ARGV: the match, MAX_LISTED. The match moves
# with its score (when the player sat down), only if it is still in the live part.
_ENDED = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
redis.call('ZADD', KEYS[2], score, ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[2]) - 1)
return 1
"""

# KEYS[1] an app's directory of players. ARGV[1] an external id, ARGV[2] the player id it must
# still name: a player made again meanwhile keeps its entry.
_FREE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


@dataclass
class Player:
    id: str
    app: str
    external: str
    name: str
    created: float
    metadata: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {
            "player": self.external,
            "name": self.name,
            "metadata": self.metadata,
            "created": self.created,
        }


def player_key(player_id: str) -> str:
    return f"ct:{{pl:{player_id}}}"


def match_list_key(player_id: str, part: str) -> str:
    """The player's `live` or `done` matches, scored by when it sat down."""
    return f"{player_key(player_id)}:{part}"


def rating_field(game: str) -> str:
    """The field of a player's hash that holds its rating in a game (service/matches/rated_matches.py)."""
    return f"rating:{game}"


def app_key(app_id: str) -> str:
    """An app's hash, and the prefix of every key in the app's Redis Cluster slot (its
    directory of players here, its tombstones, webhook endpoints, deliveries and match index):
    the one builder of the `{app:<id>}` hash tag. Here, not in apps.py, which imports this
    module."""
    return f"ct:{{app:{app_id}}}"


def directory_key(app_id: str) -> str:
    return f"{app_key(app_id)}:players"


def is_player_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


def player_of_token(token: str) -> str | None:
    """The player id a token names (not yet checked against the player)."""
    found = _TOKEN.fullmatch(token)
    return found.group(1) if found else None


def _new_token(player_id: str) -> str:
    return f"{TOKEN_PREFIX}{player_id}.{secrets.token_urlsafe(24)}"


def holds(stored_tokens: bytes | str | None, token: str) -> bool:
    """Whether `token` is one of a player's live tokens (`stored_tokens`: the field as read)."""
    if not stored_tokens:
        return False
    digest = hash_token(token)
    found = False
    for known in orjson.loads(stored_tokens):
        # Every token is compared, so timing says nothing about which one matched.
        found |= hmac.compare_digest(known, digest)
    return found


class Players:
    """The players of every app, on the match state's Redis."""

    def __init__(self, client: Any, wake: Callable[[str], None] | None = None):
        self.client = client
        # Called with a player's id once its tokens changed: its waiting feeds re-check theirs.
        self._wake = wake
        self._ended = client.register_script(_ENDED)
        self._free = client.register_script(_FREE)

    def find(self, app_id: str, external: str) -> Player | None:
        player_id = self.client.hget(directory_key(app_id), external)
        return self.get(player_id.decode()) if player_id else None

    def get(self, player_id: str) -> Player | None:
        raw = self.client.hget(player_key(player_id), "player")
        return Player(**json.loads(raw)) if raw else None

    def put(
        self, app_id: str, external: str, name: str, metadata: dict[str, Any] | None
    ) -> tuple[Player, str]:
        """Create the player, or update its name and metadata; a new token for it either way."""
        player = self.find(app_id, external)
        if player is None:
            candidate = secrets.token_hex(8)
            # Two creations at once: the first to write the directory wins, the other updates it.
            if self.client.hsetnx(directory_key(app_id), external, candidate):
                player = Player(candidate, app_id, external, name, round(time.time(), 3))
            else:
                player = self.find(app_id, external)
                assert player is not None
        player.name = name
        if metadata is not None:
            player.metadata = metadata
        token = _new_token(player.id)
        self._save(player, self._tokens(player.id)[-(MAX_TOKENS - 1) :] + [hash_token(token)])
        self.named(player.id, name)
        return player, token

    def rotate(self, player: Player) -> str:
        """One new token; every other token of the player stops working."""
        token = _new_token(player.id)
        self._save(player, [hash_token(token)])
        if self._wake is not None:
            self._wake(player.id)
        return token

    def _tokens(self, player_id: str) -> list[str]:
        raw = self.tokens_of(player_id)
        return json.loads(raw) if raw else []

    def tokens_of(self, player_id: str) -> bytes | None:
        """The player's live token hashes as stored (for `holds`)."""
        return cast(bytes | None, self.client.hget(player_key(player_id), "tokens"))  # redis-py: Any

    def _save(self, player: Player, tokens: list[str]) -> None:
        fields = {"player": json.dumps(player.__dict__), "tokens": json.dumps(tokens)}
        self.client.hset(player_key(player.id), mapping=fields)

    def authenticate(self, token: str) -> Player:
        """The player a token belongs to, or 401 (its app's revocation included: the caller checks)."""
        player_id = player_of_token(token)
        if player_id is not None:
            raw, tokens = self.client.hmget(player_key(player_id), "player", "tokens")
            if raw and holds(tokens, token):
                return Player(**json.loads(raw))
        raise errors.InvalidToken("this player token is not valid (rotated, or never issued)")

    def rating(self, player_id: str, game: str) -> float:
        """The player's shown rating in a game (0, a new player's, before its first rated match)."""
        raw = self.client.hget(player_key(player_id), rating_field(game))
        return float(json.loads(raw)["rating"]) if raw else 0.0

    # --- the player's matches ---------------------------------------------------------------
    def sat_down(self, player_id: str, match_id: str, at: float) -> None:
        """The player sat down in the match at `at` (its commit's time: written again by the
        relay, the entry stays as it was; service/matches/listings.py)."""
        self.client.zadd(match_list_key(player_id, "live"), {match_id: at})
        self.seated(player_id, match_id, at)

    def take(self, match_id: str, notices: list[dict[str, Any]], relayed: bool = False) -> None:
        """A notice sink (service/matches/repository.py): the commit that ended a match moves it to the
        done part of each of its players' lists, so a list's live part holds live matches and
        its pages read no match they do not show. Moving it twice changes nothing."""
        players = {p for n in notices if n["type"] == "match.over" for p in n.get("players", [])}
        for player_id in sorted(players):
            self._ended(
                keys=[match_list_key(player_id, "live"), match_list_key(player_id, "done")],
                args=[match_id, MAX_LISTED],
            )

    def matches(
        self, player_id: str, part: str, after: tuple[float, str] | None
    ) -> Iterator[tuple[str, float]]:
        """(match id, score) of the player's `live` or `done` matches, newest first, after the
        place (score, match id) a cursor names."""
        return cursors.newest_first(self.client, match_list_key(player_id, part), after)

    def settle(self, player_id: str, over: list[tuple[str, float]]) -> None:
        """Move matches the player's list found over to its done part, keeping their scores
        (matches that ended before their commits moved them: `take`)."""
        if over:
            with self.client.pipeline(transaction=True) as p:
                p.zrem(match_list_key(player_id, "live"), *(match_id for match_id, _ in over))
                p.zadd(match_list_key(player_id, "done"), dict(over))
                p.zremrangebyrank(match_list_key(player_id, "done"), 0, -MAX_LISTED - 1)
                p.execute()

    def forget(self, player_id: str, expired: list[str], left: Sequence[tuple[str, float]] = ()) -> None:
        """Matches that expired leave the player's lists; those whose seat is no longer the
        player's (left, or handed on) go to its `joined` set, where erasure still finds them."""
        gone = [*expired, *(match_id for match_id, _ in left)]
        if not gone:
            return
        with self.client.pipeline(transaction=True) as p:
            p.zrem(match_list_key(player_id, "live"), *gone)
            p.zrem(match_list_key(player_id, "done"), *gone)
            if left:
                p.zadd(match_list_key(player_id, "joined"), dict(left))
                p.zremrangebyrank(match_list_key(player_id, "joined"), 0, -MAX_LISTED - 1)
            p.execute()

    def match_ids(self, player_id: str) -> list[str]:
        """Every match the player's lists name, live ones, those over and those it sat in once
        (`joined`), each once, newest first: what erasure and the export walk. It reads the
        whole lists, so it is for those, never for a page."""
        return all_match_ids(self.client, player_id)

    # --- what its erasure must find (service/privacy/erasure.py) -----------------------------------
    # Kept apart from the lists above, which forget a match once the player's seat in it is no
    # longer the player's: a seat it handed on by invitation still shows its name.
    def seated(self, player_id: str, match_id: str, at: float | None = None) -> None:
        """The player sat down in the match: its erasure looks there, whatever became of the seat."""
        self._remember(match_list_key(player_id, "sat"), match_id, at)

    def named(self, player_id: str, name: str) -> None:
        """The player showed `name` (its own, or one it joined a match with)."""
        self._remember(match_list_key(player_id, "names"), name)

    def _remember(self, key: str, member: str, at: float | None = None) -> None:
        with self.client.pipeline(transaction=True) as p:
            p.zadd(key, {member: time.time() if at is None else at})
            p.zremrangebyrank(key, 0, -REMEMBERED - 1)
            p.execute()

    def all_match_ids(self, player_id: str) -> list[str]:
        """Every match the player sat down in, newest first: those its erasure must scrub
        (matches that expired meanwhile included). The same as `match_ids`."""
        return all_match_ids(self.client, player_id)

    def names_of(self, player_id: str) -> set[str]:
        """Every name the player showed, as far as `named` was told."""
        return {
            m.decode() if isinstance(m, bytes) else str(m)
            for m in self.client.zrange(match_list_key(player_id, "names"), 0, -1)
        }

    def erasure_keys(self, player_id: str) -> list[str]:
        """The keys above and the lists, which its erasure deletes with the player."""
        return [match_list_key(player_id, part) for part in ("live", "done", "joined", "sat", "names")]

    # --- a player's erasure (service/privacy/erasure.py) ------------------------------------
    def id_of(self, app_id: str, external: str) -> str | None:
        """The id the app's directory names for `external`, even once the player's hash is gone
        (an erasure that stopped half way runs again)."""
        raw = self.client.hget(directory_key(app_id), external)
        return raw.decode() if raw is not None else None

    def end_tokens(self, player_id: str) -> None:
        """No token of the player acts any more (its waiting feeds are woken by the caller)."""
        self.client.hset(player_key(player_id), "tokens", "[]")

    def delete(self, player_id: str, more: list[str]) -> None:
        """Delete the player's hash, its lists and `more` of its keys (all in its slot)."""
        self.client.delete(player_key(player_id), *self.erasure_keys(player_id), *more)

    def free_external(self, app_id: str, external: str, player_id: str) -> None:
        """The app's external id names no player any more, unless it names another by now."""
        self._free(keys=[directory_key(app_id)], args=[external, player_id])


def all_match_ids(client: Any, player_id: str) -> list[str]:
    """`Players.match_ids` on a client: newest first (when the player sat down, or the match
    was made for one it joined), each once."""
    when: dict[str, float] = {}
    with client.pipeline(transaction=False) as p:
        # `sat` (every match it sat down in, kept for its erasure) names the others again, and
        # those it sat in before `sat` was kept are in the three lists.
        for part in ("live", "done", "joined", "sat"):
            p.zrange(match_list_key(player_id, part), 0, -1, withscores=True)
        for rows in p.execute():
            for member, score in rows:
                match_id = member.decode() if isinstance(member, bytes) else str(member)
                when[match_id] = max(score, when.get(match_id, score))
    return sorted(when, key=lambda match_id: (-when[match_id], match_id))

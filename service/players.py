"""Players: one identity across matches for an app's users (docs/integrating.md).

An app's backend makes a player with `PUT /v1/players/{external_id}` (its own user id) and
hands the answered player token to its client. A token reads `ctp_<player id>.<secret>`: the
player id finds the player in one read. A player holds up to MAX_TOKENS live tokens, one per
device (each PUT issues one more); rotating drops them all for one new token.

Keys, each in a Redis Cluster slot of its own player or app:

- `ct:{pl:<id>}`: the player (app, external id, name, metadata, token hashes);
- `ct:{pl:<id>}:live` and `:done`: the matches it sits in, scored by when it sat down, live
  ones until the player's list finds them over (`Players.settle`), as quotas do;
- `ct:{pl:<id>}:sat` and `:names`: every match it ever sat down in and every name it had, for
  its erasure (see `all_match_ids`);
- `ct:{app:<app>}:players`: the app's external ids → player ids.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from service import cursors, errors
from service.match import hash_token

TOKEN_PREFIX = "ctp_"
_TOKEN = re.compile(r"ctp_([0-9a-f]{16})\.[A-Za-z0-9_-]{32}")
MAX_TOKENS = 20  # live tokens a player holds at once; the oldest goes first
MAX_METADATA = 1024  # bytes of a player's metadata as JSON
# Matches and names kept for a player's erasure (`all_match_ids`, `names_of`); the oldest go first.
REMEMBERED = 100_000


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
    """The field of a player's hash that holds its rating in a game (service/rated.py)."""
    return f"rating:{game}"


def directory_key(app_id: str) -> str:
    return f"ct:{{app:{app_id}}}:players"


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
    for known in json.loads(stored_tokens):
        # Every token is compared, so timing says nothing about which one matched.
        found |= hmac.compare_digest(known, digest)
    return found


class Players:
    """The players of every app, on the match state's Redis."""

    def __init__(self, client: Any, wake: Callable[[str], None] | None = None):
        self.client = client
        # Called with a player's id once its tokens changed: its waiting feeds re-check theirs.
        self._wake = wake

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
        return self.client.hget(player_key(player_id), "tokens")

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
    def sat_down(self, player_id: str, match_id: str) -> None:
        self.client.zadd(match_list_key(player_id, "live"), {match_id: time.time()})
        self.seated(player_id, match_id)

    def matches(
        self, player_id: str, part: str, after: tuple[float, str] | None
    ) -> Iterator[tuple[str, float]]:
        """(match id, score) of the player's `live` or `done` matches, newest first, after the
        place (score, match id) a cursor names."""
        return cursors.newest_first(self.client, match_list_key(player_id, part), after)

    def settle(self, player_id: str, over: list[tuple[str, float]]) -> None:
        """Move matches the player's list found over to its done part, keeping their scores."""
        if over:
            with self.client.pipeline(transaction=True) as p:
                p.zrem(match_list_key(player_id, "live"), *(match_id for match_id, _ in over))
                p.zadd(match_list_key(player_id, "done"), dict(over))
                p.execute()

    def forget(self, player_id: str, gone: list[str]) -> None:
        """Matches that are gone (expired, or the seat is no longer the player's) leave its lists."""
        if gone:
            with self.client.pipeline(transaction=False) as p:
                p.zrem(match_list_key(player_id, "live"), *gone)
                p.zrem(match_list_key(player_id, "done"), *gone)
                p.execute()

    # --- what its erasure must find (service/erasure.py) -----------------------------------
    # Kept apart from the lists above, which forget a match once the player's seat in it is no
    # longer the player's: a seat it handed on by invitation still shows its name.
    def seated(self, player_id: str, match_id: str) -> None:
        """The player sat down in the match: its erasure looks there, whatever became of the seat."""
        self._remember(match_list_key(player_id, "sat"), match_id)

    def named(self, player_id: str, name: str) -> None:
        """The player showed `name` (its own, or one it joined a match with)."""
        self._remember(match_list_key(player_id, "names"), name)

    def _remember(self, key: str, member: str) -> None:
        with self.client.pipeline(transaction=True) as p:
            p.zadd(key, {member: time.time()})
            p.zremrangebyrank(key, 0, -REMEMBERED - 1)
            p.execute()

    def all_match_ids(self, player_id: str) -> list[str]:
        """Every match the player sat down in, newest first: those its erasure must scrub
        (matches that expired meanwhile included)."""
        ids: dict[str, None] = {}
        for part in ("sat", "live", "done"):  # the lists: for seats taken before `sat` was kept
            for member in self.client.zrevrange(match_list_key(player_id, part), 0, -1):
                ids[member.decode() if isinstance(member, bytes) else str(member)] = None
        return list(ids)

    def names_of(self, player_id: str) -> set[str]:
        """Every name the player showed, as far as `named` was told."""
        return {
            m.decode() if isinstance(m, bytes) else str(m)
            for m in self.client.zrange(match_list_key(player_id, "names"), 0, -1)
        }

    def erasure_keys(self, player_id: str) -> list[str]:
        """The keys above and the lists, which its erasure deletes with the player."""
        return [match_list_key(player_id, part) for part in ("live", "done", "sat", "names")]

"""Following a player's feed (service/notify/feeds.py): `GET /v1/me/events` long-polled and
`GET /v1/me/stream` streamed, waiting through the same hub as matches (service/infra/waiters.py).

A feed serves a player token only while it holds: every read of a feed checks the token
against the player's tokens read in the same round trip (`Feeds.read`), and the player's
channel is notified when its tokens change (rotated, its app revoked, the player erased), so a
waiting feed ends then rather than at its next entry. That read is also the request's
authentication: a long-poll costs the process one round trip to Redis when it finds its
player's channel still subscribed (a long-poll comes back within the hub's linger), where
`current_caller` would read the player and its app first. An app's revocation empties its
players' tokens (service/identity/apps.py), so the tokens alone say whether the token holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from service import errors
from service.config import Config
from service.identity.players import holds, player_of_token
from service.infra.waiters import ClusterHub, Hub, Waiter
from service.matches.store import EVENTS_PAGE
from service.notify.feeds import Feeds, feed_channel

Entries = list[dict[str, Any]]
NEEDS_PLAYER = "this call needs a player token: Authorization: Bearer ctp_..."
# The answer to a player token that does not hold, at the start of a call or during its wait.
NOT_VALID = "this player token is not valid (rotated, its app revoked, the player erased, or never issued)"


def player_of(token: str | None) -> str:
    """The player a player token names (checked by the feed's first read); 401 for anything
    else: no token, an app key, a seat token."""
    player_id = player_of_token(token) if token is not None else None
    if player_id is None:
        raise errors.InvalidToken(NEEDS_PLAYER)
    return player_id


@dataclass(frozen=True)
class Reader:
    """One player's feed read after `after`, at most `limit` entries, for `token`."""

    feeds: Feeds
    player: str
    token: str
    after: int
    limit: int

    def raw(self) -> tuple[Entries, int, bytes]:
        return self.feeds.read(self.player, self.after, self.limit)

    def checked(self, found: tuple[Entries, int, bytes]) -> tuple[Entries, int]:
        """The entries and last seq of a read, once the token is seen to hold (401 else)."""
        entries, last, tokens = found
        if not holds(tokens, self.token):
            raise errors.InvalidToken(NOT_VALID)
        return entries, last


class PlayerFeed:
    def __init__(self, feeds: Feeds, waiters: Hub | ClusterHub, config: Config):
        self.feeds = feeds
        self.waiters = waiters
        self.config = config

    def events(
        self, player_id: str, token: str, after: int, wait: float, limit: int, client: Any = None
    ) -> tuple[Entries, int, int | None]:
        """The player's entries after `after` (at most `limit`), long-polling up to `wait`
        seconds (capped at CARDTABLE_MAX_WAIT) when there are none yet: the entries, the feed's
        last seq and the `after` of the next page when more follow. 401 once `token` no longer
        holds. `client`: the client's socket, which ends the wait when the client hangs up."""
        reader = Reader(self.feeds, player_id, token, after, limit + 1)
        wait = min(wait, self.config.MAX_WAIT)
        if wait <= 0:
            entries, last = reader.checked(reader.raw())
        else:
            # Registered before the one read, so nothing published after it is missed; the
            # channel is usually still subscribed from the player's previous long-poll.
            with self.waiters.watch(feed_channel(player_id), "player_long_poll", client) as waiter:
                entries, last = reader.checked(reader.raw())
                if not entries:
                    entries, last = self._wait(reader, waiter, wait) or ([], last)
        more = len(entries) > limit
        entries = entries[:limit]
        return entries, last, entries[-1]["seq"] if more else None

    def first(self, player_id: str, token: str, after: int) -> Entries:
        """A stream's first read, made once its waiter is registered: 401 unless the token
        holds, before the stream's answer starts."""
        entries, _ = Reader(self.feeds, player_id, token, after, EVENTS_PAGE).checked(
            self.feeds.read(player_id, after, EVENTS_PAGE)
        )
        return entries

    def stream_entries(
        self, player_id: str, token: str, after: int, wait: float, waiter: Waiter
    ) -> Entries | None:
        """For a stream, which keeps `waiter` registered all its life and has sent everything
        up to `after`: the entries after it that a wake-up brings within `wait` seconds ([]
        when none came), or None once `token` no longer holds: the stream must end."""
        # A stream sends whatever it reads at once; the page only bounds one read.
        reader = Reader(self.feeds, player_id, token, after, EVENTS_PAGE)
        try:
            found = self._wait(reader, waiter, wait)
        except errors.InvalidToken:
            return None
        return found[0] if found else []

    def _wait(self, reader: Reader, waiter: Waiter, wait: float) -> tuple[Entries, int] | None:
        """Up to `wait` seconds: a read after each wake-up, one read shared by the player's
        waiters that one notification woke (each checks its own token against the tokens it
        saw: a change of the player's tokens ends the wait with 401); the first read's entries
        and last seq that has entries, None when the time is up or the client left."""
        key = ("feed", reader.player, reader.after, reader.limit)  # never a match's read key
        deadline = time.monotonic() + wait
        while not waiter.gone:
            left = deadline - time.monotonic()
            if left <= 0 or not waiter.wait(left) or waiter.gone:
                break
            entries, last = reader.checked(self.waiters.shared_read(waiter, key, reader.raw))
            if entries:
                return entries, last
        return None

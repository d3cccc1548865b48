"""The rate limit (docs/api.md, "Requests"): counts a second per seat token and per client
address, and per app for the calls made with its key (its `rate` quota, docs/api.md "Limits"),
in Redis so that every API process shares them.

A match call's count rides in the same round trip as its match load (`ride`: the store's load
sends the ride's groups before its reads and hands their replies to `Ride.enforce`; a feed's
read does the same), so the limit costs a move no round trip of its own; other calls count
at once (`hit`). The counts
live on the match state's Redis; on a cluster they spread over the same shards as the
counters (service/infra/counters.py), a client's count beside the request counter it bumps.
"""

from __future__ import annotations

import hmac
import zlib
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NamedTuple

from service.infra.cluster import Group
from service.infra.counters import Counters


class RateLimited(Exception):
    """The client made more requests in this second than the limit allows."""

    def __init__(self, limit: int):
        super().__init__(limit)
        self.limit = limit


class RateCheck(NamedTuple):
    """One request's rate-limit count, deferred so it rides in the same round trip as the match
    load (see RateLimiter.defer). It always counts on the client's address. With a bearer token
    that the load shows belongs to a seat of the match, the token has `limit` of its own and
    the address `address_limit` in all, so the tokens of a whole table handed to one address
    do not multiply its allowance; otherwise (no token, a wrong one, no such match) the
    address has `limit`, so a made-up token never buys a fresh allowance."""

    address: str
    token_digest: str | None  # SHA-256 of the bearer token, as the record keeps it
    window: int
    endpoint: str
    limit: int
    address_limit: int

    @property
    def first_id(self) -> str:
        return _rate_id("t", self.token_digest) if self.token_digest else _rate_id("a", self.address)


_pending_rate: ContextVar[RateCheck | None] = ContextVar("pending_rate", default=None)


def _rate_id(kind: str, who: str) -> str:
    """Whom a rate count is kept for: a token's digest (t), a client address (a) or an app (k)."""
    return f"{kind}:{who}"


def _holds_token(record: dict[str, Any] | None, digest: str) -> bool:
    if record is None:
        return False
    found = False
    for seat in record["seats"]:
        token = seat.get("token")
        if token and hmac.compare_digest(token, digest):
            found = True
    return found


class Ride(NamedTuple):
    """A request's deferred count riding in another round trip (`RateLimiter.ride`): its
    command groups go first in that round trip, and `settle` takes their replies."""

    limiter: RateLimiter
    pending: RateCheck
    groups: list[Group]

    def enforce(self, replies: list[list[Any]], record: dict[str, Any] | None) -> None:
        """Raise RateLimited if over; `record`: the match the call named (None: none)."""
        self.limiter.settle(self.pending, [int(r[0]) for r in replies], record)


class RateLimiter:
    """`exchange` sends command groups in one round trip (service/infra/roundtrips.py)."""

    def __init__(self, exchange: Callable[[list[Group], bool], list[list[Any]]], counters: Counters):
        self.exchange = exchange
        self.counters = counters

    def _shard(self, client_id: str) -> int:
        """One client's rate count and the request counter it bumps share a slot, so the two
        travel in one command group; clients spread over the counters' shards."""
        return zlib.crc32(client_id.encode()) % self.counters.shards

    def _count_group(self, client_id: str, window: int, endpoint: str) -> Group:
        shard = self._shard(client_id)
        tag = "" if self.counters.shards == 1 else f"{{s{shard}}}:"
        key = f"ct:rl:{tag}{client_id}:{window}"
        metrics = self.counters.key(shard)
        return key, [("INCR", key), ("EXPIRE", key, 2), ("HINCRBY", metrics, f"requests:{endpoint}", 1)]

    def hit(self, address: str, window: int, endpoint: str) -> int:
        """Count a request from `address` in this one-second window (and in the metrics)."""
        group = self._count_group(_rate_id("a", address), window, endpoint)
        ((count, *_),) = self.exchange([group], True)
        return int(count)

    def hit_app(self, app_id: str, window: int, endpoint: str) -> int:
        """Count a request made with an app's key in this one-second window (and in the
        metrics): the app's own count, whatever address it comes from."""
        group = self._count_group(_rate_id("k", app_id), window, endpoint)
        ((count, *_),) = self.exchange([group], True)
        return int(count)

    def _address_group(self, check: RateCheck) -> Group:
        """The address's count of a request counted on its token too (its metrics are counted
        with the token's: only the rate count here)."""
        key, commands = self._count_group(_rate_id("a", check.address), check.window, check.endpoint)
        return key, commands[:2]

    def defer(self, check: RateCheck) -> None:
        """Count this request with the next match load, which then raises RateLimited if over."""
        _pending_rate.set(check)

    def take_pending(self) -> RateCheck | None:
        """The request's deferred count, taken (a load counts it once)."""
        pending = _pending_rate.get()
        if pending is not None:
            _pending_rate.set(None)
        return pending

    def ride(self) -> Ride | None:
        """The request's deferred count, taken (counted once), to ride in the next round trip
        that reads for it (a match load, a feed's read); None when none is pending."""
        pending = self.take_pending()
        return None if pending is None else Ride(self, pending, self.groups(pending))

    def groups(self, pending: RateCheck) -> list[Group]:
        """The commands that count `pending`: on its first id, and with a token on its address too."""
        groups = [self._count_group(pending.first_id, pending.window, pending.endpoint)]
        if pending.token_digest:
            groups.append(self._address_group(pending))
        return groups

    def settle(self, pending: RateCheck, counts: list[int], record: dict[str, Any] | None) -> None:
        """Raise RateLimited if `pending`'s counts (as `groups` made them) are over its limits;
        `record`: the match the call named, which tells whether its token is a seat's."""
        if not pending.token_digest:
            if counts[0] > pending.limit:
                raise RateLimited(pending.limit)
        elif _holds_token(record, pending.token_digest):
            if counts[0] > pending.limit:
                raise RateLimited(pending.limit)
            if counts[1] > pending.address_limit:
                raise RateLimited(pending.address_limit)
        elif counts[1] > pending.limit:
            # Not a token of this match: the request counts as one without a token would.
            raise RateLimited(pending.limit)

    def flush(self) -> None:
        """Count a deferred request that never loaded a match (refused by validation, a
        malformed id): on the address, since no token was checked. Raises RateLimited if over."""
        pending = self.take_pending()
        if (
            pending is not None
            and self.hit(pending.address, pending.window, pending.endpoint) > pending.limit
        ):
            raise RateLimited(pending.limit)

    def forget(self) -> None:
        _pending_rate.set(None)

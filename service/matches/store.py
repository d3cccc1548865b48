"""The match store: a match's keys, its load, the compare-and-set commit (with WAIT and the
recovery of a lost answer), the archive of its events, idempotency, and the match's own Lua
scripts (service/matches/store_scripts.py).

All keys of a match share the hash tag `{m:<id>}` so a match lives in one Redis Cluster slot
and the Lua scripts may touch all of them. The store is handed what it needs by the
composition root (service/bootstrap.py): the hot path's round trips on the Redis clients
(service/infra/roundtrips.py), the rate limiter's ride (a request's deferred count, read in
the load's round trip) and, on one Redis, the players' feeds' part of the commit's script.
"""

from __future__ import annotations

import hashlib
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from service import codec
from service.infra.cluster import Group
from service.infra.due_index import DUE_KEY
from service.infra.lists import REPLACE
from service.infra.rate_limit import Ride
from service.infra.roundtrips import RoundTrips
from service.matches.outbox import OUTBOX_KEY, member
from service.matches.store_scripts import (
    ARCHIVE,
    CLAIM,
    COMMIT,
    COMMIT_SHARDED,
    RELEASE,
    REWRITE_OVER,
    commit_publishing,
)

IN_PROGRESS = "in-progress"
# The most events one read of a feed takes: a page of /events (docs/api.md, "Limits") and one
# more, which tells whether more follow. History reads them all.
EVENTS_PAGE = 1000
READ_EVENTS = EVENTS_PAGE + 1


def _events(raw: list[bytes], archived: bytes | None, after: int, count: int | None) -> list[dict[str, Any]]:
    """The events after `after` (at most `count` of them, None: all) from an LRANGE of the
    list, or from the archive once folded (a change after the end, a rematch's event, is read
    once `Store.archive` has folded it in too, a moment after its commit)."""
    if archived is not None:
        start = max(after, 0)
        return codec.loads(zlib.decompress(archived))[start : None if count is None else start + count]  # type: ignore[no-any-return]  # JSON
    return [codec.loads(e) for e in raw]


def _range(after: int, count: int | None) -> tuple[int, int]:
    """LRANGE's bounds for the events after seq `after`, at most `count` of them."""
    start = max(after, 0)
    return start, -1 if count is None else start + count - 1


def _loaded(replies: list[Any], events_after: int | None) -> Loaded | None:
    v, n, data = replies[0]
    if data is None:
        return None
    if events_after is None:
        return Loaded(codec.loads(data), int(v), int(n))
    archived, tenures = replies[2]
    after = _events(replies[1], archived, events_after, READ_EVENTS)
    return Loaded(codec.loads(data), int(v), int(n), after, tenures=tenures)


def _index_entries(match_id: str, version: int, due: float | None, relay_at: float) -> list[Group]:
    """The commit's entries in the due index and the outbox's index (both on the queue Redis;
    `relay_at` 0: no effects)."""
    entries: list[tuple[Any, ...]] = [] if due is None else [("ZADD", DUE_KEY, f"{due:.3f}", match_id)]
    if relay_at:
        entries.append(("ZADD", OUTBOX_KEY, f"{relay_at:.3f}", member(match_id, version)))
    return [(None, entries)] if entries else []


def match_key(match_id: str, part: str) -> str:
    """A key of a match: `match` (its hash), `events`, `outbox`, `chan`, `idem:...`, `inv`."""
    return f"ct:{{m:{match_id}}}:{part}"


def _sha1(raw: bytes) -> str:
    return hashlib.sha1(raw).hexdigest()


def channel(match_id: str) -> str:
    return match_key(match_id, "chan")


@dataclass
class Loaded:
    record: dict[str, Any]
    version: int
    event_count: int  # events stored: the seq of the last one
    # With `load(..., events_after=k)`: the stored events with seq > k, read in the same round
    # trip (a long-poll's first look costs no second one).
    events_after: list[dict[str, Any]] | None = None
    # With `load(..., also=group)`: that group's replies (a player token's check).
    also: list[Any] | None = None
    # With `events_after`: the seats' tenures read after those events (service/matches/tenure.py).
    tenures: bytes | None = None


class CommitPublisher(Protocol):
    """What the commit's script needs, on one Redis, to publish a commit's notices to the
    players' feeds itself (service/notify/feeds.py, `Feeds`): the Lua text of the feed's
    `publish` function, and `joined`, the keys and arguments for the notices given."""

    publish_function: str

    def joined(self, notices: list[dict[str, Any]]) -> tuple[list[str], list[Any]] | None: ...


class ReplicaTimeout(redis.ConnectionError):
    """A commit was written on the master but no replica confirmed it in time
    (CARDTABLE_REPLICA_ACKS): not acknowledged, so a 503 the client may retry."""


class Store:
    """The matches, on the state Redis of `trips`; the due index and the outbox's index, which
    a commit writes in its round trip, on its queue Redis. With `replica_acks`, a commit is
    acknowledged only once that many replicas hold it (Redis WAIT, up to `replica_wait_ms`).
    `ride`: the rate limiter's (service/infra/rate_limit.py), whose deferred count a load
    carries. `publisher`: on one Redis, the players' feeds, whose notices the commit's script
    then publishes itself (one round trip a move: docs/performance.md, "Cheaper moves")."""

    def __init__(
        self,
        trips: RoundTrips,
        replica_acks: int = 0,
        replica_wait_ms: int = 1000,
        ride: Callable[[], Ride | None] | None = None,
        publisher: CommitPublisher | None = None,
    ):
        self.trips = trips
        self.state: Any = trips.state
        self._exchange = trips.exchange
        self._ride = ride
        self._wait = ("WAIT", replica_acks, replica_wait_ms) if replica_acks > 0 else None
        self._commit = self.state.register_script(COMMIT_SHARDED if trips.cluster else COMMIT)
        # The commit that also publishes its notices to the players' feeds (one Redis only).
        self._publisher = publisher
        self._commit_publishing = (
            None
            if publisher is None
            else self.state.register_script(commit_publishing(publisher.publish_function))
        )
        self._claim = self.state.register_script(CLAIM)
        self._archive = self.state.register_script(ARCHIVE)
        self._release = self.state.register_script(RELEASE)
        self._rewrite_over = self.state.register_script(REWRITE_OVER)
        self._replace = self.state.register_script(REPLACE)

    def load(
        self, match_id: str, events_after: int | None = None, also: Group | None = None
    ) -> Loaded | None:
        """The match as stored (None when there is none), with the request's deferred rate count
        (the limiter's ride, settled here) in the same round trip; with `events_after`, also
        the events after that seq; with `also`, that group of reads too (its replies in
        `Loaded.also`)."""
        key = match_key(match_id, "match")
        reads: list[tuple[Any, ...]] = [("HMGET", key, "v", "n", "data")]
        if events_after is not None:
            # The tenures after the events: they are at least as new as any event read.
            reads += [
                ("LRANGE", match_key(match_id, "events"), *_range(events_after, READ_EVENTS)),
                ("HMGET", key, "z", "t"),
            ]
        ride = None if self._ride is None else self._ride()
        if ride is None and also is None:
            (replies,) = self._exchange([(key, reads)], retry=True)
            return _loaded(replies, events_after)
        counts = [] if ride is None else ride.groups
        extra = [] if also is None else [also]
        *counted, replies = self._exchange([*counts, *extra, (key, reads)], retry=True)
        loaded = _loaded(replies, events_after)
        if also is not None:
            also_replies = counted.pop()
            if loaded is not None:
                loaded.also = also_replies
        if ride is not None:
            ride.enforce(counted, loaded.record if loaded else None)
        return loaded

    def commit(
        self,
        match_id: str,
        expected: int | None,
        record: dict[str, Any],
        events: list[dict[str, Any]],
        events_before: int,
        ttl: int,
        idempotency: tuple[str, bytes | str, int] | None = None,
        due: float | None = None,
        effects: tuple[list[bytes], float] | None = None,
        tenures: str = "",
        notices: list[dict[str, Any]] | None = None,
    ) -> bool:
        """Store `record` as version expected+1 (or 0 for a new match) if nobody wrote meanwhile,
        the seats' `tenures` beside it (service/matches/tenure.py). With `due`, the match enters the due
        index first, in the same round trip: a process that dies after the commit, before it
        enqueues the job, still leaves the entry the sweeper finds. An entry left by a commit
        that lost its race costs one look. `effects`: the encoded effects for the match's outbox
        (written by the script) and when the relay should look at them (its index entry goes
        with the due index's, before the script; service/matches/outbox.py). `notices`: the commit's
        notices, which on one Redis its script publishes to the players' feeds once it wrote
        (`Feeds.joined`; they are in the outbox's notify effect too, for the relay)."""
        new_version = 0 if expected is None else expected + 1
        idem_key, idem_value, idem_ttl = idempotency or ("", "", 0)
        outbox, relay_at = effects or ([], 0.0)
        args = [
            -1 if expected is None else expected,
            new_version,
            codec.dumps(record),
            events_before + len(events),
            ttl,
            idem_value,
            idem_ttl,
            channel(match_id),
            secrets.token_hex(8),
            len(outbox),
            tenures,
            *outbox,
            *(codec.dumps(e) for e in events),
        ]
        keys, args, script = self._commit_call(match_id, bool(outbox), idem_key, args, notices)
        pre = self._indexed_first(match_id, new_version, due, relay_at) if due is not None or outbox else []
        try:
            written, acked = self._run_commit(keys, args, pre, script)
        except (redis.ConnectionError, redis.TimeoutError):
            written, acked = self._after_lost_answer(keys, args, pre, expected, script)
        if written and self._wait is not None and acked < self._wait[1]:
            raise ReplicaTimeout(f"{acked} of {self._wait[1]} replicas confirmed the commit in time")
        return written

    def _indexed_first(self, match_id: str, version: int, due: float | None, relay_at: float) -> list[Group]:
        """The due and relay indexes' entries of a commit, which must hold before it can happen:
        on one Redis they go first in the commit's own round trip (returned); on two, the indexes
        are on the queue Redis, and are sent now (a queue Redis that is away fails the move, not
        the match)."""
        pre = _index_entries(match_id, version, due, relay_at)
        if self.trips.router is None:
            return pre
        self._exchange(pre, retry=True)
        return []

    def _commit_call(
        self,
        match_id: str,
        outbox: bool,
        idem_key: str,
        args: list[Any],
        notices: list[dict[str, Any]] | None,
    ) -> tuple[list[str], list[Any], Any]:
        """The commit script's keys, arguments and script: on one Redis, the one that also
        publishes the notices to the players' feeds when they name any (`Feeds.joined`)."""
        # Only keys the script writes: on a cluster, a slot being migrated serves a script only
        # if every key it names exists on one side (else TRYAGAIN), and an unused placeholder
        # never does.
        keys = [
            match_key(match_id, "match"),
            match_key(match_id, "events"),
            *([match_key(match_id, "outbox")] if outbox else []),
            *([idem_key] if idem_key else []),
        ]
        publisher = self._publisher
        joined = publisher.joined(notices) if notices and publisher is not None else None
        if joined is None:
            return keys, args, self._commit
        # Its keys and arguments after COMMIT's, and COMMIT's counts last (store_scripts.py).
        return [*keys, *joined[0]], [*args, *joined[1], len(keys), len(args)], self._commit_publishing

    def _after_lost_answer(
        self, keys: list[str], args: list[Any], pre: list[Group], expected: int | None, script: Any
    ) -> tuple[bool, int]:
        """The connection dropped before a commit's answer came: the write may or may not have
        happened. Its id, stored with it, tells which (asked on a new connection, which raises
        in turn if Redis is still away)."""
        check = [(keys[0], [("HMGET", keys[0], "v", "w")])]
        (((version, write_id),),) = self._exchange(check, retry=True)
        if version == str(args[1]).encode() and write_id == str(args[8]).encode():
            if self._wait is not None:
                # Written, but whether a replica holds it is unknown (WAIT only counts this
                # connection's writes): not acknowledged.
                raise ReplicaTimeout("the commit's replication is unknown") from None
            return True, 0
        if version == (None if expected is None else str(expected).encode()):
            # Not written, and nobody else wrote: send it once more (the version check in the
            # script still guards it). Callers never see the lost attempt: a bot's job or a
            # clock's would otherwise end as stale and leave the match waiting.
            return self._run_commit(keys, args, pre, script)
        raise redis.ConnectionError("the commit's answer was lost and another writer came since")

    def _run_commit(
        self, keys: list[str], args: list[Any], pre: list[Group], script: Any
    ) -> tuple[bool, int]:
        """Whether the script wrote, and how many replicas confirmed it (WAIT, on the same
        connection right after the script, counts this connection's writes)."""
        wait = [] if self._wait is None else [self._wait]
        called = (len(keys), *keys, *args)
        try:
            commit = [("EVALSHA", script.sha, *called), *wait]
            *_, replies = self._exchange([*pre, (keys[0], commit)], retry=False)
        except redis.exceptions.NoScriptError:
            # Redis restarted or its script cache was flushed: EVAL loads the script again.
            reload = [("EVAL", script.script, *called), *wait]
            ((*replies,),) = self._exchange([(keys[0], reload)], retry=False)
        return bool(replies[0]), int(replies[1]) if wait else 0

    def events(self, match_id: str, after: int) -> list[dict[str, Any]]:
        """Every stored event with seq > after (seq counts from 1)."""
        return self.events_since(match_id, after, None)[0]

    def events_since(
        self, match_id: str, after: int, count: int | None = READ_EVENTS
    ) -> tuple[list[dict[str, Any]], int | None, bytes | None]:
        """Stored events with seq > after (at most `count`, None: all), the match's version
        (None when the match is gone) and its seats' tenures (service/matches/tenure.py) read after them,
        in one round trip on the hot path's connections: every woken waiter makes this read."""
        events, match = match_key(match_id, "events"), match_key(match_id, "match")
        read = [("LRANGE", events, *_range(after, count)), ("HMGET", match, "z", "v", "t")]
        ((raw, (archived, version, tenures)),) = self._exchange([(match, read)], retry=True)
        return _events(raw, archived, after, count), None if version is None else int(version), tenures

    def archive(self, match_id: str, version: int) -> bool:
        """Fold a finished match's events into one compressed field of its hash.

        A match that is over hardly changes again (a rematch's event), so its list of small
        events (a long 500-point Spades match writes over 2,000 of them, 130 KB of JSON) becomes
        one zlib blob of about a tenth of the size, read whole by the rare events or history call
        on a finished match.
        """
        raw, folded = (
            self.state.lrange(match_key(match_id, "events"), 0, -1),
            self.state.hget(match_key(match_id, "match"), "z"),
        )
        # A change after the end (a rematch's event) adds to what was folded before.
        earlier = zlib.decompress(folded)[1:-1] if folded else b""
        blob = zlib.compress(b"[" + b",".join([earlier, *raw] if earlier else raw) + b"]", 6)
        keys = [match_key(match_id, "match"), match_key(match_id, "events")]
        return bool(self._archive(keys=keys, args=[version, blob]))

    # --- idempotency -------------------------------------------------------
    def idempotency_key(self, match_id: str, seat: int, key: str) -> str:
        return match_key(match_id, f"idem:{seat}:{key}")

    def claim_idempotency(self, full_key: str, ttl: int = 60) -> str | None:
        """Claim the key for a request now running; return the stored value if already there."""
        cur = self._claim(keys=[full_key], args=[IN_PROGRESS, ttl])
        return cur.decode() if isinstance(cur, bytes) else cur

    def release_idempotency(self, full_key: str) -> None:
        """A rejected request stores nothing: free the key it claimed, unless the commit did
        happen (its answer, written by the same script, is there instead of the claim)."""
        self._release(keys=[full_key], args=[IN_PROGRESS])

    # --- a match that is over, rewritten in place (a player's erasure) -----
    def read_over(self, match_id: str) -> tuple[bytes | None, bytes | None]:
        """A match's record and archived events as stored (None for a match that is gone, or
        whose events are not archived)."""
        data, archived = self.state.hmget(match_key(match_id, "match"), "data", "z")
        return data, archived

    def rewrite_over(
        self, match_id: str, read: tuple[bytes, bytes | None], record: bytes, archive: bytes
    ) -> bool:
        """Store `record` and (unless b"") `archive` in place of what `read_over` read, the
        version unchanged: a match that is over never moves again, its history replays to that
        version. False, with nothing written, when the record or the archive changed since."""
        data, archived = read
        args = [_sha1(data), _sha1(archived) if archived else "", record or data, archive]
        return bool(self._rewrite_over(keys=[match_key(match_id, "match")], args=args))

    def items(self, match_id: str, part: str) -> list[bytes]:
        """The items of a match's list (`events`, `outbox`) as stored."""
        return list(self.state.lrange(match_key(match_id, part), 0, -1))

    def replace_items(self, match_id: str, part: str, pairs: list[Any]) -> int:
        """Replace items of a match's list where they stand: `pairs` of an item as stored and
        what replaces it (an item changed or gone since is left). How many were."""
        return int(self._replace(keys=[match_key(match_id, part)], args=pairs))

    def memory_usage(self, match_id: str) -> int:
        """Bytes Redis spends on a match's state and events (bench/api.py reports it)."""
        total = 0
        for part in ("match", "events"):
            total += self.state.memory_usage(match_key(match_id, part), samples=0) or 0
        return total

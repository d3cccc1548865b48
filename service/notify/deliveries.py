"""Webhook deliveries: one notice to one endpoint, with its attempts (docs/webhooks.md).

A delivery is a hash `ct:{app:<app>}:delivery:<id>` in the app's slot, kept 7 days after its
last change; `ct:{app:<app>}:deliveries:<endpoint>` lists an endpoint's deliveries by creation
(the newest 100 are listed; an older one leaves the list, and its record goes too unless it is
still pending). A fan-out's delivery id is derived from the endpoint and the notice, and the
record is created only if it is not there: a fan-out that runs twice creates nothing twice.

`ct:{app:<app>}:deliveries:pending` holds the app's pending deliveries (scored by when each
became pending): at most CARDTABLE_WEBHOOK_PENDING, past which a notice's delivery is made
`failed` unsent and a test or retry answers 429; `:deliveries:manual`, the times of its tests
and manual retries, MANUAL_SENDS a MANUAL_WINDOW (docs/webhooks.md, "Limits").

Each attempt is one RQ job, `workers.webhooks.deliver(app, delivery, seq)`, with the id
`whd-<delivery>-<seq>`; `seq` counts the attempts scheduled, so a job for an attempt that was
overtaken (by a manual retry) does nothing. An attempt first claims the delivery (a lease until
it must have finished, CLAIM below), then writes its outcome only if `seq` is still its own.

`ct:webhooks:due`, a sorted set on the queue Redis like the sweeper's `ct:due`, holds every
pending delivery (`<app>:<id>`) scored by when it must have moved on: the end of its attempt's
lease, or its next try plus the grace. The housekeeper's sweep (workers/webhooks.py) takes the
overdue ones and enqueues their attempt again: a worker killed in the middle of a delivery, a
lost job or a fan-out that died between the record and its enqueue delay a delivery, never lose it.
"""

from __future__ import annotations

import math
import secrets
import time
from typing import Any

from service import errors
from service.identity import tombstones
from service.notify.delivery_record import (
    Delivery,
    as_text,
    body_of,
    delivery_id_for,
    list_key,
    manual_key,
    pending_key,
    record_key,
)

DUE_KEY = "ct:webhooks:due"
FANNED_SECONDS = 3600  # how long a commit's fan-out is remembered as done (the relay asks)
ATTEMPT_TIMEOUT = 5.0  # seconds one attempt may take, connection and answer included
KEEP_LISTED = 100
KEEP_SECONDS = 7 * 24 * 3600
# Tests and manual retries an app may send in MANUAL_WINDOW seconds: each can hold the webhook
# workers for an attempt's 5 s, and starts a schedule of retries.
MANUAL_SENDS = 10
MANUAL_WINDOW = 60.0
# The pending deliveries an app holds by default (CARDTABLE_WEBHOOK_PENDING).
PENDING_LIMIT = 10_000

# KEYS[1] the app's pending deliveries, then each delivery's record and its endpoint's list, in
# pairs (all in the app's slot); ARGV: now (s), now (µs), ttl, the most pending (0: no limit),
# `fail` or `refuse` (what to do past it), the error of a delivery failed for it, then for each
# delivery its id, endpoint, message, type, payload. Answers, for each, {what, listed}: what 0
# when it exists already, 1 made pending, 2 made failed (the app held the most pending
# deliveries), 3 not made (the same, `refuse`); listed, how many its endpoint's list holds now.
_CREATE = """
local out = {}
local most = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
for i = 1, (#KEYS - 1) / 2 do
  local record, listed, a = KEYS[2 * i], KEYS[2 * i + 1], 6 + (i - 1) * 5
  if redis.call('EXISTS', record) == 1 then
    out[i] = {0, 0}
  else
    local full = most > 0 and redis.call('ZCARD', KEYS[1]) >= most
    if full and ARGV[5] == 'refuse' then
      out[i] = {3, 0}
    else
      redis.call('HSET', record, 'endpoint', ARGV[a + 2], 'message', ARGV[a + 3], 'type', ARGV[a + 4],
        'payload', ARGV[a + 5], 'created', ARGV[1], 'attempts', 0, 'seq', 0, 'step', 0)
      if full then
        redis.call('HSET', record, 'status', 'failed', 'next_try', '', 'error', ARGV[6])
      else
        redis.call('HSET', record, 'status', 'pending', 'next_try', ARGV[1])
        redis.call('ZADD', KEYS[1], ARGV[1], ARGV[a + 1])
        redis.call('EXPIRE', KEYS[1], ARGV[3])
      end
      redis.call('EXPIRE', record, ARGV[3])
      redis.call('ZADD', listed, ARGV[2], ARGV[a + 1])
      redis.call('EXPIRE', listed, ARGV[3])
      out[i] = {full and 2 or 1, redis.call('ZCARD', listed)}
    end
  end
end
return out
"""
# KEYS: the record; ARGV: seq, now, lease end. The attempt `seq` may start: the delivery is
# pending at that attempt and no other attempt holds a lease that has not run out.
_CLAIM = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
if redis.call('HGET', KEYS[1], 'seq') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'lease') or '0') > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'lease', ARGV[3])
return 1
"""
# KEYS: the record, the app's pending deliveries; ARGV: seq, ttl, the delivery's id, then
# fields. An attempt's outcome, unless it was overtaken; a delivery no longer pending leaves
# the app's pending ones.
_FINISH = """
if redis.call('HGET', KEYS[1], 'seq') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], ARGV[2])
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then redis.call('ZREM', KEYS[2], ARGV[3]) end
return 1
"""
# KEYS: the record, the app's pending deliveries; ARGV: now, ttl, the delivery's id, the most
# pending (0: no limit). A manual retry: pending again, the schedule from its start, a new
# attempt number (a retry already scheduled becomes stale). Answers the new seq; -1 when the app
# holds the most pending deliveries already (and this one is not among them).
_RETRY = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local most = tonumber(ARGV[4])
if most > 0 and not redis.call('ZSCORE', KEYS[2], ARGV[3]) and redis.call('ZCARD', KEYS[2]) >= most then
  return -1
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 'status', 'pending', 'step', 0, 'next_try', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return seq
"""
# KEYS: the app's manual sends (their times); ARGV: now, the window (s), the most in it, a
# member. Answers 0 when this send is counted, else the seconds until the oldest leaves.
_MANUAL = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tostring(tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('EXPIRE', KEYS[1], math.ceil(window))
return '0'
"""


# KEYS[1] a delivery record. ARGV: triples of a field, its value as read and what replaces it;
# a field changed meanwhile (an attempt's answer) is left, and so is a record gone.
_REWRITE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 3 do
  if (redis.call('HGET', KEYS[1], ARGV[i]) or '') == ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  end
end
return 1
"""


class Deliveries:
    """Delivery records (on the match state's Redis, in each app's slot) and the index of the
    pending ones (on the queue Redis)."""

    def __init__(self, state: Any, queue_client: Any):
        self.state = state
        self.client = queue_client
        self._create = state.register_script(_CREATE)
        self._claim = state.register_script(_CLAIM)
        self._finish = state.register_script(_FINISH)
        self._retry = state.register_script(_RETRY)
        self._manual = state.register_script(_MANUAL)
        self._rewrite = state.register_script(_REWRITE)

    def redacted(self, app_id: str, notices: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`notices` (or delivery bodies) without the external ids of the app's players erased
        since they were made (service/identity/tombstones.py): what a delivery may send."""
        return tombstones.redact(self.state, app_id, notices)

    def create(
        self,
        app_id: str,
        wanted: list[tuple[str, dict[str, Any]]],
        lease: float,
        delivery_id: str = "",
        pending_limit: int = PENDING_LIMIT,
        refuse: bool = False,
    ) -> list[tuple[str, str]]:
        """The deliveries of the (endpoint, notice) pairs of one app that do not exist yet, made
        in one script; (delivery id, endpoint id) of those it made pending. Their index entries
        go first, due at `lease`: a process that dies before it enqueues their first attempts
        leaves the sweep something to find. `delivery_id` names the one delivery of a test send.

        An app holds `pending_limit` pending deliveries at most (0: no limit): past it a
        delivery is made `failed` at once, with no attempt, listed with its endpoint's and
        retried by hand once fewer are pending; with `refuse` it is not made, and the call
        answers 429 `quota_exceeded` (`webhook_pending`)."""
        if not wanted:
            return []
        ids = [delivery_id or delivery_id_for(endpoint_id, n["id"]) for endpoint_id, n in wanted]
        self.client.zadd(DUE_KEY, {f"{app_id}:{i}": lease for i in ids}, nx=True)
        now = time.time()
        keys: list[str] = [pending_key(app_id)]
        args: list[Any] = [
            f"{now:.3f}",
            int(now * 1_000_000),
            KEEP_SECONDS,
            pending_limit,
            "refuse" if refuse else "fail",
            f"not sent: the app held {pending_limit} pending deliveries (its limit); retry it later",
        ]
        for i, (endpoint_id, notice) in zip(ids, wanted, strict=True):
            keys += [record_key(app_id, i), list_key(app_id, endpoint_id)]
            args += [i, endpoint_id, notice["id"], notice["type"], body_of(notice)]
        answers = [(int(what), int(size)) for what, size in self._create(keys=keys, args=args)]
        unsent = [f"{app_id}:{i}" for i, (what, _) in zip(ids, answers, strict=True) if what in (2, 3)]
        if unsent:
            self.client.zrem(DUE_KEY, *unsent)
        if any(what == 3 for what, _ in answers):
            raise _pending_refused(pending_limit)
        for endpoint_id, size in {
            e: n for (e, _), (what, n) in zip(wanted, answers, strict=True) if what
        }.items():
            if size > KEEP_LISTED:
                self._trim(app_id, endpoint_id)
        return [(i, e) for i, (e, _), (what, _) in zip(ids, wanted, answers, strict=True) if what == 1]

    def count_manual(self, app_id: str) -> None:
        """Count a test or manual retry of the app's; 429 `quota_exceeded` (`webhook_sends`)
        past MANUAL_SENDS in MANUAL_WINDOW seconds, with when the oldest leaves the count."""
        now = time.time()
        wait = float(
            self._manual(
                keys=[manual_key(app_id)],
                args=[f"{now:.6f}", MANUAL_WINDOW, MANUAL_SENDS, f"{now:.6f}-{secrets.token_hex(4)}"],
            )
        )
        if wait > 0:
            raise errors.QuotaExceeded(
                "webhook_sends",
                f"an app sends at most {MANUAL_SENDS} webhook tests and retries a minute",
                retry_after=max(1, math.ceil(wait)),
            )

    @staticmethod
    def new_id() -> str:
        """A delivery id of its own (a test delivery's)."""
        return "dl_" + secrets.token_hex(12)

    def _trim(self, app_id: str, endpoint_id: str) -> None:
        """Keep the newest KEEP_LISTED in the endpoint's list; records that leave it go too,
        unless still pending (their attempts go on, and the record expires in time)."""
        key = list_key(app_id, endpoint_id)
        older: list[Any] = self.state.zrange(key, 0, -KEEP_LISTED - 1)
        if not older:
            return
        ids = [as_text(i) or "" for i in older]
        with self.state.pipeline(transaction=False) as p:
            for i in ids:
                p.hget(record_key(app_id, i), "status")
            statuses = p.execute()
        with self.state.pipeline(transaction=False) as p:
            for i, status in zip(ids, statuses, strict=True):
                if as_text(status) != "pending":
                    p.delete(record_key(app_id, i))
            p.zrem(key, *ids)
            p.execute()

    def get(self, app_id: str, delivery_id: str) -> Delivery | None:
        raw = self.state.hgetall(record_key(app_id, delivery_id))
        if not raw:
            return None
        return Delivery.of(delivery_id, {as_text(k) or "": as_text(v) or "" for k, v in raw.items()})

    def listed(self, app_id: str, endpoint_id: str) -> list[Delivery]:
        """The endpoint's last KEEP_LISTED deliveries, newest first."""
        ids = [
            as_text(i) or "" for i in self.state.zrevrange(list_key(app_id, endpoint_id), 0, KEEP_LISTED - 1)
        ]
        with self.state.pipeline(transaction=False) as p:
            for i in ids:
                p.hgetall(record_key(app_id, i))
            raws = p.execute()
        return [
            Delivery.of(i, {as_text(k) or "": as_text(v) or "" for k, v in raw.items()})
            for i, raw in zip(ids, raws, strict=True)
            if raw
        ]

    def claim(self, app_id: str, delivery: Delivery, now: float, lease: float) -> bool:
        """Whether this attempt may go (no other holds the delivery); it holds it until `lease`,
        and the sweep looks again then."""
        if not self._claim(keys=[record_key(app_id, delivery.id)], args=[delivery.seq, f"{now:.3f}", lease]):
            return False
        self.due(app_id, delivery.id, lease)
        return True

    def finish(self, app_id: str, delivery: Delivery, **fields: Any) -> bool:
        """Write an attempt's outcome (False: a manual retry overtook it, nothing written)."""
        values = ["" if v is None else v for kv in fields.items() for v in kv]
        keys = [record_key(app_id, delivery.id), pending_key(app_id)]
        return bool(self._finish(keys=keys, args=[delivery.seq, KEEP_SECONDS, delivery.id, *values]))

    def retry(
        self, app_id: str, delivery_id: str, lease: float, pending_limit: int = PENDING_LIMIT
    ) -> int | None:
        """Make a delivery pending again, from the start of its schedule; its new attempt
        number, or None when there is no such delivery. 429 `quota_exceeded`
        (`webhook_pending`) when the app holds `pending_limit` pending deliveries already."""
        self.due(app_id, delivery_id, lease)
        keys = [record_key(app_id, delivery_id), pending_key(app_id)]
        seq = self._retry(keys=keys, args=[f"{time.time():.3f}", KEEP_SECONDS, delivery_id, pending_limit])
        if seq is not None and int(seq) < 0:
            raise _pending_refused(pending_limit)
        return None if seq is None else int(seq)

    def pending(self, app_id: str) -> int:
        """How many pending deliveries the app holds."""
        return int(self.state.zcard(pending_key(app_id)))

    def due(self, app_id: str, delivery_id: str, at: float) -> None:
        """When the sweep should look at the pending delivery next."""
        self.client.zadd(DUE_KEY, {f"{app_id}:{delivery_id}": at})

    def settled(self, app_id: str, delivery_id: str) -> None:
        """The delivery is delivered or failed: nothing more for the sweep."""
        self.client.zrem(DUE_KEY, f"{app_id}:{delivery_id}")

    def overdue(self, now: float, limit: int) -> list[tuple[str, str]]:
        """(app, delivery) of pending deliveries the sweep should look at, earliest first."""
        rows: list[Any] = self.client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit)
        return [tuple((as_text(r) or "").split(":", 1)) for r in rows]  # type: ignore[misc]

    def fanned(self, match_id: str, version: int) -> None:
        """Remember that the fan-out of a commit's notices ran to its end."""
        self.client.set(f"ct:webhooks:fanned:{match_id}:{version}", 1, ex=FANNED_SECONDS)

    def fanned_or_queued(self, match_id: str, version: int, job_key: str) -> bool:
        """Whether a commit's fan-out ran to its end, or its job is still there (queued,
        running, failed): one round trip on the queue Redis."""
        with self.client.pipeline(transaction=False) as p:
            p.exists(f"ct:webhooks:fanned:{match_id}:{version}", job_key)
            (found,) = p.execute()
        return bool(found)

    def rewrite(self, app_id: str, delivery_id: str, changes: list[str]) -> None:
        """Rewrite a delivery's fields in place (an erasure: service/privacy/erasure.py):
        `changes`, triples of a field, its value as read and its new value; a field that changed
        since it was read (an attempt's answer) is left as it is, and so is a record gone."""
        self._rewrite(keys=[record_key(app_id, delivery_id)], args=changes)

    def drop_endpoint(self, app_id: str, endpoint_id: str) -> None:
        """Forget a deleted endpoint's list (its records expire alone; their attempts find the
        endpoint gone and stop)."""
        self.state.delete(list_key(app_id, endpoint_id))


def _pending_refused(pending_limit: int) -> errors.QuotaExceeded:
    """A test or retry refused: the app holds its most pending deliveries."""
    return errors.QuotaExceeded(
        "webhook_pending",
        f"the app holds {pending_limit} pending webhook deliveries, its limit: "
        "wait until they are delivered or failed",
    )

"""An app's webhook endpoints (docs/webhooks.md): where its notices are delivered, and which.

An app's endpoints are one hash, `ct:{app:<app>}:webhooks`, in the app's Redis Cluster slot:

- `<id>`: the endpoint as JSON (`id`, `url`, `events`, `description`, `created`, `secret`);
- `<id>:off`: present while it is disabled, holding why (`manual`: the app's PATCH; `gone`: the
  receiver answered 410; `failing`: its deliveries failed for 24 h with no success);
- `<id>:failing`: when its deliveries started failing (cleared by a success, never by
  enabling it again: its next failure still counts from then, and disables it at once when
  that was a day ago).

The state fields are written apart from the JSON, so a worker disabling an endpoint never
races the app changing its URL. The secret is kept as issued (`whsec_<base64>`): deliveries
are signed with it (HMAC), so it cannot be kept as a hash; it is answered once, on creation,
and never logged.

`wanted(app_id)` is asked on every commit of an app's match (does any endpoint want this
notice?), so each process keeps a copy per app for CARDTABLE_WEBHOOKS_TTL seconds (1): a
cached answer is a dict lookup. The process that changes an endpoint drops its own copy at
once; the others follow within the TTL.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from service import errors
from service.identity.apps import app_key
from service.matches.notices import TYPES

# The notice types an endpoint may ask for: every notice a match makes (service/matches/notices.py).
EVENT_TYPES = TYPES

MAX_ENDPOINTS = 20
ID = re.compile(r"wh_[0-9a-f]{16}")
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
DISABLED_REASONS = ("manual", "gone", "failing")

# KEYS[1] the hash; ARGV: id, JSON, the most endpoints. Counts the endpoint fields (those
# without a ':'), so two creates at once never make a 21st.
_CREATE = """
local n = 0
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if not string.find(f, ':', 1, true) then n = n + 1 end
end
if n >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# KEYS[1] the hash; ARGV: id, new JSON or '', and 'on', 'off:<reason>' or ''. Only an endpoint
# that still exists is changed: a worker disabling one the app deleted must not bring it back.
# Enabling keeps `:failing`: only a delivered attempt clears it.
_UPDATE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
if ARGV[3] == 'on' then
  redis.call('HDEL', KEYS[1], ARGV[1] .. ':off')
elseif ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[1] .. ':off', string.sub(ARGV[3], 5))
end
return 1
"""


def endpoints_key(app_id: str) -> str:
    return f"{app_key(app_id)}:webhooks"


def new_secret() -> str:
    """A signing secret in Standard Webhooks' form: `whsec_` and 32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


@dataclass
class Endpoint:
    id: str
    url: str
    events: list[str]
    description: str
    created: float
    secret: str = field(repr=False)  # never in a repr, so never in a log line by accident
    disabled_reason: str | None = None
    failing_since: float | None = None

    @property
    def enabled(self) -> bool:
        return self.disabled_reason is None

    def public(self) -> dict[str, Any]:
        """What the app reads of it: all but the secret and the failure bookkeeping."""
        return {
            "id": self.id,
            "url": self.url,
            "events": self.events,
            "description": self.description,
            "enabled": self.enabled,
            "disabled_reason": self.disabled_reason,
            "created": self.created,
        }

    def stored(self) -> str:
        kept = {k: v for k, v in asdict(self).items() if k not in ("disabled_reason", "failing_since")}
        return json.dumps(kept, separators=(",", ":"))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _endpoints(fields: dict[Any, Any]) -> list[Endpoint]:
    """The endpoints of one HGETALL of an app's hash, oldest first."""
    raw = {_text(k): _text(v) for k, v in fields.items()}
    found = []
    for name, value in raw.items():
        if ":" in name:
            continue
        endpoint = Endpoint(**json.loads(value))
        endpoint.disabled_reason = raw.get(f"{name}:off")
        since = raw.get(f"{name}:failing")
        endpoint.failing_since = float(since) if since is not None else None
        found.append(endpoint)
    return sorted(found, key=lambda e: (e.created, e.id))


class Webhooks:
    """The apps' endpoints, on the match state's Redis."""

    def __init__(self, client: Any, ttl: float = 1.0):
        self.client = client
        self.ttl = ttl
        self._create = client.register_script(_CREATE)
        self._update = client.register_script(_UPDATE)
        self._wanted: dict[str, tuple[float, frozenset[str]]] = {}

    def create(self, app_id: str, url: str, events: list[str], description: str = "") -> Endpoint:
        """A new enabled endpoint (its URL already checked: service/notify/url_guard.py); 409 when
        the app has MAX_ENDPOINTS already."""
        endpoint = Endpoint(
            id=f"wh_{secrets.token_hex(8)}",
            url=url,
            events=_unique(events),
            description=description,
            created=round(time.time(), 3),
            secret=new_secret(),
        )
        made = self._create(
            keys=[endpoints_key(app_id)], args=[endpoint.id, endpoint.stored(), MAX_ENDPOINTS]
        )
        self.forget(app_id)
        if not made:
            raise errors.Conflict(f"an app has at most {MAX_ENDPOINTS} webhook endpoints: delete one first")
        return endpoint

    def list(self, app_id: str) -> list[Endpoint]:
        return _endpoints(self.client.hgetall(endpoints_key(app_id)))

    def get(self, app_id: str, endpoint_id: str) -> Endpoint | None:
        if not ID.fullmatch(endpoint_id):
            return None
        names = [endpoint_id, f"{endpoint_id}:off", f"{endpoint_id}:failing"]
        values = self.client.hmget(endpoints_key(app_id), names)
        return next(
            iter(_endpoints({n: v for n, v in zip(names, values, strict=True) if v is not None})), None
        )

    def update(self, app_id: str, endpoint_id: str, **changes: Any) -> Endpoint:
        """Change `url`, `events`, `description` and `enabled` (re-enabling clears why it was
        disabled, not since when it fails); 404 for an endpoint the app does not have."""
        endpoint = self.get(app_id, endpoint_id)
        if endpoint is None:
            raise errors.NotFound(f"no webhook endpoint {endpoint_id!r} in this app")
        for name in ("url", "events", "description"):
            if name in changes:
                setattr(endpoint, name, _unique(changes[name]) if name == "events" else changes[name])
        state = ""
        if "enabled" in changes:
            state = "on" if changes["enabled"] else "off:manual"
        stored = endpoint.stored() if {"url", "events", "description"} & set(changes) else ""
        if not self._update(keys=[endpoints_key(app_id)], args=[endpoint_id, stored, state]):
            raise errors.NotFound(f"no webhook endpoint {endpoint_id!r} in this app")
        self.forget(app_id)
        return self._existing(app_id, endpoint_id)

    def delete(self, app_id: str, endpoint_id: str) -> bool:
        if not ID.fullmatch(endpoint_id):
            return False
        key = endpoints_key(app_id)
        with self.client.pipeline(transaction=False) as p:
            p.hdel(key, endpoint_id)
            p.hdel(key, f"{endpoint_id}:off", f"{endpoint_id}:failing")
            existed, _ = p.execute()
        self.forget(app_id)
        return bool(existed)

    def disable(self, app_id: str, endpoint_id: str, reason: str) -> bool:
        """Disable an endpoint for `reason` (a worker's: `gone`, `failing`); False when it is gone."""
        done = bool(self._update(keys=[endpoints_key(app_id)], args=[endpoint_id, "", f"off:{reason}"]))
        self.forget(app_id)
        return done

    def failed(self, app_id: str, endpoint_id: str, now: float) -> float:
        """Note a failed attempt; return since when the endpoint has failed with no success."""
        key, name = endpoints_key(app_id), f"{endpoint_id}:failing"
        with self.client.pipeline(transaction=False) as p:
            p.hsetnx(key, name, f"{now:.3f}")
            p.hget(key, name)
            _, since = p.execute()
        return float(since) if since is not None else now

    def succeeded(self, app_id: str, endpoint_id: str) -> None:
        self.client.hdel(endpoints_key(app_id), f"{endpoint_id}:failing")

    def wanted(self, app_id: str) -> frozenset[str]:
        """The event types some enabled endpoint of the app wants (empty: none, so no webhook
        work at all for its notices). A copy at most `ttl` seconds old."""
        now = time.monotonic()
        cached = self._wanted.get(app_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        types = frozenset(t for e in self.list(app_id) if e.enabled for t in e.events)
        if self.ttl > 0:
            self._wanted[app_id] = (now + self.ttl, types)
        return types

    def forget(self, app_id: str) -> None:
        """Drop this process's copy of what the app wants (it just changed an endpoint)."""
        self._wanted.pop(app_id, None)

    def _existing(self, app_id: str, endpoint_id: str) -> Endpoint:
        endpoint = self.get(app_id, endpoint_id)
        if endpoint is None:
            raise errors.NotFound(f"no webhook endpoint {endpoint_id!r} in this app")
        return endpoint


def _unique(events: list[str]) -> list[str]:
    """The event types in the order given, each once."""
    return list(dict.fromkeys(events))


# What POST /v1/webhooks/{id}/test sends, one per type: the shapes of docs/api.md "Notices",
# of no real match, with `test: true`.
_EXAMPLE_DATA: dict[str, dict[str, Any]] = {
    "match.created": {"players": {"0": "user-4711"}},
    "match.started": {"players": {"0": "user-4711"}},
    "turn.started": {"seat": 0, "player": "user-4711", "version": 12, "deadline": None},
    "match.over": {"winners": [0], "reason": "target", "players": {"0": "user-4711"}},
    "seat.timed_out": {"seat": 0, "player": "user-4711", "on_timeout": "auto"},
    "rematch.offered": {"rematch": "0000000000000001", "by_seat": 0},
}


def example_notice(app_id: str, kind: str) -> dict[str, Any]:
    """An example notice of type `kind` for the app's endpoint test, with an id of its own."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"
    data = {"match": "0000000000000000", "game": "spades", **_EXAMPLE_DATA[kind], "test": True}
    return {
        "id": f"test-{secrets.token_hex(8)}-{kind}",
        "app": app_id,
        "type": kind,
        "timestamp": stamp,
        "data": data,
    }

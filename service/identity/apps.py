"""Apps: the games and backends that integrate cardtable, each with its own secret key, quotas
and players (docs/integrating.md).

An operator makes an app with `cardtable apps create NAME` (service/cli/apps.py); the key is
shown once and only its SHA-256 is stored. A key reads `ctk_<app id>.<secret>`: the prefix
tells it from a seat token (base64url, never a dot) and from a player token (`ctp_`), and the
app id in it finds the app in one read, with no index of key hashes to keep.

An app is one hash, `ct:{app:<id>}`, in a Redis Cluster slot of its own; `ct:apps` lists the
ids for `cardtable apps list`. `ct:origins` is the set of the web origins the live apps list,
which every API process reads for CORS (service/http/cors.py): each change of an app writes it again
from all the apps, so a later change mends whatever an earlier one raced with.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service import errors
from service.identity.players import app_key as app_key  # the one builder of an app's keys
from service.identity.players import directory_key, player_key
from service.identity.tokens import hash_token

KEY_PREFIX = "ctk_"
_KEY = re.compile(r"ctk_([0-9a-f]{12})\.[A-Za-z0-9_-]{32}")
APPS_KEY = "ct:apps"
ORIGINS_KEY = "ct:origins"
# A web origin as a browser sends it: scheme://host[:port], no path (an IPv6 host in brackets).
_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::[0-9]{1,5})?")

# An app's quotas unless the operator sets others (`cardtable apps create --rate ...`).
DEFAULT_RATE = 200  # requests a second made with the app's key
DEFAULT_MATCHES = 1000  # live matches created with the key or by its players
DEFAULT_BOT_MATCHES = 100  # of those, live matches with no human seat
DEFAULT_TOURNAMENTS = 20  # tournaments registering or running (service/tournaments/running.py)


@dataclass
class App:
    id: str
    name: str
    created: float
    rate: int = DEFAULT_RATE
    matches: int = DEFAULT_MATCHES
    bot_matches: int = DEFAULT_BOT_MATCHES
    tournaments: int = DEFAULT_TOURNAMENTS
    origins: list[str] = field(default_factory=list)  # web origins its browser clients run on
    revoked: bool = False

    def public(self) -> dict[str, Any]:
        return {
            "app": self.id,
            "name": self.name,
            "created": self.created,
            "quotas": {
                "rate": self.rate,
                "matches": self.matches,
                "bot_matches": self.bot_matches,
                "tournaments": self.tournaments,
            },
            "origins": self.origins,
            "revoked": self.revoked,
        }

    @property
    def owner(self) -> str:
        """Whose live matches count against the app's quotas (service/identity/quotas.py)."""
        return f"app:{self.id}"


def is_app_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX)


def normalize_origin(text: str) -> str:
    """An origin as a browser's Origin header spells it (lower case, no trailing slash); 422
    for anything that is not one (a path, a wildcard, no scheme)."""
    origin = text.strip().lower().removesuffix("/")
    if not _ORIGIN.fullmatch(origin):
        raise errors.InvalidRequest(
            f"{text!r} is not a web origin: scheme://host[:port], e.g. https://game.example.com"
        )
    return origin


def _valid_origins(origins: list[str]) -> list[str]:
    """The origins of the list that are origins at all, normalized (a record written to Redis
    by other means than `Apps` may hold anything)."""
    valid = []
    for text in origins:
        try:
            valid.append(normalize_origin(text))
        except errors.InvalidRequest:
            continue
    return valid


def _new_key(app_id: str) -> str:
    return f"{KEY_PREFIX}{app_id}.{secrets.token_urlsafe(24)}"


class Apps:
    """The apps, on the match state's Redis."""

    def __init__(self, client: Any, wake: Callable[[str], None] | None = None):
        self.client = client
        # Called with each player's id once a revocation dropped its tokens (service/notify/feeds.py).
        self._wake = wake

    def create(self, name: str, **quotas: Any) -> tuple[App, str]:
        """A new app and its key (shown once: only its hash is kept)."""
        if "origins" in quotas:
            quotas["origins"] = [normalize_origin(o) for o in quotas["origins"]]
        app = App(id=secrets.token_hex(6), name=name, created=round(time.time(), 3), **quotas)
        key = _new_key(app.id)
        self._write(app, key_hash=hash_token(key))
        self.client.sadd(APPS_KEY, app.id)
        if app.origins:
            self.sync_origins()
        return app, key

    def _write(self, app: App, key_hash: str | None = None) -> None:
        fields: dict[str, Any] = {"app": json.dumps(app.__dict__)}
        if key_hash is not None:
            fields["key"] = key_hash
        self.client.hset(app_key(app.id), mapping=fields)

    def get(self, app_id: str) -> App | None:
        raw = self.client.hget(app_key(app_id), "app")
        return App(**json.loads(raw)) if raw else None

    def list(self) -> list[App]:
        ids = sorted(m.decode() if isinstance(m, bytes) else m for m in self.client.smembers(APPS_KEY))
        return [app for app in (self.get(i) for i in ids) if app is not None]

    def update(self, app_id: str, **changes: Any) -> App:
        if "origins" in changes:
            changes["origins"] = [normalize_origin(o) for o in changes["origins"]]
        app = self._existing(app_id)
        for name, value in changes.items():
            setattr(app, name, value)
        self._write(app)
        if "origins" in changes or "revoked" in changes:
            self.sync_origins()
        return app

    def rotate(self, app_id: str) -> str:
        """A new key for the app; the old one stops working at once."""
        app = self._existing(app_id)
        key = _new_key(app.id)
        self._write(app, key_hash=hash_token(key))
        return key

    def revoke(self, app_id: str) -> App:
        """The app's key stops working, and so do its players' tokens: every one of them is
        dropped here, once, so the seats they held answer 401 with no check of the app on
        every move."""
        app = self.update(app_id, revoked=True)
        for _, player_id in self.client.hscan_iter(directory_key(app_id)):
            pid = player_id.decode() if isinstance(player_id, bytes) else player_id
            self.client.hset(player_key(pid), "tokens", "[]")
            if self._wake is not None:
                self._wake(pid)
        return app

    def sync_origins(self) -> None:
        """Make `ct:origins` the origins of the live apps. Only what changed is added or
        removed, so a process reading the set meanwhile never finds it empty."""
        wanted = {o for app in self.list() if not app.revoked for o in _valid_origins(app.origins)}
        held = self.origins()
        if wanted - held:
            self.client.sadd(ORIGINS_KEY, *(wanted - held))
        if held - wanted:
            self.client.srem(ORIGINS_KEY, *(held - wanted))

    def origins(self) -> set[str]:
        """The web origins some live app lists (CORS, service/http/cors.py)."""
        return {m.decode() if isinstance(m, bytes) else m for m in self.client.smembers(ORIGINS_KEY)}

    def _existing(self, app_id: str) -> App:
        app = self.get(app_id)
        if app is None:
            raise errors.NotFound(f"no app with id {app_id!r}")
        return app

    def authenticate(self, key: str) -> App:
        """The live app a key belongs to, or 401."""
        found = _KEY.fullmatch(key)
        if found is not None:
            stored: list[Any] = self.client.hmget(app_key(found.group(1)), "app", "key")
            raw, digest = stored
            if raw and digest and hmac.compare_digest(digest.decode(), hash_token(key)):
                app = App(**json.loads(raw))
                if not app.revoked:
                    return app
        raise errors.InvalidToken("this app key is not valid (revoked, rotated or never issued)")

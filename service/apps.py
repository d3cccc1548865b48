"""Apps: the games and backends that integrate cardtable, each with its own secret key, quotas
and players (docs/integrating.md).

An operator makes an app with `cardtable apps create NAME` (service/apps_cli.py); the key is
shown once and only its SHA-256 is stored. A key reads `ctk_<app id>.<secret>`: the prefix
tells it from a seat token (base64url, never a dot) and from a player token (`ctp_`), and the
app id in it finds the app in one read, with no index of key hashes to keep.

An app is one hash, `ct:{app:<id>}`, in a Redis Cluster slot of its own; `ct:apps` lists the
ids for `cardtable apps list`.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from service import errors
from service.match import hash_token

KEY_PREFIX = "ctk_"
_KEY = re.compile(r"ctk_([0-9a-f]{12})\.[A-Za-z0-9_-]{32}")
APPS_KEY = "ct:apps"

# An app's quotas unless the operator sets others (`cardtable apps create --rate ...`).
DEFAULT_RATE = 200  # requests a second made with the app's key
DEFAULT_MATCHES = 1000  # live matches created with the key or by its players
DEFAULT_BOT_MATCHES = 100  # of those, live matches with no human seat


@dataclass
class App:
    id: str
    name: str
    created: float
    rate: int = DEFAULT_RATE
    matches: int = DEFAULT_MATCHES
    bot_matches: int = DEFAULT_BOT_MATCHES
    origins: list[str] = field(default_factory=list)  # web origins its browser clients run on
    revoked: bool = False

    def public(self) -> dict[str, Any]:
        return {
            "app": self.id,
            "name": self.name,
            "created": self.created,
            "quotas": {"rate": self.rate, "matches": self.matches, "bot_matches": self.bot_matches},
            "origins": self.origins,
            "revoked": self.revoked,
        }

    @property
    def owner(self) -> str:
        """Whose live matches count against the app's quotas (service/quotas.py)."""
        return f"app:{self.id}"


def app_key(app_id: str) -> str:
    return f"ct:{{app:{app_id}}}"


def is_app_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX)


def _new_key(app_id: str) -> str:
    return f"{KEY_PREFIX}{app_id}.{secrets.token_urlsafe(24)}"


class Apps:
    """The apps, on the match state's Redis."""

    def __init__(self, client: Any):
        self.client = client

    def create(self, name: str, **quotas: Any) -> tuple[App, str]:
        """A new app and its key (shown once: only its hash is kept)."""
        app = App(id=secrets.token_hex(6), name=name, created=round(time.time(), 3), **quotas)
        key = _new_key(app.id)
        self._write(app, key_hash=hash_token(key))
        self.client.sadd(APPS_KEY, app.id)
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
        app = self._existing(app_id)
        for name, value in changes.items():
            setattr(app, name, value)
        self._write(app)
        return app

    def rotate(self, app_id: str) -> str:
        """A new key for the app; the old one stops working at once."""
        app = self._existing(app_id)
        key = _new_key(app.id)
        self._write(app, key_hash=hash_token(key))
        return key

    def revoke(self, app_id: str) -> App:
        """The app's key stops working, and so do its players' tokens."""
        return self.update(app_id, revoked=True)

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

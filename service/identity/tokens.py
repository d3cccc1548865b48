"""Tokens: how a secret (a seat's token, an invitation's code, a player's token, an app's key) is
made and the only form in which it is stored."""

from __future__ import annotations

import hashlib
import secrets


def hash_token(token: str) -> str:
    """The only form in which a token (a seat's, an invitation's) is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    # 192 random bits; only the SHA-256 of it is ever stored.
    return secrets.token_urlsafe(24)

"""Who is calling: an app (its key), a player (a player token), or anyone else (a seat token or
nothing), told apart by the bearer credential's prefix (docs/integrating.md, "Credentials")."""

from __future__ import annotations

from dataclasses import dataclass

from service import errors
from service.identity.apps import App, Apps, is_app_key
from service.identity.players import Player, Players, is_player_token
from service.identity.quotas import owner_of_address


@dataclass(frozen=True)
class Caller:
    token: str | None
    address: str | None
    app: App | None = None  # an app key's app, or the app of a player token's player
    player: Player | None = None  # a player token's player

    @property
    def owner(self) -> str:
        """Whose quotas a match this caller creates counts against (service/identity/quotas.py)."""
        return self.app.owner if self.app is not None else owner_of_address(self.address)

    @property
    def is_app(self) -> bool:
        """Called with the app's own key (its backend), not by one of its players."""
        return self.app is not None and self.player is None

    def require_app(self) -> App:
        if self.app is None or self.player is not None:
            raise errors.InvalidToken("this call needs an app key: Authorization: Bearer ctk_...")
        return self.app

    def require_player(self) -> Player:
        if self.player is None:
            raise errors.InvalidToken("this call needs a player token: Authorization: Bearer ctp_...")
        return self.player


def identify(apps: Apps, players: Players, token: str | None, address: str | None) -> Caller:
    """The caller a bearer credential makes; 401 for an app key or player token that is not
    valid (a seat token is checked by the match it names)."""
    if token is not None and is_app_key(token):
        return Caller(token, address, app=apps.authenticate(token))
    if token is not None and is_player_token(token):
        player = players.authenticate(token)
        app = apps.get(player.app)
        if app is None or app.revoked:
            raise errors.InvalidToken("this player's app is revoked")
        return Caller(token, address, app=app, player=player)
    return Caller(token, address)

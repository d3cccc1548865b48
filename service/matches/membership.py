"""Seats bound to players, and whose quotas a new match counts against (docs/integrating.md).

A seat bound to a player keeps `player` (the player's id), `app` and `external` (the app's own
id of its user) in the record, and no token: the player's token acts in it. An app's key binds
the seats its creation names (`{"kind": "human", "player": "<external id>"}`); a player token
binds the first human seat of a match it creates, and the seat it joins. Which seats a creation
binds is decided here (`bindings`); the binding itself is the match's (`Match.new`, `Match.join`).
"""

from __future__ import annotations

from typing import Any

from service import errors
from service.config import Config
from service.identity.callers import Caller
from service.identity.players import Player, Players
from service.identity.quotas import Quotas


def bindings(
    seats_in: list[dict[str, Any]],
    caller: Caller | None,
    players: Players,
    chosen: dict[int, Player] | None = None,
) -> dict[int, Player]:
    """The seats of a new match its caller binds to players (`Match.new` binds them), and the
    `chosen` players' (a rematch's): an app's key the seats it names, a player token the first
    human seat bound to nobody else."""
    bound: dict[int, Player] = dict(chosen or {})
    for number, asked in enumerate(seats_in):
        external = asked.get("player")
        if external is None:
            continue
        if caller is None or not caller.is_app or caller.app is None:
            raise errors.Forbidden(
                "a seat is bound to a player only with the app's key (Authorization: Bearer ctk_...)"
            )
        player = players.find(caller.app.id, external)
        if player is None:
            raise errors.InvalidRequest(
                f"no player {external!r} in this app: PUT /v1/players/{{external_id}} first",
                {"seats": {str(number): {"player": ["no such player"]}}},
            )
        bound[number] = player
    if (
        caller is not None
        and caller.player is not None
        and caller.player.id not in {p.id for p in bound.values()}
    ):
        first = next((n for n, s in enumerate(seats_in) if s["kind"] == "human" and n not in bound), None)
        if first is None:
            raise errors.InvalidRequest(
                "a player token creates a match with a human seat for its player",
                {"seats": ["no human seat"]},
            )
        bound[first] = caller.player
    ids = [p.id for p in bound.values()]
    if len(set(ids)) != len(ids):
        raise errors.InvalidRequest("a player sits at most once in a match", {"seats": ["a player twice"]})
    return bound


def take_quotas(
    quotas: Quotas,
    config: Config,
    caller: Caller,
    match_id: str,
    record: dict[str, Any],
    live,
    waiting,
    quick: bool = False,
) -> list[str]:
    """Count a new match against its creator's limits (docs/api.md, "Limits"): an app's live
    matches and live bot-only matches, or an anonymous address's live matches of any kind, of
    them the bot-only ones, and its waiting ones (but the match quick play hosts, listed for
    anyone to join). The kinds taken, to give back should the commit fail."""
    owner = caller.owner
    bots_only = all(s["kind"] == "bot" for s in record["seats"])
    if caller.app is not None:
        app = caller.app
        wanted = [("matches", app.matches, live, f"the app {app.id} may hold {app.matches} live matches")]
        if bots_only:
            limit = app.bot_matches
            wanted.append(
                (
                    "bot_matches",
                    limit,
                    live,
                    f"the app {app.id} may hold {limit} live matches with no human seat",
                )
            )
    else:
        wanted = _anonymous(config, record, live, waiting, bots_only, quick)
    taken: list[str] = []
    try:
        for kind, limit, still, message in wanted:
            quotas.take(owner, kind, match_id, limit, still, message)
            taken.append(kind)
    except errors.QuotaExceeded:
        for kind in taken:
            quotas.release(owner, kind, match_id)
        raise
    return taken


def _anonymous(config: Config, record: dict[str, Any], live, waiting, bots_only: bool, quick: bool) -> list:
    """The quotas an address without an app key or player token counts a new match against."""
    # Every match is kept for days (IDLE_TTL) whoever plays it: without this count one address
    # could fill the store with all-human matches it never plays.
    limit = config.ANONYMOUS_LIVE_MATCHES
    message = (
        f"an address without an app key may hold {limit} live matches"
        " (CARDTABLE_ANONYMOUS_LIVE_MATCHES); finish or leave one first"
    )
    wanted = [("matches", limit, live, message)]
    if bots_only:
        limit = config.ANONYMOUS_BOT_MATCHES
        message = (
            f"an address without an app key may hold {limit} live matches with no human seat"
            " (CARDTABLE_ANONYMOUS_BOT_MATCHES); wait for one to end"
        )
        wanted.append(("bot_matches", limit, live, message))
    if record["status"] == "waiting" and not quick:
        limit = config.ANONYMOUS_WAITING_MATCHES
        message = (
            f"an address without an app key may hold {limit} waiting matches"
            " (CARDTABLE_ANONYMOUS_WAITING_MATCHES); start or leave one first"
        )
        wanted.append(("waiting_matches", limit, waiting, message))
    return wanted

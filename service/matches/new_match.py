"""What a new match is made of before it is a `Match` (service/matches/match.py, `Match.new`):
its id, its options as stored, its seats (those bound to a player, and the tokens of the others)
and its fair-deal fields; and a seat bound to a player, as creation and a join bind one."""

from __future__ import annotations

import re
import secrets
from typing import Any

from engines.base import Game
from service.identity.players import Player
from service.identity.tokens import hash_token, new_token
from service.matches import fair_seeds
from service.matches.options import split_options

# A match id: 16 lowercase hex digits.
MATCH_ID_PATTERN = "[0-9a-f]{16}"
_MATCH_ID = re.compile(MATCH_ID_PATTERN)


def match_options(game: Game, options: dict[str, Any], seats: int) -> dict[str, Any]:
    """A match's options as stored: validated, defaults filled in (quick play compares these)."""
    # `hints`, `rated`, `turn_seconds` and `on_timeout` are the service's options
    # (service/matches/options.py); the engine validates the rest.
    own, flags = split_options(game, options)
    return {**game.validate_options(own, seats), **flags}


def valid_id(match_id: str) -> bool:
    return _MATCH_ID.fullmatch(match_id) is not None


def new_id() -> str:
    return secrets.token_hex(8)


def seeding(seats: int, seed: int | None, deck: list[str] | None) -> dict[str, Any]:
    """A new match's fair-deal fields (docs/api.md, "Fair deals"): its server seed, committed to
    by its hash, and its deck seed and deck, the creator's own if it chose them."""
    server_seed, server_seed_hash = fair_seeds.new_server_seed()
    return {
        # Without a seed of the creator's, the deck seed is chained from the seeds when the
        # match starts (`Match.start`); until then it is the chain with no client seed, which
        # is what an aborted match (its seats left and took their seeds along) publishes.
        "seed": seed if seed is not None else fair_seeds.chained_seed(server_seed, [None] * seats),
        "chained": seed is None,
        "server_seed": server_seed,
        "server_seed_hash": server_seed_hash,
        "seeded_by_client": seed is not None or deck is not None,
        "deck": deck,
    }


def new_seats(
    seats_in: list[dict[str, Any]], players: dict[int, Player]
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """A new match's seats as stored, those in `players` bound to them, and the tokens of the
    other human ones."""
    tokens: dict[int, str] = {}
    seats = []
    humans = 0
    for i, s in enumerate(seats_in):
        entry: dict[str, Any] = {"seat": i, "kind": s["kind"], "name": s.get("name")}
        if s.get("reserved"):
            # A rematch's seat held for its person (service/matches/rematch.py); create's body has none.
            entry["reserved"] = s["reserved"]
        if s["kind"] == "human":
            humans += 1
            if i not in players:
                tokens[i] = new_token()
                entry["token"] = hash_token(tokens[i])
            entry["joined"] = humans
            entry["name"] = s.get("name") or f"Player {i + 1}"
        elif s["kind"] == "bot":
            entry["level"] = s.get("level") or "medium"
            entry["name"] = s.get("name") or f"{entry['level'].capitalize()} bot"
        if i in players:
            bind_seat(entry, players[i])
        seats.append(entry)
    return seats, tokens


def bind_seat(seat: dict[str, Any], player: Player) -> None:
    """The seat is the player's: its token acts in it (service/matches/membership.py)."""
    seat.update(kind="human", player=player.id, app=player.app, external=player.external, name=player.name)
    seat.pop("token", None)

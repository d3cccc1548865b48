"""Rated matches: who may sit in one, and what its end does to its players' ratings
(docs/integrating.md, "Ratings"; the model is service/ratings/model.py, the boards
service/ratings/leaderboards.py).

A match with the option `rated` seats players of one app and no bots. The commit that finishes
it reads each player's rating in the game, rates the table (`ratings.rate` on the engine's
final standings), puts every seat's rating before and after into the `match_over` event, and
writes a `ratings` effect to the match's outbox (service/matches/outbox.py). The effect is applied to
the players and the app's leaderboard right after the commit, or by the relay if the process
died first; applying it twice changes nothing (a player's rating remembers the match that
last moved it).
"""

from __future__ import annotations

import json
from typing import Any

from service import errors
from service.identity import tombstones
from service.identity.players import Player, player_key, rating_field
from service.matches.match import Match
from service.ratings import model as ratings


def check_created(record: dict[str, Any]) -> None:
    """A rated match has no bot and no human seat of no player; its players are of one app."""
    if not record["options"].get("rated"):
        return
    seats = record["seats"]
    if any(s["kind"] == "bot" for s in seats):
        raise errors.InvalidRequest("a rated match has no bots", {"options": {"rated": ["not with bots"]}})
    humans = [s for s in seats if s["kind"] == "human"]
    if any("player" not in s for s in humans) or len({s["app"] for s in humans}) > 1:
        raise errors.InvalidRequest(
            "a rated match seats players of one app: bind every human seat to a player",
            {"options": {"rated": ["every human seat a player of one app"]}},
        )


def check_joiner(record: dict[str, Any], player: Player | None) -> None:
    """Only a player of the match's app joins a rated match."""
    if not record["options"].get("rated"):
        return
    apps = {s["app"] for s in record["seats"] if "app" in s}
    if player is None or (apps and player.app not in apps):
        raise errors.Forbidden("a rated match takes players of its app only: join with a player token")


def settle(match: Match, events: list[dict[str, Any]], client: Any) -> dict[str, Any] | None:
    """When this change finishes a rated match: its players' ratings before and after, into its
    `match_over` event, and the effect that stores them (None otherwise)."""
    record = match.record
    over = next((e for e in events if e["type"] == "match_over"), None)
    if over is None or not record["options"].get("rated") or match.status() != "finished":
        return None
    seats = {s["seat"]: s for s in record["seats"] if "player" in s}
    if not seats:
        return None  # every player of it was erased: nobody's rating to move
    field = rating_field(record["game"])
    before: dict[int, tuple[float, float] | None] = {}
    for seat, s in seats.items():
        raw = client.hget(player_key(s["player"]), field)
        before[seat] = (json.loads(raw)["mu"], json.loads(raw)["sigma"]) if raw else None
    standings = match.game.standings(record["state"])
    moved = ratings.rate(match.game, len(record["seats"]), record["options"], standings, before)
    over["ratings"] = {str(seat): moved[seat] for seat in seats}
    return {
        "kind": "ratings",
        "v": match.next_version,
        "match": match.id,
        "game": record["game"],
        "app": next(iter(seats.values()))["app"],
        "players": {
            s["player"]: {**moved[seat]["after"], "external": s["external"], "name": s["name"]}
            for seat, s in seats.items()
        },
    }


# KEYS[1] a player's hash, KEYS[2] its tombstone (service/identity/tombstones.py). ARGV: the field and
# the rating. Written only while the player is there and not being erased, so a rating handed
# on after an erasure does not make the erased player's hash again.
STORE = """
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('HEXISTS', KEYS[1], 'player') == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


def apply(effect: dict[str, Any], client: Any, leaderboards: Any) -> None:
    """Store a rated match's new ratings with its players and on the app's leaderboard; an
    erased player's is dropped (service/identity/tombstones.py)."""
    field = rating_field(effect["game"])
    store = client.register_script(STORE)
    for player_id, new in effect["players"].items():
        key = player_key(player_id)
        if tombstones.erased(client, player_id) or not client.hexists(key, "player"):
            continue
        raw = client.hget(key, field)
        old = json.loads(raw) if raw else {}
        if old.get("match") != effect["match"]:
            stored = {k: new[k] for k in ("mu", "sigma", "rating")}
            stored.update(match=effect["match"], matches=old.get("matches", 0) + 1)
            store(keys=[key, tombstones.player_tombstone(player_id)], args=[field, json.dumps(stored)])
        display = {"player": new["external"], "name": new["name"]}
        leaderboards.record(effect["app"], effect["game"], player_id, display, new["rating"])
        if tombstones.erased(client, player_id):
            # Erased meanwhile, perhaps after the erasure took it off the boards: the tombstone
            # is set before that, so one of the two removes what was just recorded.
            leaderboards.remove(effect["app"], effect["game"], player_id)


def player_ratings(client: Any, player_id: str) -> dict[str, Any]:
    """A player's rating in each game it has played rated matches of."""
    out = {}
    for name, raw in client.hgetall(player_key(player_id)).items():
        name = name.decode() if isinstance(name, bytes) else name
        if name.startswith("rating:"):
            stored = json.loads(raw)
            out[name.removeprefix("rating:")] = {k: stored[k] for k in ("rating", "mu", "sigma", "matches")}
    return out

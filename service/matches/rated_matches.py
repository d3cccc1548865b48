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

from typing import Any

from service import errors
from service.identity.players import Player
from service.matches.match import Match
from service.ratings import model as ratings
from service.ratings.stored import PlayerRatings


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


def settle(match: Match, events: list[dict[str, Any]], stored: PlayerRatings) -> dict[str, Any] | None:
    """When this change finishes a rated match: its players' ratings before and after, into its
    `match_over` event, and the effect that stores them (None otherwise)."""
    record = match.record
    over = next((e for e in events if e["type"] == "match_over"), None)
    if over is None or not record["options"].get("rated") or match.status() != "finished":
        return None
    seats = {s["seat"]: s for s in record["seats"] if "player" in s}
    if not seats:
        return None  # every player of it was erased: nobody's rating to move
    before = {seat: stored.before(s["player"], record["game"]) for seat, s in seats.items()}
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


def apply(effect: dict[str, Any], stored: PlayerRatings, leaderboards: Any) -> None:
    """Store a rated match's new ratings with its players and on the app's leaderboard; an
    erased player's is dropped (service/identity/tombstones.py)."""
    for player_id, new in effect["players"].items():
        old = stored.current(player_id, effect["game"])
        if old is None:
            continue  # gone, or being erased
        if old.get("match") != effect["match"]:
            rating = {k: new[k] for k in ("mu", "sigma", "rating")}
            rating.update(match=effect["match"], matches=old.get("matches", 0) + 1)
            stored.store(player_id, effect["game"], rating)
        display = {"player": new["external"], "name": new["name"]}
        leaderboards.record(effect["app"], effect["game"], player_id, display, new["rating"])
        if stored.erased(player_id):
            # Erased meanwhile, perhaps after the erasure took it off the boards: the tombstone
            # is set before that, so one of the two removes what was just recorded.
            leaderboards.remove(effect["app"], effect["game"], player_id)

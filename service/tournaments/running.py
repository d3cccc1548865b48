"""Tournaments an app runs (docs/api.md, "Tournaments"): created and started with its key,
joined by its players with their tokens, each round's matches made by the service
(service/tournaments/rounds.py), the standings read by the app and its players.

A tournament's record::

    {"id", "app", "game", "format": "swiss" | "knockout", "options", "match_options", "size",
     "rounds", "max_players", "round_seconds", "status": "registering" | "running" | "finished",
     "created", "started", "finished",
     "entrants": [{"player", "external", "name", "order", "rating"}],
     "played": [{"round", "tables": [{"match", "seats": [player ids]}], "byes", "open"}],
     "standings": [...]  # once finished}

`rating` is the player's shown rating in the game when the tournament starts (mu - 3 sigma, 0
before its first rated match): what Swiss breaks ties with and knockout seeds by.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from engines.registry import GAMES
from service import errors
from service.identity.apps import App
from service.identity.players import Player
from service.identity.quotas import Quotas
from service.identity.tombstones import digest, erased_key
from service.matches.new_match import match_options
from service.ratings.stored import PlayerRatings
from service.tournaments import pairing
from service.tournaments.rounds import (
    Rounds,
    champions,
    new_round,
    played,
    table_size,
    turn_seconds,
)
from service.tournaments.store import TournamentStore, Unchanged

MAX_PLAYERS = 1024


def new_tournament_id() -> str:
    """`t` and 15 hex digits: never a match's id (16 hex digits), whose notices share the sinks."""
    return "t" + secrets.token_hex(8)[:15]


class Tournaments:
    def __init__(self, store: TournamentStore, rounds: Rounds, quotas: Quotas, ratings: PlayerRatings):
        self.store = store
        self.rounds = rounds
        self.quotas = quotas
        self.ratings = ratings

    # --- the app's calls ------------------------------------------------------------------------
    def create(self, app: App, body: dict[str, Any]) -> dict[str, Any]:
        """A new tournament, registering (422 for options its game refuses; 429 past the app's
        quota of live tournaments)."""
        game_id = body["game"]
        if game_id not in GAMES:
            raise errors.InvalidRequest(f"no game {game_id!r}", {"game": ["unknown game"]})
        size = table_size(game_id)
        if body["max_players"] < size:
            raise errors.InvalidRequest(
                f"a tournament of {game_id} needs room for {size} players",
                {"max_players": [f"at least {size}"]},
            )
        options = dict(body.get("options") or {})
        asked = {**options, "on_timeout": "resign"}
        if asked.get("turn_seconds") is None:
            # Every tournament match has a clock: without one an absent player stalls its round.
            asked["turn_seconds"] = turn_seconds(body["round_seconds"])
        tournament_id = new_tournament_id()
        record = {
            "id": tournament_id,
            "app": app.id,
            "game": game_id,
            "format": body["format"],
            "options": options,
            "match_options": match_options(GAMES[game_id], asked, size),
            "size": size,
            "rounds": body["rounds"] if body["format"] == "swiss" else None,
            "max_players": body["max_players"],
            "round_seconds": body["round_seconds"],
            "status": "registering",
            "created": round(time.time(), 3),
            "entrants": [],
            "played": [],
        }
        limit = app.tournaments
        message = f"the app {app.id} may hold {limit} tournaments registering or running"
        self.quotas.take(app.owner, "tournaments", tournament_id, limit, self._live, message)
        try:
            self.store.add(record)
        except BaseException:
            self.quotas.release(app.owner, "tournaments", tournament_id)
            raise
        return self.view(record, {})

    def start(self, app: App, tournament_id: str) -> dict[str, Any]:
        """Round 1 paired, its matches made by a worker within moments; a tournament already
        running or finished is answered as it is (a start sent twice starts it once). 409 with
        fewer players than a table."""
        record = self._own(app.id, tournament_id)
        if record["status"] == "registering":
            ratings = {e["player"]: self._rating(e["player"], record["game"]) for e in record["entrants"]}
            started, record = self.store.update(tournament_id, lambda r: self._started(r, ratings))
            if started:
                self.rounds.later(tournament_id, 1)
        return self.view(record, self.store.results(tournament_id))

    def _started(self, record: dict[str, Any], ratings: dict[str, float]) -> bool:
        if record["status"] != "registering":
            raise Unchanged()
        entrants, size = record["entrants"], record["size"]
        if len(entrants) < size:
            raise errors.Conflict(f"a tournament of {record['game']} starts with {size} players or more")
        for e in entrants:
            e["rating"] = ratings.get(e["player"], 0.0)
        try:
            tables, byes = (
                pairing.swiss_pairing(entrants, [], size)
                if record["format"] == "swiss"
                else pairing.knockout_pairing(entrants, [], size) or ([], [])
            )
        except ValueError as e:
            raise errors.Conflict(str(e)) from None
        if record["format"] == "knockout":
            record["rounds"] = pairing.knockout_rounds(len(entrants), size)
        record.update(status="running", started=round(time.time(), 3))
        self.store.opening(record["id"], 1, time.time() + self.rounds.grace)
        record["played"] = [new_round(1, tables, byes)]
        return True

    # --- the players' calls ---------------------------------------------------------------------
    def join(self, player: Player, tournament_id: str) -> dict[str, Any]:
        """The player is in (joining again changes nothing); 409 once it started or is full. Its
        rating now stands in for the one the start reads."""
        loaded = self.store.load(tournament_id)
        rating = self._rating(player.id, loaded[0]["game"]) if loaded is not None else 0.0

        def change(record: dict[str, Any]) -> None:
            if record["app"] != player.app:
                raise errors.NotFound(f"no tournament with id {tournament_id!r}")
            if any(e["player"] == player.id for e in record["entrants"]):
                raise Unchanged()
            if record["status"] != "registering":
                raise errors.Conflict("this tournament has started: it takes no more players")
            if len(record["entrants"]) >= record["max_players"]:
                raise errors.Conflict(f"this tournament is full ({record['max_players']} players)")
            record["entrants"].append(
                {
                    "player": player.id,
                    "external": player.external,
                    "name": player.name,
                    "order": len(record["entrants"]),
                    "rating": rating,
                }
            )

        _, record = self.store.update(tournament_id, change)
        return self.view(record, self.store.results(tournament_id), player)

    # --- reading ------------------------------------------------------------------------------
    def get(self, app: App | None, player: Player | None, tournament_id: str) -> dict[str, Any]:
        """The tournament for its app's key or one of its app's players (404 to anyone else)."""
        app_id = app.id if app is not None else player.app if player is not None else None
        record = self._own(app_id, tournament_id)
        return self.view(record, self.store.results(tournament_id), player)

    def listed(self, app_id: str, limit: int) -> list[dict[str, Any]]:
        """The app's newest tournaments, newest first, without their rounds."""
        out = []
        for record in self.store.listed(app_id, limit):
            shown = self.view(
                record, self.store.results(record["id"]) if record["status"] == "running" else {}
            )
            out.append({k: v for k, v in shown.items() if k != "rounds"})
        return out

    def view(
        self, record: dict[str, Any], results: dict[str, Any], player: Player | None = None
    ) -> dict[str, Any]:
        """The tournament as GET shows it: its standings, every round's matches by the players'
        external ids, and for a player its match in the current round."""
        by_id = self._shown_entrants(record)
        rounds = played(record, results)
        rows = record.get("standings") or pairing.standings(record["entrants"], rounds, record["format"])
        shown = {
            "id": record["id"],
            "game": record["game"],
            "format": record["format"],
            "options": record["options"],
            "status": record["status"],
            "round": len(record["played"]),
            "total_rounds": record["rounds"],
            "max_players": record["max_players"],
            "round_seconds": record["round_seconds"],
            "turn_seconds": record["match_options"].get("turn_seconds"),
            "created": record["created"],
            "players": [_row(by_id[r["player"]], r) for r in rows],
            "rounds": [_round(r, results, by_id) for r in record["played"]],
            "winners": None,
        }
        if record["status"] == "finished":
            shown["winners"] = [by_id[r["player"]]["external"] for r in rows[: champions(record)]]
        if player is not None:
            shown["you"] = _yours(record, results, player.id)
        return shown

    # --- helpers ------------------------------------------------------------------------------
    def _own(self, app_id: str | None, tournament_id: str) -> dict[str, Any]:
        """The tournament's record, if it is the app's (404 otherwise, as for none at all)."""
        loaded = self.store.load(tournament_id) if tournament_id.startswith("t") else None
        if loaded is None or loaded[0]["app"] != app_id:
            raise errors.NotFound(f"no tournament with id {tournament_id!r}")
        return loaded[0]

    def _shown_entrants(self, record: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The entrants by player id as others may see them: an erased player's external id and
        name are gone (null), as from every match it sat in (docs/api.md, "Erasure")."""
        entrants = record["entrants"]
        if not entrants:
            return {}
        scores = self.store.client.zmscore(
            erased_key(record["app"]), [digest(e["external"]) for e in entrants]
        )
        return {
            e["player"]: e if score is None else {**e, "external": None, "name": None}
            for e, score in zip(entrants, scores, strict=True)
        }

    def _live(self, tournament_id: str) -> bool | None:
        loaded = self.store.load(tournament_id)
        return None if loaded is None else loaded[0]["status"] != "finished"

    def _rating(self, player_id: str, game: str) -> float:
        found = self.ratings.before(player_id, game)
        return 0.0 if found is None else round(found[0] - 3 * found[1], 3)


def _row(entrant: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    return {
        "player": entrant["external"],
        "name": entrant["name"],
        "points": row["points"],
        "rank": row["rank"],
        "buchholz": row["buchholz"],
        "rating": entrant.get("rating"),
    }


def _round(r: dict[str, Any], results: dict[str, Any], by_id: dict[str, Any]) -> dict[str, Any]:
    matches = []
    for t in r["tables"]:
        result = results.get(t["match"])
        matches.append(
            {
                "id": t["match"],
                "players": [by_id[p]["external"] for p in t["seats"]],
                "status": "active" if result is None else result["status"],
                "winners": []
                if result is None
                else [by_id[p]["external"] for p in result["winners"] if p in by_id],
            }
        )
    return {"round": r["round"], "matches": matches, "byes": [by_id[p]["external"] for p in r["byes"]]}


def _yours(record: dict[str, Any], results: dict[str, Any], player_id: str) -> dict[str, Any] | None:
    """The player's place in the current round: its match and seat (null when it has a bye, is
    out of a knockout, or the tournament has not started)."""
    if not record["played"]:
        return None
    current = record["played"][-1]
    for t in current["tables"]:
        if player_id in t["seats"]:
            return {
                "round": current["round"],
                "match": t["match"],
                "seat": t["seats"].index(player_id),
                "bye": False,
                "over": t["match"] in results,
            }
    if player_id in current["byes"]:
        return {"round": current["round"], "match": None, "seat": None, "bye": True, "over": True}
    return None

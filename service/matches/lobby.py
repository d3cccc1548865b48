"""The lobby: listed waiting matches (GET /v1/matches) and quick play (POST /v1/matches/quick).

Only matches whose host created them with `"listed": true` appear. The index of them is
`service/matches/lobby_index.py`; this module reads it, drops what has gone stale, and shows only the
public facts of each match (docs/api.md, "Lobby and quick play").
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from engines.registry import GAMES
from service import errors
from service.identity.callers import Caller
from service.matches import lobby_rated
from service.matches.lobby_index import parse_member, table_hash
from service.matches.match import Match
from service.matches.new_match import match_options
from service.matches.repository import MatchRepository
from service.matches.seats import Seats

# Index entries read per round trip while filling a page or looking for a seat.
_BATCH = 20
# Stale entries a single request drops at most before it answers with what it found; each one is
# dropped for good, so a backlog left by many started matches clears over a few requests.
_MAX_SCANNED = 200
# An entry whose match is not stored this long after its creation time never will be (the
# creating commit failed) or has expired: only then is it dropped.
_CREATE_GRACE_MS = 60_000


# A cursor is base64url: the form the service gives (no padding), padding allowed.
CURSOR_PATTERN = "^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$"
_CURSOR = re.compile(CURSOR_PATTERN)


def encode_cursor(entry: str) -> str:
    return base64.urlsafe_b64encode(entry.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    """The place in the index's order a cursor names: the entry its page ended on.

    Any cursor of the form is a place, even one the service did not give: the index is read
    from a place on, whatever it holds (ZRANGE BYLEX takes any string), so what such a cursor
    gets is a page of listed matches like any other. The contract's pattern is then the whole
    rule, and nothing it admits is refused (docs/api.md, "Lobby and quick play")."""
    if not _CURSOR.fullmatch(cursor):
        raise errors.InvalidRequest(
            "cursor is not one this service gave; start again without it",
            {"cursor": ["not a cursor from next_cursor"]},
        )
    # Every byte stands for one character: a place need not be text.
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("latin-1")


def public_seats(record: dict[str, Any]) -> list[dict[str, Any]]:
    seats = []
    for s in record["seats"]:
        entry = {"seat": s["seat"], "kind": s["kind"], "name": s.get("name") if s["kind"] != "open" else None}
        if s["kind"] == "bot":
            entry["level"] = s["level"]
        seats.append(entry)
    return seats


class Lobby:
    def __init__(self, repo: MatchRepository, seats: Seats):
        self.repo, self.seats = repo, seats
        self.index = seats.lobby

    def _listed(self, entry: str) -> dict[str, Any] | None:
        """The match of an index entry if it is still listed and waiting; else drop the entry."""
        parsed = parse_member(entry)
        match = self.repo.find(parsed[0]) if parsed else None
        if match is None:
            self._drop_missing(entry)
            return None
        if not match.record.get("listed") or match.status() != "waiting":
            self.index.drop(entry)
            return None
        return match.record

    def _drop_missing(self, entry: str) -> None:
        """Drop the entry of a match that is not there, unless it may still be on its way: an
        entry is added just before the commit that creates its match."""
        if time.time() * 1000 - int(entry.split(":")[0]) > _CREATE_GRACE_MS:
            self.index.drop(entry)

    def list_matches(self, game: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
        """Listed waiting matches, newest first, and the cursor of the next page (or null)."""
        after = decode_cursor(cursor) if cursor else None
        found: list[dict[str, Any]] = []
        scanned = 0
        while len(found) < limit and scanned < _MAX_SCANNED:
            want = min(_BATCH, limit - len(found))
            entries = self.index.newest(game, after, want)
            for entry in entries:
                after = entry
                record = self._listed(entry)
                if record is not None:
                    found.append(self._public(entry, record))
            scanned += len(entries)
            if len(entries) < want:
                return {"matches": found, "next_cursor": None}  # the index is exhausted
        return {"matches": found, "next_cursor": encode_cursor(after) if after else None}

    @staticmethod
    def _public(entry: str, record: dict[str, Any]) -> dict[str, Any]:
        seats = public_seats(record)
        return {
            "id": entry.split(":")[1],
            "game": record["game"],
            "options": record["options"],
            "players": len(seats),
            "open": sum(1 for s in seats if s["kind"] == "open"),
            "seats": seats,
            "created": record["created"],
        }

    def quick(
        self,
        game_id: str,
        options: dict[str, Any],
        name: str | None,
        players: int | None,
        client_seed: str | None = None,
        caller: Caller | None = None,
    ) -> dict[str, Any]:
        """Join the oldest listed waiting match of this table with an open seat, else host a new
        one; rated, a player joins the one of nearest rating within its band (_quick_rated)."""
        game = GAMES[game_id]
        seats = players or game.min_seats
        options = match_options(game, options, seats)
        table = table_hash(options, seats)
        if options.get("rated") and caller is not None and caller.player is not None:
            teams = game.teams(seats, options)
            joined = self._quick_rated(game_id, table, teams, name, client_seed, caller)
            if joined is not None:
                return joined
            return self._host(game_id, options, seats, name, client_seed, caller)
        for entries in self._batches(game_id, table):
            if caller is not None and caller.player is not None:
                entries = self._nearest_first(entries, game_id, caller.player.id)
            for entry in entries:
                joined = self._try_join(entry, name, client_seed, caller)
                if joined is not None:
                    return joined
        return self._host(game_id, options, seats, name, client_seed, caller)

    def _host(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: int,
        name: str | None,
        client_seed: str | None,
        caller: Caller | None,
    ) -> dict[str, Any]:
        """Host a new listed match of the table, the caller in seat 0, every other seat open."""
        body = {
            "game": game_id,
            "options": options,
            "seats": [{"kind": "human", **({"name": name} if name else {})}]
            + [{"kind": "open"}] * (seats - 1),
            "listed": True,
            "client_seed": client_seed,
        }
        # The match quick play hosts counts against its caller's live matches; an anonymous
        # caller's is not counted against its waiting matches: it is listed, for anyone to join
        # (docs/api.md, "Limits").
        created = self.seats.create(body, caller, quick=True)
        host = {k: v for k, v in created["seats"][0].items() if k in ("token", "player")}
        return {"id": created["id"], "seat": 0, **host, "version": 0, "created": True}

    def _quick_rated(
        self,
        game_id: str,
        table: str,
        teams: list[list[int]] | None,
        name: str | None,
        client_seed: str | None,
        caller: Caller,
    ) -> dict[str, Any] | None:
        """Join the listed waiting rated match of the table, of the player's app, whose players'
        mean mu is nearest the player's among those within the band their wait allows
        (service/matches/lobby_rated.py); None when none takes the player. Reads the table's
        oldest entries only, as many as unrated quick play at most."""
        assert caller.player is not None
        player = caller.player
        ratings = lobby_rated.Ratings(self.repo.ratings.before, game_id)
        mu, sigma = ratings.of(player.id)
        scale = self.seats.config.QUICK_BAND_SCALE
        now = time.time()
        near: list[tuple[float, str]] = []
        for entries in self._batches(game_id, table):
            for entry in entries:
                record = self._listed(entry)
                apart = None if record is None else lobby_rated.distance(record, player.app, mu, ratings)
                waited = now - int(entry.split(":")[0]) / 1000
                if apart is not None and apart <= lobby_rated.band(sigma, waited, scale):
                    near.append((apart, entry))
        choose = lobby_rated.seat_chooser(teams, player.id, ratings) if teams else None
        for _, entry in sorted(near, key=lambda n: n[0]):  # stable: the oldest first among equals
            joined = self._try_join(entry, name, client_seed, caller, choose)
            if joined is not None:
                return joined
        return None

    def _batches(self, game_id: str, table: str) -> Iterator[list[str]]:
        """The table's listed entries, oldest first, a batch at a time: _MAX_SCANNED at most."""
        after = None
        for _ in range(_MAX_SCANNED // _BATCH):
            entries = self.index.oldest(game_id, table, after, _BATCH)
            yield entries
            if len(entries) < _BATCH:
                return
            after = entries[-1]

    def _nearest_first(self, entries: list[str], game_id: str, player_id: str) -> list[str]:
        """A batch of the lobby's matches, those whose seated players' ratings in the game are
        nearest the player's first (oldest first among equals); unrated players count as new."""
        players = self.repo.players

        def rating(pid: str) -> float:
            return players.rating(pid, game_id)

        mine = rating(player_id)

        def distance(entry: str) -> float:
            match = self.repo.find(entry.split(":")[1])
            seated = [s["player"] for s in match.record["seats"] if "player" in s] if match else []
            if not seated:
                return float("inf")  # nobody rated to compare with: after the ones that are
            return abs(sum(rating(p) for p in seated) / len(seated) - mine)

        return sorted(entries, key=distance)

    def _try_join(
        self,
        entry: str,
        name: str | None,
        client_seed: str | None,
        caller: Caller | None,
        choose: Callable[[Match], int] | None = None,
    ) -> dict[str, Any] | None:
        match_id = entry.split(":")[1]
        try:
            joined = self.seats.join(match_id, name, client_seed, caller, choose)
        except errors.NotFound:
            self._drop_missing(entry)
            return None
        except errors.MatchNotActive:
            # Its last seat was taken (or its host left): the next match then.
            self.index.drop(entry)
            return None
        except errors.Conflict:
            return None  # the player sits there already: the next match then
        except errors.VersionConflict:
            return None  # too many joiners at once here: try the next match
        return {"id": match_id, **joined, "created": False}

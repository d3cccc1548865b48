"""Rated quick play's choices (docs/api.md, "Rated quick play"): which listed waiting rated
match a player joins, and which seat of it when the game has partnerships (Spades).

A player's rating here is openskill's mean, mu, and its deviation sigma (service/ratings/model.py;
a player not yet rated counts at openskill's start, 25 and 25/3), not the shown rating (mu - 3
sigma): the shown one sinks with uncertainty, so a new player would look like the weakest.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from service.matches.match import Match
from service.ratings.model import MODEL

# The band around the joiner's mu, in its sigmas, doubles every step of a match's wait and is
# unbounded once the match has waited OPEN_AFTER: nobody waits forever for a close opponent.
BAND_STEP_SECONDS = 15.0
BAND_OPEN_SECONDS = 60.0

MuSigma = tuple[float, float]


def band(sigma: float, waited: float, scale: float = 1.0) -> float:
    """How far a match's players' mean mu may be from the joiner's: its sigma while the match has
    waited under 15 s, twice that under 30 s, four times under 45 s, eight times under 60 s, then
    without bound. `scale` (CARDTABLE_QUICK_BAND_SCALE) multiplies those seconds."""
    if waited >= BAND_OPEN_SECONDS * scale:
        return math.inf
    return float(sigma * 2.0 ** (max(waited, 0.0) // (BAND_STEP_SECONDS * scale)))


class Ratings:
    """The (mu, sigma) of players in one game, each read once a request."""

    def __init__(self, read: Callable[[str, str], MuSigma | None], game: str):
        self._read, self._game = read, game
        self._known: dict[str, MuSigma] = {}

    def of(self, player_id: str) -> MuSigma:
        if player_id not in self._known:
            start = (MODEL.mu, MODEL.sigma)
            self._known[player_id] = self._read(player_id, self._game) or start
        return self._known[player_id]

    def mean(self, player_ids: list[str]) -> float:
        return sum(self.of(p)[0] for p in player_ids) / len(player_ids)


def distance(record: dict[str, Any], app: str, mine: float, ratings: Ratings) -> float | None:
    """How far the mean mu of a match's seated players is from the joiner's; None when nobody
    sits there yet or they are of another app (players of one app only meet each other)."""
    seated = [s for s in record["seats"] if "player" in s]
    if not seated or any(s.get("app") != app for s in seated):
        return None
    return abs(ratings.mean([s["player"] for s in seated]) - mine)


def seat_chooser(teams: list[list[int]], player_id: str, ratings: Ratings) -> Callable[[Match], int]:
    """The open seat a joiner takes at a table of partnerships, from the match as its commit
    reads it: in the partnership with fewest players seated (so each has someone before any
    pairing is decided), and among those the seat whose partnerships' mean mus end closest,
    counting a seat still open at the mean of the players seated and the joiner."""

    def choose(match: Match) -> int:
        seats = match.record["seats"]
        taken = {s["seat"]: s["player"] for s in seats if "player" in s}
        free = [s["seat"] for s in seats if s["kind"] == "open" and not s.get("reserved")]
        team_of = {seat: i for i, team in enumerate(teams) for seat in team}

        def seated_in(seat: int) -> int:
            return sum(1 for s in teams[team_of[seat]] if s in taken)

        fewest = min(seated_in(s) for s in free)
        choices = [s for s in free if seated_in(s) == fewest]
        return int(min(choices, key=lambda seat: _imbalance(teams, {**taken, seat: player_id}, ratings)))

    return choose


def _imbalance(teams: list[list[int]], taken: dict[int, str], ratings: Ratings) -> float:
    """The spread of the partnerships' mean mus, an open seat counting at the seated mean."""
    filler = ratings.mean(list(taken.values()))
    means = [
        sum(ratings.of(taken[s])[0] if s in taken else filler for s in team) / len(team) for team in teams
    ]
    return max(means) - min(means)

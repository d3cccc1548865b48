"""Ratings of rated matches (issue 30; docs/architecture.md, "Ratings").

When a rated match ends, its players' ratings in that game move by openskill's Weng-Lin model
(PlackettLuce, with openskill's defaults) from the match's final standings
(`Game.standings`, engines/base.py): Spades' partnerships rate as teams of two
(`Game.teams`), every other game as a free-for-all of one-seat teams, and equal places are
passed as ties. A player's rating is (mu, sigma); what players are shown, and what the
leaderboards sort by, is openskill's `ordinal()` (mu - 3 sigma: 0 for a new player), rounded.

This module only computes: the caller reads each player's (mu, sigma) before and stores the
answer (service/ratings/leaderboards.py keeps the boards).
"""

from __future__ import annotations

import math
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from engines.base import Game

# openskill's defaults: mu 25, sigma 25/3, tau (the uncertainty added before each match) 25/300.
MODEL = PlackettLuce()
# Decimals of the shown rating: ordinals run from about -10 to 50, and a settled player's match
# moves theirs by tenths.
DISPLAY_DECIMALS = 2

MuSigma = tuple[float, float]


def shown(mu: float, sigma: float) -> dict[str, float]:
    """A rating as the answer gives it: mu and sigma as stored, and the rating players see."""
    ordinal = MODEL.rating(mu=mu, sigma=sigma).ordinal()
    return {"mu": mu, "sigma": sigma, "rating": round(ordinal, DISPLAY_DECIMALS)}


def team_places(
    game: Game, num_seats: int, options: dict[str, Any], standings: list[int]
) -> tuple[list[list[int]], list[int]]:
    """The teams (lists of seats) and each team's place; ValueError if partners' places differ."""
    if len(standings) != num_seats:
        raise ValueError(f"{num_seats} seats but {len(standings)} standings")
    teams = game.teams(num_seats, options) or [[s] for s in range(num_seats)]
    places = []
    for team in teams:
        mine = {standings[s] for s in team}
        if len(mine) != 1:
            raise ValueError(f"the partners {team} have different places {sorted(mine)}")
        places.append(mine.pop())
    return teams, places


def rate(
    game: Game,
    num_seats: int,
    options: dict[str, Any],
    standings: list[int],
    before: dict[int, MuSigma | None],
) -> dict[int, dict[str, dict[str, float]]]:
    """Every seat's rating before and after the match: `{seat: {"before": {"mu", "sigma",
    "rating"}, "after": {...}}}`.

    `standings` is `game.standings(state)` (0 the best, equal places a tie); `before` maps a
    seat to its player's (mu, sigma) in this game, or None (or no entry) for a player not yet
    rated, who starts at openskill's default."""
    teams, places = team_places(game, num_seats, options, standings)
    start = {seat: starting(seat, before.get(seat)) for seat in range(num_seats)}
    rated = MODEL.rate([[start[s] for s in team] for team in teams], ranks=[float(p) for p in places])
    out: dict[int, dict[str, dict[str, float]]] = {}
    for team, new in zip(teams, rated, strict=True):
        for seat, rating in zip(team, new, strict=True):
            first = start[seat]
            out[seat] = {"before": shown(first.mu, first.sigma), "after": shown(rating.mu, rating.sigma)}
    return dict(sorted(out.items()))


def starting(seat: int, old: MuSigma | None) -> PlackettLuceRating:
    """openskill's rating of a player before the match: the default for a player not yet rated."""
    if old is None:
        return MODEL.rating()
    mu, sigma = old
    if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"seat {seat}: ({mu}, {sigma}) is not a rating")
    return MODEL.rating(mu=mu, sigma=sigma)

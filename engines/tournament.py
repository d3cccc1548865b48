"""Bot-against-bot matches in-process, with win rates and 95% confidence intervals."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engines import bots
from engines.base import BOT_LEVELS, Game
from engines.solver_level import LADDER_ONLY_LEVELS

# Every level a tournament seat may play: the API's levels, the random bottom rung and the
# measuring-only rungs `solver` and `sound` (docs/bots.md).
LEVELS = ("random", *BOT_LEVELS, *LADDER_ONLY_LEVELS)

# A side is one level's seat group: a partnership in Spades, one seat elsewhere.
TEAM_GAMES = {"spades": 2}


@dataclass
class SideResult:
    level: str
    matches: int = 0
    wins: float = 0.0  # a shared win counts 1/k to each of k winners

    @property
    def rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.matches)


@dataclass
class TournamentResult:
    game: str
    levels: list[str]
    sides: list[SideResult]
    decisions: int = 0
    # Seconds per bot decision, by level.
    decision_seconds: dict[str, list[float]] = field(default_factory=dict)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def seat_levels(game: Game, levels: list[str], match_no: int) -> tuple[list[str], list[int]]:
    """Levels per seat for match `match_no`, and which side each seat plays for.

    The assignment rotates every match so no level keeps the first-move advantage.
    """
    sides = len(levels)
    if game.id in TEAM_GAMES:
        seats = TEAM_GAMES[game.id] * sides
        shift = match_no % sides
        side_of = [(s + shift) % sides for s in range(seats)]
    else:
        seats = sides
        side_of = [(s + match_no) % sides for s in range(seats)]
    return [levels[i] for i in side_of], side_of


def play_match(
    game: Game,
    levels_by_seat: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    max_decisions: int = 200_000,
    timings: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """Play one match between bots; return the final state."""
    options = game.validate_options(options or {}, len(levels_by_seat))
    state, _ = game.new_match(options, len(levels_by_seat), seed)
    rng = random.Random(f"tournament:{seed}")
    for _ in range(max_decisions):
        status = game.status(state)
        if status == "finished":
            return state
        if status == "round_over":
            game.start_next_round(state)
            continue
        seat = game.to_move(state)
        if seat is None:  # an active match always has a seat to move; None would be an engine bug
            raise RuntimeError(f"match with seed {seed} is active with no seat to move")
        view = game.view(state, seat)
        start = time.perf_counter()
        action = bots.decide(game, view, levels_by_seat[seat], rng)
        if timings is not None:
            timings.setdefault(levels_by_seat[seat], []).append(time.perf_counter() - start)
        game.apply(state, seat, action)
    raise RuntimeError(f"match with seed {seed} did not finish within {max_decisions} decisions")


def _count(result: TournamentResult, side_of: list[int], winners: list[int]) -> None:
    """One more match for every side, and its share of the win to each winning side."""
    winning_sides = {side_of[s] for s in winners}
    for side in result.sides:
        side.matches += 1
    for won in winning_sides:
        result.sides[won].wins += 1 / len(winning_sides)


def run(
    game: Game,
    levels: list[str],
    matches: int,
    seed: int,
    options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_decisions: int = 200_000,
) -> TournamentResult:
    result = TournamentResult(game.id, list(levels), [SideResult(lv) for lv in levels])
    for m in range(matches):
        by_seat, side_of = seat_levels(game, levels, m)
        state = play_match(game, by_seat, seed + m, options, max_decisions, result.decision_seconds)
        _count(result, side_of, state.get("winners") or [])
        if progress:
            progress(m + 1, matches)
    result.decisions = sum(map(len, result.decision_seconds.values()))
    return result


def run_paired(
    game: Game,
    levels: list[str],
    deals: int,
    seed: int,
    options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_decisions: int = 200_000,
) -> TournamentResult:
    """Each of `deals` deals (seeds `seed`, `seed + 1`, ...) played once per rotation of the sides,
    so every side holds every seat's cards once: the luck of the deal cancels between them
    (2 × `deals` matches for two sides; in Spades a side is a partnership, which holds seats 0
    and 2 of the deal once and seats 1 and 3 once)."""
    result = TournamentResult(game.id, list(levels), [SideResult(lv) for lv in levels])
    for k in range(deals):
        for shift in range(len(levels)):
            by_seat, side_of = seat_levels(game, levels, shift)
            state = play_match(game, by_seat, seed + k, options, max_decisions, result.decision_seconds)
            _count(result, side_of, state.get("winners") or [])
        if progress:
            progress(k + 1, deals)
    result.decisions = sum(map(len, result.decision_seconds.values()))
    return result

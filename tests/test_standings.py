"""Final standings (`Game.standings`, `Game.teams`): what ratings are computed from.

Random playouts of every game to the end, some ended by a resignation or by the host, check
that the standings agree with the engine's own `match_over`: the winners, and only they, have
place 0; places count the seats ahead (0, 1, 1, 3); resigned seats rank below every seat still
playing; scores order the rest the way each game counts them (Three Thirteen's lowest total
first); Spades' partners share a place.
"""

from __future__ import annotations

import random

import pytest

from engines import bots
from engines.base import Game
from engines.errors import MatchNotActive
from engines.registry import GAMES
from tests.games.highcard import GAME as HIGHCARD
from tests.test_conformance import SHORT

ENGINES = {**GAMES, HIGHCARD.id: HIGHCARD}
MATCHES = 24
STEPS = 5000
# A seat's score as the game orders the seats that neither won nor resigned (lower is better).
SCORE = {
    "three-thirteen": lambda state, s: state["scores"][s],
    "zhol": lambda state, s: -state["crowns"][s],
    "highcard": lambda state, s: -state["scores"][s],
}


def tables(game: Game) -> list[int]:
    out = []
    for n in range(game.min_seats, game.max_seats + 1):
        try:
            game.validate_options(SHORT.get(game.id, {}), n)
            out.append(n)
        except Exception:
            pass  # Zhol is played by 2 or 4
    return out


def resign_now(game: Game, state, rng: random.Random) -> list:
    playing = [s for s, flag in enumerate(state["resigned"]) if not flag]
    return game.apply(state, rng.choice(playing), {"type": "resign"}).events


def play_to_end(game: Game, seed: int, seats: int) -> tuple[dict, list[int]]:
    """A match played mostly by the easy bot; a third of them see a resignation at a random
    move, and a few of the games the host may end are ended between rounds. Returns the final
    state and the winners of its `match_over`."""
    rng = random.Random(seed)
    options = game.validate_options(SHORT.get(game.id, {}), seats)
    state, events = game.new_match(options, seats, seed)
    resign_at = rng.randrange(200) if rng.random() < 1 / 3 else None
    end_early = rng.random() < 0.2
    for step in range(STEPS):
        over = [e for e in events if e["type"] == "match_over"]
        if over:
            assert game.status(state) == "finished"
            return state, over[0]["winners"]
        with pytest.raises(MatchNotActive):
            game.standings(state)
        if step == resign_at:
            events = resign_now(game, state, rng)
        elif game.status(state) == "round_over":
            try:
                events = game.end_match(state).events if end_early else game.start_next_round(state).events
            except MatchNotActive:  # a game the host cannot end
                events = game.start_next_round(state).events
        else:
            seat = game.to_move(state)
            action = bots.decide(game, game.view(state, seat), "easy", rng)
            events = game.apply(state, seat, action).events
    raise AssertionError(f"{game.id}: no end after {STEPS} steps (seed {seed})")


def check_standings(game: Game, state, winners: list[int]) -> None:
    places = game.standings(state)
    n = len(state["resigned"])
    assert len(places) == n and all(type(p) is int for p in places)
    assert sorted(s for s in range(n) if places[s] == 0) == sorted(winners) == sorted(state["winners"])
    # A place is the number of seats strictly ahead: 0, 1, 1, 3.
    assert all(p == sum(q < p for q in places) for p in places), places
    teams = game.teams(n, state["options"])
    if teams is not None:
        assert sorted(s for team in teams for s in team) == list(range(n))
        for team in teams:
            assert len({places[s] for s in team}) == 1, (teams, places)
        return
    resigned = [s for s in range(n) if state["resigned"][s]]
    playing = [s for s in range(n) if not state["resigned"][s]]
    assert all(places[r] > places[p] for r in resigned for p in playing), (places, resigned)
    score = SCORE.get(game.id)
    if score is not None:
        rest = [s for s in playing if s not in winners]
        for a in rest:
            for b in rest:
                assert (places[a] < places[b]) == (score(state, a) < score(state, b)), (a, b, places)


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_standings_agree_with_the_winners_of_match_over(game_id):
    game = ENGINES[game_id]
    sizes = tables(game)
    for i in range(MATCHES):
        state, winners = play_to_end(game, 5000 + i, sizes[i % len(sizes)])
        check_standings(game, state, winners)


def test_spades_partners_share_a_place_and_form_the_teams():
    spades = GAMES["spades"]
    assert spades.teams(4, {}) == [[0, 2], [1, 3]]
    assert all(GAMES[g].teams(2, {}) is None for g in GAMES if g != "spades")
    options = spades.validate_options({"target_score": 100}, 4)
    state, _ = spades.new_match(options, 4, 7)
    state["phase"] = "bid"
    spades.apply(state, 3, {"type": "resign"})  # seat 3's partnership loses at once
    assert spades.standings(state) == [0, 2, 0, 2]


def test_three_thirteen_ranks_the_lowest_total_first():
    game = GAMES["three-thirteen"]
    state, _ = game.new_match(game.validate_options({}, 4), 4, 3)
    state.update(status="finished", winners=[2], scores=[40, 75, 12, 40])
    assert game.standings(state) == [1, 3, 0, 1]
    state["resigned"][0] = True  # a resigned seat ranks last whatever its total
    assert game.standings(state) == [3, 2, 0, 1]


@pytest.mark.parametrize("game_id", ["zoliky", "zhol"])
def test_a_match_ended_level_by_the_host_is_a_tie_for_first(game_id):
    game = GAMES[game_id]
    state, _ = game.new_match(game.validate_options({}, 2), 2, 11)
    (over,) = [e for e in game.end_match(state).events if e["type"] == "match_over"]
    assert over["winners"] == [0, 1] and game.standings(state) == [0, 0]

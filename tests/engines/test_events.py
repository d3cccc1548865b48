"""One event vocabulary in every game: what the engines emit is what docs/api.md documents."""

from __future__ import annotations

import os
import random
import re
from collections import Counter

import pytest

from engines import bots
from engines.base import ROUND_EVENTS, SERVICE_EVENTS, Game
from engines.registry import GAMES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Short matches, so that several end by the target and all four games run in seconds.
SHORT = {
    "zoliky": {"target_wins": 2},
    "three-thirteen": {},
    "zhol": {"target_wins": 2},
    "spades": {"target_score": 100},
}
SEATS = {"zoliky": 2, "three-thirteen": 3, "zhol": 4, "spades": 4}


def documented() -> tuple[set[str], dict[str, set[str]]]:
    """The shared event types and each game's move events, read from docs/api.md's tables."""
    with open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Events") :]
    section = section[: section.index("\n## ")] if "\n## " in section else section
    shared = set(re.findall(r"^\s*\| `(\w+)` \| [^`]", section, re.M))
    moves = {
        game: set(re.findall(r"`(\w+)`", cells))
        for game, cells in re.findall(r"^\s*\| `([\w-]+)` \| (`.*)\|$", section, re.M)
    }
    return shared, moves


def play(game: Game, seed: int, ending: str) -> list[dict]:
    """A whole match of easy bots through the engine, every event it emits (rounds started by the
    host); `ending` "target" plays to the end, "resign" and "ended" stop after the first round."""
    rng = random.Random(seed)
    options = game.validate_options(SHORT[game.id], SEATS[game.id])
    state, events = game.new_match(options, SEATS[game.id], seed)
    for _ in range(50_000):
        status = game.status(state)
        if status == "finished":
            return events
        if status == "round_over":
            if ending == "resign":
                # Games of more players play on after one resigns: all but the last do.
                for seat in range(SEATS[game.id] - 1):
                    if game.status(state) != "finished":
                        events += game.apply(state, seat, {"type": "resign"}).events
                return events
            if ending == "ended":
                return events + game.end_match(state).events
            events += game.start_next_round(state).events
            continue
        seat = game.to_move(state)
        events += game.apply(state, seat, bots.decide(game, game.view(state, seat), "easy", rng)).events
    raise AssertionError(f"{game.id} did not finish")


def test_docs_list_exactly_the_vocabulary_the_engines_declare():
    shared, moves = documented()
    assert shared == {*SERVICE_EVENTS, *ROUND_EVENTS}
    assert moves == {g.id: set(g.move_events) for g in GAMES.values()}
    for game in GAMES.values():
        assert not set(game.move_events) & shared, game.id  # a move event never shadows a shared one


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_event_a_match_emits_is_in_the_documented_vocabulary(game_id):
    game = GAMES[game_id]
    shared, moves = documented()
    allowed = (shared - set(SERVICE_EVENTS)) | moves[game_id]
    seen: Counter = Counter()
    for seed, ending in enumerate(["target", "target", "resign", "ended"]):
        if ending == "ended" and game_id in ("spades", "three-thirteen"):
            continue  # these play to a score or the last round; the host cannot end them
        events = play(game, seed, ending)
        types = [e["type"] for e in events]
        assert set(types) <= allowed, set(types) - allowed
        # Every round starts with `deal` and ends with `round_over`; `match_over` comes once, last.
        assert types.count("deal") == types.count("round_over") >= 1
        assert types.count("match_over") == 1 and types[-1] == "match_over"
        over = events[-1]
        assert isinstance(over["winners"], list) and over["reason"] in ("target", "rounds", "resign", "ended")
        if ending != "target":
            assert over["reason"] == ending
        seen.update(types)
    assert seen["match_over"] >= 3

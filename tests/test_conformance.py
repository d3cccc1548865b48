"""One conformance test for every engine in the registry, and for a fifth, test-only game.

Random playouts through each engine's own interface check what every game owes the service
(docs/architecture.md, "Engines"): every listed action is accepted, a refused one changes
nothing, each seat's view agrees with the public counts and never shows a card only another
seat holds, every event is of the game's declared vocabulary, and no card is made or lost (the
engine's `all_cards` is its full deck at every step). The game-specific tests (tests/engines/)
keep each game's own invariants (scoring, melds).

The test-only game, tests/games/highcard.py, is registered through the same registry
(CARDTABLE_EXTRA_GAMES) in a live `cardtable serve` and played through the API against bots,
as the recipe in docs/architecture.md, "Adding a game", says a new game is.
"""

from __future__ import annotations

import collections
import json
import random
import time

import pytest

from engines import bots
from engines.base import Game, redact_event
from engines.errors import EngineError
from engines.legal import TEMPLATE, complete, is_template
from engines.registry import GAMES
from tests.games.highcard import GAME as HIGHCARD
from tests.replay import replay
from tests.serve_helpers import cardtable_serve
from tests.test_serve import call

ENGINES = {**GAMES, HIGHCARD.id: HIGHCARD}
# Options that keep a playout short; every other option stays at its default.
SHORT = {"spades": {"target_score": 100}, "zhol": {"target_wins": 1}, "zoliky": {"target_wins": 1}}
PLAYOUTS = 10
STEPS = 5000
RANDOM_MOVES = {"spades": 0.0}  # the share of moves chosen at random rather than by the easy bot


def cards_of(obj) -> collections.Counter:
    """How often each string stands in `obj` (a view), card codes among them; counted, unlike
    tests/api_helpers.cards_in, so a view showing a card more often than a spectator's is caught."""
    found: collections.Counter = collections.Counter()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found[item] += 1
    return found


def check_views(game: Game, state, deck: collections.Counter) -> None:
    public = game.view(state, None)
    views = [game.view(state, s) for s in range(len(public["players"]))]
    assert public["hand"] is None and public["legal_actions"] == []
    hands = [collections.Counter(v["hand"]) for v in views]
    seen = cards_of({k: v for k, v in public.items() if k != "round_result"})
    for s, view in enumerate(views):
        assert public["players"][s]["cards"] == len(view["hand"]), (game.id, s)
        if game.to_move(state) != s:
            assert view["legal_actions"] == [], (game.id, s)
        # A card whose every copy is in other hands shows no more in this seat's view than in a
        # spectator's (who sees, say, a card taken from the discard pile; the last round's
        # result, showing that round's cards under the same codes, is left out).
        shown = cards_of({k: v for k, v in view.items() if k != "round_result"})
        others = sum((h for t, h in enumerate(hands) if t != s), collections.Counter())
        hidden = [c for c, n in others.items() if n == deck[c] and n > 0]
        assert not [c for c in hidden if shown[c] > seen[c]], (game.id, s, hidden)


def check_declared_actions(game: Game, state, seat: int, listed: list[dict], rng: random.Random) -> None:
    """Every listed action has a shape the game declares (`Game.actions`, from which the
    contract's Action schema is made), and the engine refuses a declared shape with one more
    field, and a type it does not declare."""
    assert "resign" in game.actions, game.id
    for action in listed:
        # `template` marks an entry to fill in (engines/legal.py), in any game: no action's field.
        assert set(action) - {"type", TEMPLATE} <= set(game.actions[action["type"]]), (game.id, action)
    for extra in (
        {**rng.choice(listed), "colour": "blue"},
        {"type": "resign", "colour": "blue"},
        {"type": "fly"},
    ):
        with pytest.raises(EngineError):
            game.apply(game.clone(state), seat, extra)


def playout(game: Game, seed: int, seats: int) -> int:
    """One random match; returns its number of moves."""
    rng = random.Random(seed)
    options = game.validate_options(SHORT.get(game.id, {}), seats)
    deck_list = game.full_deck(options)
    deck = collections.Counter(deck_list)
    rng.shuffle(deck_list)
    state, events = game.new_match(options, seats, seed, deck_list)
    vocabulary = set(game.event_types())
    for step in range(STEPS):
        assert collections.Counter(game.all_cards(state)) == deck, (game.id, "a card made or lost")
        assert {e["type"] for e in events} <= vocabulary, (game.id, [e["type"] for e in events])
        for event in events:  # what a spectator is sent never carries a seat's secret
            assert "secret" not in redact_event(event, None) and "sealed" not in redact_event(event, None)
        status = game.status(state)
        if status == "finished":
            return step
        if status == "round_over":
            events = game.start_next_round(state).events
            continue
        check_views(game, state, deck)
        seat = game.to_move(state)
        # Templates (a Žolíky meld with "melds": [] to fill in) are listed, marked, and refused
        # as they are; every other entry is accepted as it is.
        listed = game.legal_actions(state, seat)
        legal = complete(listed)
        assert legal, (game.id, "the seat to move has nothing to do")
        check_declared_actions(game, state, seat, listed, rng)
        for action in rng.sample(legal, min(3, len(legal))):
            game.apply(game.clone(state), seat, action)  # listed, so accepted
        for template in filter(is_template, listed):
            with pytest.raises(EngineError):
                game.apply(game.clone(state), seat, {k: v for k, v in template.items() if k != TEMPLATE})
        other = (seat + 1) % seats
        before = json.dumps(state, sort_keys=True)
        with pytest.raises(EngineError):
            game.apply(state, other, legal[0])
        assert json.dumps(state, sort_keys=True) == before, (game.id, "a refused action changed the state")
        # The move itself is mostly the easy bot's (a purely random player never ends a rummy
        # match; in Spades random bids break contracts so often that no team reaches the target).
        if rng.random() >= RANDOM_MOVES.get(game.id, 0.15):
            action = bots.decide(game, game.view(state, seat), "easy", rng)
        else:
            action = rng.choice(legal)
        done = game.apply(state, seat, action)
        # The Step the service reads instead of asking the engine must say what the engine says.
        assert done.status == game.status(state), (game.id, done)
        assert done.to_move == game.to_move(state), (game.id, done)
        assert done.resigned == game.resigned_seats(state), (game.id, done)
        events = done.events
    raise AssertionError(f"{game.id}: no end after {STEPS} steps (seed {seed})")


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_random_playouts_keep_the_engine_contract(game_id):
    game = ENGINES[game_id]
    tables = []
    for n in range(game.min_seats, game.max_seats + 1):
        try:
            game.validate_options(SHORT.get(game.id, {}), n)
            tables.append(n)
        except EngineError:
            pass  # Zhol is played by 2 or 4
    for i in range(PLAYOUTS):
        assert playout(game, 1000 + i, tables[i % len(tables)]) > 0


def test_a_test_only_game_registered_through_the_registry_is_played_through_the_api(tmp_path):
    extra = {"CARDTABLE_EXTRA_GAMES": "tests.games.highcard:GAME", "CARDTABLE_BOT_DELAY": "0"}
    with cardtable_serve(str(tmp_path), **extra) as (_, base):
        status, catalogue = call(base, "GET", "/v1/games")
        assert status == 200 and "highcard" in [g["id"] for g in catalogue["games"]]
        seats = [
            {"kind": "human", "name": "Ana"},
            {"kind": "bot", "level": "easy"},
            {"kind": "bot", "level": "pro"},
        ]
        status, created = call(base, "POST", "/v1/matches", {"game": "highcard", "seats": seats})
        assert status == 201, created
        match_id, token = created["id"], created["seats"][0]["token"]
        deadline = time.monotonic() + 60
        while True:
            status, view = call(base, "GET", f"/v1/matches/{match_id}", token=token)
            assert status == 200 and time.monotonic() < deadline, view
            if view["status"] == "finished":
                break
            moves = [a for a in view["legal_actions"] if a["type"] != "resign"]
            if view["status"] == "active" and view["turn"]["seat"] == 0 and moves:
                status, answer = call(base, "POST", f"/v1/matches/{match_id}/actions", moves[0], token)
                assert status == 200, answer
            elif view["status"] == "round_over" and view["host"] == 0:
                assert call(base, "POST", f"/v1/matches/{match_id}/rounds", token=token)[0] == 200
            else:
                call(base, "GET", f"/v1/matches/{match_id}/events?after=0&wait=1")
        assert view["winners"] and view["round"] == 2  # the default of its `rounds` option
        status, history = call(base, "GET", f"/v1/matches/{match_id}/history", token=token)
        assert status == 200 and replay(history, HIGHCARD) == history["version"]

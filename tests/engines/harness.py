"""Random playouts shared by every engine's conformance tests."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from engines.base import Game, redact_event

Pick = Callable[[Game, dict, int, list, random.Random], dict]


def random_legal(game: Game, state: dict, seat: int, legal: list, rng: random.Random) -> dict:
    return rng.choice(legal)


def play_random(
    game: Game,
    options: dict[str, Any],
    num_seats: int,
    seed: int,
    *,
    deck: list[str] | None = None,
    pick: Pick = random_legal,
    on_step: Callable[[dict, int, dict, list], None] | None = None,
    max_steps: int = 100_000,
    rounds: int | None = None,
    roundtrip_every: int = 1,
) -> dict:
    """Play a match with random choices; call `on_step(state, seat, action, events)` after each.

    Stops when the match is finished, after `rounds` completed rounds, or after max_steps.
    Every `roundtrip_every`-th state is checked to survive a JSON round trip (long playouts
    thin this out: the dump costs more than a move), and every event to redact cleanly.
    """
    rng = random.Random(seed)
    options = game.validate_options(options, num_seats)
    state, _ = game.new_match(options, num_seats, seed, deck)
    done_rounds = 0
    for step in range(max_steps):
        status = game.status(state)
        if status == "finished":
            break
        if status == "round_over":
            done_rounds += 1
            if rounds is not None and done_rounds >= rounds:
                break
            game.start_next_round(state)
            continue
        seat = game.to_move(state)
        legal = game.legal_actions(state, seat)
        assert legal, f"seat {seat} to move with no legal action"
        action = pick(game, state, seat, legal, rng)
        events = game.apply(state, seat, action).events
        if step % roundtrip_every == 0:
            assert json.loads(json.dumps(state)) == state
        for event in events:
            for viewer in [None, *range(num_seats)]:
                json.dumps(redact_event(event, viewer))
        if on_step:
            on_step(state, seat, action, events)
    return state


def rearranged(
    state: dict,
    seat: int,
    known: dict[int, list[str]],
    rng: random.Random,
    order: Callable[[str], Any] | None = None,
) -> dict:
    """A copy of a rummy state with the cards `seat` cannot see (other hands, the stock) dealt anew.

    Sizes stay, and each other seat keeps the cards in `known[s]` (seen taken from the pile and
    still held); hands are sorted by `order` as the engine keeps them.
    """
    other = copy.deepcopy(state)
    pool = list(other["stock"])
    for s, hand in enumerate(other["hands"]):
        if s != seat:
            hidden = list(hand)
            for card in known.get(s, []):
                hidden.remove(card)
            pool += hidden
    rng.shuffle(pool)
    stock_size = len(other["stock"])
    other["stock"], pool = pool[:stock_size], pool[stock_size:]
    for s, hand in enumerate(other["hands"]):
        if s != seat:
            size = len(hand) - len(known.get(s, []))
            other["hands"][s] = sorted([*known.get(s, []), *pool[:size]], key=order)
            pool = pool[size:]
    assert not pool
    return other

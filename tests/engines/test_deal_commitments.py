"""Every deal and reshuffle of every game commits to its deck order (docs/api.md, "Fair deals")."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest

from engines import bots
from engines import rng as rngmod
from engines.base import redact_event
from engines.cards import JOKER
from engines.registry import GAMES

KEY_A = "a1" * 32
KEY_B = "b2" * 32
# game id, options, seats: small matches that still deal several rounds.
MATCHES = [
    ("spades", {"target_score": 200}, 4),
    ("three-thirteen", {}, 3),
    ("zhol", {"target_wins": 3}, 4),
    ("zhol", {"target_wins": 2, "variant": "large"}, 2),
    ("zoliky", {"target_wins": 2}, 2),
]


def play(game_id, options, seats, seed, deal_key, max_rounds=4):
    """Easy bots play up to `max_rounds` rounds; returns every event with the state right after it."""
    game = GAMES[game_id]
    opts = game.validate_options(options, seats)
    rng = random.Random(seed)
    state, events = game.new_match(opts, seats, seed, None, deal_key)
    seen = [(e, json.loads(json.dumps(state))) for e in events]
    rounds = 1
    while game.status(state) != "finished" and len(seen) < 20_000:
        if game.status(state) == "round_over":
            if rounds == max_rounds:
                break
            rounds += 1
            seen += [(e, json.loads(json.dumps(state))) for e in game.start_next_round(state).events]
            continue
        seat = game.to_move(state)
        action = bots.decide(game, game.view(state, seat), "easy", rng)
        seen += [(e, json.loads(json.dumps(state))) for e in game.apply(state, seat, action).events]
    return game, seen


def check_seal(event: dict) -> list[str]:
    """The commitment recomputed from the sealed salt and order, as a client would; the order."""
    sealed = event["sealed"]
    assert len(bytes.fromhex(sealed["salt"])) == 32
    data = bytes.fromhex(sealed["salt"]) + ",".join(sealed["order"]).encode("ascii")
    assert hashlib.sha256(data).hexdigest() == event["deal_commitment"]
    return sealed["order"]


@pytest.mark.parametrize(("game_id", "options", "seats"), MATCHES)
def test_every_deal_commits_to_the_deck_it_dealt_from(game_id, options, seats):
    game, seen = play(game_id, options, seats, 11, KEY_A)
    deals = [(e, s) for e, s in seen if e["type"] == "deal"]
    assert len(deals) >= 2
    for event, state in deals:
        order = check_seal(event)
        assert game.deal_commitment(state) == event["deal_commitment"]
        carried = Counter()
        if game_id == "zoliky":
            # The round winner's carried jokers stay in hand and are not shuffled.
            full = game.full_deck(state["options"])
            carried = Counter(full) - Counter(order)
            assert set(carried) <= {JOKER}
        else:
            assert sorted(order) == sorted(game.full_deck(state["options"]))
        for seat in range(seats):
            hand = redact_event(event, seat)["hand"]
            assert not Counter(hand) - Counter(order) - carried, (seat, hand)


@pytest.mark.parametrize(("game_id", "options", "seats"), MATCHES)
def test_salts_are_fresh_keyed_and_never_in_a_seats_event(game_id, options, seats):
    _, seen = play(game_id, options, seats, 5, KEY_A, max_rounds=3)
    _, again = play(game_id, options, seats, 5, KEY_B, max_rounds=3)
    sealed = [e for e, _ in seen if "sealed" in e]
    other = [e for e, _ in again if "sealed" in e]
    salts = [e["sealed"]["salt"] for e in sealed]
    assert len(set(salts)) == len(salts) >= 2
    # Same seed, another deal key: the same decks under other salts, so a salt does not
    # follow from the seed.
    assert [e["sealed"]["order"] for e in sealed] == [e["sealed"]["order"] for e in other]
    assert not set(salts) & {e["sealed"]["salt"] for e in other}
    for event, _ in seen:
        for viewer in [None, *range(seats)]:
            text = json.dumps(redact_event(event, viewer))
            assert "sealed" not in text and not any(salt in text for salt in salts)


def _force_reshuffle(game_id: str, state: dict) -> None:
    """Move all but one (Three Thirteen) or all (the others) stock cards under the discard pile."""
    keep = 1 if game_id == "three-thirteen" else 0
    moved = state["stock"][: len(state["stock"]) - keep]
    state["stock"] = state["stock"][len(moved) :]
    state["discard"] = moved + state["discard"]
    if game_id == "zoliky":
        state["discard_seats"] = [None] * len(state["discard"])


@pytest.mark.parametrize(("game_id", "options", "seats"), [m for m in MATCHES if m[0] != "spades"])
def test_a_reshuffled_stock_is_committed_too(game_id, options, seats):
    game = GAMES[game_id]
    rng = random.Random(3)
    opts = game.validate_options(options, seats)
    state, _ = game.new_match(opts, seats, 3, None, KEY_A)
    reshuffles = []
    for _ in range(400):
        if game.status(state) != "active" or reshuffles:
            break
        seat = game.to_move(state)
        if state["phase"] == "draw" and len(state["discard"]) >= 2:
            _force_reshuffle(game_id, state)
        action = bots.decide(game, game.view(state, seat), "easy", rng)
        events = game.apply(state, seat, action).events
        reshuffles += [e for e in events if e["type"] == "reshuffle"]
    assert len(reshuffles) == 1
    order = check_seal(reshuffles[0])
    # The new stock is the committed order, less what was drawn from its top since.
    assert state["stock"] == order[len(order) - len(state["stock"]) :]
    assert game.deal_commitment(state) != reshuffles[0]["deal_commitment"]  # views keep the deal's
    assert "sealed" not in redact_event(reshuffles[0], seat)


def test_a_stacked_deck_is_committed_as_given():
    game = GAMES["spades"]
    deck = game.full_deck({})
    random.Random(1).shuffle(deck)
    state, events = game.new_match(game.validate_options({"first_dealer": 0}, 4), 4, 1, list(deck), KEY_A)
    assert check_seal(events[0]) == deck
    assert rngmod.commitment(events[0]["sealed"]["salt"], deck) == game.deal_commitment(state)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 13, 52, 54, 104, 108])
def test_the_shuffle_draws_exactly_as_pythons_random_shuffle(size):
    """`rng.shuffle` is Random.shuffle written out: every seed and counter gives the same order
    as CPython's shuffle of the same generator, so stored seeds deal the matches they dealt."""
    for seed in range(200):
        state = {"seed": seed, "counter": seed % 7}
        ours = list(range(size))
        rngmod.shuffle(state, ours)
        theirs = list(range(size))
        random.Random(f"cardtable:{seed}:{seed % 7}").shuffle(theirs)
        assert ours == theirs, (seed, size)
        assert state["counter"] == seed % 7 + 1

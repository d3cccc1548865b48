"""Every entry of `legal_actions` can be posted as it is, but those marked `"template": true`
(Žolíky's meld templates; engines/legal.py, docs/api.md "Views"), in every game.

The client of the conformance playouts is the easiest load-test client there is: at every step
it posts a random entry of its view's `legal_actions`, all but resign and the templates, through
the HTTP API (the in-process app on the test Redis, every seat a person the test plays, so no
worker moves for anyone). It never gets a 4xx, and each match ends: by its own rules, or, since a
random player rarely finishes a rummy or Spades match (and in Žolíky never can: going out takes
melds, which are templates), at the end of the step budget the host ends it (Žolíky, Zhol) or
seat 0 resigns (Spades, Three Thirteen). Its history then replays move by move.
"""

from __future__ import annotations

import random

import pytest

from engines import bots
from engines.base import json_copy
from engines.errors import EngineError
from engines.legal import TEMPLATE, complete, is_template
from engines.registry import GAMES
from tests.api_helpers import Api, auth
from tests.replay import replay
from tests.test_api_zoliky import EARLY, two_people

# Each game's table for the playouts: seats and options that keep a round short.
TABLES = {
    "spades": (4, {"target_score": 100}),
    "three-thirteen": (2, {}),
    "zhol": (2, {"target_wins": 1}),
    "zoliky": (2, {"target_wins": 1}),
}
# Moves before the match is ended by the host or a resignation: long enough for Žolíky's
# templates (from turn 7), several Spades hands and Three Thirteen rounds, and for a random Zhol
# hand to end by itself now and then; the slow set plays longer matches, Zhol's mostly to their
# end. Well below the service's 20,000 versions a match (CARDTABLE_MAX_VERSIONS), past which it
# is aborted.
BUDGETS = {"spades": 300, "three-thirteen": 300, "zhol": 500, "zoliky": 200}
SLOW_BUDGETS = {"spades": 1500, "three-thirteen": 5000, "zhol": 3000, "zoliky": 1000}
PLAYOUTS, SLOW_PLAYOUTS = 3, 6  # a game; each playout its own test, so that -n auto spreads them
MELD_TYPES = {"meld", "lay_off", "swap_joker", "take_discard", "take_closing"}
# The opening of tests/test_api_zoliky.py: Ana (the cutter) holds 46 points with a pure run.
CUTTER = ["8D", "9D", "JD", "2C", "3C", "4C", "JK", "QC", "2S", "4S", "6S", "8S", "TS"]
OTHER = ["KS", "KH", "KC", "5H", "6H", "7H", "TD", "QD", "AD", "2H", "9C", "JC"]
OPENING = [["8D", "9D", "JK", "JD"], ["2C", "3C", "4C"]]


@pytest.fixture
def api(client):
    return Api(client)


def posted(api: Api, path: str, token: str, body: dict | None = None) -> dict:
    """A POST the random client makes; any answer but 200 fails the test with the body."""
    resp = api.c.post(path, json=body, headers=auth(token))
    assert resp.status_code == 200, (path, body, resp.get_json())
    return resp.get_json()


def end(api: Api, game: str, view: dict, tokens: list[str]) -> dict:
    """The match ended before its own end: by the host where the game allows it, else by seat
    0's resignation (taken on any turn and between rounds; two sides: the other wins)."""
    match_id = view["id"]
    if game in ("zoliky", "zhol"):
        return posted(api, f"/v1/matches/{match_id}/end", tokens[view["host"]])
    return posted(api, f"/v1/matches/{match_id}/actions", tokens[0], {"type": "resign"})


def random_client(api: Api, game: str, seed: int, budget: int) -> dict:
    """One match played by the random client; what it saw."""
    seats, options = TABLES[game]
    created = api.create(game, [{"kind": "human"}] * seats, options=options, seed=seed)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(seed)
    seen = {"moves": 0, "templates": 0, "rounds": 0, "ended": "rules"}
    view = api.view(match_id, tokens[0])
    while view["status"] not in ("finished", "aborted"):
        if seen["moves"] >= budget:
            view, seen["ended"] = end(api, game, view, tokens), "budget"
            continue
        if view["status"] == "round_over":
            view = posted(api, f"/v1/matches/{match_id}/rounds", tokens[view["host"]])
            seen["rounds"] += 1
            continue
        seat = view["turn"]["seat"]
        if view["you"] != seat:
            view = api.view(match_id, tokens[seat])
        templates = [a for a in view["legal_actions"] if TEMPLATE in a]
        assert all(a[TEMPLATE] is True and a["type"] in MELD_TYPES for a in templates), templates
        assert not templates or game == "zoliky", (game, templates)
        seen["templates"] += len(templates)
        choices = [a for a in view["legal_actions"] if a["type"] != "resign" and TEMPLATE not in a]
        view = posted(api, f"/v1/matches/{match_id}/actions", tokens[seat], rng.choice(choices))
        seen["moves"] += 1
    assert view["status"] == "finished" and view["winners"], view
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[0])).get_json()
    assert replay(history) == history["version"] == view["version"]
    return seen


def check_playout(api: Api, game: str, seed: int, budget: int) -> None:
    seen = random_client(api, game, seed, budget)
    print(f"{game} seed {seed}: {seen}")
    assert seen["moves"] > 0
    if game == "zoliky":
        # Melding opens on turn 7: the client met the templates and left them alone.
        assert seen["templates"] > 0


@pytest.mark.parametrize("seed", range(PLAYOUTS))
@pytest.mark.parametrize("game", sorted(TABLES))
def test_a_client_posting_random_entries_but_templates_never_gets_a_4xx_and_the_match_ends(api, game, seed):
    check_playout(api, game, 100 + seed, BUDGETS[game])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(SLOW_PLAYOUTS))
@pytest.mark.parametrize("game", sorted(TABLES))
def test_longer_random_playouts_never_get_a_4xx_and_end(api, game, seed):
    check_playout(api, game, 200 + seed, SLOW_BUDGETS[game])


# --- the engines: every complete entry is taken as it is, every template refused ---------------


def entries_hold_their_promise(game_id: str, seed: int, steps: int) -> int:
    """A playout of easy bots (random moves here and there) in which every entry listed at every
    step is tried on a copy of the state: a complete one is applied, a template (without its
    mark, as a careless client would post it) is refused. Returns the templates met."""
    game = GAMES[game_id]
    seats, options = TABLES[game_id]
    rng = random.Random(seed)
    state, _ = game.new_match(game.validate_options(options, seats), seats, seed)
    met = 0
    for _ in range(steps):
        if game.status(state) == "finished":
            break
        if game.status(state) == "round_over":
            game.start_next_round(state)
            continue
        seat = game.to_move(state)
        listed = game.legal_actions(state, seat)
        for entry in listed:
            if is_template(entry):
                met += 1
                with pytest.raises(EngineError):
                    game.apply(json_copy(state), seat, {k: v for k, v in entry.items() if k != TEMPLATE})
            else:
                game.apply(json_copy(state), seat, entry)
        if rng.random() < 0.2:
            action = rng.choice(complete(listed))
        else:
            action = bots.decide(game, game.view(state, seat), "easy", rng)
        game.apply(state, seat, action)
    return met


@pytest.mark.parametrize("game_id", sorted(TABLES))
def test_every_listed_entry_but_a_template_is_taken_as_it_is_by_the_engine(game_id):
    met = sum(entries_hold_their_promise(game_id, seed, 400) for seed in range(3))
    # Only Žolíky lists templates; the other games list complete actions only.
    assert (met > 0) == (game_id == "zoliky"), (game_id, met)


# --- a template's mark on a posted action -------------------------------------------------------


def zoliky_at_turn_7(api: Api) -> tuple[str, list[str], dict]:
    """Ana and Bo at turn 7 of tests/test_api_zoliky.py's deck, Ana to draw: her view."""
    match_id, tokens = two_people(api, CUTTER, OTHER, draws=("QS", "8C"))
    posted(api, f"/v1/matches/{match_id}/actions", tokens[0], {"type": "discard", "card": "QC"})
    for turn, card in enumerate(EARLY, start=2):
        token = tokens[(turn - 1) % 2]
        posted(api, f"/v1/matches/{match_id}/actions", token, {"type": "draw"})
        posted(api, f"/v1/matches/{match_id}/actions", token, {"type": "discard", "card": card})
    return match_id, tokens, api.view(match_id, tokens[0])


def drawn(api: Api, match_id: str, tokens: list[str]) -> dict:
    return posted(api, f"/v1/matches/{match_id}/actions", tokens[0], {"type": "draw"})


def test_a_filled_in_template_posted_with_its_mark_is_played_like_one_without(api):
    match_id, tokens, _ = zoliky_at_turn_7(api)
    view = drawn(api, match_id, tokens)
    template = next(a for a in view["legal_actions"] if a["type"] == "meld")
    assert template == {"type": "meld", "melds": [], "lay_offs": [], "template": True}
    filled = {**template, "melds": OPENING}
    key = {"Idempotency-Key": "ana-opens"}
    first = api.act(match_id, tokens[0], filled, **key)
    assert first.status_code == 200, first.get_json()
    opened = first.get_json()
    assert opened["table"]["opened"] == [True, False] and len(opened["table"]["melds"]) == 2
    # The mark is no part of the move: the same move without it, retried with the key, is the
    # same request (not a reused key), and gets the first answer.
    again = api.act(match_id, tokens[0], {k: v for k, v in filled.items() if k != "template"}, **key)
    assert again.status_code == 200 and again.get_json() == opened
    # A complete entry sent with `"template": false` is taken as well.
    discard = {"type": "discard", "card": "QS", "template": False}
    assert api.act(match_id, tokens[0], discard).status_code == 200


# What a template sent as listed is told, by type: a 422 naming what is missing.
UNFILLED = {
    "take_discard": ("illegal_action", "top discard"),
    "take_closing": ("validation_error", "discard must be a card code"),
    "meld": ("illegal_action", "put down at least one meld or lay-off"),
}


def test_a_template_posted_as_listed_is_a_422_that_changes_nothing(api):
    match_id, tokens, view = zoliky_at_turn_7(api)
    tried = []
    for phase in ("draw", "play"):
        if phase == "play":
            view = drawn(api, match_id, tokens)
        assert (view["turn"]["seat"], view["turn"]["phase"]) == (0, phase)
        before = [api.view(match_id, t) for t in tokens]
        for template in filter(is_template, view["legal_actions"]):
            resp = api.act(match_id, tokens[0], template)
            body = resp.get_json()
            error, words = UNFILLED[template["type"]]
            assert resp.status_code == 422 and body["error"] == error and words in body["message"], body
            tried.append(template["type"])
        assert [api.view(match_id, t) for t in tokens] == before
    assert sorted(tried) == sorted(UNFILLED)


@pytest.mark.parametrize("mark", ["yes", 1, None, [], {}])
def test_a_template_mark_that_is_not_a_boolean_is_a_validation_error(api, mark):
    match_id, tokens, view = zoliky_at_turn_7(api)
    resp = api.act(match_id, tokens[0], {"type": "discard", "card": "QS", "template": mark})
    body = resp.get_json()
    assert resp.status_code == 422 and body["error"] == "validation_error", body
    assert list(body["errors"]) == ["template"], body
    assert api.view(match_id, tokens[0])["version"] == view["version"]

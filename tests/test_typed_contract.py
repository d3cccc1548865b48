"""The typed contract (issue #33): every view, event and action a match makes fits the schema
of its game and type in the served OpenAPI document, so the per-game schemas
(service/http/game_schemas.py, service/http/contract.py) cannot drift from the engines.

Random playouts of every game, through each engine (easy bots, with random moves: their melds,
lay-offs and swaps too) and through the HTTP API (the random client of
tests/test_template_conformance.py, every seat a person), check each view (every seat's and a
spectator's), each event (as each seat and a spectator are sent it, and unredacted in /history),
each listed action and each posted body against the game's schemas, and against the
game-independent ones a client reads first (`View`, `Event`, `Action`).
"""

from __future__ import annotations

import random

import jsonschema_rs
import pytest

from engines import bots
from engines.base import redact_event
from engines.legal import TEMPLATE, complete, is_template
from engines.registry import GAMES
from service.http.contract import _pascal
from tests.api_helpers import Api, auth
from tests.test_template_conformance import TABLES

SHORT = {"spades": {"target_score": 100}, "zhol": {"target_wins": 1}, "zoliky": {"target_wins": 1}}


@pytest.fixture(scope="module")
def served(app):
    return app.test_client().get("/openapi.json").get_json()


class Contract:
    """Validators of the served document's schemas, by name."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.validators: dict[str, jsonschema_rs.Draft202012Validator] = {}

    def check(self, name: str, value, where="") -> None:
        if name not in self.validators:
            schema = {"$ref": f"#/components/schemas/{name}", "components": self.doc["components"]}
            self.validators[name] = jsonschema_rs.Draft202012Validator(schema)
        errors = [str(e) for e in self.validators[name].iter_errors(value)]
        assert not errors, (name, where, value, errors[:3])


@pytest.fixture(scope="module")
def contract(served):
    return Contract(served)


def engine_playout(contract: Contract, game_id: str, seats: int, seed: int) -> dict[str, int]:
    """One match through the engine: every view part, listed entry, chosen action and event
    checked against the game's schemas. Returns how many of each were checked."""
    game = GAMES[game_id]
    p = _pascal(game_id)
    rng = random.Random(seed)
    options = game.validate_options(SHORT.get(game_id, {}), seats)
    state, events = game.new_match(options, seats, seed)
    seen = {"events": 0, "views": 0, "actions": 0, "templates": 0}
    for _ in range(4000):
        for event in events:
            for viewer in [None, *range(seats)]:
                contract.check(f"{p}Event", {"seq": 1, **redact_event(event, viewer)}, viewer)
                seen["events"] += 1
        status = game.status(state)
        if status == "finished":
            return seen
        if status == "round_over":
            events = game.start_next_round(state).events
            continue
        for viewer in [None, *range(seats)]:
            # The engine's parts of the view (the service adds the rest of ViewBase around them).
            view = game.view(state, viewer)
            contract.check(f"{p}Table", view["table"], viewer)
            for player in view["players"]:  # the service adds each seat's kind (and name)
                contract.check(f"{p}Player", {**player, "kind": "human"}, viewer)
            if view["round_result"] is not None:
                contract.check(f"{p}RoundResult", view["round_result"], viewer)
            seen["views"] += 1
        seat = game.to_move(state)
        view = game.view(state, seat)
        for entry in view["legal_actions"]:
            contract.check(f"{p}LegalAction", entry)
            contract.check("Action" if not is_template(entry) else f"{p}Template", entry)
            seen["templates"] += is_template(entry)
        # Mostly the easy bot's move (random play rarely ends a match; in Spades random bids
        # break so many contracts that no team reaches the target), as in tests/test_conformance.py.
        if game_id == "spades" or rng.random() < 0.8:
            action = bots.decide(game, view, "easy", rng)
        else:
            action = rng.choice([a for a in complete(view["legal_actions"]) if a["type"] != "resign"])
        contract.check(f"{p}Action", action)
        contract.check("Action", action)
        seen["actions"] += 1
        events = game.apply(state, seat, action).events
    raise AssertionError(f"{game_id}: no end")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_view_event_and_action_of_random_engine_playouts_fits_its_games_schema(contract, game_id):
    game = GAMES[game_id]
    tables = []
    for n in range(game.min_seats, game.max_seats + 1):
        try:
            game.validate_options(SHORT.get(game_id, {}), n)
            tables.append(n)
        except Exception:
            pass  # Zhol is played by 2 or 4
    total = {"events": 0, "views": 0, "actions": 0, "templates": 0}
    for i in range(4):
        seen = engine_playout(contract, game_id, tables[i % len(tables)], 500 + i)
        total = {k: total[k] + seen[k] for k in total}
    assert total["events"] and total["views"] and total["actions"]
    if game_id == "zoliky":
        assert total["templates"]


@pytest.fixture
def api(client):
    return Api(client)


def api_playout(api: Api, contract: Contract, game: str, seed: int, budget: int) -> None:
    """The random client through the HTTP API, every answer checked."""
    p = _pascal(game)
    seats, options = TABLES[game]
    created = api.create(game, [{"kind": "human"}] * seats, options=options, seed=seed)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(seed)
    moves = 0
    view = api.view(match_id, tokens[0])
    while view["status"] not in ("finished", "aborted"):
        contract.check("View", view)
        contract.check(f"{p}View", view)
        if moves >= budget:
            if game in ("zoliky", "zhol"):
                path, token, body = "end", tokens[view["host"]], None
            else:
                path, token, body = "actions", tokens[0], {"type": "resign"}
        elif view["status"] == "round_over":
            path, token, body = "rounds", tokens[view["host"]], None
        else:
            seat = view["turn"]["seat"]
            if view["you"] != seat:
                view = api.view(match_id, tokens[seat])
                contract.check(f"{p}View", view)
            choices = [a for a in view["legal_actions"] if a["type"] != "resign" and TEMPLATE not in a]
            path, token, body = "actions", tokens[seat], rng.choice(choices)
        if body is not None:
            contract.check("Action", body)
            contract.check(f"{p}Action", body)
        resp = api.c.post(f"/v1/matches/{match_id}/{path}", json=body, headers=auth(token))
        assert resp.status_code == 200, resp.get_json()
        view = resp.get_json()
        moves += 1
    contract.check(f"{p}View", view)
    public = api.c.get(f"/v1/matches/{match_id}").get_json()
    contract.check("View", public)
    for who in [None, *tokens]:
        headers = auth(who) if who else {}
        events = api.c.get(f"/v1/matches/{match_id}/events?after=0", headers=headers).get_json()
        contract.check("Events", events)
        for event in events["events"]:
            contract.check(f"{p}Event", event)
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[0])).get_json()
    contract.check("History", history)
    for event in history["events"]:
        contract.check(f"{p}Event", event)


@pytest.mark.parametrize("game", sorted(TABLES))
def test_every_view_event_and_body_of_random_api_playouts_fits_its_games_schema(api, contract, game):
    api_playout(api, contract, game, 300, 150)


def test_every_schema_of_the_document_says_what_it_is(served):
    # Client generators turn each description into the model's doc comment.
    schemas = served["components"]["schemas"]
    assert not [name for name, schema in schemas.items() if not schema.get("description")]


def test_each_games_action_union_is_discriminated_by_type_and_each_view_by_game(served):
    schemas = served["components"]["schemas"]
    for game in GAMES.values():
        p = _pascal(game.id)
        mapping = schemas[f"{p}Action"]["discriminator"]["mapping"]
        assert set(mapping) == set(game.actions)
        assert schemas["View"]["discriminator"]["mapping"][game.id] == f"#/components/schemas/{p}View"
        events = schemas[f"{p}Event"]["discriminator"]["mapping"]
        assert set(game.event_types()) <= set(events)

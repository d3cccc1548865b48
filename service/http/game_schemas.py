"""Each game's view and events as named components of the OpenAPI document (docs/api.md, "Views
and events per game"), made of the parts written in service/http/game_parts.py and
service/http/game_events.py (what engines/<game>/view.py and the engines' event makers build) and of
the actions made from the engines (service/http/contract_actions.py).

They are kept from drifting by tests/test_typed_contract.py, which plays random matches of every game
and validates every view and every event against the schema of its game and type. Answers stay
open (no `additionalProperties: false`): clients ignore fields they do not know (docs/api.md,
"API stability"). A game registered without an entry here (CARDTABLE_EXTRA_GAMES) gets an open
table and events of the shared vocabulary's shapes.
"""

from __future__ import annotations

from typing import Any, cast

import marshmallow as ma

from engines.base import Game
from engines.registry import GAMES
from service.http.contract import _pascal, ref, tagged_union
from service.http.contract_actions import TEMPLATES, game_action_name, legal_action_name
from service.http.game_events import EVENTS, RATING, SERVICE
from service.http.game_parts import (
    BOOL,
    INT,
    PIECES,
    SCORES,
    STR,
    VIEWS,
    Schema,
    array,
    described,
    nullable,
    obj,
)

EVENT_BASE: dict[str, Schema] = {
    "seq": described("the event's number in the match, from 1", INT),
    "bot": described("true on the events of a bot's move", BOOL),
    "auto": described("true on the events the turn clock played for a seat", BOOL),
}


def event_name(game: Game | None, kind: str) -> str:
    return f"{_pascal(game.id) if game else ''}{_pascal(kind)}Event"


def _event(name_game: Game | None, kind: str, body: Schema, where: str) -> Schema:
    """One event type's schema: `seq`, the `type` constant and `body`'s fields."""
    schema = {k: v for k, v in body.items() if k != "description"}
    own = {"type": {"const": kind}, **EVENT_BASE}
    if "allOf" in schema:  # the fields of a named schema, spread into the event
        return {
            "description": f"The `{kind}` event ({where})",
            "allOf": [*schema["allOf"], {"type": "object", "properties": own, "required": ["seq", "type"]}],
        }
    return {
        "description": f"The `{kind}` event ({where})",
        "type": "object",
        "properties": {**own, **schema.get("properties", {})},
        "required": ["seq", "type", *schema.get("required", [])],
    }


def view_components() -> dict[str, Schema]:
    """Each game's table, player, round result, legal action, view and event schemas, and the
    shared ones they use."""
    out: dict[str, Schema] = dict(PIECES)
    out["Rating"] = RATING
    out["WaitingTable"] = {
        "description": "The table of a match still waiting for players: nothing dealt yet",
        "type": "object",
        "maxProperties": 0,
    }
    for kind, body in SERVICE.items():
        out[event_name(None, kind)] = _event(None, kind, body, 'docs/api.md, "Events"')
    for game in GAMES.values():
        p = _pascal(game.id)
        parts = VIEWS.get(game.id)
        where = f'docs/rules/{game.id}.md, "Events"'
        if parts is not None:
            out[f"{p}Table"] = parts["table"]
            out[f"{p}RoundResult"] = parts["round_result"]
            out[f"{p}Player"] = {
                "description": f"A seat of a {game.name} match: the common fields and the game's own"
                " (absent while the match waits for players)",
                "allOf": [ref("Player"), {"type": "object", "properties": parts["player"]}],
            }
        events = EVENTS.get(game.id, {})
        names: dict[str, str] = {k: event_name(None, k) for k in SERVICE}
        for kind in game.event_types():
            if kind in SERVICE:
                continue
            # A game without schemas here: an open event of its type.
            body = events.get(kind) or obj("", {}, {"seat": INT})
            names[kind] = event_name(game, kind)
            out[names[kind]] = _event(game, kind, body, where)
        out[f"{p}Event"] = {
            "description": f"An event of a {game.name} match, by `type` ({where})",
            **tagged_union(names),
        }
        legal: Schema = ref(game_action_name(game))
        if f"{p}Template" in _template_names():
            legal = {"anyOf": [ref(game_action_name(game)), ref(f"{p}Template")]}
        out[legal_action_name(game)] = {
            "description": f"An entry of a {game.name} view's legal_actions: an action to post as it is,"
            ' or a template to fill in first (docs/api.md, "Views")',
            **legal,
        }
        out[f"{p}View"] = _view(game, parts is not None)
    return out


def _template_names() -> set[str]:
    return {f"{_pascal(g)}Template" for g in TEMPLATES if g in GAMES}


def _view(game: Game, typed: bool) -> Schema:
    p = _pascal(game.id)
    table: Schema = (
        {"anyOf": [ref(f"{p}Table"), ref("WaitingTable")]}
        if typed
        else described("the game's public table", {"type": "object"})
    )
    result: Schema = nullable(ref(f"{p}RoundResult")) if typed else nullable({"type": "object"})
    player = ref(f"{p}Player") if typed else ref("Player")
    own = {
        "type": "object",
        "properties": {
            "game": {"const": game.id},
            "table": table,
            "players": array(player),
            "scores": SCORES,
            "round_result": result,
            "legal_actions": described(
                "what the viewer may do now; none for a spectator", array(ref(legal_action_name(game)))
            ),
        },
        "required": ["game", "table", "players", "scores", "round_result", "legal_actions"],
    }
    return {
        "description": f"A {game.name} match as one viewer sees it: the fields of ViewBase and the"
        f" game's table, players, scores, round result and legal actions (docs/rules/{game.id}.md,"
        ' "The view")',
        "allOf": [ref("ViewBase"), own],
    }


def view_schema_replacement() -> Schema:
    """The View component: the common fields, and by `game` the game's own (`<Game>View`)."""
    return {
        "type": None,
        "properties": None,
        "required": None,
        **tagged_union({g.id: f"{_pascal(g.id)}View" for g in GAMES.values()}, by="game"),
    }


def event_schema_replacement() -> Schema:
    """The Event component: any game's event. Games share type names with other fields, so the
    games' unions (each discriminated by `type`) are joined by anyOf."""
    return {
        "type": None,
        "properties": None,
        "required": None,
        "anyOf": [ref(f"{_pascal(g.id)}Event") for g in GAMES.values()],
    }


def component(schema: type[ma.Schema] | ma.Schema) -> dict[str, Any]:
    """The OpenAPI component of the marshmallow `schema` as the service's document writes it (its
    nested schemas are the document's own components by the same names)."""
    from apispec import APISpec

    from service.http.extensions import ContractPlugin

    spec = APISpec("component", "1", "3.1.0", plugins=[ContractPlugin()])
    spec.components.schema("Component", schema=schema)
    return cast(dict[str, Any], spec.to_dict()["components"]["schemas"]["Component"])  # apispec: Any


def answer_components(option_value: Schema) -> dict[str, Schema]:
    """The shapes other answers' maps hold: an option's description in GET /v1/games, a
    player's rating, the messages of a validation error, and the app's own metadata values (the
    one value the contract leaves free: the app decides what it holds)."""
    return {
        "GameOption": obj(
            'One option of a game: its JSON type, default and allowed values (docs/api.md, "Endpoints")',
            {
                "type": {"type": "string", "enum": ["integer", "boolean", "string"]},
                "default": option_value,
                "description": STR,
            },
            {"choices": array(option_value), "minimum": INT, "maximum": INT},
        ),
        "PlayerRating": obj(
            'A player\'s rating in one game (docs/integrating.md, "Ratings")',
            {"rating": {"type": "number"}, "mu": {"type": "number"}, "sigma": {"type": "number"}},
            {"matches": INT},
        ),
        "ValidationMessages": {
            "description": "What is wrong with each part of a refused request: by location, then field (a"
            " list's item by its index), down to the messages",
            "type": "object",
            "additionalProperties": {"anyOf": [array(STR), ref("ValidationMessages")]},
        },
        "MetadataValue": {
            "description": "Any JSON value: the app's own data on a player, kept as sent (free-form by"
            " design)"
        },
    }

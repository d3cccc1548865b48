"""Each game's actions as named schemas of the OpenAPI document (issue #33; docs/api.md, "Views
and events per game"): `<Game><Type>` (SpadesBid, ZholDraw, ...), each game's union `<Game>Action`
discriminated by `type`, the templates of legal_actions, and the card codes they use.
"""

from __future__ import annotations

from typing import Any

from engines.base import Game, json_copy
from engines.errors import EngineError
from engines.registry import GAMES
from service.http.contract import _pascal, ref, seat_counts, tagged_union

# --- typed actions: one named schema a game and action type ----------------------------------
#
# Made by asking each engine (`Game.actions` for the types and fields, `Game.parse_action` for
# which fields are required, which strings may be empty, how far a number goes and whether a
# joker is a card of the game) rather than from a copy of its rules. What each field is (a card,
# a pile, a meld id ...) is the one thing said here, by its name, in `_FIELDS`: a field of a
# new game not named there is described as an action value (`ActionValue`), as before #33.

CARD_CODE = "CardCode"
STANDARD_CARD_CODE = "StandardCardCode"
PILE = "Pile"
MAX_CARDS = 108  # the most cards a list in an action may hold (the two-deck games' deck)


def card_components(all_codes: frozenset[str], standard: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """CardCode (every code, the joker among them), StandardCardCode (the 52 without it) and Pile."""
    where = '(docs/rules/cards.md, "Card codes")'
    return {
        CARD_CODE: {
            "description": "A card: rank (A, 2-9, T, J, Q, K) then suit (S, H, D, C); JK a joker " + where,
            "type": "string",
            "enum": sorted(all_codes),
        },
        STANDARD_CARD_CODE: {
            "description": "A card of the 52-card deck: a CardCode that is not the joker " + where,
            "type": "string",
            "enum": sorted(standard),
        },
        PILE: {
            "description": "Where a draw takes its card from",
            "type": "string",
            "enum": ["stock", "discard"],
        },
    }


class _Field:
    """What an action field named so holds: its schema, a value every engine takes in it, the
    kind the probes look at (`card`, `string`, `integer`) and whether a template
    (engines/legal.py) may hold it empty."""

    def __init__(self, schema: dict[str, Any], sample: Any, kind: str = "", empty: bool = False):
        self.schema, self.sample, self.kind, self.empty = schema, sample, kind, empty


def _cards(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "type": "array",
        "items": ref(CARD_CODE),
        "minItems": 1,
        "maxItems": MAX_CARDS,
    }


_MELD_ID = "the id of a meld on the table, such as m2"
_FIELDS: dict[str, _Field] = {
    "card": _Field({"description": "the card"}, "QH", "card", True),
    "discard": _Field({"description": "the card discarded at the end of the move"}, "QH", "card", True),
    "pile": _Field({"description": "the pile drawn from", **ref(PILE)}, "stock"),
    "tricks": _Field(
        {"description": "the bid: tricks the seat means to take (0: Nil)", "type": "integer"}, 3, "integer"
    ),
    "onto": _Field(
        {"description": "the seat a joker is dumped in front of", "type": "integer"}, 1, "integer"
    ),
    "declare_out": _Field(
        {"description": "the seat declares it goes out with this discard", "type": "boolean"}, True
    ),
    "meld": _Field({"description": _MELD_ID, "type": "string"}, "m2", "string", True),
    "cards": _Field(_cards("the cards, each a card code"), ["QH"], "", True),
    "melds": _Field(
        {
            "description": "new melds, each a list of card codes",
            "type": "array",
            "items": _cards("a new meld's cards"),
            "maxItems": MAX_CARDS,
        },
        [["QH", "KH", "AH"]],
        "",
        True,
    ),
    "lay_offs": _Field(
        {
            "description": "cards laid off onto melds: a table meld's id or a new meld's position in melds",
            "type": "array",
            "maxItems": MAX_CARDS,
            "items": {
                "type": "object",
                "properties": {
                    "meld": {
                        "description": f"{_MELD_ID}, or the position of a new meld of this move (0, 1, ...)",
                        "anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}],
                    },
                    "cards": _cards("the cards laid off"),
                },
                "required": ["meld", "cards"],
                "additionalProperties": False,
            },
        },
        [{"meld": "m2", "cards": ["QH"]}],
        "",
        True,
    ),
}


def _emptied(schema: dict[str, Any]) -> dict[str, Any]:
    """A field's schema as a template holds it: empty (a list without items, a string without
    characters) or filled in."""
    out: dict[str, Any] = json_copy(schema)
    if out.get("type") == "array":
        out.pop("minItems", None)
    elif "$ref" in out:  # a card, or no card yet
        out["anyOf"] = [{"$ref": out.pop("$ref")}, {"type": "string", "maxLength": 0}]
    else:
        out.pop("minLength", None)
    return out


def action_name(game: Game, kind: str) -> str:
    return f"{_pascal(game.id)}{_pascal(kind)}"


def game_action_name(game: Game) -> str:
    return f"{_pascal(game.id)}Action"


def template_name(game: Game, kind: str) -> str:
    return f"{action_name(game, kind)}Template"


def _probe_state(game: Game) -> dict[str, Any]:
    """A match of the game at its most seats (a seat number in an action is one of them)."""
    seats = max(seat_counts(game))
    state, _ = game.new_match(game.validate_options({}, seats), seats, 1)
    return state


def _parses(game: Game, state: dict[str, Any], action: dict[str, Any]) -> bool:
    try:
        game.parse_action(game.clone(state), action)
    except EngineError:
        return False
    return True


def _integer_bounds(
    game: Game, state: dict[str, Any], action: dict[str, Any], name: str, maximum: int
) -> int | None:
    """The range of whole numbers from 0 the engine takes in field `name`, or None when it
    takes no such number."""
    if not _parses(game, state, {**action, name: 0}):
        return None
    inside, outside = 0, maximum + 1
    while outside - inside > 1:
        middle = (inside + outside) // 2
        if _parses(game, state, {**action, name: middle}):
            inside = middle
        else:
            outside = middle
    return inside


def _field_schema(
    game: Game, state: dict[str, Any], full: dict[str, Any], name: str, maximum: int
) -> dict[str, Any] | None:
    """The schema of field `name` of action `full` as the engine takes it: a card code with or
    without the joker, a string that may be empty or not, an integer within the bounds the engine
    accepts (None when it has none the contract can state)."""
    spec = _FIELDS[name]
    schema: dict[str, Any] = json_copy(spec.schema)
    if spec.kind == "card":
        joker = _parses(game, state, {**full, name: "JK"})
        schema.update(ref(CARD_CODE if joker else STANDARD_CARD_CODE))
    elif spec.kind == "string" and not _parses(game, state, {**full, name: ""}):
        schema["minLength"] = 1
    elif spec.kind == "integer":
        top = _integer_bounds(game, state, full, name, maximum)
        if top is None:
            return None
        schema.update(minimum=0, maximum=top)
    if name == "lay_offs":  # a new meld's position is a number of an action: bounded so
        schema["items"]["properties"]["meld"]["anyOf"][1]["maximum"] = maximum
    return schema


def _typed_action(
    game: Game, state: dict[str, Any], kind: str, fields: tuple[str, ...], maximum: int
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The schema of one action type (None when the engine refuses the vocabulary's samples:
    the caller then describes the game's actions as action values) and its template's."""
    if any(f not in _FIELDS for f in fields):
        return None
    full = {"type": kind, **{f: _FIELDS[f].sample for f in fields}}
    if not _parses(game, state, full):
        return None
    properties: dict[str, Any] = {"type": {"const": kind, "description": f"the action type: {kind}"}}
    template: dict[str, Any] = {"type": {"const": kind}}
    required = ["type"]
    for name in fields:
        without = {k: v for k, v in full.items() if k != name}
        if not _parses(game, state, without):
            required.append(name)
        schema = _field_schema(game, state, full, name, maximum)
        if schema is None:
            return None
        properties[name] = schema
        template[name] = _emptied(schema) if _FIELDS[name].empty else json_copy(schema)
    properties["template"] = {"$ref": "#/components/schemas/TemplateMark"}
    fields_text = ", ".join(f"`{f}`" for f in fields) or "no field"
    action = {
        "description": f"{game.name}: the `{kind}` action ({fields_text} besides `type`;"
        f' docs/rules/{game.id}.md, "Actions")',
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    filled = {
        "description": f"{game.name}: a `{kind}` entry of legal_actions to fill in before it is posted:"
        f' its empty fields are the player\'s choice (docs/api.md, "Views and events per game")',
        "type": "object",
        "properties": {**template, "template": {"const": True, "description": "the mark of a template"}},
        "required": ["type", *fields, "template"],
        "additionalProperties": False,
    }
    return action, filled


# The action types whose legal_actions entries are templates (engines/legal.py), by game; the
# playouts of tests/test_typed_contract.py check that every template a game lists is one of these.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "zoliky": ("meld", "lay_off", "swap_joker", "take_discard", "take_closing")
}


def action_components(maximum: int, value_components: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every game's actions as named schemas, `<Game><Type>` (SpadesBid, ZholDraw ...), each
    game's union `<Game>Action` discriminated by `type`, its templates `<Game><Type>Template`,
    and the components they use. `value_components` (ActionValue ...) are added only when a
    game declares a field `_FIELDS` does not name."""
    out: dict[str, dict[str, Any]] = {}
    untyped = False
    for game in GAMES.values():
        state = _probe_state(game) if game.actions else None
        names: dict[str, str] = {}
        templates: dict[str, str] = {}
        for kind, fields in game.actions.items():
            typed = _typed_action(game, state, kind, fields, maximum) if state is not None else None
            name = action_name(game, kind)
            if typed is None:
                untyped = True
                out[name] = _untyped_action(game, kind, fields)
            else:
                out[name] = typed[0]
                if kind in TEMPLATES.get(game.id, ()):
                    templates[kind] = template_name(game, kind)
                    out[templates[kind]] = typed[1]
            names[kind] = name
        if not names:
            untyped = True
            out[game_action_name(game)] = {"description": f"A {game.name} action", **ref("ActionValue")}
            continue
        out[game_action_name(game)] = {
            "description": f'A {game.name} action, by `type` (docs/rules/{game.id}.md, "Actions")',
            **tagged_union(names),
        }
        if templates:
            out[f"{_pascal(game.id)}Template"] = {
                "description": f"A {game.name} entry of legal_actions to fill in, by `type`",
                **tagged_union(templates),
            }
    out["TemplateMark"] = {
        "description": "true on an entry of legal_actions that must be filled in before it is posted"
        " (Žolíky's meld templates: their empty fields are the player's choice); absent on every other"
        ' entry, which can be posted as it is. On a posted action the mark is ignored (docs/api.md, "Views")',
        "type": "boolean",
    }
    if untyped:
        out.update(value_components)
    return out


def _untyped_action(game: Game, kind: str, fields: tuple[str, ...]) -> dict[str, Any]:
    return {
        "description": f"{game.name}: the `{kind}` action",
        "type": "object",
        "properties": {
            "type": {"const": kind},
            "template": ref("TemplateMark"),
            **{f: {"description": f"see docs/rules/{game.id}.md", **ref("ActionValue")} for f in fields},
        },
        "required": ["type"],
        "additionalProperties": False,
    }


def legal_action_name(game: Game) -> str:
    return f"{_pascal(game.id)}LegalAction"


def action_schema_replacement() -> dict[str, Any]:
    """The Action component: any game's action. Games share type names with other fields
    (Zhol's draw takes a pile, Žolíky's none), so the games' unions are joined by anyOf; within
    a game `type` tells the schema (`<Game>Action`'s discriminator). The fields the marshmallow
    schema names are dropped from the document (None: see service/http/extensions.py, `_merge`)."""
    return {
        "type": None,
        "properties": None,
        "required": None,
        "additionalProperties": None,
        "anyOf": [ref(game_action_name(g)) for g in GAMES.values()],
    }

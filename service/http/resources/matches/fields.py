"""The fields the match schemas (and the lobby's and players') are made of, each bounded so that
nothing out of range reaches an engine, the match record or Redis (docs/api.md "Limits"): card
codes, names and seeds, option and action values; and the marshmallow fields and hook they
need: a strict boolean, a nested schema written out as it is, and integers written with a
fraction read as the integers they are."""

import re
from typing import Any

import marshmallow as ma

from engines.cards import ALL_CODES
from service.http.contract import char_class, name_pattern
from service.matches.fair_seeds import CLIENT_SEED_LENGTH

CARD = ma.fields.String(validate=ma.validate.OneOf(sorted(ALL_CODES)), metadata={"example": "QH"})

# Event seq numbers and versions a client may send back (events `after`, Last-Event-ID).
MAX_SEQ = 2**31 - 1
NAME_LENGTH = 40
# An app's own id of a player (`PUT /v1/players/{external_id}`).
PLAYER_ID_LENGTH = 128
# Bounds of what a game option or an action field may hold at all; each game's own, tighter
# ones are in /v1/games and checked by the engine.
OPTION_INT = 10**9
ACTION_INT = 1000
ACTION_DEPTH = 4

# Characters no name may hold: C0 and C1 controls (NUL, line feeds, escapes, DEL), the line
# and paragraph separators, the bidirectional embeddings, overrides and isolates (they make a
# name display as something else and can reorder the text around it) and lone surrogates
# (not text at all: they cannot be encoded as UTF-8).
_NAME_FORBIDDEN_CHARS = [(0x00, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029), (0x202A, 0x202E), (0x2066, 0x2069)]
_NAME_FORBIDDEN = re.compile(f"[{char_class(_NAME_FORBIDDEN_CHARS)}\ud800-\udfff]")
# The same rules as a JSON Schema pattern: none of those characters, and one that is not
# whitespace as str.strip() sees it. Lone surrogates are left out: no JSON parser lets them
# through (400 here), and a pattern cannot name them portably.
NAME_PATTERN = name_pattern(_NAME_FORBIDDEN_CHARS)


def check_name(value: str) -> None:
    if _NAME_FORBIDDEN.search(value):
        raise ma.ValidationError(
            "a name may not hold control characters, line separators, bidirectional overrides "
            "or lone surrogates"
        )
    if not value.strip():
        raise ma.ValidationError("a name must hold more than spaces")


def player_field(description: str) -> ma.fields.String:
    return ma.fields.String(
        validate=ma.validate.Length(min=1, max=PLAYER_ID_LENGTH),
        metadata={"description": f"{description} (1–{PLAYER_ID_LENGTH} characters)"},
    )


def name_field(required: bool = False) -> ma.fields.String:
    return ma.fields.String(
        required=required,
        validate=[ma.validate.Length(min=1, max=NAME_LENGTH), check_name],
        metadata={
            "description": f"1–{NAME_LENGTH} characters; no control or bidi-override characters",
            "pattern": NAME_PATTERN,
        },
    )


def client_seed_field(where: str = "") -> ma.fields.String:
    return ma.fields.String(
        allow_none=True,
        validate=ma.validate.Length(max=CLIENT_SEED_LENGTH),
        metadata={
            "description": f"your seed for the deal, at most {CLIENT_SEED_LENGTH} characters: chained with"
            " the server's seed when the match starts, so nobody alone can choose the cards (docs/api.md,"
            " Fair deals)" + where,
        },
    )


def _check_option_value(value: Any) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -OPTION_INT <= value <= OPTION_INT:
            raise ma.ValidationError(f"an option's integer must lie within ±{OPTION_INT}")
    elif isinstance(value, str):
        if len(value) > NAME_LENGTH:
            raise ma.ValidationError(f"an option's string is at most {NAME_LENGTH} characters")
    else:
        raise ma.ValidationError("an option is a boolean, an integer, a string or null")


OPTION_VALUE = ma.fields.Raw(
    allow_none=True,
    validate=_check_option_value,
    metadata={
        "oneOf": [
            {"type": "boolean"},
            {"type": "integer", "minimum": -OPTION_INT, "maximum": OPTION_INT},
            {"type": "string", "maxLength": NAME_LENGTH},
            {"type": "null"},
        ]
    },
)


# A map of a match's options by name, as answers show them (defaults filled in).
OPTIONS = {"additionalProperties": OPTION_VALUE.metadata}


def check_action_value(value: Any, depth: int = 0) -> None:
    """An action field is a card code, a number, a meld id, or lists and objects of those:
    shallow, with small integers (an index or a bid). Deeper or larger is refused here."""
    if depth > ACTION_DEPTH:
        raise ma.ValidationError(f"nested more than {ACTION_DEPTH} levels deep")
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= ACTION_INT:
            raise ma.ValidationError(f"numbers in an action lie from 0 to {ACTION_INT}")
    elif isinstance(value, float):
        raise ma.ValidationError("numbers in an action are integers")
    elif isinstance(value, list):
        for item in value:
            check_action_value(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            check_action_value(item, depth + 1)


def action_field(description: str) -> ma.fields.Raw:
    """A field of some game's actions, bounded before the engine sees it; the document describes
    it in each game's typed actions (service/http/contract_actions.py)."""
    return ma.fields.Raw(validate=check_action_value, metadata={"description": description})


class StrictBoolean(ma.fields.Boolean):
    """true or false, as the contract says: marshmallow's Boolean also takes 1, "yes", "on"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


class AsIs(ma.fields.Nested):
    """Documented as its named schema (a generated client gets a model), written out as the dict
    it is: events and actions carry more fields than the schema names, by type and game."""

    # marshmallow's Field and Nested name the first parameter differently: it is passed by position
    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return value


# How deep a body is read for such numbers: deeper than any integer these bodies hold (an
# action's fields are at most 4 levels deep), and far from Python's recursion limit (the parser
# takes 1,024 levels; the schemas refuse what is that deep).
_DEPTH = 8


def as_integers(value: Any, depth: int = 0) -> Any:
    """`value` with every integral number written with a fraction (`4.0`) made the integer it is.

    JSON Schema's `integer` takes `4.0`, and Swift's JSONEncoder writes a Double so; the fields,
    options and engines behind the bodies below take Python ints only. A real fraction (`4.5`)
    stays a float, which no integer field takes, and a boolean is no number (docs/api.md,
    "Limits")."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if depth >= _DEPTH:
        return value
    if kind is list:
        return [as_integers(v, depth + 1) for v in value]
    if kind is dict:
        return {k: as_integers(v, depth + 1) for k, v in value.items()}
    return value


class WholeNumbers:
    """A body schema whose every number is an integer (a move, a new match, quick play): integral
    numbers written with a fraction are read as integers before the fields see them. Not for a
    body with free-form values (a player's metadata is kept as sent)."""

    @ma.pre_load
    def _whole_numbers(self, data: Any, **kwargs: Any) -> Any:
        return as_integers(data)

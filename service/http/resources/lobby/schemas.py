"""Schemas of the lobby and quick play (docs/api.md, "Lobby and quick play")."""

from typing import Any

import marshmallow as ma

from engines.base import BOT_LEVELS
from engines.registry import GAMES
from service.http.contract import quick_play_extra
from service.http.extensions import Schema
from service.http.resources.matches.fields import OPTIONS, WholeNumbers, client_seed_field, name_field
from service.matches.lobby import CURSOR_PATTERN


class LobbyQuerySchema(Schema):
    """Which listed matches to show, and which page."""

    game = ma.fields.String(
        validate=ma.validate.OneOf(sorted(GAMES)),
        metadata={"description": "one game only", "example": "spades"},
    )
    status = ma.fields.String(
        load_default="waiting",
        validate=ma.validate.OneOf(["waiting"]),
        metadata={"description": "the lobby lists waiting matches only"},
    )
    limit = ma.fields.Integer(
        load_default=20,
        validate=ma.validate.Range(min=1, max=100),
        metadata={"description": "matches per page", "example": 1},
    )
    cursor = ma.fields.String(
        validate=ma.validate.Length(min=1, max=200),
        metadata={
            "description": "next_cursor of the previous page (base64url: a place in the lobby's order)",
            "pattern": CURSOR_PATTERN,
        },
    )


class LobbySeatSchema(Schema):
    """A seat of a listed match, public facts only."""

    seat = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    name = ma.fields.String(allow_none=True, required=True, metadata={"description": "null for an open seat"})
    level = ma.fields.String(validate=ma.validate.OneOf(BOT_LEVELS), metadata={"description": "bots only"})


class LobbyMatchSchema(Schema):
    """A listed waiting match: game, options, seats and when it was created; never a token or card."""

    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    options = ma.fields.Dict(
        required=True,
        metadata={"description": "the match's options, defaults filled in", **OPTIONS},
    )
    players = ma.fields.Integer(required=True, metadata={"description": "number of seats"})
    open = ma.fields.Integer(required=True, metadata={"description": "seats still open"})
    seats = ma.fields.List(ma.fields.Nested(LobbySeatSchema), required=True)
    created = ma.fields.Float(required=True, metadata={"description": "Unix time of creation"})


class LobbyPageSchema(Schema):
    """One page of the lobby, newest first, and the cursor of the next."""

    matches = ma.fields.List(ma.fields.Nested(LobbyMatchSchema), required=True)
    next_cursor = ma.fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "pass as cursor for the next page; null: last", "pattern": CURSOR_PATTERN},
    )


class QuickPlaySchema(WholeNumbers, Schema):
    """The game, options, name and table size a quick player wants, and its seed for the deal."""

    game = ma.fields.String(required=True, validate=ma.validate.OneOf(sorted(GAMES)))
    options = ma.fields.Dict(keys=ma.fields.String(), load_default=dict, metadata=OPTIONS)
    # The same name rules as create and join (docs/api.md, "Limits").
    name = name_field()
    players = ma.fields.Integer(
        strict=True,
        validate=ma.validate.Range(min=2, max=8),
        metadata={"description": "number of seats; default the game's smallest table"},
    )
    client_seed = client_seed_field()

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        return quick_play_extra()  # each game's seat counts and options (service/http/contract.py)


class QuickPlayedSchema(Schema):
    """The seat quick play found (or the new match it hosts) and its token."""

    id = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(
        metadata={"description": "bearer token of your seat; shown only once; none with a player token"}
    )
    player = ma.fields.String(metadata={"description": "with a player token: its player (external id)"})
    version = ma.fields.Integer(required=True)
    created = ma.fields.Boolean(
        required=True, metadata={"description": "true: no match had a seat, this one is new and you host it"}
    )

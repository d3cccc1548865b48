"""Schemas of the game catalogue."""

import marshmallow as ma

from service.http.contract import ref
from service.http.extensions import Schema


class PlayerCountSchema(Schema):
    """The fewest and most seats the game is played with."""

    min = ma.fields.Integer(required=True)
    max = ma.fields.Integer(required=True)


class GameSchema(Schema):
    """A game this server hosts: players, variants, options with their bounds, bot levels."""

    id = ma.fields.String(required=True, metadata={"example": "spades"})
    name = ma.fields.String(required=True)
    players = ma.fields.Nested(PlayerCountSchema, required=True)
    variants = ma.fields.List(ma.fields.String(), required=True)
    options = ma.fields.Dict(
        keys=ma.fields.String(),
        required=True,
        metadata={
            "description": "option name → {type, default, description, choices?, minimum?, maximum?}",
            "additionalProperties": ref("GameOption"),
        },
    )
    bot_levels = ma.fields.List(ma.fields.String(), required=True)


class GameListSchema(Schema):
    """Every game this server hosts."""

    games = ma.fields.List(ma.fields.Nested(GameSchema), required=True)

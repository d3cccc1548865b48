"""Schemas of an app's matches and of its players' data (docs/integrating.md, "Data of
players")."""

import marshmallow as ma

from engines.registry import GAMES
from service.http.extensions import Schema
from service.http.paging import cursor_sent, next_page_cursor, page_limit
from service.http.resources.matches.following_schemas import HistorySchema
from service.http.resources.matches.schemas import ViewSchema
from service.http.resources.players.schemas import MATCH_STATUSES, AppPlayerSchema, ListedMatch


class AppMatchesQuerySchema(Schema):
    """Which of the app's matches, and which page."""

    status = ma.fields.String(validate=ma.validate.OneOf(MATCH_STATUSES))
    game = ma.fields.String(validate=ma.validate.OneOf(sorted(GAMES)))
    player = ma.fields.String(
        validate=ma.validate.Length(min=1, max=128),
        metadata={"description": "an external id: the matches this player of the app sits in"},
    )
    limit = page_limit(50)
    cursor = cursor_sent("next_cursor")


class AppMatchSeatSchema(Schema):
    """A seat of one of the app's matches."""

    seat = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "bot", "open"]))
    name = ma.fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    player = ma.fields.String(metadata={"description": "the external id of the app's player in the seat"})


class AppMatchSchema(ListedMatch):
    """One of the app's matches."""

    created = ma.fields.Float(required=True, metadata={"description": "Unix time the match was created"})
    updated = ma.fields.Float(required=True, metadata={"description": "Unix time of the match's last change"})
    version = ma.fields.Integer(required=True)
    own = ma.fields.Boolean(
        required=True,
        metadata={
            "description": "created by the app (its key or one of its players), so the app may abort it;"
            " false for another's match one of its players joined"
        },
    )
    seats = ma.fields.List(ma.fields.Nested(AppMatchSeatSchema), required=True)


class AppMatchesSchema(Schema):
    """A page of the app's matches, newest first."""

    matches = ma.fields.List(ma.fields.Nested(AppMatchSchema), required=True)
    next_cursor = next_page_cursor()


class ExportedMatchSchema(ListedMatch):
    """A match the player holds a seat in: its public history once over, else its public view."""

    seat = ma.fields.Integer(required=True, metadata={"description": "the player's seat"})
    name = ma.fields.String(required=True, metadata={"description": "the name the seat shows"})
    view = ma.fields.Nested(
        ViewSchema,
        required=True,
        allow_none=True,
        metadata={"description": "the public view; null once over"},
    )
    history = ma.fields.Nested(
        HistorySchema,
        required=True,
        allow_none=True,
        metadata={"description": "the history; null while live"},
    )


class PlayerExportSchema(Schema):
    """Everything the service holds of one player: the player, its ratings and its matches."""

    player = ma.fields.Nested(AppPlayerSchema, required=True)
    matches = ma.fields.List(ma.fields.Nested(ExportedMatchSchema), required=True)


class ErasedSchema(Schema):
    """What an erasure did: the player is gone, and its name from its matches."""

    player = ma.fields.String(required=True, metadata={"description": "the external id, free again"})
    matches = ma.fields.Integer(
        required=True, metadata={"description": "stored matches scrubbed of the player"}
    )
    leaderboards = ma.fields.Integer(required=True, metadata={"description": "leaderboards it was taken off"})

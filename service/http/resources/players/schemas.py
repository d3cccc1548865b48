"""Schemas of players and `me` (docs/integrating.md)."""

import json
from typing import Any

import marshmallow as ma

from service.http.contract import ref
from service.http.extensions import Schema
from service.http.paging import cursor_sent, next_page_cursor, page_limit
from service.http.resources.matches.fields import name_field
from service.http.resources.matches.following_schemas import SseFrameSchema
from service.identity.players import MAX_METADATA
from service.matches.notices import TYPES

# The app's metadata of a player: any JSON values, its own (the typed contract leaves them free).
METADATA = {"additionalProperties": ref("MetadataValue")}

MATCH_STATUSES = ["waiting", "active", "round_over", "finished", "aborted"]


class ListedMatch(Schema):
    # What every list of matches says of each first (a player's, an app's, a player's export);
    # no docstring: not a component of its own, its fields open each list's.
    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(MATCH_STATUSES))


def _small(value: dict[str, Any]) -> None:
    if len(json.dumps(value)) > MAX_METADATA:
        raise ma.ValidationError(f"at most {MAX_METADATA} bytes as JSON")


class PutPlayerSchema(Schema):
    """A player as the app's backend makes or updates it."""

    name = name_field(required=True)
    metadata = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        validate=_small,
        metadata={
            "description": f"the app's own data on the player (at most {MAX_METADATA} bytes as JSON)",
            **METADATA,
        },
    )


class AppPlayerSchema(Schema):
    """A player of the app: its external id, display name and metadata."""

    player = ma.fields.String(required=True, metadata={"description": "the app's own id of the player"})
    name = ma.fields.String(required=True)
    metadata = ma.fields.Dict(required=True, metadata=METADATA)
    created = ma.fields.Float(required=True, metadata={"description": "Unix time the player was made"})
    ratings = ma.fields.Dict(
        required=True,
        metadata={
            "description": "rating per game of rated matches (empty until one ends)",
            "additionalProperties": ref("PlayerRating"),
        },
    )


class PlayerTokenSchema(Schema):
    """A player token: the app's backend hands it to its client (shown only once)."""

    player = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    token = ma.fields.String(
        required=True,
        metadata={"description": "Authorization: Bearer <token> acts as the player; shown once"},
    )


class MeSchema(Schema):
    """The calling player."""

    player = ma.fields.String(required=True, metadata={"description": "the app's own id of the player"})
    name = ma.fields.String(required=True)
    app = ma.fields.String(required=True, metadata={"description": "the app the player belongs to"})
    metadata = ma.fields.Dict(required=True, metadata=METADATA)
    created = ma.fields.Float(required=True, metadata={"description": "Unix time the player was made"})


class MyMatchesQuerySchema(Schema):
    """Which of the player's matches, and which page."""

    status = ma.fields.String(validate=ma.validate.OneOf(MATCH_STATUSES))
    limit = page_limit(50)
    cursor = cursor_sent("next")


class MyMatchSchema(ListedMatch):
    """One of the player's matches."""

    seat = ma.fields.Integer(required=True, metadata={"description": "the player's seat"})
    your_turn = ma.fields.Boolean(
        required=True, metadata={"description": "the match waits for the player (a move, or the next round)"}
    )
    deadline = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time the player's turn clock runs out"}
    )
    version = ma.fields.Integer(required=True)
    updated = ma.fields.Float(required=True, metadata={"description": "Unix time of the match's last change"})


class MyMatchesSchema(Schema):
    """A page of the player's matches: live ones first, newest first."""

    matches = ma.fields.List(ma.fields.Nested(MyMatchSchema), required=True)
    next = next_page_cursor()


class LeaderboardQuerySchema(Schema):
    """Which page of the board."""

    limit = page_limit(100)
    cursor = cursor_sent("next_cursor", 300)


class RankedPlayerSchema(Schema):
    """A player on a leaderboard."""

    rank = ma.fields.Integer(required=True, metadata={"description": "1-based place on the board"})
    player = ma.fields.String(required=True, metadata={"description": "the app's own id of the player"})
    name = ma.fields.String(required=True)
    rating = ma.fields.Float(required=True, metadata={"description": "openskill's ordinal: mu - 3 sigma"})


class LeaderboardSchema(Schema):
    """A page of the app's leaderboard of one game, best first."""

    players = ma.fields.List(ma.fields.Nested(RankedPlayerSchema), required=True)
    next_cursor = next_page_cursor()


NOTICE_TYPES = list(TYPES)


class FeedEntrySchema(Schema):
    """One entry of a player's feed: a notice of one of its matches, numbered in the feed."""

    seq = ma.fields.Integer(required=True, metadata={"description": "the entry's number in the feed, from 1"})
    id = ma.fields.String(
        required=True,
        metadata={"description": "the notice's id (its webhook's `webhook-id`): unique per notice"},
    )
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(NOTICE_TYPES))
    timestamp = ma.fields.String(
        required=True, metadata={"description": "when the match changed, RFC 3339 UTC to the millisecond"}
    )
    data = ma.fields.Dict(
        required=True,
        metadata={
            "description": '`match`, `game` and the fields of the type (docs/api.md, "A player\'s events");'
            " free-form in this document by design: a notice type may gain fields"
        },
    )


class FeedStreamEventSchema(SseFrameSchema):
    """One entry of a player's stream (GET /v1/me/stream), framed as `id:`, `event:` and `data:`
    lines and a blank line: a `FeedEntry`, as the long-poll gives it, in `data`; `id` is its seq,
    `event` its type. The stream's schema describes each entry (OpenAPI 3.1 has no itemSchema);
    the `retry:` line that opens it and the `: keep-alive` comments are no entries."""

    CONTENT = "FeedEntry"


class MyEventsSchema(Schema):
    """The player's feed after `after`, oldest first."""

    events = ma.fields.List(ma.fields.Nested(FeedEntrySchema), required=True)
    last = ma.fields.Integer(
        required=True,
        metadata={"description": "the newest entry's seq (0: none yet); ask after it for what comes next"},
    )
    next_after = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "when more entries follow this page: the `after` to ask for next"},
    )

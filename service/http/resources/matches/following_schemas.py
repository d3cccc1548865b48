"""The schemas of following a match: events (long-polled or streamed) and the history
published after it (docs/api.md, "Events"; "Fair deals")."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from service.http.contract import ref
from service.http.extensions import Schema
from service.http.game_schemas import event_schema_replacement
from service.http.resources.matches.fields import MAX_SEQ, OPTIONS, AsIs
from service.matches.store import EVENTS_PAGE

SEQ = ma.validate.Range(min=0, max=MAX_SEQ)


class EventsQuerySchema(Schema):
    """Which events to return and how long to wait for one."""

    after = ma.fields.Integer(
        load_default=0, validate=SEQ, metadata={"description": "last seq you have", "example": 3}
    )
    wait = ma.fields.Float(
        load_default=0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait for an event when there is none yet", "example": 20},
    )
    limit = ma.fields.Integer(
        load_default=EVENTS_PAGE,
        validate=ma.validate.Range(min=1, max=EVENTS_PAGE),
        metadata={"description": f"most events in the answer (at most {EVENTS_PAGE:,})", "example": 100},
    )


class StreamQuerySchema(Schema):
    """Where an event stream starts."""

    after = ma.fields.Integer(
        load_default=0, validate=SEQ, metadata={"description": "last seq you have; Last-Event-ID wins"}
    )


class StreamHeadersSchema(Schema):
    """EventSource's resume header."""

    last_event_id = ma.fields.Integer(
        data_key="Last-Event-ID",
        validate=SEQ,
        metadata={"description": "seq of the last event received", "example": 3},
    )


class EventSchema(Schema):
    """One event: `seq`, `type`, mostly `seat`, and the fields of its type (docs/api.md, "Events"; the
    game's page under docs/rules/)."""

    class Meta:
        unknown = ma.INCLUDE

    seq = ma.fields.Integer(required=True)
    type = ma.fields.String(required=True)
    seat = ma.fields.Integer()

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        # Documented as each game's events by type (service/http/game_schemas.py).
        return event_schema_replacement()


class EventsSchema(Schema):
    """Events after `after`, oldest first, with the match's current version."""

    events = ma.fields.List(
        AsIs(EventSchema), required=True, metadata={"description": "each has seq and type"}
    )
    version = ma.fields.Integer(required=True)
    next_after = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "when more events follow this page: the `after` to ask for next"},
    )


class RevealedDealSchema(Schema):
    """A deal or reshuffle revealed after the match: the salt and order its commitment was computed from."""

    seq = ma.fields.Integer(required=True, metadata={"description": "the event that carried the commitment"})
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["deal", "reshuffle"]))
    round = ma.fields.Integer(required=True)
    deal_commitment = ma.fields.String(required=True)
    salt = ma.fields.String(required=True, metadata={"description": "32 bytes as 64 hex digits"})
    order = ma.fields.List(
        ma.fields.String(), required=True, metadata={"description": "the deck as shuffled, top card first"}
    )


class HistorySeatSchema(Schema):
    """A seat of a match as its history keeps it: who sat there."""

    seat = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    name = ma.fields.String(allow_none=True)
    level = ma.fields.String(metadata={"description": "bots only"})
    player = ma.fields.String(metadata={"description": "the seat's player: shown to callers of its app only"})


class HistorySchema(Schema):
    """A finished or aborted match in full: seats, options, seed, initial deck, revealed deals and every
    event unredacted."""

    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    options = ma.fields.Dict(required=True, metadata=OPTIONS)
    seats = ma.fields.List(AsIs(HistorySeatSchema), required=True)
    seed = ma.fields.Integer(required=True)
    seeded_by_client = ma.fields.Boolean(required=True)
    server_seed = ma.fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "the seed the server drew at creation; its SHA-256 is the view's server_seed_hash"
        },
    )
    client_seeds = ma.fields.List(
        ma.fields.String(allow_none=True),
        required=True,
        metadata={"description": "each seat's client seed in seat order, null where the seat sent none"},
    )
    deck = ma.fields.List(ma.fields.String(), allow_none=True, required=True)
    deals = ma.fields.List(
        ma.fields.Nested(RevealedDealSchema),
        required=True,
        metadata={"description": "every deal and reshuffle: commitment, salt and deck order"},
    )
    events = ma.fields.List(AsIs(EventSchema), required=True)
    version = ma.fields.Integer(required=True)


class SseFrameSchema(Schema):
    """One event of an event stream as Server-Sent Events frame it: `id`, `event` and `data`
    lines, then a blank line (docs/api.md, "Events"). The stream's `schema` describes each such
    event, as OpenAPI before 3.2 (which adds `itemSchema`) reads a text/event-stream; a
    `retry: 1000` line opens the stream and `: keep-alive` comments keep it open, neither an
    event."""

    # The component `data` holds, as JSON (a subclass names it).
    CONTENT = ""

    id = ma.fields.String(
        required=True,
        metadata={"description": "the event's seq (Last-Event-ID resumes after it)", "pattern": "^[0-9]+$"},
    )
    event = ma.fields.String(required=True, metadata={"description": "the event's type"})
    data = ma.fields.String(required=True, metadata={"description": "the event itself, one line of JSON"})

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        content = {"contentMediaType": "application/json", "contentSchema": ref(cls.CONTENT)}
        return {"properties": {"data": content}}


class StreamEventSchema(SseFrameSchema):
    """One event of a match's stream (GET …/stream), framed as `id:`, `event:` and `data:` lines
    and a blank line: an `Event`, as the long-poll gives it, in `data`; `id` is its seq, `event`
    its type. The stream's schema describes each event (OpenAPI 3.1 has no itemSchema); the
    `retry:` line that opens it and the `: keep-alive` comments are no events."""

    CONTENT = "Event"

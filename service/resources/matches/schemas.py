"""Schemas of matches: creation, seats, views, actions, events. They are the OpenAPI contract."""

import marshmallow as ma

from engines.base import BOT_LEVELS
from engines.cards import ALL_CODES
from engines.registry import GAMES
from service.extensions import Schema

CARD = ma.fields.String(validate=ma.validate.OneOf(sorted(ALL_CODES)), metadata={"example": "QH"})


class AsIs(ma.fields.Nested):
    """Documented as its named schema (a generated client gets a model), written out as the dict
    it is: events and actions carry more fields than the schema names, by type and game."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value


class SeatInSchema(Schema):
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    name = ma.fields.String(validate=ma.validate.Length(min=1, max=40))
    level = ma.fields.String(validate=ma.validate.OneOf(BOT_LEVELS))

    @ma.validates_schema
    def _level_only_for_bots(self, data, **kwargs):
        if "level" in data and data["kind"] != "bot":
            raise ma.ValidationError("only bot seats have a level", "level")


class CreateMatchSchema(Schema):
    game = ma.fields.String(required=True, validate=ma.validate.OneOf(sorted(GAMES)))
    options = ma.fields.Dict(keys=ma.fields.String(), load_default=dict)
    seats = ma.fields.List(
        ma.fields.Nested(SeatInSchema), required=True, validate=ma.validate.Length(min=1, max=8)
    )
    seed = ma.fields.Integer(validate=ma.validate.Range(min=0, max=2**63 - 1), allow_none=True)
    deck = ma.fields.List(
        CARD,
        allow_none=True,
        metadata={"description": "stock order, top card first; needs CARDTABLE_ALLOW_STACKED_DECK=1"},
    )
    listed = ma.fields.Boolean(
        load_default=False,
        metadata={"description": "show the match in the lobby (GET /v1/matches) while it has open seats"},
    )


class SeatOutSchema(Schema):
    seat = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True)
    token = ma.fields.String(metadata={"description": "bearer token of a human seat; shown only once"})


class CreatedSchema(Schema):
    id = ma.fields.String(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatOutSchema), required=True)
    version = ma.fields.Integer(required=True)


class JoinSchema(Schema):
    name = ma.fields.String(validate=ma.validate.Length(min=1, max=40))


class JoinedSchema(Schema):
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)


class TurnSchema(Schema):
    seat = ma.fields.Integer(allow_none=True, required=True)
    phase = ma.fields.String(allow_none=True, required=True)
    deadline = ma.fields.Float(
        allow_none=True, required=True, metadata={"description": "Unix time the turn clock runs out, or null"}
    )


class PlayerSchema(Schema):
    class Meta:
        unknown = ma.INCLUDE

    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(allow_none=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    level = ma.fields.String()
    cards = ma.fields.Integer(required=True, metadata={"description": "number of cards in hand"})
    resigned = ma.fields.Boolean()
    left = ma.fields.Boolean()
    hints_used = ma.fields.Integer(
        metadata={"description": "hints this seat asked for (GET /v1/matches/{id}/hint)"}
    )


class DiscardSchema(Schema):
    top = ma.fields.String(allow_none=True, required=True)
    count = ma.fields.Integer(required=True)


class ViewSchema(Schema):
    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    options = ma.fields.Dict(required=True)
    status = ma.fields.String(
        required=True, validate=ma.validate.OneOf(["waiting", "active", "round_over", "finished", "aborted"])
    )
    version = ma.fields.Integer(required=True)
    round = ma.fields.Integer(required=True)
    you = ma.fields.Integer(
        allow_none=True, required=True, metadata={"description": "your seat; null: spectator"}
    )
    host = ma.fields.Integer(allow_none=True, required=True)
    turn = ma.fields.Nested(TurnSchema, required=True)
    players = ma.fields.List(ma.fields.Nested(PlayerSchema), required=True)
    hand = ma.fields.List(ma.fields.String(), allow_none=True, required=True)
    stock = ma.fields.Integer(required=True)
    discard = ma.fields.Nested(DiscardSchema, allow_none=True, required=True)
    table = ma.fields.Dict(required=True, metadata={"description": "public game state (melds, bids, trick…)"})
    scores = ma.fields.Dict(required=True)
    # Named (not a bare dict) so a generated client can send a legal action back as it is.
    legal_actions = ma.fields.List(AsIs("ActionSchema"), required=True)
    round_result = ma.fields.Dict(allow_none=True, required=True)
    winners = ma.fields.List(ma.fields.Integer(), allow_none=True, required=True)
    deal_commitment = ma.fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "SHA-256 hex committing to this round's deck order; /history reveals salt and"
            " order (docs/api.md, Fair deals). null before the first deal"
        },
    )
    seeded_by_client = ma.fields.Boolean(
        required=True,
        metadata={"description": "true when the creator chose the seed or stacked the deck"},
    )


class ActionSchema(Schema):
    """One action; which fields apply depends on the game and `type` (docs/rules/<game>.md, "Actions")."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(
        required=True,
        metadata={
            "description": "resign | bid | play | draw | discard | meld | lay_off | swap_joker | "
            "take_discard | take_closing (by game)"
        },
    )
    tricks = ma.fields.Raw(metadata={"description": "spades bid: 0–13"})
    card = ma.fields.Raw(metadata={"description": "card code"})
    pile = ma.fields.Raw(metadata={"description": "stock | discard"})
    melds = ma.fields.Raw(metadata={"description": "žolíky: list of melds, each a list of card codes"})
    lay_offs = ma.fields.Raw(metadata={"description": "žolíky: list of {meld, cards}"})
    meld = ma.fields.Raw(metadata={"description": 'žolíky: meld id ("m2") or index of a new meld'})
    cards = ma.fields.Raw(metadata={"description": "žolíky: cards to lay off"})
    discard = ma.fields.Raw(metadata={"description": "žolíky take_closing: the closing discard"})


class ActionHeadersSchema(Schema):
    if_match = ma.fields.String(data_key="If-Match", metadata={"description": 'expected version, e.g. "17"'})
    idempotency_key = ma.fields.String(
        data_key="Idempotency-Key", validate=ma.validate.Length(min=1, max=200)
    )


class EventsQuerySchema(Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0))
    wait = ma.fields.Float(load_default=0, validate=ma.validate.Range(min=0, max=30))


class EventSchema(Schema):
    class Meta:
        unknown = ma.INCLUDE

    seq = ma.fields.Integer(required=True)
    type = ma.fields.String(required=True)
    seat = ma.fields.Integer()


class EventsSchema(Schema):
    events = ma.fields.List(
        AsIs(EventSchema), required=True, metadata={"description": "each has seq and type"}
    )
    version = ma.fields.Integer(required=True)


class RevealedDealSchema(Schema):
    seq = ma.fields.Integer(required=True, metadata={"description": "the event that carried the commitment"})
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["deal", "reshuffle"]))
    round = ma.fields.Integer(required=True)
    deal_commitment = ma.fields.String(required=True)
    salt = ma.fields.String(required=True, metadata={"description": "32 bytes as 64 hex digits"})
    order = ma.fields.List(
        ma.fields.String(), required=True, metadata={"description": "the deck as shuffled, top card first"}
    )


class HistorySchema(Schema):
    id = ma.fields.String(required=True)
    game = ma.fields.String(required=True)
    options = ma.fields.Dict(required=True)
    seats = ma.fields.List(ma.fields.Dict(), required=True)
    seed = ma.fields.Integer(required=True)
    seeded_by_client = ma.fields.Boolean(required=True)
    deck = ma.fields.List(ma.fields.String(), allow_none=True, required=True)
    deals = ma.fields.List(
        ma.fields.Nested(RevealedDealSchema),
        required=True,
        metadata={"description": "every deal and reshuffle: commitment, salt and deck order"},
    )
    events = ma.fields.List(AsIs(EventSchema), required=True)
    version = ma.fields.Integer(required=True)

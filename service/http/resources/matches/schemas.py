"""Schemas of matches: creation, seats, views, actions. They are the OpenAPI contract.

Every number a client sends is bounded, by these schemas and the fields they are made of
(fields.py), so nothing out of range reaches an engine, the match record or Redis (docs/api.md
"Limits"). A match's events, stream and history: following_schemas.py.
"""

from typing import Any

import marshmallow as ma

from engines.base import BOT_LEVELS
from engines.cards import ALL_CODES, STANDARD_52
from engines.registry import GAMES
from service.http.contract import (
    action_value_components,
    create_match_extra,
    default_inside,
    ref,
)
from service.http.contract_actions import (
    CARD_CODE,
    action_components,
    action_schema_replacement,
    card_components,
)
from service.http.extensions import Schema
from service.http.game_schemas import answer_components, component, view_components, view_schema_replacement
from service.http.resources.matches.fields import (
    ACTION_DEPTH,
    ACTION_INT,
    CARD,
    NAME_LENGTH,
    OPTION_VALUE,
    AsIs,
    StrictBoolean,
    WholeNumbers,
    action_field,
    as_integers,
    check_action_value,
    client_seed_field,
    name_field,
    player_field,
)

# The components Action refers to: the card codes, each game's actions made from its engine
# (service/http/contract.py), and the action values of fields no game names, with the same bounds.
ACTION_VALUES = {
    **card_components(ALL_CODES, STANDARD_52),
    **action_components(ACTION_INT, action_value_components(ACTION_INT, ACTION_DEPTH)),
    **view_components(),
}


class SeatInSchema(Schema):
    """A seat as the creator asks for it: `human` (token now), `open` (someone joins) or `bot` with a
    `level`."""

    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    name = name_field()
    level = ma.fields.String(validate=ma.validate.OneOf(BOT_LEVELS))
    player = player_field(
        "with the app's key: the seat is bound to this player of the app (PUT /v1/players/{external_id});"
        " no seat token is answered for it, the player's token acts in it"
    )

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        # A level is a bot's, a player a person's (the checks below).
        return {
            "allOf": [
                {"if": {"required": ["level"]}, "then": {"properties": {"kind": {"const": "bot"}}}},
                {"if": {"required": ["player"]}, "then": {"properties": {"kind": {"const": "human"}}}},
            ]
        }

    @ma.validates_schema
    def _player_only_for_humans(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "player" in data and data["kind"] != "human":
            raise ma.ValidationError("only a human seat is bound to a player", "player")

    @ma.validates_schema
    def _level_only_for_bots(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "level" in data and data["kind"] != "bot":
            raise ma.ValidationError("only bot seats have a level", "level")


class CreateMatchSchema(WholeNumbers, Schema):
    """A new match: the game, its options and every seat (docs/api.md, "Endpoints")."""

    game = ma.fields.String(required=True, validate=ma.validate.OneOf(sorted(GAMES)))
    options = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=NAME_LENGTH)),
        values=OPTION_VALUE,
        load_default=dict,
        metadata={"description": "the game's options (GET /v1/games lists them with their bounds)"},
    )
    seats = ma.fields.List(
        ma.fields.Nested(SeatInSchema), required=True, validate=ma.validate.Length(min=1, max=8)
    )
    seed = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=0, max=2**63 - 1), allow_none=True)
    deck = ma.fields.List(
        CARD,
        allow_none=True,
        validate=ma.validate.Length(max=216),
        metadata={"description": "stock order, top card first; needs CARDTABLE_ALLOW_STACKED_DECK=1"},
    )
    listed = StrictBoolean(
        load_default=False,
        metadata={"description": "show the match in the lobby (GET /v1/matches) while it has open seats"},
    )
    # The creator's first human seat's (service/matches/match.py, `Match.new`).
    client_seed = client_seed_field("; it is your first human seat's: a string needs one in `seats`")

    @ma.validates_schema
    def _client_seed_needs_a_human_seat(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("client_seed") is not None and not any(s["kind"] == "human" for s in data["seats"]):
            raise ma.ValidationError(
                "a client seed belongs to a human seat you create; to bring one to an open seat, send it"
                " with /join",
                "client_seed",
            )

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        # Each game's seat counts and options, made from its engine (service/http/contract.py); and
        # a seed of the creator's own is refused while a seat is open (docs/api.md, "Fair
        # deals"), unless the server runs with CARDTABLE_ALLOW_STACKED_DECK=1.
        extra = create_match_extra()
        extra["properties"] = {"listed": {"default": None, **default_inside(False, "boolean")}}
        seeded = {"required": ["seed"], "properties": {"seed": {"type": "integer"}}}
        no_open = {"properties": {"seats": {"items": {"properties": {"kind": {"not": {"const": "open"}}}}}}}
        extra["allOf"].append({"if": seeded, "then": no_open})
        return extra


class SeatOutSchema(Schema):
    """A created seat; a human seat's token is shown here only."""

    seat = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True)
    token = ma.fields.String(metadata={"description": "bearer token of a human seat; shown only once"})
    player = ma.fields.String(metadata={"description": "the player (external id) the seat is bound to"})
    reserved = ma.fields.Boolean(metadata={"description": "an open seat of a rematch held for its person"})


class CreatedSchema(Schema):
    """The new match: its id, its seats (tokens of the human seats) and version 0."""

    id = ma.fields.String(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatOutSchema), required=True)
    version = ma.fields.Integer(required=True)


class JoinSchema(Schema):
    """The name to sit down with, and the seat's seed for the deal."""

    name = name_field()
    client_seed = client_seed_field()


class JoinedSchema(Schema):
    """The seat taken, its token (shown only once) and the match version."""

    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(
        metadata={
            "description": "the seat's token, shown only once; none for a seat bound to the calling player"
        }
    )
    player = ma.fields.String(
        metadata={"description": "joined with a player token: its player (external id)"}
    )
    version = ma.fields.Integer(required=True)


class InvitedSchema(Schema):
    """An invitation for your seat: give the code to whoever should take the seat over."""

    seat = ma.fields.Integer(required=True)
    code = ma.fields.String(
        required=True, metadata={"description": "Shown only in this answer; claimed once with POST …/claim"}
    )
    version = ma.fields.Integer(required=True)


class ClaimSchema(Schema):
    """An invitation code to claim, and the name to sit down with (the seat's name is kept
    without one)."""

    code = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=100))
    name = name_field()


class ClaimedSchema(Schema):
    """The seat taken over: its new token (shown only once; the seat's old token is dead), its
    name and the match version."""

    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)


class TurnSchema(Schema):
    """Whose turn it is, in which phase, and when the turn clock runs out (all null when nobody is to
    move)."""

    seat = ma.fields.Integer(allow_none=True, required=True)
    phase = ma.fields.String(allow_none=True, required=True)
    deadline = ma.fields.Float(
        allow_none=True, required=True, metadata={"description": "Unix time the turn clock runs out, or null"}
    )


class PlayerSchema(Schema):
    """A seat as everyone sees it: who sits there and how many cards they hold, plus the game's public
    fields (team, bid, tricks, …)."""

    class Meta:
        unknown = ma.INCLUDE

    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(allow_none=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["human", "open", "bot"]))
    level = ma.fields.String()
    cards = ma.fields.Integer(required=True, metadata={"description": "number of cards in hand"})
    resigned = ma.fields.Boolean()
    left = ma.fields.Boolean()
    reserved = ma.fields.Boolean(metadata={"description": "an open seat of a rematch held for its person"})
    hints_used = ma.fields.Integer(
        metadata={"description": "hints this seat asked for (GET /v1/matches/{id}/hint)"}
    )
    player = ma.fields.String(
        metadata={
            "description": "the seat's player (the app's own id of it): shown to callers of its app only"
        }
    )


class DiscardSchema(Schema):
    """The discard pile: its top card and how many cards it holds."""

    top = ma.fields.String(allow_none=True, required=True)
    count = ma.fields.Integer(required=True)


class ViewBaseSchema(Schema):
    """The fields of a view every game has (docs/api.md, "Views"); each game's View adds its table,
    players, scores, round result and legal actions (docs/api.md, "Views and events per game")."""

    id = ma.fields.String(required=True)
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
    hand = ma.fields.List(ma.fields.String(), allow_none=True, required=True)
    stock = ma.fields.Integer(required=True)
    discard = ma.fields.Nested(DiscardSchema, allow_none=True, required=True)
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
        metadata={
            "description": "true when the creator chose the seed or stacked the deck: then the seed chain"
            " does not vouch for the deal"
        },
    )
    server_seed_hash = ma.fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "SHA-256 hex of the UTF-8 server_seed that /history reveals after the match;"
            " shown from creation on (docs/api.md, Fair deals)"
        },
    )

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        return {
            "properties": {
                "hand": {
                    "items": {**ref(CARD_CODE), "type": None},
                    "description": "your cards; null for a spectator",
                },
                "options": {
                    "additionalProperties": OPTION_VALUE.metadata,
                    "description": "the match's options",
                },
            }
        }


class ViewSchema(ViewBaseSchema):
    """A match as one viewer sees it: a seat's view holds its hand and legal actions, the public view
    neither (docs/api.md, "Views"). By `game`, one of the games' views: the fields of ViewBase and
    the game's own."""

    game = ma.fields.String(required=True)
    players = ma.fields.List(ma.fields.Nested(PlayerSchema), required=True)
    table = ma.fields.Dict(required=True, metadata={"description": "public game state (melds, bids, trick…)"})
    scores = ma.fields.Dict(required=True)
    legal_actions = ma.fields.List(AsIs("ActionSchema"), required=True)
    round_result = ma.fields.Dict(allow_none=True, required=True)

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        # Documented as the union of the games' views (service/http/game_schemas.py), chosen by
        # `game`; the fields above are what the tests' marshmallow checks of a view read.
        return view_schema_replacement()


# The common fields of every game's View (service/http/game_schemas.py refers to them), and the
# shapes the other answers' maps hold.
ACTION_VALUES["ViewBase"] = component(ViewBaseSchema)
ACTION_VALUES.update(answer_components(dict(OPTION_VALUE.metadata)))


class ActionSchema(WholeNumbers, Schema):
    """One action; which fields apply depends on the game and `type` (docs/rules/<game>.md, "Actions")."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(required=True)  # its enum and description: json_schema_extra
    tricks = ma.fields.Integer(
        strict=True, validate=ma.validate.Range(min=0, max=13), metadata={"description": "spades bid"}
    )
    card = action_field("card code")
    pile = action_field("stock | discard")
    melds = action_field("žolíky: list of melds, each a list of card codes")
    lay_offs = action_field("žolíky: list of {meld, cards}")
    meld = action_field('žolíky: meld id ("m2") or index of a new meld')
    cards = action_field("žolíky: cards to lay off")
    discard = action_field("žolíky take_closing: the closing discard")
    # A mark of legal_actions' entries, not a game's field (engines/legal.py): named here, so the
    # contract's Action admits it in every game, as the service takes it from any posted action.
    template = StrictBoolean(
        metadata={
            "description": "true on an entry of legal_actions that must be filled in before it is"
            " posted (Žolíky's meld templates: their empty fields are the player's choice); absent"
            " on every other entry, which can be posted as it is. On a posted action the mark is"
            ' ignored (docs/api.md, "Views")'
        }
    )

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        # Documented as each game's typed actions; the fields above keep the bounds the service
        # checks before the engine (which refuses any other shape with 422 validation_error).
        return action_schema_replacement()

    @ma.validates_schema(pass_original=True)
    def _bounded_extras(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        # Unknown fields are passed on (the engine names them in its refusal); they are
        # bounded like the known ones (`original` is the body before WholeNumbers read it).
        if isinstance(original, dict):
            for key in set(original) - set(self.fields):
                check_action_value(as_integers(original[key]), 1)


class ActionHeadersSchema(Schema):
    """Optional headers of a move: If-Match and Idempotency-Key (docs/api.md, "Requests")."""

    if_match = ma.fields.String(
        data_key="If-Match",
        metadata={
            "description": 'expected version, e.g. "17" (a view\'s ETag is taken too)',
            "example": '"17"',
            # What routes.py's _IF_MATCH takes (anything else is 412 version_conflict).
            "pattern": '^\\s*(?:W/)?"?[0-9]{1,15}(?:-[0-9]{1,2})?"?\\s*$',
        },
    )
    idempotency_key = ma.fields.String(
        data_key="Idempotency-Key",
        validate=ma.validate.Length(min=1, max=200),
        metadata={"description": "any string unique to this move, kept 24 hours", "example": "ana-move-18"},
    )

"""Schemas of tournaments (docs/api.md, "Tournaments")."""

from __future__ import annotations

import marshmallow as ma

from engines.registry import GAMES
from service.http.extensions import Schema
from service.http.resources.matches.fields import OPTIONS, WholeNumbers
from service.tournaments.running import MAX_PLAYERS

FORMATS = ["swiss", "knockout"]
TOURNAMENT_ID_PATTERN = "t[0-9a-f]{15}"


class CreateTournamentSchema(WholeNumbers, Schema):
    """A new tournament: its game and options, format, rounds (Swiss), size and clock."""

    game = ma.fields.String(required=True, validate=ma.validate.OneOf(sorted(GAMES)))
    options = ma.fields.Dict(
        keys=ma.fields.String(),
        load_default=dict,
        metadata={
            "description": "every match's options, as create takes them (`rated`: true moves the players'"
            " ratings); `on_timeout` is always resign, `turn_seconds` defaults from `round_seconds`",
            **OPTIONS,
        },
    )
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(FORMATS))
    rounds = ma.fields.Integer(
        strict=True,
        load_default=3,
        validate=ma.validate.Range(min=1, max=20),
        metadata={"description": "Swiss: the number of rounds (knockout: as many as it takes)"},
    )
    max_players = ma.fields.Integer(
        strict=True,
        load_default=64,
        validate=ma.validate.Range(min=2, max=MAX_PLAYERS),
        metadata={"description": f"registration closes at this many players (at most {MAX_PLAYERS})"},
    )
    round_seconds = ma.fields.Integer(
        strict=True,
        load_default=1200,
        validate=ma.validate.Range(min=100, max=7 * 24 * 3600),
        metadata={
            "description": "what a round should take: each turn's clock is a twentieth of it (at least 5 s),"
            " and a seat whose clock runs out resigns"
        },
    )


class StandingSchema(Schema):
    """A player's place in the standings."""

    player = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the app's own id of the player (null: erased)"},
    )
    name = ma.fields.String(required=True, allow_none=True)
    points = ma.fields.Float(required=True, metadata={"description": "1 a win, 1 a bye"})
    rank = ma.fields.Integer(
        required=True, metadata={"description": "1-based, unique (ties broken as documented)"}
    )
    buchholz = ma.fields.Float(
        required=True, metadata={"description": "the tiebreak: the sum of the points of every opponent met"}
    )
    rating = ma.fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "its rating in the game: when it joined, then the one the start seeded it with"
        },
    )


class RoundMatchSchema(Schema):
    """A match of a round."""

    id = ma.fields.String(required=True)
    players = ma.fields.List(
        ma.fields.String(allow_none=True),
        required=True,
        metadata={"description": "the players' external ids by seat (null: erased)"},
    )
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["active", "finished", "aborted"]))
    winners = ma.fields.List(
        ma.fields.String(allow_none=True), required=True, metadata={"description": "external ids"}
    )


class RoundSchema(Schema):
    """A round: its matches and the players with a bye."""

    round = ma.fields.Integer(required=True)
    matches = ma.fields.List(ma.fields.Nested(RoundMatchSchema), required=True)
    byes = ma.fields.List(ma.fields.String(allow_none=True), required=True)


class YourPlaceSchema(Schema):
    """With a player token: where the player sits in the current round."""

    round = ma.fields.Integer(required=True)
    match = ma.fields.String(required=True, allow_none=True, metadata={"description": "null: a bye"})
    seat = ma.fields.Integer(required=True, allow_none=True)
    bye = ma.fields.Boolean(required=True)
    over = ma.fields.Boolean(
        required=True, metadata={"description": "the player's match of this round has ended"}
    )


class TournamentSchema(Schema):
    """A tournament: its settings, standings and rounds."""

    id = ma.fields.String(required=True, metadata={"pattern": TOURNAMENT_ID_PATTERN})
    game = ma.fields.String(required=True)
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(FORMATS))
    options = ma.fields.Dict(required=True, metadata=OPTIONS)
    status = ma.fields.String(
        required=True, validate=ma.validate.OneOf(["registering", "running", "finished"])
    )
    round = ma.fields.Integer(required=True, metadata={"description": "the current round (0: not started)"})
    total_rounds = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "rounds in all (a knockout's: known once started)"},
    )
    max_players = ma.fields.Integer(required=True)
    round_seconds = ma.fields.Integer(required=True)
    turn_seconds = ma.fields.Integer(required=True, allow_none=True)
    created = ma.fields.Float(required=True)
    players = ma.fields.List(
        ma.fields.Nested(StandingSchema), required=True, metadata={"description": "best first"}
    )
    rounds = ma.fields.List(ma.fields.Nested(RoundSchema), metadata={"description": "not in lists"})
    winners = ma.fields.List(
        ma.fields.String(allow_none=True),
        required=True,
        allow_none=True,
        metadata={"description": "once finished"},
    )
    you = ma.fields.Nested(YourPlaceSchema, allow_none=True, metadata={"description": "with a player token"})


class TournamentsSchema(Schema):
    """The app's newest tournaments, newest first (without their rounds)."""

    tournaments = ma.fields.List(ma.fields.Nested(TournamentSchema), required=True)


class TournamentsQuerySchema(Schema):
    """How many tournaments to list."""

    limit = ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=100))

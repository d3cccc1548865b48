"""Each game's events as JSON Schema, by type (docs/api.md, "Events"; the game's page under
docs/rules/): what the engines' event makers and the service's own events hold, as a seat or a
spectator is sent them. service/http/game_schemas.py makes the document's components of them;
tests/test_typed_contract.py keeps them from drifting from the engines.
"""

from __future__ import annotations

from service.http.contract import ref
from service.http.contract_actions import PILE
from service.http.game_parts import (
    BOOL,
    CARD,
    CARDS,
    INT,
    SCORES,
    SEATS,
    STR,
    Schema,
    array,
    by_seat,
    described,
    nullable,
    obj,
)

# --- events -------------------------------------------------------------------------------------

SEAT = described("the seat that moved", INT)

# The match's own events (service/matches/seats.py, clocks.py, rematch.py, app_matches.py), the
# same in every game.
SERVICE: dict[str, Schema] = {
    "match_created": obj("", {"game": STR}),
    "join": obj("", {"seat": INT, "name": nullable(STR)}),
    "leave": obj("", {"seat": INT}),
    "claim": obj("", {"seat": INT, "name": nullable(STR)}),
    "match_started": obj("", {}),
    "rematch": obj("", {"match": STR, "seat": INT}),
    "timed_out": obj("", {"seat": INT, "on_timeout": {"type": "string", "enum": ["auto", "resign"]}}),
    # A hint was given (service/matches/hints.py): public, without the move.
    "hint": obj("", {"seat": INT, "hints_used": INT}),
}
RATING = obj(
    "A seat's rating", {"mu": {"type": "number"}, "sigma": {"type": "number"}, "rating": {"type": "number"}}
)
# Why a match ended: the games' own reasons (service/ratings/model.py rates those that finish it),
# then the service's, each of which aborts it (docs/api.md, "Events").
MATCH_OVER_REASONS = [
    "target",
    "rounds",
    "resign",
    "ended",
    "aborted",
    "aborted_by_app",
    "too_long",
    "abandoned",
    "declined",
]
MATCH_OVER_COMMON: dict[str, Schema] = {
    "winners": SEATS,
    "reason": described(
        "target, rounds, resign, ended (by the host); aborted (no person left before the start),"
        " aborted_by_app, too_long (CARDTABLE_MAX_VERSIONS moves) or abandoned (no person plays"
        " it any more) or declined (a rematch whose reserved seat was not taken in time)",
        {"type": "string", "enum": MATCH_OVER_REASONS},
    ),
}
MATCH_OVER_OPTIONAL: dict[str, Schema] = {
    "ratings": by_seat(obj("", {"before": nullable(ref("Rating")), "after": ref("Rating")}), "rated matches"),
    "players": by_seat(STR, "to a player's token: the seats' external ids of its app"),
    "ended_by_host": BOOL,
    "limit": described("with reason too_long: the most moves a match may have", INT),
}
DEAL_COMMITMENT = described('SHA-256 hex committing to the deck order (docs/api.md, "Fair deals")', STR)
HAND = described("the receiving seat's own cards: only in that seat's events", CARDS)
DRAWN = described(
    "the card drawn: shown to everyone from the discard pile, from the stock only to the drawer", CARD
)
RESIGN = obj("", {"seat": INT})

EVENTS: dict[str, dict[str, Schema]] = {
    "zoliky": {
        "deal": obj(
            "",
            {
                "round": INT,
                "cutter": INT,
                "carried_jokers": INT,
                "cards": by_seat(INT, "cards dealt"),
                "deal_commitment": DEAL_COMMITMENT,
            },
            {"hand": HAND},
        ),
        "cut": obj("", {"seat": INT, "revealed": CARDS, "closing_card": CARD, "jokers": INT}),
        "draw": obj("", {"seat": SEAT, "pile": ref(PILE)}, {"card": DRAWN}),
        "reshuffle": obj("", {"count": INT, "deal_commitment": DEAL_COMMITMENT}),
        "take_discard": obj("", {"seat": SEAT, "card": CARD}),
        "take_closing": obj("", {"seat": SEAT, "card": CARD}),
        "meld": obj("", {"seat": SEAT, "meld": ref("ZolikyTableMeld")}),
        "lay_off": obj("", {"seat": SEAT, "meld": STR, "cards": CARDS, "result": ref("ZolikyTableMeld")}),
        "swap_joker": obj("", {"seat": SEAT, "meld": STR, "card": CARD, "result": ref("ZolikyTableMeld")}),
        "discard": obj("", {"seat": SEAT, "card": CARD}),
        "resign": RESIGN,
        # The result's fields are the event's own here (Žolíky's round_over predates `result`).
        "round_over": {
            "allOf": [ref("ZolikyRoundResult")],
        },
        "match_over": obj("", {**MATCH_OVER_COMMON}, {"scores": SCORES, **MATCH_OVER_OPTIONAL}),
    },
    "three-thirteen": {
        "deal": obj(
            "",
            {
                "round": INT,
                "dealer": INT,
                "cards": described("cards dealt to each seat", INT),
                "wild_rank": STR,
                "discard": CARD,
                "deal_commitment": DEAL_COMMITMENT,
            },
            {"hand": HAND},
        ),
        "draw": obj("", {"seat": SEAT, "pile": ref(PILE)}, {"card": DRAWN}),
        "reshuffle": obj("", {"stock": INT, "deal_commitment": DEAL_COMMITMENT}),
        "discard": obj("", {"seat": SEAT, "card": CARD}, {"onto": INT, "declare_out": BOOL}),
        "lay_off": obj("", {"seat": SEAT, "card": CARD, "meld": ref("ThreeThirteenTableMeld")}),
        "went_out": obj("", {"seat": SEAT, "melds": array(ref("ThreeThirteenTableMeld"))}),
        "false_out": obj("", {"seat": SEAT, "penalty": INT}),
        "lay_down": obj("", {"seat": SEAT, "melds": array(ref("ThreeThirteenTableMeld")), "leftover": INT}),
        "resign": RESIGN,
        "round_over": obj("", {"round": INT, "result": ref("ThreeThirteenRoundResult")}),
        "match_over": obj("", {**MATCH_OVER_COMMON}, {"scores": SCORES, **MATCH_OVER_OPTIONAL}),
    },
    "zhol": {
        "deal": obj(
            "",
            {
                "round": INT,
                "first_player": INT,
                "cards": array(INT),
                "stock": INT,
                "deal_commitment": DEAL_COMMITMENT,
            },
            {"hand": HAND},
        ),
        "draw": obj("", {"seat": SEAT, "pile": ref(PILE)}, {"card": DRAWN}),
        "reshuffle": obj("", {"seat": SEAT, "stock": INT, "deal_commitment": DEAL_COMMITMENT}),
        "discard": obj("", {"seat": SEAT, "card": CARD}),
        "zhol": obj("", {"seat": SEAT}),
        "resign": RESIGN,
        "round_over": obj("", {"round": INT, "result": ref("ZholRoundResult")}, {"seat": nullable(INT)}),
        "match_over": obj(
            "", {**MATCH_OVER_COMMON}, {"crowns": by_seat(INT, "hands won"), **MATCH_OVER_OPTIONAL}
        ),
    },
    "spades": {
        "deal": obj(
            "",
            {"round": INT, "dealer": INT, "cards": array(INT), "deal_commitment": DEAL_COMMITMENT},
            {"hand": HAND},
        ),
        "bid": obj("", {"seat": SEAT, "tricks": INT}),
        "play": obj("", {"seat": SEAT, "card": CARD}),
        "trick": obj("", {"seat": SEAT, "winner": INT, "leader": INT, "cards": CARDS}),
        "resign": RESIGN,
        "round_over": obj("", {"round": INT, "result": ref("SpadesRoundResult")}),
        "match_over": obj("", {**MATCH_OVER_COMMON}, {"scores": SCORES, **MATCH_OVER_OPTIONAL}),
    },
}

EVENT_BASE: dict[str, Schema] = {
    "seq": described("the event's number in the match, from 1", INT),
    "bot": described("true on the events of a bot's move", BOOL),
    "auto": described("true on the events the turn clock played for a seat", BOOL),
}

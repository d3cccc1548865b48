"""Each game's part of a view as JSON Schema, and the helpers the games' schemas are written with
(docs/api.md, "Views and events per game"; the game's page under docs/rules/): what
engines/<game>/view.py builds. service/http/game_schemas.py makes the document's components of them;
tests/test_typed_contract.py keeps them from drifting from the engines.
"""

from __future__ import annotations

from typing import Any

from service.http.contract import ref
from service.http.contract_actions import CARD_CODE

Schema = dict[str, Any]

INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
STR: Schema = {"type": "string"}
CARD: Schema = ref(CARD_CODE)
CARDS: Schema = {"type": "array", "items": CARD}
SEATS: Schema = {"type": "array", "items": INT}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def by_seat(value: Schema, what: str) -> Schema:
    """A map from a seat (or partnership) number, as a string, to `value`."""
    return {
        "description": f"{what}, by seat number as a string",
        "type": "object",
        "propertyNames": {"pattern": "^[0-9]+$"},
        "additionalProperties": value,
    }


def obj(description: str, required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    out: Schema = {"type": "object", "properties": {**required, **(optional or {})}}
    if description:
        out = {"description": description, **out}
    if required:
        out["required"] = list(required)
    return out


def described(description: str, schema: Schema) -> Schema:
    return {"description": description, **schema}


# --- pieces shared by a game's view and its events ----------------------------------------------

STANDS_FOR = described(
    "what each card stands for, in the order of `cards`: a wild card's rank and suit, `?` for a suit"
    " it leaves open (6?)",
    array(STR),
)
SCORES = by_seat(INT, "the match score")


def _meld(description: str, required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    return obj(
        description,
        {"kind": {"type": "string", "enum": ["set", "run"]}, "cards": CARDS, **required},
        optional,
    )


PIECES: dict[str, Schema] = {
    "ZolikyTableMeld": _meld(
        "A meld on a Žolíky table", {"stands_for": STANDS_FOR}, {"id": STR, "owner": INT}
    ),
    "ThreeThirteenTableMeld": _meld(
        "A meld on a Three Thirteen table (a laid-down hand's melds have no id or owner)",
        {"stands_for": STANDS_FOR, "ace_high": BOOL},
        {"id": STR, "owner": INT},
    ),
    "ZholHandMeld": _meld("A meld of a Zhol hand at its end", {"stands_for": STANDS_FOR}),
    "SeatCard": obj("A card of a trick and the seat that played it", {"seat": INT, "card": CARD}),
}

# --- each game's part of a view -----------------------------------------------------------------

ZOLIKY = {
    "table": obj(
        "The Žolíky table: melds, the closing card, the cut, who has opened, the turn number",
        {
            "melds": array(ref("ZolikyTableMeld")),
            "closing_card": nullable(CARD),
            "cut": CARDS,
            "opened": array(BOOL),
            "turn_number": INT,
        },
    ),
    "player": {
        "opened": BOOL,
        "wins": INT,
        "cutter": BOOL,
        "discards": described("this player's cards in the discard pile, bottom first", CARDS),
        "taken": described("the discards this player took", CARDS),
    },
    "round_result": obj(
        "A Žolíky round's result: the winner, every hand and its points, the melds",
        {
            "round": INT,
            "winners": SEATS,
            "winner": nullable(INT),
            "hands": by_seat(CARDS, "the cards left in hand"),
            "points": by_seat(INT, "the points of the cards left in hand"),
            "melds": array(ref("ZolikyTableMeld")),
            "carried_jokers": INT,
            "wins": by_seat(INT, "rounds won"),
        },
    ),
}

THREE_THIRTEEN = {
    "table": obj(
        "The Three Thirteen table: the round and its wild rank, the melds, the final turns, the"
        " points of every round, the options that change play, the discard pile and what each seat took",
        {
            "round": INT,
            "rounds": INT,
            "cards_dealt": INT,
            "wild_rank": STR,
            "dealer": INT,
            "doubled": BOOL,
            "went_out": nullable(INT),
            "final_turns": nullable(SEATS),
            "final_turns_left": nullable(INT),
            "melds": array(ref("ThreeThirteenTableMeld")),
            "round_points": array(array(INT)),
            "options": {"type": "object", "additionalProperties": BOOL},
            "discard_pile": CARDS,
            "taken": array(CARDS),
        },
    ),
    "player": {"score": INT, "went_out": BOOL, "dumped_jokers": INT, "penalty": INT},
    "round_result": obj(
        "A Three Thirteen round's result: each seat's hand, melds, leftover and points",
        {
            "round": INT,
            "cards_dealt": INT,
            "wild_rank": STR,
            "dealer": INT,
            "went_out": nullable(INT),
            "doubled": BOOL,
            "players": array(
                obj(
                    "",
                    {
                        "seat": INT,
                        "hand": CARDS,
                        "melds": array(ref("ThreeThirteenTableMeld")),
                        "leftover": CARDS,
                        "laid_off": CARDS,
                        "dumped_jokers": INT,
                        "cards_points": INT,
                        "penalty": INT,
                        "points": INT,
                        "total": INT,
                    },
                )
            ),
            "points": by_seat(INT, "the round's points"),
            "table": array(ref("ThreeThirteenTableMeld")),
            "scores": SCORES,
            "winners": nullable(SEATS),
        },
    ),
}

ZHOL = {
    "table": obj(
        "The Zhol table: crowns, the hand's first player, the options, the card just taken, the"
        " discard pile and every discard of the hand",
        {
            "crowns": by_seat(INT, "hands won"),
            "first_player": INT,
            "variant": STR,
            "target_wins": INT,
            "turn_seconds": INT,
            "taken": nullable(CARD),
            "pile": CARDS,
            "discards": array(obj("", {"seat": INT, "card": CARD, "taken_by": nullable(INT)})),
        },
    ),
    "player": {"crowns": INT},
    "round_result": obj(
        "A Zhol hand's result: the winner and every hand with its melds and leftover",
        {
            "round": INT,
            "first_player": INT,
            "winner": nullable(INT),
            "winners": SEATS,
            "hands": array(
                obj(
                    "",
                    {"seat": INT, "cards": CARDS, "melds": array(ref("ZholHandMeld")), "leftover": CARDS},
                )
            ),
            "crowns": by_seat(INT, "hands won"),
        },
    ),
}

_TEAM_RESULT = obj(
    "",
    {
        "seats": SEATS,
        "bids": SEATS,
        "tricks": SEATS,
        "contract": INT,
        "contract_tricks": INT,
        "made": nullable(BOOL),
        "contract_points": INT,
        "nil": array(obj("", {"seat": INT, "made": BOOL, "tricks": INT, "points": INT})),
        "nil_points": INT,
        "bags": INT,
        "bag_points": INT,
        "bags_before": INT,
        "bag_penalty": INT,
        "bags_total": INT,
        "points": INT,
        "total_before": INT,
        "total": INT,
    },
)

SPADES = {
    "table": obj(
        "The Spades table: bids, the trick, tricks won, the last trick and every card played this hand",
        {
            "dealer": INT,
            "leader": nullable(INT),
            "bids": array(nullable(INT)),
            "trick": array(ref("SeatCard")),
            "tricks_won": SEATS,
            "tricks_played": INT,
            "spades_broken": BOOL,
            "last_trick": nullable(obj("", {"leader": INT, "winner": INT, "cards": array(ref("SeatCard"))})),
            "played": array(ref("SeatCard")),
            "bags": by_seat(INT, "bags (overtricks) counted toward the penalty"),
            "target_score": INT,
        },
    ),
    "player": {
        "team": described("the partnership: 0 (seats 0 and 2) or 1", STR),
        "bid": nullable(INT),
        "tricks": INT,
    },
    "round_result": obj(
        "A Spades hand's result: the hands dealt and each partnership's contract, nils, bags and points",
        {
            "round": INT,
            "dealer": INT,
            "hands": array(CARDS),
            "teams": by_seat(_TEAM_RESULT, "each partnership's reckoning (partnership 0: seats 0 and 2)"),
            "scores": SCORES,
            "winners": nullable(SEATS),
        },
    ),
}

VIEWS: dict[str, dict[str, Any]] = {
    "zoliky": ZOLIKY,
    "three-thirteen": THREE_THIRTEEN,
    "zhol": ZHOL,
    "spades": SPADES,
}

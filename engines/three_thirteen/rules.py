"""Three Thirteen's fixed tables and pure rule helpers: options, action shapes, rounds, wild ranks, card
points, melds (docs/rules/three-thirteen.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import Action
from engines.cards import CARD_INDEX, JOKER, deck, is_card
from engines.errors import IllegalAction, InvalidAction, InvalidOptions
from engines.meld_solver import Split
from engines.melds import Meld, MeldRules

MIN_SEATS, MAX_SEATS = 2, 7
BOOLEAN_OPTIONS = {
    "aces_high_low": "aces high or low in runs (Q-K-A); an unmatched ace costs 15",
    "face_cards_11_12_13": "unmatched J, Q and K cost 11, 12 and 13 instead of 10",
    "extra_rounds": "rounds 12 and 13 with 14 and 15 cards, aces and then 2s wild",
    "jokers_wild": "add 4 jokers, always wild; an unmatched joker costs 20",
    "joker_dump": "a joker may be discarded in front of another player, where it counts nothing",
    "up_and_down": "22 rounds: 3 cards up to 13 and back down to 3",
    "redemption_round": "after someone goes out, the others may lay off cards onto the table melds",
    "double_face_rounds": "points are doubled in the J, Q and K rounds",
    "all_wild_melds": "a meld may be made of wild cards only",
    "false_out_penalty": "players declare going out themselves; a wrong declaration costs 20 points",
    "multiple_wilds": "a meld may hold more than one wild card",
}
FIELDS = {
    "draw": ({"pile"}, {"pile"}),
    "discard": ({"card"}, {"card", "onto", "declare_out"}),
    "lay_off": ({"card", "meld"}, {"card", "meld"}),
    "end_turn": (set(), set()),
    "resign": (set(), set()),
}
SHAPES = {
    "draw": '{"type": "draw", "pile": "stock" | "discard"}',
    "discard": '{"type": "discard", "card": "7H"} (optional "onto": <seat>, "declare_out": true)',
    "lay_off": '{"type": "lay_off", "card": "9H", "meld": "m2"}',
    "end_turn": '{"type": "end_turn"}',
    "resign": '{"type": "resign"}',
}
BASE_DECK = 104
JOKERS = 4  # two decks, each with its two jokers, as in Žolíky and large Zhol
FALSE_OUT_PENALTY = 20
UNUSED_WILD_POINTS = 15
JOKER_POINTS = 20
HIGH_ACE_POINTS = 15

# The wild rank is the number of cards dealt: 3…9, T (10), J, Q, K; the extra rounds' 14 and 15
# cards make aces and then 2s wild.
WILD_RANK = {n: r for n, r in zip(range(3, 16), "3456789TJQKA2", strict=True)}
FACE_ROUND_SIZES = frozenset({11, 12, 13})
FACE_POINTS = {"J": 11, "Q": 12, "K": 13}
RANK_POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


def schedule(options: dict[str, Any]) -> list[int]:
    """The number of cards dealt in each round, first round first."""
    up = list(range(3, 16 if options.get("extra_rounds") else 14))
    if options.get("up_and_down"):
        # 3→13 and back 13→3: 22 rounds, the 13-card round twice.
        return up + up[::-1]
    return up


def check_options(options: dict[str, Any], num_seats: int) -> None:
    """Refuse contradictory options and rounds the deck cannot deal (InvalidOptions)."""
    first = options.get("first_dealer")
    if first is not None and not 0 <= first < num_seats:
        raise InvalidOptions(f"first_dealer must be a seat number from 0 to {num_seats - 1}")
    if options.get("joker_dump") and not options.get("jokers_wild"):
        raise InvalidOptions("joker_dump needs jokers_wild: without jokers there is no joker to dump")
    if options.get("extra_rounds") and options.get("up_and_down"):
        raise InvalidOptions(
            "extra_rounds and up_and_down cannot be combined: extra_rounds adds 14- and 15-card rounds"
            " after the 13-card round, up_and_down plays exactly 22 rounds from 3 to 13 and back"
        )
    largest = max(schedule(options))
    # Dumped jokers leave play, so only jokers that always return to the pile help the stock.
    usable = BASE_DECK + (JOKERS if options.get("jokers_wild") and not options.get("joker_dump") else 0)
    if num_seats * largest + 2 > usable:
        raise InvalidOptions(
            f"{num_seats} players cannot be dealt {largest} cards each: that needs"
            f" {num_seats * largest + 2} cards with the discard and the stock,"
            f" the deck has {usable} usable ones"
            + (" (jokers_wild without joker_dump adds 4)" if usable == BASE_DECK else "")
        )


def full_deck(options: dict[str, Any]) -> list[str]:
    return deck(copies=2, jokers=JOKERS if options.get("jokers_wild") else 0)


def meld_rules(options: dict[str, Any], hand_size: int) -> MeldRules:
    return MeldRules(
        ace_low=True,
        ace_high=bool(options.get("aces_high_low")),
        max_set=None,
        set_distinct_suits=False,
        wild_at_run_ends=True,
        max_wilds_per_meld=None if options.get("multiple_wilds") else 1,
        allow_all_wild=bool(options.get("all_wild_melds")),
        wild_rank=WILD_RANK[hand_size],
    )


def card_points(card: str, options: dict[str, Any], wild_rank: str) -> int:
    """What `card` costs when it is left unmatched at the end of a round (before doubling)."""
    if card == JOKER:
        return JOKER_POINTS
    rank = card[0]
    if rank == wild_rank:
        return UNUSED_WILD_POINTS
    if rank == "A" and options.get("aces_high_low"):
        return HIGH_ACE_POINTS
    if rank in FACE_POINTS and options.get("face_cards_11_12_13"):
        return FACE_POINTS[rank]
    return RANK_POINTS[rank]


def points_function(options: dict[str, Any], hand_size: int) -> Callable[[str], int]:
    """`card_points` for one round, as the fast lookup `best_split` calls for every card."""
    key = (bool(options.get("aces_high_low")), bool(options.get("face_cards_11_12_13")), hand_size)
    table = _POINT_TABLES.get(key)
    if table is None:
        wild_rank = WILD_RANK[hand_size]
        table = {c: card_points(c, options, wild_rank) for c in set(deck(copies=1, jokers=1))}
        _POINT_TABLES[key] = table
    return table.__getitem__


_POINT_TABLES: dict[tuple[bool, bool, int], dict[str, int]] = {}


def doubled(options: dict[str, Any], hand_size: int) -> bool:
    return bool(options.get("double_face_rounds")) and hand_size in FACE_ROUND_SIZES


def sort_key(card: str) -> int:
    """Hands are shown by suit (S H D C), ace low to king, jokers last (the order of `CARD_INDEX`)."""
    return CARD_INDEX[card]


def sorted_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=sort_key)


def meld_view(meld: Meld) -> dict[str, Any]:
    """A meld as the state and the views hold it (without its table id and owner)."""
    return {
        "kind": meld.kind,
        "cards": list(meld.cards),
        "stands_for": list(meld.stands_for),
        "ace_high": meld.ace_high,
    }


def parse_action(action: Any, num_seats: int) -> Action:
    """`action` checked against the action shapes (InvalidAction), returned as it is."""
    if type(action) is not dict:
        raise InvalidAction('an action is a JSON object such as {"type": "discard", "card": "7H"}')
    kind = action.get("type")
    if kind not in FIELDS:
        raise InvalidAction(
            f"unknown action type {kind!r}; Three Thirteen knows draw, discard, lay_off, end_turn and resign"
        )
    required, allowed = FIELDS[kind]
    fields = set(action) - {"type"}
    if not required <= fields or not fields <= allowed:
        raise InvalidAction(f"{kind} is {SHAPES[kind]}")
    if "pile" in action and action["pile"] not in ("stock", "discard"):
        raise InvalidAction('pile must be "stock" or "discard"')
    if "card" in action and not is_card(action["card"]):
        raise InvalidAction(
            f"{action['card']!r} is not a card code (rank A 2-9 T J Q K, then suit S H D C; JK a joker)"
        )
    if "onto" in action:
        onto = action["onto"]
        if type(onto) is not int or not 0 <= onto < num_seats:
            raise InvalidAction(f"onto must be a seat number from 0 to {num_seats - 1}")
    if "declare_out" in action and type(action["declare_out"]) is not bool:
        raise InvalidAction("declare_out must be true or false")
    if "meld" in action and type(action["meld"]) is not str:
        raise InvalidAction('meld must be the id of a meld on the table, such as "m2"')
    return action


def fresh_round(num_seats: int) -> dict[str, Any]:
    """The state fields every deal starts afresh: nobody out, no melds, nothing taken or dumped."""
    n = num_seats
    return {
        "went_out": None,
        "final_turns": [],
        "melds": [],
        "next_meld": 1,
        "laid_down": [None] * n,
        "laid_off": [[] for _ in range(n)],
        "shown": [None] * n,
        "dumped": [[] for _ in range(n)],
        "taken": [[] for _ in range(n)],
        "penalties": [0] * n,
    }


def discard_actions(
    hand: list[str], seat: int, num_seats: int, options: dict[str, Any], nobody_out: bool
) -> list[Action]:
    """Every complete discard from `hand`: a dumped joker onto each other seat (`joker_dump`),
    each also declaring going out while nobody is out (`false_out_penalty`)."""
    declare = options["false_out_penalty"] and nobody_out
    actions: list[Action] = []
    for card in sorted(set(hand), key=sort_key):
        bodies: list[Action] = [{"type": "discard", "card": card}]
        if card == JOKER and options["joker_dump"]:
            n = num_seats
            bodies += [{"type": "discard", "card": card, "onto": (seat + i) % n} for i in range(1, n)]
        actions += bodies
        if declare:
            actions += [{**body, "declare_out": True} for body in bodies]
    return actions


def check_discard(
    options: dict[str, Any], seat: int, card: str, onto: int | None, declare: bool, nobody_out: bool
) -> None:
    """Refuse (IllegalAction) a joker dump or a declaration the options or the round do not allow."""
    if onto is not None:
        if not options["joker_dump"]:
            raise IllegalAction("jokers cannot be dumped on another player in this match (joker_dump is off)")
        if card != JOKER:
            raise IllegalAction("only a joker may be dumped in front of another player")
        if onto == seat:
            raise IllegalAction("a joker is dumped in front of another player, not yourself")
    if declare:
        if not options["false_out_penalty"]:
            raise IllegalAction("going out is detected by itself in this match: there is nothing to declare")
        if not nobody_out:
            raise IllegalAction("someone has gone out already: this is your final turn")


def score_seat(state: dict[str, Any], seat: int, split: Split, double: bool) -> dict[str, Any]:
    """One seat's line of the round's result: its hand, melds and unmatched cards, the points of
    those (doubled in a face round) plus its penalty, and its new total (`state` is only read)."""
    hand = state["hands"][seat]
    shown = state["shown"][seat]
    base = split.points * (2 if double else 1)
    penalty = state["penalties"][seat]
    return {
        "seat": seat,
        "hand": shown if shown is not None else sorted_cards(hand),
        "melds": (state["laid_down"][seat] or []) + [meld_view(m) for m in split.melds],
        "leftover": sorted_cards(list(split.leftover)),
        "laid_off": list(state["laid_off"][seat]),
        "dumped_jokers": len(state["dumped"][seat]),
        "cards_points": base,
        "penalty": penalty,
        "points": base + penalty,
        "total": state["scores"][seat] + base + penalty,
    }

"""The rules of Spades as pure functions (docs/rules/spades.md): the deck, who wins a trick,
which cards may be played, and the scoring of a hand for both partnerships ("Scoring a hand")."""

from __future__ import annotations

from typing import Any

from engines.cards import ACE_HIGH_CARD_OF, ACE_HIGH_INDEX, SUITS

NUM_SEATS = 4
SEATS = range(NUM_SEATS)
TEAMS = ("0", "1", "0", "1")  # the team key of each seat, as in `scores`
TRICKS_PER_HAND = 13
# The deck in the order of the ace-high layout (by suit S H D C, 2 … A), which also orders hands.
DECK = ACE_HIGH_CARD_OF
CARD_SET = frozenset(DECK)
# Rank strength 0 ('2') … 12 ('A').
RANK_INDEX = {c: ACE_HIGH_INDEX[c] % 13 for c in DECK}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
# Trick strength of each card given the led suit: any spade beats any other card, a card of
# another suit than the led one and spades never wins.
POWER = {
    led: {c: (100 + RANK_INDEX[c] if c[1] == "S" else RANK_INDEX[c] if c[1] == led else -1) for c in DECK}
    for led in SUITS
}


def team_of(seat: int) -> int:
    return seat % 2


def trick_winner(leader: int, cards: list[str]) -> int:
    """The seat that wins a complete trick led by `leader`."""
    power = POWER[cards[0][1]]
    first, second, third, fourth = cards  # written out: 13 times a hand, in every playout
    top = power[first]
    best = 0
    if power[second] > top:
        best, top = 1, power[second]
    if power[third] > top:
        best, top = 2, power[third]
    if power[fourth] > top:
        best = 3
    return (leader + best) % NUM_SEATS


# Every card's play action, copied for each answer: a copy of a prebuilt two-key dict is cheaper
# than building one from its items, and a random Spades hand builds about 190 of them.
PLAY_ACTIONS = {c: {"type": "play", "card": c} for c in DECK}


# The play rule, as a table: the cards a card must come from whenever the hand holds one of them,
# by what was led. On a trick, the cards of its led suit (follow suit); on a lead (the key is
# whether spades are broken), any card but a spade before spades are broken, any card after. A
# hand that holds none of them may play any card. `legal_plays` and the check of a play
# (`SpadesGame._apply`) both read it as `PREFERRED[trick[0][1] if trick else spades_broken]`. A
# table of card sets rather than a function: a Spades hand reads it twice for each of its 52
# plays, where a function call would add about 2% to bench/engine_instructions.py's count, and a
# set look-up of a card costs less than reading and comparing its suit.
PREFERRED: dict[str | bool, frozenset[str]] = {
    **{suit: frozenset(c for c in DECK if c[1] == suit) for suit in SUITS},
    False: frozenset(c for c in DECK if c[1] != "S"),
    True: CARD_SET,
}


def legal_plays(hand: list[str], trick: list[str], spades_broken: bool) -> list[dict[str, str]]:
    """The play actions open to `hand` on `trick` (a list of cards, leader first; the rule is
    `PREFERRED`), each a fresh dict.

    Built from the actions rather than from a list of cards: a Spades hand calls this for each
    of its 52 plays, and not building a list of cards first saves about 4% of bench/engine.py's
    instructions."""
    preferred = PREFERRED[trick[0][1] if trick else spades_broken]
    plays = [PLAY_ACTIONS[c].copy() for c in hand if c in preferred]
    return plays or [PLAY_ACTIONS[c].copy() for c in hand]


def legal_cards(hand: list[str], trick: list[str], spades_broken: bool) -> list[str]:
    """The cards of `hand` that may be played to `trick` (`legal_plays`' cards)."""
    return [play["card"] for play in legal_plays(hand, trick, spades_broken)]


NIL_POINTS = 100
BAG_LIMIT = 10
BAG_PENALTY = 100


def team_seats(team: int) -> list[int]:
    """Seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return [team, team + 2]


def score_team(
    team: int, bids: list[int], tricks: list[int], bags_before: int, total_before: int
) -> dict[str, Any]:
    """One partnership's breakdown of a hand: contract, nils, bags, penalty, points and new total."""
    seats = team_seats(team)
    contract = 0
    contract_tricks = 0
    nils = []
    nil_points = 0
    nil_bags = 0
    for seat in seats:
        if bids[seat] == 0:
            made_nil = tricks[seat] == 0
            points = NIL_POINTS if made_nil else -NIL_POINTS
            nils.append({"seat": seat, "made": made_nil, "tricks": tricks[seat], "points": points})
            nil_points += points
            # A failed Nil's tricks never help the partner's contract; they are bags instead.
            nil_bags += tricks[seat]
        else:
            contract += bids[seat]
            contract_tricks += tricks[seat]
    made: bool | None
    if contract == 0:
        # Only when both partners bid Nil: there is no contract to make or fail.
        made, contract_points, overtricks = None, 0, 0
    elif contract_tricks >= contract:
        made, contract_points, overtricks = True, 10 * contract, contract_tricks - contract
    else:
        made, contract_points, overtricks = False, -10 * contract, 0
    bags = overtricks + nil_bags
    accumulated = bags_before + bags
    bag_penalty = -BAG_PENALTY * (accumulated // BAG_LIMIT)
    points = contract_points + bags + nil_points + bag_penalty
    return {
        "seats": seats,
        "bids": [bids[s] for s in seats],
        "tricks": [tricks[s] for s in seats],
        "contract": contract,
        "contract_tricks": contract_tricks,
        "made": made,
        "contract_points": contract_points,
        "nil": nils,
        "nil_points": nil_points,
        "bags": bags,
        "bag_points": bags,
        "bags_before": bags_before,
        "bag_penalty": bag_penalty,
        "bags_total": accumulated % BAG_LIMIT,
        "points": points,
        "total_before": total_before,
        "total": total_before + points,
    }


def score_hand(
    bids: list[int], tricks: list[int], bags_before: list[int], totals_before: list[int]
) -> dict[str, dict[str, Any]]:
    """Both partnerships' breakdowns, keyed "0" and "1" like the match scores."""
    return {
        str(team): score_team(team, bids, tricks, bags_before[team], totals_before[team]) for team in (0, 1)
    }

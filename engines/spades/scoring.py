"""Scoring one Spades hand for both partnerships (docs/rules/spades.md, "Scoring a hand")."""

from __future__ import annotations

from typing import Any

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

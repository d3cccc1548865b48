"""What a seat sees of a Spades match beyond the shared envelope (engines/base.py, `Game.view`):
the table (bids, the trick, tricks won, every card played this hand) and each player's bid and
tricks. Every card played went face up, so all of it is public; only the hands are not."""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.spades.rules import NUM_SEATS, TEAMS


def seated(leader: int, cards: list[str]) -> list[dict[str, Any]]:
    """The cards of a trick with the seat that played each, the leader first."""
    return [{"seat": (leader + i) % NUM_SEATS, "card": c} for i, c in enumerate(cards)]


def player(state: State, seat: int) -> dict[str, Any]:
    return {"team": TEAMS[seat], "bid": state["bids"][seat], "tricks": state["won"][seat]}


def table(state: State, seat: int | None) -> dict[str, Any]:
    """The table as `seat` (None: a spectator) sees it: the same for every seat."""
    leader = state["leader"]
    trick = seated(leader, state["trick"])
    last = state["tricks"][-1] if state["tricks"] else None
    last_trick = None
    if last is not None:
        last_trick = {
            "leader": last["leader"],
            "winner": last["winner"],
            "cards": seated(last["leader"], last["cards"]),
        }
    # Every card played this hand, in order: all were seen face up, and a bot that
    # remembers nothing between turns needs them to count cards and spot voids.
    played = [entry for done in state["tricks"] for entry in seated(done["leader"], done["cards"])]
    played.extend(dict(entry) for entry in trick)
    return {
        "dealer": state["dealer"],
        "leader": leader,
        "bids": list(state["bids"]),
        "trick": trick,
        "tricks_won": list(state["won"]),
        "tricks_played": len(state["tricks"]),
        "spades_broken": state["spades_broken"],
        "last_trick": last_trick,
        "played": played,
        "bags": {"0": state["bags"][0], "1": state["bags"][1]},
        "target_score": state["options"]["target_score"],
    }


def scores(state: State) -> dict[str, int]:
    return {"0": state["scores"][0], "1": state["scores"][1]}


def copy_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A private copy of a hand's breakdown for a view (its shape is fixed: faster than a
    general deep copy, and every view between hands carries one)."""
    if result is None:
        return None
    teams = {}
    for key, team in result["teams"].items():
        teams[key] = dict(
            team, seats=list(team["seats"]), bids=list(team["bids"]), tricks=list(team["tricks"])
        )
        teams[key]["nil"] = [dict(n) for n in team["nil"]]
    return dict(
        result,
        hands=[list(h) for h in result["hands"]],
        teams=teams,
        scores=dict(result["scores"]),
        winners=list(result["winners"]),
    )

"""What a seat sees of a Zhol match beyond the shared envelope (engines/base.py, `Game.view`): each
player's crowns, and the table: the crowns again, the hand's first player, the match options, the
card just taken from the discard pile, the whole pile and every discard of the hand (each card
went face up, so all of it is public; the stateless bots count the live cards from it)."""

from __future__ import annotations

from typing import Any

from engines.base import State


def player(state: State, seat: int) -> dict[str, Any]:
    return {"crowns": state["crowns"][seat]}


def table(state: State, seat: int | None) -> dict[str, Any]:
    """The table as `seat` (None: a spectator) sees it: the same for every seat."""
    options = state["options"]
    return {
        "crowns": scores(state),
        "first_player": state["first_player"],
        "variant": options["variant"],
        "target_wins": options["target_wins"],
        "turn_seconds": options["turn_seconds"],
        # taken face up from the discard pile this turn, so public; it may not go back
        "taken": state["taken"],
        # every card went face up onto the pile, so the whole pile and who discarded and
        # took what this hand are public (the bots read them)
        "pile": list(state["discard"]),
        "discards": [dict(d) for d in state.get("history", [])],
    }


def scores(state: State) -> dict[str, int]:
    """Crowns (hands won) by seat."""
    return {str(s): c for s, c in enumerate(state["crowns"])}


def copy_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A private copy of a hand's result for a view (faster than json_copy on this fixed shape)."""
    if result is None:
        return None
    return dict(
        result,
        winners=list(result["winners"]),
        crowns=dict(result["crowns"]),
        hands=[
            dict(
                h,
                cards=list(h["cards"]),
                leftover=list(h["leftover"]),
                melds=[dict(m, cards=list(m["cards"]), stands_for=list(m["stands_for"])) for m in h["melds"]],
            )
            for h in result["hands"]
        ],
    )

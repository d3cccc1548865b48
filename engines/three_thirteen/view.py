"""What a seat sees of a Three Thirteen match beyond the shared envelope (engines/base.py,
`Game.view`): the table (the round and its wild rank, the melds laid face up, the final turns,
the points of every round so far, the options that change play) and each player's score, going
out, dumped jokers and penalty. Besides the top card the table carries the round's public
history for the bots: `discard_pile` (bottom first, as everyone saw it built) and `taken` (per
seat, the cards it took from the pile and has not shown since). Only the hands are private."""

from __future__ import annotations

from typing import Any

from engines.base import State, json_copy
from engines.three_thirteen import rules as tt


def player(state: State, seat: int) -> dict[str, Any]:
    return {
        "score": state["scores"][seat],
        "went_out": state["went_out"] == seat,
        "dumped_jokers": len(state["dumped"][seat]),
        "penalty": state["penalties"][seat],
    }


def taken(state: State, seat: int) -> list[str]:
    """Cards `seat` took from the discard pile this round and has not shown since (public)."""
    held = state.get("taken")
    return tt.sorted_cards(held[seat]) if held else []


def table(state: State, seat: int | None) -> dict[str, Any]:
    """The table as `seat` (None: a spectator) sees it: the same for every seat."""
    size = state["schedule"][state["round"] - 1]
    went_out = state["went_out"]
    return {
        "round": state["round"],
        "rounds": len(state["schedule"]),
        "cards_dealt": size,
        "wild_rank": tt.WILD_RANK[size],
        "dealer": state["dealer"],
        "doubled": tt.doubled(state["options"], size),
        "went_out": went_out,
        "final_turns": list(state["final_turns"]) if went_out is not None else None,
        "final_turns_left": len(state["final_turns"]) if went_out is not None else None,
        "melds": json_copy(state["melds"]),
        "round_points": [list(p) for p in state["round_points"]],
        "options": {k: v for k, v in state["options"].items() if k in tt.BOOLEAN_OPTIONS},
        "discard_pile": list(state["discard"]),
        "taken": [taken(state, s) for s in range(state["num_seats"])],
    }


def scores(state: State) -> dict[str, int]:
    return {str(s): v for s, v in enumerate(state["scores"])}

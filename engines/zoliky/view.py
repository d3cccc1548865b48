"""What a seat sees of a Žolíky match beyond the shared envelope (engines/base.py, `Game.view`):
the table (melds, the closing card, the cut, who has opened, the turn number) and each player's
opening, rounds won, cutter flag and the round's public discard history (for the stateless bots:
`discards`, that player's cards in the discard pile, bottom first, and `taken`, the discards they
took). Hands are sorted by suit (S H D C), then rank A…K, jokers last."""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.zoliky.rules import copy_melds, sort_key


def player(state: State, seat: int) -> dict[str, Any]:
    return {
        "opened": state["opened"][seat],
        "wins": state["wins"][seat],
        "cutter": seat == state["cutter"] and state["status"] == "active",
        "discards": [
            c for c, o in zip(state["discard"], state.get("discard_seats", []), strict=False) if o == seat
        ],
        "taken": list(state.get("taken", [[], []])[seat]),
    }


def hand(state: State, seat: int) -> list[str]:
    return sorted(state["hands"][seat], key=sort_key)


def table(state: State, seat: int | None) -> dict[str, Any]:
    """The table as `seat` (None: a spectator) sees it: the same for every seat."""
    return {
        "melds": copy_melds(state["melds"]),
        "closing_card": state["closing_card"],
        "cut": list(state["cut"]),
        "opened": list(state["opened"]),
        "turn_number": state["turn_number"],
    }


def scores(state: State) -> dict[str, int]:
    """Rounds won by seat."""
    return {str(s): state["wins"][s] for s in (0, 1)}

"""Seat tenure: which holding of a seat a feed was opened under (docs/api.md, "Hidden information").

Every seat of a match record carries `tenure`, a number that rises each time the seat's
credential changes: a leave that frees it, a join, a claimed invitation, an erasure that unbinds
its player, and whatever else later changes who holds a seat. Nothing has to remember to raise
it: every commit compares each seat's credential (its token's hash, or its player's id) with the
one it last saw (`held`, a prefix of it) and raises the number on a difference
(MatchRepository.commit calls `settle`). The commit script stores the numbers of all seats in
the match hash's field `t`, beside the events, so a feed reads them in the same round trip as
the events it serves and checks every batch against the number its token was authenticated at:
a feed whose seat changed hands serves nothing after the change, whatever position it asked
from. A player's own tokens (rotated, revoked) are checked apart (service/following.py).
"""

from __future__ import annotations

from typing import Any

# The credential's first characters kept in `held`: two holders of one seat in a row share them
# with a chance of 2^-48 (token hashes and player ids are random hex).
HELD = 12


def settle(seats: list[dict[str, Any]]) -> str:
    """Raise the tenure of every seat whose credential changed since the last commit; the
    tenures as the match hash keeps them (`t`: one number a seat, comma separated)."""
    marks = []
    for s in seats:
        held = (s.get("token") or s.get("player") or "")[:HELD]
        if "held" not in s:
            # A new match's seats, or a record stored before tenures existed: its first holding.
            s["held"] = held
        elif s["held"] != held:
            s["held"] = held
            s["tenure"] = s.get("tenure", 0) + 1
        marks.append(str(s.get("tenure", 0)))
    return ",".join(marks)


def of_seat(seats: list[dict[str, Any]], seat: int) -> int:
    """The seat's tenure as the record shows it."""
    return seats[seat].get("tenure", 0)


def stored(tenures: bytes | None, seat: int) -> int:
    """The seat's tenure in the match hash's field as read (none: a match stored before
    tenures existed, whose seats are all in their first)."""
    if not tenures:
        return 0
    marks = tenures.split(b",")
    return int(marks[seat]) if seat < len(marks) else 0

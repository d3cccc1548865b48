"""Seat tenure: which holding of a seat a feed was opened under (docs/api.md, "Hidden information").

Every seat of a match record may carry `tenure`, a number (0 when absent) raised by `hand_on`
each time the seat changes hands: a join takes it, a leave while the match waits frees it, a
claimed invitation gives it a new token, an erasure unbinds its player. The commit script
stores the tenures of all seats in the match hash's field `t`, beside the events
(MatchRepository.commit asks `stored_form`), so a feed reads them in the same round trip as the
events it serves and checks every batch against the tenure its token was authenticated at: a
feed whose seat changed hands serves nothing after the change, whatever position it asked from
(service/matches/following.py). A player's own tokens (rotated, revoked) are checked apart there.

Kept in the record only for seats that changed hands, and as a number: a waiting feed's match
and holder weigh next to nothing more for it. Every way of handing a seat on is a method of
`Match` (service/matches/match.py: `join`, `leave`, `claim`, `erase_player`) and calls `hand_on`
itself, so no use case can forget it (tests/test_feed_tenure.py checks the ways it drives).
"""

from __future__ import annotations

from typing import Any


def hand_on(seat: dict[str, Any]) -> None:
    """The seat changes hands (or loses its holder): feeds opened by whoever held it end."""
    seat["tenure"] = seat.get("tenure", 0) + 1


def of_seat(seats: list[dict[str, Any]], seat: int) -> int:
    """The seat's tenure as the record shows it."""
    return seats[seat].get("tenure", 0)


def stored_form(seats: list[dict[str, Any]]) -> str:
    """The tenures as the match hash keeps them (`t`): one number a seat, comma separated."""
    return ",".join([str(s.get("tenure", 0)) for s in seats])


def stored(tenures: bytes | None, seat: int) -> int:
    """The seat's tenure in the match hash's field as read (none: a match stored before
    tenures existed, whose seats are all in their first)."""
    if not tenures:
        return 0
    marks = tenures.split(b",")
    return int(marks[seat]) if seat < len(marks) else 0
